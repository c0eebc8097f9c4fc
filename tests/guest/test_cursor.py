"""Guest tests: the cursor of kmsvt's console blinks as fbcon's does (at the
VT's rate, 200 ms a half), only its own cell changing on screen, and the
blinking stops while a DRM master holds the display and starts again when
it leaves (debugfs kmsvt_console counts the blinks)."""
import time

from debugfs import debugfs_numbers
from harness import CLEAR, check
from modetest import ids, kms_guest, show_pattern, stop_modetest

W, H = 1280, 800
# After one line of text the cursor is in column 0 of row 1 (8x16 cells).
CX, CY, CW, CH = 0, 16, 8, 16


def _outside_cell(img):
    """The screen's pixels but the cursor cell's."""
    stride, p = img.width * 3, img.pixels
    return (p[:CY * stride] + p[(CY + CH) * stride:] +
            b"".join(p[y * stride + (CX + CW) * 3:(y + 1) * stride] for y in range(CY, CY + CH)))


def _rows(a, b):
    """The first and last pixel rows where a and b differ."""
    stride = a.width * 3
    rows = [y for y in range(a.height)
            if a.pixels[y * stride:(y + 1) * stride] != b.pixels[y * stride:(y + 1) * stride]]
    return (rows[0], rows[-1]) if rows else None


def _blinks(g):
    return debugfs_numbers(g, "kmsvt_console")["blinks"]


def test_cursor_blinks(ctx):
    g = kms_guest(ctx, "blink")
    g.tty_write(CLEAR + "the cursor blinks below\n")
    first, _ = g.wait_screen_text("the cursor blinks below")
    # The text can be read while the console's update that clears the
    # rest of the screen is still being drawn below it (a screendump is
    # no vblank): the reference is the first picture the next one agrees
    # with outside the cursor's cell.
    rest, deadline = _outside_cell(first), time.monotonic() + 10
    while time.monotonic() < deadline:
        time.sleep(0.05)
        img = g.screendump()
        now = _outside_cell(img)
        if now == rest:
            break
        first, rest = img, now
    cells, deadline = set(), time.monotonic() + 10
    while len(cells) < 2 and time.monotonic() < deadline:
        img = g.screendump()
        if _outside_cell(img) != rest:
            img.save_ppm(g.log_path.replace(".serial.log", "-changed.ppm"))
            first.save_ppm(g.log_path.replace(".serial.log", "-first.ppm"))
            check(False, "pixels outside the cursor's cell changed: rows %s" % _rows(first, img))
        cells.add(img.crop(CX, CY, CW, CH).pixels)
        time.sleep(0.03)
    check(len(cells) == 2, "the cursor's cell never changed in 10 s: no blink")
    b0 = _blinks(g)
    time.sleep(1)
    check(_blinks(g) - b0 >= 3, "fewer than 3 blinks in a second: %d" % (_blinks(g) - b0))

    # A master's picture: no blinking behind it.
    _, info = g.sh("kmsvt-info", check=True)
    conn, crtc = ids(info)
    show_pattern(g, conn, crtc, "1280x800", W, H)
    time.sleep(0.5)
    b1 = _blinks(g)
    time.sleep(2)
    b2 = _blinks(g)
    check(b2 == b1, "the cursor blinked %d times under a master" % (b2 - b1))
    stop_modetest(g)
    g.wait_screen_text("the cursor blinks below")
    time.sleep(1.5)
    check(_blinks(g) > b2, "no blinking after the master left")
    g.assert_no_oops()
