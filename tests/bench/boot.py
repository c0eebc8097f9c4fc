#!/usr/bin/env python3
"""Boot-to-console benchmark: kmsvt against the in-tree bochs driver.

For one kernel release, boot the same QEMU N times with each display driver,
interleaved (kmsvt, bochs, kmsvt, bochs, ...) so that drift in the host's
load hits both flavours alike, and read the guest's own printk timestamps
(kernel time since boot, seconds) from dmesg:

  start -> fbcon     kernel start to the first "Console: switching to
                     colour frame buffer device" (or "... kmsvt"), i.e. the
                     first frame of the console
  init -> fbcon      from "Run /init as init process"
  modprobe -> fbcon  from "kmsvt-init: modprobe <drv>", which the harness's
                     /init writes to /dev/kmsg just before "modprobe $drv"
  probe -> fbcon     from "<driver> 0000:00:02.0: vgaarb: deactivate vga
                     console", which both drivers print at the start of
                     their PCI probe (after their dependencies have loaded)
  drm -> fbcon       from "[drm] Initialized <driver>" (drm_dev_register):
                     the fbdev emulation and fbcon's takeover

Flavours: kmsvt (its own console on the VTs), kmsvt-fbcon (kmsvt.vtcon=0:
fbcon on kmsvt's framebuffer, what kmsvt was before it had a console of
its own) and bochs.  The boots run twice: as they are, and with loglevel=8,
where every message after the driver's probe is printed on the console
while the boot goes on (the console's speed shows in the spans).

Every boot must also prove that the console is really up: the benchmark
writes a marker on /dev/tty1, and it has to be read back from a QEMU
screendump with tests/lib/screenreader.py; /proc/fb must name the expected
driver and dmesg must be free of oopses/warnings.  A boot that fails any of
this is reported as failed and never enters the statistics.

The numbers are only meaningful as ratios kmsvt/bochs measured in the same
run on the same QEMU (TCG, no KVM): absolute times move a lot with the
host's load.

usage: tests/bench/boot.py [-n BOOTS] [KERNEL_RELEASE ...]
"""
import argparse
import os
import re
import statistics
import sys
import time
import traceback

# Run as a script, a benchmark puts tests/lib (the harness it shares with
# the tests) on the import path; its own folder is there already.
LIB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib")
if LIB not in sys.path:
    sys.path.insert(0, LIB)

import harness  # noqa: E402
import initramfs  # noqa: E402
import vm  # noqa: E402

FLAVOURS = ("kmsvt", "kmsvt-fbcon", "bochs")
DEFAULT_BOOTS = 5
LOGLEVEL8_BOOTS = 3

# Each flavour's driver (drv= of the harness's /init) and command line.
DRIVER = {"kmsvt": "kmsvt", "kmsvt-fbcon": "kmsvt", "bochs": "bochs"}
CMDLINE = {"kmsvt-fbcon": "modargs=vtcon=0"}
# What /proc/fb calls fb0 with each flavour.
FB_NAME = {"kmsvt": "kmsvt", "kmsvt-fbcon": "kmsvt", "bochs": "bochs-drmdrmfb"}
# "[drm] Initialized <name> ..." for each flavour.
DRM_NAME = {"kmsvt": "kmsvt", "kmsvt-fbcon": "kmsvt", "bochs": "bochs-drm"}

# Written by the harness's /init (tests/lib/initramfs.py) right before modprobe.
KMSG_MARK = "kmsvt-init: modprobe"

DMESG_RX = re.compile(r"^\[\s*(\d+\.\d+)\] (.*)$", re.M)

# (key, regex on the message text); the first match of each counts.
MARKERS = (
    ("init", re.compile(r"^Run /init as init process")),
    ("modprobe", re.compile(r"^" + re.escape(KMSG_MARK) + r" ")),
    ("probe", re.compile(r"^\S+ 0000:00:02\.0: vgaarb: deactivate vga console")),
    ("initialized", re.compile(r"^\[drm\] Initialized (\S+)")),
    ("fbcon", re.compile(r"^Console: switching to colour (frame buffer device|kmsvt) ")),
)

