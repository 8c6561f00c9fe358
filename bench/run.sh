#!/bin/bash
# Run glcuda-bench on the GPU machine, from the project root, with NVIDIA's
# default GL yield behaviour and with __GL_YIELD=USLEEP, and write
# DIR/results.md (the commands, the machine, every table) next to the
# program's own tables and CSVs:
#
#     bench/run.sh [--quick | --full] [--yield default|usleep|both]
#                  [--out DIR] [--bin PATH] [--budget SECONDS] [--unpack]
#                  [-- BENCH-OPTIONS...]
#     bench/run.sh --report DIR        # only rebuild DIR/results.md
#
# --quick/--full   the program's presets (default --full)
# --yield          which GL yield settings to run (default both)
# --out DIR        default bench/results/<today>; runs into the same DIR add
#                  to it (each run's files carry its own label)
# --bin PATH       the program (default build-gpu/bench/glcuda-bench, made by
#                  scripts/gpu-build.sh)
# --budget S       the whole script's time (default 540 s, under the GPU
#                  machine's 10 minutes a command): each run gets its share
#                  as --time-limit, and what does not fit is marked skipped
# --unpack         first unpack .gl/*.deb into / (GLVND, the Vulkan loader,
#                  libepoxy), as scripts/gpu-test.sh --unpack does; needs root
# BENCH-OPTIONS    passed to glcuda-bench (--sizes, --kernels, --paths, ...)
#
# The full preset takes about 16 minutes per yield setting: split it by
# size (and 4k-f16 by kernel), with the same --out, e.g.
#     bench/run.sh --full --yield both    -- --sizes 1080p
#     bench/run.sh --full --yield default -- --sizes 4k
#     bench/run.sh --full --yield usleep  -- --sizes 4k
#     bench/run.sh --full --yield default -- --sizes 4k-f16 --kernels invert
#     (and blur, and both again with --yield usleep)
# bench/README.md lists the commands. gnuplot is probably absent there: bench/plot.sh DIR
# makes the plots on the development machine from the CSVs (and rebuilds
# results.md with them).
set -uo pipefail

preset=--full
yields=both
out=
bin=build-gpu/bench/glcuda-bench
budget=540
unpack=no
report_only=

while [ $# -gt 0 ]; do
	case $1 in
	--quick | --full) preset=$1 ;;
	--yield) yields=${2:?--yield needs default, usleep or both}; shift ;;
	--out) out=${2:?--out needs a directory}; shift ;;
	--bin) bin=${2:?--bin needs a path}; shift ;;
	--budget) budget=${2:?--budget needs seconds}; shift ;;
	--unpack) unpack=yes ;;
	--report) report_only=${2:?--report needs a directory}; shift ;;
	--) shift; break ;;
	-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
bench_args=("$@")

# results.md: the commands, then every table of every run in DIR, with the
# plots if bench/plot.sh made them.
write_report() {
	local dir=$1 f
	{
		echo "# glcuda benchmark results"
		echo
		echo "glcuda's frame ring against the legacy CUDA-GL registration"
		echo "(cuGraphicsGLRegisterImage, map/unmap per frame, pipelined as deep"
		echo "as the ring) and a pipelined PBO readback, with the same GL work and"
		echo "the same CUDA kernel, in one process (bench/glcuda-bench.c; targets"
		echo "in doc/design.md §7). Throughput counts composited frames; every"
		echo "run's last frame is checked exactly; each bench-*.md starts with"
		echo "its headline table."
		echo
		echo "## Commands"
		echo
		echo "From the project root on the GPU machine:"
		echo
		echo '```'
		# One file per invocation, so that runs made apart (each into its
		# own output folder) can be copied together.
		for f in "$dir"/commands-*.txt; do
			[ -f "$f" ] && cat "$f"
		done
		echo '```'
		ext=png
		if ! ls "$dir"/fps-*.png > /dev/null 2>&1; then ext=svg; fi
		if ls "$dir"/fps-*.$ext > /dev/null 2>&1; then
			echo
			echo "## Plots"
			echo
			echo "Frames per second and process CPU per frame, per path, both"
			echo "__GL_YIELD settings (bench/plot.sh)."
			echo
			for f in "$dir"/fps-*.$ext; do
				f=$(basename "$f" .$ext)
				echo "![$f]($f.$ext) ![cpu${f#fps}](cpu${f#fps}.$ext)"
				echo
			done
		fi
		for f in "$dir"/bench-*.md; do
			[ -f "$f" ] || continue
			echo
			cat "$f"
		done
	} > "$dir/results.md"
	echo "wrote $dir/results.md"
}

