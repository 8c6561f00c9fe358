#!/bin/sh
# glcuda-compositor on the GPU machine, with real CUDA: the pixel scenes of
# tests/test-compositor.sh (tests/compositor-pixel-client: placement,
# blending, subsurfaces, buffer scale and transforms, damage) checked
# against their CPU references through the compositor's own invert filter
# or none, in the device's best sync mode; then weston-simple-shm for a
# few frames. Run from the project root after scripts/gpu-build.sh (and
# scripts/gpu-test.sh --unpack, or with --unpack here):
#
#     scripts/gpu-compositor-test.sh [--unpack] [OUTDIR]
#
# OUTDIR (default a temporary directory) gets each run's log. Exit status:
# the number of failed checks.
# SPDX-License-Identifier: MIT
set -u

if [ "${1:-}" = --unpack ]; then
	scripts/gpu-unpack.sh || exit 2
	shift
fi
export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json}
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
unset XDG_RUNTIME_DIR WAYLAND_DISPLAY

comp=build-gpu/tools/glcuda-compositor/glcuda-compositor
pixel=build-gpu/tests/compositor-pixel-client
shm=build-gpu/extra/weston-simple-shm
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

if [ -x "$shm" ]; then
	"$comp" --size 1920x1080 --refresh 240 --filter invert --frames 120 -- "$shm" \
		>"$out/shm.out" 2>"$out/shm.log"
	rc=$?
	echo "weston-simple-shm at 1080p: exit $rc"
	tail -n 12 "$out/shm.log"
	[ $rc -eq 0 ] || failed=$((failed + 1))
fi
echo "compositor on the GPU: $failed failed"
exit $failed
