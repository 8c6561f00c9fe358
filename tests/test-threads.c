/*
 * Two glcuda devices on two threads at once, each with its own headless EGL
 * display and context, its own device and its own 3-slot ring, 2000 frames
 * each, every frame verified. The devices are created and destroyed
 * concurrently too, so the process-wide state (the CUDA loader, the shared
 * Vulkan instance, the headless helper's display references, the per-thread
 * last error, the copy kernels that the first copy of one layer loads) is
 * exercised from two threads.
 *
 * Built twice from this file:
 *  - tests/test-threads (GPU machine): the ring_transform kernel of
 *    tests/test-kernels.cu on each frame, the output read back and checked;
 *    the devices on CUDA devices 0 and 1 when there are two GPUs, both on
 *    device 0 otherwise. Exits 77 without a CUDA driver.
 *  - tests/test-threads-cpu (THREADS_FAKE_CUDA; CI): the fake CUDA driver
 *    (tests/fake-cuda) in the "cpu" sync mode, both devices on its one
 *    device; no kernel (the fake runs none), the input checked on each
 *    frame, and the fake's counters checked after both threads are done.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"
#include "test-common.h"
#include <glcuda/glcuda-cuda.h>
#ifdef THREADS_FAKE_CUDA
#include "fake-cuda/fake-cuda.h"
#include "fake-cuda/fake-cuda-test.h"
#else
#include "test-gpu.h"
#endif

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 2
#define FRAMES 2000
#define SLOTS 3
#ifdef THREADS_FAKE_CUDA
#define W 64
#define H 48
#else
#define W 320
#define H 180
#endif

struct worker {
	int index;
	int cuda_ordinal; /* for glcuda_headless_new: -1 with the fake */
	bool gles;
	unsigned int frames;
	pthread_barrier_t *start;

	/* Results, read by the main thread after the join. */
	bool ok;
	char error[1024];
	unsigned int verified;
	int device_ordinal;
	char sync_mode[16], renderer[160];
};

static void GLCUDA_PRINTF(2, 3)
worker_fail(struct worker *w, const char *fmt, ...)
{
	va_list args;

	if (!w->ok)
		return; /* keep the first failure */
	w->ok = false;
	va_start(args, fmt);
	vsnprintf(w->error, sizeof(w->error), fmt, args);
	va_end(args);
}

#define WORKER_CALL(w, call)                                                \
	do {                                                                \
		int r_ = (call);                                            \
		if (r_ < 0) {                                               \
			worker_fail(w, "thread %d: %s: %s: %s", (w)->index, \
				    #call, glcuda_error_get_name(r_),       \
				    glcuda_get_last_error());               \
			goto out;                                           \
		}                                                           \
	} while (0)
#define WORKER_CU(w, call)                                           \
	do {                                                         \
		CUresult r_ = (call);                                \
		if (r_ != CUDA_SUCCESS) {                            \
			worker_fail(w, "thread %d: %s: CUresult %d", \
				    (w)->index, #call, (int)r_);     \
			goto out;                                    \
		}                                                    \
	} while (0)

/* The misuse each thread makes on purpose is logged at error priority:
 * keep it out of the test's output (the thread's last error has it). */
static void
quiet_log(enum glcuda_log_priority prio, void *user_data, const char *fmt,
	  va_list args)
{
	(void)prio;
	(void)user_data;
	(void)fmt;
	(void)args;
}

/* Read back a few pixels of the frame (waits for GL: test only). With the
 * kernel: the output, test_frame_color(n) with R and G inverted and B
 * flipped (tests/test-kernels.cu ring_transform); without: the input. */
static bool
verify_frame(struct worker *w, struct glcuda_frame *f, GLuint fbo, bool output)
{
	static const int xs[] = { 0, W - 1, W / 2, 17 },
			 ys[] = { 0, H - 1, H / 3, H - 9 };
	uint8_t c[4], px[4];
	unsigned int want[4];
	GLint prev;
	bool ok = true;

	test_frame_color(glcuda_frame_get_number(f), c);
	if (output) {
		want[0] = 255u - c[0];
		want[1] = 255u - c[1];
		want[2] = 0xffu - c[2];
		want[3] = c[3];
	} else {
		for (int i = 0; i < 4; i++)
			want[i] = c[i];
	}
	glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &prev);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
	glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D,
			       output ? glcuda_frame_get_output_texture(f)
				      : glcuda_image_get_gl_texture(
						glcuda_frame_get_input(f)),
			       0);
	for (size_t i = 0; i < ARRAY_LENGTH(xs) && ok; i++) {
		memset(px, 0, sizeof(px));
		glReadPixels(xs[i], ys[i], 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
		if (px[0] != want[0] || px[1] != want[1] || px[2] != want[2] ||
		    px[3] != want[3]) {
			worker_fail(
				w,
				"thread %d: frame %llu pixel (%d,%d): "
				"%u,%u,%u,%u, expected "
				"%u,%u,%u,%u",
				w->index,
				(unsigned long long)glcuda_frame_get_number(f),
				xs[i], ys[i], px[0], px[1], px[2], px[3],
				want[0], want[1], want[2], want[3]);
			ok = false;
		}
	}
	glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)prev);
	if (ok)
		w->verified++;
	return ok;
}

