/*
 * Users' own CUDA kernels, from a PTX, cubin or fatbin file, for
 * glcudafilter (kernel-name, ptx-file, cubin-file) and glcuda-compositor
 * (--kernel-file, --kernel-name).
 *
 * The documented signature, one thread per texel, 16x16 blocks covering
 * the plane:
 *
 *   extern "C" __global__ void NAME(cudaSurfaceObject_t in,
 *                                   cudaSurfaceObject_t out,
 *                                   int width, int height,
 *                                   int plane, int format)
 *
 * width and height are the plane's, in texels; plane is its index (0 for
 * one-plane formats, 0 luma and 1 chroma of NV12 and P010, 0 Y, 1 U and
 * 2 V of I420); format is the plane's enum glcuda_format (its texel:
 * GLCUDA_FORMAT_RGBA8, R8, RG8, R16, RG16, RGB10_A2). A kernel of the
 * first four parameters only runs unchanged: cuLaunchKernel reads as many
 * parameters as the kernel has.
 *
 * Every CUDA call goes through the programs' table (cuda-table.h), loaded by
 * the caller; the caller makes the CUDA context current.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TOOLS_USER_KERNEL_H
#define GLCUDA_TOOLS_USER_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "cuda-table.h"
#include <glcuda/glcuda-cuda.h>

/*
 * Loads the module in file @path (PTX text, or a cubin or fatbin) into the
 * current CUDA context and finds its kernel @name: *module and *function,
 * unchanged on failure. Returns 0, a negative errno (the file cannot be
 * read), -EINVAL (an empty file) or GLCUDA_ERROR_CUDA (CUDA refuses the module
 * or has no such kernel in it); @msg says what failed.
 */
int user_kernel_load(const char *path, const char *name, CUmodule *module,
		     CUfunction *function, char *msg, size_t size);

/*
 * Enqueues @function on @stream over one plane of @width x @height texels
 * (plane index @plane, texels of @format), from surface @in to @out, with
 * the documented signature. Returns 0 or GLCUDA_ERROR_CUDA; @msg says
 * what failed.
 */
int user_kernel_launch(CUfunction function, CUstream stream, CUsurfObject in,
		       CUsurfObject out, uint32_t width, uint32_t height,
		       int plane, enum glcuda_format format, char *msg,
		       size_t size);

#endif
