/*
 * glcuda-bench: meters, errors, devices, the plan and one measured run
 * of a configuration.
 * SPDX-License-Identifier: MIT
 */
#include "bench.h"

/* ---------------------------------------------------------------------- */
/* Clocks, meters, errors                                                   */

struct meter interop_meter, pacing_meter;

char run_error[1024];

int GLCUDA_PRINTF(1, 2)
fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(run_error, sizeof(run_error), fmt, ap);
	va_end(ap);
	return -1;
}

int
cu_check(CUresult res, const char *call)
{
	char buf[256];
	if (res == CUDA_SUCCESS)
		return 0;
	return fail("%s: %s", call, tools_cuda_result(res, buf, sizeof(buf)));
}

int
glcuda_check(int ret, const char *call)
{
	if (ret >= 0)
		return 0;
	return fail("%s: %s (%s): %s", call, glcuda_error_get_name(ret),
		    glcuda_strerror(ret), glcuda_get_last_error());
}

int
gl_check(const char *what)
{
	GLenum err = glGetError(), first = err;
	if (err == GL_NO_ERROR)
		return 0;
	while (err != GL_NO_ERROR)
		err = glGetError();
	return fail("GL error 0x%04x %s", first, what);
}

/* ---------------------------------------------------------------------- */
/* Configurations, runs, results                                            */

struct glcuda_device *main_dev;
EGLDisplay main_dpy;
struct mode_device mode_devs[ARRAY_LENGTH(all_modes)];

struct glcuda_device *
device_for_mode(enum glcuda_sync_mode mode, const char **why)
{
	for (unsigned int i = 0; i < ARRAY_LENGTH(mode_devs); i++)
		if (mode_devs[i].mode == mode) {
			if (!mode_devs[i].dev && why)
				*why = mode_devs[i].error;
			return mode_devs[i].dev;
		}
	if (why)
		*why = "mode not selected";
	return NULL;
}

const char *
mode_name(enum glcuda_sync_mode m)
{
	return glcuda_sync_mode_get_name(m);
}

/* A short id for CSVs and plots: no spaces, no commas. */
void
config_id(const struct config *c, char *buf, size_t size)
{
	if (c->path == PATH_GLCUDA)
		snprintf(buf, size, "glcuda-%s-%s%u", mode_name(c->mode),
			 policy_names[c->policy], c->depth);
	else if (c->path == PATH_LEGACY || c->path == PATH_LEGACY_NOSYNC ||
		 c->path == PATH_BARE)
		snprintf(buf, size, "%s-%u", path_names[c->path], c->depth);
	else
		snprintf(buf, size, "%s", path_names[c->path]);
}

/* The label of a table row. */
void
config_label(const struct config *c, char *buf, size_t size)
{
	switch (c->path) {
	case PATH_GL:
		snprintf(buf, size, "GL alone (render + composite)");
		break;
	case PATH_CUDA:
		snprintf(buf, size, "CUDA kernel alone (GPU time)");
		break;
	case PATH_LEGACY:
		if (c->depth <= 1)
			snprintf(buf, size,
				 "legacy: map, kernel, unmap, "
				 "cuStreamSynchronize");
		else
			snprintf(buf, size,
				 "legacy, %u in flight (%u texture pairs and "
				 "streams), cuStreamSynchronize on the oldest",
				 c->depth, c->depth);
		break;
	case PATH_LEGACY_NOSYNC:
		if (c->depth <= 1)
			snprintf(buf, size,
				 "legacy without cuStreamSynchronize");
		else
			snprintf(buf, size,
				 "legacy without cuStreamSynchronize, %u in "
				 "flight",
				 c->depth);
		break;
	case PATH_READBACK:
		snprintf(buf, size,
			 "readback: %d-stage PBO / pinned-memory pipeline",
			 READBACK_SLOTS);
		break;
	case PATH_WRAP_GL:
		snprintf(buf, size, "glcuda, wrapped GL textures (map/unmap)");
		break;
	case PATH_WRAP_EGL:
		snprintf(buf, size,
			 "glcuda, wrapped EGLImages (timeline semaphores)");
		break;
	case PATH_BARE:
		if (c->depth <= 1)
			snprintf(buf, size,
				 "bare: glcuda's driver calls (timeline) by "
				 "hand, GL waits at once");
		else
			snprintf(buf, size,
				 "bare: glcuda's driver calls (timeline) by "
				 "hand, %u in flight, GL waits for the oldest",
				 c->depth);
		break;
	case PATH_GLCUDA:
		if (c->depth == 1 && c->policy == POLICY_WAIT)
			snprintf(buf, size, "glcuda %s, GL waits at once",
				 mode_name(c->mode));
		else if (c->policy == POLICY_WAIT)
			snprintf(buf, size,
				 "glcuda %s, %u in flight, GL waits for the "
				 "oldest",
				 mode_name(c->mode), c->depth);
		else if (c->policy == POLICY_READY)
			snprintf(buf, size,
				 "glcuda %s, %u in flight, GL waits for the "
				 "ready oldest",
				 mode_name(c->mode), c->depth);
		else if (c->policy == POLICY_BATCH)
			snprintf(buf, size,
				 "glcuda %s, batches of %u frames (one switch "
				 "each way)",
				 mode_name(c->mode), c->depth);
		else
			snprintf(buf, size,
				 "glcuda %s, %u in flight, take newest ready "
				 "(drops frames)",
				 mode_name(c->mode), c->depth);
		break;
	default:
		snprintf(buf, size, "?");
	}
}

