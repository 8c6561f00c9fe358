/*
 * glcuda-bench: the paths, each a setup, a frame and a teardown
 * (struct path_ops).
 * SPDX-License-Identifier: MIT
 */
#include "bench.h"

int
ring_collect_timings(struct run_ctx *c)
{
	struct glcuda_frame_timings t;
	int r;

	if (!c->timings)
		return 0;
	while ((r = glcuda_ring_get_timings(c->ring, &t)) == 1) {
		if (!c->measuring)
			continue;
		c->timing_count++;
		c->sum_to_cuda += (double)t.handoff_to_cuda_ns / 1e3;
		c->sum_to_gl += (double)t.handoff_to_gl_ns / 1e3;
		c->sum_cuda += (double)t.cuda_ns / 1e3;
		c->sum_gl_render += (double)t.gl_render_ns / 1e3;
		c->sum_total += (double)t.total_ns / 1e3;
	}
	return glcuda_check(r, "glcuda_ring_get_timings");
}

int
glcuda_setup(struct run_ctx *c)
{
	struct glcuda_ring_desc desc;
	const char *why = "";
	int r;

	c->dev = device_for_mode(c->cfg.mode, &why);
	if (!c->dev)
		return fail("no glcuda device in %s mode: %s", mode_name(c->cfg.mode), why);
	glcuda_ring_desc_init(&desc);
	desc.width = c->g->width;
	desc.height = c->g->height;
	desc.slots = c->cfg.depth < 2 ? 2 : c->cfg.depth;
	desc.input_format = c->g->format;
	desc.output_format = c->g->format;
	desc.flags = c->timings ? GLCUDA_RING_FLAG_TIMINGS : GLCUDA_RING_FLAG_NONE;
	r = glcuda_ring_new(c->dev, &desc, &c->ring);
	if (r < 0)
		return glcuda_check(r, "glcuda_ring_new");
	c->dropped_at_start = 0;
	return 0;
}

/* Present a frame whose GL wait is enqueued: composite, release. */
int
glcuda_present(struct run_ctx *c, struct glcuda_frame *f)
{
	int r;

	gl_composite(glcuda_frame_get_output_texture(f), c->g);
	METER(interop_meter, r = glcuda_frame_release(f));
	return glcuda_check(r, "glcuda_frame_release");
}

int
glcuda_present_oldest(struct run_ctx *c)
{
	struct glcuda_frame *f = c->queue[0];
	int r;

	memmove(&c->queue[0], &c->queue[1], (c->queue_len - 1) * sizeof(c->queue[0]));
	c->queue_len--;
	METER(interop_meter, r = glcuda_frame_wait_gl(f));
	if (r < 0)
		return glcuda_check(r, "glcuda_frame_wait_gl");
	return glcuda_present(c, f);
}

int
glcuda_present_newest(struct run_ctx *c)
{
	struct pollfd pfd = { .fd = glcuda_ring_get_fd(c->ring), .events = POLLIN };

	for (;;) {
		uint64_t dropped = glcuda_ring_get_dropped(c->ring);
		struct glcuda_frame *f;
		int pr, ret;

		METER(interop_meter, ret = glcuda_ring_take_newest(c->ring, &f));
		if (ret == 0) {
			c->pending -= 1 + (unsigned int)(glcuda_ring_get_dropped(c->ring) - dropped);
			return glcuda_present(c, f);
		}
		if (ret != -EAGAIN)
			return fail("glcuda_ring_take_newest: %s", glcuda_get_last_error());
		/* Nothing ready: a compositor would sleep in its event loop on
		 * the ring's fd; so do we. That sleep is the application's
		 * (its event loop), not time inside a glcuda call: it is
		 * counted with the frame pacing, not as interop. */
		METER(pacing_meter, pr = poll(&pfd, 1, 10000));
		if (pr == 0)
			return fail("no frame became ready within 10 s (GPU hang?)");
		if (pr < 0 && errno != EINTR)
			return fail("poll on the ring fd: %s", strerror(errno));
	}
}

