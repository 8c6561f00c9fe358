#!/bin/sh
# A short run of bench/glcuda-soak on the fake CUDA driver (tests/fake-cuda),
# in the "cpu" sync mode without a kernel: the ring's bookkeeping, the
# soak's sampling and its verdict (fds, CUDA memory and RSS flat; frames
# verified on the input) on a machine without a GPU. Run from the build
# directory, after make check has built the fake.
# SPDX-License-Identifier: MIT
set -u

soak=./bench/glcuda-soak
fake_cuda_needs=$soak
. "${srcdir:-.}/tests/fake-cuda-env.sh"

# Timing is not judged here (a test must not depend on how busy the machine
# is): the p99 rule reports only; bench/soak.sh judges it on the GPU machine.
# Under AddressSanitizer (the sanitizer build sets ASAN_OPTIONS) freed memory
# sits in its quarantine, so RSS grows by design: the RSS rule is relaxed
# there; fds and CUDA memory keep their exact limits everywhere, and
# LeakSanitizer checks the run at exit like every other test.
rss_slack=1024
if [ -n "${ASAN_OPTIONS:-}" ]; then
	rss_slack=1048576
fi
"$soak" --cuda-device -1 --sync cpu \
	--kernel none --size 320x180 --frames 2000 --sample-every 400 --verify-every 10 \
	--p99-ratio 0 --rss-slack-kib $rss_slack
rc=$?
case $rc in
0) exit 0 ;;
77) exit 77 ;;
*) echo "FAIL: glcuda-soak exited $rc" >&2; exit 1 ;;
esac
