"""A Debian guest that boots by itself, with kmsvt installed the way the
README tells a user to install it: Debian 12 for Debian 12's kernels,
Debian 13 for Debian 13's (the kernel's suite in scripts/kernels).

image(rel) makes (cached under build/sysguest/, rebuilt when an input
changes):

  base-<dist>/    debootstrap --variant=minbase bookworm or trixie with
                  systemd, udev, kmod, initramfs-tools, dkms, the kernels'
                  compiler and console-setup (setupcon, kbd's setfont,
                  the fonts)
  root-<rel>/     base/ plus the guest kernel <rel> as its package would
                  install it (modules, headers, kbuild, /boot/config), an
                  initramfs made by update-initramfs with the modules the
                  VM needs (MODULES=list), root logged in on the serial
                  line, console-setup set to keep the kernel's font (its
                  "Do not change the boot/kernel font"; the tests read the
                  screen in the kernel's 8x16 unless they set a font
                  themselves), plymouth's theme (THEME; the splash shows
                  only with `splash` on the command line); then, in a
                  chroot, the documented
                  commands: `make install KVER=<rel>` in a copy of the
                  repository under /usr/local/src/kmsvt (DKMS build and
                  install, modprobe.d, initramfs hook, update-initramfs)
  <rel>.img       ext4 of root-<rel>/ (mke2fs -d), and <rel>.initrd the
                  initramfs QEMU boots with it (the one in its /boot)

image(rel, VARIANT) makes <rel>-VARIANT.img (and .initrd) from the same
root with another last step (VARIANTS): "uninstall", `make uninstall` run
after make install; "deb", no make install but `make deb`'s two packages
in /root (scripts/deb.sh, built into build/sysguest/deb/) for
test_package_apt to install; "apt", those packages installed by apt-get in
the chroot; "apt-purged", then purged; "apt-unbuilt", installed, then
DKMS's build for the kernel made to fail (a kernel kmsvt cannot serve).  A
variant that continues another ("uninstall", "apt-purged", "apt-unbuilt")
is made on a copy of that one's root, right after it.

writable_disk(ctx, rel, name) gives a test a qcow2 file over the image (the
image is never written; the file is removed at the test's end), and
boot(ctx, rel, name, disk) starts QEMU on it with the guest's own init
(systemd); the harness's shell is root's login shell on ttyS0.
"""
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading

import harness
import initramfs
import vm
import xorg

REPO = initramfs.REPO
# The Debian system a kernel's guest is: its own distribution's
# (scripts/kernels' suite), Debian 12 for Debian 12's kernels and Debian 13
# for Debian 13's, as their users have them.
PACKAGES = ("systemd", "systemd-sysv", "udev", "kmod", "initramfs-tools", "dkms", "gcc",
            "make", "libc6-dev", "procps", "pahole",
            "console-setup", "console-setup-linux", "keyboard-configuration", "kbd",
            "plymouth", "plymouth-themes", "libdrm2", "libseat1")
# What differs: the libraries the kernel headers' kbuild tools link with
# (Debian 13's 64-bit time_t transition renamed them), and Debian 13's
# kernels' compiler (gcc-14; trixie-backports' 7.x headers ask for
# gcc-14-for-host), which DKMS builds kmsvt with.
DIST_PACKAGES = {"bookworm": ("libelf1", "libssl3"),
                 "trixie": ("libelf1t64", "libssl3t64", "gcc-14", "gcc-14-for-host")}
# libelf1 and libssl3: what the kernel headers' kbuild tools link with;
# pahole: 6.12's headers make BTF for modules where /sys/kernel/btf exists.
# console-setup (setupcon, console-setup.service, its udev rule) with
# keyboard-configuration, console-setup-linux (the fonts) and kbd (setfont):
# the console's font and codeset, as Debian configures them.
# plymouth, plymouth-themes: the boot splash (THEME), shown on boots with
# `splash` on the command line (test_splash.py).
# libdrm2 and libseat1: what kmsvt-tools links with, so that the "deb"
# variant's apt installs the packages offline.
HOSTNAME = "kmsvt-guest"
# getty's prompt on tty1, read from the screen.
LOGIN = "%s login:" % HOSTNAME
# plymouth-themes' spinfinity: a blue gradient (its BackgroundStartColor
# and BackgroundEndColor) under plymouth's Debian swirl, which the tests
# recognise on the screen; Debian's own default theme comes with
# desktop-base (a large package).
THEME = "spinfinity"


