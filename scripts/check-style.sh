#!/bin/sh
# What a script can check of CODING_STYLE.md, in the C sources (.c, .h,
# .cu, .cuh) of the tree, counted per folder:
#
#	long      lines over 80 columns (tabs count 8)
#	trailing  lines that end in white space
#	spaces    lines indented with 8 spaces or more, or with a space
#	          before a tab
#	marker    TODO, FIXME or XXX
#	spdx      files without an SPDX-License-Identifier line
#	prefix    functions of lib/ named glcuda_* without GLCUDA_EXPORT (the
#	          public prefix on an internal function)
#
# Usage: scripts/check-style.sh [--fail] [--list] [--skip FILE]... [FOLDER...]
#
# FOLDER...  the folders to check, relative to the top of the tree (a
#            folder's subfolders count as their own); default: every folder
#            with C sources.
# --list     print each line found as "file:line: what".
# --fail     exit with status 1 when anything is found (0 otherwise).
# --skip FILE
#            leave FILE (relative to the top of the tree) out, for example
#            a file being laid out by hand while the rest is checked.
#
# The files are those git tracks where the tree is a git checkout (so that
# the outputs of a build configured in place are left out), else every C
# source but the generated ones (config.h, *-protocol.[ch] and the like).
# SPDX-License-Identifier: MIT
set -eu

fail=no
list=no
skip=
while [ $# -gt 0 ]; do
	case $1 in
	--fail) fail=yes ;;
	--list) list=yes ;;
	--skip)
		[ $# -ge 2 ] || { echo "$0: --skip needs a file" >&2; exit 2; }
		skip="$skip$2
"
		shift ;;
	--help | -h)
		sed -n '2,/^# SPDX/p' "$0" | sed 's/^# \{0,1\}//; /^SPDX/d'
		exit 0 ;;
	--) shift; break ;;
	-*) echo "$0: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done

cd "$(dirname "$0")/.."

tmp=$(mktemp -d "${TMPDIR:-/tmp}/glcuda-style.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

sources_pattern='\.(c|h|cu|cuh)$'
# (A tarball unpacked inside another checkout is not that checkout.)
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
	git ls-files -- "$@" | grep -E "$sources_pattern" > "$tmp/files" || true
else
	find "${@:-.}" -type f | sed 's|^\./||' | grep -E "$sources_pattern" |
		grep -vE '(^|/)(config\.h|glcuda-version\.h|fault-sites\.h)$' |
		grep -vE -- '-fatbin\.h$' |
		grep -vE -- '-(client-)?protocol\.[ch]$' > "$tmp/files" || true
fi
LC_ALL=C sort -u -o "$tmp/files" "$tmp/files"
if [ -n "$skip" ]; then
	printf '%s' "$skip" > "$tmp/skip"
	grep -vxF -f "$tmp/skip" "$tmp/files" > "$tmp/kept" || true
	mv "$tmp/kept" "$tmp/files"
fi
if [ ! -s "$tmp/files" ]; then
	echo "$0: no C sources in ${*:-the tree}" >&2
	exit 2
fi

# One line per finding: "folder<TAB>kind<TAB>file:line: what".
# shellcheck disable=SC2046
LC_ALL=C awk '
function folder(f,    d) {
	d = f
	if (!sub(/\/[^\/]*$/, "", d))
		d = "."
	return d
}
function found(kind, what) {
	printf("%s\t%s\t%s:%d: %s\n", folder(FILENAME), kind, FILENAME,
	       FNR, what)
}
# The width of a line with tabs expanded to the next multiple of 8, and
# a UTF-8 character one column (its continuation bytes left out).
function width(s,    n, i, c) {
	gsub(/[\200-\277]/, "", s)
	n = 0
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "\t")
			n += 8 - n % 8
		else
			n++
	}
	return n
}
FNR == 1 {
	if (prev_file != "" && !spdx)
		printf("%s\tspdx\t%s:1: no SPDX-License-Identifier line\n",
		       folder(prev_file), prev_file)
	prev_file = FILENAME
	spdx = 0
	in_lib = FILENAME ~ /^lib\/.*\.c$/
	prev_line = ""
}
/SPDX-License-Identifier:/ { spdx = 1 }
{
	w = width($0)
	if (w > 80)
		found("long", w " columns")
	if ($0 ~ /[ \t]$/)
		found("trailing", "trailing white space")
	# Up to 7 spaces line a continuation up; 8 are a tab.
	if ($0 ~ /^        / || $0 ~ /^\t* +\t/)
		found("spaces", "indented with spaces")
	if ($0 ~ /(^|[^A-Za-z0-9_])(TODO|FIXME|XXX)([^A-Za-z0-9_]|$)/)
		found("marker", "TODO, FIXME or XXX")
	if (in_lib && $0 ~ /^glcuda_[a-z0-9_]*\(/ &&
	    prev_line !~ /GLCUDA_EXPORT/ && prev_line !~ /^#define/) {
		name = $0
		sub(/\(.*/, "", name)
		found("prefix", name " has the public prefix but is not "\
		      "exported")
	}
	prev_line = $0
}
END {
	if (prev_file != "" && !spdx)
		printf("%s\tspdx\t%s:1: no SPDX-License-Identifier line\n",
		       folder(prev_file), prev_file)
}' $(cat "$tmp/files") > "$tmp/found"

if [ $list = yes ]; then
	cut -f3 "$tmp/found"
fi

# The table: one row per folder with C sources, one column per kind.
awk -F '\t' '
NR == FNR { files[$0 ~ /\// ? substr($0, 1, match($0, /\/[^\/]*$/) - 1) : "."]++
	next }
{ count[$1, $2]++; total[$2]++ }
END {
	n = split("long trailing spaces marker spdx prefix", kinds, " ")
	printf("%-32s", "folder")
	for (k = 1; k <= n; k++)
		printf(" %8s", kinds[k])
	printf("\n")
	for (f in files)
		order[++m] = f
	# Folders in name order (awk has no sort of its own everywhere).
	for (i = 2; i <= m; i++)
		for (j = i; j > 1 && order[j - 1] > order[j]; j--) {
			t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
		}
	for (i = 1; i <= m; i++) {
		printf("%-32s", order[i])
		for (k = 1; k <= n; k++)
			printf(" %8d", count[order[i], kinds[k]])
		printf("\n")
	}
	printf("%-32s", "total")
	for (k = 1; k <= n; k++)
		printf(" %8d", total[kinds[k]])
	printf("\n")
}' "$tmp/files" "$tmp/found"

if [ $fail = yes ] && [ -s "$tmp/found" ]; then
	echo "$(wc -l < "$tmp/found") lines against CODING_STYLE.md" \
		"(--list names them)"
	exit 1
fi
exit 0
