"""Guest test: the Debian packages of `make deb` on the systemd guest, as
the README's "Install" tells a user.  The image is sysguest's "deb"
variant: the same Debian 12, kernel and configuration as the one `make
install` ran in, without kmsvt, with kmsvt-dkms and kmsvt-tools in /root.
It boots on bochs; `apt install ./kmsvt-dkms_*.deb ./kmsvt-tools_*.deb`
(offline: everything they depend on is in the image) has DKMS build kmsvt
in the guest and the trigger remake the initramfs; what `make install`
gives is there (DKMS's module, the same modprobe.d file, kmsvt and that
file in the initramfs), and the next boot is kmsvt's from the initramfs
on, getty's prompt read on its console, the tools and their man pages
installed.  `apt purge kmsvt-dkms kmsvt-tools` takes all of it away, and
the boot after that is bochs'."""
import os
import time

import initramfs
import sysguest
from harness import check

PREPARE = sysguest.prepare_deb
LOGIN = "%s login:" % sysguest.HOSTNAME
APT = "DEBIAN_FRONTEND=noninteractive apt-get -y -q -o Dpkg::Use-Pty=0"


def _version():
    with open(os.path.join(initramfs.REPO, "dkms.conf")) as f:
        return [line.split('"')[1] for line in f if line.startswith("PACKAGE_VERSION=")][0]


def _initramfs(g, rel):
    _, out = g.sh("lsinitramfs /boot/initrd.img-%s" % rel, timeout=120, check=True)
    return out.split()


def _timed(g, cmd, what, times):
    t0 = time.monotonic()
    st, out = g.sh(cmd, timeout=1200)
    times[what] = time.monotonic() - t0
    print("%s: %s took %.0f s" % (g.name, what, times[what]), flush=True)
    check(st == 0, "%s: %s failed (%d): %s" % (g.name, cmd, st, out[-3000:]))
    return out


def test_package_install_and_purge(ctx):
    rel, ver, times, t0 = ctx.rel, _version(), {}, time.monotonic()
    disk, initrd = sysguest.writable_copy(ctx, rel, "deb", variant="deb")
    g = sysguest.boot(ctx, rel, "deb", disk, initrd)
    check(sysguest.driver(g) == "bochs-drm", "card0 is driven by %r before the packages"
          % sysguest.driver(g))
    # The command the README gives (apt-get: apt's own interface is not
    # stable for scripts); no network, no other package is needed.
    out = _timed(g, "cd /root && %s install ./kmsvt-dkms_*.deb ./kmsvt-tools_*.deb" % APT,
                 "apt install", times)
    check("0 newly installed" not in out and "NEW packages" in out, "apt: %s" % out[-2000:])
    _, status = g.sh("dkms status -m kmsvt", check=True)
    check("kmsvt/%s, %s, x86_64: installed" % (ver, rel) in status, "dkms status: %r" % status)
    # Of apt's time, DKMS's make: from the date make.log starts with to
    # its last write.
    _, secs = g.sh('f=/var/lib/dkms/kmsvt/%s/%s/x86_64/log/make.log; '
                   'echo $(($(stat -c %%Y $f) - $(date -d "$(sed -n 2p $f)" +%%s)))' % (ver, rel))
    print("%s: of which the DKMS build %s s" % (g.name, secs.strip()), flush=True)
    # What make install puts there, from the same file.
    _, conf = g.sh("cat /etc/modprobe.d/kmsvt.conf", check=True)
    with open(os.path.join(initramfs.REPO, "scripts", "kmsvt-modprobe.conf")) as f:
        check(conf.strip() == f.read().strip(), "/etc/modprobe.d/kmsvt.conf: %r" % conf)
    ours = [f for f in _initramfs(g, rel) if "kmsvt." in f]
    check([f for f in ours if "/%s/updates/dkms/kmsvt.ko" % rel in f]
          and "etc/modprobe.d/kmsvt.conf" in ours, "kmsvt's files in the initramfs: %s" % ours)
    sysguest.power_off(g)

    g = sysguest.boot(ctx, rel, "deb-installed", disk, sysguest.disk_initrd(disk, rel))
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
    _timed(g, "%s purge kmsvt-dkms kmsvt-tools" % APT, "apt purge", times)
    _, status = g.sh("dkms status -m kmsvt")
    check(not status.strip(), "dkms status after purge: %r" % status)
    st, out = g.sh("ls -d /usr/src/kmsvt-* /etc/modprobe.d/kmsvt.conf "
                   "/usr/share/initramfs-tools/hooks/kmsvt /usr/bin/kmsvt-* 2>/dev/null")
    check(not out.strip(), "left after purge: %r" % out)
    ours = [f for f in _initramfs(g, rel) if "/kmsvt.ko" in f or f.endswith("/kmsvt.conf")]
    check(not ours, "still in the initramfs: %s" % ours)
    sysguest.power_off(g)

    g = sysguest.boot(ctx, rel, "deb-purged", disk, sysguest.disk_initrd(disk, rel))
    check(sysguest.driver(g) == "bochs-drm", "card0 is driven by %r after apt purge"
          % sysguest.driver(g))
    check("kmsvt" not in sysguest.modules(g), "kmsvt loaded after purge")
    st, _ = g.sh("modinfo -n kmsvt")
    check(st != 0, "kmsvt.ko is still installed")
    g.wait_screen_text(LOGIN, timeout=180)
    g.assert_no_oops()
    print("test_package: %s; %.0f s in all" % (
        ", ".join("%s %.0f s" % kv for kv in times.items()), time.monotonic() - t0))
