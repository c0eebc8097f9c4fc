#!/usr/bin/env python3
"""make run: boot the demo VM (Debian's 6.1 kernel by default) with kmsvt as
the display driver: the KMS console on tty1 with a shell, and two graphical
sessions under seatd for fast user switching, alice on VT2 and bob on VT3;
the console says which keys and commands switch and what else to try.

With a graphical display (DISPLAY or WAYLAND_DISPLAY set) QEMU opens a
window showing the console; the serial console is in this terminal either
way.  Headless, take a screendump on request from QEMU's monitor:
Ctrl-A c, then "screendump build/demo.ppm", then Ctrl-A c to return; read it
with "python3 tests/lib/screenreader.py build/demo.ppm".  Ctrl-A x quits.

usage: tests/demo.py [--kernel RELEASE] [--headless] [-- extra qemu args]
"""
import argparse
import os
import shutil
import sys

# An entry point: tests/lib, the shared helpers, on the import path.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import initramfs  # noqa: E402


def has_window():
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False
    return os.system("qemu-system-x86_64 -display help 2>/dev/null | grep -qx gtk") == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    rels = initramfs.releases()
    ap.add_argument("--kernel", default=rels[0], choices=rels)
    ap.add_argument("--headless", action="store_true")
    ap.add_argument("--cmdline", default="")
    ap.add_argument("qemu_args", nargs="*")
    args = ap.parse_args()

    tools = [p for p in (shutil.which("modetest"), "/usr/sbin/seatd") if p and os.path.exists(p)]
    udir = os.path.join(initramfs.BUILD, "userspace")
    if os.path.isdir(udir):
        tools += [os.path.join(udir, t) for t in sorted(os.listdir(udir))]
    rd = initramfs.build(args.kernel, "kmsvt", programs=tools, tag="demo",
                         extra_files={"/etc/kmsvt-demo.sh": initramfs.DEMO_SCRIPT}, modules=("evdev",))
    display = "gtk" if has_window() and not args.headless else "none"
    cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "1024", "-nodefaults",
           "-no-user-config", "-device", "VGA", "-display", display,
           "-kernel", os.path.join(initramfs.kernel_dir(args.kernel), "vmlinuz"),
           "-initrd", rd, "-serial", "mon:stdio",
           "-append", ("console=tty0 console=ttyS0,115200 consoleblank=0 demo " +
                       args.cmdline).strip()]
    cmd += args.qemu_args
    print("kmsvt demo on %s (%s); Ctrl-A x quits, Ctrl-A c is QEMU's monitor "
          "(screendump build/demo.ppm)" % (args.kernel, "window" if display == "gtk" else "headless"))
    sys.stdout.flush()
    os.execvp(cmd[0], cmd)


if __name__ == "__main__":
    main()