def install_files():
    """What the user copies and runs: the repository's install files and
    the module's sources (the Makefile's list)."""
    return ["Makefile", "dkms.conf", "scripts"] + initramfs.module_sources()


def deb_files():
    """What `make deb` packages: the install files, debian/ and the tools."""
    return install_files() + ["debian", "userspace"]


# Bump when the way the roots or images are made changes.
LAYOUT = 6
# test_splash's probe (tests/guest/files/), in every image and enabled in
# none: the boot that wants it names it on its command line
# (systemd.wants=).  A test's disk is a qcow2 file over the image, which
# debugfs cannot write, so the probe comes with the image.
PROBE = "kmsvt-splash-probe"
TEST_FILES = ((PROBE, "/usr/local/sbin/" + PROBE),
              (PROBE + ".service", "/etc/systemd/system/%s.service" % PROBE))

def serves(rel):
    """Whether there is a guest of rel's distribution: Debian 12 and 13,
    not sid (its kernel is a smoke kernel, scripts/kernels).  tests/run.py
    runs a module whose SERVES says no for a kernel nowhere on it, and
    prints that it did not."""
    return initramfs.distribution(rel) in DIST_PACKAGES


def first_of_distribution(rel, kernels):
    """Whether rel is the first of kernels (in scripts/kernels' order) of
    its distribution with a guest."""
    return serves(rel) and rel == next(
        (k for k in kernels if serves(k)
         and initramfs.distribution(k) == initramfs.distribution(rel)), None)


def once_per_distribution(fn):
    """Mark a test whose subject is the distribution's software with
    kmsvt, not the kernel's: a removal giving bochs back (make uninstall,
    apt purge), plymouth's splash, console-setup's fonts and
    systemd-pstore over three boots, udev's permissions on the nodes.
    tests/run.py runs it on the first kernel of each distribution it runs
    (Debian 12: 6.1; Debian 13: its own 6.12), the others printed as not
    run.  What a kernel changes is tested on every full kernel: DKMS's
    build for it and its boot on kmsvt from the initramfs (test_package),
    a failed build keeping bochs, and in the busybox guests the console,
    the master hand-over plymouth makes, the panic screen and pstore
    across a reset."""
    fn.once_per_distribution = True
    return fn


DIR = os.path.join(initramfs.BUILD, "sysguest")


def _base(dist):
    """The debootstrapped system every image of dist starts from."""
    return os.path.join(DIR, "base-" + dist)
_locks = {}
_locks_lock = threading.Lock()


@contextlib.contextmanager
def _locked(key):
    """Hold the lock of key (a kernel's images, a distribution's base, make
    deb's output) against other threads and processes: the images of two
    kernels are built at once, each on its own lock, and what they share is
    built under its own."""
    with _locks_lock:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        os.makedirs(DIR, exist_ok=True)
        with open(os.path.join(DIR, ".lock-" + key), "w") as lk:
            fcntl.flock(lk, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lk, fcntl.LOCK_UN)


def log(msg):
    print("sysguest: " + msg, file=sys.stderr, flush=True)


def _sources_hash(tops):
    h = hashlib.sha256()
    for top in tops:
        path = os.path.join(REPO, top)
        files = [path] if os.path.isfile(path) else sorted(
            os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs)
        for f in files:
            h.update(os.path.relpath(f, REPO).encode())
            with open(f, "rb") as fh:
                h.update(fh.read())
    return h.hexdigest()


def _base_key(dist):
    return json.dumps({"suite": dist, "mirror": xorg.mirror(),
                       "packages": PACKAGES + DIST_PACKAGES[dist], "layout": LAYOUT})


def build_base(dist):
    """debootstrap dist's base unless its stamp matches."""
    with _locked("base-" + dist):
        _build_base(dist)


