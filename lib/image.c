/*
 * Shared images.
 * SPDX-License-Identifier: MIT
 */
#include "image.h"
#include "cuda/tensor-pool.h"
#include <glcuda/glcuda-cuda.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct glcuda_image *
image_alloc(struct glcuda_device *dev, enum glcuda_image_kind kind,
	    const struct image_kind_ops *ops, uint32_t flags)
{
	struct glcuda_image *img = calloc(1, sizeof(*img));

	if (!img)
		return NULL;
	img->dev = dev;
	img->kind = kind;
	img->ops = ops;
	img->flags = flags;
	img->owner = IMAGE_OWNER_GL;
	return img;
}

/* Whether freeing the image calls CUDA: it has CUDA objects. */
static bool
image_has_cuda(const struct glcuda_image *img)
{
	return img->dev->has_cuda &&
	       (img->import.memory || img->depth_import.memory ||
		img->resource || img->sync.cuda_done);
}

/* Tear down in dependency order: GL names (GL defers the release until its
 * queued commands are done), then CUDA objects once CUDA work on the image
 * has finished, then the Vulkan memory both imported. On a lost device
 * nothing waits: the work may never finish (a CUDA stream waiting for a
 * signal from a reset GL context), and on a broken CUDA context the
 * destroy calls fail and its objects go with the context instead. */
void
image_free(struct glcuda_image *img, bool gl_current, bool cuda_current)
{
	struct glcuda_device *dev = img->dev;
	const struct image_kind_ops *ops = img->ops;

	if (gl_current && ops->release_gl)
		ops->release_gl(img);

	if (image_has_cuda(img)) {
		/* Never free memory a queue may still use. Not a per-frame
		 * path, so waiting is acceptable here (but not when lost, nor
		 * without the context). */
		bool wait = cuda_current && !dev->errors.lost;
		if (wait && img->owner == IMAGE_OWNER_CUDA) {
			/* Kernels may be queued after the hand-off on a stream
			 * glcuda does not know: wait for the whole context. */
			CU_CALL(cuCtxSynchronize);
		} else if (wait) {
			handoff_sync_drain(&img->sync);
		}
		if (ops->unmap_cuda)
			ops->unmap_cuda(img, wait);
		for (unsigned int i = 0; i < img->plane_count; i++)
			cuda_plane_destroy_objects(&img->planes[i]);
		if (ops->release_cuda)
			ops->release_cuda(img);
		handoff_sync_fini(dev, &img->sync, gl_current);
	}
	/* The exports' memory is not the image's: blocks still held by
	 * tensors go when their deleters run. */
	for (unsigned int i = 0; i < ARRAY_LENGTH(img->pools); i++)
		tensor_pool_release(img->pools[i]);
	vk_image_destroy(dev->vk, &img->depth_vk);
	vk_image_destroy(dev->vk, &img->vk);
	free(img);
}

void
image_destroy(struct glcuda_image *img, bool gl_current, bool cuda_current)
{
	if (!img)
		return;
	img->dev->live_images--;
	image_free(img, gl_current, cuda_current);
}

/* Shared images -------------------------------------------------------- */

static void
shared_release_gl(struct glcuda_image *img)
{
	if (img->fbos) {
		glDeleteFramebuffers((GLsizei)img->layers, img->fbos);
		if (img->layers > 1 && img->layered_fbo)
			glDeleteFramebuffers(1, &img->layered_fbo);
	}
	free(img->fbos);
	img->fbos = NULL;
	img->layered_fbo = 0;
	gl_delete_texture(&img->depth_texture, &img->depth_memory_object);
	gl_delete_texture(&img->texture, &img->memory_object);
}

static void
shared_release_cuda(struct glcuda_image *img)
{
	cuda_destroy_import(&img->depth_import);
	cuda_destroy_import(&img->import);
}

static const struct image_kind_ops shared_ops = {
	.release_gl = shared_release_gl,
	.release_cuda = shared_release_cuda,
};

