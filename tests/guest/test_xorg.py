"""Guest tests: a real Xorg (Debian's xserver-xorg-core, its built-in
modesetting driver) runs on kmsvt, and an xterm's text is read off the
screendump.  The rootfs comes from tests/lib/xorg.py (debootstrap, cached)."""
import os
import time

import screenreader
import xorg
from debugfs import debugfs_numbers
from harness import TestFailure, check
from vm import LOGDIR
from xorg import save, xorg_xterm, xterm_cmd

PREPARE = xorg.prepare


def test_xorg_xterm(ctx):
    """Xorg with an xterm; then the screen saver's DPMS off (the
    connector's DPMS property: the CRTC goes inactive, the screen black)
    and on again (the same picture back)."""
    g, _ = xorg_xterm(ctx, "kmsvt")
    before = g.screendump()
    g.xsh("xset dpms force off", check=True)
    _, state = g.sh("cat /sys/class/drm/card0-Virtual-1/dpms", check=True)
    check(state.strip() == "Off", "connector DPMS after xset dpms force off: %r" % state)
    img = g.screendump()
    check((img.width, img.height) == (1280, 800), "screen %dx%d with DPMS off"
          % (img.width, img.height))
    black = xorg.colour_count(img, (0, 0, 0))
    check(black == img.width * img.height, "DPMS off: %d of %d pixels black"
          % (black, img.width * img.height))
    g.xsh("xset dpms force on", check=True)
    _, state = g.sh("cat /sys/class/drm/card0-Virtual-1/dpms", check=True)
    check(state.strip() == "On", "connector DPMS after xset dpms force on: %r" % state)
    img = g.screendump()
    check(img.pixels == before.pixels, "DPMS on: the picture is not the one before DPMS off")
    g.assert_no_oops()


# Three users, each with an X server on a VT of their own, root colour and
# xterm line their own: (display, vt, root colour, xterm text).
USERS = ((1, 2, (0x40, 0x10, 0x10), "XORG USER ONE ON VT2"),
         (2, 3, (0x10, 0x40, 0x10), "XORG USER TWO ON VT3"),
         (3, 4, (0x10, 0x10, 0x40), "XORG USER THREE ON VT4"))
CONSOLE_TEXT = "console under three X servers"


def start_user(g, user):
    """An X server on the user's VT, with their root colour and xterm line."""
    display, vt, rgb, text = user
    x = ":%d" % display
    secs = g.start_xorg(display=display, vt=vt)
    print("%s: X %s on vt%d answered after %.0f s" % (g.name, x, vt, secs), flush=True)
    g.xsh("xsetroot -solid '#%02x%02x%02x'" % rgb, display=x, check=True)
    g.xsh("xset +fp %s && xset fp rehash" % xorg.FONT_DIR_GUEST, display=x, check=True)
    g.xsh(xterm_cmd(text), display=x, check=True)
    wait_user(g, user)


def wait_user(g, user, timeout=90):
    """Screendump until user's xterm line at (0, 0) and root colour show."""
    display, vt, rgb, text = user
    deadline = time.monotonic() + timeout
    while True:
        img = g.screendump()
        origin, _ = xorg.find_text_origin(img, text, max_mismatch=0)
        corner = img.pixel(img.width - 8, img.height - 8)
        if origin == (0, 0) and corner == rgb and (img.width, img.height) == (1280, 800):
            return img
        if time.monotonic() > deadline:
            path = os.path.join(LOGDIR, "%s-vt%d-fail.ppm" % (g.name, vt))
            img.save_ppm(path)
            raise TestFailure("%s: VT%d (X :%d) not shown: text at %r, corner %r, %dx%d "
                              "(saved %s)" % (g.name, vt, display, origin, corner, img.width,
                                              img.height, path))
        time.sleep(1)


