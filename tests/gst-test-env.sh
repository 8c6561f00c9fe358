# Sourced (". tests/gst-test-env.sh") by the GStreamer element's test
# scripts (test-gst.sh, test-gst-props.sh), from the build
# directory after make check:
# - holds the build tree's install lock, shared, while the plugin is loaded
#   from it: make install (tests/test-pkgconfig.sh, tests/test-examples.sh,
#   tests/test-install-prefix.sh) relinks the plugin inside the build tree,
#   and libtool moves the built file aside meanwhile;
# - exits 77 when the plugin is not built;
# - binds the fake CUDA driver to GL's device UUID (tests/fake-cuda-env.sh:
#   exit 1 when one of the programs it and the caller need, those named in
#   $gst_test_needs, is missing; 77 when GL has no device UUID);
# - makes $tmp (removed at exit) with a registry of the test's own, points
#   GStreamer at the build's plugin and GstGL at the EGL device platform
#   (headless, no window system).
# SPDX-License-Identifier: MIT

exec 9> ./tests/.install.lock
flock -s 9

plugin=./gst/.libs/libgstglcuda.so
if [ ! -e "$plugin" ]; then
	echo "SKIP: the GStreamer plugin is not built (configure found no GStreamer GL development files)"
	exit 77
fi
fake_cuda_needs=${gst_test_needs:-}
. "${srcdir:-.}/tests/fake-cuda-env.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GST_PLUGIN_PATH=$(pwd)/gst/.libs
GST_REGISTRY=$tmp/registry.bin
GST_GL_PLATFORM=egl
GST_GL_WINDOW=egl-device
export GST_PLUGIN_PATH GST_REGISTRY GST_GL_PLATFORM GST_GL_WINDOW
