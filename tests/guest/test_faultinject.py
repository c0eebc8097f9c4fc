"""Guest tests for the debug kernel only (make test-debug): allocation
failures injected into kmsvt's own calls.  Not in tests/run.py's suite:
Debian's kernels have no fault injection, and on them these tests fail at
once, saying so.

test_load_failures: kmsvt.ko is loaded (finit_module, tests/guest/files/failnth.c)
with /proc/thread-self/fail-nth failing the N-th allocation made with
module code on the stack (failslab and fail_page_alloc, require-start/end
= the module area): kmsvt's init and probe and the DRM/TTM helpers they
call, not the module loader.  A dry run counts those allocations; then N
goes over them (every one up to KMSVT_FAULT_POINTS, default 40, else that
many spread evenly, the first and last included).  Each load must end
cleanly: an error (no module left) or a working module that unloads; the
kernel reports nothing (lockdep, KASAN, WARNING, ...: tests/run.py reads
dmesg after the test, with KMSVT_DEBUG_CHECKS=1 kmemleak scans), and a
last load with no failure brings the console back and passes kmsvt-test.

test_client_failures: every kmsvt-test group runs with failslab and
fail_page_alloc failing a share (KMSVT_FAULT_PERCENT, default 20) of the
allocations of the kmsvt-test process made with kmsvt's text on the stack
(task-filter, make-it-fail, require-start/end = kmsvt's text).  The
groups' results are not checked (their ioctls get ENOMEM); afterwards the
same groups run without failures and pass, the console is on screen, and
the kernel reported nothing.
"""
import os
import re
import subprocess

import debugchecks
import harness
import initramfs
from client import check_output
from harness import CLEAR, check

# make test-debug's kernel only: tests/run.py runs this module when
# --modules names it, never in the suite.
SUITE = False
FAILNTH_SRC = os.path.join(initramfs.GUEST_FILES, "failnth.c")
# x86_64 with KASLR off (the debug kernel: tinyconfig has no
# RANDOMIZE_BASE): MODULES_VADDR .. MODULES_END.
MODULES_START, MODULES_END = 0xffffffffa0000000, 0xffffffffff000000
POINTS = int(os.environ.get("KMSVT_FAULT_POINTS", "40"))
PERCENT = int(os.environ.get("KMSVT_FAULT_PERCENT", "20"))
ATTRS = ("failslab", "fail_page_alloc")
DBG = "/sys/kernel/debug"


def failnth_binary():
    """tests/guest/files/failnth.c built static (no libraries in the image)."""
    out = os.path.join(initramfs.BUILD, "userspace", "failnth")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(FAILNTH_SRC):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        subprocess.run(["cc", "-O2", "-Wall", "-Werror", "-static", "-o", out, FAILNTH_SRC],
                       check=True)
    return out


def fi_guest(ctx, name, **kw):
    prog = os.path.join(initramfs.BUILD, "userspace", "kmsvt-test")
    check(os.path.exists(prog), "kmsvt-test not built: run make")
    g = ctx.guest(name, programs=[prog, failnth_binary()], tag="faultinject", **kw)
    st, out = g.sh("ls %s/failslab/require-start %s/fail_page_alloc/require-start "
                   "/proc/self/fail-nth" % (DBG, DBG))
    check(st == 0, "%s: this kernel has no fault injection (failslab, fail_page_alloc, "
          "fail-nth, stack filter): test_faultinject runs on the debug kernel, "
          "make test-debug; got: %s" % (g.name, out.strip()))
    return g


def text_range(g, func):
    """[start, end) of a kernel function, from /proc/kallsyms."""
    st, out = g.sh("sort /proc/kallsyms | grep -A1 ' %s$' | head -2" % func, check=True)
    addrs = [int(ln.split()[0], 16) for ln in out.splitlines() if ln.strip()]
    check(len(addrs) == 2 and addrs[1] > addrs[0], "%s: %s not in kallsyms: %r" % (
        g.name, func, out))
    return addrs[0], addrs[1]


# Not kmsvt's: vmalloc's va_clip() WARNs when its GFP_NOWAIT split of a
# free area fails (mm/vmalloc.c), which ioremap in TTM's moves reaches;
# failures are not injected under alloc_vmap_area.
REJECT = "alloc_vmap_area"


