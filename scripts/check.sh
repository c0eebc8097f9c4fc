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
# The sparse a kernel is checked with.  7.x headers use __typeof_unqual__
# under sparse, which Debian 13's sparse 0.6.4 cannot parse (sid's 0.6.5
# can), and Debian's 7.x headers lack the probe their Makefile runs first
# (scripts/checker-valid.sh; without it C=2 checks nothing and says so in a
# warning).  So: the kernel's own root's sparse if it passes that probe,
# else a newer root's, run through that root's own loader and libraries.
PROBE=$BUILD/sparse-probe.c
printf 'static inline int u(const int *q)\n{\n\t__typeof_unqual__(*q) v = *q;\n\n\treturn v;\n}\n' > "$PROBE"
probe() {	# ROOT-OR-EMPTY SPARSE-COMMAND...: does it parse __typeof_unqual__?
	in=$1
	shift
	if [ -n "$in" ]; then
		sh scripts/kenv.sh --root "$in" "$@" "$PROBE" 2>&1 | grep -q error && return 1
	else
		"$@" "$PROBE" 2>&1 | grep -q error && return 1
	fi
	return 0
}
sparse_for() {	# REL: prints the sparse command
	root=
	[ -e "$BUILD/kernels/$1/root" ] && root=$(cd "$BUILD/kernels/$1/root" && pwd -P)
	if ! grep -qs checker-valid.sh "$BUILD/kernels/$1/build/../linux-headers-"*"-common/Makefile" ||
		probe "$root" sparse; then
		echo sparse
		return
	fi
	for r in "$BUILD"/roots/*/; do
		r=${r%/}
		ld="$r/lib64/ld-linux-x86-64.so.2 --library-path $r/lib/x86_64-linux-gnu:$r/usr/lib/x86_64-linux-gnu"
		if probe "$root" $ld "$r/usr/bin/sparse"; then
			echo "$ld $r/usr/bin/sparse"
			return
		fi
	done
	echo "sparse ($1): no Debian sparse under build/roots parses its headers" >&2
	exit 1
}
# The probe Debian's 7.x headers lack, where their Makefile calls it.
for mk in "$BUILD"/roots/*/usr/src/linux-headers-*-common/Makefile; do
	[ -f "$mk" ] && grep -q checker-valid.sh "$mk" || continue
	valid=$(dirname "$mk")/scripts/checker-valid.sh
	[ -e "$valid" ] && continue
	printf '#!/bin/sh\n# kmsvt (scripts/check.sh): the probe Debian does not ship.\n[ -x "$(command -v "$1")" ] || exit 1\n"$@" %s 2>&1 | grep -q error && echo 0 || echo 1\n' \
		"$PROBE" > "$valid"
	chmod +x "$valid"
done

nsrc=$(echo "$files" | grep -c '\.c$')
for rel in $(cat "$BUILD/kernels/releases"); do
	make --no-print-directory module-one REL="$rel" >/dev/null
	sp=$(sparse_for "$rel")
	# Every file is checked again (C=2), each printed as CHECK: count them.
	all=$(MAKEFLAGS= sh scripts/kenv.sh --make "$rel" -j"$(nproc)" M="$BUILD/$rel" \
		KMSVT_TEST_HOOKS=1 KMSVT_WERROR=1 C=2 CHECK="$sp -Wno-unknown-attribute" \
		modules 2>&1)
	checked=$(echo "$all" | grep -c '^  CHECK ' || true)
	if [ "$checked" -lt "$nsrc" ]; then
		echo "sparse ($rel): checked $checked files of $nsrc:"; echo "$all" | tail -20; exit 1
	fi
	out=$(echo "$all" | grep -E 'warning|error' | grep "$BUILD/$rel/" || true)
	if [ -n "$out" ]; then
		echo "sparse ($rel):"; echo "$out"; exit 1
	fi
	echo "sparse ($rel): clean, $checked files"
done
