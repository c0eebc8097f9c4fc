"""Guest tests: real Wayland compositors (Debian 12's sway 1.7 under seatd,
weston 10) beside an Xorg server, a kmsvt-session and the console, on
kmsvt, in one boot: switching among all of them by chvt and by the keys,
each picture read off the screen after every switch, no modeset for these
same-mode switches, and the panic screen over sway.  The image and the
helpers are tests/lib/xorg.py and tests/lib/wayland.py; docs/DESKTOPS.md
says what was learned."""
import re
import time

import wayland
import xorg
from debugfs import debugfs_numbers
from harness import check
from panicscreen import assert_panic_screen, crash

PREPARE = xorg.prepare

# VT -> the DRM client (command, uid) that must be master while it is in
# front, and no other compositor.  seatd opens a sway's card0 and so is
# listed too (as root) while a sway is in front.
MASTER = {2: ("sway", wayland.USERS["alice"]), 3: ("sway", wayland.USERS["bob"]),
          4: ("weston", 0), 5: ("Xorg", 0)}
# kmsvt-session (userspace/) under the same seatd on VT6: its name is its
# picture (read as tests/lib/seat.py does); the master is the file seatd
# opened for it, listed under seatd's or the session's name.
SESSION_MASTERS = (("seatd", 0), ("kmsvt-session", 0))

# Error lines that have nothing to do with the driver, by log; each is
# explained in docs/DESKTOPS.md.  Any other line with an error in it fails.
ERROR_RX = r"\[ERROR\]|\(EE\)|\berror\b|\bfailed\b"
HARMLESS = {
    wayland.WESTON_LOG: (r"logind: cannot setup systemd-logind helper",),
    "Xorg": (r"\(WW\) warning, \(EE\) error,",
             r'\(EE\) Failed to load module "(fbdev|vesa)" \(module does not exist',
             r"xf86OpenConsole: setsid failed",
             r"\(EE\) dbus-core: error connecting to system bus",
             r"modeset\(0\): glamor initialization failed"),
}


def pair_walk(nodes, start):
    """A walk from start through every ordered pair (a, b), a != b, of
    nodes exactly once (an Eulerian circuit of the complete digraph)."""
    left = {a: [b for b in nodes if b != a] for a in nodes}
    stack, walk = [start], []
    while stack:
        a = stack[-1]
        if left[a]:
            stack.append(left[a].pop(0))
        else:
            walk.append(stack.pop())
    return walk[::-1]


def check_masters(g, vt):
    """Only vt's owner holds DRM master (seatd's file for a seatd client)."""
    masters = g.masters()
    if vt == wayland.SESSION_VT:
        ok = masters and all(m in SESSION_MASTERS for m in masters)
        want = "some of %r" % (SESSION_MASTERS,)
    else:
        want = [MASTER[vt]] if vt in MASTER else []
        if vt in (2, 3):
            want = sorted(want + [("seatd", 0)])
        ok = masters == want
    check(ok, "%s: on VT%d the DRM masters are %r, want %s" % (g.name, vt, masters, want))


def check_logs(g):
    """Keep every log; the error lines that are not known harmless ones."""
    texts = g.save_logs(wayland.LOGS + (wayland.WESTON_OUT, wayland.UDEV_LOG))
    texts["Xorg"] = g.xorg_log(wayland.XORG_DISPLAY)
    xorg.save(g, "Xorg.%d.log" % wayland.XORG_DISPLAY, texts["Xorg"])
    bad = []
    for name, text in texts.items():
        for line in text.splitlines():
            if re.search(ERROR_RX, line, re.I) and not any(
                    re.search(h, line) for h in HARMLESS.get(name, ())):
                bad.append("%s: %s" % (name, line))
    return bad


def test_wayland_switching(ctx):
    """The console, two sways (alice, bob), weston, Xorg and a kmsvt-session
    on VT1-6: chvt
    through every ordered pair of them, each picture read after every
    switch, no modeset or mode reload and one DRM master at a time; then
    Ctrl+Alt+Fn from the console and from each compositor; then a panic
    with sway in front, its screen read."""
    g = wayland.guest(ctx, "wayland")
    # make run's desktop (tests/demo.py): the same sessions, its console text.
    g.start_desktop(console=wayland.DEMO_CONSOLE)
    g.sh("chvt 1", check=True)
    g.wait_screen_text([line.strip() for line in wayland.DEMO_CONSOLE.splitlines()])

    walk = pair_walk([1, 2, 3, 4, 5, wayland.SESSION_VT], 1)
    before = debugfs_numbers(g, "kmsvt_stats")
    t0 = time.monotonic()
    worst = 0.0
    for vt in walk[1:]:
        g.sh("chvt %d" % vt, check=True)
        worst = max(worst, g.show(vt))
        check_masters(g, vt)
    after = debugfs_numbers(g, "kmsvt_stats")
    print("%s: %d chvt switches in %.0f s (slowest picture %.1f s), kmsvt_stats %r -> %r" % (
        g.name, len(walk) - 1, time.monotonic() - t0, worst, before, after), flush=True)
    check(after["modesets"] == before["modesets"] and
          after["mode_reloads"] == before["mode_reloads"],
          "%s: %d modesets, %d mode reloads in same-mode switches" % (
              g.name, after["modesets"] - before["modesets"],
              after["mode_reloads"] - before["mode_reloads"]))

    # The keys: the kernel's keyboard handler from the console, the
    # session's own (libinput, or evdev through the seat) from sway,
    # weston, Xorg and kmsvt-session.
    t0 = time.monotonic()
    for frm, to in ((1, 2), (2, 4), (4, 3), (3, 5), (5, 1), (1, 4), (4, 6), (6, 2)):
        g.sh("chvt %d" % frm, check=True)
        g.show(frm)
        g.send_key("ctrl", "alt", "f%d" % to)
        g.show(to)
    print("%s: Ctrl+Alt+Fn switches in %.0f s" % (g.name, time.monotonic() - t0), flush=True)
    # sway and kmsvt-session read those keys themselves and asked seatd
    # (libseat) for the switch: a chvt never shows in seatd's log this way.
    _, seatd = g.wsh("cat " + wayland.SEATD_LOG)
    for frm, to in ((2, 4), (3, 5), (6, 2)):
        check("Switching from VT %d to VT %d" % (frm, to) in seatd,
              "%s: the session on VT%d did not ask seatd for VT%d:\n%s" % (
                  g.name, frm, to, seatd[-3000:]))

    bad = check_logs(g)
    check(not bad, "%s: errors logged:\n%s" % (g.name, "\n".join(bad)))
    g.assert_no_oops()

    # Alice's sway in front (VT2, from the last key switch): the panic screen.
    crash(g)
    assert_panic_screen(g, "sysrq_handle_crash", "sysrq triggered crash", wayland.SIZE)
