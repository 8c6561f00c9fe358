#!/bin/sh
# The GStreamer element (gst/, glcudafilter) on frames of odd height, on
# Mesa and the fake CUDA driver as tests/test-gst.sh runs it: NV12, I420
# and P010_10LE, whose chroma planes are half the frame's height rounded
# up (a 47-row frame has 24 chroma rows, the last of them half outside
# the frame's rows), through the built-in invert and filter=none, on the
# element's every route: GstGL's textures copied in, the element's pool
# filled by another glcudafilter, and (NV12) by glcolorconvert.
#
# Every output is compared with the same pipeline without the element,
# word for word, not with the source's frames: GstGL's download of an
# odd-height frame does not follow GstVideoInfo's plane offsets (its
# chroma follows the luma rows with no padding row), and both sides went
# through the same upload and download. Per frame, the download holds
# the luma rows and then the chroma rows (its size is checked), so the
# last chroma row ends each frame: it is checked by name (I420 holds its
# U rows then its V rows, W/2 words each: its "chroma rows" below are
# pairs of them, the last pair the last two V rows). The widths are
# multiples of 4, so that a row is W words with no padding (the download
# pads each row to 4 bytes); I420 runs where half the width is one too
# (its two chroma rows are then W words together).
# Run from the build directory after make check.
# SPDX-License-Identifier: MIT
set -u

states=./tests/gst-states
gst_test_needs=$states
. "${srcdir:-.}/tests/gst-test-env.sh"
if ! grep -q '^#define HAVE_NVCC 1' ./config.h 2>/dev/null; then
	# The built-in invert on NV12 and P010_10LE runs the element's own
	# kernels, which only a build with nvcc has (the fake runs CPU
	# versions of them by name); test-gst.sh checks the element's error.
	echo "SKIP: built without nvcc: the element has no kernels for NV12 and P010_10LE"
	exit 77
fi

failures=0
checks=0
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# run NAME PIPELINE...: gst-launch-1.0, its output in $tmp/NAME.log.
run() {
	name=$1
	shift
	gst-launch-1.0 -q "$@" > "$tmp/$name.log" 2>&1 || { cat "$tmp/$name.log" >&2; return 1; }
}

# states NAME PIPELINE: tests/gst-states, once; its output in $tmp/NAME.log.
states() {
	"$states" 1 "$2" > "$tmp/$1.log" 2>&1 || { cat "$tmp/$1.log" >&2; return 1; }
}

# words FORMAT FILE: FILE's words, one a line, as FORMAT's invert sees them.
words() {
	case $1 in
	NV12 | I420) od -An -v -tu1 -w1 "$2" ;;
	P010_10LE) od -An -v -tu2 -w2 "$2" ;;
	esac
}

# check LABEL FORMAT W H FRAMES REF OUT INVERTED: OUT is REF (INVERTED=no)
# or REF inverted as FORMAT's invert does it (yes: NV12 every byte
# 255 - v, P010_10LE every 16-bit word's 10 high bits inverted and the
# low 6 zero), every word. REF holds per frame the W x H luma words, then
# the chroma rows of W words (U and V interleaved at half the width),
# the last of which ends the frame.
check() {
	label=$1 format=$2 w=$3 h=$4 frames=$5 ref=$6 out=$7
	case $2/$8 in
	*/no) expr='$2 == $1' ;;
	NV12/yes | I420/yes) expr='$2 == 255 - $1' ;;
	P010_10LE/yes) expr='$2 == 65472 - ($1 - $1 % 64)' ;;
	esac
	checks=$((checks + 1))
	ch=$(((h + 1) / 2))
	total=$((frames * (w * h + w * ch)))
	words "$format" "$ref" > "$tmp/ref.txt"
	words "$format" "$out" > "$tmp/out.txt"
	n=$(wc -l < "$tmp/ref.txt")
	if [ "$n" -ne "$total" ]; then
		fail "$label: the reference holds $n words, not $frames frames of $w x $h luma and $w x $ch chroma"
		return
	fi
	if [ "$(wc -l < "$tmp/out.txt")" -ne "$n" ]; then
		fail "$label: $(wc -l < "$tmp/out.txt") words out, $n in"
		return
	fi
	paste "$tmp/ref.txt" "$tmp/out.txt" | awk -v w="$w" -v h="$h" -v ch="$ch" \
		-v label="$label" -v total="$total" '
		function where(i, j) {
			j = i % (w * h + w * ch);
			if (j < w * h)
				return "frame " int(i / (w * h + w * ch)) ", luma row " int(j / w);
			return "frame " int(i / (w * h + w * ch)) ", chroma row " int((j - w * h) / w) \
				" of " ch;
		}
		!('"$expr"') {
			if (!bad++)
				first = NR - 1;
			if ((NR - 1) % (w * h + w * ch) >= w * h + w * (ch - 1))
				last++;
		}
		END {
			if (last)
				print label ": the last chroma row: " last " words wrong";
			if (bad)
				print label ": " bad " of " total " words wrong, the first in " where(first);
		}' > "$tmp/bad.txt"
	while read -r line; do
		fail "$line"
	done < "$tmp/bad.txt"
}

