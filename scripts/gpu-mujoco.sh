#!/bin/sh
# examples/mujoco on the GPU machine, which has no MuJoCo: --check, then
# --bench (examples/mujoco/README.md). Run from the project root after
# scripts/gpu-build.sh has built build-gpu/ on the development machine:
#
#     scripts/gpu-mujoco.sh [--unpack] [BENCH-OPTION...]
#
# MuJoCo 2.2 and the libraries it links come as Debian's .deb files in
# .gl/mujoco/ (fetched on the development machine:
#     apt-get download libmujoco2.2.2 libccd2 liblodepng0 libqhull-r8.0 \
#         libtinyxml2-9
# there), unpacked with dpkg -x into a private prefix
# ($MUJOCO_PREFIX, default ${TMPDIR:-/tmp}/glcuda-mujoco) that
# LD_LIBRARY_PATH names for the example only: nothing goes into /.
# --unpack first unpacks the runtime libraries of .gl/*.deb into /
# (scripts/gpu-unpack.sh), as the other GPU scripts do. BENCH-OPTIONs go
# to --bench (--cameras N --size WxH: one configuration only).
# Exit status: --check's, else --bench's.
# SPDX-License-Identifier: MIT
set -u

prog=build-gpu/examples/mujoco/mujoco-cameras
model=examples/mujoco/scene.xml
prefix=${MUJOCO_PREFIX:-${TMPDIR:-/tmp}/glcuda-mujoco}

if [ "${1:-}" = --unpack ]; then
	shift
	scripts/gpu-unpack.sh || exit 2
fi
if [ ! -x "$prog" ]; then
	echo "no $prog: build with scripts/gpu-build.sh on a machine with libmujoco-dev and the CUDA toolkit" >&2
	exit 2
fi
found=no
mkdir -p "$prefix" || exit 2
for f in .gl/mujoco/*.deb; do
	[ -e "$f" ] || continue
	found=yes
	dpkg -x "$f" "$prefix" || exit 2
done
if [ $found = no ]; then
	echo "no .gl/mujoco/*.deb: fetch MuJoCo's packages first (see the top of $0)" >&2
	exit 2
fi
LD_LIBRARY_PATH=$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
. scripts/gpu-nvidia-env.sh

echo "== mujoco-cameras --check"
"$prog" --model "$model" --check --cameras 16 --size 128x96 --steps 5
check=$?
echo "== mujoco-cameras --check: exit $check"
echo "== mujoco-cameras --bench"
"$prog" --model "$model" --bench "$@"
bench=$?
echo "== mujoco-cameras --bench: exit $bench"
[ $check -ne 0 ] && exit $check
exit $bench
