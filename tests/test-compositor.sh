#!/bin/sh
# glcuda-compositor with real clients, on the fake CUDA driver
# (tests/fake-cuda) in the cpu sync mode, as CI runs it: Mesa's llvmpipe
# composites, the fake runs the CUDA stage on the CPU. Run from the build
# directory after make check has built the fake and the helpers.
#
#  1. weston-simple-shm (Debian's weston), --filter none: the frames show
#     the client's window where the compositor said it mapped it, and the
#     background everywhere else.
#  2. The same through a kernel (--kernel-file, --kernel-name
#     ring_transform: the fake runs its CPU invert whatever the module):
#     the background and the window's white border come out inverted.
#  3. Misbehaving clients (tests/compositor-bad-client), one after the
#     other in one compositor: each gets its protocol error or dies; the
#     compositor frees what each made (surfaces, textures, fds: counted
#     after each leaves), keeps running and then shows weston-simple-shm
#     (its window mapped, the run ended by --frames with the client still
#     running). No PNGs: 1 and 6 check pixels; a PNG per refresh here
#     would only grow with however long the clients take.
#  4. A client killed with SIGKILL: the compositor exits cleanly and says so.
#  5. Where valgrind exists: run 3 and the subsurface scene of 6 under
#     memcheck (leaks and invalid accesses of the compositor; the drivers'
#     are suppressed).
#  6. Pixels against a CPU reference (tests/compositor-pixel-client): a
#     client shows scenes of known content; the frame that presented its
#     last commit must equal, every pixel, the reference the same program
#     computes on the CPU (placement, premultiplied blending, XRGB8888
#     opaque, the filter: none, and the fake's invert; subsurfaces:
#     position, stacking, synchronized and desynchronized commits; buffer
#     scale 2 and the 8 buffer transforms; damage: a buffer rewritten but
#     damaged in part changes only there).
#  7. zwp_linux_dmabuf_v1 is advertised exactly when the compositor says
#     EGL can import dma-bufs (Mesa's surfaceless llvmpipe cannot: then
#     the global must be absent).
# Nothing depends on how fast the machine is: a run ends when its client
# exits, and each client of these tests exits once it has seen what it
# checks, except weston-simple-shm, which draws until it is stopped: its
# runs end after a number of presented frames with its window in them
# (--frames counts only those, so a slow start does not use them up). The
# only limit on time is a guard against hangs, far above any run's length.
# SPDX-License-Identifier: MIT
set -u

bad=./tests/compositor-bad-client
check=./tests/compositor-check-png
pixel=./tests/compositor-pixel-client
COMPOSITOR_TEST_NEEDS="$bad $check $pixel"
COMPOSITOR_TEST_CLIENTS=weston-simple-shm
. "${srcdir:-.}/tests/compositor-test-env.sh"
shm_client=$(command -v weston-simple-shm)

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
size=400x320
bg="32 48 64"       # render.c's background
bg_inv="223 207 191"

. "${srcdir:-.}/tests/compositor-test-run.sh"

# The window's rectangle from the compositor's "mapped toplevel WxH at X,Y".
window_rect() {
	sed -n 's/.*mapped toplevel \([0-9]*\)x\([0-9]*\) at \([0-9]*\),\([0-9]*\).*/\3 \4 \1 \2/p' \
		"$tmp/$1.log" | tail -n 1
}

# The last PNG written: with --png-every 1 and --frames, a frame with the
# window in it.
last_png() {
	ls "$tmp/$1"/frame-*.png 2>/dev/null | tail -n 1
}

check_frames() {
	name=$1 background=$2 probe=$3
	rect=$(window_rect "$name")
	png=$(last_png "$name")
	if [ -z "$rect" ] || [ -z "$png" ]; then
		echo "FAIL: $name: no window mapped or no frame written:" >&2
		cat "$tmp/$name.log" >&2
		fail=1
		return
	fi
	set -- $rect
	# The probe: 5 rows into the window, in its middle column: the white
	# border weston-simple-shm paints around its pattern.
	px=$(($1 + $3 / 2)) py=$(($2 + 5))
	# shellcheck disable=SC2086 # split on purpose
	if ! "$check" "$png" $rect $background $px $py $probe; then
		fail=1
	fi
}

# run_ok NAME WHAT ARGS...: run NAME ARGS...; where the compositor exits
# non-zero, FAIL naming WHAT, with its output, and return 1.
run_ok() {
	name=$1 what=$2
	shift 2
	run "$name" "$@"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL: $what exited $rc:" >&2
		cat "$tmp/$name.out" "$tmp/$name.log" >&2
		fail=1
		return 1
	fi
}

# 1. --filter none.
if run_ok none "--filter none" --filter none --frames 12 --png-every 1 --png-dir "$tmp/none" \
	-- "$shm_client"; then
	check_frames none "$bg" "255 255 255"
	grep -q "frames composited" "$tmp/none.log" ||
		{ echo "FAIL: no report of the frames composited" >&2; fail=1; }
fi

# 2. A kernel from a file: the fake runs ring_transform (an invert) on
#    the CPU whatever the module holds.
echo "not a real module: the fake driver ignores it" >"$tmp/kernel.ptx"
if run_ok kernel --kernel-file --kernel-file "$tmp/kernel.ptx" --kernel-name ring_transform \
	--frames 12 --png-every 1 --png-dir "$tmp/kernel" -- "$shm_client"; then
	check_frames kernel "$bg_inv" "0 0 0"
