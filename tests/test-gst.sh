#!/bin/sh
# The GStreamer plugin (gst/, element glcudafilter) on Mesa and the fake
# CUDA driver (tests/fake-cuda), as CI runs it: GStreamer's GL on the EGL
# device platform without a window system, glcuda in the cpu sync mode.
# Pixels: filter=none against the same pipeline without the filter, byte
# for byte, on desktop GL and GLES; kernel-name=ring_transform (the fake
# runs a CPU invert for that name) against the inverse. The buffer pool:
# glcudafilter offers upstream a pool of glcuda images (an allocation query
# answered on its sink pad), glcolorconvert renders into it, a glcudafilter
# before another outputs into the other's, and the stats property counts
# the frames that took the pooled route; pixels as above. Also caps
# refusal, the element errors without CUDA (no driver, a device that is
# not GL's), NULL <-> PLAYING repeated (with GStreamer's leaks tracer, and
# under valgrind where it is installed), and gst-inspect-1.0. Run from the build directory after make check.
# SPDX-License-Identifier: MIT
set -u

# test-pkgconfig.sh and test-examples.sh run `make install`, which relinks
# the plugin inside the build tree (libtool moves the built file aside
# meanwhile): hold the build tree's install lock, shared, while the
# plugin is loaded from it.
exec 9> ./tests/.install.lock
flock -s 9

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

