"""Guest tests of make test-igt (not the suite's: SUITE = False): IGT's
whole KMS and core set (tests/lib/igt.py FULL) on kmsvt and on in-tree
bochs, each judged by its list in tests/igt/."""
import igt

SUITE = False
PREPARE = igt.prepare


def test_igt_full_kmsvt(ctx):
    igt.run_and_judge(ctx, "kmsvt", "full")


def test_igt_full_bochs(ctx):
    igt.run_and_judge(ctx, "bochs", "full")
