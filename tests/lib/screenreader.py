#!/usr/bin/env python3
"""Read the text of a Linux framebuffer console (fbcon) off a QEMU screendump.

The screendump is a binary PPM (P6, maxval 255).  fbcon draws every character
as an 8x16 cell with the kernel's built-in font_8x16 in two colours, so each
cell can be matched exactly against the font: the cell's most common colour is
the background, every pixel noticeably different from it is foreground, and
the resulting 128-bit bitmap is compared with each printable glyph by Hamming
distance (popcount of the XOR).

The font is not vendored: load_font() extracts lib/fonts/font_8x16.c from the
Debian linux-source tarball, parses its byte array and caches the 4096 raw
bytes (256 glyphs x 16 rows, cp437 order, MSB = leftmost pixel) in
$KMSVT_BUILD/font_8x16.bin (default <repo>/build/font_8x16.bin).

Font notes: no two printable ASCII glyphs are identical (0x00, 0x20 and 0xff
are all blank, but only 0x20 is printable).  Some are very close: 'I' and 'l'
differ by a single pixel, ':' and ';' by two, so a capture with pixel errors
may confuse them; exact captures never do.  A matched cell is only accepted
when its best glyph is strictly better than the runner-up.

Usage: python3 tests/lib/screenreader.py shot.ppm
"""

import glob
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
CELL_W, CELL_H = 8, 16
FONT_BYTES = 256 * CELL_H
FONT_MEMBER = '*/lib/fonts/font_8x16.c'
TARBALLS = ['/usr/src/linux-source-6.1.tar.xz', '/usr/src/linux-source-*.tar.xz']

FULL = (1 << 128) - 1          # all 128 pixels of a cell
TOP14 = FULL ^ 0xFFFF          # rows 0..13 (row 0 is the most significant byte)
UNDERLINE = 0xFFFF             # fbcon's underline cursor: bottom 2 rows, XORed
ROW15 = 0xFF

try:
    _popcount = int.bit_count  # Python 3.10+
except AttributeError:         # pragma: no cover
    def _popcount(x):
        return bin(x).count('1')


# ---------------------------------------------------------------- the font

def parse_font_source(text):
    """Return the 4096 glyph bytes from the text of font_8x16.c."""
    body = re.sub(r'/\*.*?\*/', '', text, flags=re.S)   # comments hold hex too
    start = body.find('fontdata_8x16')
    if start < 0:
        raise ValueError('font_8x16.c: no fontdata_8x16 array')
    end = body.find('};', start)
    values = re.findall(r'0x([0-9a-fA-F]{1,2})\b', body[start:end])
    if len(values) != FONT_BYTES:
        raise ValueError('font_8x16.c: %d bytes, expected %d' % (len(values), FONT_BYTES))
    return bytes(int(v, 16) for v in values)


def find_tarball():
    """Locate the kernel source tarball (env KMSVT_LINUX_SOURCE overrides)."""
    env = os.environ.get('KMSVT_LINUX_SOURCE')
    if env:
        if not os.path.isfile(env):
            raise FileNotFoundError('KMSVT_LINUX_SOURCE=%s does not exist' % env)
        return env
    for pattern in TARBALLS:
        hits = sorted(glob.glob(pattern))
        if hits:
            return hits[-1]
    raise FileNotFoundError('no kernel source tarball (%s); install the Debian package '
                            'linux-source-6.1 or set KMSVT_LINUX_SOURCE' % TARBALLS[0])


