/*
 * The device memory of DLPack exports (tensor-pool.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "error.h"
#include "loader/cuda-loader.h"
#include "cuda/tensor-pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

/* Free blocks kept per pool: enough for a consumer that holds a few
 * tensors of one image at a time (double or triple buffering). */
#define POOL_KEEP 4

struct free_block {
	CUdeviceptr pointer;
	CUstream stream;
};

struct tensor_pool {
	pthread_mutex_t lock;
	unsigned int refs;      /* the image's, and one per block out */
	bool orphaned;          /* the image is gone: free what comes back */
	CUcontext ctx;
	CUdevice device;
	bool primary;
	size_t block_size;
	unsigned int free_count;
	struct free_block free[POOL_KEEP];
};

int
tensor_pool_new(struct error_sink *errors, CUcontext ctx, CUdevice device,
		bool primary, size_t block_size, struct tensor_pool **out)
{
	struct tensor_pool *pool;
	char msg[512];
	CUcontext retained;
	CUresult res;
	int ret;

	pool = calloc(1, sizeof(*pool));
	if (!pool)
		return error_fail(errors, -ENOMEM,
				  "out of memory for an export pool");
	/* The driver stays loaded while blocks are out, whatever happens to
	 * the device. */
	ret = cuda_loader_load(msg, sizeof(msg));
	if (ret < 0) {
		free(pool);
		return error_fail(errors, ret, "%s", msg);
	}
	if (primary) {
		res = CU_CALL(cuDevicePrimaryCtxRetain, &retained, device);
		if (res != CUDA_SUCCESS) {
			cuda_loader_unload();
			free(pool);
			return cuda_call_fail(
				errors, res, "cuDevicePrimaryCtxRetain",
				"(for the memory of DLPack exports)");
		}
	}
	pthread_mutex_init(&pool->lock, NULL);
	pool->refs = 1;
	pool->ctx = ctx;
	pool->device = device;
	pool->primary = primary;
	pool->block_size = block_size;
	*out = pool;
	return 0;
}

size_t
tensor_pool_block_size(const struct tensor_pool *pool)
{
	return pool->block_size;
}

int
tensor_pool_get(struct tensor_pool *pool, struct error_sink *errors,
		CUstream stream, CUdeviceptr *out)
{
	CUdeviceptr p = 0;
	CUresult res;

	pthread_mutex_lock(&pool->lock);
	for (unsigned int i = 0; i < pool->free_count; i++) {
		if (pool->free[i].stream != stream)
			continue;
		p = pool->free[i].pointer;
		pool->free[i] = pool->free[--pool->free_count];
		break;
	}
	pool->refs++;
	pthread_mutex_unlock(&pool->lock);
	if (p) {
		*out = p;
		return 0;
	}
	res = CU_CALL(cuMemAlloc, &p, pool->block_size);
	if (res != CUDA_SUCCESS) {
		/* The image's reference remains: this is never the last. */
		pthread_mutex_lock(&pool->lock);
		pool->refs--;
		pthread_mutex_unlock(&pool->lock);
		return cuda_call_fail(errors, res, "cuMemAlloc",
				      "(the memory of a DLPack export)");
	}
	*out = p;
	return 0;
}

/* The last reference is gone: no block is out, none is free. */
static void
pool_free(struct tensor_pool *pool)
{
	if (pool->primary)
		CU_CALL(cuDevicePrimaryCtxRelease, pool->device);
	cuda_loader_unload();
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}

/* Free blocks, with the pool's context pushed. Not under the lock. */
static void
free_blocks(struct tensor_pool *pool, const struct free_block *blocks,
	    unsigned int count)
{
	CUcontext popped;

	if (count == 0)
		return;
	/* Part of a release: like the release calls themselves, not a
	 * fault-injection site (lib/fault.h), since a release that fails
	 * can only leak. A broken context's memory went with it. */
	if (cuda_loader_table.cuCtxPushCurrent(pool->ctx) != CUDA_SUCCESS)
		return;
	for (unsigned int i = 0; i < count; i++)
		CU_CALL(cuMemFree, blocks[i].pointer);
	CU_CALL(cuCtxPopCurrent, &popped);
}

void
tensor_pool_put(struct tensor_pool *pool, CUdeviceptr block, CUstream stream)
{
	struct free_block out = { block, stream };
	bool keep, last;

	pthread_mutex_lock(&pool->lock);
	keep = !pool->orphaned && pool->free_count < POOL_KEEP;
	if (keep)
		pool->free[pool->free_count++] = out;
	last = --pool->refs == 0;
	pthread_mutex_unlock(&pool->lock);
	if (!keep)
		free_blocks(pool, &out, 1);
	if (last)
		pool_free(pool);
}

void
tensor_pool_release(struct tensor_pool *pool)
{
	struct free_block blocks[POOL_KEEP];
	unsigned int count;
	bool last;

	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->orphaned = true;
	count = pool->free_count;
	for (unsigned int i = 0; i < count; i++)
		blocks[i] = pool->free[i];
	pool->free_count = 0;
	last = --pool->refs == 0;
	pthread_mutex_unlock(&pool->lock);
	free_blocks(pool, blocks, count);
	if (last)
		pool_free(pool);
}