def _build_base(dist):
    base = _base(dist)
    stamp = base + ".stamp"
    key = _base_key(dist)
    if xorg._read(stamp) == key and os.path.isdir(base):
        return
    debootstrap = xorg._require("debootstrap", "debootstrap")
    tmp = base + ".new"
    xorg._remove_tree(tmp)
    cache = os.path.join(DIR, "debs-" + dist)
    os.makedirs(cache, exist_ok=True)
    packages = PACKAGES + DIST_PACKAGES[dist]
    log("debootstrap %s %s into %s ..." % (dist, ",".join(packages), tmp))
    _, secs = xorg._run([debootstrap, "--variant=minbase", "--cache-dir=" + cache,
                         "--include=" + ",".join(packages), dist, tmp, xorg.mirror()],
                        "debootstrap")
    log("debootstrap took %.0f s" % secs)
    # The downloaded packages (debootstrap leaves them in the root's apt
    # cache too): 116 MB in each of the eight images otherwise.
    xorg._run(["chroot", tmp, "apt-get", "clean"], "apt-get clean")
    xorg._remove_tree(base)
    os.rename(tmp, base)
    xorg._write(stamp, key)


def _headers(rel):
    """[(path, path in the guest)] of rel's headers, their -common and
    linux-kbuild: under build/kernels/rel/usr, or, for a kernel built in a
    Debian root of its own (scripts/kenv.sh), in that root, at the paths
    the guest has them."""
    src = initramfs.kernel_dir(rel)
    top = os.path.join(src, "root") if os.path.exists(os.path.join(src, "root")) else src
    hdr = "usr/src/linux-headers-" + rel
    common = re.search(r"^include \S*?(usr/src/linux-headers-[^/]+)/Makefile$",
                       xorg._read(os.path.join(top, hdr, "Makefile")), re.M).group(1)
    kbuild = os.path.normpath(os.path.join(
        hdr, os.readlink(os.path.join(top, hdr, "scripts")), ".."))
    return [(os.path.join(top, p), p) for p in (hdr, common, kbuild)]


def _add_kernel(root, rel):
    """The guest kernel's files where its Debian packages put them."""
    src = initramfs.kernel_dir(rel)
    os.makedirs(os.path.join(root, "lib", "modules"), exist_ok=True)
    xorg._run(["cp", "-a", os.path.join(src, "lib", "modules", rel),
               os.path.join(root, "lib", "modules", rel)], "copy modules")
    for path, dst in _headers(rel):
        os.makedirs(os.path.dirname(os.path.join(root, dst)), exist_ok=True)
        xorg._run(["cp", "-a", path, os.path.join(root, dst)], "copy " + dst)
    # deps.sh pointed a host-built kernel's headers' Makefile at build/;
    # back to /usr/src.
    mk = os.path.join(root, "usr", "src", "linux-headers-" + rel, "Makefile")
    text = xorg._read(mk)
    xorg._write(mk, re.sub(r"^include /\S*?/usr/src/", "include /usr/src/", text, flags=re.M))
    build = os.path.join(root, "lib", "modules", rel, "build")
    if os.path.lexists(build):
        os.unlink(build)
    os.symlink("/usr/src/linux-headers-" + rel, build)
    os.makedirs(os.path.join(root, "boot"), exist_ok=True)
    shutil.copy(os.path.join(src, "config"), os.path.join(root, "boot", "config-" + rel))
    shutil.copy(os.path.join(src, "vmlinuz"), os.path.join(root, "boot", "vmlinuz-" + rel))


def _configure(root, rel):
    """Host name, fstab, root logged in on ttyS0 (the harness's shell)."""
    xorg._write(os.path.join(root, "etc", "hostname"), HOSTNAME + "\n")
    xorg._write(os.path.join(root, "etc", "fstab"), "/dev/vda / ext4 defaults 0 1\n")
    dropin = os.path.join(root, "etc", "systemd", "system", "serial-getty@ttyS0.service.d")
    os.makedirs(dropin, exist_ok=True)
    xorg._write(os.path.join(dropin, "autologin.conf"),
                "[Service]\nExecStart=\nExecStart=-/sbin/agetty --autologin root --noclear "
                "%I 115200 linux\n")
    # The harness waits for this line, then talks to the shell.
    # TERM=dumb: no colours from dmesg, no bracketed paste from bash.
    xorg._write(os.path.join(root, "root", ".profile"),
                'if [ "$(tty)" = /dev/ttyS0 ]; then export TERM=dumb; echo KMSVT-INIT-READY; fi\n')
    xorg._run(["chroot", root, "passwd", "-d", "root"], "passwd -d root")
    _kernel_font(root)
    _small_initramfs(root, rel)
    for src, dst in TEST_FILES:
        shutil.copy(os.path.join(initramfs.GUEST_FILES, src), root + dst)
    # Before update-initramfs: plymouth's hook copies the theme set here.
    xorg._run(["chroot", root, "plymouth-set-default-theme", THEME], "plymouth theme")


