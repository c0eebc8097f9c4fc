#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests for the panic QR encoder (panic/qr.c) and the QR screen.

Builds tests/host/qr/qrgen.c with panic/qr.c, encodes many inputs and decodes
every image with zbarimg (Debian package zbar-tools), which must give back
exactly the bytes that went in. Also checks the capacity table against ISO/IEC
18004 table 7, the argument errors, the format information in the symbols,
the mask each symbol got against the penalty rules computed here module by
module, and the encoder's worst-case stack depth.

The screen: tests/host/qr/qrscreen.c builds panic/screens.c, log.c and qr.c
unchanged against kshim.h (a few of the kernel's names, VRAM as memory) and
draws the QR screen and the log-and-QR screen from a panic's log, at several
sizes and 32, 16 and 8 bits a pixel: every pixel must be drawn, the QR code's
modules whole squares and the code must decode.

Run from the top of the tree: python3 -m unittest tests/host/qr/test_qr.py -v
A missing zbarimg, compiler or font is a failure, never a skip.
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

import screenreader

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
QR_C = os.path.join(ROOT, "panic", "qr.c")
QRGEN_C = os.path.join(HERE, "qrgen.c")
QRSCREEN_C = os.path.join(HERE, "qrscreen.c")
KSHIM_H = os.path.join(HERE, "kshim.h")
SCREEN_SOURCES = [os.path.join(ROOT, "panic", f) for f in ("screens.c", "log.c", "qr.c")]

# Byte-mode capacity at level L for versions 1..40 (ISO/IEC 18004, table 7).
CAPACITY_L = [
    17, 32, 53, 78, 106, 134, 154, 192, 230, 271,
    321, 367, 425, 458, 520, 586, 644, 718, 792, 858,
    929, 1003, 1091, 1171, 1273, 1367, 1465, 1528, 1628, 1732,
    1840, 1952, 2068, 2188, 2303, 2431, 2563, 2699, 2809, 2953,
]
MAX_BYTES = 2953


def total_codewords(v):
    """Data and ECC codewords of version v (ISO/IEC 18004, table 1)."""
    n = (16 * v + 128) * v + 64
    if v >= 2:
        a = v // 7 + 2
        n -= (25 * a - 10) * a - 55
        if v >= 7:
            n -= 36
    return n // 8


# Row and column coordinates of the alignment patterns (ISO/IEC 18004,
# table E.1), by version.
ALIGNMENT = [
    [], [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34],
    [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50], [6, 30, 54], [6, 32, 58],
    [6, 34, 62], [6, 26, 46, 66], [6, 26, 48, 70], [6, 26, 50, 74], [6, 30, 54, 78],
    [6, 30, 56, 82], [6, 30, 58, 86], [6, 34, 62, 90], [6, 28, 50, 72, 94],
    [6, 26, 50, 74, 98], [6, 30, 54, 78, 102], [6, 28, 54, 80, 106],
    [6, 32, 58, 84, 110], [6, 30, 58, 86, 114], [6, 34, 62, 90, 118],
    [6, 26, 50, 74, 98, 122], [6, 30, 54, 78, 102, 126], [6, 26, 52, 78, 104, 130],
    [6, 30, 56, 82, 108, 134], [6, 34, 60, 86, 112, 138], [6, 30, 58, 86, 114, 142],
    [6, 34, 62, 90, 118, 146], [6, 30, 54, 78, 102, 126, 150],
    [6, 24, 50, 76, 102, 128, 154], [6, 28, 54, 80, 106, 132, 158],
    [6, 32, 58, 84, 110, 136, 162], [6, 26, 54, 82, 110, 138, 166],
    [6, 30, 58, 86, 114, 142, 170],
]

# Worst-case stack of kmsvt_qr_encode() and its callees, in bytes.
STACK_LIMIT = 1024

TMP = None
QRGEN = None
QRSCREEN = None
ZBARIMG = None


def kernel_header_stubs(top):
    """Empty files under top for the <linux/...> and <drm/...> headers the
    panic sources include: kshim.h, forced in, stands for all of them.
    <linux/errno.h> passes on to the host's, which glibc's errno.h uses."""
    names = set()
    for path in SCREEN_SOURCES + [os.path.join(ROOT, "panic", f) for f in os.listdir(
            os.path.join(ROOT, "panic")) if f.endswith(".h")] + [
            os.path.join(ROOT, "draw", "draw.h")]:
        with open(path) as f:
            names.update(re.findall(r"^#include <((?:linux|drm)/[\w/]+\.h)>", f.read(), re.M))
    for name in names:
        os.makedirs(os.path.dirname(os.path.join(top, name)), exist_ok=True)
        with open(os.path.join(top, name), "w") as f:
            if name == "linux/errno.h":
                f.write("#include_next <linux/errno.h>\n")


def setUpModule():
    global TMP, QRGEN, QRSCREEN, ZBARIMG
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
    # The kernel's own warning level (-Wall) for the kernel's sources.
    stubs = os.path.join(TMP, "kstubs")
    kernel_header_stubs(stubs)
    QRSCREEN = os.path.join(TMP, "qrscreen")
    subprocess.run([cc, "-O2", "-Wall", "-Werror", "-D__KERNEL__", "-include", KSHIM_H,
                    "-I", stubs, "-I", ROOT, "-o", QRSCREEN, QRSCREEN_C] + SCREEN_SOURCES,
                   check=True)


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

    first, second = format_cells(size)
    a, b = bits(first), bits(second)
    assert a == b, "format information copies differ"
    data = (a ^ 0x5412) >> 10
    assert grid[size - 8][8], "dark module missing"
    return data >> 3, data & 7


def function_modules(version):
    """The function modules of a symbol (finders and separators, timing,
    alignment, format and version information, the dark module), from the
    standard's layout: func[y][x]."""
    size = 4 * version + 17
    func = [[False] * size for _ in range(size)]

    def square(cx, cy, r):
        for y in range(cy - r, cy + r + 1):
            for x in range(cx - r, cx + r + 1):
                if 0 <= x < size and 0 <= y < size:
                    func[y][x] = True

    for i in range(size):
        func[6][i] = func[i][6] = True
    for cx, cy in ((3, 3), (size - 4, 3), (3, size - 4)):
        square(cx, cy, 4)
    pos = ALIGNMENT[version]
    for cy in pos:
        for cx in pos:
            if (cx, cy) not in ((6, 6), (pos[-1], 6), (6, pos[-1])):
                square(cx, cy, 2)
    for i in range(9):
        func[8][i] = func[i][8] = True
    for i in range(8):
        func[8][size - 1 - i] = func[size - 1 - i][8] = True
    if version >= 7:
        for i in range(6):
            for j in range(size - 11, size - 8):
                func[i][j] = func[j][i] = True
    return func


MASKS = [
    lambda x, y: (x + y) % 2 == 0,
    lambda x, y: y % 2 == 0,
    lambda x, y: x % 3 == 0,
    lambda x, y: (x + y) % 3 == 0,
    lambda x, y: (x // 3 + y // 2) % 2 == 0,
    lambda x, y: x * y % 2 + x * y % 3 == 0,
    lambda x, y: (x * y % 2 + x * y % 3) % 2 == 0,
    lambda x, y: ((x + y) % 2 + x * y % 3) % 2 == 0,
]


def format_cells(size):
    """The two copies of the format information, bit 0 first: (x, y)."""
    first = [(8, i) for i in range(6)] + [(8, 7), (8, 8), (7, 8)] + \
        [(14 - i, 8) for i in range(9, 15)]
    second = [(size - 1 - i, 8) for i in range(8)] + \
        [(8, size - 15 + i) for i in range(8, 15)]
    return first, second


def format_bits(level, mask):
    """15 bits of format information: BCH(15, 5), XOR 0x5412 (7.9)."""
    data = level << 3 | mask
    rem = data
    for _ in range(10):
        rem = (rem << 1) ^ ((rem >> 9) * 0x537)
    return (data << 10 | rem & 0x3ff) ^ 0x5412


def line_penalty(line):
    """Rules N1 and N3 of one row or column, as a run history: finder-like
    1:1:3:1:1 runs at any scale n, light 4n wide on one side and at least n
    on the other, the light area around the symbol counting as light."""
    size = len(line)
    score, run, colour = 0, 0, False
    hist = [0] * 7

    def push(length):
        if not hist[0]:
            length += size          # the light border before the line
        hist.insert(0, length)
        hist.pop()

    def finders():
        n = hist[1]
        core = n > 0 and hist[2:6] == [n, 3 * n, n, n]
        return (core and hist[0] >= 4 * n and hist[6] >= n) + \
            (core and hist[6] >= 4 * n and hist[0] >= n)

    for dark in line:
        if dark == colour:
            run += 1
            score += 3 if run == 5 else 1 if run > 5 else 0
            continue
        push(run)
        if not colour:
            score += finders() * 40
        colour, run = dark, 1
    if colour:
        push(run)
        run = 0
    push(run + size)                # and the light border after it
    return score + finders() * 40


def penalty(grid):
    """The penalty score of a symbol, rules N1 to N4 (section 7.8.3)."""
    size = len(grid)
    score = sum(line_penalty(row) for row in grid)
    score += sum(line_penalty(col) for col in zip(*grid))
    for y in range(size - 1):
        for x in range(size - 1):
            if grid[y][x] == grid[y][x + 1] == grid[y + 1][x] == grid[y + 1][x + 1]:
                score += 3
    dark, total = sum(map(sum, grid)), size * size
    return score + ((abs(dark * 20 - total * 10) + total - 1) // total - 1) * 10


def penalties(grid, version):
    """The penalty of the symbol @grid with each of the 8 masks instead of
    its own, with the format information to match."""
    size = len(grid)
    func = function_modules(version)
    level, mine = format_info(grid)
    raw = [[grid[y][x] ^ (not func[y][x] and MASKS[mine](x, y)) for x in range(size)]
           for y in range(size)]
    scores = []
    for mask in range(8):
        g = [[raw[y][x] ^ (not func[y][x] and MASKS[mask](x, y)) for x in range(size)]
             for y in range(size)]
        bits = format_bits(level, mask)
        for cells in format_cells(size):
            for i, (x, y) in enumerate(cells):
                g[y][x] = bool(bits >> i & 1)
        scores.append(penalty(g))
    return mine, scores


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
        self.assertEqual(rows[-1][2], 25435)  # KMSVT_QR_WORK_LEN
        # Work buffer: four bitmaps of 24-byte lines (modules and data
        # modules, in rows and in columns), 1 KiB of tables, two copies of
        # the codewords and up to 7 bytes of alignment.
        for v, _, work in rows:
            size = 4 * v + 17
            self.assertEqual(work, 7 + 4 * 24 * size + 1024 + 2 * total_codewords(v))
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


class TestMaskChoice(unittest.TestCase):
    """The encoder scores the masks a word at a time; here each symbol's
    eight penalties are recomputed module by module, and its mask must be
    the first of the lowest."""

    def test_lowest_penalty(self):
        rnd = random.Random(7816)
        cases = [("version %d" % v, kernel_log(CAPACITY_L[v - 1], seed=v), v)
                 for v in (1, 2, 6, 7, 14, 27, 40)]
        cases += [("zeros", bytes(500), None), ("ones", b"\xff" * 1200, None),
                  ("random", bytes(rnd.randrange(256) for _ in range(900)), None)]
        for name, data, version in cases:
            with self.subTest(case=name):
                rc, out, err, path = encode(data, scale=1)
                self.assertEqual(rc, 0, err)
                v = int(re.match(r"size \d+ version (\d+)", out).group(1))
                if version:
                    self.assertEqual(v, version)
                mine, scores = penalties(modules_of(path, 1, 4), v)
                self.assertEqual(mine, scores.index(min(scores)),
                                 "mask %d, penalties %s" % (mine, scores))


# The panic the screen test draws: what the kernel logged last.
PANIC_TAIL = """\
sysrq: Trigger a crash
Kernel panic - not syncing: sysrq triggered crash
CPU: 0 PID: 144 Comm: sh Tainted: G           OE      6.1.0-57-amd64 #1  Debian 6.1.228-1
Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014
Call Trace:
 <TASK>
 dump_stack_lvl+0x44/0x5c
 panic+0x118/0x2ed
 ? _printk+0x60/0x81
 sysrq_handle_crash+0x16/0x20
 __handle_sysrq.cold+0x43/0x11b
 write_sysrq_trigger+0x24/0x40
 proc_reg_write+0x51/0x90
 vfs_write+0xc5/0x3f0
 ksys_write+0x5f/0xe0
 do_syscall_64+0x58/0xc0
 entry_SYSCALL_64_after_hwframe+0x64/0xce
RIP: 0033:0x47b7a0
 </TASK>
Kernel Offset: 0x5800000 from 0xffffffff81000000 (relocation range: 0xffffffff80000000-0xffffffffbfffffff)
"""


def panic_log(path, seed=1):
    """A log file as qrscreen reads it, a record a line: a boot's worth of
    kernel_log() lines, then PANIC_TAIL."""
    t = 3.5
    lines = [l for l in kernel_log(20000, seed).decode().split("\n")[:-1]
             if "\t" not in l]
    for text in PANIC_TAIL.splitlines():
        t += 0.0001
        lines.append("[%12.6f] %s" % (t, text))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def font_path():
    """font_8x16 as the kernel has it, extracted by the screen reader."""
    screenreader.load_font()
    build = os.environ.get("KMSVT_BUILD") or os.path.join(ROOT, "build")
    return os.path.join(build, "font_8x16.bin")


# The screens' colours (panic/screens.c), and what each canvas depth makes
# of the bytes qrscreen fills it with first (0x5a): a pixel never drawn.
BODY_BG = (0x00, 0x00, 0x40)


def rgb565(v):
    """An RGB565 pixel as qrscreen writes it out, widened to 8 bits."""
    return ((v >> 11) * 255 // 31, (v >> 5 & 63) * 255 // 63, (v & 31) * 255 // 31)


UNDRAWN = {32: (0x5a, 0x5a, 0x5a), 16: rgb565(0x5a5a), 8: (0xff, 0x00, 0xff)}


class TestScreen(unittest.TestCase):
    """The QR screens as a panic draws them, through panic/screens.c."""

    @classmethod
    def setUpClass(cls):
        cls.font = font_path()
        cls.log = os.path.join(TMP, "panic.log")
        panic_log(cls.log)

    def draw(self, width, height, bpp, screen):
        path = os.path.join(TMP, "screen-%s-%dx%d-%d.ppm" % (screen, width, height, bpp))
        p = subprocess.run([QRSCREEN, "-F", self.font, "-W", str(width), "-H", str(height),
                            "-b", str(bpp), "-s", screen, "-o", path, self.log],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        return path, screenreader.Image.load_ppm(path)

    def check_symbol(self, img, x0, y0, side):
        """The square (x0, y0, side): black and white only, its quiet zone
        white, every module a whole square; returns the pixels a module."""
        px = img.pixels

        def at(x, y):
            i = 3 * (y * img.width + x)
            return px[i:i + 3]

        # The first dark pixel is the top left finder's corner, after 4
        # modules of quiet zone each way.
        y, x = next((y, x) for y in range(y0, y0 + side) for x in range(x0, x0 + side)
                    if at(x, y) == b"\0" * 3)
        scale = (x - x0) // 4
        self.assertGreaterEqual(scale, 2)
        self.assertEqual(side % scale, 0)
        self.assertEqual(y - y0, 4 * scale)
        for my in range(side // scale):
            for mx in range(side // scale):
                block = {at(x0 + mx * scale + i, y0 + my * scale + j)
                         for i in range(scale) for j in range(scale)}
                self.assertEqual(len(block), 1, "module (%d, %d) is not one colour" % (mx, my))
                self.assertIn(block.pop(), (b"\0" * 3, b"\xff" * 3))
        return scale

    def check_screen(self, path, img, bpp, screen):
        r, g, b = BODY_BG
        bg = rgb565((r >> 3) << 11 | (g >> 2) << 5 | b >> 3) if bpp == 16 else BODY_BG
        colours = {bytes(img.pixels[i:i + 3]) for i in range(0, len(img.pixels), 3)}
        self.assertNotIn(bytes(UNDRAWN[bpp]), colours, "pixels left undrawn")
        self.assertIn(bytes(bg), colours)
        self.assertTrue(screenreader.find_text(img, "KERNEL PANIC"), "no header")
        text = decode(path).decode(errors="replace")
        self.assertTrue(text.startswith("KERNEL PANIC: sysrq triggered crash\nLinux "),
                        text[:200])
        self.assertTrue(text.rstrip("\n").endswith(PANIC_TAIL.splitlines()[-1]), text[-200:])
        self.assertIn("sysrq_handle_crash", text)

    def test_qr_screen(self):
        for width, height in ((1024, 768), (1023, 767), (800, 600), (1366, 768), (640, 480)):
            for bpp in (32, 16, 8):
                with self.subTest(size="%dx%d" % (width, height), bpp=bpp):
                    path, img = self.draw(width, height, bpp, "qr")
                    self.check_screen(path, img, bpp, "qr")
                    px = min(height - 48, width)
                    # The code in the square at the right of the body,
                    # whatever it leaves at its right and bottom the body.
                    side = next(s for s in range(px, 0, -1) if img.pixels[
                        3 * (48 * width + width - px + s - 1)] == 255)
                    self.check_symbol(img, width - px, 48, side)

    def test_qr_and_log_screen(self):
        for bpp in (32, 16, 8):
            with self.subTest(bpp=bpp):
                path, img = self.draw(1024, 768, bpp, "both")
                self.check_screen(path, img, bpp, "both")
                self.assertTrue(screenreader.find_text(img, "sysrq_handle_crash"),
                                "no log beside the code")


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
