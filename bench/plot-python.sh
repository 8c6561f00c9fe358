#!/bin/bash
# The plot of doc/performance.md's Python table, with gnuplot, from the
# table examples/python/bench_sizes.py prints (saved to a file):
#
#     bench/plot-python.sh TABLE.md OUT.png
#
# Two panels, one group of bars per size: camera frames per second (log
# scale) and CPU time per step (log scale), one bar per path (glcuda's
# copy_to, torch.from_dlpack, the read-back, the legacy registration).
# Runs where gnuplot is (the development machine; the GPU machine has
# none): apt-get install gnuplot-nox.
# SPDX-License-Identifier: MIT
set -euo pipefail

table=${1:?usage: bench/plot-python.sh TABLE.md OUT.png}
out=${2:?usage: bench/plot-python.sh TABLE.md OUT.png}
if ! command -v gnuplot > /dev/null 2>&1; then
	echo "plot-python.sh: gnuplot is not installed (apt-get install gnuplot-nox)" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "| 256 x 128x128 | glcuda (`copy_to`) | 1514.2 | 387 631 | 212.7 | exact |"
# -> one row per size: size, then frames/s and CPU µs of the four paths.
awk -F'|' '
	function num(s) { gsub(/[ ,]/, "", s); return s }
	/^\| *[0-9][0-9 ]* x [0-9]+x[0-9]+ *\|/ {
		size = $2; gsub(/^ +| +$/, "", size); gsub(/ /, "", size)
		path = $3; gsub(/^ +| +$/, "", path); sub(/ .*/, "", path)
		if (!(size in seen)) { seen[size] = 1; order[++n] = size }
		fps[size, path] = num($5); cpu[size, path] = num($6)
	}
	END {
		split("glcuda dlpack readback legacy", paths, " ")
		for (i = 1; i <= n; i++) {
			s = order[i]; line = "\"" s "\""
			for (p = 1; p <= 4; p++)
				line = line " " (((s, paths[p]) in fps) ? fps[s, paths[p]] : "?")
			for (p = 1; p <= 4; p++)
				line = line " " (((s, paths[p]) in cpu) ? cpu[s, paths[p]] : "?")
			print line
		}
	}' "$table" > "$tmp/data"
if [ ! -s "$tmp/data" ]; then
	echo "plot-python.sh: no rows of bench_sizes.py's table in $table" >&2
	exit 1
fi

gnuplot <<GNUPLOT
set terminal pngcairo size 1100,500 font "sans,10"
set output "$out"
set datafile missing "?"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key below horizontal
set grid ytics
set logscale y
set multiplot layout 1,2 title "glcuda from Python: a layered draw of N cameras into a (N, H, W, 4) torch tensor per step (H200)"
set title "camera frames per second (higher is better)"
set ylabel "frames/s"
plot "$tmp/data" using 2:xtic(1) title "glcuda copy\\\\_to", \
     "" using 3 title "torch.from\\\\_dlpack", \
     "" using 4 title "glReadPixels + .cuda()", \
     "" using 5 title "legacy map/copy/unmap"
set title "CPU time per step (lower is better)"
set ylabel "µs"
plot "$tmp/data" using 6:xtic(1) title "glcuda copy\\\\_to", \
     "" using 7 title "torch.from\\\\_dlpack", \
     "" using 8 title "glReadPixels + .cuda()", \
     "" using 9 title "legacy map/copy/unmap"
unset multiplot
GNUPLOT
echo "plot-python.sh: $out"
