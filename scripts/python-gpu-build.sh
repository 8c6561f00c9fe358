#!/bin/sh
# Build the Python package for the GPU machine, on the development
# machine, from the project root:
#
#     scripts/python-gpu-build.sh [CONFIGURE-OPTIONS...]
#
# The GPU machine has Python 3.12 with torch, CuPy and JAX but no libtool
# and no glcuda. The module uses the stable ABI of Python 3.11
# (Py_LIMITED_API), so the one built here with Debian's Python runs there.
# Out of tree in build-python-gpu/, with libglcuda shared (the module links
# it), and only these built: the library and the module. The result, which
# runs there from any path, is build-python-gpu/stage/:
#
#   lib/libglcuda.so.N
#   site/glcuda/   the package: its Python files and _glcuda.abi3.so
#
# scripts/python-gpu-test.sh runs the checks with it (PYTHONPATH and
# LD_LIBRARY_PATH pointing into it). Carry build-python-gpu/stage to the
# GPU machine. Options given here are passed to configure (and force it
# to run again).
set -eu

if [ ! -f configure.ac ] || [ ! -f python/setup.py ]; then
	echo "run from the glcuda project root" >&2
	exit 1
fi
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
	autoreconf -fi
fi

mkdir -p build-python-gpu
cd build-python-gpu
if [ ! -f Makefile ] || [ $# -gt 0 ]; then
	../configure --enable-python=yes --disable-gstreamer "$@"
fi
make -j2 lib/libglcuda.la python/glcuda/_glcuda.la

rm -rf stage
mkdir -p stage/lib stage/site/glcuda
# The library under the name the module asks for (its soname).
soname=$(objdump -p python/glcuda/.libs/_glcuda.so |
	awk '$1 == "NEEDED" && $2 ~ /^libglcuda\.so/ { print $2 }')
cp -L "lib/.libs/$soname" stage/lib/
cp ../python/glcuda/*.py ../python/glcuda/*.pyi ../python/glcuda/py.typed \
	stage/site/glcuda/
# The name pip gives a stable-ABI module: every Python 3.11+ loads it.
cp python/glcuda/.libs/_glcuda.so stage/site/glcuda/_glcuda.abi3.so
echo "staged the package in build-python-gpu/stage" \
	"($(du -sh stage | cut -f1)); on the GPU machine run:"
echo "    scripts/python-gpu-test.sh --unpack"
