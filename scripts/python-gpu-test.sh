#!/bin/bash
# Run the Python package's checks on the GPU machine, with the stage
# scripts/python-gpu-build.sh made on the development machine
# (build-python-gpu/stage), from the project root:
#
#     scripts/python-gpu-test.sh [--unpack] [--quick] [CHECK...]
#
# --unpack  first unpack .gl/*.deb into / (GLVND's libEGL and libGL,
#           libepoxy), as scripts/gpu-test.sh does; needs root.
# --quick   the threads check for 10 s instead of 60.
# CHECK...  run only these, of consumers, stream, copy_from, threads,
#           pyopengl, memcheck, batch, bench and profile (default: all).
#
# The checks (python/tests/gpu_check.py; each prints PASS or FAIL lines
# with what it measured):
#   consumers  torch, CuPy and JAX take single and layered images (1 of
#              1920x1080, 256 of 128x128, 64 of 512x512; colour and the
#              depth plane; CuPy also through __cuda_array_interface__),
#              every pixel against glReadPixels of the same layer;
#   stream     torch's current stream is honoured: a long kernel on the
#              default stream does not delay nor race the export on the
#              current stream, and GL's next draw waits for the copy on
#              the GPU (the CPU does not wait for the busy stream);
#   copy_from  torch tensors into images (and a wrapped GL texture), then
#              glReadPixels, every pixel;
#   pyopengl   a PyOpenGL renderer's framebuffer (single-sampled and
#              multisampled) captured, colour and depth, both row orders,
#              against PyOpenGL's glReadPixels; PyOpenGL is taken from
#              .whl/pyopengl (doc/gpu-testing.md);
#   threads    eight Headless devices on eight threads rendering and
#              exporting for 60 s: no hang, no error;
#   memcheck   compute-sanitizer --tool memcheck over consumers (torch),
#              stream and copy_from: no finding;
#   batch      examples/python/batch_render.py at 2 048 layers of 64x64
#              (the million-frames target);
#   bench      examples/python/bench_sizes.py (the table of
#              doc/performance.md);
#   profile    examples/python/profile_dlpack.py, with GLCUDA_PY_PROFILE=1
#              and without: the CPU of __dlpack__, torch.from_dlpack and
#              copy_to a call, and the module's stages (doc/python.md,
#              "Performance").
# One renderer per GPU under torchrun, with the scaling over the GPUs, is
# scripts/python-gpu-multi.sh.
# All of them take about 8 minutes; memcheck alone about half of that.
# Logs go to ${OUT:-build-python-gpu}/python-logs/; the last line says
# "N passed, N failed, N skipped"; the exit status is non-zero if a check
# failed.
# SPDX-License-Identifier: MIT
set -uo pipefail

unpack=no quick=no checks=
for arg; do
	case $arg in
	--unpack) unpack=yes ;;
	--quick) quick=yes ;;
	consumers | stream | copy_from | threads | pyopengl | memcheck | batch | \
		bench | profile)
		checks="$checks $arg" ;;
	*) echo "unknown argument: $arg" >&2; exit 2 ;;
	esac
done
checks=${checks:-consumers stream copy_from threads pyopengl memcheck batch bench profile}
wanted() {
	case " $checks " in *" $1 "*) return 0 ;; esac
	return 1
}
# shellcheck source=scripts/python-gpu-stage.sh
. "$(dirname "$0")/python-gpu-stage.sh"
# JAX takes 75 % of the GPU's memory up front otherwise, and torch shares it.
XLA_PYTHON_CLIENT_PREALLOCATE=false
export PYTHONPATH LD_LIBRARY_PATH XLA_PYTHON_CLIENT_PREALLOCATE
export PYTHONDONTWRITEBYTECODE
logdir=${OUT:-$(pwd)/build-python-gpu}/python-logs
mkdir -p "$logdir"
check=python/tests/gpu_check.py

