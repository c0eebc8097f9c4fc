"""Guest tests for the memory model (gem/): buffers beyond what VRAM holds,
a mapping held while its buffer moves in and out of VRAM, the primary plane
off on a running CRTC, and four double-buffered clients taking turns as
master.  kmsvt-test (groups mem and turns) does the ioctls and stops at its
checkpoints; what the screen shows there is read from the screendump."""
import os
import re
import time

import vm
from client import check_output, client_guest
from debugfs import debugfs_numbers, wait_vram_used
from harness import CLEAR, check
from panicscreen import assert_panic_screen, crash

SYNC = "/tmp/kmsvt-sync"
MODE = (1280, 800)                     # QEMU's EDID preferred mode
SCAN0 = (0x80, 0x40, 0x20)             # kmsvt-test's first scanout buffer
TURN_RGB = [(0xc0, 0x20, 0x20), (0x20, 0xc0, 0x20), (0x20, 0x20, 0xc0), (0xc0, 0xc0, 0x20)]


def debugfs_vram(g):
    return debugfs_numbers(g, "vram")


def kmsvt_stats(g):
    return debugfs_numbers(g, "kmsvt_stats")


def screen_is(g, point, rgb):
    """The whole screendump, at the preferred mode, is exactly rgb."""
    img = g.screendump(save_as="%s-%s.ppm" % (g.name, point))
    check((img.width, img.height) == MODE, "%s at %s: screen %dx%d, want %dx%d" % (
        g.name, point, img.width, img.height, MODE[0], MODE[1]))
    if img.pixels != bytes(rgb) * (img.width * img.height):
        other = sum(1 for i in range(0, len(img.pixels), 3 * 997)
                    if img.pixels[i:i + 3] != bytes(rgb))
        check(False, "%s at %s: screen is not all %r (first pixel %r, %d of %d samples differ)"
              % (g.name, point, rgb, img.pixel(0, 0), other, len(img.pixels) // (3 * 997)))


def run_synced(g, args, on_point, timeout=300):
    """Run kmsvt-test ARGS in the background with KMSVT_TEST_SYNC; at each
    checkpoint it creates, call on_point(name), then let it go on.  Returns
    (checkpoint names in order, output); every check must pass."""
    g.sh("rm -rf %s /tmp/kt.out /tmp/kt.rc; mkdir -p %s" % (SYNC, SYNC), check=True)
    g.sh("(KMSVT_TEST_SYNC=%s kmsvt-test %s >/tmp/kt.out 2>&1; echo rc=$? >/tmp/kt.rc) "
         "</dev/null >/dev/null 2>&1 &" % (SYNC, args), check=True)
    seen, deadline = [], time.monotonic() + timeout
    while True:
        _, names = g.sh("ls -1 %s" % SYNC)
        # (the serial shell may interleave a stray prompt: names are words)
        for name in re.findall(r"^(\w+)$", names, re.M):
            if name in seen:
                continue
            seen.append(name)
            on_point(name)
            g.sh("touch %s/%s.ack" % (SYNC, name), check=True)
        _, rc = g.sh("cat /tmp/kt.rc 2>/dev/null")
        rc = re.search(r"rc=(\d+)", rc)
        if rc:
            break
        check(time.monotonic() < deadline, "%s: kmsvt-test %s still running after %d s" % (
            g.name, args, timeout))
        time.sleep(0.3)
    _, out = g.sh("cat /tmp/kt.out")
    with open(os.path.join(vm.LOGDIR, "%s-%s.log" % (g.name, args.replace(" ", "_"))), "w") as f:
        f.write(out)
    check_output(g, args, int(rc.group(1)), out)
    return seen, out


def test_mem_beyond_vram(ctx):
    """A client takes buffers at the largest mode until refused: far more
    than VRAM, a clean error; another client flips on meanwhile, the console
    is untouched and VRAM use is back to its baseline afterwards.  Also the
    rest of kmsvt-test mem, with its screens read: a new buffer shown is
    black, a buffer moved back after eviction shows, the primary plane off
    on a running CRTC is black and back on shows the picture again."""
    g = client_guest(ctx, "mem")
    g.tty_write(CLEAR + "console before the memory test\n")
    g.wait_screen_text("console before the memory test")
    before = debugfs_vram(g)

    def on_point(name):
        if name == "new_buffer_black":
            screen_is(g, name, (0, 0, 0))
        elif name == "plane_off":
            screen_is(g, name, (0, 0, 0))
        elif name == "plane_on":
            screen_is(g, name, SCAN0)
        elif name == "moved_back":
            img = g.screendump()
            check((img.width, img.height) == MODE and img.pixel(0, 0) != (0, 0, 0),
                  "%s: the moved buffer is not on screen" % g.name)

    seen, out = run_synced(g, "mem", on_point)
    check(seen == ["new_buffer_black", "moved_back", "plane_off", "plane_on"],
          "%s: checkpoints %r" % (
        g.name, seen))
    m = re.search(r"^ok mem_alloc_total: (\d+) buffers of (\d+)x(\d+), (\d+) MiB", out, re.M)
    check(m, "%s: no mem_alloc_total line:\n%s" % (g.name, out[-2000:]))
    mib = int(m.group(4))
    print("%s: %s buffers of %sx%s (%d MiB) before refusal; VRAM %d MiB, limit %d MiB" % (
        g.name, m.group(1), m.group(2), m.group(3), mib, before["vram_size"] >> 20,
        before["gem_limit"] >> 20), flush=True)
    check(mib >= 4 * (before["vram_size"] >> 20), "%s: only %d MiB of buffers, VRAM is %d MiB"
          % (g.name, mib, before["vram_size"] >> 20))
    check(mib <= (before["gem_limit"] >> 20) + 8, "%s: %d MiB is past the %d MiB limit" % (
        g.name, mib, before["gem_limit"] >> 20))
    for name in ("mem_other_client_flips", "mem_hog_client", "mem_mmap_after_move_in", "mem_mmap_after_eviction", "mem_mmap_after_move_back",
                 "bad_timing_clock_int_max", "bad_timing_vrefresh_overflow"):
        check(re.search(r"^ok %s\b" % name, out, re.M), "%s: no 'ok %s'" % (g.name, name))
    after = wait_vram_used(g, before["vram_used"])
    check(after == before["vram_used"], "%s: VRAM used %d before, %d after" % (
        g.name, before["vram_used"], after))
    g.wait_screen_text("console before the memory test")
    g.assert_no_oops()


def test_mem_four_clients_take_turns(ctx):
    """Four clients with two 1280x800 buffers each (31 MiB, twice VRAM) take
    turns as master; each one's picture is on screen after its turn."""
    g = client_guest(ctx, "turns")
    g.tty_write(CLEAR + "console before the turns\n")
    g.wait_screen_text("console before the turns")
    before = kmsvt_stats(g)

    def on_point(name):
        m = re.match(r"turn_(\d)$", name)
        check(m, "%s: unexpected checkpoint %r" % (g.name, name))
        screen_is(g, name, TURN_RGB[int(m.group(1))])
        print("%s: %s on screen, %s" % (g.name, name, debugfs_vram(g)), flush=True)

    seen, out = run_synced(g, "turns", on_point)
    check(seen == ["turn_%d" % i for i in range(4)], "%s: turns %r" % (g.name, seen))
    for i in range(4):
        check(re.search(r"^ok turns_%d_vsync\b" % i, out, re.M), "%s: turn %d not vsynced:\n%s"
              % (g.name, i, out[-2000:]))
    g.wait_screen_text("console before the turns")
    # Every client uses the console's mode: each handover, and the console's
    # return, is a plane update, never a DISPI modeset.
    after = kmsvt_stats(g)
    delta = {k: after[k] - before.get(k, 0) for k in after}
    print("%s: kmsvt_stats over the turns: %r" % (g.name, delta), flush=True)
    check(delta["modesets"] == 0 and delta["mode_reloads"] == 0,
          "%s: %d modesets, %d mode reloads in the turns" % (
              g.name, delta["modesets"], delta["mode_reloads"]))
    check(delta["plane_updates"] >= 4 * 61, "%s: only %d plane updates" % (
        g.name, delta["plane_updates"]))
    g.assert_no_oops()


class _Panicked(Exception):
    pass


def test_panic_after_move(ctx):
    """The panic screen over a buffer that was evicted and has just been
    moved back into VRAM (kmsvt-test mem's checkpoint moved_back)."""
    g = client_guest(ctx, "mem-panic")

    def on_point(name):
        if name != "moved_back":
            return
        crash(g)
        assert_panic_screen(g, "sysrq_handle_crash", "sysrq triggered crash", MODE)
        raise _Panicked()

    try:
        run_synced(g, "mem", on_point)
    except _Panicked:
        return
    check(False, "%s: kmsvt-test mem ended without reaching moved_back" % g.name)
