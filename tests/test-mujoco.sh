#!/bin/sh
# examples/mujoco/mujoco-cameras on Mesa and the fake CUDA driver
# (tests/fake-cuda), as CI runs it: MuJoCo renders in a compatibility
# context, glcuda captures its multisampled offscreen framebuffer, and
# --check compares the tensors (colour, depth as stored and in metres, geom
# ids from the example's kernel, which the fake runs on the CPU) with
# MuJoCo's own mjr_readPixels of the same cameras. Run from the build
# directory, after make check has built the fake.
# SPDX-License-Identifier: MIT
set -u

prog=./examples/mujoco/mujoco-cameras
if [ ! -x "$prog" ]; then
	echo "SKIP: examples/mujoco is not built: configure found no MuJoCo (libmujoco-dev) or no CUDA toolkit"
	exit 77
fi
fake_cuda_needs=$prog
. "${srcdir:-.}/tests/fake-cuda-env.sh"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# Usage errors exit 2.
for args in "--cameras 0" "--size 64" "--steps 0" "--check --bench" "extra"; do
	# shellcheck disable=SC2086
	"$prog" $args >/dev/null 2>&1
	rc=$?
	if [ "$rc" -ne 2 ]; then
		echo "FAIL: mujoco-cameras $args exited $rc, not 2" >&2
		fail=1
	fi
done

# Four cameras of a size that is not square (a width and height swapped
# shows), three steps of physics between the checks.
"$prog" --check --cameras 4 --size 64x48 --steps 3 >"$tmp/check" 2>&1
rc=$?
cat "$tmp/check"
if [ "$rc" -ne 0 ] || ! grep -q "^check: PASS" "$tmp/check"; then
	echo "FAIL: mujoco-cameras --check exited $rc" >&2
	fail=1
fi
if [ "$(grep -c '^check: step ' "$tmp/check")" -ne 3 ]; then
	echo "FAIL: mujoco-cameras --check did not check 3 steps" >&2
	fail=1
fi

# The plain run: every step sees the scene.
"$prog" --cameras 3 --size 48x32 --steps 2 >"$tmp/run" 2>&1
rc=$?
cat "$tmp/run"
if [ "$rc" -ne 0 ] || [ "$(grep -c '^step .* geoms in view' "$tmp/run")" -ne 2 ]; then
	echo "FAIL: mujoco-cameras exited $rc or did not report 2 steps" >&2
	fail=1
fi
exit $fail
