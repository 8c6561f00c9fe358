#!/bin/sh
# The GStreamer plugin (gst/, element glcudafilter) on Mesa and the fake
# CUDA driver (tests/fake-cuda), as CI runs it: GStreamer's GL on the EGL
# device platform without a window system, glcuda in the cpu sync mode,
# in whole gst-launch-1.0 processes, where the process is the point: what
# gst-inspect-1.0 shows, caps refused when linking, the per-frame timings
# of GST_DEBUG=glcudafilter:5, the element errors users read (no CUDA
# driver, a device that is not GL's, a kernel file missing, the built-in
# invert of a build without nvcc), NULL <-> PLAYING repeated (with
# GStreamer's leaks tracer, and under valgrind where it is installed) and
# qos=true, and route=auto trying the registration where the driver
# offers GL interop. The pixels of every format, the buffer pool and the
# routes' counters are tests/test-gst-element's (GstHarness). Run from the build directory
# after make check.
# SPDX-License-Identifier: MIT
set -u

states=./tests/gst-states
gst_test_needs=$states
. "${srcdir:-.}/tests/gst-test-env.sh"
GST_GL_API=opengl3
export GST_GL_API

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
# The metadata: an author with where to write, an origin that is a URL
# (configure.ac's AC_INIT).
grep -Eq '^ *Author +[^<]+ <https?://[^ >]+>$' "$tmp/inspect.log" ||
	fail "gst-inspect-1.0: no author with a contact: $(grep Author "$tmp/inspect.log")"
grep -Eq '^ *Origin URL +https?://[^ ]+$' "$tmp/inspect.log" ||
	fail "gst-inspect-1.0: the origin is not a URL: $(grep Origin "$tmp/inspect.log")"

# The built-in invert on the formats other than RGBA runs the element's
# own kernels, and on BGRA, BGRx and RGBx the tools' filters, which only a
# build with nvcc has: without, the element must say so when it starts.
if ! grep -q '^#define HAVE_NVCC 1' ./config.h 2>/dev/null; then
	for format in NV12 P010_10LE RGB10A2_LE I420 BGRA BGRx RGBx; do
		run finv videotestsrc num-buffers=4 ! \
			video/x-raw,format=$format,width=64,height=48 ! glupload ! \
			glcudafilter filter=invert ! fakesink
		grep -q "ERROR: from element .*glcudafilter0: .*needs CUDA kernels" "$tmp/finv.log" ||
			{ fail "$format: filter=invert without kernels: no element error"; cat "$tmp/finv.log" >&2; }
	done
fi

# Caps glcudafilter cannot handle are refused when linking: formats and
# targets it does not take, and formats the configured filter does not
# run on (blur, unsharp and grade on 8-bit RGB only).
for caps in 'format=ARGB' 'texture-target=rectangle' 'format=ARGB64'; do
	run caps $src ! glupload ! glcolorconvert ! "video/x-raw(memory:GLMemory),$caps" ! \
		glcudafilter ! fakesink
	grep -q "could not link.*glcudafilter0.*can't handle caps" "$tmp/caps.log" ||
		fail "caps $caps: not refused"
done
for args in 'filter=blur NV12' 'filter=grade P010_10LE' 'filter=unsharp RGB10A2_LE' \
	'filter=grade I420'; do
	run caps videotestsrc num-buffers=1 ! "video/x-raw,format=${args##* }" ! glupload ! \
		"video/x-raw(memory:GLMemory),format=${args##* }" ! glcudafilter ${args% *} ! fakesink
	grep -q "could not link.*glcudafilter0.*can't handle caps" "$tmp/caps.log" ||
		{ fail "glcudafilter $args: not refused"; cat "$tmp/caps.log" >&2; }
done

# GST_DEBUG=glcudafilter:5: one line per frame with the GL thread's time
# per stage, and the GPU time of the CUDA work, read without waiting (so
# a frame whose work is not done by the next one goes untimed; the last
# is read when the element stops). Lines, not values.
if ! GST_DEBUG=glcudafilter:5 GST_DEBUG_NO_COLOR=1 run timing videotestsrc num-buffers=4 ! \
	video/x-raw,format=NV12,width=64,height=48 ! glupload ! glcudafilter ! gldownload ! fakesink; then
	fail "GST_DEBUG=glcudafilter:5"
	cat "$tmp/timing.log" >&2
else
	lines=$(grep -cE 'frame [0-9]+: GL thread [0-9.]+ ms: inputs [0-9.]+ \(copied\), to CUDA' "$tmp/timing.log")
	gpu=$(grep -cE 'frame [0-9]+: CUDA work [0-9.]+ ms on the GPU' "$tmp/timing.log")
	[ "$lines" -eq 4 ] && [ "$gpu" -ge 1 ] ||
		fail "GST_DEBUG=glcudafilter:5: $lines frames' stage timings (not 4), $gpu GPU times"
