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
#include "config.h"

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <png.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glcuda/glcuda-cuda.h>

#include "filters.h"
#include "info-report.h"

#define DEFAULT_OUTPUT "./glcuda-demo-out"
/* How long poll() waits for a frame before the GPU is presumed hung. */
#define FRAME_TIMEOUT_MS 10000

/* Options ---------------------------------------------------------------- */

struct options {
	uint32_t width, height;
	uint64_t frames;
	uint32_t in_flight;
	enum filter_kind filter;
	enum glcuda_format format;
	const char *output;
	uint64_t png_every;        /* 0: off */
	uint64_t *png_frames;      /* sorted */
	size_t png_frame_count;
	bool png_last;
	bool gles, quiet;
	enum glcuda_sync_mode sync;
	int device;
	float sigma, amount;
};

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: glcuda-demo [OPTION...]\n"
		"\n"
		"Renders an animated OpenGL scene, filters every frame with CUDA through\n"
		"glcuda's zero-copy frame ring, composites the result with GL, and prints\n"
		"per-stage timings. Headless (EGL device or surfaceless platform).\n"
		"\n"
		"  --size WxH          frame size (default 1920x1080)\n"
		"  --frames N          frames to render (default 300)\n"
		"  --in-flight N       ring slots, frames in flight, 2..4 (default 3)\n"
		"  --filter NAME       none, invert, blur, unsharp, grade (default blur)\n"
		"  --sigma PX          blur/unsharp Gaussian sigma (default 4 px at 1080p)\n"
		"  --amount A          unsharp strength (default 1.0)\n"
		"  --format FMT        ring image format: rgba8, rgba16f, rgba32f (default rgba8)\n"
		"  --output PATH       directory (existing, or ending in /) or file prefix\n"
		"                      for PNGs (default " DEFAULT_OUTPUT "/)\n"
		"  --png-every N       write every N-th frame as PNG (0: off)\n"
		"  --png-frames LIST   frames to write, e.g. 0,150,last; 'none' for none\n"
		"                      (default: last)\n"
		"  --gles              OpenGL ES 3 instead of OpenGL 4 core\n"
		"  --sync MODE         auto, timeline, binary, cpu (default auto)\n"
		"  --device N          CUDA device ordinal whose EGL device to use\n"
		"                      (default: the first EGL display that works)\n"
		"  --quiet             only errors and the summary\n"
		"  --help              this text\n"
		"\n"
		"On NVIDIA, GL spins the CPU while it throttles unless __GL_YIELD=USLEEP is\n"
		"set in the environment: compare the process CPU time per frame with and\n"
		"without it.\n"
		"Frames whose number is asked for but that the ring dropped (a newer one\n"
		"was ready first) are written at the next presented frame, under its number.\n"
		"Exit status: 0 on success, 1 on failure, 2 on bad usage.\n");
}

