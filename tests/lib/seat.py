"""The real seat stack in a guest: Debian's seatd, kmsvt-session
(userspace/kmsvt-session.c) taking its seat through libseat, kmsvt-switch
requesting each switch and timing it up to the new owner's first frame.
After every switch the screendump must show the right owner: the
session's name, read with the console font it draws with, or the
console's text.  The seat tests and the switching benchmark share it."""
import os
import re
import time

import initramfs
import screenreader
from debugfs import debugfs_numbers
from harness import CLEAR, check, daemon

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


def wait_top(g, text, timeout=20):
    deadline = time.monotonic() + timeout
    while text not in top_text(g)[1]:
        check(time.monotonic() < deadline, "%s: %r not on screen: %r\n%s" % (
            g.name, text, top_text(g)[1], logs(g)))
        time.sleep(0.2)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


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
