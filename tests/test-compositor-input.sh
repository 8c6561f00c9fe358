#!/bin/sh
# glcuda-compositor as a test harness, on the fake CUDA driver
# (tests/fake-cuda) in the cpu sync mode, with Debian's weston clients:
#
#  1. Standalone (no client command): it prints WAYLAND_DISPLAY, the
#     runtime directory it made, the socket's and the control socket's
#     paths; clients connect on their own; it runs until the control
#     socket's quit or SIGTERM, exits 0 and removes its directory.
#  2. weston-terminal: "echo glcuda" and Return typed through the control
#     socket (glcuda-compositor-ctl type / key); the screenshot (the
#     presented frame, after the CUDA stage) must change on two text
#     lines at least: the command and its output.
#  3. weston-clickdot through a CUDA stage (the fake's invert): a click
#     off the window's middle; the dot moves there: the screenshot changes
#     around the click, and is the frame after the CUDA stage (the
#     background inverted).
#  4. weston-eventdemo: pointer enter, motion, button, axis, keys; its log
#     must show each.
#  5. weston-flower, which draws once, with --png-every 5 --frames 30
#     --output y4m: the stream has one frame per refresh (as many as the
#     compositor counted, its header says F60:1), and the flower is in the
#     last PNG and in the last y4m frame.
# No sleeps: the script reads the compositor's lines from a pipe and each
# ctl command answers once what it asked for happened (a frame presented,
# a commit shown, a window mapped). Loops that wait for a client to draw
# go one commit at a time, at most $max_commits commits. The only limit on
# time is a guard against hangs, far above any run's length.
# SPDX-License-Identifier: MIT
set -u

ctl=./tools/glcuda-compositor/glcuda-compositor-ctl
check=./tests/compositor-check-png
diff=./tests/compositor-diff-png
COMPOSITOR_TEST_NEEDS="$ctl $check $diff"
COMPOSITOR_TEST_CLIENTS="weston-terminal weston-clickdot weston-eventdemo weston-flower"
. "${srcdir:-.}/tests/compositor-test-env.sh"

tmp=$(mktemp -d) || exit 1
comp_pid=
client_pid=
cleanup() {
	[ -n "$client_pid" ] && kill "$client_pid" 2>/dev/null
	[ -n "$comp_pid" ] && kill "$comp_pid" 2>/dev/null
	wait
	rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
# A run that has not ended after this many seconds hangs: it is killed
# and fails.
hang_guard=${COMPOSITOR_TEST_HANG_GUARD:-300}
max_commits=200
bg="32 48 64"       # render.c's background
bg_inv="223 207 191"

# start NAME ARGS...: a standalone compositor, its stderr in $tmp/NAME.log;
# its announcement (WAYLAND_DISPLAY, XDG_RUNTIME_DIR,
# GLCUDA_COMPOSITOR_SOCKET, GLCUDA_COMPOSITOR_CONTROL) read from a pipe
# and exported.
start() {
	name=$1
	shift
	mkfifo "$tmp/$name.pipe" || exit 1
	timeout -k 10 $hang_guard "$comp" --verbose --size 640x480 --sync cpu "$@" \
		>"$tmp/$name.pipe" 2>"$tmp/$name.log" &
	comp_pid=$!
	exec 3<"$tmp/$name.pipe"
	n=0
	while [ $n -lt 4 ] && read -r line <&3; do
		case $line in
		WAYLAND_DISPLAY=*|XDG_RUNTIME_DIR=*|GLCUDA_COMPOSITOR_SOCKET=*|GLCUDA_COMPOSITOR_CONTROL=*)
			export "${line?}"
			n=$((n + 1)) ;;
		esac
	done
	exec 3<&-
	if [ $n -ne 4 ]; then
		echo "FAIL: $name: the compositor did not announce its sockets:" >&2
		cat "$tmp/$name.log" >&2
		exit 1
	fi
}

