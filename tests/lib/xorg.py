"""A Debian rootfs with a real X server for the guest tests, and the helpers
that run Xorg on kmsvt from the busybox initramfs.

build_image() makes (once, cached under build/rootfs-xorg/ with stamps)

  root/       debootstrap --variant=minbase bookworm with PACKAGES, from
              the Debian mirror the host's apt uses (mirror()), then
              apt-get install --no-install-recommends CHROOT_PACKAGES
              inside it (the Wayland compositors, seatd, udev: debootstrap
              cannot resolve sway's polkitd, apt can)
  fonts/      kmsvt-console.bdf: the kernel's font_8x16 (the very glyphs the
              screen reader matches, from screenreader.load_font()) as an
              X core font; bdftopcf and mkfontdir run inside root/ and put
              it in root/usr/share/fonts/X11/kmsvt/
  xorg.img    ext4 made by mke2fs -d from root/ (no loop mounts)

Everything is rebuilt when the package list, the suite or the font changes.
The guest side (XorgGuest) loads the block and ext4 modules carried by the
initramfs, mounts /dev/vda (attached with snapshot=on, so the image is never
written), chroots into it, starts Xorg and runs X clients there;
xorg_xterm() is Xorg with an xterm at the top left, all of it checked (the
Xorg tests start with it, and the panic tests over X).

usage: python3 tests/lib/xorg.py    build (or check) the image, print its path
"""
import fcntl
import hashlib
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import threading
import time

import harness
import initramfs
import screenreader
from harness import TestFailure, check
from vm import LOGDIR

SUITE = "bookworm"
PACKAGES = ("xserver-xorg-core", "xterm", "x11-xserver-utils", "procps", "xfonts-utils", "kmscon")
# Installed by apt-get inside root/ after debootstrap (tests/lib/wayland.py
# runs them): sway and weston, seatd for sway's libseat, swaybg for
# sway's solid background, udev and Xorg's libinput driver so that the
# compositors read the keyboard (Ctrl+Alt+Fn).
CHROOT_PACKAGES = ("sway", "swaybg", "weston", "seatd", "udev", "xserver-xorg-input-libinput")
# Bump when the way root/ or the image is made changes.
LAYOUT = 2

DIR = os.path.join(initramfs.BUILD, "rootfs-xorg")
ROOT = os.path.join(DIR, "root")
IMAGE = os.path.join(DIR, "xorg.img")
FONT_DIR_GUEST = "/usr/share/fonts/X11/kmsvt"
FONT_NAME = "-kmsvt-console-medium-r-normal--16-160-75-75-c-80-iso8859-1"
FONT_FILE = "kmsvt-console"

# Block device and filesystem for the disk, in load order.  crc32c_generic
# goes first: ext4 wants a crc32c driver but only names it as a soft
# dependency, which modules.dep does not carry (where the kernel has it:
# initramfs.available).
DISK_MODULES = ("crc32c_generic", "virtio_pci", "virtio_blk", "ext4")

_lock = threading.Lock()


class XorgError(RuntimeError):
    pass


def log(msg):
    print("xorg: " + msg, file=sys.stderr, flush=True)


# ------------------------------------------------------------------ font

