/*
 * The GL <-> CUDA hand-off, on the GPU where the drivers allow it.
 * SPDX-License-Identifier: MIT
 *
 * Timeline mode: each unit has two timelines, one per direction, each with
 * a single signaller — GL signals to_cuda, CUDA signals to_gl — so values
 * on a timeline always arrive in increasing order. (One timeline shared by
 * both directions hung once two hand-offs were in flight: GL's and CUDA's
 * signals then reach it out of value order.)
 * Binary mode: the same pair of semaphores, binary; every signal is matched
 * by exactly one wait before the next signal.
 * CPU mode: GL has no semaphores; GL->CUDA waits for a GL fence on the CPU,
 * CUDA->GL waits for a CUDA event on the CPU. The only mode that blocks.
 */
#include "sync.h"
#include <glcuda/glcuda-cuda.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* Semaphores ------------------------------------------------------------ */

static int
semaphore_init(struct glcuda_device *dev, struct handoff_semaphore *s, bool timeline)
{
	int fd = -1, ret;

	/* One exported fd per importer; each import takes its own. */
	ret = vk_semaphore_create(dev->vk, timeline, &s->vk);
	if (ret < 0)
		return ret;
	ret = vk_semaphore_export_fd(dev->vk, &s->vk, &fd);
	if (ret < 0)
		return ret;
	ret = gl_import_semaphore(&dev->gl, fd, timeline, &s->gl);
	if (ret < 0)
		return ret;
	ret = vk_semaphore_export_fd(dev->vk, &s->vk, &fd);
	if (ret < 0)
		return ret;
	return cuda_import_semaphore(&dev->errors, fd, timeline, &s->cu);
}

static void
semaphore_fini(struct glcuda_device *dev, struct handoff_semaphore *s, bool gl_current)
{
	if (gl_current)
		gl_delete_semaphore(&s->gl);
	cuda_destroy_semaphore(&s->cu);
	vk_semaphore_destroy(dev->vk, &s->vk);
}

int
handoff_sync_init(struct glcuda_device *dev, struct handoff_sync *s)
{
	/* Blocking sync: the CPU mode's waits sleep instead of spinning. */
	CUresult res = CU(cuEventCreate)(&s->cuda_done,
					 CU_EVENT_DISABLE_TIMING | CU_EVENT_BLOCKING_SYNC);
	int ret;

	if (res != CUDA_SUCCESS) {
		s->cuda_done = NULL;
		return device_cuda_fail(dev, res, "cuEventCreate", NULL);
	}
	if (dev->caps.sync_mode == GLCUDA_SYNC_CPU)
		return 0;
	ret = semaphore_init(dev, &s->to_cuda, dev->caps.sync_mode == GLCUDA_SYNC_TIMELINE);
	if (ret < 0)
		return ret;
	return semaphore_init(dev, &s->to_gl, dev->caps.sync_mode == GLCUDA_SYNC_TIMELINE);
}

void
handoff_sync_drain(struct handoff_sync *s)
{
	if (s->cuda_done_recorded && CU(cuEventSynchronize)(s->cuda_done) != CUDA_SUCCESS)
		CU(cuCtxSynchronize)();
	s->cuda_done_recorded = false;
}

void
handoff_sync_fini(struct glcuda_device *dev, struct handoff_sync *s, bool gl_current)
{
	semaphore_fini(dev, &s->to_cuda, gl_current);
	semaphore_fini(dev, &s->to_gl, gl_current);
	if (s->cuda_done)
		CU(cuEventDestroy)(s->cuda_done);
	s->cuda_done = NULL;
}

/* The hand-off ------------------------------------------------------------ */

static void
mark_broken(const struct handoff_unit *units, unsigned int count, bool binary)
{
	/* A timeline tolerates a signal nobody waited for (the next wait uses
	 * a higher value); a binary semaphore does not. */
	if (!binary)
		return;
	for (unsigned int i = 0; i < count; i++)
		units[i].sync->broken = true;
}

static int
gl_fence_wait(struct glcuda_device *dev)
{
	GLsync fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
	GLenum r;

	if (!fence)
		return gl_check_error(&dev->errors, "glFenceSync") ?: glcuda_fail(dev, GLCUDA_ERROR_GL,
									  "glFenceSync returned 0");
	/* The CPU mode's one blocking wait in this direction.
	 * FLUSH_COMMANDS on the first call so the fence is sure to signal. */
	r = glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, UINT64_C(5000000000));
	while (r == GL_TIMEOUT_EXPIRED) {
		/* A reset context may never signal: never wait forever on it. */
		if (gl_reset_status(&dev->gl) != GL_NO_ERROR) {
			glDeleteSync(fence);
			return device_check_gl(dev, "glClientWaitSync");
		}
		r = glClientWaitSync(fence, 0, UINT64_C(5000000000));
	}
	glDeleteSync(fence);
	if (r == GL_WAIT_FAILED)
		return gl_check_error(&dev->errors, "glClientWaitSync") ?: glcuda_fail(dev, GLCUDA_ERROR_GL,
									       "glClientWaitSync failed");
	return 0;
}

