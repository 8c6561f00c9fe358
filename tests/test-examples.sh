#!/bin/sh
# The examples build the way a user's copy of them would: installed into a
# staging directory, then compiled from a copy of their sources with
# `pkg-config --cflags --libs glcuda epoxy`, the CUDA toolkit's <cuda.h>
# and -ldl only: nothing from the source or build tree.
set -eu

: "${top_srcdir:?run from make check}" "${top_builddir:?run from make check}"
: "${glcuda_libdir:?run from make check}"
CC=${CC:-cc}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}

if [ "${HAVE_CUDA_TOOLKIT:-no}" != yes ]; then
	echo "SKIP: the examples include the CUDA toolkit's <cuda.h>, and configure found no toolkit"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/glcuda-examples.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

. "$top_srcdir/tests/install-stage.sh"

PKG_CONFIG_PATH=$stage$glcuda_libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
PKG_CONFIG_SYSROOT_DIR=$stage
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

static=
if [ ! -e "$stage$glcuda_libdir/libglcuda.so" ]; then
	static=--static
fi

# Only the sources a user would copy: the examples and their CUDA loader.
mkdir "$tmp/src"
cp "$top_srcdir/examples/handoff.c" "$top_srcdir/examples/compositor-loop.c" \
	"$top_srcdir/examples/example-cuda.h" "$tmp/src/"

status=0
build() {
	name=$1
	shift
	flags=$("$PKG_CONFIG" $static --cflags --libs glcuda epoxy "$@")
	# shellcheck disable=SC2086
	if $CC ${CFLAGS:-} ${CUDA_CFLAGS:-} -o "$tmp/$name" "$tmp/src/$name.c" \
		${LDFLAGS:-} $flags -ldl > "$tmp/$name.log" 2>&1; then
		echo "ok: examples/$name.c builds against the installed glcuda"
	else
		cat "$tmp/$name.log"
		echo "FAIL: examples/$name.c does not build against the installed glcuda"
		status=1
	fi
}

build handoff
if "$PKG_CONFIG" --exists wayland-server; then
	build compositor-loop wayland-server
else
	echo "note: no wayland-server, compositor-loop is not built"
fi
exit $status