def bdf_font(font=None):
    """The console's font_8x16 as BDF text: cp437 glyph i at encoding i.

    Cell 8x16, ascent 12 + descent 4, so X draws glyph row 0 at the top of
    a text row and rows are 16 pixels apart: an xterm line looks exactly
    like a line of fbcon text, which is what the screen reader matches."""
    font = font or screenreader.load_font()
    out = ["STARTFONT 2.1",
           "FONT " + FONT_NAME,
           "SIZE 16 75 75",
           "FONTBOUNDINGBOX 8 16 0 -4",
           "STARTPROPERTIES 19",
           'FOUNDRY "kmsvt"',
           'FAMILY_NAME "console"',
           'WEIGHT_NAME "medium"',
           'SLANT "r"',
           'SETWIDTH_NAME "normal"',
           'ADD_STYLE_NAME ""',
           "PIXEL_SIZE 16",
           "POINT_SIZE 160",
           "RESOLUTION_X 75",
           "RESOLUTION_Y 75",
           'SPACING "C"',
           "AVERAGE_WIDTH 80",
           'CHARSET_REGISTRY "ISO8859"',
           'CHARSET_ENCODING "1"',
           "FONT_ASCENT 12",
           "FONT_DESCENT 4",
           "DEFAULT_CHAR 32",
           'COPYRIGHT "Linux kernel lib/fonts/font_8x16.c (GPL-2.0)"',
           # (the file's old path: the font's stamp hashes this text)
           'FONT_NAME_SOURCE "kmsvt tests/xorg.py"',
           "ENDPROPERTIES",
           "CHARS 256"]
    for i, glyph in enumerate(font.glyphs):
        out += ["STARTCHAR C%02x" % i, "ENCODING %d" % i, "SWIDTH 500 0", "DWIDTH 8 0",
                "BBX 8 16 0 -4", "BITMAP"]
        out += ["%02X" % b for b in glyph]
        out.append("ENDCHAR")
    out.append("ENDFONT")
    text = "\n".join(out) + "\n"
    # STARTPROPERTIES must count the property lines exactly.
    nprops = out.index("ENDPROPERTIES") - out.index("STARTPROPERTIES 19") - 1
    return text.replace("STARTPROPERTIES 19", "STARTPROPERTIES %d" % nprops)


# ------------------------------------------------------------------ rootfs

def _require(tool, pkg):
    path = shutil.which(tool) or shutil.which(tool, path="/usr/sbin:/sbin")
    if not path:
        raise XorgError("%s missing (package %s): run 'make deps'" % (tool, pkg))
    return path


def _mounts_under(path):
    path = os.path.realpath(path)
    with open("/proc/mounts") as f:
        points = [line.split()[1].replace("\\040", " ") for line in f]
    return [p for p in points if p == path or p.startswith(path + "/")]


def _remove_tree(path):
    """rm -rf, but never through a mount (debootstrap mounts proc/sys in
    its target while it runs; an interrupted run can leave them)."""
    if not os.path.lexists(path):
        return
    for p in sorted(_mounts_under(path), key=len, reverse=True):
        subprocess.run(["umount", "-l", p], check=False)
    left = _mounts_under(path)
    if left:
        raise XorgError("refusing to delete %s: still mounted: %s" % (path, left))
    shutil.rmtree(path)


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def _write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def _run(args, what, **kw):
    t0 = time.monotonic()
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if p.returncode:
        raise XorgError("%s failed (%d): %s\n%s" % (what, p.returncode, " ".join(args),
                                                   p.stdout[-4000:]))
    return p.stdout, time.monotonic() - t0


def mirror(suite=SUITE):
    """The Debian mirror the host's apt already uses for suite, as make deps
    finds it (apt-cache policy): the project names no mirror of its own."""
    out, _ = _run(["apt-cache", "policy"], "apt-cache policy")
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[2] == suite + "/main" and f[1].startswith(("http:", "https:")):
            return f[1]
    raise XorgError("no %s/main mirror in the host's apt sources (apt-cache policy)" % suite)


def _root_key():
    return json.dumps({"suite": SUITE, "mirror": mirror(), "packages": sorted(PACKAGES),
                       "chroot_packages": sorted(CHROOT_PACKAGES),
                       "variant": "minbase", "layout": LAYOUT}, sort_keys=True)


