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
	r->drops = false;
	r->max_drop_pct = 0;
	for (unsigned int i = 0; i < r->rep_count; i++) {
		if (!r->reps[i].ok)
			continue;
		if (r->reps[i].drop_pct > 0 || r->reps[i].dropped > 0)
			r->drops = true;
		if (r->reps[i].drop_pct > r->max_drop_pct)
			r->max_drop_pct = r->reps[i].drop_pct;
	}
	if (!ok) {
		r->spread_pct = NAN;
		return;
	}
	MEDIAN_FIELD(r, fps);
	MEDIAN_FIELD(r, produced_fps);
	MEDIAN_FIELD(r, drop_pct);
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
	r->med.verified = true;
	for (unsigned int i = 0; i < r->rep_count; i++)
		if (r->reps[i].ok && !r->reps[i].verified)
			r->med.verified = false;
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
		if (rows[i].group == g && rows[i].kernel == k &&
		    rows[i].cfg.path == p && rows[i].med.ok)
			return &rows[i];
	return NULL;
}

const struct row *
best_row(const struct group *g, enum kernel_kind k, unsigned int paths)
{
	const struct row *best = NULL;

	for (unsigned int i = 0; i < row_count; i++) {
		const struct row *r = &rows[i];
		if (r->group != g || r->kernel != k ||
		    !(paths & (1u << r->cfg.path)) || !r->med.ok || r->drops)
			continue;
		if (!best || r->med.fps > best->med.fps)
			best = r;
	}
	return best;
}

#define LEGACY_PATHS ((1u << PATH_LEGACY) | (1u << PATH_LEGACY_NOSYNC))