def setup(g, start, end, probability, task_filter):
    rstart, rend = text_range(g, REJECT)
    cmds = []
    for a in ATTRS:
        d = "%s/%s" % (DBG, a)
        cmds += ["echo N > %s/ignore-gfp-wait" % d,
                 "echo %d > %s/require-start" % (start, d),
                 "echo %d > %s/require-end" % (end, d),
                 "echo %d > %s/reject-start" % (rstart, d),
                 "echo %d > %s/reject-end" % (rend, d),
                 "echo 32 > %s/stacktrace-depth" % d,
                 "echo %s > %s/task-filter" % ("Y" if task_filter else "N", d),
                 "echo 1 > %s/interval" % d,
                 "echo 1000000 > %s/times" % d,
                 "echo 0 > %s/space" % d,
                 "echo 1 > %s/verbose" % d,
                 "echo %d > %s/probability" % (probability, d)]
    cmds.append("echo 0 > %s/fail_page_alloc/min-order" % DBG)
    g.sh(" && ".join(cmds), check=True)


def injected(g):
    """Failures injected since setup(), from the times counters."""
    total = 0
    for a in ATTRS:
        st, out = g.sh("cat %s/%s/times" % (DBG, a), check=True)
        total += 1000000 - int(out.strip())
    return total


def off(g):
    g.sh(" && ".join("echo 0 > %s/%s/probability" % (DBG, a) for a in ATTRS), check=True)


def loaded(g):
    return g.sh("grep -q '^kmsvt ' /proc/modules")[0] == 0


def load(g, n, ko):
    st, out = g.sh("failnth %d %s" % (n, ko), timeout=300)
    m = re.search(r"failnth: n=\d+ rc=(-?\d+) errno=(\d+) \(([^)]*)\) left=(\d+)", out)
    check(st == 0 and m, "%s: failnth %d: %r" % (g.name, n, out[-2000:]))
    return int(m.group(1)), int(m.group(2)), m.group(3), int(m.group(4)), out


def unload(g, why):
    st, out = g.sh("rmmod kmsvt", timeout=120)
    check(st == 0 and not loaded(g), "%s: rmmod kmsvt after %s: %d %r" % (g.name, why, st, out))


# Groups whose checks are timings (vblank counts, flips at the refresh
# rate): a debug kernel under TCG on a busy host misses frames, so they are
# left out of the check that the driver still works.
TIMING_GROUPS = ("vblank", "turns")


def console_and_client(g, groups):
    """The console draws and kmsvt-test passes these groups (flip rates
    with a 50% tolerance)."""
    g.tty_write(CLEAR + "console after fault injection\n")
    g.wait_screen_text("console after fault injection", timeout=60)
    for grp in groups:
        if grp in TIMING_GROUPS:
            continue
        st, out = g.sh("kmsvt-test -t 50 %s" % grp, timeout=900)
        check_output(g, grp, st, out)


def spread(total, points):
    if total <= points:
        return list(range(1, total + 1))
    step = (total - 1) / (points - 1)
    return sorted({1 + round(i * step) for i in range(points)})


# Injected failures make the allocators warn ("page allocation failure",
# "vmalloc error", with a call trace): expected, not a report.
ALLOC_WARN_RX = re.compile(r"warn_alloc|page allocation failure|vmalloc error")


def new_reports(g):
    """The kernel's reports since the last call (dmesg is cleared, so that
    tests/run.py's check after the test sees only what came later), less
    the allocators' warnings about the failures injected."""
    log = g.sh("dmesg -c", timeout=60)[1]
    return [r for r in harness.kernel_reports(log) if not ALLOC_WARN_RX.search(r)]


