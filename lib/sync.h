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

#include "device.h"
#include "vk/vk-exporter.h"
#include "cuda/cuda-importer.h"

/* One direction of the hand-off: a Vulkan semaphore imported into GL and
 * CUDA. Each direction has a single signaller (GL for to_cuda, CUDA for
 * to_gl), so timeline values arrive in order (doc/design.md §1). */
struct handoff_semaphore {
	struct vk_semaphore vk;
	GLuint gl;
	CUexternalSemaphore cu;
	uint64_t value; /* last value signalled (timeline) */
};

/* The synchronisation of one hand-off unit: a shared image, or a ring slot
 * whose input and output travel together under one pair of semaphores. */
struct handoff_sync {
	struct handoff_semaphore to_cuda, to_gl;
	/* Recorded on the stream after each CUDA->GL signal: destroy (and the
	 * CPU mode's GL wait) wait for it. An event rather than the stream,
	 * which the caller may destroy first. */
	CUevent cuda_done;
	bool cuda_done_recorded;
	/* A hand-off failed half-way: binary semaphores are out of step. */
	bool broken;
};

#define SYNC_MAX_IMAGES 64

struct handoff_unit {
	struct handoff_sync *sync;
	const GLuint *textures;
	unsigned int texture_count;
};

/* The functions of this file that call CUDA expect the device's CUDA
 * context current: the public call above them pushed it once (doc/design.md,
 * "The CUDA context"); none of them pushes it. */

/* Create / destroy a unit's semaphores (per the device's sync mode) and its
 * event. */
int handoff_sync_init(struct glcuda_device *dev, struct handoff_sync *s);
void handoff_sync_fini(struct glcuda_device *dev, struct handoff_sync *s,
		       bool gl_current);
/* Wait (CPU) until the CUDA work before the last CUDA->GL signal is done;
 * for teardown. */
void handoff_sync_drain(struct handoff_sync *s);

/* GL -> CUDA: GL signals and flushes once, the stream waits. */
int sync_to_cuda(struct glcuda_device *dev, const struct handoff_unit *units,
		 unsigned int count, CUstream stream);
/* CUDA -> GL, first half: the stream signals. No GL call. */
int sync_cuda_signal(struct glcuda_device *dev,
		     const struct handoff_unit *units, unsigned int count,
		     CUstream stream);
/* CUDA -> GL, second half: GL waits on the GPU (the CPU mode waits for the
 * unit's event instead, the only case where it calls CUDA). */
int sync_gl_wait(struct glcuda_device *dev, const struct handoff_unit *units,
		 unsigned int count);

/* Whether sync_gl_wait calls CUDA: the calls that only wait on GL's side
 * push the CUDA context for it in the CPU mode only. */
static inline bool
sync_gl_wait_needs_cuda(const struct glcuda_device *dev)
{
	return dev->caps.sync_mode == GLCUDA_SYNC_CPU;
}

#endif
