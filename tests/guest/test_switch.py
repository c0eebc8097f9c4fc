"""Guest tests for kmsvt-switch (userspace/kmsvt-switch.c): bad input is
refused with a clear error and changes nothing, on the VTs or on the screen;
switches between text VTs show each VT's text (read from the screendump)
and report how long they took."""
import re

from client import tool_guest
from harness import CLEAR, check


def switch_guest(ctx, name):
    return tool_guest(ctx, name, "kmsvt-switch", "switch")


def active(g):
    st, out = g.sh("cat /sys/class/tty/tty0/active")
    check(st == 0, "%s: no /sys/class/tty/tty0/active: %r" % (g.name, out))
    return out.strip().split()[-1]


def test_switch_bad_input(ctx):
    g = switch_guest(ctx, "switch-bad")
    g.tty_write(CLEAR + "console before the bad switches\n")
    g.wait_screen_text("console before the bad switches")
    for args in ("", "0", "64", "abc", "2x", "1.5", "'' ", "-- -5", "-t 0 2", "2 3",
                 "-c /dev/null 2", "-c /nonexistent 2", "-d /nonexistent 2", "-d /dev/null 2"):
        st, out = g.sh("kmsvt-switch %s" % args)
        check(st in (1, 2) and ("kmsvt-switch:" in out or "usage:" in out),
              "%s: kmsvt-switch %s: exit %d, %r" % (g.name, args, st, out))
        check(active(g) == "tty1", "%s: kmsvt-switch %s changed the VT to %s" % (
            g.name, args, active(g)))
    st, out = g.sh("kmsvt-switch --help")
    check(st == 0 and "usage: kmsvt-switch" in out, "%s: --help: %r" % (g.name, out))
    g.wait_screen_text("console before the bad switches")
    g.assert_no_oops()


def test_switch_text_vts(ctx):
    g = switch_guest(ctx, "switch-text")
    g.tty_write(CLEAR + "TEXT ON TTY1\n")
    g.tty_write(CLEAR + "TEXT ON TTY2\n", tty=2)
    g.wait_screen_text("TEXT ON TTY1")
    times = []
    for vt, card in ((2, ""), (1, ""), (2, "-d /dev/dri/card0 "), (1, ""), (1, "")):
        st, out = g.sh("kmsvt-switch %s%d" % (card, vt))
        m = re.search(r"vt (\d+) -> (\d+): active after ([\d.]+) ms", out)
        check(st == 0 and m and int(m.group(2)) == vt, "%s: kmsvt-switch %d: exit %d, %r" % (
            g.name, vt, st, out))
        times.append(float(m.group(3)))
        check(active(g) == "tty%d" % vt, "%s: tty%d is not active" % (g.name, vt))
        img, _ = g.wait_screen_text("TEXT ON TTY%d" % vt)
        check((img.width, img.height) == (1280, 800), "%s: screen %dx%d" % (
            g.name, img.width, img.height))
    print("%s: text VT switches took %s ms" % (g.name, ", ".join("%.1f" % t for t in times)),
          flush=True)
    g.assert_no_oops()