class Font:
    """font_8x16 glyphs plus the lookup tables used to match cells."""

    def __init__(self, data):
        if len(data) != FONT_BYTES:
            raise ValueError('font data is %d bytes, expected %d' % (len(data), FONT_BYTES))
        self.data = bytes(data)
        self.glyphs = [self.data[i * CELL_H:(i + 1) * CELL_H] for i in range(256)]
        self.bits = [int.from_bytes(g, 'big') for g in self.glyphs]
        self.printable = [(self.bits[c], chr(c)) for c in range(0x20, 0x7f)]
        # Exact bitmaps seen on screen: plain, inverted (block cursor or a
        # background in the minority), and both with the underline cursor
        # XORed over the bottom rows.  Earlier variants win collisions.
        self.exact = {}
        for flip in (0, FULL, UNDERLINE, FULL ^ UNDERLINE):
            for bits, ch in self.printable:
                self.exact.setdefault(bits ^ flip, ch)

    def identical_printable(self):
        """Groups of printable characters that share one glyph (none in 6.1)."""
        groups = {}
        for bits, ch in self.printable:
            groups.setdefault(bits, []).append(ch)
        return [g for g in groups.values() if len(g) > 1]

    def closest(self, bits, max_mismatch):
        """Best printable character for a cell bitmap, or None if unsure."""
        # An underline cursor leaves row 15 solid (no printable glyph uses it);
        # then also compare rows 0..13 only, for the plain and inverted cell.
        under = bits & ROW15 == ROW15
        under_inv = not bits & ROW15
        best = second = 1 << 30
        best_ch = None
        for glyph, ch in self.printable:
            x = bits ^ glyph
            d = _popcount(x)
            score = min(d, 128 - d)
            if under or under_inv:
                r = _popcount(x & TOP14)
                score = min(score, r if under else 112 - r)
            if score < best:
                best, second, best_ch = score, best, ch
            elif score < second:
                second = score
        return best_ch if best <= max_mismatch and best < second else None


_fonts = {}


