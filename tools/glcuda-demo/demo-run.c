/*
 * glcuda-demo: errors, the frame loop through the ring, the timing summary.
 * SPDX-License-Identifier: MIT
 */
#include "demo.h"

/* Errors ----------------------------------------------------------------- */

int
glcuda_failed(const char *call, int err)
{
	fprintf(stderr, "glcuda-demo: %s failed: %s (%s)\n  %s\n", call,
		glcuda_error_get_name(err), glcuda_strerror(err),
		glcuda_get_last_error()[0] ? glcuda_get_last_error()
					   : "(no further detail)");
	return 1;
}

int
gl_failed_check(const char *where)
{
	GLenum err = glGetError();
	int count = 0;

	if (err == GL_NO_ERROR)
		return 0;
	while (err != GL_NO_ERROR && count++ < 8) {
		fprintf(stderr, "glcuda-demo: GL error 0x%04x %s\n", err,
			where);
		err = glGetError();
	}
	return 1;
}

/* What a failing setup call says is missing, in words. */
const char *
missing_what(int err)
{
	switch (err) {
	case GLCUDA_ERROR_NO_CUDA_DRIVER:
		return "no CUDA driver found: glcuda-demo needs an NVIDIA GPU "
		       "and its driver's libcuda.so.1";
	case GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE:
		return "the GL context does not run on a CUDA device (GL and "
		       "CUDA are on different GPUs or drivers)";
	case GLCUDA_ERROR_NO_MATCHING_VULKAN_DEVICE:
		return "no Vulkan device matches the GL context";
	case GLCUDA_ERROR_DRIVER_MISMATCH:
		return "GL and Vulkan run on different drivers";
	case GLCUDA_ERROR_NO_VULKAN:
		return "no Vulkan loader or driver";
	case GLCUDA_ERROR_MISSING_EGL_EXTENSION:
		return "an EGL extension is missing";
	case GLCUDA_ERROR_MISSING_GL_EXTENSION:
		return "a GL extension is missing";
	case GLCUDA_ERROR_MISSING_VULKAN_EXTENSION:
		return "a Vulkan extension is missing";
	case GLCUDA_ERROR_GL_TOO_OLD:
		return "the GL context is too old (GL 4.5 core or GLES 3.0 "
		       "needed)";
	case GLCUDA_ERROR_NO_DISPLAY:
		return "no EGL display or GL context could be made";
	default:
		return glcuda_strerror(err);
	}
}

/* glcuda_headless_new or glcuda_device_new failed: say what is missing,
 * then the same diagnosis as glcuda-info. */
int
setup_failed(struct demo *d, const char *call, int err)
{
	char detail[2048];

	snprintf(detail, sizeof(detail), "%s",
		 glcuda_get_last_error()[0] ? glcuda_get_last_error()
					    : "(no further detail)");
	glcuda_device_destroy(d->dev);
	d->dev = NULL;
	glcuda_headless_destroy(d->hl);
	d->hl = NULL;

	fprintf(stderr, "glcuda-demo: cannot run here: %s.\n",
		missing_what(err));
	fprintf(stderr, "glcuda-demo: %s failed with %s: %s\n", call,
		glcuda_error_get_name(err), detail);
	if (d->opt.device >= 0)
		snprintf(detail, sizeof(detail), " --cuda-device %d",
			 d->opt.device);
	else
		detail[0] = '\0';
	fprintf(stderr,
		"\nglcuda-demo: diagnosis (the report of glcuda-info%s%s):\n\n",
		d->opt.gles ? " --gles" : "", detail);
	fflush(stderr);
	glcuda_info_report(stderr, false, d->opt.gles, d->opt.device);
	fflush(stderr);
	return 1;
}

int
collect_timings(struct demo *d)
{
	struct glcuda_frame_timings t = {
		.size = sizeof(struct glcuda_frame_timings)
	};
	int ret;

	if (!d->timings)
		return 0;
	while ((ret = glcuda_ring_read_timings(d->ring, &t)) == 1) {
		if (t.frame_number < d->warmup)
			continue;
		if (!stats_add(&d->gl_render, t.gl_render_ns * 1e-3) ||
		    !stats_add(&d->to_cuda, t.handoff_to_cuda_ns * 1e-3) ||
		    !stats_add(&d->cuda, t.cuda_ns * 1e-3) ||
		    !stats_add(&d->to_gl, t.handoff_to_gl_ns * 1e-3) ||
		    !stats_add(&d->total, t.total_ns * 1e-3)) {
			fprintf(stderr, "glcuda-demo: out of memory\n");
			return 1;
		}
	}
	if (ret < 0)
		return glcuda_failed("glcuda_ring_read_timings", ret);
	return 0;
}

