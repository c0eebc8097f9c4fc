#!/bin/sh
# make deb: the Debian packages kmsvt-dkms and kmsvt-tools (debian/), built
# with dpkg-buildpackage from a copy of the tree under OUT (the source tree
# is never written), then checked by lintian, which must find no error.
#
#   deb.sh [--no-lintian] [OUT]   OUT defaults to build/deb; it is made
#                                 anew and holds the .debs, .changes and
#                                 .buildinfo, and lintian.txt
set -eu
cd "$(dirname "$0")/.."

LINTIAN=1
[ "${1:-}" = "--no-lintian" ] && { LINTIAN=0; shift; }
OUT=$(realpath -m "${1:-build/deb}")
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)

for tool in dpkg-buildpackage dh dh_dkms; do
	command -v $tool >/dev/null || {
		echo "deb.sh: $tool is missing (make deps installs dpkg-dev, debhelper, dh-dkms)" >&2
		exit 1
	}
done
[ $LINTIAN = 0 ] || command -v lintian >/dev/null || {
	echo "deb.sh: lintian is missing (make deps installs it)" >&2
	exit 1
}

# The copy: everything but build/ (which may hold OUT) and git's files.
rm -rf "$OUT"
SRC=$OUT/kmsvt-$VER
mkdir -p "$SRC"
tar cf - --exclude=./build --exclude=./.git --exclude=__pycache__ . | tar xf - -C "$SRC"
(cd "$SRC" && dpkg-buildpackage -us -uc -b) >"$OUT/build.log" 2>&1 || {
	tail -n 40 "$OUT/build.log" >&2
	echo "deb.sh: dpkg-buildpackage failed; the whole log is $OUT/build.log" >&2
	exit 1
}
rm -rf "$SRC"
ls "$OUT"/*.deb

if [ $LINTIAN = 1 ]; then
	# Errors fail the build; warnings and notes are printed.
	st=0
	lintian --display-info --fail-on error "$OUT"/kmsvt_"$VER"_*.changes \
		>"$OUT/lintian.txt" 2>&1 || st=$?
	cat "$OUT/lintian.txt"
	[ $st = 0 ] || { echo "deb.sh: lintian found errors" >&2; exit 1; }
	echo "deb.sh: lintian: no errors"
fi