static bool
parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool
parse_float(const char *s, float min, float max, float *out)
{
	char *end;
	float v;

	errno = 0;
	v = strtof(s, &end);
	if (errno || end == s || *end || !(v >= min && v <= max))
		return false;
	*out = v;
	return true;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static bool
parse_png_frames(const char *s, struct options *o)
{
	char *copy = strdup(s), *tok, *save = NULL;
	size_t cap = 0;

	if (!copy)
		return false;
	free(o->png_frames);
	o->png_frames = NULL;
	o->png_frame_count = 0;
	o->png_last = false;
	if (strcmp(s, "none") == 0) {
		free(copy);
		return true;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t n;
		if (strcmp(tok, "last") == 0) {
			o->png_last = true;
			continue;
		}
		if (!parse_u64(tok, 0, UINT64_MAX, &n)) {
			free(copy);
			return false;
		}
		if (o->png_frame_count == cap) {
			uint64_t *p;
			cap = cap ? cap * 2 : 8;
			p = realloc(o->png_frames, cap * sizeof(*p));
			if (!p) {
				free(copy);
				return false;
			}
			o->png_frames = p;
		}
		o->png_frames[o->png_frame_count++] = n;
	}
	free(copy);
	qsort(o->png_frames, o->png_frame_count, sizeof(uint64_t), cmp_u64);
	return true;
}

static int
parse_options(int argc, char **argv, struct options *o)
{
	enum { O_SIZE = 256, O_FRAMES, O_IN_FLIGHT, O_FILTER, O_SIGMA, O_AMOUNT, O_FORMAT,
	       O_OUTPUT, O_PNG_EVERY, O_PNG_FRAMES, O_GLES, O_SYNC, O_DEVICE, O_QUIET,
	       O_HELP };
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, O_SIZE },
		{ "frames", required_argument, NULL, O_FRAMES },
		{ "in-flight", required_argument, NULL, O_IN_FLIGHT },
		{ "filter", required_argument, NULL, O_FILTER },
		{ "sigma", required_argument, NULL, O_SIGMA },
		{ "amount", required_argument, NULL, O_AMOUNT },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, O_OUTPUT },
		{ "png-every", required_argument, NULL, O_PNG_EVERY },
		{ "png-frames", required_argument, NULL, O_PNG_FRAMES },
		{ "gles", no_argument, NULL, O_GLES },
		{ "sync", required_argument, NULL, O_SYNC },
		{ "device", required_argument, NULL, O_DEVICE },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct options){
		.width = 1920, .height = 1080, .frames = 300, .in_flight = 3,
		.filter = FILTER_BLUR, .format = GLCUDA_FORMAT_RGBA8,
		.output = DEFAULT_OUTPUT, .png_last = true, .sync = GLCUDA_SYNC_AUTO,
		.device = -1,
	};
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		uint64_t n;
		switch (c) {
		case O_SIZE: {
			unsigned w, h;
			char tail;
			if (sscanf(optarg, "%ux%u%c", &w, &h, &tail) != 2 || w == 0 || h == 0 ||
			    w > 16384 || h > 16384) {
				fprintf(stderr, "glcuda-demo: --size %s: expected WxH, e.g. 1920x1080\n",
					optarg);
				return 2;
			}
			o->width = w;
			o->height = h;
			break;
		}
		case O_FRAMES:
			if (!parse_u64(optarg, 1, 100000000, &o->frames)) {
				fprintf(stderr, "glcuda-demo: --frames %s: expected a positive number\n",
					optarg);
				return 2;
			}
			break;
		case O_IN_FLIGHT:
			if (!parse_u64(optarg, 2, 4, &n)) {
				fprintf(stderr, "glcuda-demo: --in-flight %s: expected 2, 3 or 4\n",
					optarg);
				return 2;
			}
			o->in_flight = (uint32_t)n;
			break;
		case O_FILTER: {
			int k = filter_from_name(optarg);
			if (k < 0) {
				fprintf(stderr, "glcuda-demo: --filter %s: expected none, invert, "
					"blur, unsharp or grade\n", optarg);
				return 2;
			}
			o->filter = (enum filter_kind)k;
			break;
		}
		case O_SIGMA:
			if (!parse_float(optarg, 0.1f, 21.f, &o->sigma)) {
				fprintf(stderr, "glcuda-demo: --sigma %s: expected 0.1..21 (pixels)\n",
					optarg);
				return 2;
			}
			break;
		case O_AMOUNT:
			if (!parse_float(optarg, 0.01f, 20.f, &o->amount)) {
				fprintf(stderr, "glcuda-demo: --amount %s: expected 0.01..20\n", optarg);
				return 2;
			}
			break;
		case O_FORMAT:
			if (strcasecmp(optarg, "rgba8") == 0)
				o->format = GLCUDA_FORMAT_RGBA8;
			else if (strcasecmp(optarg, "rgba16f") == 0)
				o->format = GLCUDA_FORMAT_RGBA16F;
			else if (strcasecmp(optarg, "rgba32f") == 0)
				o->format = GLCUDA_FORMAT_RGBA32F;
			else {
				fprintf(stderr, "glcuda-demo: --format %s: expected rgba8, rgba16f "
					"or rgba32f\n", optarg);
				return 2;
			}
			break;
		case O_OUTPUT:
			if (!*optarg) {
				fprintf(stderr, "glcuda-demo: --output needs a path\n");
				return 2;
			}
			o->output = optarg;
			break;
		case O_PNG_EVERY:
			if (!parse_u64(optarg, 0, UINT64_MAX, &o->png_every)) {
				fprintf(stderr, "glcuda-demo: --png-every %s: expected a number\n",
					optarg);
				return 2;
			}
			break;
		case O_PNG_FRAMES:
			if (!parse_png_frames(optarg, o)) {
				fprintf(stderr, "glcuda-demo: --png-frames %s: expected frame numbers "
					"and 'last', separated by commas, or 'none'\n", optarg);
				return 2;
			}
			break;
		case O_GLES:
			o->gles = true;
			break;
		case O_SYNC:
			if (strcmp(optarg, "auto") == 0)
				o->sync = GLCUDA_SYNC_AUTO;
			else if (strcmp(optarg, "timeline") == 0)
				o->sync = GLCUDA_SYNC_TIMELINE;
			else if (strcmp(optarg, "binary") == 0)
				o->sync = GLCUDA_SYNC_BINARY;
			else if (strcmp(optarg, "cpu") == 0)
				o->sync = GLCUDA_SYNC_CPU;
			else {
				fprintf(stderr, "glcuda-demo: --sync %s: expected auto, timeline, "
					"binary or cpu\n", optarg);
				return 2;
			}
			break;
		case O_DEVICE:
			if (!parse_u64(optarg, 0, INT_MAX, &n)) {
				fprintf(stderr, "glcuda-demo: --device %s: expected a CUDA device "
					"ordinal (0, 1, ...)\n", optarg);
				return 2;
			}
			o->device = (int)n;
			break;
		case O_QUIET:
			o->quiet = true;
			break;
		case 'h':
		case O_HELP:
			usage(stdout);
			return -1;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "glcuda-demo: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	return 0;
}

/* Shaders ---------------------------------------------------------------- */

static const char vertex_body[] =
	"out vec2 v_uv;\n"
	"void main()\n"
	"{\n"
	"	/* One triangle that covers the viewport. */\n"
	"	vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));\n"
	"	v_uv = p;\n"
	"	gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);\n"
	"}\n";

/* The scene: a drifting colour gradient, a fine grid (detail for the blur
 * and the sharpening to act on), a rotating striped disc, three circles on
 * Lissajous paths, a sweeping second hand, and the frame number in
 * seven-segment digits. Time comes from the frame number, so a frame looks
 * the same on every run. */
