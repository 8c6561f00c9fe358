# shellcheck shell=sh
# Sourced by the GPU machine's scripts (scripts/gpu-*.sh,
# scripts/gst-gpu-env.sh, bench/run.sh, bench/soak.sh): point GLVND and the
# Vulkan loader at the NVIDIA driver where it is installed as on the GPU
# machine, unless the environment already names a driver. Elsewhere (a dry
# run on Mesa) the system's defaults stay.
# SPDX-License-Identifier: MIT

nvidia_share=/usr/local/nvidia/share
if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ] &&
	[ -e "$nvidia_share/glvnd/egl_vendor.d/10_nvidia.json" ]; then
	__EGL_VENDOR_LIBRARY_FILENAMES=$nvidia_share/glvnd/egl_vendor.d/10_nvidia.json
	export __EGL_VENDOR_LIBRARY_FILENAMES
fi
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -e "$nvidia_share/vulkan/icd.d/nvidia_icd.json" ]; then
	VK_DRIVER_FILES=$nvidia_share/vulkan/icd.d/nvidia_icd.json
	export VK_DRIVER_FILES
fi
