# Sourced (". tests/compositor-test-env.sh") by glcuda-compositor's test
# scripts (test-compositor.sh, test-compositor-protocols.sh), from the
# build directory after make check:
# - exits 77 when the compositor is not built or GL has no device UUID
#   (no GL_EXT_memory_object), 1 when a helper is missing;
# - binds the fake CUDA driver to GL's device UUID; the compositor makes
#   its own runtime directory;
# - makes $tmp (removed at exit), sets fail=0, and defines run (the
#   compositor in the cpu sync mode) and pixels (a scene of
#   tests/compositor-pixel-client against its CPU reference).
# SPDX-License-Identifier: MIT

comp=./tools/glcuda-compositor/glcuda-compositor
if [ ! -x "$comp" ]; then
	echo "SKIP: glcuda-compositor was not built (configure found no wayland-server, wayland-scanner, wayland-protocols, wayland-client or libpng)"
	exit 77
fi
info=./tools/glcuda-info
bad=./tests/compositor-bad-client
check=./tests/compositor-check-png
pixel=./tests/compositor-pixel-client
protocol=./tests/compositor-protocol-client
fake=$(pwd)/tests/fake-cuda/.libs/libfakecuda.so
for f in "$info" "$bad" "$check" "$pixel" "$protocol" "$fake"; do
	if [ ! -e "$f" ]; then
		echo "FAIL: $f not found; run from the build directory after make check" >&2
		exit 1
	fi
done
uuid=$(GLCUDA_LIBCUDA=/nonexistent/libcuda.so.1 "$info" 2>/dev/null |
	awk '/device UUID/ { print $3; exit }')
if [ -z "$uuid" ]; then
	echo "SKIP: GL reports no device UUID (no GL_EXT_memory_object)"
	exit 77
fi
GLCUDA_LIBCUDA=$fake
GLCUDA_FAKE_CUDA_UUID=$uuid
export GLCUDA_LIBCUDA GLCUDA_FAKE_CUDA_UUID
# The compositor makes its own runtime directory when there is none.
unset XDG_RUNTIME_DIR WAYLAND_DISPLAY

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
size=400x320

# A run that has not ended after this many seconds hangs: it is killed
# and fails.
hang_guard=300

# run NAME ARGS... : the compositor at $size in the cpu mode, its stdout
# in $tmp/NAME.out and stderr in $tmp/NAME.log; returns its exit status
# (124: it hung).
run() {
	name=$1
	shift
	timeout -k 10 $hang_guard "$comp" --verbose --size $size --sync cpu "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.log"
}

# Pixels: for each state the client checks, the frame that presented
#    it (the client prints the presentation sequence number, which names
#    the PNG) against the CPU reference, the toplevels where the
#    compositor logged them.
# pixels NAME SCENE FILTER ARGS...: ARGS go to the compositor.
pixels() {
	name=$1 scene=$2 filter=$3
	shift 3
	run "$name" --png-every 1 --png-dir "$tmp/$name" "$@" -- "$pixel" run "$scene"
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q "^presented " "$tmp/$name.out"; then
		echo "FAIL: scene $scene ($name) exited $rc:" >&2
		cat "$tmp/$name.out" "$tmp/$name.log" >&2
		fail=1
		return
	fi
	pos=$(sed -n 's/.*mapped toplevel [0-9]*x[0-9]* at \([0-9]*\),\([0-9]*\).*/\1 \2/p' \
		"$tmp/$name.log")
	grep "^presented " "$tmp/$name.out" | while read -r _ state seq; do
		png=$(printf '%s/frame-%06d.png' "$tmp/$name" "$seq")
		# shellcheck disable=SC2086 # split on purpose
		if ! "$pixel" check "$state" "$png" "$filter" $pos; then
			echo "FAIL: $state ($name): the presented frame differs from the reference" >&2
			cat "$tmp/$name.out" "$tmp/$name.log" >&2
			exit 1
		fi
	done || fail=1
}
