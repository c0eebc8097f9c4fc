#!/usr/bin/env python3
"""Unit tests for tests/lib/screenreader.py (fbcon screendump text reader).

Run from the repository root:
    python3 -m unittest tests/host/test_screenreader.py -v

PsfTest needs console-setup-linux's fonts in /usr/share/consolefonts
(make deps installs the package) and fails without them.
"""

import gzip
import io
import os
import random
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest
from unittest import mock

import screenreader as sr

PRINTABLE = ''.join(chr(c) for c in range(0x20, 0x7f))
PANIC = [
    'Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)',
    'CPU: 0 PID: 1 Comm: swapper/0 Not tainted 6.1.0-57-amd64 #1  Debian 6.1.192-3',
    'Call Trace:',
    ' <TASK>',
    ' dump_stack_lvl+0x44/0x5c',
    ' panic+0x118/0x2ed',
    '---[ end Kernel panic - not syncing: VFS: Unable to mount root fs ]---',
]


def random_lines(rng, cols, rows):
    """Screen-filling random printable text, no trailing blanks."""
    return [''.join(rng.choice(PRINTABLE) for _ in range(cols)).rstrip() for _ in range(rows)]


def printable_screen(rng, cols, rows):
    """All printable ASCII (wrapped at cols), then random printable lines."""
    lines = [PRINTABLE[i:i + cols] for i in range(0, len(PRINTABLE), cols)]
    return lines + random_lines(rng, cols, rows - len(lines))


def set_pixel(img, x, y, rgb):
    """Copy of img with one pixel changed."""
    data = bytearray(img.pixels)
    i = (y * img.width + x) * 3
    data[i:i + 3] = bytes(rgb)
    return sr.Image(img.width, img.height, bytes(data))


class FontTest(unittest.TestCase):
    def setUp(self):
        self.font = sr.load_font()

    def test_known_glyphs(self):
        self.assertEqual(len(self.font.glyphs), 256)
        self.assertEqual(self.font.glyphs[ord('A')],
                         bytes.fromhex('00 00 10 38 6c c6 c6 fe c6 c6 c6 c6 00 00 00 00'))
        self.assertEqual(self.font.glyphs[ord(' ')], bytes(16))
        self.assertEqual(self.font.glyphs[0xdb], b'\xff' * 16)    # cp437 full block

    def test_no_identical_printable_glyphs(self):
        self.assertEqual(self.font.identical_printable(), [])
        # documented near-collision: 'I' and 'l' differ by a single pixel
        self.assertEqual(sr._popcount(self.font.bits[ord('I')] ^ self.font.bits[ord('l')]), 1)

    def test_extract_and_cache(self):
        # a small stand-in for the linux-source tarball, holding the real glyphs
        src = ('static const struct font_data fontdata_8x16 = {\n\t{ 0, 0, FONTDATAMAX, 0 }, {\n'
               + ''.join('\t0x%02x, /* %s */\n' % (b, format(b, '08b')) for b in self.font.data)
               + '} };\n').encode()
        with tempfile.TemporaryDirectory() as d:
            tarball = os.path.join(d, 'linux-source-6.1.tar.xz')
            with tarfile.open(tarball, 'w:xz') as tar:
                info = tarfile.TarInfo('linux-source-6.1/lib/fonts/font_8x16.c')
                info.size = len(src)
                tar.addfile(info, io.BytesIO(src))
            build = os.path.join(d, 'build')
            with mock.patch.dict(os.environ, {'KMSVT_LINUX_SOURCE': tarball}):
                self.assertEqual(sr.load_font(build).data, self.font.data)
            with open(os.path.join(build, 'font_8x16.bin'), 'rb') as f:
                self.assertEqual(f.read(), self.font.data)
            sr._fonts.clear()
            # a valid cache is used without the tarball
            with mock.patch.dict(os.environ, {'KMSVT_LINUX_SOURCE': '/nonexistent.tar.xz'}):
                self.assertEqual(sr.load_font(build).data, self.font.data)
            sr._fonts.clear()

    def test_missing_tarball_raises(self):
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.dict(os.environ, {'KMSVT_LINUX_SOURCE': os.path.join(d, 'no.tar.xz')}):
            with self.assertRaises(FileNotFoundError):
                sr.load_font(d)
            self.assertFalse(os.path.exists(os.path.join(d, 'font_8x16.bin')))

    def test_parse_font_source(self):
        rows = ',\n'.join('\t0x%02x, /* 0x%02x */' % (i % 256, i % 256) for i in range(4096))
        src = ('/* 0 0x00 \'^@\' */\nstatic const struct font_data fontdata_8x16 = {\n'
               '\t{ 0, 0, FONTDATAMAX, 0 }, {\n' + rows + '\n} };\n.pref = 0x7,\n')
        self.assertEqual(sr.parse_font_source(src), bytes(i % 256 for i in range(4096)))
        with self.assertRaises(ValueError):
            sr.parse_font_source(src.replace('0x05, /* 0x05 */', '', 1))


