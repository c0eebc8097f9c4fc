"""Guest tests for fast user switching with the real seat stack: Debian's
seatd in the guest, kmsvt-session (userspace/kmsvt-session.c) taking its
seat through libseat, kmsvt-switch requesting each switch and timing it up
to the new owner's first frame.  After every switch the screendump must show
the right owner: the session's name, read with the console font it draws
with, or the console's text."""
import os
import re
import time

import initramfs
import screenreader
from harness import check
from test_client import CLEAR, debugfs_numbers

SEATD = "/usr/sbin/seatd"
CONSOLE = "CONSOLE ON TTY1"
TOOLS = ("kmsvt-session", "kmsvt-switch", "kmsvt-info")


def seat_programs():
    """seatd and the tools, as host paths; each must exist."""
    progs = [SEATD] + [os.path.join(initramfs.BUILD, "userspace", t) for t in TOOLS]
    for p in progs:
        check(os.path.exists(p), "%s missing: run make deps and make" % p)
    return progs


def seat_guest(ctx, name, flavour="kmsvt", **kw):
    """A guest with seatd and the tools; flavour "bochs" for the baseline."""
    g = ctx.guest(name, flavour=flavour, programs=seat_programs(), tag="seat-" + flavour,
                  modules=("evdev",), **kw)
    g.tty_write(CLEAR + CONSOLE + "\n")
    g.wait_screen_text(CONSOLE)
    return g


def daemon(cmd):
    """cmd in the background, but not as a job of the serial shell: busybox
    ash, told of a job's end while it reads the second line of the
    harness's "{ cmd" / "} ..." wrapper, takes it as the end of the input
    ("syntax error: unexpected end of file") and the command is lost."""
    return "(%s &)" % cmd


def start_seatd(g):
    g.sh("modprobe evdev")  # the sessions read the keyboard through the seat
    g.sh(daemon("seatd -l info > /tmp/seatd.log 2>&1"))
    deadline = time.monotonic() + 10
    while g.sh("test -S /run/seatd.sock")[0] != 0:
        check(time.monotonic() < deadline, "%s: seatd did not start: %s" % (
            g.name, g.sh("cat /tmp/seatd.log")[1]))
        time.sleep(0.2)


def top_text(g, rows=6):
    """The text of the top rows of the screen (where a session writes its name)."""
    img = g.screendump()
    return img, "\n".join(screenreader.read_text(img.crop(0, 0, img.width, rows * 16)))


def owner_text(vt, sessions):
    """What the screen shows for vt: its session's name, the console's text
    on tty1, nothing in particular on another text VT."""
    if vt in sessions:
        return "kmsvt-session %s" % sessions[vt]
    return CONSOLE if vt == 1 else ""


def switch(g, vt, sessions, timeout=10):
    """kmsvt-switch to vt; the (active ms, first frame ms or None) it reports,
    once the screen shows the new owner."""
    st, out = g.sh("kmsvt-switch -t 5000 %d" % vt)
    m = re.search(r"vt \d+ -> (\d+): active after ([\d.]+) ms(?:, first frame of (\S+) after "
                  r"([\d.]+) ms)?", out)
    check(st == 0 and m and int(m.group(1)) == vt, "%s: kmsvt-switch %d: exit %d, %r\n%s" % (
        g.name, vt, st, out, logs(g)))
    if vt in sessions:
        check(m.group(3) == sessions[vt], "%s: vt %d reported %r, want %s" % (
            g.name, vt, m.group(3), sessions[vt]))
    want = owner_text(vt, sessions)
    deadline = time.monotonic() + timeout
    while True:
        img, text = top_text(g)
        if want in text and all(owner_text(v, sessions) not in text
                                for v in sessions if v != vt):
            break
        check(time.monotonic() < deadline, "%s: after switching to vt %d the screen reads %r\n"
              "%s\nkmsvt_stats: %r\ndmesg tail:\n%s" % (
                  g.name, vt, text, logs(g), debugfs_numbers(g, "kmsvt_stats"),
                  g.sh("dmesg | tail -n 20")[1]))
        time.sleep(0.1)
    return float(m.group(2)), float(m.group(4)) if m.group(4) else None


def logs(g):
    """The tail of the sessions' and seatd's logs, for a failure message."""
    return g.sh("tail -n 15 /tmp/*.log")[1][-3000:]


def start_session(g, vt, name, sessions):
    """Switch to vt (a text VT), start kmsvt-session there and wait for it."""
    switch(g, vt, sessions)
    g.sh(daemon("LIBSEAT_BACKEND=seatd kmsvt-session --name %s --check-revoked </dev/tty%d "
                ">/tmp/%s.log 2>&1" % (name, vt, name)))
    sessions[vt] = name
    wait_top(g, "kmsvt-session " + name, 30)


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


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def summary(kind, xs):
    return "%s n=%d p50 %.1f p95 %.1f max %.1f ms" % (kind, len(xs), pct(xs, 50), pct(xs, 95),
                                                      max(xs))


KINDS = ("graphical->graphical", "graphical->text", "text->graphical")


def alice_and_bob(g):
    """seatd, alice on VT2 and bob on VT3, alice active; the sessions map."""
    start_seatd(g)
    sessions = {}
    start_session(g, 2, "alice", sessions)
    start_session(g, 3, "bob", sessions)
    switch(g, 2, sessions)
    return sessions


def cycle(g, sessions, n):
    """2->3->1->2 n times, each switch read from the screen; the times by
    kind (ms to the session's first frame, or to the console's VT active)."""
    times = {k: [] for k in KINDS}
    for _ in range(n):
        for vt, kind in zip((3, 1, 2), KINDS):
            active, frame = switch(g, vt, sessions)
            times[kind].append(frame if frame is not None else active)
    return times


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


def test_demo_sessions(ctx):
    """make run's guest: the demo script brings up seatd, alice and bob, and
    the console says how to switch; each switch shows its owner."""
    import demo
    g = ctx.guest("seat-demo", programs=seat_programs(), tag="seat-demo", cmdline="demo",
                  extra_files={"/etc/kmsvt-demo.sh": demo.DEMO_SCRIPT}, modules=("evdev",))
    g.wait_for(r"kmsvt demo: sessions up", 60)
    g.wait_screen_text(["kmsvt demo: fast user switching", "kmsvt-switch 2"])
    keys(g, "alt", "f2")
    wait_top(g, "kmsvt-session alice")
    keys(g, "ctrl", "alt", "f3")
    wait_top(g, "kmsvt-session bob")
    st, out = g.sh("kmsvt-switch 1")
    check(st == 0, "%s: kmsvt-switch 1: %r" % (g.name, out))
    g.wait_screen_text("kmsvt demo: fast user switching")
    g.assert_no_oops()


def keys(g, *names):
    """Press names together (QEMU qcodes: ctrl, alt, f1, ...)."""
    g.qmp_cmd("send-key", keys=[{"type": "qcode", "data": n} for n in names])


def wait_top(g, text, timeout=20):
    deadline = time.monotonic() + timeout
    while text not in top_text(g)[1]:
        check(time.monotonic() < deadline, "%s: %r not on screen: %r\n%s" % (
            g.name, text, top_text(g)[1], logs(g)))
        time.sleep(0.2)


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
