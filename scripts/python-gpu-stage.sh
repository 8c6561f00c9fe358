# shellcheck shell=bash disable=SC2154
# Sourced by the scripts that run the Python package on the GPU machine
# (python-gpu-test.sh, python-gpu-multi.sh), from the project root, with
# $unpack set to yes or no: checks build-python-gpu/stage, unpacks the
# runtime libraries when asked, points GLVND and the Vulkan loader at the
# NVIDIA driver, and puts the staged package on PYTHONPATH and its library
# on LD_LIBRARY_PATH. Sets $stage and $PYTHON.
# SPDX-License-Identifier: MIT
stage=$(pwd)/build-python-gpu/stage
if [ ! -f "$stage/site/glcuda/_glcuda.abi3.so" ]; then
	echo "no build-python-gpu/stage: run scripts/python-gpu-build.sh" \
		"on the development machine first" >&2
	exit 1
fi
if [ "$unpack" = yes ]; then
	scripts/gpu-unpack.sh || exit 2
fi
# shellcheck source=scripts/gpu-nvidia-env.sh
. scripts/gpu-nvidia-env.sh
# shellcheck source=scripts/gpu-verdicts.sh
. scripts/gpu-verdicts.sh

PYTHON=${PYTHON:-python3}
PYTHONPATH=$stage/site
LD_LIBRARY_PATH=$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH LD_LIBRARY_PATH PYTHONDONTWRITEBYTECODE
