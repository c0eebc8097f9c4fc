"""Guest tests: Debian's kmscon 9.0, the terminal in userspace that users
pick for its scrollback and fonts, runs on kmsvt beside kmsvt's console
(tests/lib/kmscon.py; the Xorg image's chroot).  It draws through
/dev/fb0, kmsvt's fbdev emulation, on a VT of its own in graphics mode;
switching between it and the console shows each one's text every time,
and the console is back when kmscon exits.  Its speed against kmsvt's
console is measured by make bench (tests/bench/console.py)."""
import kmscon
import xorg
from harness import CLEAR, check

PREPARE = xorg.prepare
CONSOLE_TEXT = "console beside kmscon"
KMSCON_TEXT = "KMSCON SHELL ON VT2"


def _shows(g, text, other):
    """The screen reads text, and not other."""
    img, screen = g.wait_screen_text(text, timeout=30)
    check(other not in screen, "%s: %r still on screen with %r" % (g.name, other, text))
    check((img.width, img.height) == (1280, 800), "screen %dx%d" % (img.width, img.height))


def test_kmscon_beside_console(ctx):
    g = xorg.guest(ctx, "kmscon")
    g.tty_write(CLEAR + CONSOLE_TEXT + "\n")
    g.wait_screen_text(CONSOLE_TEXT)
    kmscon.start(g, "echo %s; exec sleep 100000" % KMSCON_TEXT, vt=2, marker=KMSCON_TEXT)
    _, out = g.xsh("ls -l /proc/$(pidof kmscon)/fd", check=True)
    check("/dev/fb0" in out, "kmscon does not draw through kmsvt's /dev/fb0: %s" % out)
    # It also opens /dev/dri/card0 (to tell a DRM driver's fbdev), and,
    # first to open it, is DRM master: kept for the record.
    xorg.save(g, "drm-clients", g.sh("cat /sys/kernel/debug/dri/0/clients")[1])
    for vt in (1, 2, 1, 2, 1, 2):
        g.sh("chvt %d" % vt, check=True)
        if vt == 1:
            _shows(g, CONSOLE_TEXT, KMSCON_TEXT)
        else:
            _shows(g, KMSCON_TEXT, CONSOLE_TEXT)
    check(kmscon.running(g), "kmscon exited: %s" % kmscon.log(g))
    kmscon.stop(g)
    # kmscon gives its VT back in text mode; the console draws it again.
    g.sh("chvt 1", check=True)
    _shows(g, CONSOLE_TEXT, KMSCON_TEXT)
    g.assert_no_oops()
