#!/usr/bin/env python3
"""Read the text of a Linux framebuffer console (fbcon, or kmsvt's own) off a
QEMU screendump.

The screendump is a binary PPM (P6, maxval 255).  The console draws every
character as a width x height cell of one font glyph in two colours, so each
cell can be matched exactly against the font: the cell's most common colour
is the background, every pixel noticeably different from it is foreground,
and the resulting bitmap (width * height bits, row 0 in the top bits) is
compared with each printable glyph by Hamming distance (popcount of the XOR).

Fonts: load_font() is the kernel's built-in font_8x16 (the default
everywhere).  It is not vendored: load_font() extracts lib/fonts/font_8x16.c
from the Debian linux-source tarball, parses its byte array and caches the
4096 raw bytes (256 glyphs x 16 rows, cp437 order, MSB = leftmost pixel) in
$KMSVT_BUILD/font_8x16.bin (default <repo>/build/font_8x16.bin).
load_psf(path) reads a console font as setfont does (PSF1 or PSF2, plain or
gzipped, e.g. /usr/share/consolefonts/*.psf.gz from console-setup-linux),
of any size (fbcon takes 1..32 pixels wide and high, 256 or 512 glyphs);
each glyph row is ceil(width/8) bytes, the leftmost pixel in the top bit.
Its unicode table says which characters each glyph shows; a font without
one is taken as cp437.  Pass the font to read_text(), screen_text(),
find_text(), contains_all() and render_text() (font=...): cells are then
the font's size, and render_text() draws each character with the glyph the
font maps it to.

Only the glyphs of printable ASCII are matched, each read as its ASCII
character (a PSF font's 'A' glyph also shows Cyrillic and Greek capitals);
anything else reads as `unknown`, unless it is within max_mismatch pixels
of one of them (an accented letter may read as its base letter).  The
underline cursor is the bottom `1 if height < 10 else 2` rows XORed, as
fbcon and kmsvt draw it; a block cursor inverts the cell.

Font notes (font_8x16): no two printable ASCII glyphs are identical (0x00,
0x20 and 0xff are all blank, but only 0x20 is printable).  Some are very
close: 'I' and 'l' differ by a single pixel, ':' and ';' by two, so a capture
with pixel errors may confuse them; exact captures never do.  A matched cell
is only accepted when its best glyph is strictly better than the runner-up.

Usage: python3 tests/lib/screenreader.py [--font FILE.psf[.gz]] shot.ppm
"""

import glob
import gzip
import os
import re
import struct
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
CELL_W, CELL_H = 8, 16
FONT_BYTES = 256 * CELL_H
TARBALLS = ['/usr/src/linux-source-6.1.tar.xz', '/usr/src/linux-source-*.tar.xz']

PSF1_MAGIC, PSF2_MAGIC = b'\x36\x04', struct.pack('<I', 0x864ab572)

try:
    _popcount = int.bit_count  # Python 3.10+
except AttributeError:         # pragma: no cover
    def _popcount(x):
        return bin(x).count('1')


# ---------------------------------------------------------------- the font

