#!/bin/bash
# The tools on a machine with several GPUs, with CUDA_VISIBLE_DEVICES unset,
# =0 and =1: each must open the EGL device of a GPU that CUDA can see
# without --cuda-device (glcuda_headless_new(-1), the GStreamer element's
# default display). Run on the two-GPU machine from the project root after
# scripts/gpu-build.sh built build-gpu/ (and, for the GStreamer check,
# scripts/gst-gpu-build.sh built build-gst-gpu/stage/):
#
#     scripts/gpu-multi-test.sh [--unpack]
#
# --unpack  first unpack .gl/*.deb into / (scripts/gpu-unpack.sh), as
#           scripts/gpu-test.sh --unpack does; needs root.
#
# Per setting of CUDA_VISIBLE_DEVICES:
#   headless    build-gpu/tests/test-headless (glcuda_headless_new(-1) opens
#               the first EGL device that names a CUDA device CUDA can see);
#   info        build-gpu/tools/glcuda-info/glcuda-info: a verdict line for every EGL
#               device, as many EGL devices working as CUDA sees devices,
#               and the overall verdict "interop works";
#   demo        build-gpu/tools/glcuda-demo/glcuda-demo, 30 small frames, on the EGL
#               device the info check found working first;
#   compositor  build-gpu/tools/glcuda-compositor/glcuda-compositor with the
#               pixel client of the tests (build-gpu/tests/
#               compositor-pixel-client, scene "blend") as its client, on
#               that EGL device too;
#   gst         glcudafilter filter=invert in a GstGL pipeline on the EGL
#               device platform (the tree of scripts/gst-gpu-build.sh,
#               through scripts/gst-gpu-env.sh), on the CUDA device CUDA
#               can see. SKIP without build-gst-gpu/stage.
# Each check prints PASS, FAIL or SKIP with one line of evidence (the EGL
# and CUDA devices used); logs go to ${OUT:-build-gpu}/multi-logs/. The
# last line says "N passed, N failed, N skipped"; the exit status is
# non-zero if any check failed.
# SPDX-License-Identifier: MIT
set -uo pipefail

if [ "${1:-}" = --unpack ]; then
	scripts/gpu-unpack.sh || exit 2
	shift
fi
if [ $# -gt 0 ]; then
	echo "usage: scripts/gpu-multi-test.sh [--unpack]" >&2
	exit 2
fi

root=$(pwd)
build=$root/build-gpu
info=$build/tools/glcuda-info/glcuda-info
demo=$build/tools/glcuda-demo/glcuda-demo
comp=$build/tools/glcuda-compositor/glcuda-compositor
pixel=$build/tests/compositor-pixel-client
headless=$build/tests/test-headless
for f in "$info" "$demo" "$comp" "$pixel" "$headless"; do
	if [ ! -x "$f" ]; then
		echo "no $f: run scripts/gpu-build.sh on the development machine first" >&2
		exit 1
	fi
done

# GLVND and the Vulkan loader find the NVIDIA driver here on the GPU machine.
# shellcheck source=scripts/gpu-nvidia-env.sh
. "$(dirname "$0")/gpu-nvidia-env.sh"
unset XDG_RUNTIME_DIR WAYLAND_DISPLAY

logdir=${OUT:-$build}/multi-logs
mkdir -p "$logdir"
# shellcheck source=scripts/gpu-verdicts.sh
. "$(dirname "$0")/gpu-verdicts.sh"

# run_cvd SETTING COMMAND...: COMMAND with CUDA_VISIBLE_DEVICES unset
# (SETTING "unset") or set to SETTING.
run_cvd() {
	local cvd=$1
	shift
	if [ "$cvd" = unset ]; then
		env -u CUDA_VISIBLE_DEVICES "$@"
	else
		CUDA_VISIBLE_DEVICES=$cvd "$@"
	fi
}

# The EGL device index in a headless description ("EGL device 1 (...): ..."),
# or "surfaceless".
egl_index() {
	case $1 in
	"EGL device "*)
		local rest=${1#EGL device }
		echo "${rest%%[!0-9]*}" ;;
	"Mesa surfaceless"*) echo surfaceless ;;
	*) echo "?" ;;
	esac
}

