#!/bin/bash
# Run glcudafilter on the GPU machine with the tree scripts/gst-gpu-build.sh
# made, from the project root:
#
#     scripts/gst-gpu-test.sh [--unpack]
#
# --unpack  first unpack .gl/*.deb into / (GLVND's libEGL and libGL,
#           libepoxy: what glcuda needs and the machine lacks), as
#           scripts/gpu-test.sh does; needs root. GStreamer itself stays in
#           build-gst-gpu/stage (scripts/gst-gpu-env.sh points at it).
#
# Checks, on desktop GL (opengl3) and GLES (gles2): gst-inspect-1.0
# glcudafilter; filter=invert on 600 frames of a moving pattern, every
# pixel against the inverse of the same pipeline without the filter, and
# with route=auto, copy and wrap (the stats: wrapped, copied, wrapped on
# desktop GL; every format but RGB10A2_LE, which CUDA does not register,
# wrapped with route=wrap there too);
# filter=none byte for byte; glcolorconvert rendering into the element's
# buffer pool (input and output pooled: the stats say so) with invert
# checked; three glcudafilters in a row (invert, invert, invert) against
# the inverse; blur at 1920x1080 to EOS. NV12, I420, P010_10LE,
# RGB10A2_LE, BGRA, BGRx and RGBx (one texture per plane: R8 + RG8, three
# R8, R16 + RG16, RGB10_A2, RGBA8): filter=none byte for byte,
# filter=invert (the element's own kernels; common/filters.cu's on the
# 8-bit RGB formats) and examples/gstreamer/invert-planes.cu (a kernel
# of the user's, run once per plane, built by scripts/gst-gpu-build.sh) every plane against
# the inverse computed here, two inverts in a row (the second's pool)
# against the input, NV12 from glcolorconvert into the pool; P010_10LE on
# GLES in frames only (GstGL does not read 16-bit planes back there).
# BGRA, BGRx and RGBx through every filter (none, invert, grade, blur,
# unsharp) at 640x360 and at 33x17, pixel for pixel against RGBA through
# the same filter: bytes 0 and 2 swapped for BGR (grade grades the same
# colours), byte 3 (alpha or x) the format's own input's.
# CUDA memory on either pad against gldownload (every format), cudaconvert
# and cudascale after the element, one CUDA context, compute-sanitizer
# memcheck (not with GST_GPU_FAKE).
# Kernel files the driver judges (desktop GL, not with GST_GPU_FAKE): an
# empty one, garbage as ptx-file and cubin-file, a kernel name the module
# lacks, and a kernel of another signature, each an element error with
# CUDA's reason. The last faults its CUDA context on purpose and runs
# last: on the H200 (driver 580) the fault leaves the graphics engine
# unable to switch contexts (Xid 109 in the kernel log), and glcudafilter
# pipelines of later processes hang at their first frame until the GPU is
# reset (doc/performance.md); run benchmarks before this script, not
# after it.
# GST_GPU_APIS="opengl3" (or "gles2") runs the per-API checks on one API
# only (default both; "none": on neither). GST_GPU_COMMON=no leaves out the checks that run
# on desktop GL whatever the API (CUDA memory, the kernel files), for a run
# split in two by API.
# Logs and the stats go to
# ${OUT:-build-gst-gpu}/gst-logs/. The last line says "N passed, N failed, N skipped";
# the exit status is non-zero if any check failed.
#
# With GST_GPU_FAKE=/path/to/libfakecuda.so it runs on the development
# machine (Mesa and the fake CUDA driver, which runs CPU versions of the
# kernels it knows by name: ring_transform, an invert, the element's own,
# common/filters.cu's on 8-bit RGB, invert_planes): RGBA's invert is
# ring_transform, the 1920x1080 blur is left out.
# SPDX-License-Identifier: MIT
set -uo pipefail

if [ "${1:-}" = --unpack ]; then
	scripts/gpu-unpack.sh || exit 2
	shift