#ifndef THREADS_FAKE_CUDA
static bool
launch_transform(struct worker *w, CUfunction fn, struct glcuda_frame *f)
{
	CUsurfObject in = glcuda_frame_get_input_surface(f),
		     out = glcuda_frame_get_output_surface(f);
	int width = W, height = H;
	void *args[] = { &in, &out, &width, &height };
	CUresult res = CU(
		cuLaunchKernel)(fn, (W + 15) / 16, (H + 15) / 16, 1, 16, 16, 1,
				0, glcuda_frame_get_stream(f), args, NULL);
	if (res != CUDA_SUCCESS)
		worker_fail(w, "thread %d: cuLaunchKernel: CUresult %d",
			    w->index, (int)res);
	return res == CUDA_SUCCESS;
}
#endif

/* A copy of one layer into linear memory, on both threads at once: the
 * first such copy of the process loads glcuda's copy kernels (lib/copy.c),
 * under a lock, once for both devices. The image is cleared by GL to the
 * thread's colour; every pixel of the copy is checked. With the device's
 * CUDA context current. */
static bool
copy_one_layer(struct worker *w, struct glcuda_device *dev)
{
	const uint8_t colour[4] = { 40, 80, (uint8_t)(120 + w->index), 255 };
	const size_t bytes = (size_t)W * H * 4;
	struct glcuda_image_desc desc;
	struct glcuda_image *img = NULL;
	CUdeviceptr linear = 0;
	uint8_t *host = malloc(bytes);
	bool ok = false;

	if (!host) {
		worker_fail(w, "thread %d: out of memory", w->index);
		return false;
	}
	glcuda_image_desc_init(&desc);
	desc.width = W;
	desc.height = H;
	desc.format = GLCUDA_FORMAT_RGBA8;
	WORKER_CALL(w, glcuda_image_new(dev, &desc, &img));
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER,
			  glcuda_image_get_gl_framebuffer(img, 0));
	glClearColor(colour[0] / 255.0f, colour[1] / 255.0f, colour[2] / 255.0f,
		     colour[3] / 255.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
	WORKER_CU(w, CU(cuMemAlloc)(&linear, bytes));
	WORKER_CALL(w, glcuda_handoff_to_cuda(dev, &img, 1, NULL));
	WORKER_CALL(w, glcuda_image_copy_to_linear(img, 0, 0, linear, W * 4, 0,
						   NULL));
	WORKER_CALL(w, glcuda_handoff_to_gl(dev, &img, 1, NULL));
	WORKER_CU(w, CU(cuStreamSynchronize)(NULL));
	WORKER_CU(w, CU(cuMemcpyDtoH)(host, linear, bytes));
	for (size_t i = 0; i < bytes; i++)
		if (host[i] != colour[i % 4]) {
			worker_fail(w, "thread %d: byte %zu of the copy is %u, "
				    "not %u", w->index, i, host[i],
				    colour[i % 4]);
			goto out;
		}
	ok = true;
out:
	if (linear)
		CU(cuMemFree)(linear);
	glcuda_image_destroy(img);
	free(host);
	return ok;
}

