"""Guest tests: libdrm clients see a complete KMS device, and the console
comes back when a DRM master goes away."""
import os
import re
import shutil
import time

import initramfs
from harness import check

CLEAR = "\033[2J\033[H"


def kms_programs():
    tools = [shutil.which("modetest")]
    check(tools[0], "modetest missing: run make deps (libdrm-tests)")
    tools.append(os.path.join(initramfs.BUILD, "userspace", "kmsvt-info"))
    check(os.path.exists(tools[1]), "kmsvt-info not built: run make")
    return tools


def kms_guest(ctx, name, **kw):
    return ctx.guest(name, programs=kms_programs(), tag="kms", **kw)


def ids(info):
    conn = re.search(r"^connector (\d+): Virtual-1 connected", info, re.M)
    crtc = re.search(r"^crtc (\d+):", info, re.M)
    check(conn and crtc, "kmsvt-info output: %r" % info)
    return conn.group(1), crtc.group(1)


def test_kms_info(ctx):
    g = kms_guest(ctx, "info")
    st, info = g.sh("kmsvt-info -m")
    check(st == 0, "kmsvt-info failed: %r" % info)
    check(re.search(r"^driver: kmsvt 1\.0\.0", info, re.M), "driver: %r" % info)
    check("mode 1280x800@" in info and re.search(r"1280x800@\d+ preferred", info),
          "EDID preferred mode missing: %r" % info)
    check(re.search(r"^crtc \d+: 1280x800 fb \d+", info, re.M), "console CRTC not on: %r" % info)
    check(re.search(r"^plane \d+: formats XR24 AR24 RG16 XR15$", info, re.M), "formats: %r" % info)
    # Modes that do not fit DISPI's 8-pixel granularity must not be offered.
    for w in re.findall(r"mode (\d+)x\d+@", info):
        check(int(w) % 8 == 0, "mode width %s not a multiple of 8" % w)
    st, out = g.sh("modetest -M kmsvt -c")
    check(st == 0 and "Virtual-1" in out, "modetest -c: %r" % out[-2000:])


def test_master_leaves_console_returns(ctx):
    g = kms_guest(ctx, "master")
    g.tty_write(CLEAR + "console before modetest\n")
    g.wait_screen_text("console before modetest")
    conn, crtc = ids(g.sh("kmsvt-info")[1])
    g.sh("sleep 1000 | modetest -M kmsvt -s %s@%s:1024x768 >/tmp/mt.log 2>&1 &" % (conn, crtc))
    deadline = time.monotonic() + 30
    while True:
        img = g.screendump()
        if (img.width, img.height) == (1024, 768) and img.distinct_colors() > 8:
            break
        check(time.monotonic() < deadline, "modetest pattern never shown: %dx%d, %s" % (
            img.width, img.height, g.sh("cat /tmp/mt.log")[1][-1500:]))
        time.sleep(0.5)
    img.save_ppm(os.path.join(os.path.dirname(g.log_path), g.name + "-pattern.ppm"))
    # modetest's SMPTE bars: grey, then yellow, then cyan across the top.
    for x, want in ((70, (192, 192, 192)), (220, (192, 192, 0)), (365, (0, 192, 192))):
        got = img.pixel(x, 100)
        check(all(abs(a - b) < 24 for a, b in zip(got, want)),
              "pixel (%d,100) is %r, want %r" % (x, got, want))
    # The pattern is not console text.
    check("console before modetest" not in g.screen()[1], "console still visible")
    g.sh("killall -9 modetest; sleep 1")
    img, _ = g.wait_screen_text("console before modetest")
    check((img.width, img.height) == (1280, 800), "mode not restored: %dx%d" % (img.width, img.height))
    g.tty_write("console after modetest\n")
    g.wait_screen_text(["console before modetest", "console after modetest"])
    g.assert_no_oops()
