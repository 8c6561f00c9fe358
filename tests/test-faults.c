/*
 * Fault injection at every CUDA driver call glcuda makes: for N = 1, 2, ...
 * the N-th call fails, and the scenario (device -> images of two formats ->
 * a wrapped GL texture and a wrapped EGLImage -> ring of 3 -> 20 frames ->
 * destroy everything) must return an error from
 * the public call that hit it, name the failing call and its code, and
 * leave fds, GL names and CUDA memory where they were. GPU machine only.
 * SPDX-License-Identifier: MIT
 */
#include "test-gpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const CUresult injected[] = {
	CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_INVALID_HANDLE, CUDA_ERROR_INVALID_VALUE,
};

/* Returns the first failing public call's error, or 0 if all succeeded. */
static int
scenario(struct glcuda_headless *hl, const char **failed_call)
{
	struct glcuda_device *dev = NULL;
	struct glcuda_image *a = NULL, *b = NULL, *wt = NULL, *we = NULL;
	EGLDisplay dpy = glcuda_headless_display(hl);
	EGLImage eimg = EGL_NO_IMAGE;
	GLuint tex[2];
	struct glcuda_ring *ring = NULL;
	struct glcuda_ring_desc desc = { .width = 128, .height = 72, .slots = 3,
					 .input_format = GLCUDA_FORMAT_RGBA8,
					 .flags = GLCUDA_RING_FLAG_TIMINGS };
	int ret;

#define STEP(call) do { ret = (call); if (ret < 0) { *failed_call = #call; goto out; } } while (0)
	STEP(glcuda_device_new(glcuda_headless_display(hl), glcuda_headless_context(hl), NULL,
			       &dev));
	STEP(glcuda_image_new(dev, 64, 64, GLCUDA_FORMAT_RGBA8, 0, &a));
	STEP(glcuda_image_new(dev, 64, 64, GLCUDA_FORMAT_RGBA16F, 0, &b));
	{
		struct glcuda_image *both[2] = { a, b };
		STEP(glcuda_handoff_to_cuda(dev, both, 2, NULL));
		STEP(glcuda_handoff_to_gl(dev, both, 2, NULL));
	}
	/* The caller's own texture and EGLImage, wrapped. */
	glGenTextures(2, tex);
	for (int i = 0; i < 2; i++) {
		glBindTexture(GL_TEXTURE_2D, tex[i]);
		glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, 32, 32);
	}
	glBindTexture(GL_TEXTURE_2D, 0);
	eimg = eglCreateImage(dpy, glcuda_headless_context(hl), EGL_GL_TEXTURE_2D,
			      (EGLClientBuffer)(uintptr_t)tex[1], NULL);
	ck_assert_ptr_ne(eimg, EGL_NO_IMAGE);
	STEP(glcuda_image_wrap_gl_texture(dev, tex[0], GL_TEXTURE_2D, 0, &wt));
	STEP(glcuda_image_wrap_egl_image(dev, eimg, 0, &we));
	{
		struct glcuda_image *both[2] = { wt, we };
		STEP(glcuda_handoff_to_cuda(dev, both, 2, NULL));
		STEP(glcuda_handoff_to_gl(dev, both, 2, NULL));
	}
	STEP(glcuda_ring_new(dev, &desc, &ring));
	for (int n = 0; n < 20; n++) {
		struct glcuda_frame *f, *t;
		struct glcuda_frame_timings tm;
		ret = glcuda_ring_acquire(ring, &f);
		if (ret == -EAGAIN) {
			t = glcuda_ring_take_newest(ring);
			if (t)
				STEP(glcuda_frame_release(t));
			n--;
			continue;
		}
		STEP(ret);
		STEP(glcuda_frame_submit(f));
		STEP(glcuda_frame_complete(f));
		STEP(glcuda_ring_get_timings(ring, &tm));
	}
	ret = 0;
out:
#undef STEP
	glcuda_ring_destroy(ring);
	glcuda_image_destroy(we);
	glcuda_image_destroy(wt);
	if (eimg != EGL_NO_IMAGE) {
		eglDestroyImage(dpy, eimg);
		glDeleteTextures(2, tex);
	}
	glcuda_image_destroy(b);
	glcuda_image_destroy(a);
	glcuda_device_destroy(dev);
	return ret;
}