fi

# bad_clients NAME WHO COMPOSITOR-OPTIONS SCRIPT WANT...: the compositor
# (with COMPOSITOR-OPTIONS) and sh -c SCRIPT as its client must exit 0,
# the clients' output hold each WANT, and the clients leave nothing behind
# (clients_left_nothing); FAIL naming WHO otherwise. Returns non-zero when
# the compositor failed.
bad_clients() {
	name=$1 who=$2 options=$3 script=$4
	shift 4
	# shellcheck disable=SC2086 # split on purpose
	run_ok "$name" "the compositor with $who" $options -- sh -c "$script" || return 1
	for want; do
		grep -q "$want" "$tmp/$name.out" ||
			{ echo "FAIL: a bad client did not report \"$want\":" >&2;
			  cat "$tmp/$name.out" >&2; fail=1; }
	done
	# Every client that left took all it made with it: whenever no
	# client is connected, no surface or texture is alive and the same
	# number of fds is open.
	clients_left_nothing "$name" "$who"
}

# 3. Misbehaving clients, then a good one, in one compositor.
bad_script="$bad wrong-size && $bad bad-scale && $bad zero-scale && $bad bad-transform &&
	$bad destroy-busy && $bad sub-loop &&
	$bad sub-place && $bad sub-destroy && { $bad crash; true; } && exec $shm_client"
if bad_clients bad "the misbehaving clients" "--frames 12" "$bad_script" \
	"protocol error: wl_shm_pool code 1" "protocol error: wl_surface code 2" \
	"protocol error: wl_surface code 0" "protocol error: wl_surface code 1" \
	"protocol error: wl_subcompositor code 0" "protocol error: wl_subsurface code 0" \
	"no protocol error, as expected"; then
	if ! grep -q "mapped toplevel" "$tmp/bad.log" ||
	   grep -q "the client exited\|the client was killed" "$tmp/bad.log"; then
		echo "FAIL: weston-simple-shm was not shown after the misbehaving clients:" >&2
		cat "$tmp/bad.log" >&2
		fail=1
	fi
fi

# 3b. More misbehaving clients (tests/compositor-bad-client: a deep
#     subsurface chain, configure acks, errors on the interfaces the XML
#     names, an 8192x8192 upload while another client draws), the same way;
#     the compositor exits with the last client, with its status.
bad2_script="$bad sub-deep && $bad ack-older && $bad ack-unsent && $bad ack-zero &&
	$bad scale-3 && $bad xdg-buffer && $bad xdg-twice && $bad xdg-defunct &&
	$bad bad-stride && $bad big-upload"
bad_clients bad2 "the misbehaving clients (2)" "" "$bad2_script" \
	"protocol error: wl_subcompositor code 0" "protocol error: xdg_surface code 4" \
	"protocol error: wl_surface code 2" "protocol error: xdg_surface code 3" \
	"protocol error: xdg_surface code 2" "protocol error: xdg_surface code 6" \
	"protocol error: wl_shm code 1" \
	"another client's frame came before the 8192x8192 upload was complete"

# 4. The client is killed: the compositor ends with 128 + 9, and says so.
run killed -- sh -c "exec $bad crash"
rc=$?
if [ $rc -ne 137 ] || ! grep -q "killed by signal 9" "$tmp/killed.log"; then
	echo "FAIL: with a client killed by SIGKILL the compositor exited $rc:" >&2
	cat "$tmp/killed.log" >&2
	fail=1
fi

# 5. Under valgrind (memcheck: tests/compositor-test-run.sh): some of
#    the misbehaving clients, then the pixel client's subsurface scene;
#    the run ends when it exits.
memcheck "$bad wrong-size && $bad destroy-busy && $bad sub-destroy && exec $pixel run sub"

# 6. Pixels (pixels: tests/compositor-test-run.sh).
pixels blend blend none --filter none
pixels blend-invert blend invert --kernel-file "$tmp/kernel.ptx" --kernel-name ring_transform
pixels sub sub none
pixels xform xform invert --kernel-file "$tmp/kernel.ptx" --kernel-name ring_transform
pixels damage damage none

# 7. The dma-buf global, where EGL imports dma-bufs and only there. The
#    client prints the globals and exits, and the compositor with it.
run globals -- "$pixel" globals
rc=$?
if grep -q "zwp_linux_dmabuf_v1 not advertised" "$tmp/globals.log"; then
	want_dmabuf=no
elif grep -q "zwp_linux_dmabuf_v1 advertised" "$tmp/globals.log"; then
	want_dmabuf=yes
else
	want_dmabuf=unknown
fi
if grep -qx zwp_linux_dmabuf_v1 "$tmp/globals.out"; then
	have_dmabuf=yes
else
	have_dmabuf=no
fi
if [ $rc -ne 0 ] || ! grep -qx wl_subcompositor "$tmp/globals.out" ||
   [ "$want_dmabuf" != "$have_dmabuf" ]; then
	echo "FAIL: the globals (exited $rc; dma-buf: said $want_dmabuf, advertised $have_dmabuf):" >&2
	cat "$tmp/globals.out" "$tmp/globals.log" >&2
	fail=1
fi

exit $fail
