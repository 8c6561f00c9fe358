/*
 * The device memory of DLPack exports: per image plane, blocks of one size
 * in the device's CUDA context, reused so that a loop that exports and
 * drops a tensor per step allocates nothing after its first steps. A
 * block goes back to the pool when the tensor's deleter runs, on any
 * thread, also after the image and its device are gone: the pool holds
 * its own reference to libcuda and to the primary context.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TENSOR_POOL_H
#define GLCUDA_TENSOR_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include "loader/cuda-driver-api.h"

struct error_sink;
struct tensor_pool;

/* A pool of `block_size`-byte blocks in ctx. primary: ctx is `device`'s
 * primary context, which the pool retains until its last block is back
 * (a caller's own context must outlive the tensors instead). Errors:
 * -ENOMEM, GLCUDA_ERROR_NO_CUDA_DRIVER, GLCUDA_ERROR_CUDA. */
int tensor_pool_new(struct error_sink *errors, CUcontext ctx, CUdevice device,
		    bool primary, size_t block_size, struct tensor_pool **out);

/* A block for an export on `stream`: a free one last exported on the same
 * stream (whose consumer's work, enqueued before the block came back, is
 * then ordered before anything new on it), else a new allocation. With
 * the pool's context current. Each block holds a reference to the pool. */
int tensor_pool_get(struct tensor_pool *pool, struct error_sink *errors,
		    CUstream stream, CUdeviceptr *out);

/* Give a block back (a tensor's deleter): kept for reuse on `stream`, or
 * freed when the pool keeps enough or its image is gone. Any thread; needs
 * no context current. */
void tensor_pool_put(struct tensor_pool *pool, CUdeviceptr block,
		     CUstream stream);

/* The image's reference: frees the free blocks; the pool goes with the
 * last block given back. NULL is a no-op. Any thread. */
void tensor_pool_release(struct tensor_pool *pool);

size_t tensor_pool_block_size(const struct tensor_pool *pool);

#endif