/* One thread: display, context, device, ring; w->frames frames through the
 * ring, pipelined as a compositor runs it (the oldest frame presented when
 * every slot is in flight), every frame checked; then everything
 * destroyed. Failures are recorded in w, never asserted here: Check's
 * assertions belong to the test's own thread. */
static void *
worker_run(void *data)
{
	struct worker *w = data;
	struct glcuda_device_options opts = { .size = sizeof(opts),
					      .log_func = quiet_log };
	struct glcuda_ring_desc desc = {
		.size = sizeof(desc),
		.width = W,
		.height = H,
		.slots = SLOTS,
		.input_format = GLCUDA_FORMAT_RGBA8,
	};
	struct glcuda_headless *hl = NULL;
	struct glcuda_device *dev = NULL;
	struct glcuda_ring *ring = NULL;
	struct glcuda_frame *queue[SLOTS];
	unsigned int queued = 0;
	bool pushed = false;
	GLuint fbo = 0;
#ifdef THREADS_FAKE_CUDA
	const bool output = false;
	opts.sync_mode = GLCUDA_SYNC_CPU;
#else
	const bool output = true;
	CUmodule module = NULL;
	CUfunction transform = NULL;
#endif

	w->ok = true;
	pthread_barrier_wait(w->start);
	WORKER_CALL(w,
		    glcuda_headless_new(w->cuda_ordinal,
					w->gles ? GLCUDA_HEADLESS_FLAG_GLES : 0,
					&hl));
	WORKER_CALL(w, glcuda_device_new(glcuda_headless_get_display(hl),
					 glcuda_headless_get_context(hl), &opts,
					 &dev));
	{
		const struct glcuda_caps *caps = glcuda_device_get_caps(dev);
		w->device_ordinal = caps->cuda_ordinal;
		snprintf(w->sync_mode, sizeof(w->sync_mode), "%s",
			 glcuda_sync_mode_get_name(caps->sync_mode));
		snprintf(w->renderer, sizeof(w->renderer), "%s %s",
			 w->gles ? "GLES" : "GL", caps->gl_renderer);
	}
	WORKER_CU(w, CU(cuCtxPushCurrent)(glcuda_device_get_cuda_context(dev)));
	pushed = true;
	if (!copy_one_layer(w, dev))
		goto out;
#ifndef THREADS_FAKE_CUDA
	WORKER_CU(w, CU(cuModuleLoadData)(&module, glcuda_test_fatbin));
	WORKER_CU(w, CU(cuModuleGetFunction)(&transform, module,
					     "ring_transform"));
#endif
	WORKER_CALL(w, glcuda_ring_new(dev, &desc, &ring));
	glGenFramebuffers(1, &fbo);

	for (uint64_t n = 0; n < w->frames || queued;) {
		struct glcuda_frame *f;
		int ret = n < w->frames ? glcuda_ring_acquire(ring, &f)
					: -EAGAIN;

		if (ret == -EAGAIN) {
			if (queued == 0) {
				worker_fail(
					w,
					"thread %d: -EAGAIN with no frame in "
					"flight",
					w->index);
				goto out;
			}
			f = queue[0];
			memmove(queue, queue + 1, sizeof(queue[0]) * --queued);
			WORKER_CALL(w, glcuda_frame_wait_gl(f));
			if (!verify_frame(w, f, fbo, output))
				goto out;
			WORKER_CALL(w, glcuda_frame_release(f));
			continue;
		}
		WORKER_CALL(w, ret);
		if (glcuda_frame_get_number(f) != n ||
		    glcuda_frame_get_slot(f) != n % SLOTS) {
			worker_fail(
				w,
				"thread %d: acquired frame %llu in slot %u, "
				"expected %llu",
				w->index,
				(unsigned long long)glcuda_frame_get_number(f),
				glcuda_frame_get_slot(f),
				(unsigned long long)n);
			goto out;
		}
		test_render_frame(f, W, H);
		WORKER_CALL(w, glcuda_frame_submit(f));
#ifndef THREADS_FAKE_CUDA
		if (!launch_transform(w, transform, f))
			goto out;
#endif
		WORKER_CALL(w, glcuda_frame_complete(f));
		queue[queued++] = f;
		n++;
	}
	/* An error leaves its message in this thread's last error, whatever
	 * the other thread does meanwhile. */
	if (glcuda_ring_acquire(ring, NULL) != -EINVAL ||
	    !strstr(glcuda_get_last_error(),
		    "glcuda_ring_acquire: out is NULL")) {
		worker_fail(w, "thread %d: last error \"%s\"", w->index,
			    glcuda_get_last_error());
		goto out;
	}
	if (glGetError() != GL_NO_ERROR)
		worker_fail(w, "thread %d: GL error after the frames",
			    w->index);
out:
	if (fbo)
		glDeleteFramebuffers(1, &fbo);
	glcuda_ring_destroy(ring);
	if (pushed) {
		CUcontext c;
		CU(cuCtxSynchronize)();
#ifndef THREADS_FAKE_CUDA
		if (module)
			CU(cuModuleUnload)(module);
#endif
		CU(cuCtxPopCurrent)(&c);
	}
	glcuda_device_destroy(dev);
	glcuda_headless_destroy(hl);
	return NULL;
}

