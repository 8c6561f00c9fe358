#!/bin/sh
# glcuda-compositor's files call one another without a circle: an area
# calls only those below it and hears from those above by their events
# (CODING_STYLE.md, "How the compositor's areas talk").
# scripts/compositor-calls.sh reads the calls from the objects make built
# (nm) and names each circle.
set -eu

: "${top_srcdir:?run from make check}" "${top_builddir:?run from make check}"

out=$(mktemp "${TMPDIR:-/tmp}/glcuda-compositor-calls.XXXXXX")
trap 'rm -f "$out"' EXIT
status=0
"$top_srcdir/scripts/compositor-calls.sh" --fail "$top_builddir" > "$out" ||
	status=$?
if [ "$status" -eq 1 ]; then
	sed -n 's/^cycle: /FAIL: a circle of calls: /p' "$out"
	exit 1
elif [ "$status" -ne 0 ]; then
	echo "FAIL: scripts/compositor-calls.sh exited with $status"
	exit 1
fi
echo "PASS: $(grep -c ' -> ' "$out") calls between the compositor's files, no circle"