def parse_font_source(text, name='8x16', size=FONT_BYTES):
    """Return the glyph bytes (size of them) from the text of lib/fonts/font_<name>.c."""
    body = re.sub(r'/\*.*?\*/', '', text, flags=re.S)   # comments hold hex too
    array = 'fontdata_' + name
    start = body.find(array)
    if start < 0:
        raise ValueError('font_%s.c: no %s array' % (name, array))
    end = body.find('};', start)
    values = re.findall(r'0x([0-9a-fA-F]{1,2})\b', body[start:end])
    if len(values) != size:
        raise ValueError('font_%s.c: %d bytes, expected %d' % (name, len(values), size))
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
    """A console font's glyphs, the characters each shows, and the lookup
    tables used to match cells.

    data holds the glyphs one after another, each height rows of
    ceil(width / 8) bytes (leftmost pixel in the top bit of a row's first
    byte; the bits past width are ignored).  chars[i] is the strings glyph i
    shows (single characters, or sequences from a PSF table); by default
    glyph i is cp437 character i."""

    def __init__(self, data, width=CELL_W, height=CELL_H, chars=None):
        rowbytes = (width + 7) // 8
        size = rowbytes * height
        count = len(data) // size if width > 0 and height > 0 else 0
        if not count or len(data) != count * size:
            raise ValueError('font data is %d bytes, not a whole number of %dx%d glyphs'
                             % (len(data), width, height))
        if chars is None:
            chars = [(bytes([i]).decode('cp437'),) for i in range(min(count, 256))]
        if len(chars) > count:
            raise ValueError('%d glyphs, but characters for %d' % (count, len(chars)))
        self.width, self.height, self.data = width, height, bytes(data)
        self.glyphs = [self.data[i * size:(i + 1) * size] for i in range(count)]
        self.chars = [tuple(c) for c in chars] + [()] * (count - len(chars))
        # Glyph bitmaps packed as a cell is read: width bits a row, row 0 on top.
        pad = rowbytes * 8 - width
        self.bits = []
        for g in self.glyphs:
            bits = 0
            for r in range(0, size, rowbytes):
                bits = bits << width | int.from_bytes(g[r:r + rowbytes], 'big') >> pad
            self.bits.append(bits)
        # Character -> glyph, as the console encodes text (with a PSF table
        # the kernel keeps the last glyph listed for a character).
        self.index = {}
        for i, strings in enumerate(self.chars):
            for s in strings:
                if len(s) == 1:
                    self.index[s] = i
        # Per-font masks: the whole cell, the underline cursor's rows, the
        # rows above them, and the bottom row.
        self.area = width * height
        self.full = (1 << self.area) - 1
        self.underline = (1 << width * (1 if height < 10 else 2)) - 1
        self.top = self.full ^ self.underline
        self.top_pixels = _popcount(self.top)
        self.last_row = (1 << width) - 1
        # The printable set: the glyphs of printable ASCII, each read as the
        # first ASCII character it shows; one entry a distinct bitmap.
        self.printable, seen = [], set()
        for c in range(0x20, 0x7f):
            i = self.index.get(chr(c))
            if i is not None and self.bits[i] not in seen:
                seen.add(self.bits[i])
                self.printable.append((self.bits[i], chr(c)))
        # Exact bitmaps seen on screen: plain, inverted (block cursor or a
        # background in the minority), and both with the underline cursor
        # XORed over the bottom rows.  Earlier variants win collisions.
        self.exact = {}
        for flip in (0, self.full, self.underline, self.full ^ self.underline):
            for bits, ch in self.printable:
                self.exact.setdefault(bits ^ flip, ch)

    def glyph_index(self, ch):
        """The glyph the console draws for character ch: its own, else the
        font's U+FFFD, else '?' (which the kernel draws inverted, render_text
        does not)."""
        for c in (ch, '\ufffd', '?'):
            if c in self.index:
                return self.index[c]
        return 0

    def identical_printable(self):
        """Groups of printable ASCII characters that share one bitmap (none in
        font_8x16 or console-setup's fonts): each group reads as its first."""
        groups = {}
        for c in range(0x20, 0x7f):
            if chr(c) in self.index:
                groups.setdefault(self.bits[self.index[chr(c)]], []).append(chr(c))
        return [g for g in groups.values() if len(g) > 1]

    def closest(self, bits, max_mismatch):
        """Best printable character for a cell bitmap, or None if unsure."""
        # An underline cursor leaves the bottom row solid (font_8x16 has no
        # printable glyph that fills it); then also compare the rows above
        # the underline only, for the plain and inverted cell.
        under = bits & self.last_row == self.last_row
        under_inv = not bits & self.last_row
        n, top_n, top = self.area, self.top_pixels, self.top
        best = second = 1 << 30
        best_ch = None
        for glyph, ch in self.printable:
            x = bits ^ glyph
            d = _popcount(x)
            score = min(d, n - d)
            if under or under_inv:
                r = _popcount(x & top)
                score = min(score, r if under else top_n - r)
            if score < best:
                best, second, best_ch = score, best, ch
            elif score < second:
                second = score
        return best_ch if best <= max_mismatch and best < second else None


