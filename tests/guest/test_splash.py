"""Guest tests: Debian 12's boot splash (plymouth 22.02, theme
sysguest.THEME) on kmsvt, in the systemd guest booted with `splash`.

plymouthd starts in the initramfs (plymouth's initramfs hook and
init-premount script), opens /dev/dri/card0 with its DRM renderer, becomes
DRM master and scans out its own dumb buffer at the console's mode;
systemd's plymouth-quit.service ends it before getty@tty1, and kmsvt's
console takes the display back when plymouthd drops master.  See
docs/SPLASH.md.

test_splash_to_getty: screendumps polled from the host during the boot
read the theme's picture (its gradient and Debian's swirl, not text, not
black); a test-only unit (files/kmsvt-splash-probe) finds plymouthd card0's
master while the splash shows; plymouth's debug log names its DRM renderer
(not frame-buffer.so); after the handover tty1 shows getty's prompt; the
display never went black: kmsvt_stats counts no blank and no modeset but
kmsvt's own first one (every change of picture was a plane update at one
mode), and no screendump of the boot was at another mode.
test_panic_during_splash: the same unit crashes the kernel (sysrq c)
while plymouthd is master and its splash on screen: kmsvt's panic screen
is read from the screendump."""
import os
import re
import time

import sysguest
from debugfs import debugfs_numbers
from harness import check, kernel_reports
from panicscreen import assert_panic_screen

PREPARE = sysguest.prepare
SERVES = sysguest.serves
LOGIN = sysguest.LOGIN
MODE = (1280, 800)
# plymouth's switches: the splash; not its "details" text mode on the
# serial console (console=ttyS0 makes plymouth force details otherwise);
# its debug log, /var/log/plymouth-debug.log.
SPLASH = "splash plymouth.ignore-serial-consoles plymouth.debug"
PROBE = sysguest.PROBE
# spinfinity.plymouth's BackgroundStartColor and BackgroundEndColor: the
# top and bottom rows of its vertical gradient.
GRADIENT = ((0x00, 0x73, 0xb3), (0x00, 0x45, 0x7e))
# Where two-step draws plymouth's debian-logo.png (Debian's red swirl) at
# 1280x800, and how many of its pixels are red.
SWIRL_BOX = (560, 230, 160, 190)
SWIRL_MIN = 2000


def _near(a, b, tol=6):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def is_splash(img):
    """The theme's picture: the gradient at the corners (it starts at the
    top row) and Debian's swirl in red where the theme puts it."""
    if (img.width, img.height) != MODE:
        return False
    w, h = img.width, img.height
    if not all(_near(img.pixel(x, 0), GRADIENT[0]) and _near(img.pixel(x, h - 1), GRADIENT[1])
               for x in (0, w - 1)):
        return False
    x0, y0, bw, bh = SWIRL_BOX
    red = 0
    for y in range(y0, y0 + bh, 2):
        for x in range(x0, x0 + bw, 2):
            r, g, b = img.pixel(x, y)
            red += r > 150 and g < 90 and b < 130
    return red * 4 >= SWIRL_MIN


class BootShots:
    """Screendumps polled from the host while the guest boots: when the
    splash was first and last seen, and every shot after it (mode, black)."""

    def __init__(self):
        self.first = self.last = None
        self.after = []

    def poll(self, g, until, timeout=240, period=0.25):
        deadline = time.monotonic() + timeout
        while not until(g):
            check(time.monotonic() < deadline, "%s: boot not done in %d s; splash first "
                  "seen at %s" % (g.name, timeout, self.first))
            img = g.screendump()
            t = time.monotonic() - g.t0
            if is_splash(img):
                if self.first is None:
                    img.save_ppm(os.path.join(os.path.dirname(g.log_path), g.name + "-splash.ppm"))
                    self.first = t
                self.last, self.after = t, []
            elif self.first is not None:
                self.after.append((t, (img.width, img.height), img.is_black()))
            time.sleep(period)


def _serial_lines(g, prefix):
    return re.findall(r"%s: (.*?)\r?$" % re.escape(prefix), g.output(), re.M)


def _master(g):
    """The probe's lines: is plymouthd card0's master while it ran?"""
    clients = [ln for ln in _serial_lines(g, PROBE) if ln.startswith("clients: ")]
    return any(re.match(r"clients: +plymouthd +\d+ +\d+ +y ", ln) for ln in clients), clients


# Debian 13's plymouth, once it shows the splash on card0 through DRM, may
# still take a coldplug "add" event of fb0 (udevd processes the trigger's
# events when it starts, after systemd-udev-trigger): that event carried
# no ID_PATH, so plymouth could not find fb0's DRM card and opened its
# frame-buffer renderer too (once in three Debian 13 boots of a fresh
# clone's run, 2026-12-07; a later trigger's add event of fb0 has ID_PATH,
# and why the coldplug one had none is not known yet).  Upstream plymouth
# acts on no add event but DRM's (verify_add_or_change).  That chain,
# after the DRM renderer scans out, is the one exemption.
FB_EVENT_RX = re.compile(
    r"got add event for device /dev/fb0\n"
    r"(?:.*\n)*?.*trying to find associated drm node for fb device \(path: \(null\)\)\n"
    r".*no card entry!\n"
    r".*creating devices for /dev/fb0 \(renderer type: 2\) \(terminal: none\)\n")


