"""Guest tests: a Debian 12 system with systemd and udev, kmsvt installed
with the README's commands (`make install`: DKMS, modprobe.d, initramfs
hook; tests/lib/sysguest.py).
test_installed_guest_three_boots: the installed system boots by itself
(udev binds kmsvt by modalias from the initramfs on, bochs stays unloaded,
the module has no test hooks, getty's login prompt is read on the screen)
and lives three boots in one QEMU:
- Debian's console-setup, as a user sets a HiDPI font:
  /etc/default/console-setup edited for the Uni2 codeset and Terminus Bold
  16x32; at the next boot console-setup.service sees the file newer than
  its cache and runs `setupcon --save`, and at the boot after that its udev
  rule loads the cached font.  After each, tty1 is 80x25, kmsvt's console
  holds the 16x32 font of 512 glyphs, getty's prompt is read in that font
  (the reader's default, the kernel's VGA 8x16, reads none of it) and a
  Cyrillic letter past the first 256 glyphs is that font's glyph.
- A panic (sysrq) between the first two boots: kmsvt's panic screen, read;
  the reset button; Debian's systemd-pstore.service keeps the record in
  /var/lib/systemd/pstore and a clean reboot brings nothing back.
(One story rather than three tests of their own: each systemd boot costs
half a minute or more under TCG, and the suite's time is bounded.)
test_uninstalled_guest_boots_bochs boots the image where `make uninstall`
ran after `make install` (in the chroot, as make install did) on the
in-tree bochs driver, with nothing of kmsvt left: a test of the
distribution's, run on its first kernel (sysguest.once_per_distribution)."""

import sysguest
from fonts import HIGH, cell_bits, reader_font, tty_size
from harness import check
from panicscreen import assert_panic_screen

PREPARE = sysguest.prepare
SERVES = sysguest.serves
LOGIN = sysguest.LOGIN

# What a user sets in /etc/default/console-setup (console-setup(5)) for a
# large font: Unicode, the Uni2 codeset, Terminus Bold 16x32; setupcon
# loads it as Uni2-TerminusBold32x16.psf.gz into tty1..6.
SETUPCON = (("CHARMAP", "UTF-8"), ("CODESET", "Uni2"), ("FONTFACE", "TerminusBold"),
            ("FONTSIZE", "16x32"))
SETUPCON_FONT = "Uni2-TerminusBold32x16"


@sysguest.once_per_distribution
def test_installed_guest_three_boots(ctx):
    """One installed system over three boots in one QEMU, as its user
    lives with it.  First boot: kmsvt (no test hooks) from the initramfs
    on, no pstore record; the user sets a 16x32 font in
    /etc/default/console-setup, then the kernel panics: kmsvt's panic
    screen, and the user presses reset.  Second boot: kmsvt's notice of the
    panic in the journal, systemd-pstore has moved the record to
    /var/lib/systemd/pstore (which erased it in VRAM), and
    console-setup.service has loaded the font.  After `systemctl reboot`:
    nothing new in /sys/fs/pstore or /var/lib/systemd/pstore, and
    console-setup's udev rule has loaded the cached font."""
    disk, initrd = sysguest.writable_disk(ctx, ctx.rel, "installed")
    g = sysguest.boot(ctx, ctx.rel, "sys-installed", disk, initrd, reboot=True)
    _assert_installed(g)
    check(not _pstore_files(g, "/sys/fs/pstore /var/lib/systemd/pstore"),
          "records before any panic: %r" % _pstore_files(g, "/sys/fs/pstore"))
    _set_console_font(g)
    g.write("echo c > /proc/sysrq-trigger\n")
    assert_panic_screen(g, "sysrq_handle_crash", "sysrq triggered crash", (1280, 800))
    sysguest.reset(g)
    _assert_setupcon_font(g)
    # console-setup.service ran `setupcon --save`: the cache names the font.
    _, cached = g.sh("cat /etc/console-setup/cached_setup_font.sh", check=True)
    check(SETUPCON_FONT in cached, "cached_setup_font.sh: %r" % cached)
    _, stamp = g.sh("stat -c %Y /etc/console-setup/cached_setup_font.sh", check=True)
    kept = _assert_panic_kept(g)
    sysguest.rebooted(g, "systemctl reboot")
    # Now the cache is newer than the file: console-setup.service does
    # nothing, and the udev rule (vtconsole added) runs the cached script.
    _assert_setupcon_font(g)
    _, again = g.sh("stat -c %Y /etc/console-setup/cached_setup_font.sh", check=True)
    check(again.strip() == stamp.strip(), "the cache was made again at the third boot "
          "(mtime %s, after the second %s)" % (again.strip(), stamp.strip()))
    st, _ = g.sh("test -e /run/console-setup/font-loaded")
    check(st == 0, "the udev rule's cached_setup_font.sh did not run")
    check(not _pstore_files(g, "/sys/fs/pstore"), "a record came back from VRAM")
    check(_pstore_files(g, "/var/lib/systemd/pstore") == kept,
          "/var/lib/systemd/pstore: %r" % _pstore_files(g, "/var/lib/systemd/pstore"))
    _, log = g.sh("journalctl -b -k -o cat")
    check("previous boot" not in log, "a notice after the clean reboot")


