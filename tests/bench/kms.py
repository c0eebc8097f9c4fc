#!/usr/bin/env python3
"""KMS benchmark: page flips, vblank waits, atomic commits, dumb buffer mmap
bandwidth and create/destroy, kmsvt against the in-tree bochs driver.

For one kernel release, boot the same QEMU N times with each display driver,
interleaved (kmsvt, bochs, kmsvt, bochs, ...), and run
build/userspace/kmsvt-bench in the guest over the serial shell.  It prints
one "bench NAME VALUE" line a metric (see `kmsvt-bench --help`); the table
has the median of each metric over the boots of each flavour and the ratio
kmsvt/bochs of the medians.

Both drivers get the same mode: video=1024x768 on the kernel command line
for the console, and `kmsvt-bench -m 1024x768` for the benchmark's own
modeset.  Every boot must prove it ran on the intended driver
(/sys/class/drm/card0/device/driver and /proc/fb), kmsvt-bench must exit 0
(set-up and CRTC restore worked), dmesg must be free of
oopses/BUG/WARNING after the run, and the console must be back: a marker
written on tty1 is read from a QEMU screendump (boot.verify_screen).  A
boot that fails any of this is reported as failed, never enters the
statistics, and makes the run exit non-zero.

The numbers are only meaningful as ratios kmsvt/bochs measured in the same
run on the same QEMU (TCG, no KVM): absolute rates move with the host's load.

usage: tests/bench/kms.py [-n BOOTS] [--markdown] [KERNEL_RELEASE ...]
"""
import argparse
import datetime
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
import vm  # noqa: E402
import boot  # noqa: E402

FLAVOURS = ("kmsvt", "bochs")
DEFAULT_BOOTS = 3
MODE = "1024x768"
PIN_MODE = "1280x800"     # the scanout-ready cost also at QEMU's preferred mode
TOOL = os.path.join(initramfs.BUILD, "userspace", "kmsvt-bench")

# The PCI driver bound to card0's device, and fb0's name in /proc/fb.
PCI_DRIVER = {"kmsvt": "kmsvt", "bochs": "bochs-drm"}
FB_NAME = {"kmsvt": "kmsvt", "bochs": "bochs-drmdrmfb"}

BENCH_RX = re.compile(r"^bench (\S+) (\S+)$", re.M)

# Metrics in table order, with what they mean (units are in the names).
# Metrics kmsvt-bench prints that are not listed here come after these.
METRICS = (
    ("mode_refresh_hz", "refresh rate of the mode"),
    ("flip_rate_hz", "drmModePageFlip+event round trips per second"),
    ("flip_latency_med_us", "flip ioctl return to event read, median"),
    ("flip_latency_max_us", "flip ioctl return to event read, max"),
    ("flip_seq_increasing", "event sequence numbers strictly increase (1/0)"),
    ("flip_ts_monotonic", "event timestamps never go back (1/0)"),
    ("flip_seq_rate_hz", "event sequence numbers per second of event time"),
    ("flip_errno", "errno that stopped the flip loop"),
    ("flip_supported", "0: first page flip failed"),
    ("vblank_wait_hz", "drmWaitVBlank(relative 1) per second"),
    ("vblank_wait_supported", "0: drmWaitVBlank failed"),
    ("vblank_wait_errno", "its errno"),
    ("atomic_test_only_hz", "TEST_ONLY commits of a plane FB swap per second"),
    ("atomic_test_only_med_us", "time per TEST_ONLY commit, median"),
    ("atomic_commit_hz", "blocking plane FB swap commits (no event) per second"),
    ("atomic_commit_med_us", "time per blocking commit, median"),
    ("atomic_supported", "0: no atomic"),
    ("mmap_memset_mbs", "memset of the mmapped scanout buffer, MB/s"),
    ("mmap_store64_mbs", "64-bit store loop into it, MB/s"),
    ("mmap_load64_mbs", "64-bit load loop from it, MB/s"),
    ("mmap_fresh_memset_mbs", "memset of a never-shown dumb buffer, MB/s"),
    ("dumb_create_map_destroy_hz", "1024x768x32 CREATE+MAP+mmap+munmap+DESTROY /s"),
    ("dumb_create_destroy_hz", "1024x768x32 CREATE+DESTROY /s"),
    ("scanout_ready_fresh_ms", "blocking commit of a never-shown buffer, median"),
    ("scanout_ready_resident_ms", "blocking commit of the buffer shown before, median"),
    ("scanout_ready_move_ms", "their difference: making a buffer scanout-ready"),
    ("scanout_ready_fresh_ms_1280x800", "the same at " + PIN_MODE),
    ("scanout_ready_resident_ms_1280x800", "the same at " + PIN_MODE),
    ("scanout_ready_move_ms_1280x800", "the same at " + PIN_MODE),
    ("close_restore_med_ms", "close() of the last master's file: console committed back, median"),
    ("close_restore_max_ms", "the same, max of 10"),
    ("close_console_back", "the CRTC showed the console's framebuffer after every close (1/0)"),
)
HIDDEN = ("mode_width", "mode_height", "done")


