#!/bin/sh
# The GStreamer plugin (gst/, element glcudafilter) on Mesa and the fake
# CUDA driver (tests/fake-cuda), as CI runs it: GStreamer's GL on the EGL
# device platform without a window system, glcuda in the cpu sync mode.
# Pixels: filter=none against the same pipeline without the filter, byte
# for byte, on desktop GL and GLES; kernel-name=ring_transform (the fake
# runs a CPU invert for that name) against the inverse; NV12, I420,
# P010_10LE, RGB10A2_LE, BGRA, BGRx and RGBx (one texture per plane) with
# none, the built-in invert (CPU versions of the element's kernels and of
# the tools' filters in the fake) and a kernel of the user's run once per
# plane (invert_planes) against the inverse computed here; BGRA, BGRx and
# RGBx at an odd size through every filter against RGBA through the same
# filter, colours in the format's order. The buffer pool:
# glcudafilter offers upstream a pool of glcuda images (an allocation query
# answered on its sink pad), glcolorconvert renders into it, a glcudafilter
# before another outputs into the other's, and the stats property counts
# the frames that took the pooled route; pixels as above. Also caps
# refusal, the element errors without CUDA (no driver, a device that is
# not GL's), NULL <-> PLAYING repeated (with GStreamer's leaks tracer, and
# under valgrind where it is installed), qos=true, the per-frame timings
# of GST_DEBUG=glcudafilter:5, and gst-inspect-1.0. Run from the build directory after make check.
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
# The metadata: an author with where to write, an origin that is a URL
# (configure.ac's AC_INIT).
grep -Eq '^ *Author +[^<]+ <https?://[^ >]+>$' "$tmp/inspect.log" ||
	fail "gst-inspect-1.0: no author with a contact: $(grep Author "$tmp/inspect.log")"
grep -Eq '^ *Origin URL +https?://[^ ]+$' "$tmp/inspect.log" ||
	fail "gst-inspect-1.0: the origin is not a URL: $(grep Origin "$tmp/inspect.log")"

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
# check_chain NAME API LABEL SRC FILTER REF: two glcudafilters in a row
# (a, then b, each with FILTER, an invert) on SRC ! glupload with GL API
# API: the first copies glupload's texture in (a plain GL texture) and
# outputs into the second's pool, whose buffers are glcuda images (per
# plane); twice inverted is the input, REF.
check_chain() {
	name=$1 label=$3 csrc=$4 cfilter=$5 cref=$6
	if ! GST_GL_API=$2 "$states" 1 "$csrc ! glupload ! glcudafilter name=a $cfilter ! \
		glcudafilter name=b $cfilter ! gldownload ! filesink location=$tmp/$name.raw" \
		> "$tmp/$name.log" 2>&1; then
		fail "$label: two glcudafilters"
		cat "$tmp/$name.log" >&2
	else
		check_stats "$name" a frames=4 input-copied=4 output-pooled=4
		check_stats "$name" b frames=4 input-pooled=4 output-pooled=4
		cmp "$cref" "$tmp/$name.raw" || fail "$label: two inverts are not the input"
	fi
}
check_chain chain opengl3 RGBA "$src" "kernel-name=ring_transform ptx-file=$tmp/kernel.ptx" \
	"$tmp/ref-opengl3.raw"

# The formats other than RGBA: NV12, I420 and P010_10LE as one texture
# per plane (R8 and RG8 at half size; three R8; R16 and RG16), RGB10A2_LE,
# BGRA, BGRx and RGBx as one. The built-in invert runs the element's own
# kernels on the first four, the tools' filters on the others (the fake
# runs CPU versions of both by name), which only a build with nvcc has:
# without, the element must say so when it starts. A kernel of the user's
# runs once per plane (gst/invert-planes.cu, doc/gstreamer.md's example,
# inverts as the built-in invert does; the fake runs it by name).
if grep -q '^#define HAVE_NVCC 1' ./config.h 2>/dev/null; then
	have_kernels=yes
