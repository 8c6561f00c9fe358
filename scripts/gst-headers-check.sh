#!/bin/bash
# Compile the GStreamer element (gst/*.c) against a newer GStreamer than
# the build machine's: by default Debian 13's (1.26), whose GstCudaMemory
# carries a stream, so that the element's code for GStreamer 1.24 and
# later (GST_CHECK_VERSION(1, 24, 0): gst_cuda_memory_sync() on a CUDA
# input, a stream synchronize before pushing CUDA memory) is compiled,
# which a Debian 12 build (1.22) never does. It compiles only: nothing is
# linked or run, and the GLib headers are the build machine's.
#
#     scripts/gst-headers-check.sh [BUILD]
#
# From the project root, with BUILD (default: build) configured with the
# GStreamer plugin and gstreamer-cuda-1.0 (its config.h has HAVE_GST_CUDA).
# Needs curl and deb.debian.org. GST_HEADERS_SUITE picks the Debian suite
# (default trixie). The last line says how many files compiled, against
# which version, with how many warnings; the exit status is non-zero if
# any file failed or warned.
# SPDX-License-Identifier: MIT
set -uo pipefail

build=${1:-build}
suite=${GST_HEADERS_SUITE:-trixie}
if ! grep -q '^#define HAVE_GST_CUDA 1' "$build/config.h" 2>/dev/null; then
	echo "gst-headers-check: $build/config.h lacks HAVE_GST_CUDA: configure $build with GStreamer's GL and CUDA development files (libgstreamer-plugins-bad1.0-dev)" >&2
	exit 2
fi
# debian_fetch, gst_cc, gst_version.
. scripts/gst-build-lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! debian_fetch "$suite" "$tmp/debs" "$tmp/root" libgstreamer1.0-dev \
	libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev; then
	echo "gst-headers-check: cannot have GStreamer's development packages of $suite" >&2
	exit 2
fi
version=$(gst_version "$tmp/root")

files=0 failed=0 warned=0
for src in gst/*.c; do
	files=$((files + 1))
	log=$tmp/$(basename "$src").log
	if ! gst_cc "$build" "$tmp/root" "$src" "$tmp/out.o" > "$log" 2>&1; then
		failed=$((failed + 1))
		echo "FAIL: $src against GStreamer $version:"
		head -n 20 "$log"
	elif [ -s "$log" ]; then
		warned=$((warned + 1))
		echo "WARN: $src against GStreamer $version:"
		head -n 20 "$log"
	fi
done
echo "gst-headers-check: $files files of gst/ against GStreamer $version ($suite): $((files - failed)) compiled, $failed failed, $warned with warnings"
[ $failed -eq 0 ] && [ $warned -eq 0 ]
