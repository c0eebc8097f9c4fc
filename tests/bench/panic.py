#!/usr/bin/env python3
"""Panic-to-pixels benchmark: how long after panic() kmsvt's panic screen is
on the display, measured by the guest itself.

Each boot brings the guest up at video=1024x768 with the text console on
kmsvt's fbdev (fbcon on tty1, no KMS client), proves the console is on the
screen (a marker written on tty1 is read back from a QEMU screendump), then
crashes it with `echo c > /proc/sysrq-trigger`.  kmsvt prints, once the last
pixel is drawn,

    kmsvt: panic screen drawn in <D> us, <P> us after panic()

  D  drawing time: from the kmsg dumper taking the screen to the last pixel
     (ktime_get_mono_fast_ns, the clocksource);
  P  panic to pixels: from the printk timestamp of panic()'s "Kernel panic -
     not syncing" message to the last pixel.  Everything panic() does before
     the dumper runs is in it: printing the message and the stack on the
     consoles (fbcon draws them too, on the screen being replaced), stopping
     the other CPUs, the notifiers.

Both are guest time; under TCG guest time follows the host's clock, so a
loaded host makes them longer.  A boot counts only if the screen really
shows the panic afterwards: the screendump must be 1024x768 and the screen
reader must find "sysrq_handle_crash" (the crashing function in the call
trace) and the "KERNEL PANIC" header on it; with panic_screen=qr the QR code
is decoded with zbarimg and must carry "sysrq_handle_crash".

Configurations, per kernel (counts are the defaults):

  log     panic_screen=log, -smp 1, 20 boots   (the goal: P under 20 ms);
          the console is cleared before the crash, so the kernel prints the
          panic onto it without scrolling
  screenonly
          the same without console=ttyS0, 20 boots: the kernel prints the
          panic on the screen only, as on a user's machine.  D and P are
          then read from guest memory (kmsvt_last_panic, found in
          /proc/kallsyms before the crash, read with QEMU's memsave)
  nopstore  the same as log with kmsvt.pstore=0 (no pstore backend; on by
          default, panic/pstore.c), 5 boots: what keeping the panic costs
  full    the same as log with the console left full (the boot log): the
          console scrolls at every line the kernel prints, 5 boots
  fbconfull the same with fbcon on the VTs (kmsvt.vtcon=0), which redraws
          the whole screen for every line, 5 boots
  qr      panic_screen=qr,  -smp 1, 5 boots
  smp2    panic_screen=log, -smp 2, 5 boots
  smp2tsc the same with tsc=reliable, 5 boots: with -smp 2 the guest marks
          its TSC unstable, and then the driver's P is too small (see
          CLOCK_SLACK_US); tsc=reliable keeps printk's clock running, for a P
          that holds with two CPUs
  bochs   the in-tree bochs driver, 1 boot (5 where the kernel has
          drm_panic): on 6.x it draws nothing on a panic, and the boot
          checks that the screen reader does *not* find
          "sysrq_handle_crash" on its screen after the panic; on a kernel
          built with CONFIG_DRM_PANIC (Debian's 7.x: the QR screen) the
          boot checks that drm_panic's QR code is on the screen and decodes
          (zbarimg).  Its "kernel print" column is the kernel's own
          printing of the panic, to compare with kmsvt's
  bochsfull the same with the console full, 1 boot

Every configuration also reports "panic() to end": printk time from
panic()'s message to its last line ("---[ end Kernel panic"), which comes
after the kmsg dumpers, so that it holds the panic screen's drawing by
either driver (kmsvt's, or drm_panic's on bochs): the same measure for both,
where drm_panic prints no time of its own.

Up to --jobs guests (default 2, one per host CPU) run at the same time; the
boots of all configurations and kernels are interleaved.

usage: tests/bench/panic.py [-n BOOTS] [--small N] [-j JOBS] [--markdown]
                            [KERNEL_RELEASE ...]
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

# Run as a script, a benchmark puts tests/lib (the harness it shares with
# the tests) on the import path; its own folder is there already.
LIB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib")
if LIB not in sys.path:
    sys.path.insert(0, LIB)

import harness  # noqa: E402
import initramfs  # noqa: E402
import screenreader  # noqa: E402
import boot  # noqa: E402

DEFAULT_BOOTS = 20
DEFAULT_SMALL = 5
DEFAULT_JOBS = 2
GOAL_US = 20000
MODE = (1024, 768)
VIDEO = "video=%dx%d" % MODE
FUNCTION = "sysrq_handle_crash"
REASON = "Kernel panic - not syncing: sysrq triggered crash"

DRAWN_RX = r"kmsvt: panic screen drawn in (\d+) us, (\d+) us after panic\(\)"
# What must not appear between the crash and the panic screen (the panic's
# own "Call Trace" is expected, so harness.OOPS_RX does not fit).
TROUBLE_RX = re.compile(r"WARNING:|BUG:|general protection|kernel NULL pointer|"
                        r"UBSAN|KASAN|Kernel panic - not syncing: Fatal exception")

FB_NAME = {"kmsvt": "kmsvt", "bochs": "bochs-drmdrmfb"}

TS_RX = r"\[\s*(\d+)\.(\d{6})\] "
# kmsvt converts the printk time of panic()'s message to the clocksource
# with one pair of readings taken in its panic notifier.  With interrupts off
# (all of panic()) and an unstable sched_clock (TSC marked unstable: usual
# with -smp 2 under TCG), local_clock() stops one tick after the last timer
# interrupt, so that pair is off by the time it stood still and P comes out
# too small.  The printk time from panic()'s message to kmsvt's line then
# falls short of P, which it can never do with a running clock (the line is
# printed after the last pixel): such a P is reported as a lower bound.
CLOCK_SLACK_US = 500


def printk_span(out, until="kmsvt: panic screen drawn in"):
    """Microseconds of printk time from panic()'s message to the line that
    starts with `until`."""
    a = re.search(TS_RX + re.escape(REASON), out)
    b = re.search(TS_RX + re.escape(until), out)
    if not a or not b:
        raise BenchError("no printk timestamps on the panic lines (%r)" % until)
    us = (lambda m: int(m.group(1)) * 1000000 + int(m.group(2)))
    return us(b) - us(a)


# x86's panic notifier prints this after the message, the stack and the
# registers: the kernel's own printing, the same whatever the driver, ends
# there and the dumpers come next.
KERNEL_PRINT_END = "Kernel Offset:"
# panic()'s last line, after the dumpers (and so after either panic screen).
PANIC_END = "---[ end Kernel panic"


def has_drm_panic(rel):
    """Whether rel's kernel is built with drm_panic (Debian's 7.x): then
    in-tree bochs draws drm_panic's screen on a panic."""
    with open(os.path.join(initramfs.kernel_dir(rel), "config")) as f:
        return "\nCONFIG_DRM_PANIC=y\n" in f.read()


