"""Guest tests: who may do what with the display.

test_permission_matrix: kmsvt-test's perm group (a file that is not
master gets EACCES from atomic commits, TEST_ONLY included, page flips,
SetCrtc and SetPlane, cannot remove or get a handle of the master's
framebuffer; GEM handles mean nothing in another file; new dumb buffers
never show a freed buffer's pattern, in system memory or after a move to
VRAM) and its auth group (flink and GEM_OPEN need an authenticated file);
nothing the non-master tried reached the screen.

test_debugfs_hooks: the crash triggers exist only with test_hooks=1, the
parameter cannot be turned on at run time, and debugfs is root's.

test_device_node_permissions: in the Debian guest with udev
(tests/lib/sysguest.py), a user outside the video group cannot open
/dev/dri/card0 or /dev/fb0 (EACCES), one in it can, and neither reaches
debugfs.
"""
import re

import sysguest
from client import client_guest, run_client
from harness import CLEAR, check

PREPARE = sysguest.prepare

# kmsvt-test's perm pattern, 0x5eca1ed0 as XRGB8888.
PATTERN_RGB = (0xca, 0x1e, 0xd0)


def test_permission_matrix(ctx):
    g = client_guest(ctx, "perm")
    g.tty_write(CLEAR + "console before the perm checks\n")
    g.wait_screen_text("console before the perm checks")
    out = run_client(g, "perm auth")
    for name in ("perm_nonmaster_atomic_commit", "perm_nonmaster_atomic_test_only",
                 "perm_nonmaster_page_flip", "perm_nonmaster_setcrtc", "perm_nonmaster_setplane",
                 "perm_nonmaster_rmfb_other", "perm_nonmaster_getfb_no_handle",
                 "perm_nonmaster_changed_nothing", "perm_handle_map_other",
                 "perm_handle_addfb_other", "perm_handle_prime_export_other",
                 "perm_handle_same_number_other_buffer", "perm_new_buffer_zero",
                 "perm_new_buffer_zero_in_vram", "auth_unauth_flink_refused",
                 "auth_unauth_gem_open_refused"):
        check(re.search(r"^ok %s\b" % name, out, re.M), "%s: no 'ok %s' in:\n%s" % (
            g.name, name, out[-3000:]))
    img, _ = g.wait_screen_text("console before the perm checks")
    px = img.pixels
    seen = sum(1 for i in range(0, len(px), 3) if tuple(px[i:i + 3]) == PATTERN_RGB)
    check(seen == 0, "%s: %d pixels of the test pattern on the console" % (g.name, seen))
    g.assert_no_oops()


def test_debugfs_hooks(ctx):
    g = ctx.guest("hooks-off")
    _, ls = g.sh("ls /sys/kernel/debug/dri/*/")
    check("kmsvt_stats" in ls and "panic_test" not in ls,
          "%s: debugfs without test_hooks: %r" % (g.name, ls))
    _, val = g.sh("cat /sys/module/kmsvt/parameters/test_hooks")
    check(val.strip() == "N", "test_hooks reads %r" % val)
    st, out = g.sh("echo 1 > /sys/module/kmsvt/parameters/test_hooks")
    check(st != 0, "test_hooks was turned on at run time: %r" % out)
    _, ls = g.sh("ls /sys/kernel/debug/dri/*/")
    check("panic_test" not in ls, "%s: panic_test appeared: %r" % (g.name, ls))
    _, mode = g.sh("stat -c %a /sys/kernel/debug")
    check(mode.strip() == "700", "debugfs is mode %r, not root's only" % mode)
    g.assert_no_oops()
    g.close()

    g = ctx.guest("hooks-on", cmdline="modargs=test_hooks=1")
    _, ls = g.sh("ls -l /sys/kernel/debug/dri/*/panic_test")
    check(re.search(r"^--w-------\s", ls, re.M), "%s: panic_test: %r" % (g.name, ls))
    st, out = g.sh("echo bogus > /sys/kernel/debug/dri/0/panic_test")
    check(st != 0, "panic_test took a bogus word: %r" % out)
    g.assert_no_oops()


def _as_user(g, groups, cmd):
    """cmd as uid/gid 65534 with only the given supplementary groups."""
    grp = "--groups %s" % ",".join(str(x) for x in groups) if groups else "--clear-groups"
    return g.sh("setpriv --reuid=65534 --regid=65534 %s sh -c '%s'" % (grp, cmd))


@sysguest.once_per_distribution
def test_device_node_permissions(ctx):
    disk, initrd = sysguest.writable_disk(ctx, ctx.rel, "perm")
    g = sysguest.boot(ctx, ctx.rel, "sys-perm", disk, initrd)
    _, ls = g.sh("ls -l /dev/dri/card0 /dev/fb0")
    for node in ("/dev/dri/card0", "/dev/fb0"):
        check(re.search(r"^crw-rw----\+? 1 root video .* %s$" % node, ls, re.M),
              "%s: %s is not root:video 0660: %r" % (g.name, node, ls))
    _, video = g.sh("getent group video | cut -d: -f3", check=True)
    video = int(video.strip())
    for node in ("/dev/dri/card0", "/dev/fb0"):
        st, out = _as_user(g, (), "exec 3<>%s && echo opened" % node)
        check(st != 0 and "Permission denied" in out and "opened" not in out,
              "%s: a user outside video opened %s: %r" % (g.name, node, out))
        st, out = _as_user(g, (video,), "exec 3<>%s && echo opened" % node)
        check(st == 0 and "opened" in out, "%s: a user in video cannot open %s: %r" % (
            g.name, node, out))
    st, out = _as_user(g, (video,), "ls /sys/kernel/debug/dri/0/ && echo listed")
    check(st != 0 and "listed" not in out, "%s: a user reads debugfs: %r" % (g.name, out))
    g.assert_no_oops()


# The one test here that boots the systemd guest (a Debian 12 system).
test_device_node_permissions.serves = sysguest.serves

