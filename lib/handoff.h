/*
 * The hand-off of a list of images (handoff.c), for the public hand-off
 * calls and the batch of copies (copy-batch.c), which hands its images off
 * and back with its one push of the CUDA context.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_HANDOFF_H
#define GLCUDA_HANDOFF_H

#include "image.h"
#include "sync.h"

/* The images of one hand-off, split by how they travel: units (shared
 * images and wrapped EGLImages, by semaphores) and wrapped GL textures (by
 * map/unmap). */
struct image_handoff {
	struct handoff_unit units[SYNC_MAX_IMAGES];
	unsigned int unit_count;
	struct glcuda_image *mapped[SYNC_MAX_IMAGES];
	CUgraphicsResource resources[SYNC_MAX_IMAGES];
	unsigned int mapped_count;
};

/* The checks a hand-off starts with (the device's GL context current,
 * 1 .. SYNC_MAX_IMAGES distinct images of dev, each owned as expected),
 * then the split into h. 0 or a recorded error naming what. dev is not
 * NULL; the thread's last error is not cleared. */
int handoff_begin(struct glcuda_device *dev,
		  struct glcuda_image *const *images, unsigned int count,
		  enum image_owner expected, const char *what,
		  struct image_handoff *h);

/* The images of h, owned by GL, to CUDA on the stream (the images become
 * CUDA's), or back from CUDA to GL (the images become GL's, or wait for
 * GL's half: glcuda_handoff_to_gl()). With the CUDA context pushed. */
int handoff_to_cuda_pushed(struct glcuda_device *dev,
			   struct glcuda_image *const *images,
			   unsigned int count, struct image_handoff *h,
			   CUstream stream);
int handoff_to_gl_pushed(struct glcuda_device *dev,
			 struct glcuda_image *const *images, unsigned int count,
			 struct image_handoff *h, CUstream stream);

#endif
