/*
 * glcuda-bench: the command line (paths, groups, modes, presets).
 * SPDX-License-Identifier: MIT
 */
#include "bench.h"

/* ---------------------------------------------------------------------- */
/* Options                                                                  */

const char *const path_names[PATH_COUNT] = {
	"gl",	    "cuda",    "legacy",   "legacy-nosync",
	"readback", "wrap-gl", "wrap-egl", "glcuda", "bare",
};

const char *const kernel_names[KERNEL_COUNT] = { "invert", "blur" };

const char *const policy_names[POLICY_COUNT] = { "wait", "ready", "newest",
						 "batch" };

const enum glcuda_sync_mode all_modes[] = {
	GLCUDA_SYNC_TIMELINE, GLCUDA_SYNC_BINARY, GLCUDA_SYNC_CPU,
};

struct options opt;
char command_line[2048];

void
usage(FILE *f)
{
	fprintf(f,
		"Usage: glcuda-bench [OPTIONS]\n"
		"\n"
		"Runs the same GL -> CUDA -> GL frame pipeline through "
		"glcuda's ring (each\n"
		"sync mode, GL waiting at once and pipelined), the legacy "
		"cuGraphicsGL\n"
		"registration, a PBO readback, and the GL and CUDA references; "
		"prints a\n"
		"markdown table per size and kernel and writes them with CSVs "
		"to --out.\n"
		"\n"
		"Presets (later options override them):\n"
		"  --quick            1080p,4k; invert,blur; gl, cuda, "
		"readback, legacy and\n"
		"                     legacy-nosync at depths 1,3, glcuda "
		"timeline at depths\n"
		"                     1,3 with wait and ready and one newest "
		"row; 150\n"
		"                     frames, 3 reps (--dry-run prints the "
		"estimate)\n"
		"  --full             1080p,4k,4k-f16; invert,blur; every "
		"path, mode, depth\n"
		"                     1-4 and policy; 300 frames, 3 reps (the "
		"default; split\n"
		"                     it by --sizes to fit a 10-minute "
		"command)\n"
		"Selection (comma-separated lists):\n"
		"  --sizes LIST       1080p, 4k, 1080p-f16, 4k-f16 or "
		"WxH[-f16] (RGBA8 or RGBA16F)\n"
		"  --kernels LIST     invert, blur\n"
		"  --paths LIST       gl, cuda, glcuda, legacy, legacy-nosync, "
		"readback,\n"
		"                     wrap-gl, wrap-egl, bare (glcuda's "
		"driver calls of the\n"
		"                     timeline mode made by hand, GL waiting "
		"for the oldest)\n"
		"  --modes LIST       timeline, binary, cpu (glcuda sync "
		"modes; each gets a\n"
		"                     device with options.sync_mode forced)\n"
		"  --depths LIST      frames in flight, 1..4, for glcuda (1 = "
		"GL waits at once;\n"
		"                     the ring has max(2, depth) slots) and "
		"for legacy and\n"
		"                     legacy-nosync (depth registered texture "
		"pairs, each\n"
		"                     on its own stream) and bare (depth "
		"slots)\n"
		"  --policies LIST    how glcuda presents once `depth` frames "
		"are in flight:\n"
		"                     wait   = glcuda_frame_wait_gl on the "
		"oldest (no CPU\n"
		"                              wait; GL may wait on the GPU)\n"
		"                     ready  = sleep on the ring's fd until a "
		"frame is done,\n"
		"                              then wait_gl + composite the "
		"oldest, as many\n"
		"                              as glcuda_ring_dispatch counts "
		"(every frame\n"
		"                              composited)\n"
		"                     newest = glcuda_ring_take_newest (polls "
		"the fd if none\n"
		"                              is ready; older ready frames "
		"are DROPPED)\n"
		"Measurement:\n"
		"  --frames N         measured frames per run (default 300)\n"
		"  --warmup N         frames run before measuring (default "
		"50)\n"
		"  --reps N           runs per configuration, interleaved "
		"(default 3, max %d)\n"
		"  --max-seconds S    stop a run after S seconds of measuring "
		"(default 1.5;\n"
		"                     --quick 1)\n"
		"  --min-frames N     ... but not before N frames (default "
		"30)\n"
		"  --time-limit S     start no run after S seconds; the rest "
		"are reported as\n"
		"                     skipped (default: none)\n"
		"  --queue K          frames the CPU may run ahead of GL "
		"(default 2; 0 lets\n"
		"                     the driver throttle inside whatever GL "
		"call it likes)\n"
		"  --timing-frames N  one more run per glcuda configuration "
		"with\n"
		"                     GLCUDA_RING_FLAG_TIMINGS for the "
		"GPU-measured hand-off\n"
		"                     latency (default 200; 0: none)\n"
		"  --blur-sigma S     Gaussian sigma in pixels (default 4 at "
		"1080 lines,\n"
		"                     scaled with the height, as the demo's "
		"blur)\n"
		"Output:\n"
		"  --out DIR          write bench-LABEL.md, summary-LABEL.csv "
		"and\n"
		"                     runs-LABEL.csv there (default: no "
		"files)\n"
		"  --label NAME       (default: yield-<$__GL_YIELD or "
		"default>)\n"
		"  --cuda-device N    CUDA device ordinal (default 0); -1: the "
		"first EGL\n"
		"                     display that makes a context (the fake "
		"CUDA driver)\n"
		"  --dry-run          print the plan and the time estimate, "
		"run nothing\n"
		"  --gl-only          run only the GL reference (a machine "
		"without CUDA)\n"
		"  --help\n"
		"\n"
		"Every run ends by reading back its last composited frame and "
		"comparing it\n"
		"exactly with that frame's pattern put through the same kernel "
		"on its own;\n"
		"a mismatch fails the row. GLCUDA_BENCH_INVERT_U8=NAME runs "
		"another RGBA8\n"
		"invert kernel of the module (the fake CUDA driver's "
		"ring_transform).\n"
		"\n"
		"Set __GL_YIELD=USLEEP to keep NVIDIA's GL driver from "
		"spinning the CPU\n"
		"while it waits; bench/run.sh runs both settings.\n",
		MAX_REPS);
}