def _assert_installed(g):
    """DKMS's kmsvt drives the display, the console and the panic screen,
    and has none of the tests' crash triggers: no test_hooks parameter,
    no panic_test in debugfs."""
    sysguest.assert_booted_kmsvt(g)
    _, parms = g.sh("modinfo -F parm kmsvt", check=True)
    check("panic_screen" in parms and "test_hooks" not in parms, "parameters: %r" % parms)
    g.sh("mount -t debugfs none /sys/kernel/debug 2>/dev/null")
    _, dbg = g.sh("ls /sys/kernel/debug/dri/0/", check=True)
    check("panic_preview" in dbg.split() and "panic_test" not in dbg.split(),
          "debugfs of DKMS's kmsvt: %r" % dbg)
    _, vt = g.sh("cat /sys/class/vtconsole/vtcon*/name")
    check("kmsvt" in vt, "vtconsole: %r" % vt)


def _assert_setupcon_font(g):
    """tty1 in Terminus 16x32 once the boot is done: the grid, kmsvt's
    console, getty's prompt read in the font, a glyph past 256."""
    # console-setup.service is part of multi-user.target.
    _, state = g.sh("systemctl is-system-running --wait", timeout=300)
    _, unit = g.sh("systemctl show -p ActiveState -p Result console-setup.service", check=True)
    check("ActiveState=active" in unit and "Result=success" in unit,
          "%s: console-setup.service: %r (system %s)" % (g.name, unit, state.strip()))
    font = reader_font(SETUPCON_FONT)
    img, _ = g.wait_screen_text(LOGIN, font=font, timeout=180)
    check((img.width, img.height) == (1280, 800), "mode %dx%d" % (img.width, img.height))
    size = tty_size(g)
    check(size == "25 80", "%s: tty1 is %r (rows cols), not '25 80'" % (g.name, size))
    g.sh("mount -t debugfs none /sys/kernel/debug 2>/dev/null")
    _, con = g.sh("cat /sys/kernel/debug/dri/0/kmsvt_console", check=True)
    check("vt: 1\n" in con and "font: 16x32, 512 glyphs\n" in con,
          "%s: kmsvt_console: %r" % (g.name, con))
    # The console is in UTF-8 mode (setupcon's ESC % G) and the font's
    # Unicode table is loaded: a Cyrillic letter is its glyph past 256.
    g.sh(r"printf '\033[2J\033[H%s setupcon Uni2\n' > /dev/tty1" % HIGH[1], check=True)
    img, _ = g.wait_screen_text("setupcon Uni2", font=font)
    glyph = font.index[HIGH[0]]
    check(glyph >= 256 and cell_bits(img, font, 0, 0) == font.bits[glyph],
          "%s: %r (glyph %d) is not what the cell shows" % (g.name, HIGH[0], glyph))
    g.assert_no_oops()


def _set_console_font(g):
    """The user's edit of /etc/default/console-setup (its own lines
    changed, nothing else) once the boot is done (its own console-setup
    run, if any, is over), written to the disk before the panic."""
    g.sh("systemctl is-system-running --wait", timeout=300)
    # The image keeps the kernel's font (sysguest): 160x50.
    check(tty_size(g) == "50 160", "tty1 before setupcon is %r" % tty_size(g))
    st, _ = g.sh("test -f /usr/share/consolefonts/%s.psf.gz" % SETUPCON_FONT)
    check(st == 0, "the guest has no %s (console-setup-linux)" % SETUPCON_FONT)
    g.sh("sed -i %s /etc/default/console-setup" % " ".join(
        "-e 's/^%s=.*/%s=\"%s\"/'" % (k, k, v) for k, v in SETUPCON), check=True)
    _, conf = g.sh(". /etc/default/console-setup && echo $CHARMAP $CODESET $FONTFACE $FONTSIZE",
                   check=True)
    check(conf.split() == [v for _, v in SETUPCON], "/etc/default/console-setup: %r" % conf)
    g.sh("sync", check=True)


def _pstore_files(g, where):
    _, out = g.sh("find %s -type f 2>/dev/null | sort" % where)
    return out.split()


def _assert_panic_kept(g):
    """The boot after the panic: kmsvt's notice in the journal, and
    Debian's systemd-pstore.service has moved the record; returns what
    /var/lib/systemd/pstore holds."""
    _, notice = g.sh("journalctl -b -k -g 'previous boot ended in a kernel panic' -o cat")
    check("sysrq triggered crash; see /sys/fs/pstore/dmesg-kmsvt-" in notice,
          "kmsvt's notice in the journal: %r" % notice)
    # (On screen it is drawn during the boot, then agetty clears tty1.)
    # systemd-pstore moves the file and joins the dmesg records into dmesg.txt.
    kept = _pstore_files(g, "/var/lib/systemd/pstore")
    ours = [f for f in kept if "/dmesg-kmsvt-" in f]
    check(len(ours) == 1, "/var/lib/systemd/pstore: %r (journal: %s)" % (
        kept, g.sh("journalctl -b -u systemd-pstore -o cat")[1][-1500:]))
    _, text = g.sh("cat %s" % ours[0], check=True)
    check("sysrq_handle_crash" in text, "%s lacks the traceback" % ours[0])
    check(not _pstore_files(g, "/sys/fs/pstore"),
          "left in /sys/fs/pstore: %r" % _pstore_files(g, "/sys/fs/pstore"))
    return kept


@sysguest.once_per_distribution
def test_uninstalled_guest_boots_bochs(ctx):
    disk, initrd = sysguest.writable_disk(ctx, ctx.rel, "uninstalled", variant="uninstall")
    g = sysguest.boot(ctx, ctx.rel, "sys-uninstalled", disk, initrd)
    sysguest.assert_booted_bochs(g)
    sysguest.assert_nothing_left(g, ctx.rel, ("/usr/src/kmsvt-*", "/etc/modprobe.d/kmsvt.conf",
                                              "/etc/initramfs-tools/hooks/kmsvt"))
