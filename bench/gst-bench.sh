#!/bin/bash
# Frames per second of glcudafilter against a copying CUDA path and a
# GL-only one, in GStreamer, on the GPU machine with the tree of
# scripts/gst-gpu-build.sh, from the project root:
#
#     bench/gst-bench.sh OUTDIR
#
# (after scripts/gst-gpu-test.sh --unpack, or unpack .gl/*.deb as it does).
# At 1920x1080 (600 buffers) and 3840x2160 (300 buffers), RGBA, each
# pipeline ends in `fakesink sync=false` and runs to EOS under
# `gst-launch-1.0 -q`; what is timed is that whole process (date +%s.%N
# around it): start, GL and CUDA set-up, every frame, teardown. Nothing is
# subtracted. fps = buffers / seconds. To show the set-up apart, each
# pipeline also runs with a tenth of the buffers, and "steady fps" is
# (buffers - tenth) / (seconds - seconds of the tenth).
#
# Two sources: videotestsrc (frames drawn on the CPU, then glupload: the
# upload is in every row) and gltestsrc (drawn by GL: nothing on the CPU).
# Per source:
#   source         the source alone (videotestsrc: with glupload)
# Every row ends in glcolorconvert to BGRA, then fakesink: a GL consumer
# that reads each frame, so glupload's lazy upload always happens.
#   glcudafilter   glcudafilter filter=invert, and filter=blur
#   glcudafilter   three glcudafilter filter=invert in a row: the first
#   x3             takes the source's textures (not its pool's), the
#                  later ones their neighbour's pool: (three - one) / 2 is
#                  a later filter's cost, one - source the first's
#   first filter   gltestsrc, the first filter's input, as each route
#   (gltestsrc)    takes it: "pooled" (gltestsrc renders into the pool the
#                  filter offers: no route), and "route=auto" (the
#                  default), "route=wrap" and "route=copy" behind
#                  identity drop-allocation=true
#                  (gltestsrc then renders into a GL pool of its own: its
#                  textures are not a glcuda pool's, and the route property
#                  decides), with "source, not pooled" (gltestsrc !
#                  identity drop-allocation=true) as their source row. Per
#                  route two rows: glcudafilter filter=invert alone
#                  ("one"), and followed by glcudafilter filter=invert
#                  ("two": the later filter's input is an image of its own
#                  pool, filled by the first). In µs a frame, from steady
#                  fps (1e6 / steady fps) of the same run and size:
#                      first filter's cost  = one - source
#                      a later filter's     = two - one
#                  N = |first - later| / later in %: each route and size
#                  prints "first filter within N % of a later one" (and a
#                  table after the main one), with the route the first
#                  filter's stats say its input took (gst-states, 30
#                  buffers): on a driver that registers no GL texture (the
#                  fake) route=wrap copies, and the line says so
#   GL shader      glshader with an invert fragment shader (GL only)
#   CUDA, copied   gldownload ! cudaupload ! cudaconvert to BGRA !
#                  cudadownload ! glupload: GStreamer's own CUDA elements
#                  (nvcodec, 1.22: cudaupload, cudadownload, cudaconvert,
#                  cudascale, cudaconvertscale; no other CUDA filter), with
#                  the frame copied to system memory and back; where
#                  nvcodec has no cudaconvert (it needs NVRTC at run
#                  time), gldownload ! cudaupload ! cudadownload ! glupload:
#                  the copies alone
#   GL to CUDAMemory, glcudafilter / cudaupload: the GL frame into CUDA
#                  memory by glcudafilter (filter=none, one device-side
#                  copy) and by nvcodec's cudaupload (the legacy
#                  registration), ending in cudaconvert to BGRA where
#                  nvcodec has it (else fakesink): where glcudafilter has
#                  CUDAMemory pads; where the ending is cudaconvert,
#                  both again ending in fakesink (no CUDA consumer),
#                  and both with a queue after the source and one
#                  before cudaconvert ("…, queues": a thread per stage;
#                  1.22's cudaconvert waits on the CPU for each frame),
#                  beside "source alone, queues" (a queue after the
#                  source)
# A row whose elements are missing (nvcodec's without libcuda) says so.
# OUTDIR gets gst-bench.md (the tables), gst-bench.raw (one line per run:
# name size buffers seconds exit-status) and the stats of each
# glcudafilter row (gst-states, 30 buffers) in gst-bench.stats.
# A run that crashes fails its row with its exit status (gst-launch-1.0
# -f: no fault handler, which would spin for a debugger); one that takes
# longer than GST_BENCH_TIMEOUT seconds (default 300) is killed and fails
# its row, so that the other rows still run; after two such runs the
# remaining rows are not run (the GPU looks stuck: see doc/performance.md).
# GST_BENCH_SIZES="WxH:BUFFERS ..." replaces the sizes and buffer counts;
# GST_BENCH_ROWS=REGEX runs only the rows whose "SOURCE/PATH" matches it
# (bash's =~, extended): for example 'gltestsrc/(source|first)' for the
# first-filter comparison alone, with more buffers and repeated.
# GST_GPU_FAKE=/path/to/libfakecuda.so: on the development machine (Mesa,
# the fake CUDA driver: invert is its CPU ring_transform, blur left out).
# SPDX-License-Identifier: MIT
set -uo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 OUTDIR" >&2
	exit 2
