/*
 * A shared image: one Vulkan allocation seen as a GL texture and as CUDA
 * arrays, plus the per-image semaphores of the hand-off.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_IMAGE_H
#define GLCUDA_IMAGE_H

#include "sync.h"
#include "cuda/cuda-importer.h"

/* Who may touch the image. */
enum image_owner {
	IMAGE_OWNER_GL = 0,       /* GL renders/samples it */
	IMAGE_OWNER_CUDA,         /* handed to CUDA; CUDA work may be queued */
	IMAGE_OWNER_CUDA_DONE,    /* CUDA signalled; GL has not waited yet */
};

struct glcuda_image;
struct tensor_pool;

/* What differs between the kinds of image when one is freed; every hook is
 * optional. image_free calls them in this order, around the steps common
 * to all kinds. */
struct image_kind_ops {
	/* With the GL context current: the GL objects glcuda made. */
	void (*release_gl)(struct glcuda_image *img);
	/* Before the planes' objects go, with the CUDA context current when
	 * the push succeeded; idle: the image's CUDA work was waited for. */
	void (*unmap_cuda)(struct glcuda_image *img, bool idle);
	/* After the planes' objects: what the planes were made from. */
	void (*release_cuda)(struct glcuda_image *img);
};

/* Private flags, apart from the public ones the caller passes. */
/* An image of a ring slot, without semaphores of its own: the ring hands
 * it off with the slot's sync. */
#define IMAGE_PRIVATE_RING_MANAGED (1u << 0)

struct glcuda_image {
	struct glcuda_device *dev;
	enum glcuda_image_kind kind;
	const struct image_kind_ops *ops;
	/* NULL: a wrapped layout glcuda has no name for */
	const struct format_info *fmt;
	uint32_t width, height;
	/* the caller's GLCUDA_IMAGE_FLAG_* / GLCUDA_WRAP_FLAG_* */
	uint32_t flags;
	uint32_t private_flags; /* IMAGE_PRIVATE_* */
	/* The caller's, untouched by glcuda (glcuda_image_set_user_data). */
	void *user_data;

	/* How CUDA sees the image, for every kind: one plane for shared
	 * images and GL textures, up to three for EGLImages. */
	unsigned int plane_count;
	struct cuda_plane planes[CUDA_MAX_PLANES];

	/* Shared images: the Vulkan allocation, GL's texture on it, and
	 * CUDA's import of it (which owns the plane's array). */
	struct vk_image vk;
	GLuint memory_object;
	struct cuda_import import;
	/* The GL texture: glcuda's for shared images, the caller's for
	 * wrapped GL textures (0 for EGLImages). */
	GLuint texture;

	/* Shared images: layers (1 for a 2D image), and the depth buffer of
	 * desc.depth_format, made like the colour (plane 1 for CUDA). */
	uint32_t layers;
	const struct format_info *depth_fmt;
	struct vk_image depth_vk;
	GLuint depth_memory_object;
	struct cuda_import depth_import;
	GLuint depth_texture;
	/* The framebuffer of each layer (layers of them) and the layered
	 * one (fbos[0] for a 2D image, 0 where GL cannot attach layers). */
	GLuint *fbos;
	GLuint layered_fbo;
	/* The textures the hand-off's semaphores name: colour and depth. */
	GLuint handoff_textures[2];
	unsigned int handoff_texture_count;
	/* DLPack exports' device memory, per plane (dlpack.c); made on the
	 * first export. */
	struct tensor_pool *pools[2];

	/* Wrapped images (wrap.c): the caller's GL texture (texture, target)
	 * or EGLImage, registered with CUDA. The image owns the registration
	 * and the objects of each plane, never the texture or EGLImage. GL
	 * textures are handed off by map/unmap; EGLImages, which CUDA cannot
	 * map, with the semaphores of `sync`. */
	CUgraphicsResource resource;
	GLenum target;
	/* The registration is mapped (wrap.c, handoff.c): set by each
	 * successful map, cleared by each successful unmap. A failed unmap
	 * leaves it set, and image_free unmaps before it unregisters (CUDA
	 * refuses to unregister a mapped resource). */
	bool cuda_mapped;

	/* Hand-off state (sync.c, handoff.c). */
	enum image_owner owner;
	struct handoff_sync sync;
};

/* A zeroed image of a kind, owned by GL; NULL when out of memory. */
struct glcuda_image *image_alloc(struct glcuda_device *dev,
				 enum glcuda_image_kind kind,
				 const struct image_kind_ops *ops,
				 uint32_t flags);
/* Free an image of any kind, in dependency order (image.c says which), and
 * whatever part of it was made. Does not touch dev->live_images.
 * gl_current: the device's GL context is current (else GL's objects leak);
 * cuda_current: the caller pushed the device's CUDA context (else nothing
 * waits for the image's CUDA work, and its CUDA objects are destroyed by
 * their handles all the same). */
void image_free(struct glcuda_image *img, bool gl_current, bool cuda_current);
/* glcuda_image_destroy inside the library: the same as image_free, and the
 * image no longer counts as alive. img may be NULL. */
void image_destroy(struct glcuda_image *img, bool gl_current,
		   bool cuda_current);

/* glcuda_image_new after its argument checks (desc is a full struct of
 * this glcuda's size); private_flags: IMAGE_PRIVATE_*. With the device's
 * CUDA context pushed where the device has CUDA. */
int image_new_internal(struct glcuda_device *dev,
		       const struct glcuda_image_desc *desc,
		       uint32_t private_flags, struct glcuda_image **out);

/* Bytes per pixel of a CUDA plane: its channels of its format. */
static inline unsigned int
cuda_plane_bytes_per_pixel(const struct cuda_plane *p)
{
	unsigned int channel;

	switch (p->format) {
	case CU_AD_FORMAT_UNSIGNED_INT8:
	case CU_AD_FORMAT_SIGNED_INT8:
		channel = 1;
		break;
	case CU_AD_FORMAT_UNSIGNED_INT16:
	case CU_AD_FORMAT_SIGNED_INT16:
	case CU_AD_FORMAT_HALF:
		channel = 2;
		break;
	default:
		channel = 4;
		break;
	}
	return channel * p->channels;
}

/* The layers of a CUDA plane: 1 for planes that do not say. */
static inline uint32_t
cuda_plane_layers(const struct cuda_plane *p)
{
	return p->layers ? p->layers : 1;
}

#endif
