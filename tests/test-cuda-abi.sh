#!/bin/sh
# glcuda's declarations of the CUDA driver API (lib/loader/cuda-driver-api.h)
# agree with the CUDA toolkit's headers: sizes, member offsets, enum values,
# constants, the versioned symbol behind each function name, and (by the
# compiler) every prototype. See tests/cuda-abi.c. Skipped (77) without the
# toolkit.
set -eu

: "${top_srcdir:?run from make check}"
CC=${CC:-cc}

if [ "${HAVE_CUDA_TOOLKIT:-no}" != yes ]; then
	echo "SKIP: the CUDA toolkit was not found by configure"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/glcuda-cuda-abi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

types=$top_srcdir/lib/loader/cuda-driver-api.h
def=$top_srcdir/tests/cuda-abi.def

# Everything cuda-driver-api.h declares is compared: its types, enum values,
# constants and function names must all be listed in tests/cuda-abi.def.
status=0
sed 's:/\*.*\*/::' "$types" > "$tmp/types.h"
{
	sed -n 's/^} *\([A-Za-z_0-9]*\);$/SIZE(\1)/p; s/^typedef [^(]* \**\([A-Za-z_0-9]*\);$/SIZE(\1)/p' "$tmp/types.h"
	sed -n 's/^[[:space:]]*\(CU[A-Za-z_0-9]*\) = .*/VALUE(\1)/p' "$tmp/types.h"
	sed -n 's/^#define \(CU[A-Z_0-9]*\) .*/VALUE(\1)/p' "$tmp/types.h"
	sed -n 's/^CUresult CUDAAPI \(cu[A-Za-z0-9]*\)\(_v2\)\{0,1\}(.*/NAME(\1)/p' "$tmp/types.h"
} | sort -u > "$tmp/declared"
grep -o '^[A-Z]*([A-Za-z_0-9]*' "$def" | sed 's/$/)/' | sort -u > "$tmp/listed"
missing=$(comm -23 "$tmp/declared" "$tmp/listed")
if [ -n "$missing" ]; then
	echo "FAIL: declared in lib/loader/cuda-driver-api.h but not compared (add to tests/cuda-abi.def):"
	echo "$missing" | sed 's/^/  /'
	status=1
fi

# The toolkit's headers are system headers: their own warnings are not ours.
. "$top_srcdir/tests/system-includes.sh"
# shellcheck disable=SC2086 # split on purpose
system_includes=$(system_includes ${CUDA_CFLAGS:-} ${EGL_CFLAGS:-})
flags="-std=gnu11 -Wall -Wextra -Werror -I$top_srcdir/lib -I$top_srcdir/tests"
# shellcheck disable=SC2086
if ! $CC $flags -c -o "$tmp/glcuda.o" "$top_srcdir/tests/cuda-abi.c" > "$tmp/out" 2>&1 ||
	! $CC $flags $system_includes -DCUDA_ABI_TOOLKIT -c -o "$tmp/toolkit.o" \
		"$top_srcdir/tests/cuda-abi.c" >> "$tmp/out" 2>&1 ||
	! $CC -o "$tmp/cuda-abi" "$tmp/glcuda.o" "$tmp/toolkit.o" >> "$tmp/out" 2>&1; then
	echo "FAIL: tests/cuda-abi.c does not build (a prototype that disagrees with the toolkit's?)"
	sed 's/^/  /' "$tmp/out"
	exit 1
fi
"$tmp/cuda-abi" || status=1
exit $status