int
sync_to_cuda(struct glcuda_device *dev, const struct handoff_unit *units,
	     unsigned int count, CUstream stream)
{
	CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS params[SYNC_MAX_IMAGES];
	CUexternalSemaphore sems[SYNC_MAX_IMAGES];
	enum glcuda_sync_mode mode = dev->caps.sync_mode;
	bool timeline = mode == GLCUDA_SYNC_TIMELINE;
	CUresult res;
	int ret;

	gl_take_error();
	if (mode == GLCUDA_SYNC_CPU) {
		ret = gl_fence_wait(dev);
		if (ret == 0)
			log_debug(dev, "hand-off to CUDA: waited for GL on the CPU (sync mode cpu)\n");
		return ret;
	}

	for (unsigned int i = 0; i < count; i++)
		gl_signal_semaphore(units[i].sync->to_cuda.gl, timeline,
				    units[i].sync->to_cuda.value + 1, units[i].textures,
				    units[i].texture_count);
	/* Nothing is signalled until GL's command stream is flushed; without
	 * this CUDA waits forever. */
	glFlush();
	ret = gl_check_error(&dev->errors, "glSignalSemaphoreEXT");
	if (ret < 0) {
		mark_broken(units, count, !timeline);
		return ret;
	}
	memset(params, 0, sizeof(params[0]) * count);
	for (unsigned int i = 0; i < count; i++) {
		units[i].sync->to_cuda.value++;
		sems[i] = units[i].sync->to_cuda.cu;
		params[i].params.fence.value = units[i].sync->to_cuda.value;
	}
	ret = device_push_cuda(dev, "the hand-off to CUDA");
	if (ret < 0) {
		mark_broken(units, count, !timeline);
		return ret;
	}
	res = CU(cuWaitExternalSemaphoresAsync)(sems, params, count, stream);
	device_pop_cuda(dev);
	if (res != CUDA_SUCCESS) {
		mark_broken(units, count, !timeline);
		return device_cuda_fail(dev, res, "cuWaitExternalSemaphoresAsync",
					"Check that the stream is valid and belongs to "
					"the device's CUDA context.");
	}
	return 0;
}

int
sync_cuda_signal(struct glcuda_device *dev, const struct handoff_unit *units,
		 unsigned int count, CUstream stream)
{
	CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS params[SYNC_MAX_IMAGES];
	CUexternalSemaphore sems[SYNC_MAX_IMAGES];
	CUresult res = CUDA_SUCCESS;
	int ret;

	ret = device_push_cuda(dev, "the hand-off to GL");
	if (ret < 0)
		return ret;
	if (dev->caps.sync_mode != GLCUDA_SYNC_CPU) {
		memset(params, 0, sizeof(params[0]) * count);
		for (unsigned int i = 0; i < count; i++) {
			sems[i] = units[i].sync->to_gl.cu;
			params[i].params.fence.value = units[i].sync->to_gl.value + 1;
		}
		res = CU(cuSignalExternalSemaphoresAsync)(sems, params, count, stream);
		if (res != CUDA_SUCCESS) {
			device_pop_cuda(dev);
			return device_cuda_fail(dev, res, "cuSignalExternalSemaphoresAsync",
						"Check that the stream is valid and belongs to "
						"the device's CUDA context.");
		}
		for (unsigned int i = 0; i < count; i++)
			units[i].sync->to_gl.value++;
	}
	/* After the signal: teardown, and the CPU mode's wait, wait for it. */
	for (unsigned int i = 0; i < count && res == CUDA_SUCCESS; i++) {
		res = CU(cuEventRecord)(units[i].sync->cuda_done, stream);
		units[i].sync->cuda_done_recorded = res == CUDA_SUCCESS;
	}
	device_pop_cuda(dev);
	if (res != CUDA_SUCCESS)
		return device_cuda_fail(dev, res, "cuEventRecord", NULL);
	return 0;
}

