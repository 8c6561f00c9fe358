#!/bin/sh
# glcuda-compositor on the GPU machine, with real CUDA: the pixel scenes of
# tests/test-compositor.sh (tests/compositor-pixel-client: placement,
# blending, subsurfaces, buffer scale and transforms, damage) checked
# against their CPU references through the compositor's own invert filter
# or none, in the device's best sync mode; then weston's demo clients
# (scripts/gpu-compositor-clients.sh: frames per second at 60 Hz and
# 1000 Hz, and their frames checked). Run from the project root after
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

for s in blend sub xform damage; do
	scene "$s" none
	scene "$s" invert
done

if [ -x "$clients/run" ]; then
	scripts/gpu-compositor-clients.sh "$clients" "$out/clients"
	failed=$((failed + $?))
else
	echo "SKIP: weston's clients: no $clients/run; pack them with scripts/gpu-pack-clients.sh on the development machine"
fi
echo "compositor on the GPU: $failed failed"
exit $failed
