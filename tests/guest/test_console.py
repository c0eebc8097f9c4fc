"""Guest tests: kmsvt binds QEMU's display, its console has the VTs (fbcon
with kmsvt.vtcon=0), and the text on the console is read back from the
screendump."""
import re
import time

from harness import CLEAR, check, screenshot


def _vt_drivers(g):
    """The bound VT console drivers' names."""
    _, vt = g.sh("for c in /sys/class/vtconsole/vtcon*; do echo $(cat $c/bind) $(cat $c/name); done")
    return [line.split(None, 2)[2] for line in vt.splitlines()
            if line.startswith("1 ") and len(line.split(None, 2)) == 3]


def _console_is_kmsvt(g, vtcon="kmsvt"):
    _, fb = g.sh("cat /proc/fb", check=True)
    check(re.search(r"^0 kmsvt$", fb, re.M), "fb0 is not kmsvt: %r" % fb)
    _, drv = g.sh("readlink /sys/class/drm/card0/device/driver", check=True)
    check(drv.strip().endswith("/kmsvt"), "card0 driver is %r" % drv)
    bound = _vt_drivers(g)
    check(bound == [vtcon], "VT console drivers bound: %r, not %r" % (bound, vtcon))


def test_boot_console(ctx):
    g = ctx.guest("boot")
    _console_is_kmsvt(g)
    _, dri = g.sh("ls /dev/dri")
    check("card0" in dri.split(), "no /dev/dri/card0: %r" % dri)
    _, mods = g.sh("cat /proc/modules")
    check(not re.search(r"^bochs ", mods, re.M), "in-tree bochs is loaded")
    # fbcon took fb0 first (7.x no longer says "is primary device").
    check(re.search(r"fbcon: kmsvt \(fb0\) is primary device|"
                    r"Console: switching to colour frame buffer device", g.dmesg()),
          "fbcon did not take fb0")
    # QEMU's EDID prefers 1280x800; fbcon's 8x16 font gives 160x50 cells.
    img, _ = g.wait_screen_text("kmsvt")
    check((img.width, img.height) == (1280, 800), "mode %dx%d" % (img.width, img.height))
    screenshot(ctx.rel, img, "console")
    g.assert_no_oops()


def test_tty1_text(ctx):
    g = ctx.guest("tty1")
    words = ["The quick brown fox", "jumps over 13 lazy dogs!", "kmsvt<>[]{}|~"]
    g.tty_write(CLEAR + "\n".join(words) + "\n")
    img, text = g.wait_screen_text(words)
    lines = text.split("\n")
    check(lines[0].startswith(words[0]), "first line reads %r" % lines[0])
    check(lines[1].startswith(words[1]), "second line reads %r" % lines[1])
    check(not img.is_black(), "screen is black")


# The vt layer's default palette (vt.c default_red/grn/blu), by ANSI colour.
ANSI = [(0, 0, 0), (170, 0, 0), (0, 170, 0), (170, 85, 0), (0, 0, 170), (170, 0, 170),
        (0, 170, 170), (170, 170, 170)]
BRIGHT = [(85, 85, 85), (255, 85, 85), (85, 255, 85), (255, 255, 85), (85, 85, 255),
          (255, 85, 255), (85, 255, 255), (255, 255, 255)]


def test_colours(ctx):
    """SGR colours as the vt layer's palette has them: the cells carry VGA
    colour numbers, the palette is in ANSI order (color_table maps them)."""
    g = ctx.guest("colours")
    line = "".join("\033[3%dm#\033[1;3%dm#\033[0m" % (i, i) for i in range(8))
    g.sh("printf '\033[2J\033[H%s\nend of colours\n' > /dev/tty1" % line, check=True)
    img, _ = g.wait_screen_text("end of colours")
    for i in range(8):
        for k, want in enumerate((ANSI[i], BRIGHT[i])):
            x = (2 * i + k) * 8
            got = {img.pixel(x + dx, y) for dx in range(8) for y in range(16)} - {(0, 0, 0)}
            if i == 0 and k == 0:
                continue            # black on black
            check(got == {want}, "SGR %d%s drawn in %r, not %r"
                  % (30 + i, " bold" if k else "", got, want))
    g.assert_no_oops()


