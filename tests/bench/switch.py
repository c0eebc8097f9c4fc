#!/usr/bin/env python3
"""Switch-latency benchmark: fast user switching under Debian's seatd with
two kmsvt-session sessions (alice on VT2, bob on VT3) and the console on
tty1, on kmsvt and on the in-tree bochs driver with the same userspace, the
same QEMU, in the same run.

Each boot cycles 2->3->1->2 N times (tests/lib/seat.py does the switching
and reads every switch back from the screen) and times each switch with
kmsvt-switch: from the request to the new session's first frame (the page
flip event's timestamp, which the session writes to its status file), or to
the console's VT being active.  The table has p50, p95 and max of each kind
of switch per driver, and the ratio kmsvt/bochs of the p95.

bochs has no vblank: its flips complete at once, without waiting for a
frame, so its times lack the wait for the next vblank that a vsynced flip
on kmsvt includes (8 ms on average at 60 Hz).

usage: tests/bench/switch.py [-n SWITCH_CYCLES] [--markdown] [KERNEL_RELEASE ...]
"""
import argparse
import os
import sys

# Run as a script, a benchmark puts tests/lib (the harness it shares with
# the tests) on the import path; its own folder is there already.
LIB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib")
if LIB not in sys.path:
    sys.path.insert(0, LIB)

import harness  # noqa: E402
import initramfs  # noqa: E402
import seat  # noqa: E402
from debugfs import debugfs_numbers  # noqa: E402

FLAVOURS = ("kmsvt", "bochs")
DEFAULT_CYCLES = 100


# kmsvt's own account of the display (debugfs kmsvt_stats) over the cycle:
# full modesets, DISPI mode reloads and pictures turned black.
COUNTERS = ("modesets", "mode_reloads", "blanks")


def stats(g, flavour):
    """kmsvt_stats, or None on bochs, which has no such counters."""
    if flavour != "kmsvt":
        return None
    return debugfs_numbers(g, "kmsvt_stats")


def measure(rel, flavour, cycles):
    ctx = harness.Ctx(rel)
    try:
        g = seat.seat_guest(ctx, "bench-switch-" + flavour, flavour=flavour)
        _, drv = g.sh("readlink /sys/class/drm/card0/device/driver")
        want = "kmsvt" if flavour == "kmsvt" else "bochs-drm"
        harness.check(drv.strip().endswith("/" + want), "card0 driver is %r" % drv)
        sessions = seat.alice_and_bob(g)
        before = stats(g, flavour)
        times = seat.cycle(g, sessions, cycles)
        after = stats(g, flavour)
        g.assert_no_oops()
        if after:
            times["counters"] = {k: after[k] - before[k] for k in COUNTERS}
        return times
    finally:
        ctx.close()


def cell(xs):
    """p50 / p95 / max of xs, or n/a."""
    pct = seat.pct
    return "%.1f / %.1f / %.1f" % (pct(xs, 50), pct(xs, 95), max(xs)) if xs else "n/a"


def rows_text(head, rows, markdown, width):
    """A table's lines: Markdown, or text with the first column width wide."""
    if markdown:
        return (["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] +
                ["| " + " | ".join(r) + " |" for r in rows])
    return [("  %%-%ds %%-24s %%-24s %%s" % width) % tuple(r) for r in [head] + rows]


def table(rel, results, markdown):
    pct = seat.pct
    head = ["switch", "kmsvt p50/p95/max ms", "bochs p50/p95/max ms", "p95 kmsvt/bochs"]
    rows = []
    for kind in seat.KINDS:
        cells = [kind]
        for fl in FLAVOURS:
            cells.append(cell(results[fl][kind]))
        cells.append("%.2f" % (pct(results["kmsvt"][kind], 95) /
                               max(pct(results["bochs"][kind], 95), 1e-3)))
        rows.append(cells)
    n = len(results["kmsvt"][seat.KINDS[0]])
    out = ["%s (%d switches of each kind per driver)" % (rel, n)]
    out += rows_text(head, rows, markdown, 22)
    counts = results["kmsvt"].get("counters", {})
    out.append("")
    out.append("kmsvt over all %d switches: %s" % (
        3 * n, ", ".join("%d %s" % (counts[k], k) for k in COUNTERS if k in counts)))
    return "\n".join(out)


def run_drivers(measure, table, kernels, cycles, markdown=False, log=print):
    """measure(rel, flavour, cycles) on each kernel for kmsvt and bochs,
    then log table(rel, results, markdown); the number of failed boots.
    The desktop benchmark runs this way too."""
    failed = 0
    for rel in kernels:
        results = {}
        for fl in FLAVOURS:
            try:
                results[fl] = measure(rel, fl, cycles)
            except Exception as e:  # a failed boot is reported, never counted
                log("%s %s: FAILED: %s" % (rel, fl, e))
                failed += 1
        if len(results) == len(FLAVOURS):
            log(table(rel, results, markdown))
    return failed


def run_all(kernels, cycles=DEFAULT_CYCLES, markdown=False, log=print):
    """Returns the number of failed boots."""
    return run_drivers(measure, table, kernels, cycles, markdown, log)


def main(doc=__doc__, run=run_all, cycles=DEFAULT_CYCLES):
    """The command line of this benchmark and of the desktop one."""
    ap = argparse.ArgumentParser(description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--cycles", type=int, default=cycles)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args()
    harness.require_tools()
    sys.exit(1 if run(args.kernels or initramfs.full_releases(), args.cycles, args.markdown) else 0)


if __name__ == "__main__":
    main()
