#!/bin/sh
# Build kmsvt's debug kernel (lockdep, KASAN, kmemleak, fault injection) from
# Debian's own linux-source-6.12 (bookworm-backports), and lay it out under
# build/kernels/<rel>/ exactly like the Debian kernels that make deps
# extracts: vmlinuz, config, lib/modules/<rel>/ (with modules.dep) and
# build -> the built source tree, so that `make module-one REL=<rel>` and
# tests/run.py take it like any other release.  The release is not added to
# build/kernels/releases (make test's list); `make test-debug` runs it.
#
# Nothing is installed on the host: linux-source-6.12 is downloaded with the
# private apt setup of scripts/deps.sh (build/apt/) and extracted under
# build/debug-kernel/.  Cached: nothing to do when the kernel is there and
# newer than the config fragment (scripts/debug-kernel.config).
#
#   debug-kernel.sh            fetch, configure, build, install
#   debug-kernel.sh --release  print the debug kernel's release
set -eu
# Called from make test-debug: the kernel's make must not inherit its flags
# (make -n would print kernelversion's command instead of running it).
unset MAKEFLAGS MFLAGS MAKELEVEL

HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$(dirname "$HERE")/build}
FRAG=$HERE/debug-kernel.config
WORK=$BUILD/debug-kernel
APT=$BUILD/apt
JOBS=${JOBS:-2}

. "$HERE/papt.sh"

# The release: the source's kernelversion plus the fragment's LOCALVERSION.
localversion=$(sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$/\1/p' "$FRAG")
release_of() {
	echo "$(make -s -C "$1" kernelversion)$localversion"
}

SRC=$(ls -d "$WORK"/linux-source-6.12 2>/dev/null || true)
if [ "${1:-}" = "--release" ]; then
	if [ -z "$SRC" ]; then
		# Before the first build: the packaged version's upstream part.
		[ -f "$WORK/release" ] && cat "$WORK/release" && exit 0
		echo "debug-kernel: not built yet" >&2
		exit 1
	fi
	release_of "$SRC"
	exit 0
fi

if [ -n "$SRC" ] && [ -f "$WORK/release" ]; then
	rel=$(cat "$WORK/release")
	dst=$BUILD/kernels/$rel
	if [ -f "$dst/vmlinuz" ] && [ "$dst/vmlinuz" -nt "$FRAG" ] &&
	   [ -f "$dst/lib/modules/$rel/modules.dep" ]; then
		echo "debug-kernel: $rel is up to date"
		exit 0
	fi
fi

[ -f "$APT/sources.list" ] || { echo "debug-kernel: no build/apt: run 'make deps' first" >&2; exit 1; }

# Fetch and extract (once).
if [ -z "$SRC" ]; then
	mkdir -p "$WORK/dl"
	if ! ls "$WORK"/dl/linux-source-6.12_*.deb >/dev/null 2>&1; then
		papt apt-get update >/dev/null
		(cd "$WORK/dl" && papt apt-get download -t bookworm-backports linux-source-6.12)
	fi
	rm -rf "$WORK/root"
	dpkg-deb -x "$WORK"/dl/linux-source-6.12_*.deb "$WORK/root"
	tar xf "$WORK/root/usr/src/linux-source-6.12.tar.xz" -C "$WORK"
	rm -rf "$WORK/root"
	SRC=$WORK/linux-source-6.12
fi

# Configure: tinyconfig plus the fragment; every value of the fragment
# must have stuck (merge_config.sh -r... only warns), so check it ourselves.
cd "$SRC"
if [ ! -f .config ] || [ "$FRAG" -nt .config ]; then
	make -s tinyconfig
	scripts/kconfig/merge_config.sh -m .config "$FRAG" >/dev/null
	make -s olddefconfig
	bad=0
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) want=$line ;;
		"# CONFIG_"*" is not set") want=$line ;;
		*) continue ;;
		esac
		sym=$(echo "$want" | sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/\1/p; s/^# \(CONFIG_[A-Za-z0-9_]*\) is not set/\1/p')
		got=$(grep -E "^($sym=|# $sym is not set)" .config || echo "# $sym is not set")
		if [ "$got" != "$want" ]; then
			echo "debug-kernel: $sym: asked '$want', got '$got'" >&2
			bad=1
		fi
	done < "$FRAG"
	[ $bad = 0 ] || { echo "debug-kernel: the fragment does not hold (see above)" >&2; exit 1; }
fi

rel=$(release_of "$SRC")
echo "$rel" > "$WORK/release"
echo "debug-kernel: building $rel in $SRC (-j$JOBS)"
t0=$(date +%s)
nice -n 19 make -j"$JOBS" bzImage modules
echo "debug-kernel: built in $(( $(date +%s) - t0 )) s"

dst=$BUILD/kernels/$rel
rm -rf "$dst/lib"
mkdir -p "$dst"
make -s INSTALL_MOD_PATH="$dst" INSTALL_MOD_STRIP=1 DEPMOD=/bin/true modules_install
rm -f "$dst/lib/modules/$rel/build" "$dst/lib/modules/$rel/source"
depmod -b "$dst" "$rel"
cp .config "$dst/config"
ln -sfn "$SRC" "$dst/build"
cp arch/x86/boot/bzImage "$dst/vmlinuz.new" && mv "$dst/vmlinuz.new" "$dst/vmlinuz"
echo "debug-kernel: installed $dst"