/* Take the newest finished frame, if any, composite it, release it.
 * *presented says whether there was one. */
int
present_newest(struct demo *d, bool *presented)
{
	struct glcuda_frame *f;
	uint64_t number;
	int ret;

	*presented = false;
	ret = glcuda_ring_take_newest(d->ring, &f);
	if (ret == -EAGAIN)
		return 0; /* nothing ready */
	if (ret < 0)
		return glcuda_failed("glcuda_ring_take_newest", ret);
	number = glcuda_frame_get_number(f);
	composite(d, f);
	ret = glcuda_frame_release(f);
	if (ret < 0)
		return glcuda_failed("glcuda_frame_release", ret);
	*presented = true;
	d->presented++;
	d->last_presented = (int64_t)number;
	if (png_wanted(d, number) && save_screen(d, number))
		return 1;
	return collect_timings(d);
}

/* Every slot is in flight: sleep in poll() until the ring's fd says a
 * frame's CUDA stage finished. */
int
wait_for_frame(struct demo *d)
{
	struct pollfd pfd = { .fd = glcuda_ring_get_fd(d->ring),
			      .events = POLLIN };
	int n, ret;

	do
		n = poll(&pfd, 1, FRAME_TIMEOUT_MS);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		fprintf(stderr, "glcuda-demo: poll on the ring fd: %s\n",
			strerror(errno));
		return 1;
	}
	if (n == 0) {
		fprintf(stderr,
			"glcuda-demo: no frame finished within %d s: the GPU "
			"is hung or a hand-off never signalled (sync mode "
			"%s)\n",
			FRAME_TIMEOUT_MS / 1000,
			glcuda_sync_mode_get_name(d->caps->sync_mode));
		return 1;
	}
	ret = glcuda_ring_dispatch(d->ring);
	if (ret < 0)
		return glcuda_failed("glcuda_ring_dispatch", ret);
	return 0;
}

void
progress(struct demo *d, bool final)
{
	double t = clock_now_s();

	if (d->opt.quiet)
		return;
	if (d->progress_tty) {
		if (!final && t - d->t_progress < 0.1)
			return;
		d->t_progress = t;
		fprintf(stderr,
			"\r\033[Kframe %llu/%llu, presented %llu, dropped %llu",
			(unsigned long long)d->produced,
			(unsigned long long)d->opt.frames,
			(unsigned long long)d->presented,
			(unsigned long long)glcuda_ring_get_dropped(d->ring));
		if (final)
			fputc('\n', stderr);
		return;
	}
	/* Not a terminal (a log): a line every tenth of a long run. */
	if (d->opt.frames >= 500 && !final &&
	    d->produced % (d->opt.frames / 10) == 0)
		fprintf(stderr, "glcuda-demo: frame %llu/%llu\n",
			(unsigned long long)d->produced,
			(unsigned long long)d->opt.frames);
}

int
produce_frame(struct demo *d, struct glcuda_frame *f)
{
	double t;
	int ret;

	render_scene(d, f);
	ret = glcuda_frame_submit(f);
	if (ret < 0)
		return glcuda_failed("glcuda_frame_submit", ret);
	ret = filters_run(d->filters, d->opt.filter, glcuda_frame_get_stream(f),
			  glcuda_frame_get_input(f),
			  glcuda_frame_get_output(f));
	if (ret < 0) {
		fprintf(stderr, "glcuda-demo: filter %s failed: %s\n",
			filter_name(d->opt.filter), filters_last_error());
		/* Hand the frame back anyway, so that the ring stays usable. */
		glcuda_frame_complete(f);
		return 1;
	}
	ret = glcuda_frame_complete(f);
	if (ret < 0)
		return glcuda_failed("glcuda_frame_complete", ret);
	if (d->produced == 0 && gl_failed_check("in the first frame"))
		return 1;

	t = clock_now_s();
	if (d->produced > d->warmup &&
	    !stats_add(&d->wall, (t - d->t_prev_complete) * 1e6)) {
		fprintf(stderr, "glcuda-demo: out of memory\n");
		return 1;
	}
	d->t_prev_complete = t;
	d->produced++;
	return 0;
}