fi
mkdir -p "$1" || exit 1
out=$(cd "$1" && pwd)
. scripts/gst-gpu-env.sh
trap 'rm -rf "$gst_tmp"' EXIT
export GST_GL_API=${GST_GL_API:-opengl3}

if [ -n "${GST_GPU_FAKE:-}" ]; then
	echo "any module" > "$gst_tmp/kernel.ptx"
	invert="glcudafilter kernel-name=ring_transform ptx-file=$gst_tmp/kernel.ptx"
	blur=
else
	invert="glcudafilter filter=invert"
	blur="glcudafilter filter=blur"
fi
frag='#version 100
#ifdef GL_ES
precision mediump float;
#endif
varying vec2 v_texcoord;
uniform sampler2D tex;
void main () { vec4 c = texture2D (tex, v_texcoord); gl_FragColor = vec4 (1.0 - c.rgb, c.a); }'
# gst-launch-1.0 takes the pipeline word by word: fragment=@FRAG@ is one
# word, replaced by the shader in timed().
shader="glshader fragment=@FRAG@"
copied='gldownload ! cudaupload ! cudaconvert ! video/x-raw(memory:CUDAMemory),format=BGRA ! cudadownload ! glupload'
copied_name="CUDA, copied (nvcodec)"
# nvcodec registers cudaconvert only where it finds NVRTC at run time: the
# copies alone, through CUDA memory and back, where it does not.
if ! gst-inspect-1.0 cudaconvert > /dev/null 2>&1 && gst-inspect-1.0 cudaupload > /dev/null 2>&1; then
	copied='gldownload ! cudaupload ! cudadownload ! glupload'
	copied_name="CUDA memory and back, copied (nvcodec, no kernel: no cudaconvert without NVRTC)"
fi
# GL to CUDA memory, ending in a CUDA consumer (cudaconvert to BGRA, where
# nvcodec has it: it reads every frame; else fakesink). Where glcudafilter
# has CUDAMemory pads (gstreamer-cuda-1.0) and nvcodec has cudaupload.
# (gst-inspect-1.0's output is read whole: piped into grep -q, which stops
# at the first match, it would die of SIGPIPE and fail the test under
# pipefail.)
to_cuda=
cuda_caps='video/x-raw(memory:CUDAMemory)'
fakesink='fakesink sync=false'
cuda_sink=$fakesink
if [ -z "${GST_GPU_FAKE:-}" ] && gst-inspect-1.0 cudaupload > /dev/null 2>&1 &&
   grep -q 'memory:CUDAMemory' <<< "$(gst-inspect-1.0 glcudafilter 2>/dev/null)"; then
	to_cuda=yes
	gst-inspect-1.0 cudaconvert > /dev/null 2>&1 &&
		cuda_sink="cudaconvert ! video/x-raw(memory:CUDAMemory),format=BGRA ! $fakesink"
