#!/bin/sh
# Install everything kmsvt needs from Debian packages, idempotently, without
# changing the host's kernel or upgrading any of its packages.
#
# Host tools come from the host's own apt suites.  The guest kernels (the
# list in scripts/kernels) are never installed: their image, modules,
# headers and kbuild packages are downloaded with a private apt
# configuration under build/apt/ (the host's own mirror and the suites the
# list names) and extracted under build/kernels/<rel>/.  A kernel whose
# headers want a gcc the host does not have (Debian 13's gcc-14, sid's
# gcc-16) gets a Debian root of its suite with that compiler under
# build/roots/ (debootstrap), its headers extracted there; scripts/kenv.sh
# builds in it.  The host's apt sources are left as they are.
#
#   deps.sh            install and fetch
#   deps.sh --dry-run  print the apt transaction and the kernel packages it
#                      would fetch; install nothing
set -eu

BUILD=${BUILD:-$(pwd)/build}
STAMP=$BUILD/.deps-done
DRY=0
[ "${1:-}" = "--dry-run" ] && DRY=1

# meson to zlib1g-dev: what IGT's KMS and core tests build with
# (scripts/igt.sh; its README lists them).
HOST_PKGS="build-essential bc bison flex libelf-dev kmod xz-utils cpio
	python3 qemu-system-x86 qemu-utils busybox-static libdrm-dev libdrm-tests kmscube
	libgl1-mesa-dri libegl-mesa0 libgbm1 pkg-config sparse
	linux-source-6.1 zbar-tools debootstrap e2fsprogs socat pahole
	seatd libseat-dev fbset dkms kbd console-setup-linux
	dpkg-dev debhelper dh-dkms fakeroot lintian
	meson ninja-build libkmod-dev libproc2-dev libunwind-dev libdw-dev libpciaccess-dev
	libcairo2-dev libpixman-1-dev libudev-dev libglib2.0-dev zlib1g-dev"

HERE=$(cd "$(dirname "$0")" && pwd)
LIST=$HERE/kernels

kernels_ready() {
	[ -f "$BUILD/kernels/releases" ] && [ "$BUILD/kernels/releases" -nt "$LIST" ] || return 1
	for rel in $(cat "$BUILD/kernels/releases"); do
		[ -f "$BUILD/kernels/$rel/build/Makefile" ] || return 1
		[ -f "$BUILD/kernels/$rel/lib/modules/$rel/modules.dep" ] || return 1
	done
}

# Done already, unless this script, its helpers or the list are newer.
if [ $DRY = 0 ] && [ -f "$STAMP" ] && [ "$STAMP" -nt "$0" ] &&
	[ "$STAMP" -nt "$HERE/kenv.sh" ] && [ "$STAMP" -nt "$HERE/papt.sh" ] &&
	kernels_ready; then
	exit 0
fi

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

if [ $DRY = 1 ]; then
	# shellcheck disable=SC2086
	apt-get -s install --no-install-recommends $HOST_PKGS
else
	$SUDO apt-get update -q
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -q --no-install-recommends $HOST_PKGS
fi

# A private apt setup for the guest kernels: the host's own Debian mirror
# (read from what apt already uses) and the suites scripts/kernels names.
APT=$BUILD/apt
mirror_of() {
	apt-cache policy | awk -v s="$1/main" '$3 == s && $2 ~ /^https?:/ { print $2; exit }'
}
MIRROR=$(mirror_of bookworm)
SECURITY=$(mirror_of bookworm-security)
[ -n "$MIRROR" ] || { echo "deps: apt has no bookworm/main source to take the mirror from" >&2; exit 1; }
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
KERNELS=$(grep -v '^#' "$LIST" | grep .)
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$APT/sources.list.d"
{
	echo "deb [signed-by=$KEYRING] $MIRROR bookworm main"
	echo "$KERNELS" | while read -r suite _; do
		case $suite in
		*-security) [ -z "$SECURITY" ] || echo "deb [signed-by=$KEYRING] $SECURITY $suite main" ;;
		bookworm) ;;
		*) echo "deb [signed-by=$KEYRING] $MIRROR $suite main" ;;
		esac
	done
} > "$APT/sources.list"
. "$HERE/papt.sh"
papt apt-get update >/dev/null

# Resolve the current ABI through the suite's metapackage instead of
# hard-coding it.
dep_on() { awk -v p="$1" '$1 == "Depends:" && index($2, p) == 1 { print $2; exit }'; }
release_of() {	# SUITE VERSION
	h=$(papt apt-cache -t "$1" depends linux-headers-amd64 | dep_on "linux-headers-$2.")
	[ -n "$h" ] || { echo "deps: $1 has no linux-headers-$2.*: see scripts/kernels" >&2; exit 1; }
	echo "${h#linux-headers-}"
}

