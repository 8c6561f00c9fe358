/*
 * glcuda-bench: aggregation of the repetitions, the Markdown report,
 * the CSV files and the system description.
 * SPDX-License-Identifier: MIT
 */
#include "bench.h"

/* Aggregation and output                                                   */

void
aggregate(struct row *r)
{
	double lo = INFINITY, hi = 0;
	unsigned int ok = 0, frames = 0;

	for (unsigned int i = 0; i < r->rep_count; i++) {
		if (!r->reps[i].ok)
			continue;
		ok++;
		frames += r->reps[i].frames;
		if (r->reps[i].fps < lo)
			lo = r->reps[i].fps;
		if (r->reps[i].fps > hi)
			hi = r->reps[i].fps;
	}
	memset(&r->med, 0, sizeof(r->med));
	if (!ok) {
		r->spread_pct = NAN;
		return;
	}
	MEDIAN_FIELD(r, fps);
	MEDIAN_FIELD(r, mean_us);
	MEDIAN_FIELD(r, p50_us);
	MEDIAN_FIELD(r, p99_us);
	MEDIAN_FIELD(r, interop_cpu_us);
	MEDIAN_FIELD(r, interop_wall_us);
	MEDIAN_FIELD(r, blocked_us);
	MEDIAN_FIELD(r, pacing_us);
	MEDIAN_FIELD(r, process_cpu_us);
	MEDIAN_FIELD(r, dropped);
	r->med.ok = true;
	r->med.frames = frames / ok;
	r->spread_pct = ok > 1 ? (hi - lo) / r->med.fps * 100.0 : 0;
	if (r->timing.ok) {
		r->med.timing_count = r->timing.timing_count;
		r->med.to_cuda_us = r->timing.to_cuda_us;
		r->med.to_gl_us = r->timing.to_gl_us;
		r->med.cuda_us = r->timing.cuda_us;
		r->med.gl_render_us = r->timing.gl_render_us;
		r->med.gpu_total_us = r->timing.gpu_total_us;
	}
}

const struct row *
find_row(const struct group *g, enum kernel_kind k, enum path_kind p)
{
	for (unsigned int i = 0; i < row_count; i++)
		if (rows[i].group == g && rows[i].kernel == k && rows[i].cfg.path == p &&
		    rows[i].med.ok)
			return &rows[i];
	return NULL;
}

double
floor_us(const struct group *g, enum kernel_kind k)
{
	const struct row *gl_row = find_row(g, k, PATH_GL);
	const struct row *cuda_row = find_row(g, k, PATH_CUDA);

	if (!gl_row || !cuda_row)
		return NAN;
	return gl_row->med.mean_us + cuda_row->med.mean_us;
}

/* A number for a table cell or a CSV field ("" or "-" when absent). */
const char *
fmt_num(char *buf, size_t size, double v, int decimals, const char *none)
{
	if (isnan(v) || isinf(v))
		snprintf(buf, size, "%s", none);
	else
		snprintf(buf, size, "%.*f", decimals, v);
	return buf;
}

/* $__GL_YIELD for the CSVs: "default" when unset. */
const char *
gl_yield(void)
{
	const char *y = getenv("__GL_YIELD");
	return y && *y && !strpbrk(y, ",\n\"") ? y : "default";
}

FILE *md_file, *summary_csv, *runs_csv;

void GLCUDA_PRINTF(1, 2)
md(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (md_file) {
		va_start(ap, fmt);
		vfprintf(md_file, fmt, ap);
		va_end(ap);
	}
}

bool
is_4k_class(const struct group *g)
{
	return g->height >= 2160;
}