/*
 * --quick: the rows the comparison rests on, at 1080p and 4K with both
 * kernels: the floor's halves, legacy and legacy-nosync at depths 1 and 3,
 * the readback pipeline, glcuda's timeline mode at depths 1 and 3 with
 * the wait, ready and batch policies, and one dropping row (newest, 3
 * in flight) for comparison. --full: every path, mode, depth and policy.
 */
void
set_preset(const char *name)
{
	bool quick = strcmp(name, "quick") == 0;

	opt.preset = quick ? "quick" : "full";
	opt.group_count = 0;
	opt.kernels = (1u << KERNEL_INVERT) | (1u << KERNEL_BLUR);
	opt.paths = (1u << PATH_GL) | (1u << PATH_CUDA) | (1u << PATH_LEGACY) |
		    (1u << PATH_LEGACY_NOSYNC) | (1u << PATH_READBACK) |
		    (1u << PATH_GLCUDA);
	if (!quick)
		opt.paths |= (1u << PATH_WRAP_GL) | (1u << PATH_WRAP_EGL);
	opt.modes = quick ? 1u << GLCUDA_SYNC_TIMELINE
			  : (1u << GLCUDA_SYNC_TIMELINE) |
				    (1u << GLCUDA_SYNC_BINARY) |
				    (1u << GLCUDA_SYNC_CPU);
	opt.depths = quick ? (1u << 1) | (1u << 3)
			   : (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4);
	opt.policies = (1u << POLICY_WAIT) | (1u << POLICY_READY) |
		       (1u << POLICY_NEWEST) | (1u << POLICY_BATCH);
	opt.frames = quick ? 150 : 300;
	opt.warmup = quick ? 30 : 50;
	opt.reps = 3;
	opt.min_frames = 30;
	opt.max_seconds = quick ? 1.0 : 1.5;
	opt.timing_frames = quick ? 100 : 200;
}

