/*
 * glcuda-demo: the whole pipeline, headless. Per frame, GL renders an
 * animated scene into a ring frame's input image, a CUDA filter turns it
 * into the frame's output image, and GL composites the newest finished
 * output onto a "screen" texture (with a picture-in-picture of the
 * unfiltered input and a progress bar). Nothing waits on the CPU but
 * poll() on the ring's fd when every slot is in flight. Chosen frames of the
 * screen are written as PNG; at the end, a per-stage timing table.
 *
 * On a machine where glcuda cannot work it says what is missing, prints the
 * glcuda-info diagnosis and exits 1.
 * SPDX-License-Identifier: MIT
 */
#include "demo.h"

/* Main ------------------------------------------------------------------- */

int
run(struct demo *d)
{
	struct glcuda_device_options dopt = { .size = sizeof(dopt),
					      .sync_mode = d->opt.sync };
	struct glcuda_ring_desc desc;
	struct filter_params fp = { .sigma = d->opt.sigma,
				    .amount = d->opt.amount };
	struct stat st;
	double wall_s = 0, cpu_per_frame_s = 0;
	int ret;

	ret = glcuda_headless_new(d->opt.device,
				  d->opt.gles ? GLCUDA_HEADLESS_FLAG_GLES
					      : GLCUDA_HEADLESS_FLAG_NONE,
				  &d->hl);
	if (ret < 0)
		return setup_failed(d, "glcuda_headless_new", ret);
	ret = glcuda_device_new(glcuda_headless_get_display(d->hl),
				glcuda_headless_get_context(d->hl), &dopt,
				&d->dev);
	if (ret < 0)
		return setup_failed(d, "glcuda_device_new", ret);
	d->caps = glcuda_device_get_caps(d->dev);

	if (d->opt.width > d->caps->max_image_size ||
	    d->opt.height > d->caps->max_image_size) {
		fprintf(stderr,
			"glcuda-demo: %ux%u is larger than the largest image "
			"here (%u)\n",
			d->opt.width, d->opt.height, d->caps->max_image_size);
		return 1;
	}
	if (!(d->caps->formats_supported & (1u << d->opt.format))) {
		fprintf(stderr,
			"glcuda-demo: the drivers cannot share %s images\n",
			glcuda_format_get_name(d->opt.format));
		return 1;
	}
	if (!filter_available(d->opt.filter)) {
		fprintf(stderr,
			"glcuda-demo: this build has no CUDA kernels (nvcc was "
			"not found at configure time): only the \"none\" "
			"filter (a copy) is available; running with --filter "
			"none instead of %s\n",
			filter_name(d->opt.filter));
		d->opt.filter = FILTER_NONE;
	}

	/* PNG destination: a directory if it is one, ends in '/', or is the
	 * default; else a file-name prefix. */
	d->out_is_dir = strcmp(d->opt.output, DEFAULT_OUTPUT) == 0 ||
			d->opt.output[strlen(d->opt.output) - 1] == '/' ||
			(stat(d->opt.output, &st) == 0 && S_ISDIR(st.st_mode));

	glcuda_ring_desc_init(&desc);
	desc.width = d->opt.width;
	desc.height = d->opt.height;
	desc.slots = d->opt.in_flight;
	desc.input_format = d->opt.format;
	desc.output_format = d->opt.format;
	desc.flags = GLCUDA_RING_FLAG_TIMINGS;
	ret = glcuda_ring_new(d->dev, &desc, &d->ring);
	if (ret == GLCUDA_ERROR_MISSING_GL_EXTENSION) {
		/* No timer queries (GLES without GL_EXT_disjoint_timer_query):
		 * run without the GPU timings. */
		fprintf(stderr, "glcuda-demo: no GPU timings: %s\n",
			glcuda_get_last_error());
		desc.flags &= ~(uint32_t)GLCUDA_RING_FLAG_TIMINGS;
		ret = glcuda_ring_new(d->dev, &desc, &d->ring);
	}
	if (ret < 0)
		return glcuda_failed("glcuda_ring_new", ret);
	d->timings = desc.flags & GLCUDA_RING_FLAG_TIMINGS;

	ret = filters_new(d->dev, d->opt.width, d->opt.height, &fp,
			  &d->filters);
	if (ret < 0) {
		fprintf(stderr,
			"glcuda-demo: cannot set up the CUDA filters: %s\n",
			filters_last_error());
		return 1;
	}
	if (gl_setup(d))
		return 1;

	d->warmup = d->opt.frames / 10 < 10 ? d->opt.frames / 10 : 10;
	d->last_presented = -1;
	d->progress_tty = isatty(STDERR_FILENO);
	if (!d->opt.quiet) {
		const struct filter_params *p = filters_params(d->filters);
		fprintf(stderr, "glcuda-demo: %s\n",
			glcuda_headless_get_description(d->hl));
		fprintf(stderr,
			"glcuda-demo: %s %d.%d on %s; CUDA device %d (%s); "
			"sync %s%s\n",
			d->caps->gl_api == GLCUDA_GL_API_GLES ? "OpenGL ES"
							      : "OpenGL",
			d->caps->gl_major, d->caps->gl_minor,
			d->caps->gl_renderer, d->caps->cuda_ordinal,
			d->caps->cuda_device_name,
			glcuda_sync_mode_get_name(d->caps->sync_mode),
			d->caps->sync_mode == GLCUDA_SYNC_CPU ? " (CPU "
								"fallback: "
								"hand-offs "
								"block)"
							      : "");
		fprintf(stderr,
			"glcuda-demo: %llu frames of %ux%u %s, filter %s",
			(unsigned long long)d->opt.frames, d->opt.width,
			d->opt.height, glcuda_format_get_name(d->opt.format),
			filter_name(d->opt.filter));
		if (d->opt.filter == FILTER_BLUR ||
		    d->opt.filter == FILTER_UNSHARP)
			fprintf(stderr, " (sigma %.2f px", p->sigma);
		if (d->opt.filter == FILTER_UNSHARP)
			fprintf(stderr, ", amount %.2f", p->amount);
		if (d->opt.filter == FILTER_BLUR ||
		    d->opt.filter == FILTER_UNSHARP)
			fputc(')', stderr);
		if (d->opt.filter == FILTER_GRADE)
			fprintf(stderr, " (%d^3 LUT)", p->lut_size);
		fprintf(stderr, ", %u in flight\n", d->opt.in_flight);
	}

	if (run_frames(d, &wall_s, &cpu_per_frame_s))
		return 1;
	print_summary(d, wall_s, cpu_per_frame_s);
	return 0;
}

