"""Guest tests: kmsvt's console takes every font fbcon takes.  kbd's setfont
loads console-setup's fonts (8x16 of 256 and of 512 glyphs, Terminus 16x32
of 512), the text grid follows the font, each VT keeps its own, and what is
written is read back from the screendump in that font; the kernel's
built-in fonts are taken by name (kmsvt.font=)."""
import time

import fonts
import screenreader
from fonts import FONTS, HIGH, cell_bits, reader_font, setfont, tty_size
from harness import CLEAR, check


def _font_guest(ctx, name, **kw):
    return ctx.guest(name, **fonts.image_kw(), **kw)


def _read_back(g, name, words, rotate=0):
    font = reader_font(name)
    g.tty_write(CLEAR + "\n".join(words) + "\n")
    img, _ = g.wait_screen_text(words, font=font, rotate=rotate)
    return img, font


def test_setfont_console_setup(ctx):
    """Each font loads, the grid follows it, and its text reads back."""
    g = _font_guest(ctx, "setfont")
    for name, grid in FONTS:
        setfont(g, name)
        size = tty_size(g)
        check(size == grid, "tty1 in %s is %r (rows cols), not %r" % (name, size, grid))
        _read_back(g, name, ["%s: The quick brown fox" % name, "jumps over 13 lazy dogs!",
                             "kmsvt<>[]{}|~ 0123456789"])
    g.assert_no_oops()


BRIGHT_YELLOW = (255, 255, 85)


def _colours(img, font, col, row):
    return {img.pixel(x, y) for x in range(col * font.width, (col + 1) * font.width)
            for y in range(row * font.height, (row + 1) * font.height)}


def test_512_glyphs(ctx):
    """A glyph past the first 256 is drawn, and colours stay right: with 512
    glyphs the cells' attribute bits move up one (vc_hi_font_mask), the
    cells written before the font too."""
    g = _font_guest(ctx, "glyphs512")
    g.sh(r"printf '\033[2J\033[H\033[1;33mYELLOW\033[0m\n' > /dev/tty1", check=True)
    g.wait_screen_text("YELLOW")
    for i, (name, _) in enumerate(FONTS[1:]):
        setfont(g, name)
        font = reader_font(name)
        if i == 0:
            # Written with 256 glyphs, drawn again with 512 (a new font
            # redraws the screen within a frame): still bright yellow.
            time.sleep(0.5)
            img, _ = g.wait_screen_text("YELLOW", font=font)
            check(BRIGHT_YELLOW in _colours(img, font, 0, 0),
                  "%s: YELLOW of before the font is %r" % (name, _colours(img, font, 0, 0)))
        glyph = font.index[HIGH[0]]
        check(glyph >= 256, "%s: %r is glyph %d" % (name, HIGH[0], glyph))
        g.sh(r"printf '\033[2J\033[H\033[1;33mYELLOW\033[0m\n%s kmsvt 512 font %d\n' > /dev/tty1"
             % (HIGH[1], i), check=True)
        img, _ = g.wait_screen_text(["YELLOW", "kmsvt 512 font %d" % i], font=font)
        check(cell_bits(img, font, 0, 1) == font.bits[glyph],
              "%s: glyph %d (%r) is not what the cell shows" % (name, glyph, HIGH[0]))
        check(BRIGHT_YELLOW in _colours(img, font, 0, 0),
              "%s: YELLOW is %r" % (name, _colours(img, font, 0, 0)))
    g.assert_no_oops()


def test_font_per_vt(ctx):
    """A VT's font is its own: tty2, open before, keeps 8x16 while tty1 has
    Terminus, and shows it when switched to; a VT opened later takes the
    font of the VT in front, as with fbcon; a font read back (setfont -O)
    loads again."""
    g = _font_guest(ctx, "pervt")
    check(tty_size(g, 2) == "50 160", "tty2 is %r before any setfont" % tty_size(g, 2))
    setfont(g, "Uni2-TerminusBold32x16")
    check(tty_size(g, 2) == "50 160", "tty2 is %r after tty1's font changed" % tty_size(g, 2))
    check(tty_size(g, 8) == "25 80", "tty8, opened after, is %r, not in tty1's font"
          % tty_size(g, 8))
    g.sh("chvt 2", check=True)
    g.tty_write(CLEAR + "tty2 keeps VGA 8x16\n", tty=2)
    g.wait_screen_text("tty2 keeps VGA 8x16")
    g.sh("chvt 1", check=True)
    st, out = g.sh("setfont -C /dev/tty1 -O /tmp/saved.psf && "
                   "setfont -C /dev/tty1 /fonts/Lat15-Fixed16.psf && "
                   "setfont -C /dev/tty1 /tmp/saved.psf")
    check(st == 0, "saving and loading back the font failed: %s" % out.strip())
    check(tty_size(g) == "25 80", "tty1 is %r with the saved Terminus font" % tty_size(g))
    _read_back(g, "Uni2-TerminusBold32x16", ["saved and loaded back"])
    g.assert_no_oops()


def test_font_turned(ctx):
    """A 16x32 font on a turned screen, each way: on its side 800/16 x
    1280/32 cells, upside down 80x25; its glyphs are turned once, at set."""
    for rotate, grid in ((1, "40 50"), (2, "25 80"), (3, "40 50")):
        g = _font_guest(ctx, "fontturned%d" % rotate, cmdline="modargs=rotate=%d" % rotate)
        setfont(g, "Uni2-TerminusBold32x16")
        size = tty_size(g)
        check(size == grid, "tty1 turned %d is %r (rows cols), not %r" % (rotate, size, grid))
        _read_back(g, "Uni2-TerminusBold32x16",
                   ["turned %d Terminus" % rotate, "The quick brown fox"], rotate=rotate)
        g.assert_no_oops()
        g.close()


def test_builtin_font_by_name(ctx):
    """kmsvt.font=TER16x32, the kernel's own Terminus: an 80x25 console from
    the start; a name the kernel lacks falls back to VGA8x16, saying so."""
    g = ctx.guest("fontparam", cmdline="modargs=font=TER16x32")
    check(tty_size(g) == "25 80", "tty1 with font=TER16x32 is %r" % tty_size(g))
    words = ["kernel Terminus 16x32", "The quick brown fox"]
    g.tty_write(CLEAR + "\n".join(words) + "\n")
    g.wait_screen_text(words, font=screenreader.load_font(name="ter16x32"))
    g.assert_no_oops()
    g.close()
    g = ctx.guest("fontbad", cmdline="modargs=font=NOSUCHFONT")
    check(tty_size(g) == "50 160", "tty1 with an unknown font is %r" % tty_size(g))
    check("no built-in font NOSUCHFONT" in g.dmesg(), "no warning for font=NOSUCHFONT")
    g.assert_no_oops()
