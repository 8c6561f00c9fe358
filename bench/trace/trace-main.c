/*
 * glcuda-trace: where the time of a GL -> CUDA -> GL switch goes, frame by
 * frame, on one clock.
 *
 * Every frame of a scenario: GL draws into the input image, the frame goes
 * to CUDA, one thread stamps the GPU's global timer, CUDA inverts the
 * image, stamps again, the frame goes back to GL, and GL blits the output
 * into a "screen" texture. GL_TIMESTAMP queries mark the end of GL's draw,
 * the moment GL passed its wait, and the end of the blit; the stamps mark
 * CUDA's first and last instruction. GL_TIMESTAMP and %globaltimer are the
 * same nanosecond clock on NVIDIA's driver: the program checks this first
 * (a kernel's stamp must fall between two GL_TIMESTAMP reads around it)
 * and refuses to report gaps if it does not hold.
 *
 *   to CUDA  CUDA's first instruction - the end of GL's draw
 *   CUDA     the kernel between the two stamps
 *   to GL    GL past its wait - CUDA's last instruction
 *   blit     the end of GL's blit - GL past its wait
 *   frame    the end of the blit - the start of GL's draw
 *   switch per frame  (to CUDA + to GL) / frames per hand-off
 *
 * Scenarios (each on its own glcuda device, so on its own semaphores):
 *   timeline      glcuda_handoff_to_cuda / _to_gl of two shared images,
 *                 timeline semaphores: what the frame ring does per frame
 *   binary        the same with binary semaphore pairs
 *   cuda-prio     timeline, the CUDA stream at the context's greatest
 *                 priority (cuStreamCreateWithPriority)
 *   gl-prio       timeline, GL in a context made with
 *                 EGL_IMG_context_priority HIGH
 *   gl-ready      timeline to CUDA; back to GL only once the CPU saw CUDA's
 *                 work finish (the ring's ready fd), so GL's wait is
 *                 already satisfied when GL reaches it
 *   host          no semaphores: the CPU waits for GL's fence, launches
 *                 CUDA, waits for CUDA's work, then issues GL's blit (the
 *                 images stay CUDA's for the whole run: a timing anchor,
 *                 not a correct hand-off): the switch with the CPU in it
 *   legacy        cuGraphicsGLRegisterImage'd textures, map / unmap
 *   ringN         the frame ring (timeline), N frames at a time: acquire
 *                 and render N, submit N, a kernel each on its frame's
 *                 stream, complete N, GL waits for N, N blits: how an
 *                 application batches with the ring as it is (to CUDA
 *                 and to GL per batch, from stamps on the first and last
 *                 frame's streams)
 *   batchN        timeline, N frames per hand-off: GL draws N inputs, one
 *                 hand-off of all 2N images, N kernels, one hand-off back,
 *                 N blits (to CUDA and to GL are then per hand-off, the
 *                 other columns per frame)
 *
 * And one row without CUDA, gl-gl: GL draws, a second GL context (sharing
 * the first's objects) waits on the GPU for a fence of the first
 * (glWaitSync) and blits; its "to CUDA" column is the switch between the
 * two GL contexts.
 *
 * And one row through NVIDIA's EGLStreams, eglstream: GL renders into a
 * stream's producer surface (EGL_KHR_stream_producer_eglsurface) that
 * CUDA consumes (cuEGLStreamConsumerAcquireFrame), CUDA's kernel writes a
 * pitch-linear frame it presents to a second stream
 * (cuEGLStreamProducerPresentFrame) whose consumer is a GL texture
 * (EGL_KHR_stream_consumer_gltexture, eglStreamConsumerAcquireKHR). Its
 * gaps: GL's draw to CUDA's first instruction, CUDA's last to GL past its
 * acquire; no blit (the frame is an external texture).
 *
 * "isolated": the CPU waits for each frame before issuing the next, so
 * every frame starts on an idle GPU; "steady": frames back to back, the CPU
 * at most two frames ahead. The gl-ready and host scenarios are isolated
 * only (the CPU is part of them).
 *
 * Nothing here is a pass/fail test: it prints medians and percentiles per
 * scenario as a markdown table, and every frame with --csv.
 *
 * The program's parts (bench/trace/): trace.h, what they share;
 * scenarios.c, the table of the hand-off scenarios; trace-run.c, one run
 * of a scenario through glcuda's hand-off calls (timeline, binary,
 * cuda-prio, gl-prio, gl-ready, host, batchN); scenario-legacy.c,
 * scenario-ring.c, scenario-gl-prio.c, what those scenarios do beyond it;
 * scenario-gl-switch.c and scenario-eglstream.c, the rows without
 * glcuda; driver-calls.c, the table of the driver calls on their own;
 * this file, the options, the clock check and the order of the rows.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>

#include "trace.h"

static const char *const gap_names[G_COUNT] = {
	"to CUDA", "CUDA", "to GL", "blit", "frame", "switch per frame",
};

static const char *const ring_call_names[RC_COUNT] = {
	"glcuda_ring_acquire", "glcuda_frame_submit", "glcuda_frame_complete",
	"glcuda_frame_wait_gl", "glcuda_frame_release",
};

struct trace_options opt = {
	.width = 1920,
	.height = 1080,
	.frames = 200,
	.warmup = 20,
	.scenarios = (1u << SC_COUNT) - 1,
	.isolated = true,
	.steady = true,
	.gl_switch = true,
	.eglstream = true,
	.cuda_device = 0,
};

EGLDisplay dpy;
FILE *csv;
struct trace_kernels k;

/* The two clocks: a stamp kernel run between two GL_TIMESTAMP reads must
 * fall between them. Returns 0 when it held every time. */
