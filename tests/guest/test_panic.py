"""Guest tests for the panic screen: whatever owns the display, after a
panic the screendump shows "Kernel panic" and the crashing function.
Each case boots its own guest; the serial log alone never counts."""
import os
import shutil
import subprocess
import time

import screenreader
import xorg
from harness import CLEAR, check, screenshot
from kmscube import kmscube_image
from modetest import ids, kms_programs, show_pattern
from panicscreen import DEBUGFS, assert_panic_screen, crash

HOOKS = "modargs=test_hooks=1"


def test_panic_console(ctx):
    g = ctx.guest("panic-console", smp=2)
    g.tty_write(CLEAR + "console text before the panic\n")
    g.wait_screen_text("console text before the panic")
    crash(g)
    img = assert_panic_screen(g, "sysrq_handle_crash", "sysrq triggered crash", (1280, 800))
    screenshot(ctx.rel, img, "panic")


def test_panic_hrtimer(ctx):
    g = ctx.guest("panic-hrtimer", cmdline=HOOKS, smp=2)
    crash(g, "hrtimer")
    assert_panic_screen(g, "kmsvt_test_panic_hrtimer", "panic in hrtimer callback")


def test_panic_modeset_locked(ctx):
    g = ctx.guest("panic-modeset", cmdline=HOOKS)
    crash(g, "modeset")
    assert_panic_screen(g, "kmsvt_test_panic_modeset", "modeset locks held")


def _panic_over_modetest(ctx, fmt, size):
    g = ctx.guest("panic-modetest-" + fmt, programs=kms_programs(), tag="kms", smp=2)
    conn, crtc = ids(g.sh("kmsvt-info")[1])
    show_pattern(g, conn, crtc, "%dx%d@%s" % (size + (fmt,)), *size)
    crash(g)
    assert_panic_screen(g, "sysrq_handle_crash", "sysrq triggered crash", size)


def test_panic_over_modetest_xrgb8888(ctx):
    _panic_over_modetest(ctx, "XR24", (1024, 768))


def test_panic_over_modetest_rgb565(ctx):
    _panic_over_modetest(ctx, "RG16", (800, 600))


def test_panic_over_kmscube(ctx):
    g = ctx.guest("panic-kmscube", mem=1024, smp=2, **kmscube_image())
    g.sh("sleep 1000 | kmscube >/tmp/cube.log 2>&1 &")
    deadline = time.monotonic() + 90
    prev = None
    while True:
        img = g.screendump()
        if prev and not img.is_black() and img.pixels != prev.pixels and img.distinct_colors() > 20:
            break
        check(time.monotonic() < deadline, "kmscube not turning: %s" % g.sh("cat /tmp/cube.log")[1][-800:])
        prev = img
        time.sleep(1)
    crash(g)
    assert_panic_screen(g, "sysrq_handle_crash", "sysrq triggered crash")


def test_oops_banner(ctx):
    g = ctx.guest("oops-banner", cmdline="modargs=test_hooks=1,oops_banner=1")
    g.tty_write(CLEAR + "console text before the oops\n")
    g.wait_screen_text("console text before the oops")
    g.write("echo oops > %s/panic_test\n" % DEBUGFS)
    g.wait_for(r"kmsvt_test_oops", 60)
    g.wait_screen_text(["Oops", "the system is still running"], timeout=30)
    # The console goes on below the banner, which stays on top.
    time.sleep(3)
    g.wait_screen_text(["Oops", "the system is still running"], timeout=5)
    # The writer was killed; the system runs on and answers a new shell.
    g.wait_for(r"\n", 5)
    time.sleep(2)
    g.write("\n")
    st, out = g.sh("stty -echo; PS1=; echo still alive", timeout=60)
    check("still alive" in out, "system did not survive the oops: %r" % out)


def test_no_banner_by_default(ctx):
    g = ctx.guest("oops-nobanner", cmdline=HOOKS)
    g.tty_write(CLEAR + "console text before the oops\n")
    g.wait_screen_text("console text before the oops")
    g.write("echo oops > %s/panic_test\n" % DEBUGFS)
    g.wait_for(r"kmsvt_test_oops", 60)
    time.sleep(3)
    text = g.screen()[1]
    check("the system is still running" not in text, "banner drawn without oops_banner=1")


