"""Guest tests: a Debian 12 system with systemd and udev, kmsvt installed
with the README's commands (`make install`: DKMS, modprobe.d, initramfs
hook; tests/lib/sysguest.py), boots by itself: udev binds kmsvt by modalias
from the initramfs on, bochs stays unloaded, the module has no test hooks
(they are built only for the tests), getty's login prompt is read on the
screen, and a panic shows kmsvt's panic screen.
test_uninstalled_guest_boots_bochs runs `make uninstall` in the guest and boots the same disk on the in-tree bochs driver."""
import os

import sysguest
import xorg
from harness import check
from panicscreen import assert_panic_screen

PREPARE = sysguest.prepare
LOGIN = "%s login:" % sysguest.HOSTNAME


def _driver(g):
    _, drv = g.sh("readlink /sys/class/drm/card0/device/driver", check=True)
    return os.path.basename(drv.strip())


def _modules(g):
    _, mods = g.sh("cat /proc/modules", check=True)
    return {line.split()[0] for line in mods.splitlines() if line.strip()}


def test_installed_guest_boots_kmsvt(ctx):
    disk, initrd = sysguest.writable_copy(ctx, ctx.rel, "installed")
    g = sysguest.boot(ctx, ctx.rel, "sys-installed", disk, initrd)
    check(_driver(g) == "kmsvt", "card0 is driven by %r" % _driver(g))
    mods = _modules(g)
    check("kmsvt" in mods and "bochs" not in mods, "modules: %s" % sorted(mods))
    _, path = g.sh("modinfo -n kmsvt", check=True)
    check("/updates/dkms/kmsvt.ko" in path, "kmsvt.ko is %r, not DKMS's" % path.strip())
    # The module users install has none of the tests' crash triggers: no
    # test_hooks parameter, and no panic_test in debugfs.
    _, parms = g.sh("modinfo -F parm kmsvt", check=True)
    check("panic_screen" in parms and "test_hooks" not in parms, "parameters: %r" % parms)
    g.sh("mount -t debugfs none /sys/kernel/debug 2>/dev/null")
    _, dbg = g.sh("ls /sys/kernel/debug/dri/0/", check=True)
    check("panic_preview" in dbg.split() and "panic_test" not in dbg.split(),
          "debugfs of DKMS's kmsvt: %r" % dbg)
    # From the initramfs on: kmsvt's console before the root file system.
    dmesg = g.dmesg()
    con, root = dmesg.find("Console: switching to colour kmsvt"), dmesg.find("EXT4-fs (vda)")
    check(0 <= con < root, "kmsvt's console (at %d) not before the root mount (at %d)"
          % (con, root))
    _, vt = g.sh("cat /sys/class/vtconsole/vtcon*/name")
    check("kmsvt" in vt, "vtconsole: %r" % vt)
    img, _ = g.wait_screen_text(LOGIN, timeout=180)
    check((img.width, img.height) == (1280, 800), "mode %dx%d" % (img.width, img.height))
    g.write("echo c > /proc/sysrq-trigger\n")
    assert_panic_screen(g, "sysrq_handle_crash", "sysrq triggered crash", (1280, 800))


def test_uninstalled_guest_boots_bochs(ctx):
    disk, initrd = sysguest.writable_copy(ctx, ctx.rel, "uninstall")
    g = sysguest.boot(ctx, ctx.rel, "sys-uninstall", disk, initrd)
    check(_driver(g) == "kmsvt", "card0 is driven by %r before uninstall" % _driver(g))
    st, out = g.sh("cd /usr/local/src/kmsvt && make uninstall", timeout=900)
    check(st == 0, "make uninstall failed: %s" % out[-3000:])
    # A clean power-off, so that the disk holds the new initramfs (not
    # only the journal); QEMU runs with -no-reboot and exits.
    g.write("systemctl poweroff\n")
    g.proc.wait(timeout=300)
    g.close()
    # QEMU boots the kernel and initramfs given to it: take the new initramfs
    # from the disk, as a boot loader would.
    new = disk + ".initrd"
    xorg._run(["debugfs", "-R", "dump /boot/initrd.img-%s %s" % (ctx.rel, new), disk],
              "debugfs dump")
    g = sysguest.boot(ctx, ctx.rel, "sys-uninstalled", disk, new)
    check(_driver(g) == "bochs-drm", "card0 is driven by %r after uninstall" % _driver(g))
    mods = _modules(g)
    check("kmsvt" not in mods, "kmsvt still loaded: %s" % sorted(mods))
    st, _ = g.sh("modinfo -n kmsvt")
    check(st != 0, "kmsvt.ko is still installed")
    g.wait_screen_text(LOGIN, timeout=180)
    g.assert_no_oops()