# stop NAME [SIGNAL]: quit through the control socket (or SIGNAL: a
# standalone compositor runs until it gets one); the compositor must exit
# 0, its runtime directory gone.
stop() {
	if [ $# -gt 1 ]; then
		kill -s "$2" "$comp_pid"
	else
		"$ctl" quit >/dev/null
	fi
	wait "$comp_pid"
	rc=$?
	comp_pid=
	if [ $rc -ne 0 ] || [ -e "$XDG_RUNTIME_DIR" ]; then
		echo "FAIL: $1: the compositor exited $rc; its runtime directory $XDG_RUNTIME_DIR:" >&2
		ls -la "$XDG_RUNTIME_DIR" >&2
		cat "$tmp/$1.log" >&2
		fail=1
	fi
	# The next one makes another runtime directory.
	unset WAYLAND_DISPLAY XDG_RUNTIME_DIR GLCUDA_COMPOSITOR_SOCKET GLCUDA_COMPOSITOR_CONTROL
}

# shot FILE: a screenshot of the next frame; sets $commits, the commits
# shown in it.
shot() {
	reply=$("$ctl" screenshot "$1") || { echo "FAIL: screenshot $1" >&2; exit 1; }
	# shellcheck disable=SC2086 # split on purpose
	set -- $reply
	commits=$2
}

# wait_commit NAME: until a frame with a commit newer than the last
# screenshot's is presented.
wait_commit() {
	if ! "$ctl" wait-commit "$commits" >/dev/null; then
		echo "FAIL: $1: no new commit before the compositor went away (killed after $hang_guard s):" >&2
		cat "$tmp/$1.log" >&2
		exit 1
	fi
}

# changed A B X Y W H: sets $n and the box y0..y1 of the pixels that differ.
changed() {
	# shellcheck disable=SC2046 # split on purpose
	set -- $("$diff" "$@")
	n=$1 y0=$3 y1=$5
}

# until_changed NAME ROWS X Y W H: screenshots, one a commit of the
# client, until $tmp/after.png differs from $tmp/before.png in the
# rectangle, over ROWS rows at least; false (and fail set) after
# $max_commits commits without.
until_changed() {
	name=$1 rows=$2
	shift 2
	i=0
	while :; do
		shot "$tmp/after.png"
		changed "$tmp/before.png" "$tmp/after.png" "$@"
		[ "$n" -gt 0 ] && [ $((y1 - y0)) -ge "$rows" ] && return 0
		i=$((i + 1))
		if [ $i -ge $max_commits ]; then
			fail=1
			return 1
		fi
		wait_commit "$name"
	done
}

# client NAME COMMAND...: the client, its output in $tmp/NAME.out; waits
# until its window (app_id or title holding NAME) is mapped and sets
# x y w h, its rectangle.
client() {
	name=$1
	shift
	timeout -k 10 $hang_guard "$@" >"$tmp/$name.out" 2>&1 &
	client_pid=$!
	# shellcheck disable=SC2046 # split on purpose
	set -- $("$ctl" wait-window "$name") "" "" "" ""
	x=$1 y=$2 w=$3 h=$4
	if [ -z "$h" ]; then
		echo "FAIL: no window of $name mapped:" >&2
		cat "$tmp/$name.log" "$tmp/$name.out" >&2
		exit 1
	fi
}

# stop_client: the client the test started, ended.
stop_client() {
	kill "$client_pid"
	wait "$client_pid"
	client_pid=
}

# 1. Standalone: the runtime directory it made, the sockets in it.
start terminal
case $XDG_RUNTIME_DIR in
/*) ;;
*) echo "FAIL: XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR is not a full path" >&2; fail=1 ;;
esac
if [ "$GLCUDA_COMPOSITOR_SOCKET" != "$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY" ] ||
   [ ! -S "$GLCUDA_COMPOSITOR_SOCKET" ] || [ ! -S "$GLCUDA_COMPOSITOR_CONTROL" ]; then
	echo "FAIL: the sockets announced are not there: $GLCUDA_COMPOSITOR_SOCKET $GLCUDA_COMPOSITOR_CONTROL" >&2
	fail=1
fi

# 2. weston-terminal: type a command, see its output.
client terminal weston-terminal --shell=/bin/sh --font-size=14
win="$x $y $w $h"
"$ctl" focus terminal >/dev/null
shot "$tmp/before.png"
"$ctl" type echo glcuda >/dev/null && "$ctl" key Return >/dev/null ||
	{ echo "FAIL: typing into weston-terminal" >&2; fail=1; }
# The command line, then the output line below it: changes over two
# lines of text (14-pixel glyphs, 17-pixel lines) at least.
# shellcheck disable=SC2086 # split on purpose
until_changed terminal 30 $win ||
	echo "FAIL: weston-terminal: after \"echo glcuda\" and Return, $n pixels changed in rows $y0..$y1 of $win" >&2
stop_client
stop terminal

# 3. weston-clickdot: the dot goes where the pointer clicks.
# Through a CUDA stage (the fake driver runs its CPU invert whatever the
# module): screenshots show the frame after it.
echo "not a real module: the fake driver ignores it" >"$tmp/kernel.ptx"
start clickdot --kernel-file "$tmp/kernel.ptx" --kernel-name ring_transform
client clickdot weston-clickdot
# Off the middle, where the dot starts.
cx=$((x + w / 2 - 80)) cy=$((y + h / 2 - 60))
shot "$tmp/before.png"
"$ctl" click $cx $cy >/dev/null || fail=1
until_changed clickdot 1 $((cx - 8)) $((cy - 8)) 16 16 ||
	echo "FAIL: weston-clickdot: nothing changed around the click at $cx,$cy" >&2
"$check" "$tmp/after.png" $x $y $w $h $bg_inv || fail=1
stop_client
stop clickdot TERM

# 4. weston-eventdemo: it logs what it receives; the compositor's quit
#    ends it (its connection closes after the events), and its log is
#    complete once it has exited.
start eventdemo
client eventdemo weston-eventdemo
cx=$((x + w / 2)) cy=$((y + h / 2))
"$ctl" pointer-move $cx $cy >/dev/null &&
	"$ctl" pointer-move $((cx + 5)) $((cy + 3)) >/dev/null &&
	"$ctl" click $((cx + 5)) $((cy + 3)) right >/dev/null &&
	"$ctl" scroll 0 2 >/dev/null &&
	"$ctl" key a >/dev/null &&
	"$ctl" type A >/dev/null &&
	"$ctl" frame >/dev/null || fail=1
stop eventdemo
wait "$client_pid"
client_pid=
for want in "^motion time: [0-9]*, x: " \
	"^button time: [0-9]*, button: 273, state: pressed" \
	"^button time: [0-9]*, button: 273, state: released" \
	"^axis time: [0-9]*, axis: vertical, value: 20" \
	"^key key: 30, unicode: 97, state: pressed, modifiers: 0x0" \
	"^key key: 30, unicode: 65, state: pressed, modifiers: 0x1" \
	"^key key: 30, unicode: [0-9]*, state: released"; do
	if ! grep -q "$want" "$tmp/eventdemo.out"; then
		echo "FAIL: weston-eventdemo did not log \"$want\":" >&2
		cat "$tmp/eventdemo.out" >&2
		fail=1
	fi
done

# 5. weston-flower draws once: every output frame has it once it is
#    mapped, in PNGs and y4m alike, one frame per refresh.
timeout -k 10 $hang_guard "$comp" --verbose --size 320x240 --sync cpu --png-every 5 \
	--png-dir "$tmp/flower" --frames 30 --output "$tmp/flower.y4m" -- weston-flower \
	>"$tmp/flower.out" 2>"$tmp/flower.log"
rc=$?
frames=$(sed -n 's/.* \([0-9]*\) output frames.*/\1/p' "$tmp/flower.log")
header=$(head -n 1 "$tmp/flower.y4m")
frame_size=$((6 + 320 * 240 * 3))
size=$(wc -c <"$tmp/flower.y4m")
if [ $rc -ne 0 ] || [ -z "$frames" ] || [ "$frames" -lt 30 ] ||
   [ "$header" != "YUV4MPEG2 W320 H240 F60:1 Ip A1:1 C444 XYSCSS=444" ] ||
   [ $((size - ${#header} - 1)) -ne $((frames * frame_size)) ]; then
	echo "FAIL: weston-flower: exited $rc, $frames output frames, y4m of $size bytes ($header):" >&2
	cat "$tmp/flower.log" >&2
	fail=1
else
	last=$(printf '%s/frame-%06d.png' "$tmp/flower" $(((frames - 1) / 5 * 5)))
	# shellcheck disable=SC2046 # split on purpose
	set -- $(sed -n 's/.*mapped toplevel \([0-9]*\)x\([0-9]*\) at \([0-9]*\),\([0-9]*\).*/\3 \4 \1 \2/p' \
		"$tmp/flower.log")
	# shellcheck disable=SC2086 # split on purpose
	"$check" "$last" "$@" $bg || fail=1
	# The luma of the window's middle in the last y4m frame: the flower's,
	# not the background's (the first frame's corner).
	mid=$(( ($2 + $4 / 2) * 320 + $1 + $3 / 2 ))
	y_mid=$(tail -c $((frame_size - 6 - mid)) "$tmp/flower.y4m" | od -An -tu1 -N1 | tr -d ' ')
	y_bg=$(dd if="$tmp/flower.y4m" bs=1 skip=$((${#header} + 1 + 6)) count=1 2>/dev/null |
		od -An -tu1 | tr -d ' ')
	if [ "$y_mid" = "$y_bg" ]; then
		echo "FAIL: weston-flower is not in the last y4m frame (luma $y_mid, background $y_bg)" >&2
		fail=1
	fi
fi

exit $fail