def build_root():
    """debootstrap root/ unless its stamp matches the package list."""
    stamp = os.path.join(DIR, "root.stamp")
    key = _root_key()
    if _read(stamp) == key and os.path.isdir(ROOT):
        return False
    debootstrap = _require("debootstrap", "debootstrap")
    os.makedirs(DIR, exist_ok=True)
    if os.path.exists(stamp):
        os.unlink(stamp)
    tmp = ROOT + ".new"
    _remove_tree(tmp)
    cache = os.path.join(DIR, "debs")
    os.makedirs(cache, exist_ok=True)
    log("debootstrap %s (%s) into %s ..." % (SUITE, ",".join(PACKAGES), tmp))
    out, secs = _run([debootstrap, "--variant=minbase", "--cache-dir=" + cache,
                      "--include=" + ",".join(PACKAGES), SUITE, tmp, mirror()], "debootstrap")
    left = _mounts_under(tmp)
    if left:
        raise XorgError("debootstrap left mounts behind: %s" % left)
    log("debootstrap took %.0f s" % secs)
    secs += apt_install(tmp)
    _remove_tree(ROOT)
    os.rename(tmp, ROOT)
    _write(os.path.join(DIR, "debootstrap.seconds"), "%.1f\n" % secs)
    _write(stamp, key)
    return True


def apt_install(root):
    """apt-get install CHROOT_PACKAGES in root (debootstrap's sources.list
    names the same mirror, its resolv.conf is the host's); returns the
    seconds it took.  No daemon may start in the chroot (policy-rc.d says
    no); /proc is mounted for the maintainer scripts and unmounted after."""
    policy = os.path.join(root, "usr/sbin/policy-rc.d")
    _write(policy, "#!/bin/sh\nexit 101\n")
    os.chmod(policy, 0o755)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive", LC_ALL="C")
    proc = os.path.join(root, "proc")
    subprocess.run(["mount", "-t", "proc", "proc", proc], check=True)
    try:
        log("apt-get install %s in the chroot ..." % " ".join(CHROOT_PACKAGES))
        _, t1 = _run(["chroot", root, "apt-get", "update"], "apt-get update", env=env)
        _, t2 = _run(["chroot", root, "apt-get", "install", "-y", "--no-install-recommends"]
                     + list(CHROOT_PACKAGES), "apt-get install", env=env)
        _run(["chroot", root, "apt-get", "clean"], "apt-get clean", env=env)
    finally:
        subprocess.run(["umount", proc], check=False)
        os.unlink(policy)
    lists = os.path.join(root, "var/lib/apt/lists")
    shutil.rmtree(lists, ignore_errors=True)
    os.makedirs(os.path.join(lists, "partial"))
    left = _mounts_under(root)
    if left:
        raise XorgError("apt-get install left mounts behind: %s" % left)
    log("apt-get install took %.0f s" % (t1 + t2))
    return t1 + t2


def install_font():
    """Generate the BDF, convert it in root/ (bdftopcf, mkfontdir)."""
    bdf = bdf_font()
    key = hashlib.sha256((bdf + _root_key()).encode()).hexdigest()
    stamp = os.path.join(DIR, "font.stamp")
    dst = ROOT + FONT_DIR_GUEST
    if _read(stamp) == key and os.path.exists(os.path.join(dst, "fonts.dir")):
        return False
    fonts = os.path.join(DIR, "fonts")
    os.makedirs(fonts, exist_ok=True)
    _write(os.path.join(fonts, FONT_FILE + ".bdf"), bdf)
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    shutil.copy(os.path.join(fonts, FONT_FILE + ".bdf"), os.path.join(dst, FONT_FILE + ".bdf"))
    pcf = FONT_DIR_GUEST + "/" + FONT_FILE + ".pcf"
    # bdftopcf/mkfontdir come from xfonts-utils inside the rootfs; chroot
    # needs no mounts for them.
    _run(["chroot", ROOT, "bdftopcf", "-t", "-o", pcf, FONT_DIR_GUEST + "/" + FONT_FILE + ".bdf"],
         "bdftopcf")
    os.unlink(os.path.join(dst, FONT_FILE + ".bdf"))
    _run(["chroot", ROOT, "mkfontdir", FONT_DIR_GUEST], "mkfontdir")
    listing = _read(os.path.join(dst, "fonts.dir")) or ""
    if FONT_NAME not in listing:
        raise XorgError("mkfontdir did not list %s: %r" % (FONT_NAME, listing))
    shutil.copy(ROOT + pcf, os.path.join(fonts, FONT_FILE + ".pcf"))
    _write(stamp, key)
    return True


