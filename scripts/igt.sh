#!/bin/sh
# Build IGT GPU Tools' KMS and core tests, the DRM subsystem's own
# conformance suite, from its source tarball: Debian ships the tools of
# igt-gpu-tools but none of its tests, and its source package is not on
# the mirror.  Only the test binaries named are built (meson's KMS-only
# configuration; 21 s of two cores for 18); tests/lib/igt.py copies them
# into the guests with their libraries.
#
#   igt.sh TARBALL OUT TEST...   e.g. igt.sh igt-gpu-tools-ecb9eb7f.tar.xz
#                                build/igt kms_flip core_auth
#
# OUT/src is the tree, OUT/build meson's, OUT/bin the tests; OUT/stamp says
# which tarball and tests they were made from (nothing is redone while it
# matches).
set -eu

[ $# -ge 3 ] || { echo "usage: igt.sh TARBALL OUT TEST..." >&2; exit 2; }
tarball=$1 out=$2
shift 2
[ -f "$tarball" ] || { echo "igt.sh: no IGT source tarball at $tarball" >&2; exit 1; }
for tool in meson ninja; do
	command -v $tool >/dev/null ||
		{ echo "igt.sh: $tool missing: run make deps" >&2; exit 1; }
done

key="$(sha256sum "$tarball" | cut -d' ' -f1) $*"
[ "$(cat "$out/stamp" 2>/dev/null)" = "$key" ] && exit 0

rm -rf "$out/src" "$out/build" "$out/bin"
mkdir -p "$out/src" "$out/bin"
tar xf "$tarball" -C "$out/src"
# Tests, no runner, no documentation, no Intel or Xe parts, libunwind for
# IGT's backtraces of a failed assertion.
meson setup "$out/build" "$out/src" -Dtests=enabled -Dxe_driver=disabled \
	-Dxe_eudebug=disabled -Dvmtb=disabled -Dlibdrm_drivers= -Doverlay=disabled \
	-Dchamelium=disabled -Dvalgrind=disabled -Dman=disabled -Ddocs=disabled \
	-Dtestplan=disabled -Dsphinx=disabled -Drunner=disabled -Doping=disabled \
	-Dlibunwind=enabled >"$out/meson.log" 2>&1 ||
	{ tail -30 "$out/meson.log" >&2; echo "igt.sh: meson setup failed" >&2; exit 1; }
targets=
for t in "$@"; do
	targets="$targets tests/$t"
done
# shellcheck disable=SC2086
ninja -C "$out/build" $targets >"$out/ninja.log" 2>&1 ||
	{ tail -30 "$out/ninja.log" >&2; echo "igt.sh: ninja failed" >&2; exit 1; }
for t in "$@"; do
	cp "$out/build/tests/$t" "$out/bin/$t"
done
echo "$key" > "$out/stamp"
