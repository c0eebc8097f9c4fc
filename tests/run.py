#!/usr/bin/env python3
"""Run the whole kmsvt suite: host unit tests (while the guest images
are built), then every guest test on every target kernel.  Prints one
line a test and, last, "N passed, N failed".

usage: tests/run.py [-j JOBS] [-k SUBSTRING] [--repeat N] [--no-memcheck] [KERNEL_RELEASE ...]

The guests boot with slub_debug=FZPU page_poison=1 (and KFENCE where the
kernel has it); whatever their kernels report fails the test.
"""
import argparse
import concurrent.futures
import importlib
import inspect
import os
import sys
import time
import traceback
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import initramfs  # noqa: E402

GUEST_MODULES = ["test_fuzz", "test_console", "test_kms", "test_client", "test_memory", "test_switch", "test_seat",
                 "test_kmscube", "test_xorg", "test_panic", "test_fbdev", "test_systemd_guest",
                 "test_faults", "test_security"]


def unit_tests():
    """Host tests: the screen reader, make deps' apt transaction (no kernel
    image, no upgrade), DKMS builds for both kernels, the panic QR encoder
    and the panic path's rules (builds the module once more per kernel,
    with gcc's call graph)."""
    here = os.path.dirname(os.path.abspath(__file__))
    loader = unittest.defaultTestLoader
    suite = unittest.TestSuite([loader.discover(here, pattern="test_screenreader.py"),
                                loader.discover(here, pattern="test_deps.py"),
                                loader.discover(here, pattern="test_install.py"),
                                loader.discover(here, pattern="test_manpages.py"),
                                loader.discover(here, pattern="test_panic_path.py"),
                                loader.discover(os.path.join(here, "qr"), pattern="test_qr.py",
                                                top_level_dir=os.path.join(here, "qr"))])
    res = unittest.TextTestRunner(verbosity=1, stream=sys.stdout).run(suite)
    failed = len(res.failures) + len(res.errors)
    return res.testsRun - failed - len(res.skipped), failed + len(res.skipped)


def run_one(rel, name, fn):
    """Run fn; then, pass or fail, every guest it left running must have
    nothing in its kernel log (harness.OOPS_RX: oops, WARNING, slub_debug,
    KFENCE, ...)."""
    ctx = harness.Ctx(rel)
    t0 = time.monotonic()
    err = None
    try:
        fn(ctx)
    except Exception:
        err = traceback.format_exc()
    try:
        ctx.check_kernel_reports()
    except Exception:
        err = (err + "\nand after the test:\n" if err else "") + traceback.format_exc()
    finally:
        ctx.close()
    return rel, name, err, time.monotonic() - t0


def prepare_jobs(modules, kernels):
    """The images the selected modules boot, built first, one job each
    (a module's PREPARE(kernels)), so that no worker sits waiting on
    another's image lock at its first test."""
    seen = []
    for mod in modules:
        fn = getattr(mod, "PREPARE", None)
        if fn is not None and fn not in seen:
            seen.append(fn)
    return [("-", "prepare %s" % fn.__module__, lambda ctx, fn=fn: fn(kernels)) for fn in seen]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("-k", "--select", default="",
                    help="run the tests whose module.name holds any of these "
                    "comma-separated substrings, except those holding one "
                    "given with a leading '-'")
    ap.add_argument("--modules", default=",".join(GUEST_MODULES),
                    help="comma-separated guest test modules (default: the suite's; "
                    "make test-debug adds test_faultinject)")
    ap.add_argument("--no-unit", action="store_true")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="run each selected guest test N times (a flake hunt: "
                    "every run must pass)")
    ap.add_argument("--no-memcheck", action="store_true",
                    help="boot the guests without slub_debug, page_poison and KFENCE")
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args()
    harness.require_tools()
    harness.MEMCHECK = not args.no_memcheck

    kernels = args.kernels or initramfs.releases()
    selects = [s for s in args.select.split(",") if s and not s.startswith("-")]
    excludes = [s[1:] for s in args.select.split(",") if s.startswith("-")]
    jobs, modules = [], []
    for modname in args.modules.split(","):
        mod = importlib.import_module(modname)
        before = len(jobs)
        for name in sorted(n for n, f in vars(mod).items() if n.startswith("test_")
                           and inspect.isfunction(f) and f.__module__ == modname):
            full = "%s.%s" % (modname, name)
            if selects and not any(s in full for s in selects) or \
                    any(s in full for s in excludes):
                continue
            for rel in kernels:
                for i in range(args.repeat):
                    jobs.append((i, rel, full, getattr(mod, name)))
        if len(jobs) > before:
            modules.append(mod)

    # Round by round: a sweep stopped early has run every test alike.
    jobs = [j[1:] for j in sorted(jobs, key=lambda j: j[0])]
    passed = failed = 0
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        # The images (debootstrap: network and dpkg) are built while the
        # unit tests (compilers, about one core) run.
        futs = [pool.submit(run_one, *j) for j in prepare_jobs(modules, kernels)]
        if not args.no_unit:
            p, f = unit_tests()
            passed, failed = passed + p, failed + f
        futs += [pool.submit(run_one, *j) for j in jobs]
        for fut in concurrent.futures.as_completed(futs):
            rel, name, err, secs = fut.result()
            if rel == "-" and not err:
                print("PREP %-22s %s (%.0fs)" % (rel, name, secs), flush=True)
            elif err:
                failed += 1
                print("FAIL %-22s %s (%.0fs)\n%s" % (rel, name, secs, err), flush=True)
            else:
                passed += 1
                print("PASS %-22s %s (%.0fs)" % (rel, name, secs), flush=True)
    print("tests took %.0fs" % (time.monotonic() - t0))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
