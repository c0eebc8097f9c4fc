#!/bin/sh
# Style and static checks: checkpatch.pl --strict (from linux-source-6.1)
# over the module sources, and sparse through Kbuild (C=2) on every kernel
# (each with its own compiler and sparse: scripts/kenv.sh).
set -eu
BUILD=${BUILD:-$(pwd)/build}
CP=$BUILD/checkpatch
if [ ! -x "$CP/scripts/checkpatch.pl" ]; then
	mkdir -p "$CP"
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$CP" --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
fi
files=$(make -s --no-print-directory module-sources | tr ' ' '\n' | grep '\.[ch]$' |
	grep -vx compat.h)
status=0
for f in $files; do
	"$CP/scripts/checkpatch.pl" --strict --no-tree --terse --show-types --quiet -f "$f" || status=1
done
# The compat header exists to test kernel versions.
"$CP/scripts/checkpatch.pl" --strict --no-tree --terse --show-types --quiet \
	--ignore LINUX_VERSION_CODE -f compat.h || status=1
[ $status = 0 ] && echo "checkpatch --strict: clean" || { echo "checkpatch: see above"; exit 1; }

# Folders depend downwards (kmsvt_drv.h): no folder includes or calls a
# folder above it; fbdev/ and panic/ do not know each other.
layer() {	# layer FOLDER PATTERN: FOLDER's code must not match PATTERN
	if grep -nE "$2" "$1"/*.[ch]; then
		echo "layering: $1/ reaches up (see above)"; exit 1
	fi
}
up_fbdev='#include "fbdev/|kmsvt_(fbdev|con)_[a-z_]+\('
up_panic='#include "panic/|kmsvt_(panic|screen)_[a-z_]+\('
up_kms='#include "kms/|kmsvt_(hw|scanout|crtc|plane|output)_[a-z_]+\('
layer kms "$up_fbdev|$up_panic"
layer gem "$up_fbdev|$up_panic|$up_kms"
layer draw "$up_fbdev|$up_panic|$up_kms|kmsvt_gem_"
layer fbdev "$up_panic"
layer panic "$up_fbdev"
echo "layering: clean"
for rel in $(cat "$BUILD/kernels/releases"); do
	make --no-print-directory module-one REL="$rel" >/dev/null
	out=$(sh scripts/kenv.sh --make "$rel" -s M="$BUILD/$rel" \
		KMSVT_TEST_HOOKS=1 KMSVT_WERROR=1 C=2 CHECK="sparse -Wno-unknown-attribute" \
		modules 2>&1 | grep -E 'warning|error' |
		grep "$BUILD/$rel/" || true)
	if [ -n "$out" ]; then
		echo "sparse ($rel):"; echo "$out"; exit 1
	fi
	echo "sparse ($rel): clean"
done
