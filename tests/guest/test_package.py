"""Guest tests: make deb's packages on the systemd guest.  sysguest's "apt"
image is the same Debian 12, kernel and configuration as the one `make
install` ran in, with `apt-get install ./kmsvt-dkms_*.deb
./kmsvt-tools_*.deb` run in its chroot instead (DKMS's build for the guest
kernel, the trigger's update-initramfs), as make install runs there; its
"apt-purged" image has `apt-get purge kmsvt-dkms kmsvt-tools` run after
that.  The first boots on kmsvt with everything make install gives, the
second on bochs with nothing of kmsvt left.  make test-package
(test_package_apt) runs the same apt commands in the booted guest."""
import package
import sysguest

PREPARE = sysguest.prepare_apt


def test_apt_installed_boots_kmsvt(ctx):
    disk, initrd = sysguest.writable_disk(ctx, ctx.rel, "apt", variant="apt")
    g = sysguest.boot(ctx, ctx.rel, "apt", disk, initrd)
    package.assert_booted_kmsvt(g)
    package.assert_installed(g, ctx.rel)


def test_apt_purged_boots_bochs(ctx):
    disk, initrd = sysguest.writable_disk(ctx, ctx.rel, "apt-purged", variant="apt-purged")
    g = sysguest.boot(ctx, ctx.rel, "apt-purged", disk, initrd)
    sysguest.assert_booted_bochs(g)
    package.assert_purged(g, ctx.rel)
