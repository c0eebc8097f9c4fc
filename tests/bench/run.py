#!/usr/bin/env python3
"""Run the kmsvt benchmarks (`make bench`), kmsvt against in-tree bochs,
on every target kernel (or the releases given), in this order:

  boot   boot to the first fbcon frame (tests/bench/boot.py)
  kms    page flips, vblank waits, atomic commits, dumb buffer mmap
         bandwidth and create/destroy with kmsvt-bench (tests/bench/kms.py)

Each prints one table a kernel, with the ratios kmsvt/bochs.  --only picks
some of them (e.g. --only kms).  Exits non-zero if any boot failed.

usage: tests/bench/run.py [-n BOOTS] [--markdown] [--only NAME,...] [KERNEL_RELEASE ...]
"""
import argparse
import datetime
import hashlib
import os
import shutil
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(BENCH)
for p in (TESTS, BENCH):
    if p not in sys.path:
        sys.path.insert(0, p)

import initramfs  # noqa: E402
import vm  # noqa: E402
import boot  # noqa: E402
import kms  # noqa: E402


def require_tools():
    missing = [t for t in (vm.QEMU, "depmod", "cpio", "modinfo") if not shutil.which(t)]
    if not os.path.exists("/bin/busybox"):
        missing.append("/bin/busybox (busybox-static)")
    if missing:
        print("FATAL: missing %s: run 'make deps'" % ", ".join(missing))
        sys.exit(2)


def qemu_version():
    out = subprocess.run([vm.QEMU, "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0].strip() if out else "unknown"


def module_info(rel):
    """Content hash and build time of the kmsvt.ko in the benchmark image
    (copyfile keeps no mtime, so the build time is of build/<rel>/kmsvt.ko if
    it is still the same file)."""
    ko = boot.staged_module(rel)
    if not os.path.exists(ko):
        return "not staged"
    with open(ko, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:12]
    src = initramfs.module_path(rel)
    built = "?"
    if os.path.exists(src):
        with open(src, "rb") as f:
            if hashlib.sha256(f.read()).hexdigest()[:12] == digest:
                built = datetime.datetime.fromtimestamp(os.path.getmtime(src)).astimezone() \
                    .strftime("%Y-%m-%d %H:%M %Z")
    return "sha256 %s, built %s" % (digest, built)


def git_head():
    try:
        head = subprocess.run(["git", "-C", TESTS, "describe", "--always", "--dirty"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        head = ""
    return head or "unknown"


def run_boot(kernels, boots=None, markdown=False, log=print):
    """The boot-to-console benchmark; returns the number of failed boots."""
    boots = boots or boot.DEFAULT_BOOTS
    log("boot-to-console: %d boots per flavour, interleaved %s" % (
        boots, ", ".join(boot.FLAVOURS)))
    t0 = time.monotonic()
    results = []
    for rel in kernels:
        samples = boot.bench_kernel(rel, boots, log=log)
        results.append((rel, samples))
        log(boot.format_table(rel, samples) + "\n")

    log("== boot to first fbcon frame (all kernels) ==")
    for rel, samples in results:
        log(boot.format_table(rel, samples) + "\n")
    if markdown:
        for rel, samples in results:
            log(boot.format_markdown(rel, samples) + "\n")

    bad = [s for _, samples in results for s in boot.failures(samples)]
    for s in bad:
        log("FAILED boot %s %s #%d (serial log %s):\n%s" % (
            s.rel, s.flavour, s.index,
            os.path.join(vm.LOGDIR, "%s-bench-%s-%d.serial.log" % (s.rel, s.flavour, s.index)),
            s.error))
    log("benchmark took %.0fs, %d boots, %d failed" % (
        time.monotonic() - t0, sum(len(s) for _, s in results), len(bad)))
    return len(bad)


# (name, run function) in the order they run.  A run function takes
# (kernels, boots or None for its own default, markdown, log), prints its
# tables through log and returns the number of failed boots.
BENCHMARKS = [
    ("boot", run_boot),
    ("kms", kms.run_all),
]


def main():
    names = [n for n, _ in BENCHMARKS]
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--boots", type=int, default=None,
                    help="boots per flavour and kernel (default: each benchmark's own, "
                    "boot %d, kms %d)" % (boot.DEFAULT_BOOTS, kms.DEFAULT_BOOTS))
    ap.add_argument("--markdown", action="store_true",
                    help="also print the tables as Markdown (for docs/BENCHMARKS.md)")
    ap.add_argument("--only", metavar="NAME,...", default=",".join(names),
                    help="benchmarks to run, comma-separated, of: %s (default: all)"
                    % ", ".join(names))
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args()
    if args.boots is not None and args.boots < 1:
        ap.error("--boots must be at least 1")
    only = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in only if n not in names]
    if unknown or not only:
        ap.error("--only: unknown benchmark %s (have: %s)" % (
            ", ".join(unknown) or "(none given)", ", ".join(names)))
    require_tools()
    if "kms" in only:
        kms.require_tools()
    kernels = args.kernels or initramfs.releases()
    log = lambda m: print(m, flush=True)  # noqa: E731

    print("kmsvt benchmarks, %s" % datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"))
    print("%s, -accel tcg, %d host CPUs, load average %.2f at start" % (
        qemu_version(), os.cpu_count() or 0, os.getloadavg()[0]))
    print("source tree %s" % git_head())
    print("benchmarks: %s" % ", ".join(only))
    # Build every image first, so all kernels measure the same module build.
    for rel in kernels:
        boot.images(rel)
        print("%s: kmsvt.ko %s" % (rel, module_info(rel)))
    sys.stdout.flush()

    t0 = time.monotonic()
    bad = 0
    for name, run in BENCHMARKS:
        if name in only:
            bad += run(kernels, args.boots, args.markdown, log)
    print("all benchmarks took %.0fs, %d failed boots" % (time.monotonic() - t0, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
