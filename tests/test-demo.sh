#!/bin/sh
# glcuda-demo, the main job. Run from the build directory (where make check
# runs tests); the binary is ./tools/glcuda-demo/glcuda-demo.
#
# Everywhere: with the CUDA driver pointed at a library that does not exist,
# the demo must exit non-zero, say that no CUDA driver was found and print
# the glcuda-info diagnosis.
# With a CUDA driver (libcuda.so.1 known to the dynamic loader): every
# filter for 30 frames at 256x256 must succeed and write a PNG and a timing
# summary; where python3 exists, the PNGs are decoded and the invert
# filter's output checked against the copy's.
# SPDX-License-Identifier: MIT
set -u

demo=./tools/glcuda-demo/glcuda-demo
prog=$demo
. "${srcdir:-.}/tests/program-test.sh"

# Usage errors exit 2, --help 0.
"$demo" --help >"$tmp/help" 2>&1 || { echo "FAIL: --help exited non-zero" >&2; fail=1; }
grep -q -- "--in-flight" "$tmp/help" || { echo "FAIL: --help does not list --in-flight" >&2; fail=1; }
bad_usage "--filter nope" "--in-flight 5" "--size 12" "--size 0x64" "--size 64x64x" \
	"--sync nope" "--frames 0" "--cuda-device nope" "--device nope"

# No CUDA driver (forced, so that this means the same on every machine).
GLCUDA_LIBCUDA=/nonexistent/libcuda.so.1 "$demo" --size 64x64 --frames 2 \
	--output "$tmp/nodriver/" >"$tmp/nodriver.out" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
	echo "FAIL: glcuda-demo exited 0 without a CUDA driver" >&2
	fail=1
fi
if ! grep -q "no CUDA driver found" "$tmp/nodriver.out"; then
	echo "FAIL: glcuda-demo does not say that no CUDA driver was found:" >&2
	cat "$tmp/nodriver.out" >&2
	fail=1
fi
if ! grep -q "GLCUDA_ERROR_NO_CUDA_DRIVER" "$tmp/nodriver.out" ||
   ! grep -q "diagnosis" "$tmp/nodriver.out"; then
	echo "FAIL: glcuda-demo does not name the error or print the diagnosis" >&2
	fail=1
fi
# What is missing is said once before the diagnosis (the demo's own
# lines; glcuda's log does not repeat its failures).
n=$(sed '/diagnosis/q' "$tmp/nodriver.out" | grep -c "Install the NVIDIA driver")
if [ "$n" -ne 1 ] || grep -q "^glcuda error:" "$tmp/nodriver.out"; then
	echo "FAIL: glcuda-demo says what is missing $n times before the" \
		"diagnosis (expected once), or logs it as \"glcuda error:\":" >&2
	cat "$tmp/nodriver.out" >&2
	fail=1
fi
if [ -e "$tmp/nodriver" ]; then
	echo "FAIL: glcuda-demo wrote output without running" >&2
	fail=1
fi

# Both spellings of the device option are accepted: without a driver they
# fail at run time (1), not as bad usage (2).
for opt in --cuda-device --device; do
	GLCUDA_LIBCUDA=/nonexistent/libcuda.so.1 "$demo" "$opt" 0 --size 64x64 --frames 2 \
		--png-frames none --quiet >/dev/null 2>&1
	rc=$?
	if [ $rc -ne 1 ]; then
		echo "FAIL: glcuda-demo $opt 0 without a CUDA driver exited $rc, expected 1" >&2
		fail=1
	fi
done

have_cuda_driver() {
	if [ -n "${GLCUDA_LIBCUDA:-}" ]; then
		[ -e "$GLCUDA_LIBCUDA" ]
		return
	fi
	ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && return 0
	# Drivers installed outside the loader's cache (containers).
	old_ifs=$IFS
	IFS=:
	for dir in ${LD_LIBRARY_PATH:-}; do
		if [ -n "$dir" ] && [ -e "$dir/libcuda.so.1" ]; then
			IFS=$old_ifs
			return 0
		fi
	done
	IFS=$old_ifs
	return 1
}

loop=./examples/compositor-loop  # built only with wayland-server
if [ -x "$loop" ]; then
	GLCUDA_LIBCUDA=/nonexistent/libcuda.so.1 "$loop" --seconds 1 >"$tmp/loop-nodriver.out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] || ! grep -q "GLCUDA_ERROR_NO_CUDA_DRIVER" "$tmp/loop-nodriver.out"; then
		echo "FAIL: compositor-loop without a CUDA driver exited $rc and said:" >&2
		cat "$tmp/loop-nodriver.out" >&2
		fail=1
	fi
fi

