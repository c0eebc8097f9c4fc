#!/usr/bin/env python3
"""Run the whole kmsvt suite: host unit tests (while the guest images
are built), then every guest test on every "full" kernel of make deps'
list (scripts/kernels) and the SMOKE set on its "smoke" kernels.  Prints
one line a test and, last, "N passed, N failed".

usage: tests/run.py [-j JOBS] [-k SUBSTRING] [--repeat N] [--no-memcheck] [--list]
                    [KERNEL_RELEASE ...]

The host tests are tests/host/test_*.py (and its folders'), the guest tests
the test_* functions of tests/guest/test_*.py: a new file there is in the
suite without a change here.  The guests boot with slub_debug=FZPU
page_poison=1 (and KFENCE where the kernel has it); whatever their kernels
report fails the test.
"""
import argparse
import concurrent.futures
import glob
import importlib.util
import inspect
import os
import sys
import time
import traceback
import unittest

TESTS = os.path.dirname(os.path.abspath(__file__))
# The one place the suite sets the import path: tests/lib, the shared
# helpers (harness, vm, initramfs, ...), which every test module imports.
sys.path.insert(0, os.path.join(TESTS, "lib"))
import harness  # noqa: E402
import initramfs  # noqa: E402
import sysguest  # noqa: E402

GUEST = os.path.join(TESTS, "guest")
HOST = os.path.join(TESTS, "host")
# The order the guest modules run in (the two workers take the jobs in
# order, round by round): the long ones first (test_fuzz; test_igt, IGT's
# subset; test_wayland, one boot with six sessions; test_splash, systemd
# boots with plymouth), then the order the suite has always had.  A module
# not named here runs after these, in alphabetical order; a name here with
# no file is ignored.
ORDER = ["test_fuzz", "test_igt", "test_wayland", "test_splash", "test_console", "test_kms",
         "test_client", "test_memory", "test_switch", "test_seat", "test_kmscube", "test_xorg",
         "test_panic", "test_fbdev", "test_systemd_guest", "test_package", "test_faults",
         "test_security"]


# What a "smoke" kernel runs (scripts/kernels): the console, a modeset with
# vsync, a panic over a KMS master, Xorg, a seat switch.
SMOKE = ["test_console.test_boot_console", "test_kms.test_modetest_vsync_rate",
         "test_panic.test_panic_over_modetest_xrgb8888", "test_xorg.test_xorg_xterm",
         "test_seat.test_seat_cycle"]


def guest_module_names():
    """The names of tests/guest/test_*.py, in ORDER, then the others
    alphabetically."""
    names = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(GUEST, "test_*.py")))
    return sorted(names, key=lambda n: ORDER.index(n) if n in ORDER else len(ORDER))


def load_guest_module(name):
    """tests/guest/NAME.py, loaded from its file: the guest modules are not
    on the import path, so that none can import another (what they share
    is in tests/lib)."""
    path = os.path.join(GUEST, name + ".py")
    if not os.path.isfile(path):
        sys.exit("tests/run.py: no guest test module %s (tests/guest/%s.py); there are: %s"
                 % (name, name, ", ".join(guest_module_names())))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def suite_modules():
    """The suite's guest modules: every one but those that say SUITE = False
    (test_faultinject: the debug kernel's, make test-debug names it)."""
    mods = [load_guest_module(n) for n in guest_module_names()]
    return [m for m in mods if getattr(m, "SUITE", True)]


def unit_tests():
    """Host tests (tests/host/test_*.py, its folders' too): the screen
    reader, make deps' apt transaction (no kernel image, no upgrade), DKMS
    builds for both kernels, the man pages, the panic QR encoder, the panic
    path's rules (builds the module once more per kernel, with gcc's call
    graph) and the layout of tests/."""
    # tests/host is a package: its __init__ puts tests/lib on the import
    # path for a run of its own (python3 -m unittest tests/host/...).
    suite = unittest.defaultTestLoader.discover(HOST, pattern="test_*.py", top_level_dir=TESTS)
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
    ended = time.monotonic()
    return rel, name, err, ended - t0, ended


def prepare_jobs(modules):
    """The images the selected modules boot, built first (a module's
    PREPARE(kernels), for the kernels it runs on: modules maps each module
    to them), so that no worker sits waiting on another's image
    lock at its first test: one job for each library that builds images
    (xorg), which calls its PREPAREs one after the other, or one for each
    kernel where the library builds each kernel's images under a lock of
    their own (sysguest: PREPARE_PER_KERNEL), so that two kernels' are
    built at once.  Two jobs for images under one lock would wait on each
    other: a worker idle for minutes."""
    groups = {}
    for mod, kernels in modules.items():
        fn = getattr(mod, "PREPARE", None)
        if fn is None:
            continue
        lib = fn.__module__
        split = getattr(sys.modules[lib], "PREPARE_PER_KERNEL", False)
        for rel in sorted(kernels) if split else [None]:
            group = groups.setdefault((lib, rel), {})
            group[fn] = group.get(fn, set()) | ({rel} if rel else kernels)

    def job(fns):
        def run(ctx):
            for fn, kernels in fns.items():
                fn(sorted(kernels))
        return run
    return [("-", "prepare %s%s" % (lib, " " + rel if rel else ""), job(fns))
            for (lib, rel), fns in groups.items()]


