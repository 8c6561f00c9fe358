/*
 * The GL <-> CUDA hand-off. glcuda_handoff_to_gl() is two halves that the
 * ring calls separately: CUDA signals at complete time, and GL waits only
 * when it takes the output, so GL renders the next frame meanwhile.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_SYNC_H
#define GLCUDA_SYNC_H

#include "image.h"

#define SYNC_MAX_IMAGES 64

/* GL -> CUDA: GL signals and flushes, the stream waits. */
int sync_to_cuda(struct glcuda_device *dev, struct glcuda_image *const *images,
		 unsigned int count, CUstream stream);
/* CUDA -> GL, first half: the stream signals. No GL call. */
int sync_cuda_signal(struct glcuda_device *dev, struct glcuda_image *const *images,
		     unsigned int count, CUstream stream);
/* CUDA -> GL, second half: GL waits on the GPU (the CPU mode synchronises
 * the stream instead). */
int sync_gl_wait(struct glcuda_device *dev, struct glcuda_image *const *images,
		 unsigned int count);

#endif
