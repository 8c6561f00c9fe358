#!/bin/bash
# Run glcuda-soak on the GPU machine, from the project root, and keep its
# table and CSV:
#
#     bench/soak.sh [--unpack] [--out DIR] [--bin PATH] [--yield default|usleep]
#                   [-- SOAK-OPTIONS...]
#
# --unpack   first unpack .gl/*.deb into / (GLVND, the Vulkan loader,
#            libepoxy), as scripts/gpu-test.sh --unpack does; needs root
# --out DIR  where soak-LABEL.txt (the output) and soak-LABEL.csv go
#            (default ${OUT:-build-gpu}/soak)
# --bin PATH the program (default build-gpu/bench/glcuda-soak, made by
#            scripts/gpu-build.sh)
# --yield    __GL_YIELD unset (default) or USLEEP
# SOAK-OPTIONS are passed to glcuda-soak (--frames, --size, --verify-every,
#            --sample-every, --sync, --gles, ...; see glcuda-soak --help).
#
# The default run (100 000 frames at 1920x1080) takes about a minute on an
# H200. The exit status is glcuda-soak's: 0 PASS, 1 FAIL, 77 no NVIDIA GPU.
set -uo pipefail

unpack=no
out=${OUT:-build-gpu}/soak
bin=build-gpu/bench/glcuda-soak
yield=default

while [ $# -gt 0 ]; do
	case $1 in
	--unpack) unpack=yes ;;
	--out) out=${2:?--out needs a directory}; shift ;;
	--bin) bin=${2:?--bin needs a path}; shift ;;
	--yield) yield=${2:?--yield needs default or usleep}; shift ;;
	--) shift; break ;;
	-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "soak.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done

if [ $unpack = yes ]; then
	scripts/gpu-unpack.sh || exit 2
fi
if [ ! -x "$bin" ]; then
	echo "soak.sh: no $bin: run scripts/gpu-build.sh on the development machine first" >&2
	exit 2
fi

# GLVND and the Vulkan loader find the NVIDIA driver here on the GPU machine.
# shellcheck source=scripts/gpu-nvidia-env.sh
. "$(dirname "$0")/../scripts/gpu-nvidia-env.sh"

case $yield in
default) unset __GL_YIELD ;;
usleep) export __GL_YIELD=USLEEP ;;
*) echo "soak.sh: --yield default or usleep" >&2; exit 2 ;;
esac

mkdir -p "$out" || exit 1
label=$(date +%Y%m%d-%H%M%S)-$yield
echo "== $bin --csv $out/soak-$label.csv $*"
"$bin" --csv "$out/soak-$label.csv" "$@" 2>&1 | tee "$out/soak-$label.txt"
status=${PIPESTATUS[0]}
echo "== exit status $status; output in $out/soak-$label.txt"
exit "$status"