def _fb_renderer_lines(dbg):
    """plymouth's log less the renderer-plugin probe lines and, after the
    DRM renderer took master, the chain of the coldplug event above (up
    to the end of the log: what it does next is that renderer's)."""
    dbg = dbg.replace("trying to open renderer plugin", "")
    master = dbg.find("taking master and scanning out")
    m = FB_EVENT_RX.search(dbg, master) if master >= 0 else None
    return dbg[:m.start()] if m else dbg


@sysguest.once_per_distribution
def test_splash_to_getty(ctx):
    disk, initrd = sysguest.writable_disk(ctx, ctx.rel, "splash")
    shots = BootShots()
    g = sysguest.boot(ctx, ctx.rel, "sys-splash", disk, initrd,
                      cmdline="%s systemd.wants=%s.service" % (SPLASH, PROBE),
                      while_booting=lambda g: shots.poll(
                          g, lambda g: "KMSVT-INIT-READY" in g.output()))
    check(shots.first is not None, "%s: the splash was never on screen" % g.name)
    master, clients = _master(g)
    check(master, "%s: plymouthd was not card0's master under the splash: %r" % (g.name, clients))
    # The renderer, from plymouth's own log: DRM on card0, never fbdev.
    _, dbg = g.sh("cat /var/log/plymouth-debug.log", check=True)
    with open(os.path.join(os.path.dirname(g.log_path), g.name + "-plymouth-debug.log"), "w") as f:
        f.write(dbg)
    for line in ("opened renderer plugin /usr/lib/x86_64-linux-gnu/plymouth/renderers/drm.so",
                 "creating renderer backend for device /dev/dri/card0",
                 "Creating %dx%d renderer head" % MODE, "taking master and scanning out",
                 "dropping master"):
        check(line in dbg, "%s: plymouth-debug.log lacks %r" % (g.name, line))
    check("renderers/frame-buffer.so" not in _fb_renderer_lines(dbg),
          "%s: plymouth used its frame-buffer renderer" % g.name)
    img, _ = g.wait_screen_text(LOGIN, timeout=120)
    login = time.monotonic() - g.t0
    check((img.width, img.height) == MODE, "getty at %dx%d" % (img.width, img.height))
    # No black picture from the display: every commit of the boot (the
    # console's, plymouth's, the console's again) was a plane update at
    # one mode; kmsvt counts a blank when a disabled plane or CRTC latches.
    stats = debugfs_numbers(g, "kmsvt_stats")
    check(stats["modesets"] == 1 and stats["blanks"] == 0 and stats["mode_reloads"] == 0,
          "%s: kmsvt_stats after the splash: %r" % (g.name, stats))
    probe = [ln for ln in _serial_lines(g, PROBE) if ln.startswith("stats: ")]
    other = [s for s in shots.after if s[1] != MODE]
    check(not other, "%s: the mode changed after the splash: %r" % (g.name, other))
    black = [t for t, _, b in shots.after if b]
    g.assert_no_oops()
    print("%s: splash from %.1f s to %.1f s after QEMU's start, getty's prompt read at %.1f s; "
          "%d of %d shots after the splash all black (tty1 cleared by getty, %s); "
          "kmsvt_stats %r (under the splash: %s)" % (
              g.name, shots.first, shots.last, login, len(black), len(shots.after),
              "%.2f-%.2f s" % (black[0], black[-1]) if black else "none", stats,
              probe[0] if probe else "?"))


@sysguest.once_per_distribution
def test_panic_during_splash(ctx):
    disk, initrd = sysguest.writable_disk(ctx, ctx.rel, "splash-panic")
    g = sysguest.start(ctx, ctx.rel, "sys-splash-panic", disk, initrd,
                       cmdline="%s systemd.wants=%s.service kmsvt_test.splash_crash"
                       % (SPLASH, PROBE))
    shots = BootShots()
    shots.poll(g, lambda g: "%s: crash" % PROBE in g.output())
    check(shots.first is not None, "%s: the splash was never on screen" % g.name)
    check(not shots.after, "%s: the splash was gone before the crash: %r" % (g.name, shots.after))
    master, clients = _master(g)
    check(master, "%s: plymouthd was not card0's master at the crash: %r" % (g.name, clients))
    # The guest crashes by itself: its kernel log so far is the serial's.
    serial = g.output()
    g.expect_crash(kernel_reports(serial[:serial.find("%s: crash" % PROBE)]))
    t = time.monotonic()
    assert_panic_screen(g, "sysrq_handle_crash", "sysrq triggered crash", MODE)
    print("%s: splash from %.1f s, crash at %.1f s, panic screen read %.1f s later" % (
        g.name, shots.first, shots.last, time.monotonic() - t))