static const char scene_body[] =
	"uniform float u_time;\n"
	"uniform vec2 u_resolution;\n"
	"uniform int u_frame;\n"
	"in vec2 v_uv;\n"
	"layout(location = 0) out vec4 o_color;\n"
	"\n"
	"const float PI = 3.14159265;\n"
	"/* Segments a..g as bits 0..6 for the digits 0..9. */\n"
	"const int SEGMENTS[10] = int[10](63, 6, 91, 79, 102, 109, 125, 7, 127, 111);\n"
	"\n"
	"float box(vec2 p, vec2 lo, vec2 hi)\n"
	"{\n"
	"	return step(lo.x, p.x) * step(p.x, hi.x) * step(lo.y, p.y) * step(p.y, hi.y);\n"
	"}\n"
	"\n"
	"float digit(vec2 p, int d)\n"
	"{\n"
	"	int s = SEGMENTS[d];\n"
	"	float t = 0.14, on = 0.0;\n"
	"	if ((s & 1) != 0) on += box(p, vec2(t, 1.0 - t), vec2(1.0 - t, 1.0));\n"
	"	if ((s & 2) != 0) on += box(p, vec2(1.0 - t, 0.5), vec2(1.0, 1.0 - t));\n"
	"	if ((s & 4) != 0) on += box(p, vec2(1.0 - t, t), vec2(1.0, 0.5));\n"
	"	if ((s & 8) != 0) on += box(p, vec2(t, 0.0), vec2(1.0 - t, t));\n"
	"	if ((s & 16) != 0) on += box(p, vec2(0.0, t), vec2(t, 0.5));\n"
	"	if ((s & 32) != 0) on += box(p, vec2(0.0, 0.5), vec2(t, 1.0 - t));\n"
	"	if ((s & 64) != 0) on += box(p, vec2(t, 0.5 - t * 0.5), vec2(1.0 - t, 0.5 + t * 0.5));\n"
	"	return min(on, 1.0);\n"
	"}\n"
	"\n"
	"vec3 hue(float h)\n"
	"{\n"
	"	return clamp(abs(mod(h * 6.0 + vec3(0.0, 4.0, 2.0), 6.0) - 3.0) - 1.0, 0.0, 1.0);\n"
	"}\n"
	"\n"
	"void main()\n"
	"{\n"
	"	vec2 frag = v_uv * u_resolution;\n"
	"	/* Aspect-correct coordinates, origin at the centre, y up, height 1. */\n"
	"	vec2 p = (frag - 0.5 * u_resolution) / u_resolution.y;\n"
	"	float t = u_time;\n"
	"\n"
	"	vec3 col = mix(hue(0.08 * t + 0.25 * v_uv.x), hue(0.08 * t + 0.5 + 0.25 * v_uv.y),\n"
	"		       0.5 * v_uv.y) * 0.55 + 0.1;\n"
	"\n"
	"	/* Fine grid, scrolling. */\n"
	"	vec2 g = abs(fract((p + vec2(0.03 * t, 0.0)) * 24.0) - 0.5);\n"
	"	col = mix(col, vec3(0.95), 0.35 * (1.0 - smoothstep(0.0, 0.06, min(g.x, g.y))));\n"
	"\n"
	"	/* Rotating striped disc. */\n"
	"	float r = length(p);\n"
	"	float a = atan(p.y, p.x) + 0.7 * t;\n"
	"	float stripes = step(0.5, fract(a * 8.0 / (2.0 * PI) + r * 3.0));\n"
	"	float disc = 1.0 - smoothstep(0.33, 0.335, r);\n"
	"	col = mix(col, mix(vec3(0.05, 0.05, 0.12), vec3(1.0, 0.85, 0.2), stripes), disc);\n"
	"\n"
	"	/* Second hand. */\n"
	"	float ha = -2.0 * PI * fract(t / 4.0);\n"
	"	vec2 hd = vec2(sin(ha), cos(ha));\n"
	"	float along = dot(p, hd);\n"
	"	float across = abs(dot(p, vec2(hd.y, -hd.x)));\n"
	"	col = mix(col, vec3(0.9, 0.1, 0.1), step(0.0, along) * step(along, 0.31) * step(across, 0.006));\n"
	"\n"
	"	/* Circles on Lissajous paths. */\n"
	"	for (int i = 0; i < 3; i++) {\n"
	"		float fi = float(i);\n"
	"		vec2 c = vec2(0.62 * sin(t * (0.7 + 0.23 * fi) + fi * 2.1),\n"
	"			      0.36 * sin(t * (1.1 + 0.17 * fi) + fi * 1.3));\n"
	"		float d = length(p - c);\n"
	"		col = mix(col, hue(fi / 3.0 + 0.05 * t) * 0.9 + 0.1, 1.0 - smoothstep(0.075, 0.08, d));\n"
	"		col = mix(col, vec3(1.0), 1.0 - smoothstep(0.0, 0.004, abs(d - 0.08)));\n"
	"	}\n"
	"\n"
	"	/* Frame number: six seven-segment digits at the top left. */\n"
	"	float dh = 0.07;\n"
	"	vec2 q = (frag / u_resolution.y - vec2(0.03, 1.0 - 0.03 - dh)) / vec2(dh * 0.55, dh);\n"
	"	if (q.y >= 0.0 && q.y <= 1.0 && q.x >= 0.0 && q.x < 6.0 * 1.3) {\n"
	"		int cell = int(q.x / 1.3);\n"
	"		vec2 cp = vec2(fract(q.x / 1.3) * 1.3, q.y);\n"
	"		int n = u_frame;\n"
	"		for (int k = 0; k < 5 - cell; k++)\n"
	"			n /= 10;\n"
	"		if (cp.x <= 1.0)\n"
	"			col = mix(col * 0.35, vec3(0.3, 1.0, 0.4), digit(cp, n - (n / 10) * 10));\n"
	"		else\n"
	"			col *= 0.35;\n"
	"	}\n"
	"	o_color = vec4(col, 1.0);\n"
	"}\n";

