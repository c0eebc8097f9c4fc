"""Build a busybox initramfs for one guest kernel.

The image carries busybox, the display driver under test with the DRM modules
it needs (taken from the extracted Debian linux-image under build/kernels/),
and optional userspace programs with their shared libraries.  The in-tree
bochs.ko goes only into the baseline image ("bochs" flavour), never next to
kmsvt.ko.
"""
import gzip
import lzma
import os
import shutil
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("KMSVT_BUILD", os.path.join(REPO, "build"))


def du_bytes(path):
    """Bytes the files under path take on its file system (du -sx)."""
    out = subprocess.run(["du", "-sx", "--block-size=1", path], capture_output=True,
                         text=True, check=True).stdout
    return int(out.split()[0])


def module_sources(src=REPO):
    """Kbuild and the module's sources: the Makefile's one list of them
    (`make module-sources`), which module-one and DKMS copy too."""
    res = subprocess.run(["make", "-s", "--no-print-directory", "module-sources"], cwd=src,
                         capture_output=True, text=True)
    if res.returncode or not res.stdout.split():
        raise RuntimeError("make module-sources failed: %s" % res.stderr[-2000:])
    return res.stdout.split()


# Files the tests copy into guests (sources built for them, scripts).
GUEST_FILES = os.path.join(REPO, "tests", "guest", "files")

INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin LD_LIBRARY_PATH=/lib:/usr/lib
mkdir -p /proc /sys /dev /tmp /run
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmp /tmp
drv=kmsvt
modargs=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	drv=*) drv=${arg#drv=} ;;
	modargs=*) modargs=$(echo "${arg#modargs=}" | tr , ' ') ;;
	esac
done
if [ "$drv" != none ]; then
	echo "kmsvt-init: modprobe $drv" > /dev/kmsg
	modprobe "$drv" $modargs || echo "init: modprobe $drv failed"
fi
# On the serial line even when the kernel's console is not there.
echo "KMSVT-INIT-READY" > /dev/ttyS0
# A shell on the KMS console for people, one on the serial line for the
# host harness (or make run's terminal); both respawn.
(while true; do setsid -c sh </dev/tty1 >/dev/tty1 2>&1; sleep 1; done) &
while true; do
	setsid -c sh </dev/ttyS0 >/dev/ttyS0 2>&1