/* glcuda ------------------------------------------------------------------ */

/* Wait for everything queued on both sides: between runs, never measured. */
int
settle(void)
{
	glFinish();
	if (tools_cuda_loaded() && cu.pushed)
		if (cu_check(CU(cuCtxSynchronize)(), "cuCtxSynchronize") < 0)
			return -1;
	return 0;
}

void
frame_stats(double *ft, unsigned int n, struct run_result *out)
{
	qsort(ft, n, sizeof(*ft), stats_cmp_double);
	out->p50_us = stats_percentile(ft, n, 50);
	out->p99_us = stats_percentile(ft, n, 99);
}

/* Draw a frame's output into the screen texture and count it: the frames
 * a path composites, not those it produced, are its throughput. */
void
present_texture(struct run_ctx *c, GLuint tex, uint64_t frame)
{
	gl_composite(tex, c->g);
	c->composited_total++;
	if (c->measuring)
		c->composited++;
	c->have_last = true;
	c->last_tex = tex;
	c->last_frame = frame;
}

/* Read a texture of the group's size and format back to host memory,
 * through a framebuffer of our own; the bindings touched are restored. */
static int
read_texture(GLuint tex, const struct group *g, void *dst)
{
	GLint read_fbo = 0, pack_buf = 0, pack_align = 4;
	GLuint fbo;
	GLenum status;

	glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_fbo);
	glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack_buf);
	glGetIntegerv(GL_PACK_ALIGNMENT, &pack_align);
	glGenFramebuffers(1, &fbo);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
	glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, tex, 0);
	status = glCheckFramebufferStatus(GL_READ_FRAMEBUFFER);
	if (status == GL_FRAMEBUFFER_COMPLETE) {
		glReadBuffer(GL_COLOR_ATTACHMENT0);
		glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
		glPixelStorei(GL_PACK_ALIGNMENT, 4);
		glReadPixels(0, 0, (GLsizei)g->width, (GLsizei)g->height,
			     GL_RGBA, g->pixel_type, dst);
	}
	glPixelStorei(GL_PACK_ALIGNMENT, pack_align);
	glBindBuffer(GL_PIXEL_PACK_BUFFER, (GLuint)pack_buf);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)read_fbo);
	glDeleteFramebuffers(1, &fbo);
	if (status != GL_FRAMEBUFFER_COMPLETE)
		return fail("verification: texture %u cannot be read "
			    "(framebuffer status 0x%04x)",
			    tex, status);
	return gl_check("reading a frame back");
}

/* The expected output of a frame: GL renders the frame's pattern into a
 * target of its own, glReadPixels brings it to the host, it is uploaded
 * into a glcuda image (glTexSubImage2D while GL's), handed to CUDA, the
 * same kernel runs on a stream of its own, the output is handed back and
 * read with glReadPixels. Each step is waited for on the CPU, so the
 * reference depends on no GPU-side ordering of the paths under test. The
 * upload goes through GL rather than cuMemcpy2D into the array because
 * the fake CUDA driver of the tests copies no CUDA arrays. One frame's
 * reference is kept: runs of the same row end on the same frame. */
static struct {
	const struct group *g;
	enum kernel_kind k;
	uint64_t frame;
	unsigned char *data;
	size_t size;
	bool valid;
} ref;

