#!/bin/sh
# glcudafilter (gst/) as its users meet it, on Mesa and the fake CUDA
# driver as tests/test-gst.sh runs it:
# - properties changed while PLAYING apply from the next frame, every
#   frame checked against the filter set when it entered (tests/gst-switch,
#   appsrc to appsink, one frame at a time), caps renegotiated where the
#   new filter takes other formats, element errors for changes that
#   cannot run;
# - the element errors a user reads: a frame too large for glcuda, kernel
#   properties that cannot run together, a kernel the module does not
#   have (the fake's judgement of kernel files: by the kernel's name; a
#   real driver's of garbage files and of a kernel of another signature is
#   scripts/gst-gpu-test.sh's), a file that cannot be read, an empty one;
# - formats the element does not take, with no caps filter before it: a
#   not-negotiated error when the stream starts, and glcolorconvert in
#   front as its remedy;
# - the property table of doc/gstreamer.md against gst-inspect-1.0: every
#   property, its default (qos included), its access and enum values.
# Run from the build directory after make check.
# SPDX-License-Identifier: MIT
set -u

switch=./tests/gst-switch
gst_test_needs=$switch
. "${srcdir:-.}/tests/gst-test-env.sh"
GST_GL_API=opengl3
export GST_GL_API
srcdir=${srcdir:-.}
doc=$srcdir/doc/gstreamer.md

failures=0
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# The fake loads any module and runs kernels by name.
echo "any module" > "$tmp/kernel.ptx"
src='videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=64,height=48'

# 1. Changes while PLAYING, frame by frame (the built-in invert on NV12
# needs the element's own kernels: a build with nvcc).
if grep -q '^#define HAVE_NVCC 1' ./config.h 2>/dev/null; then
	if "$switch" "$tmp/kernel.ptx" > "$tmp/switch.log" 2>&1; then
		echo "PASS: changes while PLAYING: $(grep -c '^frame' "$tmp/switch.log") frames, each as its filter"
	else
		fail "changes while PLAYING"
		grep -v '^Got context' "$tmp/switch.log" >&2
	fi
else
	echo "built without nvcc: no filter=invert on NV12 to switch to; changes while PLAYING not checked"
fi

# expect_error LABEL TEXT PIPELINE...: gst-launch-1.0 fails, with TEXT
# in an error of glcudafilter0.
expect_error() {
	label=$1 text=$2
	shift 2
	if gst-launch-1.0 "$@" > "$tmp/err.log" 2>&1; then
		fail "$label: the pipeline ran"
	elif ! grep 'ERROR: from element .*GstGlcudaFilter:glcudafilter0: ' "$tmp/err.log" |
		grep -qF "$text"; then
		fail "$label: no error of glcudafilter0 saying \"$text\""
		grep -v '^Got context' "$tmp/err.log" >&2
	else
		echo "PASS: $label: $(grep -m1 'GstGlcudaFilter:glcudafilter0: ' "$tmp/err.log" |
			sed 's/.*glcudafilter0: //')"
	fi
}

# 2. The errors users read.
expect_error "frame too large" "20000x16 is not a valid size: each side must be 1..16384" \
	videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=20000,height=16 ! \
	glupload ! glcudafilter ! gldownload ! fakesink
expect_error "ptx-file without kernel-name" "ptx-file=$tmp/kernel.ptx is set without kernel-name" \
	$src ! glupload ! glcudafilter ptx-file="$tmp/kernel.ptx" ! gldownload ! fakesink
expect_error "cubin-file without kernel-name" "cubin-file=$tmp/kernel.ptx is set without kernel-name" \
	$src ! glupload ! glcudafilter cubin-file="$tmp/kernel.ptx" ! gldownload ! fakesink
expect_error "ptx-file and cubin-file" "are both set: set only the one that holds the kernel" \
	$src ! glupload ! glcudafilter ptx-file="$tmp/kernel.ptx" cubin-file="$tmp/kernel.ptx" \
	kernel-name=ring_transform ! gldownload ! fakesink
expect_error "kernel-name without a file" "kernel-name=ring_transform is set without ptx-file or cubin-file" \
	$src ! glupload ! glcudafilter kernel-name=ring_transform ! gldownload ! fakesink
expect_error "a kernel the module lacks" "cuModuleGetFunction(no_such_kernel) in $tmp/kernel.ptx: CUDA_ERROR_NOT_FOUND" \
	$src ! glupload ! glcudafilter ptx-file="$tmp/kernel.ptx" kernel-name=no_such_kernel ! \
	gldownload ! fakesink
expect_error "a kernel file that cannot be read" "cannot read the kernel file" \
	$src ! glupload ! glcudafilter ptx-file="$tmp/missing.ptx" kernel-name=ring_transform ! \
	gldownload ! fakesink

