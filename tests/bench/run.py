#!/usr/bin/env python3
"""Run the kmsvt benchmarks (`make bench`), kmsvt against in-tree bochs,
on every "full" kernel of scripts/kernels (or the releases given), in this
order:

  boot   boot to the first console frame, as booted and with loglevel=8
         (tests/bench/boot.py)
  kms    page flips, vblank waits, atomic commits, dumb buffer mmap
         bandwidth and create/destroy with kmsvt-bench (tests/bench/kms.py)
  panic  panic to pixels: 20 boots at 1024x768, fewer with a full console,
         the QR screen and -smp 2; in-tree bochs as the baseline, which
         draws nothing on 6.x and drm_panic's QR screen on 7.x
         (tests/bench/panic.py)
  panicpath  the panic path's functions, stack depth and rules, from gcc's
         call graph (tests/lib/panic_path.py; a build, no boots)
  switch fast user switching under seatd with two kmsvt-session sessions
         and the console: 100 switches of each kind per driver, p50/p95/max
         from the request to the first frame (tests/bench/switch.py)
  desktop  switching among real sessions: the console, two users' sway,
         weston, Xorg and a kmsvt-session, each switch timed up to the new
         owner's first commit (tests/bench/desktop.py)
  console  256 KiB (then 4 MiB, one boot) of varied and of repeated text
         written to tty1 at 1280x800: kmsvt's console (8x16 with and
         without scrollback, TER16x32), fbcon on kmsvt (vtcon=0), bochs,
         and Debian's kmscon on kmsvt; the memset floor
         (tests/bench/console.py)

Each prints one table a kernel, with the ratios kmsvt/bochs where both
drivers have the number.  --only picks some of them (e.g. --only kms).
-n sets the boots of every benchmark (panic: of its main configuration).
Exits non-zero if any boot failed or the panic path breaks a rule.

usage: tests/bench/run.py [-n BOOTS] [--markdown] [--only NAME,...] [KERNEL_RELEASE ...]
"""
import argparse
import datetime
import hashlib
import os
import subprocess
import sys
import time

# Run as a script, a benchmark puts tests/lib (the harness it shares with
# the tests) on the import path; its own folder is there already.
LIB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib")
if LIB not in sys.path:
    sys.path.insert(0, LIB)

import harness  # noqa: E402
import initramfs  # noqa: E402
import vm  # noqa: E402
import boot  # noqa: E402
import kms  # noqa: E402
import panic  # noqa: E402
import panic_path  # noqa: E402
import switch  # noqa: E402
import desktop  # noqa: E402
import console  # noqa: E402


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
        head = subprocess.run(["git", "-C", initramfs.REPO, "describe", "--always", "--dirty"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        head = ""
    return head or "unknown"


def run_panic(kernels, boots=None, markdown=False, log=print):
    """Panic to pixels; returns the number of failed boots (a baseline boot
    whose screen showed the panic counts as failed: the claim is wrong)."""
    boots = boots or panic.DEFAULT_BOOTS
    small = min(panic.DEFAULT_SMALL, boots)
    t0 = time.monotonic()
    log("panic-to-pixels: %d boots per kernel with panic_screen=log, %d for the others, "
        "at %dx%d" % ((boots, small) + panic.MODE))
    samples = panic.bench(kernels, boots, small, panic.DEFAULT_JOBS, log=log)
    for rel in kernels:
        log(panic.format_table(rel, samples) + "\n")
    if markdown:
        for rel in kernels:
            log(panic.format_markdown(rel, samples) + "\n")
    bad = panic.failures(samples) + panic.unexpected(samples)
    for s in bad:
        log("FAILED %s (serial log %s.serial.log):\n%s" % (s.line(), s.name, s.error))
    log("panic benchmark took %.0fs, %d boots, %d failed" % (
        time.monotonic() - t0, len(samples), len(bad)))
    return len(bad)


def run_panic_path(kernels, boots=None, markdown=False, log=print):
    """The panic path's size and rules (a build, no boots); its problems
    count as failures."""
    _, bad = panic_path.run(kernels, markdown, keep=True, log=log)
    return bad


def run_switch(kernels, boots=None, markdown=False, log=print):
    """One boot per driver and kernel; -n does not apply (its cycles are
    switch.DEFAULT_CYCLES)."""
    return switch.run_all(kernels, switch.DEFAULT_CYCLES, markdown, log)


def run_desktop(kernels, boots=None, markdown=False, log=print):
    """One boot per driver and kernel; -n does not apply (its cycles are
    desktop.DEFAULT_CYCLES)."""
    return desktop.run_all(kernels, desktop.DEFAULT_CYCLES, markdown, log)


def run_console(kernels, boots=None, markdown=False, log=print):
    """256 KiB in -n (or console.DEFAULT_BOOTS) boots per flavour and kernel,
    then 4 MiB in one."""
    return (console.run_all(kernels, boots or console.DEFAULT_BOOTS, console.DEFAULT_SIZE,
                            markdown, log)
            + console.run_all(kernels, console.LARGE_BOOTS, console.LARGE_SIZE, markdown, log))


# (name, run function) in the order they run.  A run function takes
# (kernels, boots or None for its own default, markdown, log), prints its
# tables through log and returns the number of failed boots.
BENCHMARKS = [
    ("boot", boot.run_all),
    ("kms", kms.run_all),
    ("panic", run_panic),
    ("panicpath", run_panic_path),
    ("switch", run_switch),
    ("desktop", run_desktop),
    ("console", run_console),
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
    harness.require_tools()
    if "kms" in only:
        kms.require_tools()
    kernels = args.kernels or initramfs.full_releases()
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
