#!/bin/sh
# pip install --no-build-isolation ./python, offline, against glcuda
# installed into a staging directory: the package builds from what the
# install put there (pkg-config's glcuda.pc, the headers, libglcuda.so),
# as it does for a user, then imports and names the library's version.
# pip builds in its own copy of python/ (the sources may be read-only, as
# under make distcheck).
# SPDX-License-Identifier: MIT
set -eu

: "${top_srcdir:?run from make check}" "${top_builddir:?run from make check}"
: "${glcuda_libdir:?run from make check}" "${PYTHON:?run from make check}"

if ! "$PYTHON" -m pip --version > /dev/null 2>&1; then
	echo "SKIP: $PYTHON has no pip (python3-pip)"
	exit 77
fi
# An offline build uses the build backend of $PYTHON itself.
if ! "$PYTHON" -c 'import setuptools, wheel' > /dev/null 2>&1; then
	echo "SKIP: $PYTHON has no setuptools or wheel" \
		"(python3-setuptools, python3-wheel)"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/glcuda-pip.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

. "$top_srcdir/tests/install-stage.sh"

cp -R "$top_srcdir/python" "$tmp/src"
chmod -R u+w "$tmp/src"
# The staged glcuda.pc names the real prefix: pkg-config puts the staging
# directory in front of its paths.
if ! PKG_CONFIG_PATH=$stage$glcuda_libdir/pkgconfig \
	PKG_CONFIG_SYSROOT_DIR=$stage \
	PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
	"$PYTHON" -m pip install --no-build-isolation --no-deps \
	--target "$tmp/site" "$tmp/src" > "$tmp/pip.log" 2>&1; then
	cat "$tmp/pip.log"
	echo "FAIL: pip install --no-build-isolation ./python"
	exit 1
fi
module=$(cd "$tmp/site" && ls glcuda/_glcuda*.so)
case $module in
*.abi3.so) echo "ok: pip built $module (the stable ABI)" ;;
*) echo "FAIL: pip built $module, not an abi3 module"; exit 1 ;;
esac
for f in __init__.pyi _glcuda.pyi gl.pyi py.typed; do
	if [ ! -f "$tmp/site/glcuda/$f" ]; then
		echo "FAIL: pip did not install glcuda/$f"
		exit 1
	fi
done

version=$(cd "$tmp" && PYTHONPATH=$tmp/site PYTHONDONTWRITEBYTECODE=1 \
	LD_LIBRARY_PATH=$stage$glcuda_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	"$PYTHON" -c 'import glcuda; print(glcuda.__version__)')
if [ "$version" != "$PACKAGE_VERSION" ]; then
	echo "FAIL: the installed package reports glcuda $version," \
		"not $PACKAGE_VERSION"
	exit 1
fi
echo "ok: import glcuda from the pip install: glcuda $version"
