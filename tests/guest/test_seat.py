"""Guest tests for fast user switching with the real seat stack: Debian's
seatd in the guest, kmsvt-session (userspace/kmsvt-session.c) taking its
seat through libseat, kmsvt-switch requesting each switch and timing it up
to the new owner's first frame.  After every switch the screendump must show
the right owner: the session's name, read with the console font it draws
with, or the console's text.  The seat stack's steps are tests/lib/seat.py's
(the switching benchmark uses them too)."""
import re
import time

from debugfs import debugfs_numbers
from harness import check
from seat import (CONSOLE, alice_and_bob, cycle, pct, seat_guest, seat_programs, start_seatd,
                  start_session, switch, top_text, wait_top)


def frame_of(g):
    m = re.search(r"frame (\d+)", top_text(g)[1])
    check(m, "%s: no frame counter on screen" % g.name)
    return int(m.group(1))


def masters(g):
    """Clients that hold DRM master now (debugfs clients, master column)."""
    st, out = g.sh("cat /sys/kernel/debug/dri/0/clients")
    check(st == 0, "%s: no debugfs clients: %r" % (g.name, out))
    rows = [line.split() for line in out.splitlines()[1:] if line.strip()]
    return [r for r in rows if len(r) > 3 and r[3] == "y"]


def summary(kind, xs):
    return "%s n=%d p50 %.1f p95 %.1f max %.1f ms" % (kind, len(xs), pct(xs, 50), pct(xs, 95),
                                                      max(xs))


def check_event_times(g, names):
    """No page-flip event of any session was stamped before its flip was
    asked for (each session counts them; its last enable line says)."""
    total = 0
    for name in names:
        log = g.sh("cat /tmp/%s.log" % name)[1]
        counts = re.findall(r"; (\d+) flips, (\d+) stamped before their request", log)
        check(counts, "%s: %s reported no flips: %r" % (g.name, name, log[-500:]))
        flips, early = map(int, counts[-1])
        check(early == 0, "%s: %s: %d of %d flip events stamped before their request" % (
            g.name, name, early, flips))
        total += flips
    print("%s: %d flip events across the switches, none stamped before its request" % (
        g.name, total), flush=True)
    return total


def test_seat_cycle(ctx):
    """alice (VT2), bob (VT3) and the console: 2->3->1->2 a hundred times."""
    g = seat_guest(ctx, "seat-cycle")
    sessions = alice_and_bob(g)
    before = debugfs_numbers(g, "kmsvt_stats")
    times = cycle(g, sessions, 100)
    after = debugfs_numbers(g, "kmsvt_stats")
    check(after["modesets"] == before["modesets"], "%s: %d full modesets in the cycle" % (
        g.name, after["modesets"] - before["modesets"]))
    check(after["mode_reloads"] == before["mode_reloads"], "%s: DISPI mode reloaded" % g.name)
    check(after["blanks"] == before["blanks"], "%s: %d black frames in the cycle" % (
        g.name, after["blanks"] - before["blanks"]))
    for kind, xs in times.items():
        print("%s: %s" % (g.name, summary(kind, xs)), flush=True)
    # bob, in the background every time alice took over: EACCES for both.
    for name in ("alice", "bob"):
        log = g.sh("cat /tmp/%s.log" % name)[1]
        revoked = re.findall(r"disabled: flip (.*), commit (.*)", log)
        check(len(revoked) >= 100, "%s: %s was disabled %d times" % (g.name, name, len(revoked)))
        bad = [r for r in revoked if r != ("Permission denied", "Permission denied")]
        check(not bad, "%s: %s in the background was not refused: %r" % (g.name, name, bad[:3]))
    check_event_times(g, ("alice", "bob"))
    # Screen right after bob was refused: alice's picture only.
    img, text = top_text(g)
    check("kmsvt-session alice" in text and "bob" not in text, "%s: screen %r" % (g.name, text))
    check(len(masters(g)) == 1, "%s: masters %r" % (g.name, masters(g)))
    g.sh("kill $(pidof kmsvt-session)")
    switch(g, 1, {})
    deadline = time.monotonic() + 10
    while masters(g):
        check(time.monotonic() < deadline, "%s: master left behind: %r" % (g.name, masters(g)))
        time.sleep(0.2)
    g.assert_no_oops()


def test_seat_four_sessions(ctx):
    """Four sessions at 1280x800 and the console on the default 16 MiB VRAM."""
    g = seat_guest(ctx, "seat-four")
    start_seatd(g)
    sessions = {}
    names = {2: "alice", 3: "bob", 4: "carol", 5: "dave"}
    for vt, name in names.items():
        start_session(g, vt, name, sessions)
    before = debugfs_numbers(g, "kmsvt_stats")
    for vt in (2, 3, 4, 5, 1, 5, 4, 3, 2, 1):
        switch(g, vt, sessions)
        img = g.screendump()
        check((img.width, img.height) == (1280, 800), "%s: %dx%d" % (g.name, img.width,
                                                                   img.height))
    after = debugfs_numbers(g, "kmsvt_stats")
    check(after["modesets"] == before["modesets"], "%s: %d modesets" % (
        g.name, after["modesets"] - before["modesets"]))
    g.assert_no_oops()


def session_pid(g, name):
    st, out = g.sh("cat /run/kmsvt-session/%s" % name)
    m = re.search(r"^pid (\d+)", out, re.M)
    check(st == 0 and m, "%s: no status of %s: %r" % (g.name, name, out))
    return int(m.group(1))


