"""Host test: warnings are errors where kmsvt is developed (KMSVT_WERROR=1:
make, make check, the suite), never in the build DKMS makes on a user's
machine.  A copy of the module's sources with a warning added builds
without KMSVT_WERROR (dkms.conf's make line) and fails with it, on a kernel
built with the host's gcc and on one built in a Debian root of its own
(scripts/kenv.sh); nothing a user builds with sets KMSVT_WERROR."""
import os
import shutil
import subprocess
import tempfile
import unittest

import initramfs

REPO = initramfs.REPO
# An unused static: gcc's -Wunused-variable, on in every kernel's -Wall.
WARNING = "\nstatic int kmsvt_unused_by_test;\n"


def _kernels():
    """The first kernel built with the host's gcc, and the first built in
    a root (Debian 13's gcc-14)."""
    rels = initramfs.releases()
    rooted = [r for r in rels if os.path.exists(os.path.join(initramfs.kernel_dir(r), "root"))]
    return [r for r in rels if r not in rooted][:1] + rooted[:1]


class NoWerrorForUsers(unittest.TestCase):
    def _build(self, rel, werror):
        # Under build/: the folder a kernel's root shows at the same path.
        tmp = tempfile.mkdtemp(prefix="werror-", dir=initramfs.BUILD)
        self.addCleanup(shutil.rmtree, tmp, True)
        for f in initramfs.module_sources():
            os.makedirs(os.path.dirname(os.path.join(tmp, f)), exist_ok=True)
            shutil.copy2(os.path.join(REPO, f), os.path.join(tmp, f))
        with open(os.path.join(tmp, "kmsvt_drv.c"), "a") as f:
            f.write(WARNING)
        args = ["sh", os.path.join(REPO, "scripts", "kenv.sh"), "--make", rel, "M=" + tmp,
                "modules"] + (["KMSVT_WERROR=1"] if werror else [])
        res = subprocess.run(args, capture_output=True, text=True, timeout=600)
        return res.returncode, res.stdout + res.stderr, os.path.join(tmp, "kmsvt.ko")

    def test_warning_builds_without_werror_fails_with(self):
        kernels = _kernels()
        self.assertEqual(len(kernels), 2, "want a host-gcc and a rooted kernel: %s" % kernels)
        for rel in kernels:
            rc, out, ko = self._build(rel, werror=False)
            self.assertEqual(rc, 0, "%s without KMSVT_WERROR:\n%s" % (rel, out[-3000:]))
            self.assertIn("kmsvt_unused_by_test", out, "%s: no warning printed" % rel)
            self.assertTrue(os.path.exists(ko), "%s: no kmsvt.ko" % rel)
            rc, out, ko = self._build(rel, werror=True)
            self.assertNotEqual(rc, 0, "%s with KMSVT_WERROR=1 built:\n%s" % (rel, out[-3000:]))
            self.assertIn("kmsvt_unused_by_test", out)
            self.assertFalse(os.path.exists(ko), "%s: kmsvt.ko despite -Werror" % rel)

    def test_user_builds_set_no_werror(self):
        for path in ("dkms.conf", "debian/rules", "scripts/install.sh"):
            with open(os.path.join(REPO, path)) as f:
                self.assertNotIn("KMSVT_WERROR", f.read(), path)
        with open(os.path.join(REPO, "Kbuild")) as f:
            kbuild = f.read()
        self.assertIn("ifeq ($(KMSVT_WERROR),1)\nccflags-y += -Werror\nendif", kbuild)
        self.assertEqual(kbuild.count("-Werror"), 1, "-Werror outside KMSVT_WERROR")


if __name__ == "__main__":
    unittest.main()
