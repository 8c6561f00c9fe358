#!/bin/sh
# The symbols libglcuda.so exports are exactly those listed in lib/glcuda.sym,
# and every function the public headers declare is listed there: nothing
# internal leaks out, nothing public is forgotten. The test-only
# fault-injection hooks and seams are not in it at all.
set -eu

: "${top_srcdir:?run from make check}" "${top_builddir:?run from make check}"
NM=${NM:-nm}
CC=${CC:-cc}
sym_file=$top_srcdir/lib/glcuda.sym

tmp=$(mktemp -d "${TMPDIR:-/tmp}/glcuda-symbols.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The names listed in the version script's global: sections.
sed -n 's/^[[:space:]]*\(glcuda_[A-Za-z0-9_]*\)[[:space:]]*;.*/\1/p' "$sym_file" |
	sort > "$tmp/listed"
if [ ! -s "$tmp/listed" ]; then
	echo "FAIL: no symbols found in $sym_file"
	exit 1
fi
if [ -n "$(uniq -d "$tmp/listed")" ]; then
	echo "FAIL: symbols listed twice in $sym_file:"
	uniq -d "$tmp/listed"
	exit 1
fi
status=0

# Functions declared (not defined: static inline helpers stay out) in the
# public headers, from GCC's -aux-info prototypes.
if "$CC" --version 2>/dev/null | grep -qi -e gcc -e 'free software foundation'; then
	# <cuda.h> from the toolkit; without it, glcuda's own declarations.
	if [ "${HAVE_CUDA_TOOLKIT:-no}" = yes ]; then
		printf '#include <glcuda/glcuda-cuda.h>\n#include <glcuda/glcuda-diag.h>\n#include <glcuda/glcuda-dlpack.h>\n' > "$tmp/decls.c"
	else
		printf '#include "loader/cuda-driver-api.h"\n#include <glcuda/glcuda-cuda.h>\n#include <glcuda/glcuda-diag.h>\n#include <glcuda/glcuda-dlpack.h>\n' > "$tmp/decls.c"
	fi
	# shellcheck disable=SC2086
	if "$CC" -std=gnu99 -fsyntax-only -aux-info "$tmp/aux" \
		-I"$top_srcdir/include" -I"$top_builddir/include" -I"$top_srcdir/lib" \
		${EGL_CFLAGS:-} ${CUDA_CFLAGS:-} "$tmp/decls.c" 2> "$tmp/cc.err"; then
		grep 'include/glcuda/[^:]*:[0-9]*:.C \*/' "$tmp/aux" |
			sed -n 's/.*[^A-Za-z0-9_]\(glcuda_[A-Za-z0-9_]*\) *(.*/\1/p' |
			sort -u > "$tmp/declared"
		if ! diff -u "$tmp/declared" "$tmp/listed" > "$tmp/diff"; then
			echo "FAIL: the public headers (-) and lib/glcuda.sym (+) differ:"
			grep '^[-+]glcuda' "$tmp/diff"
			status=1
		else
			echo "ok: lib/glcuda.sym lists the $(wc -l < "$tmp/listed") functions the headers declare"
		fi
	else
		echo "FAIL: the public headers do not compile:"
		cat "$tmp/cc.err"
		status=1
	fi
else
	echo "note: $CC is not GCC, the header/version-script comparison is skipped"
fi

lib=$top_builddir/lib/.libs/libglcuda.so
if [ ! -e "$lib" ]; then
	echo "SKIP: $lib is not built (configured with --disable-shared?)"
	[ $status -eq 0 ] && exit 77
	exit $status
fi

# Every defined dynamic symbol but the version node itself (type A), with
# the @@GLCUDA_x.y version suffix removed.
$NM -D --defined-only "$lib" |
	awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u > "$tmp/exported"
if ! diff -u "$tmp/listed" "$tmp/exported" > "$tmp/diff"; then
	echo "FAIL: lib/glcuda.sym (-) and the symbols $lib exports (+) differ:"
	grep '^[-+][^-+]' "$tmp/diff"
	exit 1
fi
# Functions only: a data symbol in the ABI would be a mistake.
$NM -D --defined-only "$lib" | awk '$2 != "A" && $2 != "T" { print }' > "$tmp/data"
if [ -s "$tmp/data" ]; then
	echo "FAIL: $lib exports symbols that are not functions:"
	cat "$tmp/data"
	exit 1
fi
echo "ok: $lib exports exactly the $(wc -l < "$tmp/listed") symbols of lib/glcuda.sym"
# The fault-injection hooks belong to the tests' build of the library only
# (lib/fault.h), not even as local symbols.
if $NM "$lib" 2>/dev/null | grep -E ' (fault_[a-z_]+|gl_reset_status_hook)$' > "$tmp/faults"; then
	echo "FAIL: $lib contains the fault-injection hooks:"
	cat "$tmp/faults"
	exit 1
fi
echo "ok: $lib has no fault-injection hooks"
# Nor the seams (lib/seam.h).
if $NM "$lib" 2>/dev/null | grep -E ' seam_[a-z_]+$' > "$tmp/seams"; then
	echo "FAIL: $lib contains the tests' seams:"
	cat "$tmp/seams"
	exit 1
fi
echo "ok: $lib has no seams"
exit $status