fi
# Every row ends in a GL consumer that reads the frame (a conversion to
# BGRA, as a sink's shader would), so that a lazy upload (glupload's)
# cannot go undone.
sink='glcolorconvert ! video/x-raw(memory:GLMemory),format=BGRA ! fakesink sync=false'

raw=$out/gst-bench.raw
md=$out/gst-bench.md
# Steady fps per "SOURCE/NAME/SIZE", for the first-filter comparison.
declare -A steady_of
first_lines=
timeouts=0
: > "$raw"
: > "$out/gst-bench.stats"
{
	echo "# glcudafilter in GStreamer: frames per second"
	echo
	echo "$(date -u +%Y-%m-%dT%H:%MZ); GL API $GST_GL_API; GStreamer $(gst-launch-1.0 --version | sed -n 's/.*version //p' | head -n1);" \
		"$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')"
	echo
	echo "Whole gst-launch-1.0 process timed (start, set-up, frames, teardown);"
	echo "steady fps leaves out what a run of a tenth of the buffers takes."
	echo "Every pipeline ends in \`glcolorconvert\` to BGRA and \`fakesink\`: GL reads every frame."
	echo
	echo "| source | path | size | buffers | seconds | fps | steady fps |"
	echo "|---|---|---|---|---|---|---|"
} > "$md"

# timed NAME SIZE N PIPELINE: seconds, or nothing if it failed.
timed() {
	local t0 t1 rc i args
	read -r -a args <<< "$4"
	for i in "${!args[@]}"; do
		[ "${args[$i]}" = fragment=@FRAG@ ] && args[$i]="fragment=\"$frag\""
	done
	t0=$(date +%s.%N)
	timeout -k 10 "${GST_BENCH_TIMEOUT:-300}" gst-launch-1.0 -q -f "${args[@]}" \
		> "$gst_tmp/run.log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	t=$(awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')
	echo "${1// /_} $2 $3 $t $rc" >> "$raw"
	[ $rc -eq 0 ] && echo "$t"
}

# selected "SOURCE/PATH": whether GST_BENCH_ROWS (if set) takes that row.
selected() {
	[ -z "${GST_BENCH_ROWS:-}" ] || [[ $1 =~ $GST_BENCH_ROWS ]]
}

# row SOURCE-NAME NAME W H BUFFERS SOURCE TAIL [SINK]: SINK replaces the
# GL consumer (the rows that end in CUDA memory).
row() {
	local src_name=$1 name=$2 w=$3 h=$4 n=$5 src=$6 tail=$7 end=${8:-$sink} size tenth t tt fps steady why q
	size=${w}x$h
	tenth=$((n / 10))
	# A row named "…, queues": a queue after the source's caps (a thread
	# for the source's drawing), the rest as given.
	q=
	case $name in *", queues") q="queue ! " ;; esac
	case $src in
	videotestsrc) pipe="videotestsrc num-buffers=@N@ pattern=smpte ! video/x-raw,format=RGBA,width=$w,height=$h ! ${q}glupload" ;;
	gltestsrc) pipe="gltestsrc num-buffers=@N@ pattern=smpte ! video/x-raw(memory:GLMemory),format=RGBA,width=$w,height=$h${q:+ ! queue}" ;;
	esac
	[ -n "$tail" ] && pipe="$pipe ! $tail"
	pipe="$pipe ! $end"
	selected "$src_name/$name" || return
	if [ "$timeouts" -ge 2 ]; then
		echo "| $src_name | $name | $size | $n | not run: two runs before it timed out | | |" >> "$md"
		return
	fi
	t=$(timed "$src_name/$name" "$size" "$n" "${pipe//@N@/$n}")
	if [ -z "$t" ]; then
		why=$(grep -m1 -E 'ERROR|erroneous|no element' "$gst_tmp/run.log" | cut -c1-120)
		[ -n "$why" ] || why="exit status $(tail -n1 "$raw" | awk '{ print $NF }')"
		echo "| $src_name | $name | $size | $n | failed: ${why:-see gst-bench.raw} | | |" >> "$md"
		echo "$src_name $name $size: failed: $why"
		# A run past the time limit: where two are, the GPU is most
		# likely stuck (a kernel that faulted before the benchmark, in
		# another process): the later rows are not run, saving their
		# time limits.
		if [ "$(tail -n1 "$raw" | awk '{ print $NF }')" = 124 ]; then
			timeouts=$((timeouts + 1))
			[ "$timeouts" -eq 2 ] &&
				echo "two runs past GST_BENCH_TIMEOUT (${GST_BENCH_TIMEOUT:-300} s): the GPU looks stuck; the rows after this one are not run"
		fi
		return
	fi
	tt=$(timed "$src_name/$name" "$size" "$tenth" "${pipe//@N@/$tenth}")
	fps=$(awk -v n="$n" -v t="$t" 'BEGIN { printf "%.1f", n / t }')
	steady=
	[ -n "$tt" ] && steady=$(awk -v n="$n" -v m="$tenth" -v t="$t" -v u="$tt" \
		'BEGIN { if (t > u) printf "%.1f", (n - m) / (t - u) }')
	echo "| $src_name | $name | $size | $n | $t | $fps | $steady |" >> "$md"
	steady_of["$src_name/$name/$size"]=$steady
	echo "$src_name $name $size: $t s, $fps fps, steady $steady"
	case $tail in
	*glcudafilter*)
		echo "$src_name $name $size: $(timeout -k 10 "${GST_BENCH_TIMEOUT:-300}" \
			gst-states 1 "${pipe//@N@/30}" 2>&1 | grep glcudafilter-stats)" \
			>> "$out/gst-bench.stats" ;;
	esac
}

