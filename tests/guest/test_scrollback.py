"""Guest tests: the scrollback of kmsvt's console.  Shift+PageUp and
Shift+PageDown (sent as keys over QMP, the PC keyboard) move through what
scrolled off, half a screen a press (the vt layer's step); output and keys
return to the bottom; ESC [ 3 J empties it; each VT keeps its own; a font
change keeps what fits.  Everything is read back from the screendump."""
import time

import fonts
from harness import CLEAR, check

ROWS = 50                       # 1280x800 in the 8x16 font
STEP = ROWS // 2                # a Shift+PageUp


def _lines(tag, n):
    return "".join("%s line %03d\n" % (tag, i) for i in range(1, n + 1))


def _screen_after(g, keys, want, absent=(), font=None, timeout=20):
    """Press keys (a list of key tuples), then wait for a screen with want
    on it and no line of absent.  The console draws straight into the
    buffer on screen, so a screendump can catch a redraw half done (the
    rows of the old view above those of the new one, seen once in a whole
    suite): such a screen is read again, and only one that stays wrong
    until the timeout fails."""
    for k in keys:
        g.send_key(*k)
    deadline = time.monotonic() + timeout
    while True:
        _, text = g.wait_screen_text(want, font=font, timeout=timeout)
        there = [a for a in absent if a in text]
        if not there:
            return text
        check(time.monotonic() < deadline, "%r on screen with %r:\n%s" % (there, want, text))
        time.sleep(0.2)


UP, DOWN = ("shift", "pgup"), ("shift", "pgdn")


def _first_line(text):
    return text.split("\n")[0].strip()


def test_scrollback_keys(ctx):
    """150 lines on tty1: 101 scrolled off, 49 on screen.  Each Shift+PageUp
    shows 25 rows older, Shift+PageDown as many newer, to the bottom."""
    g = ctx.guest("scrollback")
    g.tty_write(CLEAR + _lines("vt1", 150))
    g.wait_screen_text("vt1 line 150")
    # 101 lines kept: 25 back shows 077..101 above the screen's 102..126.
    text = _screen_after(g, [UP], ["vt1 line 077", "vt1 line 126"], ["vt1 line 127", "vt1 line 150"])
    check(_first_line(text) == "vt1 line 077", "top row after one press: %r" % _first_line(text))
    text = _screen_after(g, [UP], ["vt1 line 052", "vt1 line 101"], ["vt1 line 102"])
    check(_first_line(text) == "vt1 line 052", "top row after two: %r" % _first_line(text))
    text = _screen_after(g, [UP], ["vt1 line 027", "vt1 line 076"], ["vt1 line 077"])
    # Back to the bottom, a press at a time.
    text = _screen_after(g, [DOWN], ["vt1 line 101"], ["vt1 line 027"])
    check(_first_line(text) == "vt1 line 052", "top row a press down: %r" % _first_line(text))
    _screen_after(g, [DOWN, DOWN], ["vt1 line 102", "vt1 line 150"], ["vt1 line 101"])
    # Past the oldest line kept: the view stops there.
    text = _screen_after(g, [UP] * 6, ["vt1 line 001"], ["vt1 line 102"])
    check(_first_line(text) == "vt1 line 001", "top row at the oldest: %r" % _first_line(text))
    g.assert_no_oops()


def test_scrollback_returns(ctx):
    """Output, then a key, return to the bottom; ESC [ 3 J empties the
    scrollback."""
    g = ctx.guest("scrollret")
    g.tty_write(CLEAR + _lines("vt1", 120))
    g.wait_screen_text("vt1 line 120")
    _screen_after(g, [UP], ["vt1 line 047"], ["vt1 line 120"])
    g.tty_write("output while scrolled back\n")
    _screen_after(g, [], ["output while scrolled back", "vt1 line 120"], ["vt1 line 047"])
    _screen_after(g, [UP], ["vt1 line 048"], ["output while scrolled back"])
    _screen_after(g, [("a",)], ["output while scrolled back"], ["vt1 line 048"])
    g.sh(r"printf '\033[3J' > /dev/tty1", check=True)
    g.tty_write(CLEAR + "after ESC [ 3 J\n")
    g.wait_screen_text("after ESC [ 3 J")
    for k in (UP, UP):
        g.send_key(*k)
    _screen_after(g, [], ["after ESC [ 3 J"], ["vt1 line"])
    g.assert_no_oops()


def test_scrollback_per_vt(ctx):
    """VT2's scrollback is its own, and VT1's outlives a switch away."""
    g = ctx.guest("scrollvt")
    g.tty_write(CLEAR + _lines("vt1", 100))
    g.wait_screen_text("vt1 line 100")
    g.sh("chvt 2", check=True)
    g.tty_write(CLEAR + _lines("vt2", 90), tty=2)
    g.wait_screen_text("vt2 line 090")
    _screen_after(g, [UP], ["vt2 line 017"], ["vt1 line"])
    g.sh("chvt 1", check=True)
    g.wait_screen_text("vt1 line 100")
    _screen_after(g, [UP], ["vt1 line 027", "vt1 line 076"], ["vt2 line", "vt1 line 100"])
    g.assert_no_oops()


def test_scrollback_font_change(ctx):
    """A font twice as wide and high (Terminus 16x32: 80x25) keeps the rows
    that fit, cut to 80 cells, and the view steps by its half screen."""
    g = ctx.guest("scrollfont", **fonts.image_kw())
    g.tty_write(CLEAR + _lines("vt1", 150))
    g.wait_screen_text("vt1 line 150")
    fonts.setfont(g, "Uni2-TerminusBold32x16")
    check(fonts.tty_size(g) == "25 80", "tty1 is %r in Terminus" % fonts.tty_size(g))
    g.tty_write(CLEAR + "in Terminus now\n")
    font = fonts.reader_font("Uni2-TerminusBold32x16")
    g.wait_screen_text("in Terminus now", font=font)
    # CLEAR does not scroll: the rows kept are still lines 1..101; half of
    # 25 rows back shows 090..101 above the screen's own rows.
    text = _screen_after(g, [UP], ["vt1 line 090", "vt1 line 101", "in Terminus now"],
                         ["vt1 line 089"], font=font)
    check(_first_line(text) == "vt1 line 090", "top row in Terminus: %r" % _first_line(text))
    g.assert_no_oops()
