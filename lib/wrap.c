/*
 * Wrapped images: GL textures and EGLImages the caller owns, handed to CUDA
 * through the image and hand-off API.
 * SPDX-License-Identifier: MIT
 *
 * GL textures are registered with cuGraphicsGLRegisterImage and handed off
 * by mapping (to CUDA) and unmapping (to GL) on the caller's stream: the
 * driver orders the two APIs on the GPU. EGLImages are registered with
 * cuGraphicsEGLRegisterImage, which the desktop driver does not let CUDA map
 * (cuGraphicsMapResources returns CUDA_ERROR_UNKNOWN) and for which it
 * gives no ordering: the image's semaphores (sync.c) order GL and CUDA, as
 * for a shared image.
 */
#include "wrap.h"
#include "cuda/cuda-interop.h"
#include <glcuda/glcuda-cuda.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define WRAP_FLAGS                                                     \
	(GLCUDA_WRAP_FLAG_READ_ONLY | GLCUDA_WRAP_FLAG_WRITE_DISCARD | \
	 GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE |                           \
	 GLCUDA_IMAGE_FLAG_CUDA_LINEAR_FILTER)

/* The GL texture is the caller's: only the mapping and the registration
 * are the image's. */
static void
wrap_unmap_cuda(struct glcuda_image *img, bool idle)
{
	/* Never unmap what queued work may still use (image_free waited,
	 * unless the device is lost). */
	if (!idle || img->kind != GLCUDA_IMAGE_KIND_GL_TEXTURE ||
	    !img->cuda_mapped)
		return;
	/* CUDA cannot unregister a mapped resource, so a failed unmap would
	 * leave the registration (and its array) to the context: it is tried
	 * once more. An error that persists (a broken context) fails both. */
	for (int attempt = 0; attempt < 2 && img->cuda_mapped; attempt++)
		if (CU_CALL(cuGraphicsUnmapResources, 1, &img->resource,
			    NULL) == CUDA_SUCCESS)
			img->cuda_mapped = false;
}

static void
wrap_release_cuda(struct glcuda_image *img)
{
	/* CUDA refuses to unregister a mapped resource: where the unmap
	 * failed (or could not be tried: a lost device, no context), the
	 * registration is left to the context. */
	if (img->cuda_mapped) {
		log_error(img->dev,
			  "image %p: texture %u could not be unmapped: its "
			  "CUDA registration stays until the CUDA context is "
			  "destroyed\n",
			  (void *)img, img->texture);
		img->resource = NULL;
		return;
	}
	cuda_unregister(&img->resource);
}

static const struct image_kind_ops wrap_ops = {
	.unmap_cuda = wrap_unmap_cuda,
	.release_cuda = wrap_release_cuda,
};

int
wrap_refresh_mapped(struct glcuda_image *img)
{
	struct cuda_plane *p = &img->planes[0];
	CUarray array;
	CUresult res;

	res = CU_CALL(cuGraphicsSubResourceGetMappedArray, &array,
		      img->resource, 0, 0);
	if (res != CUDA_SUCCESS)
		return device_cuda_fail(img->dev, res,
					"cuGraphicsSubResourceGetMappedArray",
					NULL);
	if (array == p->array)
		return 0;
	log_debug(img->dev,
		  "image %p: texture %u moved (CUDA array %p -> %p): new "
		  "surface and texture objects\n",
		  (void *)img, img->texture, (void *)p->array, (void *)array);
	cuda_plane_destroy_objects(p);
	p->array = array;
	return cuda_plane_objects(&img->dev->errors, p, img->fmt,
				  !(img->flags & GLCUDA_WRAP_FLAG_READ_ONLY),
				  !(img->flags &
				    GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE),
				  img->flags &
					  GLCUDA_IMAGE_FLAG_CUDA_LINEAR_FILTER);
}

/* The checks both wrap calls start with. */
static int
begin_wrap(struct glcuda_device *dev, uint32_t flags, struct glcuda_image **out,
	   const char *what)
{
	error_clear();
	if (!dev || !out)
		return device_fail(dev, -EINVAL, "%s: %s is NULL", what,
				   dev ? "out" : "dev");
	*out = NULL;
	if (flags & ~(uint32_t)WRAP_FLAGS)
		return device_fail(dev, -EINVAL, "%s: unknown flags 0x%x", what,
				   flags & ~(uint32_t)WRAP_FLAGS);
	if ((flags & GLCUDA_WRAP_FLAG_READ_ONLY) &&
	    (flags & GLCUDA_WRAP_FLAG_WRITE_DISCARD))
		return device_fail(dev, -EINVAL,
				   "%s: GLCUDA_WRAP_FLAG_READ_ONLY and "
				   "GLCUDA_WRAP_FLAG_WRITE_DISCARD exclude "
				   "each other",
				   what);
	return device_check_gl(dev, what);
}

/* After the checks that need no CUDA, so that they say what is wrong with
 * the arguments first. */
static int
require_cuda(struct glcuda_device *dev, const char *what)
{
	if (!dev->has_cuda)
		return device_fail(dev, GLCUDA_ERROR_NO_CUDA_DRIVER,
				   "%s: this device was made without CUDA",
				   what);
	return 0;
}

/* The image a wrap fills: 0, or the error with nothing to undo. */
static int
alloc_wrapped(struct glcuda_device *dev, enum glcuda_image_kind kind,
	      uint32_t flags, const char *what, struct glcuda_image **img)
{
	int ret = require_cuda(dev, what);

	if (ret < 0)
		return ret;
	*img = image_alloc(dev, kind, &wrap_ops, flags);
	if (!*img)
		return device_fail(dev, -ENOMEM, "%s: out of memory", what);
	return 0;
}