# The first-filter rows' source pipelines (gltestsrc), by route.
not_pooled='identity drop-allocation=true'
first_prefix() {
	case $1 in
	pooled) echo "" ;;
	*) echo "$not_pooled ! " ;;
	esac
}
first_element() {
	case $1 in
	pooled) echo "$invert name=first" ;;
	*) echo "$invert route=$1 name=first" ;;
	esac
}

# first_filter W H ROUTE: from the rows of ROUTE above, the first filter's
# cost and a later one's in µs a frame (the header says how), printed and
# kept for the table after the main one; the first's input route from its
# stats.
first_filter() {
	local size=$1x$2 route=$3 source s0 s1 s2 line stats took
	source="source alone"
	[ "$route" = pooled ] || source="source, not pooled ($not_pooled)"
	s0=${steady_of["gltestsrc/$source/$size"]:-}
	s1=${steady_of["gltestsrc/first filter, $route/$size"]:-}
	s2=${steady_of["gltestsrc/first filter, $route, then a later one/$size"]:-}
	stats=$(timeout -k 10 "${GST_BENCH_TIMEOUT:-300}" gst-states 1 \
		"gltestsrc num-buffers=30 pattern=smpte ! video/x-raw(memory:GLMemory),format=RGBA,width=$1,height=$2 ! $(first_prefix "$route")$(first_element "$route") ! $invert name=later ! $sink" 2>&1 |
		grep '^first: glcudafilter-stats')
	took=$(echo "$stats" | grep -o 'input-[a-z]*=(guint64)[1-9][0-9]*' | sed 's/(guint64)//' | tr '\n' ' ')
	echo "gltestsrc first filter, $route $size: ${stats:-no stats}" >> "$out/gst-bench.stats"
	if [ -z "$s0" ] || [ -z "$s1" ] || [ -z "$s2" ]; then
		line="$size $route: no steady fps for one of its rows: no comparison"
		first_lines="$first_lines| $size | $route | | | ${took% } | no steady fps |
"
	else
		line=$(awk -v s0="$s0" -v s1="$s1" -v s2="$s2" -v r="$route" -v z="$size" -v took="${took% }" 'BEGIN {
			first = 1e6 / s1 - 1e6 / s0; later = 1e6 / s2 - 1e6 / s1
			if (later <= 0) {
				printf "%s %s: a later filter costs %.0f us a frame: no comparison", z, r, later
				exit
			}
			d = first - later; if (d < 0) d = -d
			printf "%s %s: first filter within %.0f %% of a later one (first %.0f us a frame, later %.0f us; first input: %s)", \
				z, r, 100 * d / later, first, later, took
		}')
		first_lines="$first_lines$(awk -v s0="$s0" -v s1="$s1" -v s2="$s2" -v r="$route" -v z="$size" -v took="${took% }" 'BEGIN {
			first = 1e6 / s1 - 1e6 / s0; later = 1e6 / s2 - 1e6 / s1
			d = first - later; if (d < 0) d = -d
			verdict = "no comparison"
			if (later > 0)
				verdict = sprintf("within %.0f %%", 100 * d / later)
			printf "| %s | %s | %.0f | %.0f | %s | %s |\n", z, r, first, later, took, verdict
		}')