static int
reference_frame(const struct group *g, enum kernel_kind k, uint64_t frame,
		const unsigned char **out)
{
	size_t bytes = frame_bytes(g);
	struct glcuda_image *img[2] = { NULL, NULL };
	struct glcuda_image_desc desc;
	GLuint tex = 0, fbo = 0;
	GLint tex_binding = 0, unpack_buf = 0, unpack_align = 4;
	CUstream stream = NULL;
	unsigned char *host = NULL;
	bool on_cuda = false;
	int r, ret = -1;

	if (ref.valid && ref.g == g && ref.k == k && ref.frame == frame) {
		*out = ref.data;
		return 0;
	}
	ref.valid = false;
	if (ref.size != bytes) {
		free(ref.data);
		ref.data = malloc(bytes);
		ref.size = ref.data ? bytes : 0;
	}
	host = malloc(bytes);
	if (!ref.data || !host) {
		free(host);
		return fail("out of memory");
	}
	if (gl_make_target(g, g->internal_format, &tex, &fbo) < 0)
		goto out;
	gl_render(fbo, g, frame);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	if (read_texture(tex, g, host) < 0)
		goto out;
	glcuda_image_desc_init(&desc);
	desc.width = g->width;
	desc.height = g->height;
	desc.format = g->format;
	desc.flags = GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE;
	for (int i = 0; i < 2; i++) {
		r = glcuda_image_new(main_dev, &desc, &img[i]);
		if (r < 0) {
			glcuda_check(r, "verification: glcuda_image_new");
			goto out;
		}
	}
	glGetIntegerv(GL_TEXTURE_BINDING_2D, &tex_binding);
	glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &unpack_buf);
	glGetIntegerv(GL_UNPACK_ALIGNMENT, &unpack_align);
	glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
	glBindTexture(GL_TEXTURE_2D, glcuda_image_get_gl_texture(img[0]));
	glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)g->width,
			(GLsizei)g->height, GL_RGBA, g->pixel_type, host);
	glBindTexture(GL_TEXTURE_2D, (GLuint)tex_binding);
	glBindBuffer(GL_PIXEL_UNPACK_BUFFER, (GLuint)unpack_buf);
	glPixelStorei(GL_UNPACK_ALIGNMENT, unpack_align);
	if (gl_check("verification: uploading the reference input") < 0)
		goto out;
	glFinish();
	if (cu_check(CU(cuStreamCreate)(&stream, CU_STREAM_NON_BLOCKING),
		     "cuStreamCreate") < 0) {
		stream = NULL;
		goto out;
	}
	r = glcuda_handoff_to_cuda(main_dev, img, 2, stream);
	if (r < 0) {
		glcuda_check(r, "verification: glcuda_handoff_to_cuda");
		goto out;
	}
	on_cuda = true;
	if (run_kernel(g, k, glcuda_image_get_cuda_surface(img[0]),
		       glcuda_image_get_cuda_surface(img[1]), 0, stream) < 0)
		goto out;
	if (cu_check(CU(cuStreamSynchronize)(stream), "cuStreamSynchronize") <
	    0)
		goto out;
	r = glcuda_handoff_to_gl(main_dev, img, 2, stream);
	on_cuda = false;
	if (r < 0) {
		glcuda_check(r, "verification: glcuda_handoff_to_gl");
		goto out;
	}
	if (cu_check(CU(cuStreamSynchronize)(stream), "cuStreamSynchronize") <
	    0)
		goto out;
	if (read_texture(glcuda_image_get_gl_texture(img[1]), g, ref.data) < 0)
		goto out;
	ref.g = g;
	ref.k = k;
	ref.frame = frame;
	ref.valid = true;
	*out = ref.data;
	ret = 0;
out:
	if (stream)
		CU(cuStreamSynchronize)(stream);
	if (on_cuda)
		glcuda_handoff_to_gl(main_dev, img, 2, stream);
	for (int i = 0; i < 2; i++)
		glcuda_image_destroy(img[i]);
	if (stream)
		CU(cuStreamDestroy)(stream);
	gl_delete_target(&tex, &fbo);
	free(host);
	return ret;
}

