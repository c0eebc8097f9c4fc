"""Guest tests: a real Xorg (Debian's xserver-xorg-core, its built-in
modesetting driver) runs on kmsvt, and an xterm's text is read off the
screendump.  The rootfs comes from tests/xorg.py (debootstrap, cached)."""
import os
import re
import time

import screenreader
import xorg
from harness import TestFailure, check
from test_client import debugfs_numbers
from vm import LOGDIR

PREPARE = xorg.prepare
ROOT_RGB = (0x12, 0x34, 0x56)
XTERM_TEXT = "KMSVT XTERM TEXT 42"
COLS, ROWS = 80, 24
# flavour -> name of the PCI driver bound to the card
PCI_DRIVER = {"kmsvt": "kmsvt", "bochs": "bochs-drm"}


def xterm_cmd(text=XTERM_TEXT):
    # -b 0 -bw 0 at +0+0 with no window manager: cell (0,0) at pixel (0,0).
    # renderFont off: xterm draws with the core font, i.e. the server draws
    # font_8x16's glyphs.
    return ("xterm -fn %s -fb %s -geometry %dx%d+0+0 -b 0 -bw 0 +sb "
            "-xrm 'XTerm*renderFont: false' -xrm 'XTerm*cursorBlink: false' "
            "-e sh -c 'echo %s; sleep 1000' >/tmp/xterm.out 2>&1 </dev/null &"
            % (xorg.FONT_NAME, xorg.FONT_NAME, COLS, ROWS, text))


def save(g, name, text):
    with open(os.path.join(LOGDIR, "%s-%s" % (g.name, name)), "w") as f:
        f.write(text)


def xorg_xterm(ctx, flavour="kmsvt"):
    g = xorg.guest(ctx, "xorg-" + flavour, flavour=flavour)
    _, drv = g.sh("readlink /sys/class/drm/card0/device/driver", check=True)
    check(drv.strip().endswith("/" + PCI_DRIVER[flavour]), "card0 driver is %r" % drv)

    secs = g.start_xorg()
    print("%s: Xorg answered after %.0f s" % (g.name, secs), flush=True)
    log = g.xorg_log()
    save(g, "Xorg.0.log", log)
    check(re.search(r"\(II\) Loading .*/modesetting_drv\.so", log), "modesetting not loaded:\n" + log[-4000:])
    check(re.search(r"^\[.*\] \(II\) modeset\(0\): ", log, re.M), "no modeset(0) lines:\n" + log[-4000:])
    check(re.search(r"modeset\(0\): using drv /dev/dri/card0", log), "not on card0:\n" + log[-4000:])
    errors = [l for l in log.splitlines() if "(EE)" in l and "(EE) error," not in l]
    check(not [l for l in errors if "modeset" in l], "modesetting errors:\n" + "\n".join(errors))

    # The card Xorg probed and opened is kmsvt's, and Xorg is its master.
    probe = re.search(r"Platform probe for (/sys/devices/\S+)/drm/card0", log)
    check(probe, "no platform probe of card0:\n" + log[-4000:])
    _, dev = g.sh("readlink -f /sys/class/drm/card0/device; readlink /sys/class/drm/card0/device/driver")
    check(dev.split()[0] == probe.group(1) and dev.split()[1].endswith("/" + PCI_DRIVER[flavour]),
          "Xorg probed %s; card0 is %r" % (probe.group(1), dev))
    _, dri = g.sh("for d in /sys/kernel/debug/dri/*; do [ -f $d/clients ] && "
                  "echo \"$d: $(cat $d/name)\" && cat $d/clients; done")
    save(g, "dri-clients", dri)
    check(re.search(r": %s dev=" % PCI_DRIVER[flavour], dri), "debugfs dri name: %r" % dri)
    check(re.search(r"^\s*Xorg\s+\d+\s+\d+\s+y\b", dri, re.M), "Xorg is not a DRM master: %r" % dri)

    g.xsh("xsetroot -solid '#%02x%02x%02x'" % ROOT_RGB, check=True)
    st, out = g.xsh("xset +fp %s && xset fp rehash && xset q" % xorg.FONT_DIR_GUEST)
    check(st == 0 and xorg.FONT_DIR_GUEST in out, "xset +fp: %s" % out)
    g.xsh(xterm_cmd(), check=True)

    t0 = time.monotonic()
    deadline = t0 + 120
    while True:
        img = g.screendump()
        # max_mismatch=0: the server draws font_8x16's very glyphs.
        origin, lines = xorg.find_text_origin(img, XTERM_TEXT, max_mismatch=0)
        if origin is not None:
            break
        if time.monotonic() > deadline:
            path = os.path.join(LOGDIR, g.name + "-fail.ppm")
            img.save_ppm(path)
            raise TestFailure("%s: xterm text not read (%dx%d, saved %s); xterm: %s\nps: %s" % (
                g.name, img.width, img.height, path, g.xsh("cat /tmp/xterm.out")[1][-2000:],
                g.xsh("ps ax")[1][-2000:]))
        time.sleep(2)
    img.save_ppm(os.path.join(LOGDIR, g.name + "-xterm.ppm"))
    print("%s: xterm text read after %.0f s at origin %r" % (g.name, time.monotonic() - t0, origin),
          flush=True)
    check(origin == (0, 0), "xterm text at origin %r, expected (0, 0)" % (origin,))
    row = next(i for i, line in enumerate(lines) if XTERM_TEXT in line)
    check(row == 0 and lines[0].startswith(XTERM_TEXT), "xterm first line reads %r" % lines[:2])
    check((img.width, img.height) == (1280, 800), "X screen %dx%d" % (img.width, img.height))

    # The root window's colour shows outside the 640x384 xterm.
    xw, xh = COLS * 8, ROWS * 16
    for x, y in ((xw + 8, 8), (8, xh + 8), (img.width - 8, img.height - 8), (xw + 100, xh + 100)):
        check(img.pixel(x, y) == ROOT_RGB, "root window pixel (%d,%d) is %r, want %r"
              % (x, y, img.pixel(x, y), ROOT_RGB))
    n = xorg.colour_count(img, ROOT_RGB)
    check(n > img.width * img.height - xw * xh - 64 * 64,
          "only %d root-coloured pixels" % n)
    # ... and not inside it.
    check(img.pixel(xw - 4, xh - 4) != ROOT_RGB, "xterm area shows the root colour")

    log = g.xorg_log()
    save(g, "Xorg.0.log", log)
    g.assert_no_oops()
    return g, log


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
