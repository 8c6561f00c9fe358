/*
 * glcuda-bench: the same GL -> CUDA -> GL frame pipeline through every way
 * of getting GL pixels to CUDA and back, one after another in one process,
 * with the same GL work and the same CUDA kernel (doc/which-path.md says
 * what the results mean for a program choosing a path).
 *
 * Paths, each at its strongest (bench/README.md has the details):
 *   gl              GL work alone (render + composite): half of the floor
 *   cuda            the CUDA kernel alone, GPU time (CUDA events): the other
 *   glcuda          the frame ring, per sync mode (a device per forced mode),
 *                   GL waiting at once or pipelined 2..4 frames deep: for
 *                   the oldest (wait), for the oldest the ready fd says is
 *                   done (ready), or the newest ready, dropping the others
 *                   (newest)
 *   legacy          cuGraphicsGLRegisterImage once per texture pair, 1..4
 *                   pairs and streams pipelined, then per frame map / get
 *                   array / kernel / unmap, cuStreamSynchronize on the
 *                   oldest before compositing it
 *   legacy-nosync   the same without cuStreamSynchronize (unmap alone orders
 *                   GL after CUDA)
 *   readback        a three-stage pipeline: glReadPixels into pack PBOs,
 *                   pinned staging, cuMemcpy2DAsync, kernel, back to pinned
 *                   memory, an unpack PBO and glTexSubImage2D
 *   wrap-gl         the legacy path's GL textures wrapped by glcuda
 *                   (glcuda_image_wrap_gl_texture): hand-offs map and unmap
 *   wrap-egl        EGLImages of those textures wrapped by glcuda
 *                   (glcuda_image_wrap_egl_image): hand-offs by semaphores
 *
 * A frame: GL clears and draws into the input texture, the path hands it to
 * CUDA, the kernel writes the output, the path hands that back, and GL draws
 * the output into a "screen" texture. Throughput counts the frames drawn
 * there (composited), beside those produced. The CPU never runs more than
 * --queue frames ahead of GL (a fence per frame, as a swap chain would), so
 * the driver's own throttling does not land inside the calls being
 * measured; that wait is reported on its own. Every run ends by reading its
 * last composited frame back and comparing it exactly with a reference.
 *
 * The program never links libcuda: its CUDA calls go through the programs'
 * run-time table (CU(name), common/cuda-table.h), loaded once the
 * first glcuda device has found the driver.
 *
 * SPDX-License-Identifier: MIT
 */
#include "bench.h"

/* main                                                                     */

void
build_command_line(int argc, char **argv)
{
	size_t len = 0;

	command_line[0] = '\0';
	for (int i = 0; i < argc && len < sizeof(command_line) - 1; i++) {
		bool quote = argv[i][0] == '\0' ||
			     strpbrk(argv[i], " \t'\"$\\`*?;&|<>()") != NULL;
		int n = snprintf(command_line + len, sizeof(command_line) - len,
				 "%s%s%s%s", i ? " " : "", quote ? "'" : "",
				 argv[i], quote ? "'" : "");
		if (n < 0)
			break;
		len += (size_t)n;
	}
}

FILE *
open_output(const char *prefix, const char *ext)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s-%s.%s", opt.out_dir, prefix,
		 opt.label, ext);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "glcuda-bench: cannot write %s: %s\n", path,
			strerror(errno));
	return f;
}

int
make_dirs(const char *dir)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", dir);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* Put the headline table at `offset` of the markdown file (after the system
 * description): the tables were written there as they were measured, so
 * that a run cut short keeps them. */
static void
insert_headline(long offset)
{
	char path[4096], *text = NULL;
	size_t size = 0, len;
	FILE *f, *hl;

	snprintf(path, sizeof(path), "%s/bench-%s.md", opt.out_dir, opt.label);
	f = fopen(path, "r");
	if (!f)
		return;
	hl = open_memstream(&text, &size);
	if (!hl) {
		fclose(f);
		return;
	}
	write_headline(hl);
	{
		char buf[65536];
		long pos = 0;
		FILE *out;
		char tmp[4200];

		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		out = fopen(tmp, "w");
		if (!out) {
			fclose(hl);
			free(text);
			fclose(f);
			return;
		}
		while ((len = fread(buf, 1, sizeof(buf), f)) > 0) {
			if (pos <= offset && offset < pos + (long)len) {
				fwrite(buf, 1, (size_t)(offset - pos), out);
				fclose(hl);
				hl = NULL;
				fwrite(text, 1, size, out);
				fwrite(buf + (offset - pos), 1,
				       len - (size_t)(offset - pos), out);
			} else {
				fwrite(buf, 1, len, out);
			}
			pos += (long)len;
		}
		if (hl) {
			fclose(hl);
			hl = NULL;
			fwrite(text, 1, size, out);
		}
		fclose(f);
		if (fclose(out) == 0)
			rename(tmp, path);
	}
	free(text);
}