/* The readback row as a ratio's reference: only if it dropped nothing. */
static const struct row *
readback_ref(const struct group *g, enum kernel_kind k)
{
	return best_row(g, k, 1u << PATH_READBACK);
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
	const struct row *legacy = best_row(g, k, LEGACY_PATHS);
	const struct row *readback = readback_ref(g, k);
	const struct row *best = NULL;
	double worst_cpu = 0, worst_blocked = 0;
	char id[64], b1[32], b2[32];

	/* Only rows that composite every frame they produce. */
	for (unsigned int i = 0; i < row_count; i++) {
		const struct row *r = &rows[i];
		if (r->group != g || r->kernel != k ||
		    r->cfg.path != PATH_GLCUDA || !r->med.ok || r->drops ||
		    r->cfg.mode == GLCUDA_SYNC_CPU)
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
	md("\nTargets (doc/design.md §7), fastest GPU-synchronised glcuda row "
	   "that composites every frame, `%s`:\n",
	   id);
	if (legacy) {
		double x = best->med.fps / legacy->med.fps;
		double want = is_4k_class(g) ? 1.25 : 1.5;
		double cpu =
			best->med.process_cpu_us / legacy->med.process_cpu_us;
		char lid[64];
		config_id(&legacy->cfg, lid, sizeof(lid));
		md("- throughput %s× the best legacy row `%s` (target ≥ "
		   "%.2f×): %s\n",
		   fmt_num(b1, sizeof(b1), x, 2, "-"), lid, want,
		   x >= want ? "met" : "**not met**");
		md("- process CPU %s× that row's (target ≤ 0.3×): %s\n",
		   fmt_num(b2, sizeof(b2), cpu, 2, "-"),
		   cpu <= 0.3 ? "met" : "**not met**");
	}
	if (readback) {
		double x = best->med.fps / readback->med.fps;
		double want = is_4k_class(g) ? 15 : 10;
		md("- throughput %s× readback (target ≥ %.0f×): %s\n",
		   fmt_num(b1, sizeof(b1), x, 1, "-"), want,
		   x >= want ? "met" : "**not met**");
	}
	md("- in-call CPU of glcuda, worst GPU-synchronised row without drops: "
	   "%.1f µs/frame (target ≤ 10): %s\n",
	   worst_cpu, worst_cpu <= 10 ? "met" : "**not met**");
	md("- blocked inside glcuda calls, same rows: %.1f µs/frame (target 0; "
	   "< 1 counts as 0): %s\n",
	   worst_blocked, worst_blocked < 1 ? "met" : "**not met**");
}

void
csv_summary_row(const struct row *r, double floor, const struct row *legacy,
		const struct row *readback)
{
	char id[64], lid[64] = "", b[22][32];
	const struct run_result *m = &r->med;
	bool ok = m->ok;
	double na = NAN;

	if (!summary_csv)
		return;
	config_id(&r->cfg, id, sizeof(id));
	if (legacy)
		config_id(&legacy->cfg, lid, sizeof(lid));
	fprintf(summary_csv,
		"%s,%s,%s,%s,%u,%u,%s,%s,%s,%s,%s,%u,%u,%u,%s,%s,%s,%s,%s,%s,"
		"%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
		opt.label, gl_yield(), r->group->name,
		glcuda_format_get_name(r->group->format), r->group->width,
		r->group->height, kernel_names[r->kernel], id,
		path_names[r->cfg.path],
		r->cfg.path == PATH_GLCUDA ? mode_name(r->cfg.mode) : "",
		r->cfg.path == PATH_GLCUDA ? policy_names[r->cfg.policy] : "",
		r->cfg.depth,
		r->cfg.path == PATH_GLCUDA
			? (r->cfg.depth < 2 ? 2 : r->cfg.depth)
		: r->cfg.path == PATH_READBACK ? READBACK_SLOTS
					       : r->cfg.depth,
		r->rep_count,
		fmt_num(b[0], 32, ok ? (double)m->frames : na, 0, ""),
		fmt_num(b[1], 32, ok ? m->fps : na, 1, ""),
		fmt_num(b[19], 32, ok ? m->produced_fps : na, 1, ""),
		fmt_num(b[20], 32, ok ? r->max_drop_pct : na, 2, ""),
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
		fmt_num(b[13], 32, m->timing_count ? m->gpu_total_us : na, 1,
			""),
		fmt_num(b[14], 32, floor, 1, ""),
		fmt_num(b[15], 32,
			ok && !r->drops && r->cfg.path != PATH_GL &&
					r->cfg.path != PATH_CUDA
				? m->mean_us - floor
				: na,
			1, ""),
		legacy && ok
			? fmt_num(b[16], 32, m->fps / legacy->med.fps, 3, "")
			: "",
		readback && ok
			? fmt_num(b[17], 32, m->fps / readback->med.fps, 2, "")
			: "",
		legacy && ok ? fmt_num(b[18], 32,
				       m->process_cpu_us /
					       legacy->med.process_cpu_us,
				       3, "")
			     : "",
		lid,
		!ok			 ? ""
		: r->cfg.path == PATH_GL ? "n/a"
		: m->verified		 ? "exact"
					 : "no",
		ok ? (r->drops ? "drops" : "ok") : "failed");
}

void
csv_run_row(const struct row *r, const struct run_result *x, const char *rep)
{
	char id[64];

	if (!runs_csv || !x->ok)
		return;
	config_id(&r->cfg, id, sizeof(id));
	fprintf(runs_csv,
		"%s,%s,%s,%s,%s,%s,%s,%u,%u,%.4f,%.2f,%.2f,%.3f,%.2f,%.2f,%.2f,"
		"%.3f,%.3f,%.3f,%.2f,%.2f,%u,%.2f,%.2f,%.2f,%.2f,%.2f,%llu,"
		"%s\n",
		opt.label, gl_yield(), r->group->name,
		glcuda_format_get_name(r->group->format),
		kernel_names[r->kernel], id, rep, x->frames, x->composited,
		x->seconds, x->fps, x->produced_fps, x->drop_pct, x->mean_us,
		x->p50_us, x->p99_us, x->interop_cpu_us, x->interop_wall_us,
		x->blocked_us, x->pacing_us, x->process_cpu_us, x->timing_count,
		x->to_cuda_us, x->to_gl_us, x->cuda_us, x->gl_render_us,
		x->gpu_total_us, (unsigned long long)x->dropped,
		r->cfg.path == PATH_GL ? "n/a"
		: x->verified	       ? "exact"
				       : "no");
}

void
print_table(const struct group *g, enum kernel_kind k)
{
	const struct row *legacy = best_row(g, k, LEGACY_PATHS);
	const struct row *readback = readback_ref(g, k);
	double floor = floor_us(g, k);
	bool noisy = false, any_drops = false;
	char b[12][32];

	md("\n### %ux%u %s, %s", g->width, g->height,
	   glcuda_format_get_name(g->format), kernel_names[k]);
	if (k == KERNEL_BLUR && cu.radius > 0)
		md(" (sigma %.1f px, radius %d)", cu.sigma, cu.radius);
	md("\n\n");
	md("| path | fps (composited) | produced fps | ± | mean µs | p50 µs | "
	   "p99 µs | in-call CPU µs | process CPU µs | blocked µs | pacing µs "
	   "| hand-off →CUDA / →GL µs | to floor µs | ×best legacy | ×readback "
	   "| process CPU ×best legacy | output |\n");
	md("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--"
	   "-|\n");
	for (unsigned int i = 0; i < row_count; i++) {
		const struct row *r = &rows[i];
		const struct run_result *m = &r->med;
		bool interop =
			r->cfg.path != PATH_GL && r->cfg.path != PATH_CUDA;
		char label[160];

		if (r->group != g || r->kernel != k)
			continue;
		config_label(&r->cfg, label, sizeof(label));
		if (m->ok && r->drops) {
			size_t len = strlen(label);
			any_drops = true;
			snprintf(label + len, sizeof(label) - len,
				 " — **drops %.0f%%**", r->max_drop_pct);
		}
		if (!m->ok) {
			md("| %s | %s%s ||||||||||||||||\n", label,
			   r->skipped ? "" : "failed: ", r->error);
			continue;
		}
		if (r->spread_pct > 3.0)
			noisy = true;
		if (m->timing_count)
			snprintf(b[0], 32, "%.0f / %.0f", m->to_cuda_us,
				 m->to_gl_us);
		else
			snprintf(b[0], 32, "-");
		md("| %s | %.0f | %.0f | %.1f%%%s | %.0f | %.0f | %.0f | %s | "
		   "%.0f | %s | %s | %s | %s | %s | %s | %s | %s |\n",
		   label, m->fps, m->produced_fps, r->spread_pct,
		   r->spread_pct > 3.0 ? " (!)" : "", m->mean_us, m->p50_us,
		   m->p99_us,
		   interop ? fmt_num(b[1], 32, m->interop_cpu_us, 1, "-") : "-",
		   m->process_cpu_us,
		   interop ? fmt_num(b[2], 32, m->blocked_us, 1, "-") : "-",
		   fmt_num(b[3], 32, m->pacing_us, 0, "-"), b[0],
		   interop && !r->drops
			   ? fmt_num(b[4], 32, m->mean_us - floor, 0, "-")
			   : "-",
		   legacy ? fmt_num(b[5], 32, m->fps / legacy->med.fps, 2, "-")
			  : "-",
		   readback ? fmt_num(b[6], 32, m->fps / readback->med.fps, 1,
				      "-")
			    : "-",
		   legacy ? fmt_num(b[7], 32,
				    m->process_cpu_us /
					    legacy->med.process_cpu_us,
				    2, "-")
			  : "-",
		   r->cfg.path == PATH_GL ? "-"
		   : m->verified	  ? "exact"
					  : "**wrong**");
	}
	for (unsigned int i = 0; i < row_count; i++) {
		const struct row *r = &rows[i];
		if (r->group != g || r->kernel != k)
			continue;
		csv_summary_row(r, floor, legacy, readback);
	}
	if (!isnan(floor))
		md("\nFloor (GL alone + CUDA alone): %.0f µs/frame = %.0f "
		   "fps.\n",
		   floor, 1e6 / floor);
	if (legacy) {
		char id[64], label[160];
		config_id(&legacy->cfg, id, sizeof(id));
		config_label(&legacy->cfg, label, sizeof(label));
		md("\n×best legacy: against `%s` (%s), the legacy row with the "
		   "most composited frames per second.\n",
		   id, label);
	}
	if (any_drops)
		md("\nRows marked **drops** composited fewer frames than they "
		   "produced: their fps counts composited frames, and they are "
		   "never a ratio's reference, a headline or a target check; "
		   "their distance to the floor is not given.\n");
	if (noisy)
		md("\n(!) fps spread over the %u runs above 3 %%: rerun with "
		   "more --frames or --reps.\n",
		   opt.reps);
	print_targets(g, k);
	if (md_file)
		fflush(md_file);
	if (summary_csv)
		fflush(summary_csv);
	fflush(stdout);
}

/* One line of the headline table: a row's composited fps, its ratio to
 * the best legacy row, its distance to the floor and its CPU. */
static void
headline_line(FILE *f, const char *what, const struct group *g,
	      enum kernel_kind k, const struct row *r, const struct row *legacy,
	      double floor)
{
	char id[64], b[5][32];

	if (!r) {
		fprintf(f, "| %s %s | %s | - | - | - | - | - | - |\n", g->name,
			kernel_names[k], what);
		return;
	}
	config_id(&r->cfg, id, sizeof(id));
	fprintf(f, "| %s %s | %s `%s` | %.0f | %s | %s | %s | %s | %s |\n",
		g->name, kernel_names[k], what, id, r->med.fps,
		legacy ? fmt_num(b[0], 32, r->med.fps / legacy->med.fps, 2, "-")
		       : "-",
		fmt_num(b[1], 32, r->med.mean_us - floor, 0, "-"),
		fmt_num(b[2], 32, r->med.interop_cpu_us, 1, "-"),
		fmt_num(b[3], 32, r->med.process_cpu_us, 0, "-"),
		fmt_num(b[4], 32, floor, 0, "-"));
}

void
write_headline(FILE *f)
{
	fprintf(f, "\n### Headline\n\n"
		   "Per size and kernel: the best glcuda row, the best legacy "
		   "row and the readback, each the row with the most "
		   "composited frames per second among those that composite "
		   "every frame they produce and whose last frame matched the "
		   "reference exactly. **to floor**: time per composited frame "
		   "minus (GL alone + CUDA alone). **in-call CPU**: thread CPU "
		   "inside the path's calls; **process CPU**: every thread of "
		   "the process, the driver's included.\n\n"
		   "| size, kernel | row | fps (composited) | ×best legacy | "
		   "to floor µs | in-call CPU µs/frame | process CPU µs/frame "
		   "| floor µs |\n"
		   "|---|---|--:|--:|--:|--:|--:|--:|\n");
	for (unsigned int gi = 0; gi < opt.group_count; gi++) {
		const struct group *g = &opt.groups[gi];
		for (unsigned int k = 0; k < KERNEL_COUNT; k++) {
			const struct row *legacy;
			double floor;
			bool any = false;

			for (unsigned int i = 0; i < row_count; i++)
				if (rows[i].group == g && rows[i].kernel == k)
					any = true;
			if (!any)
				continue;
			legacy = best_row(g, (enum kernel_kind)k, LEGACY_PATHS);
			floor = floor_us(g, (enum kernel_kind)k);
			headline_line(f, "glcuda", g, (enum kernel_kind)k,
				      best_row(g, (enum kernel_kind)k,
					       1u << PATH_GLCUDA),
				      legacy, floor);
			headline_line(f, "legacy", g, (enum kernel_kind)k,
				      legacy, legacy, floor);
			headline_line(f, "readback", g, (enum kernel_kind)k,
				      readback_ref(g, (enum kernel_kind)k),
				      legacy, floor);
		}
	}
}

void
print_legend(void)
{
	md("\nColumns: **fps (composited)** frames per second that GL drew "
	   "into the screen texture (median of the runs) — the throughput "
	   "every ratio uses; **produced fps** frames rendered and pushed "
	   "through the path per second (higher only where a row drops frames: "
	   "marked **drops N%%**); **±** spread of fps over the runs, (max − "
	   "min) / median; **mean** wall time per composited frame; **p50 / "
	   "p99** wall time per produced frame (CUDA alone: GPU time between "
	   "CUDA events); **in-call CPU** thread CPU time inside the path's "
	   "calls, per composited frame (glcuda_* for glcuda; map, get-array, "
	   "unmap and cuStreamSynchronize for legacy; the readback's reads, "
	   "fence waits, copies, event checks and uploads; for bare, the "
	   "semaphore, flush, event, host-function and push/pop calls glcuda "
	   "makes per frame) — a spinning wait "
	   "shows here, but the driver's own threads (CUDA's host-function "
	   "thread, which runs glcuda's completion callbacks) do not; "
	   "**process CPU** user + system time of the whole process, all "
	   "threads and the driver's included, per composited frame; "
	   "**blocked** wall minus CPU time inside those calls: the thread "
	   "slept waiting for the GPU; **pacing** wall time waiting for GL to "
	   "finish the frame %u back (the swap-chain throttle, the same for "
	   "every path) and, for glcuda's ready and newest policies, sleeping "
	   "on the ring's fd; **hand-off** GPU-measured GL→CUDA and CUDA→GL "
	   "latency (glcuda_ring_read_timings, a separate run with "
	   "GLCUDA_RING_FLAG_TIMINGS); **to floor** mean frame time minus (GL "
	   "alone + CUDA alone), rows without drops only; **×best legacy** "
	   "throughput against the legacy row with the most composited fps "
	   "(named under each table), **×readback** against the readback row; "
	   "**process CPU ×best legacy** against that legacy row's; **output** "
	   "the last composited frame read back after the run and compared bit "
	   "for bit with the same frame's pattern put through the same kernel "
	   "on its own.\n",
	   opt.queue);
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
	md("- __GL_YIELD: %s\n", yield && *yield ? yield
						 : "(unset: NVIDIA's default, "
						   "the driver may spin the "
						   "CPU while GL waits)");
	md("- glcuda %s; kernels built with the CUDA %d.%d headers\n",
	   glcuda_get_version(), CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
	md("- GL: %s; %s; %s\n", (const char *)glGetString(GL_VENDOR),
	   (const char *)glGetString(GL_RENDERER),
	   (const char *)glGetString(GL_VERSION));
	md("- EGL: %s\n", glcuda_headless_get_description(hl));
	if (main_dev) {
		const struct glcuda_caps *caps =
			glcuda_device_get_caps(main_dev);
		CUdevice d = glcuda_device_get_cuda_device(main_dev);
		if (CU(cuDeviceGetName)(gpu, sizeof(gpu), d) != CUDA_SUCCESS)
			snprintf(gpu, sizeof(gpu), "%s",
				 caps->cuda_device_name);
		if (CU(cuDriverGetVersion)(&driver) != CUDA_SUCCESS)
			driver = caps->cuda_driver_version;
		md("- GPU: %s (CUDA device %d); CUDA driver API %d.%d\n", gpu,
		   caps->cuda_ordinal, driver / 1000, driver % 1000 / 10);
		md("- sync modes the drivers support:");
		for (unsigned int i = 0; i < ARRAY_LENGTH(all_modes); i++)
			if (caps->sync_modes_supported & (1u << all_modes[i]))
				md(" %s", mode_name(all_modes[i]));
		md(" (default %s)\n", mode_name(caps->sync_mode));
		for (unsigned int i = 0; i < ARRAY_LENGTH(mode_devs); i++)
			if (mode_devs[i].mode && !mode_devs[i].dev)
				md("- %s mode: no device: %s\n",
				   mode_name(mode_devs[i].mode),
				   mode_devs[i].error);
	}
	if (nv[0])
		md("- NVIDIA kernel module: %s\n", nv);
	md("- host: %s, %ld CPUs, Linux %s\n", cpu[0] ? cpu : "?",
	   sysconf(_SC_NPROCESSORS_ONLN), un.release);
	md("- per run: %u warm-up frames, then up to %u frames or %.1f s (at "
	   "least %u); %u runs per configuration, interleaved; the CPU runs at "
	   "most %u frame%s ahead of GL\n",
	   opt.warmup, opt.frames, opt.max_seconds, opt.min_frames, opt.reps,
	   opt.queue, opt.queue == 1 ? "" : "s");
}

/* ---------------------------------------------------------------------- */
