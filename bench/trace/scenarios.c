/*
 * glcuda-trace's table of the scenarios that run through glcuda's
 * hand-off calls: the order of the rows, each one's name (--scenarios),
 * frames per hand-off, whether it goes through the frame ring, and
 * whether it runs isolated only. What each does is in
 * bench/trace/trace-main.c.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "trace.h"

const struct scenario_info scenarios[SC_COUNT] = {
	[SC_TIMELINE] = { "timeline", 1, false, false },
	[SC_BINARY] = { "binary", 1, false, false },
	[SC_CUDA_PRIO] = { "cuda-prio", 1, false, false },
	[SC_GL_PRIO] = { "gl-prio", 1, false, false },
	[SC_GL_READY] = { "gl-ready", 1, false, true },
	[SC_HOST] = { "host", 1, false, true },
	[SC_LEGACY] = { "legacy", 1, false, false },
	[SC_BATCH2] = { "batch2", 2, false, false },
	[SC_BATCH4] = { "batch4", 4, false, false },
	[SC_BATCH8] = { "batch8", 8, false, false },
	[SC_RING1] = { "ring1", 1, true, false },
	[SC_RING2] = { "ring2", 2, true, false },
	[SC_RING4] = { "ring4", 4, true, false },
};
