"""Guest tests of the console as an fbdev device: suspend and resume, and
what a user does with /dev/fb0.  Every check reads the screen back."""
import time

import test_kms
import test_panic
from harness import check
from test_client import debugfs_numbers

CLEAR = "\033[2J\033[H"
# QEMU's i440fx machine offers S3 only with this.
S3 = ("-device", "VGA", "-global", "PIIX4_PM.disable_s3=0")


def suspend(g, seconds=3):
    """Suspend to RAM (S3), woken by the RTC; returns once the shell is
    back, with the number of sleeps so far.  kmsvt must have turned the
    display off for the sleep and set its mode again on resume: QEMU 7.2
    keeps DISPI's registers over S3, firmware that resets the display does
    not, and only the second modeset brings the picture back there."""
    before = debugfs_numbers(g, "kmsvt_stats")
    st, out = g.sh("echo +%d > /sys/class/rtc/rtc0/wakealarm && echo mem > /sys/power/state"
                   % seconds, timeout=120)
    check(st == 0, "%s: suspend failed: %r" % (g.name, out))
    after = debugfs_numbers(g, "kmsvt_stats")
    check(after["modesets"] == before["modesets"] + 1 and
          after["blanks"] == before["blanks"] + 1,
          "%s: the display was not turned off and set again over the sleep: %r -> %r" % (
              g.name, before, after))
    st, out = g.sh("dmesg | grep -c 'ACPI: PM: Waking up from system sleep state S3'")
    return int(out.strip() or 0)


def test_suspend_resume(ctx):
    """Three sleeps with the console, one with modetest holding the display,
    then a panic: the text, the master's picture and the panic screen."""
    g = test_kms.kms_guest(ctx, "suspend", devices=S3)
    g.tty_write(CLEAR + "console before the sleep\n")
    g.wait_screen_text("console before the sleep")
    for i in range(3):
        check(suspend(g) == i + 1, "%s: sleep %d did not happen" % (g.name, i + 1))
        img, _ = g.wait_screen_text("console before the sleep")
        check((img.width, img.height) == (1280, 800), "%s: %dx%d after resume" % (
            g.name, img.width, img.height))
        g.tty_write("awake %d\n" % (i + 1))
        g.wait_screen_text(["console before the sleep", "awake %d" % (i + 1)])

    conn, crtc = test_kms.ids(g.sh("kmsvt-info")[1])
    test_kms.show_pattern(g, conn, crtc, "1024x768", 1024, 768)
    check(suspend(g) == 4, "%s: sleep 4 did not happen" % g.name)
    deadline = time.monotonic() + 20
    while True:
        wrong = test_kms.bars_shown(g.screendump(), 1024, 768)
        if not wrong:
            break
        check(time.monotonic() < deadline, "%s: modetest's picture not back: %s" % (
            g.name, wrong))
        time.sleep(0.3)
    test_kms.stop_modetest(g)
    g.wait_screen_text(["console before the sleep", "awake 3"])
    g.assert_no_oops()

    test_panic.crash(g)
    test_panic.assert_panic_screen(g, "sysrq_handle_crash", "sysrq triggered crash",
                                   (1280, 800))
