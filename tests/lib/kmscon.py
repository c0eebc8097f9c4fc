"""Debian's kmscon (9.0, a terminal emulator in userspace with its own
scrollback and Unicode fonts) on kmsvt, from the Xorg image's chroot
(tests/lib/xorg.py): the comparison issue 21 asks for.

Debian builds kmscon with its fbdev, drm2d and drm3d backends, but DRM only
with --drm; by default it draws through /dev/fb0, kmsvt's fbdev emulation,
on a VT of its own that it puts in graphics mode (KD_GRAPHICS), as X does.
start() runs it with the 8x16 font engine: the kernel's font_8x16, the
glyphs the screen reader matches, and the same cell size as the console.
Its shell runs SCRIPT (written to /tmp in the chroot)."""
import time

import xorg
from harness import TestFailure, check

LOGIN = "/tmp/kmscon-login.sh"
OUT = "/tmp/kmscon.out"


def start(g, script, vt=2, marker=None, timeout=90):
    """kmscon on vt with script as its login program; waits for marker on
    the screen (the script must print it), returns the screendump."""
    write_script(g, xorg.MNT + LOGIN, script)
    g.xsh("kmscon --vt=%d --switchvt --font-engine=8x16 --login -- %s >%s 2>&1 </dev/null &"
          % (vt, LOGIN, OUT), check=True)
    if marker is None:
        return None
    try:
        img, _ = g.wait_screen_text(marker, timeout=timeout)
    except TestFailure as e:
        raise TestFailure("%s\n--- kmscon's log:\n%s" % (e, log(g)))
    return img


def write_script(g, path, script):
    """A shell script at path (in the busybox guest)."""
    g.write_file(path, "#!/bin/sh\n" + script + "\n")
    g.sh("chmod +x %s" % path, check=True)


def log(g):
    return g.xsh("cat %s" % OUT)[1][-3000:]


def running(g):
    st, _ = g.xsh("ps -o args= -C kmscon | grep -q -- '--vt'")
    return st == 0


def stop(g, timeout=30):
    """SIGTERM kmscon and wait until it has given its VT back."""
    g.xsh("pkill -TERM -x kmscon", check=False)
    deadline = time.monotonic() + timeout
    while running(g):
        check(time.monotonic() < deadline, "kmscon still running %d s after SIGTERM" % timeout)
        time.sleep(0.5)
