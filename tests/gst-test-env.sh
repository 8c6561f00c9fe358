# Sourced (". tests/gst-test-env.sh") by the GStreamer element's test
# scripts (test-gst.sh, test-gst-odd.sh, test-gst-props.sh), from the build
# directory after make check:
# - holds the build tree's install lock, shared, while the plugin is loaded
#   from it: make install (tests/test-pkgconfig.sh, tests/test-examples.sh,
#   tests/test-install-prefix.sh) relinks the plugin inside the build tree,
#   and libtool moves the built file aside meanwhile;
# - exits 77 when the plugin is not built, 1 when one of the programs it
#   and the caller need ($info, $fake and those named in $gst_test_needs)
#   is missing;
# - makes $tmp (removed at exit) with a registry of the test's own, points
#   GStreamer at the build's plugin and GstGL at the EGL device platform
#   (headless, no window system);
# - binds the fake CUDA driver to GL's device UUID (exit 77 when GL has
#   none: no GL_EXT_memory_object).
# SPDX-License-Identifier: MIT

exec 9> ./tests/.install.lock
flock -s 9

plugin=./gst/.libs/libgstglcuda.so
if [ ! -e "$plugin" ]; then
	echo "SKIP: the GStreamer plugin is not built (configure found no GStreamer GL development files)"
	exit 77
fi
info=./tools/glcuda-info
fake=$(pwd)/tests/fake-cuda/.libs/libfakecuda.so
for f in "$info" "$fake" ${gst_test_needs:-}; do
	if [ ! -e "$f" ]; then
		echo "FAIL: $f not found; run from the build directory after make check" >&2
		exit 1
	fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GST_PLUGIN_PATH=$(pwd)/gst/.libs
GST_REGISTRY=$tmp/registry.bin
GST_GL_PLATFORM=egl
GST_GL_WINDOW=egl-device
export GST_PLUGIN_PATH GST_REGISTRY GST_GL_PLATFORM GST_GL_WINDOW

uuid=$(GLCUDA_LIBCUDA=/nonexistent/libcuda.so.1 "$info" 2>/dev/null |
	awk '/device UUID/ { print $3; exit }')
if [ -z "$uuid" ]; then
	echo "SKIP: GL reports no device UUID (no GL_EXT_memory_object)"
	exit 77
fi
GLCUDA_LIBCUDA=$fake
GLCUDA_FAKE_CUDA_UUID=$uuid
export GLCUDA_LIBCUDA GLCUDA_FAKE_CUDA_UUID
