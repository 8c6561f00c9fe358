#!/bin/sh
# glcuda-info without a CUDA driver: it must say so, exit non-zero, and its
# --json output must parse and carry "ok": false. Run from the build
# directory (where make check runs tests); the binary is ./tools/glcuda-info.
# SPDX-License-Identifier: MIT
set -u

info=./tools/glcuda-info
if [ ! -x "$info" ]; then
	echo "FAIL: $info not found; run from the build directory" >&2
	exit 1
fi

# Point the CUDA loader at a library that does not exist, so that the test
# means the same on a machine with the NVIDIA driver.
GLCUDA_LIBCUDA=/nonexistent/libcuda.so.1
export GLCUDA_LIBCUDA

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

"$info" >"$tmp/text" 2>"$tmp/text.err"
rc=$?
cat "$tmp/text"
if [ "$rc" -eq 0 ]; then
	echo "FAIL: glcuda-info exited 0 without a CUDA driver" >&2
	fail=1
fi
if ! grep -q "no CUDA driver found" "$tmp/text"; then
	echo "FAIL: the report does not say that no CUDA driver was found" >&2
	fail=1
fi
if ! grep -q "interop cannot work" "$tmp/text"; then
	echo "FAIL: the verdict does not say interop cannot work" >&2
	fail=1
fi

"$info" --json >"$tmp/json" 2>"$tmp/json.err"
rc=$?
if [ "$rc" -eq 0 ]; then
	echo "FAIL: glcuda-info --json exited 0 without a CUDA driver" >&2
	fail=1
fi
if command -v python3 >/dev/null 2>&1; then
	if ! python3 -c '
import json, sys
d = json.load(sys.stdin)
v = d["verdict"]
assert v["ok"] is False, v
assert v["sync_mode"] is None, v
assert v["error"] and v["error"] != "GLCUDA_SUCCESS", v
assert v["message"], v
assert d["cuda"]["ok"] is False, d["cuda"]
assert d["cuda"]["error"] == "GLCUDA_ERROR_NO_CUDA_DRIVER", d["cuda"]
' <"$tmp/json"; then
		echo "FAIL: --json output does not parse or has the wrong verdict:" >&2
		cat "$tmp/json" >&2
		fail=1
	fi
else
	if ! grep -q '"ok": false' "$tmp/json" || ! grep -q '"verdict"' "$tmp/json"; then
		echo "FAIL: --json output has no verdict with \"ok\": false" >&2
		fail=1
	fi
fi

# With a CUDA driver: the fake one (tests/fake-cuda, built by make check;
# not on the GPU machine, which has the real one), given GL's device UUID
# so that it binds. The doctor must then find a working device in the cpu
# sync mode: this is glcuda-info's own use of the API, end to end.
fake=$(pwd)/tests/fake-cuda/.libs/libfakecuda.so
if [ -e "$fake" ]; then
	uuid=$(awk '/device UUID/ { print $3; exit }' "$tmp/text")
	if [ -z "$uuid" ]; then
		echo "FAIL: the report names no GL device UUID to give the fake CUDA driver" >&2
		fail=1
	elif ! GLCUDA_LIBCUDA=$fake GLCUDA_FAKE_CUDA_UUID=$uuid "$info" --json \
		>"$tmp/fake.json" 2>"$tmp/fake.err"; then
		echo "FAIL: glcuda-info on the fake CUDA driver exited non-zero:" >&2
		cat "$tmp/fake.json" "$tmp/fake.err" >&2
		fail=1
	elif command -v python3 >/dev/null 2>&1 && ! python3 -c '
import json, sys
v = json.load(sys.stdin)["verdict"]
assert v["ok"] is True and v["sync_mode"] == "cpu", v
' <"$tmp/fake.json"; then
		echo "FAIL: glcuda-info on the fake CUDA driver found no working device:" >&2
		cat "$tmp/fake.json" >&2
		fail=1
	fi
fi

"$info" --help >"$tmp/help" || { echo "FAIL: --help exited non-zero" >&2; fail=1; }
grep -q -- "--json" "$tmp/help" || { echo "FAIL: --help does not list --json" >&2; fail=1; }
"$info" --device nope >/dev/null 2>&1
if [ $? -ne 2 ]; then
	echo "FAIL: a bad --device argument must exit 2" >&2
	fail=1
fi

exit $fail
