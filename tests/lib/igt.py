"""IGT GPU Tools' KMS and core tests, the DRM subsystem's own conformance
suite, run on kmsvt and on in-tree bochs and judged as DRM CI judges a
driver: by a list of the subtests expected to fail, each with its reason
(tests/igt/<driver>.txt).  A failure the list does not name fails the run,
and so does an entry whose subtest ran and did not fail (the list never
keeps what was fixed).

The tests are built by scripts/igt.sh from the source tarball IGT_TARBALL
names (Debian ships none of IGT's tests).  Each binary runs in a busybox
guest with its libraries, on card0, with IGT's plain output written to a
file: a line "Subtest NAME: RESULT (SECONDS)" (or "Dynamic subtest ...")
a subtest.

SETS names what runs: "ci", the subset for the suite on kmsvt on each
full kernel (97 s with the boot on 6.12.117 under TCG), and "full", make
test-igt's, on kmsvt and bochs.
"""
import fnmatch
import glob
import os
import re
import subprocess

import initramfs
from harness import check

REPO = initramfs.REPO
OUT = os.path.join(initramfs.BUILD, "igt")
EXPECT = os.path.join(REPO, "tests", "igt")

# The binaries make test-igt runs, whole.
FULL = ("core_auth", "core_getclient", "core_getstats", "core_getversion", "core_setmaster",
        "core_setmaster_vs_auth", "dumb_buffer", "kms_addfb_basic", "kms_atomic",
        "kms_atomic_transition", "kms_cursor_legacy", "kms_flip", "kms_getfb", "kms_plane",
        "kms_prop_blob", "kms_properties", "kms_setmode", "kms_vblank")
# What the suite runs: (binary, subtests pattern or None for all of it).
# The pattern is IGT's --run-subtest (comma-separated globs).
CI = (("core_auth", None), ("core_getclient", None), ("core_getstats", None),
      ("core_getversion", None), ("core_setmaster", None), ("core_setmaster_vs_auth", None),
      ("dumb_buffer", None), ("kms_addfb_basic", None), ("kms_getfb", None),
      ("kms_prop_blob", None), ("kms_properties", None),
      ("kms_atomic", "plane-primary-legacy,plane-overlay-legacy,test-only,atomic-invalid-params,"
                     "plane-invalid-params,crtc-invalid-params,atomic_plane_damage"),
      ("kms_atomic_transition", "plane-use-after-nonblocking-unbind,plane-all-transition"),
      ("kms_flip", "basic-flip-vs-dpms,basic-flip-vs-modeset,basic-flip-vs-wf_vblank,"
                   "basic-plain-flip,flip-vs-expired-vblank,flip-vs-panning,nonblocking-read"),
      ("kms_vblank", "invalid,crtc-id,query-idle,query-busy,wait-idle,accuracy-idle"),
      ("kms_setmode", "basic"),
      ("kms_cursor_legacy", "basic-flip-before-cursor-legacy"))
SETS = {"ci": CI, "full": tuple((b, None) for b in FULL)}
# The longest a binary may run (kms_flip's whole run is the longest).
TIMEOUT = {"ci": 240, "full": 1800}


def tarball():
    """IGT's source tarball, which IGT_TARBALL names (IGT GPU Tools'
    source, e.g. igt-gpu-tools-ecb9eb7f.tar.xz, IGT 2.2); without it the
    test fails loudly (nothing passes by skipping)."""
    path = os.environ.get("IGT_TARBALL", "")
    check(os.path.isfile(path), "IGT_TARBALL names no file (%r): IGT's tests need IGT GPU "
          "Tools' source tarball" % path)
    return path


def build():
    """The test binaries (scripts/igt.sh; nothing redone while its stamp
    matches); returns their folder."""
    res = subprocess.run(["sh", os.path.join(REPO, "scripts", "igt.sh"), tarball(), OUT]
                         + list(FULL), capture_output=True, text=True)
    check(res.returncode == 0, "scripts/igt.sh failed:\n%s%s" % (res.stdout, res.stderr))
    return os.path.join(OUT, "bin")


def prepare(kernels):
    """tests/run.py's PREPARE: IGT built before the guests start."""
    build()


def image(binaries):
    """harness.guest()'s image arguments for a guest with IGT's binaries
    (in /usr/bin) and their libraries, libigt.so in /usr/lib."""
    bindir = build()
    libs = [p for p in glob.glob(os.path.join(OUT, "build", "lib", "libigt.so*"))
            if os.path.isfile(p)]
    return {"programs": [os.path.join(bindir, b) for b in binaries],
            "extra_files": {"/usr/lib/" + os.path.basename(p): p for p in libs},
            # libigt's own libraries (glib, cairo, ...): the binaries'
            # ldd cannot see them, libigt being outside their RUNPATH here.
            "libraries": libs, "tag": "igt", "mem": 1024}