_fonts = {}


# The kernel's built-in fonts the tests read: lib/fonts/font_<name>.c,
# 256 glyphs, cp437 order.  (width, height) by name.
BUILTIN_FONTS = {'8x16': (8, 16), 'ter16x32': (16, 32), '8x8': (8, 8)}


def load_font(build_dir=None, name='8x16'):
    """Load one of the kernel's built-in fonts (font_8x16 by default) from
    the cache, extracting it from the linux-source tarball if needed."""
    width, height = BUILTIN_FONTS[name]
    size = 256 * height * ((width + 7) // 8)
    build_dir = Path(build_dir or os.environ.get('KMSVT_BUILD') or REPO / 'build')
    cache = build_dir / ('font_%s.bin' % name)
    if cache in _fonts:
        return _fonts[cache]
    data = cache.read_bytes() if cache.is_file() else b''
    if len(data) != size:
        tarball = find_tarball()
        member = '*/lib/fonts/font_%s.c' % name
        proc = subprocess.run(['tar', '-xJf', tarball, '--wildcards', member, '-O'],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if proc.returncode != 0 or not proc.stdout:
            raise RuntimeError('cannot extract %s from %s: %s'
                               % (member, tarball, proc.stderr.decode(errors='replace')))
        data = parse_font_source(proc.stdout.decode('latin-1'), name, size)
        build_dir.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name('%s.%d.tmp' % (cache.name, os.getpid()))
        tmp.write_bytes(data)
        os.replace(tmp, cache)          # atomic: parallel test runs may race
    font = _fonts[cache] = Font(data, width, height)
    return font


def parse_psf(data):
    """A Font from the bytes of a PSF1 or PSF2 file (gzipped or not)."""
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    if data[:2] == PSF1_MAGIC and len(data) >= 4:
        mode, height = data[2], data[3]
        width, count, start, size = 8, 512 if mode & 0x01 else 256, 4, height
        has_table = mode & 0x06             # PSF1_MODEHASTAB, PSF1_MODEHASSEQ
    elif data[:4] == PSF2_MAGIC and len(data) >= 32:
        _, _, start, flags, count, size, height, width = struct.unpack('<8I', data[:32])
        has_table = flags & 0x01            # PSF2_HAS_UNICODE_TABLE
        if size != (width + 7) // 8 * height:
            raise ValueError('PSF2: %d bytes a glyph for %dx%d' % (size, width, height))
    else:
        raise ValueError('not a PSF1 or PSF2 font (magic %r)' % data[:4])
    end = start + count * size
    if not count or len(data) < end:
        raise ValueError('PSF: %d bytes, %d glyphs of %d need %d' % (len(data), count, size, end))
    chars = None
    if has_table:
        table, chars = data[end:], []
        if data[:2] == PSF1_MAGIC:
            # Little-endian UCS-2 codes; 0xFFFE starts a sequence, 0xFFFF ends a glyph.
            codes = struct.unpack('<%dH' % (len(table) // 2), table[:len(table) // 2 * 2])
            entries = ''.join(map(chr, codes)).split('\uffff')
            entries = [e.split('\ufffe') for e in entries]
        else:
            # UTF-8; 0xFE starts a sequence, 0xFF ends a glyph.
            entries = [[p.decode('utf-8') for p in e.split(b'\xfe')] for e in table.split(b'\xff')]
        if len(entries) <= count:
            raise ValueError('PSF: unicode table has %d of %d glyphs' % (len(entries) - 1, count))
        # A glyph's own characters, then its sequences (each one string).
        chars = [list(e[0]) + e[1:] for e in entries[:count]]
    return Font(data[start:end], width, height, chars)


def load_psf(path):
    """A Font from a PSF1 or PSF2 file, plain or gzipped (setfont's fonts)."""
    with open(path, 'rb') as f:
        return parse_psf(f.read())


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
    """Mask of the cell's pixels that differ from colour.

    Each channel plane is translated to ASCII '0'/'1' digits and parsed with
    int(..., 2), so the per-pixel work runs in C; row 0 lands in the top bits,
    the same layout as Font.bits."""
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
    """Text rows of the console: one string per row of cells (font.height
    pixels), trailing blanks stripped, unreadable cells as `unknown`.  origin
    is the pixel position of cell (0, 0); threshold is the per-channel
    difference that counts as ink."""
    font = font or load_font()
    ox, oy = origin
    fw, fh = font.width, font.height
    cols, rows = (img.width - ox) // fw, (img.height - oy) // fh
    pixels, stride, span = img.pixels, img.width * 3, fw * 3
    lines = []
    for row in range(rows):
        top = (oy + row * fh) * stride + ox * 3
        band = [pixels[top + y * stride:top + y * stride + cols * span] for y in range(fh)]
        chars = []
        for o in range(0, cols * span, span):
            cell_rows = [line[o:o + span] for line in band]
            first = cell_rows[0]
            if cell_rows.count(first) == fh and first == first[:3] * fw:
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
    """Draw text the way fbcon does: cell (col, row) at pixel
    (font.width * col, font.height * row).

    lines is a list of str (or one str with newlines), clipped to the screen;
    each character is drawn with the glyph the font maps it to
    (Font.glyph_index: cp437 for font_8x16).  cursor is (col, row) for the
    underline cursor or (col, row, 'block') for an inverted cell; the console
    XORs both onto the glyph.
    """
    font = font or load_font()
    if isinstance(lines, str):
        lines = lines.split('\n')
    fw, fh = font.width, font.height
    cols, rows = width // fw, height // fh
    fgb, bgb = bytes(fg), bytes(bg)
    strips = [b''.join(fgb if byte & (0x80 >> i) else bgb for i in range(8)) for byte in range(256)]
    rowbytes, rowmask = (fw + 7) // 8, (1 << fw) - 1
    drawn = {}

    def draw(bits):
        """A cell bitmap's rows of pixels, drawn 8 pixels a byte."""
        if bits not in drawn:
            pixel_rows = []
            for y in range(fh):
                row = (bits >> (fh - 1 - y) * fw & rowmask) << (rowbytes * 8 - fw)
                pixel_rows.append(b''.join([strips[b] for b in row.to_bytes(rowbytes, 'big')])[:fw * 3])
            drawn[bits] = pixel_rows
        return drawn[bits]

    pad = bgb * (width - cols * fw)
    out = []
    for row in range(rows):
        text = lines[row] if row < len(lines) else ''
        cells = [font.bits[font.glyph_index(c)] for c in text[:cols].ljust(cols)]
        if cursor and cursor[1] == row and 0 <= cursor[0] < cols:
            block = len(cursor) > 2 and cursor[2] != 'underline'
            cells[cursor[0]] ^= font.full if block else font.underline
        cells = [draw(bits) for bits in cells]
        for y in range(fh):
            out.append(b''.join([cell[y] for cell in cells]) + pad)
    out.append(bgb * (width * (height - rows * fh)))
    return Image(width, height, b''.join(out))


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description='print the console text on a PPM screendump')
    ap.add_argument('ppm')
    ap.add_argument('--font', help='a PSF1/PSF2 console font (default: font_8x16)')
    ap.add_argument('--origin', default='0,0', help='pixel position of cell 0,0 (x,y)')
    ap.add_argument('--max-mismatch', type=int, default=4)
    args = ap.parse_args(argv)
    origin = tuple(int(v) for v in args.origin.split(','))
    font = load_psf(args.font) if args.font else None
    print(screen_text(Image.load_ppm(args.ppm), font=font, origin=origin,
                      max_mismatch=args.max_mismatch))
    return 0


if __name__ == '__main__':
    sys.exit(main())
