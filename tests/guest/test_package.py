"""Guest tests: make deb's packages on the systemd guest.  sysguest's "apt"
image is the same Debian 12, kernel and configuration as the one `make
install` ran in, with `apt-get install ./kmsvt-dkms_*.deb
./kmsvt-tools_*.deb` run in its chroot instead (DKMS's build for the guest
kernel, the trigger's update-initramfs), as make install runs there; its
"apt-purged" image has `apt-get purge kmsvt-dkms kmsvt-tools` run after
that.  The first boots on kmsvt with everything make install gives, the
second on bochs with nothing of kmsvt left.  Its "apt-unbuilt" image has
the packages installed, DKMS's build with a warning added to the sources
(it still installs: no -Werror on a user's machine), then its build made
to fail, as for
a kernel kmsvt does not compile against: that kernel boots on bochs, the
package's modprobe.d rule letting it in (a kernel upgrade never takes the
display away).  The purge is the distribution's, tested on its first
kernel (sysguest.once_per_distribution).  make test-package
(test_package_apt) runs the same apt commands in the booted guest."""
import package
import sysguest
from harness import check

PREPARE = sysguest.prepare_apt
SERVES = sysguest.serves


def test_apt_installed_boots_kmsvt(ctx):
    disk, initrd = sysguest.writable_disk(ctx, ctx.rel, "apt", variant="apt")
    g = sysguest.boot(ctx, ctx.rel, "apt", disk, initrd)
    package.assert_booted_kmsvt(g)
    package.assert_installed(g, ctx.rel)


@sysguest.once_per_distribution
def test_apt_purged_boots_bochs(ctx):
    disk, initrd = sysguest.writable_disk(ctx, ctx.rel, "apt-purged", variant="apt-purged")
    g = sysguest.boot(ctx, ctx.rel, "apt-purged", disk, initrd)
    sysguest.assert_booted_bochs(g)
    package.assert_purged(g, ctx.rel)


def test_apt_unbuilt_kernel_boots_bochs(ctx):
    disk, initrd = sysguest.writable_disk(ctx, ctx.rel, "apt-unbuilt", variant="apt-unbuilt")
    g = sysguest.boot(ctx, ctx.rel, "apt-unbuilt", disk, initrd)
    sysguest.assert_booted_bochs(g)
    # The package is there, its rule in the initramfs too: bochs came in
    # through the rule, not for want of it.
    _, status = g.sh("dkms status -m kmsvt")
    check("kmsvt/%s" % package.version() in status and "installed" not in status,
          "dkms status: %r" % status)
    # Before the error, a warning in the same sources: DKMS built and
    # installed the module with the guest's compiler (no -Werror).
    _, made = g.sh("cat %s" % sysguest.WARNING_LOG, check=True)
    check(sysguest.WARNING_SYMBOL in made and "warning:" in made and "Error" not in made,
          "DKMS's build with a warning: %r" % made[-2000:])
    ours = [f for f in sysguest.initramfs_files(g, ctx.rel) if "kmsvt" in f]
    check([f for f in ours if f.endswith(package.MODPROBE.lstrip("/"))]
          and not [f for f in ours if "/kmsvt.ko" in f],
          "kmsvt's files in the initramfs: %s" % ours)
