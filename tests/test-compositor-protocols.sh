#!/bin/sh
# glcuda-compositor's protocols beyond the core and xdg-shell toplevels,
# on the fake CUDA driver in the cpu sync mode, as CI runs it:
#  1. wp_viewporter: weston-scaler (Debian's weston) in its four modes
#     maps its window at the size the viewport gives; the pixel client's viewport scene (a crop, a crop scaled
#     down, a crop at buffer scale 2 and 90 degrees, a stretch, a new
#     source alone, the viewport destroyed) equals its CPU reference.
#  2. xdg popups: the pixel client's popup scene: placement by anchor,
#     gravity and offset, nested, slid and flipped inside the output,
#     repositioned; pixels against the reference; dismissed topmost first,
#     and by a click outside (glcuda-compositor-ctl). Input regions: a
#     click outside a window's input region does not reach it; an opaque
#     region over a window draws it without blending.
#  3. zxdg_output_manager_v1: the output's logical position, size, name.
#  4. zxdg_decoration_manager_v1: client_side with every configure.
#  5. wl_data_device_manager: a client sets the selection, another (with
#     the focus: its toplevel mapped last) receives it through a pipe.
#  6. The protocol errors the XML files name, one client each
#     (tests/compositor-protocol-client), in one compositor that frees
#     what each made.
#  7. Where valgrind exists: some of them under memcheck.
# Runs end when their client exits; weston-scaler draws until stopped:
# its runs end after a number of presented frames with its window.
# SPDX-License-Identifier: MIT
set -u

pixel=./tests/compositor-pixel-client
protocol=./tests/compositor-protocol-client
ctl=./tools/glcuda-compositor/glcuda-compositor-ctl
check=./tests/compositor-check-png
COMPOSITOR_TEST_NEEDS="$pixel $protocol $ctl $check"
COMPOSITOR_TEST_CLIENTS=weston-scaler
. "${srcdir:-.}/tests/compositor-test-env.sh"
scaler=$(command -v weston-scaler)

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
size=400x320
. "${srcdir:-.}/tests/compositor-test-run.sh"

# expect NAME WANT...: each line WANT in $tmp/NAME.out, else FAIL.
expect() {
	name=$1
	shift
	for want in "$@"; do
		grep -qF "$want" "$tmp/$name.out" ||
			{ echo "FAIL: $name: no \"$want\":" >&2;
			  cat "$tmp/$name.out" "$tmp/$name.log" >&2; fail=1; }
	done
}

# 1. wp_viewporter. weston-scaler's window sizes (its usage text): both
#    source and destination, destination only, source only (its buffer
#    cropped to 55x77), none. It draws once: one frame with the window.
for m in -b:220x308 -d:220x308 -s:55x77 -n:421x337; do
	mode=${m%:*} want=${m#*:}
	run scaler$mode --frames 1 -- "$scaler" $mode
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q "mapped toplevel $want at" "$tmp/scaler$mode.log"; then
		echo "FAIL: weston-scaler $mode: exited $rc, or no window of $want mapped:" >&2
		cat "$tmp/scaler$mode.log" >&2
		fail=1
	fi
done
pixels viewport viewport none

# 2. Popups.
pixels popup popup none
expect popup "popups dismissed, topmost first"
grep -q "mapped popup 100x60 at 300,220" "$tmp/popup.log" ||
	{ echo "FAIL: the constrained popup is not where its configure put it:" >&2;
	  cat "$tmp/popup.log" >&2; fail=1; }
# A press outside the grabbing client's surfaces (through the control
# socket) dismisses its popups; one on its own toplevel does not.
run popup-click -- "$protocol" popup-click "$ctl"
expect popup-click "popup dismissed by a click outside, not by one inside"
# The pointer finds a window only within its input region: a click
# outside it goes to what is below (the background).
run input-region -- "$protocol" input-region "$ctl"
expect input-region "input region: a click outside it missed the window, one in it reached it"
# An opaque region over a whole surface: drawn without blending, so the
# buffer's transparent left half is black (its colour, premultiplied
# zero), not the background.
run opaque-region -- "$protocol" opaque-region "$ctl" "$tmp/opaque.png"
expect opaque-region "opaque region: screenshot taken"
"$check" "$tmp/opaque.png" 32 32 32 32 32 48 64 40 48 0 0 0 ||
	{ echo "FAIL: the opaque region's transparent pixels are not black" >&2; fail=1; }

# 3., 4. and 5. in one compositor.
w=${size%x*} h=${size#*x}
# Each client runs whatever the one before found: each prints what it saw.
run globals -- sh -c "$protocol output $w $h; $protocol decoration;
	$protocol clipboard-source 'glcuda clipboard' & $protocol clipboard-target 'glcuda clipboard';
	wait"
expect globals "xdg-output: 0,0 ${w}x$h HEADLESS-1, then wl_output.done" \
	"decoration: client_side, with each configure" "selection set" \
	'clipboard: received "glcuda clipboard"'

# 6. Errors.
errors="viewport-exists:wp_viewporter.code.0 viewport-bad-value:wp_viewport.code.0
	viewport-bad-dest:wp_viewport.code.0 viewport-bad-size:wp_viewport.code.1
	viewport-out-of-buffer:wp_viewport.code.2 viewport-no-surface:wp_viewport.code.3
	decoration-twice:zxdg_toplevel_decoration_v1.code.1
	decoration-buffer:zxdg_toplevel_decoration_v1.code.0
	decoration-orphaned:zxdg_toplevel_decoration_v1.code.2
	positioner-bad:xdg_positioner.code.0 popup-incomplete:xdg_wm_base.code.5
	popup-parent:xdg_wm_base.code.3 popup-late-grab:xdg_popup.code.0
	popup-not-topmost:xdg_wm_base.code.2 offer-finish:wl_data_offer.code.0
	source-actions:wl_data_source.code.1"
script=true
for e in $errors; do
	script="$script; $protocol ${e%%:*}"
done
run errors -- sh -c "$script"
for e in $errors; do
	expect errors "protocol error: $(echo "${e#*:}" | tr . ' ')"
done
clients_left_nothing errors "the clients in error"

# 7. Under valgrind (memcheck: tests/compositor-test-run.sh): the
#    decoration, the clipboard, error cases and the viewport scene.
memcheck "$protocol decoration &&
	{ $protocol clipboard-source abc & $protocol clipboard-target abc; } && wait &&
	{ $protocol viewport-no-surface; $protocol decoration-orphaned;
	  $protocol popup-not-topmost; $protocol offer-finish; true; } &&
	exec $pixel run viewport"

exit $fail