def build_image_locked():
    changed = build_root()
    changed = install_font() or changed
    stamp = os.path.join(DIR, "image.stamp")
    key = _read(os.path.join(DIR, "root.stamp")) + "|" + _read(os.path.join(DIR, "font.stamp"))
    if not changed and _read(stamp) == key and os.path.exists(IMAGE):
        return IMAGE
    mke2fs = _require("mke2fs", "e2fsprogs")
    size_mb = initramfs.du_bytes(ROOT) * 14 // 10 // (1 << 20) + 256
    tmp = IMAGE + ".new"
    if os.path.exists(tmp):
        os.unlink(tmp)
    log("mke2fs -d %s (%d MB) ..." % (ROOT, size_mb))
    _, secs = _run([mke2fs, "-q", "-F", "-t", "ext4", "-L", "kmsvt-xorg", "-d", ROOT,
                    tmp, "%dM" % size_mb], "mke2fs")
    log("mke2fs took %.0f s" % secs)
    os.replace(tmp, IMAGE)
    _write(stamp, key)
    return IMAGE


def prepare(kernels):
    """tests/run.py's PREPARE: the image, before the tests that boot it."""
    build_image()


def build_image():
    """Path of the ext4 image, building what is missing or stale.

    Safe to call from several threads and processes at once."""
    with _lock:
        os.makedirs(DIR, exist_ok=True)
        with open(os.path.join(DIR, ".lock"), "w") as lk:
            fcntl.flock(lk, fcntl.LOCK_EX)
            try:
                return build_image_locked()
            finally:
                fcntl.flock(lk, fcntl.LOCK_UN)


# ------------------------------------------------------------------ initramfs

def disk_modules(rel):
    """[(name, path relative to lib/modules/<rel>)] to insmod, in order.

    Modules built into rel are left out; each module comes after its
    dependencies (from modules.dep), DISK_MODULES order otherwise."""
    deps = initramfs._moddep(rel)
    builtin = initramfs._builtin(rel)
    order, seen = [], set()

    def visit(path):
        if path in seen:
            return
        seen.add(path)
        for d in deps[path]:
            visit(d)
        order.append(path)

    for name in initramfs.available(rel, DISK_MODULES):
        if name in builtin:
            continue
        for p in reversed(initramfs.resolve_modules(rel, [name])):
            visit(p)
    return [(initramfs._modname(p), p) for p in order]


def _module_bytes(rel, relpath):
    src = os.path.join(initramfs.kernel_dir(rel), "lib", "modules", rel, relpath)
    if src.endswith(".xz"):
        with lzma.open(src) as f:
            return f.read()
    with open(src, "rb") as f:
        return f.read()


def initrd_files(rel):
    """extra_files for the initramfs: the disk modules (decompressed) under
    /lib/xorg-mods/ and /bin/load-disk-modules that insmods them in order."""
    files, lines = {}, ["#!/bin/sh", "# generated by tests/lib/xorg.py"]
    for i, (name, relpath) in enumerate(disk_modules(rel)):
        guest = "/lib/xorg-mods/%02d-%s.ko" % (i, name)
        files[guest] = _module_bytes(rel, relpath)
        lines.append("grep -q '^%s ' /proc/modules || insmod %s || exit 1" % (name, guest))
    files["/bin/load-disk-modules"] = ("\n".join(lines) + "\n").encode()
    return files


