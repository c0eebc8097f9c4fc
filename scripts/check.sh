#!/bin/sh
# Style and static checks: checkpatch.pl --strict (from linux-source-6.1)
# over the module sources, and sparse through Kbuild (C=2) on both kernels.
set -eu
BUILD=${BUILD:-$(pwd)/build}
CP=$BUILD/checkpatch
if [ ! -x "$CP/scripts/checkpatch.pl" ]; then
	mkdir -p "$CP"
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$CP" --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
fi
files=$(ls kms/*.[ch] gem/*.[ch] fbdev/*.[ch] panic/*.[ch] 2>/dev/null | grep -v compat.h || true)
status=0
for f in $files; do
	"$CP/scripts/checkpatch.pl" --strict --no-tree --terse --show-types --quiet -f "$f" || status=1
done
# The compat header exists to test kernel versions.
"$CP/scripts/checkpatch.pl" --strict --no-tree --terse --show-types --quiet \
	--ignore LINUX_VERSION_CODE -f kms/compat.h || status=1
[ $status = 0 ] && echo "checkpatch --strict: clean" || { echo "checkpatch: see above"; exit 1; }
for rel in $(cat "$BUILD/kernels/releases"); do
	make --no-print-directory module-one REL="$rel" >/dev/null
	out=$(make -s -C "$BUILD/kernels/$rel/build" M="$BUILD/$rel" C=2 \
		CHECK="sparse -Wno-unknown-attribute" modules 2>&1 | grep -E 'warning|error' |
		grep "$BUILD/$rel/" || true)
	if [ -n "$out" ]; then
		echo "sparse ($rel):"; echo "$out"; exit 1
	fi
	echo "sparse ($rel): clean"
done