def test_panic_preview(ctx):
    g = ctx.guest("panic-preview")
    g.tty_write(CLEAR + "console text before the preview\n")
    g.wait_screen_text("console text before the preview")
    g.sh("echo reserve > %s/panic_preview" % DEBUGFS, check=True)
    # The preview shows the kernel log in the reserved buffer: 640x480 at
    # 8 bpp on 16 MiB, its palette loaded by the panic path.
    img, _ = g.wait_screen_text(["KERNEL PANIC (preview)", "Initialized kmsvt"])
    check((img.width, img.height) == (640, 480), "reserve buffer is %dx%d" % (img.width, img.height))
    g.sh("echo off > %s/panic_preview" % DEBUGFS, check=True)
    img, text = g.wait_screen_text("console text before the preview")
    check("KERNEL PANIC" not in text and (img.width, img.height) == (1280, 800),
          "console not restored after the preview")
    # "current" draws into the console's own buffer, in its format.
    g.sh("echo current > %s/panic_preview" % DEBUGFS, check=True)
    img, _ = g.wait_screen_text(["KERNEL PANIC (preview)", "Initialized kmsvt"])
    check((img.width, img.height) == (1280, 800), "current preview is %dx%d" % (img.width, img.height))
    g.sh("echo off > %s/panic_preview" % DEBUGFS, check=True)
    st, _ = g.sh("echo bogus > %s/panic_preview" % DEBUGFS)
    check(st != 0, "a bad preview command was accepted")
    check(g.sh("ls %s/panic_test" % DEBUGFS)[0] != 0, "panic_test exists without test_hooks=1")
    g.assert_no_oops()


def test_panic_over_xorg(ctx):
    g, _ = xorg.xorg_xterm(ctx)
    # X holds the VT in KD_GRAPHICS: console output does not reach the screen.
    g.tty_write("console text under X\n")
    time.sleep(1)
    check(not screenreader.find_text(g.screendump(), "console text under X"),
          "fbcon drew over X: the VT is not in KD_GRAPHICS")
    crash(g)
    assert_panic_screen(g, "sysrq_handle_crash", "sysrq triggered crash", (1280, 800))


def test_panic_over_blanked_xorg(ctx):
    """The screen saver has turned the display off (DPMS off: the CRTC is
    inactive, nothing is scanned out) when the kernel panics: the panic
    screen comes up anyway, in the reserved buffer (640x480)."""
    g, _ = xorg.xorg_xterm(ctx)
    g.xsh("xset dpms force off", check=True)
    img = g.screendump()
    check(xorg.colour_count(img, (0, 0, 0)) == img.width * img.height,
          "the screen is not black with DPMS off")
    crash(g)
    assert_panic_screen(g, "sysrq_handle_crash", "sysrq triggered crash", (640, 480))


def _decode_qr(img, tmpdir):
    """Decode the QR code on the screen with zbarimg; return its text."""
    path = os.path.join(tmpdir, "qr.pgm")
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (img.width, img.height))
        f.write(bytes(img.pixels[i] for i in range(0, len(img.pixels), 3)))
    zbar = shutil.which("zbarimg")
    check(zbar, "zbarimg missing: run make deps (zbar-tools)")
    res = subprocess.run([zbar, "--nodbus", "--raw", "-q", "-Sbinary", path], capture_output=True)
    check(res.returncode == 0 and res.stdout, "zbarimg found no QR code (rc %d)" % res.returncode)
    return res.stdout.decode(errors="replace")


def _panic_qr(ctx, screen):
    g = ctx.guest("panic-qr-" + screen, cmdline="modargs=panic_screen=" + screen)
    crash(g)
    g.wait_for(r"panic screen drawn in \d+ us", 90)
    time.sleep(3)
    img = g.screendump(save_as="%s-qr.ppm" % g.name)
    text = _decode_qr(img, g.tmp)
    check("sysrq triggered crash" in text and "KERNEL PANIC" in text,
          "QR code does not carry the reason: %r" % text[:500])
    check("sysrq_handle_crash" in text, "QR code lacks the call trace: %r" % text[-1500:])
    return g, img


def test_panic_qr(ctx):
    g, img = _panic_qr(ctx, "qr")
    check(screenreader.find_text(img, "KERNEL PANIC"), "no header over the QR code")
    screenshot(ctx.rel, img, "panic-qr")


def test_panic_qr_and_log(ctx):
    g, img = _panic_qr(ctx, "both")
    check(screenreader.contains_all(img, ["KERNEL PANIC", "sysrq_handle_crash"]),
          "log not readable beside the QR code")


def test_panic_screen_parameter(ctx):
    g = ctx.guest("panic-param", cmdline="drv=none")
    st, _ = g.sh("modprobe kmsvt panic_screen=photo")
    check(st != 0, "panic_screen=photo accepted")
    check("panic_screen=photo is not supported" in g.dmesg(), "no clear message")
    g.sh("modprobe kmsvt panic_screen=both", check=True)
    _, val = g.sh("cat /sys/module/kmsvt/parameters/panic_screen")
    check(val.strip() == "both", "panic_screen reads %r" % val)
    g.assert_no_oops()
