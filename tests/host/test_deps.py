"""Host test: what `make deps` would ask of apt (scripts/deps.sh --dry-run,
which runs `apt-get -s` for the host packages) installs no kernel image on
the host and upgrades none of its packages; the guest kernels are only
downloaded and extracted under build/."""
import os
import re
import subprocess
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class DepsDryRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        res = subprocess.run(["sh", "scripts/deps.sh", "--dry-run"], cwd=REPO,
                             capture_output=True, text=True, timeout=600)
        cls.rc, cls.out = res.returncode, res.stdout + res.stderr

    def test_dry_run_works(self):
        self.assertEqual(self.rc, 0, self.out[-3000:])
        self.assertRegex(self.out, r"deps: kernels 6\.1\.\S+ 6\.12\.\S+")

    def test_no_kernel_image_on_host(self):
        inst = re.findall(r"^Inst (\S+)", self.out, re.M)
        self.assertEqual([p for p in inst if p.startswith("linux-image")], [], self.out[-3000:])

    def test_no_upgrade(self):
        # apt-get -s shows an upgrade as "Inst PKG [OLD-VERSION] (NEW ...)".
        upgrades = re.findall(r"^Inst (\S+) \[", self.out, re.M)
        self.assertEqual(upgrades, [], self.out[-3000:])

    def test_guest_kernels_only_downloaded(self):
        lines = re.findall(r"^deps: would download and extract under build/kernels/(\S+): (.*)$",
                           self.out, re.M)
        self.assertEqual(len(lines), 2, self.out[-3000:])
        for rel, pkgs in lines:
            self.assertIn("linux-image-%s-unsigned" % rel, pkgs.split())
            self.assertIn("linux-headers-%s" % rel, pkgs.split())


if __name__ == "__main__":
    unittest.main()
