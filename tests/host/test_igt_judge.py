"""Host test: tests/lib/igt.py's reading of IGT's output and its judgement
against the expectation lists (tests/igt/), as DRM CI's: a new failure
fails the run, an expected failure that passes fails it too, a skip is
not a failure, and every list entry has its reason."""
import os
import unittest

import igt

OUTPUT = """IGT-Version: 2.2-gecb9eb7f (x86_64) (Linux: 6.12.117+deb13-amd64 x86_64)
Starting subtest: basic-plain-flip
Subtest basic-plain-flip: SUCCESS (1.234s)
Starting subtest: flip-vs-panning
Subtest flip-vs-panning: FAIL (0.501s)
Starting subtest: nonblocking-read
Subtest nonblocking-read: SKIP (0.000s)
Starting subtest: plane-all-transition
Starting dynamic subtest: pipe-A-HDMI-A-1
Dynamic subtest pipe-A-HDMI-A-1: SUCCESS (2.000s)
Subtest plane-all-transition: SUCCESS (2.100s)
Starting subtest: flip-vs-expired-vblank
"""


class IgtJudgeTest(unittest.TestCase):
    def test_parse(self):
        res = igt.parse("kms_flip", OUTPUT, 98)
        self.assertEqual(res, {
            "kms_flip@basic-plain-flip": "SUCCESS", "kms_flip@flip-vs-panning": "FAIL",
            "kms_flip@nonblocking-read": "SKIP", "kms_flip@plane-all-transition": "SUCCESS",
            "kms_flip@plane-all-transition@pipe-A-HDMI-A-1": "SUCCESS",
            # started, never ended: the binary died in it
            "kms_flip@flip-vs-expired-vblank": "CRASH"})

    def test_parse_simple(self):
        self.assertEqual(igt.parse("core_getversion", "IGT-Version: 2.2\n", 0),
                         {"core_getversion": "SUCCESS"})
        self.assertEqual(igt.parse("core_getversion", "IGT-Version: 2.2\n", 77),
                         {"core_getversion": "SKIP"})
        self.assertEqual(igt.parse("core_getversion", "IGT-Version: 2.2\n", 134),
                         {"core_getversion": "FAIL"})

    def test_new_failure_fails(self):
        res = igt.parse("kms_flip", OUTPUT, 98)
        problems = igt.judge(res, {})
        self.assertEqual(len(problems), 2, problems)
        self.assertTrue(any("flip-vs-panning: FAIL, not expected" in p for p in problems))

    def test_expected_failure_passes(self):
        res = igt.parse("kms_flip", OUTPUT, 98)
        expected = {"kms_flip@flip-vs-panning": ("FAIL", "why"),
                    "kms_flip@flip-vs-expired-vblank": ("CRASH", "why")}
        self.assertEqual(igt.judge(res, expected), [])
        expected["kms_flip@basic-plain-flip"] = ("FAIL", "why")
        self.assertEqual(len(igt.judge(res, expected)), 1)
        # a skip where a failure is expected: the entry no longer holds
        expected = dict(expected, **{"kms_flip@nonblocking-read": ("FAIL", "why")})
        del expected["kms_flip@basic-plain-flip"]
        self.assertEqual(len(igt.judge(res, expected)), 1)

    def test_a_failure_of_another_kind_is_new(self):
        res = {"kms_flip@flip-vs-panning": "CRASH"}
        self.assertEqual(len(igt.judge(res, {"kms_flip@flip-vs-panning": ("FAIL", "why")})), 1)

    def test_lists_have_reasons_and_kernels(self):
        for name in sorted(os.listdir(igt.EXPECT)):
            driver = name[:-len(".txt")]
            for rel in ("6.1.0-57-amd64", "7.3.4+deb13-amd64"):
                for entry, (result, reason) in igt.expectations(driver, rel).items():
                    self.assertIn(result, igt.FAILED, entry)
                    self.assertTrue(reason, entry)


if __name__ == "__main__":
    unittest.main()
