"""Guest test of make test-package (not in make test: about 9 minutes a
kernel): make deb's packages installed and purged by apt in the booted
systemd guest, as the README's "Install" tells a user.  The image is
sysguest's "deb" variant: the same Debian 12, kernel and configuration as
the one `make install` ran in, without kmsvt, with kmsvt-dkms and
kmsvt-tools in /root.  It boots on bochs; `apt install` has DKMS build
kmsvt in the guest (about 2 minutes under TCG) and the trigger remake the
initramfs; what `make install` gives is there, and the next boot is
kmsvt's from the initramfs on.  `apt purge` takes all of it away, and the
boot after that is bochs'.  make test's test_package checks the same on
images where apt ran in the chroot."""
import time

import package
import sysguest
from harness import check

SUITE = False
PREPARE = sysguest.prepare_deb
SERVES = sysguest.serves


def _timed(g, cmd, what, times):
    t0 = time.monotonic()
    st, out = g.sh(cmd, timeout=1200)
    times[what] = time.monotonic() - t0
    print("%s: %s took %.0f s" % (g.name, what, times[what]), flush=True)
    check(st == 0, "%s: %s failed (%d): %s" % (g.name, cmd, st, out[-3000:]))
    return out


def test_package_install_and_purge(ctx):
    rel, ver, times, t0 = ctx.rel, package.version(), {}, time.monotonic()
    disk, initrd = sysguest.writable_disk(ctx, rel, "deb", variant="deb")
    g = sysguest.boot(ctx, rel, "deb", disk, initrd)
    sysguest.assert_booted_bochs(g)
    out = _timed(g, package.INSTALL, "apt install", times)
    check("0 newly installed" not in out and "NEW packages" in out, "apt: %s" % out[-2000:])
    # Of apt's time, DKMS's make: from the date make.log starts with to
    # its last write.
    _, secs = g.sh('f=/var/lib/dkms/kmsvt/%s/%s/x86_64/log/make.log; '
                   'echo $(($(stat -c %%Y $f) - $(date -d "$(sed -n 2p $f)" +%%s)))' % (ver, rel))
    print("%s: of which the DKMS build %s s" % (g.name, secs.strip()), flush=True)
    package.assert_installed(g, rel)
    sysguest.power_off(g)

    g = sysguest.boot(ctx, rel, "deb-installed", disk, sysguest.disk_initrd(ctx, disk, rel))
    package.assert_booted_kmsvt(g)
    _timed(g, package.PURGE, "apt purge", times)
    package.assert_purged(g, rel)
    sysguest.power_off(g)

    g = sysguest.boot(ctx, rel, "deb-purged", disk, sysguest.disk_initrd(ctx, disk, rel))
    sysguest.assert_booted_bochs(g)
    print("test_package_apt: %s; %.0f s in all" % (
        ", ".join("%s %.0f s" % kv for kv in times.items()), time.monotonic() - t0))
