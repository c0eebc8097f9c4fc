"""Checks that only the debug kernel can make (scripts/debug-kernel.sh,
`make test-debug`), turned on by KMSVT_DEBUG_CHECKS=1 in the environment.

After every guest test (harness.Guest.memcheck_problems, which already
reads dmesg for lockdep, KASAN, KFENCE, DEBUG_LIST and WARNING reports),
kmemleak scans the guest's memory; a leak whose allocation backtrace runs
through kmsvt, DRM, TTM or the console/fbdev code fails the test.  Other
suspected leaks (boot-time objects of the rest of the kernel) are written
to the test log only.
"""
import os
import re

import vm

ENABLED = os.environ.get("KMSVT_DEBUG_CHECKS") == "1"
KMEMLEAK = "/sys/kernel/debug/kmemleak"
# A backtrace line of the display stack: a module of it, or a function of
# kmsvt, DRM, TTM, fbdev or the VT console built into the kernel.
DISPLAY_RX = re.compile(r"\[(kmsvt|drm\w*|ttm)\]|\b(kmsvt|drm|ttm|fbcon|fb|vc|con|vt)_\w+\+0x")


def kmemleak_records(g, timeout=600):
    """Scan (twice: an object is reported once it has been seen unreferenced
    by a scan and is older than 5 s) and return the records, or None when
    the kernel has no kmemleak."""
    st, out = g.sh("if [ -e %s ]; then echo scan > %s && sleep 1 && echo scan > %s || "
                   "echo KMEMLEAK-SCAN-FAILED; cat %s; "
                   "else echo NO-KMEMLEAK; fi" % ((KMEMLEAK,) * 4), timeout=timeout)
    if "NO-KMEMLEAK" in out:
        return None
    if "KMEMLEAK-SCAN-FAILED" in out:
        # kmemleak turned itself off (e.g. its object pool ran out): say so.
        raise RuntimeError("kmemleak cannot scan: %s" % out.strip()[-500:])
    parts = re.split(r"(?m)^(?=unreferenced object )", out)
    return [p.rstrip() for p in parts if p.startswith("unreferenced object ")]


# Leaks of the DRM core itself, not kmsvt's: logged, not failed.
KNOWN_LEAKS = (
    # 6.12's drm_connector_cleanup() never frees connector->edid_override:
    # a device removed (rmmod) while debugfs' edid_override is set leaks
    # the EDID (test_console.test_reprobe_then_rmmod).
    "drm_edid_override_set+",
)


# Known to the DRM core only where commits fail on purpose (a test sets
# g.known_leaks): drm_atomic_helper_commit() failing after
# drm_atomic_helper_setup_commit() (prepare_planes, for want of memory)
# leaks the drm_crtc_commit of an ioctl that asked for an event.
# complete_signaling() (drm_atomic_uapi.c) frees the event and clears
# crtc_state->event, and __drm_atomic_helper_crtc_destroy_state() drops the
# event's reference to the commit only while crtc_state->event is set.
FAILED_COMMIT_LEAK = ("drm_atomic_helper_setup_commit+",)


def split_records(records, known=()):
    """(leaks of the display stack, the others)."""
    ours = [r for r in records if DISPLAY_RX.search(r)
            and not any(k in r for k in KNOWN_LEAKS + tuple(known))]
    return ours, [r for r in records if r not in ours]


def problems(g):
    """The display stack's leaks in guest g, as report excerpts (empty
    when the checks are off or the kernel has no kmemleak); the others go
    to build/test-logs/<guest>.kmemleak.log."""
    if not ENABLED:
        return []
    try:
        records = kmemleak_records(g)
    except Exception as e:  # noqa: BLE001 - a hung guest is a finding too
        return ["kmemleak scan failed: %s" % e]
    if records is None:
        return []
    ours, others = split_records(records, getattr(g, "known_leaks", ()))
    if records:
        with open(os.path.join(vm.LOGDIR, g.name + ".kmemleak.log"), "w") as f:
            f.write("%d suspected leaks, %d of the display stack\n\n" % (len(records), len(ours)))
            f.write("\n\n".join(ours + others) + "\n")
    return ["kmemleak: %d leak(s) of the display stack:\n%s" % (len(ours), "\n\n".join(ours[:5]))] \
        if ours else []
