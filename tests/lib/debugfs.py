"""kmsvt's debugfs files read in a guest: dri/N/FILE's "key: number"
lines (vram, kmsvt_stats), and the VRAM its buffers use."""
import re
import time

from harness import check


def debugfs_numbers(g, file):
    """kmsvt's dri/N/FILE as a dict of its "key: number" lines."""
    st, out = g.sh("cat /sys/kernel/debug/dri/*/%s" % file)
    check(st == 0, "%s: no dri/N/%s: %r" % (g.name, file, out[-500:]))
    return {k: int(v) for k, v in re.findall(r"(\w+): (\d+)$", out, re.M)}


def vram_used(g):
    nums = debugfs_numbers(g, "vram")
    check("vram_used" in nums, "%s: no vram_used in debugfs: %r" % (g.name, nums))
    return nums["vram_used"]


def wait_vram_used(g, want, timeout=20):
    """Buffers of a closed client go with its last state: allow a moment."""
    deadline = time.monotonic() + timeout
    while True:
        got = vram_used(g)
        if got == want or time.monotonic() > deadline:
            return got
        time.sleep(0.5)
