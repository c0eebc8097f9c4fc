"""kmsvt-fuzz, the seeded fuzzer of the card, /dev/fb0 and a VT, run in a
guest from four processes at once, and what must hold after it: the kernel
reported nothing (no oops, WARNING, BUG, KFENCE or SLUB report), every
buffer is freed (kmsvt's debugfs counters back to where they were) and the
console still draws.  fuzz_and_check() is the suite's test_fuzz
(tests/guest/test_fuzz.py) and make fuzz's long run (tests/fuzz_long.py).

The fuzzer's output (seed, calls per ioctl) goes to
build/test-logs/<guest>-kmsvt-fuzz.log.  KMSVT_FUZZ_ARGS adds options (for
a developer's run, never the suite's)."""
import os
import re
import time

import harness
import initramfs
import vm
from debugfs import debugfs_numbers, wait_vram_used
from harness import CLEAR, check

PROCS = 4
# More options for kmsvt-fuzz, e.g. "--only drm,vt,fault" (never in the suite).
EXTRA = os.environ.get("KMSVT_FUZZ_ARGS", "")

# SLUB checks every free (redzones, poison), freed pages are poisoned, and
# on 6.12 KFENCE samples an allocation every millisecond (6.1 has no
# KFENCE and ignores the parameter).
CMDLINE = "slub_debug=FZPU page_poison=1 kfence.sample_interval=1"

# What else the kernel says when something went wrong, beyond harness's
# OOPS_RX: SLUB's "BUG kmalloc-64 (Tainted: ...): Poison overwritten",
# KFENCE, list debugging, allocation failures, hung tasks and lockups.
REPORT_RX = re.compile(harness.OOPS_RX.pattern + r"|BUG [\w-]+ \(|KFENCE|Poison overwritten|"
                       r"Redzone|Object padding|list_add corruption|list_del corruption|"
                       r"page allocation failure|vmalloc error|blocked for more than|"
                       r"soft lockup|rcu.*stall|Bad page")

# Slab grows and shrinks with caches the fuzzer touches outside kmsvt
# (dentries of /proc, tty buffers, a VT allocated by VT_ACTIVATE): kmsvt's
# own counters are checked exactly, Slab only for a gross leak.
SLAB_SLACK_KB = 8192


def meminfo(g):
    st, out = g.sh("cat /proc/meminfo")
    check(st == 0, "%s: no /proc/meminfo" % g.name)
    return {k: int(v) for k, v in re.findall(r"^(\w+):\s+(\d+)", out, re.M)}


def report(log):
    """The first report in log (a match object), but none on the lines
    the harness knows are not (harness.NOT_REPORT_RX: the command line,
    pstore_zone's "kmsg(Oops,panic_write)")."""
    pos = 0
    for line in log.splitlines(keepends=True):
        m = REPORT_RX.search(log, pos, pos + len(line))
        if m and not harness.NOT_REPORT_RX.search(line):
            return m
        pos += len(line)
    return None


def assert_no_report(g):
    log = g.dmesg()
    m = report(log)
    check(not m, "%s: kernel reported a problem while fuzzing:\n%s" % (
        g.name, log[max(0, m.start() - 1500):m.start() + 2500] if m else ""))


def run_fuzz(g, args, timeout):
    """kmsvt-fuzz in the guest; its output saved in build/test-logs/."""
    log = os.path.join(vm.LOGDIR, "%s-kmsvt-fuzz.log" % g.name)
    try:
        st, out = g.sh("kmsvt-fuzz %s" % args, timeout=timeout)
    except vm.VmError:
        # The fuzzer never hangs by itself; the kernel did.  Keep what it said.
        with open(log, "w") as f:
            f.write("# kmsvt-fuzz %s: no end after %d s\n%s" % (args, timeout, g.output()))
        raise
    with open(log, "w") as f:
        f.write("# kmsvt-fuzz %s (exit status %d)\n%s" % (args, st, out))
    summary = re.search(r"^kmsvt-fuzz: seed (\d+): (\d+) calls in ([\d.]+) s \(\d+/s\), "
                        r"\d+ processes, (\d+) anomalies: (\w+)$", out, re.M)
    check(summary and st == 0 and summary.group(5) == "ok",
          "%s: kmsvt-fuzz %s exited %d:\n%s" % (g.name, args, st, out[-6000:]))
    return int(summary.group(2)), float(summary.group(3)), out


def fuzz_and_check(ctx, name, seed, calls, seconds):
    g = fuzz_guest(ctx, name)
    g.tty_write(CLEAR + "console before kmsvt-fuzz\n")
    g.wait_screen_text("console before kmsvt-fuzz")
    before, mem0 = debugfs_numbers(g, "vram"), meminfo(g)
    t0 = time.monotonic()
    done, secs, out = run_fuzz(g, "--seed %d --calls %d --seconds %d --procs %d %s" % (
        seed, calls, seconds, PROCS, EXTRA), timeout=seconds + 300)
    print("%s: %d calls in %.0f s (%.0f/s; %.0f s with the restore)" % (
        g.name, done, secs, done / secs, time.monotonic() - t0), flush=True)
    assert_no_report(g)
    check(done >= calls or secs >= seconds, "%s: %d calls in %.0f s: the fuzzer stopped "
          "early" % (g.name, done, secs))
    check_memory(g, before, mem0)
    # Nothing of the fuzzer is left: fbdev has the display, tty1 is shown.
    g.tty_write(CLEAR + "console after kmsvt-fuzz\n")
    img, _ = g.wait_screen_text("console after kmsvt-fuzz")
    check((img.width, img.height) == (1280, 800), "%s: console mode not restored: %dx%d" % (
        g.name, img.width, img.height))
    assert_no_report(g)
    g.assert_no_oops()
    return g, out


def fuzz_guest(ctx, name):
    prog = os.path.join(initramfs.BUILD, "userspace", "kmsvt-fuzz")
    check(os.path.exists(prog), "kmsvt-fuzz not built: run make")
    # tests/run.py may boot every guest with these checks already.
    cmdline = "" if getattr(harness, "MEMCHECK", False) else CMDLINE
    return ctx.guest(name, programs=[prog], tag="fuzz", cmdline=cmdline)


def check_memory(g, before, mem0):
    """VRAM and system memory of buffers back to the baseline, exactly."""
    wait_vram_used(g, before["vram_used"])
    deadline = time.monotonic() + 20
    while True:
        after = debugfs_numbers(g, "vram")
        if after["sysmem_used"] == before["sysmem_used"] or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    for key in ("vram_used", "sysmem_used"):
        check(after[key] == before[key], "%s: %s %d before kmsvt-fuzz, %d after" % (
            g.name, key, before[key], after[key]))
    mem1 = meminfo(g)
    print("%s: Slab %d -> %d kB, MemFree %d -> %d kB" % (
        g.name, mem0["Slab"], mem1["Slab"], mem0["MemFree"], mem1["MemFree"]), flush=True)
    check(mem1["Slab"] - mem0["Slab"] < SLAB_SLACK_KB, "%s: Slab grew by %d kB" % (
        g.name, mem1["Slab"] - mem0["Slab"]))
