# shellcheck shell=bash
# Sourced by the GPU machine's check scripts (scripts/gst-gpu-test.sh,
# scripts/gpu-multi-test.sh): pass, fail and skip print one check's
# verdict with its evidence ("PASS: ...") and count it in $passed, $failed
# and $skipped.
# SPDX-License-Identifier: MIT
passed=0 failed=0 skipped=0
pass() {
	echo "PASS: $*"
	passed=$((passed + 1))
}
fail() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}
skip() {
	echo "SKIP: $*"
	skipped=$((skipped + 1))
}
