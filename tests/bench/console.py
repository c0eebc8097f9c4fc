#!/usr/bin/env python3
"""Console throughput: text written to tty1 at 1280x800, kmsvt against the
in-tree bochs driver, the same QEMU, in the same run.

Each boot writes two files of SIZE bytes to /dev/tty1 with kmsvt-conbench
(the VT layer draws inside write(), so the time write() takes is the
console's):

  varied    a hexdump of random bytes: every character cell changes on
            every scrolled line, so fbcon redraws the whole screen each time
  repeated  one line over and over: the cells do not change when the screen
            scrolls, and fbcon draws only what changed

and then measures the floor in the same boot: one memset of the whole
visible screen through /dev/fb0 (the console's buffer), times the lines
that scrolled.  Without acceleration (Debian's kernels have none) fbcon
cannot show varied text faster than that; kmsvt's own console draws at
most once a frame, not once a scrolled line, and can go below it.  The
flavours are kmsvt, kmsvt-fbcon (kmsvt.vtcon=0: fbcon on kmsvt's
framebuffer) and bochs; boots alternate between them; the table has the
medians, bochs/kmsvt and kmsvt-fbcon/kmsvt (how many times faster kmsvt is)
and kmsvt/floor.  write() returns once the VT holds the text: the last
frame is drawn after it, within a frame (16 ms).  Every boot must show the last line of the
repeated file on the screen (read from a screendump), or it is reported as
failed and not counted.

usage: tests/bench/console.py [-n BOOTS] [--size BYTES] [--markdown] [KERNEL_RELEASE ...]
"""
import argparse
import os
import re
import statistics
import sys

# Run as a script, a benchmark puts tests/lib (the harness it shares with
# the tests) on the import path; its own folder is there already.
LIB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib")
if LIB not in sys.path:
    sys.path.insert(0, LIB)

import harness  # noqa: E402
import initramfs  # noqa: E402
from boot import CMDLINE, DRIVER, FLAVOURS  # noqa: E402  (the same three flavours)
from harness import CLEAR  # noqa: E402

REPO = initramfs.REPO

DEFAULT_BOOTS = 2
DEFAULT_SIZE = 256 * 1024
# make bench also writes 4 MiB, in one boot per flavour (bochs takes minutes).
LARGE_SIZE = 4 * 1024 * 1024
LARGE_BOOTS = 1
TOOL = os.path.join(REPO, "build", "userspace", "kmsvt-conbench")
LINE = "the same line over and over: the console redraws only what changed"
KINDS = ("varied", "repeated")


def make_files(g, size):
    """The two files, in the guest's /tmp; their line counts."""
    g.sh("head -c %d /dev/urandom | hexdump -C | head -c %d > /tmp/varied"
         % (size // 3, size), check=True, timeout=900)
    g.sh("yes '%s' | head -c %d > /tmp/repeated" % (LINE, size), check=True, timeout=300)
    g.sh("echo '%s' >> /tmp/repeated" % LINE, check=True)


def measure(rel, flavour, size, boot):
    """One boot: seconds for each kind, the floor for varied, fill_ms."""
    ctx = harness.Ctx(rel)
    try:
        g = ctx.guest("bench-console-%s-%d" % (flavour, boot), flavour=DRIVER[flavour],
                      programs=(TOOL,), tag="conbench-" + DRIVER[flavour],
                      cmdline=" ".join(("consoleblank=0", CMDLINE.get(flavour, ""))).strip())
        make_files(g, size)
        g.tty_write(CLEAR)
        st, out = g.sh("kmsvt-conbench -n 0 /tmp/varied /tmp/repeated", timeout=1800)
        harness.check(st == 0, "kmsvt-conbench failed: %r" % out)
        # The console really drew it: the file's last line is on screen.
        g.wait_screen_text(LINE)
        # The floor last: its memsets wipe the screen.
        st, floor = g.sh("kmsvt-conbench", timeout=300)
        harness.check(st == 0, "kmsvt-conbench (floor) failed: %r" % floor)
        out += floor
        res = {}
        for name, lines, secs in re.findall(r"file /tmp/(\w+) bytes \d+ lines (\d+) "
                                            r"seconds ([\d.]+)", out):
            res[name] = float(secs)
            res[name + "_lines"] = int(lines)
        res["fill_ms"] = float(re.search(r"fill_ms ([\d.]+)", out).group(1))
        rows = int(re.search(r"rows (\d+)", out).group(1))
        # Every line past the first screenful scrolled the screen once.
        res["floor"] = max(res["varied_lines"] - rows, 0) * res["fill_ms"] / 1e3
        g.assert_no_oops()
        return res
    finally:
        ctx.close()


def table(rel, results, size, markdown):
    med = {fl: {k: statistics.median(r[k] for r in results[fl])
                for k in results[fl][0]} for fl in FLAVOURS}
    k, f, b = med["kmsvt"], med["kmsvt-fbcon"], med["bochs"]
    head = ["text", "kmsvt s", "kmsvt-fbcon s", "bochs s", "bochs/kmsvt", "kmsvt-fbcon/kmsvt",
            "floor s", "kmsvt/floor"]
    rows = [[kind, "%.2f" % k[kind], "%.2f" % f[kind], "%.2f" % b[kind],
             "%.2f" % (b[kind] / k[kind]), "%.2f" % (f[kind] / k[kind])]
            + (["%.2f" % k["floor"], "%.2f" % (k[kind] / k["floor"])] if kind == "varied"
               else ["", ""]) for kind in KINDS]
    out = ["%s (%d KiB each, %d boots per driver; floor: %d scrolled lines x %.3f ms, "
           "one full-screen memset on kmsvt's console buffer; bochs' was %.3f ms)" % (
               rel, size // 1024, len(results["kmsvt"]), k["varied_lines"], k["fill_ms"],
               b["fill_ms"])]
    if markdown:
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        out += ["| " + " | ".join(r) + " |" for r in rows]
    else:
        out += ["  %-9s %-9s %-14s %-9s %-12s %-18s %-9s %s" % tuple(r) for r in [head] + rows]
    return "\n".join(out)


def run_all(kernels, boots=DEFAULT_BOOTS, size=DEFAULT_SIZE, markdown=False, log=print):
    """Returns the number of failed boots."""
    failed = 0
    for rel in kernels:
        results = {fl: [] for fl in FLAVOURS}
        for i in range(boots):
            for fl in FLAVOURS:
                try:
                    results[fl].append(measure(rel, fl, size, i))
                except Exception as e:  # a failed boot is reported, never counted
                    log("%s %s boot %d: FAILED: %s" % (rel, fl, i, e))
                    failed += 1
        if all(results[fl] for fl in FLAVOURS):
            log(table(rel, results, size, markdown))
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--boots", type=int, default=DEFAULT_BOOTS)
    ap.add_argument("--size", type=int, default=DEFAULT_SIZE)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args()
    harness.require_tools()
    sys.exit(1 if run_all(args.kernels or initramfs.releases(), args.boots, args.size,
                          args.markdown) else 0)


if __name__ == "__main__":
    main()
