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
most once a frame, not once a scrolled line, and can go below it.

The flavours, booted in turn:

  kmsvt        kmsvt's console, 8x16 font, scrollback on (64 KiB, the default)
  kmsvt-sb0    the same with scrollback=0
  kmsvt-16x32  kmsvt's console with the kernel's TER16x32 (80x25 cells),
               scrollback on
  kmsvt-fbcon  kmsvt.vtcon=0: fbcon on kmsvt's framebuffer
  bochs        the in-tree bochs driver and fbcon
  kmscon       Debian's kmscon 9.0 on kmsvt, on VT2, 8x16 font engine
               (160x50 cells), through /dev/fb0 (tests/lib/kmscon.py);
               the files are written to its pty by its shell

On a VT the time is write()'s: the VT layer takes the text inside it.
kmscon reads a pty, whose write() returns once the kernel buffers the
text, so its time runs up to the answer to a cursor position request sent
after the file (kmsvt-conbench -s), which kmscon sends once it has parsed
everything before it.  kmsvt's console and kmscon draw at most once a
frame, so their last frame comes within a frame (16 ms) of that.  The table has the medians, each flavour's time
against kmsvt's and bochs' against each, and kmsvt/floor.  Every boot must
show the last line of the repeated file on the screen (read from a
screendump, in the flavour's font), or it is reported as failed and not
counted.

usage: tests/bench/console.py [-n BOOTS] [--size BYTES] [--flavours A,B] [--markdown]
                              [KERNEL_RELEASE ...]
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

import boot  # noqa: E402
import harness  # noqa: E402
import initramfs  # noqa: E402
import kmscon  # noqa: E402
import screenreader  # noqa: E402
import xorg  # noqa: E402
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

# boot.py's three flavours and the console's own (see above).
FLAVOURS = boot.FLAVOURS[:1] + ("kmsvt-sb0", "kmsvt-16x32") + boot.FLAVOURS[1:] + ("kmscon",)
DRIVER = dict(boot.DRIVER, **{"kmsvt-sb0": "kmsvt", "kmsvt-16x32": "kmsvt", "kmscon": "kmsvt"})
CMDLINE = dict(boot.CMDLINE, **{"kmsvt-sb0": "modargs=scrollback=0",
                                "kmsvt-16x32": "modargs=font=TER16x32"})
FONT = {"kmsvt-16x32": "ter16x32"}
CONBENCH = "kmsvt-conbench -n 0 /tmp/varied /tmp/repeated"
# On a pty, write() returns before kmscon has read the text: -s.
CONBENCH_PTY = "kmsvt-conbench -t /dev/tty -s -n 0 /tmp/varied /tmp/repeated"


def make_files(g, size, where="/tmp"):
    """The two files, in the guest's folder where."""
    g.sh("head -c %d /dev/urandom | hexdump -C | head -c %d > %s/varied"
         % (size // 3, size, where), check=True, timeout=900)
    g.sh("yes '%s' | head -c %d > %s/repeated" % (LINE, size, where), check=True, timeout=300)
    g.sh("echo '%s' >> %s/repeated" % (LINE, where), check=True)


def run_vt(ctx, flavour, size, name):
    """kmsvt-conbench on tty1: its output, the floor last."""
    g = ctx.guest(name, flavour=DRIVER[flavour], programs=(TOOL,),
                  tag="conbench-" + DRIVER[flavour],
                  cmdline=" ".join(("consoleblank=0", CMDLINE.get(flavour, ""))).strip())
    make_files(g, size)
    g.tty_write(CLEAR)
    st, out = g.sh(CONBENCH, timeout=1800)
    harness.check(st == 0, "kmsvt-conbench failed: %r" % out)
    # The console really drew it: the file's last line is on screen.
    font = FONT.get(flavour)
    g.wait_screen_text(LINE, font=screenreader.load_font(name=font) if font else None)
    # The floor last: its memsets wipe the screen.
    st, floor = g.sh("kmsvt-conbench", timeout=300)
    harness.check(st == 0, "kmsvt-conbench (floor) failed: %r" % floor)
    return g, out + floor


def run_kmscon(ctx, size, name):
    """kmsvt-conbench in kmscon's shell, on its pty; the floor is not its."""
    g = xorg.guest(ctx, name, programs=(TOOL,), cmdline="consoleblank=0")
    make_files(g, size, xorg.MNT + "/tmp")
    done = "CONBENCH EXIT"
    kmscon.start(g, "%s > /tmp/conbench.out 2>&1; echo %s $?; exec sleep 100000"
                 % (CONBENCH_PTY, done), vt=2)
    _, screen = g.wait_screen_text([LINE, done], timeout=1800)
    _, out = g.xsh("cat /tmp/conbench.out", check=True)
    harness.check(done + " 0" in screen, "kmsvt-conbench in kmscon failed: %r" % out)
    return g, out


def measure(rel, flavour, size, boot):
    """One boot: seconds for each kind, the floor for varied, fill_ms."""
    ctx = harness.Ctx(rel)
    try:
        name = "bench-console-%s-%d" % (flavour, boot)
        if flavour == "kmscon":
            g, out = run_kmscon(ctx, size, name)
        else:
            g, out = run_vt(ctx, flavour, size, name)
        res = {}
        for name, lines, secs in re.findall(r"file /tmp/(\w+) bytes \d+ lines (\d+) "
                                            r"seconds ([\d.]+)", out):
            res[name] = float(secs)
            res[name + "_lines"] = int(lines)
        fill = re.search(r"fill_ms ([\d.]+)", out)
        if fill:
            res["fill_ms"] = float(fill.group(1))
            rows = int(re.search(r"rows (\d+)", out).group(1))
            # Every line past the first screenful (of 8x16 rows) scrolled
            # the screen once.
            res["scrolled"] = max(res["varied_lines"] - rows, 0)
            res["floor"] = res["scrolled"] * res["fill_ms"] / 1e3
        g.assert_no_oops()
        return res
    finally:
        ctx.close()


def table(rel, results, size, markdown):
    med = {fl: {k: statistics.median(r[k] for r in results[fl])
                for k in results[fl][0]} for fl in results if results[fl]}
    k = med["kmsvt"]
    b = med.get("bochs", {kind: float("nan") for kind in KINDS + ("fill_ms",)})
    head = ["flavour", "varied s", "repeated s", "varied /kmsvt", "repeated /kmsvt",
            "bochs/it varied", "bochs/it repeated"]
    rows = [[fl] + ["%.3f" % med[fl][kind] for kind in KINDS]
            + ["%.2f" % (med[fl][kind] / k[kind]) for kind in KINDS]
            + ["%.1f" % (b[kind] / med[fl][kind]) for kind in KINDS]
            for fl in FLAVOURS if fl in med]
    out = ["%s (%d KiB each, boots per flavour: %s; floor: %d scrolled lines x %.3f ms, "
           "one full-screen memset on kmsvt's console buffer, %.2f s, kmsvt/floor %.2f; "
           "bochs' memset was %.3f ms)" % (
               rel, size // 1024, " ".join("%s %d" % (fl, len(results[fl])) for fl in results),
               k["scrolled"], k["fill_ms"], k["floor"], k["varied"] / k["floor"],
               b["fill_ms"])]
    if markdown:
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        out += ["| " + " | ".join(r) + " |" for r in rows]
    else:
        out += ["  %-12s %-9s %-11s %-14s %-16s %-16s %s" % tuple(r) for r in [head] + rows]
    return "\n".join(out)


def run_all(kernels, boots=DEFAULT_BOOTS, size=DEFAULT_SIZE, markdown=False, log=print,
            flavours=FLAVOURS):
    """Returns the number of failed boots."""
    failed = 0
    for rel in kernels:
        results = {fl: [] for fl in flavours}
        for i in range(boots):
            for fl in flavours:
                try:
                    results[fl].append(measure(rel, fl, size, i))
                    log("%s %s boot %d: varied %.3f s, repeated %.3f s" % (
                        rel, fl, i, results[fl][-1]["varied"], results[fl][-1]["repeated"]))
                except Exception as e:  # a failed boot is reported, never counted
                    log("%s %s boot %d: FAILED: %s" % (rel, fl, i, e))
                    failed += 1
        if results.get("kmsvt"):
            log(table(rel, results, size, markdown))
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--boots", type=int, default=DEFAULT_BOOTS)
    ap.add_argument("--size", type=int, default=DEFAULT_SIZE)
    ap.add_argument("--flavours", default=",".join(FLAVOURS),
                    help="some of: %s (kmsvt is always one)" % ", ".join(FLAVOURS))
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args()
    harness.require_tools()
    flavours = [f for f in FLAVOURS if f == "kmsvt" or f in args.flavours.split(",")]
    sys.exit(1 if run_all(args.kernels or initramfs.full_releases(), args.boots, args.size,
                          args.markdown, flavours=flavours) else 0)


if __name__ == "__main__":
    main()