fi
. scripts/gst-gpu-env.sh
trap 'rm -rf "$gst_tmp"' EXIT
tmp=$gst_tmp
logdir=${OUT:-$(pwd)/build-gst-gpu}/gst-logs
mkdir -p "$logdir"

# shellcheck source=scripts/gpu-verdicts.sh
. "$(dirname "$0")/gpu-verdicts.sh"

if [ -n "${GST_GPU_FAKE:-}" ]; then
	echo "any module" > "$tmp/kernel.ptx"
	invert="glcudafilter kernel-name=ring_transform ptx-file=$tmp/kernel.ptx"
	echo "fake CUDA driver $GST_GPU_FAKE (GL device $GLCUDA_FAKE_CUDA_UUID): invert is its CPU ring_transform, blur left out"
else
	invert="glcudafilter filter=invert"
fi

# run NAME PIPELINE: gst-states (gst-launch-1.0 that prints glcudafilter's
# stats after EOS), output in $logdir/NAME.log.
# A GLib critical warning in the output fails it too.
run() {
	local name=$1
	shift
	gst-states 1 "$*" > "$logdir/$name.log" 2>&1 &&
		! grep -q -- '-CRITICAL \*\*' "$logdir/$name.log"
}
# inverse NAME REF OUT: OUT is REF with RGB inverted and alpha kept, every
# pixel; REF not empty.
inverse() {
	local bad pixels
	if [ ! -s "$2" ] || [ ! -s "$3" ]; then
		fail "$1: no frames"
		return
	fi
	bad=$(paste <(od -An -v -tu1 -w4 "$2") <(od -An -v -tu1 -w4 "$3") | awk '
		NF != 8 || $5 != 255 - $1 || $6 != 255 - $2 || $7 != 255 - $3 || $8 != $4 { bad++ }
		END { print bad + 0 }')
	pixels=$(($(stat -c %s "$2") / 4))
	if [ "$bad" -ne 0 ]; then
		fail "$1: $bad of $pixels pixels are not the inverse"
	else
		pass "$1: $pixels pixels inverted"
	fi
}
# planes_inverse NAME FORMAT REF OUT: OUT is REF inverted as the element's
# invert does FORMAT (tests/gst-invert-words.sh), every word of every plane.
# shellcheck source=tests/gst-invert-words.sh
. "$(dirname "$0")/../tests/gst-invert-words.sh"
planes_inverse() {
	local size expr bad words
	invert_words "$2"
	if [ ! -s "$3" ] || [ ! -s "$4" ]; then
		fail "$1: no frames"
		return
	fi
	bad=$(paste <(od -An -v -tu$size -w$size "$3") <(od -An -v -tu$size -w$size "$4") |
		awk "NF != 2 || !($expr) { bad++ } END { print bad + 0 }")
	words=$(($(stat -c %s "$3") / size))
	if [ "$bad" -ne 0 ] || [ "$(stat -c %s "$4")" -ne "$(stat -c %s "$3")" ]; then
		fail "$1: $bad of $words words are not the inverse"
	else
		pass "$1: $words words inverted"
	fi
}
# same_as_rgba NAME FORMAT IN RGBA_OUT OUT: OUT (FORMAT through a filter)
# is RGBA_OUT (the same picture in RGBA through the same filter) in
# FORMAT's order, bytes 0 and 2 swapped for BGRA and BGRx, and byte 3 (alpha
# or x) IN's (FORMAT's input), every pixel.
same_as_rgba() {
	local expr bad pixels
	case $2 in
	BGRA | BGRx) expr='$9 == $7 && $10 == $6 && $11 == $5 && $12 == $4' ;;
	*) expr='$9 == $5 && $10 == $6 && $11 == $7 && $12 == $4' ;;
	esac
	if [ ! -s "$3" ] || [ ! -s "$4" ] || [ ! -s "$5" ]; then
		fail "$1: no frames"
		return
	fi
	bad=$(paste <(od -An -v -tu1 -w4 "$3") <(od -An -v -tu1 -w4 "$4") <(od -An -v -tu1 -w4 "$5") |
		awk "NF != 12 || !($expr) { bad++ } END { print bad + 0 }")
	pixels=$(($(stat -c %s "$3") / 4))
	if [ "$bad" -ne 0 ]; then
		fail "$1: $bad of $pixels pixels differ from RGBA's"
	else
		pass "$1: $pixels pixels as RGBA's"
	fi
}
# stats NAME ELEMENT FIELD=VALUE...: ELEMENT's stats in NAME's log.
stats() {
	local name=$1 log=$logdir/$1.log element=$2 field line
	shift 2
	line=$(grep "^$element: glcudafilter-stats" "$log")
	for field in "$@"; do
		if ! grep -q "${field%%=*}=(guint64)${field#*=}[,;]" <<< "$line"; then
			fail "$name: $element: not $field: $line"
			return
		fi
	done
	pass "$name: $element: $*"
}

