#!/bin/sh
# Install everything kmsvt needs from Debian packages, idempotently.
#
# Host packages go through apt.  The two guest kernels (Debian 12's 6.1 and
# bookworm-backports' 6.12) are installed as headers only; their images and
# modules are downloaded and extracted under build/kernels/, never into /boot.
set -eu

BUILD=${BUILD:-$(pwd)/build}
BPO_LIST=/etc/apt/sources.list.d/kmsvt-bookworm-backports.list
STAMP=$BUILD/.deps-done

if [ -f "$STAMP" ] && [ "$STAMP" -nt "$0" ] && [ -f "$BUILD/kernels/releases" ]; then
	ok=1
	for rel in $(cat "$BUILD/kernels/releases"); do
		[ -d "/usr/src/linux-headers-$rel" ] || ok=0
		[ -f "$BUILD/kernels/$rel/lib/modules/$rel/modules.dep" ] || ok=0
	done
	[ $ok = 1 ] && exit 0
fi

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

if ! grep -qs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null; then
	echo "deps: adding bookworm-backports to apt sources"
	echo "deb http://deb.debian.org/debian bookworm-backports main" | $SUDO tee "$BPO_LIST" >/dev/null
fi
$SUDO apt-get update -q

HOST_PKGS="build-essential bc bison flex libelf-dev kmod xz-utils cpio
	python3 qemu-system-x86 busybox-static libdrm-dev libdrm-tests kmscube
	libgl1-mesa-dri libegl-mesa0 libgbm1 pkg-config sparse
	linux-source-6.1 zbar-tools debootstrap e2fsprogs socat"
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $HOST_PKGS

# Resolve the current ABI through the metapackages instead of hard-coding it.
dep_of() { apt-cache depends "$@" | awk '/Depends: linux-(headers|image)-[0-9]/ {print $2; exit}'; }
H61=$(dep_of linux-headers-amd64 -t bookworm-security 2>/dev/null || true)
[ -n "$H61" ] || H61=$(apt-cache depends linux-headers-amd64 | awk '/Depends: linux-headers-6\.1/ {print $2; exit}')
REL61=${H61#linux-headers-}
H612=$(apt-cache -t bookworm-backports depends linux-headers-amd64 2>/dev/null |
	awk '/Depends: linux-headers-6\.12/ {print $2; exit}')
if [ -z "$H612" ]; then
	H612=$(apt-cache search --names-only '^linux-headers-6\.12\..*-amd64$' |
		awk '{print $1}' | sort -V | tail -n 1)
fi
REL612=${H612#linux-headers-}
[ -n "$REL61" ] && [ -n "$REL612" ] || { echo "deps: cannot resolve kernel releases" >&2; exit 1; }
echo "deps: kernels $REL61 $REL612"

$SUDO apt-get install -y -q --no-install-recommends "linux-headers-$REL61"
$SUDO apt-get install -y -q --no-install-recommends -t bookworm-backports "linux-headers-$REL612"

mkdir -p "$BUILD/kernels"
for rel in $REL61 $REL612; do
	dst=$BUILD/kernels/$rel
	[ -f "$dst/lib/modules/$rel/modules.dep" ] && continue
	tmp=$BUILD/kernels/.dl-$rel
	rm -rf "$tmp" && mkdir -p "$tmp"
	(cd "$tmp" && apt-get download -q "linux-image-$rel-unsigned")
	dpkg-deb -x "$tmp"/linux-image-*.deb "$tmp/root"
	rm -rf "$dst" && mkdir -p "$dst/lib"
	mv "$tmp/root/lib/modules" "$dst/lib/"
	cp "$tmp/root/boot/vmlinuz-$rel" "$dst/vmlinuz"
	cp "$tmp/root/boot/config-$rel" "$dst/config"
	rm -rf "$tmp"
	depmod -b "$dst" "$rel"
done
echo "$REL61 $REL612" > "$BUILD/kernels/releases"
touch "$STAMP"
