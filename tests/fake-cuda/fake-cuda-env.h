/*
 * The set-up that the pixel suites on the fake CUDA driver share
 * (test-pixels-cpu, test-sync-cpu): a headless GL or GLES context, a
 * glcuda device in the "cpu" sync mode bound to the fake, the kernels of
 * tests/test-kernels.cu (which the fake runs on the CPU) and a
 * non-blocking CUDA stream, as the ring's own.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_FAKE_CUDA_ENV_H
#define GLCUDA_FAKE_CUDA_ENV_H

#include <stdbool.h>
#include <stdint.h>

#include "../test-common.h"
#include <glcuda/glcuda-cuda.h>

struct fake_env {
	struct glcuda_headless *hl;
	struct glcuda_device *dev;
	bool gles;
	unsigned int live0; /* the fake's live objects before the test */
	CUmodule module;
	CUfunction invert; /* ring_transform */
	CUstream stream;   /* non-blocking, as the ring's own */
};

void fake_env_setup(struct fake_env *e, bool gles);
/* Releases what setup made and checks that the fake holds no more
 * objects than before, saw no sticky error and has no primary context
 * left. */
void fake_env_teardown(struct fake_env *e);

/* The device's CUDA context, current on this thread / no longer. */
void fake_env_push(const struct fake_env *e);
void fake_env_pop(void);

/* ring_transform (in, out, w, h) on stream, 16x16 blocks: R and G
 * inverted, B flipped, A kept. */
void fake_env_launch_invert(const struct fake_env *e, CUsurfObject in,
			    CUsurfObject out, uint32_t w, uint32_t h,
			    CUstream stream);

#endif
