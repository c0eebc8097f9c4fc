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

LOGIN = "%s login:" % sysguest.HOSTNAME
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


def initramfs_files(g, rel):
    _, out = g.sh("lsinitramfs /boot/initrd.img-%s" % rel, timeout=120, check=True)
    return out.split()


def assert_installed(g, rel):
    """What make install gives, from the packages: DKMS's module for rel,
    the same modprobe.d text, both in the initramfs."""
    _, status = g.sh("dkms status -m kmsvt", check=True)
    check("kmsvt/%s, %s, x86_64: installed" % (version(), rel) in status,
          "dkms status: %r" % status)
    _, conf = g.sh("cat %s" % MODPROBE, check=True)
    with open(os.path.join(initramfs.REPO, "scripts", "kmsvt-modprobe.conf")) as f:
        check(conf.strip() == f.read().strip(), "%s: %r" % (MODPROBE, conf))
    ours = [f for f in initramfs_files(g, rel) if "kmsvt." in f]
    check([f for f in ours if "/%s/updates/dkms/kmsvt.ko" % rel in f]
          and [f for f in ours if f.endswith(MODPROBE.lstrip("/"))], "kmsvt's files in the initramfs: %s" % ours)


def assert_booted_kmsvt(g):
    """A boot after the install: kmsvt from the initramfs on, DKMS's
    module, getty's prompt on its console, the tools and their man pages."""
    check(sysguest.driver(g) == "kmsvt", "card0 is driven by %r after apt install"
          % sysguest.driver(g))
    mods = sysguest.modules(g)
    check("kmsvt" in mods and "bochs" not in mods, "modules: %s" % sorted(mods))
    _, path = g.sh("modinfo -n kmsvt", check=True)
    check("/updates/dkms/kmsvt.ko" in path, "kmsvt.ko is %r, not DKMS's" % path.strip())
    sysguest.assert_console_before_root(g)
    img, _ = g.wait_screen_text(LOGIN, timeout=180)
    check((img.width, img.height) == (1280, 800), "mode %dx%d" % (img.width, img.height))
    st, out = g.sh("kmsvt-info --help")
    check(st == 0 and "kmsvt-info" in out, "kmsvt-info --help (%d): %r" % (st, out))
    st, out = g.sh("zcat /usr/share/man/man1/kmsvt-info.1.gz | head -n 1")
    check(st == 0 and out.strip().startswith(".TH KMSVT-INFO 1"),
          "kmsvt-info's man page: %r" % out)
    g.assert_no_oops()


def assert_purged(g, rel):
    """Nothing of the packages left: DKMS, files, the initramfs."""
    _, status = g.sh("dkms status -m kmsvt")
    check(not status.strip(), "dkms status after purge: %r" % status)
    st, out = g.sh("ls -d /usr/src/kmsvt-* %s "
                   "/usr/share/initramfs-tools/hooks/kmsvt /usr/bin/kmsvt-* 2>/dev/null" % MODPROBE)
    check(not out.strip(), "left after purge: %r" % out)
    ours = [f for f in initramfs_files(g, rel) if "/kmsvt.ko" in f or f.endswith("/kmsvt.conf")]
    check(not ours, "still in the initramfs: %s" % ours)


def assert_booted_bochs(g):
    """A boot after the purge (or before the install): bochs' display."""
    check(sysguest.driver(g) == "bochs-drm", "card0 is driven by %r, not bochs"
          % sysguest.driver(g))
    check("kmsvt" not in sysguest.modules(g), "kmsvt loaded")
    st, _ = g.sh("modinfo -n kmsvt")
    check(st != 0, "kmsvt.ko is installed")
    g.wait_screen_text(LOGIN, timeout=180)
    g.assert_no_oops()