static int
check_clocks(CUstream stream, uint64_t *slot)
{
	int64_t worst_before = INT64_MAX, worst_after = INT64_MAX;

	for (int i = 0; i < 20; i++) {
		GLint64 a = 0, b = 0;
		glGetInteger64v(GL_TIMESTAMP, &a);
		if (launch_stamp(stream, slot) < 0)
			return -1;
		CU_TRY(cuStreamSynchronize, stream);
		glGetInteger64v(GL_TIMESTAMP, &b);
		if ((int64_t)*slot - a < worst_before)
			worst_before = (int64_t)*slot - a;
		if (b - (int64_t)*slot < worst_after)
			worst_after = b - (int64_t)*slot;
	}
	printf("Clock check (20 tries): a CUDA %%globaltimer stamp fell %.1f "
	       "µs or more after the GL_TIMESTAMP read before it and %.1f µs "
	       "or more before the read after it",
	       (double)worst_before / 1e3, (double)worst_after / 1e3);
	if (worst_before < 0 || worst_after < 0) {
		printf(": the clocks differ, gaps between GL and CUDA marks "
		       "are not meaningful.\n\n");
		return -1;
	}
	printf(": one clock.\n\n");
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: glcuda-trace [--size WxH] [--frames N] [--warmup "
		   "N]\n"
		   "                    [--scenarios LIST] [--isolated | "
		   "--steady] [--csv FILE]\n"
		   "                    [--cuda-device N] [--no-gl-switch] "
		   "[--no-eglstream]\n"
		   "scenarios: "
		   "timeline,binary,cuda-prio,gl-prio,gl-ready,host,legacy,\n"
		   "           batch2,batch4,batch8,ring1,ring2,ring4 (default "
		   "all)\n");
}

static int
parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "size", required_argument, NULL, 's' },
		{ "frames", required_argument, NULL, 'f' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "scenarios", required_argument, NULL, 'S' },
		{ "isolated", no_argument, NULL, 'i' },
		{ "steady", no_argument, NULL, 't' },
		{ "csv", required_argument, NULL, 'c' },
		{ "no-gl-switch", no_argument, NULL, 'g' },
		{ "no-eglstream", no_argument, NULL, 'E' },
		{ "cuda-device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			if (!parse_size(optarg, 1, 16384, &opt.width,
					&opt.height))
				return -1;
			break;
		case 'f':
			opt.frames = (unsigned int)strtoul(optarg, NULL, 10);
			if (!opt.frames || opt.frames > 100000)
				return -1;
			break;
		case 'w':
			opt.warmup = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'S': {
			char *list = strdup(optarg), *save = NULL;
			opt.scenarios = 0;
			for (char *t = strtok_r(list, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				unsigned int i;
				for (i = 0; i < SC_COUNT &&
					    strcmp(t, scenarios[i].name);
				     i++)
					;
				if (i == SC_COUNT) {
					fprintf(stderr,
						"glcuda-trace: unknown "
						"scenario %s\n",
						t);
					free(list);
					return -1;
				}
				opt.scenarios |= 1u << i;
			}
			free(list);
			break;
		}
		case 'i':
			opt.steady = false;
			opt.isolated = true;
			break;
		case 't':
			opt.isolated = false;
			opt.steady = true;
			break;
		case 'c':
			opt.csv = optarg;
			break;
		case 'g':
			opt.gl_switch = false;
			break;
		case 'E':
			opt.eglstream = false;
			break;
		case 'd':
			if (!parse_int(optarg, -1, INT_MAX, &opt.cuda_device))
				return -1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
		}
	}
	return optind == argc ? 0 : -1;
}

