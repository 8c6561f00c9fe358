#!/bin/bash
# Plots of a benchmark run, from its CSVs, with gnuplot (PNG, or SVG):
#
#     bench/plot.sh DIR
#
# For every size and kernel in DIR/summary-*.csv: fps-SIZE-KERNEL.png
# (frames per second per path) and cpu-SIZE-KERNEL.png (process CPU time
# per frame, log scale), one bar per __GL_YIELD setting; SVG where gnuplot
# lacks the pngcairo terminal. Then rebuilds DIR/results.md
# with the plots (bench/run.sh --report). Runs where the CSVs are: the GPU
# machine has no gnuplot, the development machine does.
set -euo pipefail

dir=${1:?usage: bench/plot.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v gnuplot > /dev/null 2>&1; then
	echo "plot.sh: gnuplot is not installed (apt-get install gnuplot-nox)" >&2
	exit 1
fi
shopt -s nullglob
csvs=("$dir"/summary-*.csv)
if [ ${#csvs[@]} -eq 0 ]; then
	echo "plot.sh: no $dir/summary-*.csv" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One data file per size and kernel and metric: a row per path (first-seen
# order), a column per yield setting; "?" where a run is missing.
awk -F, -v tmp="$tmp" '
FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
$(col["status"]) == "ok" || $(col["status"]) == "drops" {
	# The CUDA kernel alone runs at tens of thousands of fps: it would
	# flatten the fps plot; the tables have it.
	skip_fps = $(col["id"]) == "cuda"
	key = $(col["size"]) "-" $(col["kernel"])
	id = $(col["id"]); y = $(col["gl_yield"])
	if (!(key in seen_key)) { seen_key[key] = 1; keys[++nkeys] = key }
	if (!((key, id) in seen_id)) { seen_id[key, id] = 1; ids[key, ++nids[key]] = id }
	if (skip_fps) nofps[key, id] = 1
	if (!(y in seen_y)) { seen_y[y] = 1; ys[++nys] = y }
	fps[key, id, y] = $(col["fps"])
	cpu[key, id, y] = $(col["process_cpu_us"])
}
END {
	# NVIDIA'"'"'s default first, then the other settings.
	for (j = 2; j <= nys; j++)
		if (ys[j] == "default") { ys[j] = ys[1]; ys[1] = "default" }
	for (k = 1; k <= nkeys; k++) {
		key = keys[k]
		for (m = 0; m < 2; m++) {
			f = tmp "/" (m ? "cpu-" : "fps-") key ".dat"
			printf "path" > f
			for (j = 1; j <= nys; j++) printf " %s", ys[j] > f
			printf "\n" > f
			for (i = 1; i <= nids[key]; i++) {
				id = ids[key, i]
				if (!m && ((key, id) in nofps))
					continue
				printf "%s", id > f
				for (j = 1; j <= nys; j++) {
					v = m ? cpu[key, id, ys[j]] : fps[key, id, ys[j]]
					printf " %s", (v == "" ? "?" : v) > f
				}
				printf "\n" > f
			}
			close(f)
		}
	}
	printf "%d\n", nys > (tmp "/nyields")
}' "${csvs[@]}"

nyields=$(cat "$tmp/nyields")
if grep -qw pngcairo <<< "$(gnuplot -e 'set terminal' 2>&1)"; then
	ext=png
	term="pngcairo size %d,560 font \"sans,10\" background rgb \"white\""
else
	ext=svg
	term="svg size %d,560 dynamic font \"sans,11\" background rgb \"white\""
fi
rm -f "$dir"/fps-*.png "$dir"/cpu-*.png "$dir"/fps-*.svg "$dir"/cpu-*.svg
for dat in "$tmp"/*.dat; do
	name=$(basename "$dat" .dat)
	metric=${name%%-*}
	what=${name#*-}
	if [ "$metric" = fps ]; then
		ylabel="frames per second (higher is better)"
		scale="set yrange [0:*]"
	else
		ylabel="process CPU µs per frame (lower is better)"
		scale="set logscale y; set yrange [10:*]"
	fi
	rows=$(($(wc -l < "$dat") - 1))
	width=$((400 + rows * 38))
	gnuplot <<EOF
set terminal $(printf "$term" $width)
set output "$dir/$name.$ext"
set title "$what: ${ylabel%% (*}"
set datafile missing "?"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top right
set grid ytics
set ylabel "$ylabel"
set xtics rotate by 45 right font ",9" nomirror
set bmargin 12
$scale
plot for [c=2:$((nyields + 1))] "$dat" using c:xtic(1) title columnheader(c)
EOF
	echo "wrote $dir/$name.$ext"
done

"$here/run.sh" --report "$dir"