int
glcuda_frame_fn(struct run_ctx *c, uint64_t n)
{
	struct glcuda_frame *f;
	int r;

	if (pace_wait() < 0)
		return -1;
	METER(interop_meter, r = glcuda_ring_acquire(c->ring, &f));
	if (r == -EAGAIN)
		return fail("glcuda_ring_acquire: all slots in flight (bench bug: depth %u)",
			    c->cfg.depth);
	if (r < 0)
		return glcuda_check(r, "glcuda_ring_acquire");
	gl_render(glcuda_frame_get_input_fbo(f), c->g, n);
	METER(interop_meter, r = glcuda_frame_submit(f));
	if (r < 0)
		return glcuda_check(r, "glcuda_frame_submit");
	if (run_kernel(c->g, c->kernel, glcuda_frame_get_input_surface(f),
		       glcuda_frame_get_output_surface(f), glcuda_frame_get_slot(f),
		       glcuda_frame_get_stream(f)) < 0)
		return -1;
	METER(interop_meter, r = glcuda_frame_complete(f));
	if (r < 0)
		return glcuda_check(r, "glcuda_frame_complete");
	if (c->cfg.policy == POLICY_WAIT) {
		c->queue[c->queue_len++] = f;
		if (c->queue_len >= c->cfg.depth && glcuda_present_oldest(c) < 0)
			return -1;
	} else {
		c->pending++;
		if (c->pending >= c->cfg.depth && glcuda_present_newest(c) < 0)
			return -1;
	}
	pace_push();
	return ring_collect_timings(c);
}

int
glcuda_drain(struct run_ctx *c)
{
	while (c->queue_len)
		if (glcuda_present_oldest(c) < 0)
			return -1;
	while (c->pending)
		if (glcuda_present_newest(c) < 0)
			return -1;
	return 0;
}

void
glcuda_teardown(struct run_ctx *c)
{
	glcuda_ring_destroy(c->ring);
	c->ring = NULL;
}

/* gl alone ------------------------------------------------------------------ */

int
gl_setup(struct run_ctx *c)
{
	return gl_make_target(c->g, c->g->internal_format, &c->in_tex, &c->in_fbo);
}

int
gl_frame_fn(struct run_ctx *c, uint64_t n)
{
	if (pace_wait() < 0)
		return -1;
	gl_render(c->in_fbo, c->g, n);
	gl_composite(c->in_tex, c->g);
	pace_push();
	return 0;
}

void
gl_teardown(struct run_ctx *c)
{
	gl_delete_target(&c->in_tex, &c->in_fbo);
	gl_delete_target(&c->out_tex, NULL);
}

/* CUDA-side images for the cuda and readback paths ------------------------- */

int
cuda_images_setup(struct run_ctx *c)
{
	int r;

	c->dev = main_dev;
	CU_TRY(cuStreamCreate, &c->stream, CU_STREAM_NON_BLOCKING);
	for (int i = 0; i < 2; i++) {
		r = glcuda_image_new(main_dev, c->g->width, c->g->height, c->g->format,
				     GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE, &c->img[i]);
		if (r < 0)
			return glcuda_check(r, "glcuda_image_new");
	}
	r = glcuda_handoff_to_cuda(main_dev, c->img, 2, c->stream);
	if (r < 0)
		return glcuda_check(r, "glcuda_handoff_to_cuda");
	c->img_on_cuda = true;
	return 0;
}

void
cuda_images_teardown(struct run_ctx *c)
{
	if (c->stream)
		CU(cuStreamSynchronize)(c->stream);
	if (c->img_on_cuda)
		glcuda_handoff_to_gl(main_dev, c->img, 2, c->stream);
	c->img_on_cuda = false;
	for (int i = 0; i < 2; i++) {
		glcuda_image_destroy(c->img[i]);
		c->img[i] = NULL;
	}
	if (c->stream)
		CU(cuStreamDestroy)(c->stream);
	c->stream = NULL;
}

