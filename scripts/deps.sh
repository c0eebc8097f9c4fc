#!/bin/sh
# Install everything kmsvt needs from Debian packages, idempotently, without
# changing the host's kernel or upgrading any of its packages.
#
# Host tools come from the host's own apt suites.  The two guest kernels
# (Debian 12's 6.1 and bookworm-backports' 6.12) are never installed: their
# image, modules, headers and kbuild packages are downloaded with a private
# apt configuration under build/apt/ (the host's own mirror, plus the
# backports suite of that mirror) and extracted under build/kernels/<rel>/.
# The host's apt sources are left as they are.
#
#   deps.sh            install and fetch
#   deps.sh --dry-run  print the apt transaction and the kernel packages it
#                      would fetch; install nothing
set -eu

BUILD=${BUILD:-$(pwd)/build}
STAMP=$BUILD/.deps-done
DRY=0
[ "${1:-}" = "--dry-run" ] && DRY=1

HOST_PKGS="build-essential bc bison flex libelf-dev kmod xz-utils cpio
	python3 qemu-system-x86 qemu-utils busybox-static libdrm-dev libdrm-tests kmscube
	libgl1-mesa-dri libegl-mesa0 libgbm1 pkg-config sparse
	linux-source-6.1 zbar-tools debootstrap e2fsprogs socat pahole
	seatd libseat-dev fbset dkms kbd console-setup-linux
	dpkg-dev debhelper dh-dkms fakeroot lintian"

kernels_ready() {
	[ -f "$BUILD/kernels/releases" ] || return 1
	for rel in $(cat "$BUILD/kernels/releases"); do
		[ -f "$BUILD/kernels/$rel/build/Makefile" ] || return 1
		[ -f "$BUILD/kernels/$rel/lib/modules/$rel/modules.dep" ] || return 1
	done
}

if [ $DRY = 0 ] && [ -f "$STAMP" ] && [ "$STAMP" -nt "$0" ] && kernels_ready; then
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
# (read from what apt already uses), its security suite, and backports.
APT=$BUILD/apt
mirror_of() {
	apt-cache policy | awk -v s="$1/main" '$3 == s && $2 ~ /^https?:/ { print $2; exit }'
}
MIRROR=$(mirror_of bookworm)
SECURITY=$(mirror_of bookworm-security)
[ -n "$MIRROR" ] || { echo "deps: apt has no bookworm/main source to take the mirror from" >&2; exit 1; }
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$APT/sources.list.d"
{
	echo "deb [signed-by=$KEYRING] $MIRROR bookworm main"
	echo "deb [signed-by=$KEYRING] $MIRROR bookworm-updates main"
	echo "deb [signed-by=$KEYRING] $MIRROR bookworm-backports main"
	[ -z "$SECURITY" ] || echo "deb [signed-by=$KEYRING] $SECURITY bookworm-security main"
} > "$APT/sources.list"
papt() {
	cmd=$1
	shift
	"$cmd" -o Dir::Etc::SourceList="$APT/sources.list" \
		-o Dir::Etc::SourceParts="$APT/sources.list.d" \
		-o Dir::State::Lists="$APT/lists" -o Dir::Cache="$APT/cache" \
		-o APT::Sandbox::User=root -q "$@"
}
papt apt-get update >/dev/null

# Resolve the current ABI through the metapackages instead of hard-coding it.
dep_on() { awk -v p="$1" '$1 == "Depends:" && index($2, p) == 1 { print $2; exit }'; }
H61=$(papt apt-cache depends linux-headers-amd64 | dep_on linux-headers-6.1.)
H612=$(papt apt-cache -t bookworm-backports depends linux-headers-amd64 | dep_on linux-headers-6.12.)
REL61=${H61#linux-headers-}
REL612=${H612#linux-headers-}
[ -n "$REL61" ] && [ -n "$REL612" ] || { echo "deps: cannot resolve kernel releases" >&2; exit 1; }
echo "deps: kernels $REL61 $REL612"

# linux-headers-REL needs its -common and the linux-kbuild package for REL.
kernel_pkgs() {
	common=$(papt apt-cache depends "linux-headers-$1" | dep_on "linux-headers-")
	kbuild=$(papt apt-cache depends "linux-headers-$1" | dep_on "linux-kbuild-")
	echo "linux-image-$1-unsigned linux-headers-$1 $common $kbuild"
}

if [ $DRY = 1 ]; then
	for rel in $REL61 $REL612; do
		echo "deps: would download and extract under build/kernels/$rel: $(kernel_pkgs "$rel")"
	done
	exit 0
fi

mkdir -p "$BUILD/kernels"
for rel in $REL61 $REL612; do
	dst=$BUILD/kernels/$rel
	[ -f "$dst/build/Makefile" ] && [ -f "$dst/lib/modules/$rel/modules.dep" ] && continue
	tmp=$BUILD/kernels/.dl-$rel
	rm -rf "$tmp" "$dst" && mkdir -p "$tmp/root" "$dst/lib"
	# shellcheck disable=SC2046
	(cd "$tmp" && papt apt-get download $(kernel_pkgs "$rel"))
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$tmp/root"
	done
	mv "$tmp/root/lib/modules" "$dst/lib/"
	cp "$tmp/root/boot/vmlinuz-$rel" "$dst/vmlinuz"
	cp "$tmp/root/boot/config-$rel" "$dst/config"
	mv "$tmp/root/usr" "$dst/usr"
	rm -rf "$tmp"
	# The one absolute path in the headers: their Makefile includes -common.
	hdr=$dst/usr/src/linux-headers-$rel
	sed -i "s|^include /usr/src/|include $dst/usr/src/|" "$hdr/Makefile"
	ln -sfn "usr/src/linux-headers-$rel" "$dst/build"
	depmod -b "$dst" "$rel"
done
echo "$REL61 $REL612" > "$BUILD/kernels/releases"
touch "$STAMP"