"
	fi
	echo "$line"
}

for size in ${GST_BENCH_SIZES:-1920x1080:600 3840x2160:300}; do
	w=${size%x*}
	h=${size#*x}
	n=${h#*:}
	h=${h%:*}
	for src in videotestsrc gltestsrc; do
		row $src "source alone" $w $h $n $src ""
		row $src "glcudafilter invert" $w $h $n $src "$invert"
		if [ -n "$blur" ]; then
			row $src "glcudafilter blur" $w $h $n $src "$blur"
		fi
		row $src "glcudafilter invert, three in a row" $w $h $n $src "$invert ! $invert ! $invert"
		if [ $src = gltestsrc ]; then
			row $src "source, not pooled ($not_pooled)" $w $h $n $src "$not_pooled"
			for route in pooled auto wrap copy; do
				row $src "first filter, $route" $w $h $n $src \
					"$(first_prefix $route)$(first_element $route)"
				row $src "first filter, $route, then a later one" $w $h $n $src \
					"$(first_prefix $route)$(first_element $route) ! $invert name=later"
				if selected "gltestsrc/first filter, $route, then a later one"; then
					first_filter $w $h $route
				fi
			done
		fi
		row $src "GL shader invert" $w $h $n $src "$shader"
		row $src "$copied_name" $w $h $n $src "$copied"
		if [ -n "$to_cuda" ]; then
			row $src "GL to CUDAMemory, glcudafilter" $w $h $n $src \
				"glcudafilter ! $cuda_caps" "$cuda_sink"
			row $src "GL to CUDAMemory, cudaupload" $w $h $n $src \
				"cudaupload ! $cuda_caps" "$cuda_sink"
			# The same into fakesink: no CUDA consumer, whose
			# work (and any wait of its own) the rows above
			# include.
			if [ "$cuda_sink" != "$fakesink" ]; then
				row $src "GL to CUDAMemory, glcudafilter, fakesink" $w $h $n $src \
					"glcudafilter ! $cuda_caps" "$fakesink"
				row $src "GL to CUDAMemory, cudaupload, fakesink" $w $h $n $src \
					"cudaupload ! $cuda_caps" "$fakesink"
				# And with a thread per stage: the source's,
				# GL's, the CUDA consumer's (which waits on
				# the CPU for each frame in 1.22).
				row $src "source alone, queues" $w $h $n $src ""
				row $src "GL to CUDAMemory, glcudafilter, queues" $w $h $n $src \
					"glcudafilter ! $cuda_caps ! queue" "$cuda_sink"
				row $src "GL to CUDAMemory, cudaupload, queues" $w $h $n $src \
					"cudaupload ! $cuda_caps ! queue" "$cuda_sink"
			fi
		fi
	done
done
{
	echo
	echo "## First filter against a later one (gltestsrc)"
	echo
	echo "µs a frame from the steady fps: first = (first filter alone) - (its source alone),"
	echo "later = (first filter, then a later one) - (first filter alone). pooled: gltestsrc"
	echo "renders into the first filter's pool; auto, wrap and copy: behind \`$not_pooled\`,"
	echo "gltestsrc's own textures, taking that route."
	echo
	echo "| size | first filter's input | first µs | later µs | first's input (30 buffers) | first vs later |"
	echo "|---|---|---|---|---|---|"
	printf '%s' "$first_lines"
	echo
	[ -n "${GST_GPU_FAKE:-}" ] && echo "Fake CUDA driver (CPU): glcudafilter rows are not GPU numbers; blur left out."
	echo "Raw lines: gst-bench.raw; glcudafilter's routes: gst-bench.stats."
} >> "$md"
cat "$md"
