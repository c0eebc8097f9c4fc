#!/usr/bin/env python3
"""Switching among real sessions: the console on tty1, alice's and bob's
sway (under seatd) on VT2 and VT3, weston on VT4, Xorg on VT5 and a
kmsvt-session on VT6, in the Xorg guest's Debian image
(tests/lib/wayland.py), on kmsvt and on the in-tree bochs driver with the
same userspace, the same QEMU, in the same run.

Each cycle goes 1->2->3->4->5->6->1 and back 1->6->5->4->3->2->1: every
kind of neighbour pair both ways.  Each switch is timed by
`kmsvt-switch -d /dev/dri/card0`, the same way for every owner and driver:
from the request to the new owner's first commit (the CRTC shows another
framebuffer).  kmsvt shows a committed framebuffer at the next vblank, 0 to
16.7 ms later; bochs, which has no vblank, at once.  After every switch the
screendump must show the new owner's picture.

usage: tests/bench/desktop.py [-n CYCLES] [--markdown] [KERNEL_RELEASE ...]
"""
import os
import re
import sys
import time

# Run as a script, a benchmark puts tests/lib (the harness it shares with
# the tests) on the import path; its own folder is there already.
LIB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib")
if LIB not in sys.path:
    sys.path.insert(0, LIB)

import harness  # noqa: E402
import initramfs  # noqa: E402
import seat  # noqa: E402
import switch  # noqa: E402
import wayland  # noqa: E402
import xorg  # noqa: E402
from debugfs import debugfs_numbers  # noqa: E402
from harness import check  # noqa: E402

FLAVOURS = switch.FLAVOURS
DEFAULT_CYCLES = 10
COUNTERS = ("modesets", "mode_reloads", "blanks")
TOOLS = ("kmsvt-session", "kmsvt-switch")

ORDER = (2, 3, 4, 5, 6, 1, 6, 5, 4, 3, 2, 1)


def programs():
    progs = [os.path.join(initramfs.BUILD, "userspace", t) for t in TOOLS]
    for p in progs:
        check(os.path.exists(p), "%s missing: run make" % p)
    return progs


def what(vt):
    """The kind of owner of vt: console, sway, weston, Xorg, kmsvt-session."""
    if vt == wayland.SESSION_VT:
        return "kmsvt-session"
    return wayland.DESKTOP[vt][0].split()[0] if vt in wayland.DESKTOP else "console"


def timed_switch(g, vt):
    """kmsvt-switch -d to vt; ms to the new owner's first commit."""
    st, out = g.wsh("kmsvt-switch -t 5000 -d /dev/dri/card0 %d" % vt)
    m = re.search(r"-> (\d+): active after [\d.]+ ms, new framebuffer after ([\d.]+) ms", out)
    check(st == 0 and m and int(m.group(1)) == vt, "%s: kmsvt-switch %d: exit %d, %r" % (
        g.name, vt, st, out))
    g.show(vt)
    return float(m.group(2))


def kind(a, b):
    return "%s -> %s" % (what(a), what(b))


def kinds():
    """The kinds of switch in ORDER, once each, in order."""
    out, vt = [], 1
    for nxt in ORDER:
        if kind(vt, nxt) not in out:
            out.append(kind(vt, nxt))
        vt = nxt
    return out


def first_error(why):
    """The first error line of a session's log in a failure message."""
    for line in why.splitlines():
        if "[ERROR]" in line or "(EE)" in line:
            return line.split("]")[-1].strip() if "[ERROR]" in line else line.strip()
    return why.splitlines()[0][:200]


def measure(rel, flavour, cycles):
    ctx = harness.Ctx(rel)
    try:
        g = wayland.guest(ctx, "bench-desktop-" + flavour, flavour=flavour, programs=programs())
        _, drv = g.sh("readlink /sys/class/drm/card0/device/driver")
        check(drv.strip().endswith("/" + xorg.PCI_DRIVER[flavour]), "card0 driver is %r" % drv)
        failed = {}
        g.start_desktop(failed=failed)
        g.sh("chvt 1", check=True)
        g.show(1)
        before = debugfs_numbers(g, "kmsvt_stats") if flavour == "kmsvt" else None
        times, vt = {k: [] for k in kinds()}, 1
        times["cycles"] = cycles
        times["down"] = ["%s: %s" % (what(v), first_error(why)) for v, why in failed.items()]
        for _ in range(cycles):
            for nxt in ORDER:
                if nxt in failed:
                    continue
                times.setdefault(kind(vt, nxt), []).append(timed_switch(g, nxt))
                vt = nxt
        if before:
            after = debugfs_numbers(g, "kmsvt_stats")
            times["counters"] = {k: after[k] - before[k] for k in COUNTERS}
        g.assert_no_oops()
        return times
    finally:
        ctx.close()


def table(rel, results, markdown):
    pct = seat.pct
    head = ["switch", "kmsvt p50/p95/max ms", "bochs p50/p95/max ms", "p50 kmsvt/bochs"]
    rows = []
    every = kinds() + sorted({k for fl in FLAVOURS for k in results[fl]
                              if " -> " in k and k not in kinds()})
    every = [k for k in every if any(results[fl].get(k) for fl in FLAVOURS)]
    for k in every:
        cells = [k]
        for fl in FLAVOURS:
            cells.append(switch.cell(results[fl].get(k)))
        a, b = results["kmsvt"].get(k), results["bochs"].get(k)
        cells.append("%.2f" % (pct(a, 50) / max(pct(b, 50), 1e-3)) if a and b else "")
        rows.append(cells)
    out = ["%s (%d cycles per driver, each kind of switch once or twice a cycle; "
           "ms to the new owner's first commit)" % (rel, results["kmsvt"]["cycles"])]
    out += switch.rows_text(head, rows, markdown, 30)
    counts = results["kmsvt"].get("counters", {})
    out.append("")
    for fl in FLAVOURS:
        for line in results[fl].get("down", []):
            out.append("%s: did not start: %s" % (fl, line))
    out.append("kmsvt over all its switches: %s" % ", ".join(
        "%d %s" % (counts[k], k) for k in COUNTERS if k in counts))
    return "\n".join(out)


def run_all(kernels, cycles=DEFAULT_CYCLES, markdown=False, log=print):
    """Returns the number of failed boots."""
    return switch.run_drivers(measure, table, kernels, cycles, markdown, log)


if __name__ == "__main__":
    switch.main(__doc__, run_all, DEFAULT_CYCLES)