def initrd(rel, flavour="kmsvt", programs=(), modules=()):
    """The flavour's initramfs plus the disk modules (cached per run),
    programs (host paths; mount_root() copies them into the chroot) and
    further kernel modules (modprobe'd by the tests)."""
    tag = "-".join(["xorg", flavour] + [os.path.basename(p) for p in programs] + list(modules))
    return harness.initrd(rel, flavour, extra_files=initrd_files(rel), tag=tag,
                          programs=list(programs), modules=tuple(modules))


# ------------------------------------------------------------------ guest

MNT = "/mnt"


class XorgGuest(harness.Guest):
    """A Guest with the Xorg disk; xsh() runs commands in the chroot."""

    programs = ()

    def mount_root(self):
        st, out = self.sh("chmod +x /bin/load-disk-modules && /bin/load-disk-modules", timeout=120)
        harness.check(st == 0, "%s: loading disk modules failed: %s" % (self.name, out))
        # virtio_blk probes asynchronously; wait for the disk node.
        self.sh("i=0; while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done")
        cmds = ["mkdir -p %s" % MNT,
                # Read-write is fine: QEMU has the image with snapshot=on.
                "mount -t ext4 /dev/vda %s" % MNT,
                "mount --bind /proc %s/proc" % MNT,
                "mount --bind /sys %s/sys" % MNT,
                "mount --bind /dev %s/dev" % MNT,
                "mkdir -p %s/dev/pts && mount -t devpts -o newinstance,ptmxmode=0666 devpts %s/dev/pts"
                % (MNT, MNT),
                "mount -t tmpfs tmpfs %s/tmp && chmod 1777 %s/tmp" % (MNT, MNT),
                "mount -t tmpfs tmpfs %s/run" % MNT,
                "mount -t tmpfs tmpfs %s/var/log" % MNT]
        cmds += ["cp /usr/bin/%s %s/usr/local/bin/" % (os.path.basename(p), MNT)
                 for p in self.programs]
        for c in cmds:
            st, out = self.sh(c, timeout=60)
            harness.check(st == 0, "%s: %r failed: %s" % (self.name, c, out))

    def xsh(self, cmd, timeout=60, check=False, display=":0"):
        """Run cmd with sh in the chroot, DISPLAY set."""
        esc = cmd.replace("'", "'\\''")
        return self.sh("chroot %s /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin "
                       "HOME=/root TERM=linux DISPLAY=%s /bin/sh -c '%s'" % (MNT, display, esc),
                       timeout=timeout, check=check)

    def start_xorg(self, timeout=240, args="-nolisten tcp -noreset", display=0, vt=1):
        """Start Xorg :display on vt and wait until it answers; returns seconds."""
        t0 = time.monotonic()
        out = "/tmp/xorg.%d.out" % display
        self.xsh("Xorg :%d vt%d %s >%s 2>&1 </dev/null &" % (display, vt, args, out), check=True)
        deadline = t0 + timeout
        while True:
            st, _ = self.xsh("xset q >/dev/null 2>&1", timeout=60, display=":%d" % display)
            if st == 0:
                self.xorg_seconds = time.monotonic() - t0
                return self.xorg_seconds
            st, alive = self.xsh("ps -o args= -C Xorg | grep -q 'Xorg :%d '" % display,
                                 timeout=60)
            if st or time.monotonic() > deadline:
                raise harness.TestFailure("%s: Xorg :%d %s after %.0f s:\n%s\n--- log:\n%s" % (
                    self.name, display, "exited" if st else "not up",
                    time.monotonic() - t0, self.xsh("cat " + out)[1][-3000:],
                    self.xorg_log(display)[-6000:]))
            time.sleep(2)

    def xorg_log(self, display=0):
        return self.xsh("cat /var/log/Xorg.%d.log" % display, timeout=60)[1]


