"""Guest tests: kmsvt-test, our libdrm client, checks the driver through the
standard KMS ioctls (atomic TEST_ONLY, flip events, vblank waits, GEM auth,
PRIME, bad input); the tests add what only the host sees: no oops, no VRAM
leaked, and the console back on screen when the client exits."""
import os
import re
import time

import initramfs
import vm
from harness import check

GROUPS = ("atomic", "flip", "vblank", "auth", "prime", "bad", "mem", "turns", "perm")
CLEAR = "\033[2J\033[H"


def tool_guest(ctx, name, tool, tag):
    """A guest whose image has build/userspace/TOOL."""
    prog = os.path.join(initramfs.BUILD, "userspace", tool)
    check(os.path.exists(prog), "%s not built: run make" % tool)
    return ctx.guest(name, programs=[prog], tag=tag)


def client_guest(ctx, name):
    return tool_guest(ctx, name, "kmsvt-test", "client")


def debugfs_numbers(g, file):
    """kmsvt's dri/N/FILE as a dict of its "key: number" lines."""
    st, out = g.sh("cat /sys/kernel/debug/dri/*/%s" % file)
    check(st == 0, "%s: no dri/N/%s: %r" % (g.name, file, out[-500:]))
    return {k: int(v) for k, v in re.findall(r"(\w+): (\d+)$", out, re.M)}


def vram_used(g):
    nums = debugfs_numbers(g, "vram")
    check("vram_used" in nums, "%s: no vram_used in debugfs: %r" % (g.name, nums))
    return nums["vram_used"]


def wait_vram_used(g, want, timeout=20):
    """Buffers of a closed client go with its last state: allow a moment."""
    deadline = time.monotonic() + timeout
    while True:
        got = vram_used(g)
        if got == want or time.monotonic() > deadline:
            return got
        time.sleep(0.5)


def check_output(g, args, st, out):
    """kmsvt-test's exit status st and output: every check passed."""
    # kmsvt-test skips what a driver lacks (for use on other drivers); kmsvt
    # lacks nothing it checks, so here a skip is a failure.
    failures = [ln for ln in out.splitlines()
                if ln.startswith("not ok") or re.match(r"ok \S+ # SKIP", ln)]
    summary = re.search(r"^(\d+) passed, (\d+) failed$", out, re.M)
    check(st == 0 and not failures and summary and summary.group(2) == "0"
          and "skipped" not in out
          and int(summary.group(1)) > 0,
          "%s: kmsvt-test %s exited %d; failed checks:\n  %s\noutput:\n%s" % (
              g.name, args, st, "\n  ".join(failures) or "(none)", out[-4000:]))


def run_client(g, args, timeout=600):
    """Run kmsvt-test in the guest; every check must pass.  Returns the output."""
    st, out = g.sh("kmsvt-test %s" % args, timeout=timeout)
    with open(os.path.join(vm.LOGDIR, "%s-%s.log" % (g.name, args.replace(" ", "_"))), "w") as f:
        f.write(out)
    check_output(g, args, st, out)
    return out


def test_client_all(ctx):
    g = client_guest(ctx, "client-all")
    g.tty_write(CLEAR + "console before kmsvt-test\n")
    g.wait_screen_text("console before kmsvt-test")
    before = vram_used(g)
    out = run_client(g, "--all")
    for name in ("flip_rate", "vblank_60_timing", "auth_unauth_flink_refused",
                 "prime_mmap_shared", "bad_close_with_flip_pending"):
        check(re.search(r"^ok %s\b" % name, out, re.M), "%s: no 'ok %s' in:\n%s" % (
            g.name, name, out[-3000:]))
    after = wait_vram_used(g, before)
    check(after == before, "%s: VRAM used %d before kmsvt-test, %d after" % (g.name, before, after))
    # The client restores nothing: fbdev takes the display back on close.
    img, _ = g.wait_screen_text("console before kmsvt-test")
    check((img.width, img.height) == (1280, 800), "%s: console mode not restored: %dx%d" % (
        g.name, img.width, img.height))
    g.assert_no_oops()


def test_client_groups(ctx):
    """Each group on its own, in a fresh process: none depends on another."""
    g = client_guest(ctx, "client-groups")
    st, listed = g.sh("kmsvt-test --list")
    check(st == 0 and tuple(listed.split()) == GROUPS, "kmsvt-test --list: %r" % listed)
    st, usage = g.sh("kmsvt-test --help")
    check(st == 0 and all(grp in usage for grp in GROUPS), "kmsvt-test --help: %r" % usage)
    before = vram_used(g)
    for grp in GROUPS:
        run_client(g, grp)
    after = wait_vram_used(g, before)
    check(after == before, "%s: VRAM used %d before, %d after" % (g.name, before, after))
    g.assert_no_oops()
