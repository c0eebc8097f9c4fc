"""console-setup's fonts and kbd's setfont in a guest: the fonts unpacked
as /fonts/NAME.psf, the screen reader's font for each, and a cell's pixels
to compare with a glyph."""
import gzip
import os

import screenreader
from harness import check

CONSOLEFONTS = "/usr/share/consolefonts"
SETFONT = "/bin/setfont"
# The fonts the tests load and the grid each gives at 1280x800 ("rows cols").
FONTS = [("Lat15-Fixed16", "50 160"), ("Uni2-Fixed16", "50 160"),
         ("Uni2-TerminusBold32x16", "25 80")]
# A letter past the first 256 glyphs of both Uni2 fonts (Cyrillic Ya),
# written as UTF-8 with printf's octal escapes.
HIGH = ("\u042f", r"\320\257")


def font_path(name):
    path = os.path.join(CONSOLEFONTS, name + ".psf.gz")
    check(os.path.exists(path), "%s missing: install console-setup-linux (make deps)" % path)
    return path


def reader_font(name):
    return screenreader.load_psf(font_path(name))


def image_kw():
    """ctx.guest() arguments for an image with setfont and the fonts."""
    check(os.path.exists(SETFONT), "%s missing: install kbd (make deps)" % SETFONT)
    files = {}
    for name, _ in FONTS:
        with gzip.open(font_path(name)) as f:
            files["/fonts/%s.psf" % name] = f.read()
    return {"programs": [SETFONT], "extra_files": files, "tag": "fonts"}


def setfont(g, name, tty=1):
    st, out = g.sh("setfont -C /dev/tty%d /fonts/%s.psf" % (tty, name))
    check(st == 0, "setfont %s on tty%d failed: %s" % (name, tty, out.strip()))


def tty_size(g, tty=1):
    """'rows cols' of a VT."""
    _, size = g.sh("stty size < /dev/tty%d" % tty)
    return size.strip()


def cell_bits(img, font, col, row, bg=(0, 0, 0)):
    """A cell's pixels that are not the background, as font.bits holds a glyph."""
    bits = 0
    for y in range(row * font.height, (row + 1) * font.height):
        for x in range(col * font.width, (col + 1) * font.width):
            bits = bits << 1 | (img.pixel(x, y) != bg)
    return bits