def guest(ctx, name, flavour="kmsvt", mem=1024, programs=(), cmdline="", modules=(),
          cls=XorgGuest, **kw):
    """Boot a guest (an XorgGuest, or the subclass cls) with the flavour's
    driver, the Xorg disk mounted, programs (host paths, dynamically linked
    against the image's libraries) in its /usr/local/bin and modules in
    its initramfs."""
    img = build_image()
    rd = initrd(ctx.rel, flavour, programs, modules)
    extra = ["-drive", "file=%s,if=virtio,format=raw,snapshot=on" % img]
    g = cls(ctx.rel, rd, cmdline=("drv=%s %s" % (flavour, cmdline)).strip(), mem=mem,
                  extra_args=extra, name="%s-%s" % (ctx.rel, name), **kw)
    g.programs = programs
    ctx.guests.append(g)
    g.start()
    g.boot()
    g.mount_root()
    return g


# ------------------------------------------------------------------ xterm

ROOT_RGB = (0x12, 0x34, 0x56)
XTERM_TEXT = "KMSVT XTERM TEXT 42"
COLS, ROWS = 80, 24
# flavour -> name of the PCI driver bound to the card
PCI_DRIVER = {"kmsvt": "kmsvt", "bochs": "bochs-drm"}


def xterm_cmd(text=XTERM_TEXT):
    # -b 0 -bw 0 at +0+0 with no window manager: cell (0,0) at pixel (0,0).
    # renderFont off: xterm draws with the core font, i.e. the server draws
    # font_8x16's glyphs.
    return ("xterm -fn %s -fb %s -geometry %dx%d+0+0 -b 0 -bw 0 +sb "
            "-xrm 'XTerm*renderFont: false' -xrm 'XTerm*cursorBlink: false' "
            "-e sh -c 'echo %s; sleep 1000' >/tmp/xterm.out 2>&1 </dev/null &"
            % (FONT_NAME, FONT_NAME, COLS, ROWS, text))


def save(g, name, text):
    """text as build/test-logs/<guest>-<name>."""
    with open(os.path.join(LOGDIR, "%s-%s" % (g.name, name)), "w") as f:
        f.write(text)


