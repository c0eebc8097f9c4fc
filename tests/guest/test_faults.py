"""Guest tests: the device goes away under load and comes back.

test_pci_remove_under_load: a master flips (kmsvt-bench), the console
draws (a loop writing to tty1), kmsvt-hold writes through a mapping of a
dumb buffer and one of /dev/fb0; then the PCI device is removed and the
bus rescanned.  No kernel report (run.py reads dmesg after every test),
the clients get errors, the old mappings fault or stay harmless (nothing
of them on the new device's screen), and the console comes back on the
new device.

test_unload_busy_and_cycles: rmmod is refused while /dev/dri/card0 or
/dev/fb0 is open; 50 unload/load cycles with no client leak neither
kernel memory (no slab cache grows by an object every other cycle) nor
VRAM, and the console is on screen after the last load.

test_suspend_while_flipping: S3 while a master flips (modetest -v): it
keeps flipping after resume, at the refresh rate, and its picture is on
screen; the console comes back when it exits.
"""
import os
import re
import time

import initramfs
from debugfs import vram_used
from harness import CLEAR, S3, check, daemon
from modetest import bars_shown, ids, kms_programs, stop_modetest

TOOLS = ("kmsvt-bench", "kmsvt-hold", "kmsvt-test")
MAGENTA = (255, 0, 255)


def fault_guest(ctx, name, **kw):
    progs = [os.path.join(initramfs.BUILD, "userspace", t) for t in TOOLS]
    for p in progs:
        check(os.path.exists(p), "%s not built: run make" % p)
    return ctx.guest(name, programs=progs + kms_programs(), tag="faults", **kw)


def wait_until(g, cond, what, timeout=30, step=0.5):
    deadline = time.monotonic() + timeout
    while True:
        res = cond()
        if res:
            return res
        check(time.monotonic() < deadline, "%s: %s" % (g.name, what))
        time.sleep(step)


def hold_lines(g):
    return re.findall(r"^hold: dumb passes (\d+) sigbus (\d+) ioctl (\S+) fb passes (\d+) "
                      r"sigbus (\d+) ioctl (\S+)$", g.sh("cat /tmp/hold.log")[1], re.M)


def magenta_pixels(img):
    n = 0
    px = img.pixels
    for i in range(0, len(px), 3 * 7):  # every 7th pixel is plenty for 32-row bands
        if px[i] == 255 and px[i + 1] == 0 and px[i + 2] == 255:
            n += 1
    return n


