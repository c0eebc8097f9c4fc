#!/bin/sh
# kmsvt's install path (README, "Install"):
#
#   install.sh install      DKMS builds and installs kmsvt for $KVER (default:
#                           the running kernel); /etc/modprobe.d/kmsvt.conf
#                           makes it the driver of 1234:1111 ahead of bochs;
#                           an initramfs-tools hook puts it in the initramfs
#   install.sh uninstall    all of that undone: DKMS forgets kmsvt, the two
#                           files go, the initramfs is made again
#   install.sh dkms-check   a DKMS build for each guest kernel under build/
#                           (build/dkms, against build/kernels/<rel>/build,
#                           with the kernel's compiler: scripts/kenv.sh),
#                           touching nothing outside build/; prints
#                           `dkms status` of that tree
#
# KVER=<release> picks the kernel; KSRC=<dir> its headers if they are not
# at /lib/modules/$KVER/build.
set -eu
cd "$(dirname "$0")/.."

VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
FILES="dkms.conf $(make -s --no-print-directory module-sources)"
KVER=${KVER:-$(uname -r)}
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

need_dkms() {
	command -v dkms >/dev/null || { echo "install.sh: dkms is not installed (apt install dkms)" >&2; exit 1; }
}

# The sources DKMS builds from: $1/kmsvt-$VER.
copy_sources() {
	$SUDO rm -rf "$1/kmsvt-$VER"
	$SUDO mkdir -p "$1/kmsvt-$VER"
	# shellcheck disable=SC2086
	tar cf - $FILES | $SUDO tar xf - -C "$1/kmsvt-$VER"
}

remake_initramfs() {
	if command -v update-initramfs >/dev/null && [ -e "/boot/initrd.img-$KVER" ]; then
		$SUDO update-initramfs -u -k "$KVER"
	fi
}

do_install() {
	need_dkms
	copy_sources /usr/src
	dkms status -m kmsvt -v "$VER" | grep -q . || $SUDO dkms add -m kmsvt -v "$VER"
	$SUDO dkms build -m kmsvt -v "$VER" -k "$KVER" ${KSRC:+--kernelsourcedir "$KSRC"} --force
	$SUDO dkms install -m kmsvt -v "$VER" -k "$KVER" ${KSRC:+--kernelsourcedir "$KSRC"} --force
	$SUDO install -D -m 644 scripts/kmsvt-modprobe.conf /etc/modprobe.d/kmsvt.conf
	$SUDO install -D -m 755 scripts/kmsvt-initramfs-hook /etc/initramfs-tools/hooks/kmsvt
	remake_initramfs
	echo "kmsvt $VER installed for $KVER; it binds the display at the next boot"
}

do_uninstall() {
	need_dkms
	if dkms status -m kmsvt -v "$VER" | grep -q .; then
		$SUDO dkms remove -m kmsvt -v "$VER" --all
	fi
	$SUDO rm -rf "/usr/src/kmsvt-$VER"
	$SUDO rm -f /etc/modprobe.d/kmsvt.conf /etc/initramfs-tools/hooks/kmsvt
	remake_initramfs
	echo "kmsvt removed; the in-tree bochs driver binds the display at the next boot"
}

do_dkms_check() {
	need_dkms
	build=$(pwd)/build
	tree=$build/dkms
	rm -rf "$tree" "$build/dkms-src"
	mkdir -p "$tree"
	copy_sources "$build/dkms-src"
	opts="--dkmstree $tree --sourcetree $build/dkms-src --installtree $build/dkms-install"
	# shellcheck disable=SC2086
	dkms add -m kmsvt -v "$VER" $opts >/dev/null
	for rel in $(cat "$build/kernels/releases"); do
		# shellcheck disable=SC2086
		# shellcheck disable=SC2016
		sh scripts/kenv.sh "$rel" sh -c 'dkms build -m kmsvt -v "$1" -k "$2" $3 \
			--kernelsourcedir "$KDIR"' - "$VER" "$rel" "$opts" >/dev/null
	done
	# shellcheck disable=SC2086
	dkms status -m kmsvt $opts
}

case "${1:-}" in
install) do_install ;;
uninstall) do_uninstall ;;
dkms-check) do_dkms_check ;;
*) sed -n '2,20p' "$0" >&2; exit 2 ;;
esac