int
verify_run(struct run_ctx *c)
{
	const struct group *g = c->g;
	size_t bytes = frame_bytes(g);
	const unsigned char *want = NULL;
	unsigned char *got;
	int ret = -1;

	if (c->cfg.path == PATH_GL)
		return 0;
	if (!c->have_last)
		return fail("verification: no frame was composited");
	got = malloc(bytes);
	if (!got)
		return fail("out of memory");
	/* Read before anything waits on the CPU: the read is ordered after
	 * the last composite, so after the GL wait (or unmap, or upload) the
	 * path enqueued for that frame and nothing else. */
	if (c->cfg.path == PATH_CUDA) {
		/* img[1] to the host: handed back to GL, then read by GL. */
		int r = glcuda_handoff_to_gl(main_dev, c->img, 2, c->stream);
		c->img_on_cuda = false;
		if (r < 0) {
			glcuda_check(r, "verification: glcuda_handoff_to_gl");
			goto out;
		}
		if (read_texture(glcuda_image_get_gl_texture(c->img[1]), g,
				 got) < 0)
			goto out;
	} else if (read_texture(c->last_tex, g, got) < 0) {
		goto out;
	}
	/* The reference's kernel must not share the blur scratch with frames
	 * still running. */
	if (settle() < 0)
		goto out;
	if (reference_frame(g, c->kernel, c->last_frame, &want) < 0)
		goto out;
	if (memcmp(got, want, bytes) != 0) {
		size_t first = bytes, bad = 0;
		char gs[40] = "", ws[40] = "";

		for (size_t i = 0; i < bytes; i += g->bpp)
			if (memcmp(got + i, want + i, g->bpp) != 0) {
				if (first == bytes)
					first = i;
				bad++;
			}
		for (unsigned int b = 0; b < g->bpp; b++) {
			snprintf(gs + 2 * b, sizeof(gs) - 2 * b, "%02x",
				 got[first + b]);
			snprintf(ws + 2 * b, sizeof(ws) - 2 * b, "%02x",
				 want[first + b]);
		}
		fail("verification: frame %llu differs from the reference at "
		     "(%zu, %zu): got %s, want %s (%zu of %u pixels differ)",
		     (unsigned long long)c->last_frame,
		     first / g->bpp % g->width, first / g->bpp / g->width, gs,
		     ws, bad, g->width * g->height);
		goto out;
	}
	ret = 0;
out:
	free(got);
	return ret;
}