/* The arguments glcuda_image_new checks against the device. */
static int
check_desc(struct glcuda_device *dev, const struct glcuda_image_desc *d,
	   const struct format_info **fmt, const struct format_info **depth)
{
	const uint32_t layers = d->layers ? d->layers : 1;

	*fmt = format_info(d->format);
	*depth = d->depth_format ? format_info(d->depth_format) : NULL;
	if (!*fmt)
		return device_fail(dev, -EINVAL,
				   "glcuda_image_new: %d is not a "
				   "glcuda_format",
				   (int)d->format);
	if (d->width == 0 || d->height == 0 ||
	    d->width > dev->caps.max_image_size ||
	    d->height > dev->caps.max_image_size)
		return device_fail(
			dev, -EINVAL,
			"glcuda_image_new: %ux%u is not a valid size: each "
			"side must be 1..%u (the smaller of "
			"GL_MAX_TEXTURE_SIZE and Vulkan's maxImageDimension2D)",
			d->width, d->height, dev->caps.max_image_size);
	if (layers > dev->caps.max_image_layers)
		return device_fail(
			dev, -EINVAL,
			"glcuda_image_new: %u layers; this device allows 1..%u "
			"(caps.max_image_layers: the smallest of GL's, "
			"Vulkan's and CUDA's limits)",
			layers, dev->caps.max_image_layers);
	if (d->depth_format && (!*depth || !(*depth)->is_depth))
		return device_fail(
			dev, -EINVAL,
			"glcuda_image_new: depth_format %d (%s) is not a depth "
			"format; use GLCUDA_FORMAT_DEPTH32F, or 0 for none",
			(int)d->depth_format,
			glcuda_format_get_name(d->depth_format));
	if (*depth && (*fmt)->is_depth)
		return device_fail(dev, -EINVAL,
				   "glcuda_image_new: a %s image is a depth "
				   "buffer already; leave depth_format 0",
				   (*fmt)->name);
	if (d->flags & ~(uint32_t)(GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE |
				   GLCUDA_IMAGE_FLAG_CUDA_LINEAR_FILTER))
		return device_fail(dev, -EINVAL,
				   "glcuda_image_new: unknown flags 0x%x",
				   d->flags);
	return 0;
}

/* One Vulkan image of a shared image (the colour, or the depth buffer),
 * with its GL texture. */
static int
alloc_gl(struct glcuda_device *dev, const struct format_info *fmt,
	 struct glcuda_image *img, struct vk_image *vk, GLuint *texture,
	 GLuint *memory_object)
{
	int fd = -1, ret;

	ret = vk_image_create(dev->vk, fmt, img->width, img->height,
			      img->layers, vk);
	if (ret < 0)
		return ret;
	/* One fd per importer: each import takes ownership of its own. */
	ret = vk_image_export_fd(dev->vk, vk, &fd);
	if (ret < 0)
		return ret;
	return gl_import_texture(&dev->gl, fd, vk->size, vk->dedicated, fmt,
				 img->width, img->height, img->layers, texture,
				 memory_object);
}

/* CUDA's import of one Vulkan image of a shared image, into a plane. With
 * the CUDA context pushed. */
static int
alloc_cuda(struct glcuda_device *dev, const struct format_info *fmt,
	   struct glcuda_image *img, const struct vk_image *vk,
	   struct cuda_import *import, struct cuda_plane *plane)
{
	int fd = -1, ret;

	ret = vk_image_export_fd(dev->vk, vk, &fd);
	if (ret < 0)
		return ret;
	return cuda_import_image(&dev->errors, fd, vk->size, vk->dedicated, fmt,
				 img->width, img->height, img->layers,
				 !(img->flags &
				   GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE),
				 img->flags &
					 GLCUDA_IMAGE_FLAG_CUDA_LINEAR_FILTER,
				 import, plane);
}

static void
describe_plane(struct cuda_plane *p, const struct format_info *fmt,
	       const struct glcuda_image *img)
{
	p->width = img->width;
	p->height = img->height;
	p->layers = img->layers;
	p->format = fmt->cu_format;
	p->channels = fmt->cu_channels;
}

int
image_new_internal(struct glcuda_device *dev,
		   const struct glcuda_image_desc *desc, uint32_t private_flags,
		   struct glcuda_image **out)
{
	const struct format_info *fmt, *depth;
	struct glcuda_image *img;
	int ret;

	ret = check_desc(dev, desc, &fmt, &depth);
	if (ret < 0)
		return ret;
	ret = device_check_gl(dev, "glcuda_image_new");
	if (ret < 0)
		return ret;

	img = image_alloc(dev, GLCUDA_IMAGE_KIND_SHARED, &shared_ops,
			  desc->flags);
	if (!img)
		return device_fail(dev, -ENOMEM,
				   "glcuda_image_new: out of memory");
	img->private_flags = private_flags;
	img->fmt = fmt;
	img->depth_fmt = depth;
	img->width = desc->width;
	img->height = desc->height;
	img->layers = desc->layers ? desc->layers : 1;
	/* Described even without CUDA; the import adds the objects. */
	img->plane_count = depth ? 2 : 1;
	describe_plane(&img->planes[0], fmt, img);
	if (depth)
		describe_plane(&img->planes[1], depth, img);

