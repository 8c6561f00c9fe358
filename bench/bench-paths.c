/*
 * glcuda-bench: the paths, each a setup, a frame and a teardown
 * (struct path_ops).
 * SPDX-License-Identifier: MIT
 */
#include "bench.h"

int
ring_collect_timings(struct run_ctx *c)
{
	struct glcuda_frame_timings t = {
		.size = sizeof(struct glcuda_frame_timings)
	};
	int r;

	if (!c->timings)
		return 0;
	while ((r = glcuda_ring_read_timings(c->ring, &t)) == 1) {
		if (!c->measuring)
			continue;
		c->timing_count++;
		c->sum_to_cuda += (double)t.handoff_to_cuda_ns / 1e3;
		c->sum_to_gl += (double)t.handoff_to_gl_ns / 1e3;
		c->sum_cuda += (double)t.cuda_ns / 1e3;
		c->sum_gl_render += (double)t.gl_render_ns / 1e3;
		c->sum_total += (double)t.total_ns / 1e3;
	}
	return glcuda_check(r, "glcuda_ring_read_timings");
}

int
glcuda_setup(struct run_ctx *c)
{
	struct glcuda_ring_desc desc;
	const char *why = "";
	int r;

	c->dev = device_for_mode(c->cfg.mode, &why);
	if (!c->dev)
		return fail("no glcuda device in %s mode: %s",
			    mode_name(c->cfg.mode), why);
	glcuda_ring_desc_init(&desc);
	desc.width = c->g->width;
	desc.height = c->g->height;
	desc.slots = c->cfg.depth < 2 ? 2 : c->cfg.depth;
	desc.input_format = c->g->format;
	desc.output_format = c->g->format;
	desc.flags =
		c->timings ? GLCUDA_RING_FLAG_TIMINGS : GLCUDA_RING_FLAG_NONE;
	r = glcuda_ring_new(c->dev, &desc, &c->ring);
	if (r < 0)
		return glcuda_check(r, "glcuda_ring_new");
	c->dropped_at_start = 0;
	return 0;
}

/* The frame number a glcuda frame was rendered with (its user data). */
static uint64_t
frame_n(const struct glcuda_frame *f)
{
	return (uint64_t)(uintptr_t)glcuda_frame_get_user_data(f);
}

/* Present a frame whose GL wait is enqueued: composite, release. */
int
glcuda_present(struct run_ctx *c, struct glcuda_frame *f)
{
	int r;

	present_texture(c, glcuda_frame_get_output_texture(f), frame_n(f));
	METER(interop_meter, r = glcuda_frame_release(f));
	return glcuda_check(r, "glcuda_frame_release");
}

int
glcuda_present_oldest(struct run_ctx *c)
{
	struct glcuda_frame *f = c->queue[0];
	int r;

	memmove(&c->queue[0], &c->queue[1],
		(c->queue_len - 1) * sizeof(c->queue[0]));
	c->queue_len--;
	METER(interop_meter, r = glcuda_frame_wait_gl(f));
	if (r < 0)
		return glcuda_check(r, "glcuda_frame_wait_gl");
	return glcuda_present(c, f);
}

/* Sleep on the ring's fd until a frame's CUDA stage is done. A compositor
 * sleeps in its event loop there: that sleep is the application's, not
 * time inside a glcuda call, so it is counted with the frame pacing. */
static int
wait_ring_fd(struct run_ctx *c)
{
	struct pollfd pfd = { .fd = glcuda_ring_get_fd(c->ring),
			      .events = POLLIN };
	int pr;

	METER(pacing_meter, pr = poll(&pfd, 1, 10000));
	if (pr == 0)
		return fail("no frame became ready within 10 s (GPU hang?)");
	if (pr < 0 && errno != EINTR)
		return fail("poll on the ring fd: %s", strerror(errno));
	return 0;
}

int
glcuda_present_newest(struct run_ctx *c)
{
	for (;;) {
		uint64_t dropped = glcuda_ring_get_dropped(c->ring);
		struct glcuda_frame *f;
		int ret;

		METER(interop_meter,
		      ret = glcuda_ring_take_newest(c->ring, &f));
		if (ret == 0) {
			c->pending -=
				1 + (unsigned int)(glcuda_ring_get_dropped(
							   c->ring) -
						   dropped);
			return glcuda_present(c, f);
		}
		if (ret != -EAGAIN)
			return fail("glcuda_ring_take_newest: %s",
				    glcuda_get_last_error());
		if (wait_ring_fd(c) < 0)
			return -1;
	}
}