/* cuda alone -------------------------------------------------------------- */

int
cuda_setup(struct run_ctx *c)
{
	if (cuda_images_setup(c) < 0)
		return -1;
	c->event_count = opt.frames + 1;
	c->events = calloc(c->event_count, sizeof(*c->events));
	if (!c->events)
		return fail("out of memory");
	for (unsigned int i = 0; i < c->event_count; i++)
		CU_TRY(cuEventCreate, &c->events[i], CU_EVENT_DEFAULT);
	for (unsigned int i = 0; i < ARRAY_LENGTH(c->pace_events); i++)
		CU_TRY(cuEventCreate, &c->pace_events[i], CU_EVENT_DISABLE_TIMING);
	return 0;
}

int
cuda_frame_fn(struct run_ctx *c, uint64_t n)
{
	unsigned int np = ARRAY_LENGTH(c->pace_events);

	/* Keep at most half the pacing ring queued: the GPU never starves and
	 * the launch queue never fills. */
	if (n >= np / 2)
		METER(pacing_meter,
		      CU_TRY(cuEventSynchronize, c->pace_events[(n - np / 2) % np]));
	if (c->measuring && c->event_next == 0)
		CU_TRY(cuEventRecord, c->events[c->event_next++], c->stream);
	if (run_kernel(c->g, c->kernel, glcuda_image_get_cuda_surface(c->img[0]),
		       glcuda_image_get_cuda_surface(c->img[1]), 0, c->stream) < 0)
		return -1;
	if (c->measuring && c->event_next < c->event_count)
		CU_TRY(cuEventRecord, c->events[c->event_next++], c->stream);
	CU_TRY(cuEventRecord, c->pace_events[n % np], c->stream);
	return 0;
}

void
cuda_teardown(struct run_ctx *c)
{
	if (c->stream)
		CU(cuStreamSynchronize)(c->stream);
	for (unsigned int i = 0; i < c->event_count && c->events; i++)
		if (c->events[i])
			CU(cuEventDestroy)(c->events[i]);
	free(c->events);
	c->events = NULL;
	for (unsigned int i = 0; i < ARRAY_LENGTH(c->pace_events); i++)
		if (c->pace_events[i])
			CU(cuEventDestroy)(c->pace_events[i]);
	cuda_images_teardown(c);
}

/* legacy -------------------------------------------------------------------- */

int
legacy_setup(struct run_ctx *c)
{
	GLuint tex[2];

	c->dev = main_dev;
	if (gl_make_target(c->g, c->g->internal_format, &c->in_tex, &c->in_fbo) < 0 ||
	    gl_make_target(c->g, c->g->internal_format, &c->out_tex, NULL) < 0)
		return -1;
	CU_TRY(cuStreamCreate, &c->stream, CU_STREAM_NON_BLOCKING);
	tex[0] = c->in_tex;
	tex[1] = c->out_tex;
	for (int i = 0; i < 2; i++) {
		CUresult res = CU(cuGraphicsGLRegisterImage)(&c->res[i], tex[i], GL_TEXTURE_2D,
							     CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST);
		if (res != CUDA_SUCCESS) {
			c->res[i] = NULL;
			return cu_check(res, "cuGraphicsGLRegisterImage");
		}
	}
	return 0;
}

/* The surface objects of the mapped arrays, made again only when the driver
 * hands back a different array (it normally does not): the legacy path at
 * its cheapest. */
int
legacy_surface(struct run_ctx *c, int i, CUarray array, CUsurfObject *out)
{
	CUDA_RESOURCE_DESC rd;

	if (c->cached_surface[i] && c->cached_array[i] == array) {
		*out = c->cached_surface[i];
		return 0;
	}
	if (c->cached_surface[i])
		CU(cuSurfObjectDestroy)(c->cached_surface[i]);
	c->cached_surface[i] = 0;
	memset(&rd, 0, sizeof(rd));
	rd.resType = CU_RESOURCE_TYPE_ARRAY;
	rd.res.array.hArray = array;
	CU_TRY(cuSurfObjectCreate, &c->cached_surface[i], &rd);
	c->cached_array[i] = array;
	*out = c->cached_surface[i];
	return 0;
}

