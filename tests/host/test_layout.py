"""Host test: the layout of tests/ holds.  What the tests share is in
tests/lib, so no test module imports another (nor a benchmark); only the
entry points set the import path (tests/run.py, demo.py, fuzz_long.py,
the benchmark scripts, tests/host's package), never a test or lib module;
and make screenshots runs exactly the tests that take screenshots."""
import ast
import glob
import os
import re
import unittest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TESTS)


def files(*patterns):
    return sorted(p for pat in patterns for p in glob.glob(os.path.join(TESTS, pat)))


def imported(path):
    """The top-level names of the modules path imports."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


TEST_MODULES = files("guest/test_*.py", "host/test_*.py", "host/*/test_*.py")
LIB_MODULES = files("lib/*.py")


class Layout(unittest.TestCase):
    def test_no_test_module_imports_another(self):
        tests = {os.path.basename(p)[:-3] for p in TEST_MODULES}
        bench = {os.path.basename(p)[:-3] for p in files("bench/*.py")}
        for path in TEST_MODULES + LIB_MODULES + files("*.py", "bench/*.py"):
            with self.subTest(path=os.path.relpath(path, REPO)):
                own = {os.path.basename(path)[:-3]}
                bad = imported(path) & tests - own
                if "/bench/" not in path:
                    bad |= imported(path) & bench
                self.assertFalse(bad, "imports test or benchmark modules %s: what they "
                                 "share belongs in tests/lib" % sorted(bad))

    def test_no_path_edits_in_test_or_lib_modules(self):
        for path in TEST_MODULES + LIB_MODULES:
            with self.subTest(path=os.path.relpath(path, REPO)):
                with open(path) as f:
                    edits = [ln.strip() for ln in f
                             if re.search(r"sys\.path\.(insert|append)|sys\.path\s*=", ln)]
                self.assertEqual(edits, [], "sets the import path: only entry points do")

    def test_screenshots_target_runs_the_screenshot_tests(self):
        takers = set()
        for path in files("guest/test_*.py"):
            with open(path) as f:
                tree = ast.parse(f.read(), path)
            mod = os.path.basename(path)[:-3]
            for fn in tree.body:
                if isinstance(fn, ast.FunctionDef) and fn.name.startswith("test_") and any(
                        isinstance(n, ast.Call) and getattr(n.func, "id", None) == "screenshot"
                        for n in ast.walk(fn)):
                    takers.add("%s.%s" % (mod, fn.name))
        with open(os.path.join(REPO, "Makefile")) as f:
            m = re.search(r"^SCREENSHOT_TESTS := ((?:.*\\\n)*.*)$", f.read(), re.M)
        self.assertTrue(m, "no SCREENSHOT_TESTS in the Makefile")
        named = {w for w in m.group(1).replace("\\\n", " ").split() if not w.startswith("-")}
        self.assertTrue(takers, "no guest test calls screenshot()")
        self.assertEqual(named, takers, "make screenshots' SCREENSHOT_TESTS is not the list "
                         "of the tests that call screenshot()")


if __name__ == "__main__":
    unittest.main()