void
print_plan(void)
{
	double est = estimate_seconds();
	unsigned int runs = 0;

	for (unsigned int i = 0; i < row_count; i++)
		runs += opt.reps +
			(rows[i].cfg.path == PATH_GLCUDA && opt.timing_frames
				 ? 1
				 : 0);
	fprintf(stderr,
		"glcuda-bench: %s preset, %u configurations, %u runs; "
		"estimated %.0f s (%.1f min) on the H200 machine\n",
		opt.preset, row_count, runs, est, est / 60);
}

int
make_devices(struct glcuda_headless *hl)
{
	EGLDisplay dpy = glcuda_headless_get_display(hl);
	EGLContext ctx = glcuda_headless_get_context(hl);
	const struct glcuda_caps *caps;
	char msg[512];
	int r;

	main_dpy = dpy;
	r = glcuda_device_new(dpy, ctx, NULL, &main_dev);
	if (r < 0) {
		fprintf(stderr, "glcuda-bench: glcuda_device_new: %s: %s\n",
			glcuda_error_get_name(r), glcuda_get_last_error());
		return -1;
	}
	/* The device found the driver: load the bench's own CUDA table. */
	if (tools_cuda_load(msg, sizeof(msg)) < 0) {
		fprintf(stderr, "glcuda-bench: %s\n", msg);
		return -1;
	}
	caps = glcuda_device_get_caps(main_dev);
	if (!(opt.paths & (1u << PATH_GLCUDA)))
		return 0;
	for (unsigned int i = 0; i < ARRAY_LENGTH(all_modes); i++) {
		struct mode_device *md_ = &mode_devs[i];
		struct glcuda_device_options o;

		if (!(opt.modes & (1u << all_modes[i])))
			continue;
		md_->mode = all_modes[i];
		glcuda_device_options_init(&o);
		o.sync_mode = all_modes[i];
		r = glcuda_device_new(dpy, ctx, &o, &md_->dev);
		if (r < 0) {
			snprintf(md_->error, sizeof(md_->error), "%s%s: %s",
				 caps->sync_modes_supported &
						 (1u << all_modes[i])
					 ? ""
					 : "not supported by the drivers; ",
				 glcuda_error_get_name(r),
				 glcuda_get_last_error());
			md_->dev = NULL;
			fprintf(stderr,
				"glcuda-bench: no device in %s mode: %s\n",
				mode_name(all_modes[i]), md_->error);
		} else if (glcuda_device_get_caps(md_->dev)->sync_mode !=
			   all_modes[i]) {
			snprintf(md_->error, sizeof(md_->error),
				 "asked for %s, got %s",
				 mode_name(all_modes[i]),
				 mode_name(glcuda_device_get_caps(md_->dev)
						   ->sync_mode));
			glcuda_device_destroy(md_->dev);
			md_->dev = NULL;
			fprintf(stderr, "glcuda-bench: %s mode: %s\n",
				mode_name(all_modes[i]), md_->error);
		}
	}
	return 0;
}

void
destroy_devices(void)
{
	for (unsigned int i = 0; i < ARRAY_LENGTH(mode_devs); i++) {
		glcuda_device_destroy(mode_devs[i].dev);
		mode_devs[i].dev = NULL;
	}
	glcuda_device_destroy(main_dev);
	main_dev = NULL;
}

