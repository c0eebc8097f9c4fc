"""libdrm's modetest and test programs (Debian's libdrm-tests) in a guest:
the image's programs, the connector and CRTC ids kmsvt-info prints, and
modetest's SMPTE pattern set and read back from the screen."""
import os
import re
import shutil
import time

import initramfs
from harness import check

# libdrm's own test programs (Debian's libdrm-tests) besides modetest.
LIBDRM_TESTS = ("vbltest", "proptest", "modeprint", "drmdevice")


def kms_programs():
    tools = [shutil.which(t) for t in ("modetest",) + LIBDRM_TESTS]
    check(all(tools), "libdrm-tests missing: run make deps")
    for tool in ("kmsvt-info", "kmsvt-bench"):
        tools.append(os.path.join(initramfs.BUILD, "userspace", tool))
        check(os.path.exists(tools[-1]), "%s not built: run make" % tool)
    return tools


def kms_guest(ctx, name, **kw):
    return ctx.guest(name, programs=kms_programs(), tag="kms", **kw)


def ids(info):
    conn = re.search(r"^connector (\d+): Virtual-1 connected", info, re.M)
    crtc = re.search(r"^crtc (\d+):", info, re.M)
    check(conn and crtc, "kmsvt-info output: %r" % info)
    return conn.group(1), crtc.group(1)


# modetest's SMPTE bars: grey, yellow, cyan are the first three of seven.
BARS = ((192, 192, 192), (192, 192, 0), (0, 192, 192))


def close_to(got, want, tol=24):
    return all(abs(a - b) < tol for a, b in zip(got, want))


def bars_shown(img, w, h):
    """The three first SMPTE bars at w x h, or a description of what is there."""
    if (img.width, img.height) != (w, h):
        return "%dx%d" % (img.width, img.height)
    for i, want in enumerate(BARS):
        x = (2 * i + 1) * w // 14
        if not close_to(img.pixel(x, h // 3), want):
            return "bar %d at (%d,%d) is %r, want %r" % (i, x, h // 3, img.pixel(x, h // 3), want)
    return None


def show_pattern(g, conn, crtc, spec, w, h, timeout=30):
    """Run modetest -s until its pattern is on screen at w x h; return the shot."""
    g.sh("sleep 1000 | modetest -M kmsvt -s %s@%s:%s >/tmp/mt.log 2>&1 &" % (conn, crtc, spec))
    deadline = time.monotonic() + timeout
    while True:
        img = g.screendump()
        wrong = bars_shown(img, w, h)
        if not wrong:
            return img
        check(time.monotonic() < deadline, "%s: pattern never shown: %s; log: %s" % (
            spec, wrong, g.sh("cat /tmp/mt.log")[1][-1500:]))
        time.sleep(0.3)


def stop_modetest(g):
    g.sh("killall -9 modetest; while pidof modetest >/dev/null; do sleep 0.1; done")
