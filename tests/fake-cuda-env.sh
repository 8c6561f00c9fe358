# shellcheck shell=sh
# Sourced (". tests/fake-cuda-env.sh") from the build directory, after make
# check, by the tests that run glcuda on the fake CUDA driver
# (tests/fake-cuda) on the device GL renders on (Mesa's llvmpipe on CI):
# - exits 1 when glcuda-info ($info), the fake ($fake) or one of the files
#   named in $fake_cuda_needs was not built;
# - exits 77 when GL reports no device UUID (no GL_EXT_memory_object);
# - else exports GLCUDA_LIBCUDA (the fake) and GLCUDA_FAKE_CUDA_UUID (GL's
#   device UUID, $uuid), so that glcuda binds the fake to GL's device.
# SPDX-License-Identifier: MIT
info=./tools/glcuda-info/glcuda-info
fake=$(pwd)/tests/fake-cuda/.libs/libfakecuda.so
for f in "$info" "$fake" ${fake_cuda_needs:-}; do
	if [ ! -e "$f" ]; then
		echo "FAIL: $f not found; run from the build directory after make check" >&2
		exit 1
	fi
done
uuid=$(GLCUDA_LIBCUDA=/nonexistent/libcuda.so.1 "$info" 2>/dev/null |
	awk '/device UUID/ { print $3; exit }')
if [ -z "$uuid" ]; then
	echo "SKIP: GL reports no device UUID (no GL_EXT_memory_object)"
	exit 77
fi
GLCUDA_LIBCUDA=$fake
GLCUDA_FAKE_CUDA_UUID=$uuid
export GLCUDA_LIBCUDA GLCUDA_FAKE_CUDA_UUID
