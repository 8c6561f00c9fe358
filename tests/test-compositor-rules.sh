#!/bin/sh
# Rules glcuda-compositor promises in the protocols' text and in
# doc/compositor.md, each one a plausible bug would break while every
# other test stayed green (tests/compositor-rules-client says how each is
# checked), on the fake CUDA driver in the cpu sync mode, as CI runs it:
#  1. xdg_positioner: a popup flipped on x mirrors its anchor and gravity
#     corners (bottom_right becomes bottom_left, not left).
#  2. wp_viewport: a source rectangle ending exactly on the buffer's edge
#     is legal and drawn; 1/256 pixel past it, on x or y, is
#     out_of_buffer.
#  3. wl_subcompositor: joining two chains of 40 levels makes a tree of
#     81, more than 64: bad_surface; the compositor goes on.
#  4. A large upload at --refresh 240 takes at least the refreshes that
#     the budget's share gives (128; 32 at 8 MiB a refresh), counted in
#     output frame numbers; another client keeps getting frame callbacks,
#     more than 34 (at most one a refresh: 32 at 8 MiB a refresh).
#  5. A click gives the keyboard to the window clicked.
#  6. The control socket: of two windows that a name matches, wait-window
#     and focus act on the topmost; once it is closed, on the one left.
#  7. wl_surface.set_input_region(NULL) after a region: infinite again.
#  8. wl_subsurface: a desynchronized subsurface under a synchronized one
#     is cached until the root's commit applies its parent's state.
#  9. xdg_surface: a buffer committed when the configure came but before
#     its ack is unconfigured_buffer.
# 10. xdg_positioner: a popup of a window away from the output's origin,
#     slid on x (y) back from the output's right (bottom) edge, ends
#     exactly on that edge, the window's position counted.
# Every run ends when its client exits.
# SPDX-License-Identifier: MIT
set -u

rules=./tests/compositor-rules-client
ctl=./tools/glcuda-compositor/glcuda-compositor-ctl
COMPOSITOR_TEST_NEEDS="$rules $ctl"
. "${srcdir:-.}/tests/compositor-test-env.sh"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
size=400x320
. "${srcdir:-.}/tests/compositor-test-run.sh"

# check NAME WANT...: run NAME exited 0 and printed each line WANT, else
# FAIL with what it printed.
check() {
	rc=$1 name=$2
	shift 2
	ok=$([ "$rc" -eq 0 ] && echo yes)
	for want in "$@"; do
		grep -qF "$want" "$tmp/$name.out" "$tmp/$name.log" || ok=
	done
	if [ -z "$ok" ]; then
		echo "FAIL: $name (exit status $rc):" >&2
		cat "$tmp/$name.out" "$tmp/$name.log" >&2
		fail=1
	else
		grep -v '^FAIL' "$tmp/$name.out"
	fi
}

# 1. Popups flipped on x, the four corners.
run popup-flip -- "$rules" popup-flip "${size%x*}" "$ctl"
check $? popup-flip "popup bottom_right flipped on x: at 200,40" \
	"popup top_left flipped on x: at 50,-10"

# 2. The viewport's source on the buffer's edge, past it on each axis;
#    a 10x10 source without destination: a 10x10 window.
for axis in x y; do
	run viewport-edge-$axis -- "$rules" viewport-edge $axis
	check $? viewport-edge-$axis "accepted and drawn" \
		"mapped toplevel 10x10 at" "protocol error: wp_viewport code 2"
done

# 3. The joined chains: the error, then the compositor still serves a
#    client (the second one in the same run).
run subsurface-chains -- \
	sh -c "$rules subsurface-chains && $rules viewport-edge x"
check $? subsurface-chains "protocol error: wl_subcompositor code 0" \
	"accepted and drawn"

# 4. The upload budget at 240 Hz, counted in refreshes.
run upload-budget --size 128x96 --refresh 240 -- \
	"$rules" upload-budget 240 "$ctl"
check $? upload-budget "(the budget gives 128, 8 MiB a refresh 32)"

# 5. Click to focus.
run click-focus -- "$rules" click-focus "$ctl"
check $? click-focus 'older "ekk", newer "l"'

# 6. The topmost of two windows a name matches.
run topmost -- "$rules" topmost "$ctl"
check $? topmost "wait-window twin: rules-newer" \
	"focus twin: the keyboard on the newer window" \
	"the topmost closed: wait-window and focus act on the one left"

# 7. The input region reset to infinite.
run input-region -- "$rules" input-region-reset "$ctl"
check $? input-region "input region 10x10: the pointer at 5,5 on the window, at 50,40 off; set to NULL: at 50,40 on"

# 8. A desynchronized subsurface under a synchronized one.
run desync-under-sync -- "$rules" desync-under-sync "$ctl"
check $? desync-under-sync "desync under sync: the pointer on the parent; after the child's commit on the parent, after the parent's on the parent, after the root's on the child"

# 9. A buffer before the configure is acked.
run unconfigured-buffer -- "$rules" unconfigured-buffer
check $? unconfigured-buffer "a buffer committed before its ack" \
	"protocol error: xdg_surface code 3"

# 10. Popups slid back from the right and bottom edges; the parent is the
#     first window, cascaded to 32,32: 400 - 100 - 32 and 320 - 100 - 32.
run popup-slide -- "$rules" popup-slide "${size%x*}" "${size#*x}" "$ctl"
check $? popup-slide "popup 100x30 slid on x, the parent at 32,32: at 268,40" \
	"popup 100x100 slid on y, the parent at 32,32: at 50,188"

exit $fail