def _video_mode(ctx, w, h):
    g = ctx.guest("video%dx%d" % (w, h), cmdline="video=%dx%d" % (w, h))
    g.tty_write(CLEAR + "mode %dx%d selected\n" % (w, h))
    img, _ = g.wait_screen_text("mode %dx%d selected" % (w, h))
    check((img.width, img.height) == (w, h), "screendump is %dx%d" % (img.width, img.height))
    _, size = g.sh("cat /sys/class/graphics/fb0/virtual_size")
    check(size.strip() == "%d,%d" % (w, h), "fb0 virtual_size %r" % size)
    g.assert_no_oops()


def test_video_1024x768(ctx):
    _video_mode(ctx, 1024, 768)


def test_video_800x600(ctx):
    _video_mode(ctx, 800, 600)


def test_rmmod_insmod(ctx):
    g = ctx.guest("reload")
    g.tty_write(CLEAR + "before reload\n")
    g.wait_screen_text("before reload")
    for rnd in range(2):
        st, out = g.sh("rmmod kmsvt")
        check(st == 0, "rmmod failed: %r" % out)
        _, dri = g.sh("ls /dev/dri 2>&1; cat /proc/fb")
        check("card0" not in dri and "kmsvt" not in dri, "device still there: %r" % dri)
        st, out = g.sh("modprobe kmsvt")
        check(st == 0, "modprobe failed: %r" % out)
        _console_is_kmsvt(g)
        g.tty_write(CLEAR + "after reload %d\n" % rnd)
        g.wait_screen_text("after reload %d" % rnd)
    g.assert_no_oops()


def test_fbcon_console(ctx):
    # kmsvt.vtcon=0 leaves the VTs to fbcon, on kmsvt's framebuffer.
    g = ctx.guest("fbcon", cmdline="modargs=vtcon=0")
    _console_is_kmsvt(g, vtcon="frame buffer device")
    g.tty_write(CLEAR + "fbcon on kmsvt\n")
    g.wait_screen_text("fbcon on kmsvt")
    g.assert_no_oops()


def test_two_cards_one_console(ctx):
    # kmsvt's console has every VT, on the first card; fbcon gets none back.
    g = ctx.guest("twocards1", devices=("-device", "VGA,id=vga0", "-device", "VGA,id=vga1"))
    _console_is_kmsvt(g)
    _, fb = g.sh("cat /proc/fb")
    check("0 kmsvt" in fb and "1 kmsvt" in fb, "/proc/fb: %r" % fb)
    g.tty_write(CLEAR + "text on tty2\n", tty=2)
    g.sh("chvt 2")
    g.wait_screen_text("text on tty2", device="vga0")
    g.sh("chvt 1")
    g.assert_no_oops()


def test_two_cards(ctx):
    # fbcon=map:01 puts tty1 on fb0 and tty2 on fb1 (fbcon's, so vtcon=0).
    g = ctx.guest("twocards", cmdline="fbcon=map:01 modargs=vtcon=0",
                  devices=("-device", "VGA,id=vga0", "-device", "VGA,id=vga1"))
    _, dri = g.sh("ls /dev/dri")
    check({"card0", "card1"} <= set(dri.split()), "cards: %r" % dri)
    for card in ("card0", "card1"):
        _, drv = g.sh("readlink /sys/class/drm/%s/device/driver" % card)
        check(drv.strip().endswith("/kmsvt"), "%s driver %r" % (card, drv))
    _, fb = g.sh("cat /proc/fb")
    check("0 kmsvt" in fb and "1 kmsvt" in fb, "/proc/fb: %r" % fb)
    g.tty_write(CLEAR + "text on the first card\n", tty=1)
    g.sh("chvt 2")
    g.tty_write(CLEAR + "text on the second card\n", tty=2)
    g.wait_screen_text("text on the first card", device="vga0")
    g.wait_screen_text("text on the second card", device="vga1")
    g.assert_no_oops()


