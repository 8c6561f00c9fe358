/*
 * glcuda-bench: the same GL -> CUDA -> GL frame pipeline through every way
 * of getting GL pixels to CUDA and back, one after another in one process,
 * with the same GL work and the same CUDA kernel (issue 5, DESIGN.md §7).
 *
 * Paths:
 *   gl              GL work alone (render + composite): half of the floor
 *   cuda            the CUDA kernel alone, GPU time (CUDA events): the other
 *   glcuda          the frame ring, per sync mode (a device per forced mode),
 *                   GL waiting at once or pipelined 2..4 frames deep
 *   legacy          cuGraphicsGLRegisterImage once, then per frame map /
 *                   get array / kernel / unmap / cuStreamSynchronize
 *   legacy-nosync   the same without cuStreamSynchronize (unmap alone orders
 *                   GL after CUDA): the strongest form of the legacy path
 *   readback        glReadPixels into a PBO, map, copy to CUDA, kernel, copy
 *                   back to pinned memory, glTexSubImage2D
 *   wrap-gl         the legacy path's GL textures wrapped by glcuda
 *                   (glcuda_image_wrap_gl_texture): hand-offs map and unmap
 *   wrap-egl        EGLImages of those textures wrapped by glcuda
 *                   (glcuda_image_wrap_egl_image): hand-offs by semaphores
 *
 * A frame: GL clears and draws into the input texture, the path hands it to
 * CUDA, the kernel writes the output, the path hands that back, and GL draws
 * the output into a "screen" texture. The CPU never runs more than --queue
 * frames ahead of GL (a fence per frame, as a swap chain would), so the
 * driver's own throttling does not land inside the calls being measured;
 * that wait is reported on its own.
 *
 * The program never links libcuda: every CUDA call goes through glcuda's
 * run-time loader table (CU(name)), loaded by the first glcuda device.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <glcuda/glcuda.h>
#include <glcuda/glcuda-cuda.h>
#include "loader/cuda-loader.h"

/* bench/bench-kernels.cu, embedded by scripts/embed-fatbin.sh. */
extern const unsigned char glcuda_bench_fatbin[];
extern const unsigned long glcuda_bench_fatbin_size;

#define ARRAY_LENGTH(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_GROUPS 8
#define MAX_DEPTH 4
#define MAX_REPS 9
#define MAX_QUEUE 8
#define MAX_RADIUS 63

/* ---------------------------------------------------------------------- */
/* Options                                                                  */

enum path_kind {
	PATH_GL,
	PATH_CUDA,
	PATH_LEGACY,
	PATH_LEGACY_NOSYNC,
	PATH_READBACK,
	PATH_WRAP_GL,
	PATH_WRAP_EGL,
	PATH_GLCUDA,
	PATH_COUNT,
};

static const char *const path_names[PATH_COUNT] = {
	"gl", "cuda", "legacy", "legacy-nosync", "readback", "wrap-gl", "wrap-egl", "glcuda",
};

enum kernel_kind { KERNEL_INVERT, KERNEL_BLUR, KERNEL_COUNT };
static const char *const kernel_names[KERNEL_COUNT] = { "invert", "blur" };

enum policy { POLICY_WAIT, POLICY_NEWEST, POLICY_COUNT };
static const char *const policy_names[POLICY_COUNT] = { "wait", "newest" };

/* Mode bits use enum glcuda_sync_mode values. */
static const enum glcuda_sync_mode all_modes[] = {
	GLCUDA_SYNC_TIMELINE, GLCUDA_SYNC_BINARY, GLCUDA_SYNC_CPU,
};

struct group {
	char name[32];
	uint32_t width, height;
	enum glcuda_format format;
	/* GL */
	GLenum internal_format, pixel_type;
	unsigned int bpp;
	GLuint screen_tex, screen_fbo;
};

struct options {
	struct group groups[MAX_GROUPS];
	unsigned int group_count;
	unsigned int kernels;  /* bits of enum kernel_kind */
	unsigned int paths;    /* bits of enum path_kind */
	unsigned int modes;    /* bits 1 << enum glcuda_sync_mode */
	unsigned int depths;   /* bits 1 << depth, 1..4 */
	unsigned int policies; /* bits of enum policy */
	unsigned int frames, warmup, reps, min_frames, timing_frames;
	double max_seconds, time_limit;
	unsigned int queue;
	double blur_sigma;
	const char *out_dir;
	char label[64];
	int cuda_device;
	bool gl_only, dry_run;
	const char *preset;
};

static struct options opt;
static char command_line[2048];

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: glcuda-bench [OPTIONS]\n"
		"\n"
		"Runs the same GL -> CUDA -> GL frame pipeline through glcuda's ring (each\n"
		"sync mode, GL waiting at once and pipelined), the legacy cuGraphicsGL\n"
		"registration, a PBO readback, and the GL and CUDA references; prints a\n"
		"markdown table per size and kernel and writes them with CSVs to --out.\n"
		"\n"
		"Presets (later options override them):\n"
		"  --quick            1080p,4k; invert,blur; depths 1,2; 150 frames, 3 reps\n"
		"                     (about 1.5-2 minutes)\n"
		"  --full             1080p,4k,4k-f16; invert,blur; depths 1-4; wait and\n"
		"                     newest; legacy-nosync too; 300 frames, 3 reps (about\n"
		"                     8 minutes; the default)\n"
		"Selection (comma-separated lists):\n"
		"  --sizes LIST       1080p, 4k, 1080p-f16, 4k-f16 or WxH[-f16] (RGBA8 or RGBA16F)\n"
		"  --kernels LIST     invert, blur\n"
		"  --paths LIST       gl, cuda, glcuda, legacy, legacy-nosync, readback,\n"
		"                     wrap-gl, wrap-egl\n"
		"  --modes LIST       timeline, binary, cpu (glcuda sync modes; each gets a\n"
		"                     device with options.sync_mode forced)\n"
		"  --depths LIST      frames in flight for glcuda, 1..4 (1 = GL waits at once;\n"
		"                     the ring has max(2, depth) slots)\n"
		"  --policies LIST    wait   = glcuda_frame_wait_gl on the oldest frame once\n"
		"                              `depth` frames are in flight (no CPU wait)\n"
		"                     newest = glcuda_ring_take_newest once `depth` frames\n"
		"                              are in flight (polls the ready fd if none is\n"
		"                              ready; older ready frames are dropped)\n"
		"Measurement:\n"
		"  --frames N         measured frames per run (default 300)\n"
		"  --warmup N         frames run before measuring (default 50)\n"
		"  --reps N           runs per configuration, interleaved (default 3, max %d)\n"
		"  --max-seconds S    stop a run after S seconds of measuring (default 2)\n"
		"  --min-frames N     ... but not before N frames (default 30)\n"
		"  --time-limit S     start no run after S seconds; the rest are reported as\n"
		"                     skipped (default: none)\n"
		"  --queue K          frames the CPU may run ahead of GL (default 2; 0 lets\n"
		"                     the driver throttle inside whatever GL call it likes)\n"
		"  --timing-frames N  one more run per glcuda configuration with\n"
		"                     GLCUDA_RING_FLAG_TIMINGS for the GPU-measured hand-off\n"
		"                     latency (default 200; 0: none)\n"
		"  --blur-sigma S     Gaussian sigma in pixels (default 4 at 1080 lines,\n"
		"                     scaled with the height, as the demo's blur)\n"
		"Output:\n"
		"  --out DIR          write bench-LABEL.md, summary-LABEL.csv and\n"
		"                     runs-LABEL.csv there (default: no files)\n"
		"  --label NAME       (default: yield-<$__GL_YIELD or default>)\n"
		"  --cuda-device N    CUDA device ordinal (default 0)\n"
		"  --dry-run          print the plan and the time estimate, run nothing\n"
		"  --gl-only          run only the GL reference (a machine without CUDA)\n"
		"  --help\n"
		"\n"
		"Set __GL_YIELD=USLEEP to keep NVIDIA's GL driver from spinning the CPU\n"
		"while it waits; bench/run.sh runs both settings.\n",
		MAX_REPS);
}

