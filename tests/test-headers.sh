#!/bin/sh
# The public headers compile on their own, warning-free, as strict C99 and
# as C++11: <glcuda/glcuda.h> with the EGL headers only, <glcuda/glcuda-cuda.h>
# with the CUDA toolkit's <cuda.h> too (included by it, or by the program
# first), and after glcuda's own declarations of the driver API
# (lib/loader/cuda-driver-api.h, what glcuda's sources use). Without the toolkit,
# the checks with <cuda.h> are skipped (and said so).
# They also compile before and after <EGL/egl.h> and <epoxy/egl.h> (which
# refuses to follow <EGL/egl.h>), and their EGL handles are the EGL headers'
# own types.
set -eu

: "${top_srcdir:?run from make check}" "${top_builddir:?run from make check}"
CC=${CC:-cc}
CXX=${CXX:-c++}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/glcuda-headers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# libepoxy's flags, for the include-order checks (configure requires it).
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
epoxy_cflags=$($PKG_CONFIG --cflags epoxy) || {
	echo "FAIL: $PKG_CONFIG --cflags epoxy"
	exit 1
}
# Third-party headers are included as system headers: their own pedantic
# warnings are not ours to fix.
. "$top_srcdir/tests/system-includes.sh"
# shellcheck disable=SC2086 # split on purpose
includes="-I$top_srcdir/include -I$top_builddir/include \
$(system_includes ${EGL_CFLAGS:-} ${CUDA_CFLAGS:-} $epoxy_cflags)"

write_source() # FILE HEADER [FIRST-INCLUDE]
{
	cat > "$1" <<SOURCE
${3:+#include $3}
#include <glcuda/$2>
#include <glcuda/$2> /* include guard */

#if !defined(GLCUDA_VERSION_MAJOR) || !GLCUDA_CHECK_VERSION(0, 0, 0)
#error glcuda-version.h missing
#endif

int use_header(void);
int
use_header(void)
{
	const char *(*strerror_fn)(int) = glcuda_strerror;
	struct glcuda_device_options options;
	struct glcuda_ring_desc desc;
	struct glcuda_image_desc image_desc;
	struct glcuda_frame_timings timings;

	glcuda_device_options_init(&options);
	glcuda_ring_desc_init(&desc);
	glcuda_image_desc_init(&image_desc);
	glcuda_frame_timings_init(&timings);
	if (options.size != sizeof(options) || desc.size != sizeof(desc) ||
	    image_desc.size != sizeof(image_desc) || timings.size != sizeof(timings))
		return 0;
	options.sync_mode = GLCUDA_SYNC_AUTO;
	options.flags = GLCUDA_DEVICE_FLAG_NONE;
	return strerror_fn != 0 && options.sync_mode == GLCUDA_SYNC_AUTO &&
	       options.flags == 0;
}
SOURCE
}

# An EGL header and a glcuda header, in the order given. Function pointers
# typed with EGL's own handle types must take glcuda's functions unchanged:
# a mismatch is an error in C++ and a warning (-Werror) in C.
write_order_source() # FILE FIRST SECOND
{
	cat > "$1" <<SOURCE
#include <$2>
#include <$3>

int use_egl_types(void);
int
use_egl_types(void)
{
	int (*device_new_fn)(EGLDisplay, EGLContext,
			     const struct glcuda_device_options *,
			     struct glcuda_device **) = glcuda_device_new;
	int (*wrap_fn)(struct glcuda_device *, EGLImage, uint32_t,
		       struct glcuda_image **) = glcuda_image_wrap_egl_image;
	EGLDisplay (*display_fn)(const struct glcuda_headless *) =
		glcuda_headless_get_display;
	EGLContext (*context_fn)(const struct glcuda_headless *) =
		glcuda_headless_get_context;
	EGLDisplay display = EGL_NO_DISPLAY;

	return device_new_fn != 0 && wrap_fn != 0 && display_fn != 0 &&
	       context_fn != 0 && display == EGL_NO_DISPLAY;
}
SOURCE
}

status=0
compile() # DESCRIPTION COMPILER FLAGS... FILE
{
	what=$1
	shift
	# shellcheck disable=SC2086
	if "$@" > "$tmp/out" 2>&1; then
		echo "ok: $what"
	else
		echo "FAIL: $what"
		echo "  $*"
		sed 's/^/  /' "$tmp/out"
		status=1
	fi
}

c_flags="-std=c99 -pedantic -Werror -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wshadow -Wundef"
cxx_flags="-std=c++11 -pedantic -Werror -Wall -Wextra -Wshadow -Wundef"

compile_both() # DESCRIPTION FILE.c: FILE.c as C99 and, copied to FILE.cpp, as C++11
{
	cp "$2" "${2%.c}.cpp"
	# shellcheck disable=SC2086
	compile "$1 as C99" \
		$CC $c_flags $includes -c -o "$tmp/c.o" "$2"
	if command -v "${CXX%% *}" > /dev/null 2>&1; then
		# shellcheck disable=SC2086
		compile "$1 as C++11" \
			$CXX $cxx_flags $includes -c -o "$tmp/cxx.o" "${2%.c}.cpp"
	else
		echo "FAIL: no C++ compiler ($CXX)"
		status=1
	fi
}

check_header() # DESCRIPTION HEADER [FIRST-INCLUDE]
{
	write_source "$tmp/test.c" "$2" "${3:-}"
	compile_both "$1" "$tmp/test.c"
}

check_header "<glcuda/glcuda.h>" glcuda.h
check_header "<glcuda/glcuda-diag.h>" glcuda-diag.h
if [ "${HAVE_CUDA_TOOLKIT:-no}" = yes ]; then
	check_header "<glcuda/glcuda-cuda.h> (it includes <cuda.h>)" glcuda-cuda.h
	check_header "<glcuda/glcuda-cuda.h> after <cuda.h>" glcuda-cuda.h "<cuda.h>"
else
	echo "skip: <glcuda/glcuda-cuda.h> with the toolkit's <cuda.h>: configured without the CUDA toolkit"
fi
includes="$includes -I$top_srcdir/lib"
check_header "<glcuda/glcuda-cuda.h> after lib/loader/cuda-driver-api.h" glcuda-cuda.h \
	'"loader/cuda-driver-api.h"'

n=0
order_headers="glcuda.h"
[ "${HAVE_CUDA_TOOLKIT:-no}" = yes ] && order_headers="$order_headers glcuda-cuda.h"
for header in $order_headers; do
	for egl in EGL/egl.h epoxy/egl.h; do
		for order in before after; do
			n=$((n + 1))
			if [ $order = before ]; then
				write_order_source "$tmp/order$n.c" "$egl" "glcuda/$header"
			else
				write_order_source "$tmp/order$n.c" "glcuda/$header" "$egl"
			fi
			compile_both "<$egl> $order <glcuda/$header>" "$tmp/order$n.c"
		done
	done
done
exit $status
