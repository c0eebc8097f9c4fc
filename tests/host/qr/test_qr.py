#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests for the panic QR encoder (panic/qr.c).

Builds tests/host/qr/qrgen.c with panic/qr.c, encodes many inputs and decodes
every image with zbarimg (Debian package zbar-tools), which must give back
exactly the bytes that went in. Also checks the capacity table against ISO/IEC
18004 table 7, the argument errors, the format information in the symbols
and the encoder's worst-case stack depth.

Run from the top of the tree: python3 tests/host/qr/test_qr.py
A missing zbarimg or compiler is a failure, never a skip.
"""

import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
QR_C = os.path.join(ROOT, "panic", "qr.c")
QRGEN_C = os.path.join(HERE, "qrgen.c")

# Byte-mode capacity at level L for versions 1..40 (ISO/IEC 18004, table 7).
CAPACITY_L = [
    17, 32, 53, 78, 106, 134, 154, 192, 230, 271,
    321, 367, 425, 458, 520, 586, 644, 718, 792, 858,
    929, 1003, 1091, 1171, 1273, 1367, 1465, 1528, 1628, 1732,
    1840, 1952, 2068, 2188, 2303, 2431, 2563, 2699, 2809, 2953,
]
MAX_BYTES = 2953

# Worst-case stack of kmsvt_qr_encode() and its callees, in bytes.
STACK_LIMIT = 1024

TMP = None
QRGEN = None
ZBARIMG = None


def setUpModule():
    global TMP, QRGEN, ZBARIMG
    ZBARIMG = shutil.which("zbarimg")
    if not ZBARIMG:
        raise RuntimeError("zbarimg not found: apt-get install zbar-tools")
    cc = shutil.which("cc")
    if not cc:
        raise RuntimeError("no C compiler (cc) found")
    TMP = tempfile.mkdtemp(prefix="kmsvt-qr-")
    QRGEN = os.path.join(TMP, "qrgen")
    subprocess.run([cc, "-O2", "-Wall", "-Wextra", "-Werror", "-I", ROOT, "-o", QRGEN,
                    QRGEN_C, QR_C], check=True)


def tearDownModule():
    if TMP:
        shutil.rmtree(TMP, ignore_errors=True)


_counter = [0]


def encode(data, scale=3, border=4, extra=()):
    """Run qrgen; return (returncode, stdout, stderr, image path)."""
    _counter[0] += 1
    path = os.path.join(TMP, "qr%d.pgm" % _counter[0])
    p = subprocess.run([QRGEN, "-s", str(scale), "-b", str(border), "-o", path,
                        *extra], input=data, capture_output=True)
    return p.returncode, p.stdout.decode(), p.stderr.decode(), path


def decode(path):
    """Decode an image with zbarimg; return the raw bytes of the symbol."""
    p = subprocess.run([ZBARIMG, "--nodbus", "--raw", "-q", "-Sbinary", path],
                       capture_output=True)
    if p.returncode != 0:
        raise AssertionError("zbarimg could not decode %s (rc %d): %s"
                             % (path, p.returncode, p.stderr.decode()[-300:]))
    return p.stdout


def read_pgm(path):
    with open(path, "rb") as f:
        raw = f.read()
    m = re.match(rb"P5\s+(\d+)\s+(\d+)\s+255\s", raw)
    assert m, "not a binary PGM"
    w, h = int(m.group(1)), int(m.group(2))
    pix = raw[m.end():]
    assert len(pix) == w * h
    return w, h, pix


def modules_of(path, scale, border):
    """The module grid of an image written by qrgen, True = dark."""
    w, h, pix = read_pgm(path)
    assert w == h and w % scale == 0
    size = w // scale - 2 * border
    grid = [[pix[((border + y) * scale) * w + (border + x) * scale] == 0
             for x in range(size)] for y in range(size)]
    # The quiet zone is light.
    for y in range(h):
        for x in range(w):
            mx, my = x // scale - border, y // scale - border
            if not (0 <= mx < size and 0 <= my < size):
                assert pix[y * w + x] == 255, "dark pixel in the quiet zone"
    return grid


def format_info(grid):
    """(ecc level bits, mask) from both copies of the format information."""
    size = len(grid)

    def bits(cells):
        v = 0
        for i, (x, y) in enumerate(cells):
            v |= grid[y][x] << i
        return v

    first = [(8, i) for i in range(6)] + [(8, 7), (8, 8), (7, 8)] + \
        [(14 - i, 8) for i in range(9, 15)]
    second = [(size - 1 - i, 8) for i in range(8)] + \
        [(8, size - 15 + i) for i in range(8, 15)]
    a, b = bits(first), bits(second)
    assert a == b, "format information copies differ"
    data = (a ^ 0x5412) >> 10
    assert grid[size - 8][8], "dark module missing"
    return data >> 3, data & 7


def kernel_log(n, seed=1):
    """Something that looks like dmesg output, exactly n bytes."""
    rnd = random.Random(seed)
    words = ["BUG:", "kernel", "NULL", "pointer", "dereference,", "address:",
             "RIP:", "0010:kmsvt_panic_draw+0x4f/0x1a0", "[kmsvt]", "Call",
             "Trace:", "<TASK>", "</TASK>", "RSP:", "0018:ffffb3c1c0013e48",
             "EFLAGS:", "00010246", "Oops:", "0002", "[#1]", "PREEMPT", "SMP",
             "NOPTI", "CPU:", "1", "PID:", "4242", "Comm:", "bash", "Tainted:",
             "G", "O", "6.1.0-57-amd64", "Hardware", "name:", "QEMU",
             "Standard", "PC", "(i440FX", "+", "PIIX,", "1996)", "---[", "end",
             "trace", "]---", "Kernel", "panic", "-", "not", "syncing:",
             "Fatal", "exception", "{", "}", "\\", "%", "~", "|", "\t"]
    out = []
    t = 0.0
    while sum(len(s) for s in out) < n:
        t += rnd.random()
        line = "[%12.6f] " % t + " ".join(
            rnd.choice(words) for _ in range(rnd.randint(1, 12)))
        out.append(line + "\n")
    return "".join(out).encode()[:n]


class TestHelpers(unittest.TestCase):
    def test_selftest(self):
        p = subprocess.run([QRGEN, "-t"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "ok")

    def test_capacity_table(self):
        p = subprocess.run([QRGEN, "-c"], capture_output=True, text=True,
                           check=True)
        rows = [tuple(map(int, line.split())) for line in p.stdout.splitlines()]
        self.assertEqual([r[0] for r in rows], list(range(1, 41)))
        self.assertEqual([r[1] for r in rows], CAPACITY_L)
        self.assertEqual(rows[-1][2], 11329)  # KMSVT_QR_WORK_LEN
        # Work buffer: function bitmap plus two copies of the codewords.
        for v, _, work in rows:
            size = 4 * v + 17
            self.assertGreater(work, (size * size + 7) // 8)
            self.assertLessEqual(work, rows[-1][2])

    def test_too_long(self):
        for n in (MAX_BYTES + 1, MAX_BYTES + 100, 10000):
            rc, out, err, _ = encode(b"x" * n)
            self.assertEqual(rc, 2, out + err)
            self.assertIn("E2BIG", err)

    def test_small_work_buffer(self):
        for n, v in ((17, 1), (18, 2), (MAX_BYTES, 40)):
            need = int(subprocess.run([QRGEN, "-c"], capture_output=True,
                                      text=True).stdout.splitlines()[v - 1]
                       .split()[2])
            rc, _, err, _ = encode(b"a" * n, extra=("-w", str(need - 1)))
            self.assertEqual(rc, 2)
            self.assertIn("ENOSPC", err)
            rc, out, err, _ = encode(b"a" * n, extra=("-w", str(need)))
            self.assertEqual(rc, 0, err)
            self.assertEqual(out.split(), ["size", str(4 * v + 17),
                                           "version", str(v)])


class TestDecode(unittest.TestCase):
    """Every symbol must decode, with zbarimg, to exactly its input."""

    def check_all(self, cases, scale=3, border=4):
        def one(item):
            name, data, version = item
            rc, out, err, path = encode(data, scale, border)
            if rc != 0:
                return name, "qrgen failed (%d): %s" % (rc, err), None
            m = re.match(r"size (\d+) version (\d+)", out)
            if version is not None and int(m.group(2)) != version:
                return name, "version %s, want %d" % (m.group(2), version), None
            try:
                got = decode(path)
            except AssertionError as e:
                return name, str(e), None
            if got != data:
                return name, "decoded %d bytes %r..., want %d bytes %r..." % (
                    len(got), got[:40], len(data), data[:40]), None
            level, mask = format_info(modules_of(path, scale, border))
            if level != 1:
                return name, "ecc level bits %d, want 1 (L)" % level, None
            os.unlink(path)
            return name, None, mask

        masks = set()
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
            for name, problem, mask in ex.map(one, cases):
                with self.subTest(case=name):
                    self.assertIsNone(problem, problem)
                    masks.add(mask)
        return masks

    def test_short_strings(self):
        texts = [b"", b"a", b"Hello, world!", b"0123456789", b"HELLO WORLD",
                 b"https://example.org/panic?x=1&y=2", b"  spaces  ",
                 b"tab\there", b"line\nbreak\n", b"\n", b"\r\n\r\n",
                 "Grüße, 日本語, ☃".encode(), b"\x00", b"\xff" * 5,
                 b"[    0.000000] Linux version 6.1.0"]
        self.check_all([("short %r" % t, t, None) for t in texts])

    def test_capacity_boundaries(self):
        cases = []
        for v, cap in enumerate(CAPACITY_L, 1):
            for n in (cap - 1, cap, cap + 1):
                if n > MAX_BYTES:
                    continue
                want = v if n <= cap else v + 1
                data = kernel_log(n, seed=n)
                cases.append(("len %d" % n, data, want))
        masks = self.check_all(cases)
        # Across this many symbols, every mask should win at least once.
        self.assertEqual(masks, set(range(8)))

    def test_binary(self):
        rnd = random.Random(18004)
        cases = [("all bytes", bytes(range(256)), None),
                 ("zeros", bytes(300), None),
                 ("ones", b"\xff" * 300, None),
                 ("max random", bytes(rnd.randrange(256)
                                      for _ in range(MAX_BYTES)), 40)]
        for i in range(20):
            n = rnd.randint(1, MAX_BYTES)
            cases.append(("random %d" % n,
                          bytes(rnd.randrange(256) for _ in range(n)), None))
        self.check_all(cases)

    def test_kernel_log(self):
        cases = [("log %d" % n, kernel_log(n, seed=n), None)
                 for n in (100, 500, 1000, 2000, MAX_BYTES)]
        self.check_all(cases)

    def test_max_at_panic_scale(self):
        # What the panic screen draws: 2 pixels per module, 4-module border.
        data = kernel_log(MAX_BYTES, seed=7)
        self.check_all([("max scale 2", data, 40)], scale=2)
        self.check_all([("max ascii", b"A" * MAX_BYTES, 40)], scale=2)


class TestStack(unittest.TestCase):
    def test_stack_depth(self):
        """Deepest call chain from kmsvt_qr_encode, from gcc's call graph."""
        for opt in ("-O0", "-O2", "-Os"):
            with self.subTest(opt=opt):
                obj = os.path.join(TMP, "qr%s.o" % opt)
                subprocess.run(["cc", opt, "-fcallgraph-info=su", "-c", QR_C,
                                "-o", obj], check=True, cwd=TMP)
                ci = obj[:-2] + ".ci"
                with open(ci) as f:
                    text = f.read()
                frames, edges = {}, {}
                for m in re.finditer(r'node: \{ title: "([^"]+)" label: "([^"]*)"',
                                     text):
                    s = re.search(r"(\d+) bytes \((\w+)\)", m.group(2))
                    if s:
                        self.assertEqual(s.group(2), "static",
                                         "dynamic stack in " + m.group(1))
                        frames[m.group(1).split(":")[-1]] = int(s.group(1))
                for m in re.finditer(r'edge: \{ sourcename: "([^"]+)" '
                                     r'targetname: "([^"]+)"', text):
                    edges.setdefault(m.group(1).split(":")[-1], set()).add(
                        m.group(2).split(":")[-1])

                def depth(fn, seen):
                    # The graph is small and must be acyclic (no recursion).
                    self.assertNotIn(fn, seen, "recursion through " + fn)
                    callees = edges.get(fn, ())
                    deepest = max((depth(c, seen | {fn}) for c in callees),
                                  default=0)
                    # Library calls (memset, memcpy) count as 64 bytes.
                    return frames.get(fn, 64) + deepest

                total = depth("kmsvt_qr_encode", frozenset())
                print("stack %s: %d bytes" % (opt, total), file=sys.stderr)
                self.assertLess(total, STACK_LIMIT)
                libs = {c for cs in edges.values() for c in cs} - set(frames)
                self.assertLessEqual(libs, {"memset", "memcpy"})


if __name__ == "__main__":
    unittest.main(verbosity=2)
