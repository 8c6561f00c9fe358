#!/bin/sh
# Which of glcuda-compositor's files calls functions defined in which
# other, and the circles among them (CODING_STYLE.md, "How the
# compositor's areas talk": a file calls only downward, there is no
# circle). Read from the objects make built, as tests/test-layers.sh reads
# the library's: the functions each object defines and those it leaves
# undefined, with nm. The generated protocol code is left out.
#
# Usage: scripts/compositor-calls.sh [--fail] [BUILDDIR]
#
# Prints one line per edge, "caller.c -> callee.c: function...", then one
# line per circle, "cycle: a.c -> b.c -> a.c" (each circle once, from its
# first file in sort order), or "cycles: none". --fail: exit with status 1
# when there is a circle. Exits with 2 when the objects cannot be read.
# BUILDDIR: where make built the compositor (default: the top of the
# tree). NM: the nm to run (default nm; options allowed, "nm -B").
# SPDX-License-Identifier: MIT
set -eu

fail=no
if [ "${1:-}" = --fail ]; then
	fail=yes
	shift
fi
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top}
dir=$build/tools/glcuda-compositor
NM=${NM:-nm}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/compositor-calls.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The compositor's objects: glcuda_compositor-NAME.o, in the folder of
# NAME.c (automake's subdir-objects), the protocols' code left out.
objects=$(cd "$dir" && find . -name 'glcuda_compositor-*.o' \
	! -name '*-protocol.o' | LC_ALL=C sort)
if [ -z "$objects" ]; then
	echo "no objects of glcuda-compositor in $dir: build it first" >&2
	exit 2
fi
: > "$tmp/defined"
: > "$tmp/used"
# NM may hold options (configure's "nm -B"): split on purpose.
for o in $objects; do
	src=$(echo "$o" | sed 's|^\./||; s|glcuda_compositor-||; s|\.o$|.c|')
	# shellcheck disable=SC2086
	$NM --defined-only -g "$dir/$o" > "$tmp/nm" ||
		{ echo "$NM failed on $dir/$o" >&2; exit 2; }
	awk -v f="$src" '$2 == "T" { print $3, f }' "$tmp/nm" >> "$tmp/defined"
	# shellcheck disable=SC2086
	$NM -u "$dir/$o" > "$tmp/nm" ||
		{ echo "$NM failed on $dir/$o" >&2; exit 2; }
	awk -v f="$src" '{ print $2, f }' "$tmp/nm" >> "$tmp/used"
done

awk '
FNR == NR { where[$1] = $2; next }
($1 in where) && where[$1] != $2 {
	key = $2 " " where[$1]
	if (!(key in fns))
		edges[++n] = key
	fns[key] = fns[key] " " $1
}
function visit(node, path,    i, to) {
	onpath[node] = 1
	for (i = 1; i <= nout[node]; i++) {
		to = out[node, i]
		if (to == start)
			print "cycle: " path " -> " start
		else if (to > start && !onpath[to])
			visit(to, path " -> " to)
	}
	onpath[node] = 0
}
END {
	for (i = 1; i <= n; i++) {
		split(edges[i], e, " ")
		print e[1] " -> " e[2] ":" fns[edges[i]]
		out[e[1], ++nout[e[1]]] = e[2]
		nodes[e[1]] = 1
	}
	for (start in nodes)
		list[++m] = start
	# sorted, so that the output does not depend on awk
	for (i = 1; i <= m; i++)
		for (j = i + 1; j <= m; j++)
			if (list[j] < list[i]) {
				t = list[i]; list[i] = list[j]; list[j] = t
			}
	for (i = 1; i <= m; i++) {
		start = list[i]
		visit(start, start)
	}
}
' "$tmp/defined" "$tmp/used" | LC_ALL=C sort -s -k1,1 > "$tmp/out"
if ! grep -q ' -> ' "$tmp/out"; then
	echo "no calls found between the objects in $dir" >&2
	exit 2
fi
grep -v '^cycle:' "$tmp/out" | LC_ALL=C sort
if grep -q '^cycle:' "$tmp/out"; then
	grep '^cycle:' "$tmp/out" | LC_ALL=C sort
	[ "$fail" = no ] || exit 1
else
	echo "cycles: none"
fi
