#!/bin/sh
# Unpack the runtime libraries the GPU machine lacks (.gl/*.deb: GLVND, the
# Vulkan loader, libepoxy, libsubunit, libwayland; see doc/gpu-testing.md)
# into / and refresh the linker cache. Run from the project root, as root.
# The GPU machine's scripts call it for their --unpack option.
# SPDX-License-Identifier: MIT
set -u

found=no
for f in .gl/*.deb; do
	[ -e "$f" ] || continue
	found=yes
	dpkg -x "$f" / || exit 1
done
# NVRTC 12 or older (Debian's non-free libnvrtc11.2 and
# libnvrtc-builtins11.8), where they were put in .gl/nvrtc/: GStreamer
# 1.22's cudaconvert and cudascale need one (scripts/gst-gpu-env.sh).
for f in .gl/nvrtc/*.deb; do
	[ -e "$f" ] || continue
	dpkg -x "$f" / || exit 1
done
if [ $found = no ]; then
	echo "no .gl/*.deb: fetch the runtime libraries first (doc/gpu-testing.md)" >&2
	exit 2
fi
ldconfig