if gst-inspect-1.0 glcudafilter > "$logdir/inspect.log" 2>&1 && grep -q stats "$logdir/inspect.log"; then
	pass "gst-inspect-1.0 glcudafilter"
else
	fail "gst-inspect-1.0 glcudafilter (see $logdir/inspect.log)"
fi
gst-inspect-1.0 nvcodec > "$logdir/inspect-nvcodec.log" 2>&1
echo "nvcodec elements: $(awk '/^  [a-z0-9]+: /{ sub(":", "", $1); printf "%s ", $1 }' \
	"$logdir/inspect-nvcodec.log")"

# examples/gstreamer/invert-planes.cu, built by scripts/gst-gpu-build.sh
# (the fake loads any module and runs its CPU version by name).
planes_kernel=$gst_stage/bin/invert-planes.fatbin
if [ ! -s "$planes_kernel" ]; then
	if [ -n "${GST_GPU_FAKE:-}" ]; then
		echo "any module" > "$tmp/planes.fatbin"
		planes_kernel=$tmp/planes.fatbin
	else
		fail "no $planes_kernel: run scripts/gst-gpu-build.sh (with nvcc) again"
	fi
fi
planes="glcudafilter cubin-file=$planes_kernel kernel-name=invert_planes"

moving='videotestsrc num-buffers=600 pattern=ball ! video/x-raw,format=RGBA,width=160,height=120'
bgra='videotestsrc num-buffers=30 pattern=smpte ! video/x-raw,format=BGRA,width=320,height=240'
rgba_gl='video/x-raw(memory:GLMemory),format=RGBA'
apis=${GST_GPU_APIS:-opengl3 gles2}
[ "$apis" = none ] && apis=
for api in $apis; do
	export GST_GL_API=$api
	if ! run ref-$api "$moving ! glupload ! gldownload ! filesink location=$tmp/ref.raw"; then
		fail "$api: the reference pipeline (see $logdir/ref-$api.log)"
		continue
	fi
	if run invert-$api "$moving ! glupload ! $invert name=f ! gldownload ! filesink location=$tmp/out.raw"; then
		inverse "$api: invert, 600 frames" "$tmp/ref.raw" "$tmp/out.raw"
		stats invert-$api f frames=600
	else
		fail "$api: invert (see $logdir/invert-$api.log)"
	fi
	# The route property on glupload's textures (not a pool's): copied
	# with copy; wrapped with auto and wrap where the driver registers
	# GL textures (desktop GL here; on GLES either, never pooled; the
	# fake registers none: copied).
	for route in auto copy wrap; do
		took=input-copied=600
		if [ $route != copy ] && [ -z "${GST_GPU_FAKE:-}" ]; then
			took=input-wrapped=600
			[ $api = gles2 ] && took=input-pooled=0
		fi
		if run route-$route-$api "$moving ! glupload ! $invert name=f route=$route ! gldownload ! filesink location=$tmp/out.raw"; then
			inverse "$api: route=$route, 600 frames" "$tmp/ref.raw" "$tmp/out.raw"
			stats route-$route-$api f frames=600 $took output-pooled=600
		else
			fail "$api: route=$route (see $logdir/route-$route-$api.log)"
		fi
	done
	if run none-$api "$moving ! glupload ! glcudafilter filter=none ! gldownload ! filesink location=$tmp/out.raw" &&
	   cmp -s "$tmp/ref.raw" "$tmp/out.raw"; then
		pass "$api: filter=none, byte for byte"
	else
		fail "$api: filter=none (see $logdir/none-$api.log)"
	fi
	if run chain-$api "$moving ! glupload ! $invert name=a ! $invert name=b ! $invert name=c ! gldownload ! filesink location=$tmp/out.raw"; then
		inverse "$api: three glcudafilters" "$tmp/ref.raw" "$tmp/out.raw"
		stats chain-$api b frames=600 input-pooled=600 output-pooled=600
		stats chain-$api c frames=600 input-pooled=600 output-pooled=600
	else
		fail "$api: three glcudafilters (see $logdir/chain-$api.log)"
	fi
	# glcolorconvert renders into the element's pool.
	if run pref-$api "$bgra ! glupload ! glcolorconvert ! $rgba_gl ! gldownload ! filesink location=$tmp/ref.raw" &&
	   run pool-$api "$bgra ! glupload ! glcolorconvert ! $rgba_gl ! $invert name=f ! gldownload ! filesink location=$tmp/out.raw"; then
		inverse "$api: pooled invert" "$tmp/ref.raw" "$tmp/out.raw"
		stats pool-$api f frames=30 input-pooled=30 output-pooled=30
	else
		fail "$api: pooled invert (see $logdir/pool-$api.log)"
	fi
	for format in NV12 P010_10LE RGB10A2_LE I420 BGRA BGRx RGBx; do
		fsrc="videotestsrc num-buffers=300 pattern=ball ! video/x-raw,format=$format,width=160,height=120"
		if [ $api = gles2 ] && [ $format = P010_10LE ]; then
			if run $format-$api "$fsrc ! glupload ! glcudafilter name=a filter=invert ! glcudafilter name=b filter=none ! fakesink"; then
				stats $format-$api a frames=300 output-pooled=300
				stats $format-$api b frames=300 input-pooled=300
			else
				fail "$api $format: two glcudafilters (see $logdir/$format-$api.log)"
			fi
			continue
		fi
		if ! run $format-ref-$api "$fsrc ! glupload ! gldownload ! filesink location=$tmp/ref.raw"; then
			fail "$api $format: the reference pipeline (see $logdir/$format-ref-$api.log)"
			continue
		fi
		if run $format-none-$api "$fsrc ! glupload ! glcudafilter name=f filter=none ! gldownload ! filesink location=$tmp/out.raw" &&
		   cmp -s "$tmp/ref.raw" "$tmp/out.raw"; then
			pass "$api $format: filter=none, byte for byte"
		else
			fail "$api $format: filter=none (see $logdir/$format-none-$api.log)"
		fi
		if run $format-invert-$api "$fsrc ! glupload ! glcudafilter name=f filter=invert ! gldownload ! filesink location=$tmp/out.raw"; then
			planes_inverse "$api $format: invert, 300 frames" $format "$tmp/ref.raw" "$tmp/out.raw"
			stats $format-invert-$api f frames=300 output-pooled=300
		else
			fail "$api $format: invert (see $logdir/$format-invert-$api.log)"
		fi
		# route=wrap: every plane wrapped, but RGB10A2_LE's, which
		# CUDA does not register (copied, said once); desktop GL.
		if [ $api = opengl3 ] && [ -z "${GST_GPU_FAKE:-}" ]; then
			took=input-wrapped=300
			[ $format = RGB10A2_LE ] && took=input-copied=300
			if run $format-wrap-$api "$fsrc ! glupload ! glcudafilter name=f route=wrap filter=invert ! gldownload ! filesink location=$tmp/out.raw"; then
				planes_inverse "$api $format: route=wrap, invert" $format "$tmp/ref.raw" "$tmp/out.raw"
				stats $format-wrap-$api f frames=300 $took
			else
				fail "$api $format: route=wrap (see $logdir/$format-wrap-$api.log)"
			fi
		fi
		if [ -s "$planes_kernel" ] &&
		   run $format-planes-$api "$fsrc ! glupload ! $planes name=f ! gldownload ! filesink location=$tmp/out.raw"; then
			planes_inverse "$api $format: invert_planes once per plane" $format "$tmp/ref.raw" "$tmp/out.raw"
		else
			fail "$api $format: invert_planes (see $logdir/$format-planes-$api.log)"
		fi
		if run $format-chain-$api "$fsrc ! glupload ! glcudafilter name=a filter=invert ! glcudafilter name=b filter=invert ! gldownload ! filesink location=$tmp/out.raw" &&
		   cmp -s "$tmp/ref.raw" "$tmp/out.raw"; then
			pass "$api $format: two inverts are the input"
			stats $format-chain-$api b frames=300 input-pooled=300 output-pooled=300
		else
			fail "$api $format: two inverts (see $logdir/$format-chain-$api.log)"
		fi
	done
	nv12_gl='video/x-raw(memory:GLMemory),format=NV12'
	if run nv12-pref-$api "$bgra ! glupload ! glcolorconvert ! $nv12_gl ! gldownload ! filesink location=$tmp/ref.raw" &&
	   run nv12-pool-$api "$bgra ! glupload ! glcolorconvert ! $nv12_gl ! glcudafilter name=f filter=invert ! gldownload ! filesink location=$tmp/out.raw"; then
		planes_inverse "$api: pooled NV12 invert" NV12 "$tmp/ref.raw" "$tmp/out.raw"
		stats nv12-pool-$api f frames=30 input-pooled=30 output-pooled=30
	else
		fail "$api: pooled NV12 invert (see $logdir/nv12-pool-$api.log)"
	fi
	for size in 640x360 33x17; do
		osrc="videotestsrc num-buffers=4 pattern=smpte ! video/x-raw,width=${size%x*},height=${size#*x}"
		for filter in none invert grade blur unsharp; do
			if ! run order-rgba-$api "$osrc,format=RGBA ! glupload ! glcudafilter filter=$filter ! gldownload ! filesink location=$tmp/orgba.raw"; then
				fail "$api RGBA $size: filter=$filter (see $logdir/order-rgba-$api.log)"
				continue
			fi
			for format in BGRA BGRx RGBx; do
				if run order-ref-$api "$osrc,format=$format ! glupload ! gldownload ! filesink location=$tmp/oref.raw" &&
				   run order-$format-$api "$osrc,format=$format ! glupload ! glcudafilter filter=$filter ! gldownload ! filesink location=$tmp/oout.raw"; then
					same_as_rgba "$api $format $size: filter=$filter" $format "$tmp/oref.raw" \
						"$tmp/orgba.raw" "$tmp/oout.raw"
				else
					fail "$api $format $size: filter=$filter (see $logdir/order-$format-$api.log)"
				fi
			done
		done
	done
	if [ -z "${GST_GPU_FAKE:-}" ]; then
		if run blur-$api "videotestsrc num-buffers=60 ! video/x-raw,format=RGBA,width=1920,height=1080 ! glupload ! glcudafilter name=f filter=blur ! fakesink"; then
			stats blur-$api f frames=60
		else
			fail "$api: blur (see $logdir/blur-$api.log)"
		fi
	fi
