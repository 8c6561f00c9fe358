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

/* The hand-off limit the header promises is the one this file enforces. */
_Static_assert(SYNC_MAX_IMAGES == GLCUDA_HANDOFF_MAX_IMAGES,
	       "GLCUDA_HANDOFF_MAX_IMAGES differs from lib/sync.h");

/* Semaphores ------------------------------------------------------------ */

static int
semaphore_init(struct glcuda_device *dev, struct handoff_semaphore *s,
	       bool timeline)
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
semaphore_fini(struct glcuda_device *dev, struct handoff_semaphore *s,
	       bool gl_current)
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
	CUresult res =
		CU_CALL(cuEventCreate, &s->cuda_done,
			CU_EVENT_DISABLE_TIMING | CU_EVENT_BLOCKING_SYNC);
	int ret;

	if (res != CUDA_SUCCESS) {
		s->cuda_done = NULL;
		return device_cuda_fail(dev, res, "cuEventCreate", NULL);
	}
	if (dev->caps.sync_mode == GLCUDA_SYNC_CPU)
		return 0;
	ret = semaphore_init(dev, &s->to_cuda,
			     dev->caps.sync_mode == GLCUDA_SYNC_TIMELINE);
	if (ret < 0)
		return ret;
	return semaphore_init(dev, &s->to_gl,
			      dev->caps.sync_mode == GLCUDA_SYNC_TIMELINE);
}

void
handoff_sync_drain(struct handoff_sync *s)
{
	if (s->cuda_done_recorded &&
	    CU_CALL(cuEventSynchronize, s->cuda_done) != CUDA_SUCCESS)
		CU_CALL(cuCtxSynchronize);
	s->cuda_done_recorded = false;
}

void
handoff_sync_fini(struct glcuda_device *dev, struct handoff_sync *s,
		  bool gl_current)
{
	semaphore_fini(dev, &s->to_cuda, gl_current);
	semaphore_fini(dev, &s->to_gl, gl_current);
	if (s->cuda_done)
		CU_CALL(cuEventDestroy, s->cuda_done);
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
		return gl_check_error(&dev->errors, "glFenceSync")
			       ?: device_fail(dev, GLCUDA_ERROR_GL,
					      "glFenceSync returned 0");
	/* The CPU mode's one blocking wait in this direction.
	 * FLUSH_COMMANDS on the first call so the fence is sure to signal. */
	r = glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT,
			     UINT64_C(5000000000));
	while (r == GL_TIMEOUT_EXPIRED) {
		/* A reset context may never signal: never wait forever on
		 * it. */
		if (gl_reset_status(&dev->gl) != GL_NO_ERROR) {
			glDeleteSync(fence);
			return device_check_gl(dev, "glClientWaitSync");
		}
		r = glClientWaitSync(fence, 0, UINT64_C(5000000000));
	}
	glDeleteSync(fence);
	if (r == GL_WAIT_FAILED)
		return gl_check_error(&dev->errors, "glClientWaitSync")
			       ?: device_fail(dev, GLCUDA_ERROR_GL,
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
			log_debug(dev, "hand-off to CUDA: waited for GL on the "
				       "CPU (sync mode cpu)\n");
		return ret;
	}

	for (unsigned int i = 0; i < count; i++)
		gl_signal_semaphore(units[i].sync->to_cuda.gl, timeline,
				    units[i].sync->to_cuda.value + 1,
				    units[i].textures, units[i].texture_count);
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
	res = CU_CALL(cuWaitExternalSemaphoresAsync, sems, params, count,
		      stream);
	if (res != CUDA_SUCCESS) {
		mark_broken(units, count, !timeline);
		return device_cuda_fail(
			dev, res, "cuWaitExternalSemaphoresAsync",
			"Check that the stream is valid and belongs to the "
			"device's CUDA context.");
	}
	return 0;
}

int
sync_cuda_signal(struct glcuda_device *dev, const struct handoff_unit *units,
		 unsigned int count, CUstream stream)
{
	CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS params[SYNC_MAX_IMAGES];
	/* Initialised for GCC, which cannot see that the loop below fills
	 * what the signal reads. */
	CUexternalSemaphore sems[SYNC_MAX_IMAGES] = { NULL };
	CUresult res = CUDA_SUCCESS;

	if (dev->caps.sync_mode != GLCUDA_SYNC_CPU) {
		memset(params, 0, sizeof(params[0]) * count);
		for (unsigned int i = 0; i < count; i++) {
			sems[i] = units[i].sync->to_gl.cu;
			params[i].params.fence.value =
				units[i].sync->to_gl.value + 1;
		}
		res = CU_CALL(cuSignalExternalSemaphoresAsync, sems, params,
			      count, stream);
		if (res != CUDA_SUCCESS)
			return device_cuda_fail(
				dev, res, "cuSignalExternalSemaphoresAsync",
				"Check that the stream is valid and belongs to "
				"the device's CUDA context.");
		for (unsigned int i = 0; i < count; i++)
			units[i].sync->to_gl.value++;
	}
	/* After the signal: teardown, and the CPU mode's wait, wait for it. */
	for (unsigned int i = 0; i < count && res == CUDA_SUCCESS; i++) {
		res = CU_CALL(cuEventRecord, units[i].sync->cuda_done, stream);
		units[i].sync->cuda_done_recorded = res == CUDA_SUCCESS;
	}
	if (res != CUDA_SUCCESS)
		return device_cuda_fail(dev, res, "cuEventRecord", NULL);
	return 0;
}

int
sync_gl_wait(struct glcuda_device *dev, const struct handoff_unit *units,
	     unsigned int count)
{
	bool timeline = dev->caps.sync_mode == GLCUDA_SYNC_TIMELINE;
	int ret;

	if (sync_gl_wait_needs_cuda(dev)) {
		for (unsigned int i = 0; i < count; i++) {
			/* The CPU mode's blocking wait in this direction. */
			CUresult res =
				units[i].sync->cuda_done_recorded
					? CU_CALL(cuEventSynchronize,
						  units[i].sync->cuda_done)
					: CUDA_SUCCESS;
			if (res != CUDA_SUCCESS)
				return device_cuda_fail(dev, res,
							"cuEventSynchronize",
							NULL);
		}
		log_debug(dev, "hand-off to GL: waited for CUDA on the CPU "
			       "(sync mode cpu)\n");
		return 0;
	}
	gl_take_error();
	for (unsigned int i = 0; i < count; i++)
		gl_wait_semaphore(units[i].sync->to_gl.gl, timeline,
				  units[i].sync->to_gl.value, units[i].textures,
				  units[i].texture_count);
	ret = gl_check_error(&dev->errors, "glWaitSemaphoreEXT");
	if (ret < 0)
		mark_broken(units, count, !timeline);
	return ret;
}