/* Run the workers on their threads, all starting at once; assert each
 * succeeded. */
static void
run_workers(struct worker *ws, unsigned int count)
{
	pthread_barrier_t start;
	pthread_t threads[THREADS];

	ck_assert_uint_le(count, THREADS);
	ck_assert_int_eq(pthread_barrier_init(&start, NULL, count), 0);
	for (unsigned int i = 0; i < count; i++) {
		ws[i].start = &start;
		ck_assert_int_eq(pthread_create(&threads[i], NULL, worker_run,
						&ws[i]),
				 0);
	}
	for (unsigned int i = 0; i < count; i++)
		ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
	pthread_barrier_destroy(&start);
	for (unsigned int i = 0; i < count; i++)
		ck_assert_msg(ws[i].ok, "%s", ws[i].error);
}

/* ---------------------------------------------------------------------- */

#ifdef THREADS_FAKE_CUDA

/* The fake device takes GL's device UUID, so that glcuda binds it to the
 * contexts the threads make on the same display. Set before any thread
 * starts: the fake reads the environment on every call. */
static void
set_fake_uuid_from_gl(void)
{
	struct glcuda_headless *hl = test_headless(false);

	ck_assert_msg(epoxy_has_gl_extension("GL_EXT_memory_object"),
		      "GL has no GL_EXT_memory_object");
	ck_assert_int_eq(fake_cuda_set_uuid_from_gl(), GL_NO_ERROR);
	/* Released before the threads start, so that they initialise the
	 * display concurrently. */
	glcuda_headless_destroy(hl);
}

/* A counter of the fake; 0 before glcuda first loads it. */
static unsigned int
fake_count(const char *name)
{
	unsigned int (*fn)(void) =
		(unsigned int (*)(void))fake_cuda_control(name);

	return fn ? fn() : 0;
}

static void
setup_workers(struct worker *ws, bool mixed, unsigned int frames)
{
	set_fake_uuid_from_gl();
	for (int i = 0; i < THREADS; i++) {
		memset(&ws[i], 0, sizeof(ws[i]));
		ws[i].index = i;
		ws[i].cuda_ordinal = -1;
		ws[i].gles = mixed && i == 1;
		ws[i].frames = frames;
	}
}