fi

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

# The fake runs ring_transform's CPU invert whatever the module holds.
echo "any module" > "$tmp/kernel.ptx"
bgra='videotestsrc num-buffers=4 pattern=smpte ! video/x-raw,format=BGRA,width=64,height=48'
rgba_gl='video/x-raw(memory:GLMemory),format=RGBA'

# NULL <-> PLAYING, five times, with the copy, the kernel and the pools,
# under GStreamer's leaks tracer: a buffer, memory or pool (each pooled
# memory holds an image) still alive at gst_deinit() is printed as
# object-alive.
pooled="$bgra ! glupload ! glcolorconvert ! $rgba_gl ! glcudafilter kernel-name=ring_transform ptx-file=$tmp/kernel.ptx ! glcudafilter ! gldownload ! fakesink"
for pipeline in "$src ! glupload ! glcudafilter ! gldownload ! fakesink" \
	"$bgra ! glupload ! glcolorconvert ! video/x-raw(memory:GLMemory),format=NV12 ! glcudafilter ! glcudafilter ! gldownload ! fakesink" \
	"videotestsrc num-buffers=4 ! video/x-raw,format=P010_10LE,width=64,height=48 ! glupload ! glcudafilter ! glcudafilter ! gldownload ! fakesink" \
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

# QoS (qos=true): the sink finds buffers late (identity sleeps longer than
# a frame lasts) and sends QoS events upstream; GstBaseTransform drops late
# buffers before they reach the element's GL and CUDA work. Every buffer
# is either filtered or dropped (how many of each depends on timing, so
# neither is checked alone), in each of two runs, and nothing is left
# alive. glupload drops late buffers too, unless qos=false.
qos="videotestsrc num-buffers=30 ! video/x-raw,format=NV12,width=64,height=48,framerate=100/1 ! glupload qos=false ! glcudafilter name=f qos=true ! identity sleep-time=30000 ! gldownload ! fakesink sync=true qos=true"
if ! GST_TRACERS=leaks GST_DEBUG=GST_TRACER:7 GST_DEBUG_NO_COLOR=1 \
	"$states" 2 "$qos" > "$tmp/qos.log" 2>&1; then
	fail "qos=true"
	grep -v GST_TRACER "$tmp/qos.log" >&2
else
	sums=$(sed -n 's/^f: glcudafilter-stats, frames=(guint64)\([0-9]*\),.*/\1/p; s/^f: qos-dropped=\([0-9]*\)$/\1/p' \
		"$tmp/qos.log" | paste -d+ - - | bc | tr '\n' ' ')
	[ "$sums" = "30 30 " ] ||
		fail "qos=true: frames filtered + dropped per run are '$sums', not 30 each: $(grep '^f: ' "$tmp/qos.log" | tr '\n' ' ')"
	grep -q 'object-alive, type-name=(string)[A-Za-z]' "$tmp/qos.log" &&
		fail "qos=true leaves objects alive: $(grep 'object-alive, type-name=(string)[A-Za-z]' "$tmp/qos.log")"
	grep '^f: qos-dropped' "$tmp/qos.log" | tr '\n' ' '
	echo
fi

# route=auto tries to register a texture that is not a pool's wherever
# the driver offers GL interop (the cheapest route on NVIDIA:
# doc/gstreamer.md, "Other textures") and copies where the registration is
# refused, saying so at the INFO level, not as a warning; route=copy never
# tries. GLCUDA_FAKE_CUDA_GL_INTEROP=1 makes the fake offer GL textures
# among the kinds glcuda wraps, then refuse the registration, as the real
# driver refuses RGB10A2's textures.
for route in auto copy; do
	(
		GLCUDA_FAKE_CUDA_GL_INTEROP=1 GST_DEBUG=glcudafilter:4 GST_DEBUG_NO_COLOR=1
		export GLCUDA_FAKE_CUDA_GL_INTEROP GST_DEBUG GST_DEBUG_NO_COLOR
		run route-$route $src ! glupload ! glcudafilter route=$route \
			kernel-name=ring_transform ptx-file="$tmp/kernel.ptx" ! fakesink
	)
	rc=$?
	tried=$(grep -c 'cannot wrap GL texture' "$tmp/route-$route.log")
	warned=$(grep 'cannot wrap GL texture' "$tmp/route-$route.log" | grep -c ' WARN ')
	want=0
	[ $route = auto ] && want=1
	if [ $rc -ne 0 ] || [ "$tried" -ne $want ] || [ "$warned" -ne 0 ]; then
		fail "route=$route, GL interop offered and refused: exit status $rc, $tried refusals logged (want $want), $warned of them warnings (want 0)"
		grep -E 'cannot wrap|ERROR|WARN' "$tmp/route-$route.log" | head -n 10 >&2
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
echo "PASS: glcudafilter: gst-inspect-1.0, caps refusal, timings, errors, state changes, qos"
exit 0
