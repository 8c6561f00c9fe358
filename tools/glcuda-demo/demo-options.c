/*
 * glcuda-demo: the command line.
 * SPDX-License-Identifier: MIT
 */
#include "demo.h"

/* Options ---------------------------------------------------------------- */

void
usage(FILE *out)
{
	fprintf(out,
		"Usage: glcuda-demo [OPTION...]\n"
		"\n"
		"Renders an animated OpenGL scene, filters every frame with "
		"CUDA through\n"
		"glcuda's zero-copy frame ring, composites the result with GL, "
		"and prints\n"
		"per-stage timings. Headless (EGL device or surfaceless "
		"platform).\n"
		"\n"
		"  --size WxH          frame size (default 1920x1080)\n"
		"  --frames N          frames to render (default 300)\n"
		"  --in-flight N       ring slots, frames in flight, 2..4 "
		"(default 3)\n"
		"  --filter NAME       none, invert, blur, unsharp, grade "
		"(default blur)\n"
		"  --sigma PX          blur/unsharp Gaussian sigma (default 4 "
		"px at 1080p)\n"
		"  --amount A          unsharp strength (default 1.0)\n"
		"  --format FMT        ring image format: rgba8, rgba16f, "
		"rgba32f (default rgba8)\n"
		"  --output PATH       directory (existing, or ending in /) or "
		"file prefix\n"
		"                      for PNGs (default " DEFAULT_OUTPUT "/)\n"
		"  --png-every N       write every N-th frame as PNG (0: off)\n"
		"  --png-frames LIST   frames to write, e.g. 0,150,last; "
		"'none' for none\n"
		"                      (default: last)\n"
		"  --gles              OpenGL ES 3 instead of OpenGL 4 core\n"
		"  --sync MODE         auto, timeline, binary, cpu (default "
		"auto)\n"
		"  --cuda-device N     CUDA device ordinal whose EGL device to "
		"use\n"
		"                      (default: the EGL device of a CUDA "
		"device CUDA\n"
		"                      can see; --device N, the older "
		"spelling, is the\n"
		"                      same)\n"
		"  --quiet             only errors and the summary\n"
		"  --help              this text\n"
		"\n"
		"On NVIDIA, GL spins the CPU while it throttles unless "
		"__GL_YIELD=USLEEP is\n"
		"set in the environment: compare the process CPU time per "
		"frame with and\n"
		"without it.\n"
		"Frames whose number is asked for but that the ring dropped (a "
		"newer one\n"
		"was ready first) are written at the next presented frame, "
		"under its number.\n"
		"Exit status: 0 on success, 1 on failure, 2 on bad usage.\n");
}

bool
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
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
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
	qsort(o->png_frames, o->png_frame_count, sizeof(uint64_t),
	      stats_cmp_u64);
	return true;
}

int
parse_options(int argc, char **argv, struct options *o)
{
	enum {
		O_SIZE = 256,
		O_FRAMES,
		O_IN_FLIGHT,
		O_FILTER,
		O_SIGMA,
		O_AMOUNT,
		O_FORMAT,
		O_OUTPUT,
		O_PNG_EVERY,
		O_PNG_FRAMES,
		O_GLES,
		O_SYNC,
		O_DEVICE,
		O_QUIET,
		O_HELP
	};
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
		{ "cuda-device", required_argument, NULL, O_DEVICE },
		{ "device", required_argument, NULL,
		  O_DEVICE }, /* the older spelling */
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct options){
		.width = 1920,
		.height = 1080,
		.frames = 300,
		.in_flight = 3,
		.filter = FILTER_BLUR,
		.format = GLCUDA_FORMAT_RGBA8,
		.output = DEFAULT_OUTPUT,
		.png_last = true,
		.sync = GLCUDA_SYNC_AUTO,
		.device = -1,
	};
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		uint64_t n;
		switch (c) {
		case O_SIZE:
			if (!parse_size(optarg, 1, 16384, &o->width,
					&o->height)) {
				fprintf(stderr,
					"glcuda-demo: --size %s: expected WxH, "
					"each side 1..16384, e.g. 1920x1080\n",
					optarg);
				return 2;
			}
			break;
		case O_FRAMES:
			if (!parse_u64(optarg, 1, 100000000, &o->frames)) {
				fprintf(stderr,
					"glcuda-demo: --frames %s: expected a "
					"positive number\n",
					optarg);
				return 2;
			}
			break;
		case O_IN_FLIGHT:
			if (!parse_u64(optarg, 2, GLCUDA_RING_MAX_SLOTS, &n)) {
				fprintf(stderr,
					"glcuda-demo: --in-flight %s: expected "
					"2..%d\n",
					optarg, GLCUDA_RING_MAX_SLOTS);
				return 2;
			}
			o->in_flight = (uint32_t)n;
			break;
		case O_FILTER: {
			int k = filter_from_name(optarg);
			if (k < 0) {
				fprintf(stderr,
					"glcuda-demo: --filter %s: expected "
					"none, invert, blur, unsharp or "
					"grade\n",
					optarg);
				return 2;
			}
			o->filter = (enum filter_kind)k;
			break;
		}
		case O_SIGMA:
			if (!parse_float(optarg, 0.1f, 21.f, &o->sigma)) {
				fprintf(stderr,
					"glcuda-demo: --sigma %s: expected "
					"0.1..21 (pixels)\n",
					optarg);
				return 2;
			}
			break;
		case O_AMOUNT:
			if (!parse_float(optarg, 0.01f, 20.f, &o->amount)) {
				fprintf(stderr,
					"glcuda-demo: --amount %s: expected "
					"0.01..20\n",
					optarg);
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
				fprintf(stderr,
					"glcuda-demo: --format %s: expected "
					"rgba8, rgba16f or rgba32f\n",
					optarg);
				return 2;
			}
			break;
		case O_OUTPUT:
			if (!*optarg) {
				fprintf(stderr, "glcuda-demo: --output needs a "
						"path\n");
				return 2;
			}
			o->output = optarg;
			break;
		case O_PNG_EVERY:
			if (!parse_u64(optarg, 0, UINT64_MAX, &o->png_every)) {
				fprintf(stderr,
					"glcuda-demo: --png-every %s: expected "
					"a number\n",
					optarg);
				return 2;
			}
			break;
		case O_PNG_FRAMES:
			if (!parse_png_frames(optarg, o)) {
				fprintf(stderr,
					"glcuda-demo: --png-frames %s: "
					"expected frame numbers and 'last', "
					"separated by commas, or 'none'\n",
					optarg);
				return 2;
			}
			break;
		case O_GLES:
			o->gles = true;
			break;
		case O_SYNC:
			if (!parse_sync_mode(optarg, &o->sync)) {
				fprintf(stderr,
					"glcuda-demo: --sync %s: "
					"expected " PARSE_SYNC_MODE_NAMES "\n",
					optarg);
				return 2;
			}
			break;
		case O_DEVICE:
			if (!parse_u64(optarg, 0, INT_MAX, &n)) {
				fprintf(stderr,
					"glcuda-demo: --cuda-device %s: "
					"expected a CUDA device ordinal (0, 1, "
					"...)\n",
					optarg);
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
	if (!parse_no_operands("glcuda-demo", argc, argv, optind)) {
		usage(stderr);
		return 2;
	}
	return 0;
}