class Config:
    def __init__(self, key, title, flavour, screen=None, smp=1, small=False, extra="",
                 clear=True, serial_console=True, modargs=()):
        self.key, self.title, self.flavour = key, title, flavour
        self.screen, self.smp, self.small, self.extra = screen, smp, small, extra
        self.clear, self.serial_console = clear, serial_console
        self.modargs = list(modargs) + (["panic_screen=" + screen] if screen else [])

    @property
    def cmdline(self):
        parts = ["drv=" + self.flavour, VIDEO]
        if self.modargs:
            parts.append("modargs=" + ",".join(self.modargs))
        if self.extra:
            parts.append(self.extra)
        return " ".join(parts)

    @property
    def baseline(self):
        return self.flavour == "bochs"


CONFIGS = (
    Config("log", "panic_screen=log", "kmsvt", "log"),
    Config("screenonly", "panic_screen=log, no serial console", "kmsvt", "log",
           serial_console=False),
    # The pstore backend (on by default) against none, in the same run.
    Config("nopstore", "panic_screen=log, pstore=0", "kmsvt", "log", small=True,
           modargs=("pstore=0",)),
    Config("full", "panic_screen=log, console full", "kmsvt", "log", small=True, clear=False),
    Config("fbconfull", "panic_screen=log, console full, fbcon (vtcon=0)", "kmsvt", "log",
           small=True, clear=False, modargs=("vtcon=0",)),
    Config("qr", "panic_screen=qr", "kmsvt", "qr", small=True),
    Config("smp2", "panic_screen=log, -smp 2", "kmsvt", "log", smp=2, small=True),
    Config("smp2tsc", "panic_screen=log, -smp 2, tsc=reliable", "kmsvt", "log", smp=2,
           small=True, extra="tsc=reliable"),
    Config("bochs", "in-tree bochs (baseline)", "bochs"),
    Config("bochsfull", "in-tree bochs, console full", "bochs", clear=False),
)
BY_KEY = {c.key: c for c in CONFIGS}