static const char composite_body[] =
	"uniform sampler2D u_tex;\n"
	"in vec2 v_uv;\n"
	"layout(location = 0) out vec4 o_color;\n"
	"void main()\n"
	"{\n"
	"	o_color = vec4(texture(u_tex, v_uv).rgb, 1.0);\n"
	"}\n";

static const char header_gl[] = "#version 450 core\n";
static const char header_gles[] =
	"#version 300 es\n"
	"precision highp float;\n"
	"precision highp int;\n";

/* Demo state ------------------------------------------------------------- */

struct stats {
	double *v;
	size_t n, cap;
};

struct demo {
	struct options opt;
	struct glcuda_headless *hl;
	struct glcuda_device *dev;
	struct glcuda_ring *ring;
	struct filters *filters;
	const struct glcuda_caps *caps;
	bool timings;

	GLuint vao, scene_prog, composite_prog, sampler;
	GLint u_time, u_resolution, u_frame, u_tex;
	GLuint screen_tex, screen_fbo;

	/* PNGs */
	bool out_is_dir;
	bool out_dir_made;
	size_t png_next;     /* next index in opt.png_frames */
	uint64_t png_next_every;
	uint64_t png_last_written; /* frame number + 1, 0: none */
	unsigned png_count;
	uint8_t *readback;

	/* Progress and statistics */
	uint64_t produced, presented;
	int64_t last_presented; /* -1: none */
	uint64_t warmup;
	struct stats gl_render, to_cuda, cuda, to_gl, total, wall;
	double t_prev_complete;
	bool progress_tty;
	double t_progress;
};

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double
cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

static bool
stats_add(struct stats *s, double v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		double *p = realloc(s->v, cap * sizeof(*p));
		if (!p)
			return false;
		s->v = p;
		s->cap = cap;
	}
	s->v[s->n++] = v;
	return true;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Mean, median and 99th percentile (nearest rank). */
static void
stats_summary(struct stats *s, double *mean, double *p50, double *p99)
{
	double sum = 0;

	*mean = *p50 = *p99 = 0;
	if (s->n == 0)
		return;
	qsort(s->v, s->n, sizeof(double), cmp_double);
	for (size_t i = 0; i < s->n; i++)
		sum += s->v[i];
	*mean = sum / s->n;
	*p50 = s->v[(s->n - 1) / 2];
	*p99 = s->v[(size_t)ceil(0.99 * s->n) - 1];
}

static void
stats_free(struct stats *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

/* Errors ----------------------------------------------------------------- */

static int
glcuda_failed(const char *call, int err)
{
	fprintf(stderr, "glcuda-demo: %s failed: %s (%s)\n  %s\n", call, glcuda_error_get_name(err),
		glcuda_strerror(err),
		glcuda_get_last_error()[0] ? glcuda_get_last_error() : "(no further detail)");
	return 1;
}

static int
gl_failed_check(const char *where)
{
	GLenum err = glGetError();
	int count = 0;

	if (err == GL_NO_ERROR)
		return 0;
	while (err != GL_NO_ERROR && count++ < 8) {
		fprintf(stderr, "glcuda-demo: GL error 0x%04x %s\n", err, where);
		err = glGetError();
	}
	return 1;
}

/* What a failing setup call says is missing, in words. */
static const char *
missing_what(int err)
{
	switch (err) {
	case GLCUDA_ERROR_NO_CUDA_DRIVER:
		return "no CUDA driver found: glcuda-demo needs an NVIDIA GPU and its "
		       "driver's libcuda.so.1";
	case GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE:
		return "the GL context does not run on a CUDA device (GL and CUDA are on "
		       "different GPUs or drivers)";
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
		return "the GL context is too old (GL 4.5 core or GLES 3.0 needed)";
	case GLCUDA_ERROR_NO_DISPLAY:
		return "no EGL display or GL context could be made";
	default:
		return glcuda_strerror(err);
	}
}

/* glcuda_headless_new or glcuda_device_new failed: say what is missing,
 * then the same diagnosis as glcuda-info. */
static int
setup_failed(struct demo *d, const char *call, int err)
{
	char detail[2048];

	snprintf(detail, sizeof(detail), "%s",
		 glcuda_get_last_error()[0] ? glcuda_get_last_error() : "(no further detail)");
	glcuda_device_destroy(d->dev);
	d->dev = NULL;
	glcuda_headless_destroy(d->hl);
	d->hl = NULL;

	fprintf(stderr, "glcuda-demo: cannot run here: %s.\n", missing_what(err));
	fprintf(stderr, "glcuda-demo: %s failed with %s: %s\n", call, glcuda_error_get_name(err),
		detail);
	if (d->opt.device >= 0)
		snprintf(detail, sizeof(detail), " --device %d", d->opt.device);
	else
		detail[0] = '\0';
	fprintf(stderr, "\nglcuda-demo: diagnosis (the report of glcuda-info%s%s):\n\n",
		d->opt.gles ? " --gles" : "", detail);
	fflush(stderr);
	glcuda_info_report(stderr, false, d->opt.gles, d->opt.device);
	fflush(stderr);
	return 1;
}

/* GL setup --------------------------------------------------------------- */

static GLuint
compile(GLenum type, const char *header, const char *body, const char *name)
{
	const char *src[2] = { header, body };
	GLuint sh = glCreateShader(type);
	GLint ok = 0;

	glShaderSource(sh, 2, src, NULL);
	glCompileShader(sh);
	glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		char log[4096] = "";
		glGetShaderInfoLog(sh, sizeof(log), NULL, log);
		fprintf(stderr, "glcuda-demo: the %s shader does not compile:\n%s\n", name, log);
		glDeleteShader(sh);
		return 0;
	}
	return sh;
}

