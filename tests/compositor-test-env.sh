# Sourced (". tests/compositor-test-env.sh") by glcuda-compositor's tests,
# from the build directory: the compositor and the helpers they need
# (COMPOSITOR_TEST_NEEDS: more files), the weston clients they run
# (COMPOSITOR_TEST_CLIENTS: their names), the fake CUDA driver on the
# UUID of Mesa's GL device, and no runtime directory (the compositor makes
# its own). Exits 77 with what is missing, 1 when a file the build makes
# is absent.
# SPDX-License-Identifier: MIT
comp=./tools/glcuda-compositor/glcuda-compositor
if [ ! -x "$comp" ]; then
	echo "SKIP: glcuda-compositor was not built (configure found no wayland-server, wayland-scanner, wayland-protocols, wayland-client, libpng or xkbcommon)"
	exit 77
fi
info=./tools/glcuda-info
fake=$(pwd)/tests/fake-cuda/.libs/libfakecuda.so
for f in "$info" "$fake" ${COMPOSITOR_TEST_NEEDS:-}; do
	if [ ! -e "$f" ]; then
		echo "FAIL: $f not found; run from the build directory after make check" >&2
		exit 1
	fi
done
for f in ${COMPOSITOR_TEST_CLIENTS:-}; do
	if ! command -v "$f" >/dev/null 2>&1; then
		echo "SKIP: $f not found (Debian: apt-get install weston)"
		exit 77
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
# The compositor makes its own runtime directory when there is none.
unset XDG_RUNTIME_DIR WAYLAND_DISPLAY
