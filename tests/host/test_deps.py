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
        """One kernel a line of scripts/kernels, each from its suite and
        of its version."""
        self.assertEqual(self.rc, 0, self.out[-3000:])
        with open(os.path.join(REPO, "scripts", "kernels")) as f:
            listed = [line.split()[:3] for line in f if line.strip() and not line.startswith("#")]
        found = re.findall(r"^deps: kernel (\S+) \((\S+), (\w+) tests, compiler (\S+)\)$",
                           self.out, re.M)
        self.assertEqual([(s, t) for _, s, t, _ in found], [(s, t) for s, _, t in listed],
                         self.out[-3000:])
        for (rel, _, _, _), (_, ver, _) in zip(found, listed):
            self.assertTrue(rel.startswith(ver + "."), (rel, ver))

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
        self.assertEqual(len(lines), 5, self.out[-3000:])
        for rel, pkgs in lines:
            # 6.x: one image package; 7.x: split into binary, modules, base.
            image = ["linux-image-%s-unsigned" % rel] if rel.startswith("6.") else \
                ["linux-%s-%s" % (p, rel) for p in ("binary", "modules", "base")]
            for p in image + ["linux-headers-%s" % rel]:
                self.assertIn(p, pkgs.split())


if __name__ == "__main__":
    unittest.main()