static void
set_preset(const char *name)
{
	bool quick = strcmp(name, "quick") == 0;

	opt.preset = quick ? "quick" : "full";
	opt.group_count = 0;
	opt.kernels = (1u << KERNEL_INVERT) | (1u << KERNEL_BLUR);
	opt.paths = (1u << PATH_GL) | (1u << PATH_CUDA) | (1u << PATH_LEGACY) |
		    (1u << PATH_READBACK) | (1u << PATH_WRAP_GL) | (1u << PATH_WRAP_EGL) |
		    (1u << PATH_GLCUDA);
	if (!quick)
		opt.paths |= 1u << PATH_LEGACY_NOSYNC;
	opt.modes = (1u << GLCUDA_SYNC_TIMELINE) | (1u << GLCUDA_SYNC_BINARY) |
		    (1u << GLCUDA_SYNC_CPU);
	opt.depths = quick ? (1u << 1) | (1u << 2) : (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4);
	opt.policies = (1u << POLICY_WAIT) | (1u << POLICY_NEWEST);
	opt.frames = quick ? 150 : 300;
	opt.warmup = quick ? 30 : 50;
	opt.reps = 3;
	opt.min_frames = 30;
	opt.max_seconds = quick ? 1.0 : 2.0;
	opt.timing_frames = quick ? 100 : 200;
}

static int
parse_group(const char *s, struct group *g)
{
	unsigned int w = 0, h = 0;
	const char *rest;
	char *end;

	memset(g, 0, sizeof(*g));
	if (strncmp(s, "1080p", 5) == 0) {
		w = 1920, h = 1080, rest = s + 5;
	} else if (strncmp(s, "4k", 2) == 0 || strncmp(s, "4K", 2) == 0) {
		w = 3840, h = 2160, rest = s + 2;
	} else if (strncmp(s, "720p", 4) == 0) {
		w = 1280, h = 720, rest = s + 4;
	} else {
		w = (unsigned int)strtoul(s, &end, 10);
		if (end == s || (*end != 'x' && *end != 'X'))
			return -1;
		s = end + 1;
		h = (unsigned int)strtoul(s, &end, 10);
		if (end == s)
			return -1;
		rest = end;
	}
	if (w == 0 || h == 0 || w > 16384 || h > 16384)
		return -1;
	if (*rest == '\0' || strcmp(rest, "-rgba8") == 0) {
		g->format = GLCUDA_FORMAT_RGBA8;
		g->internal_format = GL_RGBA8;
		g->pixel_type = GL_UNSIGNED_BYTE;
		g->bpp = 4;
	} else if (strcmp(rest, "-f16") == 0 || strcmp(rest, "-rgba16f") == 0) {
		g->format = GLCUDA_FORMAT_RGBA16F;
		g->internal_format = GL_RGBA16F;
		g->pixel_type = GL_HALF_FLOAT;
		g->bpp = 8;
	} else {
		return -1;
	}
	g->width = w;
	g->height = h;
	if (w == 1920 && h == 1080)
		snprintf(g->name, sizeof(g->name), "1080p");
	else if (w == 3840 && h == 2160)
		snprintf(g->name, sizeof(g->name), "4k");
	else if (w == 1280 && h == 720)
		snprintf(g->name, sizeof(g->name), "720p");
	else
		snprintf(g->name, sizeof(g->name), "%ux%u", w, h);
	if (g->format == GLCUDA_FORMAT_RGBA16F)
		strncat(g->name, "-f16", sizeof(g->name) - strlen(g->name) - 1);
	return 0;
}

/* Parse a comma-separated list of names into bits; returns -1 naming the bad
 * item. */
static int
parse_names(const char *list, const char *const *names, unsigned int count,
	    unsigned int *bits, const char *what)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", list);
	*bits = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned int i;
		for (i = 0; i < count; i++)
			if (names[i] && strcmp(tok, names[i]) == 0)
				break;
		if (i == count) {
			fprintf(stderr, "glcuda-bench: unknown %s \"%s\"\n", what, tok);
			return -1;
		}
		*bits |= 1u << i;
	}
	if (!*bits) {
		fprintf(stderr, "glcuda-bench: empty %s list\n", what);
		return -1;
	}
	return 0;
}

static int
parse_uint(const char *s, unsigned int lo, unsigned int hi, unsigned int *out,
	   const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "glcuda-bench: %s must be %u..%u, not \"%s\"\n", what, lo, hi, s);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

static int
parse_double(const char *s, double lo, double hi, double *out, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "glcuda-bench: %s must be %g..%g, not \"%s\"\n", what, lo, hi, s);
		return -1;
	}
	*out = v;
	return 0;
}

enum {
	OPT_QUICK = 256, OPT_FULL, OPT_SIZES, OPT_KERNELS, OPT_PATHS, OPT_MODES,
	OPT_DEPTHS, OPT_POLICIES, OPT_FRAMES, OPT_WARMUP, OPT_REPS, OPT_MAX_SECONDS,
	OPT_MIN_FRAMES, OPT_QUEUE, OPT_TIMING_FRAMES, OPT_BLUR_SIGMA, OPT_OUT,
	OPT_LABEL, OPT_CUDA_DEVICE, OPT_DRY_RUN, OPT_GL_ONLY, OPT_HELP, OPT_TIME_LIMIT,
};