int
legacy_frame_fn(struct run_ctx *c, uint64_t n)
{
	CUarray arr[2];
	CUsurfObject surf[2];
	CUresult res;
	int r = 0;

	if (pace_wait() < 0)
		return -1;
	gl_render(c->in_fbo, c->g, n);
	METER(interop_meter, res = CU(cuGraphicsMapResources)(2, c->res, c->stream));
	if (res != CUDA_SUCCESS)
		return cu_check(res, "cuGraphicsMapResources");
	METER(interop_meter, {
		for (int i = 0; i < 2 && r == 0; i++) {
			res = CU(cuGraphicsSubResourceGetMappedArray)(&arr[i], c->res[i], 0, 0);
			if (res != CUDA_SUCCESS)
				r = cu_check(res, "cuGraphicsSubResourceGetMappedArray");
			else
				r = legacy_surface(c, i, arr[i], &surf[i]);
		}
	});
	if (r < 0)
		return -1;
	if (run_kernel(c->g, c->kernel, surf[0], surf[1], 0, c->stream) < 0)
		return -1;
	METER(interop_meter, res = CU(cuGraphicsUnmapResources)(2, c->res, c->stream));
	if (res != CUDA_SUCCESS)
		return cu_check(res, "cuGraphicsUnmapResources");
	if (c->cfg.path == PATH_LEGACY) {
		METER(interop_meter, res = CU(cuStreamSynchronize)(c->stream));
		if (res != CUDA_SUCCESS)
			return cu_check(res, "cuStreamSynchronize");
	}
	gl_composite(c->out_tex, c->g);
	pace_push();
	return 0;
}

void
legacy_teardown(struct run_ctx *c)
{
	if (c->stream)
		CU(cuStreamSynchronize)(c->stream);
	for (int i = 0; i < 2; i++) {
		if (c->cached_surface[i])
			CU(cuSurfObjectDestroy)(c->cached_surface[i]);
		c->cached_surface[i] = 0;
		if (c->res[i])
			CU(cuGraphicsUnregisterResource)(c->res[i]);
		c->res[i] = NULL;
	}
	if (c->stream)
		CU(cuStreamDestroy)(c->stream);
	c->stream = NULL;
	gl_teardown(c);
}

/* wrap-gl, wrap-egl ---------------------------------------------------------- */

/* The legacy path's two GL textures, wrapped by glcuda (or EGLImages made
 * from them, wrapped), handed off both at once each way per frame. */
int
wrap_setup(struct run_ctx *c)
{
	GLuint tex[2];
	int r;

	c->dev = main_dev;
	if (gl_make_target(c->g, c->g->internal_format, &c->in_tex, &c->in_fbo) < 0 ||
	    gl_make_target(c->g, c->g->internal_format, &c->out_tex, NULL) < 0)
		return -1;
	CU_TRY(cuStreamCreate, &c->stream, CU_STREAM_NON_BLOCKING);
	tex[0] = c->in_tex;
	tex[1] = c->out_tex;
	for (int i = 0; i < 2; i++) {
		if (c->cfg.path == PATH_WRAP_EGL) {
			c->egl_image[i] = eglCreateImage(main_dpy, eglGetCurrentContext(),
							 EGL_GL_TEXTURE_2D,
							 (EGLClientBuffer)(uintptr_t)tex[i], NULL);
			if (c->egl_image[i] == EGL_NO_IMAGE)
				return fail("eglCreateImage (EGL_GL_TEXTURE_2D): EGL error 0x%x",
					    eglGetError());
			r = glcuda_image_wrap_egl_image(main_dev, c->egl_image[i],
							GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE, &c->img[i]);
		} else {
			r = glcuda_image_wrap_gl_texture(main_dev, tex[i], GL_TEXTURE_2D,
							 GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE,
							 &c->img[i]);
		}
		if (r < 0)
			return glcuda_check(r, c->cfg.path == PATH_WRAP_EGL
						       ? "glcuda_image_wrap_egl_image"
						       : "glcuda_image_wrap_gl_texture");
	}
	return 0;
}