def test_bad_module_parameter(ctx):
    g = ctx.guest("badparam", cmdline="drv=none")
    st, out = g.sh("modprobe kmsvt fbdev_bpp=13")
    check(st != 0, "fbdev_bpp=13 was accepted: %r" % out)
    check("fbdev_bpp=13 is not supported" in g.dmesg(), "no clear message in dmesg")
    _, mods = g.sh("cat /proc/modules")
    check("kmsvt" not in mods, "module stayed loaded")
    # A good value still works afterwards, and RGB565 is readable too.
    st, out = g.sh("modprobe kmsvt fbdev_bpp=16")
    check(st == 0, "fbdev_bpp=16 refused: %r" % out)
    _, bpp = g.sh("cat /sys/class/graphics/fb0/bits_per_pixel")
    check(bpp.strip() == "16", "fb0 bpp %r" % bpp)
    g.tty_write(CLEAR + "sixteen bits per pixel\n")
    g.wait_screen_text("sixteen bits per pixel")
    g.assert_no_oops()


def test_unsupported_device(ctx):
    # Without the MMIO BAR there are no DISPI registers to program.
    g = ctx.guest("nommio", devices=("-device", "VGA,mmio=off"))
    check("no DISPI MMIO BAR" in g.dmesg(), "no clear refusal in dmesg")
    _, dri = g.sh("ls /dev/dri 2>&1")
    check("card0" not in dri, "a DRM device was created: %r" % dri)
    g.assert_no_oops()


def test_bochs_display_device(ctx):
    # bochs-display has no VGA compatibility at all, only DISPI over MMIO.
    g = ctx.guest("bochsdisplay", devices=("-device", "bochs-display"))
    _console_is_kmsvt(g)
    g.tty_write(CLEAR + "bochs-display works\n")
    g.wait_screen_text("bochs-display works")
    g.assert_no_oops()


def _rotated(ctx, name, cmdline, rotate, vtcon="kmsvt"):
    g = ctx.guest(name, cmdline=cmdline)
    _console_is_kmsvt(g, vtcon=vtcon)
    words = ["turned %d: The quick brown fox" % rotate, "jumps over 13 lazy dogs!"]
    g.tty_write(CLEAR + "\n".join(words) + "\n")
    img, text = g.wait_screen_text(words, rotate=rotate)
    check((img.width, img.height) == (1280, 800), "mode %dx%d" % (img.width, img.height))
    lines = text.split("\n")
    check(lines[0].startswith(words[0]) and lines[1].startswith(words[1]),
          "turned text reads %r" % lines[:2])
    # The VT's size is the turned screen's: 800/8 x 1280/16 when on its side.
    _, size = g.sh("stty size < /dev/tty1")
    want = "80 100" if rotate % 2 else "50 160"
    check(size.strip() == want, "tty1 is %r (rows cols), not %r" % (size.strip(), want))
    g.assert_no_oops()
    g.close()


def test_rotate_kmsvt(ctx):
    for rotate in (1, 2, 3):
        _rotated(ctx, "rotate%d" % rotate, "modargs=rotate=%d" % rotate, rotate)


def test_rotate_fbcon(ctx):
    _rotated(ctx, "fbconrotate2", "fbcon=rotate:2 modargs=vtcon=0", 2,
             vtcon="frame buffer device")


def test_bad_rotate(ctx):
    g = ctx.guest("badrotate", cmdline="drv=none")
    st, out = g.sh("modprobe kmsvt rotate=4")
    check(st != 0, "rotate=4 was accepted: %r" % out)
    check("rotate=4 is not supported" in g.dmesg(), "no clear message in dmesg")
    g.assert_no_oops()


