/*
 * The public hand-off calls: one hand-off unit per image. Above the images
 * and the wrapped images (it maps wrapped GL textures), below nothing but
 * the public API.
 * SPDX-License-Identifier: MIT
 */
#include "handoff.h"
#include "wrap.h"
#include "cuda/cuda-interop.h"
#include <glcuda/glcuda-cuda.h>

#include <errno.h>
#include <string.h>

/* The public calls: one unit per image ------------------------------------- */

static const char *
owner_name(enum image_owner o)
{
	switch (o) {
	case IMAGE_OWNER_GL: return "owned by GL";
	case IMAGE_OWNER_CUDA: return "owned by CUDA";
	case IMAGE_OWNER_CUDA_DONE:
		return "handed back by CUDA, GL not waiting yet";
	}
	return "?";
}

static int
check_images(struct glcuda_device *dev, struct glcuda_image *const *images,
	     unsigned int count, enum image_owner expected, const char *what)
{
	if (!images || count == 0 || count > SYNC_MAX_IMAGES)
		return device_fail(dev, -EINVAL,
				   "%s: %s (1..%d images per hand-off)", what,
				   !images ? "images is NULL"
					   : "bad image count",
				   SYNC_MAX_IMAGES);
	for (unsigned int i = 0; i < count; i++) {
		const struct glcuda_image *img = images[i];
		if (!img)
			return device_fail(dev, -EINVAL,
					   "%s: images[%u] is NULL", what, i);
		if (img->dev != dev)
			return device_fail(dev, GLCUDA_ERROR_WRONG_DEVICE,
					   "%s: images[%u] belongs to another "
					   "glcuda device",
					   what, i);
		if (img->private_flags & IMAGE_PRIVATE_RING_MANAGED)
			return device_fail(
				dev, GLCUDA_ERROR_BAD_STATE,
				"%s: images[%u] belongs to a ring, which hands "
				"it off itself (glcuda_frame_submit/complete)",
				what, i);
		if (img->sync.broken)
			return device_fail(dev, GLCUDA_ERROR_BAD_STATE,
					   "%s: images[%u]: an earlier "
					   "hand-off of this image failed "
					   "half-way and its semaphores are "
					   "out of step; destroy and recreate "
					   "the image",
					   what, i);
		if (img->owner != expected)
			return device_fail(dev, GLCUDA_ERROR_BAD_STATE,
					   "%s: images[%u] is %s, expected %s",
					   what, i, owner_name(img->owner),
					   owner_name(expected));
		for (unsigned int j = 0; j < i; j++)
			if (images[j] == img)
				return device_fail(
					dev, -EINVAL,
					"%s: images[%u] and images[%u] are the "
					"same image",
					what, j, i);
	}
	if (!dev->has_cuda)
		return device_fail(dev, GLCUDA_ERROR_NO_CUDA_DRIVER,
				   "%s: this device was made without CUDA",
				   what);
	return 0;
}

int
handoff_begin(struct glcuda_device *dev, struct glcuda_image *const *images,
	      unsigned int count, enum image_owner expected, const char *what,
	      struct image_handoff *h)
{
	int ret;

	memset(h, 0, sizeof(*h));
	ret = device_check_gl(dev, what);
	if (ret < 0)
		return ret;
	ret = check_images(dev, images, count, expected, what);
	if (ret < 0)
		return ret;
	for (unsigned int i = 0; i < count; i++) {
		struct glcuda_image *img = images[i];

		if (img->kind == GLCUDA_IMAGE_KIND_GL_TEXTURE) {
			h->mapped[h->mapped_count] = img;
			h->resources[h->mapped_count++] = img->resource;
			continue;
		}
		struct handoff_unit *u = &h->units[h->unit_count++];
		u->sync = &img->sync;
		/* An EGLImage has no texture of glcuda's to name; a shared
		 * image names its colour and depth textures. */
		u->textures = img->kind == GLCUDA_IMAGE_KIND_SHARED
				      ? img->handoff_textures : NULL;
		u->texture_count = img->kind == GLCUDA_IMAGE_KIND_SHARED
					   ? img->handoff_texture_count : 0;
	}
	return 0;
}

/* The checks every public hand-off starts with, then the split. */
static int
begin_image_handoff(struct glcuda_device *dev,
		    struct glcuda_image *const *images, unsigned int count,
		    enum image_owner expected, const char *what,
		    struct image_handoff *h)
{
	error_clear();
	if (!dev)
		return device_fail(NULL, -EINVAL, "%s: dev is NULL", what);
	return handoff_begin(dev, images, count, expected, what, h);
}

static void
set_owner(struct glcuda_image *const *images, unsigned int count,
	  enum image_owner owner, bool mapped)
{
	for (unsigned int i = 0; i < count; i++)
		if ((images[i]->kind == GLCUDA_IMAGE_KIND_GL_TEXTURE) == mapped)
			images[i]->owner = owner;
}

static void
set_mapped(struct image_handoff *h, bool mapped)
{
	for (unsigned int i = 0; i < h->mapped_count; i++)
		h->mapped[i]->cuda_mapped = mapped;
}