void
print_targets(const struct group *g, enum kernel_kind k)
{
	const struct row *legacy = find_row(g, k, PATH_LEGACY);
	const struct row *readback = find_row(g, k, PATH_READBACK);
	const struct row *best = NULL;
	double worst_cpu = 0, worst_blocked = 0;
	char id[64], b1[32], b2[32];

	for (unsigned int i = 0; i < row_count; i++) {
		const struct row *r = &rows[i];
		if (r->group != g || r->kernel != k || r->cfg.path != PATH_GLCUDA ||
		    !r->med.ok || r->cfg.mode == GLCUDA_SYNC_CPU)
			continue;
		if (!best || r->med.fps > best->med.fps)
			best = r;
		if (r->med.interop_cpu_us > worst_cpu)
			worst_cpu = r->med.interop_cpu_us;
		if (r->med.blocked_us > worst_blocked)
			worst_blocked = r->med.blocked_us;
	}
	if (!best)
		return;
	config_id(&best->cfg, id, sizeof(id));
	md("\nTargets (doc/design.md §7), fastest GPU-synchronised glcuda row `%s`:\n", id);
	if (legacy) {
		double x = best->med.fps / legacy->med.fps;
		double want = is_4k_class(g) ? 1.25 : 1.5;
		double cpu = best->med.process_cpu_us / legacy->med.process_cpu_us;
		md("- throughput %s× legacy (target ≥ %.2f×): %s\n", fmt_num(b1, sizeof(b1), x, 2, "-"),
		   want, x >= want ? "met" : "**not met**");
		md("- process CPU %s× legacy's (target ≤ 0.3×): %s\n",
		   fmt_num(b2, sizeof(b2), cpu, 2, "-"), cpu <= 0.3 ? "met" : "**not met**");
	}
	if (readback) {
		double x = best->med.fps / readback->med.fps;
		double want = is_4k_class(g) ? 15 : 10;
		md("- throughput %s× readback (target ≥ %.0f×): %s\n",
		   fmt_num(b1, sizeof(b1), x, 1, "-"), want, x >= want ? "met" : "**not met**");
	}
	md("- CPU inside glcuda calls, worst GPU-synchronised row: %.1f µs/frame (target ≤ 10): %s\n",
	   worst_cpu, worst_cpu <= 10 ? "met" : "**not met**");
	md("- blocked inside glcuda calls, worst GPU-synchronised row: %.1f µs/frame (target 0; "
	   "< 1 counts as 0): %s\n", worst_blocked, worst_blocked < 1 ? "met" : "**not met**");
}

void
csv_summary_row(const struct row *r, double floor, const struct row *legacy,
		const struct row *readback)
{
	char id[64], b[19][32];
	const struct run_result *m = &r->med;
	bool ok = m->ok;
	double na = NAN;

	if (!summary_csv)
		return;
	config_id(&r->cfg, id, sizeof(id));
	fprintf(summary_csv,
		"%s,%s,%s,%s,%u,%u,%s,%s,%s,%s,%s,%u,%u,%u,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
		opt.label, gl_yield(), r->group->name, glcuda_format_get_name(r->group->format),
		r->group->width,
		r->group->height, kernel_names[r->kernel], id, path_names[r->cfg.path],
		r->cfg.path == PATH_GLCUDA ? mode_name(r->cfg.mode) : "",
		r->cfg.path == PATH_GLCUDA ? policy_names[r->cfg.policy] : "",
		r->cfg.path == PATH_GLCUDA ? r->cfg.depth : 0,
		r->cfg.path == PATH_GLCUDA ? (r->cfg.depth < 2 ? 2 : r->cfg.depth) : 0,
		r->rep_count,
		fmt_num(b[0], 32, ok ? (double)m->frames : na, 0, ""),
		fmt_num(b[1], 32, ok ? m->fps : na, 1, ""),
		fmt_num(b[2], 32, ok ? r->spread_pct : na, 2, ""),
		fmt_num(b[3], 32, ok ? m->mean_us : na, 1, ""),
		fmt_num(b[4], 32, ok ? m->p50_us : na, 1, ""),
		fmt_num(b[5], 32, ok ? m->p99_us : na, 1, ""),
		fmt_num(b[6], 32, ok ? m->interop_cpu_us : na, 2, ""),
		fmt_num(b[7], 32, ok ? m->interop_wall_us : na, 2, ""),
		fmt_num(b[8], 32, ok ? m->blocked_us : na, 2, ""),
		fmt_num(b[9], 32, ok ? m->pacing_us : na, 1, ""),
		fmt_num(b[10], 32, ok ? m->process_cpu_us : na, 1, ""),
		fmt_num(b[11], 32, m->timing_count ? m->to_cuda_us : na, 1, ""),
		fmt_num(b[12], 32, m->timing_count ? m->to_gl_us : na, 1, ""),
		fmt_num(b[13], 32, m->timing_count ? m->gpu_total_us : na, 1, ""),
		fmt_num(b[14], 32, floor, 1, ""),
		fmt_num(b[15], 32, ok ? m->mean_us - floor : na, 1, ""),
		legacy && ok ? fmt_num(b[16], 32, m->fps / legacy->med.fps, 3, "") : "",
		readback && ok ? fmt_num(b[17], 32, m->fps / readback->med.fps, 2, "") : "",
		legacy && ok ? fmt_num(b[18], 32, m->process_cpu_us / legacy->med.process_cpu_us,
				       3, "") : "",
		ok ? "ok" : "failed");
}

