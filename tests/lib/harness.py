"""Shared pieces of the guest tests: kernels, cached initramfs images, VMs,
and the checks every test makes (no oops, text on the screen)."""
import os
import re
import shutil
import sys
import threading
import time

import debugchecks
import initramfs
import screenreader
from vm import Vm

OOPS_RX = re.compile(r"Oops|BUG:|WARNING:|Call Trace|general protection|"
                     r"kernel NULL pointer|UBSAN|KASAN|KFENCE|"
                     # SLUB's debug checks (slub_debug=FZPU): "BUG kmalloc-64
                     # (Tainted: ...): Redzone overwritten", "Poison
                     # overwritten", "Object padding overwritten", ...
                     r"BUG \S+ \((Not t|T)ainted|Redzone|Poison overwritten|Object padding|"
                     r"Freepointer corrupt|"
                     # page_poison=1 (mm/page_poison.c), DEBUG_LIST
                     r"pagealloc: |list_(add|del) corruption|"
                     r"possible circular locking|possible recursive locking|"
                     r"inconsistent lock state|sleeping function called from invalid context|"
                     r"scheduling while atomic")
# Lines that repeat the command line, not reports.
NOT_REPORT_RX = re.compile(r"Command line:|Unknown kernel command line|"
                           r"kfence: initialized|"
                           # "registered kmsvt as backend for kmsg(Oops,panic_write)"
                           r"pstore_zone: registered")
# Intended crashes: the tests' triggers (sysrq c, the test_hooks debugfs
# file), the panic reasons they cause and the oops the "oops" hook makes.
CRASH_TRIGGER_RX = re.compile(r"/proc/sysrq-trigger|/panic_test\b")
INTENDED_PANIC_RX = re.compile(r"Kernel panic - not syncing: (sysrq triggered crash|kmsvt test: )")
INTENDED_OOPS = "kmsvt_test_oops"

# Memory checking for the guest tests: tests/run.py turns it on; the
# benchmarks (tests/bench/) leave it off, it would distort their timings.
MEMCHECK = False


def memcheck_cmdline(rel):
    """slub_debug (redzones, poison, sanity checks, user tracking) and page
    poisoning on both kernels; KFENCE on every allocation it can sample
    where the kernel has it (6.12; Debian's 6.1 is built without)."""
    opts = ["slub_debug=FZPU", "page_poison=1"]
    if kconfig(rel).get("CONFIG_KFENCE") == "y":
        opts.append("kfence.sample_interval=1")
    return " ".join(opts)


def kconfig(rel):
    with open(os.path.join(initramfs.kernel_dir(rel), "config")) as f:
        return dict(ln.strip().split("=", 1) for ln in f if ln.startswith("CONFIG_"))


def kernel_reports(log):
    """The report lines (OOPS_RX) of a kernel log, except those of the
    oops the test hook makes on purpose (its block, up to its end-trace
    line), each with the lines around it."""
    lines = log.splitlines()
    out, i = [], 0
    while i < len(lines):
        ln = lines[i]
        if OOPS_RX.search(ln) and not NOT_REPORT_RX.search(ln):
            end = i + 1
            while end < len(lines) and end < i + 80 and "---[ end trace" not in lines[end]:
                end += 1
            block = lines[i:end + 1]
            if any(INTENDED_OOPS in b for b in block):
                i = end + 1
                continue
            out.append("\n".join(lines[max(0, i - 5):end + 1]))
            i = end + 1
            continue
        i += 1
    return out

_images = {}
_images_lock = threading.Lock()


def require_tools(tools=(), files=()):
    """Exit 2, loudly, unless QEMU, the image tools and busybox (and the
    extra tools and files given, as (path, what provides it)) are here:
    a missing package never lets a test or benchmark pass by skipping."""
    missing = [t for t in ("qemu-system-x86_64", "depmod", "cpio", "modinfo", "ldd") + tuple(tools)
               if not shutil.which(t)]
    for path, what in (("/bin/busybox", "busybox-static"),) + tuple(files):
        if not os.path.exists(path):
            missing.append("%s (%s)" % (path, what))
    if missing:
        print("FATAL: missing %s: run 'make deps' and 'make'" % ", ".join(missing))
        sys.exit(2)