# Columns of the table: (key in Sample.times, heading).
SPANS = (
    ("start_fbcon", "start->fbcon"),
    ("init_fbcon", "init->fbcon"),
    ("modprobe_fbcon", "modprobe->fbcon"),
    ("probe_fbcon", "probe->fbcon"),
    ("drm_fbcon", "drm->fbcon"),
    ("wall_ready", "host wall"),
)


class BenchError(Exception):
    pass


def images(rel, flavours=FLAVOURS):
    """Build (once) the benchmark's initramfs for each flavour.  The tag keeps
    them apart from the images the test suite builds concurrently."""
    return {fl: harness.initrd(rel, DRIVER[fl], tag="bench-" + DRIVER[fl], keep_stage=True)
            for fl in flavours}


def staged_module(rel):
    """The kmsvt.ko copied into the benchmark's kmsvt image (what is really
    measured, even if `make` rebuilds build/<rel>/kmsvt.ko meanwhile)."""
    return os.path.join(initramfs.BUILD, rel, "stage-bench-kmsvt", "lib", "modules",
                        rel, "extra", "kmsvt.ko")


def parse_dmesg(text):
    """{marker key: (timestamp, message)} for the first line of each marker."""
    found = {}
    for m in DMESG_RX.finditer(text):
        ts, msg = float(m.group(1)), m.group(2).rstrip("\r")
        for key, rx in MARKERS:
            if key not in found and rx.search(msg):
                found[key] = (ts, msg)
    return found


class BootResult:
    """One boot of a flavour-against-flavour benchmark: its results, which a
    subclass keeps and summarises, or an error."""

    def __init__(self, rel, flavour, index):
        self.rel, self.flavour, self.index = rel, flavour, index
        self.error = None       # traceback of a failed boot
        self.reason = None      # its one-line summary

    @property
    def ok(self):
        return self.error is None

    def line(self):
        if not self.ok:
            return "%s #%d: FAILED: %s" % (self.flavour, self.index, self.reason)
        return "%s #%d: %s" % (self.flavour, self.index, self.summary())


class Sample(BootResult):
    """One boot: times (seconds) or an error."""

    def __init__(self, rel, flavour, index):
        super().__init__(rel, flavour, index)
        self.times = {}

    def summary(self):
        return "  ".join("%s %s" % (head, fmt(self.times.get(key))) for key, head in SPANS)


def timings(flavour, dmesg):
    """The spans of SPANS (except the host's) from one boot's dmesg."""
    marks = parse_dmesg(dmesg)
    for key in ("init", "probe", "initialized", "fbcon"):
        if key not in marks:
            raise BenchError("no %r line in dmesg" % key)
    drm = re.match(MARKERS[3][1], marks["initialized"][1]).group(1)
    if drm != DRM_NAME[flavour]:
        raise BenchError("DRM driver %r initialized, expected %r" % (drm, DRM_NAME[flavour]))
    fbcon = marks["fbcon"][0]
    if not marks["init"][0] <= marks["probe"][0] <= marks["initialized"][0] <= fbcon:
        raise BenchError("markers out of order (fbcon before our driver?): %r" % marks)
    times = {"start_fbcon": fbcon,
             "init_fbcon": fbcon - marks["init"][0],
             "probe_fbcon": fbcon - marks["probe"][0],
             "drm_fbcon": fbcon - marks["initialized"][0]}
    if "modprobe" in marks:
        times["modprobe_fbcon"] = fbcon - marks["modprobe"][0]
    return times


def verify_screen(g, flavour, tag):
    """The console must really be on the screen: fb0 is the expected driver,
    and a marker written on tty1 is read back from a screendump."""
    _, fb = g.sh("cat /proc/fb", check=True)
    harness.check(re.search(r"^0 %s$" % re.escape(FB_NAME[flavour]), fb, re.M),
                  "fb0 is not %s: %r" % (FB_NAME[flavour], fb))
    marker = "bench %s ok" % tag
    g.tty_write("\033[2J\033[H" + marker + "\n")
    g.wait_screen_text(marker, timeout=20)