def load_font(build_dir=None):
    """Load font_8x16 from the cache, extracting it from the tarball if needed."""
    build_dir = Path(build_dir or os.environ.get('KMSVT_BUILD') or REPO / 'build')
    cache = build_dir / 'font_8x16.bin'
    if cache in _fonts:
        return _fonts[cache]
    data = cache.read_bytes() if cache.is_file() else b''
    if len(data) != FONT_BYTES:
        tarball = find_tarball()
        proc = subprocess.run(['tar', '-xJf', tarball, '--wildcards', FONT_MEMBER, '-O'],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if proc.returncode != 0 or not proc.stdout:
            raise RuntimeError('cannot extract %s from %s: %s'
                               % (FONT_MEMBER, tarball, proc.stderr.decode(errors='replace')))
        data = parse_font_source(proc.stdout.decode('latin-1'))
        build_dir.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name('%s.%d.tmp' % (cache.name, os.getpid()))
        tmp.write_bytes(data)
        os.replace(tmp, cache)          # atomic: parallel test runs may race
    font = _fonts[cache] = Font(data)
    return font


# ---------------------------------------------------------------- images

_PPM_TOKEN = re.compile(rb'(?:\s|#[^\n]*(?:\n|$))*([^\s#]+)')


class Image:
    """An RGB image: width, height and pixels (packed RGB bytes, row-major)."""

    def __init__(self, width, height, pixels):
        if width < 0 or height < 0 or len(pixels) != width * height * 3:
            raise ValueError('%dx%d image needs %d bytes, got %d'
                             % (width, height, width * height * 3, len(pixels)))
        self.width, self.height, self.pixels = width, height, bytes(pixels)

    @classmethod
    def from_rgb(cls, width, height, data):
        return cls(width, height, data)

    @classmethod
    def parse_ppm(cls, data):
        fields, pos = [], 0
        for _ in range(4):              # magic, width, height, maxval
            m = _PPM_TOKEN.match(data, pos)
            if not m:
                raise ValueError('truncated PPM header')
            fields.append(m.group(1))
            pos = m.end()
        magic, w, h, maxval = fields
        if magic != b'P6':
            raise ValueError('not a binary PPM (magic %r)' % magic)
        if not (w.isdigit() and h.isdigit() and maxval.isdigit()):
            raise ValueError('bad PPM header %r' % fields)
        if int(maxval) != 255:
            raise ValueError('unsupported PPM maxval %s' % maxval.decode())
        if data[pos:pos + 1] not in (b' ', b'\t', b'\n', b'\r'):
            raise ValueError('no whitespace after PPM maxval')
        w, h, pos = int(w), int(h), pos + 1
        if len(data) - pos < w * h * 3:
            raise ValueError('PPM raster truncated: %d of %d bytes' % (len(data) - pos, w * h * 3))
        return cls(w, h, data[pos:pos + w * h * 3])

    @classmethod
    def load_ppm(cls, path):
        with open(path, 'rb') as f:
            return cls.parse_ppm(f.read())

    def save_ppm(self, path):
        with open(path, 'wb') as f:
            f.write(b'P6\n%d %d\n255\n' % (self.width, self.height))
            f.write(self.pixels)

    def pixel(self, x, y):
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IndexError('pixel (%d, %d) outside %dx%d' % (x, y, self.width, self.height))
        i = (y * self.width + x) * 3
        return tuple(self.pixels[i:i + 3])

    def is_black(self, threshold=16):
        """True if no channel of any pixel reaches threshold."""
        return not self.pixels.translate(None, bytes(range(min(threshold, 256))))

    def distinct_colors(self, step=4):
        """Number of distinct colours among every step-th pixel of every step-th row."""
        seen, stride = set(), self.width * 3
        for y in range(0, self.height, step):
            row = self.pixels[y * stride:(y + 1) * stride]
            seen.update(zip(row[0::3 * step], row[1::3 * step], row[2::3 * step]))
        return len(seen)

    def unturned(self, rotate):
        """The text as it is written, from a screen that fbcon (or kmsvt's
        console) turned with rotate=1 (clockwise), 2 (upside down) or 3
        (counter-clockwise)."""
        w, h, p = self.width, self.height, self.pixels
        if rotate == 0:
            return self
        if rotate == 2:
            rev = p[::-1]               # pixels reversed, each one's bytes too
            out = bytearray(len(p))
            out[0::3], out[1::3], out[2::3] = rev[2::3], rev[1::3], rev[0::3]
            return Image(w, h, out)
        if rotate not in (1, 3):
            raise ValueError('rotate must be 0 to 3, not %r' % rotate)
        # Text row y is a screen column: right to left read top down (1),
        # or left to right read bottom up (3).
        rows = []
        for ty in range(w):
            x = w - 1 - ty if rotate == 1 else ty
            col = bytearray(h * 3)
            for c in range(3):
                col[c::3] = p[x * 3 + c::w * 3]
            if rotate == 3:
                rev = col[::-1]
                col[0::3], col[1::3], col[2::3] = rev[2::3], rev[1::3], rev[0::3]
            rows.append(bytes(col))
        return Image(h, w, b''.join(rows))

    def crop(self, x, y, w, h):
        if x < 0 or y < 0 or w < 0 or h < 0 or x + w > self.width or y + h > self.height:
            raise ValueError('crop %dx%d+%d+%d outside %dx%d' % (w, h, x, y, self.width, self.height))
        stride = self.width * 3
        return Image(w, h, b''.join(self.pixels[(y + r) * stride + x * 3:(y + r) * stride + (x + w) * 3]
                                    for r in range(h)))


# ---------------------------------------------------------------- reading

_tables = {}


def _diff_table(value, threshold):
    """translate() table: byte -> '1' if it differs from value by > threshold."""
    key = (value, threshold)
    if key not in _tables:
        _tables[key] = bytes(49 if abs(v - value) > threshold else 48 for v in range(256))
    return _tables[key]


def _differs(r, g, b, colour, threshold):
    """128-bit mask of the cell's pixels that differ from colour.

    Each channel plane is translated to ASCII '0'/'1' digits and parsed with
    int(..., 2), so the per-pixel work runs in C; row 0 lands in the top bits,
    the same layout as int.from_bytes(glyph, 'big')."""
    return (int(r.translate(_diff_table(colour[0], threshold)), 2)
            | int(g.translate(_diff_table(colour[1], threshold)), 2)
            | int(b.translate(_diff_table(colour[2], threshold)), 2))


def _read_cell(cell, font, max_mismatch, threshold):
    r, g, b = cell[0::3], cell[1::3], cell[2::3]
    colours = Counter(zip(r, g, b))
    top = colours.most_common(2)
    bits = _differs(r, g, b, top[0][0], threshold)
    if len(colours) > 2:
        # fbcon cells have exactly two colours; pixels far from both the
        # background and the main foreground colour mean "not text" (noise).
        stray = _popcount(bits & _differs(r, g, b, top[1][0], threshold))
        if stray > max_mismatch:
            return None
    ch = font.exact.get(bits)
    return ch if ch is not None else font.closest(bits, max_mismatch)


def read_text(img, font=None, origin=(0, 0), max_mismatch=4, threshold=40, unknown='?'):
    """Text rows of the console: one string per 16-pixel row, trailing blanks
    stripped, unreadable cells as `unknown`.  origin is the pixel position of
    cell (0, 0); threshold is the per-channel difference that counts as ink."""
    font = font or load_font()
    ox, oy = origin
    cols, rows = (img.width - ox) // CELL_W, (img.height - oy) // CELL_H
    pixels, stride, span = img.pixels, img.width * 3, CELL_W * 3
    lines = []
    for row in range(rows):
        top = (oy + row * CELL_H) * stride + ox * 3
        band = [pixels[top + y * stride:top + y * stride + cols * span] for y in range(CELL_H)]
        chars = []
        for o in range(0, cols * span, span):
            cell_rows = [line[o:o + span] for line in band]
            first = cell_rows[0]
            if cell_rows.count(first) == CELL_H and first == first[:3] * CELL_W:
                chars.append(' ')       # one colour: blank (or a block cursor)
                continue
            ch = _read_cell(b''.join(cell_rows), font, max_mismatch, threshold)
            chars.append(unknown if ch is None else ch)
        lines.append(''.join(chars).rstrip())
    return lines


def screen_text(img, **kw):
    return '\n'.join(read_text(img, **kw))


def find_text(img, needle, **kw):
    return needle in screen_text(img, **kw)


def contains_all(img, needles, **kw):
    text = screen_text(img, **kw)
    return all(n in text for n in needles)


# ---------------------------------------------------------------- drawing

def render_text(lines, width, height, fg=(170, 170, 170), bg=(0, 0, 0), font=None, cursor=None):
    """Draw text the way fbcon does: cell (col, row) at pixel (8*col, 16*row).

    lines is a list of str (or one str with newlines), encoded as cp437 and
    clipped to the screen.  cursor is (col, row) for fbcon's underline cursor
    or (col, row, 'block') for an inverted cell; fbcon XORs both onto the glyph.
    """
    font = font or load_font()
    if isinstance(lines, str):
        lines = lines.split('\n')
    cols, rows = width // CELL_W, height // CELL_H
    fgb, bgb = bytes(fg), bytes(bg)
    strips = [b''.join(fgb if byte & (0x80 >> i) else bgb for i in range(CELL_W))
              for byte in range(256)]
    pad = bgb * (width - cols * CELL_W)
    out = []
    for row in range(rows):
        text = lines[row] if row < len(lines) else ''
        cells = [font.glyphs[c] for c in text[:cols].ljust(cols).encode('cp437', 'replace')]
        if cursor and cursor[1] == row and 0 <= cursor[0] < cols:
            mask = UNDERLINE if len(cursor) < 3 or cursor[2] == 'underline' else FULL
            cells[cursor[0]] = (int.from_bytes(cells[cursor[0]], 'big') ^ mask).to_bytes(CELL_H, 'big')
        for y in range(CELL_H):
            out.append(b''.join([strips[cell[y]] for cell in cells]) + pad)
    out.append(bgb * (width * (height - rows * CELL_H)))
    return Image(width, height, b''.join(out))


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description='print the fbcon text on a PPM screendump')
    ap.add_argument('ppm')
    ap.add_argument('--origin', default='0,0', help='pixel position of cell 0,0 (x,y)')
    ap.add_argument('--max-mismatch', type=int, default=4)
    args = ap.parse_args(argv)
    origin = tuple(int(v) for v in args.origin.split(','))
    print(screen_text(Image.load_ppm(args.ppm), origin=origin, max_mismatch=args.max_mismatch))
    return 0


if __name__ == '__main__':
    sys.exit(main())
