#!/usr/bin/env python3
"""Convert a screendump (PPM) to PNG, for looking at it: ppm2png.py in.ppm out.png"""
import struct
import sys
import zlib

from screenreader import Image


def to_png(img, path):
    row = img.width * 3
    raw = b"".join(b"\x00" + img.pixels[y * row:(y + 1) * row] for y in range(img.height))

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    hdr = struct.pack(">IIBBBBB", img.width, img.height, 8, 2, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", hdr) + chunk(b"IDAT", zlib.compress(raw))
                + chunk(b"IEND", b""))


if __name__ == "__main__":
    to_png(Image.load_ppm(sys.argv[1]), sys.argv[2])