void
csv_run_row(const struct row *r, const struct run_result *x, const char *rep)
{
	char id[64];

	if (!runs_csv || !x->ok)
		return;
	config_id(&r->cfg, id, sizeof(id));
	fprintf(runs_csv,
		"%s,%s,%s,%s,%s,%s,%s,%u,%.4f,%.2f,%.2f,%.2f,%.2f,%.3f,%.3f,%.3f,%.2f,%.2f,%u,%.2f,%.2f,%.2f,%.2f,%.2f,%llu\n",
		opt.label, gl_yield(), r->group->name, glcuda_format_get_name(r->group->format),
		kernel_names[r->kernel], id, rep, x->frames, x->seconds, x->fps, x->mean_us,
		x->p50_us, x->p99_us, x->interop_cpu_us, x->interop_wall_us, x->blocked_us,
		x->pacing_us, x->process_cpu_us, x->timing_count, x->to_cuda_us, x->to_gl_us,
		x->cuda_us, x->gl_render_us, x->gpu_total_us, (unsigned long long)x->dropped);
}

void
print_table(const struct group *g, enum kernel_kind k)
{
	const struct row *legacy = find_row(g, k, PATH_LEGACY);
	const struct row *readback = find_row(g, k, PATH_READBACK);
	double floor = floor_us(g, k);
	bool noisy = false;
	char b[12][32];

	md("\n### %ux%u %s, %s", g->width, g->height, glcuda_format_get_name(g->format),
	   kernel_names[k]);
	if (k == KERNEL_BLUR && cu.radius > 0)
		md(" (sigma %.1f px, radius %d)", cu.sigma, cu.radius);
	md("\n\n");
	md("| path | fps | ± | mean µs | p50 µs | p99 µs | interop CPU µs | blocked µs | "
	   "pacing µs | process CPU µs | hand-off →CUDA / →GL µs | to floor µs | ×legacy | "
	   "×readback | CPU ×legacy |\n");
	md("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
	for (unsigned int i = 0; i < row_count; i++) {
		const struct row *r = &rows[i];
		const struct run_result *m = &r->med;
		char label[128];

		if (r->group != g || r->kernel != k)
			continue;
		config_label(&r->cfg, label, sizeof(label));
		if (m->ok && m->dropped > 0) {
			size_t len = strlen(label);
			snprintf(label + len, sizeof(label) - len, " (%.0f of %u dropped)",
				 (double)m->dropped, m->frames);
		}
		if (!m->ok) {
			md("| %s | %s%s |||||||||||||\n", label, r->skipped ? "" : "failed: ",
			   r->error);
			continue;
		}
		if (r->spread_pct > 3.0)
			noisy = true;
		if (m->timing_count)
			snprintf(b[0], 32, "%.0f / %.0f", m->to_cuda_us, m->to_gl_us);
		else
			snprintf(b[0], 32, "-");
		md("| %s | %.0f | %.1f%%%s | %.0f | %.0f | %.0f | %s | %s | %s | %.0f | %s | %s | %s | %s | %s |\n",
		   label, m->fps, r->spread_pct, r->spread_pct > 3.0 ? " (!)" : "", m->mean_us,
		   m->p50_us, m->p99_us,
		   r->cfg.path == PATH_GL || r->cfg.path == PATH_CUDA
			   ? "-" : fmt_num(b[1], 32, m->interop_cpu_us, 1, "-"),
		   r->cfg.path == PATH_GL || r->cfg.path == PATH_CUDA
			   ? "-" : fmt_num(b[2], 32, m->blocked_us, 1, "-"),
		   fmt_num(b[3], 32, m->pacing_us, 0, "-"), m->process_cpu_us, b[0],
		   r->cfg.path == PATH_GL || r->cfg.path == PATH_CUDA
			   ? "-" : fmt_num(b[4], 32, m->mean_us - floor, 0, "-"),
		   legacy ? fmt_num(b[5], 32, m->fps / legacy->med.fps, 2, "-") : "-",
		   readback ? fmt_num(b[6], 32, m->fps / readback->med.fps, 1, "-") : "-",
		   legacy ? fmt_num(b[7], 32, m->process_cpu_us / legacy->med.process_cpu_us, 2, "-")
			  : "-");
	}
	for (unsigned int i = 0; i < row_count; i++) {
		const struct row *r = &rows[i];
		if (r->group != g || r->kernel != k)
			continue;
		csv_summary_row(r, floor, legacy, readback);
	}
	if (!isnan(floor))
		md("\nFloor (GL alone + CUDA alone): %.0f µs/frame = %.0f fps.\n", floor, 1e6 / floor);
	if (noisy)
		md("\n(!) fps spread over the %u runs above 3 %%: rerun with more --frames or "
		   "--reps.\n", opt.reps);
	print_targets(g, k);
	if (md_file)
		fflush(md_file);
	if (summary_csv)
		fflush(summary_csv);
	fflush(stdout);
}

void
print_legend(void)
{
	md("\nColumns: **fps** frames per second (median of the runs); **±** spread of fps "
	   "over the runs, (max − min) / median; **mean / p50 / p99** wall time per frame "
	   "(CUDA alone: GPU time between CUDA events); **interop CPU** thread CPU time "
	   "inside the interop calls (glcuda_* for glcuda; map, get-array, unmap and "
	   "cuStreamSynchronize for legacy; glReadPixels, the PBO map, the copies, the "
	   "synchronisation and glTexSubImage2D for readback) — a spinning wait shows "
	   "here; **blocked** wall minus CPU time inside those calls: the thread slept "
	   "waiting for the GPU; **pacing** wall time waiting for GL to finish the frame "
	   "%u back (the swap-chain throttle, the same for every path); **process CPU** "
	   "user + system time of the whole process (all threads, driver threads "
	   "included) per frame; **hand-off** GPU-measured GL→CUDA and CUDA→GL latency "
	   "(glcuda_ring_get_timings, a separate run with GLCUDA_RING_FLAG_TIMINGS); "
	   "**to floor** mean frame time minus (GL alone + CUDA alone); **×legacy / "
	   "×readback** throughput ratio against those rows of the same table; **CPU "
	   "×legacy** process CPU per frame against legacy's.\n", opt.queue);
}

/* ---------------------------------------------------------------------- */
/* System description                                                       */

void
read_first_line(const char *path, const char *prefix, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	char line[512];

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!prefix || strncmp(line, prefix, strlen(prefix)) == 0) {
			char *s = line;
			if (prefix) {
				s = strchr(line, ':');
				s = s ? s + 1 : line;
				while (*s == ' ' || *s == '\t')
					s++;
			}
			s[strcspn(s, "\n")] = '\0';
			snprintf(buf, size, "%s", s);
			break;
		}
	}
	fclose(f);
}