# Reports of the DRM core's own error paths (6.12.95), reached by a failure
# injected under kmsvt's probe; docs/RELIABILITY.md has the source of each.
# The sweep counts them and goes on in a new guest (the old one is
# tainted); any other report fails the test.
CORE_REPORTS = {
    # drm_client_modeset_probe(): a krealloc() failing inside the connector
    # iteration jumps past drm_connector_list_iter_end().
    "drm_client_modeset_probe leaves drm_connector_list_iter held": re.compile(
        r"lock held when returning to user space[\s\S]*drm_connector_list_iter\b"
        r"[\s\S]*at: drm_client_modeset_probe"),
    # drm_dev_register(): drm_modeset_register_all() failing leaves
    # dev->registered true, and the failed probe's cleanup then WARNs in
    # drm_mode_object_unregister().
    "drm_dev_register leaves dev->registered set": re.compile(
        r"WARNING: .*drm_mode_object_unregister[\s\S]*drm_managed_release[\s\S]*really_probe"),
    # drm_vram_mm_init(): ttm_range_man_init() failing returns without
    # ttm_device_fini(), and the drm_vram_mm freed with it stays on TTM's
    # list of devices, which the next load's ttm_device_init() writes to.
    "drm_vram_mm_init leaves a freed ttm_device on TTM's list": re.compile(
        r"KASAN: slab-use-after-free in __list_add_valid_or_report[\s\S]*ttm_device_init"),
}


def core_report(report):
    """The DRM core's bug a report is, or None."""
    return next((k for k, rx in CORE_REPORTS.items() if rx.search(report)), None)


def report_key(report):
    """What identifies an oops: its RIP and the first kmsvt frame."""
    rip = re.search(r"RIP: 0010:(\S+)", report)
    ours = re.search(r"\b(kmsvt_\w+)\+0x\w+/0x\w+ \[kmsvt\]", report)
    return "%s via %s" % (rip.group(1) if rip else "?", ours.group(1) if ours else "?")


def log(g, name, text):
    with open(os.path.join(os.path.dirname(g.log_path), "%s.%s.log" % (g.name, name)), "w") as f:
        f.write(text)


def load_guest(ctx, rel):
    g = fi_guest(ctx, "fi-load", cmdline="drv=none")
    # The dependencies (drm, drm_kms_helper, ttm, ...) stay loaded: only
    # kmsvt's init and probe go under fault injection.
    g.sh("modprobe kmsvt && rmmod kmsvt", check=True, timeout=300)
    st, out = g.sh("awk '{print $6}' /proc/modules", check=True)
    addrs = [int(a, 16) for a in out.split()]
    check(addrs and all(MODULES_START <= a < MODULES_END for a in addrs),
          "%s: modules outside the expected module area: %r" % (g.name, out))
    setup(g, MODULES_START, MODULES_END, probability=0, task_filter=False)
    return g


def test_load_failures(ctx):
    """A failure at each point of kmsvt's load; an oops is recorded and the
    sweep goes on in a new guest, so that one run finds them all."""
    rel = ctx.rel
    ko = "/lib/modules/%s/extra/kmsvt.ko" % rel
    g = load_guest(ctx, rel)
    rc, err, msg, left, out = load(g, 1000000, ko)
    check(rc == 0, "%s: kmsvt does not load without failures: %s" % (g.name, out))
    total = 1000000 - left
    check(total > 0, "%s: no allocation counted under kmsvt's init: %s" % (g.name, out))
    unload(g, "the dry run")
    points = spread(total, POINTS)
    results = {"loaded": 0, "refused": 0, "not injected": 0, "oops": 0, "DRM core's": 0}
    errnos, lines, oopses, core = {}, [], {}, {}
    for n in points:
        st, out = g.sh("failnth %d %s" % (n, ko), timeout=300)
        m = re.search(r"failnth: n=\d+ rc=(-?\d+) errno=(\d+) \(([^)]*)\) left=(\d+)", out)
        problems = new_reports(g)
        what = "load"
        if m and not problems:
            rc, msg, left = int(m.group(1)), m.group(3), int(m.group(4))
            lines.append("n=%d: rc=%d (%s) injected=%s" % (n, rc, msg, left == 0))
            if left != 0:
                results["not injected"] += 1
            if rc == 0:
                results["loaded"] += 1
                what = "rmmod after the load"
                st, rm = g.sh("rmmod kmsvt", timeout=120)
                problems = new_reports(g)
                if not problems and (st != 0 or loaded(g)):
                    problems = ["rmmod kmsvt failed (%d): %s" % (st, rm.strip())]
            else:
                results["refused"] += 1
                errnos[msg] = errnos.get(msg, 0) + 1
                if loaded(g):
                    problems = ["finit_module failed (%s) but kmsvt is in /proc/modules" % msg]
        known = [core_report(r) for r in problems]
        if problems and all(known):
            results["DRM core's"] += 1
            for k, r in zip(known, problems):
                core.setdefault(k, (n, r))
            lines.append("n=%d: the DRM core's, in the %s: %s" % (n, what, "; ".join(set(known))))
        elif not m or problems:
            results["oops"] += 1
            report = next((r for r in problems if not core_report(r)), out[-3000:])
            key = "%s: %s" % (what, report_key(report))
            oopses.setdefault(key, (n, report))
            lines.append("n=%d: kernel report in the %s: %s" % (n, what, key))
        if not m or problems:
            # A fresh guest for the next point (the old one is tainted).
            ctx.guests.remove(g)
            g.close()
            g = load_guest(ctx, rel)
    off(g)
    summary = "%d allocations under kmsvt's init; %d loads with one failed: %r, errors %r" % (
        total, len(points), results, errnos)
    print("%s: %s" % (g.name, summary), flush=True)
    log(g, "faults", summary + "\n" + "\n".join(lines) + "\n\n" + "\n\n".join(
        "n=%d %s\n%s" % (n, k, r) for k, (n, r) in list(oopses.items()) + list(core.items())))
    check(not oopses, "%s: %d distinct kernel report(s) with allocations failing in kmsvt's "
          "load (%s):\n%s" % (g.name, len(oopses), summary, "\n----\n".join(
              "first at n=%d: %s\n%s" % (n, k, r[:3000]) for k, (n, r) in oopses.items())))
    g.sh("modprobe kmsvt", check=True, timeout=300)
    console_and_client(g, ["atomic", "flip"])