def test_xorg_three_users(ctx):
    """Three real X servers at 1280x800 on VT2-VT4 and the console on tty1,
    on the default 16 MiB of VRAM: each one is shown after a switch to it,
    and the console text is back on tty1 after them."""
    g = xorg.guest(ctx, "xorg-3users")
    g.tty_write("\033[2J\033[H" + CONSOLE_TEXT + "\n")
    g.wait_screen_text(CONSOLE_TEXT)
    for user in USERS:
        start_user(g, user)
    for vt in (2, 3, 4, 2, 4, 3):
        g.sh("chvt %d" % vt, check=True)
        img = wait_user(g, USERS[vt - 2])
        img.save_ppm(os.path.join(LOGDIR, "%s-vt%d.ppm" % (g.name, vt)))
    _, ps = g.xsh("ps -o args= -C Xorg")
    check(all(":%d vt%d" % (u[0], u[1]) in ps for u in USERS), "X servers running: %r" % ps)
    save(g, "vram", g.sh("cat /sys/kernel/debug/dri/*/vram")[1])
    g.sh("chvt 1", check=True)
    img, _ = g.wait_screen_text(CONSOLE_TEXT, timeout=30)
    check((img.width, img.height) == (1280, 800), "console at %dx%d" % (img.width, img.height))
    for u in USERS:
        save(g, "Xorg.%d.log" % u[0], g.xorg_log(u[0]))
    g.assert_no_oops()


# Fast user switching with real X servers, which handle their VTs themselves
# (VT_PROCESS): (display, vt, root colour, xterm text).
SWITCH_USERS = ((7, 7, (0x50, 0x20, 0x40), "XORG ON VT7"),
                (8, 8, (0x20, 0x40, 0x50), "XORG ON VT8"))
SWITCH_CONSOLE = "console beside two X servers"


def test_xorg_fast_switching(ctx):
    """Two X servers (VT7, VT8, an xterm each) and the console: 30 chvt
    switches, each read back from the screen; the X<->X ones are plane
    updates, not modesets."""
    g = xorg.guest(ctx, "xorg-switch")
    g.tty_write("\033[2J\033[H" + SWITCH_CONSOLE + "\n")
    g.wait_screen_text(SWITCH_CONSOLE)
    for user in SWITCH_USERS:
        start_user(g, user)
    by_vt = {u[1]: u for u in SWITCH_USERS}
    order = [7, 8, 1] * 10
    cur, xx_modesets, xx = 8, 0, 0
    for vt in order:
        before = debugfs_numbers(g, "kmsvt_stats")
        g.sh("chvt %d" % vt, check=True)
        if vt in by_vt:
            wait_user(g, by_vt[vt], timeout=30)
        else:
            img, _ = g.wait_screen_text(SWITCH_CONSOLE, timeout=30)
            check((img.width, img.height) == (1280, 800), "console at %dx%d" % (
                img.width, img.height))
        if vt in by_vt and cur in by_vt:
            xx += 1
            xx_modesets += debugfs_numbers(g, "kmsvt_stats")["modesets"] - before["modesets"]
        cur = vt
    print("%s: %d switches, %d X<->X, %d modesets in those" % (g.name, len(order), xx,
                                                               xx_modesets), flush=True)
    check(xx >= 10 and xx_modesets == 0, "%s: %d modesets in %d X<->X switches" % (
        g.name, xx_modesets, xx))
    g.assert_no_oops()


def test_xorg_killed(ctx):
    """Xorg killed with SIGKILL 20 times in one boot, each time while it
    holds the display: each time the console's text is back on the screen."""
    g = xorg.guest(ctx, "xorg-kills")
    marker = "console under Xorg"
    g.tty_write("\033[2J\033[H" + marker + "\n")
    g.wait_screen_text(marker)
    for i in range(20):
        g.start_xorg()
        deadline = time.monotonic() + 30
        while screenreader.find_text(g.screendump(), marker):
            check(time.monotonic() < deadline, "round %d: Xorg never took the display" % i)
            time.sleep(0.5)
        g.sh("killall -9 Xorg; while pidof Xorg >/dev/null; do sleep 0.1; done", check=True)
        g.wait_screen_text(marker, timeout=10)
    g.assert_no_oops()
