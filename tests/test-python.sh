#!/bin/sh
# The Python package (python/) on Mesa and the fake CUDA driver
# (tests/fake-cuda): its pytest suite, python/tests. Contexts made both
# ways (Headless, Device.from_current), images of every format and layer
# count drawn by GL and copied by the fake's CUDA into memory the test
# reads, pixel by pixel; the DLPack capsules, their deleters and names;
# __cuda_array_interface__ and each format's dtype and typestr; copies at
# a producer's byte_offset and read-only capsules refused; errors (failed
# exports in a process of their own, the interpreter going on) and closed
# objects; references and the fake's live objects over 10 000 exports;
# both row orders on every path, depth in metres, captures from raw GL,
# moderngl and PyOpenGL framebuffers (test_origin.py, test_capture.py,
# test_renderers.py); the stages GLCUDA_PY_PROFILE=1 records for
# __dlpack__, a consumer's import and the copies, counted once a call, and
# nothing without it (test_profile.py); the binding of a torchrun rank to its GPU
# (examples/python/multi_gpu.py:
# LOCAL_RANK to CUDA device, the UUID shown, a mismatch and a rank beyond
# the devices refused with glcuda's errors).
# Run from the build directory after make check.
# SPDX-License-Identifier: MIT
set -eu

: "${top_srcdir:?run from make check}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/glcuda-python.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fake_cuda_needs=python/glcuda/.libs/_glcuda.so
. "$top_srcdir/tests/fake-cuda-env.sh"
. "$top_srcdir/tests/python-env.sh"

"$PYTHON" -m pytest -p no:cacheprovider -q -rs "$top_srcdir/python/tests"