# check_inverse NAME REF OUT: OUT is REF with RGB inverted, alpha kept.
check_inverse() {
	od -An -v -tu1 -w4 "$2" > "$tmp/ref.txt"
	od -An -v -tu1 -w4 "$3" > "$tmp/out.txt"
	bad=$(paste "$tmp/ref.txt" "$tmp/out.txt" | awk '
		NF != 8 || $5 != 255 - $1 || $6 != 255 - $2 || $7 != 255 - $3 || $8 != $4 { bad++ }
		END { print bad + 0 }')
	pixels=$(wc -l < "$tmp/ref.txt")
	if [ "$pixels" -ne $((64 * 48 * 4)) ] || [ "$bad" -ne 0 ]; then
		fail "$1: $bad of $pixels pixels are not the inverse"
	fi
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
	check_inverse ring_transform "$tmp/ref-opengl3.raw" "$tmp/invert.raw"
fi

# The buffer pool. glupload hands on its own textures, but glcolorconvert
# (BGRA to RGBA here) renders into the pool downstream offers, and so does
# a glcudafilter into the next one's. gst-states prints the pool each
# glcudafilter offered and, after EOS, its stats.
# check_stats NAME ELEMENT FIELD...: ELEMENT's stats in $tmp/NAME.log have
# FIELD=(guint64)VALUE for each FIELD=VALUE.
check_stats() {
	what=$1
	log=$tmp/$1.log
	element=$2
	shift 2
	grep -q "^$element: offers GstGlcudaBufferPool" "$log" ||
		fail "$what: $element did not offer its pool upstream ($(grep "^$element: offers" "$log"))"
	for field in "$@"; do
		grep "^$element: glcudafilter-stats" "$log" |
			grep -q "${field%%=*}=(guint64)${field#*=}[,;]" ||
			fail "$what: $element: not $field: $(grep "^$element: glcudafilter-stats" "$log")"
	done
}
bgra='videotestsrc num-buffers=4 pattern=smpte ! video/x-raw,format=BGRA,width=64,height=48'
rgba_gl='video/x-raw(memory:GLMemory),format=RGBA'
for api in opengl3 gles2; do
	GST_GL_API=$api run pref-$api $bgra ! glupload ! glcolorconvert ! "$rgba_gl" ! \
		gldownload ! filesink location="$tmp/pref-$api.raw" ||
		fail "$api: the reference pipeline with glcolorconvert"
	# filter=none: the input is the pool's image; on this driver GL
	# copies it into the output (CUDA copies where it registers textures).
	if ! GST_GL_API=$api "$states" 1 "$bgra ! glupload ! glcolorconvert ! $rgba_gl ! \
		glcudafilter name=f ! gldownload ! filesink location=$tmp/pnone-$api.raw" \
		> "$tmp/pnone-$api.log" 2>&1; then
		fail "$api: pooled filter=none"
		cat "$tmp/pnone-$api.log" >&2
	else
		check_stats pnone-$api f frames=4 input-pooled=4 input-copied=0
		cmp "$tmp/pref-$api.raw" "$tmp/pnone-$api.raw" ||
			fail "$api: pooled filter=none changed the pixels"
	fi
	# A kernel: input and output both images of glcuda pools, no copy.
	if ! GST_GL_API=$api "$states" 1 "$bgra ! glupload ! glcolorconvert ! $rgba_gl ! \
		glcudafilter name=f kernel-name=ring_transform ptx-file=$tmp/kernel.ptx ! \
		gldownload ! filesink location=$tmp/pinv-$api.raw" > "$tmp/pinv-$api.log" 2>&1; then
		fail "$api: pooled ring_transform"
		cat "$tmp/pinv-$api.log" >&2
	else
		check_stats pinv-$api f frames=4 input-pooled=4 output-pooled=4 input-copied=0 \
			output-copied=0
		check_inverse "$api: pooled ring_transform" "$tmp/pref-$api.raw" "$tmp/pinv-$api.raw"
	fi
done
# Two in a row: the first copies glupload's texture in (a plain GL
# texture) and outputs into the second's pool; twice inverted is the input.
if ! "$states" 1 "$src ! glupload ! glcudafilter name=a kernel-name=ring_transform \
	ptx-file=$tmp/kernel.ptx ! glcudafilter name=b kernel-name=ring_transform \
	ptx-file=$tmp/kernel.ptx ! gldownload ! filesink location=$tmp/chain.raw" \
	> "$tmp/chain.log" 2>&1; then
	fail "two glcudafilters"
	cat "$tmp/chain.log" >&2
else
	check_stats chain a frames=4 input-copied=4 output-pooled=4
	check_stats chain b frames=4 input-pooled=4 output-pooled=4
	cmp "$tmp/ref-opengl3.raw" "$tmp/chain.raw" || fail "two inverts are not the input"
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

# NULL <-> PLAYING, five times, with the copy, the kernel and the pools,
# under GStreamer's leaks tracer: a buffer, memory or pool (each pooled
# memory holds an image) still alive at gst_deinit() is printed as
# object-alive.
pooled="$bgra ! glupload ! glcolorconvert ! $rgba_gl ! glcudafilter kernel-name=ring_transform ptx-file=$tmp/kernel.ptx ! glcudafilter ! gldownload ! fakesink"
for pipeline in "$src ! glupload ! glcudafilter ! gldownload ! fakesink" \
	"$src ! glupload ! glcudafilter kernel-name=ring_transform ptx-file=$tmp/kernel.ptx ! glcudafilter ! gldownload ! fakesink" \
	"$pooled"; do
	if ! GST_TRACERS=leaks GST_DEBUG=GST_TRACER:7 GST_DEBUG_NO_COLOR=1 \
		"$states" 5 "$pipeline" > "$tmp/states.log" 2>&1; then
		fail "NULL <-> PLAYING: $pipeline"
		grep -v GST_TRACER "$tmp/states.log" >&2
	elif grep -q 'object-alive, type-name=(string)[A-Za-z]' "$tmp/states.log"; then
		fail "NULL <-> PLAYING leaves objects alive: $pipeline"
		grep 'object-alive, type-name=(string)[A-Za-z]' "$tmp/states.log" >&2
	fi
done

# Under valgrind (where it is installed; not in the sanitizer build),
# NULL <-> PLAYING three times on the pooled path: no invalid access and
# nothing of glcuda's or the plugin's definitely or indirectly lost.
# Mesa's and the loaders' own memory is suppressed (tests/valgrind.supp;
# --keep-debuginfo keeps an unloaded driver's names for it).
if command -v valgrind >/dev/null 2>&1 && [ -x ./libtool ] && [ -z "${ASAN_OPTIONS:-}" ]; then
	supp=${abs_top_srcdir:-${srcdir:-..}}/tests/valgrind.supp
	if ! ./libtool --mode=execute valgrind --leak-check=full --error-exitcode=99 \
		--keep-debuginfo=yes --num-callers=40 \
		--errors-for-leak-kinds=definite,indirect --suppressions="$supp" \
		--log-file="$tmp/valgrind.log" "$states" 3 "$pooled" > "$tmp/vg.log" 2>&1; then
		fail "NULL <-> PLAYING under valgrind"
		grep -A30 -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|[0-9,]+ .*bytes in .* are (definitely|indirectly))' \
			"$tmp/valgrind.log" | head -n 120 >&2
		cat "$tmp/vg.log" >&2
	fi
else
	echo "valgrind run left out: no valgrind (or a sanitizer build)"
fi

if [ "$failures" -ne 0 ]; then
	echo "FAIL: $failures checks failed" >&2
	exit 1
fi
echo "PASS: glcudafilter: pixels (GL, GLES, kernel), the buffer pool, caps refusal, errors, state changes"
exit 0
