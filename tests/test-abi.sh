#!/bin/sh
# The ABI of the built libglcuda.so is the one described in abi/libglcuda.abi
# (made by abidw from libabigail, `make abi-update`): abidiff compares the
# two, and any difference fails, with a message that says which kind:
#  - abidiff's ABIDIFF_ABI_INCOMPATIBLE_CHANGE (exit status bit 8: a symbol
#    removed), or ABIDIFF_ABI_CHANGE (4) with a function removed ([D]) or
#    changed ([C]): a member inserted into a public struct, a changed
#    function type. These break programs built against the baseline and
#    need a new soname (doc/versioning.md), which a minor release never
#    has. abidiff cannot know glcuda's size rule, so a member appended to a
#    struct that starts with a size is reported here too: it is allowed,
#    and when the report shows nothing else, `make abi-update` records it.
#  - ABIDIFF_ABI_CHANGE (4) with functions only added ([A]): compatible,
#    but the test still fails until `make abi-update` is run and the file
#    committed with the change, so that the baseline stays the ABI of the
#    tree.
# Private types (struct glcuda_device's members, ...) are declared only in
# the baseline (abidw --drop-private-types), so changing them changes
# nothing here.
# Skipped (77) only without abidiff (Debian's abigail-tools), or when the
# library was built without debug information (CFLAGS without -g), which
# abidiff needs to see the types.
set -eu

: "${top_srcdir:?run from make check}" "${top_builddir:?run from make check}"
baseline=$top_srcdir/abi/libglcuda.abi
lib=$top_builddir/lib/.libs/libglcuda.so

if ! command -v abidiff > /dev/null 2>&1; then
	echo "SKIP: abidiff (abigail-tools) is not installed"
	exit 77
fi
if [ ! -f "$lib" ]; then
	echo "FAIL: $lib was not built"
	exit 1
fi
if ! LC_ALL=C ${READELF:-readelf} -S "$lib" | grep -q '\.debug_info'; then
	echo "SKIP: $lib has no debug information (CFLAGS without -g); abidiff needs it"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/glcuda-abi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

status=0
abidiff --headers-dir2 "$top_srcdir/include/glcuda" --headers-dir2 "$top_builddir/include/glcuda" \
	"$baseline" "$lib" > "$tmp/diff" 2>&1 || status=$?

if [ $status -eq 0 ]; then
	echo "ok: libglcuda.so has the ABI of abi/libglcuda.abi"
	exit 0
fi
cat "$tmp/diff"
if [ $((status & 8)) -ne 0 ] ||
	{ [ $((status & 4)) -ne 0 ] && grep -q '^ *\[[CD]\]' "$tmp/diff"; }; then
	echo "FAIL: incompatible ABI change against abi/libglcuda.abi (abidiff exit status $status)."
	echo "A program built against the baseline would break: undo the change, or make it"
	echo "where a new soname is allowed (doc/versioning.md). Only a member appended to a"
	echo "struct that starts with a size is allowed: then run 'make abi-update'."
elif [ $((status & 4)) -ne 0 ]; then
	echo "FAIL: compatible ABI change against abi/libglcuda.abi (abidiff exit status $status)."
	echo "Additions are allowed: run 'make abi-update' and commit abi/libglcuda.abi with them."
else
	echo "FAIL: abidiff could not compare (exit status $status)"
fi
exit 1