int
sync_gl_wait(struct glcuda_device *dev, const struct handoff_unit *units, unsigned int count)
{
	bool timeline = dev->caps.sync_mode == GLCUDA_SYNC_TIMELINE;
	int ret;

	if (dev->caps.sync_mode == GLCUDA_SYNC_CPU) {
		ret = device_push_cuda(dev, "the hand-off to GL");
		if (ret < 0)
			return ret;
		for (unsigned int i = 0; i < count; i++) {
			/* The CPU mode's blocking wait in this direction. */
			CUresult res = units[i].sync->cuda_done_recorded
					       ? CU(cuEventSynchronize)(units[i].sync->cuda_done)
					       : CUDA_SUCCESS;
			if (res != CUDA_SUCCESS) {
				device_pop_cuda(dev);
				return device_cuda_fail(dev, res, "cuEventSynchronize", NULL);
			}
		}
		device_pop_cuda(dev);
		log_debug(dev, "hand-off to GL: waited for CUDA on the CPU (sync mode cpu)\n");
		return 0;
	}
	gl_take_error();
	for (unsigned int i = 0; i < count; i++)
		gl_wait_semaphore(units[i].sync->to_gl.gl, timeline, units[i].sync->to_gl.value,
				  units[i].textures, units[i].texture_count);
	ret = gl_check_error(&dev->errors, "glWaitSemaphoreEXT");
	if (ret < 0)
		mark_broken(units, count, !timeline);
	return ret;
}

/* The public calls: one unit per image ------------------------------------- */

static const char *
owner_name(enum image_owner o)
{
	switch (o) {
	case IMAGE_OWNER_GL: return "owned by GL";
	case IMAGE_OWNER_CUDA: return "owned by CUDA";
	case IMAGE_OWNER_CUDA_DONE: return "handed back by CUDA, GL not waiting yet";
	}
	return "?";
}

static int
check_images(struct glcuda_device *dev, struct glcuda_image *const *images,
	     unsigned int count, enum image_owner expected, const char *what)
{
	if (!images || count == 0 || count > SYNC_MAX_IMAGES)
		return glcuda_fail(dev, -EINVAL, "%s: %s (1..%d images per hand-off)", what,
				   !images ? "images is NULL" : "bad image count",
				   SYNC_MAX_IMAGES);
	for (unsigned int i = 0; i < count; i++) {
		const struct glcuda_image *img = images[i];
		if (!img)
			return glcuda_fail(dev, -EINVAL, "%s: images[%u] is NULL", what, i);
		if (img->dev != dev)
			return glcuda_fail(dev, GLCUDA_ERROR_WRONG_DEVICE,
					   "%s: images[%u] belongs to another glcuda device",
					   what, i);
		if (img->ring_managed)
			return glcuda_fail(dev, GLCUDA_ERROR_BAD_STATE,
					   "%s: images[%u] belongs to a ring, which hands it "
					   "off itself (glcuda_frame_submit/complete)", what, i);
		if (img->sync.broken)
			return glcuda_fail(dev, GLCUDA_ERROR_BAD_STATE,
					   "%s: images[%u]: an earlier hand-off of this image "
					   "failed half-way and its semaphores are out of step; "
					   "destroy and recreate the image", what, i);
		if (img->owner != expected)
			return glcuda_fail(dev, GLCUDA_ERROR_BAD_STATE,
					   "%s: images[%u] is %s, expected %s", what, i,
					   owner_name(img->owner), owner_name(expected));
		for (unsigned int j = 0; j < i; j++)
			if (images[j] == img)
				return glcuda_fail(dev, -EINVAL,
						   "%s: images[%u] and images[%u] are the same image",
						   what, j, i);
	}
	if (!dev->has_cuda)
		return glcuda_fail(dev, GLCUDA_ERROR_NO_CUDA_DRIVER,
				   "%s: this device was made without CUDA", what);
	return 0;
}

/* The images of one public hand-off, split by how they travel: units
 * (shared images and wrapped EGLImages, by semaphores) and wrapped GL
 * textures (by map/unmap). */
struct image_handoff {
	struct handoff_unit units[SYNC_MAX_IMAGES];
	unsigned int unit_count;
	struct glcuda_image *mapped[SYNC_MAX_IMAGES];
	CUgraphicsResource resources[SYNC_MAX_IMAGES];
	unsigned int mapped_count;
};

/* The checks every public hand-off starts with, then the split. */
static int
begin_image_handoff(struct glcuda_device *dev, struct glcuda_image *const *images,
		    unsigned int count, enum image_owner expected, const char *what,
		    struct image_handoff *h)
{
	int ret;