# What a kernel's modules are built with: the gcc its headers depend on
# (gcc-14, gcc-16-for-host, ...), or "host" where that is the host's gcc.
compiler_of() {	# SUITE REL
	cc=$(papt apt-cache -t "$1" depends "linux-headers-$2" |
		awk '$1 == "Depends:" && $2 ~ /^gcc-[0-9]+/ { print $2; exit }')
	ver=${cc#gcc-}
	ver=${ver%%-*}
	if [ -z "$cc" ] || [ "$ver" = "$(gcc -dumpversion | cut -d. -f1)" ]; then
		echo host
	else
		echo "$cc"
	fi
}

# The packages of a kernel: 6.x's linux-image-REL-unsigned, or 7.x's split
# linux-binary (vmlinuz), linux-modules and linux-base (config,
# modules.builtin); the headers with their -common and linux-kbuild.
kernel_pkgs() {	# SUITE REL
	hdr=$(papt apt-cache -t "$1" depends "linux-headers-$2")
	common=$(echo "$hdr" | dep_on "linux-headers-")
	kbuild=$(echo "$hdr" | dep_on "linux-kbuild-")
	if papt apt-cache -t "$1" show "linux-binary-$2" >/dev/null 2>&1; then
		image="linux-binary-$2 linux-modules-$2 linux-base-$2"
	else
		image="linux-image-$2-unsigned"
	fi
	echo "$image linux-headers-$2 $common $kbuild"
}

# The Debian root a compiler's kernels build in: the suite's distribution
# (trixie-backports' kernels: trixie's) with that gcc, make, libelf and
# pahole, sparse for make check and dkms for the DKMS test.  Kernels of one
# distribution and gcc share it (gcc-14 and gcc-14-for-host: trixie-gcc-14).
gcc_major() { v=${1#gcc-}; echo "${v%%-*}"; }
root_of() { echo "$BUILD/roots/${1%%-*}-gcc-$(gcc_major "$2")"; }	# SUITE CC
in_root() { sh "$HERE/kenv.sh" --root "$@"; }
make_root() {	# SUITE CC
	root=$(root_of "$1" "$2")
	pkgs="gcc-$(gcc_major "$2") make libc6-dev libelf-dev dwarves sparse bc kmod dkms xz-utils"
	if [ "$(cat "$root/.kmsvt-root" 2>/dev/null)" != "$pkgs" ]; then
		dist=${1%%-*}
		echo "deps: a Debian $dist root for $2: $root"
		rm -rf "$root"
		mkdir -p "$(dirname "$root")"
		debootstrap --variant=minbase "$dist" "$root" "$MIRROR" >"$root.log" 2>&1 ||
			{ tail -20 "$root.log" >&2; echo "deps: debootstrap $dist failed" >&2; exit 1; }
		echo "deb $MIRROR $dist main" > "$root/etc/apt/sources.list"
		# sid's Release files are valid for a week only; a mirror may serve
		# them past that.
		echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/90kmsvt"
		in_root "$root" sh -c "apt-get update -q && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $pkgs && \
			apt-get clean" >>"$root.log" 2>&1 ||
			{ tail -20 "$root.log" >&2; echo "deps: apt in the $dist root failed" >&2; exit 1; }
		echo "$pkgs" > "$root/.kmsvt-root"
	fi
	# A backports kernel's compiler package may be its suite's alone.
	in_root "$root" dpkg -s "$2" >/dev/null 2>&1 && return 0
	case $1 in
	*-backports) grep -q " $1 " "$root/etc/apt/sources.list" ||
		echo "deb $MIRROR $1 main" >> "$root/etc/apt/sources.list" ;;
	esac
	in_root "$root" sh -c "apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $2 && \
		apt-get clean" >>"$root.log" 2>&1 ||
		{ tail -20 "$root.log" >&2; echo "deps: apt in $root failed" >&2; exit 1; }
}

if [ $DRY = 1 ]; then
	echo "$KERNELS" | while read -r suite ver tests _; do
		rel=$(release_of "$suite" "$ver")
		echo "deps: kernel $rel ($suite, $tests tests, compiler $(compiler_of "$suite" "$rel"))"
		echo "deps: would download and extract under build/kernels/$rel: $(kernel_pkgs "$suite" "$rel")"
	done
	exit 0
fi

# One kernel's files in the layout the tests read: build/kernels/REL/
# vmlinuz, config, lib/modules/REL (with modules.dep) and build (the
# headers: here, or in the kernel's root, which is linked as root).
fetch_kernel() {	# SUITE REL CC
	dst=$BUILD/kernels/$2
	[ -f "$dst/build/Makefile" ] && [ -f "$dst/lib/modules/$2/modules.dep" ] && return 0
	tmp=$BUILD/kernels/.dl-$2
	rm -rf "$tmp" "$dst" && mkdir -p "$tmp/root" "$dst/lib/modules"
	# shellcheck disable=SC2046
	(cd "$tmp" && papt apt-get -t "$1" download $(kernel_pkgs "$1" "$2"))
	for deb in "$tmp"/*.deb; do
		case $deb in
		*/linux-headers-*|*/linux-kbuild-*) [ "$3" = host ] || continue ;;
		esac
		dpkg-deb -x "$deb" "$tmp/root"
	done
	mods=$tmp/root/lib/modules/$2
	[ -d "$mods" ] || mods=$tmp/root/usr/lib/modules/$2
	for f in vmlinuz config; do
		if [ -f "$mods/$f" ]; then
			mv "$mods/$f" "$dst/$f"
		else
			cp "$tmp/root/boot/$f-$2" "$dst/$f"
		fi
	done
	mv "$mods" "$dst/lib/modules/$2"
	if [ "$3" = host ]; then
		mv "$tmp/root/usr" "$dst/usr"
		# The one absolute path in the headers: their Makefile includes -common.
		hdr=$dst/usr/src/linux-headers-$2
		sed -i "s|^include /usr/src/|include $dst/usr/src/|" "$hdr/Makefile"
		ln -sfn "usr/src/linux-headers-$2" "$dst/build"
	else
		# In the root the headers' absolute paths are right as they are.
		root=$(root_of "$1" "$3")
		rm -rf "$root/usr/src/linux-headers-$2"
		for deb in "$tmp"/linux-headers-*.deb "$tmp"/linux-kbuild-*.deb; do
			dpkg-deb -x "$deb" "$root"
		done
		ln -sfn "../../roots/$(basename "$root")" "$dst/root"
		ln -sfn "root/usr/src/linux-headers-$2" "$dst/build"
	fi
	rm -rf "$tmp"
	depmod -b "$dst" "$2"
}

# The kernels that build in one place (the host, or one root) are fetched
# one after the other, that root made first; the places at once, in the
# background (debootstrap and downloads wait on the network and on dpkg
# more than on a core).  Each kernel's line of the list goes to a slot of
# its own, joined in the list's order at the end.
mkdir -p "$BUILD/kernels"
slots=$BUILD/kernels/.slots
rm -rf "$slots" && mkdir -p "$slots"
echo "$KERNELS" | awk '{ print NR, $1, $2, $3 }' | while read -r i suite ver tests; do
	rel=$(release_of "$suite" "$ver")
	cc=$(compiler_of "$suite" "$rel")
	place=host
	[ "$cc" = host ] || place=$(basename "$(root_of "$suite" "$cc")")
	echo "$i $suite $rel $cc $tests" >> "$slots/$place.todo"
done
fetch_place() {	# TODO-FILE
	while read -r i suite rel cc tests; do
		echo "deps: kernel $rel ($suite, $tests tests, compiler $cc)"
		[ "$cc" = host ] || make_root "$suite" "$cc"
		fetch_kernel "$suite" "$rel" "$cc"
		echo "$rel $suite $tests" > "$slots/$i.line"
	done < "$1"
}
pids=
for todo in "$slots"/*.todo; do
	( set -e; fetch_place "$todo" ) > "${todo%.todo}.log" 2>&1 &
	pids="$pids $!"
done
failed=0
for pid in $pids; do
	wait "$pid" || failed=1
done
cat "$slots"/*.log
[ $failed = 0 ] || { echo "deps: fetching the kernels failed (above)" >&2; exit 1; }
# build/kernels/list: release, suite, tests; releases: the releases alone.
n=$(echo "$KERNELS" | wc -l)
seq 1 "$n" | while read -r i; do cat "$slots/$i.line"; done > "$BUILD/kernels/list.new"
rm -rf "$slots"
mv "$BUILD/kernels/list.new" "$BUILD/kernels/list"
awk '{ print $1 }' "$BUILD/kernels/list" | xargs > "$BUILD/kernels/releases"
touch "$STAMP"