class BenchError(Exception):
    pass


def require_tools():
    """Fail loudly (exit 2) without QEMU, the image tools or kmsvt-bench."""
    harness.require_tools(files=((TOOL, "make userspace"),))


def images(rel, flavours=FLAVOURS):
    """Build (once) the benchmark's initramfs for each flavour, with kmsvt-bench."""
    return {fl: harness.initrd(rel, fl, programs=[TOOL], tag="bench-kms-" + fl)
            for fl in flavours}


def parse_bench(out):
    """{metric: float} from kmsvt-bench's output."""
    vals = {}
    for m in BENCH_RX.finditer(out):
        try:
            vals[m.group(1)] = float(m.group(2))
        except ValueError:
            raise BenchError("bad bench line %r" % m.group(0))
    return vals


class Sample(boot.BootResult):
    """One boot: metrics or an error."""

    def __init__(self, rel, flavour, index):
        super().__init__(rel, flavour, index)
        self.metrics = {}
        self.output = ""

    def summary(self):
        keys = ("flip_rate_hz", "vblank_wait_hz", "atomic_commit_hz", "mmap_memset_mbs",
                "dumb_create_destroy_hz")
        return "  ".join("%s %s" % (k, fmt(self.metrics.get(k))) for k in keys)


def verify_driver(g, flavour):
    _, drv = g.sh("basename $(readlink /sys/class/drm/card0/device/driver)", check=True)
    harness.check(drv.strip() == PCI_DRIVER[flavour],
                  "card0 is driven by %r, expected %r" % (drv.strip(), PCI_DRIVER[flavour]))
    _, fb = g.sh("cat /proc/fb", check=True)
    harness.check(re.search(r"^0 %s$" % re.escape(FB_NAME[flavour]), fb, re.M),
                  "fb0 is not %s: %r" % (FB_NAME[flavour], fb))


def run_once(rel, flavour, index, image, timeout=120):
    s = Sample(rel, flavour, index)
    name = "%s-bench-kms-%s-%d" % (rel, flavour, index)
    g = harness.Guest(rel, image, cmdline="drv=%s video=%s" % (flavour, MODE), name=name)
    try:
        g.start()
        g.boot(timeout=timeout)
        verify_driver(g, flavour)
        st, out = g.sh("kmsvt-bench -m %s" % MODE, timeout=300)
        s.output = out
        with open(os.path.join(vm.LOGDIR, name + ".bench.log"), "w") as f:
            f.write(out)
        s.metrics = parse_bench(out)
        if st != 0 or "done" not in s.metrics:
            raise BenchError("kmsvt-bench exited %d: %s" % (st, out.strip()[-600:]))
        st, out = g.sh("kmsvt-bench -m %s pin" % PIN_MODE, timeout=300)
        with open(os.path.join(vm.LOGDIR, name + ".bench-pin.log"), "w") as f:
            f.write(out)
        pin = parse_bench(out)
        if st != 0 or "done" not in pin or "scanout_ready_move_ms" not in pin:
            raise BenchError("kmsvt-bench -m %s pin exited %d: %s" % (PIN_MODE, st,
                                                                    out.strip()[-600:]))
        for k, v in pin.items():
            if k.startswith("scanout_ready"):
                s.metrics["%s_%s" % (k, PIN_MODE)] = v
        w, h = (int(x) for x in MODE.split("x"))
        if (s.metrics.get("mode_width"), s.metrics.get("mode_height")) != (w, h):
            raise BenchError("benchmark ran at %sx%s, not %s" % (
                fmt(s.metrics.get("mode_width")), fmt(s.metrics.get("mode_height")), MODE))
        dmesg = g.dmesg()
        reports = harness.kernel_reports(dmesg)
        if reports:
            raise BenchError("kernel reported a problem: %r" % reports[0][-600:])
        # The console must be back on screen after the master closed.
        boot.verify_screen(g, flavour, "kms-%s-%d" % (flavour, index))
    except Exception:
        boot.record_failure(s)
    finally:
        g.close()
    return s


