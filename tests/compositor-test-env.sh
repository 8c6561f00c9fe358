# Sourced (". tests/compositor-test-env.sh") by glcuda-compositor's tests,
# from the build directory: the compositor and the helpers they need
# (COMPOSITOR_TEST_NEEDS: more files), the weston clients they run
# (COMPOSITOR_TEST_CLIENTS: their names), the fake CUDA driver on the
# UUID of Mesa's GL device (tests/fake-cuda-env.sh), and no runtime
# directory (the compositor makes its own). Exits 77 with what is missing,
# 1 when a file the build makes is absent.
# SPDX-License-Identifier: MIT
comp=./tools/glcuda-compositor/glcuda-compositor
if [ ! -x "$comp" ]; then
	echo "SKIP: glcuda-compositor was not built (configure found no wayland-server, wayland-scanner, wayland-protocols, wayland-client, libpng or xkbcommon)"
	exit 77
fi
fake_cuda_needs=${COMPOSITOR_TEST_NEEDS:-}
. "${srcdir:-.}/tests/fake-cuda-env.sh"
for f in ${COMPOSITOR_TEST_CLIENTS:-}; do
	if ! command -v "$f" >/dev/null 2>&1; then
		echo "SKIP: $f not found (Debian: apt-get install weston)"
		exit 77
	fi
done
# The compositor makes its own runtime directory when there is none.
unset XDG_RUNTIME_DIR WAYLAND_DISPLAY