void
run_row(struct row *r, unsigned int rep, bool timing, unsigned int *done,
	unsigned int total)
{
	char label[128];
	struct run_result res;
	unsigned int frames =
		timing ? (opt.timing_frames < opt.frames ? opt.timing_frames
							 : opt.frames)
		       : opt.frames;

	if (r->failed)
		return;
	config_label(&r->cfg, label, sizeof(label));
	if (opt.time_limit > 0 &&
	    (double)(clock_now_ns() - start_ns) / 1e9 > opt.time_limit) {
		r->failed = r->skipped = true;
		snprintf(r->error, sizeof(r->error),
			 "skipped: --time-limit %.0f s reached",
			 opt.time_limit);
		++*done;
		return;
	}
	if (run_once(r->group, r->kernel, &r->cfg, timing, frames, &res) < 0) {
		r->failed = true;
		snprintf(r->error, sizeof(r->error), "%s", run_error);
		/* It goes into a table cell. */
		for (char *p = r->error; *p; p++)
			if (*p == '|' || *p == '\n' || *p == '\r')
				*p = ' ';
		fprintf(stderr, "  [%u/%u] %s %s %s: FAILED: %s\n", ++*done,
			total, r->group->name, kernel_names[r->kernel], label,
			run_error);
		return;
	}
	if (timing) {
		r->timing = res;
		csv_run_row(r, &res, "timing");
	} else {
		char rep_name[16];
		r->reps[r->rep_count++] = res;
		snprintf(rep_name, sizeof(rep_name), "%u", rep + 1);
		csv_run_row(r, &res, rep_name);
	}
	fprintf(stderr,
		"  [%u/%u] %s %s %s%s: %.0f fps, %.0f µs, interop %.1f µs "
		"CPU\n",
		++*done, total, r->group->name, kernel_names[r->kernel], label,
		timing ? " (timings)" : "", res.fps, res.mean_us,
		res.interop_cpu_us);
}

