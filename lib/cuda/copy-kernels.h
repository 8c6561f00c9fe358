/*
 * The library's copy kernels (copy-kernels.cu): between a plane's surface
 * object and linear device memory. Built where nvcc is, and loaded once per
 * process with CUDA 12.0's library API; without them, or where they cannot
 * be loaded, copies go through the copy engine.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_COPY_KERNELS_H
#define GLCUDA_COPY_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include "loader/cuda-driver-api.h"

struct error_sink;

/* A device's side of the process's copy kernels. */
struct copy_kernels {
	/* The kernels could not be had for this device (a build without
	 * them, a driver older than CUDA 12.0, a failed load): its copies go
	 * through the copy engine. The next device tries again. */
	bool unavailable;
};

/* Load the kernels for the process if no device has yet (thread-safe; the
 * library is kept for the life of the process, as libcuda is, and the
 * driver loads it into each context at its first launch there). After
 * cuInit; any context may be current. 0 when the kernels can be used; 1
 * when they cannot for this device (k->unavailable: the build has none,
 * the driver lacks cuLibraryLoadData, or the load failed, logged at info
 * once), which leaves its copies to the copy engine, never an error. */
int copy_kernels_load(struct error_sink *errors, struct copy_kernels *k);

/* One launch of a copy kernel: `count` layers from `first` of a plane of
 * `width` x `height` pixels of `bpp` bytes, between its surface object
 * and linear memory. flip: linear row y is the plane's row height - 1 - y.
 * depth_mode (enum glcuda_depth_mode, 0: none): a 4-byte float plane's
 * values become distances from znear and zfar on the way to linear
 * memory. */
struct copy_kernel_args {
	CUsurfObject surface;
	bool layered;
	unsigned int bpp;
	unsigned int width, height, first, count;
	CUdeviceptr linear;
	size_t row_pitch, layer_pitch;
	bool to_linear;
	bool flip;
	int depth_mode;
	double znear, zfar;
};

/* Enqueue the copy `a` in the current context, after a copy_kernels_load()
 * that returned 0. Returns 0 or a recorded GLCUDA_ERROR_CUDA; -ENOTSUP
 * (unrecorded) for a pixel size without a kernel, or where the driver
 * cannot load the kernels into this context (no code for the GPU, PTX it
 * cannot compile: then k->unavailable, logged at info), for the copy
 * engine to copy instead. */
int copy_kernels_launch(struct error_sink *errors, struct copy_kernels *k,
			const struct copy_kernel_args *a, CUstream stream);

#endif
