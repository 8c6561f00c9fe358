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
if [ $found = no ]; then
	echo "no .gl/*.deb: fetch the runtime libraries first (doc/gpu-testing.md)" >&2
	exit 2
fi
ldconfig
