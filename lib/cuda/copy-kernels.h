/*
 * The library's copy kernels (copy-kernels.cu): between a plane's surface
 * object and linear device memory. Built where nvcc is; without it, or
 * where the module cannot be loaded, copies go through the copy engine.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_COPY_KERNELS_H
#define GLCUDA_COPY_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include "loader/cuda-types.h"

struct error_sink;

struct copy_kernels {
	bool tried;          /* loaded, or found unavailable, once */
	CUmodule module;     /* NULL: the copy engine copies */
	CUfunction fn[5];    /* by log2 of the bytes per pixel: 1 .. 16 */
};

/* Load the module once, with the context current: when the device is
 * made. 0 when the kernels can be used; 1 when the build has none or the
 * driver refuses the module (a driver older than the kernels' PTX), which
 * leaves copies to the copy engine (logged at info), never an error. */
int copy_kernels_load(struct error_sink *errors, struct copy_kernels *k);
/* With the context current; safe on one never loaded. */
void copy_kernels_unload(struct copy_kernels *k);

/* Enqueue the copy of `count` layers from `first` of a plane of `width` x
 * `height` pixels of `bpp` bytes between its surface object and linear
 * memory. Returns 0 or a recorded GLCUDA_ERROR_CUDA; -ENOTSUP (unrecorded)
 * for a pixel size without a kernel. */
int copy_kernels_launch(struct error_sink *errors, const struct copy_kernels *k,
			CUsurfObject surface, bool layered, unsigned int bpp,
			unsigned int width, unsigned int height, unsigned int first,
			unsigned int count, CUdeviceptr linear, size_t row_pitch,
			size_t layer_pitch, bool to_linear, CUstream stream);

#endif
