"""Host test: `make deb` (scripts/deb.sh) builds kmsvt-dkms and kmsvt-tools
into build/deb/ and lintian finds no error in them; what each .deb holds
(dpkg-deb -c): the module's sources (the Makefile's list) and dkms.conf
under /usr/src/kmsvt-<version>/, the modprobe.d file and the initramfs
hook byte for byte as `make install` installs them, every tool in /usr/bin
with its man page; the version is dkms.conf's."""
import os
import re
import subprocess
import tempfile
import time
import unittest

import initramfs

REPO = initramfs.REPO
OUT = os.path.join(REPO, "build", "deb")


def dkms_version():
    with open(os.path.join(REPO, "dkms.conf")) as f:
        return re.search(r'^PACKAGE_VERSION="(.*)"$', f.read(), re.M).group(1)


def tools():
    """The tools' names, from the Makefile (make user-tools)."""
    return subprocess.run(["make", "-s", "--no-print-directory", "user-tools"], cwd=REPO,
                          capture_output=True, text=True, check=True).stdout.split()


def deb_contents(deb):
    """{path: (mode, link target or None)} of a .deb's files and links."""
    out = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True,
                         check=True).stdout
    files = {}
    for line in out.splitlines():
        f = line.split(None, 5)
        name, link = f[5], None
        if " -> " in name:
            name, link = name.split(" -> ")
        if not f[0].startswith("d"):
            files[name[1:]] = (f[0], link)
    return files


class Deb(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        t0 = time.monotonic()
        res = subprocess.run(["make", "-s", "--no-print-directory", "deb"], cwd=REPO,
                             capture_output=True, text=True, timeout=600)
        cls.rc, cls.out = res.returncode, res.stdout + res.stderr
        cls.ver = dkms_version()
        print("make deb took %.0f s" % (time.monotonic() - t0))

    def deb(self, name, arch):
        self.assertEqual(self.rc, 0, self.out[-3000:])
        path = os.path.join(OUT, "%s_%s_%s.deb" % (name, self.ver, arch))
        self.assertTrue(os.path.exists(path), "no %s; make deb: %s" % (path, self.out[-2000:]))
        return path

    def test_lintian_no_errors(self):
        self.deb("kmsvt-dkms", "all")
        self.assertIn("deb.sh: lintian: no errors", self.out)
        with open(os.path.join(OUT, "lintian.txt")) as f:
            tags = [line for line in f if re.match(r"[EW]: ", line)]
        self.assertEqual([t for t in tags if t.startswith("E: ")], [], tags)

    def test_dkms_package(self):
        deb = self.deb("kmsvt-dkms", "all")
        files = deb_contents(deb)
        src = "/usr/src/kmsvt-%s/" % self.ver
        want = {src + f for f in ["dkms.conf"] + initramfs.module_sources()}
        want |= {"/lib/modprobe.d/kmsvt.conf", "/usr/share/initramfs-tools/hooks/kmsvt",
                 "/usr/share/doc/kmsvt-dkms/copyright", "/usr/share/doc/kmsvt-dkms/changelog.gz"}
        self.assertEqual(set(files), want)
        self.assertEqual(files["/usr/share/initramfs-tools/hooks/kmsvt"][0], "-rwxr-xr-x")
        # The same bytes as the files scripts/install.sh installs.
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["dpkg-deb", "-x", deb, tmp], check=True)
            for inside, ours in ((src + "dkms.conf", "dkms.conf"),
                                 ("/lib/modprobe.d/kmsvt.conf", "scripts/kmsvt-modprobe.conf"),
                                 ("/usr/share/initramfs-tools/hooks/kmsvt",
                                  "scripts/kmsvt-initramfs-hook")):
                with open(tmp + inside, "rb") as a, open(os.path.join(REPO, ours), "rb") as b:
                    self.assertEqual(a.read(), b.read(), "%s is not %s" % (inside, ours))
        info = subprocess.run(["dpkg-deb", "-f", deb, "Version", "Depends"],
                              capture_output=True, text=True, check=True).stdout
        self.assertIn("Version: %s\n" % self.ver, info)
        self.assertRegex(info, r"Depends: .*\bdkms\b")
        ctl = subprocess.run(["dpkg-deb", "-I", deb, "triggers", "postinst", "prerm"],
                             capture_output=True, text=True, check=True).stdout
        self.assertIn("activate-noawait update-initramfs", ctl)
        self.assertIn("DKMS_NAME=kmsvt", ctl)
        self.assertIn("dkms remove -m $DKMS_NAME -v $DKMS_VERSION --all", ctl)
        # No conffile: the modprobe.d file goes with the package at a
        # remove, before the trigger makes the initramfs again.
        conffiles = subprocess.run(["dpkg-deb", "-I", deb, "conffiles"], capture_output=True,
                                   text=True).stdout
        self.assertNotIn("modprobe.d", conffiles)

    def test_tools_package(self):
        deb = self.deb("kmsvt-tools", "amd64")
        files = deb_contents(deb)
        want = {"/usr/bin/" + t for t in tools()}
        want |= {"/usr/share/man/man1/%s.1.gz" % t for t in tools()}
        want |= {"/usr/share/doc/kmsvt-tools/copyright",
                 "/usr/share/doc/kmsvt-tools/changelog.gz"}
        self.assertEqual(set(files), want)
        deps = subprocess.run(["dpkg-deb", "-f", deb, "Depends"], capture_output=True,
                              text=True, check=True).stdout
        for lib in ("libc6", "libdrm2", "libseat1"):
            self.assertIn(lib, deps)

    def test_source_tree_untouched(self):
        self.assertEqual(self.rc, 0, self.out[-3000:])
        for junk in ("debian/kmsvt-dkms", "debian/kmsvt-tools", "debian/files",
                     "debian/.debhelper", "debian/debhelper-build-stamp"):
            self.assertFalse(os.path.exists(os.path.join(REPO, junk)), junk)


if __name__ == "__main__":
    unittest.main()
