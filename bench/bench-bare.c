/*
 * glcuda-bench: the bare path, the driver calls that glcuda's ring makes
 * per frame in the timeline sync mode, made by hand: the floor under
 * glcuda's in-call CPU, measured the same way in the same run.
 * SPDX-License-Identifier: MIT
 *
 * Per frame, as glcuda_frame_submit, glcuda_frame_complete and
 * glcuda_frame_wait_gl make them: GL signals the slot's GL->CUDA timeline
 * naming its input and output textures (glSemaphoreParameterui64vEXT,
 * glSignalSemaphoreEXT) and flushes; one cuCtxPushCurrent; the slot's
 * stream waits (cuWaitExternalSemaphoresAsync); the kernel, not counted,
 * as on every path; CUDA signals the CUDA->GL timeline
 * (cuSignalExternalSemaphoresAsync), records an event (cuEventRecord) and
 * launches a host function that writes an eventfd (cuLaunchHostFunc); one
 * cuCtxPopCurrent. Once `depth` frames are in flight, GL waits for the
 * oldest (glSemaphoreParameterui64vEXT, glWaitSemaphoreEXT), which is then
 * composited. Nothing else: no state checks, no error queries.
 *
 * The memory is a pair of glcuda shared images per slot, made once and
 * never handed off through glcuda; the semaphores are the bench's own
 * (bare-sync.c): Vulkan timeline semaphores exported as OPAQUE_FD and
 * imported into GL (GL_NV_timeline_semaphore) and CUDA, as glcuda imports
 * its own.
 */
#include "bench.h"

#include "bare-sync.h"

#include <sys/eventfd.h>

struct bare_slot {
	struct glcuda_image *in, *out;
	GLuint textures[2];
	struct bare_semaphore to_cuda, to_gl;
	CUstream stream;
	CUevent done;
	uint64_t frame;
};

struct bare {
	struct bare_vulkan vk;
	struct bare_slot slots[MAX_DEPTH];
	unsigned int slot_count;
	/* Frames in flight, oldest first, by slot. */
	unsigned int fifo[MAX_DEPTH], fifo_len;
	int efd;
};

static int
bare_image_new(const struct group *g, struct glcuda_image **out)
{
	struct glcuda_image_desc desc;

	glcuda_image_desc_init(&desc);
	desc.width = g->width;
	desc.height = g->height;
	desc.format = g->format;
	desc.flags = GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE;
	return glcuda_check(glcuda_image_new(main_dev, &desc, out),
			    "glcuda_image_new");
}

int
bare_setup(struct run_ctx *c)
{
	const struct glcuda_caps *caps = glcuda_device_get_caps(main_dev);
	char msg[512];
	struct bare *b;

	c->dev = main_dev;
	if (bare_gl_check_extensions(msg, sizeof(msg)) < 0)
		return fail("%s", msg);
	if (!CU(cuLaunchHostFunc))
		return fail("bare: the CUDA driver has no cuLaunchHostFunc");
	b = calloc(1, sizeof(*b));
	if (!b)
		return fail("bare: out of memory");
	c->bare = b;
	b->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (b->efd < 0)
		return fail("bare: eventfd: %s", strerror(errno));
	if (bare_vulkan_new(&b->vk, caps->device_uuid, msg, sizeof(msg)) < 0)
		return fail("%s", msg);
	b->slot_count = c->cfg.depth ? c->cfg.depth : 1;
	for (unsigned int i = 0; i < b->slot_count; i++) {
		struct bare_slot *s = &b->slots[i];

		if (bare_image_new(c->g, &s->in) < 0 ||
		    bare_image_new(c->g, &s->out) < 0)
			return -1;
		if (bare_semaphore_new(&b->vk, &s->to_cuda, msg,
				       sizeof(msg)) < 0 ||
		    bare_semaphore_new(&b->vk, &s->to_gl, msg, sizeof(msg)) < 0)
			return fail("%s", msg);
		s->textures[0] = glcuda_image_get_gl_texture(s->in);
		s->textures[1] = glcuda_image_get_gl_texture(s->out);
		CU_TRY(cuStreamCreate, &s->stream, CU_STREAM_NON_BLOCKING);
		CU_TRY(cuEventCreate, &s->done, CU_EVENT_DISABLE_TIMING);
	}
	b->fifo_len = 0;
	return 0;
}

/* What glcuda's frame-done host function does on the driver's thread:
 * tell the application's event loop. */