done
"""


def kernel_dir(rel):
    return os.path.join(BUILD, "kernels", rel)


def releases():
    with open(os.path.join(BUILD, "kernels", "releases")) as f:
        return f.read().split()


def kernel_list():
    """[(release, suite, tests)] of make deps' kernels (scripts/kernels):
    tests is "full" (the whole suite) or "smoke" (tests/run.py's SMOKE)."""
    with open(os.path.join(BUILD, "kernels", "list")) as f:
        return [tuple(line.split()[:3]) for line in f if line.strip()]


def full_releases():
    """The kernels the whole suite runs on, and the benchmarks by default."""
    return [rel for rel, _, tests in kernel_list() if tests == "full"]


def distribution(rel):
    """The Debian distribution rel comes from: bookworm, trixie or sid
    (its suite less -security or -backports)."""
    suites = {r: s for r, s, _ in kernel_list()}
    return suites.get(rel, "bookworm").split("-")[0]


def module_path(rel):
    return os.path.join(BUILD, rel, "kmsvt.ko")


def _moddep(rel):
    deps = {}
    path = os.path.join(kernel_dir(rel), "lib", "modules", rel, "modules.dep")
    with open(path) as f:
        for line in f:
            mod, _, rest = line.partition(":")
            deps[mod] = rest.split()
    return deps


def _modname(path):
    base = os.path.basename(path)
    return base.split(".ko")[0].replace("-", "_")


def _builtin(rel):
    """Names of the modules built into rel's kernel (modules.builtin)."""
    path = os.path.join(kernel_dir(rel), "lib", "modules", rel, "modules.builtin")
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {_modname(line.strip()) for line in f if line.strip()}


def available(rel, names):
    """The names rel has, as modules or built in: 7.x has no
    crc32c_generic (crc32c is a library there, which ext4 pulls in)."""
    have = {_modname(p) for p in _moddep(rel)} | _builtin(rel)
    return [n for n in names if n.replace("-", "_") in have]


def resolve_modules(rel, names):
    """Paths (relative to lib/modules/<rel>) of names and their dependencies;
    a module built into the kernel (the debug kernel's) needs no file."""
    deps = _moddep(rel)
    by_name = {_modname(p): p for p in deps}
    builtin = _builtin(rel)
    out, todo = [], list(names)
    while todo:
        n = todo.pop()
        p = by_name.get(n.replace("-", "_"))
        if p is None and n.replace("-", "_") in builtin:
            continue
        if p is None:
            raise RuntimeError("module %s not in %s's modules.dep" % (n, rel))
        if p in out:
            continue
        out.append(p)
        todo.extend(_modname(d) for d in deps[p])
    return out


def _copy_module(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if src.endswith(".xz"):
        with lzma.open(src) as i, open(dst[:-3], "wb") as o:
            shutil.copyfileobj(i, o)
    else:
        shutil.copy(src, dst)


def _ldd(binary):
    out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    libs = []
    for line in out.splitlines():
        parts = line.split()
        for p in parts:
            if p.startswith("/"):
                libs.append(p)
    return libs


def add_program(stage, binary):
    """Copy binary to /usr/bin and every shared library it needs."""
    dst = os.path.join(stage, "usr", "bin", os.path.basename(binary))
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copy(binary, dst)
    add_libraries(stage, _ldd(binary))


def add_libraries(stage, libs):
    """Copy libraries (at their host paths) and their dependencies."""
    todo, seen = list(libs), set()
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        dst = stage + f
        if not os.path.exists(dst):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(os.path.realpath(f), dst)
        todo.extend(_ldd(os.path.realpath(f)))


def _cpio(stage, out):
    files = subprocess.run(["find", "."], cwd=stage, capture_output=True,
                           text=True, check=True).stdout
    data = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=stage,
                          input=files.encode(), capture_output=True,
                          check=True).stdout
    with gzip.open(out, "wb", compresslevel=1) as f:
        f.write(data)


def build(rel, flavour="kmsvt", programs=(), extra_files=None, tag=None,
          libraries=(), modules=(), keep_stage=False):
    """Build build/<rel>/initramfs-<tag>.cpio.gz and return its path.

    flavour: "kmsvt" (our module) or "bochs" (the in-tree baseline).
    programs: host binaries to copy with their libraries.
    extra_files: {guest path: host path or bytes}.
    libraries: host shared objects to copy (with theirs) at the same path.
    modules: further kernel modules (with dependencies) for the image.
    keep_stage: keep build/<rel>/stage-<tag>/, the folder the image was
    made from (the benchmarks read the kmsvt.ko they measure there);
    otherwise it is removed (kmscube's, with Mesa, is 240 MB).
    """
    tag = tag or flavour
    out = os.path.join(BUILD, rel, "initramfs-%s.cpio.gz" % tag)
    stage = os.path.join(BUILD, rel, "stage-%s" % tag)
    shutil.rmtree(stage, ignore_errors=True)
    for d in ("bin", "sbin", "etc", "proc", "sys", "dev", "tmp", "lib", "lib64"):
        os.makedirs(os.path.join(stage, d), exist_ok=True)
    shutil.copy("/bin/busybox", os.path.join(stage, "bin", "busybox"))
    with open(os.path.join(stage, "init"), "w") as f:
        f.write(INIT)
    os.chmod(os.path.join(stage, "init"), 0o755)

    moddir = os.path.join("lib", "modules", rel)
    src_root = os.path.join(kernel_dir(rel), moddir)
    if flavour == "kmsvt":
        ko = module_path(rel)
        if not os.path.exists(ko):
            raise RuntimeError("%s missing: run make" % ko)
        needed = subprocess.run(["modinfo", "-F", "depends", ko], capture_output=True,
                                text=True, check=True).stdout.strip().split(",")
        mods = resolve_modules(rel, [n for n in needed if n])
        os.makedirs(os.path.join(stage, moddir, "extra"))
        shutil.copy(ko, os.path.join(stage, moddir, "extra", "kmsvt.ko"))
    elif flavour == "bochs":
        mods = resolve_modules(rel, ["bochs"])
    else:
        raise ValueError(flavour)
    mods += [m for m in resolve_modules(rel, modules) if m not in mods]
    for m in mods:
        _copy_module(os.path.join(src_root, m), os.path.join(stage, moddir, m))
    for name in ("modules.order", "modules.builtin", "modules.builtin.modinfo"):
        p = os.path.join(src_root, name)
        if os.path.exists(p):
            shutil.copy(p, os.path.join(stage, moddir, name))
    subprocess.run(["depmod", "-b", stage, rel], check=True)

    for prog in programs:
        add_program(stage, prog)
    add_libraries(stage, libraries)
    for guest, host in (extra_files or {}).items():
        dst = stage + guest
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if isinstance(host, bytes):
            with open(dst, "wb") as f:
                f.write(host)
        else:
            shutil.copy(host, dst)
            os.chmod(dst, os.stat(host).st_mode)
    _cpio(stage, out)
    if not keep_stage:
        shutil.rmtree(stage)
    return out
