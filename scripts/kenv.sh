#!/bin/sh
# Run a command where a guest kernel's modules are built.
#
#   kenv.sh REL CMD [ARG...]         for kernel REL of build/kernels/, with
#                                    KDIR set to its headers
#   kenv.sh --make REL [ARG...]      make -C "$KDIR" ARG... there
#   kenv.sh --root DIR CMD [ARG...]  in the Debian root DIR
#
# Debian 13's kernels and later are built with a newer gcc than Debian 12's
# (their headers ask for gcc-14 or gcc-16 and refuse gcc-12's flags), so
# scripts/deps.sh gives such a kernel a Debian root of its suite with that
# compiler, linked as build/kernels/REL/root.  For a kernel without one the
# command runs here as it is.  In a root it runs chrooted, in a mount
# namespace of its own that shows the repository (and KMSVT_BUILD, /tmp,
# /dev, /proc) at the same paths as outside, so that M= and every file name
# mean the same on both sides; nothing stays mounted afterwards.  There the
# headers are KDIR=/usr/src/linux-headers-REL, the path they were packaged
# for: 6.13's Kbuild puts an external module's objects into the headers
# themselves when make -C names them by another path.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
BUILD=${KMSVT_BUILD:-${BUILD:-$REPO/build}}

usage() { sed -n '2,21p' "$0" >&2; exit 2; }
make=
[ "${1:-}" = --make ] && { make=1; shift; }
if [ "${1:-}" = --root ] && [ -z "$make" ] && [ $# -ge 3 ]; then
	root=$2
	shift 2
elif [ $# -ge 1 ]; then
	rel=$1
	shift
	root=$BUILD/kernels/$rel/root
	if [ -e "$root" ]; then
		KDIR=/usr/src/linux-headers-$rel
	else
		KDIR=$BUILD/kernels/$rel/build
	fi
	export KDIR
	if [ -n "$make" ]; then
		set -- make -C "$KDIR" "$@"
	fi
	[ $# -ge 1 ] || usage
	[ -e "$root" ] || exec "$@"
else
	usage
fi
root=$(cd "$root" && pwd -P)
# What is shown in the root at its own path: the build folder needs no
# mount of its own when it is in the repository.
BINDS="/proc /dev /tmp $REPO"
case "$BUILD/" in "$REPO"/*) ;; *) BINDS="$BINDS $BUILD" ;; esac
export BINDS

# unshare -m as root; an unprivileged user gets a user namespace too.
ns="unshare -m"
[ "$(id -u)" = 0 ] || ns="unshare -rm"
# shellcheck disable=SC2016
exec $ns sh -euc '
root=$1; cwd=$2; shift 2
for d in $BINDS; do
	mkdir -p "$root$d"
	mount --rbind "$d" "$root$d"
done
exec chroot "$root" /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$cwd" "$@"
' kenv "$root" "$(pwd)" "$@"