void
print_system(const struct glcuda_headless *hl)
{
	char date[64], cpu[256], nv[512], gpu[256] = "?";
	const char *yield = getenv("__GL_YIELD");
	struct utsname un;
	time_t now = time(NULL);
	int driver = 0;

	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S %z", localtime(&now));
	read_first_line("/proc/cpuinfo", "model name", cpu, sizeof(cpu));
	read_first_line("/proc/driver/nvidia/version", NULL, nv, sizeof(nv));
	if (uname(&un) != 0)
		snprintf(un.release, sizeof(un.release), "?");

	md("## glcuda-bench, %s\n\n", opt.label);
	md("- command: `%s`\n", command_line);
	md("- date: %s\n", date);
	md("- __GL_YIELD: %s\n", yield && *yield ? yield : "(unset: NVIDIA's default, the driver "
	   "may spin the CPU while GL waits)");
	md("- glcuda %s; kernels built with the CUDA %d.%d headers\n", glcuda_get_version(),
	   CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
	md("- GL: %s; %s; %s\n", (const char *)glGetString(GL_VENDOR),
	   (const char *)glGetString(GL_RENDERER), (const char *)glGetString(GL_VERSION));
	md("- EGL: %s\n", glcuda_headless_get_description(hl));
	if (main_dev) {
		const struct glcuda_caps *caps = glcuda_device_get_caps(main_dev);
		CUdevice d = glcuda_device_get_cuda_device(main_dev);
		if (CU(cuDeviceGetName)(gpu, sizeof(gpu), d) != CUDA_SUCCESS)
			snprintf(gpu, sizeof(gpu), "%s", caps->cuda_device_name);
		if (CU(cuDriverGetVersion)(&driver) != CUDA_SUCCESS)
			driver = caps->cuda_driver_version;
		md("- GPU: %s (CUDA device %d); CUDA driver API %d.%d\n", gpu, caps->cuda_ordinal,
		   driver / 1000, driver % 1000 / 10);
		md("- sync modes the drivers support:");
		for (unsigned int i = 0; i < ARRAY_LENGTH(all_modes); i++)
			if (caps->sync_modes_supported & (1u << all_modes[i]))
				md(" %s", mode_name(all_modes[i]));
		md(" (default %s)\n", mode_name(caps->sync_mode));
		for (unsigned int i = 0; i < ARRAY_LENGTH(mode_devs); i++)
			if (mode_devs[i].mode && !mode_devs[i].dev)
				md("- %s mode: no device: %s\n", mode_name(mode_devs[i].mode),
				   mode_devs[i].error);
	}
	if (nv[0])
		md("- NVIDIA kernel module: %s\n", nv);
	md("- host: %s, %ld CPUs, Linux %s\n", cpu[0] ? cpu : "?", sysconf(_SC_NPROCESSORS_ONLN),
	   un.release);
	md("- per run: %u warm-up frames, then up to %u frames or %.1f s (at least %u); %u runs "
	   "per configuration, interleaved; the CPU runs at most %u frame%s ahead of GL\n",
	   opt.warmup, opt.frames, opt.max_seconds, opt.min_frames, opt.reps, opt.queue,
	   opt.queue == 1 ? "" : "s");
}

/* ---------------------------------------------------------------------- */