else
	have_kernels=no
	echo "filter=invert on NV12, P010_10LE and RGB10A2_LE left out: built without nvcc"
fi
# check_planes NAME FORMAT REF OUT: OUT is REF inverted as FORMAT's invert
# does it (tests/gst-invert-words.sh), every word.
. "${srcdir:-.}/tests/gst-invert-words.sh"
check_planes() {
	invert_words "$2"
	od -An -v -tu$size -w$size "$3" > "$tmp/ref.txt"
	od -An -v -tu$size -w$size "$4" > "$tmp/out.txt"
	bad=$(paste "$tmp/ref.txt" "$tmp/out.txt" | awk "NF != 2 || !($expr) { bad++ } END { print bad + 0 }")
	words=$(wc -l < "$tmp/ref.txt")
	if [ "$words" -eq 0 ] || [ "$words" -ne $(($(stat -c %s "$4") / size)) ] || [ "$bad" -ne 0 ]; then
		fail "$1: $bad of $words words are not the inverse"
	fi
}
for api in opengl3 gles2; do
	for format in NV12 P010_10LE RGB10A2_LE I420 BGRA BGRx RGBx; do
		fsrc="videotestsrc num-buffers=4 pattern=smpte ! video/x-raw,format=$format,width=64,height=48"
		label="$api $format"
		if [ $api = gles2 ] && [ $format = P010_10LE ]; then
			# GstGL on GLES reads back no 16-bit texture but
			# RGBA16 (gldownload fails): no pixels, the frames.
			if ! GST_GL_API=$api "$states" 1 "$fsrc ! glupload ! glcudafilter name=a ! \
				glcudafilter name=b ! fakesink" > "$tmp/fgles.log" 2>&1; then
				fail "$label: two glcudafilters"
				cat "$tmp/fgles.log" >&2
			else
				check_stats fgles b frames=4 input-pooled=4
			fi
			continue
		fi
		if ! GST_GL_API=$api run fref $fsrc ! glupload ! gldownload ! \
			filesink location="$tmp/fref.raw" || [ ! -s "$tmp/fref.raw" ]; then
			fail "$label: the reference pipeline without the filter"
			continue
		fi
		if ! GST_GL_API=$api run fnone $fsrc ! glupload ! glcudafilter filter=none ! \
			gldownload ! filesink location="$tmp/fnone.raw"; then
			fail "$label: filter=none"
			cat "$tmp/fnone.log" >&2
		elif ! cmp "$tmp/fref.raw" "$tmp/fnone.raw"; then
			fail "$label: filter=none changed the pixels"
		fi
		if [ $have_kernels = no ]; then
			GST_GL_API=$api run finv $fsrc ! glupload ! glcudafilter filter=invert ! fakesink
			grep -q "ERROR: from element .*glcudafilter0: .*needs CUDA kernels" "$tmp/finv.log" ||
				{ fail "$label: filter=invert without kernels: no element error"; cat "$tmp/finv.log" >&2; }
			continue
		fi
		if ! GST_GL_API=$api run finv $fsrc ! glupload ! glcudafilter filter=invert ! \
			gldownload ! filesink location="$tmp/finv.raw"; then
			fail "$label: filter=invert"
			cat "$tmp/finv.log" >&2
		else
			check_planes "$label: filter=invert" $format "$tmp/fref.raw" "$tmp/finv.raw"
		fi
		if ! GST_GL_API=$api run fkern $fsrc ! glupload ! glcudafilter \
			kernel-name=invert_planes ptx-file="$tmp/kernel.ptx" ! \
			gldownload ! filesink location="$tmp/fkern.raw"; then
			fail "$label: kernel-name=invert_planes"
			cat "$tmp/fkern.log" >&2
		else
			check_planes "$label: kernel-name=invert_planes, once per plane" $format \
				"$tmp/fref.raw" "$tmp/fkern.raw"
		fi
		check_chain fchain-$api-$format $api "$label" "$fsrc" filter=invert "$tmp/fref.raw"
	done
	# glcolorconvert renders NV12 into the pool (it does not convert to
	# P010_10LE or RGB10A2_LE): both planes of input and output pooled.
	nv12_gl='video/x-raw(memory:GLMemory),format=NV12'
	GST_GL_API=$api run nref $bgra ! glupload ! glcolorconvert ! "$nv12_gl" ! \
		gldownload ! filesink location="$tmp/nref.raw" ||
		fail "$api: the NV12 reference pipeline with glcolorconvert"
	[ $have_kernels = yes ] || continue
	if ! GST_GL_API=$api "$states" 1 "$bgra ! glupload ! glcolorconvert ! $nv12_gl ! \
		glcudafilter name=f filter=invert ! gldownload ! filesink location=$tmp/ninv.raw" \
		> "$tmp/ninv.log" 2>&1; then
		fail "$api: pooled NV12 invert"
		cat "$tmp/ninv.log" >&2
	else
		check_stats ninv f frames=4 input-pooled=4 output-pooled=4
		check_planes "$api: pooled NV12 invert" NV12 "$tmp/nref.raw" "$tmp/ninv.raw"
	fi
