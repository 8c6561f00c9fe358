/*
 * glcuda-soak: a long run of the frame ring, watching for leaks and drift.
 *
 * Pushes --frames (100 000) frames of --size (1920x1080) RGBA8 through a
 * 3-slot ring, the way a compositor does: GL renders frame n into the
 * slot's input, glcuda hands it to CUDA, the invert kernel of
 * bench/bench-kernels.cu writes the slot's output, glcuda hands that back,
 * and when every slot is in flight the oldest frame is presented
 * (glcuda_frame_wait_gl, a GPU-side wait) and released. No call in that loop
 * waits for the GPU; only the verification readback does.
 *
 * Frame n's input: a clear to a colour that encodes n, and a 64x64 patch
 * (scissored clear) of a second colour at a position that moves with n.
 * Every --verify-every (100) frames, seven output pixels (the four corners,
 * the patch's corner and centre, the pixel left of the patch) are read back
 * through a framebuffer with glReadPixels (not glGetTextureImage: NVIDIA's
 * GL can answer that from a stale copy after CUDA wrote the memory) and
 * compared exactly with the inverse of the pattern.
 *
 * Every --sample-every (10 000) frames it samples the open file descriptors
 * (/proc/self/fd), the CUDA device's free memory (cuMemGetInfo), the
 * resident set size (/proc/self/statm) and the frame times of the interval.
 * A frame time is the wall time between two successive
 * glcuda_frame_release() calls: in steady state, the time the pipeline
 * takes per frame. Intervals that contain a verification readback are left
 * out of the percentiles (the readback waits for the GPU on purpose; their
 * mean is shown apart), and so is the one after each sample. Samples are
 * taken at multiples of --sample-every; frames past the last one are run
 * but not sampled.
 *
 * Verdict, against the first sample (the warm-up):
 *   fds       every later sample equal
 *   cuda-mem  every later sample's free memory equal
 *   rss       every later sample within --rss-slack-kib (1024) KiB
 *   p99       the last interval's p99 <= --p99-ratio (2) x the p99 of the
 *             first interval after warm-up, + 50 us (timer noise when
 *             frames take a few microseconds); --p99-ratio 0 reports
 *             it without judging (a test on a shared machine)
 *   output    every verified frame exact
 * PASS/FAIL per criterion; the exit status is 0 when all pass, 1 when one
 * fails, 2 for bad options, 77 when there is no CUDA driver or NVIDIA GPU.
 *
 * The program never links libcuda: its CUDA calls go through the programs'
 * run-time table (common/cuda-table.h), loaded once the glcuda device
 * has found the driver; GLCUDA_LIBCUDA names the fake driver of the tests
 * for both.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <glcuda/glcuda.h>
/* The CUDA driver API's declarations first (<cuda.h>, or glcuda's own
 * without the toolkit): glcuda-cuda.h needs its types. */
#include "cuda-table.h"
#include <glcuda/glcuda-cuda.h>
#include "array-length.h"
#include "clock.h"
#include "parse.h"
#include "stats.h"

/* bench/bench-kernels.cu, embedded by scripts/embed-fatbin.sh. */
extern const unsigned char glcuda_bench_fatbin[];
extern const unsigned long glcuda_bench_fatbin_size;

#define SLOTS 3
#define PATCH 64
#define EXIT_SKIP 77
/* Absolute slack of the p99 rule, in microseconds. */
#define P99_SLACK_US 50.0

static struct {
	uint64_t frames, verify_every, sample_every;
	uint32_t width, height;
	int cuda_device;
	bool gles, kernel;
	enum glcuda_sync_mode sync_mode;
	const char *csv_path;
	double p99_ratio;
	long rss_slack_kib;
} opt = {
	.frames = 100000,
	.verify_every = 100,
	.sample_every = 10000,
	.width = 1920,
	.height = 1080,
	.cuda_device = 0,
	.kernel = true,
	.sync_mode = GLCUDA_SYNC_AUTO,
	.p99_ratio = 2.0,
	.rss_slack_kib = 1024,
};

