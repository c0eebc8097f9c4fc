"""A guest crashed on purpose, and kmsvt's panic screen read off its
display: whatever owned the display, the screendump must show "Kernel
panic" and the crashing function, and keep showing them."""
import time

import screenreader
from harness import check

# kmsvt's debugfs folder: panic_test (the crash triggers, with
# test_hooks=1) and panic_preview are in it.
DEBUGFS = "/sys/kernel/debug/dri/0"


def crash(g, how="sysrq"):
    """Trigger the crash; the shell does not come back."""
    if how == "sysrq":
        g.write("echo c > /proc/sysrq-trigger\n")
    else:
        g.write("echo %s > %s/panic_test\n" % (how, DEBUGFS))


def assert_panic_screen(g, function, reason, size=None, settle=3):
    """Wait for the panic, then read it off the screen, twice: it must stay."""
    g.wait_for(r"panic screen drawn in \d+ us", 90)
    time.sleep(settle)
    img, text = g.wait_screen_text(["KERNEL PANIC", "Kernel panic", function, reason], timeout=10)
    if size:
        check((img.width, img.height) == size, "panic screen is %dx%d, want %dx%d" % (
            img.width, img.height, size[0], size[1]))
    time.sleep(3)
    again = g.screendump()
    check(screenreader.find_text(again, function), "panic screen did not stay")
    return img