class TestFailure(AssertionError):
    pass


def check(cond, msg):
    if not cond:
        raise TestFailure(msg)


# Written to a VT: clear the screen, cursor to the top left.
CLEAR = "\033[2J\033[H"


def daemon(cmd):
    """cmd in the background, but not as a job of the serial shell: busybox
    ash, told of a job's end while it reads the second line of the
    harness's "{ cmd" / "} ..." wrapper, takes it as the end of the input
    ("syntax error: unexpected end of file") and the command is lost."""
    return "(%s &)" % cmd


# The README's pictures, docs/screenshots/<name>.png: written only when
# asked (KMSVT_SCREENSHOTS=1, which make screenshots sets), never by a
# plain test run.
SCREENSHOTS = os.path.join(initramfs.REPO, "docs", "screenshots")
WRITE_SCREENSHOTS = os.environ.get("KMSVT_SCREENSHOTS") == "1"


def screenshot(rel, img, name):
    """Keep img as docs/screenshots/<name>.png when asked (KMSVT_SCREENSHOTS=1,
    make screenshots), from the 6.1 guests only (one writer per name); the
    README shows them."""
    if not WRITE_SCREENSHOTS or not rel.startswith("6.1."):
        return
    import ppm2png
    os.makedirs(SCREENSHOTS, exist_ok=True)
    tmp = os.path.join(SCREENSHOTS, ".%s.png.tmp" % name)
    ppm2png.to_png(img, tmp)
    os.replace(tmp, os.path.join(SCREENSHOTS, name + ".png"))


def initrd(rel, flavour="kmsvt", tag=None, **kw):
    """Build each (kernel, image tag) once per run; kw as initramfs.build."""
    key = (rel, tag or flavour)
    with _images_lock:
        if key not in _images:
            _images[key] = initramfs.build(rel, flavour, tag=tag, **kw)
        return _images[key]