# run NAME TIMEOUT COMMAND...: its PASS and FAIL lines count; a non-zero
# exit without a FAIL line is a failure too (a crash, a timeout).
run() {
	local name=$1 limit=$2 status
	shift 2
	timeout -k 10 "$limit" "$@" > "$logdir/$name.log" 2>&1
	status=$?
	while IFS= read -r line; do
		case $line in
		PASS:*) pass "$name: ${line#PASS: }" ;;
		FAIL:*) fail "$name: ${line#FAIL: }" ;;
		esac
	done < "$logdir/$name.log"
	if [ $status -ne 0 ] && ! grep -q '^FAIL:' "$logdir/$name.log"; then
		why=
		[ $status -eq 124 ] && why=" (timed out after $limit s)"
		fail "$name: exit status $status$why; the log's end:"
		tail -n 15 "$logdir/$name.log"
	fi
}

echo "$("$PYTHON" --version), glcuda" \
	"$("$PYTHON" -c 'import glcuda; print(glcuda.__version__)' 2>&1)"
seconds=60
[ $quick = yes ] && seconds=10
for name in consumers stream copy_from; do
	wanted $name && run $name 300 "$PYTHON" $check $name
done
# PyOpenGL is pure Python: a copy of it carried in .whl/pyopengl, found
# through EGL (PYOPENGL_PLATFORM=egl, pyopengl_scene.py).
wanted pyopengl &&
	PYTHONPATH=$PYTHONPATH:$(pwd)/.whl/pyopengl PYOPENGL_PLATFORM=egl \
		run pyopengl 300 "$PYTHON" $check pyopengl
wanted threads &&
	run threads $((seconds + 180)) "$PYTHON" $check threads --threads 8 \
		--seconds $seconds

sanitizer=$(command -v compute-sanitizer ||
	echo /usr/local/cuda/bin/compute-sanitizer)
if ! wanted memcheck; then
	:
elif [ -x "$sanitizer" ]; then
	for what in "consumers --only torch" stream copy_from; do
		name=memcheck-${what%% *}
		# shellcheck disable=SC2086 # the check's arguments
		run "$name" 600 "$sanitizer" --tool memcheck --error-exitcode 99 \
			--target-processes all "$PYTHON" $check $what
		summary=$(grep -E '^========= ERROR SUMMARY' "$logdir/$name.log" | tail -n1)
		case $summary in
		*" 0 errors"*) pass "$name: compute-sanitizer: $summary" ;;
		*) fail "$name: compute-sanitizer:" \
			"${summary:-no summary (see $logdir/$name.log)}" ;;
		esac
	done
else
	fail "memcheck: compute-sanitizer not found (PATH, /usr/local/cuda/bin)"
fi

if wanted batch; then
	timeout 300 "$PYTHON" examples/python/batch_render.py --envs 2048 \
		--size 64x64 --seconds 5 --paths glcuda,dlpack > "$logdir/batch-2048.log" 2>&1
	status=$?
	cat "$logdir/batch-2048.log"
	if [ $status -eq 0 ]; then
		pass "batch_render.py 2048 x 64x64:" \
			"$(grep '^glcuda ' "$logdir/batch-2048.log")"
	else
		fail "batch_render.py 2048 x 64x64: exit status $status"
	fi
fi
if wanted bench; then
	timeout 600 "$PYTHON" examples/python/bench_sizes.py > "$logdir/bench.md" 2>&1
	status=$?
	cat "$logdir/bench.md"
	if [ $status -eq 0 ] && ! grep -q WRONG "$logdir/bench.md"; then
		pass "bench_sizes.py: the table is in $logdir/bench.md"
	else
		fail "bench_sizes.py: exit status $status (see $logdir/bench.md)"
	fi
fi

if wanted profile; then
	for how in profile no-profile; do
		opt=
		[ $how = no-profile ] && opt=--no-profile
		# shellcheck disable=SC2086 # the option, or none
		timeout 300 "$PYTHON" examples/python/profile_dlpack.py $opt \
			> "$logdir/$how.md" 2>&1
		status=$?
		cat "$logdir/$how.md"
		if [ $status -eq 0 ]; then
			pass "profile_dlpack.py $opt: the tables are in" \
				"$logdir/$how.md"
		else
			fail "profile_dlpack.py $opt: exit status $status" \
				"(see $logdir/$how.md)"
		fi
	done
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