	ret = alloc_gl(dev, fmt, img, &img->vk, &img->texture,
		       &img->memory_object);
	if (ret < 0)
		goto fail;
	img->handoff_textures[img->handoff_texture_count++] = img->texture;
	if (depth) {
		ret = alloc_gl(dev, depth, img, &img->depth_vk,
			       &img->depth_texture, &img->depth_memory_object);
		if (ret < 0)
			goto fail;
		img->handoff_textures[img->handoff_texture_count++] =
			img->depth_texture;
	}
	/* Ring slots draw through the ring's own framebuffer. */
	if (!(private_flags & IMAGE_PRIVATE_RING_MANAGED)) {
		img->fbos = calloc(img->layers, sizeof(*img->fbos));
		if (!img->fbos) {
			ret = device_fail(dev, -ENOMEM,
					  "glcuda_image_new: out of memory");
			goto fail;
		}
		ret = gl_create_framebuffers(&dev->gl,
					     glcuda_image_get_gl_target(img),
					     fmt->is_depth ? 0 : img->texture,
					     fmt->is_depth ? img->texture
							   : img->depth_texture,
					     img->layers, img->fbos,
					     &img->layered_fbo);
		if (ret < 0) {
			free(img->fbos);
			img->fbos = NULL;
			goto fail;
		}
	}

	if (dev->has_cuda) {
		ret = alloc_cuda(dev, fmt, img, &img->vk, &img->import,
				 &img->planes[0]);
		if (ret == 0 && depth)
			ret = alloc_cuda(dev, depth, img, &img->depth_vk,
					 &img->depth_import, &img->planes[1]);
		if (ret < 0)
			goto fail;

		if (!(private_flags & IMAGE_PRIVATE_RING_MANAGED)) {
			ret = handoff_sync_init(dev, &img->sync);
			if (ret < 0)
				goto fail;
		}
	}

	dev->live_images++;
	log_debug(dev,
		  "image %p: %ux%u%s%.0u %s%s%s, %llu bytes%s, texture %u\n",
		  (void *)img, img->width, img->height,
		  img->layers > 1 ? "x" : "", img->layers > 1 ? img->layers : 0,
		  fmt->name, depth ? " + " : "", depth ? depth->name : "",
		  (unsigned long long)(img->vk.size + img->depth_vk.size),
		  img->vk.dedicated ? " (dedicated)" : "", img->texture);
	*out = img;
	return 0;

fail:
	image_free(img, true, true);
	return ret;
}

GLCUDA_EXPORT int
glcuda_image_new(struct glcuda_device *dev,
		 const struct glcuda_image_desc *desc,
		 struct glcuda_image **out)
{
	struct glcuda_image_desc copied;
	int ret;

	error_clear();
	if (!dev || !desc || !out)
		return device_fail(dev, -EINVAL, "glcuda_image_new: %s is NULL",
				   !dev ? "dev" : !desc ? "desc" : "out");
	/* A struct of this glcuda's size from here on, whatever the size the
	 * caller was built with. */
	ret = image_desc_copy(dev, desc, &copied);
	if (ret < 0)
		return ret;
	if (!dev->has_cuda)
		return image_new_internal(dev, &copied, 0, out);
	ret = device_push_cuda(dev, "glcuda_image_new");
	if (ret < 0)
		return ret;
	ret = image_new_internal(dev, &copied, 0, out);
	device_pop_cuda(dev);
	return ret;
}

GLCUDA_EXPORT void
glcuda_image_destroy(struct glcuda_image *img)
{
	struct glcuda_device *dev;
	bool gl_current, cuda_current;

	if (!img)
		return;
	dev = img->dev;
	gl_current = eglGetCurrentContext() == dev->context;
	if (!gl_current)
		log_error(dev,
			  "glcuda_image_destroy: the device's context is not "
			  "current; the image's GL objects leak. Make the "
			  "context current before destroying images.\n");
	cuda_current = image_has_cuda(img) && device_push_cuda_quietly(dev);
	image_destroy(img, gl_current, cuda_current);
	if (cuda_current)
		device_pop_cuda(dev);
}

GLCUDA_EXPORT void
glcuda_image_set_user_data(struct glcuda_image *img, void *user_data)
{
	if (img)
		img->user_data = user_data;
}

GLCUDA_EXPORT void *
glcuda_image_get_user_data(const struct glcuda_image *img)
{
	return img ? img->user_data : NULL;
}

GLCUDA_EXPORT unsigned int
glcuda_image_get_gl_texture(const struct glcuda_image *img)
{
	return img ? img->texture : 0;
}