def test_seat_stopped_session(ctx):
    """alice stopped while active: what seatd does for a switch to bob is
    measured (bob waits for alice's ack); the console still comes at once;
    after SIGCONT alice draws again; alice killed: bob still works."""
    g = seat_guest(ctx, "seat-stopped")
    sessions = alice_and_bob(g)
    pid = session_pid(g, "alice")

    g.sh("kill -STOP %d" % pid)
    st, out = g.sh("kmsvt-switch -t 1000 3")
    print("%s: stopped alice -> bob: %s" % (g.name, " | ".join(out.strip().splitlines())),
          flush=True)
    check(st == 1 and "bob on vt 3 showed no frame" in out,
          "%s: seatd enabled bob before stopped alice acked: %r" % (g.name, out))
    check("kmsvt-session bob" not in top_text(g)[1], "%s: bob drew while not enabled" % g.name)
    t0 = time.monotonic()
    g.sh("kill -CONT %d" % pid)
    wait_top(g, "kmsvt-session bob", 10)
    print("%s: bob shown %.2f s (host) after SIGCONT to alice" % (g.name, time.monotonic() - t0),
          flush=True)

    switch(g, 2, sessions)
    g.sh("kill -STOP %d" % pid)
    active, _ = switch(g, 1, sessions)
    print("%s: alice stopped, switch to the console: %.1f ms" % (g.name, active), flush=True)
    check(active < 100, "%s: the console took %.1f ms with alice stopped" % (g.name, active))
    g.sh("kill -CONT %d" % pid)
    switch(g, 2, sessions)
    first = frame_of(g)
    time.sleep(1)
    check(frame_of(g) > first, "%s: alice does not draw after SIGCONT" % g.name)

    g.sh("kill -KILL %d" % pid)
    del sessions[2]
    switch(g, 1, sessions)
    switch(g, 3, sessions)
    first = frame_of(g)
    time.sleep(1)
    check(frame_of(g) > first, "%s: bob does not draw after alice was killed" % g.name)
    g.assert_no_oops()


def test_seat_seatd_killed(ctx):
    """seatd killed while alice is active: the console comes back on the next
    switch, and a new seatd and new sessions start."""
    g = seat_guest(ctx, "seat-killed")
    start_seatd(g)
    sessions = {}
    start_session(g, 2, "alice", sessions)
    g.sh("kill -KILL $(pidof seatd)")
    deadline = time.monotonic() + 10
    while g.sh("pidof kmsvt-session")[0] == 0:
        check(time.monotonic() < deadline, "%s: alice outlived her seat" % g.name)
        time.sleep(0.2)
    check("seat went away" in g.sh("cat /tmp/alice.log")[1], "%s: alice did not say why" % g.name)
    switch(g, 1, {})
    g.sh("rm -f /run/seatd.sock")
    start_seatd(g)
    sessions = {}
    start_session(g, 3, "carol", sessions)
    switch(g, 1, sessions)
    switch(g, 3, sessions)
    g.assert_no_oops()


def test_seat_bad_input(ctx):
    """No seat, a device that is not KMS, bad names: a clear error, exit 1
    or 2, and the console stays on screen."""
    g = seat_guest(ctx, "seat-bad")
    cases = [("LIBSEAT_BACKEND=seatd kmsvt-session --name alice", 1, "no seat"),
             ("kmsvt-session", 2, "usage:"),
             ("kmsvt-session --name 'a b'", 2, "is not a name"),
             ("kmsvt-session --name alice extra", 2, "usage:")]
    for cmd, want, msg in cases:
        st, out = g.sh(cmd + " 2>&1")
        check(st == want and msg in out, "%s: %s: exit %d, %r" % (g.name, cmd, st, out))
    start_seatd(g)
    st, out = g.sh("LIBSEAT_BACKEND=seatd kmsvt-session --name alice -d /dev/null 2>&1")
    check(st == 1 and "kmsvt-session: /dev/null" in out, "%s: -d /dev/null: exit %d, %r" % (
        g.name, st, out))
    st, out = g.sh("kmsvt-session --help")
    check(st == 0 and "usage: kmsvt-session" in out, "%s: --help %r" % (g.name, out))
    g.sh("kmsvt-switch 1")
    g.wait_screen_text(CONSOLE)
    check(not masters(g), "%s: a master is left: %r" % (g.name, masters(g)))
    g.assert_no_oops()


def keys(g, *names):
    """Press names together (QEMU qcodes: ctrl, alt, f1, ...)."""
    g.qmp_cmd("send-key", keys=[{"type": "qcode", "data": n} for n in names])


def test_seat_keyboard(ctx):
    """The keys a person uses: Ctrl+Alt+Fn in a session (the session asks
    the seat), Alt+Fn on the console (the kernel switches)."""
    g = seat_guest(ctx, "seat-keys")
    alice_and_bob(g)
    keys(g, "ctrl", "alt", "f3")
    wait_top(g, "kmsvt-session bob")
    keys(g, "ctrl", "alt", "f1")
    wait_top(g, CONSOLE)
    keys(g, "alt", "f2")
    wait_top(g, "kmsvt-session alice")
    keys(g, "ctrl", "alt", "f2")   # the VT we are on: nothing happens
    time.sleep(1)
    wait_top(g, "kmsvt-session alice")
    g.assert_no_oops()
