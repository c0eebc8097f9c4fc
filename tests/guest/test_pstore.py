"""Guest tests for the last panic kept across a reboot (panic/pstore.c):
kmsvt is a pstore backend in a strip of VRAM, which QEMU keeps across the
machine's reset.  Each test boots one QEMU that reboots the guest itself
(the harness's QEMU otherwise exits on a reboot), with panic=1 so that a
panic reboots after a second; the next boot's /sys/fs/pstore, kernel log
and screen are read."""
import re

from harness import CLEAR, check
from panicscreen import DEBUGFS, assert_panic_screen, crash

PSTORE = "/sys/fs/pstore"
NOTICE = "the previous boot ended in a kernel panic"
OOPS_NOTICE = "the previous boot had an oops"
HOOKS = "modargs=test_hooks=1"


def _mount(g):
    """/sys/fs/pstore, as systemd mounts it at every boot.  pstore_zone
    reads the strip back then, and writes an oops' record only after that
    (so as not to write over a record it has not read); a panic's is
    written in any case."""
    g.sh("mountpoint -q %s || mount -t pstore pstore %s" % (PSTORE, PSTORE), check=True)


def _guest(ctx, name, cmdline=""):
    g = ctx.guest(name, cmdline=("panic=1 " + cmdline).strip(), reboot=True)
    _mount(g)
    return g


def _reboot(g, how):
    """The next boot after how (Guest.rebooted), /sys/fs/pstore mounted."""
    g.rebooted(how)
    _mount(g)


def _records(g):
    _, out = g.sh("ls %s" % PSTORE, check=True)
    return sorted(out.split())


def _kmsvt_record(g):
    """The one dmesg record of kmsvt's, its name and text."""
    recs = [r for r in _records(g) if r.startswith("dmesg-kmsvt-")]
    check(len(recs) == 1, "%s: kmsvt's records in %s: %r" % (g.name, PSTORE, _records(g)))
    _, text = g.sh("cat %s/%s" % (PSTORE, recs[0]), check=True)
    return recs[0], text


def _assert_nothing_kept(g):
    check(not _records(g), "%s: records in %s: %r" % (g.name, PSTORE, _records(g)))
    log = g.dmesg()
    check(NOTICE not in log and OOPS_NOTICE not in log, "%s: notice without a record" % g.name)
    check("pstore: Registered kmsvt as persistent store backend" in log,
          "%s: kmsvt is not the pstore backend:\n%s" % (g.name, log[-2000:]))


def test_panic_kept_across_reboot(ctx):
    """A panic, the reboot panic=1 makes: the record with the traceback in
    /sys/fs/pstore, the notice on the console (read back); erasing it
    (as systemd-pstore does) leaves nothing for the boot after."""
    g = _guest(ctx, "pstore-panic")
    _assert_nothing_kept(g)
    _reboot(g, "echo c > /proc/sysrq-trigger")
    name, text = _kmsvt_record(g)
    check("sysrq_handle_crash" in text and "Kernel panic - not syncing" in text,
          "%s: %s lacks the panic's traceback:\n%s" % (g.name, name, text[-2000:]))
    log = g.dmesg()
    line = "%s: sysrq triggered crash; see %s/%s" % (NOTICE, PSTORE, name)
    check(line in log, "%s: no notice %r in the log:\n%s" % (g.name, line, log[-3000:]))
    g.wait_screen_text([NOTICE, "sysrq triggered crash"])
    g.assert_no_oops()
    # Read, then erased as systemd-pstore does after archiving it.
    g.sh("rm %s/%s" % (PSTORE, name), check=True)
    _reboot(g, "echo b > /proc/sysrq-trigger")
    _assert_nothing_kept(g)


def test_oops_kept_across_reboot(ctx):
    """An oops (the guest lives on), then a reboot: the record, reason Oops."""
    g = _guest(ctx, "pstore-oops", HOOKS)
    # In a child shell: the oops kills the writer, not the harness's shell.
    g.sh("sh -c 'echo oops > %s/panic_test'" % DEBUGFS, timeout=60)
    g.wait_for(r"kmsvt_test_oops", 60)
    _reboot(g, "echo b > /proc/sysrq-trigger")
    name, text = _kmsvt_record(g)
    check(re.search(r"Oops", text) and "kmsvt_test_oops" in text,
          "%s: %s is not the oops:\n%s" % (g.name, name, text[-2000:]))
    check("%s; see %s/%s" % (OOPS_NOTICE, PSTORE, name) in g.dmesg(),
          "%s: no oops notice" % g.name)