static int
make_objects(struct glcuda_image *img)
{
	for (unsigned int i = 0; i < img->plane_count; i++) {
		int ret = cuda_plane_objects(
			&img->dev->errors, &img->planes[i],
			img->plane_count == 1 ? img->fmt : NULL,
			!(img->flags & GLCUDA_WRAP_FLAG_READ_ONLY),
			!(img->flags & GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE),
			img->flags & GLCUDA_IMAGE_FLAG_CUDA_LINEAR_FILTER);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static void
wrap_done(struct glcuda_image *img, const char *what)
{
	img->dev->live_images++;
	log_debug(img->dev, "%s: image %p: %ux%u %s, %u plane%s\n", what,
		  (void *)img, img->width, img->height,
		  img->fmt ? img->fmt->name : "(no glcuda format)",
		  img->plane_count, img->plane_count == 1 ? "" : "s");
}

GLCUDA_EXPORT int
glcuda_image_wrap_gl_texture(struct glcuda_device *dev, unsigned int texture,
			     unsigned int target, uint32_t flags,
			     struct glcuda_image **out)
{
	static const char what[] = "glcuda_image_wrap_gl_texture";
	struct glcuda_image *img;
	uint32_t width, height;
	GLenum ifmt;
	int ret;

	ret = begin_wrap(dev, flags, out, what);
	if (ret < 0)
		return ret;
	if (texture == 0)
		return device_fail(dev, -EINVAL,
				   "%s: texture 0 is not a texture", what);
	if (target != GL_TEXTURE_2D &&
	    (target != GL_TEXTURE_RECTANGLE || dev->gl.is_gles))
		return device_fail(dev, -EINVAL,
				   "%s: target 0x%04x: glcuda wraps "
				   "GL_TEXTURE_2D%s textures",
				   what, target,
				   dev->gl.is_gles ? ""
						   : " and "
						     "GL_TEXTURE_RECTANGLE");
	ret = gl_inspect_texture(&dev->gl, texture, target, &width, &height,
				 &ifmt);
	if (ret == 0)
		ret = alloc_wrapped(dev, GLCUDA_IMAGE_KIND_GL_TEXTURE, flags,
				    what, &img);
	if (ret < 0)
		return ret;
	ret = device_push_cuda(dev, what);
	if (ret < 0) {
		free(img);
		return ret;
	}
	img->texture = texture;
	img->target = target;
	img->plane_count = 1;
	ret = cuda_register_gl_texture(&dev->errors, texture, target,
				       flags & GLCUDA_WRAP_FLAG_READ_ONLY,
				       flags & GLCUDA_WRAP_FLAG_WRITE_DISCARD,
				       &img->resource);
	if (ret < 0)
		goto fail;
	/* Map once to learn the array and make the objects; the hand-offs
	 * map it again and check it did not move. */
	ret = cuda_map(&dev->errors, &img->resource, 1, NULL);
	if (ret < 0)
		goto fail;
	img->cuda_mapped = true;
	ret = cuda_gl_resource_plane(&dev->errors, img->resource,
				     &img->planes[0]);
	if (ret == 0) {
		img->fmt =
			ifmt ? format_info_from_gl(ifmt)
			     : format_info_from_cuda(img->planes[0].format,
						     img->planes[0].channels);
		ret = make_objects(img);
	}
	if (ret < 0) {
		if (CU_CALL(cuGraphicsUnmapResources, 1, &img->resource,
			    NULL) == CUDA_SUCCESS)
			img->cuda_mapped = false;
		goto fail;
	}
	ret = cuda_unmap(&dev->errors, &img->resource, 1, NULL);
	if (ret < 0)
		goto fail;
	img->cuda_mapped = false;
	device_pop_cuda(dev);
	img->width = width ? width : img->planes[0].width;
	img->height = height ? height : img->planes[0].height;
	wrap_done(img, what);
	*out = img;
	return 0;

fail:
	image_free(img, true, true);
	device_pop_cuda(dev);
	return ret;
}

GLCUDA_EXPORT int
glcuda_image_wrap_egl_image(struct glcuda_device *dev, EGLImage image,
			    uint32_t flags, struct glcuda_image **out)
{
	static const char what[] = "glcuda_image_wrap_egl_image";
	struct glcuda_image *img;
	int ret;

	ret = begin_wrap(dev, flags, out, what);
	if (ret < 0)
		return ret;
	if (image == EGL_NO_IMAGE)
		return device_fail(dev, -EINVAL, "%s: image is EGL_NO_IMAGE",
				   what);
	ret = alloc_wrapped(dev, GLCUDA_IMAGE_KIND_EGL_IMAGE, flags, what,
			    &img);
	if (ret < 0)
		return ret;
	ret = device_push_cuda(dev, what);
	if (ret < 0) {
		free(img);
		return ret;
	}
	ret = cuda_register_egl_image(&dev->errors, image,
				      flags & GLCUDA_WRAP_FLAG_READ_ONLY,
				      flags & GLCUDA_WRAP_FLAG_WRITE_DISCARD,
				      &img->resource);
	if (ret == 0)
		ret = cuda_egl_resource_planes(&dev->errors, img->resource,
					       img->planes, &img->plane_count);
	if (ret == 0) {
		if (img->plane_count == 1)
			img->fmt =
				format_info_from_cuda(img->planes[0].format,
						      img->planes[0].channels);
		ret = make_objects(img);
	}
	if (ret == 0)
		ret = handoff_sync_init(dev, &img->sync);
	if (ret < 0) {
		image_free(img, true, true);
		device_pop_cuda(dev);
		return ret;
	}
	device_pop_cuda(dev);
	img->width = img->planes[0].width;
	img->height = img->planes[0].height;
	wrap_done(img, what);
	*out = img;
	return 0;
}