class ImageTest(unittest.TestCase):
    def test_ppm_round_trip(self):
        rng = random.Random(7)
        img = sr.Image.from_rgb(13, 7, rng.randbytes(13 * 7 * 3))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, 'x.ppm')
            img.save_ppm(path)
            back = sr.Image.load_ppm(path)
        self.assertEqual((back.width, back.height, back.pixels), (13, 7, img.pixels))

    def test_ppm_header_with_comments(self):
        raster = bytes([255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30])
        data = b'P6\n# QEMU screendump\n2 # width\n  2\n#maxval next\n255\n' + raster
        img = sr.Image.parse_ppm(data)
        self.assertEqual((img.width, img.height), (2, 2))
        self.assertEqual(img.pixel(1, 0), (0, 255, 0))
        self.assertEqual(img.pixel(1, 1), (10, 20, 30))
        # raster bytes that look like whitespace or '#' are not skipped
        img = sr.Image.parse_ppm(b'P6 1 1 255\n\n#\x20')
        self.assertEqual(img.pixel(0, 0), (10, 35, 32))

    def test_bad_ppm(self):
        for data in (b'P3\n1 1\n255\n000', b'P6\n1 1\n65535\n' + bytes(6),
                     b'P6\n2 2\n255\n' + bytes(11), b'P6\n1', b'P6\nx 1\n255\n000'):
            with self.assertRaises(ValueError, msg=data):
                sr.Image.parse_ppm(data)

    def test_helpers(self):
        img = sr.render_text(['Hi'], 64, 32, fg=(255, 255, 0), bg=(0, 0, 170))
        self.assertFalse(img.is_black())
        self.assertEqual(img.distinct_colors(step=1), 2)
        self.assertEqual(img.pixel(63, 31), (0, 0, 170))
        self.assertTrue(sr.Image(8, 8, bytes(192)).is_black())
        self.assertTrue(sr.Image(8, 8, b'\x0f' * 192).is_black())
        self.assertFalse(sr.Image(8, 8, b'\x10' * 192).is_black())
        part = img.crop(8, 0, 8, 16)
        self.assertEqual(sr.read_text(part), ['i'])
        self.assertEqual(part.pixel(0, 0), img.pixel(8, 0))
        with self.assertRaises(ValueError):
            img.crop(60, 0, 8, 16)
        with self.assertRaises(IndexError):
            img.pixel(64, 0)
        with self.assertRaises(ValueError):
            sr.Image(2, 2, bytes(11))