: > "$tmp/empty.ptx"
expect_error "an empty kernel file" "the kernel file $tmp/empty.ptx is empty" \
	$src ! glupload ! glcudafilter ptx-file="$tmp/empty.ptx" kernel-name=ring_transform ! \
	gldownload ! fakesink

# 3. A format the element does not take, no caps filter before it: the
# link is made, the stream fails when it starts (as doc/gstreamer.md
# says); glcolorconvert in front converts.
argb='videotestsrc num-buffers=2 ! video/x-raw,format=ARGB,width=64,height=48'
if gst-launch-1.0 $argb ! glupload ! glcudafilter ! gldownload ! fakesink > "$tmp/argb.log" 2>&1; then
	fail "ARGB straight into glcudafilter ran"
elif ! grep -q 'reason not-negotiated' "$tmp/argb.log"; then
	fail "ARGB straight into glcudafilter: not the not-negotiated error doc/gstreamer.md describes"
	grep -v '^Got context' "$tmp/argb.log" >&2
else
	echo "PASS: ARGB without glcolorconvert: streaming stopped, reason not-negotiated"
fi
if ! gst-launch-1.0 $argb ! glupload ! glcolorconvert ! glcudafilter ! gldownload ! fakesink \
	> "$tmp/argb-cc.log" 2>&1; then
	fail "ARGB through glcolorconvert into glcudafilter"
	grep -v '^Got context' "$tmp/argb-cc.log" >&2
else
	echo "PASS: ARGB with glcolorconvert in front"
fi

# 4. doc/gstreamer.md's property table against gst-inspect-1.0 (a new
# element's values, read from it): each property but GstObject's name
# and parent, with its default, whether and in which states it can be
# written, and each enum value. Rows: | `name` | type | default | access | values | what it does |
if ! gst-inspect-1.0 glcudafilter > "$tmp/inspect.log" 2>&1; then
	fail "gst-inspect-1.0 glcudafilter"
	cat "$tmp/inspect.log" >&2
fi
awk '
/^Element Properties:/ { p = 1; next }
p && /^[^ ]/ { p = 0 }
!p { next }
/^  [a-z][a-z0-9-]* *:/ {
	if (name != "") print name "|" access "|" def "|" enums
	name = $1; access = "read-only"; def = "-"; enums = ""; next
}
/^ *flags:/ {
	if ($0 ~ /changeable in NULL, READY, PAUSED or PLAYING/)
		access = "read-write, changeable in every state"
	else if ($0 ~ /changeable only in NULL or READY/)
		access = "read-write, changeable in NULL and READY"
	else if ($0 ~ /writable/)
		access = "read-write"
}
/Default: / {
	d = $0; sub(/.*Default: /, "", d)
	if (d ~ /^-?[0-9]+, "/) { sub(/^[^"]*"/, "", d); sub(/".*/, "", d) }
	gsub(/"/, "", d); def = d
}
/^ *\([0-9]+\): / { enums = enums " " $2 }
END { if (name != "") print name "|" access "|" def "|" enums }' "$tmp/inspect.log" |
	grep -v '^name|\|^parent|' > "$tmp/props.txt"
awk -F'|' '
/^## / { p = ($0 == "## Properties") }
p && /^\| `/ {
	for (i = 2; i <= 5; i++) { gsub(/^ +| +$/, "", $i); gsub(/`/, "", $i) }
	print $2 "|" $5 "|" $4 "|" $6
}' "$doc" > "$tmp/doc-props.txt"
[ -s "$tmp/props.txt" ] || fail "gst-inspect-1.0 listed no properties"
while IFS='|' read -r name access def enums; do
	row=$(grep "^$name|" "$tmp/doc-props.txt")
	if [ -z "$row" ]; then
		fail "doc/gstreamer.md: property $name is not in the table"
		continue
	fi
	doc_access=$(echo "$row" | cut -d'|' -f2)
	doc_def=$(echo "$row" | cut -d'|' -f3)
	doc_values=$(echo "$row" | cut -d'|' -f4)
	[ "$doc_access" = "$access" ] ||
		fail "doc/gstreamer.md: $name is $doc_access, gst-inspect-1.0 says $access"
	[ "$doc_def" = "$def" ] ||
		fail "doc/gstreamer.md: $name defaults to $doc_def, gst-inspect-1.0 says $def"
	for e in $enums; do
		case " $doc_values " in
		*"\`$e\`"*) ;;
		*) fail "doc/gstreamer.md: $name's value $e is not listed" ;;
		esac
	done
done < "$tmp/props.txt"
echo "doc/gstreamer.md's table checked against gst-inspect-1.0: $(tr '\n' ' ' < "$tmp/props.txt")"

if [ "$failures" -ne 0 ]; then
	echo "FAIL: $failures checks" >&2
	exit 1
fi
echo "PASS"