class BenchError(Exception):
    pass


def images(rel):
    """The images of this benchmark: the harness's stock /init, tagged apart
    from the suite's and the other benchmarks' (they may run meanwhile)."""
    return {fl: harness.initrd(rel, fl, tag="bench-panic-" + fl, keep_stage=True)
            for fl in ("kmsvt", "bochs")}


def staged_module(rel):
    """The kmsvt.ko really measured (copied into the benchmark's image)."""
    return os.path.join(initramfs.BUILD, rel, "stage-bench-panic-kmsvt", "lib", "modules",
                        rel, "extra", "kmsvt.ko")


class Sample:
    def __init__(self, rel, cfg, index):
        self.rel, self.cfg, self.index = rel, cfg, index
        self.draw_us = self.panic_us = None
        self.wall = None            # host seconds, crash command to the line
        self.printk_us = None       # printk time, panic()'s message to kmsvt's line
        self.kprint_us = None       # printk time, panic()'s message to "Kernel Offset:"
        self.end_us = None          # printk time, panic()'s message to its end line
        self.clock_stopped = None   # local_clock() stood still: P is too small
        self.screen = None          # what the screen check saw (one line)
        self.found = None           # baseline: the function found on screen
        self.error = self.reason = None

    @property
    def ok(self):
        return self.error is None

    @property
    def name(self):
        return "%s-bench-panic-%s-%d" % (self.rel, self.cfg.key, self.index)

    def line(self):
        head = "%s %s #%d" % (self.rel, self.cfg.key, self.index)
        if not self.ok:
            return "%s: FAILED: %s" % (head, self.reason)
        if self.cfg.baseline:
            return "%s: kernel print %d us, %s" % (head, self.kprint_us, self.screen)
        if self.printk_us is None:
            return "%s: D %d us, P %d us, %s (read from guest memory)" % (
                head, self.draw_us, self.panic_us, self.screen)
        return "%s: D %d us, P %d us%s, %s (printk %d us, host %.2f s crash to line)" % (
            head, self.draw_us, self.panic_us,
            " (printk clock stopped: P too small)" if self.clock_stopped else "",
            self.screen, self.printk_us, self.wall)


def decode_qr(img, tmpdir):
    """The text of the QR code on the screen (zbarimg), or None."""
    zbar = shutil.which("zbarimg")
    if not zbar:
        raise BenchError("zbarimg missing: run make deps (zbar-tools)")
    path = os.path.join(tmpdir, "qr.pgm")
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (img.width, img.height))
        f.write(bytes(img.pixels[i] for i in range(0, len(img.pixels), 3)))
    res = subprocess.run([zbar, "--nodbus", "--raw", "-q", "-Sbinary", path], capture_output=True)
    return res.stdout.decode(errors="replace") if res.returncode == 0 and res.stdout else None


def console_up(g, cfg, tag):
    """fb0 is the expected driver and the text console is on the screen, at
    the mode of video=."""
    _, fb = g.sh("cat /proc/fb", check=True)
    harness.check(re.search(r"^0 %s$" % re.escape(FB_NAME[cfg.flavour]), fb, re.M),
                  "fb0 is not %s: %r" % (FB_NAME[cfg.flavour], fb))
    marker = "panic bench %s" % tag
    # A cleared console prints the panic without scrolling; a full one
    # (the boot log, then the marker at the bottom) scrolls at every line.
    g.tty_write(("\033[2J\033[H" if cfg.clear else "") + marker + "\n")
    img, _ = g.wait_screen_text(marker, timeout=20)
    harness.check((img.width, img.height) == MODE, "console is %dx%d, not %dx%d" % (
        (img.width, img.height) + MODE))
    return marker


def check_panic_screen(g, cfg, timeout=10):
    """Screendump until the panic is readable; returns a description."""
    deadline = time.monotonic() + timeout
    while True:
        img = g.screendump()
        size_ok = (img.width, img.height) == MODE
        if cfg.screen == "qr":
            text = decode_qr(img, g.tmp) or ""
            ok = size_ok and FUNCTION in text and screenreader.find_text(img, "KERNEL PANIC")
            what = "QR code decodes, has %s" % FUNCTION
        else:
            ok = size_ok and screenreader.contains_all(img, [FUNCTION, "KERNEL PANIC"])
            what = "%s read on screen" % FUNCTION
        if ok:
            return what
        if time.monotonic() > deadline:
            path = os.path.join(os.path.dirname(g.log_path), g.name + "-fail.ppm")
            img.save_ppm(path)
            raise BenchError("panic screen not readable (%dx%d, saved %s)" % (
                img.width, img.height, path))
        time.sleep(0.5)