class ReadTextTest(unittest.TestCase):
    def round_trip(self, width, height, **kw):
        rng = random.Random(width * height)
        cols, rows = width // 8, height // 16
        lines = random_lines(rng, cols, rows)
        img = sr.render_text(lines, width, height, **kw)
        self.assertEqual(sr.read_text(img), lines)
        return img

    def test_resolutions(self):
        for w, h in ((1280, 800), (1024, 768), (800, 600), (1024, 600), (640, 480)):
            with self.subTest(size=(w, h)):
                self.assertEqual(len(sr.read_text(self.round_trip(w, h))), h // 16)

    def test_unturned(self):
        # fbcon's turns: text pixel (x, y) of a w x h text shows at
        # CW (H-1-y, x), UD (W-1-x, H-1-y), CCW (y, H-1-x) of the screen.
        w, h = 5, 3
        text = bytes(range(w * h * 3))
        for rotate in (1, 2, 3):
            sw, sh = (h, w) if rotate % 2 else (w, h)
            screen = bytearray(sw * sh * 3)
            for y in range(h):
                for x in range(w):
                    sx, sy = {1: (sw - 1 - y, x), 2: (sw - 1 - x, sh - 1 - y),
                              3: (y, sh - 1 - x)}[rotate]
                    screen[(sy * sw + sx) * 3:(sy * sw + sx) * 3 + 3] = \
                        text[(y * w + x) * 3:(y * w + x) * 3 + 3]
            with self.subTest(rotate=rotate):
                back = sr.Image(sw, sh, screen).unturned(rotate)
                self.assertEqual((back.width, back.height, back.pixels), (w, h, text))

    def test_panic_colours(self):
        for fg, bg in (((255, 255, 255), (170, 0, 0)), ((255, 255, 85), (0, 0, 170)),
                       ((0, 0, 0), (170, 170, 170)), ((85, 255, 85), (0, 0, 0))):
            with self.subTest(fg=fg, bg=bg):
                img = sr.render_text(PANIC, 800, 600, fg=fg, bg=bg)
                self.assertEqual(sr.read_text(img)[:len(PANIC)], PANIC)
                self.assertTrue(sr.find_text(img, 'Kernel panic - not syncing'))

    def test_all_printable(self):
        img = sr.render_text([PRINTABLE], 800, 16)
        self.assertEqual(sr.read_text(img), [PRINTABLE.rstrip()])

    def test_block_cursor(self):
        for col, ch in enumerate(PRINTABLE):
            img = sr.render_text([PRINTABLE], 800, 32, cursor=(col, 0, 'block'))
            self.assertEqual(sr.read_text(img)[0], PRINTABLE, msg='cursor on %r' % ch)
        img = sr.render_text(['$'], 80, 16, cursor=(1, 0, 'block'))   # on a blank cell
        self.assertEqual(sr.read_text(img), ['$'])
        self.assertEqual(img.pixel(8, 0), (170, 170, 170))

    def test_underline_cursor(self):
        for col, ch in enumerate(PRINTABLE):
            img = sr.render_text([PRINTABLE], 800, 16, cursor=(col, 0))
            self.assertEqual(sr.read_text(img)[0], PRINTABLE, msg='cursor on %r' % ch)
        img = sr.render_text(['login:'], 160, 16, cursor=(7, 0))
        self.assertEqual(img.pixel(56, 15), (170, 170, 170))
        self.assertEqual(sr.read_text(img), ['login:'])

    def test_underline_cursor_with_noise(self):
        # the slow (non-exact) path must also see through the underline
        for ch in 'gQ_x':
            img = sr.render_text([ch], 8, 16, fg=(255, 255, 255), bg=(0, 0, 170), cursor=(0, 0))
            img = set_pixel(img, 0, 0, (255, 255, 255))
            self.assertEqual(sr.read_text(img), [ch])

    def test_reverse_video_region(self):
        normal = sr.render_text(['normal text'], 160, 16)
        reverse = sr.render_text(['reverse'], 160, 16, fg=(0, 0, 0), bg=(170, 170, 170))
        rows = [normal.pixels[y * 480:(y + 1) * 480] for y in range(16)]
        rows += [reverse.pixels[y * 480:(y + 1) * 480] for y in range(16)]
        img = sr.Image(160, 32, b''.join(rows))
        self.assertEqual(sr.read_text(img), ['normal text', 'reverse'])

    def test_tolerance(self):
        img = sr.render_text(['ABC'], 24, 16)
        self.assertEqual(sr.read_text(set_pixel(img, 9, 1, (170, 170, 170))), ['ABC'])
        noisy = img
        for x, y in ((8, 0), (9, 1), (10, 0), (11, 1), (12, 0), (13, 1)):
            noisy = set_pixel(noisy, x, y, (170, 170, 170))
        self.assertEqual(sr.read_text(noisy), ['A?C'])
        self.assertEqual(sr.read_text(noisy, max_mismatch=6), ['ABC'])
        self.assertEqual(sr.read_text(noisy, unknown='#'), ['A#C'])
        # half a '.' is as close to '.' as to ' ': ambiguous, so unknown
        half = set_pixel(set_pixel(sr.render_text([''], 8, 16), 3, 10, (170, 170, 170)),
                         4, 10, (170, 170, 170))
        self.assertEqual(sr.read_text(half), ['?'])
        self.assertEqual(sr.read_text(set_pixel(half, 3, 11, (170, 170, 170))), ['.'])
        # a stray third colour counts as noise as well
        odd = set_pixel(set_pixel(img, 0, 0, (0, 255, 0)), 1, 0, (0, 255, 0))
        self.assertEqual(sr.read_text(odd), ['ABC'])

    def test_origin(self):
        inner = sr.render_text(['offset'], 64, 16, fg=(255, 255, 255))
        rows = [bytes(3 * 70)] * 5
        rows += [bytes(9) + inner.pixels[y * 192:(y + 1) * 192] + bytes(9) for y in range(16)]
        img = sr.Image(70, 21, b''.join(rows))
        self.assertEqual(sr.read_text(img, origin=(3, 5)), ['offset'])
        self.assertNotEqual(sr.read_text(img), ['offset'])

    def test_noise_is_not_text(self):
        rng = random.Random(42)
        img = sr.Image(1280, 800, rng.randbytes(1280 * 800 * 3))
        lines = sr.read_text(img)
        cells = ''.join(lines)
        self.assertGreater(cells.count('?'), 0.95 * 160 * 50)
        self.assertLess(sum(c.isalnum() for c in cells), 10)
        self.assertFalse(sr.find_text(img, 'Kernel panic'))
        # binary (two-colour) noise is not text either
        bw = bytes(rng.choice((0, 255)) for _ in range(320 * 64))
        img = sr.Image(320, 64, bytes(b for v in bw for b in (v, v, v)))
        self.assertGreater(sr.screen_text(img).count('?'), 0.95 * 40 * 4)

    def test_solid_colour_is_empty(self):
        for rgb in ((0, 0, 0), (170, 0, 0), (255, 255, 255)):
            img = sr.Image(1024, 768, bytes(rgb) * (1024 * 768))
            self.assertEqual(sr.read_text(img), [''] * 48)
            self.assertEqual(sr.screen_text(img).strip(), '')

    def test_find_and_contains(self):
        img = sr.render_text(PANIC, 1024, 768)
        self.assertTrue(sr.contains_all(img, ['Call Trace:', 'end Kernel panic']))
        self.assertFalse(sr.contains_all(img, ['Call Trace:', 'Oops']))
        self.assertFalse(sr.find_text(img, 'kernel Panic'))
        self.assertEqual(sr.screen_text(img).split('\n')[:len(PANIC)], PANIC)

    def test_render_clips_and_encodes(self):
        img = sr.render_text(['x' * 20, 'é█x€', 'gone'], 80, 32)
        # é is cp437 0x82, not ASCII: '?'; the solid █ reads as a block cursor
        # on a blank; € is not in cp437 and is drawn as '?'
        self.assertEqual(sr.read_text(img), ['x' * 10, '? x?'])
        self.assertEqual(img.pixel(9, 16 + 8), (170, 170, 170))

    def test_speed(self):
        lines = random_lines(random.Random(1), 160, 50)
        img = sr.render_text(lines, 1280, 800)
        start = time.perf_counter()
        result = sr.read_text(img)
        elapsed = time.perf_counter() - start
        self.assertEqual(result, lines)
        self.assertLess(elapsed, 3.0)

    def test_cli(self):
        img = sr.render_text(PANIC, 640, 160)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, 'shot.ppm')
            img.save_ppm(path)
            out = subprocess.run([sys.executable, sr.__file__, path], check=True,
                                 stdout=subprocess.PIPE, text=True).stdout
        self.assertEqual(out.split('\n')[:3], [line[:80] for line in PANIC[:3]])