GLCUDA_EXPORT uint32_t
glcuda_image_get_width(const struct glcuda_image *img)
{
	return img ? img->width : 0;
}

GLCUDA_EXPORT uint32_t
glcuda_image_get_height(const struct glcuda_image *img)
{
	return img ? img->height : 0;
}

GLCUDA_EXPORT enum glcuda_format
glcuda_image_get_format(const struct glcuda_image *img)
{
	return img && img->fmt ? img->fmt->format : GLCUDA_FORMAT_INVALID;
}

GLCUDA_EXPORT struct glcuda_device *
glcuda_image_get_device(const struct glcuda_image *img)
{
	return img ? img->dev : NULL;
}

/* Plane 0 of every kind: the image's own for shared images and GL textures,
 * the first (luma) plane of a multi-plane EGLImage. */
GLCUDA_EXPORT CUarray
glcuda_image_get_cuda_array(const struct glcuda_image *img)
{
	return img ? img->planes[0].array : NULL;
}

GLCUDA_EXPORT CUsurfObject
glcuda_image_get_cuda_surface(const struct glcuda_image *img)
{
	return img ? img->planes[0].surface : 0;
}

GLCUDA_EXPORT CUtexObject
glcuda_image_get_cuda_texture(const struct glcuda_image *img)
{
	return img ? img->planes[0].texture : 0;
}

GLCUDA_EXPORT enum glcuda_image_kind
glcuda_image_get_kind(const struct glcuda_image *img)
{
	return img ? img->kind : GLCUDA_IMAGE_KIND_SHARED;
}

GLCUDA_EXPORT unsigned int
glcuda_image_get_plane_count(const struct glcuda_image *img)
{
	return img ? img->plane_count : 0;
}

GLCUDA_EXPORT int
glcuda_image_get_cuda_plane(const struct glcuda_image *img, unsigned int plane,
			struct glcuda_cuda_plane *out)
{
	const struct cuda_plane *p;
	struct glcuda_cuda_plane full;
	int ret;

	error_clear();
	if (!img || !out)
		return device_fail(img ? img->dev : NULL, -EINVAL,
				   "glcuda_image_get_cuda_plane: %s is NULL",
				   img ? "out" : "img");
	if (plane >= img->plane_count)
		return device_fail(img->dev, -EINVAL,
				   "glcuda_image_get_cuda_plane: plane %u of "
				   "an image with %u",
				   plane, img->plane_count);
	ret = cuda_plane_check(img->dev, out);
	if (ret < 0)
		return ret;
	/* Filled in full here, then copied out as far as the caller's size
	 * reaches. */
	p = &img->planes[plane];
	memset(&full, 0, sizeof(full));
	full.array = p->array;
	full.surface = p->surface;
	full.texture = p->texture;
	full.pointer = p->pointer;
	full.pitch = p->pitch;
	full.width = p->width;
	full.height = p->height;
	full.format = p->format;
	full.channels = p->channels;
	full.layers = cuda_plane_layers(p);
	full.bytes_per_pixel = cuda_plane_bytes_per_pixel(p);
	sized_copy_out(out, &full, out->size);
	return 0;
}

GLCUDA_EXPORT unsigned int
glcuda_image_get_gl_target(const struct glcuda_image *img)
{
	if (!img)
		return 0;
	if (img->kind == GLCUDA_IMAGE_KIND_GL_TEXTURE)
		return img->target;
	if (img->kind != GLCUDA_IMAGE_KIND_SHARED)
		return 0;
	return img->layers > 1 ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D;
}

GLCUDA_EXPORT uint32_t
glcuda_image_get_layer_count(const struct glcuda_image *img)
{
	if (!img)
		return 0;
	return img->layers ? img->layers : 1;
}

GLCUDA_EXPORT enum glcuda_format
glcuda_image_get_depth_format(const struct glcuda_image *img)
{
	return img && img->depth_fmt ? img->depth_fmt->format
				     : GLCUDA_FORMAT_INVALID;
}

GLCUDA_EXPORT unsigned int
glcuda_image_get_gl_depth_texture(const struct glcuda_image *img)
{
	if (!img)
		return 0;
	if (img->fmt && img->fmt->is_depth)
		return img->texture;
	return img->depth_texture;
}

GLCUDA_EXPORT unsigned int
glcuda_image_get_gl_framebuffer(const struct glcuda_image *img, uint32_t layer)
{
	if (!img || !img->fbos || layer >= img->layers)
		return 0;
	return img->fbos[layer];
}

GLCUDA_EXPORT unsigned int
glcuda_image_get_gl_layered_framebuffer(const struct glcuda_image *img)
{
	return img && img->fbos ? img->layered_fbo : 0;
}
