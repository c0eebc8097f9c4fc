"""Real Wayland compositors on kmsvt, in the Xorg guest's Debian image
(tests/lib/xorg.py installs sway, swaybg, weston, seatd and udev in it).

A WaylandGuest is an XorgGuest (the disk mounted, commands chrooted) that
also runs:

  udev        systemd-udevd in the chroot, so that libinput (sway, weston,
              Xorg) finds the keyboard and reads Ctrl+Alt+Fn itself
  seatd       seatd -g video in the chroot; sway's libseat talks to it
  sway        as a user of group video (alice, bob: sway refuses root),
              pixman renderer, one solid background colour per user
  kmsvt-session
              the project's own libseat session (userspace/), under the
              same seatd, its name read off the screen (tests/lib/seat.py)
  weston      as root on its own VT (--tty=N: Debian's weston 10 has no
              libseat, it takes the VT itself as Xorg does), pixman, its
              desktop shell with no panel and a solid background colour

Each compositor's picture is one colour over the whole screen (Xorg's is
its root window's, start_xorg_root()); wait_picture() screendumps until
covers() sees that colour over all of the 1280x800 screen but a cursor's
worth, so a black, stale or other user's screen never passes.
"""
import os
import time

import initramfs
import seat
import xorg
from harness import TestFailure, check, daemon
from vm import LOGDIR

SIZE = (1280, 800)
# Pixels a picture may miss: a software cursor (64x64) drawn over it.
CURSOR = 64 * 64
USERS = {"alice": 1001, "bob": 1002}
PATH = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
SWAY_LOG = "/tmp/sway-%s.log"
WESTON_LOG = "/tmp/weston.log"
WESTON_OUT = "/tmp/weston.out"
SEATD_LOG = "/tmp/seatd.log"
UDEV_LOG = "/tmp/udevd.log"
# udevadm trigger does nothing in a chroot ("Running in chroot, ignoring
# request") unless told to.
UDEV_ENV = "SYSTEMD_IGNORE_CHROOT=1"

# Seconds after which a program started in the background runs under its
# own name (wait_picture's alive check).
ALIVE_AFTER = 5

# The desktop of test_wayland, the desktop benchmark and make run: the
# console on tty1 with CONSOLE (or the demo's text), and VT -> (what runs
# there, its colour); a kmsvt-session on SESSION_VT, its name its picture.
CONSOLE = "CONSOLE ON TTY1 BESIDE WAYLAND"
DESKTOP = {2: ("sway alice", (0x80, 0x20, 0x20)),
           3: ("sway bob", (0x20, 0x80, 0x20)),
           4: ("weston", (0x20, 0x20, 0x80)),
           5: ("Xorg", (0x70, 0x60, 0x10))}
SESSION_VT, SESSION_NAME = 6, "carol"
XORG_DISPLAY = 0
# make run's console (tests/demo.py); test_wayland writes it too.
DEMO_CONSOLE = """kmsvt demo: the KMS console, two users' sway sessions, the panic screen
  alice's sway is on VT2, bob's on VT3 (under seatd), weston on VT4, Xorg
  on VT5, a kmsvt-session on VT6; this console is tty1.
  Keys: Alt+F2 here; Ctrl+Alt+F1 to F6 in a session.
  From a shell here or on the serial line (prints how long it took):
      kmsvt-switch -d /dev/dri/card0 2        (3, 1, ...)
      cat /sys/kernel/debug/dri/0/kmsvt_stats  (no modeset when switching)
  The panic screen, over whatever is in front (a sway session too):
      echo c > /proc/sysrq-trigger"""
LOGS = (SWAY_LOG % "alice", SWAY_LOG % "bob", WESTON_LOG, SEATD_LOG, "/tmp/%s.log" % SESSION_NAME)


def hexrgb(rgb):
    return "%02x%02x%02x" % rgb


def sway_config(rgb):
    """No bar, no Xwayland, the whole output one colour (swaybg)."""
    return ("xwayland disable\n"
            "output * bg #%s solid_color\n" % hexrgb(rgb))


