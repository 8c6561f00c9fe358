#!/bin/sh
# weston's demo clients through glcuda-compositor with its CUDA stage
# (--filter invert): frames per second at each refresh rate, and what the
# frames show. Run from the project root on the GPU machine, with the
# clients packed by scripts/gpu-pack-clients.sh on the development machine
# (scripts/gpu-compositor-test.sh calls it):
#
#     scripts/gpu-compositor-clients.sh [DIR [OUTDIR]]
#
# DIR is the pack (default build-gpu/clients); each client runs through
# DIR/run, with DIR's libraries, xkb data, fonts and icons. OUTDIR (default
# a temporary directory) keeps each run's log and frames.
#
# One line per client:
#
#     weston-smoke: 240 frames in 4.21 s = 57.0 frames/s at 60 Hz, 1000 frames in
#       1.31 s = 763.4 frames/s at 1000 Hz; checked: ...
#     weston-simple-egl: cannot run here: ...
#
# The numbers are the compositor's own report at exit: frames composited,
# seconds from the client's start (its start-up included), their ratio.
# - Clients that draw continuously (simple-shm, simple-damage,
#   presentation-shm, smoke, terminal fed by a shell loop) run for
#   --frames RATE x RUN_SECONDS frames (at most 1000) at each rate; in the
#   first rate's run every (frames / 2)-th presented frame is written as
#   PNG, and the last one (tests/compositor-check-png) must show the window where the compositor
#   mapped it, not background and not one colour, and the inverted
#   background everywhere else; weston-simple-shm's white border must come
#   out black.
# - Clients that draw once and then only on input (the compositor has no
#   input devices: flower, clickdot, eventdemo, transformed, scaler, image)
#   run until their first frame, once with --filter none and once with
#   invert: the same checks, and every pixel of the inverted frame must be
#   the inverse of the other's (not for flower, whose petals are random at
#   each start).
# - simple-egl and subsurfaces need Wayland EGL. The NVIDIA driver has it
#   only through its DRM device: without /dev/dri, a client that cannot
#   start is reported as "cannot run here", not as a failure.
#
# Environment: SIZE (output size, default 1920x1080), RATES (refresh rates,
# default "60 1000"), RUN_SECONDS (default 4), CLIENTS (default all of
# DIR/bin), GPU_BUILD (the build, default build-gpu). Anything else the
# compositor reads passes through: for a dry run on Mesa with the fake
# CUDA driver, set GLCUDA_LIBCUDA and GLCUDA_FAKE_CUDA_UUID as
# tests/test-compositor.sh does (doc/compositor.md).
# Exit status: the number of failed checks.
# SPDX-License-Identifier: MIT
set -u

dir=${1:-build-gpu/clients}
build=${GPU_BUILD:-build-gpu}
size=${SIZE:-1920x1080}
rates=${RATES:-60 1000}
secs=${RUN_SECONDS:-4}
comp=$build/tools/glcuda-compositor/glcuda-compositor
check=$build/tests/compositor-check-png

# shellcheck source=scripts/gpu-nvidia-env.sh
. "$(dirname "$0")/gpu-nvidia-env.sh"
unset XDG_RUNTIME_DIR WAYLAND_DISPLAY

for f in "$comp" "$check" "$dir/run"; do
	if [ ! -x "$f" ]; then
		echo "FAIL: $f not found: build with scripts/gpu-build.sh and pack the clients with scripts/gpu-pack-clients.sh" >&2
		exit 1
	fi
done
dir=$(cd "$dir" && pwd)
out=${2:-$(mktemp -d)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
clients=${CLIENTS:-$(cd "$dir/bin" && ls)}
# A run that has not ended by then hangs: timeout ends it with SIGTERM,
# after which the compositor still reports what it did.
guard=$((secs * 2 + 15))
# The compositor's background (render.c: 32,48,64), inverted.
bg_inv="223 207 191"
failed=0

# weston-terminal's shell: output without end, so that it redraws at every
# frame.
feed=$out/terminal-feed.sh
printf '#!/bin/sh\ni=0\nwhile :; do i=$((i + 1)); echo "glcuda $i"; done\n' >"$feed"
chmod +x "$feed"

kind_of() {
	case $1 in
	weston-simple-shm | weston-simple-damage | weston-presentation-shm | weston-smoke | \
	weston-terminal) echo continuous ;;
	weston-simple-egl | weston-subsurfaces) echo egl ;;
	*) echo once ;;
	esac
}