int
run_once(const struct group *g, enum kernel_kind k, const struct config *cfg,
	 bool timings, unsigned int frames, struct run_result *out)
{
	const struct path_ops *ops = &path_ops[cfg->path];
	struct run_ctx c;
	double *ft = NULL;
	uint64_t t_start = 0, t_prev, t, cpu0, max_ns;
	unsigned int n = 0, composited, produced_total;
	int ret = -1;

	memset(&c, 0, sizeof(c));
	memset(out, 0, sizeof(*out));
	c.g = g;
	c.kernel = k;
	c.cfg = *cfg;
	c.timings = timings;
	run_error[0] = '\0';

	ft = calloc(frames, sizeof(*ft));
	if (!ft)
		return fail("out of memory");
	if (settle() < 0)
		goto out;
	if (ops->setup(&c) < 0)
		goto out;
	if (gl_check("setting up") < 0)
		goto out;

	for (uint64_t i = 0; i < opt.warmup; i++)
		if (ops->frame(&c, i) < 0)
			goto out;

	memset(&interop_meter, 0, sizeof(interop_meter));
	memset(&pacing_meter, 0, sizeof(pacing_meter));
	c.measuring = true;
	if (c.ring)
		c.dropped_at_start = glcuda_ring_get_dropped(c.ring);
	if (cfg->path == PATH_CUDA)
		frames =
			frames < c.event_count - 1 ? frames : c.event_count - 1;
	max_ns = (uint64_t)(opt.max_seconds * 1e9);
	cpu0 = clock_process_cpu_ns();
	t_start = t_prev = clock_now_ns();
	while (n < frames) {
		if (ops->frame(&c, opt.warmup + n) < 0)
			goto out;
		t = clock_now_ns();
		ft[n++] = (double)(t - t_prev) / 1e3;
		t_prev = t;
		if (n >= opt.min_frames && t - t_start > max_ns)
			break;
	}
	composited = c.composited;
	out->process_cpu_us = (double)(clock_process_cpu_ns() - cpu0) / 1e3;
	out->seconds = (double)(t_prev - t_start) / 1e9;
	if (c.ring)
		out->dropped =
			glcuda_ring_get_dropped(c.ring) - c.dropped_at_start;

	if (ops->drain && ops->drain(&c) < 0)
		goto out;
	/* Every frame produced, warm-up included, is composited by the end of
	 * the drain unless the path dropped some. A path that drops nothing
	 * composites exactly the frames it produced while measuring, a
	 * bounded number of frames later (the ready policy composites a
	 * varying number per frame: counting its composites inside the window
	 * would add noise, not information). */
	produced_total = opt.warmup + n;
	if (cfg->path != PATH_CUDA && c.composited_total < produced_total) {
		out->drop_pct = 100.0 * (produced_total - c.composited_total) /
				produced_total;
	} else {
		composited = n;
		out->drop_pct = 0;
	}
	if (composited == 0)
		composited = 1;
	out->frames = n;
	out->composited = composited;
	out->process_cpu_us /= composited;
	out->interop_cpu_us = (double)interop_meter.cpu_ns / 1e3 / composited;
	out->interop_wall_us = (double)interop_meter.wall_ns / 1e3 / composited;
	out->blocked_us = out->interop_wall_us > out->interop_cpu_us
		? out->interop_wall_us - out->interop_cpu_us : 0;
	out->pacing_us = (double)pacing_meter.wall_ns / 1e3 / composited;
	out->mean_us = (double)(t_prev - t_start) / 1e3 / composited;
	out->fps = 1e6 / out->mean_us;
	out->produced_fps = n / out->seconds;

	if (verify_run(&c) < 0)
		goto out;
	out->verified = cfg->path != PATH_GL;
	if (settle() < 0)
		goto out;

	if (cfg->path == PATH_CUDA) {
		/* GPU time between consecutive events: what the kernels cost,
		 * without the launch overhead of one frame at a time. */
		unsigned int ne = c.event_next;
		float ms = 0;
		if (ne < 2)
			goto stats_wall;
		if (cu_check(CU(cuEventElapsedTime)(&ms, c.events[0],
						    c.events[ne - 1]),
			     "cuEventElapsedTime") < 0)
			goto out;
		n = ne - 1;
		out->mean_us = (double)ms * 1e3 / n;
		out->fps = out->produced_fps = 1e6 / out->mean_us;
		for (unsigned int i = 1; i < ne; i++) {
			if (cu_check(CU(cuEventElapsedTime)(&ms,
							    c.events[i - 1],
							    c.events[i]),
				     "cuEventElapsedTime") < 0)
				goto out;
			ft[i - 1] = (double)ms * 1e3;
		}
	}
stats_wall:
	frame_stats(ft, n, out);
	if (c.timings) {
		if (ring_collect_timings(&c) < 0)
			goto out;
		out->timing_count = c.timing_count;
		if (c.timing_count) {
			out->to_cuda_us = c.sum_to_cuda / c.timing_count;
			out->to_gl_us = c.sum_to_gl / c.timing_count;
			out->cuda_us = c.sum_cuda / c.timing_count;
			out->gl_render_us = c.sum_gl_render / c.timing_count;
			out->gpu_total_us = c.sum_total / c.timing_count;
		}
	}
	if (gl_check("during the run") < 0)
		goto out;
	out->ok = true;
	ret = 0;
out:
	/* Make sure nothing of this run is still running before its objects
	 * go: the next run starts from an idle GPU. */
	settle();
	ops->teardown(&c);
	pace_reset();
	if (gl_check("tearing down") < 0 && ret == 0)
		ret = -1;
	free(ft);
	if (ret < 0 && !run_error[0])
		fail("failed without a message");
	return ret;
}

/* ---------------------------------------------------------------------- */
/* The plan                                                                 */

uint64_t start_ns;
struct row *rows;
unsigned int row_count, row_cap;

struct row *
add_row(const struct group *g, enum kernel_kind k, struct config cfg)
{
	struct row *r;

	if (row_count == row_cap) {
		unsigned int cap = row_cap ? row_cap * 2 : 64;
		struct row *n = realloc(rows, cap * sizeof(*n));
		if (!n) {
			fprintf(stderr, "glcuda-bench: out of memory\n");
			exit(1);
		}
		rows = n;
		row_cap = cap;
	}
	r = &rows[row_count++];
	memset(r, 0, sizeof(*r));
	r->group = g;
	r->kernel = k;
	r->cfg = cfg;
	return r;
}