def weston_ini(rgb):
    """The desktop shell with no panel: the background colour everywhere."""
    return ("[core]\nxwayland=false\nidle-time=0\n"
            "[shell]\nbackground-color=0xff%s\npanel-position=none\n"
            "locking=false\nanimation=none\nstartup-animation=none\n" % hexrgb(rgb))


class WaylandGuest(xorg.XorgGuest):
    """An Xorg guest with udev, seatd and the Wayland compositors."""

    def wsh(self, cmd, user="root", env="", timeout=60, check=False):
        """cmd with sh in the chroot as user (root, alice or bob), with
        HOME and XDG_RUNTIME_DIR set for that user, and env (VAR=value ...)."""
        uid = USERS.get(user, 0)
        home = "/root" if user == "root" else "/home/" + user
        # The initramfs's chroot is busybox's; setpriv is the image's.
        who = ("" if user == "root" else
               "/usr/bin/setpriv --reuid=%s --regid=%s --init-groups " % (user, user))
        esc = cmd.replace("'", "'\\''")
        return self.sh("chroot %s %s/usr/bin/env -i PATH=%s HOME=%s USER=%s TERM=linux "
                       "XDG_RUNTIME_DIR=/run/user/%d %s /bin/sh -c '%s'"
                       % (xorg.MNT, who, PATH, home, user, uid, env, esc),
                       timeout=timeout, check=check)

    def write_chroot(self, path, text):
        self.write_file(xorg.MNT + path, text)

    def setup_users(self):
        """alice and bob in group video, and each one's runtime dir (root's
        too); /dev/shm, where wlroots and swaybg make their shared memory
        (shm_open: "Failed to allocate shm file" without it)."""
        self.sh("mkdir -p {0}/dev/shm && mount -t tmpfs -o mode=1777 shm {0}/dev/shm"
                .format(xorg.MNT), check=True)
        for user, uid in USERS.items():
            self.wsh("id %s >/dev/null 2>&1 || useradd -m -u %d -U -G video,input %s"
                     % (user, uid, user), check=True)
        for user, uid in list(USERS.items()) + [("root", 0)]:
            self.wsh("mkdir -p /run/user/%d && chown %d:%d /run/user/%d && chmod 700 /run/user/%d"
                     % (uid, uid, uid, uid, uid), check=True)

    def start_udev(self, timeout=120):
        """systemd-udevd in the chroot and every device announced (libinput
        reads the keyboard from udev's database)."""
        self.sh("modprobe evdev", check=True)
        self.wsh(daemon("/lib/systemd/systemd-udevd >%s 2>&1 </dev/null" % UDEV_LOG),
                 env=UDEV_ENV, check=True)
        t0 = time.monotonic()
        while self.wsh("udevadm control --ping", env=UDEV_ENV)[0] != 0:
            check(time.monotonic() - t0 < 30, "%s: systemd-udevd did not start: %s"
                  % (self.name, self.wsh("cat " + UDEV_LOG)[1]))
            time.sleep(0.5)
        self.wsh("udevadm trigger --action=add && udevadm settle -t %d" % timeout,
                 env=UDEV_ENV, timeout=timeout + 30, check=True)
        _, out = self.wsh("for d in /dev/input/event*; do udevadm info -q property $d | "
                          "grep -q ID_INPUT_KEYBOARD=1 && echo $d; done")
        check(out.strip(), "%s: udev knows no keyboard among /dev/input/event*:\n%s"
              % (self.name, self.wsh("ls -l /dev/input; udevadm info -e | tail -40")[1]))

    def start_seatd(self):
        self.wsh(daemon("seatd -g video -l debug >%s 2>&1 </dev/null" % SEATD_LOG), check=True)
        t0 = time.monotonic()
        while self.wsh("test -S /run/seatd.sock")[0] != 0:
            check(time.monotonic() - t0 < 20, "%s: seatd did not start: %s"
                  % (self.name, self.wsh("cat " + SEATD_LOG)[1]))
            time.sleep(0.3)

    def start_sway(self, user, vt, rgb):
        """user's sway on vt (switched to first: seatd gives a new session
        the VT in front), its background rgb; returns once it shows."""
        self.sh("chvt %d" % vt, check=True)
        home = "/home/" + user
        self.write_chroot(home + "/sway.conf", sway_config(rgb))
        self.wsh(daemon("sway -d -c %s/sway.conf >%s 2>&1 </dev/null" % (home, SWAY_LOG % user)),
                 user=user, env="LIBSEAT_BACKEND=seatd WLR_RENDERER=pixman", check=True)
        return self.wait_picture(rgb, "sway of %s on VT%d" % (user, vt), timeout=120,
                                 logs=(SWAY_LOG % user, SEATD_LOG),
                                 alive="pgrep -x -u %s sway" % user)

    def start_weston(self, vt, rgb):
        """weston on vt (switched to first) as root, pixman, its background
        rgb; returns once it shows.  Its log has the drm-backend scope."""
        self.sh("chvt %d" % vt, check=True)
        self.write_chroot("/root/weston.ini", weston_ini(rgb))
        self.wsh(daemon("weston --tty=%d --use-pixman --config=/root/weston.ini --log=%s "
                        "--logger-scopes=log,drm-backend </dev/null >%s 2>&1"
                        % (vt, WESTON_LOG, WESTON_OUT)), check=True)
        return self.wait_picture(rgb, "weston on VT%d" % vt, timeout=120,
                                 logs=(WESTON_LOG, WESTON_OUT))

    def start_session(self, timeout=60):
        """kmsvt-session SESSION_NAME on SESSION_VT under seatd (switched to
        first), as root; returns once show() sees it."""
        self.sh("chvt %d" % SESSION_VT, check=True)
        self.wsh(daemon("kmsvt-session --name %s --check-revoked >/tmp/%s.log 2>&1 </dev/null"
                        % (SESSION_NAME, SESSION_NAME)), env="LIBSEAT_BACKEND=seatd", check=True)
        return self.show(SESSION_VT, timeout)

    def start_xorg_root(self, display, vt, rgb):
        """Xorg :display on vt (xorg.py), the root window in rgb, no cursor."""
        secs = self.start_xorg(display=display, vt=vt, args="-nolisten tcp -noreset -nocursor")
        self.xsh("xsetroot -solid '#%s'" % hexrgb(rgb), display=":%d" % display, check=True)
        self.wait_picture(rgb, "Xorg :%d on VT%d" % (display, vt), timeout=60)
        return secs

    def wait_picture(self, rgb, what, timeout=30, logs=(), alive=None):
        """Screendump until the screen is rgb all over (cursor aside);
        returns the image and the seconds it took.  alive: a command in the
        chroot that fails once the program drawing it has exited (asked
        from ALIVE_AFTER seconds on: it has been started by then)."""
        t0 = time.monotonic()
        while True:
            img = self.screendump()
            if covers(img, rgb):
                return img, time.monotonic() - t0
            gone = (alive and time.monotonic() - t0 > ALIVE_AFTER
                    and self.wsh(alive)[0] != 0)
            if gone or time.monotonic() - t0 > timeout:
                if gone:
                    what += " (it exited)"
                path = os.path.join(LOGDIR, "%s-fail.ppm" % self.name)
                img.save_ppm(path)
                tails = "".join("\n--- %s:\n%s" % (p, self.wsh("tail -n 40 " + p)[1][-3000:])
                                for p in logs)
                raise TestFailure("%s: %s not on screen after %.0f s: %s (saved %s)%s" % (
                    self.name, what, timeout, describe(img), path, tails))
            time.sleep(0.5)

    console_text = CONSOLE

    def start_desktop(self, vts=(2, 3, 4, SESSION_VT, 5), console=CONSOLE, failed=None):
        """console (text) on tty1, udev, seatd, and the DESKTOP sessions of
        vts (in that order: Xorg, which takes its VT itself, last), each
        shown on its VT; the seconds each took to show.  With a dict as
        failed, a session that does not come up is recorded there (VT ->
        why) and the others are started; else it fails the caller."""
        self.console_text = console.splitlines()[0]
        self.tty_write("\033[2J\033[H" + console + "\n")
        self.wait_screen_text(self.console_text)
        self.setup_users()
        t = {}
        t0 = time.monotonic()
        self.start_udev()
        t["udev"] = time.monotonic() - t0
        self.start_seatd()
        for vt in vts:
            t0 = time.monotonic()
            what = DESKTOP[vt][0] if vt in DESKTOP else "kmsvt-session"
            try:
                self._start_one(vt, what)
            except TestFailure as e:
                if failed is None:
                    raise
                failed[vt] = str(e)
                continue
            t[what] = time.monotonic() - t0
        print("%s: up after %s" % (self.name, ", ".join("%s %.0f s" % kv for kv in t.items())),
              flush=True)
        return t

    def _start_one(self, vt, what):
        if what.startswith("sway "):
            self.start_sway(what.split()[1], vt, DESKTOP[vt][1])
        elif what == "weston":
            self.start_weston(vt, DESKTOP[vt][1])
        elif what == "Xorg":
            self.start_xorg_root(XORG_DISPLAY, vt, DESKTOP[vt][1])
        else:
            self.start_session()

    def show(self, vt, timeout=30):
        """Wait until the screen shows vt's owner (no other session's colour
        anywhere); the seconds it took."""
        t0 = time.monotonic()
        if vt == SESSION_VT:
            want = "kmsvt-session " + SESSION_NAME
            while True:
                img, text = seat.top_text(self)
                if want in text and all(xorg.colour_count(img, rgb) == 0
                                        for _, rgb in DESKTOP.values()):
                    return time.monotonic() - t0
                if time.monotonic() - t0 > timeout:
                    raise TestFailure("%s: VT%d: %r not on screen: %s, %r\n%s" % (
                        self.name, vt, want, describe(img), text,
                        self.wsh("tail /tmp/%s.log" % SESSION_NAME)[1]))
                time.sleep(0.3)
        if vt in DESKTOP:
            what, rgb = DESKTOP[vt]
            return self.wait_picture(rgb, "%s (VT%d)" % (what, vt), timeout=timeout,
                                     logs=LOGS)[1]
        img, _ = self.wait_screen_text(self.console_text, timeout=timeout)
        check((img.width, img.height) == SIZE, "console at %dx%d" % (img.width, img.height))
        for what, rgb in DESKTOP.values():
            check(xorg.colour_count(img, rgb) == 0, "the console shows %s's colour" % what)
        return time.monotonic() - t0

    def masters(self):
        """(command, uid) of each DRM client holding master now (debugfs
        clients: command tgid dev master a uid magic)."""
        _, out = self.sh("cat /sys/kernel/debug/dri/0/clients")
        rows = [line.split() for line in out.splitlines()[1:]]
        return sorted((r[0], int(r[5])) for r in rows if len(r) >= 7 and r[3] == "y")

    def save_logs(self, paths):
        """Each chroot log as build/test-logs/<guest>-<name>; their texts."""
        texts = {}
        for p in paths:
            texts[p] = self.wsh("cat " + p, timeout=120)[1]
            xorg.save(self, os.path.basename(p), texts[p])
        return texts