# run NAME CLIENT RATE FRAMES FILTER PNG_EVERY: the compositor with the
# packed CLIENT; its stderr (and the client's) in $out/NAME.log, PNGs in
# $out/NAME/ (none when PNG_EVERY is 0). Returns the compositor's status.
run() {
	name=$1 client=$2 rate=$3 frames=$4 filter=$5 every=$6
	rm -rf "${out:?}/$name"
	mkdir -p "$out/$name"
	set --
	case $client in
	weston-terminal) set -- "--shell=$feed" ;;
	weston-image) set -- "$dir/weston/wayland.png" ;;
	esac
	if [ "$every" -gt 0 ]; then
		set -- --png-every "$every" --png-dir "$out/$name" -- "$dir/run" "$client" "$@"
	else
		set -- -- "$dir/run" "$client" "$@"
	fi
	XDG_CACHE_HOME=$out/cache timeout -k 10 "$guard" "$comp" --verbose --size "$size" \
		--refresh "$rate" --filter "$filter" --frames "$frames" "$@" \
		>"$out/$name.out" 2>"$out/$name.log"
}

# The compositor's report: "FRAMES SECONDS RATE", empty without one.
report() {
	sed -n 's/.*: \([0-9]*\) frames composited in \([0-9.]*\) s (\([0-9.]*\)\/s).*/\1 \2 \3/p' \
		"$out/$1.log" | tail -n 1
}

# The window's rectangle "X Y W H" from the last "mapped toplevel".
window_rect() {
	sed -n 's/.*mapped toplevel \([0-9]*\)x\([0-9]*\) at \([0-9]*\),\([0-9]*\).*/\3 \4 \1 \2/p' \
		"$out/$1.log" | tail -n 1
}

last_png() {
	ls "$out/$1"/frame-*.png 2>/dev/null | tail -n 1
}

# What the client said last (its lines in the log are not the compositor's).
client_said() {
	grep -v '^glcuda-compositor: ' "$out/$1.log" | grep -v '^  ' | tail -n 1
}

# check_window NAME CLIENT: the last PNG of run NAME (filter invert) shows
# the window, and the inverted background around it. Sets $checked; on a
# failure prints it and counts it.
check_window() {
	rect=$(window_rect "$1")
	png=$(last_png "$1")
	if [ -z "$rect" ] || [ -z "$png" ]; then
		echo "FAIL: $2: no window mapped or no frame written ($out/$1.log)"
		failed=$((failed + 1))
		return 1
	fi
	# shellcheck disable=SC2086 # split on purpose
	set -- "$1" "$2" $rect
	probe=
	what="the window ${5}x$6 at $3,$4 in $(basename "$png") is there (not background, not one colour), the inverted background around it"
	if [ "$2" = weston-simple-shm ]; then
		# Its white border, 5 rows into the window, mid-width.
		probe="$(($3 + $5 / 2)) $(($4 + 5)) 0 0 0"
		what="$what, its white border black"
	fi
	# shellcheck disable=SC2086 # split on purpose
	if ! "$check" "$png" $3 $4 $5 $6 $bg_inv $probe >"$out/$1.check"; then
		echo "FAIL: $2: $(sed 's/^FAIL: //' "$out/$1.check")"
		failed=$((failed + 1))
		return 1
	fi
	checked=$what
	return 0
}

# A run that ended without its report failed.
have_report() {
	if [ -z "$(report "$1")" ]; then
		echo "FAIL: $2: exit $3, no report from the compositor:"
		tail -n 15 "$out/$1.log"
		failed=$((failed + 1))
		return 1
	fi
	return 0
}

# "N frames in S s = F frames/s at R Hz" for run NAME at RATE.
rate_text() {
	# shellcheck disable=SC2046 # split on purpose
	set -- "$1" "$2" $(report "$1")
	echo "$3 frames in $4 s = $5 frames/s at $2 Hz"
}