def check_drm_panic_screen(g):
    """The baseline on a drm_panic kernel: drm_panic's QR code is on the
    screen after the panic, and decodes."""
    g.wait_for(re.escape(PANIC_END), 90, g.crash_at)
    img = g.screendump(save_as="%s-after-panic.ppm" % g.name)
    text = decode_qr(img, g.tmp)
    return ("drm_panic's QR code decodes: %s... (%dx%d)" % (text[:40], img.width, img.height)
            if text else "NO QR code decodes (%dx%d)" % (img.width, img.height)), bool(text)


def check_no_panic_screen(g, marker):
    """The baseline: after the panic, nothing of it is on the screen."""
    g.wait_for(re.escape(PANIC_END), 90, g.crash_at)
    time.sleep(3)
    img = g.screendump(save_as="%s-after-panic.ppm" % g.name)
    text = screenreader.screen_text(img)
    found = FUNCTION in text
    still = marker in text
    return "%s on screen after the panic: %s (%dx%d; the console's last text %s)" % (
        FUNCTION, "YES" if found else "no", img.width, img.height,
        "still shown" if still else "gone"), found


# kmsvt keeps D and P (us) in a global, kmsvt_last_panic, with this magic
# written last: read from guest memory when the kernel prints nothing on the
# serial line.
LAST_PANIC_MAGIC = b"SVTPANIC"


def last_panic_address(g):
    """Where kmsvt_last_panic is, from /proc/kallsyms (before the panic)."""
    g.sh("echo 0 > /proc/sys/kernel/kptr_restrict", check=True)
    _, out = g.sh("grep -w kmsvt_last_panic /proc/kallsyms", check=True)
    m = re.search(r"^([0-9a-f]{16}) \w kmsvt_last_panic\b", out, re.M)
    if not m or int(m.group(1), 16) == 0:
        raise BenchError("kmsvt_last_panic not in /proc/kallsyms: %r" % out)
    return int(m.group(1), 16)


def read_last_panic(g, addr, timeout=60):
    """(D, P) in us once kmsvt has drawn the panic screen (QEMU memsave of
    the global, at a virtual address of the stopped kernel)."""
    path = os.path.join(g.tmp, "last-panic.bin")
    deadline = time.monotonic() + timeout
    while True:
        # QMP's integers are signed 64-bit: a kernel address goes negative.
        val = addr - (1 << 64) if addr >= 1 << 63 else addr
        g.qmp_cmd("memsave", val=val, size=24, filename=path, **{"cpu-index": 0})
        with open(path, "rb") as f:
            raw = f.read()
        if raw[16:24] == LAST_PANIC_MAGIC:
            return int.from_bytes(raw[0:8], "little"), int.from_bytes(raw[8:16], "little")
        if time.monotonic() > deadline:
            raise BenchError("kmsvt_last_panic not written after %d s: %r" % (timeout, raw))
        time.sleep(0.2)


def screen_only_panic(g, s, cfg, addr):
    """The crash with the kernel printing only on the screen: D and P come
    from guest memory; the serial line stays silent."""
    g.write("echo c > /proc/sysrq-trigger\n")
    s.draw_us, s.panic_us = read_last_panic(g, addr)
    if s.panic_us <= 0 or s.panic_us < s.draw_us:
        raise BenchError("P %d us not measured or below D %d us" % (s.panic_us, s.draw_us))
    s.screen = check_panic_screen(g, cfg)
    return s


