#!/bin/sh
# CODING_STYLE.md's rules that a script can check hold in every C source of
# the tree (scripts/check-style.sh --fail): 80 columns, no trailing white
# space, tabs, no TODO marker, an SPDX line, the public prefix only on
# exported functions. In a git checkout the files git tracks; in a tarball
# (make distcheck, CI's sanitizer build) every source but the generated
# ones.

set -eu

: "${top_srcdir:?run from make check}"
check=$top_srcdir/scripts/check-style.sh
set --

if "$check" --fail "$@" > /dev/null; then
	echo "ok: scripts/check-style.sh finds nothing"
	exit 0
fi
echo "FAIL: scripts/check-style.sh (CODING_STYLE.md) finds:"
"$check" --list "$@" || true
exit 1