continuous() {
	client=$1
	line='' first=yes checked=''
	for rate in $rates; do
		frames=$((rate * secs))
		[ $frames -le 1000 ] || frames=1000
		name=$client-$rate
		every=0
		[ $first = yes ] && every=$((frames / 2))
		run "$name" "$client" "$rate" "$frames" invert "$every"
		rc=$?
		have_report "$name" "$client" $rc || return
		text=$(rate_text "$name" "$rate")
		[ $rc -eq 124 ] && text="$text (ended by the ${guard} s guard)"
		if [ $rc -ne 0 ] && [ $rc -ne 124 ]; then
			echo "FAIL: $client at $rate Hz: exit $rc: $(client_said "$name")"
			failed=$((failed + 1))
		fi
		line=${line:+$line, }$text
		if [ $first = yes ]; then
			check_window "$name" "$client" || checked="FAILED, see above"
			first=no
		fi
	done
	echo "$client: $line; checked: $checked"
}

once() {
	client=$1
	set -- $rates
	rate=$1
	run "$client-invert" "$client" "$rate" 1 invert 1
	rc=$?
	have_report "$client-invert" "$client" $rc || return
	if [ $rc -ne 0 ]; then
		echo "FAIL: $client: exit $rc: $(client_said "$client-invert")"
		failed=$((failed + 1))
		return
	fi
	check_window "$client-invert" "$client" || return
	if [ "$client" = weston-flower ]; then
		checked="$checked; not compared with --filter none: its petals are random at each start"
	else
		run "$client-none" "$client" "$rate" 1 none 1
		rc=$?
		none=$(last_png "$client-none")
		if [ $rc -ne 0 ] || [ -z "$none" ]; then
			echo "FAIL: $client with --filter none: exit $rc: $(client_said "$client-none")"
			failed=$((failed + 1))
			return
		fi
		if ! "$check" --inverse "$(last_png "$client-invert")" "$none" \
			>"$out/$client.inverse"; then
			echo "FAIL: $client: $(sed 's/^FAIL: //' "$out/$client.inverse")"
			failed=$((failed + 1))
			return
		fi
		checked="$checked, every pixel the inverse of the frame through --filter none"
	fi
	echo "$client: $(rate_text "$client-invert" "$rate") (draws once, then only on input, which the compositor has none of: the run ends at its first frame); checked: $checked"
}

egl() {
	client=$1
	set -- $rates
	rate=$1
	frames=$((rate * secs))
	[ $frames -le 1000 ] || frames=1000
	run "$client" "$client" "$rate" "$frames" invert $((frames / 2))
	rc=$?
	if [ $rc -eq 0 ] && [ -n "$(window_rect "$client")" ] && [ -n "$(report "$client")" ]; then
		checked=
		check_window "$client" "$client" || return
		echo "$client: $(rate_text "$client" "$rate"); checked: $checked"
		return
	fi
	if [ ! -e /dev/dri ]; then
		echo "$client: cannot run here: it needs Wayland EGL, which the NVIDIA driver gives only through its DRM device, and this machine has no /dev/dri (exit $rc; the client said: $(client_said "$client"))"
		return
	fi
	echo "FAIL: $client: exit $rc although /dev/dri exists: $(client_said "$client")"
	tail -n 15 "$out/$client.log"
	failed=$((failed + 1))
}

for c in $clients; do
	if [ ! -x "$dir/bin/$c" ]; then
		echo "FAIL: $c is not in $dir/bin"
		failed=$((failed + 1))
		continue
	fi
	case $(kind_of "$c") in
	continuous) continuous "$c" ;;
	once) once "$c" ;;
	egl) egl "$c" ;;
	esac
done
# Where they ran: the compositor's first line.
log=$(ls "$out"/*.log 2>/dev/null | head -n 1)
[ -n "$log" ] && grep -m 1 ' Hz on ' "$log" | sed 's/^glcuda-compositor: /compositor: /'
echo "weston clients through glcuda-compositor: $failed failed (logs and frames in $out)"
exit $failed