if [ -n "$report_only" ]; then
	write_report "$report_only"
	exit 0
fi

if [ ! -f configure.ac ] || [ ! -f lib/glcuda.sym ]; then
	echo "run.sh: run from the glcuda project root" >&2
	exit 2
fi
if [ ! -x "$bin" ]; then
	echo "run.sh: no $bin: build it with scripts/gpu-build.sh on the development machine" >&2
	exit 2
fi

if [ $unpack = yes ]; then
	scripts/gpu-unpack.sh || exit 2
fi

# GLVND and the Vulkan loader find the NVIDIA driver here on the GPU machine.
# shellcheck source=scripts/gpu-nvidia-env.sh
. "$(dirname "$0")/../scripts/gpu-nvidia-env.sh"

out=${out:-bench/results/$(date +%Y-%m-%d)}
mkdir -p "$out" || exit 1

case $yields in
default) list=(default) ;;
usleep) list=(usleep) ;;
both) list=(default usleep) ;;
*) echo "run.sh: --yield default, usleep or both" >&2; exit 2 ;;
esac

# A label per run, so that runs into the same DIR do not overwrite each
# other: the yield setting, then the sizes and kernels if given.
part=${preset#--}
for ((i = 0; i < ${#bench_args[@]}; i++)); do
	case ${bench_args[i]} in
	--sizes | --kernels | --paths) part="$part-${bench_args[i + 1]:-}" ;;
	--sizes=* | --kernels=* | --paths=*) part="$part-${bench_args[i]#*=}" ;;
	esac
done
part=$(echo "$part" | tr -c 'A-Za-z0-9.\n_-' '_')
commands=$out/commands-$part-$yields.txt

echo "bench/run.sh $preset --yield $yields --out $out${bench_args[*]:+ -- ${bench_args[*]}}" \
	>> "$commands"

start=$(date +%s)
status=0
n=${#list[@]}
for y in "${list[@]}"; do
	now=$(date +%s)
	left=$((budget - (now - start)))
	share=$((left / n))
	n=$((n - 1))
	if [ $share -lt 20 ]; then
		echo "run.sh: no time left for __GL_YIELD=$y (budget $budget s)" >&2
		status=1
		continue
	fi
	label=yield-$y-$part
	if [ $y = usleep ]; then
		envs=(env __GL_YIELD=USLEEP)
	else
		envs=(env -u __GL_YIELD)
	fi
	# Leave 15 s of the share for the last run and the teardown.
	args=("$bin" "$preset" --out "$out" --label "$label" --time-limit $((share - 15))
	      "${bench_args[@]}")
	echo "${envs[*]} ${args[*]}" | sed 's/^env -u __GL_YIELD /(__GL_YIELD unset) /; s/^env //' \
		>> "$commands"
	echo "== __GL_YIELD=${y}: ${args[*]}"
	"${envs[@]}" "${args[@]}" 2>&1 | tee "$out/log-$label.txt"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		echo "run.sh: glcuda-bench exited $rc (log: $out/log-$label.txt)" >&2
		status=1
	fi
done

if command -v gnuplot > /dev/null 2>&1; then
	"$(dirname "$0")/plot.sh" "$out" || status=1
else
	write_report "$out"
	echo "gnuplot is not installed here: make the plots on the development machine with"
	echo "    bench/plot.sh $out"
fi
exit $status