def covers(img, rgb):
    """img is 1280x800 and rgb everywhere but a cursor's worth of pixels."""
    if (img.width, img.height) != SIZE:
        return False
    return xorg.colour_count(img, rgb) >= img.width * img.height - CURSOR


def describe(img):
    """Size and the commonest colours of a screen, for failure messages."""
    counts = {}
    px = img.pixels
    for i in range(0, len(px), 3 * 97):
        counts[px[i:i + 3]] = counts.get(px[i:i + 3], 0) + 1
    top = sorted(counts.items(), key=lambda kv: -kv[1])[:4]
    return "%dx%d, commonest colours %s" % (img.width, img.height, ", ".join(
        "#%s (%d%%)" % (k.hex(), 100 * v // max(1, sum(counts.values()))) for k, v in top))


SESSION = os.path.join(initramfs.BUILD, "userspace", "kmsvt-session")


def guest(ctx, name, mem=1024, programs=(), **kw):
    """A WaylandGuest: the Xorg image mounted, evdev in the initramfs,
    kmsvt-session and programs (host paths) in the chroot."""
    check(os.path.exists(SESSION), "%s missing: run make" % SESSION)
    progs = tuple(programs)
    if not any(os.path.basename(p) == "kmsvt-session" for p in progs):
        progs += (SESSION,)
    return xorg.guest(ctx, name, mem=mem, modules=("evdev",), programs=progs,
                      cls=WaylandGuest, **kw)
