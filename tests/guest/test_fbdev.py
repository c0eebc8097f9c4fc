"""Guest tests of the console as an fbdev device: suspend and resume, and
what a user does with /dev/fb0.  Every check reads the screen back."""
import os
import re
import shutil
import time

import initramfs
import screenreader
from debugfs import debugfs_numbers
from harness import CLEAR, S3, check
from kmscube import kmscube_image
from modetest import bars_shown, ids, kms_guest, kms_programs, show_pattern, stop_modetest
from panicscreen import assert_panic_screen, crash


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
    g = kms_guest(ctx, "suspend", devices=S3)
    g.tty_write(CLEAR + "console before the sleep\n")
    g.wait_screen_text("console before the sleep")
    for i in range(3):
        check(suspend(g) == i + 1, "%s: sleep %d did not happen" % (g.name, i + 1))
        img, _ = g.wait_screen_text("console before the sleep")
        check((img.width, img.height) == (1280, 800), "%s: %dx%d after resume" % (
            g.name, img.width, img.height))
        g.tty_write("awake %d\n" % (i + 1))
        g.wait_screen_text(["console before the sleep", "awake %d" % (i + 1)])

    conn, crtc = ids(g.sh("kmsvt-info")[1])
    show_pattern(g, conn, crtc, "1024x768", 1024, 768)
    check(suspend(g) == 4, "%s: sleep 4 did not happen" % g.name)
    deadline = time.monotonic() + 20
    while True:
        wrong = bars_shown(g.screendump(), 1024, 768)
        if not wrong:
            break
        check(time.monotonic() < deadline, "%s: modetest's picture not back: %s" % (
            g.name, wrong))
        time.sleep(0.3)
    stop_modetest(g)
    g.wait_screen_text(["console before the sleep", "awake 3"])
    g.assert_no_oops()

    crash(g)
    assert_panic_screen(g, "sysrq_handle_crash", "sysrq triggered crash", (1280, 800))


def fb_programs():
    tools = [shutil.which("fbset"), shutil.which("setterm")]
    check(all(tools), "fbset or setterm missing: run make deps (fbset, util-linux)")
    tool = os.path.join(initramfs.BUILD, "userspace", "kmsvt-fbtest")
    check(os.path.exists(tool), "kmsvt-fbtest not built: run make")
    return tools + [tool]


TERMINFO = {"/lib/terminfo/l/linux": "/lib/terminfo/l/linux"}


def fb_guest(ctx, name, extra_files=None, tag="fbdev", **kw):
    """A guest with fbset, setterm (and its terminfo), kmsvt-fbtest,
    kmsvt-info and modetest."""
    return ctx.guest(name, programs=fb_programs() + kms_programs(), tag=tag,
                     extra_files=dict(TERMINFO, **(extra_files or {})), **kw)


def size_is(g, w, h, timeout=10):
    """The screendump's size becomes w x h; returns the image."""
    deadline = time.monotonic() + timeout
    while True:
        img = g.screendump()
        if (img.width, img.height) == (w, h):
            return img
        check(time.monotonic() < deadline, "%s: screen is %dx%d, want %dx%d" % (
            g.name, img.width, img.height, w, h))
        time.sleep(0.2)


def test_fbset_mode(ctx):
    """fbset reads the mode, changes it to 800x600, to a size no listed
    mode has (1000x704) and back (the screen's size and the console's text
    read back), and an impossible mode is refused and changes nothing."""
    g = fb_guest(ctx, "fbset")
    st, out = g.sh("fbset")
    check(st == 0 and re.search(r'mode "1280x800', out) and "geometry 1280 800" in out,
          "%s: fbset: %r" % (g.name, out))
    st, out = g.sh("fbset -xres 800 -yres 600")
    check(st == 0, "%s: fbset 800x600: %r" % (g.name, out))
    size_is(g, 800, 600)
    g.tty_write(CLEAR + "console at 800x600\n")
    g.wait_screen_text("console at 800x600")
    st, out = g.sh("fbset")
    check("geometry 800 600" in out, "%s: fbset after the change: %r" % (g.name, out))

    for bad in ("-xres 4000 -yres 3000", "-depth 7", "-xres 801 -yres 600"):
        st, out = g.sh("fbset %s" % bad)
        check(st != 0, "%s: fbset %s was accepted: %r" % (g.name, bad, out))
        img = size_is(g, 800, 600)
        check(screenreader.find_text(img, "console at 800x600"),
              "%s: the console changed after fbset %s" % (g.name, bad))

    # A size the connector does not list: the console makes a CVT mode for
    # it (this divided by zero in the CRTC once: its CRTC timings were unset).
    st, out = g.sh("fbset -xres 1000 -yres 704")
    check(st == 0, "%s: fbset 1000x704: %r" % (g.name, out))
    size_is(g, 1000, 704)
    g.tty_write(CLEAR + "console at 1000x704\n")
    g.wait_screen_text("console at 1000x704")

    st, out = g.sh("fbset -xres 1280 -yres 800")
    check(st == 0, "%s: fbset 1280x800: %r" % (g.name, out))
    size_is(g, 1280, 800)
    g.tty_write("console back at 1280x800\n")
    g.wait_screen_text("console back at 1280x800")
    g.assert_no_oops()


