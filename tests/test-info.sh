#!/bin/sh
# glcuda-info without a CUDA driver: it must say so, exit non-zero, and its
# --json output must parse and carry "ok": false. Every EGL device gets a
# verdict line of its own, and no display is named twice. With the fake
# CUDA driver: a working verdict for the EGL device whose GL UUID is the
# CUDA device's, and with a CUDA UUID that no display has, a verdict that
# says so on every device. Run from the build directory (where make check
# runs tests); the binary is ./tools/glcuda-info/glcuda-info.
# SPDX-License-Identifier: MIT
set -u

info=./tools/glcuda-info/glcuda-info
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

# every_device_judged FILE: one "verdict:" line per EGL device listed.
every_device_judged() {
	ndev=$(sed -n 's/^EGL devices: \([0-9][0-9]*\)$/\1/p' "$1")
	nverdict=$(grep -c '^        verdict: ' "$1")
	if [ -z "$ndev" ]; then
		echo "SKIP: EGL devices cannot be listed here: no verdict per device to check"
	elif [ "$nverdict" -ne "$ndev" ]; then
		echo "FAIL: $ndev EGL device(s) and $nverdict device verdict(s) in $1:" >&2
		grep -E '^EGL devices|^    device|^        verdict' "$1" >&2
		fail=1
	fi
}
every_device_judged "$tmp/text"
# A display is named once: the GLES and compatibility contexts on the GL
# context's display say so rather than naming it again.
dup=$(sed -n 's/^    display   //p' "$tmp/text" |
	grep -v "^the OpenGL context's\$" | sort | uniq -d)
if [ -n "$dup" ]; then
	echo "FAIL: the report names the same display twice: $dup" >&2
	fail=1
fi
# The compatibility-profile context (GLCUDA_HEADLESS_FLAG_COMPATIBILITY)
# is listed with the core and ES ones, and made wherever the core one is:
# every driver with GL 4.5 core has the compatibility profile too (Mesa,
# NVIDIA).
if grep -q '^OpenGL (core) context: [0-9]' "$tmp/text" &&
   ! grep -A3 '^OpenGL (compatibility) context: [0-9]' "$tmp/text" |
	grep -q '^    profile   compatibility$'; then
	echo "FAIL: the report lists no compatibility context:" >&2
	grep -A3 '^OpenGL (compatibility) context' "$tmp/text" >&2
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
assert d["compat"]["ok"] is d["gl"]["ok"], d["compat"]
if d["compat"]["ok"]:
    assert d["compat"]["display"] == d["gl"]["display"], d["compat"]
    assert d["compat"]["major"] * 10 + d["compat"]["minor"] >= 32, d["compat"]
    assert d["compat"]["profile"] == "compatibility", d["compat"]
    assert d["gl"]["profile"] == "core", d["gl"]
    assert d["gles"]["profile"] is None, d["gles"]
for e in d["egl"]["devices"]:
    ev = e["verdict"]
    assert ev["ok"] is False and ev["error"] and ev["message"], e
    assert ev["stage"] in ("context", "glcuda_device_new"), e
    assert isinstance(e["hidden_from_cuda"], bool), e
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
d = json.load(sys.stdin)
v = d["verdict"]
assert v["ok"] is True and v["sync_mode"] == "cpu", v
# The contexts are on the display of CUDA device 0 (the fake one).
assert "(UUID of CUDA 0)" in d["gl"]["display"], d["gl"]
# Each EGL device is judged; the one with the GL UUID works on CUDA 0.
works = [e for e in d["egl"]["devices"] if e["verdict"]["ok"]]
assert works, d["egl"]["devices"]
for e in works:
    assert e["verdict"]["cuda_device"] == 0, e
    assert e["verdict"]["sync_mode"] == "cpu", e
' <"$tmp/fake.json"; then
		echo "FAIL: glcuda-info on the fake CUDA driver found no working device:" >&2
		cat "$tmp/fake.json" >&2
		fail=1
	fi

	# A CUDA device that no display is: the contexts still describe GL,
	# marked as no CUDA device's, and no EGL device is said to work.
	GLCUDA_LIBCUDA=$fake GLCUDA_FAKE_CUDA_UUID=00112233-4455-6677-8899-aabbccddeeff \
		"$info" >"$tmp/nomatch" 2>"$tmp/nomatch.err"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "FAIL: glcuda-info exited 0 with a CUDA device no display is" >&2
		fail=1
	fi
	if ! grep -q '^    display   .*\[none of the 1 CUDA device: no interop\]' "$tmp/nomatch"; then
		echo "FAIL: the report does not say the display is no CUDA device's:" >&2
		grep '^    display' "$tmp/nomatch" >&2
		fail=1
	fi
	if grep -q '^        verdict: interop works' "$tmp/nomatch"; then
		echo "FAIL: an EGL device is said to work with a CUDA device no display is" >&2
		fail=1
	fi
	if ! grep -q '^        verdict: interop cannot work: GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE' \
		"$tmp/nomatch"; then
		echo "FAIL: no EGL device verdict names GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE:" >&2
		grep '^        verdict' "$tmp/nomatch" >&2
		fail=1
	fi
	every_device_judged "$tmp/nomatch"
fi

"$info" --help >"$tmp/help" || { echo "FAIL: --help exited non-zero" >&2; fail=1; }
grep -q -- "--json" "$tmp/help" || { echo "FAIL: --help does not list --json" >&2; fail=1; }
grep -q -- "--cuda-device" "$tmp/help" || { echo "FAIL: --help does not list --cuda-device" >&2; fail=1; }
# --device is the older spelling of --cuda-device: a bad value is bad
# usage (2); a good one runs, and fails without a driver (1).
for opt in --cuda-device --device; do
	"$info" "$opt" nope >/dev/null 2>&1
	if [ $? -ne 2 ]; then
		echo "FAIL: a bad $opt argument must exit 2" >&2
		fail=1
	fi
	GLCUDA_LIBCUDA=/nonexistent/libcuda.so.1 "$info" "$opt" 0 >/dev/null 2>&1
	rc=$?
	if [ $rc -ne 1 ]; then
		echo "FAIL: glcuda-info $opt 0 without a CUDA driver exited $rc, expected 1" >&2
		fail=1
	fi
done

exit $fail