/*
 * The ready policy: every frame is composited, but GL's wait is enqueued
 * only for frames the ring's fd says are done, so GL never queues a wait
 * on CUDA work still running (the wait policy's GPU-side stall). With
 * `depth` frames in flight: sleep on the fd until at least one is ready,
 * then wait_gl + composite + release the oldest frames, as many as
 * glcuda_ring_dispatch() counts ready. Frames complete in order in
 * practice (one stream per slot, launched in order); should the oldest
 * not be the one that finished, its GL wait is still correct, only then
 * on the GPU rather than already satisfied.
 */
int
glcuda_present_ready(struct run_ctx *c)
{
	int ready;

	for (;;) {
		METER(interop_meter, ready = glcuda_ring_dispatch(c->ring));
		if (ready < 0)
			return glcuda_check(ready, "glcuda_ring_dispatch");
		if (ready > 0)
			break;
		if (wait_ring_fd(c) < 0)
			return -1;
	}
	while (ready-- > 0 && c->queue_len)
		if (glcuda_present_oldest(c) < 0)
			return -1;
	return 0;
}

/*
 * The batch policy: `depth` frames are rendered before any is handed to
 * CUDA; then all are submitted (GL signals them at the end of its work),
 * each gets its kernel on its own stream, all are completed, GL waits for
 * all, then composites and releases each. GL and CUDA then take turns on
 * the GPU once per batch rather than once per frame: what
 * bench/glcuda-trace measured as the switch's cost is paid once for
 * `depth` frames, at `depth` frames of latency. The ring's own calls, in
 * an order any application can use.
 */
