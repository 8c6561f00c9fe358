#!/bin/bash
# Run the GPU suites under NVIDIA's compute-sanitizer, on the GPU machine,
# from the project root (after scripts/gpu-build.sh on the development
# machine, as for scripts/gpu-test.sh):
#
#     scripts/gpu-sanitizer.sh [--unpack] [--tools T1,T2,...] [TEST...]
#
# --unpack  first unpack the runtime libraries of .gl/*.deb (root needed).
# --tools   the sanitizer tools to run, comma-separated; default
#           memcheck,racecheck,synccheck,initcheck.
# SANITIZER_TIMEOUT: the seconds one run may take (default 1200).
# TEST...   the suites, as named in build-gpu/, or demo:FILTER[:FORMAT]
#           (glcuda-demo, 12 frames at 641x479, an odd size, so that the
#           filters' edge handling is checked); default: tests/test-cuda
#           tests/test-ring tests/test-wrap tests/test-threads
#           tests/test-faults, and the demo with each filter (rgba8; blur
#           also rgba16f and rgba32f). The suites' kernels use no shared
#           memory or barriers, which racecheck and synccheck look at; the
#           demo's filters are where those would be.
#
# Each suite runs once per tool, from build-gpu/ as `make check` would run
# it, with --error-exitcode so that a finding fails the run whatever the
# suite's own verdict. Check forks each test case: --target-processes all
# follows the children. memcheck also checks device-memory leaks at each
# context's teardown (--leak-check full) and reports every failed CUDA API
# call: those the suites provoke on purpose are listed, with the test
# function that expects them, in tests/compute-sanitizer.expected, and only
# they are allowed (glcuda's injected faults fail before the driver is
# called, so test-faults provokes none). GLCUDA_TEST_SANITIZER=1 tells the
# suites that free device memory no longer tells leaks apart (the
# sanitizer's own allocations come and go): they print it without
# comparing, and memcheck's leak check takes its place.
#
# The full log of each run goes to ${OUT:-build-gpu}/sanitizer/TOOL-NAME.log.
# One line per run:
#
#     PASS: memcheck tests/test-wrap (0 findings; 31 expected API errors, 36s)
#     FAIL: racecheck tests/test-cuda (3 findings, 12s)
#
# then the sanitizer's findings of the failed runs (the lines starting with
# "=========" that name an error), and "N passed, N failed". Exit status:
# non-zero if any run failed.
set -uo pipefail

unpack=no
tools=memcheck,racecheck,synccheck,initcheck
while [ $# -gt 0 ]; do
	case $1 in
	--unpack) unpack=yes; shift ;;
	--tools) tools=$2; shift 2 ;;
	--tools=*) tools=${1#--tools=}; shift ;;
	-*) echo "unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done

root=$(pwd)
build=$root/build-gpu
if [ ! -d "$build/tests" ]; then
	echo "no build-gpu/tests: run scripts/gpu-build.sh on the development machine first" >&2
	exit 2
fi
if [ $unpack = yes ]; then
	scripts/gpu-unpack.sh || exit 2
fi

sanitizer=$(command -v compute-sanitizer || true)
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do
	[ -z "$sanitizer" ] && [ -x "$d/compute-sanitizer" ] && sanitizer=$d/compute-sanitizer
done
if [ -z "$sanitizer" ]; then
	echo "compute-sanitizer not found (PATH, /usr/local/cuda/bin)" >&2
	exit 2
fi

# shellcheck source=scripts/gpu-nvidia-env.sh
. "$(dirname "$0")/gpu-nvidia-env.sh"
export srcdir=$root top_srcdir=$root top_builddir=$build
export abs_top_srcdir=$root abs_top_builddir=$build
# Check's own per-test timeout, raised for the sanitizer's slowdown.
export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-20}
export GLCUDA_TEST_SANITIZER=1
# test-faults fails each CUDA call site of lib/ once, by its site, instead
# of every call of its scenario in turn: under a sanitizer the sweep of
# every call takes over ten minutes per API, the site list under two.
export GLCUDA_FAULTS_BY_SITE=1
expected=$root/tests/compute-sanitizer.expected

