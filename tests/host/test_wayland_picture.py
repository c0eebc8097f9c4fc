"""Unit tests for tests/lib/wayland.py's picture check (covers()): the
guest test reads each session by its colour over the whole screen, so the
check must refuse a black, wrong-sized, other-coloured or half-drawn
screen, and take one with a cursor over it.

    python3 -m unittest tests/host/test_wayland_picture.py -v
"""
import unittest

import wayland
from screenreader import Image

RGB = (0x80, 0x20, 0x20)
W, H = wayland.SIZE


def screen(rgb=RGB, size=wayland.SIZE, block=None, block_rgb=(0, 0, 0)):
    """A screen all rgb but for a block (w, h) of block_rgb at its centre."""
    w, h = size
    px = bytearray(bytes(rgb) * (w * h))
    if block:
        bw, bh = block
        for y in range(h // 2, h // 2 + bh):
            start = (y * w + w // 2) * 3
            px[start:start + bw * 3] = bytes(block_rgb) * bw
    return Image(w, h, bytes(px))


class CoversTest(unittest.TestCase):
    def test_whole_screen(self):
        self.assertTrue(wayland.covers(screen(), RGB))

    def test_cursor_allowed(self):
        self.assertTrue(wayland.covers(screen(block=(64, 64)), RGB))

    def test_more_than_a_cursor_refused(self):
        self.assertFalse(wayland.covers(screen(block=(64, 65)), RGB))

    def test_black_refused(self):
        self.assertFalse(wayland.covers(screen(rgb=(0, 0, 0)), RGB))

    def test_other_session_refused(self):
        self.assertFalse(wayland.covers(screen(rgb=(0x20, 0x80, 0x20)), RGB))

    def test_half_stale_refused(self):
        # The top half still shows the previous session's picture.
        self.assertFalse(wayland.covers(screen(block=(W // 2, H // 2),
                                               block_rgb=(0x20, 0x20, 0x80)), RGB))

    def test_other_size_refused(self):
        self.assertFalse(wayland.covers(screen(size=(1024, 768)), RGB))

    def test_describe_names_the_colour(self):
        self.assertIn("#802020", wayland.describe(screen()))


if __name__ == "__main__":
    unittest.main()