def bench_kernel(rel, boots=DEFAULT_BOOTS, flavours=FLAVOURS, log=None):
    """Boot each flavour `boots` times, interleaved; return the Samples."""
    return boot.bench_kernel(rel, boots, flavours, log, run=run_once,
                             imgs=images(rel, flavours))


# ---------------------------------------------------------------- report

def fmt(v):
    if v is None:
        return "-"
    if v != v:
        return "nan"
    if abs(v) >= 10000:
        return "%.0f" % v
    return "%.4g" % v


def metric_names(samples):
    seen = set()
    for s in samples:
        if s.ok:
            seen.update(s.metrics)
    names = [k for k, _ in METRICS if k in seen]
    names += sorted(k for k in seen if k not in names and k not in HIDDEN)
    return names


def table_rows(samples, flavours=FLAVOURS):
    """Header and rows (lists of strings): one a metric, medians per flavour,
    the ratio first/second flavour, and the per-boot min-max of each."""
    good = {fl: [s for s in samples if s.flavour == fl and s.ok] for fl in flavours}
    head = ["metric"] + ["%s med" % fl for fl in flavours]
    if len(flavours) == 2:
        head.append("%s/%s" % flavours)
    head += ["%s min-max" % fl for fl in flavours]
    rows = [["boots ok/failed"] + ["%d/%d" % (len(good[fl]), sum(
        1 for s in samples if s.flavour == fl and not s.ok)) for fl in flavours]
        + ([""] if len(flavours) == 2 else []) + [""] * len(flavours)]
    for key in metric_names(samples):
        meds, spans = [], []
        for fl in flavours:
            vals = [s.metrics[key] for s in good[fl] if key in s.metrics]
            meds.append(statistics.median(vals) if vals else None)
            spans.append("%s-%s" % (fmt(min(vals)), fmt(max(vals))) if len(vals) > 1 else "")
        row = [key] + [fmt(m) for m in meds]
        if len(flavours) == 2:
            a, b = meds
            row.append(fmt(a / b) if a is not None and b else "-")
        rows.append(row + spans)
    return head, rows


def format_table(rel, samples, flavours=FLAVOURS):
    head, rows = table_rows(samples, flavours)
    return boot.text_table("kernel %s: KMS benchmark at %s, medians over boots" % (rel, MODE),
                           head, rows)


def format_markdown(rel, samples, flavours=FLAVOURS):
    head, rows = table_rows(samples, flavours)
    ratio = len(flavours) + 1 if len(flavours) == 2 else None
    lines = ["Kernel `%s`:" % rel, "",
             "| " + " | ".join(head) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    for r in rows:
        r = ["`%s`" % c if i == 0 and r is not rows[0] else c for i, c in enumerate(r)]
        if ratio is not None and r[ratio] not in ("", "-"):
            r[ratio] = "**%s**" % r[ratio]
        lines.append("| " + " | ".join(r) + " |")
    return "\n".join(lines)


def run_all(kernels, boots=None, markdown=False, log=print):
    """The whole KMS benchmark on kernels (what tests/bench/run.py calls):
    prints a table a kernel; returns the number of failed boots."""
    boots = boots or DEFAULT_BOOTS
    require_tools()
    for rel in kernels:
        images(rel)
    log("kms: kmsvt-bench -m %s, %d boots per flavour, interleaved %s, load average %.2f" % (
        MODE, boots, ", ".join(FLAVOURS), os.getloadavg()[0]))
    bad = boot.run_kernels("kms", "KMS: page flips, commits, dumb buffers", kernels,
                           lambda rel: bench_kernel(rel, boots, log=log), format_table,
                           format_markdown, markdown, log,
                           lambda s: os.path.join(vm.LOGDIR, "%s-bench-kms-%s-%d.serial.log" % (
                               s.rel, s.flavour, s.index)))
    log("load average %.2f at the end" % os.getloadavg()[0])
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--boots", type=int, default=DEFAULT_BOOTS,
                    help="boots per flavour and kernel (default %d)" % DEFAULT_BOOTS)
    ap.add_argument("--markdown", action="store_true",
                    help="also print the tables as Markdown (for docs/BENCHMARKS.md)")
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args(argv)
    if args.boots < 1:
        ap.error("--boots must be at least 1")
    print("kmsvt KMS benchmark, %s, %d host CPUs" % (
        datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"), os.cpu_count() or 0))
    bad = run_all(args.kernels or initramfs.full_releases(), args.boots, args.markdown,
                  log=lambda m: print(m, flush=True))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