static const struct option long_options[] = {
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "full", no_argument, NULL, OPT_FULL },
	{ "sizes", required_argument, NULL, OPT_SIZES },
	{ "kernels", required_argument, NULL, OPT_KERNELS },
	{ "paths", required_argument, NULL, OPT_PATHS },
	{ "modes", required_argument, NULL, OPT_MODES },
	{ "depths", required_argument, NULL, OPT_DEPTHS },
	{ "policies", required_argument, NULL, OPT_POLICIES },
	{ "frames", required_argument, NULL, OPT_FRAMES },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "reps", required_argument, NULL, OPT_REPS },
	{ "max-seconds", required_argument, NULL, OPT_MAX_SECONDS },
	{ "min-frames", required_argument, NULL, OPT_MIN_FRAMES },
	{ "time-limit", required_argument, NULL, OPT_TIME_LIMIT },
	{ "queue", required_argument, NULL, OPT_QUEUE },
	{ "timing-frames", required_argument, NULL, OPT_TIMING_FRAMES },
	{ "blur-sigma", required_argument, NULL, OPT_BLUR_SIGMA },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "cuda-device", required_argument, NULL, OPT_CUDA_DEVICE },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "gl-only", no_argument, NULL, OPT_GL_ONLY },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static int
parse_options(int argc, char **argv)
{
	static const char *const mode_names[] = { NULL, "timeline", "binary", "cpu" };
	const char *sizes = NULL;
	const char *yield;
	unsigned int v;
	int c;

	/* Pass 1: the preset, so that every other option overrides it
	 * wherever it stands. */
	set_preset("full");
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			set_preset("quick");
		else if (strcmp(argv[i], "--full") == 0)
			set_preset("full");
	}
	opt.queue = 2;
	opt.cuda_device = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_QUICK:
		case OPT_FULL:
			break;
		case OPT_SIZES:
			sizes = optarg;
			break;
		case OPT_KERNELS:
			if (parse_names(optarg, kernel_names, KERNEL_COUNT, &opt.kernels, "kernel") < 0)
				return -1;
			break;
		case OPT_PATHS:
			if (parse_names(optarg, path_names, PATH_COUNT, &opt.paths, "path") < 0)
				return -1;
			break;
		case OPT_MODES:
			if (parse_names(optarg, mode_names, ARRAY_LENGTH(mode_names), &opt.modes,
					"sync mode") < 0)
				return -1;
			break;
		case OPT_DEPTHS: {
			static const char *const depth_names[] = { NULL, "1", "2", "3", "4" };
			if (parse_names(optarg, depth_names, ARRAY_LENGTH(depth_names), &opt.depths,
					"depth") < 0)
				return -1;
			break;
		}
		case OPT_POLICIES:
			if (parse_names(optarg, policy_names, POLICY_COUNT, &opt.policies, "policy") < 0)
				return -1;
			break;
		case OPT_FRAMES:
			if (parse_uint(optarg, 1, 1000000, &opt.frames, "--frames") < 0)
				return -1;
			break;
		case OPT_WARMUP:
			if (parse_uint(optarg, 0, 100000, &opt.warmup, "--warmup") < 0)
				return -1;
			break;
		case OPT_REPS:
			if (parse_uint(optarg, 1, MAX_REPS, &opt.reps, "--reps") < 0)
				return -1;
			break;
		case OPT_MAX_SECONDS:
			if (parse_double(optarg, 0.01, 3600, &opt.max_seconds, "--max-seconds") < 0)
				return -1;
			break;
		case OPT_MIN_FRAMES:
			if (parse_uint(optarg, 1, 1000000, &opt.min_frames, "--min-frames") < 0)
				return -1;
			break;
		case OPT_TIME_LIMIT:
			if (parse_double(optarg, 1, 1e6, &opt.time_limit, "--time-limit") < 0)
				return -1;
			break;
		case OPT_QUEUE:
			if (parse_uint(optarg, 0, MAX_QUEUE, &opt.queue, "--queue") < 0)
				return -1;
			break;
		case OPT_TIMING_FRAMES:
			if (parse_uint(optarg, 0, 1000000, &opt.timing_frames, "--timing-frames") < 0)
				return -1;
			break;
		case OPT_BLUR_SIGMA:
			if (parse_double(optarg, 0, 20, &opt.blur_sigma, "--blur-sigma") < 0)
				return -1;
			break;
		case OPT_OUT:
			opt.out_dir = optarg;
			break;
		case OPT_LABEL:
			for (const char *p = optarg; *p; p++)
				if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.') {
					fprintf(stderr, "glcuda-bench: --label: letters, digits, '-', "
						"'_' and '.' only\n");
					return -1;
				}
			snprintf(opt.label, sizeof(opt.label), "%s", optarg);
			break;
		case OPT_CUDA_DEVICE:
			if (parse_uint(optarg, 0, 64, &v, "--cuda-device") < 0)
				return -1;
			opt.cuda_device = (int)v;
			break;
		case OPT_DRY_RUN:
			opt.dry_run = true;
			break;
		case OPT_GL_ONLY:
			opt.gl_only = true;
			break;
		case OPT_HELP:
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "glcuda-bench: unexpected argument \"%s\"\n", argv[optind]);
		return -1;
	}

	if (!sizes)
		sizes = strcmp(opt.preset, "quick") == 0 ? "1080p,4k" : "1080p,4k,4k-f16";
	{
		char buf[256], *save = NULL, *tok;
		snprintf(buf, sizeof(buf), "%s", sizes);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (opt.group_count == MAX_GROUPS) {
				fprintf(stderr, "glcuda-bench: at most %d sizes\n", MAX_GROUPS);
				return -1;
			}
			if (parse_group(tok, &opt.groups[opt.group_count]) < 0) {
				fprintf(stderr, "glcuda-bench: bad size \"%s\" (1080p, 4k, "
					"4k-f16, WxH or WxH-f16)\n", tok);
				return -1;
			}
			opt.group_count++;
		}
		if (opt.group_count == 0) {
			fprintf(stderr, "glcuda-bench: no sizes\n");
			return -1;
		}
	}
	if (opt.gl_only)
		opt.paths = 1u << PATH_GL;
	if (opt.min_frames > opt.frames)
		opt.min_frames = opt.frames;

	if (!opt.label[0]) {
		yield = getenv("__GL_YIELD");
		snprintf(opt.label, sizeof(opt.label), "yield-%s",
			 yield && *yield ? yield : "default");
		for (char *p = opt.label; *p; p++) {
			*p = (char)tolower((unsigned char)*p);
			if (!isalnum((unsigned char)*p) && *p != '-')
				*p = '_';
		}
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Clocks, meters, errors                                                   */

static uint64_t
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
process_cpu_ns(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

/* Wall and thread-CPU time spent inside a class of calls. */
struct meter {
	uint64_t wall_ns, cpu_ns;
};

/* The interop calls of the path being measured (glcuda_*, cuGraphics*,
 * the readback copies) and the frame pacing wait. */
static struct meter interop_meter, pacing_meter;

#define METER(m, ...)                                          \
	do {                                                   \
		uint64_t w0_ = now_ns(), c0_ = thread_cpu_ns(); \
		__VA_ARGS__;                                   \
		(m).cpu_ns += thread_cpu_ns() - c0_;           \
		(m).wall_ns += now_ns() - w0_;                 \
	} while (0)

static char run_error[1024];

static int GLCUDA_PRINTF(1, 2)
fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(run_error, sizeof(run_error), fmt, ap);
	va_end(ap);
	return -1;
}

static int
cu_check(CUresult res, const char *call)
{
	char buf[256];
	if (res == CUDA_SUCCESS)
		return 0;
	return fail("%s: %s", call, cuda_result_string(res, buf, sizeof(buf)));
}

static int
glcuda_check(int ret, const char *call)
{
	if (ret >= 0)
		return 0;
	return fail("%s: %s (%s): %s", call, glcuda_error_get_name(ret), glcuda_strerror(ret),
		    glcuda_get_last_error());
}

static int
gl_check(const char *what)
{
	GLenum err = glGetError(), first = err;
	if (err == GL_NO_ERROR)
		return 0;
	while (err != GL_NO_ERROR)
		err = glGetError();
	return fail("GL error 0x%04x %s", first, what);
}

#define CU_TRY(name, ...) \
	do { if (cu_check(CU(name)(__VA_ARGS__), #name) < 0) return -1; } while (0)

/* ---------------------------------------------------------------------- */
/* GL: the render, the composite, the pacing                                */

static struct {
	GLuint scene_prog, composite_prog, vao, sampler;
	GLint scene_t_loc, scene_size_loc;
	GLsync fences[MAX_QUEUE];
	unsigned int fence_head, fence_count;
} gl;

static const char scene_vs[] =
	"#version 330 core\n"
	"void main() {\n"
	"  vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);\n"
	"  gl_Position = vec4(p, 0.0, 1.0);\n"
	"}\n";

/* A cheap per-pixel pattern that changes every frame: the GL work is a
 * clear plus one full-screen draw, as a compositor's simplest frame. */
static const char scene_fs[] =
	"#version 330 core\n"
	"uniform float t;\n"
	"uniform vec2 size;\n"
	"out vec4 color;\n"
	"void main() {\n"
	"  vec2 uv = gl_FragCoord.xy / size;\n"
	"  color = vec4(uv.x, uv.y, fract(t + uv.x * uv.y), 1.0);\n"
	"}\n";

static const char composite_fs[] =
	"#version 330 core\n"
	"uniform sampler2D tex;\n"
	"out vec4 color;\n"
	"void main() {\n"
	"  color = texelFetch(tex, ivec2(gl_FragCoord.xy), 0);\n"
	"}\n";

static GLuint
compile_shader(GLenum type, const char *src)
{
	GLuint s = glCreateShader(type);
	GLint ok = 0;
	glShaderSource(s, 1, &src, NULL);
	glCompileShader(s);
	glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		char log[1024] = "";
		glGetShaderInfoLog(s, sizeof(log), NULL, log);
		fail("compiling a shader: %s", log);
		glDeleteShader(s);
		return 0;
	}
	return s;
}

static GLuint
link_program(const char *vs_src, const char *fs_src)
{
	GLuint vs = compile_shader(GL_VERTEX_SHADER, vs_src);
	GLuint fs = vs ? compile_shader(GL_FRAGMENT_SHADER, fs_src) : 0;
	GLuint prog;
	GLint ok = 0;

	if (!fs) {
		if (vs)
			glDeleteShader(vs);
		return 0;
	}
	prog = glCreateProgram();
	glAttachShader(prog, vs);
	glAttachShader(prog, fs);
	glLinkProgram(prog);
	glDeleteShader(vs);
	glDeleteShader(fs);
	glGetProgramiv(prog, GL_LINK_STATUS, &ok);
	if (!ok) {
		char log[1024] = "";
		glGetProgramInfoLog(prog, sizeof(log), NULL, log);
		fail("linking a program: %s", log);
		glDeleteProgram(prog);
		return 0;
	}
	return prog;
}

static int
gl_init(void)
{
	gl.scene_prog = link_program(scene_vs, scene_fs);
	if (!gl.scene_prog)
		return -1;
	gl.composite_prog = link_program(scene_vs, composite_fs);
	if (!gl.composite_prog)
		return -1;
	gl.scene_t_loc = glGetUniformLocation(gl.scene_prog, "t");
	gl.scene_size_loc = glGetUniformLocation(gl.scene_prog, "size");
	glUseProgram(gl.composite_prog);
	glUniform1i(glGetUniformLocation(gl.composite_prog, "tex"), 0);
	glUseProgram(0);
	glGenVertexArrays(1, &gl.vao);
	/* The sampler overrides whatever filtering the textures carry
	 * (glcuda's are not ours to change). */
	glGenSamplers(1, &gl.sampler);
	glSamplerParameteri(gl.sampler, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
	glSamplerParameteri(gl.sampler, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
	glDisable(GL_DEPTH_TEST);
	glDisable(GL_BLEND);
	return gl_check("creating the shaders");
}

static void
gl_fini(void)
{
	if (gl.scene_prog)
		glDeleteProgram(gl.scene_prog);
	if (gl.composite_prog)
		glDeleteProgram(gl.composite_prog);
	if (gl.vao)
		glDeleteVertexArrays(1, &gl.vao);
	if (gl.sampler)
		glDeleteSamplers(1, &gl.sampler);
}

/* A texture of the group's format with immutable storage (one level, so it
 * is complete) and, if fbo is not NULL, a framebuffer around it. */
static int
gl_make_target(const struct group *g, GLenum internal_format, GLuint *tex, GLuint *fbo)
{
	GLenum status;

	glGenTextures(1, tex);
	glBindTexture(GL_TEXTURE_2D, *tex);
	glTexStorage2D(GL_TEXTURE_2D, 1, internal_format, (GLsizei)g->width, (GLsizei)g->height);
	glBindTexture(GL_TEXTURE_2D, 0);
	if (!fbo)
		return gl_check("creating a texture");
	glGenFramebuffers(1, fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, *tex, 0);
	status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	if (status != GL_FRAMEBUFFER_COMPLETE)
		return fail("a %ux%u framebuffer is incomplete (0x%04x)", g->width, g->height, status);
	return gl_check("creating a render target");
}

static void
gl_delete_target(GLuint *tex, GLuint *fbo)
{
	if (fbo && *fbo)
		glDeleteFramebuffers(1, fbo);
	if (tex && *tex)
		glDeleteTextures(1, tex);
	if (fbo)
		*fbo = 0;
	if (tex)
		*tex = 0;
}

/* The frame's GL work, part 1: render into the input. */
static void
gl_render(GLuint fbo, const struct group *g, uint64_t frame)
{
	float t = (float)(frame % 240) / 240.0f;

	glBindFramebuffer(GL_FRAMEBUFFER, fbo);
	glViewport(0, 0, (GLsizei)g->width, (GLsizei)g->height);
	glClearColor(t, 0.5f, 1.0f - t, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glUseProgram(gl.scene_prog);
	glUniform1f(gl.scene_t_loc, t);
	glUniform2f(gl.scene_size_loc, (float)g->width, (float)g->height);
	glBindVertexArray(gl.vao);
	glDrawArrays(GL_TRIANGLES, 0, 3);
}

/* Part 2: draw the output into the screen texture. */
static void
gl_composite(GLuint tex, const struct group *g)
{
	glBindFramebuffer(GL_FRAMEBUFFER, g->screen_fbo);
	glViewport(0, 0, (GLsizei)g->width, (GLsizei)g->height);
	glUseProgram(gl.composite_prog);
	glActiveTexture(GL_TEXTURE0);
	glBindTexture(GL_TEXTURE_2D, tex);
	glBindSampler(0, gl.sampler);
	glBindVertexArray(gl.vao);
	glDrawArrays(GL_TRIANGLES, 0, 3);
	glBindTexture(GL_TEXTURE_2D, 0);
}

/* Frame pacing: before a frame starts, wait until GL has finished the frame
 * --queue frames back (a swap chain's throttle); measured apart from the
 * interop calls. */
static int
pace_wait(void)
{
	GLsync f;
	GLenum r;

	if (opt.queue == 0 || gl.fence_count < opt.queue)
		return 0;
	f = gl.fences[gl.fence_head];
	METER(pacing_meter,
	      r = glClientWaitSync(f, GL_SYNC_FLUSH_COMMANDS_BIT, 10000000000ull));
	glDeleteSync(f);
	gl.fences[gl.fence_head] = NULL;
	gl.fence_head = (gl.fence_head + 1) % MAX_QUEUE;
	gl.fence_count--;
	if (r == GL_TIMEOUT_EXPIRED)
		return fail("GL did not finish a frame within 10 s (GPU hang?)");
	if (r == GL_WAIT_FAILED)
		return gl_check("in glClientWaitSync") < 0 ? -1 : fail("glClientWaitSync failed");
	return 0;
}

static void
pace_push(void)
{
	if (opt.queue == 0)
		return;
	gl.fences[(gl.fence_head + gl.fence_count) % MAX_QUEUE] =
		glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
	gl.fence_count++;
}

static void
pace_reset(void)
{
	while (gl.fence_count) {
		glDeleteSync(gl.fences[gl.fence_head]);
		gl.fences[gl.fence_head] = NULL;
		gl.fence_head = (gl.fence_head + 1) % MAX_QUEUE;
		gl.fence_count--;
	}
	gl.fence_head = 0;
}

/* ---------------------------------------------------------------------- */
/* CUDA: the kernels                                                        */

static struct {
	bool loaded;
	CUcontext ctx;
	bool pushed;
	CUmodule module;
	/* [0] RGBA8, [1] RGBA16F */
	CUfunction invert[2], blur_h[2], blur_v[2];
	CUdeviceptr weights;
	int radius;
	double sigma;
	/* float4 scratch of the blur, one per ring slot: slots run on their
	 * own streams and may overlap on the GPU. */
	CUdeviceptr scratch[MAX_DEPTH];
	size_t scratch_bytes;
} cu;

static int
cuda_init(struct glcuda_device *dev)
{
	static const char *const suffix[2] = { "u8", "f16" };
	CUresult res;

	cu.ctx = glcuda_device_get_cuda_context(dev);
	/* Every CUDA call of the bench runs in the context glcuda uses (the
	 * device's primary context, shared by all the devices made here). */
	CU_TRY(cuCtxPushCurrent, cu.ctx);
	cu.pushed = true;
	res = CU(cuModuleLoadData)(&cu.module, glcuda_bench_fatbin);
	if (res != CUDA_SUCCESS)
		return cu_check(res, "cuModuleLoadData (bench/bench-kernels.cu; built for "
				"the GPU's architecture? see NVCC_ARCH_FLAGS)");
	for (int f = 0; f < 2; f++) {
		char name[64];
		snprintf(name, sizeof(name), "bench_invert_%s", suffix[f]);
		if (cu_check(CU(cuModuleGetFunction)(&cu.invert[f], cu.module, name), name) < 0)
			return -1;
		snprintf(name, sizeof(name), "bench_blur_h_%s", suffix[f]);
		if (cu_check(CU(cuModuleGetFunction)(&cu.blur_h[f], cu.module, name), name) < 0)
			return -1;
		snprintf(name, sizeof(name), "bench_blur_v_%s", suffix[f]);
		if (cu_check(CU(cuModuleGetFunction)(&cu.blur_v[f], cu.module, name), name) < 0)
			return -1;
	}
	CU_TRY(cuMemAlloc, &cu.weights, (MAX_RADIUS + 1) * sizeof(float));
	cu.loaded = true;
	return 0;
}

static void
cuda_free_scratch(void)
{
	for (int i = 0; i < MAX_DEPTH; i++)
		if (cu.scratch[i]) {
			CU(cuMemFree)(cu.scratch[i]);
			cu.scratch[i] = 0;
		}
	cu.scratch_bytes = 0;
}

static void
cuda_fini(void)
{
	if (!cuda_loader_is_loaded())
		return;
	if (cu.pushed)
		CU(cuCtxSynchronize)();
	cuda_free_scratch();
	if (cu.weights)
		CU(cuMemFree)(cu.weights);
	if (cu.module)
		CU(cuModuleUnload)(cu.module);
	if (cu.pushed) {
		CUcontext c;
		CU(cuCtxPopCurrent)(&c);
	}
	memset(&cu, 0, sizeof(cu));
}

/* The demo's Gaussian: sigma 4 px at 1080 lines, scaled with the height;
 * taps out to 3 sigma. */
static int
cuda_prepare_group(const struct group *g, bool blur)
{
	float w[MAX_RADIUS + 1];
	double sum = 0;
	size_t bytes;

	cuda_free_scratch();
	if (!blur)
		return 0;
	cu.sigma = opt.blur_sigma > 0 ? opt.blur_sigma : 4.0 * g->height / 1080.0;
	cu.radius = (int)ceil(3.0 * cu.sigma);
	if (cu.radius < 1)
		cu.radius = 1;
	if (cu.radius > MAX_RADIUS)
		cu.radius = MAX_RADIUS;
	for (int k = 0; k <= cu.radius; k++) {
		w[k] = (float)exp(-(double)k * k / (2.0 * cu.sigma * cu.sigma));
		sum += k ? 2.0 * w[k] : w[k];
	}
	for (int k = 0; k <= cu.radius; k++)
		w[k] = (float)(w[k] / sum);
	CU_TRY(cuMemcpyHtoD, cu.weights, w, (size_t)(cu.radius + 1) * sizeof(float));
	bytes = (size_t)g->width * g->height * 16;
	for (int i = 0; i < MAX_DEPTH; i++) {
		CUresult res = CU(cuMemAlloc)(&cu.scratch[i], bytes);
		if (res != CUDA_SUCCESS) {
			cu.scratch[i] = 0;
			return cu_check(res, "cuMemAlloc (blur scratch)");
		}
	}
	cu.scratch_bytes = bytes;
	return 0;
}

/* Enqueue the kernel of the configuration on a stream. */
static int
run_kernel(const struct group *g, enum kernel_kind k, CUsurfObject in, CUsurfObject out,
	   unsigned int slot, CUstream stream)
{
	int f = g->format == GLCUDA_FORMAT_RGBA16F;
	int w = (int)g->width, h = (int)g->height;
	unsigned int gx = (g->width + 15) / 16, gy = (g->height + 15) / 16;

	if (k == KERNEL_INVERT) {
		void *args[] = { &in, &out, &w, &h };
		return cu_check(CU(cuLaunchKernel)(cu.invert[f], gx, gy, 1, 16, 16, 1, 0, stream,
						   args, NULL), "cuLaunchKernel (invert)");
	} else {
		CUdeviceptr scratch = cu.scratch[slot % MAX_DEPTH];
		CUdeviceptr weights = cu.weights;
		int radius = cu.radius;
		void *args_h[] = { &in, &scratch, &w, &h, &weights, &radius };
		void *args_v[] = { &scratch, &out, &w, &h, &weights, &radius };
		if (cu_check(CU(cuLaunchKernel)(cu.blur_h[f], gx, gy, 1, 16, 16, 1, 0, stream,
						args_h, NULL), "cuLaunchKernel (blur_h)") < 0)
			return -1;
		return cu_check(CU(cuLaunchKernel)(cu.blur_v[f], gx, gy, 1, 16, 16, 1, 0, stream,
						   args_v, NULL), "cuLaunchKernel (blur_v)");
	}
}

/* ---------------------------------------------------------------------- */
/* Configurations, runs, results                                            */

struct config {
	enum path_kind path;
	enum glcuda_sync_mode mode; /* glcuda only */
	enum policy policy;         /* glcuda only */
	unsigned int depth;         /* glcuda only */
};

struct run_result {
	bool ok;
	unsigned int frames;
	double seconds;
	double fps, mean_us, p50_us, p99_us;
	double interop_cpu_us, interop_wall_us, blocked_us, pacing_us, process_cpu_us;
	unsigned int timing_count;
	double to_cuda_us, to_gl_us, cuda_us, gl_render_us, gpu_total_us;
	uint64_t dropped;
};

struct row {
	const struct group *group;
	enum kernel_kind kernel;
	struct config cfg;
	struct run_result reps[MAX_REPS];
	unsigned int rep_count;
	struct run_result timing;
	bool failed, skipped;
	char error[sizeof(run_error)];
	/* Aggregates over the reps. */
	struct run_result med;
	double spread_pct;
};

struct mode_device {
	enum glcuda_sync_mode mode;
	struct glcuda_device *dev;
	char error[1024];
};

static struct glcuda_device *main_dev;
static EGLDisplay main_dpy;
static struct mode_device mode_devs[ARRAY_LENGTH(all_modes)];

static struct glcuda_device *
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

static const char *
mode_name(enum glcuda_sync_mode m)
{
	return glcuda_sync_mode_get_name(m);
}

/* A short id for CSVs and plots: no spaces, no commas. */
static void
config_id(const struct config *c, char *buf, size_t size)
{
	if (c->path == PATH_GLCUDA)
		snprintf(buf, size, "glcuda-%s-%s%u", mode_name(c->mode),
			 policy_names[c->policy], c->depth);
	else
		snprintf(buf, size, "%s", path_names[c->path]);
}

/* The label of a table row. */
static void
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

/* Everything one run of one configuration holds. */
struct run_ctx {
	const struct group *g;
	enum kernel_kind kernel;
	struct config cfg;
	bool timings;
	struct glcuda_device *dev;
	CUstream stream;

	/* GL-side targets of the gl, legacy and readback paths */
	GLuint in_tex, in_fbo, out_tex;

	/* legacy */
	CUgraphicsResource res[2];
	CUarray cached_array[2];
	CUsurfObject cached_surface[2];

	/* readback and cuda: CUDA-side images (shared images used as plain
	 * CUDA arrays: handed to CUDA once, never back); wrap-*: the wrapped
	 * textures or EGLImages */
	struct glcuda_image *img[2];
	EGLImage egl_image[2];
	bool img_on_cuda;
	GLuint pbo;
	void *pinned;

	/* cuda: CUDA events around every measured frame, and a short ring of
	 * events that keeps the launch queue bounded */
	CUevent *events;
	unsigned int event_count, event_next;
	CUevent pace_events[32];
	bool measuring;

	/* glcuda */
	struct glcuda_ring *ring;
	struct glcuda_frame *queue[MAX_DEPTH + 1];
	unsigned int queue_len;
	unsigned int pending; /* completed, not taken (newest policy) */
	uint64_t dropped_at_start;
	/* hand-off timings */
	unsigned int timing_count;
	double sum_to_cuda, sum_to_gl, sum_cuda, sum_gl_render, sum_total;
};

/* glcuda ------------------------------------------------------------------ */

static int
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

static int
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
static int
glcuda_present(struct run_ctx *c, struct glcuda_frame *f)
{
	int r;

	gl_composite(glcuda_frame_get_output_texture(f), c->g);
	METER(interop_meter, r = glcuda_frame_release(f));
	return glcuda_check(r, "glcuda_frame_release");
}

static int
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

static int
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

static int
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

static int
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

static void
glcuda_teardown(struct run_ctx *c)
{
	glcuda_ring_destroy(c->ring);
	c->ring = NULL;
}

/* gl alone ------------------------------------------------------------------ */

static int
gl_setup(struct run_ctx *c)
{
	return gl_make_target(c->g, c->g->internal_format, &c->in_tex, &c->in_fbo);
}

static int
gl_frame_fn(struct run_ctx *c, uint64_t n)
{
	if (pace_wait() < 0)
		return -1;
	gl_render(c->in_fbo, c->g, n);
	gl_composite(c->in_tex, c->g);
	pace_push();
	return 0;
}

static void
gl_teardown(struct run_ctx *c)
{
	gl_delete_target(&c->in_tex, &c->in_fbo);
	gl_delete_target(&c->out_tex, NULL);
}

/* CUDA-side images for the cuda and readback paths ------------------------- */

static int
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

static void
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

static int
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

static int
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

static void
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

static int
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
static int
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

static int
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

static void
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
static int
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

static int
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

static void
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

static size_t
frame_bytes(const struct group *g)
{
	return (size_t)g->width * g->height * g->bpp;
}

static int
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

static int
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

static void
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

struct path_ops {
	int (*setup)(struct run_ctx *);
	int (*frame)(struct run_ctx *, uint64_t n);
	int (*drain)(struct run_ctx *);
	void (*teardown)(struct run_ctx *);
};

static const struct path_ops path_ops[PATH_COUNT] = {
	[PATH_GL] = { gl_setup, gl_frame_fn, NULL, gl_teardown },
	[PATH_CUDA] = { cuda_setup, cuda_frame_fn, NULL, cuda_teardown },
	[PATH_LEGACY] = { legacy_setup, legacy_frame_fn, NULL, legacy_teardown },
	[PATH_LEGACY_NOSYNC] = { legacy_setup, legacy_frame_fn, NULL, legacy_teardown },
	[PATH_READBACK] = { readback_setup, readback_frame_fn, NULL, readback_teardown },
	[PATH_WRAP_GL] = { wrap_setup, wrap_frame_fn, NULL, wrap_teardown },
	[PATH_WRAP_EGL] = { wrap_setup, wrap_frame_fn, NULL, wrap_teardown },
	[PATH_GLCUDA] = { glcuda_setup, glcuda_frame_fn, glcuda_drain, glcuda_teardown },
};

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
static double
percentile(const double *sorted, unsigned int n, double p)
{
	unsigned int rank;

	if (n == 0)
		return NAN;
	rank = (unsigned int)ceil(p / 100.0 * n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

/* Wait for everything queued on both sides: between runs, never measured. */
static int
settle(void)
{
	glFinish();
	if (cuda_loader_is_loaded() && cu.pushed)
		if (cu_check(CU(cuCtxSynchronize)(), "cuCtxSynchronize") < 0)
			return -1;
	return 0;
}

static void
frame_stats(double *ft, unsigned int n, struct run_result *out)
{
	qsort(ft, n, sizeof(*ft), cmp_double);
	out->p50_us = percentile(ft, n, 50);
	out->p99_us = percentile(ft, n, 99);
}

static int
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
	cpu0 = process_cpu_ns();
	t_start = t_prev = now_ns();
	while (n < frames) {
		if (ops->frame(&c, opt.warmup + n) < 0)
			goto out;
		t = now_ns();
		ft[n++] = (double)(t - t_prev) / 1e3;
		t_prev = t;
		if (n >= opt.min_frames && t - t_start > max_ns)
			break;
	}
	out->frames = n;
	out->seconds = (double)(t_prev - t_start) / 1e9;
	out->process_cpu_us = (double)(process_cpu_ns() - cpu0) / 1e3 / n;
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

static uint64_t start_ns;
static struct row *rows;
static unsigned int row_count, row_cap;

static struct row *
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
static void
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

/* Rough frame times (ms) on the GPU machine, from DESIGN.md §7 and scaled
 * by pixels and bytes: only for the duration estimate. */
static double
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

static double
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
/* Aggregation and output                                                   */

static double
median_of(double *v, unsigned int n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define MEDIAN_FIELD(row, field)                                         \
	do {                                                             \
		double v_[MAX_REPS];                                      \
		unsigned int k_ = 0;                                     \
		for (unsigned int i_ = 0; i_ < (row)->rep_count; i_++)   \
			if ((row)->reps[i_].ok)                          \
				v_[k_++] = (row)->reps[i_].field;        \
		(row)->med.field = median_of(v_, k_);                    \
	} while (0)

static void
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

static const struct row *
find_row(const struct group *g, enum kernel_kind k, enum path_kind p)
{
	for (unsigned int i = 0; i < row_count; i++)
		if (rows[i].group == g && rows[i].kernel == k && rows[i].cfg.path == p &&
		    rows[i].med.ok)
			return &rows[i];
	return NULL;
}

static double
floor_us(const struct group *g, enum kernel_kind k)
{
	const struct row *gl_row = find_row(g, k, PATH_GL);
	const struct row *cuda_row = find_row(g, k, PATH_CUDA);

	if (!gl_row || !cuda_row)
		return NAN;
	return gl_row->med.mean_us + cuda_row->med.mean_us;
}

/* A number for a table cell or a CSV field ("" or "-" when absent). */
static const char *
fmt_num(char *buf, size_t size, double v, int decimals, const char *none)
{
	if (isnan(v) || isinf(v))
		snprintf(buf, size, "%s", none);
	else
		snprintf(buf, size, "%.*f", decimals, v);
	return buf;
}

/* $__GL_YIELD for the CSVs: "default" when unset. */
static const char *
gl_yield(void)
{
	const char *y = getenv("__GL_YIELD");
	return y && *y && !strpbrk(y, ",\n\"") ? y : "default";
}

/* Output goes to stdout and, with --out, to the markdown file. */
static FILE *md_file, *summary_csv, *runs_csv;

static void GLCUDA_PRINTF(1, 2)
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

static bool
is_4k_class(const struct group *g)
{
	return g->height >= 2160;
}

static void
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
	md("\nTargets (DESIGN.md §7), fastest GPU-synchronised glcuda row `%s`:\n", id);
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

static void
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

static void
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

static void
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

static void
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

static void
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

static void
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
/* main                                                                     */

static void
build_command_line(int argc, char **argv)
{
	size_t len = 0;

	command_line[0] = '\0';
	for (int i = 0; i < argc && len < sizeof(command_line) - 1; i++) {
		bool quote = argv[i][0] == '\0' || strpbrk(argv[i], " \t'\"$\\`*?;&|<>()") != NULL;
		int n = snprintf(command_line + len, sizeof(command_line) - len, "%s%s%s%s",
				 i ? " " : "", quote ? "'" : "", argv[i], quote ? "'" : "");
		if (n < 0)
			break;
		len += (size_t)n;
	}
}

static FILE *
open_output(const char *prefix, const char *ext)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s-%s.%s", opt.out_dir, prefix, opt.label, ext);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "glcuda-bench: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

static int
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

static void
print_plan(void)
{
	double est = estimate_seconds();
	unsigned int runs = 0;

	for (unsigned int i = 0; i < row_count; i++)
		runs += opt.reps + (rows[i].cfg.path == PATH_GLCUDA && opt.timing_frames ? 1 : 0);
	fprintf(stderr, "glcuda-bench: %s preset, %u configurations, %u runs; estimated %.0f s "
		"(%.1f min) on the H200 machine\n", opt.preset, row_count, runs, est, est / 60);
}

static int
make_devices(struct glcuda_headless *hl)
{
	EGLDisplay dpy = glcuda_headless_get_display(hl);
	EGLContext ctx = glcuda_headless_get_context(hl);
	const struct glcuda_caps *caps;
	int r;

	main_dpy = dpy;
	r = glcuda_device_new(dpy, ctx, NULL, &main_dev);
	if (r < 0) {
		fprintf(stderr, "glcuda-bench: glcuda_device_new: %s: %s\n", glcuda_error_get_name(r),
			glcuda_get_last_error());
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
				 caps->sync_modes_supported & (1u << all_modes[i])
					 ? "" : "not supported by the drivers; ",
				 glcuda_error_get_name(r), glcuda_get_last_error());
			md_->dev = NULL;
			fprintf(stderr, "glcuda-bench: no device in %s mode: %s\n",
				mode_name(all_modes[i]), md_->error);
		} else if (glcuda_device_get_caps(md_->dev)->sync_mode != all_modes[i]) {
			snprintf(md_->error, sizeof(md_->error), "asked for %s, got %s",
				 mode_name(all_modes[i]),
				 mode_name(glcuda_device_get_caps(md_->dev)->sync_mode));
			glcuda_device_destroy(md_->dev);
			md_->dev = NULL;
			fprintf(stderr, "glcuda-bench: %s mode: %s\n", mode_name(all_modes[i]),
				md_->error);
		}
	}
	return 0;
}

static void
destroy_devices(void)
{
	for (unsigned int i = 0; i < ARRAY_LENGTH(mode_devs); i++) {
		glcuda_device_destroy(mode_devs[i].dev);
		mode_devs[i].dev = NULL;
	}
	glcuda_device_destroy(main_dev);
	main_dev = NULL;
}

static void
run_row(struct row *r, unsigned int rep, bool timing, unsigned int *done, unsigned int total)
{
	char label[128];
	struct run_result res;
	unsigned int frames = timing ? (opt.timing_frames < opt.frames ? opt.timing_frames
							      : opt.frames)
				     : opt.frames;

	if (r->failed)
		return;
	config_label(&r->cfg, label, sizeof(label));
	if (opt.time_limit > 0 && (double)(now_ns() - start_ns) / 1e9 > opt.time_limit) {
		r->failed = r->skipped = true;
		snprintf(r->error, sizeof(r->error), "skipped: --time-limit %.0f s reached",
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
		fprintf(stderr, "  [%u/%u] %s %s %s: FAILED: %s\n", ++*done, total, r->group->name,
			kernel_names[r->kernel], label, run_error);
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
	fprintf(stderr, "  [%u/%u] %s %s %s%s: %.0f fps, %.0f µs, interop %.1f µs CPU\n", ++*done,
		total, r->group->name, kernel_names[r->kernel], label,
		timing ? " (timings)" : "", res.fps, res.mean_us, res.interop_cpu_us);
}

int
main(int argc, char **argv)
{
	struct glcuda_headless *hl = NULL;
	unsigned int done = 0, total = 0;
	uint64_t t0 = now_ns();
	bool any_failed = false;

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
		total += opt.reps + (rows[i].cfg.path == PATH_GLCUDA && opt.timing_frames ? 1 : 0);
	print_plan();
	if (opt.dry_run) {
		for (unsigned int i = 0; i < row_count; i++) {
			char label[128];
			config_label(&rows[i].cfg, label, sizeof(label));
			printf("%s %s: %s\n", rows[i].group->name, kernel_names[rows[i].kernel], label);
		}
		return 0;
	}

	r = glcuda_headless_new(opt.gl_only ? -1 : opt.cuda_device, GLCUDA_HEADLESS_FLAG_NONE, &hl);
	if (r < 0) {
		fprintf(stderr, "glcuda-bench: no GL context for CUDA device %d: %s: %s\n",
			opt.cuda_device, glcuda_error_get_name(r), glcuda_get_last_error());
		if (r == GLCUDA_ERROR_NO_CUDA_DRIVER)
			fprintf(stderr, "glcuda-bench: this benchmark needs an NVIDIA GPU with "
				"its driver (libcuda.so.1, EGL device platform); --gl-only runs "
				"the GL reference alone.\n");
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
		goto fail;
	}

	if (opt.out_dir) {
		if (make_dirs(opt.out_dir) < 0) {
			fprintf(stderr, "glcuda-bench: cannot create %s: %s\n", opt.out_dir,
				strerror(errno));
			goto fail;
		}
		md_file = open_output("bench", "md");
		summary_csv = open_output("summary", "csv");
		runs_csv = open_output("runs", "csv");
		if (!md_file || !summary_csv || !runs_csv)
			goto fail;
		fprintf(summary_csv, "label,gl_yield,size,format,width,height,kernel,id,path,mode,policy,"
			"depth,slots,reps,frames,fps,fps_spread_pct,mean_us,p50_us,p99_us,"
			"interop_cpu_us,interop_wall_us,blocked_us,pacing_us,process_cpu_us,"
			"handoff_to_cuda_us,handoff_to_gl_us,gpu_frame_us,floor_us,to_floor_us,"
			"x_legacy,x_readback,cpu_x_legacy,status\n");
		fprintf(runs_csv, "label,gl_yield,size,format,kernel,id,rep,frames,seconds,fps,mean_us,"
			"p50_us,p99_us,interop_cpu_us,interop_wall_us,blocked_us,pacing_us,"
			"process_cpu_us,timing_frames,handoff_to_cuda_us,handoff_to_gl_us,cuda_us,"
			"gl_render_us,gpu_total_us,dropped\n");
	}
	print_system(hl);
	print_legend();
	fflush(stdout);

	for (unsigned int gi = 0; gi < opt.group_count; gi++) {
		struct group *g = &opt.groups[gi];

		if (gl_make_target(g, GL_RGBA8, &g->screen_tex, &g->screen_fbo) < 0) {
			fprintf(stderr, "glcuda-bench: %s: the screen texture: %s\n", g->name, run_error);
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
			if (!opt.gl_only && cuda_prepare_group(g, k == KERNEL_BLUR) < 0) {
				for (unsigned int i = first; i < last; i++) {
					rows[i].failed = true;
					snprintf(rows[i].error, sizeof(rows[i].error), "%s", run_error);
				}
			}
			/* Reps outermost: drift over time hits every path alike. */
			for (unsigned int rep = 0; rep < opt.reps; rep++)
				for (unsigned int i = first; i < last; i++)
					run_row(&rows[i], rep, false, &done, total);
			if (opt.timing_frames)
				for (unsigned int i = first; i < last; i++)
					if (rows[i].cfg.path == PATH_GLCUDA)
						run_row(&rows[i], 0, true, &done, total);
			for (unsigned int i = first; i < last; i++) {
				aggregate(&rows[i]);
				if (!rows[i].med.ok && !rows[i].skipped)
					any_failed = true;
			}
			print_table(g, (enum kernel_kind)k);
		}
		gl_delete_target(&g->screen_tex, &g->screen_fbo);
	}
	md("\nTotal time: %.0f s.\n", (double)(now_ns() - t0) / 1e9);

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
	return any_failed ? 1 : 0;

fail:
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
	return 1;
}
