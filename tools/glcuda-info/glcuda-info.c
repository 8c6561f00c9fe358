/*
 * glcuda-info: says whether GL/GLES <-> CUDA interop works on this machine,
 * with which sync mode, or exactly why not and what to change.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "info-report.h"
#include "parse.h"

static void
usage(FILE *out)
{
	fprintf(out, "Usage: glcuda-info [--json] [--gles] [--cuda-device N]\n"
		     "\n"
		     "Reports what EGL, OpenGL, Vulkan and CUDA offer for "
		     "zero-copy\n"
		     "GL <-> CUDA interop, which devices match by UUID, and "
		     "whether glcuda\n"
		     "works here (and with which sync mode) or why not, "
		     "overall and on each\n"
		     "EGL device.\n"
		     "\n"
		     "  --json           one JSON object with the same facts\n"
		     "  --gles           judge an OpenGL ES 3 context instead "
		     "of OpenGL 4.5\n"
		     "                   core\n"
		     "  --cuda-device N  use the EGL device of CUDA device N "
		     "(default: the\n"
		     "                   EGL device of a CUDA device CUDA can "
		     "see); every\n"
		     "                   EGL device gets a verdict of its own "
		     "either way\n"
		     "                   (--device N, the older spelling, is "
		     "the same)\n"
		     "  --help           this text\n"
		     "\n"
		     "Exit status: 0 when interop works, 1 when it cannot, 2 "
		     "on bad usage.\n");
}

int
main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "gles", no_argument, NULL, 'g' },
		{ "cuda-device", required_argument, NULL, 'd' },
		{ "device", required_argument, NULL,
		  'd' }, /* the older spelling */
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, gles = false;
	int ordinal = -1;
	int c;

	while ((c = getopt_long(argc, argv, "jgd:h", options, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'g':
			gles = true;
			break;
		case 'd':
			if (!parse_int(optarg, 0, INT_MAX, &ordinal)) {
				fprintf(stderr,
					"glcuda-info: --cuda-device wants a "
					"CUDA device ordinal (0, 1, ...), not "
					"'%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!parse_no_operands("glcuda-info", argc, argv, optind)) {
		usage(stderr);
		return 2;
	}
	return glcuda_info_report(stdout, json, gles, ordinal);
}