# What a whole run from a fresh clone holds under build/ at its peak:
# 21.3 GiB measured (2026-12-07, five kernels: the systemd guests' fifteen
# images and their two bases about 15 GiB, the Xorg image and its root
# 1.5 GiB, the kernels 1.1 GiB, the Debian 13 and sid build roots 1.3 GiB,
# and a root being made into images), and the second root of two kernels'
# images made at once (about 2 GiB), with some room.  A run with less free
# stops at once rather than after twenty minutes with ENOSPC (CI's run of
# e47ff2a).
BUILD_BYTES = 25 << 30


def check_disk():
    """Exit 2, loudly, unless build/ has room for a whole run: what it
    holds now counts (cached images are reused or replaced)."""
    os.makedirs(initramfs.BUILD, exist_ok=True)
    st = os.statvfs(initramfs.BUILD)
    free = st.f_bavail * st.f_frsize
    held = initramfs.du_bytes(initramfs.BUILD)
    if free + held < BUILD_BYTES:
        print("FATAL: the suite needs %.1f GiB for build/ (%s): %.1f GiB free and %.1f GiB "
              "already there" % (BUILD_BYTES / 2**30, initramfs.BUILD, free / 2**30,
                                 held / 2**30))
        sys.exit(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("-k", "--select", default="",
                    help="run the tests whose module.name holds any of these "
                    "comma-separated substrings, except those holding one "
                    "given with a leading '-'")
    ap.add_argument("--modules", default="",
                    help="comma-separated guest test modules, tests/guest/NAME.py "
                    "(default: the suite's, every one but those with SUITE = False: "
                    "test_faultinject, which make test-debug names)")
    ap.add_argument("--no-unit", action="store_true")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="run each selected guest test N times (a flake hunt: "
                    "every run must pass)")
    ap.add_argument("--no-memcheck", action="store_true",
                    help="boot the guests without slub_debug, page_poison and KFENCE")
    ap.add_argument("--list", action="store_true",
                    help="print the selected guest tests, one line a (kernel, test) job "
                    "in the order they would start, and exit; boots nothing")
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args()
    if not args.list:
        harness.require_tools()
        check_disk()
    harness.MEMCHECK = not args.no_memcheck

    # Kernels named on the command line run every selected test; by
    # default the full kernels do, and the smoke kernels the SMOKE set.
    if args.kernels:
        roles = [(rel, "full") for rel in args.kernels]
    else:
        roles = [(rel, tests) for rel, _, tests in initramfs.kernel_list()]
    selects = [s for s in args.select.split(",") if s and not s.startswith("-")]
    excludes = [s[1:] for s in args.select.split(",") if s.startswith("-")]
    if args.modules:
        chosen = [load_guest_module(n) for n in args.modules.split(",") if n]
    else:
        chosen = suite_modules()
    jobs, modules, not_run, once_elsewhere = [], {}, {}, {}
    for mod in chosen:
        modname = mod.__name__
        for name in sorted(n for n, f in vars(mod).items() if n.startswith("test_")
                           and inspect.isfunction(f) and f.__module__ == modname):
            full = "%s.%s" % (modname, name)
            if selects and not any(s in full for s in selects) or \
                    any(s in full for s in excludes):
                continue
            fn = getattr(mod, name)
            # A test whose guest cannot be a kernel's (SERVES: the systemd
            # guest, Debian 12 or 13, none for sid) is not run there, and the
            # run says so.
            serves = getattr(fn, "serves", getattr(mod, "SERVES", None))
            # A test of the distribution's (sysguest.once_per_distribution)
            # runs on the first kernel of each distribution in this run.
            once = getattr(fn, "once_per_distribution", False)
            for rel, tests in roles:
                if tests != "full" and full not in SMOKE:
                    continue
                if serves and not serves(rel):
                    not_run.setdefault(rel, []).append(full)
                    continue
                if once and not sysguest.first_of_distribution(
                        rel, [r for r, t in roles if t == "full"]):
                    once_elsewhere.setdefault(rel, []).append(full)
                    continue
                modules.setdefault(mod, set()).add(rel)
                for i in range(args.repeat):
                    jobs.append((i, rel, full, fn))

    # Round by round: a sweep stopped early has run every test alike.
    jobs = [j[1:] for j in sorted(jobs, key=lambda j: j[0])]
    for rel, names in not_run.items():
        print("NOT RUN %-22s (no guest of its distribution yet): %s" % (rel, " ".join(names)))
    for rel, names in once_elsewhere.items():
        print("ONCE    %-22s (its distribution's, run on another of its kernels): %s"
              % (rel, " ".join(names)))
    if args.list:
        for rel, name, _ in jobs:
            print("%-22s %s" % (rel, name))
        return 0

    passed = failed = 0
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        # The images (debootstrap: network and dpkg) are built while the
        # unit tests (compilers, about one core) run.
        futs = [pool.submit(run_one, *j) for j in prepare_jobs(modules)]
        if not args.no_unit:
            p, f = unit_tests()
            passed, failed = passed + p, failed + f
            print("host tests ended at %.0fs" % (time.monotonic() - t0), flush=True)
        futs += [pool.submit(run_one, *j) for j in jobs]
        for fut in concurrent.futures.as_completed(futs):
            rel, name, err, secs, ended = fut.result()
            # How long it took, and when it ended (the run's timeline; a
            # job that ended during the host tests is printed after them).
            took = "(%.0fs, at %.0fs)" % (secs, ended - t0)
            if rel == "-" and not err:
                print("PREP %-22s %s %s" % (rel, name, took), flush=True)
            elif err:
                failed += 1
                print("FAIL %-22s %s %s\n%s" % (rel, name, took, err), flush=True)
            else:
                passed += 1
                print("PASS %-22s %s %s" % (rel, name, took), flush=True)
    print("tests took %.0fs" % (time.monotonic() - t0))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