done

# BGRA, BGRx and RGBx through every filter, at an odd size, pixel for
# pixel against RGBA through the same filter (its colours in the
# format's order: grade grades the same colours), byte 3 (alpha or x,
# filtered as alpha is) against the format's own input (the source's
# alpha and x are uniform: the blur keeps them).
# check_order NAME FORMAT IN RGBA_OUT OUT
check_order() {
	case $2 in
	BGRA | BGRx) expr='$9 == $7 && $10 == $6 && $11 == $5' ;;
	*) expr='$9 == $5 && $10 == $6 && $11 == $7' ;;
	esac
	od -An -v -tu1 -w4 "$3" > "$tmp/oin.txt"
	od -An -v -tu1 -w4 "$4" > "$tmp/orgba.txt"
	od -An -v -tu1 -w4 "$5" > "$tmp/oout.txt"
	bad=$(paste "$tmp/oin.txt" "$tmp/orgba.txt" "$tmp/oout.txt" |
		awk "NF != 12 || !($expr && \$12 == \$4) { bad++ } END { print bad + 0 }")
	pixels=$(wc -l < "$tmp/oin.txt")
	if [ "$pixels" -ne $((33 * 17 * 2)) ] || [ "$bad" -ne 0 ]; then
		fail "$1: $bad of $pixels pixels differ from RGBA's"
	fi
}
if [ $have_kernels = yes ]; then
	osrc='videotestsrc num-buffers=2 pattern=smpte ! video/x-raw,width=33,height=17'
	for filter in none invert grade blur unsharp; do
		run orgba $osrc,format=RGBA ! glupload ! glcudafilter filter=$filter ! gldownload ! \
			filesink location="$tmp/orgba.raw" || { fail "RGBA: filter=$filter"; continue; }
		for format in BGRA BGRx RGBx; do
			run oref $osrc,format=$format ! glupload ! gldownload ! \
				filesink location="$tmp/oref.raw" ||
				{ fail "$format: the reference pipeline"; continue; }
			if ! run oout $osrc,format=$format ! glupload ! glcudafilter filter=$filter ! \
				gldownload ! filesink location="$tmp/oout.raw"; then
				fail "$format: filter=$filter"
				cat "$tmp/oout.log" >&2
				continue
			fi
			check_order "$format 33x17: filter=$filter" $format "$tmp/oref.raw" \
				"$tmp/orgba.raw" "$tmp/oout.raw"
		done
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
echo "PASS: glcudafilter: pixels (GL, GLES, kernel, NV12, I420, P010_10LE, RGB10A2_LE, BGRA, BGRx, RGBx), the buffer pool, caps refusal, errors, state changes"
exit 0
