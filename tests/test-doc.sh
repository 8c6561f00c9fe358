#!/bin/sh
# The API reference builds from the public headers without a warning: every
# public symbol is documented (doc/Doxyfile: WARN_IF_UNDOCUMENTED,
# WARN_AS_ERROR), as `make doc` requires. Skipped (77) without Doxygen.
set -eu

: "${top_builddir:?run from make check}"
if [ -z "${DOXYGEN:-}" ]; then
	echo "SKIP: doxygen was not found by configure"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/glcuda-doc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# doc/Doxyfile, writing into $tmp instead of the build tree.
if { cat "$top_builddir/doc/Doxyfile"; echo "OUTPUT_DIRECTORY = $tmp"; } |
	"$DOXYGEN" - > "$tmp/out" 2>&1; then
	echo "ok: the API reference builds, every public symbol documented"
else
	echo "FAIL: doxygen doc/Doxyfile (make doc):"
	cat "$tmp/out"
	exit 1
fi
