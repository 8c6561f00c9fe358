# shellcheck shell=bash
# The environment glcuda is configured and tested in on CI, sourced by
# .ci/run and by scripts/mutants.sh so that both configure alike:
# - the CUDA toolkit's nvcc on PATH (the kernels, the fatbins);
# - Debian's python3, the one .ci/packages gives its headers, pytest, numpy
#   and pip, for the Python package and its tests: not another python3 (a
#   pyenv shim, say) that PATH may find first and that lacks them, which
#   would skip the Python suites.
# SPDX-License-Identifier: MIT
export PATH=$PATH:/usr/local/cuda/bin
export PYTHON=/usr/bin/python3