# ---------------------------------------------------------------- PSF fonts

FONT_DIR = '/usr/share/consolefonts'
FONT_PACKAGE = 'console-setup-linux'
# name: (format, glyphs, width, height); the name's 32x16 is height x width
PSF_FONTS = {
    'Lat15-Fixed16': ('PSF1', 256, 8, 16),
    'Uni2-Fixed16': ('PSF1', 512, 8, 16),
    'Uni2-TerminusBold32x16': ('PSF2', 512, 16, 32),
}


def psf1_bytes(font, mode=0x02):
    """A PSF1 file of an 8-pixel-wide font, with its unicode table if mode has one."""
    out = [bytes([0x36, 0x04, mode | (len(font.glyphs) == 512), font.height]), font.data]
    if mode & 0x06:
        for strings in font.chars:
            codes = [ord(s) for s in strings if len(s) == 1]
            for seq in (s for s in strings if len(s) > 1):
                codes += [0xfffe] + [ord(c) for c in seq]
            out.append(struct.pack('<%dH' % (len(codes) + 1), *codes, 0xffff))
    return b''.join(out)


def psf2_bytes(font, table=True):
    """A PSF2 file of the font, with its unicode table if table."""
    size = len(font.glyphs[0])
    out = [struct.pack('<8I', 0x864ab572, 0, 32, int(table), len(font.glyphs), size,
                       font.height, font.width), font.data]
    if table:
        for strings in font.chars:
            out.append(''.join(s for s in strings if len(s) == 1).encode())
            out += [b'\xfe' + s.encode() for s in strings if len(s) > 1]
            out.append(b'\xff')
    return b''.join(out)