def test_pan_blank_vsync(ctx):
    """Panning in the virtual screen, every blank level, console blanking
    and vsync waits, each seen on the screen."""
    g = fb_guest(ctx, "pan")
    g.sh("fbset -xres 800 -yres 600", check=True)
    size_is(g, 800, 600)
    g.tty_write(CLEAR + "\n".join("line %02d" % i for i in range(37)))
    g.wait_screen_text(["line 00", "line 36"])
    st, out = g.sh("kmsvt-fbtest info")
    check(st == 0 and "virtual 1280x800" in out, "%s: info: %r" % (g.name, out))
    # Down by two text rows: the top row of the screen is line 02.
    g.sh("kmsvt-fbtest pan 0 32", check=True)
    img = g.screendump()
    top = screenreader.read_text(img)[0]
    check(top.startswith("line 02"), "%s: after pan 0 32 the top row reads %r" % (g.name, top))
    g.sh("kmsvt-fbtest pan 0 0", check=True)
    img = g.screendump()
    top = screenreader.read_text(img)[0]
    check(top.startswith("line 00"), "%s: after pan 0 0 the top row reads %r" % (g.name, top))

    for level in (1, 2, 3, 4):
        g.sh("kmsvt-fbtest blank %d" % level, check=True)
        check(g.screendump().is_black(), "%s: blank %d is not black" % (g.name, level))
        g.sh("kmsvt-fbtest blank 0", check=True)
        g.wait_screen_text(["line 00", "line 36"])
    g.sh("setterm --blank force < /dev/tty1 > /dev/tty1", check=True)
    deadline = time.monotonic() + 10
    while not g.screendump().is_black():
        check(time.monotonic() < deadline, "%s: setterm --blank force did not blank" % g.name)
        time.sleep(0.2)
    g.sh("setterm --blank poke < /dev/tty1 > /dev/tty1", check=True)
    g.wait_screen_text(["line 00", "line 36"])

    st, out = g.sh("kmsvt-fbtest vsync 60")
    m = re.search(r"vsync 60 in ([\d.]+) ms", out)
    check(st == 0 and m, "%s: vsync: %r" % (g.name, out))
    # 60 frames at 60 Hz; under TCG a wait can only be late, never early.
    check(900 < float(m.group(1)) < 3000, "%s: 60 vsyncs took %s ms" % (g.name, m.group(1)))
    # Back to the full size while panned: the offset the new size leaves
    # no room for is moved in, the mode change is not refused.
    g.sh("kmsvt-fbtest pan 0 32", check=True)
    g.sh("fbset -xres 1280 -yres 800", check=True)
    size_is(g, 1280, 800)
    st, out = g.sh("kmsvt-fbtest info")
    check("offset 0 0" in out, "%s: after fbset 1280x800: %r" % (g.name, out))
    g.assert_no_oops()


def test_bad_fb_ioctls(ctx):
    """Absurd sizes, depth 7, pans past the virtual screen, huge and negative
    offsets, a colour map past 256: each refused, nothing changes."""
    g = fb_guest(ctx, "fb-bad")
    g.tty_write(CLEAR + "console before the bad calls\n")
    g.wait_screen_text("console before the bad calls")
    st, out = g.sh("kmsvt-fbtest bad")
    check(st == 0 and "0 failed" in out and "not ok" not in out, "%s: %r" % (g.name, out))
    check(len(re.findall(r"^ok ", out, re.M)) == 11, "%s: checks: %r" % (g.name, out))
    img = size_is(g, 1280, 800)
    check(screenreader.find_text(img, "console before the bad calls"),
          "%s: the console changed" % g.name)
    g.assert_no_oops()


def known_text(lines=300, width=150):
    """Deterministic lines of printable ASCII, every character cell varied."""
    chars = [chr(c) for c in range(33, 127)]
    out = []
    for i in range(lines):
        n = 20 + (i * 37) % (width - 20)
        out.append("%04d " % i + "".join(chars[(i * 7 + j * 13) % len(chars)]
                                         for j in range(n - 5)))
    return out