def record_failure(sample):
    """In an except clause: keep the traceback on the sample, and a one-line
    reason for the tables."""
    e = sys.exc_info()[1]
    sample.error = traceback.format_exc()
    first = (str(e).strip().splitlines() or [""])[0]
    sample.reason = "%s: %s" % (type(e).__name__, first[:200])


def boot_once(rel, flavour, index, image, timeout=120, extra=""):
    s = Sample(rel, flavour, index)
    name = "%s-bench-%s%s-%d" % (rel, flavour, "-" + extra.replace("=", "") if extra else "",
                                 index)
    cmdline = " ".join(p for p in ("drv=" + DRIVER[flavour], CMDLINE.get(flavour), extra) if p)
    g = harness.Guest(rel, image, cmdline=cmdline, name=name)
    try:
        g.start()
        g.boot(timeout=timeout)
        s.times["wall_ready"] = g.booted_at - g.t0
        dmesg = g.dmesg()
        s.times.update(timings(flavour, dmesg))
        reports = harness.kernel_reports(dmesg)
        if reports:
            raise BenchError("kernel reported a problem: %r" % reports[0][-600:])
        verify_screen(g, flavour, "%s-%d" % (flavour, index))
    except Exception:
        record_failure(s)
    finally:
        g.close()
    return s


def bench_kernel(rel, boots=DEFAULT_BOOTS, flavours=FLAVOURS, log=None, run=None, imgs=None):
    """Boot each flavour `boots` times, interleaved; return the Samples.
    run(rel, flavour, index, image) does one boot (default: boot_once, on
    this benchmark's images)."""
    run = run or boot_once
    imgs = imgs or images(rel, flavours)
    samples = []
    for i in range(1, boots + 1):
        for fl in flavours:
            s = run(rel, fl, i, imgs[fl])
            samples.append(s)
            if log:
                log("  %s %s" % (rel, s.line()))
    return samples


# ---------------------------------------------------------------- report

def fmt(v, digits=3):
    return "-" if v is None else "%.*f" % (digits, v)


def summary(samples, flavours=FLAVOURS):
    """{flavour: {"n", "failed", key: [values]}}."""
    out = {}
    for fl in flavours:
        mine = [s for s in samples if s.flavour == fl]
        good = [s for s in mine if s.ok]
        row = {"n": len(good), "failed": len(mine) - len(good)}
        for key, _ in SPANS:
            vals = [s.times[key] for s in good if key in s.times]
            row[key] = vals
        out[fl] = row
    return out


def _median(vals):
    return statistics.median(vals) if vals else None


def _ratio(a, b):
    return a / b if a is not None and b else None


def table_rows(samples, flavours=FLAVOURS):
    """Header and rows (lists of strings) of the per-kernel table; the last
    row is the ratio of medians first/second flavour."""
    summ = summary(samples, flavours)
    head = ["flavour", "N", "fail", "start->fbcon med", "min", "max"]
    head += ["%s med" % h for k, h in SPANS if k != "start_fbcon"]
    rows = []
    meds = {}
    for fl in flavours:
        r = summ[fl]
        meds[fl] = {k: _median(r[k]) for k, _ in SPANS}
        st = r["start_fbcon"]
        rows.append([fl, str(r["n"]), str(r["failed"]), fmt(meds[fl]["start_fbcon"]),
                     fmt(min(st) if st else None), fmt(max(st) if st else None)]
                    + [fmt(meds[fl][k]) for k, _ in SPANS if k != "start_fbcon"])
    b = flavours[-1]
    for a in flavours[:-1]:
        rows.append(["%s/%s" % (a, b), "", "",
                     fmt(_ratio(meds[a]["start_fbcon"], meds[b]["start_fbcon"])), "", ""]
                    + [fmt(_ratio(meds[a][k], meds[b][k])) for k, _ in SPANS
                       if k != "start_fbcon"])
    return head, rows