# check_stats LABEL ELEMENT FIELD=VALUE...: from gst-states' $tmp/LABEL.log.
check_stats() {
	log=$tmp/$1.log
	element=$2
	what=$1
	shift 2
	for field in "$@"; do
		grep "^$element: glcudafilter-stats" "$log" |
			grep -q "${field%%=*}=(guint64)${field#*=}[,;]" ||
			fail "$what: $element: not $field: $(grep "^$element: glcudafilter-stats" "$log")"
	done
}

frames=2
for size in 64x47 36x7; do
	w=${size%x*}
	h=${size#*x}
	for api in opengl3 gles2; do
		export GST_GL_API=$api
		for format in NV12 P010_10LE I420; do
			# GstGL on GLES reads back no 16-bit texture (gldownload
			# fails): tests/test-gst.sh runs P010_10LE there without
			# pixels.
			[ $api = gles2 ] && [ $format = P010_10LE ] && continue
			[ $format = I420 ] && [ $((w / 2 % 4)) -ne 0 ] && continue
			l="$api $format ${w}x$h"
			src="videotestsrc num-buffers=$frames pattern=smpte ! video/x-raw,format=$format,width=$w,height=$h ! glupload"
			if ! run ref $src ! gldownload ! filesink location="$tmp/ref.raw"; then
				fail "$l: the reference pipeline without the element"
				continue
			fi
			# GstGL's textures, copied in and out (inverted: yes
			# where the filter inverts).
			for filter in none invert; do
				inverted=no
				[ $filter = invert ] && inverted=yes
				if run $filter $src ! glcudafilter filter=$filter ! gldownload ! \
					filesink location="$tmp/$filter.raw"; then
					check "$l: filter=$filter" $format $w $h $frames "$tmp/ref.raw" \
						"$tmp/$filter.raw" $inverted
				else
					fail "$l: filter=$filter"
				fi
			done
			# The element's pool: a fills b's images (a copy, then
			# an invert; or two inverts: twice inverted is the
			# input).
			for first in none invert; do
				desc="filter=invert" inverted=yes
				if [ $first = invert ]; then
					desc="filter=invert twice" inverted=no
				fi
				if states pool-$first "$src ! glcudafilter name=a filter=$first ! \
					glcudafilter name=b filter=invert ! gldownload ! \
					filesink location=$tmp/pool-$first.raw"; then
					check_stats pool-$first b frames=$frames input-pooled=$frames
					check "$l: into the pool, $desc" $format $w $h $frames \
						"$tmp/ref.raw" "$tmp/pool-$first.raw" $inverted
				else
					fail "$l: into the pool, $desc"
				fi
			done
		done
		# glcolorconvert renders NV12 into the element's pool.
		l="$api NV12 ${w}x$h through glcolorconvert"
		src="videotestsrc num-buffers=$frames pattern=smpte ! video/x-raw,format=BGRA,width=$w,height=$h ! glupload ! glcolorconvert ! video/x-raw(memory:GLMemory),format=NV12"
		if ! run cref $src ! gldownload ! filesink location="$tmp/cref.raw"; then
			fail "$l: the reference pipeline without the element"
			continue
		fi
		if states conv "$src ! glcudafilter name=f filter=invert ! gldownload ! \
			filesink location=$tmp/conv.raw"; then
			check_stats conv f frames=$frames input-pooled=$frames
			check "$l: filter=invert" NV12 $w $h $frames "$tmp/cref.raw" \
				"$tmp/conv.raw" yes
		else
			fail "$l: filter=invert"
		fi
	done
done
unset GST_GL_API

if [ $failures -ne 0 ]; then
	echo "$failures failures"
	exit 1
fi
echo "PASS: $checks outputs of odd height, every word (the last chroma row by name)"