def xorg_xterm(ctx, flavour="kmsvt"):
    """A guest running Xorg (modesetting on card0, its DRM master) with an
    xterm at the top left, its text read at cell (0,0) and the root window's
    colour around it; returns the guest and Xorg's log."""
    g = guest(ctx, "xorg-" + flavour, flavour=flavour)
    _, drv = g.sh("readlink /sys/class/drm/card0/device/driver", check=True)
    check(drv.strip().endswith("/" + PCI_DRIVER[flavour]), "card0 driver is %r" % drv)

    secs = g.start_xorg()
    print("%s: Xorg answered after %.0f s" % (g.name, secs), flush=True)
    log = g.xorg_log()
    save(g, "Xorg.0.log", log)
    check(re.search(r"\(II\) Loading .*/modesetting_drv\.so", log), "modesetting not loaded:\n" + log[-4000:])
    check(re.search(r"^\[.*\] \(II\) modeset\(0\): ", log, re.M), "no modeset(0) lines:\n" + log[-4000:])
    check(re.search(r"modeset\(0\): using drv /dev/dri/card0", log), "not on card0:\n" + log[-4000:])
    errors = [l for l in log.splitlines() if "(EE)" in l and "(EE) error," not in l]
    check(not [l for l in errors if "modeset" in l], "modesetting errors:\n" + "\n".join(errors))

    # The card Xorg probed and opened is kmsvt's, and Xorg is its master.
    probe = re.search(r"Platform probe for (/sys/devices/\S+)/drm/card0", log)
    check(probe, "no platform probe of card0:\n" + log[-4000:])
    _, dev = g.sh("readlink -f /sys/class/drm/card0/device; readlink /sys/class/drm/card0/device/driver")
    check(dev.split()[0] == probe.group(1) and dev.split()[1].endswith("/" + PCI_DRIVER[flavour]),
          "Xorg probed %s; card0 is %r" % (probe.group(1), dev))
    _, dri = g.sh("for d in /sys/kernel/debug/dri/*; do [ -f $d/clients ] && "
                  "echo \"$d: $(cat $d/name)\" && cat $d/clients; done")
    save(g, "dri-clients", dri)
    check(re.search(r": %s dev=" % PCI_DRIVER[flavour], dri), "debugfs dri name: %r" % dri)
    check(re.search(r"^\s*Xorg\s+\d+\s+\d+\s+y\b", dri, re.M), "Xorg is not a DRM master: %r" % dri)

    g.xsh("xsetroot -solid '#%02x%02x%02x'" % ROOT_RGB, check=True)
    st, out = g.xsh("xset +fp %s && xset fp rehash && xset q" % FONT_DIR_GUEST)
    check(st == 0 and FONT_DIR_GUEST in out, "xset +fp: %s" % out)
    g.xsh(xterm_cmd(), check=True)

    t0 = time.monotonic()
    deadline = t0 + 120
    while True:
        img = g.screendump()
        # max_mismatch=0: the server draws font_8x16's very glyphs.
        origin, lines = find_text_origin(img, XTERM_TEXT, max_mismatch=0)
        if origin is not None:
            break
        if time.monotonic() > deadline:
            path = os.path.join(LOGDIR, g.name + "-fail.ppm")
            img.save_ppm(path)
            raise TestFailure("%s: xterm text not read (%dx%d, saved %s); xterm: %s\nps: %s" % (
                g.name, img.width, img.height, path, g.xsh("cat /tmp/xterm.out")[1][-2000:],
                g.xsh("ps ax")[1][-2000:]))
        time.sleep(2)
    img.save_ppm(os.path.join(LOGDIR, g.name + "-xterm.ppm"))
    print("%s: xterm text read after %.0f s at origin %r" % (g.name, time.monotonic() - t0, origin),
          flush=True)
    check(origin == (0, 0), "xterm text at origin %r, expected (0, 0)" % (origin,))
    row = next(i for i, line in enumerate(lines) if XTERM_TEXT in line)
    check(row == 0 and lines[0].startswith(XTERM_TEXT), "xterm first line reads %r" % lines[:2])
    check((img.width, img.height) == (1280, 800), "X screen %dx%d" % (img.width, img.height))

    # The root window's colour shows outside the 640x384 xterm.
    xw, xh = COLS * 8, ROWS * 16
    for x, y in ((xw + 8, 8), (8, xh + 8), (img.width - 8, img.height - 8), (xw + 100, xh + 100)):
        check(img.pixel(x, y) == ROOT_RGB, "root window pixel (%d,%d) is %r, want %r"
              % (x, y, img.pixel(x, y), ROOT_RGB))
    n = colour_count(img, ROOT_RGB)
    check(n > img.width * img.height - xw * xh - 64 * 64,
          "only %d root-coloured pixels" % n)
    # ... and not inside it.
    check(img.pixel(xw - 4, xh - 4) != ROOT_RGB, "xterm area shows the root colour")

    log = g.xorg_log()
    save(g, "Xorg.0.log", log)
    g.assert_no_oops()
    return g, log


# ------------------------------------------------------------------ screen

def find_text_origin(img, needle, **kw):
    """(origin, lines) of the first of the 128 cell offsets at which
    needle is read, or (None, None)."""
    for oy in range(screenreader.CELL_H):
        for ox in range(screenreader.CELL_W):
            lines = screenreader.read_text(img, origin=(ox, oy), **kw)
            if any(needle in line for line in lines):
                return (ox, oy), lines
    return None, None


def colour_count(img, rgb):
    """How many pixels are exactly rgb."""
    px = bytes(rgb)
    data, n = img.pixels, 0
    i = data.find(px)
    while i >= 0:
        if i % 3 == 0:
            n += 1
            i = data.find(px, i + 3)
        else:
            i = data.find(px, i + 1)
    return n


def main():
    t0 = time.monotonic()
    path = build_image()
    print("%s (%.0f s)" % (path, time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