def random_font(rng, width, height):
    """256 random glyphs (cp437), with random bits past width in each row."""
    return sr.Font(rng.randbytes(256 * (width + 7) // 8 * height), width, height)


def cell_bits(img, font, col, row, fg):
    """The bitmap of one cell: its fg pixels, packed as Font.bits."""
    bits = 0
    for y in range(font.height):
        for x in range(font.width):
            px = img.pixel(col * font.width + x, row * font.height + y)
            bits = bits << 1 | (px == tuple(fg))
    return bits


class PsfTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.paths = {}
        for name in PSF_FONTS:
            path = os.path.join(FONT_DIR, name + '.psf.gz')
            if not os.path.isfile(path):
                raise AssertionError('%s is missing: install the Debian package %s (make deps)'
                                     % (path, FONT_PACKAGE))
            cls.paths[name] = path
        cls.fonts = {name: sr.load_psf(path) for name, path in cls.paths.items()}

    def all_fonts(self):
        return [('font_8x16', sr.load_font())] + sorted(self.fonts.items())

    def test_formats(self):
        for name, (fmt, count, width, height) in PSF_FONTS.items():
            with self.subTest(font=name):
                with gzip.open(self.paths[name]) as f:
                    head = f.read(4)
                self.assertEqual(head[:2] == b'\x36\x04', fmt == 'PSF1')
                self.assertEqual(head == struct.pack('<I', 0x864ab572), fmt == 'PSF2')
                font = self.fonts[name]
                self.assertEqual((len(font.glyphs), font.width, font.height),
                                 (count, width, height))
                self.assertEqual(len(font.glyphs[0]), (width + 7) // 8 * height)
                # console-setup's tables: ASCII at its own index, one glyph
                # for look-alikes, U+FFFD on glyph 4
                for c in PRINTABLE:
                    self.assertEqual(font.index[c], ord(c))
                self.assertEqual(font.index['\u0410'], ord('A'))    # Cyrillic A
                self.assertEqual(font.index['\u0391'], ord('A'))    # Greek Alpha
                self.assertEqual(font.glyph_index('\u4e00'), 4)     # not in the font: U+FFFD
                self.assertEqual(font.identical_printable(), [])
                self.assertEqual(len(font.printable), 95)

    def test_round_trip(self):
        for name, font in self.all_fonts():
            with self.subTest(font=name):
                cols, rows = 1280 // font.width, 800 // font.height
                self.assertEqual((cols, rows), (80, 25) if font.width == 16 else (160, 50))
                lines = printable_screen(random.Random(cols), cols, rows)
                img = sr.render_text(lines, 1280, 800, font=font)
                self.assertEqual(sr.read_text(img, font=font), lines)
                self.assertTrue(sr.contains_all(img, [PRINTABLE[:cols]], font=font))

    def test_cursors(self):
        for name, font in self.all_fonts():
            width = len(PRINTABLE) * font.width
            for kind in ('underline', 'block'):
                with self.subTest(font=name, cursor=kind):
                    for col, ch in enumerate(PRINTABLE):
                        img = sr.render_text([PRINTABLE], width, font.height, font=font,
                                             cursor=(col, 0, kind))
                        self.assertEqual(sr.read_text(img, font=font), [PRINTABLE],
                                         msg='cursor on %r' % ch)
                    # on a blank cell at the end of a line: the bottom two
                    # rows (1 if height < 10) or the whole cell
                    img = sr.render_text(['$'], 4 * font.width, font.height, font=font,
                                         cursor=(1, 0, kind))
                    self.assertEqual(sr.read_text(img, font=font), ['$'])
                    rows = font.height if kind == 'block' else 2
                    self.assertEqual(cell_bits(img, font, 1, 0, (170, 170, 170)),
                                     (1 << rows * font.width) - 1)
            with self.subTest(font=name, screen='1280x800'):
                lines = printable_screen(random.Random(3), 1280 // font.width, 800 // font.height)
                for cursor in ((5, 0), (0, 7, 'block'), (3, 20)):
                    img = sr.render_text(lines, 1280, 800, font=font, cursor=cursor)
                    self.assertEqual(sr.read_text(img, font=font), lines)

    def test_underline_cursor_with_noise(self):
        font = self.fonts['Uni2-TerminusBold32x16']
        for ch in 'gQ_x':
            img = sr.render_text([ch], 16, 32, fg=(255, 255, 255), bg=(0, 0, 170),
                                 cursor=(0, 0), font=font)
            img = set_pixel(img, 0, 0, (255, 255, 255))
            self.assertEqual(sr.read_text(img, font=font), [ch])

    def test_any_size(self):
        # random glyphs with garbage past the width: 1..32 wide and high,
        # a one-row underline below 10 rows
        rng = random.Random(5)
        for width, height in ((5, 8), (12, 20), (9, 9), (32, 32), (3, 6)):
            with self.subTest(size=(width, height)):
                font = random_font(rng, width, height)
                img = sr.render_text([''], width, height, font=font, cursor=(0, 0))
                self.assertEqual(cell_bits(img, font, 0, 0, (170, 170, 170)) ^ font.bits[32],
                                 (1 << width * (1 if height < 10 else 2)) - 1)
                cols, rows = 640 // width, 200 // height
                lines = printable_screen(rng, cols, rows)
                for cursor in (None, (2, 1), (3, 1, 'block')):
                    img = sr.render_text(lines, 640, 200, font=font, cursor=cursor)
                    self.assertEqual(sr.read_text(img, font=font), lines)

    def test_bit_layout(self):
        # 12 pixels wide: each row two bytes, leftmost pixel in the top bit of
        # the first; the last 4 bits of a row are not drawn
        data = bytearray(256 * 2 * 10)
        a = ord('A') * 20
        data[a + 3 * 2:a + 3 * 2 + 2] = b'\x00\x40'      # pixel (9, 3)
        data[a + 5 * 2:a + 5 * 2 + 2] = b'\x80\x0f'      # pixel (0, 5) and padding
        font = sr.Font(bytes(data), 12, 10)
        img = sr.render_text(['A'], 12, 10, font=font, fg=(255, 255, 255))
        ink = [(x, y) for y in range(10) for x in range(12) if img.pixel(x, y) != (0, 0, 0)]
        self.assertEqual(ink, [(9, 3), (0, 5)])
        pixel = lambda x, y: 1 << 10 * 12 - 1 - (y * 12 + x)   # noqa: E731
        self.assertEqual(font.bits[ord('A')], pixel(9, 3) | pixel(0, 5))

    def test_psf_files(self):
        lat = self.fonts['Lat15-Fixed16']
        with tempfile.TemporaryDirectory() as d:
            # plain, not gzipped
            plain = os.path.join(d, 'Lat15-Fixed16.psf')
            with gzip.open(self.paths['Lat15-Fixed16']) as f, open(plain, 'wb') as out:
                out.write(f.read())
            font = sr.load_psf(plain)
            self.assertEqual((font.data, font.chars), (lat.data, lat.chars))
            # written back both ways, a sequence added to glyph 'A'
            chars = list(lat.chars)
            chars[65] += ('A\u0301',)
            seq = sr.Font(lat.data, 8, 16, chars)
            for data in (psf1_bytes(seq), psf2_bytes(seq), gzip.compress(psf2_bytes(seq))):
                font = sr.parse_psf(data)
                self.assertEqual((font.data, font.chars, font.index), (seq.data, seq.chars, lat.index))
            # the PSF2 font written as PSF2 again
            term = self.fonts['Uni2-TerminusBold32x16']
            font = sr.parse_psf(psf2_bytes(term))
            self.assertEqual((font.data, font.chars), (term.data, term.chars))
        # no unicode table: cp437, like font_8x16
        builtin = sr.load_font()
        for data in (psf1_bytes(builtin, mode=0), psf2_bytes(builtin, table=False)):
            font = sr.parse_psf(data)
            self.assertEqual((font.bits, font.index), (builtin.bits, builtin.index))
            img = sr.render_text(PANIC, 800, 160, font=font)
            self.assertEqual(sr.read_text(img)[:len(PANIC)], PANIC)
        # a 512-glyph PSF1 keeps its 512 glyphs
        uni = self.fonts['Uni2-Fixed16']
        self.assertEqual(sr.parse_psf(psf1_bytes(uni)).data, uni.data)

    def test_bad_psf(self):
        good = psf1_bytes(self.fonts['Lat15-Fixed16'])
        for data in (b'', b'\x36\x05' + good[2:], good[:4 + 100], good[:-2],
                     psf2_bytes(self.fonts['Uni2-TerminusBold32x16'])[:-10],
                     psf2_bytes(self.fonts['Uni2-TerminusBold32x16'])[:24] + bytes(8)):
            with self.assertRaises(ValueError, msg=data[:40]):
                sr.parse_psf(data)

    def test_render_encodes_unicode(self):
        fg = (170, 170, 170)
        uni = self.fonts['Uni2-Fixed16']
        # look-alikes share ASCII's glyph and read as ASCII
        img = sr.render_text(['A\u0410\u0391 K\u212a'], 80, 16, font=uni)
        self.assertEqual(sr.read_text(img, font=uni), ['AAA KK'])
        # beyond glyph 255; anything else is drawn as the font's U+FFFD
        high = min(c for c, i in uni.index.items() if i >= 256)
        img = sr.render_text([high + 'é\u4e00'], 80, 16, font=uni)
        for col, glyph in enumerate((uni.index[high], uni.index['é'], 4)):
            self.assertEqual(cell_bits(img, uni, col, 0, fg), uni.bits[glyph])
        self.assertEqual(sr.read_text(img, font=uni, max_mismatch=0), ['???'])
        # é is 'e' and an accent of a few pixels: within the default max_mismatch
        self.assertEqual(sr.read_text(img, font=uni), ['?e?'])
        term = self.fonts['Uni2-TerminusBold32x16']
        img = sr.render_text(['\u2500\u2502 ok'], 160, 32, font=term)
        self.assertEqual(cell_bits(img, term, 1, 0, fg), term.bits[term.index['\u2502']])
        self.assertEqual(sr.read_text(img, font=term), ['?? ok'])

    def test_speed(self):
        font = self.fonts['Uni2-TerminusBold32x16']
        lines = random_lines(random.Random(2), 80, 25)
        img = sr.render_text(lines, 1280, 800, font=font)
        start = time.perf_counter()
        result = sr.read_text(img, font=font)
        elapsed = time.perf_counter() - start
        self.assertEqual(result, lines)
        self.assertLess(elapsed, 3.0)

    def test_cli_font(self):
        font = self.fonts['Uni2-TerminusBold32x16']
        img = sr.render_text(PANIC, 1280, 160, font=font)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, 'shot.ppm')
            img.save_ppm(path)
            out = subprocess.run([sys.executable, sr.__file__, '--font',
                                  self.paths['Uni2-TerminusBold32x16'], path], check=True,
                                 stdout=subprocess.PIPE, text=True).stdout
        self.assertEqual(out.split('\n')[:3], PANIC[:3])


if __name__ == '__main__':
    unittest.main()
