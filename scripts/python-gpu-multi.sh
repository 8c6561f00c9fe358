#!/bin/bash
# One renderer per GPU under torch.distributed on the GPU machine:
# examples/python/multi_gpu.py through torchrun on one GPU, then, when CUDA
# sees several, on all of them, with the scaling ratio. Run from the project
# root with the stage scripts/python-gpu-build.sh made on the development
# machine (build-python-gpu/stage) and torch with CUDA installed:
#
#     scripts/python-gpu-multi.sh [--unpack] [--seconds S] [--gpus N]
#                                 [-- MULTI_GPU_ARGS...]
#
# --unpack   first unpack .gl/*.deb into / (scripts/gpu-unpack.sh); root.
# --seconds  how long each run trains (default 20).
# --gpus     the processes of the second run (default: every GPU CUDA sees).
# Arguments after -- go to multi_gpu.py (e.g. --envs 512 --size 128x128).
#
# Checks (PASS or FAIL with what was measured):
#   1 GPU      torchrun --nproc-per-node=1: the rank binds to CUDA device
#              0 (its EGL device and UUID printed) and trains;
#   N GPUs     torchrun --nproc-per-node=N: every rank binds to its own
#              device (N different UUIDs) and trains;
#   scaling    the N-GPU total frames/s over N x the one-GPU total: at
#              least 0.95.
# Logs go to ${OUT:-build-python-gpu}/multi-gpu-logs/; the last line says
# "N passed, N failed, N skipped"; the exit status is non-zero if a check
# failed.
# SPDX-License-Identifier: MIT
set -uo pipefail

unpack=no seconds=20 gpus=
while [ $# -gt 0 ]; do
	case $1 in
	--unpack) unpack=yes ;;
	--seconds) seconds=$2; shift ;;
	--gpus) gpus=$2; shift ;;
	--) shift; break ;;
	*) echo "unknown argument: $1" >&2; exit 2 ;;
	esac
	shift
done
# shellcheck source=scripts/python-gpu-stage.sh
. "$(dirname "$0")/python-gpu-stage.sh"
logdir=${OUT:-$(pwd)/build-python-gpu}/multi-gpu-logs
mkdir -p "$logdir"

if ! count=$("$PYTHON" -c 'import torch; print(torch.cuda.device_count())' \
	2> "$logdir/torch.log"); then
	fail "torch does not import: $(tail -n1 "$logdir/torch.log")"
	echo "$passed passed, $failed failed, $skipped skipped"
	exit 1
fi
gpus=${gpus:-$count}
echo "$("$PYTHON" --version), torch $("$PYTHON" -c \
	'import torch; print(torch.__version__)'), CUDA sees $count GPU(s)"

# run N: torchrun on N GPUs; sets $total (the total frames/s, empty if the
# run failed) and prints the ranks' lines.
run() {
	local n=$1 log=$logdir/nproc-$1.log status bound uuids
	timeout -k 10 $((seconds + 240)) "$PYTHON" -m torch.distributed.run \
		--standalone --nproc-per-node="$n" examples/python/multi_gpu.py \
		--seconds "$seconds" "${extra[@]}" > "$log" 2>&1
	status=$?
	grep -E '^(rank|total)' "$log"
	total=$(sed -n 's/^total: .* ranks \([0-9.]*\) frames\/s.*/\1/p' "$log")
	bound=$(grep -c '^rank .* UUID ' "$log")
	uuids=$(sed -n 's/^rank .* UUID \([0-9a-f-]*\)$/\1/p' "$log" |
		sort -u | wc -l)
	if [ $status -ne 0 ] || [ -z "$total" ]; then
		fail "$n GPU(s): exit status $status; the log's end:"
		tail -n 15 "$log"
		total=
	elif [ "$bound" -ne "$n" ] || [ "$uuids" -ne "$n" ]; then
		fail "$n GPU(s): $bound ranks bound to $uuids distinct GPUs"
		total=
	else
		pass "$n GPU(s): $n ranks on $uuids GPUs, $total frames/s in all"
	fi
}

extra=("$@")
run 1
one=$total
if [ "$gpus" -lt 2 ]; then
	skip "scaling: CUDA sees $count GPU (--gpus $gpus): nothing to scale to"
else
	run "$gpus"
	if [ -n "$one" ] && [ -n "$total" ]; then
		ratio=$(awk -v t="$total" -v o="$one" -v n="$gpus" \
			'BEGIN { printf "%.3f", t / (n * o) }')
		line="$gpus GPUs $total frames/s over $gpus x 1 GPU's $one: $ratio"
		if awk -v r="$ratio" 'BEGIN { exit !(r >= 0.95) }'; then
			pass "scaling: $line (>= 0.95)"
		else
			fail "scaling: $line (< 0.95)"
		fi
	else
		fail "scaling: a run failed, no ratio"
	fi
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
