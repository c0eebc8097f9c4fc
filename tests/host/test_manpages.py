"""Host test: every userspace tool has a man page (userspace/man/TOOL.1)
that groff formats without a warning and that names every long option the
tool's --help lists."""
import glob
import os
import re
import subprocess
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
USERSPACE = os.path.join(REPO, "userspace")
BUILT = os.path.join(REPO, "build", "userspace")


def tools():
    files = [os.path.basename(p)[:-2] for p in glob.glob(os.path.join(USERSPACE, "*.c"))]
    dirs = [os.path.basename(os.path.dirname(p))
            for p in glob.glob(os.path.join(USERSPACE, "*", "*.c"))]
    return sorted(set(files + dirs))


class ManPages(unittest.TestCase):
    def test_every_tool_has_one(self):
        self.assertTrue(tools())
        for tool in tools():
            page = os.path.join(USERSPACE, "man", tool + ".1")
            self.assertTrue(os.path.exists(page), "no man page for %s" % tool)
            res = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", page],
                                 capture_output=True, text=True)
            self.assertEqual((res.returncode, res.stderr), (0, ""), page)

    def test_pages_name_the_options(self):
        for tool in tools():
            prog = os.path.join(BUILT, tool)
            self.assertTrue(os.path.exists(prog), "%s not built: run make" % prog)
            res = subprocess.run([prog, "--help"], capture_output=True, text=True)
            self.assertEqual(res.returncode, 0, "%s --help" % tool)
            with open(os.path.join(USERSPACE, "man", tool + ".1")) as f:
                page = f.read().replace("\\-", "-")
            for opt in sorted(set(re.findall(r"--[a-z][a-z-]+", res.stdout))):
                self.assertIn(opt, page, "%s.1 does not name %s" % (tool, opt))


if __name__ == "__main__":
    unittest.main()
