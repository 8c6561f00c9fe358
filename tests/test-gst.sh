#!/bin/sh
# The GStreamer plugin (gst/, element glcudafilter) on Mesa and the fake
# CUDA driver (tests/fake-cuda), as CI runs it: GStreamer's GL on the EGL
# device platform without a window system, glcuda in the cpu sync mode.
# Pixels: filter=none against the same pipeline without the filter, byte
# for byte, on desktop GL and GLES; kernel-name=ring_transform (the fake
# runs a CPU invert for that name) against the inverse. Also caps refusal,
# the element errors without CUDA (no driver, a device that is not GL's),
# NULL <-> PLAYING repeated, and gst-inspect-1.0. Run from the build
# directory after make check.
# SPDX-License-Identifier: MIT
set -u

plugin=./gst/.libs/libgstglcuda.so
if [ ! -e "$plugin" ]; then
	echo "SKIP: the GStreamer plugin is not built (configure found no GStreamer GL development files)"
	exit 77
fi
info=./tools/glcuda-info
states=./tests/gst-states
fake=$(pwd)/tests/fake-cuda/.libs/libfakecuda.so
for f in "$info" "$states" "$fake"; do
	if [ ! -e "$f" ]; then
		echo "FAIL: $f not found; run from the build directory after make check" >&2
		exit 1
	fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The build's plugin, and a registry of the test's own (not the user's).
GST_PLUGIN_PATH=$(pwd)/gst/.libs
GST_REGISTRY=$tmp/registry.bin
# Headless GstGL on Mesa: EGL on the EGL device platform, no window system.
GST_GL_PLATFORM=egl
GST_GL_WINDOW=egl-device
GST_GL_API=opengl3
export GST_PLUGIN_PATH GST_REGISTRY GST_GL_PLATFORM GST_GL_WINDOW GST_GL_API

uuid=$(GLCUDA_LIBCUDA=/nonexistent/libcuda.so.1 "$info" 2>/dev/null |
	awk '/device UUID/ { print $3; exit }')
if [ -z "$uuid" ]; then
	echo "SKIP: GL reports no device UUID (no GL_EXT_memory_object)"
	exit 77
fi
GLCUDA_LIBCUDA=$fake
GLCUDA_FAKE_CUDA_UUID=$uuid
export GLCUDA_LIBCUDA GLCUDA_FAKE_CUDA_UUID

failures=0
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

src='videotestsrc num-buffers=4 pattern=smpte ! video/x-raw,format=RGBA,width=64,height=48'

# run NAME PIPELINE...: gst-launch-1.0, its output in $tmp/NAME.log.
run() {
	name=$1
	shift
	gst-launch-1.0 -q "$@" > "$tmp/$name.log" 2>&1
}

if ! gst-inspect-1.0 glcudafilter > "$tmp/inspect.log" 2>&1 ||
   ! grep -q 'kernel-name' "$tmp/inspect.log"; then
	fail "gst-inspect-1.0 glcudafilter"
	cat "$tmp/inspect.log" >&2
fi

for api in opengl3 gles2; do
	run ref-$api $src ! glupload ! gldownload ! filesink location="$tmp/ref-$api.raw" ||
		fail "$api: the reference pipeline without the filter"
	if ! GST_GL_API=$api run none-$api $src ! glupload ! glcudafilter filter=none ! \
		gldownload ! filesink location="$tmp/none-$api.raw"; then
		fail "$api: filter=none"
		cat "$tmp/none-$api.log" >&2
	elif ! cmp "$tmp/ref-$api.raw" "$tmp/none-$api.raw"; then
		fail "$api: filter=none changed the pixels"
	fi
	[ -s "$tmp/ref-$api.raw" ] || fail "$api: no frames"
done

# The fake runs ring_transform's CPU invert (RGB inverted, alpha kept)
# whatever the module holds.
echo "any module" > "$tmp/kernel.ptx"
if ! run invert $src ! glupload ! glcudafilter kernel-name=ring_transform \
	ptx-file="$tmp/kernel.ptx" ! gldownload ! filesink location="$tmp/invert.raw"; then
	fail "kernel-name=ring_transform"
	cat "$tmp/invert.log" >&2
else
	od -An -v -tu1 -w4 "$tmp/ref-opengl3.raw" > "$tmp/ref.txt"
	od -An -v -tu1 -w4 "$tmp/invert.raw" > "$tmp/invert.txt"
	bad=$(paste "$tmp/ref.txt" "$tmp/invert.txt" | awk '
		NF != 8 || $5 != 255 - $1 || $6 != 255 - $2 || $7 != 255 - $3 || $8 != $4 { bad++ }
		END { print bad + 0 }')
	pixels=$(wc -l < "$tmp/ref.txt")
	if [ "$pixels" -ne $((64 * 48 * 4)) ] || [ "$bad" -ne 0 ]; then
		fail "ring_transform: $bad of $pixels pixels are not the inverse"
	fi
fi

# Caps glcudafilter cannot handle are refused when linking.
for caps in 'format=BGRA' 'texture-target=rectangle'; do
	run caps $src ! glupload ! glcolorconvert ! "video/x-raw(memory:GLMemory),$caps" ! \
		glcudafilter ! fakesink
	grep -q "could not link.*glcudafilter0.*can't handle caps" "$tmp/caps.log" ||
		fail "caps $caps: not refused"
done

# Without a usable CUDA device: an element error naming the reason.
# check_error NAME EXPECTED: the run failed with an error (not a signal)
# from glcudafilter that says EXPECTED.
check_error() {
	rc=$1
	if [ "$rc" -eq 0 ] || [ "$rc" -gt 125 ]; then
		fail "$2: exit status $rc (an element error exits 1)"
	fi
	grep -q "ERROR: from element .*glcudafilter0: .*$3" "$tmp/$2.log" ||
		{ fail "$2: no element error saying $3"; cat "$tmp/$2.log" >&2; }
}
GLCUDA_LIBCUDA=/nonexistent/libcuda.so.1 run nocuda $src ! glupload ! glcudafilter ! fakesink
check_error $? nocuda GLCUDA_ERROR_NO_CUDA_DRIVER
GLCUDA_FAKE_CUDA_UUID=00000000-0000-0000-0000-000000000001 run mismatch $src ! glupload ! \
	glcudafilter ! fakesink
check_error $? mismatch GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE
run nokernel $src ! glupload ! glcudafilter kernel-name=ring_transform \
	ptx-file="$tmp/nonexistent.ptx" ! fakesink
check_error $? nokernel "cannot read the kernel file"

# NULL <-> PLAYING, five times, with the copy and the kernel.
if ! "$states" 5 "$src ! glupload ! glcudafilter ! gldownload ! fakesink" \
	> "$tmp/states.log" 2>&1 ||
   ! "$states" 5 "$src ! glupload ! glcudafilter kernel-name=ring_transform ptx-file=$tmp/kernel.ptx ! glcudafilter ! gldownload ! fakesink" \
	>> "$tmp/states.log" 2>&1; then
	fail "NULL <-> PLAYING"
	cat "$tmp/states.log" >&2
fi

if [ "$failures" -ne 0 ]; then
	echo "FAIL: $failures checks failed" >&2
	exit 1
fi
echo "PASS: glcudafilter: pixels (GL, GLES, kernel), caps refusal, errors, state changes"
exit 0