struct sample {
	uint64_t frames;
	double elapsed_s;
	int fds;
	size_t cuda_free;
	long rss_kib;
	double p50_us, p99_us, max_us;
	uint64_t intervals, readbacks;
	double readback_mean_us;
	uint64_t verified, mismatches;
};

static struct {
	struct glcuda_headless *hl;
	struct glcuda_device *dev;
	struct glcuda_ring *ring;
	CUcontext ctx;
	bool pushed;
	CUmodule module;
	CUfunction invert;
	GLuint read_fbo;

	/* Frame times of the current interval, in ns. */
	uint64_t *times;
	uint64_t time_count;
	uint64_t readback_ns, readback_count;
	uint64_t last_release_ns;
	/* The CPU stopped to read back or to sample since the last release:
	 * that frame time is not the pipeline's. */
	bool paused;

	uint64_t verified, mismatches;
	struct sample *samples;
	unsigned int sample_count, sample_cap;
	FILE *csv;
	uint64_t start_ns;
} s;

/* ---------------------------------------------------------------------- */
/* Options                                                                  */

static void
usage(FILE *f)
{
	fprintf(f, "Usage: glcuda-soak [OPTIONS]\n"
		   "Push frames through a 3-slot glcuda ring with a CUDA "
		   "kernel and check that\n"
		   "file descriptors, CUDA memory, RSS and frame times stay "
		   "flat.\n\n"
		   "  --frames N          frames to run (default 100000)\n"
		   "  --size WxH          frame size (default 1920x1080)\n"
		   "  --verify-every N    verify one frame in N exactly "
		   "(default 100)\n"
		   "  --no-verify         verify no frame\n"
		   "  --sample-every N    sample every N frames (default "
		   "10000)\n"
		   "  --csv FILE          also write the samples as CSV\n"
		   "  --cuda-device N     CUDA device ordinal (default 0); -1: "
		   "the first EGL\n"
		   "                      display that works, whatever CUDA "
		   "device it is\n"
		   "  --gles              OpenGL ES 3 instead of GL 4 core\n"
		   "  --sync MODE         auto, timeline, binary or cpu "
		   "(default auto)\n"
		   "  --kernel NAME       invert (default) or none (no CUDA "
		   "work; frames are\n"
		   "                      verified on the input)\n"
		   "  --p99-ratio X       the p99 rule's factor (default 2; 0: "
		   "report, not judge)\n"
		   "  --rss-slack-kib N   the RSS rule's slack (default 1024)\n"
		   "  --help\n\n"
		   "Exit status: 0 all criteria pass, 1 one fails or an error, "
		   "2 bad options,\n"
		   "77 no CUDA driver or NVIDIA GPU.\n");
}

