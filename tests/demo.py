#!/usr/bin/env python3
"""make run: boot the demo VM (Debian's 6.1 kernel by default) with kmsvt as
the display driver, on a real stack: Debian 12's sway for two users (alice
on VT2, bob on VT3, under seatd), weston on VT4, Xorg on VT5, a
kmsvt-session on VT6, and the KMS console on tty1, which says which keys
and commands switch and how to see the panic screen.  The guest is the
tests' Xorg image (tests/lib/xorg.py, built on first use) and its desktop
is set up by the same code as test_wayland's (tests/lib/wayland.py).

With a graphical display (DISPLAY or WAYLAND_DISPLAY set) QEMU opens a
window; the guest's serial shell is in this terminal either way.  Ctrl-A s
saves the screen to build/demo.ppm and prints the text on it; Ctrl-A x
quits; Ctrl-A a sends a Ctrl-A.

usage: tests/demo.py [--kernel RELEASE] [--headless] [--cmdline ARGS]
"""
import argparse
import os
import select
import shutil
import sys
import termios
import tty

# An entry point: tests/lib, the shared helpers, on the import path.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import harness  # noqa: E402
import initramfs  # noqa: E402
import screenreader  # noqa: E402
import wayland  # noqa: E402

TOOLS = ("kmsvt-switch", "kmsvt-info", "kmsvt-session")
SHOT = os.path.join(initramfs.BUILD, "demo.ppm")
CTRL_A = b"\x01"


def has_window():
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False
    return os.system("qemu-system-x86_64 -display help 2>/dev/null | grep -qx gtk") == 0


def screenshot(g):
    img = g.screendump()
    img.save_ppm(SHOT)
    text = "\n".join(line.rstrip() for line in screenreader.read_text(img) if line.strip())
    return "\r\n[%s: %dx%d]\r\n%s\r\n" % (SHOT, img.width, img.height,
                                          text.replace("\n", "\r\n") or "(no text read)")


def interact(g):
    """This terminal on the guest's serial shell until Ctrl-A x or QEMU
    ends."""
    out = sys.stdout.buffer
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd) if os.isatty(fd) else None
    if saved:
        tty.setraw(fd)
    sent = len(g.buf)
    prefix = False
    try:
        while g.proc.poll() is None:
            with g.lock:
                new, sent = g.buf[sent:], len(g.buf)
            if new:
                out.write(new)
                out.flush()
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            data = os.read(fd, 1024)
            if not data:
                break
            for b in data:
                c = bytes([b])
                if prefix:
                    prefix = False
                    if c == b"x":
                        return
                    if c == b"s":
                        out.write(screenshot(g).encode())
                        out.flush()
                        continue
                    if c != b"a":
                        continue
                    g.serial.sendall(CTRL_A)
                elif c == CTRL_A:
                    prefix = True
                else:
                    g.serial.sendall(c)
    finally:
        if saved:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    rels = initramfs.releases()
    ap.add_argument("--kernel", default=rels[0], choices=rels)
    ap.add_argument("--headless", action="store_true")
    ap.add_argument("--cmdline", default="")
    args = ap.parse_args()

    display = "gtk" if has_window() and not args.headless else "none"
    tools = [os.path.join(initramfs.BUILD, "userspace", t) for t in TOOLS]
    tools += [p for p in (shutil.which("modetest"),) if p]
    print("kmsvt demo on %s (%s): building the image if needed, booting, starting "
          "the sessions (about a minute under TCG) ..." % (
              args.kernel, "window" if display == "gtk" else "headless"), flush=True)
    harness.MEMCHECK = False
    ctx = harness.Ctx(args.kernel)
    try:
        g = wayland.guest(ctx, "demo", programs=tools, display=display, cmdline=args.cmdline)
        g.start_desktop(console=wayland.DEMO_CONSOLE)
        g.sh("chvt 1", check=True)
        g.show(1)
        print("Up: tty1 has the console and its instructions; this is the guest's serial "
              "shell.\nCtrl-A s: screendump to %s and its text; Ctrl-A x: quit."
              % SHOT, flush=True)
        g.write("stty echo; PS1='kmsvt-demo# '; dmesg -n 4\n")
        interact(g)
    finally:
        ctx.close()


if __name__ == "__main__":
    main()
