#!/bin/sh
# glcuda-compositor on the GPU machine, with real CUDA: the pixel scenes of
# tests/test-compositor.sh and test-compositor-protocols.sh
# (tests/compositor-pixel-client: placement, blending, subsurfaces, buffer
# scale and transforms, damage, wp_viewporter crops and scales, xdg popups
# placed by their positioners) checked
# against their CPU references through the compositor's own invert filter
# or none, in the device's best sync mode; then weston's demo clients
# (scripts/gpu-compositor-clients.sh: frames per second at 60 Hz and
# 1000 Hz, and their frames checked), and weston-simple-shm once more under
# a standalone compositor driven through its control socket
# (glcuda-compositor-ctl): a screenshot after the real CUDA invert, and a
# y4m stream with one frame per refresh. Run from the project root after
# scripts/gpu-build.sh and scripts/gpu-pack-clients.sh (and
# scripts/gpu-test.sh --unpack, or with --unpack here):
#
#     scripts/gpu-compositor-test.sh [--unpack] [OUTDIR]
#
# OUTDIR (default a temporary directory) gets each run's log. GPU_BUILD
# (default build-gpu) and CLIENTS_DIR (default build-gpu/clients) say where
# the build and the packed clients are; the clients' runs read more
# (scripts/gpu-compositor-clients.sh). Where the NVIDIA driver is not
# installed as on the GPU machine, GLVND and the Vulkan loader keep the
# system's drivers: with the fake CUDA driver (GLCUDA_LIBCUDA and
# GLCUDA_FAKE_CUDA_UUID, as tests/test-compositor.sh sets them) it runs on
# Mesa, a dry run of what the GPU machine does. Exit status: the number of
# failed checks.
# SPDX-License-Identifier: MIT
set -u

if [ "${1:-}" = --unpack ]; then
	scripts/gpu-unpack.sh || exit 2
	shift
fi
# shellcheck source=scripts/gpu-nvidia-env.sh
. "$(dirname "$0")/gpu-nvidia-env.sh"
unset XDG_RUNTIME_DIR WAYLAND_DISPLAY

build=${GPU_BUILD:-build-gpu}
comp=$build/tools/glcuda-compositor/glcuda-compositor
ctl=$build/tools/glcuda-compositor/glcuda-compositor-ctl
check=$build/tests/compositor-check-png
pixel=$build/tests/compositor-pixel-client
clients=${CLIENTS_DIR:-$build/clients}
out=${1:-$(mktemp -d)}
mkdir -p "$out"
failed=0

# scene NAME FILTER: the compositor's filter is the check's (none, or
# invert: R, G and B inverted, alpha kept).
scene() {
	name=$1 filter=$2
	dir=$out/$name-$filter
	rm -rf "$dir"
	mkdir -p "$dir"
	"$comp" --verbose --size 400x320 --filter "$filter" --png-every 1 --png-dir "$dir" \
		-- "$pixel" run "$name" >"$dir.out" 2>"$dir.log"
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q "^presented " "$dir.out"; then
		echo "FAIL: scene $name, filter $filter: exit $rc"
		tail -n 20 "$dir.log"
		failed=$((failed + 1))
		return
	fi
	pos=$(sed -n 's/.*mapped toplevel [0-9]*x[0-9]* at \([0-9]*\),\([0-9]*\).*/\1 \2/p' "$dir.log")
	states=0
	while read -r _ state seq; do
		png=$(printf '%s/frame-%06d.png' "$dir" "$seq")
		# shellcheck disable=SC2086 # split on purpose
		if ! "$pixel" check "$state" "$png" "$filter" $pos; then
			echo "FAIL: scene $name, state $state, filter $filter: the frame differs from the reference"
			failed=$((failed + 1))
		fi
		states=$((states + 1))
	done <<EOF
$(grep "^presented " "$dir.out")
EOF
	echo "scene $name, filter $filter: $states states checked, $(grep -o 'sync [a-z]*' "$dir.log" | head -n 1)"
	rm -f "$dir"/*.png
}

for s in blend sub xform damage viewport popup; do
	scene "$s" none
	scene "$s" invert
done

# A large upload beside another client (compositor-bad-client upload-gaps):
# how long an 8192x8192 shm buffer takes to show with real CUDA, and the
# intervals between the other client's frame callbacks meanwhile. Measured,
# not judged.
bad=$build/tests/compositor-bad-client
if [ -x "$bad" ]; then
	for rate in 60 240; do
		"$comp" --size 1920x1080 --refresh "$rate" --filter invert -- "$bad" upload-gaps \
			>"$out/upload-gaps-$rate.out" 2>"$out/upload-gaps-$rate.log"
		echo "upload-gaps at 1920x1080, $rate Hz: exit $?"
		grep '^upload-gaps' "$out/upload-gaps-$rate.out"
	done
fi

if [ -x "$clients/run" ]; then
	scripts/gpu-compositor-clients.sh "$clients" "$out/clients"
	failed=$((failed + $?))
else
	echo "SKIP: weston's clients: no $clients/run; pack them with scripts/gpu-pack-clients.sh on the development machine"
fi
# Standalone, driven through the control socket: the screenshot is the
# frame after the CUDA stage (the background inverted: 223 207 191
# outside the window), the y4m stream has as many frames as the
# compositor counted.
if [ -x "$clients/run" ] && [ -x "$ctl" ] && [ -x "$check" ]; then
	mkfifo "$out/announce"
	timeout 120 "$comp" --verbose --size 640x480 --filter invert --output "$out/standalone.y4m" \
		>"$out/announce" 2>"$out/standalone.log" &
	pid=$!
	exec 3<"$out/announce"
	for i in 1 2 3 4; do
		read -r line <&3 && export "${line?}"
	done
	exec 3<&-
	"$clients/run" weston-simple-shm >/dev/null 2>&1 &
	shm_pid=$!
	# shellcheck disable=SC2046 # split on purpose
	set -- $("$ctl" wait-window) x
	if [ $# -lt 5 ]; then
		echo "FAIL: standalone: no window mapped"
		failed=$((failed + 1))
	elif ! "$ctl" screenshot "$out/standalone.png" >/dev/null ||
	     ! "$check" "$out/standalone.png" "$1" "$2" "$3" "$4" 223 207 191; then
		echo "FAIL: standalone: the screenshot is not the inverted frame"
		failed=$((failed + 1))
	fi
	"$ctl" quit >/dev/null
	wait "$pid"
	rc=$?
	kill "$shm_pid" 2>/dev/null
	wait "$shm_pid"
	frames=$(sed -n 's/.* \([0-9]*\) output frames.*/\1/p' "$out/standalone.log")
	size=$(wc -c <"$out/standalone.y4m")
	header=$(head -n 1 "$out/standalone.y4m")
	echo "standalone: exit $rc, $frames output frames, y4m of $size bytes"
	if [ $rc -ne 0 ] || [ -z "$frames" ] ||
	   [ $((size - ${#header} - 1)) -ne $((frames * (6 + 640 * 480 * 3))) ]; then
		echo "FAIL: standalone: the y4m stream does not have one frame per output frame"
		tail -n 12 "$out/standalone.log"
		failed=$((failed + 1))
	fi
	rm -f "$out/standalone.y4m"
	unset WAYLAND_DISPLAY XDG_RUNTIME_DIR GLCUDA_COMPOSITOR_SOCKET GLCUDA_COMPOSITOR_CONTROL
fi
echo "compositor on the GPU: $failed failed"
exit $failed
