# shellcheck shell=sh
# Sourced (". tests/program-test.sh") from the build directory by the tests
# of one program (test-demo.sh, test-trace.sh), with $prog set to its path:
# exits 1 when $prog was not built, makes $tmp (removed at exit), sets
# fail=0, and defines bad_usage.
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2154 # prog: set by the caller
if [ ! -x "$prog" ]; then
	echo "FAIL: $prog not found; run from the build directory" >&2
	exit 1
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2034 # fail: for the caller
fail=0

# bad_usage ARGS...: $prog with each ARGS string (split at blanks) must
# exit 2, as for bad usage; else FAIL, and fail=1.
# shellcheck disable=SC2034 # fail: for the caller
bad_usage() {
	for bad; do
		# shellcheck disable=SC2086 # split on purpose
		"$prog" $bad >/dev/null 2>&1
		rc=$?
		if [ $rc -ne 2 ]; then
			echo "FAIL: ${prog##*/} $bad exited $rc, expected 2 (bad usage)" >&2
			fail=1
		fi
	done
}