def test_cat_last_screenful(ctx):
    """A known file cat to tty1 at 32 and at 16 bpp, turned upside down,
    and the same with fbcon (vtcon=0): the last screenful is read back from
    the screen exactly, character for character."""
    lines = known_text()
    for name, bpp, modargs, extra, rotate in (
            ("32", 32, "fbdev_bpp=32", "", 0),
            ("16", 16, "fbdev_bpp=16", "", 0),
            ("rotate2", 32, "rotate=2", "", 2),
            ("fbcon-16", 16, "fbdev_bpp=16,vtcon=0", "", 0),
            ("fbcon-rotate2", 32, "vtcon=0", "fbcon=rotate:2", 2)):
        g = fb_guest(ctx, "cat-" + name, cmdline=("modargs=%s %s" % (modargs, extra)).strip(),
                     extra_files={"/etc/known.txt": ("\n".join(lines) + "\n").encode()},
                     tag="fbdev-cat")
        _, got = g.sh("cat /sys/class/graphics/fb0/bits_per_pixel")
        check(got.strip() == str(bpp), "%s: fb0 is %r bpp" % (g.name, got))
        g.tty_write(CLEAR)
        g.sh("cat /etc/known.txt > /dev/tty1", check=True, timeout=120)
        # 50 rows: the file's last 49 lines, then the cursor's empty row.
        want = lines[-49:]
        deadline = time.monotonic() + 20
        while True:
            rows = screenreader.read_text(g.screendump().unturned(rotate))
            if rows[:49] == want:
                break
            check(time.monotonic() < deadline, "%s: the screen reads\n%s\nwant\n%s" % (
                g.name, "\n".join(rows[:49]), "\n".join(want)))
            time.sleep(0.3)
        g.assert_no_oops()
        g.close()


def test_console_back_after_kills(ctx):
    """modetest and kmscube, 20 times each in one boot, killed with SIGKILL
    while they hold the display: each time the console's text is back."""
    cube = kmscube_image()
    g = ctx.guest("kills", mem=1024, programs=kms_programs() + cube["programs"],
                  libraries=cube["libraries"], extra_files=cube["extra_files"],
                  tag="kms-kmscube")
    marker = "console under the masters"
    g.tty_write(CLEAR + marker + "\n")
    g.wait_screen_text(marker)
    conn, crtc = ids(g.sh("kmsvt-info")[1])
    starts = {
        "modetest": "sleep 1000 | modetest -M kmsvt -s %s@%s:1280x800 >/tmp/m.log 2>&1 &"
                    % (conn, crtc),
        # kmscube quits when its stdin is readable: a pipe that never writes.
        "kmscube": "sleep 1000 | kmscube >/tmp/m.log 2>&1 &",
    }
    for name, start in starts.items():
        for i in range(20):
            g.sh(start)
            deadline = time.monotonic() + 60
            while screenreader.find_text(g.screendump(), marker):
                check(time.monotonic() < deadline, "%s: %s round %d never took the display: %s"
                      % (g.name, name, i, g.sh("cat /tmp/m.log")[1][-1000:]))
                time.sleep(0.2)
            g.sh("killall -9 %s sleep; while pidof %s >/dev/null; do sleep 0.1; done"
                 % (name, name))
            g.wait_screen_text(marker, timeout=10)
    g.assert_no_oops()


def test_fb_writes_under_master(ctx):
    """While modetest owns the display, writes to /dev/fb0 land in the
    console's buffer, not in the master's picture; /dev/fb0 is the console
    buffer itself, so they show as soon as the console is back."""
    g = fb_guest(ctx, "fb-under-master")
    conn, crtc = ids(g.sh("kmsvt-info")[1])
    show_pattern(g, conn, crtc, "1280x800", 1280, 800)
    g.sh("dd if=/dev/urandom of=/dev/fb0 bs=5120 count=400 2>/dev/null", check=True)
    time.sleep(0.5)
    wrong = bars_shown(g.screendump(), 1280, 800)
    check(not wrong, "%s: fbdev writes reached the master's picture: %s" % (g.name, wrong))
    stop_modetest(g)
    # The top half of the console's buffer is noise now: many colours.
    deadline = time.monotonic() + 10
    while g.screendump().crop(0, 0, 1280, 400).distinct_colors() < 1000:
        check(time.monotonic() < deadline, "%s: the writes did not show with the console"
              % g.name)
        time.sleep(0.2)
    g.assert_no_oops()
