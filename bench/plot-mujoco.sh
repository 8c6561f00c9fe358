#!/bin/bash
# The plot of doc/performance.md's MuJoCo table, with gnuplot, from the
# table `mujoco-cameras --bench` prints (saved to a file, or the table in
# examples/mujoco/README.md):
#
#     bench/plot-mujoco.sh TABLE.md OUT.png
#
# One group of bars per batch (cameras x size): camera frames per second
# (log scale) of glcuda's capture, mjr_readPixels with one upload, CUDA's
# GL registration, and the loop with physics with glcuda and with
# mjr_readPixels. Runs where gnuplot is (apt-get install gnuplot-nox).
# SPDX-License-Identifier: MIT
set -euo pipefail

table=${1:?usage: bench/plot-mujoco.sh TABLE.md OUT.png}
out=${2:?usage: bench/plot-mujoco.sh TABLE.md OUT.png}
if ! command -v gnuplot > /dev/null 2>&1; then
	echo "plot-mujoco.sh: gnuplot is not installed (apt-get install gnuplot-nox)" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "| 256 | 64x64 | 5039/s, 50.8 ms | 3834/s, 66.7 ms | 1043/s, 245 ms |
#  6190/s | 3441/s |" -> "256x64x64 5039 3834 1043 6190 3441"
awk -F'|' '
	function fps(s) { sub(/\/s.*/, "", s); gsub(/[ ,]/, "", s); return s }
	/^\| *[0-9]+ *\| *[0-9]+x[0-9]+ *\|/ {
		n = $2; gsub(/ /, "", n); size = $3; gsub(/ /, "", size)
		print n "x" size, fps($4), fps($5), fps($6), fps($7), fps($8)
	}' "$table" > "$tmp/data"
if [ ! -s "$tmp/data" ]; then
	echo "plot-mujoco.sh: no rows of the benchmark's table in $table" >&2
	exit 1
fi
gnuplot <<GP
set terminal pngcairo size 1100,560 font ",10" noenhanced
set output "$out"
set title "MuJoCo 2.2.2 cameras into CUDA on an H200 (examples/mujoco --bench)"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.85 border -1
set logscale y
set ylabel "camera frames per second (log)"
set xlabel "cameras x pixels"
set key below
set grid ytics
plot "$tmp/data" using 2:xtic(1) title "glcuda capture + one copy", \
     "" using 3 title "mjr_readPixels + one upload", \
     "" using 4 title "CUDA GL registration", \
     "" using 5 title "with mj_step physics: glcuda", \
     "" using 6 title "with mj_step physics: mjr_readPixels"
GP
echo "wrote $out"
