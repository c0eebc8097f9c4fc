"""Guest tests: kmsvt-test, our libdrm client, checks the driver through the
standard KMS ioctls (atomic TEST_ONLY, flip events, vblank waits, GEM auth,
PRIME, bad input); the tests add what only the host sees: no oops, no VRAM
leaked, and the console back on screen when the client exits."""
import re

from client import client_guest, run_client
from debugfs import vram_used, wait_vram_used
from harness import CLEAR, check

GROUPS = ("atomic", "flip", "vblank", "auth", "prime", "bad", "mem", "turns", "perm")


def test_client_all(ctx):
    g = client_guest(ctx, "client-all")
    g.tty_write(CLEAR + "console before kmsvt-test\n")
    g.wait_screen_text("console before kmsvt-test")
    before = vram_used(g)
    out = run_client(g, "--all")
    for name in ("flip_rate", "vblank_60_timing", "auth_unauth_flink_refused",
                 "prime_mmap_shared", "bad_close_with_flip_pending"):
        check(re.search(r"^ok %s\b" % name, out, re.M), "%s: no 'ok %s' in:\n%s" % (
            g.name, name, out[-3000:]))
    after = wait_vram_used(g, before)
    check(after == before, "%s: VRAM used %d before kmsvt-test, %d after" % (g.name, before, after))
    # The client restores nothing: fbdev takes the display back on close.
    img, _ = g.wait_screen_text("console before kmsvt-test")
    check((img.width, img.height) == (1280, 800), "%s: console mode not restored: %dx%d" % (
        g.name, img.width, img.height))
    g.assert_no_oops()


def test_client_groups(ctx):
    """Each group on its own, in a fresh process: none depends on another."""
    g = client_guest(ctx, "client-groups")
    st, listed = g.sh("kmsvt-test --list")
    check(st == 0 and tuple(listed.split()) == GROUPS, "kmsvt-test --list: %r" % listed)
    st, usage = g.sh("kmsvt-test --help")
    check(st == 0 and all(grp in usage for grp in GROUPS), "kmsvt-test --help: %r" % usage)
    before = vram_used(g)
    for grp in GROUPS:
        run_client(g, grp)
    after = wait_vram_used(g, before)
    check(after == before, "%s: VRAM used %d before, %d after" % (g.name, before, after))
    g.assert_no_oops()
