# shellcheck shell=sh
# Sourced (". tests/python-env.sh") by the Python package's tests, from the
# build directory after make check, with $tmp set: exits 77 when $PYTHON
# (configure's) lacks pytest, else lays out the package as Python imports
# it, the tree's Python files with the module built here, in $site
# ($tmp/site), and sets PYTHONPATH and LD_LIBRARY_PATH (the tree's
# libglcuda) for the Python it runs.
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # tmp, top_srcdir: set by the caller
: "${PYTHON:?run from make check}"
if ! "$PYTHON" -c 'import pytest' 2> /dev/null; then
	echo "SKIP: $PYTHON has no pytest (python3-pytest)"
	exit 77
fi
module=python/glcuda/.libs/_glcuda.so
if [ ! -e "$module" ]; then
	echo "FAIL: $module not found; run from the build directory" \
		"after make check" >&2
	exit 1
fi
site=$tmp/site
mkdir -p "$site/glcuda"
cp "$top_srcdir"/python/glcuda/*.py "$top_srcdir"/python/glcuda/*.pyi \
	"$top_srcdir"/python/glcuda/py.typed "$module" "$site/glcuda/"
PYTHONPATH=$site
LD_LIBRARY_PATH=$(pwd)/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# The sources may be read-only (make distcheck): no bytecode, no cache.
PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH LD_LIBRARY_PATH PYTHONDONTWRITEBYTECODE
