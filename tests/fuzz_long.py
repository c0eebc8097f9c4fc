#!/usr/bin/env python3
"""A long kmsvt-fuzz run (make fuzz): on each full kernel in turn, one
guest, the fuzzer for --seconds (default an hour), then the same checks as
the suite's test_fuzz: no kernel report, kmsvt's buffers all freed, the
console still drawing.  The fuzzer's output (seed, calls per ioctl) is in
build/test-logs/<kernel>-fuzz-long-kmsvt-fuzz.log.

usage: tests/fuzz_long.py [--seconds N] [--seed N] [--calls N] [KERNEL_RELEASE ...]
"""
import argparse
import os
import sys
import time
import traceback

# An entry point: tests/lib, the shared helpers, on the import path.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import fuzz  # noqa: E402
import harness  # noqa: E402
import initramfs  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=3600)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    # Time-bounded: the calls are a ceiling that an hour does not reach.
    ap.add_argument("--calls", type=int, default=10 ** 9)
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args()
    harness.require_tools()
    failed = 0
    # One guest at a time: a long run is a whole core's work under TCG.
    for rel in args.kernels or initramfs.full_releases():
        ctx = harness.Ctx(rel)
        t0 = time.monotonic()
        try:
            fuzz.fuzz_and_check(ctx, "fuzz-long", args.seed, args.calls, args.seconds)
            # tests/run.py's check after every test, where the harness has it.
            if hasattr(ctx, "check_kernel_reports"):
                ctx.check_kernel_reports()
            print("PASS %s fuzz, seed %d (%.0fs)" % (rel, args.seed, time.monotonic() - t0),
                  flush=True)
        except Exception:
            failed += 1
            print("FAIL %s fuzz, seed %d (%.0fs)\n%s" % (
                rel, args.seed, time.monotonic() - t0, traceback.format_exc()), flush=True)
        finally:
            ctx.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