def _kernel_font(root):
    """console-setup's "Do not change the boot/kernel font" (what debconf
    writes for it: FONTFACE and FONTSIZE empty), and its boot cache made
    again (`setupcon --save-only`, as its postinst does).  The default that
    debootstrap leaves, Fixed 8x16 (Lat15-Fixed16), would be loaded by
    console-setup's udev rule at every boot; the screen reader's default
    font is the kernel's VGA 8x16, in which the tests read the login
    prompt.  test_systemd_guest changes the font as a user would."""
    path = os.path.join(root, "etc", "default", "console-setup")
    text = xorg._read(path)
    if text is None:
        raise RuntimeError("%s missing: is console-setup in PACKAGES installed?" % path)
    lines = text.splitlines()
    lines = ['%s=""' % line.split("=")[0] if line.startswith(("FONTFACE=", "FONTSIZE=")) else line
             for line in lines]
    xorg._write(path, "\n".join(lines) + "\n")
    xorg._run(["chroot", root, "/usr/bin/env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
               "setupcon", "--save-only"], "setupcon --save-only")
    # console-setup.service runs `setupcon --save` at boot unless its cache
    # is newer than the file.  mke2fs -d keeps whole seconds, and both were
    # written within one: the file a second older, as where it was made
    # (else every first boot of a copy saves the cache again, late in the
    # boot, over a user's edit made meanwhile).
    made = int(os.stat(os.path.join(root, "etc", "console-setup",
                                    "cached_setup_terminal.sh")).st_mtime)
    os.utime(path, (made - 1, made - 1))


# The modules the guest needs to mount its root file system (those its
# kernel has: initramfs.available).
ROOT_MODULES = ("virtio_pci", "virtio_blk", "crc32c_generic", "ext4")


def _small_initramfs(root, rel):
    """An initramfs with the modules this VM needs, as one would configure a
    VM that knows its hardware (MODULES=dep, which a chroot cannot use: it
    reads the host's disks).  Debian's MODULES=most makes a 37 MB initramfs
    that update-initramfs takes minutes to write under TCG, and QEMU
    minutes to unpack; kmsvt's hook adds kmsvt and its dependencies."""
    xorg._write(os.path.join(root, "etc", "initramfs-tools", "conf.d", "kmsvt-guest.conf"),
                "MODULES=list\n")
    with open(os.path.join(root, "etc", "initramfs-tools", "modules"), "a") as f:
        f.write("".join(m + "\n" for m in initramfs.available(rel, ROOT_MODULES)))