int
parse_group(const char *s, struct group *g)
{
	unsigned int w = 0, h = 0;
	const char *rest;

	memset(g, 0, sizeof(*g));
	if (strncmp(s, "1080p", 5) == 0) {
		w = 1920, h = 1080, rest = s + 5;
	} else if (strncmp(s, "4k", 2) == 0 || strncmp(s, "4K", 2) == 0) {
		w = 3840, h = 2160, rest = s + 2;
	} else if (strncmp(s, "720p", 4) == 0) {
		w = 1280, h = 720, rest = s + 4;
	} else if (!parse_size_prefix(s, 1, 16384, &w, &h, &rest)) {
		return -1;
	}
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
int
parse_names(const char *list, const char *const *names, unsigned int count,
	    unsigned int *bits, const char *what)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", list);
	*bits = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned int i;
		for (i = 0; i < count; i++)
			if (names[i] && strcmp(tok, names[i]) == 0)
				break;
		if (i == count) {
			fprintf(stderr, "glcuda-bench: unknown %s \"%s\"\n",
				what, tok);
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

int
option_uint(const char *s, unsigned int lo, unsigned int hi, unsigned int *out,
	    const char *what)
{
	if (!parse_uint(s, lo, hi, out)) {
		fprintf(stderr, "glcuda-bench: %s must be %u..%u, not \"%s\"\n",
			what, lo, hi, s);
		return -1;
	}
	return 0;
}

int
option_double(const char *s, double lo, double hi, double *out,
	      const char *what)
{
	if (!parse_double(s, lo, hi, out)) {
		fprintf(stderr, "glcuda-bench: %s must be %g..%g, not \"%s\"\n",
			what, lo, hi, s);
		return -1;
	}
	return 0;
}

/* The options that take a number: its range and where it goes (u for
 * unsigned ones, d for the others). */
static const struct numeric_option {
	int id;
	const char *name;
	double lo, hi;
	unsigned int *u;
	double *d;
} numeric_options[] = {
	{ OPT_FRAMES, "--frames", 1, 1000000, &opt.frames, NULL },
	{ OPT_WARMUP, "--warmup", 0, 100000, &opt.warmup, NULL },
	{ OPT_REPS, "--reps", 1, MAX_REPS, &opt.reps, NULL },
	{ OPT_MAX_SECONDS, "--max-seconds", 0.01, 3600, NULL,
	  &opt.max_seconds },
	{ OPT_MIN_FRAMES, "--min-frames", 1, 1000000, &opt.min_frames, NULL },
	{ OPT_TIME_LIMIT, "--time-limit", 1, 1e6, NULL, &opt.time_limit },
	{ OPT_QUEUE, "--queue", 0, MAX_QUEUE, &opt.queue, NULL },
	{ OPT_TIMING_FRAMES, "--timing-frames", 0, 1000000, &opt.timing_frames,
	  NULL },
	{ OPT_BLUR_SIGMA, "--blur-sigma", 0, 20, NULL, &opt.blur_sigma },
};

/* A numeric option's value: 1 when id is one (set), 0 when it is not, -1
 * after a message when the value is out of its range. */
static int
numeric_option(int id, const char *arg)
{
	for (size_t i = 0; i < ARRAY_LENGTH(numeric_options); i++) {
		const struct numeric_option *o = &numeric_options[i];

		if (o->id != id)
			continue;
		if (o->u)
			return option_uint(arg, (unsigned int)o->lo,
					   (unsigned int)o->hi, o->u,
					   o->name) < 0
				       ? -1
				       : 1;
		return option_double(arg, o->lo, o->hi, o->d, o->name) < 0 ? -1
									   : 1;
	}
	return 0;
}

const struct option long_options[] = {
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

int
parse_options(int argc, char **argv)
{
	static const char *const mode_names[] = {
		NULL, "timeline", "binary", "cpu",
	};
	const char *sizes = NULL;
	const char *yield;
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
		int numeric = numeric_option(c, optarg);

		if (numeric < 0)
			return -1;
		if (numeric > 0)
			continue;
		switch (c) {
		case OPT_QUICK:
		case OPT_FULL:
			break;
		case OPT_SIZES:
			sizes = optarg;
			break;
		case OPT_KERNELS:
			if (parse_names(optarg, kernel_names, KERNEL_COUNT,
					&opt.kernels, "kernel") < 0)
				return -1;
			break;
		case OPT_PATHS:
			if (parse_names(optarg, path_names, PATH_COUNT,
					&opt.paths, "path") < 0)
				return -1;
			break;
		case OPT_MODES:
			if (parse_names(optarg, mode_names,
					ARRAY_LENGTH(mode_names), &opt.modes,
					"sync mode") < 0)
				return -1;
			break;
		case OPT_DEPTHS: {
			static const char *const depth_names[] = {
				NULL, "1", "2", "3", "4",
			};
			if (parse_names(optarg, depth_names,
					ARRAY_LENGTH(depth_names), &opt.depths,
					"depth") < 0)
				return -1;
			break;
		}
		case OPT_POLICIES:
			if (parse_names(optarg, policy_names, POLICY_COUNT,
					&opt.policies, "policy") < 0)
				return -1;
			break;
		case OPT_OUT:
			opt.out_dir = optarg;
			break;
		case OPT_LABEL:
			for (const char *p = optarg; *p; p++)
				if (!isalnum((unsigned char)*p) && *p != '-' &&
				    *p != '_' && *p != '.') {
					fprintf(stderr, "glcuda-bench: "
							"--label: letters, "
							"digits, '-', '_' and "
							"'.' only\n");
					return -1;
				}
			snprintf(opt.label, sizeof(opt.label), "%s", optarg);
			break;
		case OPT_CUDA_DEVICE:
			if (!parse_int(optarg, -1, 64, &opt.cuda_device)) {
				fprintf(stderr,
					"glcuda-bench: --cuda-device must be "
					"-1..64, not \"%s\"\n",
					optarg);
				return -1;
			}
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
	if (!parse_no_operands("glcuda-bench", argc, argv, optind))
		return -1;

	if (!sizes)
		sizes = strcmp(opt.preset, "quick") == 0 ? "1080p,4k"
							 : "1080p,4k,4k-f16";
	{
		char buf[256], *save = NULL, *tok;
		snprintf(buf, sizeof(buf), "%s", sizes);
		for (tok = strtok_r(buf, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (opt.group_count == MAX_GROUPS) {
				fprintf(stderr,
					"glcuda-bench: at most %d sizes\n",
					MAX_GROUPS);
				return -1;
			}
			if (parse_group(tok, &opt.groups[opt.group_count]) <
			    0) {
				fprintf(stderr,
					"glcuda-bench: bad size \"%s\" (1080p, "
					"4k, 4k-f16, WxH or WxH-f16)\n",
					tok);
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