START_TEST(two_devices_two_threads)
{
	struct worker ws[THREADS];
	unsigned int host_fns;
	int fds;

	setup_workers(ws, _i == 1, FRAMES);
	fds = test_count_fds();
	host_fns = fake_count("fake_cuda_host_fns_run");
	run_workers(ws, THREADS);
	for (int i = 0; i < THREADS; i++) {
		ck_assert_uint_eq(ws[i].verified, FRAMES);
		ck_assert_str_eq(ws[i].sync_mode, "cpu");
		printf("thread %d: %s, fake CUDA device %d, sync mode %s: %u "
		       "frames verified\n",
		       i, ws[i].renderer, ws[i].device_ordinal, ws[i].sync_mode,
		       ws[i].verified);
	}
	/* One completion per frame of both rings, and nothing left behind. */
	ck_assert_uint_eq(fake_count("fake_cuda_host_fns_run") - host_fns,
			  THREADS * FRAMES);
	/* The copy kernels (built where nvcc is): one library for both
	 * devices, loaded while both threads made their first copy at once. */
#ifdef HAVE_NVCC
	ck_assert_uint_eq(fake_count("fake_cuda_libraries"), 1);
	ck_assert_uint_eq(fake_count("fake_cuda_library_launches"), THREADS);
#else
	ck_assert_uint_eq(fake_count("fake_cuda_libraries"), 0);
#endif
	ck_assert_uint_eq(fake_count("fake_cuda_live_objects"), 0);
	ck_assert_uint_eq(fake_count("fake_cuda_primary_refs"), 0);
	ck_assert_uint_eq(fake_count("fake_cuda_pending"), 0);
	/* Every fd the devices opened is closed (the fake's own library
	 * handle is not an fd). */
	ck_assert_int_eq(test_count_fds(), fds);
}
END_TEST

/* Devices made and destroyed on two threads at once, again and again. */
START_TEST(create_destroy_concurrently)
{
	struct worker ws[THREADS];

	for (int round = 0; round < 5; round++) {
		setup_workers(ws, round % 2, 3 + (unsigned int)round);
		run_workers(ws, THREADS);
	}
	ck_assert_uint_eq(fake_count("fake_cuda_live_objects"), 0);
	ck_assert_uint_eq(fake_count("fake_cuda_primary_refs"), 0);
}
END_TEST

#else /* the GPU */

static int
cuda_device_count(void)
{
	char msg[512];
	int n = 0;

	ck_assert_msg(cuda_loader_load(msg, sizeof(msg)) == 0, "%s", msg);
	ck_cu(CU(cuDeviceGetCount)(&n));
	cuda_loader_unload();
	return n;
}

static void
setup_workers(struct worker *ws, bool mixed, unsigned int frames, bool log)
{
	int gpus = cuda_device_count();

	ck_assert_int_ge(gpus, 1);
	for (int i = 0; i < THREADS; i++) {
		memset(&ws[i], 0, sizeof(ws[i]));
		ws[i].index = i;
		ws[i].cuda_ordinal = gpus >= 2 ? i : 0;
		ws[i].gles = mixed && i == 1;
		ws[i].frames = frames;
	}
	if (log) {
		if (gpus >= 2)
			printf("%d CUDA devices: the two threads' devices on "
			       "CUDA devices 0 and 1\n",
			       gpus);
		else
			printf("1 CUDA device: both threads' devices on CUDA "
			       "device 0\n");
	}
}

START_TEST(two_devices_two_threads)
{
	struct worker ws[THREADS];

	setup_workers(ws, _i == 1, FRAMES, true);
	run_workers(ws, THREADS);
	for (int i = 0; i < THREADS; i++) {
		ck_assert_int_eq(ws[i].device_ordinal, ws[i].cuda_ordinal);
		ck_assert_uint_eq(ws[i].verified, FRAMES);
		printf("thread %d: %s, CUDA device %d, sync mode %s: %u "
		       "frames verified\n",
		       i, ws[i].renderer, ws[i].device_ordinal, ws[i].sync_mode,
		       ws[i].verified);
	}
}
END_TEST

START_TEST(create_destroy_concurrently)
{
	struct worker ws[THREADS];

	for (int round = 0; round < 5; round++) {
		setup_workers(ws, round % 2, 3 + (unsigned int)round, false);
		run_workers(ws, THREADS);
	}
}
END_TEST

#endif

int
main(void)
{
	const struct test_case cases[] = {
		/* _i == 1: the second thread's context is GLES. */
		TEST_TCASE("two-devices", 300),
		TEST_LOOP(two_devices_two_threads, 2),
		TEST_ONCE(create_destroy_concurrently),
	};

#ifdef THREADS_FAKE_CUDA
	fake_cuda_test_setup();
#else
	gpu_require_cuda();
	test_require_egl();
#endif
	return test_run_cases("threads", cases);
}