def boot_once(rel, cfg, index, image, timeout=120):
    s = Sample(rel, cfg, index)
    g = harness.Guest(rel, image, cmdline=cfg.cmdline, smp=cfg.smp, name=s.name,
                      serial_console=cfg.serial_console)
    try:
        g.start()
        g.boot(timeout=timeout)
        marker = console_up(g, cfg, "%s-%d" % (cfg.key, index))
        if not cfg.serial_console:
            return screen_only_panic(g, s, cfg, last_panic_address(g))
        with g.lock:
            g.crash_at = len(g.buf)
        t0 = time.monotonic()
        g.write("echo c > /proc/sysrq-trigger\n")
        if cfg.baseline:
            g.wait_for(re.escape(REASON), 90, g.crash_at)
            s.screen, s.found = check_drm_panic_screen(g) if has_drm_panic(rel) else \
                check_no_panic_screen(g, marker)
            s.kprint_us = printk_span(g.output()[g.crash_at:], KERNEL_PRINT_END)
            s.end_us = printk_span(g.output()[g.crash_at:], PANIC_END)
            return s
        m = g.wait_for(DRAWN_RX, 90, g.crash_at)
        s.wall = time.monotonic() - t0
        s.draw_us, s.panic_us = int(m.group(1)), int(m.group(2))
        out = g.output()[g.crash_at:]
        if REASON not in out:
            raise BenchError("no %r on serial" % REASON)
        bad = TROUBLE_RX.search(out[:out.find("panic screen drawn in")])
        if bad:
            raise BenchError("kernel reported a problem during the panic: %r" % out[
                bad.start():bad.start() + 300])
        if s.panic_us <= 0 or s.panic_us < s.draw_us:
            raise BenchError("P %d us not measured or below D %d us" % (s.panic_us, s.draw_us))
        s.printk_us = printk_span(out)
        s.kprint_us = printk_span(out, KERNEL_PRINT_END)
        g.wait_for(re.escape(PANIC_END), 90, g.crash_at)
        s.end_us = printk_span(g.output()[g.crash_at:], PANIC_END)
        s.clock_stopped = s.printk_us + CLOCK_SLACK_US < s.panic_us
        s.screen = check_panic_screen(g, cfg)
    except Exception:
        boot.record_failure(s)
    finally:
        g.close()
    return s


def plan(kernels, boots=DEFAULT_BOOTS, small=DEFAULT_SMALL, configs=CONFIGS):
    """(rel, cfg, index) for every boot, interleaved over kernels and configs:
    a baseline boot once, or `small` times where bochs draws drm_panic's
    screen (a time to compare)."""
    def count(rel, c):
        if c.baseline:
            return small if c.key == "bochs" and has_drm_panic(rel) else 1
        return small if c.small else boots
    jobs = []
    for i in range(1, max(boots, small) + 1):
        for rel in kernels:
            for c in configs:
                if i <= count(rel, c):
                    jobs.append((rel, c, i))
    return jobs


def bench(kernels, boots=DEFAULT_BOOTS, small=DEFAULT_SMALL, jobs=DEFAULT_JOBS,
          configs=CONFIGS, log=None):
    """Run every boot of the plan, `jobs` at a time; return the Samples."""
    imgs = {rel: images(rel) for rel in kernels}
    todo = plan(kernels, boots, small, configs)
    samples = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futs = [pool.submit(boot_once, rel, c, i, imgs[rel][c.flavour]) for rel, c, i in todo]
        for f in concurrent.futures.as_completed(futs):
            s = f.result()
            samples.append(s)
            if log:
                log("  " + s.line())
    order = {(rel, c.key, i): n for n, (rel, c, i) in enumerate(todo)}
    samples.sort(key=lambda s: order[(s.rel, s.cfg.key, s.index)])
    return samples


# ---------------------------------------------------------------- report

def _ms(us):
    return "-" if us is None else "%.2f" % (us / 1000.0)


