"""Guest test: IGT GPU Tools' KMS and core tests on kmsvt, the subset the
suite is to run on every full kernel (tests/lib/igt.py's CI set, 97 s a
kernel with the boot), judged by tests/igt/kmsvt.txt as DRM CI judges a
driver: a failure not on the list, or a listed one that passes, fails.
make test-igt runs the whole set on kmsvt and in-tree bochs
(test_igt_full.py)."""
import igt

# Not in the suite yet: on 6.12.117 the CI set (97 s with the boot) gives
# 117 passes, 18 skips and 6 failures (three subtests) that are kmsvt's
# to fix, not by design (issue 31): flip-vs-panning,
# flip-vs-expired-vblank, plane-use-after-nonblocking-unbind.
# tests/run.py --modules test_igt runs it meanwhile.
SUITE = False
PREPARE = igt.prepare


def test_igt_kmsvt(ctx):
    igt.run_and_judge(ctx, "kmsvt", "ci")
