"""Host test: kmsvt builds through DKMS for both guest kernels
(scripts/install.sh dkms-check: a DKMS tree under build/dkms, against the
extracted headers), and the files `make install` puts on a system are
well-formed."""
import os
import re
import shutil
import subprocess
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def releases():
    with open(os.path.join(REPO, "build", "kernels", "releases")) as f:
        return f.read().split()


class DkmsBuild(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        res = subprocess.run(["sh", "scripts/install.sh", "dkms-check"], cwd=REPO,
                             capture_output=True, text=True, timeout=1200)
        cls.rc, cls.out = res.returncode, res.stdout + res.stderr

    def test_built_for_both_kernels(self):
        self.assertEqual(self.rc, 0, self.out[-3000:])
        for rel in releases():
            self.assertRegex(self.out, r"(?m)^kmsvt/\S+, %s, x86_64: built$" % re.escape(rel),
                             self.out[-3000:])
            ko = os.path.join(REPO, "build", "dkms", "kmsvt")
            found = [os.path.join(d, f) for d, _, fs in os.walk(ko) for f in fs
                     if f == "kmsvt.ko" and "/%s/" % rel in d + "/"]
            self.assertTrue(found, "no kmsvt.ko for %s under build/dkms" % rel)
            # The module users install has none of the tests' crash triggers.
            modinfo = shutil.which("modinfo") or "/usr/sbin/modinfo"
            parms = subprocess.run([modinfo, "-F", "parm", found[0]], capture_output=True,
                                   text=True).stdout
            self.assertIn("panic_screen", parms, "modinfo read no parameters: %r" % parms)
            self.assertNotIn("test_hooks", parms, "DKMS's %s has test hooks" % found[0])

    def test_nothing_outside_build(self):
        self.assertFalse(os.path.exists("/var/lib/dkms/kmsvt"), "DKMS state left on the host")


class InstallFiles(unittest.TestCase):
    def test_modprobe_conf(self):
        """One rule: loading bochs loads kmsvt, and bochs itself only when
        kmsvt did not load (no blacklist: a kernel without kmsvt.ko must
        get bochs).  The guests boot it both ways (test_package)."""
        with open(os.path.join(REPO, "scripts", "kmsvt-modprobe.conf")) as f:
            rules = [line.split(None, 2) for line in f if line.strip() and not line.startswith("#")]
        self.assertEqual([r[:2] for r in rules], [["install", "bochs"]])
        self.assertRegex(rules[0][2], r"/sbin/modprobe -b kmsvt .*\|\| "
                         r"/sbin/modprobe --ignore-install bochs \$CMDLINE_OPTS$")

    def test_dkms_conf_version_matches_driver(self):
        with open(os.path.join(REPO, "dkms.conf")) as f:
            ver = re.search(r'^PACKAGE_VERSION="(\d+)\.(\d+)\.(\d+)"$', f.read(), re.M)
        with open(os.path.join(REPO, "kmsvt_drv.c")) as f:
            drv = f.read()
        self.assertTrue(ver)
        for part, field in zip(ver.groups(), ("major", "minor", "patchlevel")):
            if field == "patchlevel" and ".patchlevel" not in drv:
                self.assertEqual(part, "0")
            else:
                self.assertRegex(drv, r"\.%s = %s," % (field, part))

    def test_hook_and_script_parse(self):
        for script in ("scripts/kmsvt-initramfs-hook", "scripts/install.sh"):
            res = subprocess.run(["sh", "-n", script], cwd=REPO, capture_output=True, text=True)
            self.assertEqual(res.returncode, 0, res.stderr)


if __name__ == "__main__":
    unittest.main()
