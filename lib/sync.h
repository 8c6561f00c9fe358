/*
 * The GL <-> CUDA hand-off. A hand-off moves "units": each unit is one
 * pair of semaphores (struct handoff_sync) and the GL textures it covers —
 * one image for the public calls, a ring slot's input and output for the
 * ring, which so signals and waits once per frame instead of once per image.
 * CUDA->GL is two halves that the ring calls separately: CUDA signals at
 * complete time, and GL waits only when it takes the output.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_SYNC_H
#define GLCUDA_SYNC_H

#include "image.h"

#define SYNC_MAX_IMAGES 64

struct handoff_unit {
	struct handoff_sync *sync;
	const GLuint *textures;
	unsigned int texture_count;
};

/* Create / destroy a unit's semaphores (per the device's sync mode) and its
 * event. The CUDA context must be pushed. */
int handoff_sync_init(struct glcuda_device *dev, struct handoff_sync *s);
void handoff_sync_fini(struct glcuda_device *dev, struct handoff_sync *s, bool gl_current);
/* Wait (CPU) until the CUDA work before the last CUDA->GL signal is done;
 * for teardown. The CUDA context must be pushed. */
void handoff_sync_drain(struct handoff_sync *s);

/* GL -> CUDA: GL signals and flushes once, the stream waits. */
int sync_to_cuda(struct glcuda_device *dev, const struct handoff_unit *units,
		 unsigned int count, CUstream stream);
/* CUDA -> GL, first half: the stream signals. No GL call. */
int sync_cuda_signal(struct glcuda_device *dev, const struct handoff_unit *units,
		     unsigned int count, CUstream stream);
/* CUDA -> GL, second half: GL waits on the GPU (the CPU mode waits for the
 * unit's event instead). */
int sync_gl_wait(struct glcuda_device *dev, const struct handoff_unit *units,
		 unsigned int count);

#endif
