/*
 * glcuda-compositor: command line.
 * SPDX-License-Identifier: MIT
 */
#include "comp.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static const char usage_text[] =
	"Usage: " COMP_NAME " [OPTIONS] [-- COMMAND [ARGS...]]\n"
	"A headless Wayland compositor: composites its clients' windows\n"
	"with GL, hands every frame to CUDA through glcuda's ring and\n"
	"writes the frames out. With COMMAND, runs it as its client and\n"
	"exits when it exits; without, serves any clients until SIGINT or\n"
	"SIGTERM. Prints WAYLAND_DISPLAY, the socket's path and the control\n"
	"socket's (GLCUDA_COMPOSITOR_CONTROL: glcuda-compositor-ctl drives\n"
	"the seat and takes screenshots).\n\n"
	"  --size WxH          output size (default 640x480)\n"
	"  --refresh HZ        output refresh rate, 1..1000 (default 60)\n"
	"  --frames N          exit after N output frames (one per refresh)\n"
	"                      with a window in them (default: when the\n"
	"                      client exits)\n"
	"  --filter NAME       CUDA stage: none, invert, blur, unsharp,\n"
	"                      grade (default none)\n"
	"  --kernel-file FILE  load a PTX or cubin module and run\n"
	"                      --kernel-name\n"
	"  --kernel-name NAME  a kernel NAME(CUsurfObject in, CUsurfObject\n"
	"                      out, int width, int height), 16x16 blocks,\n"
	"                      RGBA8\n"
	"  --gles | --gl       GLES 3 (default) or desktop GL 4.5 core\n"
	"  --sync MODE         auto, timeline, binary, cpu (default auto)\n"
	"  --cuda-device N     CUDA device ordinal of the EGL display\n"
	"                      (default -1: the EGL display of a CUDA\n"
	"                      device CUDA can see)\n"
	"  --png-every N       write every N-th output frame (one per\n"
	"                      refresh) as PNG\n"
	"  --png-dir DIR       where the PNGs go (default .)\n"
	"  --output FILE       write the output as y4m video, one frame per\n"
	"                      refresh ('-': stdout)\n"
	"  --y4m-chroma C      444 or 420 (default 444)\n"
	"  --verbose           say what clients do\n"
	"  --help\n";

static void
usage(FILE *out)
{
	fputs(usage_text, out);
}

enum {
	O_SIZE = 256,
	O_REFRESH,
	O_FRAMES,
	O_FILTER,
	O_KERNEL_FILE,
	O_KERNEL_NAME,
	O_GLES,
	O_GL,
	O_SYNC,
	O_CUDA_DEVICE,
	O_PNG_EVERY,
	O_PNG_DIR,
	O_OUTPUT,
	O_CHROMA,
	O_VERBOSE,
	O_HELP,
};

static const struct option longopts[] = {
	{ "size", required_argument, NULL, O_SIZE },
	{ "refresh", required_argument, NULL, O_REFRESH },
	{ "frames", required_argument, NULL, O_FRAMES },
	{ "filter", required_argument, NULL, O_FILTER },
	{ "kernel-file", required_argument, NULL, O_KERNEL_FILE },
	{ "kernel-name", required_argument, NULL, O_KERNEL_NAME },
	{ "gles", no_argument, NULL, O_GLES },
	{ "gl", no_argument, NULL, O_GL },
	{ "sync", required_argument, NULL, O_SYNC },
	{ "cuda-device", required_argument, NULL, O_CUDA_DEVICE },
	{ "png-every", required_argument, NULL, O_PNG_EVERY },
	{ "png-dir", required_argument, NULL, O_PNG_DIR },
	{ "output", required_argument, NULL, O_OUTPUT },
	{ "y4m-chroma", required_argument, NULL, O_CHROMA },
	{ "verbose", no_argument, NULL, O_VERBOSE },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

/* Option opt's value arg into o: false if arg is not a value it takes. */
static bool
option_set(struct options *o, int opt, const char *arg)
{
	switch (opt) {
	case O_SIZE:
		return parse_size(arg, 16, 8192, &o->width, &o->height);
	case O_REFRESH:
		return parse_uint(arg, 1, 1000, &o->refresh_hz);
	case O_FRAMES:
		return parse_u64(arg, 1, UINT64_MAX, &o->frames);
	case O_FILTER:
		o->filter = filter_from_name(arg);
		return o->filter >= 0;
	case O_KERNEL_FILE:
		o->kernel_file = arg;
		return true;
	case O_KERNEL_NAME:
		o->kernel_name = arg;
		return true;
	case O_GLES:
	case O_GL:
		o->gles = opt == O_GLES;
		return true;
	case O_SYNC:
		return parse_sync_mode(arg, &o->sync);
	case O_CUDA_DEVICE:
		return parse_int(arg, -1, 1024, &o->cuda_device);
	case O_PNG_EVERY:
		return parse_u64(arg, 1, UINT64_MAX, &o->png_every);
	case O_PNG_DIR:
		o->png_dir = arg;
		return true;
	case O_OUTPUT:
		o->output = arg;
		return true;
	case O_CHROMA:
		if (!strcmp(arg, "444"))
			o->chroma = Y4M_444;
		else if (!strcmp(arg, "420"))
			o->chroma = Y4M_420;
		else
			return false;
		return true;
	case O_VERBOSE:
		o->verbose = true;
		return true;
	}
	return false;
}

/* The options that go together or exclude each other: 0, or 3 (bad usage)
 * after a message. */
static int
options_check(const struct options *o)
{
	if (!o->kernel_file != !o->kernel_name) {
		fprintf(stderr, COMP_NAME
			": --kernel-file and --kernel-name go together\n");
		return 3;
	}
	if (o->kernel_file && o->filter != FILTER_NONE) {
		fprintf(stderr, COMP_NAME
			": --kernel-file replaces --filter: give one\n");
		return 3;
	}
	if (o->chroma == Y4M_420 && (o->width % 2 || o->height % 2)) {
		fprintf(stderr,
			COMP_NAME ": 4:2:0 needs an even width and height\n");
		return 3;
	}
	return 0;
}

int
options_parse(struct options *o, int argc, char **argv)
{
	int ret;

	*o = (struct options){ .width = 640,
			       .height = 480,
			       .refresh_hz = 60,
			       .filter = FILTER_NONE,
			       .gles = true,
			       .sync = GLCUDA_SYNC_AUTO,
			       .cuda_device = -1,
			       .png_dir = "." };
	/* '+': stop at the first non-option, the client's command. */
	for (;;) {
		int idx = -1,
		    opt = getopt_long(argc, argv, "+", longopts, &idx);

		if (opt == -1)
			break;
		if (opt == O_HELP) {
			usage(stdout);
			return 1;
		}
		if (opt == '?' || opt == ':') {
			usage(stderr);
			return 3;
		}
		if (!option_set(o, opt, optarg)) {
			fprintf(stderr, COMP_NAME ": bad value for --%s: %s\n",
				idx >= 0 ? longopts[idx].name : "?",
				optarg ? optarg : "");
			usage(stderr);
			return 3;
		}
	}
	ret = options_check(o);
	if (ret)
		return ret;
	/* None: standalone, until SIGINT or SIGTERM. */
	o->command = optind < argc ? argv + optind : NULL;
	return 0;
}
