#!/bin/sh
# Build the tests for the GPU machine, on the development machine, from the
# project root:
#
#     scripts/gpu-build.sh [CONFIGURE-OPTIONS...]
#
# Out of tree in build-gpu/, with a static libglcuda so that the test
# programs are plain executables (libtool's wrapper scripts would point at
# this machine's paths). Builds the library, the tools, the benchmarks and
# the test programs without running them, and records in
# build-gpu/gpu-tests.list the tests scripts/gpu-test.sh runs.
# Options given here are passed to configure (and force it to run again).
set -eu

if [ ! -f configure.ac ] || [ ! -f lib/glcuda.sym ]; then
	echo "run from the glcuda project root" >&2
	exit 1
fi

# Regenerate the build system only when it is missing or configure.ac
# changed: make's own rules keep Makefile.in up to date after that.
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
	autoreconf -fi
fi

mkdir -p build-gpu
cd build-gpu
if [ ! -f Makefile ] || [ $# -gt 0 ]; then
	../configure --disable-shared "$@"
fi

make -j2
# The test programs, not run: this machine has no GPU. Not the fake CUDA
# driver: a module, which a static-only build cannot make, and only for CI.
make -j2 check TESTS= check_LTLIBRARIES=tests/libtestcommon.la check_DATA=
if grep -q '^bench:' Makefile; then
	make -j2 bench
fi
make -s print-gpu-tests > gpu-tests.list

echo "built $(wc -l < gpu-tests.list) tests in build-gpu/; on the GPU machine run:"
echo "    scripts/gpu-test.sh --unpack"