int
wrap_frame_fn(struct run_ctx *c, uint64_t n)
{
	int r;

	if (pace_wait() < 0)
		return -1;
	gl_render(c->in_fbo, c->g, n);
	METER(interop_meter, r = glcuda_handoff_to_cuda(main_dev, c->img, 2, c->stream));
	if (r < 0)
		return glcuda_check(r, "glcuda_handoff_to_cuda");
	/* Read after the hand-off: valid while the images are CUDA's. */
	if (run_kernel(c->g, c->kernel, glcuda_image_get_cuda_surface(c->img[0]),
		       glcuda_image_get_cuda_surface(c->img[1]), 0, c->stream) < 0)
		return -1;
	METER(interop_meter, r = glcuda_handoff_to_gl(main_dev, c->img, 2, c->stream));
	if (r < 0)
		return glcuda_check(r, "glcuda_handoff_to_gl");
	gl_composite(c->out_tex, c->g);
	pace_push();
	return 0;
}

void
wrap_teardown(struct run_ctx *c)
{
	if (c->stream)
		CU(cuStreamSynchronize)(c->stream);
	for (int i = 0; i < 2; i++) {
		glcuda_image_destroy(c->img[i]);
		c->img[i] = NULL;
		if (c->egl_image[i] != EGL_NO_IMAGE)
			eglDestroyImage(main_dpy, c->egl_image[i]);
		c->egl_image[i] = EGL_NO_IMAGE;
	}
	if (c->stream)
		CU(cuStreamDestroy)(c->stream);
	c->stream = NULL;
	gl_teardown(c);
}

/* readback ------------------------------------------------------------------ */

size_t
frame_bytes(const struct group *g)
{
	return (size_t)g->width * g->height * g->bpp;
}

int
readback_setup(struct run_ctx *c)
{
	if (gl_make_target(c->g, c->g->internal_format, &c->in_tex, &c->in_fbo) < 0 ||
	    gl_make_target(c->g, c->g->internal_format, &c->out_tex, NULL) < 0)
		return -1;
	glGenBuffers(1, &c->pbo);
	glBindBuffer(GL_PIXEL_PACK_BUFFER, c->pbo);
	glBufferData(GL_PIXEL_PACK_BUFFER, (GLsizeiptr)frame_bytes(c->g), NULL, GL_STREAM_READ);
	glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
	if (gl_check("creating the PBO") < 0)
		return -1;
	if (cuda_images_setup(c) < 0)
		return -1;
	/* Pinned memory for the way back: the newcomer's version at its
	 * fastest. */
	CU_TRY(cuMemAllocHost, &c->pinned, frame_bytes(c->g));
	return 0;
}

