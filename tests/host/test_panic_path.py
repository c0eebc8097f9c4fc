"""Host tests of the panic path's rules (tests/lib/panic_path.py): the
module as built must pass them on every target kernel, and the check must
catch a panic path that breaks them (so that it can fail at all)."""
import os
import re
import shutil
import tempfile
import unittest

import initramfs
import panic_path

# Deep enough for the QR encoder, far from the 16 KiB a kernel stack has
# (the kernel's own frames are below and above ours).
MAX_STACK = 1536

# Drawn into kmsvt_panic_draw() by the negative test: each line breaks one rule.
BAD_CALLS = (
    ("allocator", "\tkfree(kmalloc(16, GFP_ATOMIC));\n"),
    ("sleeps", "\tmutex_lock(&kp->kdev->drm.master_mutex);\n"
               "\tmutex_unlock(&kp->kdev->drm.master_mutex);\n"),
    ("non-try spinlock", "\traw_spin_lock(&kp->kdev->scanout_lock);\n"
                         "\traw_spin_unlock(&kp->kdev->scanout_lock);\n"),
)


class PanicPath(unittest.TestCase):
    def test_rules_hold(self):
        for rel in initramfs.releases():
            with self.subTest(kernel=rel):
                a = panic_path.analyse(rel, keep=False)
                self.assertEqual(a.violations, [], panic_path.report(a))
                worst, path = a.worst
                self.assertLess(worst, MAX_STACK, " -> ".join(path))
                names = {f.name.split(".")[0] for f in a.reach}
                self.assertIn("kmsvt_panic_draw", names)
                self.assertIn("kmsvt_scanout_take", names)
                self.assertIn("kmsvt_screen_draw", names)
                self.assertIn("kmsvt_draw_log", names)

    def test_check_catches_violations(self):
        rel = initramfs.releases()[0]
        tmp = tempfile.mkdtemp(prefix="kmsvt-panic-path-")
        try:
            panic_path.copy_sources(tmp)
            path = os.path.join(tmp, "panic", "panic.c")
            with open(path) as f:
                src = f.read()
            anchor = re.search(r"static void kmsvt_panic_draw\([^)]*\)\n\{\n[^\n]*\n[^\n]*\n",
                               src)
            self.assertIsNotNone(anchor, "kmsvt_panic_draw() not found in panic.c")
            bad = "".join(code for _, code in BAD_CALLS)
            src = src[:anchor.end()] + "\n" + bad + src[anchor.end():]
            src = src.replace("#include <linux/ctype.h>\n",
                              "#include <linux/ctype.h>\n#include <linux/slab.h>\n", 1)
            with open(path, "w") as f:
                f.write(src)
            a = panic_path.analyse(rel, keep=False, src=tmp)
            found = {rule for rule, _ in a.violations}
            for rule, _ in BAD_CALLS:
                self.assertIn(rule, found, "injected %s call not caught" % rule)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