/* Rows of one size and kernel, in table order. */
void
plan_rows(const struct group *g, enum kernel_kind k)
{
	static const enum path_kind order[] = {
		PATH_GL,       PATH_CUDA,	   PATH_READBACK,
		PATH_LEGACY,   PATH_LEGACY_NOSYNC, PATH_WRAP_GL,
		PATH_WRAP_EGL, PATH_BARE,
	};

	for (unsigned int i = 0; i < ARRAY_LENGTH(order); i++) {
		if (!(opt.paths & (1u << order[i])))
			continue;
		if (order[i] != PATH_LEGACY && order[i] != PATH_LEGACY_NOSYNC &&
		    order[i] != PATH_BARE) {
			add_row(g, k,
				(struct config){ .path = order[i],
						 .depth = 1 });
			continue;
		}
		/* Legacy and bare pipelined as deep as glcuda: the same
		 * depths. */
		for (unsigned int d = 1; d <= MAX_DEPTH; d++)
			if (opt.depths & (1u << d))
				add_row(g, k,
					(struct config){ .path = order[i],
							 .depth = d });
	}
	if (!(opt.paths & (1u << PATH_GLCUDA)))
		return;
	for (unsigned int m = 0; m < ARRAY_LENGTH(all_modes); m++) {
		if (!(opt.modes & (1u << all_modes[m])))
			continue;
		for (unsigned int p = 0; p < POLICY_COUNT; p++) {
			if (!(opt.policies & (1u << p)))
				continue;
			for (unsigned int d = 1; d <= MAX_DEPTH; d++) {
				if (!(opt.depths & (1u << d)))
					continue;
				/* Taking the newest ready frame, or waiting for
				 * the ready fd, with one frame in flight is a
				 * CPU wait for that frame: not a pipeline. */
				if (p != POLICY_WAIT && d == 1)
					continue;
				add_row(g, k,
					(struct config){ .path = PATH_GLCUDA,
							 .mode = all_modes[m],
							 .policy =
								 (enum policy)p,
							 .depth = d });
			}
		}
	}
}

/* Rough frame times (ms) on the GPU machine, from the 2026-11-29 results
 * (bench/results/) scaled by pixels and bytes: only for the duration
 * estimate. */
double
estimate_frame_ms(const struct group *g, const struct config *c,
		  enum kernel_kind k)
{
	double mpx = (double)g->width * g->height / 1e6;
	double scale = g->bpp / 4.0;
	double blur = k == KERNEL_BLUR ? 0.05 * mpx : 0;

	switch (c->path) {
	case PATH_GL:
		return 0.15 + 0.13 * mpx * scale;
	case PATH_CUDA:
		return 0.004 * mpx * scale + blur;
	case PATH_READBACK:
		/* The single-buffered readback took 2.3 ms per Mpx; the
		 * pipeline should not be slower. */
		return 2.3 * mpx * scale + blur;
	default:
		return 0.45 + 0.17 * mpx * scale + blur;
	}
}

/* Seconds outside the measured frames per run: setup (images, rings, one
 * registration per legacy slot) and the verification (a frame read back,
 * the reference computed once per row and frame, about two frames' worth
 * of GL and CUDA work and four full-frame transfers). */
static double
run_overhead_s(const struct group *g, const struct config *c)
{
	double mpx = (double)g->width * g->height / 1e6 * g->bpp / 4.0;
	double setup = 0.08;

	if (c->path == PATH_LEGACY || c->path == PATH_LEGACY_NOSYNC)
		setup += 0.01 * c->depth;
	if (c->path == PATH_READBACK)
		setup += 0.02 * mpx; /* pinned allocations */
	if (c->path == PATH_BARE)
		setup += 0.05; /* a Vulkan instance and device */
	return setup + (c->path == PATH_GL ? 0 : 0.02 + 0.02 * mpx);
}

double
estimate_seconds(void)
{
	double total = 0;

	for (unsigned int i = 0; i < row_count; i++) {
		const struct row *r = &rows[i];
		double ft =
			estimate_frame_ms(r->group, &r->cfg, r->kernel) / 1e3;
		double measured = opt.frames * ft;
		double over = run_overhead_s(r->group, &r->cfg);
		if (measured > opt.max_seconds)
			measured = opt.max_seconds;
		total += opt.reps * (measured + opt.warmup * ft + over);
		if (r->cfg.path == PATH_GLCUDA && opt.timing_frames)
			total += (opt.timing_frames < opt.frames
					  ? opt.timing_frames
					  : opt.frames) *
					 ft +
				 opt.warmup * ft + over;
	}
	/* devices, contexts, module, the screen textures */
	return total + 3.0 + 0.5 * opt.group_count;
}

/* ---------------------------------------------------------------------- */