static int
glcuda_run_batch(struct run_ctx *c)
{
	unsigned int count = c->queue_len;
	int r;

	for (unsigned int i = 0; i < count; i++) {
		struct glcuda_frame *f = c->queue[i];
		METER(interop_meter, r = glcuda_frame_submit(f));
		if (r < 0)
			return glcuda_check(r, "glcuda_frame_submit");
		if (run_kernel(c->g, c->kernel,
			       glcuda_frame_get_input_surface(f),
			       glcuda_frame_get_output_surface(f),
			       glcuda_frame_get_slot(f),
			       glcuda_frame_get_stream(f)) < 0)
			return -1;
	}
	for (unsigned int i = 0; i < count; i++) {
		METER(interop_meter, r = glcuda_frame_complete(c->queue[i]));
		if (r < 0)
			return glcuda_check(r, "glcuda_frame_complete");
	}
	for (unsigned int i = 0; i < count; i++) {
		METER(interop_meter, r = glcuda_frame_wait_gl(c->queue[i]));
		if (r < 0)
			return glcuda_check(r, "glcuda_frame_wait_gl");
	}
	for (unsigned int i = 0; i < count; i++)
		if (glcuda_present(c, c->queue[i]) < 0)
			return -1;
	c->queue_len = 0;
	return 0;
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
		return fail("glcuda_ring_acquire: all slots in flight (bench "
			    "bug: depth %u)",
			    c->cfg.depth);
	if (r < 0)
		return glcuda_check(r, "glcuda_ring_acquire");
	glcuda_frame_set_user_data(f, (void *)(uintptr_t)n);
	gl_render(glcuda_frame_get_input_fbo(f), c->g, n);
	if (c->cfg.policy == POLICY_BATCH) {
		c->queue[c->queue_len++] = f;
		if (c->queue_len >= c->cfg.depth && glcuda_run_batch(c) < 0)
			return -1;
		pace_push();
		return ring_collect_timings(c);
	}
	METER(interop_meter, r = glcuda_frame_submit(f));
	if (r < 0)
		return glcuda_check(r, "glcuda_frame_submit");
	if (run_kernel(c->g, c->kernel, glcuda_frame_get_input_surface(f),
		       glcuda_frame_get_output_surface(f),
		       glcuda_frame_get_slot(f),
		       glcuda_frame_get_stream(f)) < 0)
		return -1;
	METER(interop_meter, r = glcuda_frame_complete(f));
	if (r < 0)
		return glcuda_check(r, "glcuda_frame_complete");
	switch (c->cfg.policy) {
	case POLICY_WAIT:
		c->queue[c->queue_len++] = f;
		if (c->queue_len >= c->cfg.depth &&
		    glcuda_present_oldest(c) < 0)
			return -1;
		break;
	case POLICY_READY:
		c->queue[c->queue_len++] = f;
		if (c->queue_len >= c->cfg.depth && glcuda_present_ready(c) < 0)
			return -1;
		break;
	default:
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
	if (c->cfg.policy == POLICY_BATCH && c->queue_len &&
	    glcuda_run_batch(c) < 0)
		return -1;
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

/* gl alone -------------------------------------------------------------- */

int
gl_setup(struct run_ctx *c)
{
	return gl_make_target(c->g, c->g->internal_format, &c->in_tex,
			      &c->in_fbo);
}

int
gl_frame_fn(struct run_ctx *c, uint64_t n)
{
	if (pace_wait() < 0)
		return -1;
	gl_render(c->in_fbo, c->g, n);
	present_texture(c, c->in_tex, n);
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

/* With `pattern`, GL first renders frame 0's pattern into the input image:
 * the cuda path's kernel then has an input whose result can be checked. */
int
cuda_images_setup(struct run_ctx *c, bool pattern)
{
	struct glcuda_image_desc desc;
	int r;

	c->dev = main_dev;
	CU_TRY(cuStreamCreate, &c->stream, CU_STREAM_NON_BLOCKING);
	glcuda_image_desc_init(&desc);
	desc.width = c->g->width;
	desc.height = c->g->height;
	desc.format = c->g->format;
	desc.flags = GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE;
	for (int i = 0; i < 2; i++) {
		r = glcuda_image_new(main_dev, &desc, &c->img[i]);
		if (r < 0)
			return glcuda_check(r, "glcuda_image_new");
	}
	if (pattern) {
		GLuint fbo;

		glGenFramebuffers(1, &fbo);
		glBindFramebuffer(GL_FRAMEBUFFER, fbo);
		glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
				       GL_TEXTURE_2D,
				       glcuda_image_get_gl_texture(c->img[0]),
				       0);
		gl_render(fbo, c->g, 0);
		glBindFramebuffer(GL_FRAMEBUFFER, 0);
		glDeleteFramebuffers(1, &fbo);
		if (gl_check("rendering the cuda path's input") < 0)
			return -1;
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
	if (cuda_images_setup(c, true) < 0)
		return -1;
	c->event_count = opt.frames + 1;
	c->events = calloc(c->event_count, sizeof(*c->events));
	if (!c->events)
		return fail("out of memory");
	for (unsigned int i = 0; i < c->event_count; i++)
		CU_TRY(cuEventCreate, &c->events[i], CU_EVENT_DEFAULT);
	for (unsigned int i = 0; i < ARRAY_LENGTH(c->pace_events); i++)
		CU_TRY(cuEventCreate, &c->pace_events[i],
		       CU_EVENT_DISABLE_TIMING);
	return 0;
}

int
cuda_frame_fn(struct run_ctx *c, uint64_t n)
{
	unsigned int np = ARRAY_LENGTH(c->pace_events);

	/* Keep at most half the pacing ring queued: the GPU never starves and
	 * the launch queue never fills. */
	if (n >= np / 2)
		METER(pacing_meter, CU_TRY(cuEventSynchronize,
					   c->pace_events[(n - np / 2) % np]));
	if (c->measuring && c->event_next == 0)
		CU_TRY(cuEventRecord, c->events[c->event_next++], c->stream);
	if (run_kernel(c->g, c->kernel,
		       glcuda_image_get_cuda_surface(c->img[0]),
		       glcuda_image_get_cuda_surface(c->img[1]), 0,
		       c->stream) < 0)
		return -1;
	if (c->measuring && c->event_next < c->event_count)
		CU_TRY(cuEventRecord, c->events[c->event_next++], c->stream);
	CU_TRY(cuEventRecord, c->pace_events[n % np], c->stream);
	/* Nothing is composited: every frame counts, and the output checked
	 * is img[1], the kernel's result on frame 0's pattern. */
	if (c->measuring)
		c->composited++;
	c->have_last = true;
	c->last_tex = 0;
	c->last_frame = 0;
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

/* legacy ---------------------------------------------------------------- */

/*
 * The legacy registration at its strongest: `depth` pairs of textures,
 * each registered once (cuGraphicsGLRegisterImage with SURFACE_LDST, the
 * kernels use surface objects) with the map hints a careful user sets
 * (the input read-only, the output write-discard), and a stream per pair,
 * so that up to `depth` frames are in flight as on glcuda's ring. Frame n
 * uses slot n % depth: render into its input, map both on its stream, get
 * the arrays, kernel, unmap on its stream. Once `depth` frames are in
 * flight the oldest is composited: `legacy` first synchronises that
 * frame's stream; `legacy-nosync` relies on unmap's ordering (CUDA work
 * enqueued before cuGraphicsUnmapResources completes before GL work
 * issued after it).
 */
int
legacy_setup(struct run_ctx *c)
{
	unsigned int depth = c->cfg.depth ? c->cfg.depth : 1;

	c->dev = main_dev;
	if (!cu.set_map_flags)
		return fail("the CUDA driver has no "
			    "cuGraphicsResourceSetMapFlags");
	for (unsigned int s = 0; s < depth; s++) {
		GLuint tex[2];

		if (gl_make_target(c->g, c->g->internal_format, &c->l_in_tex[s],
				   &c->l_in_fbo[s]) < 0 ||
		    gl_make_target(c->g, c->g->internal_format,
				   &c->l_out_tex[s], NULL) < 0)
			return -1;
		CU_TRY(cuStreamCreate, &c->l_stream[s], CU_STREAM_NON_BLOCKING);
		tex[0] = c->l_in_tex[s];
		tex[1] = c->l_out_tex[s];
		for (int i = 0; i < 2; i++) {
			static const unsigned int map_flags[2] = {
				CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY,
				CU_GRAPHICS_MAP_RESOURCE_FLAGS_WRITE_DISCARD,
			};
			CUresult res = CU(cuGraphicsGLRegisterImage)(
				&c->res[s][i], tex[i], GL_TEXTURE_2D,
				CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST);
			if (res != CUDA_SUCCESS) {
				c->res[s][i] = NULL;
				return cu_check(res,
						"cuGraphicsGLRegisterImage");
			}
			if (cu_check(cu.set_map_flags(c->res[s][i],
						      map_flags[i]),
				     "cuGraphicsResourceSetMapFlags") < 0)
				return -1;
		}
	}
	c->l_fifo_len = 0;
	return 0;
}

/* The surface objects of the mapped arrays, made again only when the driver
 * hands back a different array (it normally does not): the legacy path at
 * its cheapest. */
int
legacy_surface(struct run_ctx *c, unsigned int slot, int i, CUarray array,
	       CUsurfObject *out)
{
	CUDA_RESOURCE_DESC rd;

	if (c->cached_surface[slot][i] && c->cached_array[slot][i] == array) {
		*out = c->cached_surface[slot][i];
		return 0;
	}
	if (c->cached_surface[slot][i])
		CU(cuSurfObjectDestroy)(c->cached_surface[slot][i]);
	c->cached_surface[slot][i] = 0;
	memset(&rd, 0, sizeof(rd));
	rd.resType = CU_RESOURCE_TYPE_ARRAY;
	rd.res.array.hArray = array;
	CU_TRY(cuSurfObjectCreate, &c->cached_surface[slot][i], &rd);
	c->cached_array[slot][i] = array;
	*out = c->cached_surface[slot][i];
	return 0;
}

/* Composite the oldest frame in flight. */
static int
legacy_present_oldest(struct run_ctx *c)
{
	struct legacy_frame f = c->l_fifo[0];
	CUresult res;

	memmove(&c->l_fifo[0], &c->l_fifo[1],
		(c->l_fifo_len - 1) * sizeof(c->l_fifo[0]));
	c->l_fifo_len--;
	if (c->cfg.path == PATH_LEGACY) {
		METER(interop_meter,
		      res = CU(cuStreamSynchronize)(c->l_stream[f.slot]));
		if (res != CUDA_SUCCESS)
			return cu_check(res, "cuStreamSynchronize");
	}
	present_texture(c, c->l_out_tex[f.slot], f.n);
	return 0;
}

int
legacy_frame_fn(struct run_ctx *c, uint64_t n)
{
	unsigned int depth = c->cfg.depth ? c->cfg.depth : 1;
	unsigned int s = (unsigned int)(n % depth);
	CUarray arr[2];
	CUsurfObject surf[2];
	CUresult res;
	int r = 0;

	if (pace_wait() < 0)
		return -1;
	/* Slot s's previous frame was composited when `depth` frames were in
	 * flight: its textures are free (GL's reads of them are ordered before
	 * the next map). */
	gl_render(c->l_in_fbo[s], c->g, n);
	METER(interop_meter,
	      res = CU(cuGraphicsMapResources)(2, c->res[s], c->l_stream[s]));
	if (res != CUDA_SUCCESS)
		return cu_check(res, "cuGraphicsMapResources");
	METER(interop_meter, {
		for (int i = 0; i < 2 && r == 0; i++) {
			res = CU(cuGraphicsSubResourceGetMappedArray)(
				&arr[i], c->res[s][i], 0, 0);
			if (res != CUDA_SUCCESS)
				r = cu_check(
					res,
					"cuGraphicsSubResourceGetMappedArray");
			else
				r = legacy_surface(c, s, i, arr[i], &surf[i]);
		}
	});
	if (r < 0)
		return -1;
	if (run_kernel(c->g, c->kernel, surf[0], surf[1], s, c->l_stream[s]) <
	    0)
		return -1;
	METER(interop_meter,
	      res = CU(cuGraphicsUnmapResources)(2, c->res[s], c->l_stream[s]));
	if (res != CUDA_SUCCESS)
		return cu_check(res, "cuGraphicsUnmapResources");
	c->l_fifo[c->l_fifo_len++] = (struct legacy_frame){ .slot = s, .n = n };
	if (c->l_fifo_len >= depth && legacy_present_oldest(c) < 0)
		return -1;
	pace_push();
	return 0;
}

int
legacy_drain(struct run_ctx *c)
{
	while (c->l_fifo_len)
		if (legacy_present_oldest(c) < 0)
			return -1;
	return 0;
}

void
legacy_teardown(struct run_ctx *c)
{
	for (unsigned int s = 0; s < MAX_DEPTH; s++) {
		if (c->l_stream[s])
			CU(cuStreamSynchronize)(c->l_stream[s]);
		for (int i = 0; i < 2; i++) {
			if (c->cached_surface[s][i])
				CU(cuSurfObjectDestroy)
				(c->cached_surface[s][i]);
			c->cached_surface[s][i] = 0;
			if (c->res[s][i])
				CU(cuGraphicsUnregisterResource)(c->res[s][i]);
			c->res[s][i] = NULL;
		}
		if (c->l_stream[s])
			CU(cuStreamDestroy)(c->l_stream[s]);
		c->l_stream[s] = NULL;
		gl_delete_target(&c->l_in_tex[s], &c->l_in_fbo[s]);
		gl_delete_target(&c->l_out_tex[s], NULL);
	}
}

/* wrap-gl, wrap-egl ----------------------------------------------------- */

/* The legacy path's two GL textures, wrapped by glcuda (or EGLImages made
 * from them, wrapped), handed off both at once each way per frame. */
int
wrap_setup(struct run_ctx *c)
{
	GLuint tex[2];
	int r;

	c->dev = main_dev;
	if (gl_make_target(c->g, c->g->internal_format, &c->in_tex,
			   &c->in_fbo) < 0 ||
	    gl_make_target(c->g, c->g->internal_format, &c->out_tex, NULL) < 0)
		return -1;
	CU_TRY(cuStreamCreate, &c->stream, CU_STREAM_NON_BLOCKING);
	tex[0] = c->in_tex;
	tex[1] = c->out_tex;
	for (int i = 0; i < 2; i++) {
		if (c->cfg.path == PATH_WRAP_EGL) {
			c->egl_image[i] = eglCreateImage(
				main_dpy, eglGetCurrentContext(),
				EGL_GL_TEXTURE_2D,
				(EGLClientBuffer)(uintptr_t)tex[i], NULL);
			if (c->egl_image[i] == EGL_NO_IMAGE)
				return fail("eglCreateImage "
					    "(EGL_GL_TEXTURE_2D): EGL error "
					    "0x%x", eglGetError());
			r = glcuda_image_wrap_egl_image(
				main_dev, c->egl_image[i],
				GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE, &c->img[i]);
			if (r < 0)
				return glcuda_check(
					r, "glcuda_image_wrap_egl_image");
		} else {
			r = glcuda_image_wrap_gl_texture(
				main_dev, tex[i], GL_TEXTURE_2D,
				GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE, &c->img[i]);
			if (r < 0)
				return glcuda_check(
					r, "glcuda_image_wrap_gl_texture");
		}
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
	METER(interop_meter,
	      r = glcuda_handoff_to_cuda(main_dev, c->img, 2, c->stream));
	if (r < 0)
		return glcuda_check(r, "glcuda_handoff_to_cuda");
	/* Read after the hand-off: valid while the images are CUDA's. */
	if (run_kernel(c->g, c->kernel,
		       glcuda_image_get_cuda_surface(c->img[0]),
		       glcuda_image_get_cuda_surface(c->img[1]), 0,
		       c->stream) < 0)
		return -1;
	METER(interop_meter,
	      r = glcuda_handoff_to_gl(main_dev, c->img, 2, c->stream));
	if (r < 0)
		return glcuda_check(r, "glcuda_handoff_to_gl");
	present_texture(c, c->out_tex, n);
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

/* readback -------------------------------------------------------------- */

size_t
frame_bytes(const struct group *g)
{
	return (size_t)g->width * g->height * g->bpp;
}

/*
 * The readback at its strongest: a three-stage pipeline with a slot per
 * stage, every frame composited.
 *   frame n      glReadPixels into pack PBO n % 3, then a fence;
 *   frame n - 1  wait for its fence (GL finished the read long ago: the CPU
 *                never waits for the frame it just rendered), map the PBO,
 *                memcpy into pinned staging memory (cuMemAllocHost), unmap,
 *                cuMemcpy2DAsync from the pinned memory into a CUDA array,
 *                kernel, cuMemcpy2DAsync back into pinned memory, a CUDA
 *                event;
 *   frame n - 2  once its event has completed (cuEventQuery; waited for
 *                with cuEventSynchronize only if still running when it is
 *                two frames old), glBufferSubData from the pinned result
 *                into unpack PBO n % 3, glTexSubImage2D from that bound
 *                GL_PIXEL_UNPACK_BUFFER into that slot's texture, composite.
 * The CUDA copies come from and go to pinned memory, so they are real DMA
 * that runs asynchronously; GL's read and upload go through PBOs, so
 * neither stalls the GL thread on the GPU.
 */
int
readback_setup(struct run_ctx *c)
{
	size_t bytes = frame_bytes(c->g);

	if (gl_make_target(c->g, c->g->internal_format, &c->in_tex,
			   &c->in_fbo) < 0)
		return -1;
	glGenBuffers(READBACK_SLOTS, c->pack_pbo);
	glGenBuffers(READBACK_SLOTS, c->unpack_pbo);
	for (int i = 0; i < READBACK_SLOTS; i++) {
		if (gl_make_target(c->g, c->g->internal_format,
				   &c->rb_out_tex[i], NULL) < 0)
			return -1;
		glBindBuffer(GL_PIXEL_PACK_BUFFER, c->pack_pbo[i]);
		glBufferData(GL_PIXEL_PACK_BUFFER, (GLsizeiptr)bytes, NULL,
			     GL_STREAM_READ);
		glBindBuffer(GL_PIXEL_UNPACK_BUFFER, c->unpack_pbo[i]);
		glBufferData(GL_PIXEL_UNPACK_BUFFER, (GLsizeiptr)bytes, NULL,
			     GL_STREAM_DRAW);
	}
	glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
	glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
	if (gl_check("creating the PBOs") < 0)
		return -1;
	if (cuda_images_setup(c, false) < 0)
		return -1;
	for (int i = 0; i < READBACK_SLOTS; i++) {
		CU_TRY(cuMemAllocHost, &c->pinned_in[i], bytes);
		CU_TRY(cuMemAllocHost, &c->pinned_out[i], bytes);
		CU_TRY(cuEventCreate, &c->rb_event[i], CU_EVENT_DISABLE_TIMING);
	}
	c->rb_read = c->rb_copied = c->rb_uploaded = 0;
	return 0;
}

/* Stage 1: GL reads the frame just rendered into its pack PBO. */
static int
readback_read(struct run_ctx *c)
{
	const struct group *g = c->g;
	unsigned int s = (unsigned int)(c->rb_read % READBACK_SLOTS);

	METER(interop_meter, {
		glBindFramebuffer(GL_READ_FRAMEBUFFER, c->in_fbo);
		glReadBuffer(GL_COLOR_ATTACHMENT0);
		glBindBuffer(GL_PIXEL_PACK_BUFFER, c->pack_pbo[s]);
		glPixelStorei(GL_PACK_ALIGNMENT, 4);
		glReadPixels(0, 0, (GLsizei)g->width, (GLsizei)g->height,
			     GL_RGBA, g->pixel_type, NULL);
		glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
		glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
		c->pack_fence[s] =
			glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
	});
	c->rb_read++;
	return 0;
}

/* Stage 2: the frame one step back goes through CUDA. */
static int
readback_copy(struct run_ctx *c)
{
	const struct group *g = c->g;
	unsigned int s = (unsigned int)(c->rb_copied % READBACK_SLOTS);
	size_t row = (size_t)g->width * g->bpp, bytes = frame_bytes(g);
	CUDA_MEMCPY2D up, down;
	CUresult res = CUDA_SUCCESS;
	GLenum wr = GL_ALREADY_SIGNALED;
	void *mapped = NULL;

	memset(&up, 0, sizeof(up));
	up.srcMemoryType = CU_MEMORYTYPE_HOST;
	up.srcHost = c->pinned_in[s];
	up.srcPitch = row;
	up.dstMemoryType = CU_MEMORYTYPE_ARRAY;
	up.dstArray = glcuda_image_get_cuda_array(c->img[0]);
	up.WidthInBytes = row;
	up.Height = g->height;
	memset(&down, 0, sizeof(down));
	down.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	down.srcArray = glcuda_image_get_cuda_array(c->img[1]);
	down.dstMemoryType = CU_MEMORYTYPE_HOST;
	down.dstHost = c->pinned_out[s];
	down.dstPitch = row;
	down.WidthInBytes = row;
	down.Height = g->height;

	METER(interop_meter, {
		wr = glClientWaitSync(c->pack_fence[s],
				      GL_SYNC_FLUSH_COMMANDS_BIT,
				      10000000000ull);
		glDeleteSync(c->pack_fence[s]);
		c->pack_fence[s] = NULL;
		if (wr != GL_TIMEOUT_EXPIRED && wr != GL_WAIT_FAILED) {
			glBindBuffer(GL_PIXEL_PACK_BUFFER, c->pack_pbo[s]);
			mapped = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0,
						  (GLsizeiptr)bytes,
						  GL_MAP_READ_BIT);
			if (mapped) {
				memcpy(c->pinned_in[s], mapped, bytes);
				glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
			}
			glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
			if (mapped)
				res = CU(cuMemcpy2DAsync)(&up, c->stream);
		}
	});
	if (wr == GL_TIMEOUT_EXPIRED)
		return fail("GL did not finish a readback within 10 s (GPU "
			    "hang?)");
	if (wr == GL_WAIT_FAILED)
		return gl_check("waiting for a readback") < 0
			       ? -1
			       : fail("glClientWaitSync failed");
	if (!mapped)
		return gl_check("mapping the PBO") < 0 ? -1
						       : fail("glMapBufferRange"
							      " returned NULL");
	if (res != CUDA_SUCCESS)
		return cu_check(res, "cuMemcpy2DAsync (pinned memory to "
				     "array)");
	if (run_kernel(g, c->kernel, glcuda_image_get_cuda_surface(c->img[0]),
		       glcuda_image_get_cuda_surface(c->img[1]), 0,
		       c->stream) < 0)
		return -1;
	METER(interop_meter, {
		res = CU(cuMemcpy2DAsync)(&down, c->stream);
		if (res == CUDA_SUCCESS)
			res = CU(cuEventRecord)(c->rb_event[s], c->stream);
	});
	if (res != CUDA_SUCCESS)
		return cu_check(res, "cuMemcpy2DAsync (array to pinned memory) "
				     "or cuEventRecord");
	c->rb_copied++;
	return 0;
}

/* Stage 3: upload and composite the oldest frame CUDA has finished; with
 * `wait`, wait for it if it has not. Returns 1 if a frame was composited. */
static int
readback_upload(struct run_ctx *c, bool wait)
{
	const struct group *g = c->g;
	unsigned int s = (unsigned int)(c->rb_uploaded % READBACK_SLOTS);
	CUresult res;

	if (c->rb_uploaded == c->rb_copied)
		return 0;
	METER(interop_meter, {
		res = CU(cuEventQuery)(c->rb_event[s]);
		if (res == CUDA_ERROR_NOT_READY && wait)
			res = CU(cuEventSynchronize)(c->rb_event[s]);
	});
	if (res == CUDA_ERROR_NOT_READY)
		return 0;
	if (res != CUDA_SUCCESS)
		return cu_check(res, "cuEventQuery / cuEventSynchronize");
	METER(interop_meter, {
		glBindBuffer(GL_PIXEL_UNPACK_BUFFER, c->unpack_pbo[s]);
		glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0,
				(GLsizeiptr)frame_bytes(g), c->pinned_out[s]);
		glBindTexture(GL_TEXTURE_2D, c->rb_out_tex[s]);
		glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
		glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)g->width,
				(GLsizei)g->height, GL_RGBA, g->pixel_type,
				NULL);
		glBindTexture(GL_TEXTURE_2D, 0);
		glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
	});
	present_texture(c, c->rb_out_tex[s], c->rb_uploaded);
	c->rb_uploaded++;
	return 1;
}

int
readback_frame_fn(struct run_ctx *c, uint64_t n)
{
	int r;

	if (pace_wait() < 0)
		return -1;
	if (n != c->rb_read)
		return fail("readback: frame %llu out of order (bench bug)",
			    (unsigned long long)n);
	gl_render(c->in_fbo, c->g, n);
	if (readback_read(c) < 0)
		return -1;
	/* One step back only: the frame rendered last call. */
	if (c->rb_read - c->rb_copied > 1 && readback_copy(c) < 0)
		return -1;
	/* Everything CUDA has finished, and at least the frame two steps
	 * back: the slots come round again after three frames. */
	while ((r = readback_upload(c, c->rb_copied - c->rb_uploaded > 1)) == 1)
		;
	if (r < 0)
		return -1;
	pace_push();
	return 0;
}

int
readback_drain(struct run_ctx *c)
{
	while (c->rb_copied < c->rb_read)
		if (readback_copy(c) < 0)
			return -1;
	while (c->rb_uploaded < c->rb_copied)
		if (readback_upload(c, true) < 0)
			return -1;
	return 0;
}

void
readback_teardown(struct run_ctx *c)
{
	for (int i = 0; i < READBACK_SLOTS; i++) {
		if (c->pinned_in[i])
			CU(cuMemFreeHost)(c->pinned_in[i]);
		if (c->pinned_out[i])
			CU(cuMemFreeHost)(c->pinned_out[i]);
		c->pinned_in[i] = c->pinned_out[i] = NULL;
		if (c->rb_event[i])
			CU(cuEventDestroy)(c->rb_event[i]);
		c->rb_event[i] = NULL;
		if (c->pack_fence[i])
			glDeleteSync(c->pack_fence[i]);
		c->pack_fence[i] = NULL;
		gl_delete_target(&c->rb_out_tex[i], NULL);
	}
	cuda_images_teardown(c);
	if (c->pack_pbo[0])
		glDeleteBuffers(READBACK_SLOTS, c->pack_pbo);
	if (c->unpack_pbo[0])
		glDeleteBuffers(READBACK_SLOTS, c->unpack_pbo);
	memset(c->pack_pbo, 0, sizeof(c->pack_pbo));
	memset(c->unpack_pbo, 0, sizeof(c->unpack_pbo));
	gl_teardown(c);
}

/* The harness ----------------------------------------------------------- */

const struct path_ops path_ops[PATH_COUNT] = {
	[PATH_GL] = { gl_setup, gl_frame_fn, NULL, gl_teardown },
	[PATH_CUDA] = { cuda_setup, cuda_frame_fn, NULL, cuda_teardown },
	[PATH_LEGACY] = { legacy_setup, legacy_frame_fn, legacy_drain,
			  legacy_teardown },
	[PATH_LEGACY_NOSYNC] = { legacy_setup, legacy_frame_fn, legacy_drain,
				 legacy_teardown },
	[PATH_READBACK] = { readback_setup, readback_frame_fn, readback_drain,
			    readback_teardown },
	[PATH_WRAP_GL] = { wrap_setup, wrap_frame_fn, NULL, wrap_teardown },
	[PATH_WRAP_EGL] = { wrap_setup, wrap_frame_fn, NULL, wrap_teardown },
	[PATH_BARE] = { bare_setup, bare_frame_fn, bare_drain, bare_teardown },
	[PATH_GLCUDA] = { glcuda_setup, glcuda_frame_fn, glcuda_drain,
			  glcuda_teardown },
};