def edid_1024x768():
    """An EDID 1.3 block whose preferred (first detailed) timing is VESA's
    1024x768 at 60 Hz."""
    e = bytearray(128)
    e[0:8] = b"\x00\xff\xff\xff\xff\xff\xff\x00"
    e[8:10] = (11 << 10 | 13 << 5 | 19).to_bytes(2, "big")     # "KMS"
    e[16], e[17], e[18], e[19] = 1, 2026 - 1990, 1, 3
    e[20], e[23], e[24] = 0x80, 0x78, 0x02     # digital; preferred timing first
    e[38:54] = b"\x01" * 16                     # no standard timings
    # 65 MHz; h 1024 + 320 blank (sync 24 after, 136 wide); v 768 + 38 (3, 6).
    e[54:72] = bytes([0x64, 0x19, 0x00, 0x40, 0x41, 0x00, 0x26, 0x30, 24, 136, 0x36, 0,
                      0, 0, 0, 0, 0, 0x18])
    e[72:90] = b"\x00\x00\x00\xfc\x00" + b"kmsvt 1024\n  "
    e[90:108] = b"\x00\x00\x00\x10" + bytes(14)
    e[108:126] = b"\x00\x00\x00\x10" + bytes(14)
    e[127] = -sum(e) & 0xff
    return bytes(e)


def _wait_mode(g, w, h, text, timeout=40):
    deadline = time.monotonic() + timeout
    while True:
        img = g.screendump()
        if (img.width, img.height) == (w, h):
            break
        check(time.monotonic() < deadline, "still %dx%d, not %dx%d, after %d s" % (
            img.width, img.height, w, h, timeout))
        time.sleep(1)
    g.tty_write(CLEAR + text + "\n")
    g.wait_screen_text(text)
    _, size = g.sh("stty size < /dev/tty1")
    want = "%d %d" % (h // 16, w // 8)
    check(size.strip() == want, "tty1 is %r (rows cols), not %r" % (size.strip(), want))


def test_reprobe_resizes(ctx):
    # A new EDID (here through debugfs' edid_override) with another
    # preferred mode: the connector poll sees it and the console takes it.
    g = ctx.guest("reprobe")
    _wait_mode(g, 1280, 800, "before the new EDID")
    override = "/sys/kernel/debug/dri/0/Virtual-1/edid_override"
    octal = "".join("\\%03o" % b for b in edid_1024x768())
    # One write(): busybox's printf writes piecemeal, which debugfs refuses.
    g.sh("printf '%s' > /tmp/edid && cat /tmp/edid > %s" % (octal, override), check=True)
    _wait_mode(g, 1024, 768, "after the new EDID")
    g.sh("printf reset > %s" % override, check=True)
    _wait_mode(g, 1280, 800, "the first EDID again")
    g.assert_no_oops()


def test_reprobe_then_rmmod(ctx):
    # The console resized by a re-probe, then the module unloaded: the VTs
    # go back to fbcon, whose mode list must know the size they are at
    # (found on the debug kernel: fbcon_switch -> display_to_var ->
    # fb_videomode_to_var(NULL), a GPF in rmmod, on 6.1 and 6.12 alike).
    g = ctx.guest("reprobe-rmmod")
    _wait_mode(g, 1280, 800, "before the new EDID")
    override = "/sys/kernel/debug/dri/0/Virtual-1/edid_override"
    octal = "".join("\\%03o" % b for b in edid_1024x768())
    g.sh("printf '%s' > /tmp/edid && cat /tmp/edid > %s" % (octal, override), check=True)
    _wait_mode(g, 1024, 768, "after the new EDID")
    st, out = g.sh("rmmod kmsvt", timeout=120)
    check(st == 0, "rmmod kmsvt after the console was resized: %d %r" % (st, out))
    g.assert_no_oops()
    st, out = g.sh("modprobe kmsvt")
    check(st == 0, "modprobe failed: %r" % out)
    g.tty_write(CLEAR + "after reload\n")
    g.wait_screen_text("after reload")
    g.assert_no_oops()