def text_table(title, head, rows):
    """title, then the columns aligned: the first to the left, the others
    (numbers) to the right."""
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    lines = [title]
    for r in [head] + rows:
        cells = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def format_table(rel, samples, flavours=FLAVOURS, extra=""):
    head, rows = table_rows(samples, flavours)
    return text_table("kernel %s%s: boot to first console frame, seconds of guest time "
                      "(host wall: QEMU start to init ready)" % (
                          rel, ", " + extra if extra else ""), head, rows)


def format_markdown(rel, samples, flavours=FLAVOURS, extra=""):
    head, rows = table_rows(samples, flavours)
    lines = ["Kernel `%s`%s:" % (rel, ", `%s`" % extra if extra else ""), "",
             "| " + " | ".join(head) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    for r in rows:
        if "/" in r[0]:
            r = ["**%s**" % c if c else c for c in r]
        lines.append("| " + " | ".join(r) + " |")
    return "\n".join(lines)


def failures(samples):
    return [s for s in samples if not s.ok]


def run_kernels(name, title, kernels, run_kernel, format_table, format_markdown,
                markdown, log, serial_log):
    """Run run_kernel(rel) -> [BootResult] on each kernel, printing its table
    as it ends; then all tables again (and as Markdown), and the failed boots
    with serial_log(result), the path of their serial log.  Returns how many
    boots failed."""
    t0 = time.monotonic()
    results = []
    for rel in kernels:
        samples = run_kernel(rel)
        results.append((rel, samples))
        log(format_table(rel, samples) + "\n")
    log("== %s (all kernels) ==" % title)
    for rel, samples in results:
        log(format_table(rel, samples) + "\n")
    if markdown:
        for rel, samples in results:
            log(format_markdown(rel, samples) + "\n")
    bad = [s for _, samples in results for s in failures(samples)]
    for s in bad:
        log("FAILED %s boot %s %s #%d (serial log %s):\n%s" % (
            name, s.rel, s.flavour, s.index, serial_log(s), s.error))
    log("%s benchmark took %.0fs, %d boots, %d failed" % (
        name, time.monotonic() - t0, sum(len(s) for _, s in results), len(bad)))
    return len(bad)


def run_all(kernels, boots=None, markdown=False, log=print):
    """The boot-to-console benchmark (what tests/bench/run.py calls), as
    booted and with loglevel=8; returns the number of failed boots."""
    bad = 0
    for extra, n in (("", boots or DEFAULT_BOOTS), ("loglevel=8", boots or LOGLEVEL8_BOOTS)):
        log("boot-to-console%s: %d boots per flavour, interleaved %s" % (
            " with " + extra if extra else "", n, ", ".join(FLAVOURS)))

        def run(rel, fl, i, image, extra=extra):
            return boot_once(rel, fl, i, image, extra=extra)

        bad += run_kernels(
            "boot", "boot to first console frame" + (", " + extra if extra else ""), kernels,
            lambda rel, run=run, n=n: bench_kernel(rel, n, log=log, run=run),
            lambda rel, samples, extra=extra: format_table(rel, samples, extra=extra),
            lambda rel, samples, extra=extra: format_markdown(rel, samples, extra=extra),
            markdown, log,
            lambda s, extra=extra: os.path.join(vm.LOGDIR, "%s-bench-%s%s-%d.serial.log" % (
                s.rel, s.flavour, "-" + extra.replace("=", "") if extra else "", s.index)))
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--boots", type=int, default=DEFAULT_BOOTS,
                    help="boots per flavour and kernel (default %d)" % DEFAULT_BOOTS)
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args(argv)
    bad = 0
    for rel in args.kernels or initramfs.full_releases():
        samples = bench_kernel(rel, args.boots, log=lambda m: print(m, flush=True))
        print(format_table(rel, samples))
        bad += len(failures(samples))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