done

# CUDA memory (GStreamer's gstreamer-cuda-1.0, nvcodec's elements), where
# the plugin was built with it: for every format, at 160x120 and 1280x720:
# - glcudafilter ! video/x-raw(memory:CUDAMemory) ! cudadownload, byte for
#   byte against gldownload of the same frames, every frame's output
#   counted as the cuda route. cudadownload's buffers keep the rows of
#   the CUDA memory (cuMemAllocPitch's pitch: 1024 bytes for a row of 640
#   on the H200, and for planar formats more rows than the planes need),
#   which filesink would write with their padding: glupload ! gldownload
#   after it (the reference's own round trip, exact) packs them;
# - cudaupload ! glcudafilter ! gldownload likewise, the input cuda;
# - cudaconvert and cudascale after the element, where nvcodec has them,
#   byte for byte against the same conversion after cudaupload:
#   GStreamer 1.22 registers them only if NVRTC compiles its kernels for
#   compute_52, which NVRTC 13 refuses ("invalid value for
#   --gpu-architecture"); a 12 or older (gst-gpu-env.sh looks for one) is
#   needed, else the check is skipped, saying why;
# - one GstCudaContext in the pipeline: the element took one, and every
#   context GStreamer's CUDA library had made and not destroyed by then
#   (cudacontext's log) is that one;
# - compute-sanitizer memcheck over one such pipeline.
# same_as_ref NAME WHAT ROUTE PIPELINE: PIPELINE (element f) to a file is
# $tmp/ref.raw byte for byte, its 60 frames counted on ROUTE.
same_as_ref() {
	if run "$1" "$4 ! filesink location=$tmp/out.raw" && cmp -s "$tmp/ref.raw" "$tmp/out.raw"; then
		pass "$2, byte for byte as ${ref_name:-gldownload}"
		stats "$1" f frames=60 "$3=60"
	else
		fail "$2 (see $logdir/$1.log)"
	fi
}
common=${GST_GPU_COMMON:-yes}
if [ "$common" = yes ] && [ -z "${GST_GPU_FAKE:-}" ] && grep -q 'memory:CUDAMemory' "$logdir/inspect.log"; then
	export GST_GL_API=opengl3
	for format in RGBA BGRA BGRx RGBx RGB10A2_LE NV12 I420 P010_10LE; do
		for size in 160x120 1280x720; do
			csrc="videotestsrc num-buffers=60 pattern=ball ! video/x-raw,format=$format,width=${size%x*},height=${size#*x}"
			name=cuda-$format-$size
			if ! run $name-ref "$csrc ! glupload ! gldownload ! filesink location=$tmp/ref.raw"; then
				fail "$name: the reference pipeline (see $logdir/$name-ref.log)"
				continue
			fi
			same_as_ref $name-out "$format $size: GL to CUDA memory" output-cuda \
				"$csrc ! glupload ! glcudafilter name=f ! video/x-raw(memory:CUDAMemory) ! cudadownload ! glupload ! gldownload"
			same_as_ref $name-in "$format $size: cudaupload into the element" input-cuda \
				"$csrc ! cudaupload ! glcudafilter name=f ! gldownload"
		done
	done
	echo "NVRTC for cudaconvert and cudascale: ${GST_CUDA_NVRTC_LIBNAME:-none found}"
	if gst-inspect-1.0 cudaconvert > /dev/null 2>&1 && gst-inspect-1.0 cudascale > /dev/null 2>&1; then
		# After the element, against the same conversion of the same
		# frames put into CUDA memory by cudaupload: nvcodec's kernels
		# on the same bytes (glcudafilter's filter=none copies them
		# exactly). Packed by glupload ! gldownload, as above.
		ctxlog=cuda-convert
		csrc='videotestsrc num-buffers=60 pattern=ball ! video/x-raw,format=RGBA,width=1280,height=720'
		convert='cudaconvert ! video/x-raw(memory:CUDAMemory),format=NV12 ! cudascale ! video/x-raw(memory:CUDAMemory),width=640,height=360 ! cudadownload ! glupload ! gldownload'
		if run cuda-convert-ref "$csrc ! cudaupload ! $convert ! filesink location=$tmp/ref.raw"; then
			GST_DEBUG=cudacontext:5,glcudafilter:4 ref_name='cudaupload ! cudaconvert ! cudascale' \
				same_as_ref cuda-convert "glcudafilter ! cudaconvert ! cudascale (1280x720 RGBA to 640x360 NV12)" \
				output-cuda "$csrc ! glupload ! glcudafilter name=f ! video/x-raw(memory:CUDAMemory) ! $convert"
		else
			fail "cudaupload ! cudaconvert ! cudascale, the reference (see $logdir/cuda-convert-ref.log)"
		fi
	else
		# nvcodec registers them only where NVRTC compiled its kernels.
		GST_DEBUG=cudanvrtc:4 gst-inspect-1.0 nvcodec > "$logdir/nvcodec-inspect.log" 2>&1
		skip "cudaconvert and cudascale: nvcodec did not register them (NVRTC ${GST_CUDA_NVRTC_LIBNAME:-none}: $(grep -m1 -o 'nvrtc: error: .*' "$logdir/nvcodec-inspect.log" || echo 'no NVRTC'); GStreamer 1.22 needs NVRTC 12 or older)"
		# The context check on nvcodec's other elements: cudaupload
		# makes the pipeline's context, the element and cudadownload
		# take it.
		ctxlog=cuda-context
		GST_DEBUG=cudacontext:5,glcudafilter:4 run cuda-context "videotestsrc num-buffers=60 ! video/x-raw,format=NV12,width=1280,height=720 ! cudaupload ! glcudafilter name=f ! video/x-raw(memory:CUDAMemory) ! cudadownload ! fakesink" ||
			fail "cudaupload ! glcudafilter ! cudadownload (see $logdir/cuda-context.log)"
	fi
	# One context: the element took one context, and every context
	# GStreamer had made and not yet destroyed when the element took it
	# is that one (nvcodec makes one per device when its plugin loads, and
	# destroys it then); where the element shared its own, none.
	verdict=$(awk '
		function ptr(s) { match($0, s "0x[0-9a-f]+"); return substr($0, RSTART + length(s), RLENGTH - length(s)) }
		/Created CUDA context 0x/ { c = ptr("context "); alive[c] = 1; made = made " " c }
		/Destroying CUDA context 0x/ { delete alive[ptr("context ")] }
		/\(CUcontext 0x[0-9a-f]+\) from the pipeline/ { t = ptr("CUcontext ") }
		/sharing the glcuda device.s CUDA context 0x/ { t = ptr("context ") }
		t != "" {
			if (!(t in took)) { took[t] = 1; nt++; list = list " " t }
			if (!snap) { snap = 1; for (c in alive) live = live " " c }
			t = ""
		}
		END {
			ok = nt == 1; n = split(live, l, " ")
			for (i = 1; i <= n; i++) if (!(l[i] in took)) ok = 0
			printf "%s|%s|%s|%s", ok ? "ok" : "no", list, made, live
		}' "$logdir/$ctxlog.log")
	IFS='|' read -r ok took made live <<< "$verdict"
	if [ "$ok" = ok ]; then
		pass "one CUDA context in the pipeline:$took (GStreamer made:${made:- none}; alive when the element took it:${live:- none})"
	else
		fail "CUDA contexts: the element took:${took:- none}; GStreamer made:${made:- none}, alive then:${live:- none} (see $logdir/$ctxlog.log)"
	fi
	sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
	if [ -x "$sanitizer" ]; then
		if "$sanitizer" --tool memcheck --error-exitcode 99 --log-file "$logdir/cuda-memcheck.txt" \
			gst-launch-1.0 -q videotestsrc num-buffers=10 ! video/x-raw,format=NV12,width=320,height=240 ! \
			cudaupload ! glcudafilter filter=invert ! glcudafilter ! 'video/x-raw(memory:CUDAMemory)' ! \
			cudadownload ! fakesink > "$logdir/cuda-memcheck.log" 2>&1; then
			pass "compute-sanitizer memcheck: $(grep -m1 'ERROR SUMMARY' "$logdir/cuda-memcheck.txt")"
		else
			fail "compute-sanitizer memcheck (see $logdir/cuda-memcheck.txt)"
		fi
	else
		fail "no compute-sanitizer for the memcheck run"
	fi
elif [ "$common" = yes ] && [ -z "${GST_GPU_FAKE:-}" ]; then
	fail "glcudafilter has no CUDAMemory pads: build with gstreamer-cuda-1.0 (libgstreamer-plugins-bad1.0-dev)"
fi

# Kernel files the CUDA driver judges (the fake loads any module): each
# must be an element error of glcudafilter0 with CUDA's reason, never a
# crash or a hang. Garbage: cuModuleLoadData refuses it
# (CUDA_ERROR_INVALID_PTX or CUDA_ERROR_INVALID_IMAGE). A kernel whose
# argument is a pointer where the element passes the input's surface
# object: the launch succeeds, the kernel writes through the surface
# handle as an address (CUDA_ERROR_ILLEGAL_ADDRESS or, the handle being a
# small number, CUDA_ERROR_MISALIGNED_ADDRESS), and a later CUDA call of
# the element returns that error. An empty file is the element's
# own error ("is empty"), as on CI.
# kernel_error NAME PATTERN PIPELINE: the pipeline fails, with PATTERN
# (grep -E) in an error of glcudafilter0 (its message or debug text).
kernel_error() {
	local name=$1 pattern=$2
	shift 2
	if gst-launch-1.0 "$@" > "$logdir/$name.log" 2>&1; then
		fail "$name: the pipeline ran (see $logdir/$name.log)"
	elif grep -A2 'ERROR: from element .*GstGlcudaFilter:glcudafilter0: ' "$logdir/$name.log" |
		grep -qE "$pattern"; then
		pass "$name: $(grep -m1 'GstGlcudaFilter:glcudafilter0: ' "$logdir/$name.log" |
			sed 's/.*glcudafilter0: //')"
	else
		fail "$name: no error of glcudafilter0 matching $pattern (see $logdir/$name.log)"
	fi
}
if [ "$common" = yes ] && [ -z "${GST_GPU_FAKE:-}" ]; then
	export GST_GL_API=opengl3
	ksrc='videotestsrc num-buffers=30 ! video/x-raw,format=RGBA,width=160,height=120 ! glupload'
	: > "$tmp/empty.ptx"
	head -c 4096 /dev/urandom > "$tmp/garbage.ptx"
	printf 'this is not PTX\n' > "$tmp/text.ptx"
	cat > "$tmp/wrong.ptx" <<'PTX'
