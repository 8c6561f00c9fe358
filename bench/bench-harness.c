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
	return fail("%s: %s (%s): %s", call, glcuda_error_get_name(ret), glcuda_strerror(ret),
		    glcuda_get_last_error());
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
		snprintf(buf, size, "legacy: map, kernel, unmap, cuStreamSynchronize");
		break;
	case PATH_LEGACY_NOSYNC:
		snprintf(buf, size, "legacy without cuStreamSynchronize");
		break;
	case PATH_READBACK:
		snprintf(buf, size, "readback: PBO, host, CUDA, host, glTexSubImage2D");
		break;
	case PATH_WRAP_GL:
		snprintf(buf, size, "glcuda, wrapped GL textures (map/unmap)");
		break;
	case PATH_WRAP_EGL:
		snprintf(buf, size, "glcuda, wrapped EGLImages (timeline semaphores)");
		break;
	case PATH_GLCUDA:
		if (c->depth == 1 && c->policy == POLICY_WAIT)
			snprintf(buf, size, "glcuda %s, GL waits at once", mode_name(c->mode));
		else if (c->policy == POLICY_WAIT)
			snprintf(buf, size, "glcuda %s, %u in flight, GL waits for the oldest",
				 mode_name(c->mode), c->depth);
		else
			snprintf(buf, size, "glcuda %s, %u in flight, take newest ready",
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

int
run_once(const struct group *g, enum kernel_kind k, const struct config *cfg,
	 bool timings, unsigned int frames, struct run_result *out)
{
	const struct path_ops *ops = &path_ops[cfg->path];
	struct run_ctx c;
	double *ft = NULL;
	uint64_t t_start = 0, t_prev, t, cpu0, max_ns;
	unsigned int n = 0;
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
		frames = frames < c.event_count - 1 ? frames : c.event_count - 1;
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
	out->frames = n;
	out->seconds = (double)(t_prev - t_start) / 1e9;
	out->process_cpu_us = (double)(clock_process_cpu_ns() - cpu0) / 1e3 / n;
	out->interop_cpu_us = (double)interop_meter.cpu_ns / 1e3 / n;
	out->interop_wall_us = (double)interop_meter.wall_ns / 1e3 / n;
	out->blocked_us = out->interop_wall_us > out->interop_cpu_us
		? out->interop_wall_us - out->interop_cpu_us : 0;
	out->pacing_us = (double)pacing_meter.wall_ns / 1e3 / n;
	out->mean_us = (double)(t_prev - t_start) / 1e3 / n;
	out->fps = 1e6 / out->mean_us;
	if (c.ring)
		out->dropped = glcuda_ring_get_dropped(c.ring) - c.dropped_at_start;

	if (ops->drain && ops->drain(&c) < 0)
		goto out;
	if (settle() < 0)
		goto out;

	if (cfg->path == PATH_CUDA) {
		/* GPU time between consecutive events: what the kernels cost,
		 * without the launch overhead of one frame at a time. */
		unsigned int ne = c.event_next;
		float ms = 0;
		if (ne < 2)
			goto stats_wall;
		if (cu_check(CU(cuEventElapsedTime)(&ms, c.events[0], c.events[ne - 1]),
			     "cuEventElapsedTime") < 0)
			goto out;
		n = ne - 1;
		out->mean_us = (double)ms * 1e3 / n;
		out->fps = 1e6 / out->mean_us;
		for (unsigned int i = 1; i < ne; i++) {
			if (cu_check(CU(cuEventElapsedTime)(&ms, c.events[i - 1], c.events[i]),
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
		PATH_GL, PATH_CUDA, PATH_READBACK, PATH_LEGACY, PATH_LEGACY_NOSYNC,
		PATH_WRAP_GL, PATH_WRAP_EGL,
	};

	for (unsigned int i = 0; i < ARRAY_LENGTH(order); i++)
		if (opt.paths & (1u << order[i]))
			add_row(g, k, (struct config){ .path = order[i] });
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
				/* Taking the newest ready frame with one frame in
				 * flight is a CPU wait for that frame: not a
				 * pipeline. */
				if (p == POLICY_NEWEST && d == 1)
					continue;
				add_row(g, k, (struct config){ .path = PATH_GLCUDA,
							       .mode = all_modes[m],
							       .policy = (enum policy)p,
							       .depth = d });
			}
		}
	}
}

/* Rough frame times (ms) on the GPU machine, from doc/design.md §7 and scaled
 * by pixels and bytes: only for the duration estimate. */
double
estimate_frame_ms(const struct group *g, const struct config *c, enum kernel_kind k)
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
		return 2.3 * mpx * scale + blur;
	default:
		return 0.45 + 0.17 * mpx * scale + blur;
	}
}

double
estimate_seconds(void)
{
	double total = 0;

	for (unsigned int i = 0; i < row_count; i++) {
		const struct row *r = &rows[i];
		double ft = estimate_frame_ms(r->group, &r->cfg, r->kernel) / 1e3;
		double measured = opt.frames * ft;
		if (measured > opt.max_seconds)
			measured = opt.max_seconds;
		/* setup: images, rings, registration */
		total += opt.reps * (measured + opt.warmup * ft + 0.08);
		if (r->cfg.path == PATH_GLCUDA && opt.timing_frames)
			total += (opt.timing_frames < opt.frames ? opt.timing_frames : opt.frames) * ft +
				 opt.warmup * ft + 0.08;
	}
	/* devices, contexts, module */
	return total + 3.0;
}

/* ---------------------------------------------------------------------- */