def test_clean_reboot_keeps_nothing(ctx):
    """A new QEMU (cold VRAM) has no record; a clean reboot adds none; and
    the record of a panic is announced once, not again at the next boot."""
    g = _guest(ctx, "pstore-clean")
    _assert_nothing_kept(g)
    _reboot(g, "echo b > /proc/sysrq-trigger")
    _assert_nothing_kept(g)
    _reboot(g, "echo c > /proc/sysrq-trigger")
    name, _ = _kmsvt_record(g)
    check(NOTICE in g.dmesg(), "%s: no notice after the panic" % g.name)
    _reboot(g, "echo b > /proc/sysrq-trigger")
    check(_kmsvt_record(g)[0] == name, "%s: the record changed" % g.name)
    check(NOTICE not in g.dmesg(), "%s: the same panic announced twice" % g.name)


def test_garbage_strip(ctx):
    """Random bytes over the records, one with pstore_zone's signature and
    an impossible length: the next boot has no record and no oops."""
    g = _guest(ctx, "pstore-garbage", HOOKS)
    g.tty_write(CLEAR)
    g.sh("echo pstore_garbage > %s/panic_test" % DEBUGFS, check=True)
    _reboot(g, "echo b > /proc/sysrq-trigger")
    _assert_nothing_kept(g)
    g.assert_no_oops()


def _backend(g):
    _, out = g.sh("cat /sys/module/pstore/parameters/backend")
    return out.strip()


def test_one_backend_two_cards_reload(ctx):
    """Two cards: the first is the backend, the second says so once and
    goes on; rmmod unregisters it, modprobe registers it again, and a
    record made before the reload is still read after it."""
    g = ctx.guest("pstore-twocards", cmdline="panic=1", reboot=True,
                  devices=("-device", "VGA,id=vga0", "-device", "VGA,id=vga1"))
    log = g.dmesg()
    check(log.count("pstore: kept by another card") == 1 and _backend(g) == "kmsvt",
          "%s: backend %r, log:\n%s" % (g.name, _backend(g), log[-2000:]))
    for rnd in range(2):
        st, out = g.sh("rmmod kmsvt")
        check(st == 0, "rmmod failed: %r" % out)
        check(_backend(g) in ("", "(null)"), "%s: backend %r after rmmod" % (g.name, _backend(g)))
        st, out = g.sh("modprobe kmsvt")
        check(st == 0, "modprobe failed: %r" % out)
        check(_backend(g) == "kmsvt", "%s: backend %r after modprobe" % (g.name, _backend(g)))
    _mount(g)
    _reboot(g, "echo c > /proc/sysrq-trigger")
    name, text = _kmsvt_record(g)
    check("sysrq_handle_crash" in text, "%s: %s lacks the traceback" % (g.name, name))
    g.sh("umount %s && rmmod kmsvt && modprobe kmsvt" % PSTORE, check=True)
    _mount(g)
    check(_kmsvt_record(g)[0] == name, "%s: the record is gone after a reload" % g.name)
    g.assert_no_oops()


# ramoops in 1 MiB of guest RAM that the kernel leaves alone (memmap=).
RAMOOPS = "memmap=1M$0x10000000"
RAMOOPS_ARGS = "mem_address=0x10000000 mem_size=0x100000"


def test_ramoops_first(ctx):
    """ramoops registered first: kmsvt logs that it goes without, ramoops
    stays the backend, and a panic still draws kmsvt's screen."""
    g = ctx.guest("pstore-ramoops", cmdline=RAMOOPS, modules=("ramoops",), tag="ramoops")
    g.sh("rmmod kmsvt", check=True)
    g.sh("modprobe ramoops %s" % RAMOOPS_ARGS, check=True)
    check(_backend(g) == "ramoops", "%s: backend %r" % (g.name, _backend(g)))
    g.sh("modprobe kmsvt", check=True)
    log = g.dmesg()
    check(log.count("pstore: not kept in VRAM") == 1 and _backend(g) == "ramoops",
          "%s: backend %r, log:\n%s" % (g.name, _backend(g), log[-2000:]))
    g.assert_no_oops()
    crash(g)
    assert_panic_screen(g, "sysrq_handle_crash", "sysrq triggered crash", (1280, 800))


def test_other_backend_chosen(ctx):
    """pstore.backend= naming another backend: kmsvt logs it and goes on
    (no record kept, the panic screen as ever)."""
    g = ctx.guest("pstore-other", cmdline="pstore.backend=ramoops")
    log = g.dmesg()
    check("pstore: not kept in VRAM" in log, "%s: no word of it:\n%s" % (g.name, log[-2000:]))
    check(_backend(g) != "kmsvt", "%s: backend %r" % (g.name, _backend(g)))
    g.assert_no_oops()