.version 7.0
.target sm_52
.address_size 64
.visible .entry wrong_signature(.param .u64 p)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, 0;
	st.global.u32 [%rd2], %r1;
	ret;
}
PTX
	kernel_error kernel-empty "the kernel file .* is empty" \
		$ksrc ! glcudafilter ptx-file="$tmp/empty.ptx" kernel-name=invert ! fakesink
	kernel_error kernel-garbage "cuModuleLoadData\(.*\): CUDA_ERROR_INVALID_(PTX|IMAGE|SOURCE)" \
		$ksrc ! glcudafilter ptx-file="$tmp/garbage.ptx" kernel-name=invert ! fakesink
	kernel_error kernel-text "cuModuleLoadData\(.*\): CUDA_ERROR_INVALID_(PTX|IMAGE|SOURCE)" \
		$ksrc ! glcudafilter ptx-file="$tmp/text.ptx" kernel-name=invert ! fakesink
	kernel_error kernel-garbage-cubin "cuModuleLoadData\(.*\): CUDA_ERROR_INVALID_(PTX|IMAGE|SOURCE)" \
		$ksrc ! glcudafilter cubin-file="$tmp/garbage.ptx" kernel-name=invert ! fakesink
	kernel_error kernel-wrong-name "cuModuleGetFunction\(invert\) in .*: CUDA_ERROR_NOT_FOUND" \
		$ksrc ! glcudafilter ptx-file="$tmp/wrong.ptx" kernel-name=invert ! fakesink
	kernel_error kernel-wrong-signature "CUDA_ERROR_(ILLEGAL_ADDRESS|MISALIGNED_ADDRESS|LAUNCH_FAILED)|GLCUDA_ERROR_DEVICE_LOST" \
		$ksrc ! glcudafilter ptx-file="$tmp/wrong.ptx" kernel-name=wrong_signature ! fakesink
fi

echo "$passed passed, $failed failed, $skipped skipped (logs in $logdir)"
[ "$failed" -eq 0 ]