/* Map the wrapped GL textures on the stream; their arrays are checked. */
static int
map_textures(struct glcuda_device *dev, struct image_handoff *h,
	     CUstream stream)
{
	int ret;

	if (h->mapped_count == 0)
		return 0;
	ret = cuda_map(&dev->errors, h->resources, h->mapped_count, stream);
	if (ret < 0)
		return ret;
	set_mapped(h, true);
	for (unsigned int i = 0; ret == 0 && i < h->mapped_count; i++)
		ret = wrap_refresh_mapped(h->mapped[i]);
	/* Left mapped, the textures could be neither handed off again nor
	 * unregistered. */
	if (ret < 0 && CU_CALL(cuGraphicsUnmapResources, h->mapped_count,
			       h->resources, stream) == CUDA_SUCCESS)
		set_mapped(h, false);
	return ret;
}

static int
unmap_textures(struct glcuda_device *dev, struct image_handoff *h,
	       CUstream stream)
{
	int ret;

	if (h->mapped_count == 0)
		return 0;
	ret = cuda_unmap(&dev->errors, h->resources, h->mapped_count, stream);
	if (ret == 0)
		set_mapped(h, false);
	return ret;
}

int
handoff_to_cuda_pushed(struct glcuda_device *dev,
		       struct glcuda_image *const *images, unsigned int count,
		       struct image_handoff *h, CUstream stream)
{
	int ret;

	/* The map first: it fails with nothing signalled. */
	ret = map_textures(dev, h, stream);
	if (ret < 0)
		return ret;
	if (h->unit_count > 0) {
		ret = sync_to_cuda(dev, h->units, h->unit_count, stream);
		if (ret < 0) {
			if (h->mapped_count > 0)
				unmap_textures(dev, h, stream);
			return ret;
		}
	}
	for (unsigned int i = 0; i < count; i++)
		images[i]->owner = IMAGE_OWNER_CUDA;
	return 0;
}

/* CUDA's half of the hand-back: the units signal, the textures unmap. */
static int
cuda_half_to_gl(struct glcuda_device *dev, struct glcuda_image *const *images,
		unsigned int count, struct image_handoff *h, CUstream stream)
{
	int ret;

	if (h->unit_count > 0) {
		ret = sync_cuda_signal(dev, h->units, h->unit_count, stream);
		if (ret < 0)
			return ret;
		/* CUDA has signalled: even if what follows fails, these
		 * images are no longer CUDA's to hand back. */
		set_owner(images, count, IMAGE_OWNER_CUDA_DONE, false);
	}
	ret = unmap_textures(dev, h, stream);
	if (ret < 0)
		return ret;
	set_owner(images, count, IMAGE_OWNER_GL, true);
	return 0;
}

/* GL's half: GL waits for the units' signal. */
static int
gl_half_to_gl(struct glcuda_device *dev, struct glcuda_image *const *images,
	      unsigned int count, struct image_handoff *h)
{
	int ret;

	if (h->unit_count == 0)
		return 0;
	ret = sync_gl_wait(dev, h->units, h->unit_count);
	if (ret < 0)
		return ret;
	set_owner(images, count, IMAGE_OWNER_GL, false);
	return 0;
}

int
handoff_to_gl_pushed(struct glcuda_device *dev,
		     struct glcuda_image *const *images, unsigned int count,
		     struct image_handoff *h, CUstream stream)
{
	int ret = cuda_half_to_gl(dev, images, count, h, stream);

	return ret < 0 ? ret : gl_half_to_gl(dev, images, count, h);
}

GLCUDA_EXPORT int
glcuda_handoff_to_cuda(struct glcuda_device *dev,
		       struct glcuda_image *const *images, unsigned int count,
		       CUstream stream)
{
	struct image_handoff h;
	int ret;

	ret = begin_image_handoff(dev, images, count, IMAGE_OWNER_GL,
				  "glcuda_handoff_to_cuda", &h);
	if (ret < 0)
		return ret;
	ret = device_push_cuda(dev, "glcuda_handoff_to_cuda");
	if (ret < 0)
		return ret;
	ret = handoff_to_cuda_pushed(dev, images, count, &h, stream);
	device_pop_cuda(dev);
	return ret;
}

GLCUDA_EXPORT int
glcuda_handoff_to_gl(struct glcuda_device *dev,
		     struct glcuda_image *const *images, unsigned int count,
		     CUstream stream)
{
	enum image_owner from = IMAGE_OWNER_CUDA;
	struct image_handoff h;
	bool cuda;
	int ret;

	/* Images left "handed back, GL not waiting" by a call whose GL half
	 * failed (the CPU mode's cuEventSynchronize, a GL error): this call
	 * retries that half only. (Wrapped GL textures never stop there:
	 * the unmap is their whole hand-back.) */
	if (images && count > 0 && count <= SYNC_MAX_IMAGES && images[0] &&
	    images[0]->owner == IMAGE_OWNER_CUDA_DONE)
		from = IMAGE_OWNER_CUDA_DONE;
	ret = begin_image_handoff(dev, images, count, from,
				  "glcuda_handoff_to_gl", &h);
	if (ret < 0)
		return ret;
	/* A retry of GL's half calls CUDA only for the CPU mode's wait. */
	cuda = from == IMAGE_OWNER_CUDA ||
	       (h.unit_count > 0 && sync_gl_wait_needs_cuda(dev));
	if (cuda) {
		ret = device_push_cuda(dev, "glcuda_handoff_to_gl");
		if (ret < 0)
			return ret;
	}
	if (from == IMAGE_OWNER_CUDA)
		ret = cuda_half_to_gl(dev, images, count, &h, stream);
	if (ret == 0)
		ret = gl_half_to_gl(dev, images, count, &h);
	if (cuda)
		device_pop_cuda(dev);
	return ret;
}