def _chroot(root, cmd, what):
    """cmd in root/, with /proc and /dev mounted.  Not /sys: the host's
    /sys/kernel/btf would have 6.12's kbuild make the module's BTF against
    the host's kernel."""
    mounts = []
    try:
        for fs, args in (("proc", ["-t", "proc", "proc"]), ("dev", ["--bind", "/dev"])):
            point = os.path.join(root, fs)
            xorg._run(["mount"] + args + [point], "mount " + fs)
            mounts.append(point)
        return xorg._run(["chroot", root, "/usr/bin/env", "-i",
                          "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                          "HOME=/root", "/bin/sh", "-c", cmd], what)
    finally:
        for point in reversed(mounts):
            subprocess.run(["umount", point], check=False)
        left = xorg._mounts_under(root)
        if left:
            raise RuntimeError("still mounted in %s: %s" % (root, left))


def _install_make(root, rel):
    """The README's `make install`, in a copy of the repository."""
    src = os.path.join(root, "usr", "local", "src", "kmsvt")
    os.makedirs(src)
    tar = os.path.join(DIR, "src-%s.tar" % rel)
    xorg._run(["tar", "cf", tar] + install_files(), "tar", cwd=REPO)
    xorg._run(["tar", "xf", tar, "-C", src], "untar")
    os.unlink(tar)
    out, secs = _chroot(root, "cd /usr/local/src/kmsvt && make install KVER=%s" % rel,
                        "make install")
    xorg._write(os.path.join(DIR, rel + ".install.log"), out)
    log("%s: make install took %.0f s" % (rel, secs))


def _uninstall_make(root, rel):
    """The README's `make uninstall`, in the chroot (after make install)."""
    out, secs = _chroot(root, "cd /usr/local/src/kmsvt && make uninstall KVER=%s" % rel,
                        "make uninstall")
    xorg._write(os.path.join(DIR, rel + ".uninstall.log"), out)
    log("%s: make uninstall took %.0f s" % (rel, secs))


def _add_debs(root, rel):
    """`make deb`'s kmsvt-dkms and kmsvt-tools in /root, not installed."""
    out = os.path.join(DIR, "deb")
    stamp = os.path.join(DIR, "deb.stamp")
    key = _sources_hash(deb_files())
    with _locked("deb"):
        if xorg._read(stamp) != key or not os.path.isdir(out):
            _, secs = xorg._run(["sh", "scripts/deb.sh", "--no-lintian", out], "make deb",
                                cwd=REPO)
            log("%s: make deb took %.0f s" % (rel, secs))
            xorg._write(stamp, key)
    for name in sorted(os.listdir(out)):
        if name.startswith(("kmsvt-dkms_", "kmsvt-tools_")) and name.endswith(".deb"):
            shutil.copy(os.path.join(out, name), os.path.join(root, "root", name))


def _install_apt(root, rel):
    """The README's package install, `apt-get install` of make deb's two
    packages, in the chroot (as _install_make runs make install there)."""
    _add_debs(root, rel)
    out, secs = _chroot(root, package_cmd("install"), "apt-get install")
    xorg._write(os.path.join(DIR, rel + "-apt.install.log"), out)
    log("%s: apt-get install took %.0f s" % (rel, secs))


def _purge_apt(root, rel):
    """`apt-get purge` of both packages (after the install above)."""
    out, secs = _chroot(root, package_cmd("purge"), "apt-get purge")
    xorg._write(os.path.join(DIR, rel + "-apt.purge.log"), out)
    log("%s: apt-get purge took %.0f s" % (rel, secs))


# A line gcc warns about (-Wunused-variable), as tests/host/test_werror.py
# adds: DKMS's build must not make it an error.
WARNING_SYMBOL = "kmsvt_unused_by_test"
WARNING = "static int %s;" % WARNING_SYMBOL
# Where _break_build keeps the make.log of DKMS's build with it.
WARNING_LOG = "/root/kmsvt-dkms-warning.log"


def _break_build(root, rel):
    """A kernel DKMS built nothing for (after the package's install).
    First a warning in the sources DKMS builds from: DKMS's build and
    install with the guest's own compiler still succeed (no -Werror on a
    user's machine; its make.log kept at WARNING_LOG).  Then an #error:
    the kernel's module is removed and DKMS's build made again, which
    fails as for a new kernel kmsvt does not compile against; the
    initramfs is made again, as a kernel's installation does."""
    ver = re.search(r'^PACKAGE_VERSION="(.*)"$', xorg._read(os.path.join(REPO, "dkms.conf")),
                    re.M).group(1)
    out, secs = _chroot(root, "dkms remove kmsvt/{v} -k {r} && "
                        "echo '{w}' >> /usr/src/kmsvt-{v}/kmsvt_drv.c && "
                        "dkms install kmsvt/{v} -k {r} && "
                        "cp /var/lib/dkms/kmsvt/{v}/{r}/x86_64/log/make.log {log} && "
                        "grep -q '{s}.*Wunused-variable' {log} && "
                        "dkms remove kmsvt/{v} -k {r} && "
                        "echo '#error made not to build by the test' >> /usr/src/kmsvt-{v}/kmsvt_drv.c && "
                        "if dkms install kmsvt/{v} -k {r}; then exit 1; fi && "
                        "update-initramfs -u -k {r}".format(v=ver, r=rel, w=WARNING,
                                                            s=WARNING_SYMBOL, log=WARNING_LOG),
                        "DKMS's build with a warning, then with an error")
    xorg._write(os.path.join(DIR, rel + "-unbuilt.log"), out)
    log("%s: DKMS's builds with a warning and with an error, update-initramfs took %.0f s"
        % (rel, secs))


def package_cmd(what):
    """The apt-get command line that installs or purges make deb's packages
    (the debs in /root); the guest tests run the same."""
    apt = "DEBIAN_FRONTEND=noninteractive apt-get -y -q -o Dpkg::Use-Pty=0"
    if what == "install":
        return "cd /root && %s install ./kmsvt-dkms_*.deb ./kmsvt-tools_*.deb" % apt
    return "%s purge kmsvt-dkms kmsvt-tools" % apt


# What each image variant does to the root after the base, kernel and
# configuration, the files it is made from, and the variant it continues
# (its step runs on a copy of that one's root, once that image is written:
# the common part is made once).
VARIANTS = {"install": (_install_make, install_files, None),
            "uninstall": (_uninstall_make, install_files, "install"),
            "deb": (_add_debs, deb_files, None),
            "apt": (_install_apt, deb_files, None),
            "apt-purged": (_purge_apt, deb_files, "apt"),
            "apt-unbuilt": (_break_build, deb_files, "apt")}


# The variants only once_per_distribution tests boot.
ONCE_PER_DISTRIBUTION = ("uninstall", "apt-purged")


def _paths(rel, variant):
    """(image, initrd, stamp, stamp's key) of rel's variant."""
    name = rel if variant == "install" else "%s-%s" % (rel, variant)
    key = json.dumps({"base": _base_key(initramfs.distribution(rel)), "layout": LAYOUT,
                      "sources": _sources_hash(VARIANTS[variant][1]()), "rel": rel,
                      "test_files": _sources_hash(os.path.join("tests", "guest", "files", src)
                                                  for src, _ in TEST_FILES),
                      "variant": variant})
    return [os.path.join(DIR, name + ext) for ext in (".img", ".initrd", ".stamp")] + [key]


def _fresh(rel, variant):
    img, initrd, stamp, key = _paths(rel, variant)
    return xorg._read(stamp) == key and os.path.exists(img) and os.path.exists(initrd)


# Debian 13's systemd has it, and ldconfig.service and the others that
# wait on its stamps; Debian 12's has none of them.
UPDATE_DONE = "/usr/lib/systemd/systemd-update-done"


def _first_boot_done(root):
    """What a system's first boot after a package change does once, done
    in the image: ldconfig and the journal's catalog made, and
    systemd-update-done's stamps (ConditionNeedsUpdate=/etc and /var: a
    system that was installed and has booted since).  Else every test's
    boot ran them again (they are on getty's critical chain: 6.5 s of a
    Debian 13 boot under TCG, systemd-analyze critical-chain)."""
    _chroot(root, "ldconfig && journalctl --update-catalog && "
            "{ [ ! -x %s ] || %s; }" % (UPDATE_DONE, UPDATE_DONE), "first boot's updates")


def _write_image(root, rel, variant):
    """root as the variant's ext4 image, with the initramfs in its /boot."""
    img, initrd, stamp, key = _paths(rel, variant)
    _first_boot_done(root)
    shutil.copy(os.path.join(root, "boot", "initrd.img-" + rel), initrd)
    size_mb = initramfs.du_bytes(root) * 13 // 10 // (1 << 20) + 512
    tmp = img + ".new"
    xorg._run(["mke2fs", "-q", "-F", "-t", "ext4", "-L", "kmsvt-guest", "-d", root, tmp,
               "%dM" % size_mb], "mke2fs")
    os.replace(tmp, img)
    xorg._write(stamp, key)


def build_image_locked(rel, variant="install"):
    dist = initramfs.distribution(rel)
    build_base(dist)
    if not _fresh(rel, variant):
        top = VARIANTS[variant][2] or variant
        children = [v for v, (_, _, parent) in VARIANTS.items() if parent == top]
        root = os.path.join(DIR, "root-%s-%s" % (rel, top))
        xorg._remove_tree(root)
        log("%s: copy base, add the kernel, %s kmsvt ..." % (rel, top))
        xorg._run(["cp", "-a", _base(dist), root], "copy base")
        _add_kernel(root, rel)
        _configure(root, rel)
        _chroot(root, "update-initramfs -c -k %s" % rel, "update-initramfs")
        VARIANTS[top][0](root, rel)
        if not _fresh(rel, top):
            _write_image(root, rel, top)
        for child in children:
            # A removal's image (once_per_distribution) is made on the
            # way for the kernel its test runs on, and on demand else.
            if child != variant and child in ONCE_PER_DISTRIBUTION and \
                    not first_of_distribution(rel, initramfs.full_releases()):
                continue
            if child == variant or not _fresh(rel, child):
                branch = "%s-%s" % (root, child)
                xorg._remove_tree(branch)
                xorg._run(["cp", "-a", root, branch], "copy " + top)
                VARIANTS[child][0](branch, rel)
                _write_image(branch, rel, child)
                xorg._remove_tree(branch)
        xorg._remove_tree(root)
    return tuple(_paths(rel, variant)[:2])


def image(rel, variant="install"):
    """(disk image, initrd) for rel and variant (VARIANTS), building what
    is missing or stale; safe from several threads and processes at once."""
    with _locked(rel):
        return build_image_locked(rel, variant)


# tests/run.py makes a prepare job of each kernel's images: each kernel's
# are built under a lock of their own, two at a time.
PREPARE_PER_KERNEL = True


def prepare(kernels):
    """tests/run.py's PREPARE: the "install" image (and the "uninstall"
    one, made on the way) of the first of kernels of each distribution:
    the tests that boot them are once_per_distribution."""
    for rel in kernels:
        if first_of_distribution(rel, kernels):
            image(rel)


def prepare_deb(kernels):
    """The PREPARE of the tests of the "deb" variant."""
    for rel in kernels:
        image(rel, "deb")


def prepare_apt(kernels):
    """The PREPARE of the tests of the "apt" and "apt-purged" variants (the
    second made on the way to the first)."""
    for rel in kernels:
        image(rel, "apt")


def writable_disk(ctx, rel, name, variant="install"):
    """A disk of rel's image that a guest may change (and keep over a
    reboot and from one QEMU to the next), and its initrd.  It is a qcow2
    file over the image (which is never written): it holds only the
    blocks the guest writes, and the test's end removes it.  Whole copies
    (a gigabyte each, ten in a run) filled a CI machine's disk."""
    img, initrd = image(rel, variant)
    disk = os.path.join(DIR, "%s-%s.qcow2" % (rel, name))
    ctx.scratch.append(disk)
    xorg._run([xorg._require("qemu-img", "qemu-utils"), "create", "-q", "-f", "qcow2",
               "-F", "raw", "-b", img, disk], "qemu-img create")
    return disk, initrd


def start(ctx, rel, name, disk, initrd, cmdline="", reboot=False):
    """Start QEMU on the guest's own systemd from disk; returns the Guest
    while it boots (boot() waits for its login shell)."""
    # Debian's plymouth starts without `splash` too, in its text mode:
    # only the boots that ask for the splash (test_splash.py) run it.
    if "splash" not in cmdline.split():
        cmdline += " plymouth.enable=0"
    # systemd's status lines would mix with the harness's shell on ttyS0.
    g = harness.Guest(rel, initrd, cmdline=("root=/dev/vda rw systemd.show_status=0 %s"
                                            % cmdline).strip(), mem=1024,
                      extra_args=["-drive", "file=%s,if=virtio,format=qcow2" % disk],
                      name="%s-%s" % (rel, name), reboot=reboot)
    ctx.guests.append(g)
    g.start()
    return g


def boot(ctx, rel, name, disk, initrd, timeout=300, cmdline="", reboot=False,
         while_booting=None):
    """Boot the guest's own systemd from disk; returns the logged-in Guest.
    With reboot, a reboot of the guest boots it again in the same QEMU
    (see rebooted()).  while_booting(g), if given, runs between QEMU's
    start and the wait for the login shell (screendumps of the boot)."""
    g = start(ctx, rel, name, disk, initrd, cmdline=cmdline, reboot=reboot)
    if while_booting:
        while_booting(g)
    g.boot(timeout=timeout)
    _settle(g)
    return g


def _settle(g):
    # getty logs in while udev may still be loading drivers for the
    # coldplugged devices (those not in the initramfs come from the disk).
    st, out = g.sh("udevadm settle --timeout=180", timeout=200)
    if st != 0:
        raise vm.VmError("%s: udevadm settle failed (%d): %s" % (g.name, st, out))


def rebooted(g, how, timeout=300):
    """Write how (a command that reboots or crashes the guest) and wait for
    the next boot's login shell."""
    g.rebooted(how, timeout)
    _settle(g)


def reset(g, timeout=300):
    """The reset button (QMP system_reset) for a guest that panicked
    (Debian's kernels wait at a panic: no panic=N); waits for the next
    boot's login shell.  VRAM, and kmsvt's pstore strip in it, is kept."""
    since = g.serial_offset()
    g.qmp_cmd("system_reset")
    g.boot(timeout=timeout, since=since)
    _settle(g)


def driver(g):
    """The driver bound to card0: "kmsvt" or "bochs-drm"."""
    _, drv = g.sh("readlink /sys/class/drm/card0/device/driver", check=True)
    return os.path.basename(drv.strip())


def modules(g):
    """The names of the loaded modules."""
    _, mods = g.sh("cat /proc/modules", check=True)
    return {line.split()[0] for line in mods.splitlines() if line.strip()}


def power_off(g):
    """A clean power-off: what the guest wrote is on the disk (not only in
    the journal); QEMU runs with -no-reboot and exits."""
    g.write("systemctl poweroff\n")
    g.proc.wait(timeout=300)
    g.close()


def disk_initrd(ctx, disk, rel):
    """The initramfs in the /boot of a powered-off guest's disk, as a boot
    loader would take it (QEMU boots the initrd it is given): debugfs
    reads it from a raw copy of the disk, made for that and removed."""
    new, raw = disk + ".initrd", disk + ".raw"
    ctx.scratch += [new, raw]
    xorg._run([xorg._require("qemu-img", "qemu-utils"), "convert", "-O", "raw", disk, raw],
              "qemu-img convert")
    xorg._run(["debugfs", "-R", "dump /boot/initrd.img-%s %s" % (rel, new), raw],
              "debugfs dump")
    os.unlink(raw)
    return new


def assert_console_before_root(g):
    """kmsvt from the initramfs on: its console before the root mount."""
    dmesg = g.dmesg()
    con, root = dmesg.find("Console: switching to colour kmsvt"), dmesg.find("EXT4-fs (vda)")
    harness.check(0 <= con < root, "kmsvt's console (at %d) not before the root mount (at %d)"
                  % (con, root))


def assert_booted_kmsvt(g):
    """A boot with kmsvt installed (make install or its package): DKMS's
    kmsvt drives card0 from the initramfs on, bochs is not loaded, getty's
    prompt is on kmsvt's console at 1280x800."""
    harness.check(driver(g) == "kmsvt", "card0 is driven by %r, not kmsvt" % driver(g))
    mods = modules(g)
    harness.check("kmsvt" in mods and "bochs" not in mods, "modules: %s" % sorted(mods))
    _, path = g.sh("modinfo -n kmsvt", check=True)
    harness.check("/updates/dkms/kmsvt.ko" in path, "kmsvt.ko is %r, not DKMS's" % path.strip())
    assert_console_before_root(g)
    img, _ = g.wait_screen_text(LOGIN, timeout=180)
    harness.check((img.width, img.height) == (1280, 800), "mode %dx%d" % (img.width, img.height))


def assert_booted_bochs(g):
    """A boot without kmsvt (before an install, after its removal): bochs
    drives card0, no kmsvt.ko, getty's prompt on bochs' console."""
    harness.check(driver(g) == "bochs-drm", "card0 is driven by %r, not bochs" % driver(g))
    harness.check("kmsvt" not in modules(g), "kmsvt loaded: %s" % sorted(modules(g)))
    st, _ = g.sh("modinfo -n kmsvt")
    harness.check(st != 0, "kmsvt.ko is still installed")
    g.wait_screen_text(LOGIN, timeout=180)
    g.assert_no_oops()


def initramfs_files(g, rel):
    """The paths in the guest's initramfs for rel (lsinitramfs)."""
    _, out = g.sh("lsinitramfs /boot/initrd.img-%s" % rel, timeout=120, check=True)
    return out.split()


def assert_nothing_left(g, rel, paths):
    """After a removal: DKMS knows no kmsvt, none of paths (shell globs)
    exists, the initramfs has no kmsvt.ko and no kmsvt.conf."""
    _, status = g.sh("dkms status -m kmsvt")
    harness.check(not status.strip(), "dkms status after the removal: %r" % status)
    _, out = g.sh("ls -d %s 2>/dev/null" % " ".join(paths))
    harness.check(not out.strip(), "left after the removal: %r" % out)
    ours = [f for f in initramfs_files(g, rel) if "/kmsvt.ko" in f or f.endswith("/kmsvt.conf")]
    harness.check(not ours, "still in the initramfs: %s" % ours)