static int
parse_options(int argc, char **argv)
{
	enum {
		O_FRAMES = 256,
		O_SIZE,
		O_VERIFY,
		O_NO_VERIFY,
		O_SAMPLE,
		O_CSV,
		O_DEVICE,
		O_GLES,
		O_SYNC,
		O_KERNEL,
		O_P99,
		O_RSS,
		O_HELP
	};
	static const struct option longopts[] = {
		{ "frames", required_argument, NULL, O_FRAMES },
		{ "size", required_argument, NULL, O_SIZE },
		{ "verify-every", required_argument, NULL, O_VERIFY },
		{ "no-verify", no_argument, NULL, O_NO_VERIFY },
		{ "sample-every", required_argument, NULL, O_SAMPLE },
		{ "csv", required_argument, NULL, O_CSV },
		{ "cuda-device", required_argument, NULL, O_DEVICE },
		{ "gles", no_argument, NULL, O_GLES },
		{ "sync", required_argument, NULL, O_SYNC },
		{ "kernel", required_argument, NULL, O_KERNEL },
		{ "p99-ratio", required_argument, NULL, O_P99 },
		{ "rss-slack-kib", required_argument, NULL, O_RSS },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		uint64_t v;

		switch (c) {
		case O_FRAMES:
			if (!parse_u64(optarg, 0, UINT64_MAX, &opt.frames) ||
			    opt.frames == 0)
				goto bad;
			break;
		case O_SIZE: {
			unsigned int w, h;
			if (!parse_size(optarg, 1, 16384, &w, &h) ||
			    w < PATCH + 96 || h < PATCH + 32)
				goto bad;
			opt.width = w;
			opt.height = h;
			break;
		}
		case O_VERIFY:
			if (!parse_u64(optarg, 0, UINT64_MAX,
				       &opt.verify_every))
				goto bad;
			break;
		case O_NO_VERIFY:
			opt.verify_every = 0;
			break;
		case O_SAMPLE:
			if (!parse_u64(optarg, 0, UINT64_MAX,
				       &opt.sample_every) ||
			    opt.sample_every == 0)
				goto bad;
			break;
		case O_CSV:
			opt.csv_path = optarg;
			break;
		case O_DEVICE:
			if (!parse_int(optarg, -1, INT_MAX, &opt.cuda_device))
				goto bad;
			break;
		case O_GLES:
			opt.gles = true;
			break;
		case O_SYNC:
			if (!parse_sync_mode(optarg, &opt.sync_mode))
				goto bad;
			break;
		case O_KERNEL:
			if (!strcmp(optarg, "invert"))
				opt.kernel = true;
			else if (!strcmp(optarg, "none"))
				opt.kernel = false;
			else
				goto bad;
			break;
		case O_P99:
			if (!parse_double(optarg, 0.0, HUGE_VAL,
					  &opt.p99_ratio) ||
			    (opt.p99_ratio > 0.0 && opt.p99_ratio < 1.0))
				goto bad;
			break;
		case O_RSS:
			if (!parse_u64(optarg, 0, UINT64_MAX, &v) ||
			    v > 1u << 30)
				goto bad;
			opt.rss_slack_kib = (long)v;
			break;
		case O_HELP:
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
		continue;
bad:
		fprintf(stderr, "glcuda-soak: bad value for an option: %s\n",
			optarg);
		return -1;
	}
	if (!parse_no_operands("glcuda-soak", argc, argv, optind))
		return -1;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The frame pattern                                                        */

struct pattern {
	uint8_t background[4], patch[4];
	uint32_t patch_x, patch_y;
};

/* Frame n: a background that encodes n (24 bits), and a patch whose colour
 * and position move with n. The patch stays clear of the corners. */
static void
frame_pattern(uint64_t n, struct pattern *p)
{
	p->background[0] = (uint8_t)n;
	p->background[1] = (uint8_t)(n >> 8);
	p->background[2] = (uint8_t)(n >> 16) ^ 0x5a;
	p->background[3] = 0xff;
	p->patch[0] = (uint8_t)~n;
	p->patch[1] = (uint8_t)(n * 7u + 3u);
	p->patch[2] = 0xa5;
	p->patch[3] = 0xff;
	p->patch_x = 16 + (uint32_t)((n * 37u) % (opt.width - PATCH - 32));
	p->patch_y = 16 + (uint32_t)((n * 11u) % (opt.height - PATCH - 32));
}

static void
clear_to(const uint8_t c[4])
{
	glClearColor(c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f,
		     c[3] / 255.0f);
	glClear(GL_COLOR_BUFFER_BIT);
}

static void
render_frame(struct glcuda_frame *f)
{
	struct pattern p;

	frame_pattern(glcuda_frame_get_number(f), &p);
	glBindFramebuffer(GL_FRAMEBUFFER, glcuda_frame_get_input_fbo(f));
	glViewport(0, 0, (GLsizei)opt.width, (GLsizei)opt.height);
	clear_to(p.background);
	glEnable(GL_SCISSOR_TEST);
	glScissor((GLint)p.patch_x, (GLint)p.patch_y, PATCH, PATCH);
	clear_to(p.patch);
	glDisable(GL_SCISSOR_TEST);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

/* Read back a few pixels of the frame's result and compare them exactly
 * (waits for the GPU). With the kernel the result is the output, each
 * colour channel inverted; without, the input as rendered. */
static bool
verify_frame(struct glcuda_frame *f)
{
	const uint64_t n = glcuda_frame_get_number(f);
	const int w = (int)opt.width, h = (int)opt.height;
	struct pattern p;
	struct {
		int x, y;
		bool patch;
	} pts[7];
	bool ok = true;

	frame_pattern(n, &p);
	pts[0].x = 0, pts[0].y = 0, pts[0].patch = false;
	pts[1].x = w - 1, pts[1].y = 0, pts[1].patch = false;
	pts[2].x = 0, pts[2].y = h - 1, pts[2].patch = false;
	pts[3].x = w - 1, pts[3].y = h - 1, pts[3].patch = false;
	pts[4].x = (int)p.patch_x, pts[4].y = (int)p.patch_y,
	pts[4].patch = true;
	pts[5].x = (int)p.patch_x + PATCH / 2,
	pts[5].y = (int)p.patch_y + PATCH / 2, pts[5].patch = true;
	pts[6].x = (int)p.patch_x - 1, pts[6].y = (int)p.patch_y,
	pts[6].patch = false;

	glBindFramebuffer(GL_READ_FRAMEBUFFER, s.read_fbo);
	glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D,
			       opt.kernel ? glcuda_frame_get_output_texture(f)
					  : glcuda_image_get_gl_texture(
						    glcuda_frame_get_input(f)),
			       0);
	glPixelStorei(GL_PACK_ALIGNMENT, 1);
	for (size_t i = 0; i < ARRAY_LENGTH(pts); i++) {
		const uint8_t *c = pts[i].patch ? p.patch : p.background;
		uint8_t want[4] = { c[0], c[1], c[2], c[3] }, got[4] = { 0 };

		if (opt.kernel) {
			want[0] = (uint8_t)(255 - c[0]);
			want[1] = (uint8_t)(255 - c[1]);
			want[2] = (uint8_t)(255 - c[2]);
		}
		glReadPixels(pts[i].x, pts[i].y, 1, 1, GL_RGBA,
			     GL_UNSIGNED_BYTE, got);
		if (memcmp(got, want, 4)) {
			if (s.mismatches < 10)
				fprintf(stderr,
					"glcuda-soak: frame %llu pixel "
					"(%d,%d): %u,%u,%u,%u, expected "
					"%u,%u,%u,%u\n",
					(unsigned long long)n, pts[i].x,
					pts[i].y, got[0], got[1], got[2],
					got[3], want[0], want[1], want[2],
					want[3]);
			ok = false;
		}
	}
	glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
	if (glGetError() != GL_NO_ERROR) {
		fprintf(stderr,
			"glcuda-soak: frame %llu: GL error during readback\n",
			(unsigned long long)n);
		ok = false;
	}
	s.verified++;
	if (!ok)
		s.mismatches++;
	return ok;
}

/* ---------------------------------------------------------------------- */
/* Samples                                                                  */

static int
count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the directory stream's own */
}

static long
rss_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long size = 0, resident = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &resident) != 2)
		resident = -1;
	fclose(f);
	return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Nearest-rank percentile of the sorted times, in us. */