int
main(int argc, char **argv)
{
	struct glcuda_headless *hl = NULL;
	struct glcuda_device *dev = NULL;
	CUstream stream = NULL;
	uint64_t *slot = NULL;
	char msg[512];
	int ret = 1, r;

	if (parse(argc, argv) < 0) {
		usage(stderr);
		return 2;
	}
	r = glcuda_headless_new(opt.cuda_device, GLCUDA_HEADLESS_FLAG_NONE,
				&hl);
	if (r < 0) {
		fprintf(stderr, "glcuda-trace: glcuda_headless_new: %s: %s\n",
			glcuda_error_get_name(r), glcuda_get_last_error());
		return 1;
	}
	dpy = glcuda_headless_get_display(hl);
	r = glcuda_device_new(dpy, glcuda_headless_get_context(hl), NULL, &dev);
	if (gc_fail(r, "glcuda_device_new") < 0)
		goto out;
	if (tools_cuda_load(msg, sizeof(msg)) < 0) {
		fprintf(stderr, "glcuda-trace: %s\n", msg);
		goto out;
	}
	/* The CUDA context glcuda uses, current on this thread for every
	 * CUDA call of the program (the device's primary context). */
	if (cu_fail(CU(cuCtxPushCurrent)(glcuda_device_get_cuda_context(dev)),
		    "cuCtxPushCurrent") < 0)
		goto out;
	if (cu_fail(CU(cuModuleLoadData)(&k.module, glcuda_trace_fatbin),
		    "cuModuleLoadData") < 0 ||
	    cu_fail(CU(cuModuleGetFunction)(&k.stamp, k.module, "trace_stamp"),
		    "trace_stamp") < 0 ||
	    cu_fail(CU(cuModuleGetFunction)(&k.invert, k.module,
					    "trace_invert"),
		    "trace_invert") < 0 ||
	    cu_fail(CU(cuModuleGetFunction)(&k.invert_to_pitch, k.module,
					    "trace_invert_to_pitch"),
		    "trace_invert_to_pitch") < 0 ||
	    cu_fail(CU(cuStreamCreate)(&stream, CU_STREAM_NON_BLOCKING),
		    "cuStreamCreate") < 0 ||
	    cu_fail(CU(cuMemAllocHost)((void **)&slot, sizeof(*slot)),
		    "cuMemAllocHost") < 0)
		goto out;
	if (opt.csv) {
		csv = fopen(opt.csv, "w");
		if (!csv) {
			fprintf(stderr, "glcuda-trace: %s: %s\n", opt.csv,
				strerror(errno));
			goto out;
		}
		fprintf(csv, "scenario,pacing,frame,to_cuda_us,cuda_us,"
			     "to_gl_us,blit_us,frame_us,switch_per_frame_us\n");
	}

	printf("# glcuda-trace, %ux%u RGBA8, %u frames after %u of warm-up\n\n",
	       opt.width, opt.height, opt.frames, opt.warmup);
	printf("GL: %s, %s\n\n", (const char *)glGetString(GL_RENDERER),
	       (const char *)glGetString(GL_VERSION));
	if (check_clocks(stream, slot) < 0)
		goto out;
	printf("Medians (10th–90th percentile) in µs of GPU time per "
	       "frame.\n\n");
	printf("| scenario |");
	for (int i = 0; i < G_COUNT; i++)
		printf(" %s |", gap_names[i]);
	printf(" note |\n");
	printf("|---|--:|--:|--:|--:|--:|--:|---|\n");
	for (int sc = 0; sc < SC_COUNT; sc++) {
		if (!(opt.scenarios & (1u << sc)))
			continue;
		if (opt.isolated)
			run_scenario((enum scenario)sc, false);
		if (opt.steady && !scenarios[sc].isolated_only)
			run_scenario((enum scenario)sc, true);
	}
	if (opt.gl_switch) {
		if (opt.isolated)
			run_gl_switch(false);
		if (opt.steady)
			run_gl_switch(true);
	}
#ifdef TRACE_HAVE_EGLSTREAM
	if (opt.eglstream && opt.isolated)
		run_eglstream(stream);
#endif
	if (cpu_rows[0]) {
		printf("\nThe ring's calls, thread CPU µs per frame (median), "
		       "ring scenarios:\n\n");
		printf("| scenario |");
		for (int i = 0; i < RC_COUNT; i++)
			printf(" %s |", ring_call_names[i]);
		printf(" total |\n|---|--:|--:|--:|--:|--:|--:|\n%s", cpu_rows);
	}
	driver_call_costs(stream);
	ret = 0;
out:
	if (csv)
		fclose(csv);
	if (slot)
		CU(cuMemFreeHost)(slot);
	if (stream)
		CU(cuStreamDestroy)(stream);
	if (k.module)
		CU(cuModuleUnload)(k.module);
	if (tools_cuda_loaded()) {
		CUcontext c;
		CU(cuCtxPopCurrent)(&c);
	}
	glcuda_device_destroy(dev);
	glcuda_headless_destroy(hl);
	return ret;
}