static void CUDA_CB
bare_host_fn(void *data)
{
	uint64_t one = 1;

	if (write(*(int *)data, &one, sizeof(one)) < 0) {
		/* The counter cannot overflow in practice. */
	}
}

/* GL waits for the oldest frame in flight, which is then composited. */
static int
bare_present_oldest(struct run_ctx *c)
{
	struct bare *b = c->bare;
	struct bare_slot *s = &b->slots[b->fifo[0]];

	memmove(&b->fifo[0], &b->fifo[1],
		(b->fifo_len - 1) * sizeof(b->fifo[0]));
	b->fifo_len--;
	METER(interop_meter,
	      bare_gl_semaphore(false, &s->to_gl, s->textures, 2));
	present_texture(c, s->textures[1], s->frame);
	return 0;
}

int
bare_frame_fn(struct run_ctx *c, uint64_t n)
{
	struct bare *b = c->bare;
	unsigned int slot = (unsigned int)(n % b->slot_count);
	struct bare_slot *s = &b->slots[slot];
	CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wait;
	CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS signal;
	CUresult res[4];
	CUcontext popped;

	if (pace_wait() < 0)
		return -1;
	/* The slot's previous frame was composited when `depth` frames were
	 * in flight: GL's signal below comes after that composite. */
	gl_render(glcuda_image_get_gl_framebuffer(s->in, 0), c->g, n);
	s->frame = n;
	memset(&wait, 0, sizeof(wait));
	memset(&signal, 0, sizeof(signal));
	s->to_cuda.value++;
	wait.params.fence.value = s->to_cuda.value;
	METER(interop_meter, {
		bare_gl_semaphore(true, &s->to_cuda, s->textures, 2);
		glFlush();
		res[0] = CU(cuCtxPushCurrent)(cu.ctx);
		res[1] = CU(cuWaitExternalSemaphoresAsync)(&s->to_cuda.cu,
							   &wait, 1,
							   s->stream);
	});
	if (cu_check(res[0], "cuCtxPushCurrent") < 0 ||
	    cu_check(res[1], "cuWaitExternalSemaphoresAsync") < 0)
		return -1;
	if (run_kernel(c->g, c->kernel, glcuda_image_get_cuda_surface(s->in),
		       glcuda_image_get_cuda_surface(s->out), slot,
		       s->stream) < 0)
		return -1;
	s->to_gl.value++;
	signal.params.fence.value = s->to_gl.value;
	METER(interop_meter, {
		res[0] = CU(cuSignalExternalSemaphoresAsync)(&s->to_gl.cu,
							     &signal, 1,
							     s->stream);
		res[1] = CU(cuEventRecord)(s->done, s->stream);
		res[2] = CU(cuLaunchHostFunc)(s->stream, bare_host_fn,
					      &b->efd);
		res[3] = CU(cuCtxPopCurrent)(&popped);
	});
	if (cu_check(res[0], "cuSignalExternalSemaphoresAsync") < 0 ||
	    cu_check(res[1], "cuEventRecord") < 0 ||
	    cu_check(res[2], "cuLaunchHostFunc") < 0 ||
	    cu_check(res[3], "cuCtxPopCurrent") < 0)
		return -1;
	b->fifo[b->fifo_len++] = slot;
	if (b->fifo_len >= b->slot_count && bare_present_oldest(c) < 0)
		return -1;
	pace_push();
	return 0;
}

int
bare_drain(struct run_ctx *c)
{
	while (c->bare && c->bare->fifo_len)
		if (bare_present_oldest(c) < 0)
			return -1;
	return 0;
}

void
bare_teardown(struct run_ctx *c)
{
	struct bare *b = c->bare;

	if (!b)
		return;
	/* Nothing may still wait on or signal what goes. */
	glFinish();
	for (unsigned int i = 0; i < MAX_DEPTH; i++)
		if (b->slots[i].stream)
			CU(cuStreamSynchronize)(b->slots[i].stream);
	for (unsigned int i = 0; i < MAX_DEPTH; i++) {
		struct bare_slot *s = &b->slots[i];

		if (b->vk.device) {
			bare_semaphore_free(&b->vk, &s->to_cuda);
			bare_semaphore_free(&b->vk, &s->to_gl);
		}
		if (s->done)
			CU(cuEventDestroy)(s->done);
		if (s->stream)
			CU(cuStreamDestroy)(s->stream);
		glcuda_image_destroy(s->in);
		glcuda_image_destroy(s->out);
	}
	bare_vulkan_free(&b->vk);
	if (b->efd >= 0)
		close(b->efd);
	free(b);
	c->bare = NULL;
}