static double
percentile_us(const uint64_t *sorted, uint64_t n, double pct)
{
	return n == 0 ? 0 : (double)sorted[stats_rank(n, pct) - 1] / 1e3;
}

static void
print_header(void)
{
	printf("%8s %9s %5s %14s %10s %9s %9s %9s %7s %11s %9s\n", "frames",
	       "time_s", "fds", "cuda_free_MiB", "rss_KiB", "p50_us", "p99_us",
	       "max_us", "verif", "readback_us", "mismatch");
}

static int
take_sample(uint64_t frames)
{
	struct sample *x;
	size_t total = 0;
	CUresult res;

	if (s.sample_count == s.sample_cap) {
		unsigned int cap = s.sample_cap ? s.sample_cap * 2 : 16;
		struct sample *n = realloc(s.samples, cap * sizeof(*n));
		if (!n)
			return -1;
		s.samples = n;
		s.sample_cap = cap;
	}
	x = &s.samples[s.sample_count++];
	memset(x, 0, sizeof(*x));
	x->frames = frames;
	x->elapsed_s = (double)(clock_now_ns() - s.start_ns) / 1e9;
	x->fds = count_fds();
	x->rss_kib = rss_kib();
	res = CU(cuMemGetInfo)(&x->cuda_free, &total);
	if (res != CUDA_SUCCESS) {
		char buf[160];
		fprintf(stderr, "glcuda-soak: cuMemGetInfo: %s\n",
			tools_cuda_result(res, buf, sizeof(buf)));
		return -1;
	}
	qsort(s.times, s.time_count, sizeof(s.times[0]), stats_cmp_u64);
	x->intervals = s.time_count;
	x->p50_us = percentile_us(s.times, s.time_count, 50);
	x->p99_us = percentile_us(s.times, s.time_count, 99);
	x->max_us = s.time_count ? (double)s.times[s.time_count - 1] / 1e3 : 0;
	x->readbacks = s.readback_count;
	x->readback_mean_us =
		s.readback_count
			? (double)s.readback_ns / 1e3 / (double)s.readback_count
			: 0;
	x->verified = s.verified;
	x->mismatches = s.mismatches;
	s.time_count = 0;
	s.readback_ns = 0;
	s.readback_count = 0;

	printf("%8llu %9.1f %5d %14.3f %10ld %9.1f %9.1f %9.1f %7llu %11.1f "
	       "%9llu\n",
	       (unsigned long long)x->frames, x->elapsed_s, x->fds,
	       (double)x->cuda_free / (1024.0 * 1024.0), x->rss_kib, x->p50_us,
	       x->p99_us, x->max_us, (unsigned long long)x->verified,
	       x->readback_mean_us, (unsigned long long)x->mismatches);
	fflush(stdout);
	if (s.csv) {
		fprintf(s.csv,
			"%llu,%.3f,%d,%zu,%ld,%.1f,%.1f,%.1f,%llu,%llu,%.1f,"
			"%llu,%llu\n",
			(unsigned long long)x->frames, x->elapsed_s, x->fds,
			x->cuda_free, x->rss_kib, x->p50_us, x->p99_us,
			x->max_us, (unsigned long long)x->intervals,
			(unsigned long long)x->readbacks, x->readback_mean_us,
			(unsigned long long)x->verified,
			(unsigned long long)x->mismatches);
		fflush(s.csv);
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The run                                                                  */

static int
fail_glcuda(const char *call, int ret)
{
	fprintf(stderr, "glcuda-soak: %s: %s: %s\n", call,
		glcuda_error_get_name(ret),
		glcuda_device_get_last_error(s.dev));
	return -1;
}

static int
launch_kernel(struct glcuda_frame *f)
{
	CUsurfObject in = glcuda_frame_get_input_surface(f),
		     out = glcuda_frame_get_output_surface(f);
	int w = (int)opt.width, h = (int)opt.height;
	void *args[] = { &in, &out, &w, &h };
	CUresult res;

	res = CU(cuLaunchKernel)(s.invert, (opt.width + 15) / 16,
				 (opt.height + 15) / 16, 1, 16, 16, 1, 0,
				 glcuda_frame_get_stream(f), args, NULL);
	if (res != CUDA_SUCCESS) {
		char buf[160];
		fprintf(stderr, "glcuda-soak: cuLaunchKernel: %s\n",
			tools_cuda_result(res, buf, sizeof(buf)));
		return -1;
	}
	return 0;
}

/* Present the oldest frame in flight: GL's wait on the GPU, a verification
 * readback for one frame in --verify-every, then release. */
static int
present(struct glcuda_frame *f, uint64_t *released)
{
	uint64_t n = glcuda_frame_get_number(f), t;
	int ret;

	ret = glcuda_frame_wait_gl(f);
	if (ret < 0)
		return fail_glcuda("glcuda_frame_wait_gl", ret);
	if (opt.verify_every && n % opt.verify_every == opt.verify_every - 1) {
		uint64_t t0 = clock_now_ns();
		verify_frame(f);
		s.readback_ns += clock_now_ns() - t0;
		s.readback_count++;
		s.paused = true;
	}
	ret = glcuda_frame_release(f);
	if (ret < 0)
		return fail_glcuda("glcuda_frame_release", ret);
	t = clock_now_ns();
	if (s.last_release_ns && !s.paused)
		s.times[s.time_count++] = t - s.last_release_ns;
	s.last_release_ns = t;
	s.paused = false;
	++*released;
	if (*released % opt.sample_every == 0) {
		s.paused = true;
		return take_sample(*released);
	}
	return 0;
}

static int
run(void)
{
	struct glcuda_frame *queue[SLOTS];
	unsigned int queued = 0;
	uint64_t n = 0, released = 0;

	while (released < opt.frames) {
		struct glcuda_frame *f;
		int ret = n < opt.frames ? glcuda_ring_acquire(s.ring, &f)
					 : -EAGAIN;

		if (ret == -EAGAIN) {
			/* Every slot in flight (or nothing left to render):
			 * present the oldest. */
			if (queued == 0) {
				fprintf(stderr, "glcuda-soak: no free slot and "
						"no frame in flight\n");
				return -1;
			}
			f = queue[0];
			memmove(queue, queue + 1, sizeof(queue[0]) * --queued);
			if (present(f, &released) < 0)
				return -1;
			continue;
		}
		if (ret < 0)
			return fail_glcuda("glcuda_ring_acquire", ret);
		if (glcuda_frame_get_number(f) != n) {
			fprintf(stderr,
				"glcuda-soak: acquired frame %llu, expected "
				"%llu\n",
				(unsigned long long)glcuda_frame_get_number(f),
				(unsigned long long)n);
			return -1;
		}
		render_frame(f);
		ret = glcuda_frame_submit(f);
		if (ret < 0)
			return fail_glcuda("glcuda_frame_submit", ret);
		if (opt.kernel && launch_kernel(f) < 0)
			return -1;
		ret = glcuda_frame_complete(f);
		if (ret < 0)
			return fail_glcuda("glcuda_frame_complete", ret);
		queue[queued++] = f;
		n++;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Verdict                                                                  */

static bool
verdict(void)
{
	const struct sample *warm = &s.samples[0], *first, *last;
	bool all = true, ok;
	long rss_dev = 0;
	int fd_dev = 0;
	long long mem_dev = 0;

	printf("\nverdict (against the warm-up sample at frame %llu):\n",
	       (unsigned long long)warm->frames);
	if (s.sample_count < 2) {
		printf("FAIL  samples: %u; the verdict needs at least 2 "
		       "(--frames >= 2 x --sample-every)\n",
		       s.sample_count);
		return false;
	}
	for (unsigned int i = 1; i < s.sample_count; i++) {
		const struct sample *x = &s.samples[i];
		long long dm =
			(long long)x->cuda_free - (long long)warm->cuda_free;
		if (abs(x->fds - warm->fds) > abs(fd_dev))
			fd_dev = x->fds - warm->fds;
		if (llabs(dm) > llabs(mem_dev))
			mem_dev = dm;
		if (labs(x->rss_kib - warm->rss_kib) > labs(rss_dev))
			rss_dev = x->rss_kib - warm->rss_kib;
	}
	ok = fd_dev == 0;
	all &= ok;
	printf("%s  fds: %d at warm-up, largest change after it %+d (must be "
	       "0)\n",
	       ok ? "PASS" : "FAIL", warm->fds, fd_dev);
	ok = mem_dev == 0;
	all &= ok;
	printf("%s  cuda-mem: %.3f MiB free at warm-up, largest change after "
	       "it %+lld bytes (must be 0)\n",
	       ok ? "PASS" : "FAIL",
	       (double)warm->cuda_free / (1024.0 * 1024.0), mem_dev);
	ok = labs(rss_dev) <= opt.rss_slack_kib;
	all &= ok;
	printf("%s  rss: %ld KiB at warm-up, largest change after it %+ld KiB "
	       "(limit %ld)\n",
	       ok ? "PASS" : "FAIL", warm->rss_kib, rss_dev, opt.rss_slack_kib);
	first = &s.samples[1];
	last = &s.samples[s.sample_count - 1];
	if (opt.p99_ratio == 0.0) {
		printf("INFO  p99: %.1f us in the first interval after "
		       "warm-up, %.1f us in the last (not judged: --p99-ratio "
		       "0)\n",
		       first->p99_us, last->p99_us);
	} else {
		ok = last->p99_us <=
		     opt.p99_ratio * first->p99_us + P99_SLACK_US;
		all &= ok;
		printf("%s  p99: %.1f us in the first interval after warm-up, "
		       "%.1f us in the last (limit %.1f x + %.0f us = %.1f "
		       "us)\n",
		       ok ? "PASS" : "FAIL", first->p99_us, last->p99_us,
		       opt.p99_ratio, P99_SLACK_US,
		       opt.p99_ratio * first->p99_us + P99_SLACK_US);
	}
	ok = s.mismatches == 0;
	all &= ok;
	if (opt.verify_every)
		printf("%s  output: %llu frames verified exactly, %llu wrong\n",
		       ok ? "PASS" : "FAIL", (unsigned long long)s.verified,
		       (unsigned long long)s.mismatches);
	else
		printf("PASS  output: not verified (--no-verify)\n");
	printf("%s\n", all ? "PASS" : "FAIL");
	return all;
}

/* ---------------------------------------------------------------------- */

static bool
is_no_cuda(int ret)
{
	return ret == GLCUDA_ERROR_NO_CUDA_DRIVER;
}

static int
setup(void)
{
	struct glcuda_device_options dopts = { .size = sizeof(dopts),
					       .sync_mode = opt.sync_mode };
	struct glcuda_ring_desc desc = {
		.size = sizeof(desc),
		.width = opt.width, .height = opt.height, .slots = SLOTS,
		.input_format = GLCUDA_FORMAT_RGBA8,
	};
	const struct glcuda_caps *caps;
	CUresult res;
	char buf[512];
	int ret;

	ret = glcuda_headless_new(opt.cuda_device,
				  opt.gles ? GLCUDA_HEADLESS_FLAG_GLES : 0,
				  &s.hl);
	if (ret < 0) {
		if (is_no_cuda(ret)) {
			printf("SKIP: no CUDA driver or NVIDIA GPU: %s\n",
			       glcuda_get_last_error());
			return EXIT_SKIP;
		}
		fprintf(stderr,
			"glcuda-soak: no GL context for CUDA device %d: %s: "
			"%s\n",
			opt.cuda_device, glcuda_error_get_name(ret),
			glcuda_get_last_error());
		return 1;
	}
	ret = glcuda_device_new(glcuda_headless_get_display(s.hl),
				glcuda_headless_get_context(s.hl), &dopts,
				&s.dev);
	if (ret < 0) {
		if (is_no_cuda(ret)) {
			printf("SKIP: no CUDA driver or NVIDIA GPU: %s\n",
			       glcuda_get_last_error());
			return EXIT_SKIP;
		}
		fprintf(stderr, "glcuda-soak: glcuda_device_new: %s: %s\n",
			glcuda_error_get_name(ret), glcuda_get_last_error());
		return 1;
	}
	/* The device found the driver: load the soak's own CUDA table. */
	if (tools_cuda_load(buf, sizeof(buf)) < 0) {
		fprintf(stderr, "glcuda-soak: %s\n", buf);
		return 1;
	}
	caps = glcuda_device_get_caps(s.dev);
	s.ctx = glcuda_device_get_cuda_context(s.dev);
	res = CU(cuCtxPushCurrent)(s.ctx);
	if (res != CUDA_SUCCESS) {
		fprintf(stderr, "glcuda-soak: cuCtxPushCurrent: %s\n",
			tools_cuda_result(res, buf, sizeof(buf)));
		return 1;
	}
	s.pushed = true;
	if (opt.kernel) {
		res = CU(cuModuleLoadData)(&s.module, glcuda_bench_fatbin);
		if (res == CUDA_SUCCESS)
			res = CU(cuModuleGetFunction)(&s.invert, s.module,
						      "bench_invert_u8");
		if (res != CUDA_SUCCESS) {
			fprintf(stderr,
				"glcuda-soak: loading the invert kernel "
				"(bench/bench-kernels.cu): %s\n",
				tools_cuda_result(res, buf, sizeof(buf)));
			return 1;
		}
	}
	ret = glcuda_ring_new(s.dev, &desc, &s.ring);
	if (ret < 0)
		return fail_glcuda("glcuda_ring_new", ret), 1;
	glGenFramebuffers(1, &s.read_fbo);

	printf("glcuda-soak: %llu frames of %ux%u RGBA8 through %d slots, "
	       "kernel %s, verify 1 in %llu, sample every %llu\n",
	       (unsigned long long)opt.frames, opt.width, opt.height, SLOTS,
	       opt.kernel ? "invert" : "none",
	       (unsigned long long)opt.verify_every,
	       (unsigned long long)opt.sample_every);
	printf("GL: %s (%s); CUDA device %d: %s, driver %d; sync mode %s; "
	       "__GL_YIELD=%s\n",
	       caps->gl_renderer, caps->gl_version, caps->cuda_ordinal,
	       caps->cuda_device_name, caps->cuda_driver_version,
	       glcuda_sync_mode_get_name(caps->sync_mode),
	       getenv("__GL_YIELD") ? getenv("__GL_YIELD") : "(unset)");
	printf("frame time: wall time between successive "
	       "glcuda_frame_release() calls, intervals with a verification "
	       "readback left out\n\n");
	return 0;
}

static void
teardown(void)
{
	if (s.read_fbo)
		glDeleteFramebuffers(1, &s.read_fbo);
	glcuda_ring_destroy(s.ring);
	if (s.pushed) {
		CUcontext c;
		CU(cuCtxSynchronize)();
		if (s.module)
			CU(cuModuleUnload)(s.module);
		CU(cuCtxPopCurrent)(&c);
	}
	glcuda_device_destroy(s.dev);
	glcuda_headless_destroy(s.hl);
	free(s.times);
	free(s.samples);
	if (s.csv)
		fclose(s.csv);
}

int
main(int argc, char **argv)
{
	int status;

	if (parse_options(argc, argv) < 0)
		return 2;
	s.times = malloc(sizeof(s.times[0]) * (opt.sample_every + 1));
	if (!s.times) {
		fprintf(stderr, "glcuda-soak: out of memory\n");
		return 1;
	}
	if (opt.csv_path) {
		s.csv = fopen(opt.csv_path, "w");
		if (!s.csv) {
			fprintf(stderr, "glcuda-soak: %s: %s\n", opt.csv_path,
				strerror(errno));
			free(s.times);
			return 1;
		}
		fprintf(s.csv, "frames,elapsed_s,fds,cuda_free_bytes,rss_kib,"
			       "p50_us,p99_us,max_us,intervals,readbacks,"
			       "readback_mean_us,verified,mismatches\n");
	}
	status = setup();
	if (status == 0) {
		print_header();
		s.start_ns = clock_now_ns();
		if (run() < 0)
			status = 1;
		else
			status = verdict() ? 0 : 1;
	}
	teardown();
	return status;
}