# LOG: prints "ERRORS EXPECTED UNEXPECTED-LIST": the errors of the summary
# lines (memcheck, synccheck, initcheck: "ERROR SUMMARY: N errors";
# racecheck: "RACECHECK SUMMARY: ... (N errors, M warnings)", warnings
# counted too), how many of them are API errors that
# tests/compute-sanitizer.expected allows, and the others' call:error:frame.
count_findings()
{
	awk -v expected="$expected" '
	BEGIN {
		while ((getline line < expected) > 0) {
			sub(/#.*/, "", line)
			if (split(line, f, " ") == 3)
				allow[f[1] " " f[2] " " f[3]] = 1
		}
	}
	function close_hit() {
		if (call == "")
			return
		if (allow[call " " err " " frame])
			ok++
		else
			bad = bad " " call ":" err ":" (frame == "" ? "?" : frame)
		call = ""
	}
	/^========= Program hit / {
		close_hit()
		err = $4; call = $NF; sub(/\.$/, "", call); frame = ""
		next
	}
	/Host Frame: .* in test-[a-z-]*\.c:/ {
		if (call != "" && frame == "") {
			frame = $0
			sub(/.*Host Frame: */, "", frame); sub(/ .*/, "", frame)
		}
		next
	}
	/^========= [^ ]/ { close_hit() }
	/ERROR SUMMARY: [0-9]+ error/ {
		for (i = 1; i <= NF; i++) if ($i == "SUMMARY:") errors += $(i + 1)
	}
	/RACECHECK SUMMARY:/ {
		s = $0; sub(/.*\(/, "", s); split(s, r, /[ ,]+/); errors += r[1] + r[3]
	}
	END { close_hit(); print errors + 0, ok + 0, bad }
	' "$1"
}

if [ $# -gt 0 ]; then
	tests=("$@")
else
	tests=(tests/test-cuda tests/test-ring tests/test-wrap tests/test-threads tests/test-faults
		demo:none demo:invert demo:blur demo:unsharp demo:grade demo:blur:rgba16f
		demo:blur:rgba32f)
fi

logdir=${OUT:-$build}/sanitizer
mkdir -p "$logdir"
"$sanitizer" --version | tail -n 1

passed=0 failed=0
failed_logs=()
IFS=, read -r -a tool_list <<< "$tools"
for tool in "${tool_list[@]}"; do
	case $tool in
	memcheck) opts=(--leak-check full) ;;
	racecheck) opts=(--racecheck-report all) ;;
	synccheck | initcheck) opts=() ;;
	*) echo "unknown tool $tool" >&2; exit 2 ;;
	esac
	for t in "${tests[@]}"; do
		case $t in
		demo:*)
			IFS=: read -r _ filter format <<< "$t"
			cmd=(./tools/glcuda-demo/glcuda-demo --quiet --frames 12 --size 641x479 --png-frames none
				--filter "$filter" --format "${format:-rgba8}")
			log=$logdir/$tool-demo-$filter${format:+-$format}.log ;;
		*)
			t=tests/${t#tests/}
			cmd=("./$t")
			log=$logdir/$tool-$(basename "$t").log ;;
		esac
		if [ ! -x "$build/${cmd[0]}" ]; then
			echo "FAIL: $tool $t (${cmd[0]} not built)"
			failed=$((failed + 1))
			continue
		fi
		start=$(date +%s)
		(cd "$build" && timeout "${SANITIZER_TIMEOUT:-1200}" "$sanitizer" --tool "$tool" "${opts[@]}" \
			--target-processes all --error-exitcode 86 "${cmd[@]}") > "$log" 2>&1
		status=$?
		secs=$(($(date +%s) - start))
		summaries=$(grep -cE '(ERROR|RACECHECK) SUMMARY' "$log")
		read -r errors allowed unexpected <<< "$(count_findings "$log")"
		findings=$((errors - allowed))
		what="$findings findings; $allowed expected API errors"
		# The sanitizer's exit code counts the expected API errors too.
		if { [ $status -eq 0 ] || { [ $status -eq 86 ] && [ $findings -eq 0 ]; }; } &&
			[ $findings -eq 0 ] && [ -z "$unexpected" ] && [ "$summaries" -gt 0 ]; then
			echo "PASS: $tool $t ($what, ${secs}s)"
			passed=$((passed + 1))
		else
			why="exit $status"
			[ $status -eq 86 ] && why="sanitizer findings"
			[ $status -eq 124 ] && why="timeout"
			[ "$summaries" -eq 0 ] && why="$why, no summary line"
			[ -n "$unexpected" ] && why="$why, unexpected API errors:$unexpected"
			echo "FAIL: $tool $t ($what, $why, ${secs}s)"
			failed=$((failed + 1))
			failed_logs+=("$log")
		fi
	done
done

for log in "${failed_logs[@]}"; do
	echo "===== $log: findings (first 60 lines), then its last 15 lines"
	grep -E '^========= +[A-Z]|^=========     at ' "$log" | head -n 60
	tail -n 15 "$log"
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
