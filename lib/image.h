/*
 * A shared image: one Vulkan allocation seen as a GL texture and as CUDA
 * arrays, plus the per-image semaphores of the hand-off.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_IMAGE_H
#define GLCUDA_IMAGE_H

#include "private.h"
#include "vk/vk-exporter.h"
#include "cuda/cuda-importer.h"
#include "cuda/cuda-interop.h"

/* Who may touch the image. */
enum image_owner {
	IMAGE_OWNER_GL = 0,       /* GL renders/samples it */
	IMAGE_OWNER_CUDA,         /* handed to CUDA; CUDA work may be queued */
	IMAGE_OWNER_CUDA_DONE,    /* CUDA signalled; GL has not waited yet */
};

/* One direction of the hand-off: a Vulkan semaphore imported into GL and
 * CUDA. Each direction has a single signaller (GL for to_cuda, CUDA for
 * to_gl), so timeline values arrive in order (DESIGN.md §3). */
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

struct glcuda_image {
	struct glcuda_device *dev;
	enum glcuda_image_kind kind;
	const struct format_info *fmt; /* NULL: a wrapped layout glcuda has no name for */
	uint32_t width, height;
	uint32_t flags;

	struct vk_image vk;
	GLuint texture;
	GLuint memory_object;
	struct cuda_image cu;

	/* Hand-off state (sync.c). */
	enum image_owner owner;
	struct handoff_sync sync;
	/* Part of a ring slot: the ring hands it off with the slot's sync. */
	bool ring_managed;

	/* Wrapped images (wrap.c): the caller's GL texture (texture, target)
	 * or EGLImage, registered with CUDA. The image owns the registration
	 * and the CUDA objects of each plane, never the texture or EGLImage.
	 * GL textures are handed off by map/unmap; EGLImages, which CUDA
	 * cannot map, with the semaphores of `sync`. */
	CUgraphicsResource resource;
	GLenum target;
	unsigned int plane_count;
	struct cuda_plane planes[CUDA_MAX_PLANES];
};

/* Private flag of image_new_internal: an image of a ring slot, without
 * semaphores of its own. */
#define IMAGE_FLAG_RING_MANAGED (1u << 31)

/* glcuda_image_new without the argument checks the public call does. */
int image_new_internal(struct glcuda_device *dev, uint32_t width, uint32_t height,
		       enum glcuda_format format, uint32_t flags,
		       struct glcuda_image **out);

/* wrap.c: release a wrapped image (called by glcuda_image_destroy). */
void wrap_free(struct glcuda_image *img, bool gl_current);
/* After the map of wrapped GL textures: pick up a new array if the driver
 * moved the texture (never seen; the objects are made again then). The
 * CUDA context must be pushed. */
int wrap_refresh_mapped(struct glcuda_image *img);

#endif