/* glcuda's log, but its errors: the demo prints each failure it gets,
 * with glcuda's message (setup_failed(), glcuda_failed()), once. */
static void GLCUDA_PRINTF(3, 0)
log_but_errors(enum glcuda_log_priority priority, void *user_data,
	       const char *format, va_list args)
{
	(void)user_data;
	if (priority >= GLCUDA_LOG_PRIORITY_ERROR)
		return;
	fprintf(stderr, "glcuda %s: ",
		priority >= GLCUDA_LOG_PRIORITY_INFO ? "info" : "debug");
	vfprintf(stderr, format, args);
}

int
main(int argc, char **argv)
{
	struct demo d;
	int ret;

	glcuda_set_log_handler(log_but_errors, NULL);
	memset(&d, 0, sizeof(d));
	ret = parse_options(argc, argv, &d.opt);
	if (ret != 0) {
		free(d.opt.png_frames);
		return ret < 0 ? 0 : ret;
	}

	ret = run(&d);

	/* Teardown in dependency order, with the context current. */
	if (d.hl)
		glcuda_headless_make_current(d.hl);
	filters_destroy(d.filters);
	glcuda_ring_destroy(d.ring);
	if (d.hl)
		gl_teardown(&d);
	glcuda_device_destroy(d.dev);
	glcuda_headless_destroy(d.hl);

	free(d.readback);
	free(d.opt.png_frames);
	stats_free(&d.gl_render);
	stats_free(&d.to_cuda);
	stats_free(&d.cuda);
	stats_free(&d.to_gl);
	stats_free(&d.total);
	stats_free(&d.wall);
	return ret;
}