class Guest(Vm):
    """A Vm with the assertions the tests share."""

    def __init__(self, rel, initrd, cmdline="", **kw):
        if MEMCHECK:
            cmdline = ("%s %s" % (cmdline, memcheck_cmdline(rel))).strip()
        super().__init__(rel, initrd, cmdline=cmdline, **kw)
        self.crash_sent = False
        self.reports_before_crash = []

    def write(self, text):
        # Before a test crashes the guest on purpose, the kernel log so
        # far: a dead guest's dmesg cannot be read afterwards.
        if CRASH_TRIGGER_RX.search(text):
            self.before_crash()
        super().write(text)

    def before_crash(self):
        """Keep the kernel log's reports so far, once: called by write()
        for a crash trigger, or first by a test that must know where the
        serial output after it starts (a reboot's)."""
        if not self.crash_sent:
            self.crash_sent = True
            self.reports_before_crash = kernel_reports(self.dmesg())

    def expect_crash(self, reports):
        """For a guest that crashes by itself (a unit of the test's boot,
        before any shell): its reports so far, read by the test from the
        serial line, stand for before_crash()'s."""
        self.crash_sent = True
        self.reports_before_crash = list(reports)

    def rebooted(self, how, timeout=None):
        """Write how (a shell command that reboots or crashes a guest
        started with reboot=True) and wait for the next boot's shell."""
        self.before_crash()
        since = self.serial_offset()
        self.write(how + "\n")
        self.boot(timeout=timeout, since=since)

    def memcheck_problems(self):
        """What the kernel reported during the test, as a list of
        excerpts: read from dmesg while the guest runs; a guest that
        panicked must have been crashed on purpose (and its log up to the
        crash is checked)."""
        if not self.proc or self.proc.poll() is not None:
            return list(self.reports_before_crash)
        serial = self.output()
        if "Kernel panic - not syncing" in serial:
            m = INTENDED_PANIC_RX.search(serial)
            if self.crash_sent and m:
                return list(self.reports_before_crash)
            i = serial.find("Kernel panic - not syncing")
            return self.reports_before_crash + ["unintended panic:\n" + serial[max(0, i - 3000):i + 500]]
        try:
            log = self.sh("dmesg", timeout=30)[1]
        except Exception as e:
            return self.reports_before_crash + ["dmesg not read after the test: %s" % e]
        # The debug kernel's kmemleak (KMSVT_DEBUG_CHECKS=1, make test-debug).
        return self.reports_before_crash + kernel_reports(log) + debugchecks.problems(self)

    def assert_no_oops(self):
        reports = kernel_reports(self.dmesg())
        check(not reports, "%s: kernel reported a problem:\n%s" % (
            self.name, "\n----\n".join(reports)))

    def tty_write(self, text, tty=1):
        """Write text on a VT; the VT driver turns \\n into CR-LF."""
        self.write_file("/dev/tty%d" % tty, text)

    def write_file(self, path, text):
        """text into path, byte for byte: one printf line over the serial
        shell (text is its format, so backslashes, per cents and newlines
        are escaped)."""
        esc = (text.replace("\\", "\\\\").replace("%", "%%").replace("'", "'\\''")
               .replace("\n", "\\n"))
        self.sh("printf '%s' > %s" % (esc, path), check=True)

    def screen(self, save_as=None):
        img = self.screendump(save_as=save_as or "%s-%d.ppm" % (self.name, int(time.time() * 1000)))
        return img, screenreader.screen_text(img)

    def wait_screen_text(self, needles, timeout=20, device=None, rotate=0, font=None):
        """Screendump until every needle is read on screen (turned back
        first when the console is turned, rotate=1..3), in font (a
        screenreader.Font; the kernel's 8x16 by default)."""
        if isinstance(needles, str):
            needles = [needles]
        deadline = time.monotonic() + timeout
        while True:
            img = self.screendump_dev(device)
            text = screenreader.screen_text(img.unturned(rotate), font=font)
            missing = [n for n in needles if n not in text]
            if not missing:
                return img, text
            if time.monotonic() > deadline:
                path = os.path.join(os.path.dirname(self.log_path), self.name + "-fail.ppm")
                img.save_ppm(path)
                raise TestFailure("%s: %r not on screen (%dx%d, saved %s); screen reads:\n%s" % (
                    self.name, missing, img.width, img.height, path, text.rstrip()[-2500:]))
            time.sleep(0.5)

    def screendump_dev(self, device=None):
        if device is None:
            return self.screendump()
        path = os.path.join(self.tmp, "shot-%s.ppm" % device)
        self.qmp_cmd("screendump", filename=path, device=device)
        return screenreader.Image.load_ppm(path)


# devices= for a guest that can suspend to RAM: QEMU's i440fx machine
# offers S3 only with this.
S3 = ("-device", "VGA", "-global", "PIIX4_PM.disable_s3=0")


def guest(ctx, name, flavour="kmsvt", cmdline="", devices=("-device", "VGA"), **kw):
    image = {k: kw.pop(k) for k in ("programs", "extra_files", "libraries", "modules", "tag")
             if k in kw}
    rd = initrd(ctx.rel, flavour, **image)
    if "drv=" not in cmdline:
        cmdline = ("drv=%s %s" % (flavour, cmdline)).strip()
    g = Guest(ctx.rel, rd, cmdline=cmdline, devices=devices,
              name="%s-%s" % (ctx.rel, name), **kw)
    g.start()
    try:
        g.boot()
    except Exception:
        g.close()
        raise
    return g


class Ctx:
    def __init__(self, rel):
        self.rel = rel
        self.guests = []
        # Files the test made for itself alone (a guest's writable disk),
        # removed when it ends, pass or fail: the suite's disk use stays
        # what its images take (tests/run.py's BUILD_BYTES).
        self.scratch = []

    def guest(self, name, **kw):
        g = guest(self, name, **kw)
        self.guests.append(g)
        return g

    def check_kernel_reports(self):
        """Fail if the kernel of a guest of this test reported a problem
        (tests/run.py calls this at the end of every guest test)."""
        problems = []
        for g in self.guests:
            problems += ["%s: %s" % (g.name, p) for p in g.memcheck_problems()]
        check(not problems, "kernel reported a problem:\n" + "\n----\n".join(problems))

    def close(self):
        for g in self.guests:
            g.close()
        self.guests = []
        for path in self.scratch:
            if os.path.exists(path):
                os.unlink(path)
        self.scratch = []