START_TEST(every_cuda_call)
{
	struct glcuda_headless *hl = test_headless(_i == 1);
	struct gl_names before, after;
	size_t free0 = 0, free1 = 0, total;
	unsigned long points = 0;
	const char *call = NULL;
	CUcontext ctx;
	int fds, ret;

	/* Baseline: one clean run (also warms the drivers up). */
	ret = scenario(hl, &call);
	ck_assert_msg(ret == 0, "clean run: %s: %s: %s", call, glcuda_error_name(ret),
		      glcuda_last_error());
	glFinish();
	/* Keep the primary context alive across runs to read free memory
	 * (and count fds after it: the context holds some of its own). */
	{
		CUdevice d;
		ck_cu(glcuda_cuda.cuDeviceGet(&d, 0));
		ck_cu(glcuda_cuda.cuDevicePrimaryCtxRetain(&ctx, d));
		ck_cu(glcuda_cuda.cuCtxPushCurrent(ctx));
		ck_cu(glcuda_cuda.cuMemGetInfo(&free0, &total));
		glcuda_cuda.cuCtxPopCurrent(&ctx);
	}
	fds = test_count_fds();
	test_count_gl_names(&before, 4096);

	for (unsigned long n = 1;; n++) {
		CUresult err = injected[n % ARRAY_LENGTH(injected)];
		call = NULL;
		fault_inject(FAULT_CUDA, n, err);
		ret = scenario(hl, &call);
		fault_disarm(FAULT_CUDA);
		if (fault_calls(FAULT_CUDA) < n) {
			/* The scenario made fewer than n calls: all covered. */
			ck_assert_int_eq(ret, 0);
			break;
		}
		points++;
		/* Calls whose failure glcuda tolerates by design (e.g. a
		 * flag that is already set) may let the run succeed. */
		if (ret < 0) {
			char code[64];
			snprintf(code, sizeof(code), "(%d)", (int)err);
			ck_assert_msg(strstr(glcuda_last_error(), code) ||
				      ret == GLCUDA_ERROR_DEVICE_LOST,
				      "N=%lu: %s failed with %s but the message does not name "
				      "the CUDA code %s: %s", n, call, glcuda_error_name(ret),
				      code, glcuda_last_error());
			ck_assert_msg(strstr(glcuda_last_error(), "cu"),
				      "N=%lu: the message names no CUDA call: %s", n,
				      glcuda_last_error());
		}
		glFinish();
		ck_assert_msg(test_count_fds() == fds, "N=%lu (%s): fds %d -> %d", n,
			      call ? call : "-", fds, test_count_fds());
		test_count_gl_names(&after, 4096);
		ck_assert_msg(memcmp(&before, &after, sizeof(before)) == 0,
			      "N=%lu (%s): GL names leaked (textures %d->%d, memory objects "
			      "%d->%d, semaphores %d->%d, fbos %d->%d, queries %d->%d)", n,
			      call ? call : "-", before.textures, after.textures,
			      before.memory_objects, after.memory_objects, before.semaphores,
			      after.semaphores, before.framebuffers, after.framebuffers,
			      before.queries, after.queries);
		ck_cu(glcuda_cuda.cuCtxPushCurrent(ctx));
		ck_cu(glcuda_cuda.cuCtxSynchronize());
		ck_cu(glcuda_cuda.cuMemGetInfo(&free1, &total));
		glcuda_cuda.cuCtxPopCurrent(&ctx);
		ck_assert_msg(free1 + free0 / 100 >= free0, "N=%lu (%s): CUDA free %zu -> %zu",
			      n, call ? call : "-", free0, free1);
	}
	printf("%s: %lu CUDA injection points covered; every failure unwound cleanly\n",
	       _i ? "GLES" : "GL", points);
	ck_assert_uint_gt(points, 30);
	{
		CUdevice d;
		glcuda_cuda.cuDeviceGet(&d, 0);
		glcuda_cuda.cuDevicePrimaryCtxRelease(d);
	}
	glcuda_headless_destroy(hl);
}
END_TEST

static Suite *
glcuda_faults_suite(void)
{
	Suite *s = suite_create("faults");
	TCase *tc = tcase_create("cuda");
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, every_cuda_call, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	gpu_require_cuda();
	test_require_egl();
	return test_run_suite(glcuda_faults_suite());
}