int
run_frames(struct demo *d, double *wall_s, double *cpu_per_frame_s)
{
	double t0 = clock_now_s(), c0 = clock_process_cpu_s();
	bool presented, measuring = false;
	int ret;

	while (d->produced < d->opt.frames) {
		struct glcuda_frame *f;

		if (!measuring && d->produced == d->warmup) {
			/* Warm-up over: the clocks of the summary start. */
			t0 = clock_now_s();
			c0 = clock_process_cpu_s();
			measuring = true;
		}
		ret = glcuda_ring_acquire(d->ring, &f);
		if (ret == -EAGAIN) {
			/* Every slot is in flight: present what is done, which
			 * frees slots; sleep on the fd when nothing is. */
			if (present_newest(d, &presented))
				return 1;
			if (!presented && wait_for_frame(d))
				return 1;
			continue;
		}
		if (ret < 0)
			return glcuda_failed("glcuda_ring_acquire", ret);
		if (produce_frame(d, f))
			return 1;
		/* Latch whatever finished meanwhile, as a compositor does at
		 * its deadline: GL's wait for the previous frame is enqueued
		 * after this frame's GL work, which hides part of the
		 * GL <-> CUDA switch. */
		if (present_newest(d, &presented))
			return 1;
		progress(d, false);
	}
	/* Drain: present until the last frame produced is on screen. */
	while (d->last_presented < (int64_t)d->produced - 1) {
		if (present_newest(d, &presented))
			return 1;
		if (!presented && wait_for_frame(d))
			return 1;
	}
	*wall_s = clock_now_s() - t0;
	*cpu_per_frame_s = (clock_process_cpu_s() - c0) /
			   (double)(d->produced - d->warmup);
	progress(d, true);

	/* Write the last frame, then let the GPU finish so that the timings
	 * of the last frames are there to fetch. */
	if (d->opt.png_last && d->last_presented >= 0 &&
	    save_screen(d, (uint64_t)d->last_presented))
		return 1;
	glFinish();
	if (collect_timings(d))
		return 1;
	return gl_failed_check("during the run");
}

void
print_row(const char *name, struct stats *s)
{
	double mean, p50, p99;

	if (s->n == 0) {
		printf("  %-18s %10s %10s %10s\n", name, "-", "-", "-");
		return;
	}
	stats_summary(s, &mean, &p50, &p99);
	printf("  %-18s %10.1f %10.1f %10.1f\n", name, mean, p50, p99);
}

void
print_summary(struct demo *d, double wall_s, double cpu_per_frame_s)
{
	uint64_t measured = d->produced - d->warmup;

	printf("\nglcuda-demo summary: %llu frames produced, %llu presented, "
	       "%llu dropped",
	       (unsigned long long)d->produced,
	       (unsigned long long)d->presented,
	       (unsigned long long)glcuda_ring_get_dropped(d->ring));
	if (d->warmup)
		printf(" (statistics leave out the first %llu as warm-up)",
		       (unsigned long long)d->warmup);
	printf("\n\n  %-18s %10s %10s %10s\n", "stage (us)", "mean", "p50",
	       "p99");
	if (d->timings) {
		print_row("gl_render", &d->gl_render);
		print_row("handoff_to_cuda", &d->to_cuda);
		print_row("cuda", &d->cuda);
		print_row("handoff_to_gl", &d->to_gl);
		print_row("total", &d->total);
		printf("  (GPU timings of %zu presented frames)\n", d->total.n);
	} else {
		printf("  (no GPU timings: the context has no timer "
		       "queries)\n");
	}
	print_row("wall frame time", &d->wall);
	printf("\n  throughput:        %.1f frames/s (%.1f us/frame wall "
	       "clock)\n",
	       measured / wall_s, wall_s * 1e6 / measured);
	printf("  process CPU time:  %.1f us/frame (__GL_YIELD=%s)\n",
	       cpu_per_frame_s * 1e6,
	       getenv("__GL_YIELD") ? getenv("__GL_YIELD") : "unset");
	if (d->png_count)
		printf("  PNG files:         %u in %s\n", d->png_count,
		       d->opt.output);
}
