"""Shared pieces of the guest tests: kernels, cached initramfs images, VMs,
and the checks every test makes (no oops, text on the screen)."""
import os
import re
import shutil
import sys
import threading
import time

import initramfs
import screenreader
from vm import Vm

OOPS_RX = re.compile(r"Oops|BUG:|WARNING:|Call Trace|general protection|"
                     r"kernel NULL pointer|UBSAN|KASAN")

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


SCREENSHOTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "docs", "screenshots")


def screenshot(rel, img, name):
    """Keep img as docs/screenshots/<name>.png, from the 6.1 guests only (one
    writer per name); the README shows them."""
    if not rel.startswith("6.1."):
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

    def assert_no_oops(self):
        log = self.dmesg()
        m = OOPS_RX.search(log)
        check(not m, "%s: kernel reported a problem:\n%s" % (
            self.name, log[max(0, m.start() - 500):m.start() + 2000] if m else ""))

    def tty_write(self, text, tty=1):
        """Write text on a VT; the VT driver turns \\n into CR-LF."""
        self.write_file("/dev/tty%d" % tty, text)

    def write_file(self, path, text):
        esc = text.replace("\\", "\\\\").replace("'", "'\\''")
        self.sh("printf '%s' > %s" % (esc, path), check=True)

    def screen(self, save_as=None):
        img = self.screendump(save_as=save_as or "%s-%d.ppm" % (self.name, int(time.time() * 1000)))
        return img, screenreader.screen_text(img)

    def wait_screen_text(self, needles, timeout=20, device=None, rotate=0):
        """Screendump until every needle is read on screen (turned back
        first when the console is turned, rotate=1..3)."""
        if isinstance(needles, str):
            needles = [needles]
        deadline = time.monotonic() + timeout
        while True:
            img = self.screendump_dev(device)
            text = screenreader.screen_text(img.unturned(rotate))
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

    def guest(self, name, **kw):
        g = guest(self, name, **kw)
        self.guests.append(g)
        return g

    def close(self):
        for g in self.guests:
            g.close()
        self.guests = []