RESULT_RX = re.compile(r"^(Subtest|Dynamic subtest) (\S+): ([A-Z]+) \(")
STARTING_RX = re.compile(r"^Starting (subtest|dynamic subtest): (\S+)$")


def parse(binary, output, status):
    """{name: result} from one binary's plain output and exit status: NAME
    is binary@subtest[@dynamic subtest], RESULT IGT's (SUCCESS, SKIP, FAIL,
    CRASH, ...).  A binary without subtests is one result from its status;
    a subtest started and never ended (the binary died or hung in it) is
    CRASH."""
    results, subtest, running = {}, None, None
    for line in output.splitlines():
        line = line.strip()
        m = STARTING_RX.match(line)
        if m:
            if m.group(1) == "subtest":
                subtest = m.group(2)
                running = "%s@%s" % (binary, subtest)
            continue
        m = RESULT_RX.match(line)
        if m:
            kind, name, result = m.groups()
            if kind == "Subtest":
                results["%s@%s" % (binary, name)] = result
                running = None
            else:
                results["%s@%s@%s" % (binary, subtest, name)] = result
    if running:
        results[running] = "CRASH"
    if subtest is None and not results:
        results[binary] = {0: "SUCCESS", 77: "SKIP"}.get(status, "FAIL")
    return results


def expectations(driver, rel):
    """{name: (result, reason)} of tests/igt/<driver>.txt that apply to
    rel: a line NAME RESULT [RELEASE-GLOB ...] (all kernels without one),
    its reason the comment lines above it."""
    expected, reason = {}, []
    with open(os.path.join(EXPECT, driver + ".txt")) as f:
        for line in f:
            line = line.strip()
            if line.startswith("#"):
                reason.append(line.lstrip("# "))
                continue
            if not line:
                reason = []
                continue
            fields = line.split()
            check(len(fields) >= 2 and reason, "tests/igt/%s.txt: %r has no reason above it"
                  % (driver, line))
            if len(fields) == 2 or any(fnmatch.fnmatch(rel, g) for g in fields[2:]):
                expected[fields[0]] = (fields[1], " ".join(reason))
    return expected


FAILED = ("FAIL", "CRASH", "TIMEOUT", "ABORT")


def judge(results, expected):
    """The problems of one run: failures expected nowhere, and expected
    failures that ran and did not fail.  SKIP is IGT's own verdict that
    the driver lacks what a subtest needs: not a failure."""
    problems = []
    for name, result in sorted(results.items()):
        want = expected.get(name, ("SUCCESS",))[0]
        if result in FAILED and result != want:
            problems.append("%s: %s, not expected" % (name, result))
        elif want in FAILED and result not in FAILED:
            problems.append("%s: %s where tests/igt expects %s (fixed? take it off the list)"
                            % (name, result, want))
    return problems


def run(g, binary, subtests, timeout):
    """One binary in guest g; returns (results, output)."""
    args = " --run-subtest '%s'" % subtests if subtests else ""
    status, _ = g.sh("cd /tmp && %s%s > /tmp/igt.out 2>&1" % (binary, args), timeout=timeout)
    _, output = g.sh("cat /tmp/igt.out", timeout=60)
    return parse(binary, output, status), output


def run_and_judge(ctx, driver, which="ci"):
    """Every binary of SETS[which] on driver's card0, one after the other
    in one guest; fails with every problem judge() finds (the kernel's
    reports fail it too: tests/run.py checks them after every test).
    The outputs and results are kept in build/test-logs/."""
    todo = SETS[which]
    g = ctx.guest("igt-%s-%s" % (driver, which), flavour=driver,
                  **image(sorted({b for b, _ in todo})))
    results, logs = {}, []
    for binary, subtests in todo:
        res, output = run(g, binary, subtests, TIMEOUT[which])
        results.update(res)
        logs.append("== %s\n%s" % (binary, output))
    with open(os.path.join(os.path.dirname(g.log_path),
                           "%s-igt-%s-%s.log" % (ctx.rel, driver, which)), "w") as f:
        f.write("\n".join(logs))
        f.write("\n== results\n" + "".join("%s %s\n" % kv for kv in sorted(results.items())))
    counts = {}
    for r in results.values():
        counts[r] = counts.get(r, 0) + 1
    print("%s-igt-%s-%s: %s" % (ctx.rel, driver, which,
                                ", ".join("%d %s" % (n, r) for r, n in sorted(counts.items()))),
          flush=True)
    problems = judge(results, expectations(driver, ctx.rel))
    check(not problems, "IGT on %s (%s):\n%s" % (driver, which, "\n".join(problems)))
    g.assert_no_oops()
