"""make deb's packages in the systemd guest: the checks that a guest has
what `apt install ./kmsvt-dkms_*.deb ./kmsvt-tools_*.deb` gives (the
same as `make install`), and nothing of it after `apt purge`.  The suite's
test_package boots images where apt ran in the image's chroot (sysguest's
"apt" and "apt-purged" variants, as its "install" variant runs make
install); make test-package's test_package_apt runs apt in the booted
guest, DKMS's build under TCG included (minutes a kernel)."""
import os

import initramfs
import sysguest
from harness import check

# apt-get, as the README's apt (apt's own interface is not stable for
# scripts); offline: the image has every package they depend on.
INSTALL = sysguest.package_cmd("install")
PURGE = sysguest.package_cmd("purge")
# kmsvt-dkms' modprobe.d file (make install's is /etc/modprobe.d/kmsvt.conf,
# the same text: scripts/kmsvt-modprobe.conf); usr/lib/... in a merged-/usr
# initramfs.
MODPROBE = "/lib/modprobe.d/kmsvt.conf"


def version():
    with open(os.path.join(initramfs.REPO, "dkms.conf")) as f:
        return [line.split('"')[1] for line in f if line.startswith("PACKAGE_VERSION=")][0]


def assert_installed(g, rel):
    """What make install gives, from the packages: DKMS's module for rel,
    the same modprobe.d text, both in the initramfs."""
    _, status = g.sh("dkms status -m kmsvt", check=True)
    check("kmsvt/%s, %s, x86_64: installed" % (version(), rel) in status,
          "dkms status: %r" % status)
    _, conf = g.sh("cat %s" % MODPROBE, check=True)
    with open(os.path.join(initramfs.REPO, "scripts", "kmsvt-modprobe.conf")) as f:
        check(conf.strip() == f.read().strip(), "%s: %r" % (MODPROBE, conf))
    ours = [f for f in sysguest.initramfs_files(g, rel) if "kmsvt." in f]
    check([f for f in ours if "/%s/updates/dkms/kmsvt.ko" % rel in f]
          and [f for f in ours if f.endswith(MODPROBE.lstrip("/"))],
          "kmsvt's files in the initramfs: %s" % ours)


def assert_booted_kmsvt(g):
    """A boot after the install: what make install's gives
    (sysguest.assert_booted_kmsvt), and the tools and their man pages."""
    sysguest.assert_booted_kmsvt(g)
    st, out = g.sh("kmsvt-info --help")
    check(st == 0 and "kmsvt-info" in out, "kmsvt-info --help (%d): %r" % (st, out))
    st, out = g.sh("zcat /usr/share/man/man1/kmsvt-info.1.gz | head -n 1")
    check(st == 0 and out.strip().startswith(".TH KMSVT-INFO 1"),
          "kmsvt-info's man page: %r" % out)
    g.assert_no_oops()


def assert_purged(g, rel):
    """Nothing of the packages left: DKMS, files, the initramfs."""
    sysguest.assert_nothing_left(g, rel, ("/usr/src/kmsvt-*", MODPROBE,
                                          "/usr/share/initramfs-tools/hooks/kmsvt",
                                          "/usr/bin/kmsvt-*"))