def test_client_failures(ctx):
    g = fi_guest(ctx, "fi-client")
    # Commits fail here on purpose: the DRM core's leak of a failed
    # commit's drm_crtc_commit (tests/lib/debugchecks.py) is logged, not
    # failed; any other leak of the display stack still fails the test.
    g.known_leaks = debugchecks.FAILED_COMMIT_LEAK
    st, out = g.sh("grep '\\[kmsvt\\]' /proc/kallsyms | awk '$2 ~ /^[tT]$/ {print $1}'",
                   check=True)
    addrs = sorted(int(a, 16) for a in out.split())
    check(addrs, "%s: no kmsvt text symbols in /proc/kallsyms" % g.name)
    start, end = addrs[0], addrs[-1] + 0x1000
    st, out = g.sh("cat /sys/module/kmsvt/sections/.text", check=True)
    check(int(out.strip(), 16) >= start - 0x1000,
          "%s: .text %s below the text symbols" % (g.name, out.strip()))
    st, listed = g.sh("kmsvt-test --list", check=True)
    groups = listed.split()
    setup(g, start, end, probability=PERCENT, task_filter=True)
    per_group, dark, found = {}, [], {}
    for grp in groups:
        before = injected(g)
        g.sh("dmesg -c >/dev/null; sh -c 'echo 1 > /proc/self/make-it-fail; "
             "exec kmsvt-test %s' >/tmp/fi.log 2>&1" % grp, timeout=900)
        per_group[grp] = injected(g) - before
        log(g, grp, g.sh("cat /tmp/fi.log; echo '# dmesg:'; dmesg")[1])
        for r in new_reports(g):
            found.setdefault(report_key(r), (grp, r))
        # The console must be back once the client is gone, failures or not.
        g.tty_write(CLEAR + "console after %s\n" % grp)
        try:
            g.wait_screen_text("console after %s" % grp, timeout=30)
        except AssertionError as e:
            dark.append("%s (%d failures injected): %s" % (grp, per_group[grp],
                                                          str(e).splitlines()[0]))
    off(g)
    total = sum(per_group.values())
    summary = "%d failures injected into kmsvt-test's ioctls: %r" % (total, per_group)
    print("%s: %s" % (g.name, summary), flush=True)
    log(g, "faults", summary + "\nconsole not back after: %r\nreports: %r\n" % (
        dark, list(found)))
    check(total > 0, "%s: no failure injected into kmsvt's calls: %r" % (g.name, per_group))
    check(not found, "%s: kernel report(s) with kmsvt's calls failing:\n%s" % (
        g.name, "\n----\n".join("in %s: %s\n%s" % (grp, k, r[:3000])
                                  for k, (grp, r) in found.items())))
    check(not dark, "%s: the console did not come back after a client whose calls "
          "failed:\n  %s" % (g.name, "\n  ".join(dark)))
    console_and_client(g, groups)