# The settings: unset, then each GPU's index alone. With one GPU only
# unset and 0 mean something (=1 hides every device: nothing to test).
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
settings="unset"
for ((i = 0; i < (gpus > 2 ? gpus : 2); i++)); do
	settings="$settings $i"
done
echo "$gpus GPUs (nvidia-smi -L)"

for cvd in $settings; do
	tag="CUDA_VISIBLE_DEVICES=$cvd"
	echo "== $tag"
	if [ "$cvd" != unset ] && [ "$cvd" -ge "$gpus" ]; then
		skip "$tag: this machine has $gpus GPU(s), so CUDA sees none with this setting"
		continue
	fi

	# headless: the library's own test of -1, in build-gpu/ as make check runs it.
	log=$logdir/headless-cvd-$cvd.log
	(cd "$build" && run_cvd "$cvd" timeout 600 "$headless") >"$log" 2>&1
	rc=$?
	checks=$(grep -m1 -o '[0-9]*%: Checks: .*' "$log")
	if [ "$rc" -ne 0 ]; then
		fail "$tag headless: exit $rc: ${checks:-$(tail -n 1 "$log")}"
	else
		pass "$tag headless: $checks"
	fi

	# info: the verdicts. expected_egl: the first EGL device that works, which
	# -1 must pick (EGL_NV_device_cuda devices come first, in EGL's order).
	log=$logdir/info-cvd-$cvd.log
	run_cvd "$cvd" "$info" >"$log" 2>&1
	rc=$?
	ndev=$(sed -n 's/^EGL devices: \([0-9][0-9]*\)$/\1/p' "$log")
	ncuda=$(sed -n 's/^CUDA driver [0-9.]*: \([0-9][0-9]*\) devices*$/\1/p' "$log")
	# "D:works:C" or "D:no:ERROR" per EGL device, in order.
	verdicts=$(awk '
		/^EGL devices/ { in_list = 1; next }
		in_list && /^$/ { in_list = 0 }
		in_list && /^    device [0-9]+:/ { dev = $2; sub(":", "", dev) }
		in_list && /^        verdict: interop works, CUDA device/ {
			c = $6; sub(",", "", c); printf "%s:works:%s\n", dev, c }
		in_list && /^        verdict: interop cannot work/ {
			e = $5; sub(":", "", e); if (e == "no") e = "no-context"
			printf "%s:no:%s\n", dev, e }
		in_list && /^        verdict: not judged/ { printf "%s:no:not-judged\n", dev }
	' "$log")
	nverdict=$(grep -c . <<<"$verdicts")
	nworks=$(grep -c ':works:' <<<"$verdicts")
	expected_egl=$(grep -m1 ':works:' <<<"$verdicts" | cut -d: -f1)
	expected_cuda=$(grep -m1 ':works:' <<<"$verdicts" | cut -d: -f3)
	display=$(sed -n 's/^    display   //p' "$log" | head -n 1)
	summary=$(awk -F: '{ printf "%sEGL device %s: %s", sep, $1,
		($2 == "works" ? "CUDA device " $3 : "no (" $3 ")"); sep = ", " }' <<<"$verdicts")
	if [ -z "$ndev" ] || [ "$nverdict" -ne "$ndev" ]; then
		fail "$tag info: ${ndev:-?} EGL devices, $nverdict device verdicts (see $log)"
	elif [ "$rc" -ne 0 ] || ! grep -q '^Verdict (.*): interop works' "$log"; then
		fail "$tag info: overall verdict not positive (exit $rc): $(grep -A2 '^Verdict' "$log" | tr '\n' ' ')"
	elif [ -z "$ncuda" ] || [ "$nworks" -ne "$ncuda" ]; then
		fail "$tag info: $nworks EGL devices work, CUDA sees ${ncuda:-?}: $summary"
	elif [ "$(egl_index "$display")" != "$expected_egl" ]; then
		fail "$tag info: the contexts are on \"$display\", the first working EGL device is $expected_egl"
	else
		pass "$tag info: $summary; contexts on $display"
	fi

	# demo
	log=$logdir/demo-cvd-$cvd.log
	run_cvd "$cvd" "$demo" --frames 30 --size 320x180 --png-frames none >"$log" 2>&1
	rc=$?
	desc=$(sed -n 's/^glcuda-demo: \(EGL device .*\|Mesa surfaceless.*\)$/\1/p' "$log" | head -n 1)
	cuda=$(sed -n 's/.*; CUDA device \([0-9]*\) .*/\1/p' "$log" | head -n 1)
	if [ "$rc" -ne 0 ]; then
		fail "$tag demo: exit $rc: $(grep -m1 -i 'error' "$log")"
	elif [ -n "$expected_egl" ] && { [ "$(egl_index "$desc")" != "$expected_egl" ] ||
					 [ "$cuda" != "$expected_cuda" ]; }; then
		fail "$tag demo: on \"$desc\", CUDA device $cuda; expected EGL device $expected_egl, CUDA device $expected_cuda"
	else
		pass "$tag demo: $desc; CUDA device $cuda"
	fi

	# compositor: the pixel client's blend scene, to the client's exit.
	log=$logdir/compositor-cvd-$cvd.log
	out=$logdir/compositor-cvd-$cvd.out
	pngdir=$logdir/compositor-cvd-$cvd
	rm -rf "$pngdir"
	mkdir -p "$pngdir"
	run_cvd "$cvd" "$comp" --size 400x320 --filter invert --png-dir "$pngdir" \
		-- "$pixel" run blend >"$out" 2>"$log"
	rc=$?
	rm -rf "$pngdir"
	line=$(grep -m1 '^glcuda-compositor: .* at .* Hz on ' "$log")
	desc=$(sed -n 's/^glcuda-compositor: .* Hz on .* (\(EGL device .*\|Mesa surfaceless.*\)), CUDA stage.*/\1/p' <<<"$line")
	if [ "$rc" -ne 0 ] || ! grep -q '^presented ' "$out"; then
		fail "$tag compositor: exit $rc, $(grep -c '^presented ' "$out") frames presented: $(grep -m1 -i 'error' "$log")"
	elif [ -n "$expected_egl" ] && [ "$(egl_index "$desc")" != "$expected_egl" ]; then
		fail "$tag compositor: on \"$desc\"; expected EGL device $expected_egl"
	else
		pass "$tag compositor: $(grep -c '^presented ' "$out") states presented on $desc"
	fi

	# gst: GStreamer from build-gst-gpu/stage, in a subshell (its environment).
	log=$logdir/gst-cvd-$cvd.log
	if [ ! -x "$root/build-gst-gpu/stage/root/bin/gst-launch-1.0" ]; then
		skip "$tag gst: no build-gst-gpu/stage (run scripts/gst-gpu-build.sh and carry build-gst-gpu/stage)"
		continue
	fi
	(
		# shellcheck source=scripts/gst-gpu-env.sh
		. scripts/gst-gpu-env.sh
		trap 'rm -rf "$gst_tmp"' EXIT
		export GST_DEBUG=glcudafilter:4 GST_DEBUG_NO_COLOR=1
		run_cvd "$cvd" gst-launch-1.0 -q videotestsrc num-buffers=30 \
			! video/x-raw,format=RGBA,width=160,height=120 ! glupload \
			! glcudafilter filter=invert ! gldownload ! fakesink
	) >"$log" 2>&1
	rc=$?
	cuda=$(sed -n 's/.*device: GL .*, CUDA device \([0-9]*\) .*/\1/p' "$log" | head -n 1)
	egl=$(sed -n 's/.*GL display: EGL device \([0-9]*\),.*/\1/p' "$log" | head -n 1)
	egl=${egl:-0}
	if [ "$rc" -ne 0 ] || [ -z "$cuda" ]; then
		fail "$tag gst: exit $rc, $(grep -m1 -E 'ERROR|GLCUDA_ERROR' "$log")"
	elif [ -n "$expected_egl" ] && [ "$egl" != "$expected_egl" ]; then
		fail "$tag gst: GL display on EGL device $egl, expected $expected_egl"
	else
		pass "$tag gst: GL display on EGL device $egl, CUDA device $cuda"
	fi
done

echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