	glcuda_clear_error();
	if (!dev)
		return glcuda_fail(NULL, -EINVAL, "%s: dev is NULL", what);
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
		/* An EGLImage has no texture of glcuda's to name. */
		u->textures = img->kind == GLCUDA_IMAGE_KIND_SHARED ? &img->texture : NULL;
		u->texture_count = img->kind == GLCUDA_IMAGE_KIND_SHARED ? 1 : 0;
	}
	return 0;
}

static void
set_owner(struct glcuda_image *const *images, unsigned int count, enum image_owner owner,
	  bool mapped)
{
	for (unsigned int i = 0; i < count; i++)
		if ((images[i]->kind == GLCUDA_IMAGE_KIND_GL_TEXTURE) == mapped)
			images[i]->owner = owner;
}

/* Map the wrapped GL textures on the stream; their arrays are checked. */
static int
map_textures(struct glcuda_device *dev, struct image_handoff *h, CUstream stream)
{
	int ret;

	if (h->mapped_count == 0)
		return 0;
	ret = device_push_cuda(dev, "glcuda_handoff_to_cuda");
	if (ret < 0)
		return ret;
	ret = cuda_map(&dev->errors, h->resources, h->mapped_count, stream);
	for (unsigned int i = 0; ret == 0 && i < h->mapped_count; i++)
		ret = wrap_refresh_mapped(h->mapped[i]);
	device_pop_cuda(dev);
	return ret;
}

static int
unmap_textures(struct glcuda_device *dev, struct image_handoff *h, CUstream stream)
{
	int ret;

	if (h->mapped_count == 0)
		return 0;
	ret = device_push_cuda(dev, "glcuda_handoff_to_gl");
	if (ret < 0)
		return ret;
	ret = cuda_unmap(&dev->errors, h->resources, h->mapped_count, stream);
	device_pop_cuda(dev);
	return ret;
}

GLCUDA_EXPORT int
glcuda_handoff_to_cuda(struct glcuda_device *dev, struct glcuda_image *const *images,
		       unsigned int count, CUstream stream)
{
	struct image_handoff h;
	int ret;

	memset(&h, 0, sizeof(h));
	ret = begin_image_handoff(dev, images, count, IMAGE_OWNER_GL,
				  "glcuda_handoff_to_cuda", &h);
	if (ret < 0)
		return ret;
	/* The map first: it fails with nothing signalled. */
	ret = map_textures(dev, &h, stream);
	if (ret < 0)
		return ret;
	if (h.unit_count > 0) {
		ret = sync_to_cuda(dev, h.units, h.unit_count, stream);
		if (ret < 0) {
			if (h.mapped_count > 0)
				unmap_textures(dev, &h, stream);
			return ret;
		}
	}
	for (unsigned int i = 0; i < count; i++)
		images[i]->owner = IMAGE_OWNER_CUDA;
	return 0;
}

GLCUDA_EXPORT int
glcuda_handoff_to_gl(struct glcuda_device *dev, struct glcuda_image *const *images,
		     unsigned int count, CUstream stream)
{
	enum image_owner from = IMAGE_OWNER_CUDA;
	struct image_handoff h;
	int ret;

	/* Images left "handed back, GL not waiting" by a call whose GL half
	 * failed (the CPU mode's cuEventSynchronize, a GL error): this call
	 * retries that half only. (Wrapped GL textures never stop there:
	 * the unmap is their whole hand-back.) */
	if (images && count > 0 && count <= SYNC_MAX_IMAGES && images[0] &&
	    images[0]->owner == IMAGE_OWNER_CUDA_DONE)
		from = IMAGE_OWNER_CUDA_DONE;
	memset(&h, 0, sizeof(h));
	ret = begin_image_handoff(dev, images, count, from, "glcuda_handoff_to_gl", &h);
	if (ret < 0)
		return ret;
	if (from == IMAGE_OWNER_CUDA) {
		if (h.unit_count > 0) {
			ret = sync_cuda_signal(dev, h.units, h.unit_count, stream);
			if (ret < 0)
				return ret;
			/* CUDA has signalled: even if what follows fails,
			 * these images are no longer CUDA's to hand back. */
			set_owner(images, count, IMAGE_OWNER_CUDA_DONE, false);
		}
		ret = unmap_textures(dev, &h, stream);
		if (ret < 0)
			return ret;
		set_owner(images, count, IMAGE_OWNER_GL, true);
	}
	if (h.unit_count > 0) {
		ret = sync_gl_wait(dev, h.units, h.unit_count);
		if (ret < 0)
			return ret;
		set_owner(images, count, IMAGE_OWNER_GL, false);
	}
	return 0;
}
