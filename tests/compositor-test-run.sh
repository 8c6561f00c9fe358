# Sourced (". tests/compositor-test-run.sh") by test-compositor.sh and
# test-compositor-protocols.sh after tests/compositor-test-env.sh, with
# $tmp, $size, $pixel and fail set: run (the compositor in the cpu sync
# mode, to its end), pixels (a scene of tests/compositor-pixel-client
# against its CPU reference), memcheck (a run under valgrind) and
# clients_left_nothing (what a run's clients left behind).
# SPDX-License-Identifier: MIT

# A run that has not ended after this many seconds hangs: it is killed
# and fails (COMPOSITOR_TEST_HANG_GUARD sets it, to find a hang sooner).
hang_guard=${COMPOSITOR_TEST_HANG_GUARD:-300}

# run NAME ARGS... : the compositor at $size in the cpu mode, its stderr
# in $tmp/NAME.log; returns its exit status (124: it hung).
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

# memcheck SCRIPT: the compositor under valgrind's memcheck, where
# valgrind exists (and no sanitizer is built in), with sh -c SCRIPT as
# its client; fails on the compositor's leaks and invalid accesses (the
# drivers' are suppressed). The run ends when the script exits.
memcheck() {
	if ! command -v valgrind >/dev/null 2>&1 || [ ! -x ./libtool ] ||
	   [ -n "${ASAN_OPTIONS:-}" ]; then
		return 0
	fi
	# Through libtool: the program in the build tree is a wrapper script.
	# --keep-debuginfo: eglTerminate unloads Mesa's driver before the leak
	# check; its frames keep their names so that valgrind.supp can tell the
	# driver's own memory from glcuda's.
	if ! GLCUDA_LOG=error timeout -k 10 $hang_guard \
		./libtool --mode=execute valgrind --leak-check=full --error-exitcode=99 \
		--keep-debuginfo=yes \
		--errors-for-leak-kinds=definite --suppressions="${srcdir:-..}/tests/valgrind.supp" \
		--log-file="$tmp/valgrind.log" \
		"$comp" --size 128x96 --sync cpu -- sh -c "$1" \
		>"$tmp/vg.out" 2>"$tmp/vg.log"; then
		echo "FAIL: glcuda-compositor under valgrind:" >&2
		grep -A30 -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|[0-9,]+ .*bytes in .* are definitely)' \
			"$tmp/valgrind.log" | head -n 120 >&2
		cat "$tmp/vg.out" "$tmp/vg.log" >&2
		fail=1
	fi
}

# clients_left_nothing NAME WHO: in run NAME's log, whenever no client was
# connected, no surface or texture was alive and the same number of fds
# was open; else FAIL, naming WHO.
clients_left_nothing() {
	left=$(grep "a client left: 0 clients" "$tmp/$1.log" | sed 's/.*a client left: //' | sort -u)
	case $left in
	"0 clients, 0 surfaces, 0 textures, "*" fds open") ;;
	*)
		echo "FAIL: what $2 left behind differs:" >&2
		grep "a client left" "$tmp/$1.log" >&2
		fail=1 ;;
	esac
}