def table_rows(rel, samples, configs=CONFIGS):
    head = ["configuration", "N", "fail", "D med", "D max", "P med", "P max",
            "P-D med", "kernel print med", "panic() to end med", "P < %d ms" % (GOAL_US // 1000),
            "printk clock", "screen check"]
    rows = []
    med = (lambda v: statistics.median(v) if v else None)
    for c in configs:
        mine = [s for s in samples if s.rel == rel and s.cfg.key == c.key]
        if not mine:
            continue
        good = [s for s in mine if s.ok]
        fail = str(len(mine) - len(good))
        end = _ms(med([s.end_us for s in good if s.end_us is not None]))
        if c.baseline:
            shown = sum(1 for s in good if s.found)
            kp = med([s.kprint_us for s in good])
            if has_drm_panic(rel):
                check_text = "drm_panic's QR code decodes in %d of %d" % (shown, len(good))
            elif not shown:
                check_text = "%s on screen after the panic in %d of %d: nothing drawn" % (
                    FUNCTION, shown, len(good))
            else:
                check_text = "%s FOUND on screen in %d of %d" % (FUNCTION, shown, len(good))
            rows.append([c.title, str(len(good)), fail] + ["-"] * 5 + [_ms(kp), end] +
                        ["-"] * 2 + [check_text])
            continue
        d = [s.draw_us for s in good]
        p = [s.panic_us for s in good]
        stopped = sum(1 for s in good if s.clock_stopped)
        low = ">=" if stopped else ""
        rows.append([c.title, str(len(good)), fail, _ms(med(d)), _ms(max(d) if d else None),
                     low + _ms(med(p)), low + _ms(max(p) if p else None),
                     low + _ms(med([s.panic_us - s.draw_us for s in good])),
                     _ms(med([s.kprint_us for s in good if s.kprint_us is not None])), end,
                     "%d/%d" % (sum(1 for v in p if v < GOAL_US), len(p)),
                     "stopped in %d/%d: P too small" % (stopped, len(good)) if stopped
                     else "ran" if good else "-",
                     "%d/%d read back" % (len(good), len(good)) if good else "-"])
    return head, rows


def format_table(rel, samples, configs=CONFIGS):
    head, rows = table_rows(rel, samples, configs)
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    lines = ["kernel %s: panic to pixels at %dx%d, text console; ms of guest time "
             "(D: drawing, P: panic() to last pixel, P-D: panic() to the dumper, kernel print: "
             "printk time from panic()'s message to \"Kernel Offset:\", panic() to end: to "
             "its last line, after either driver's panic screen)" % ((rel,) + MODE)]
    for r in [head] + rows:
        lines.append("  ".join(c.ljust(w) if i in (0, len(r) - 1, len(r) - 2) else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    return "\n".join(lines)


def format_markdown(rel, samples, configs=CONFIGS):
    head, rows = table_rows(rel, samples, configs)
    lines = ["Kernel `%s`:" % rel, "",
             "| " + " | ".join(head) + " |",
             "|" + "|".join("---" if i in (0, len(head) - 1, len(head) - 2) else "---:"
                            for i in range(len(head))) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def failures(samples):
    return [s for s in samples if not s.ok]


def unexpected(samples):
    """Baseline boots whose screen did not show what the claim says: the
    panic on a kernel without drm_panic, no QR code on one with it."""
    return [s for s in samples if s.ok and s.cfg.baseline and s.found != has_drm_panic(s.rel)]


def add_arguments(ap, prefix=""):
    ap.add_argument(*(["--%sboots" % prefix] + ([] if prefix else ["-n"])),
                    dest="%sboots" % prefix.replace("-", "_"), type=int, default=DEFAULT_BOOTS,
                    help="boots per kernel with panic_screen=log (default %d)" % DEFAULT_BOOTS)
    ap.add_argument("--%ssmall" % prefix, dest="%ssmall" % prefix.replace("-", "_"),
                    type=int, default=DEFAULT_SMALL,
                    help="boots per kernel with panic_screen=qr and with -smp 2 "
                         "(default %d)" % DEFAULT_SMALL)
    ap.add_argument(*(["--%sjobs" % prefix] + ([] if prefix else ["-j"])), dest="%sjobs" % prefix.replace("-", "_"),
                    type=int, default=DEFAULT_JOBS,
                    help="guests at a time (default %d)" % DEFAULT_JOBS)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(ap)
    ap.add_argument("--only", help="comma-separated configurations (%s)" % ",".join(BY_KEY))
    ap.add_argument("--markdown", action="store_true", help="also print Markdown tables")
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args(argv)
    configs = [BY_KEY[k] for k in args.only.split(",")] if args.only else CONFIGS
    kernels = args.kernels or initramfs.full_releases()
    t0 = time.monotonic()
    samples = bench(kernels, args.boots, args.small, args.jobs, configs,
                    log=lambda m: print(m, flush=True))
    for rel in kernels:
        print(format_table(rel, samples, configs) + "\n")
    if args.markdown:
        for rel in kernels:
            print(format_markdown(rel, samples, configs) + "\n")
    bad = failures(samples)
    for s in bad:
        print("FAILED %s (serial log %s.serial.log):\n%s" % (s.line(), s.name, s.error))
    for s in unexpected(samples):
        print("UNEXPECTED: the baseline showed the panic: %s" % s.line())
    print("panic benchmark took %.0fs, %d boots, %d failed, %d guests at a time" % (
        time.monotonic() - t0, len(samples), len(bad), args.jobs))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