int
main(int argc, char **argv)
{
	struct glcuda_headless *hl = NULL;
	unsigned int done = 0, total = 0;
	uint64_t t0 = clock_now_ns();
	bool any_failed = false;
	int status = 1;
	long md_headline_at = -1;

	start_ns = t0;
	int r;

	build_command_line(argc, argv);
	if (parse_options(argc, argv) < 0)
		return 2;

	for (unsigned int gi = 0; gi < opt.group_count; gi++)
		for (unsigned int k = 0; k < KERNEL_COUNT; k++)
			if (opt.kernels & (1u << k))
				plan_rows(&opt.groups[gi], (enum kernel_kind)k);
	for (unsigned int i = 0; i < row_count; i++)
		total += opt.reps +
			 (rows[i].cfg.path == PATH_GLCUDA && opt.timing_frames
				  ? 1
				  : 0);
	print_plan();
	if (opt.dry_run) {
		for (unsigned int i = 0; i < row_count; i++) {
			char label[128];
			config_label(&rows[i].cfg, label, sizeof(label));
			printf("%s %s: %s\n", rows[i].group->name,
			       kernel_names[rows[i].kernel], label);
		}
		return 0;
	}

	r = glcuda_headless_new(opt.gl_only ? -1 : opt.cuda_device,
				GLCUDA_HEADLESS_FLAG_NONE, &hl);
	if (r < 0) {
		fprintf(stderr,
			"glcuda-bench: no GL context for CUDA device %d: %s: "
			"%s\n",
			opt.cuda_device, glcuda_error_get_name(r),
			glcuda_get_last_error());
		if (r == GLCUDA_ERROR_NO_CUDA_DRIVER)
			fprintf(stderr, "glcuda-bench: this benchmark needs an "
					"NVIDIA GPU with its driver "
					"(libcuda.so.1, EGL device platform); "
					"--gl-only runs the GL reference "
					"alone.\n");
		return 1;
	}
	if (!opt.gl_only) {
		if (make_devices(hl) < 0) {
			glcuda_headless_destroy(hl);
			return 1;
		}
		if (cuda_init(main_dev) < 0) {
			fprintf(stderr, "glcuda-bench: %s\n", run_error);
			cuda_fini();
			destroy_devices();
			glcuda_headless_destroy(hl);
			return 1;
		}
	}
	if (gl_init() < 0) {
		fprintf(stderr, "glcuda-bench: %s\n", run_error);
		goto out;
	}

	if (opt.out_dir) {
		if (make_dirs(opt.out_dir) < 0) {
			fprintf(stderr, "glcuda-bench: cannot create %s: %s\n",
				opt.out_dir, strerror(errno));
			goto out;
		}
		md_file = open_output("bench", "md");
		summary_csv = open_output("summary", "csv");
		runs_csv = open_output("runs", "csv");
		if (!md_file || !summary_csv || !runs_csv)
			goto out;
		/* fps: composited frames per second; produced_fps beside it. */
		fprintf(summary_csv, "label,gl_yield,size,format,width,height,"
				     "kernel,id,path,mode,policy,depth,slots,"
				     "reps,frames,fps,produced_fps,drop_pct,"
				     "fps_spread_pct,mean_us,p50_us,p99_us,"
				     "interop_cpu_us,interop_wall_us,"
				     "blocked_us,pacing_us,process_cpu_us,"
				     "handoff_to_cuda_us,handoff_to_gl_us,"
				     "gpu_frame_us,floor_us,to_floor_us,"
				     "x_legacy,x_readback,cpu_x_legacy,"
				     "legacy_reference,output,status\n");
		fprintf(runs_csv, "label,gl_yield,size,format,kernel,id,rep,"
				  "frames,composited,seconds,fps,produced_fps,"
				  "drop_pct,mean_us,p50_us,p99_us,"
				  "interop_cpu_us,interop_wall_us,blocked_us,"
				  "pacing_us,process_cpu_us,timing_frames,"
				  "handoff_to_cuda_us,handoff_to_gl_us,cuda_us,"
				  "gl_render_us,gpu_total_us,dropped,output\n");
	}
	print_system(hl);
	if (md_file)
		md_headline_at = ftell(md_file);
	print_legend();
	fflush(stdout);

	for (unsigned int gi = 0; gi < opt.group_count; gi++) {
		struct group *g = &opt.groups[gi];

		if (gl_make_target(g, GL_RGBA8, &g->screen_tex,
				   &g->screen_fbo) < 0) {
			fprintf(stderr,
				"glcuda-bench: %s: the screen texture: %s\n",
				g->name, run_error);
			any_failed = true;
			continue;
		}
		for (unsigned int k = 0; k < KERNEL_COUNT; k++) {
			unsigned int first = row_count, last = 0;

			if (!(opt.kernels & (1u << k)))
				continue;
			for (unsigned int i = 0; i < row_count; i++)
				if (rows[i].group == g && rows[i].kernel == k) {
					if (i < first)
						first = i;
					last = i + 1;
				}
			if (first >= last)
				continue;
			if (!opt.gl_only &&
			    cuda_prepare_group(g, k == KERNEL_BLUR) < 0) {
				for (unsigned int i = first; i < last; i++) {
					rows[i].failed = true;
					snprintf(rows[i].error,
						 sizeof(rows[i].error), "%s",
						 run_error);
				}
			}
			/* Reps outermost: drift over time hits every path
			 * alike. */
			for (unsigned int rep = 0; rep < opt.reps; rep++)
				for (unsigned int i = first; i < last; i++)
					run_row(&rows[i], rep, false, &done,
						total);
			if (opt.timing_frames)
				for (unsigned int i = first; i < last; i++)
					if (rows[i].cfg.path == PATH_GLCUDA)
						run_row(&rows[i], 0, true,
							&done, total);
			for (unsigned int i = first; i < last; i++) {
				aggregate(&rows[i]);
				if (!rows[i].med.ok && !rows[i].skipped)
					any_failed = true;
			}
			print_table(g, (enum kernel_kind)k);
		}
		gl_delete_target(&g->screen_tex, &g->screen_fbo);
	}
	md("\nTotal time: %.0f s.\n", (double)(clock_now_ns() - t0) / 1e9);
	write_headline(stdout);

	status = any_failed ? 1 : 0;
	/* Closed before the headline goes in at its place in the file. */
	if (md_file) {
		fclose(md_file);
		md_file = NULL;
		if (md_headline_at >= 0)
			insert_headline(md_headline_at);
	}

out:
	if (md_file)
		fclose(md_file);
	if (summary_csv)
		fclose(summary_csv);
	if (runs_csv)
		fclose(runs_csv);
	gl_fini();
	cuda_fini();
	destroy_devices();
	glcuda_headless_destroy(hl);
	free(rows);
	return status;
}
