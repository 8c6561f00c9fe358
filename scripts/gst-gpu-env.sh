# Sourced by scripts/gst-gpu-test.sh and bench/gst-bench.sh (bash): the
# environment in which the tree of scripts/gst-gpu-build.sh runs, from the
# project root. GST_GPU_FAKE=/path/to/libfakecuda.so runs it on the
# development machine instead (Mesa, the fake CUDA driver; GL's device UUID
# given to the fake), where the NVIDIA paths are not set.
# GST_GPU_STAGE=DIR runs another tree of the same layout instead of
# build-gst-gpu/stage: build-gst-new/stage (scripts/gst-gpu-build-new.sh),
# a newer GStreamer.
# SPDX-License-Identifier: MIT

gst_stage=${GST_GPU_STAGE:-build-gst-gpu/stage}
case $gst_stage in /*) ;; *) gst_stage=$(pwd)/$gst_stage ;; esac
if [ ! -x "$gst_stage/root/bin/gst-launch-1.0" ]; then
	echo "no $gst_stage: run scripts/gst-gpu-build.sh (or scripts/gst-gpu-build-new.sh) on the development machine first" >&2
	exit 1
fi

# The carried GStreamer and glcuda before anything installed.
export LD_LIBRARY_PATH=$gst_stage/root/lib:$gst_stage/glcuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$gst_stage/root/bin:$gst_stage/bin:$PATH
export GST_PLUGIN_SYSTEM_PATH=$gst_stage/root/plugins:$gst_stage/glcuda/gstreamer-1.0
export GST_PLUGIN_SCANNER=$gst_stage/root/libexec/gst-plugin-scanner
unset GST_PLUGIN_PATH
gst_tmp=$(mktemp -d "${TMPDIR:-/tmp}/glcuda-gst.XXXXXX")
export GST_REGISTRY=$gst_tmp/registry.bin
# Headless GstGL on EGL (glcuda needs EGL): the EGL device platform.
export GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device

if [ -n "${GST_GPU_FAKE:-}" ]; then
	export GLCUDA_LIBCUDA=$GST_GPU_FAKE
	export GLCUDA_FAKE_CUDA_UUID=${GLCUDA_FAKE_CUDA_UUID:-$(GLCUDA_LIBCUDA=/nonexistent/libcuda.so.1 \
		"$(pwd)/build-gst-gpu/tools/glcuda-info/glcuda-info" 2>/dev/null | awk '/device UUID/ { print $3; exit }')}
else
	# GLVND and the Vulkan loader find the NVIDIA driver here.
	# shellcheck source=scripts/gpu-nvidia-env.sh
	. "$(dirname "${BASH_SOURCE[0]}")/gpu-nvidia-env.sh"
	# NVRTC, which cudaconvert and cudascale (GStreamer 1.22) open at
	# run time as libnvrtc.so unless GST_CUDA_NVRTC_LIBNAME names it:
	# the CUDA toolkit's of this machine, the Python wheels', or Debian's
	# (non-free's libnvrtc11.2, which scripts/gpu-unpack.sh unpacks
	# where its .deb files are in .gl/nvrtc/). 1.22
	# compiles for compute_52, which NVRTC 13 no longer targets: a 12 or
	# older is taken first where there is one.
	if [ -z "${GST_CUDA_NVRTC_LIBNAME:-}" ]; then
		for lib in /usr/local/cuda-12*/lib64/libnvrtc.so.12 \
			$(python3 -c 'import nvidia.cuda_nvrtc, os; print(os.path.dirname(nvidia.cuda_nvrtc.__file__))' \
				2>/dev/null)/lib/libnvrtc.so.1[12]* \
			/usr/lib/x86_64-linux-gnu/libnvrtc.so.1[12]* \
			/usr/local/cuda/lib64/libnvrtc.so; do
			if [ -e "$lib" ]; then
				export GST_CUDA_NVRTC_LIBNAME=$lib
				break
			fi
		done
	fi
fi