# A first plain run says whether CUDA works here: the loader may find a
# driver that ldconfig does not list.
"$demo" --size 64x64 --frames 2 --png-frames none --quiet >"$tmp/plain.out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	if have_cuda_driver; then
		echo "FAIL: libcuda.so.1 is installed, but glcuda-demo exited $rc:" >&2
		cat "$tmp/plain.out" >&2
		exit 1
	fi
	# Without a driver, the plain run must fail the same way.
	if ! grep -q "no CUDA driver found" "$tmp/plain.out"; then
		echo "FAIL: without libcuda.so.1, glcuda-demo exited $rc and said:" >&2
		cat "$tmp/plain.out" >&2
		fail=1
	fi
	echo "no CUDA driver here: checked the failure path only"
	exit $fail
fi

png_ok() {
	sig=$(od -An -tx1 -N8 "$1" 2>/dev/null | tr -d ' \n')
	[ "$sig" = "89504e470d0a1a0a" ]
}

# run NAME ARGS...: 30 frames at 256x256, PNG of frame 29, summary.
run() {
	name=$1
	shift
	"$demo" --size 256x256 --frames 30 --png-frames 29 --output "$tmp/$name/" --quiet "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	cat "$tmp/$name.out"
	if [ $rc -ne 0 ]; then
		echo "FAIL: glcuda-demo $* exited $rc:" >&2
		cat "$tmp/$name.err" >&2
		fail=1
		return
	fi
	if ! png_ok "$tmp/$name/frame-000029.png"; then
		echo "FAIL: glcuda-demo $*: no PNG (or a bad signature) at $tmp/$name/frame-000029.png" >&2
		ls -l "$tmp/$name" >&2
		fail=1
	fi
	for row in "glcuda-demo summary" "gl_render" "handoff_to_cuda" "cuda " \
		   "handoff_to_gl" "total" "wall frame time" "frames/s" "process CPU time"; do
		if ! grep -q "$row" "$tmp/$name.out"; then
			echo "FAIL: glcuda-demo $*: the summary lacks \"$row\"" >&2
			fail=1
		fi
	done
}

for filter in none invert blur unsharp grade; do
	run "$filter" --filter "$filter"
done
run blur16f --filter blur --format rgba16f --in-flight 2
run grade-gles --filter grade --gles --in-flight 4
# CUDA device 0 by name, and by the older spelling of the option.
run device0 --filter none --cuda-device 0
run device0-old --filter none --device 0

# The compositor example at 120 Hz until 30 frames reached the screen
# (however long that takes).
if [ -x "$loop" ]; then
	"$loop" --frames 30 --hz 120 --size 640x360 >"$tmp/loop.out" 2>&1
	rc=$?
	cat "$tmp/loop.out"
	presented=$(sed -n 's/^frames presented: *\([0-9]*\).*/\1/p' "$tmp/loop.out")
	if [ $rc -ne 0 ] || [ "$presented" != 30 ] ||
	   ! grep -q "^frames dropped:" "$tmp/loop.out" || ! grep -q "^mean latency:" "$tmp/loop.out"; then
		echo "FAIL: compositor-loop exited $rc, presented '${presented}' frames" >&2
		fail=1
	fi
fi

# Pixels: the inverted frame is 255 - the copied one (away from the
# picture-in-picture and the progress bar, which show other things).
if command -v python3 >/dev/null 2>&1 && [ -f "$tmp/none/frame-000029.png" ] &&
   [ -f "$tmp/invert/frame-000029.png" ]; then
	if ! python3 - "$tmp/none/frame-000029.png" "$tmp/invert/frame-000029.png" \
		"$tmp/blur/frame-000029.png" <<'EOF'
import struct, sys, zlib

def decode(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype == 6, (depth, ctype)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride, rows, prev, i = w * 4, [], bytearray(w * 4), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - 4] if x >= 4 else 0
            b = prev[x]
            c = prev[x - 4] if x >= 4 else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, rows

w, h, none = decode(sys.argv[1])
_, _, inv = decode(sys.argv[2])
_, _, blur = decode(sys.argv[3])
bad = 0
distinct = set()
for y in range(h // 3, h - 10):
    for x in range(0, w // 2):
        for ch in range(3):
            v, iv = none[y][x * 4 + ch], inv[y][x * 4 + ch]
            distinct.add(v)
            if abs(v + iv - 255) > 1:
                bad += 1
assert len(distinct) > 16, "the copied frame is nearly flat: %d values" % len(distinct)
assert bad == 0, "%d channel values of the inverted frame are not 255 - the copy" % bad
diff = sum(abs(none[y][i] - blur[y][i]) for y in range(h // 3, h - 10) for i in range(0, w * 2))
assert diff > 0, "the blurred frame equals the copy"
print("pixels: invert = 255 - copy, blur differs from copy")
EOF
	then
		echo "FAIL: the PNGs' pixels are wrong" >&2
		fail=1
	fi
fi

exit $fail
