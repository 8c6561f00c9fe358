#!/bin/sh
# No call in libglcuda goes up its layers. lib/layers.txt lists the layers
# and their files; this test builds the call graph of the library from the
# objects make built (the symbols each object defines and the ones it
# leaves undefined, with nm) and fails on every call from a file to a file
# of a higher layer, or to a file of its own layer listed after it, naming
# the caller, the symbol and both layers. Both builds of lib/ are checked:
# the installed library's objects and the tests' (with the fault-injection
# hooks and the seams). It also fails when a source file of lib/ is not in
# the list, and when the table of doc/design.md (section 2) does not list
# the same files in the same layers and order.
set -eu

: "${top_srcdir:?run from make check}" "${top_builddir:?run from make check}"
NM=${NM:-nm}
layers=$top_srcdir/lib/layers.txt
doc=$top_srcdir/doc/design.md

tmp=$(mktemp -d "${TMPDIR:-/tmp}/glcuda-layers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0

# The table: one line per file, "position layer name file", bottom up.
awk '!/^[[:space:]]*(#|$)/ {
	for (i = 3; i <= NF; i++)
		print ++n, $1, $2, $i
}' "$layers" > "$tmp/table"
if [ ! -s "$tmp/table" ]; then
	echo "FAIL: no files listed in $layers"
	exit 1
fi
if [ -n "$(awk '{ print $4 }' "$tmp/table" | sort | uniq -d)" ]; then
	echo "FAIL: files listed twice in $layers:"
	awk '{ print $4 }' "$tmp/table" | sort | uniq -d
	exit 1
fi

# Every source file of lib/ is listed, and every file listed exists.
(cd "$top_srcdir/lib" && find . -name '*.c' | sed 's|^\./||' | LC_ALL=C sort) > "$tmp/sources"
awk '{ print $4 }' "$tmp/table" | LC_ALL=C sort > "$tmp/listed"
if ! diff "$tmp/sources" "$tmp/listed" > "$tmp/diff"; then
	sed -n 's/^< /FAIL: not in lib\/layers.txt: lib\//p; s/^> /FAIL: listed in lib\/layers.txt but absent: lib\//p' \
		"$tmp/diff"
	status=1
fi

# doc/design.md, section 2: the rows of the table that start with a layer
# number; the .c files named in their second column, in order.
awk '
/^## / { in_section = /The layers of lib/ }
in_section && /^\| *[0-9]/ {
	split($0, col, "|")
	split(col[2], head, " ")
	rest = col[3]
	while (match(rest, /`[^`]*\.c`/)) {
		print head[1], substr(rest, RSTART + 1, RLENGTH - 2)
		rest = substr(rest, RSTART + RLENGTH)
	}
}' "$doc" > "$tmp/doc"
awk '{ print $2, $4 }' "$tmp/table" > "$tmp/want-doc"
if ! diff -u "$tmp/want-doc" "$tmp/doc" > "$tmp/diff"; then
	echo "FAIL: the layer table of doc/design.md (+) differs from lib/layers.txt (-)" \
		"(\"layer file\" in order):"
	grep '^[-+][0-9]' "$tmp/diff"
	status=1
fi

# The objects: every libtool object under lib/ in the build tree, by build
# (automake prefixes the objects of a library with per-target flags with its
# name, as in lib/libglcuda_test_la-ring.lo) and by source file.
found=0
for lo in $(cd "$top_builddir/lib" && find . -name '*.lo' | sed 's|^\./||' | LC_ALL=C sort); do
	dir=$(dirname "$lo")
	base=$(basename "$lo" .lo)
	build=lib/*.lo
	case $base in
	*_la-*)
		build="lib/${base%%-*}-*.lo"
		base=${base#*-}
		;;
	esac
	src=$base.c
	[ "$dir" = . ] || src=$dir/$base.c
	if [ ! -f "$top_srcdir/lib/$src" ]; then
		echo "note: lib/$lo has no source (left from an older build), not checked"
		continue
	fi
	# The PIC object where libtool built one, else the other.
	obj=$(sed -n "s/^pic_object='\\(.*\\)'\$/\\1/p" "$top_builddir/lib/$lo")
	[ -n "$obj" ] && [ "$obj" != none ] ||
		obj=$(sed -n "s/^non_pic_object='\\(.*\\)'\$/\\1/p" "$top_builddir/lib/$lo")
	obj=$top_builddir/lib/$dir/$obj
	if [ ! -f "$obj" ]; then
		echo "FAIL: $obj (named by lib/$lo) is missing"
		status=1
		continue
	fi
	# "build file D|U symbol": global definitions and undefined symbols.
	# NM is as configure found it, options included ("nm -B").
	# shellcheck disable=SC2086
	if ! $NM -P "$obj" > "$tmp/nm" 2>&1; then
		echo "FAIL: $NM -P $obj:"
		cat "$tmp/nm"
		exit 1
	fi
	awk -v build="$build" -v src="$src" '
		$2 == "U" || $2 == "w" { print build, src, "U", $1; next }
		$2 ~ /^[A-TV-Z]$/ { print build, src, "D", $1 }' "$tmp/nm" >> "$tmp/symbols"
	found=$((found + 1))
done
if [ "$found" -eq 0 ]; then
	echo "FAIL: no objects of lib/ under $top_builddir/lib (is the library built?)"
	exit 1
fi

# Each undefined symbol against the file of the same build that defines it,
# else of any build (a convenience library both link, such as
# lib/loader/libglcuda-shared.la); symbols from outside lib/ (libc, EGL,
# Vulkan) have none and are skipped.
awk -v objects="$found" '
FNR == NR { pos[$4] = $1; layer[$4] = $2; name[$4] = $3; next }
$3 == "D" { def[$1 " " $4] = $2; any[$4] = $2; next }
{ ref[++n] = $0 }
END {
	bad = 0
	for (i = 1; i <= n; i++) {
		split(ref[i], r, " ")
		build = r[1]; caller = r[2]; sym = r[4]
		if ((build " " sym) in def)
			callee = def[build " " sym]
		else if (sym in any)
			callee = any[sym]
		else
			continue
		if (callee == caller)
			continue
		calls++
		if (!(caller in pos) || !(callee in pos)) {
			unlisted++	# reported above: not in lib/layers.txt
			continue
		}
		if (layer[callee] > layer[caller]) {
			printf "FAIL: lib/%s (layer %s %s) calls %s of lib/%s (layer %s %s): " \
			       "a call up the layers (objects %s)\n", caller, layer[caller],
			       name[caller], sym, callee, layer[callee], name[callee], build
			bad++
		} else if (layer[callee] == layer[caller] && pos[callee] > pos[caller]) {
			printf "FAIL: lib/%s (layer %s %s) calls %s of lib/%s (layer %s %s), " \
			       "listed after it in lib/layers.txt: a call up the order of " \
			       "its layer (objects %s)\n", caller, layer[caller], name[caller],
			       sym, callee, layer[callee], name[callee], build
			bad++
		}
	}
	if (bad)
		exit 1
	if (calls == unlisted) {
		print "FAIL: no call found between the files of lib/: the symbols were not read"
		exit 1
	}
	printf "ok: %d references between the files of lib/ (%d objects), none up " \
	       "the layers of lib/layers.txt\n", calls, objects
}' "$tmp/table" "$tmp/symbols" || status=1

exit $status