int
readback_frame_fn(struct run_ctx *c, uint64_t n)
{
	const struct group *g = c->g;
	CUDA_MEMCPY2D up, down;
	CUresult res = CUDA_SUCCESS;
	void *mapped = NULL;
	int r = 0;

	if (pace_wait() < 0)
		return -1;
	gl_render(c->in_fbo, g, n);

	memset(&up, 0, sizeof(up));
	up.srcMemoryType = CU_MEMORYTYPE_HOST;
	up.srcPitch = (size_t)g->width * g->bpp;
	up.dstMemoryType = CU_MEMORYTYPE_ARRAY;
	up.dstArray = glcuda_image_get_cuda_array(c->img[0]);
	up.WidthInBytes = (size_t)g->width * g->bpp;
	up.Height = g->height;
	down = up;
	down.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	down.srcArray = glcuda_image_get_cuda_array(c->img[1]);
	down.srcHost = NULL;
	down.dstMemoryType = CU_MEMORYTYPE_HOST;
	down.dstArray = NULL;
	down.dstHost = c->pinned;
	down.dstPitch = up.srcPitch;

	METER(interop_meter, {
		glBindFramebuffer(GL_READ_FRAMEBUFFER, c->in_fbo);
		glReadBuffer(GL_COLOR_ATTACHMENT0);
		glBindBuffer(GL_PIXEL_PACK_BUFFER, c->pbo);
		glPixelStorei(GL_PACK_ALIGNMENT, 4);
		glReadPixels(0, 0, (GLsizei)g->width, (GLsizei)g->height, GL_RGBA, g->pixel_type, NULL);
		mapped = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, (GLsizeiptr)frame_bytes(g),
					  GL_MAP_READ_BIT);
		if (mapped) {
			up.srcHost = mapped;
			res = CU(cuMemcpy2DAsync)(&up, c->stream);
		}
	});
	if (!mapped) {
		glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
		return gl_check("mapping the PBO") < 0 ? -1 : fail("glMapBufferRange returned NULL");
	}
	if (res != CUDA_SUCCESS)
		r = cu_check(res, "cuMemcpy2DAsync (host to array)");
	if (r == 0)
		r = run_kernel(g, c->kernel, glcuda_image_get_cuda_surface(c->img[0]),
			       glcuda_image_get_cuda_surface(c->img[1]), 0, c->stream);
	METER(interop_meter, {
		if (r == 0) {
			res = CU(cuMemcpy2DAsync)(&down, c->stream);
			if (res != CUDA_SUCCESS)
				r = cu_check(res, "cuMemcpy2DAsync (array to host)");
		}
		if (r == 0) {
			res = CU(cuStreamSynchronize)(c->stream);
			if (res != CUDA_SUCCESS)
				r = cu_check(res, "cuStreamSynchronize");
		}
		/* The upload has left the PBO once the stream is done. */
		glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
		glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
		if (r == 0) {
			glBindTexture(GL_TEXTURE_2D, c->out_tex);
			glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
			glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)g->width,
					(GLsizei)g->height, GL_RGBA, g->pixel_type, c->pinned);
			glBindTexture(GL_TEXTURE_2D, 0);
		}
	});
	if (r < 0)
		return -1;
	gl_composite(c->out_tex, g);
	pace_push();
	return 0;
}

void
readback_teardown(struct run_ctx *c)
{
	if (c->pinned)
		CU(cuMemFreeHost)(c->pinned);
	c->pinned = NULL;
	cuda_images_teardown(c);
	if (c->pbo)
		glDeleteBuffers(1, &c->pbo);
	c->pbo = 0;
	gl_teardown(c);
}

/* The harness ----------------------------------------------------------------- */

const struct path_ops path_ops[PATH_COUNT] = {
	[PATH_GL] = { gl_setup, gl_frame_fn, NULL, gl_teardown },
	[PATH_CUDA] = { cuda_setup, cuda_frame_fn, NULL, cuda_teardown },
	[PATH_LEGACY] = { legacy_setup, legacy_frame_fn, NULL, legacy_teardown },
	[PATH_LEGACY_NOSYNC] = { legacy_setup, legacy_frame_fn, NULL, legacy_teardown },
	[PATH_READBACK] = { readback_setup, readback_frame_fn, NULL, readback_teardown },
	[PATH_WRAP_GL] = { wrap_setup, wrap_frame_fn, NULL, wrap_teardown },
	[PATH_WRAP_EGL] = { wrap_setup, wrap_frame_fn, NULL, wrap_teardown },
	[PATH_GLCUDA] = { glcuda_setup, glcuda_frame_fn, glcuda_drain, glcuda_teardown },
};