static GLuint
link_program(const char *header, const char *fragment_body, const char *name)
{
	GLuint vs = compile(GL_VERTEX_SHADER, header, vertex_body, "vertex");
	GLuint fs = vs ? compile(GL_FRAGMENT_SHADER, header, fragment_body, name) : 0;
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
		char log[4096] = "";
		glGetProgramInfoLog(prog, sizeof(log), NULL, log);
		fprintf(stderr, "glcuda-demo: the %s program does not link:\n%s\n", name, log);
		glDeleteProgram(prog);
		return 0;
	}
	return prog;
}

static int
gl_setup(struct demo *d)
{
	const char *header = d->opt.gles ? header_gles : header_gl;
	GLenum status;

	d->scene_prog = link_program(header, scene_body, "scene");
	d->composite_prog = link_program(header, composite_body, "composite");
	if (!d->scene_prog || !d->composite_prog)
		return 1;
	d->u_time = glGetUniformLocation(d->scene_prog, "u_time");
	d->u_resolution = glGetUniformLocation(d->scene_prog, "u_resolution");
	d->u_frame = glGetUniformLocation(d->scene_prog, "u_frame");
	d->u_tex = glGetUniformLocation(d->composite_prog, "u_tex");

	/* Core profiles draw only with a vertex array bound, even one
	 * without attributes. */
	glGenVertexArrays(1, &d->vao);

	/* A sampler object: the shared textures keep their own parameters. */
	glGenSamplers(1, &d->sampler);
	glSamplerParameteri(d->sampler, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
	glSamplerParameteri(d->sampler, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
	glSamplerParameteri(d->sampler, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
	glSamplerParameteri(d->sampler, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);

	/* The "screen": what a compositor would scan out. */
	glGenTextures(1, &d->screen_tex);
	glBindTexture(GL_TEXTURE_2D, d->screen_tex);
	glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, (GLsizei)d->opt.width, (GLsizei)d->opt.height);
	glBindTexture(GL_TEXTURE_2D, 0);
	glGenFramebuffers(1, &d->screen_fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, d->screen_fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
			       d->screen_tex, 0);
	status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	if (status != GL_FRAMEBUFFER_COMPLETE) {
		fprintf(stderr, "glcuda-demo: the screen framebuffer is incomplete (0x%04x)\n",
			status);
		return 1;
	}
	return gl_failed_check("while creating the shaders and the screen framebuffer");
}

static void
gl_teardown(struct demo *d)
{
	if (d->screen_fbo)
		glDeleteFramebuffers(1, &d->screen_fbo);
	if (d->screen_tex)
		glDeleteTextures(1, &d->screen_tex);
	if (d->sampler)
		glDeleteSamplers(1, &d->sampler);
	if (d->vao)
		glDeleteVertexArrays(1, &d->vao);
	if (d->scene_prog)
		glDeleteProgram(d->scene_prog);
	if (d->composite_prog)
		glDeleteProgram(d->composite_prog);
}

/* Per frame -------------------------------------------------------------- */

static void
render_scene(struct demo *d, struct glcuda_frame *f)
{
	uint64_t n = glcuda_frame_get_number(f);

	glBindFramebuffer(GL_FRAMEBUFFER, glcuda_frame_get_input_fbo(f));
	glViewport(0, 0, (GLsizei)d->opt.width, (GLsizei)d->opt.height);
	glDisable(GL_SCISSOR_TEST);
	glDisable(GL_BLEND);
	glDisable(GL_DEPTH_TEST);
	glUseProgram(d->scene_prog);
	glUniform1f(d->u_time, (float)((double)n / 60.0));
	glUniform2f(d->u_resolution, (float)d->opt.width, (float)d->opt.height);
	glUniform1i(d->u_frame, (GLint)(n % 1000000));
	glBindVertexArray(d->vao);
	glDrawArrays(GL_TRIANGLES, 0, 3);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

static void
fill_rect(int x, int y, int w, int h, float r, float g, float b)
{
	glScissor(x, y, w, h);
	glClearColor(r, g, b, 1.f);
	glClear(GL_COLOR_BUFFER_BIT);
}

static void
draw_texture(GLuint tex, int x, int y, int w, int h)
{
	glViewport(x, y, w, h);
	glBindTexture(GL_TEXTURE_2D, tex);
	glDrawArrays(GL_TRIANGLES, 0, 3);
}

/* Composite the frame's output onto the screen: the filtered frame full
 * size, the unfiltered input as a picture-in-picture at the top right, and
 * a progress bar along the bottom. */
static void
composite(struct demo *d, struct glcuda_frame *f)
{
	int w = (int)d->opt.width, h = (int)d->opt.height;
	int pw = w / 4, ph = h / 4, border = w >= 640 ? 3 : 1;
	int px = w - pw - w / 40, py = h - ph - h / 40;
	int bar = h / 90 > 3 ? h / 90 : 3;
	double progress = (double)(glcuda_frame_get_number(f) + 1) / (double)d->opt.frames;

	glBindFramebuffer(GL_FRAMEBUFFER, d->screen_fbo);
	glDisable(GL_SCISSOR_TEST);
	glDisable(GL_BLEND);
	glUseProgram(d->composite_prog);
	glUniform1i(d->u_tex, 0);
	glActiveTexture(GL_TEXTURE0);
	glBindSampler(0, d->sampler);
	glBindVertexArray(d->vao);
	draw_texture(glcuda_frame_get_output_texture(f), 0, 0, w, h);

	if (pw >= 16 && ph >= 16) {
		glEnable(GL_SCISSOR_TEST);
		fill_rect(px - border, py - border, pw + 2 * border, ph + 2 * border, 1.f, 1.f, 1.f);
		glDisable(GL_SCISSOR_TEST);
		draw_texture(glcuda_image_get_gl_texture(glcuda_frame_get_input(f)), px, py, pw, ph);
	}

	glEnable(GL_SCISSOR_TEST);
	fill_rect(0, 0, w, bar, 0.1f, 0.1f, 0.1f);
	fill_rect(0, 0, (int)(progress > 1.0 ? w : progress * w), bar, 0.2f, 0.8f, 0.3f);
	glDisable(GL_SCISSOR_TEST);

	glBindTexture(GL_TEXTURE_2D, 0);
	glBindSampler(0, 0);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	glViewport(0, 0, w, h);
}

static int
write_png(const char *path, const uint8_t *rgba, uint32_t w, uint32_t h)
{
	png_structp png = NULL;
	png_infop info = NULL;
	png_bytep *rows = malloc(h * sizeof(*rows));
	FILE *fp = NULL;
	volatile int ret = 1; /* set after setjmp */

	if (!rows) {
		fprintf(stderr, "glcuda-demo: out of memory writing %s\n", path);
		return 1;
	}
	/* GL's rows go bottom-up, PNG's top-down. */
	for (uint32_t y = 0; y < h; y++)
		rows[y] = (png_bytep)(rgba + (size_t)(h - 1 - y) * w * 4);
	fp = fopen(path, "wb");
	if (!fp) {
		fprintf(stderr, "glcuda-demo: cannot create %s: %s\n", path, strerror(errno));
		free(rows);
		return 1;
	}
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	if (png)
		info = png_create_info_struct(png);
	if (!png || !info) {
		fprintf(stderr, "glcuda-demo: libpng: out of memory\n");
		goto out;
	}
	if (setjmp(png_jmpbuf(png))) {
		fprintf(stderr, "glcuda-demo: libpng failed writing %s\n", path);
		goto out;
	}
	png_init_io(png, fp);
	png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_set_compression_level(png, 3);
	png_write_info(png, info);
	png_write_image(png, rows);
	png_write_end(png, NULL);
	ret = 0;
out:
	png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
	if (fclose(fp) != 0 && ret == 0) {
		fprintf(stderr, "glcuda-demo: writing %s: %s\n", path, strerror(errno));
		ret = 1;
	}
	free(rows);
	return ret;
}

/* Read the screen back (only for frames written as PNG) and write it. */
static int
save_screen(struct demo *d, uint64_t number)
{
	char path[PATH_MAX];
	size_t size = (size_t)d->opt.width * d->opt.height * 4;

	if (d->png_last_written == number + 1)
		return 0;
	if (d->out_is_dir) {
		if (!d->out_dir_made) {
			if (mkdir(d->opt.output, 0777) < 0 && errno != EEXIST) {
				fprintf(stderr, "glcuda-demo: cannot create directory %s: %s\n",
					d->opt.output, strerror(errno));
				return 1;
			}
			d->out_dir_made = true;
		}
		snprintf(path, sizeof(path), "%s%sframe-%06llu.png", d->opt.output,
			 d->opt.output[strlen(d->opt.output) - 1] == '/' ? "" : "/",
			 (unsigned long long)number);
	} else {
		snprintf(path, sizeof(path), "%s-%06llu.png", d->opt.output,
			 (unsigned long long)number);
	}
	if (!d->readback) {
		d->readback = malloc(size);
		if (!d->readback) {
			fprintf(stderr, "glcuda-demo: out of memory for the PNG readback\n");
			return 1;
		}
	}
	glBindFramebuffer(GL_READ_FRAMEBUFFER, d->screen_fbo);
	glPixelStorei(GL_PACK_ALIGNMENT, 1);
	glReadPixels(0, 0, (GLsizei)d->opt.width, (GLsizei)d->opt.height, GL_RGBA,
		     GL_UNSIGNED_BYTE, d->readback);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
	if (gl_failed_check("reading the screen back for a PNG"))
		return 1;
	if (write_png(path, d->readback, d->opt.width, d->opt.height))
		return 1;
	d->png_last_written = number + 1;
	d->png_count++;
	if (!d->opt.quiet) {
		if (d->progress_tty)
			fprintf(stderr, "\r\033[K");
		fprintf(stderr, "glcuda-demo: wrote %s\n", path);
	}
	return 0;
}

/* Whether the presented frame `number` is one to write: the first
 * presented frame at or after each asked-for number. */
static bool
png_wanted(struct demo *d, uint64_t number)
{
	bool want = false;

	while (d->png_next < d->opt.png_frame_count &&
	       d->opt.png_frames[d->png_next] <= number) {
		want = true;
		d->png_next++;
	}
	if (d->opt.png_every && number >= d->png_next_every) {
		want = true;
		d->png_next_every = (number / d->opt.png_every + 1) * d->opt.png_every;
	}
	return want;
}

static int
collect_timings(struct demo *d)
{
	struct glcuda_frame_timings t;
	int ret;

	if (!d->timings)
		return 0;
	while ((ret = glcuda_ring_get_timings(d->ring, &t)) == 1) {
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
		return glcuda_failed("glcuda_ring_get_timings", ret);
	return 0;
}

/* Take the newest finished frame, if any, composite it, release it.
 * *presented says whether there was one. */
static int
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
static int
wait_for_frame(struct demo *d)
{
	struct pollfd pfd = { .fd = glcuda_ring_get_fd(d->ring), .events = POLLIN };
	int n, ret;

	do
		n = poll(&pfd, 1, FRAME_TIMEOUT_MS);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		fprintf(stderr, "glcuda-demo: poll on the ring fd: %s\n", strerror(errno));
		return 1;
	}
	if (n == 0) {
		fprintf(stderr, "glcuda-demo: no frame finished within %d s: the GPU is hung or "
			"a hand-off never signalled (sync mode %s)\n", FRAME_TIMEOUT_MS / 1000,
			glcuda_sync_mode_get_name(d->caps->sync_mode));
		return 1;
	}
	ret = glcuda_ring_dispatch(d->ring);
	if (ret < 0)
		return glcuda_failed("glcuda_ring_dispatch", ret);
	return 0;
}

static void
progress(struct demo *d, bool final)
{
	double t = now_s();

	if (d->opt.quiet)
		return;
	if (d->progress_tty) {
		if (!final && t - d->t_progress < 0.1)
			return;
		d->t_progress = t;
		fprintf(stderr, "\r\033[Kframe %llu/%llu, presented %llu, dropped %llu",
			(unsigned long long)d->produced, (unsigned long long)d->opt.frames,
			(unsigned long long)d->presented,
			(unsigned long long)glcuda_ring_get_dropped(d->ring));
		if (final)
			fputc('\n', stderr);
		return;
	}
	/* Not a terminal (a log): a line every tenth of a long run. */
	if (d->opt.frames >= 500 && !final && d->produced % (d->opt.frames / 10) == 0)
		fprintf(stderr, "glcuda-demo: frame %llu/%llu\n", (unsigned long long)d->produced,
			(unsigned long long)d->opt.frames);
}

static int
produce_frame(struct demo *d, struct glcuda_frame *f)
{
	double t;
	int ret;

	render_scene(d, f);
	ret = glcuda_frame_submit(f);
	if (ret < 0)
		return glcuda_failed("glcuda_frame_submit", ret);
	ret = filters_run(d->filters, d->opt.filter, glcuda_frame_get_stream(f), glcuda_frame_get_input(f),
			  glcuda_frame_get_output(f));
	if (ret < 0) {
		fprintf(stderr, "glcuda-demo: filter %s failed: %s\n", filter_name(d->opt.filter),
			filters_last_error());
		/* Hand the frame back anyway, so that the ring stays usable. */
		glcuda_frame_complete(f);
		return 1;
	}
	ret = glcuda_frame_complete(f);
	if (ret < 0)
		return glcuda_failed("glcuda_frame_complete", ret);
	if (d->produced == 0 && gl_failed_check("in the first frame"))
		return 1;

	t = now_s();
	if (d->produced > d->warmup && !stats_add(&d->wall, (t - d->t_prev_complete) * 1e6)) {
		fprintf(stderr, "glcuda-demo: out of memory\n");
		return 1;
	}
	d->t_prev_complete = t;
	d->produced++;
	return 0;
}

static int
run_frames(struct demo *d, double *wall_s, double *cpu_per_frame_s)
{
	double t0 = now_s(), c0 = cpu_s();
	bool presented, measuring = false;
	int ret;

	while (d->produced < d->opt.frames) {
		struct glcuda_frame *f;

		if (!measuring && d->produced == d->warmup) {
			/* Warm-up over: the clocks of the summary start. */
			t0 = now_s();
			c0 = cpu_s();
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
	*wall_s = now_s() - t0;
	*cpu_per_frame_s = (cpu_s() - c0) / (double)(d->produced - d->warmup);
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

static void
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

static void
print_summary(struct demo *d, double wall_s, double cpu_per_frame_s)
{
	uint64_t measured = d->produced - d->warmup;

	printf("\nglcuda-demo summary: %llu frames produced, %llu presented, %llu dropped",
	       (unsigned long long)d->produced, (unsigned long long)d->presented,
	       (unsigned long long)glcuda_ring_get_dropped(d->ring));
	if (d->warmup)
		printf(" (statistics leave out the first %llu as warm-up)",
		       (unsigned long long)d->warmup);
	printf("\n\n  %-18s %10s %10s %10s\n", "stage (us)", "mean", "p50", "p99");
	if (d->timings) {
		print_row("gl_render", &d->gl_render);
		print_row("handoff_to_cuda", &d->to_cuda);
		print_row("cuda", &d->cuda);
		print_row("handoff_to_gl", &d->to_gl);
		print_row("total", &d->total);
		printf("  (GPU timings of %zu presented frames)\n", d->total.n);
	} else {
		printf("  (no GPU timings: the context has no timer queries)\n");
	}
	print_row("wall frame time", &d->wall);
	printf("\n  throughput:        %.1f frames/s (%.1f us/frame wall clock)\n",
	       measured / wall_s, wall_s * 1e6 / measured);
	printf("  process CPU time:  %.1f us/frame (__GL_YIELD=%s)\n", cpu_per_frame_s * 1e6,
	       getenv("__GL_YIELD") ? getenv("__GL_YIELD") : "unset");
	if (d->png_count)
		printf("  PNG files:         %u in %s\n", d->png_count, d->opt.output);
}

/* Main ------------------------------------------------------------------- */

static int
run(struct demo *d)
{
	struct glcuda_device_options dopt = { .size = sizeof(dopt), .sync_mode = d->opt.sync };
	struct glcuda_ring_desc desc;
	struct filter_params fp = { .sigma = d->opt.sigma, .amount = d->opt.amount };
	struct stat st;
	double wall_s = 0, cpu_per_frame_s = 0;
	int ret;

	ret = glcuda_headless_new(d->opt.device,
				  d->opt.gles ? GLCUDA_HEADLESS_FLAG_GLES : GLCUDA_HEADLESS_FLAG_NONE,
				  &d->hl);
	if (ret < 0)
		return setup_failed(d, "glcuda_headless_new", ret);
	ret = glcuda_device_new(glcuda_headless_get_display(d->hl), glcuda_headless_get_context(d->hl),
				&dopt, &d->dev);
	if (ret < 0)
		return setup_failed(d, "glcuda_device_new", ret);
	d->caps = glcuda_device_get_caps(d->dev);

	if (d->opt.width > d->caps->max_image_size || d->opt.height > d->caps->max_image_size) {
		fprintf(stderr, "glcuda-demo: %ux%u is larger than the largest image here (%u)\n",
			d->opt.width, d->opt.height, d->caps->max_image_size);
		return 1;
	}
	if (!(d->caps->formats_supported & (1u << d->opt.format))) {
		fprintf(stderr, "glcuda-demo: the drivers cannot share %s images\n",
			glcuda_format_get_name(d->opt.format));
		return 1;
	}
	if (!filter_available(d->opt.filter)) {
		fprintf(stderr, "glcuda-demo: this build has no CUDA kernels (nvcc was not found "
			"at configure time): only the \"none\" filter (a copy) is available; "
			"running with --filter none instead of %s\n", filter_name(d->opt.filter));
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
		fprintf(stderr, "glcuda-demo: no GPU timings: %s\n", glcuda_get_last_error());
		desc.flags &= ~(uint32_t)GLCUDA_RING_FLAG_TIMINGS;
		ret = glcuda_ring_new(d->dev, &desc, &d->ring);
	}
	if (ret < 0)
		return glcuda_failed("glcuda_ring_new", ret);
	d->timings = desc.flags & GLCUDA_RING_FLAG_TIMINGS;

	ret = filters_new(d->dev, d->opt.width, d->opt.height, &fp, &d->filters);
	if (ret < 0) {
		fprintf(stderr, "glcuda-demo: cannot set up the CUDA filters: %s\n",
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
		fprintf(stderr, "glcuda-demo: %s\n", glcuda_headless_get_description(d->hl));
		fprintf(stderr, "glcuda-demo: %s %d.%d on %s; CUDA device %d (%s); sync %s%s\n",
			d->caps->gl_api == GLCUDA_GL_API_GLES ? "OpenGL ES" : "OpenGL",
			d->caps->gl_major, d->caps->gl_minor, d->caps->gl_renderer,
			d->caps->cuda_ordinal, d->caps->cuda_device_name,
			glcuda_sync_mode_get_name(d->caps->sync_mode),
			d->caps->sync_mode == GLCUDA_SYNC_CPU ? " (CPU fallback: hand-offs block)" : "");
		fprintf(stderr, "glcuda-demo: %llu frames of %ux%u %s, filter %s",
			(unsigned long long)d->opt.frames, d->opt.width, d->opt.height,
			glcuda_format_get_name(d->opt.format), filter_name(d->opt.filter));
		if (d->opt.filter == FILTER_BLUR || d->opt.filter == FILTER_UNSHARP)
			fprintf(stderr, " (sigma %.2f px", p->sigma);
		if (d->opt.filter == FILTER_UNSHARP)
			fprintf(stderr, ", amount %.2f", p->amount);
		if (d->opt.filter == FILTER_BLUR || d->opt.filter == FILTER_UNSHARP)
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

int
main(int argc, char **argv)
{
	struct demo d;
	int ret;

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
