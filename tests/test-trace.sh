#!/bin/sh
# bench/glcuda-trace, briefly: one scenario (timeline) and the EGLStreams
# row, at a small size. Run from the build directory (where make check runs
# tests); built with the benchmarks (nvcc).
#
# Everywhere: bad usage exits 2, and without a CUDA driver (forced) the
# trace exits non-zero naming GLCUDA_ERROR_NO_CUDA_DRIVER.
# With a CUDA driver (the GPU machine): the run exits 0, its timeline row
# has numbers, and its EGLStreams row is not "failed" (it may say
# "skipped" with the reason, where the driver lacks EGLStreams).
# SPDX-License-Identifier: MIT
set -u

trace=./bench/glcuda-trace
prog=$trace
. "${srcdir:-.}/tests/program-test.sh"

bad_usage "--frames 0" "--scenarios nope" "--size 12"

GLCUDA_LIBCUDA=/nonexistent/libcuda.so.1 "$trace" --size 64x64 --frames 2 --warmup 1 \
	--scenarios timeline --no-gl-switch >"$tmp/nodriver.out" 2>&1
rc=$?
if [ $rc -eq 0 ] || ! grep -q GLCUDA_ERROR_NO_CUDA_DRIVER "$tmp/nodriver.out"; then
	echo "FAIL: glcuda-trace without a CUDA driver exited $rc and said:" >&2
	cat "$tmp/nodriver.out" >&2
	fail=1
fi

"$trace" --size 256x256 --frames 20 --warmup 5 --scenarios timeline --isolated \
	--no-gl-switch >"$tmp/run.out" 2>&1
rc=$?
cat "$tmp/run.out"
if [ $rc -ne 0 ] && grep -q GLCUDA_ERROR_NO_CUDA_DRIVER "$tmp/run.out" &&
   ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
	echo "no CUDA driver here: checked the failure path only"
	exit $fail
fi
if [ $rc -ne 0 ]; then
	echo "FAIL: glcuda-trace exited $rc" >&2
	exit 1
fi
if ! grep -q '^| timeline, isolated | [0-9]' "$tmp/run.out"; then
	echo "FAIL: glcuda-trace printed no timeline row with numbers" >&2
	fail=1
fi
if ! grep -q '^| eglstream, isolated |' "$tmp/run.out" ||
   grep -q '^| eglstream, isolated | failed' "$tmp/run.out"; then
	echo "FAIL: glcuda-trace's EGLStreams row is missing or failed" >&2
	fail=1
fi
exit $fail