def test_pci_remove_under_load(ctx):
    g = fault_guest(ctx, "pci-remove")
    _, dev = g.sh("readlink -f /sys/class/drm/card0/device", check=True)
    dev = dev.strip()
    bdf = os.path.basename(dev)
    check(re.match(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d$", bdf), "bdf %r" % bdf)

    # The master first (it must be the first opener), then the others.
    g.sh(daemon("kmsvt-bench -t 600 flip > /tmp/bench.log 2>&1"))
    wait_until(g, lambda: "mode_refresh_hz" in g.sh("cat /tmp/bench.log")[1],
               "kmsvt-bench did not start flipping: %s" % g.sh("cat /tmp/bench.log")[1])
    g.write_file("/tmp/loop.sh", 'echo $$ > /tmp/loop.pid\ni=0\nwhile true; do '
                 'echo "console line $i"; i=$((i+1)); done\n')
    g.sh(daemon("sh /tmp/loop.sh > /dev/tty1 2>/dev/null"))
    g.sh(daemon("kmsvt-hold > /tmp/hold.log 2>&1"))
    lines = wait_until(g, lambda: len(hold_lines(g)) >= 3 and hold_lines(g),
                       "kmsvt-hold not writing: %s" % g.sh("cat /tmp/hold.log")[1])
    check(int(lines[-1][0]) > 0 and int(lines[-1][3]) > 0, "kmsvt-hold: %r" % (lines[-1],))
    time.sleep(2)

    st, out = g.sh("echo 1 > /sys/bus/pci/devices/%s/remove" % bdf, timeout=120)
    check(st == 0, "PCI remove failed: %r" % out)
    _, dri = g.sh("ls /dev/dri /dev/fb0 2>&1; cat /proc/fb")
    check("card0" not in dri and "kmsvt" not in dri, "device still there: %r" % dri)

    # The master's flips fail and it exits; kmsvt-hold's ioctls fail.
    wait_until(g, lambda: g.sh("pidof kmsvt-bench")[0] != 0,
               "kmsvt-bench still running after the remove: %s" % g.sh("cat /tmp/bench.log")[1])
    _, bench = g.sh("cat /tmp/bench.log")
    check(re.search(r"# flip: stopped after \d+ flips: (No such device|Input/output error)", bench),
          "kmsvt-bench was not told the device is gone: %r" % bench[-2000:])
    time.sleep(2)
    lines = hold_lines(g)
    last = lines[-1]
    check(last[2] == "ENODEV", "ioctl on the removed device's open file: %s" % last[2])
    check(last[5] in ("ENODEV", "ENXIO", "EIO", "OK"),
          "ioctl on the removed framebuffer's open file: %s" % last[5])
    check(g.sh("pidof kmsvt-hold")[0] == 0, "kmsvt-hold died: %s" % g.sh("cat /tmp/hold.log")[1])
    g.assert_no_oops()

    st, out = g.sh("echo 1 > /sys/bus/pci/rescan", timeout=120)
    check(st == 0, "PCI rescan failed: %r" % out)
    # The new device is card1 while the old one's minor is held open (by
    # kmsvt-hold); the framebuffer's number is free again.
    card = wait_until(g, lambda: re.findall(r"^(card\d+)$", g.sh("ls /dev/dri")[1], re.M),
                      "no DRM device after the rescan: %s" % g.sh("ls /dev/dri; cat /proc/fb")[1])
    card = "/dev/dri/" + card[0]
    wait_until(g, lambda: g.sh("grep -q '^0 kmsvt' /proc/fb")[0] == 0,
               "no fb0 after the rescan: %s" % g.sh("cat /proc/fb")[1])
    _, vt = g.sh("cat /sys/class/vtconsole/vtcon*/name")
    check("kmsvt" in vt, "kmsvt's console not back: %r" % vt)
    st, out = g.sh("kill $(cat /tmp/loop.pid)")
    check(st == 0, "the console loop was not running through the remove: %r" % out)
    g.tty_write(CLEAR + "console after the rescan\n")
    img, _ = g.wait_screen_text("console after the rescan", timeout=30)
    check((img.width, img.height) == (1280, 800), "mode after rescan %dx%d" % (img.width, img.height))
    # The old framebuffer mapping, still written, must not reach the new
    # device's screen.
    time.sleep(2)
    img = g.screendump(save_as="%s-after-rescan.ppm" % g.name)
    check(magenta_pixels(img) == 0,
          "the removed device's /dev/fb0 mapping writes into the new device's screen "
          "(%d magenta samples)" % magenta_pixels(img))
    lines = hold_lines(g)
    g.sh("kill %s" % g.sh("pidof kmsvt-hold")[1].strip())
    with open(os.path.join(os.path.dirname(g.log_path), g.name + "-hold.log"), "w") as f:
        f.write(g.sh("cat /tmp/hold.log")[1])
    # The new device works for a new master.
    st, out = g.sh("kmsvt-test -d %s flip" % card, timeout=300)
    check(st == 0, "kmsvt-test flip on the new device: %s" % out[-2000:])
    g.wait_screen_text("console after the rescan", timeout=30)
    g.assert_no_oops()


def meminfo(g):
    _, out = g.sh("cat /proc/meminfo")
    return {k: int(v) for k, v in re.findall(r"^(\w+):\s+(\d+) kB$", out, re.M)}


# A leak of one object a cycle grows its cache by 50 over 50 cycles; the
# caches that do not leak move by a few objects (a task, a page cache
# node: at most 3 measured over 20 and 50 cycles on both kernels).
# SUnreclaim, in slab pages (32 KiB for some caches), is too coarse for
# this: it moves by tens of KiB with no leak, and is only logged.
LEAK_OBJS = 25


def slabinfo(g):
    """Active objects of each slab cache, after SLUB gives back its per-CPU
    slabs (their free objects count as active until then)."""
    _, out = g.sh("for f in /sys/kernel/slab/*/shrink; do echo 1 > $f; done; "
                  "cat /proc/slabinfo", timeout=60)
    return {p[0]: int(p[1]) for p in (ln.split() for ln in out.splitlines())
            if len(p) > 5 and p[1].isdigit()}


def alloc_sites(g):
    """Live objects per allocation site, (cache, function+offset): count."""
    _, out = g.sh("cd /sys/kernel/debug/slab && grep -H '^ *[0-9]* [^ ]*+0x' */alloc_traces",
                  timeout=120)
    sites = {}
    for cache, n, fn in re.findall(r"^([^/\n]+)/alloc_traces: *(\d+) (\S+)", out, re.M):
        sites[cache, fn] = sites.get((cache, fn), 0) + int(n)
    return sites


def grown_sites(g, before, caches):
    """The allocation sites of the given caches that gained objects, with
    one of their stacks."""
    after = alloc_sites(g)
    grown = sorted(((n - before.get(k, 0), k) for k, n in after.items()
                    if k[0] in caches and n - before.get(k, 0) >= LEAK_OBJS // 2), reverse=True)
    text = ""
    for n, (cache, fn) in grown[:4]:
        _, out = g.sh("cat /sys/kernel/debug/slab/%s/alloc_traces" % cache, timeout=60)
        stack = next((b for b in out.split("\n\n") if (" %s " % fn) in b.split("\n")[0]), "")
        text += "== %s +%d at %s\n%s\n\n" % (cache, n, fn, stack.strip("\n"))
    return text or "no allocation site gained %d objects\n" % (LEAK_OBJS // 2)


# A bug of 7.x's TTM, not kmsvt's (drivers/gpu/drm/ttm/ttm_pool.c):
# ttm_pool_type_init() gives each global pool type a list_lru
# (list_lru_init: an array of its nodes, from kmalloc), and
# ttm_pool_type_fini() never calls list_lru_destroy().  The pool types are
# made when the first TTM device comes and finished when the last goes: on
# x86, write-combined and uncached, normal and DMA32, each for 11 orders,
# 44 a time.  So every reload of the only TTM driver (in-tree bochs too)
# leaks 44 node arrays.  Counted out of the leak check, and only these: the
# objects of one allocation site whose every stack runs through
# ttm_pool_type_init() from ttm_pool_mgr_init(), at most 44 a cycle.
TTM_LRU_PER_CYCLE = 44


def ttm_lru_objects(g, caches):
    """{cache: live objects allocated by __list_lru_init for a TTM global
    pool type} in the given caches (slub_debug's alloc_traces: one block a
    distinct stack, its count first)."""
    found = {}
    for cache in caches:
        _, out = g.sh("cat /sys/kernel/debug/slab/%s/alloc_traces" % cache, timeout=60)
        for block in out.split("\n\n"):
            m = re.match(r"\s*(\d+) __list_lru_init\+", block)
            if m and re.search(r"\bttm_pool_type_init\+.*\n.*\bttm_pool_mgr_init\+", block):
                found[cache] = found.get(cache, 0) + int(m.group(1))
    return found


def reload(g, n):
    st, out = g.sh("i=0; while [ $i -lt %d ]; do rmmod kmsvt && modprobe kmsvt || exit 1; "
                   "i=$((i+1)); done; echo cycles $i" % n, timeout=60 + 20 * n)
    check(st == 0 and "cycles %d" % n in out, "unload/load cycles failed: %r" % out[-2000:])


def test_unload_busy_and_cycles(ctx):
    g = fault_guest(ctx, "unload")
    for node in ("/dev/dri/card0", "/dev/fb0"):
        g.sh(daemon("exec sleep 1000 < %s" % node))
        wait_until(g, lambda: g.sh("pidof sleep")[0] == 0, "the holder did not start")
        st, out = g.sh("rmmod kmsvt")
        check(st != 0 and re.search(r"in use|Resource temporarily unavailable|busy", out, re.I),
              "rmmod with %s open: %d %r" % (node, st, out))
        check(g.sh("grep -q '^kmsvt ' /proc/modules")[0] == 0, "kmsvt unloaded with %s open" % node)
        g.sh("kill $(pidof sleep)")
        wait_until(g, lambda: g.sh("pidof sleep")[0] != 0, "the holder did not exit")

    # Warm-up: the first cycles fill caches (kernfs, sysfs, the VT layer's).
    reload(g, 5)
    vram0 = vram_used(g)
    # Sites first: debugfs keeps what its first open of each file allocates.
    a0 = alloc_sites(g)
    m0, s0 = meminfo(g), slabinfo(g)
    lru0 = ttm_lru_objects(g, s0)
    cycles = 50
    reload(g, cycles)
    # Some frees land later: 6.12's TTM makes a workqueue per device, and
    # destroy_workqueue() frees its pool_workqueue through a kthread and
    # RCU (measured: +16 objects right after 8 cycles, -14 six seconds
    # later).  A leak stays; wait up to 20 s for the rest to go.
    ttm_lru = {}
    for waited in range(10):
        m1, s1 = meminfo(g), slabinfo(g)
        grown = sorted(((s1[k] - s0.get(k, 0), k) for k in s1
                        if s1[k] - s0.get(k, 0) >= LEAK_OBJS), reverse=True)
        if grown:
            # TTM's own leak (above), where it is no more than TTM's.
            lru1 = ttm_lru_objects(g, [k for _, k in grown])
            ttm_lru = {k: lru1[k] - lru0.get(k, 0) for k in lru1
                       if 0 < lru1[k] - lru0.get(k, 0) <= TTM_LRU_PER_CYCLE * cycles}
            grown = [(n - ttm_lru.get(k, 0), k) for n, k in grown
                     if n - ttm_lru.get(k, 0) >= LEAK_OBJS]
        if not grown:
            break
        time.sleep(2)
    vram1 = vram_used(g)
    with open(os.path.join(os.path.dirname(g.log_path), g.name + "-meminfo.log"), "w") as f:
        for name, m in (("after 5", m0), ("after 55", m1)):
            f.write("%s: %s\n" % (name, {k: m[k] for k in ("MemAvailable", "Slab", "SUnreclaim")}))
        f.write("slab caches grown by %d objects or more: %r (after %d s)\n"
                % (LEAK_OBJS, grown, 2 * waited))
        f.write("TTM's list_lru leak (7.x's ttm_pool_type_fini), counted out: %r\n" % ttm_lru)
    check(vram1 == vram0, "VRAM used %d after 5 cycles, %d after 55" % (vram0, vram1))
    if grown:
        traces = grown_sites(g, a0, {k for _, k in grown})
        check(False, "%s: kernel memory leaked over 50 unload/load cycles: %s objects "
              "(SUnreclaim %+d KiB); where the objects come from:\n%s" % (
                  g.name, ", ".join("%s +%d" % (k, n) for n, k in grown),
                  m1["SUnreclaim"] - m0["SUnreclaim"], traces))
    _, vt = g.sh("cat /sys/class/vtconsole/vtcon*/name")
    check("kmsvt" in vt, "kmsvt's console not bound after the last load: %r" % vt)
    g.tty_write(CLEAR + "console after 55 reloads\n")
    img, _ = g.wait_screen_text("console after 55 reloads")
    check((img.width, img.height) == (1280, 800), "mode %dx%d" % (img.width, img.height))
    g.assert_no_oops()


def modetest_freqs(g):
    return [float(f) for f in re.findall(r"freq: ([\d.]+)Hz", g.sh("cat /tmp/mt.log")[1])]


def test_suspend_while_flipping(ctx):
    g = fault_guest(ctx, "suspend-flip", devices=S3)
    g.tty_write(CLEAR + "console before the sleep\n")
    g.wait_screen_text("console before the sleep")
    conn, crtc = ids(g.sh("kmsvt-info")[1])
    g.sh("sleep 1000 | modetest -M kmsvt -v -s %s@%s:1280x800 >/tmp/mt.log 2>&1 &" % (conn, crtc))
    wait_until(g, lambda: len(modetest_freqs(g)) >= 2, "modetest -v not flipping: %s"
               % g.sh("cat /tmp/mt.log")[1][-1500:])
    before = len(modetest_freqs(g))
    st, out = g.sh("echo +3 > /sys/class/rtc/rtc0/wakealarm && echo mem > /sys/power/state",
                   timeout=120)
    check(st == 0, "suspend failed: %r" % out)
    st, out = g.sh("dmesg | grep -c 'ACPI: PM: Waking up from system sleep state S3'")
    check(out.strip() == "1", "the guest did not sleep: %r" % out)
    # Flipping again: new freq lines (one every 60 flips), at the refresh rate.
    wait_until(g, lambda: len(modetest_freqs(g)) >= before + 4,
               "modetest stopped flipping after resume: %s" % g.sh("cat /tmp/mt.log")[1][-1500:],
               timeout=60)
    # Vsynced again: never faster than the refresh, and at it for at least
    # one of modetest's 60-flip windows (a busy host stalls some windows:
    # 25 Hz was seen once for one window of three, with 4 other QEMUs).
    rates = modetest_freqs(g)[before + 1:]
    check(rates and max(rates) < 90 and max(rates) > 40,
          "flip rates after resume: %r" % rates)
    _, st_alive = g.sh("pidof modetest")
    check(st_alive.strip(), "modetest exited: %s" % g.sh("cat /tmp/mt.log")[1][-1500:])
    # Its picture: the SMPTE bars (one of its two buffers) on screen, and
    # the screen changing (the other buffer).
    seen_bars = seen_other = False
    deadline = time.monotonic() + 30
    while not (seen_bars and seen_other):
        img = g.screendump()
        if bars_shown(img, 1280, 800) is None:
            seen_bars = True
        elif (img.width, img.height) == (1280, 800) and not img.is_black():
            seen_other = True
        check(time.monotonic() < deadline, "%s: modetest's flipping picture not on screen after "
              "resume (bars %s, other %s): %s" % (g.name, seen_bars, seen_other,
                                                  bars_shown(img, 1280, 800)))
    stop_modetest(g)
    g.wait_screen_text("console before the sleep")
    g.assert_no_oops()
