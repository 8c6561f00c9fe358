#!/bin/bash
# Run the tests built by scripts/gpu-build.sh on the GPU machine, from the
# project root:
#
#     scripts/gpu-test.sh [--unpack] [TEST...]
#
# --unpack  first unpack the runtime libraries of .gl/*.deb into / (GLVND's
#           libEGL and libGL, the Vulkan loader, libepoxy, libsubunit), which
#           the GPU machine lacks; needs root.
# TEST...   run only these tests (names as in build-gpu/gpu-tests.list, or
#           their basenames); default: all.
#
# Each test runs in build-gpu/ with a 600 s timeout; exit status 0 is PASS,
# 77 SKIP, anything else FAIL. Logs go to ${OUT:-build-gpu}/gpu-logs/NAME.log.
# A SKIP that tests/expected-skips does not allow on the GPU machine (it
# allows none) counts as a failure: there, every test must run. The last line
# says "N passed, N failed, N skipped"; the exit status is non-zero if any
# test failed.
set -uo pipefail

unpack=no
if [ "${1:-}" = --unpack ]; then
	unpack=yes
	shift
fi

root=$(pwd)
build=$root/build-gpu
if [ ! -f "$build/gpu-tests.list" ]; then
	echo "no build-gpu/gpu-tests.list: run scripts/gpu-build.sh on the development machine first" >&2
	exit 1
fi

if [ $unpack = yes ]; then
	scripts/gpu-unpack.sh || exit 2
fi

# GLVND and the Vulkan loader find the NVIDIA driver here on the GPU machine.
# shellcheck source=scripts/gpu-nvidia-env.sh
. "$(dirname "$0")/gpu-nvidia-env.sh"
# What `make check` gives the tests.
export srcdir=$root top_srcdir=$root top_builddir=$build
export abs_top_srcdir=$root abs_top_builddir=$build

logdir=${OUT:-$build}/gpu-logs
mkdir -p "$logdir"

mapfile -t tests < "$build/gpu-tests.list"
if [ $# -gt 0 ]; then
	all=("${tests[@]}")
	tests=()
	for w in "$@"; do
		found=no
		for t in "${all[@]}"; do
			if [ "$t" = "$w" ] || [ "$(basename "$t")" = "$w" ]; then
				tests+=("$t")
				found=yes
			fi
		done
		if [ $found = no ]; then
			echo "$w is not a test of build-gpu/gpu-tests.list" >&2
			exit 1
		fi
	done
fi

passed=0 failed=0 skipped=0
failed_names=()
for t in "${tests[@]}"; do
	name=$(basename "$t")
	log=$logdir/$name.log
	if [ -x "$build/$t" ]; then
		path=$build/$t
	elif [ -f "$root/$t" ]; then
		path=$root/$t  # a script from the source tree
	else
		echo "FAIL: $t (not built)"
		echo "$t: not found in build-gpu/ or the source tree" > "$log"
		failed=$((failed + 1))
		failed_names+=("$t")
		continue
	fi
	start=$(date +%s)
	(cd "$build" && timeout 600 "$path") > "$log" 2>&1
	status=$?
	secs=$(($(date +%s) - start))
	case $status in
	0) result=PASS; passed=$((passed + 1)) ;;
	77)
		if awk -v t="$t" '$1 == "gpu" && $2 == t { found = 1 } END { exit !found }' \
			"$root/tests/expected-skips"; then
			result=SKIP; skipped=$((skipped + 1))
		else
			result="FAIL (skipped, which tests/expected-skips does not allow here)"
			failed=$((failed + 1)); failed_names+=("$t")
		fi ;;
	124) result="FAIL (timeout)"; failed=$((failed + 1)); failed_names+=("$t") ;;
	*) result="FAIL (exit $status)"; failed=$((failed + 1)); failed_names+=("$t") ;;
	esac
	echo "$result: $t (${secs}s)"
	if [ $status -eq 77 ]; then
		tail -n 1 "$log" | sed 's/^/      /'
	fi
done

for t in "${failed_names[@]}"; do
	name=$(basename "$t")
	echo "===== $t (last 40 lines of $logdir/$name.log)"
	tail -n 40 "$logdir/$name.log"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
