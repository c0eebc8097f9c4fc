#!/usr/bin/env python3
"""Unit tests for tests/lib/screenreader.py (fbcon screendump text reader).

Run from the repository root:
    python3 -m unittest tests/host/test_screenreader.py -v
"""

import io
import os
import random
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


if __name__ == '__main__':
    unittest.main()
