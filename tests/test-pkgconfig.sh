#!/bin/sh
# Install into a staging directory, then build and run a program the way a
# user would: `pkg-config --cflags --libs glcuda` only, nothing from the build
# tree. The program must start without the CUDA driver and report the
# version the headers promise.
set -eu

: "${top_srcdir:?run from make check}" "${top_builddir:?run from make check}"
: "${glcuda_libdir:?run from make check}"
CC=${CC:-cc}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/glcuda-pkgconfig.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

. "$top_srcdir/tests/install-stage.sh"

pcdir=$stage$glcuda_libdir/pkgconfig
if [ ! -f "$pcdir/glcuda.pc" ]; then
	echo "FAIL: glcuda.pc not installed in $glcuda_libdir/pkgconfig"
	exit 1
fi
for h in glcuda.h glcuda-cuda.h glcuda-diag.h glcuda-version.h; do
	if [ ! -f "$stage$glcuda_includedir/glcuda/$h" ]; then
		echo "FAIL: $h not installed in $glcuda_includedir/glcuda"
		exit 1
	fi
done

# The system's .pc files (egl, epoxy, vulkan) stay found; the sysroot maps
# the installed paths into the staging directory.
PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
PKG_CONFIG_SYSROOT_DIR=$stage
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

modversion=$("$PKG_CONFIG" --modversion glcuda)
if [ "$modversion" != "$PACKAGE_VERSION" ]; then
	echo "FAIL: pkg-config --modversion glcuda says '$modversion', expected '$PACKAGE_VERSION'"
	exit 1
fi

# A static-only install (--disable-shared) links with the private
# dependencies too.
static=
if [ ! -e "$stage$glcuda_libdir/libglcuda.so" ]; then
	static=--static
fi
pc_flags=$("$PKG_CONFIG" $static --cflags --libs glcuda)
echo "pkg-config $static --cflags --libs glcuda: $pc_flags"

cat > "$tmp/user.c" <<'PROGRAM'
#include <stdio.h>
#include <string.h>
#include <glcuda/glcuda.h>

#if !GLCUDA_CHECK_VERSION(0, 1, 0)
#error glcuda-version.h is not installed or too old
#endif

int
main(void)
{
	const char *msg = glcuda_strerror(GLCUDA_ERROR_NO_CUDA_DRIVER);

	printf("version %s\n", glcuda_get_version());
	printf("strerror %s\n", msg);
	if (strcmp(glcuda_get_version(), GLCUDA_VERSION_STRING) != 0)
		return 1;
	if (msg == NULL || msg[0] == '\0')
		return 1;
	return 0;
}
PROGRAM

# shellcheck disable=SC2086
if ! $CC ${CFLAGS:-} -o "$tmp/user" "$tmp/user.c" ${LDFLAGS:-} $pc_flags \
	> "$tmp/cc.log" 2>&1; then
	cat "$tmp/cc.log"
	echo "FAIL: a program does not build with pkg-config's flags"
	exit 1
fi

if ! LD_LIBRARY_PATH=$stage$glcuda_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	"$tmp/user" > "$tmp/out" 2>&1; then
	cat "$tmp/out"
	echo "FAIL: the installed library does not run"
	exit 1
fi
cat "$tmp/out"
if ! grep -qx "version $PACKAGE_VERSION" "$tmp/out"; then
	echo "FAIL: glcuda_get_version() does not say $PACKAGE_VERSION"
	exit 1
fi
if [ -z "$static" ] && command -v ldd > /dev/null; then
	# The program must use the installed library, not one from elsewhere.
	lib=$(LD_LIBRARY_PATH=$stage$glcuda_libdir ldd "$tmp/user" | sed -n 's/.*libglcuda\.so[^ ]* => \([^ ]*\).*/\1/p')
	case $lib in
	"$stage"/*) ;;
	*) echo "FAIL: the program loaded libglcuda from '$lib', not from $stage"; exit 1 ;;
	esac
fi
# Installed programs use the installed library: glcuda-info and glcuda-demo
# need libglcuda's soname, not a static copy of their own.
if [ -z "$static" ] && command -v readelf > /dev/null; then
	soname=$(readelf -d "$stage$glcuda_libdir/libglcuda.so" |
		sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	for prog in glcuda-info glcuda-demo; do
		bin=$stage$glcuda_prefix/bin/$prog
		if [ ! -e "$bin" ]; then
			echo "FAIL: $prog is not installed in $glcuda_prefix/bin"
			exit 1
		fi
		if ! readelf -d "$bin" | grep -q "(NEEDED).*\[$soname\]"; then
			readelf -d "$bin"
			echo "FAIL: the installed $prog does not link $soname"
			exit 1
		fi
		echo "ok: the installed $prog links $soname"
	done
fi
echo "ok: installed, built with pkg-config ${static:+(static) }and ran"
