/*
 * GL <-> CUDA hand-off on the GPU: every format in every sync mode, several
 * hand-offs in flight, proof that nothing blocks the CPU, leaks, bad input.
 * Needs an NVIDIA GPU; exits 77 without a CUDA driver.
 * SPDX-License-Identifier: MIT
 */
#include "test-gpu.h"
#include "image.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *
api_name(bool gles)
{
	return gles ? "GLES" : "GL";
}

/* GL writes A -> CUDA checks A exactly and writes B -> GL reads B exactly;
 * twice, with new patterns, so a stale frame or a missing wait fails. */
static void
roundtrip_one(struct gpu *g, const struct format_info *fmt, bool gles,
	      CUstream stream, int *passed)
{
	struct glcuda_image *img = NULL;
	char tag[96];
	int ret;

	ret = test_image_new(g->dev, 61, 37, fmt->format, 0, &img);
	ck_assert_msg(ret == 0, "%s %s: %s: %s", api_name(gles), fmt->name,
		      glcuda_error_get_name(ret), glcuda_get_last_error());
	for (uint32_t round = 0; round < 2; round++) {
		snprintf(tag, sizeof(tag), "%s %s %s round %u", api_name(gles),
			 fmt->name,
			 glcuda_sync_mode_get_name(
				 glcuda_device_get_caps(g->dev)->sync_mode),
			 round);
		gpu_roundtrip(g, img, img->texture, fmt, 10 + round * 2, stream,
			      tag);
	}
	glcuda_image_destroy(img);
	(*passed)++;
}

/* _i: 0..5 = {GL, GLES} x {timeline, binary, cpu} */
START_TEST(formats_x_modes)
{
	bool gles = _i >= 3;
	enum glcuda_sync_mode mode =
		(enum glcuda_sync_mode)(GLCUDA_SYNC_TIMELINE + _i % 3);
	struct gpu g;
	CUstream stream;
	int passed = 0;

	gpu_setup(&g, gles, mode);
	ck_cu(CU(cuStreamCreate)(&stream, CU_STREAM_NON_BLOCKING));
	for (int f = 1; f < GLCUDA_FORMAT_COUNT; f++) {
		const struct format_info *fmt =
			format_info((enum glcuda_format)f);
		ck_assert_msg(glcuda_device_get_caps(g.dev)->formats_supported &
				      (1u << f),
			      "%s not exportable", fmt->name);
		roundtrip_one(&g, fmt, gles, stream, &passed);
	}
	printf("%s %s: %d/%d formats exact both ways\n", api_name(gles),
	       glcuda_sync_mode_get_name(mode), passed,
	       GLCUDA_FORMAT_COUNT - 1);
	ck_cu(CU(cuStreamDestroy)(stream));
	gpu_teardown(&g);
}
END_TEST

/* The batched hand-off check: GL's colour of image i in round r, and
 * CUDA's key for image i. Colours differ between images (G) and between
 * rounds (R, B), keys between images and in every byte, so that a stale
 * image, one CUDA did not process, one processed twice or with another
 * image's key, or two images swapped, each end with a value other than
 * the expected colour ^ key. */
static void
batch_color(uint32_t round, uint32_t i, uint8_t c[4])
{
	c[0] = (uint8_t)(round * 17u + i * 3u + 1u);
	c[1] = (uint8_t)(0x20u + i * 40u);
	c[2] = (uint8_t)(0x90u ^ round);
	c[3] = (uint8_t)(0xffu - i * 8u);
}

static unsigned int
batch_key(uint32_t i)
{
	return 0x11223344u * (i + 1u);
}

/* Clear a texture to an exact RGBA8 colour through a framebuffer (GL work
 * on the GPU that the CPU does not wait for). */
static void
clear_texture(GLuint fbo, GLuint tex, uint32_t w, uint32_t h,
	      const uint8_t c[4])
{
	glBindFramebuffer(GL_FRAMEBUFFER, fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, tex, 0);
	glViewport(0, 0, (GLsizei)w, (GLsizei)h);
	glClearColor(c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f,
		     c[3] / 255.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, 0, 0);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
}

/* Several images in one hand-off, each way, ten rounds: GL clears image i
 * to its colour of the round, one glcuda_handoff_to_cuda hands all n to
 * CUDA, CUDA XORs each in place with its own key, one glcuda_handoff_to_gl
 * hands all back, and GL reads every pixel of every image, which must be
 * colour ^ key. Where the hand-offs do not block (timeline, binary), GL is
 * held first behind a gated hand-off of another image, so that the GL
 * clears cannot have run before CUDA starts: a CUDA that did not wait for
 * GL would XOR the previous content, and GL would then read the bare
 * colour. */
static void
batched_handoffs(struct gpu *g, struct glcuda_image **img, uint32_t n,
		 uint32_t w, uint32_t h, CUstream stream,
		 enum glcuda_sync_mode mode)
{
	/* the CPU mode waits on the CPU */
	bool gated = mode != GLCUDA_SYNC_CPU;
	const struct format_info *fmt = format_info(GLCUDA_FORMAT_RGBA8);
	size_t size = (size_t)w * h * 4;
	uint8_t *want = malloc(size), *got = malloc(size);
	volatile unsigned int *gate = NULL;
	struct glcuda_image *gimg = NULL;
	CUdeviceptr dgate = 0;
	CUstream gstream = NULL;
	void *gargs[] = { &dgate };
	GLuint fbo;

	ck_assert_uint_le(n, 8);
	glGenFramebuffers(1, &fbo);
	if (gated) {
		ck_ok(test_image_new(g->dev, 16, 16, GLCUDA_FORMAT_RGBA8, 0,
				     &gimg));
		ck_cu(CU(cuStreamCreate)(&gstream, CU_STREAM_NON_BLOCKING));
		ck_cu(CU(cuMemHostAlloc)((void **)&gate, 4,
					 CU_MEMHOSTALLOC_DEVICEMAP |
						 CU_MEMHOSTALLOC_PORTABLE));
		ck_cu(CU(cuMemHostGetDevicePointer)(&dgate, (void *)gate, 0));
	}
	for (uint32_t round = 0; round < 10; round++) {
		if (gated) {
			/* GL's next commands wait for CUDA's signal on
			 * gstream, which comes after the gate opens. */
			*gate = 0;
			__sync_synchronize();
			ck_ok(glcuda_handoff_to_cuda(g->dev, &gimg, 1,
						     gstream));
			ck_cu(CU(cuLaunchKernel)(g->spin_gate, 1, 1, 1, 1, 1, 1,
						 0, gstream, gargs, NULL));
			ck_ok(glcuda_handoff_to_gl(g->dev, &gimg, 1, gstream));
		}
		for (uint32_t i = 0; i < n; i++) {
			uint8_t c[4];
			batch_color(round, i, c);
			clear_texture(fbo, img[i]->texture, w, h, c);
		}
		ck_ok(glcuda_handoff_to_cuda(g->dev, img, n, stream));
		for (uint32_t i = 0; i < n; i++) {
			CUsurfObject surf =
				glcuda_image_get_cuda_surface(img[i]);
			int iw = (int)w, ih = (int)h;
			unsigned int key = batch_key(i);
			void *args[] = { &surf, &iw, &ih, &key };
			ck_cu(CU(cuLaunchKernel)(g->xor_rgba8, (w + 15) / 16,
						 (h + 15) / 16, 1, 16, 16, 1, 0,
						 stream, args, NULL));
		}
		ck_ok(glcuda_handoff_to_gl(g->dev, img, n, stream));
		if (gated) {
			/* Every call returned with GL held: CUDA is still
			 * waiting for GL's signals. */
			ck_assert_msg(CU(cuStreamQuery)(stream) ==
					      CUDA_ERROR_NOT_READY,
				      "%s round %u: CUDA ran ahead of GL's "
				      "batch of %u images",
				      glcuda_sync_mode_get_name(mode), round,
				      n);
			*gate = 1;
			__sync_synchronize();
		}
		for (uint32_t i = 0; i < n; i++) {
			uint8_t c[4];
			unsigned int key = batch_key(i);
			long bad;
			batch_color(round, i, c);
			for (size_t p = 0; p < size; p += 4)
				for (unsigned int ch = 0; ch < 4; ch++)
					want[p + ch] =
						(uint8_t)(c[ch] ^
							  (key >> (8 * ch)));
			ck_assert(test_gl_readback(img[i]->texture, fmt, w, h,
						   got));
			bad = test_first_mismatch(want, got, fmt, w, h);
			ck_assert_msg(
				bad < 0,
				"%s batched round %u image %u/%u: pixel %ld is "
				"%02x%02x%02x%02x, want %02x%02x%02x%02x (GL's "
				"colour %02x%02x%02x%02x ^ key %08x)",
				glcuda_sync_mode_get_name(mode), round, i, n,
				bad, got[bad * 4], got[bad * 4 + 1],
				got[bad * 4 + 2], got[bad * 4 + 3], want[0],
				want[1], want[2], want[3], c[0], c[1], c[2],
				c[3], key);
		}
		ck_cu(CU(cuStreamSynchronize)(stream));
		if (gated)
			ck_cu(CU(cuStreamSynchronize)(gstream));
	}
	glDeleteFramebuffers(1, &fbo);
	if (gated) {
		glcuda_image_destroy(gimg);
		CU(cuStreamDestroy)(gstream);
		CU(cuMemFreeHost)((void *)gate);
	}
	free(want);
	free(got);
}

/* Three images in flight, pipelined: GL renders and hands off image i+1
 * before it waits for image i; 30 rounds, separate streams or one. A
 * deadlock fails by the test timeout. */
START_TEST(in_flight)
{
	enum glcuda_sync_mode mode =
		(enum glcuda_sync_mode)(GLCUDA_SYNC_TIMELINE + _i % 3);
	bool one_stream = _i >= 3;
	const struct format_info *fmt = format_info(GLCUDA_FORMAT_RGBA8);
	const uint32_t w = 256, h = 128, n = 3;
	size_t size = (size_t)w * h * 4;
	struct glcuda_image *img[3];
	CUstream stream[3];
	CUdeviceptr da[3], db[3], dcount[3];
	uint8_t *a[3], *b[3], *got = malloc(size);
	struct gpu g;

	gpu_setup(&g, false, mode);
	for (uint32_t i = 0; i < n; i++) {
		ck_ok(test_image_new(g.dev, w, h, fmt->format, 0, &img[i]));
		if (one_stream && i > 0)
			stream[i] = stream[0];
		else
			ck_cu(CU(cuStreamCreate)(&stream[i],
						 CU_STREAM_NON_BLOCKING));
		a[i] = malloc(size);
		b[i] = malloc(size);
		da[i] = gpu_upload(NULL, size);
		db[i] = gpu_upload(NULL, size);
		dcount[i] = gpu_upload(NULL, 8);
	}
	for (uint32_t round = 0; round < 30; round++) {
		for (uint32_t i = 0; i < n; i++) {
			uint32_t seed = round * 10 + i;
			test_fill_pattern(fmt, w, h, seed, a[i]);
			test_fill_pattern(fmt, w, h, seed + 1000, b[i]);
			/* The previous round's kernels have finished (checked
			 * below), so the buffers may be rewritten. */
			ck_cu(CU(cuMemcpyHtoD)(da[i], a[i], size));
			ck_cu(CU(cuMemcpyHtoD)(db[i], b[i], size));
			ck_assert(test_gl_upload(img[i]->texture, fmt, w, h,
						 a[i]));
			ck_ok(glcuda_handoff_to_cuda(g.dev, &img[i], 1,
						     stream[i]));
			gpu_check_and_fill(&g, img[i], da[i], db[i], dcount[i],
					   stream[i]);
		}
		for (uint32_t i = 0; i < n; i++)
			ck_ok(glcuda_handoff_to_gl(g.dev, &img[i], 1,
						   stream[i]));
		for (uint32_t i = 0; i < n; i++) {
			uint32_t count[2];
			ck_assert(test_gl_readback(img[i]->texture, fmt, w, h,
						   got));
			ck_assert_msg(test_first_mismatch(b[i], got, fmt, w,
							  h) < 0,
				      "%s round %u image %u: GL read stale or "
				      "wrong pixels",
				      glcuda_sync_mode_get_name(mode), round,
				      i);
			ck_cu(CU(cuStreamSynchronize)(stream[i]));
			ck_cu(CU(cuMemcpyDtoH)(count, dcount[i], 8));
			ck_assert_msg(count[0] == 0,
				      "%s round %u image %u: CUDA saw %u wrong "
				      "pixels",
				      glcuda_sync_mode_get_name(mode), round, i,
				      count[0]);
		}
	}
	batched_handoffs(&g, img, n, w, h, stream[0], mode);
	printf("%s, %s: 3 images in flight x 30 rounds + 10 batched hand-offs: "
	       "exact\n",
	       glcuda_sync_mode_get_name(mode),
	       one_stream ? "one stream" : "three streams");
	for (uint32_t i = 0; i < n; i++) {
		glcuda_image_destroy(img[i]);
		if (!(one_stream && i > 0))
			CU(cuStreamDestroy)(stream[i]);
		CU(cuMemFree)(da[i]);
		CU(cuMemFree)(db[i]);
		CU(cuMemFree)(dcount[i]);
		free(a[i]);
		free(b[i]);
	}
	free(got);
	gpu_teardown(&g);
}
END_TEST

/* Gate the stream on the GPU, issue the whole GL -> CUDA -> GL round trip,
 * and check every glcuda call returned while the gate was closed: had any
 * of them waited for the stream on the CPU, this test would hang and fail
 * by its timeout. Then open the gate and check the result. */
START_TEST(no_cpu_blocking)
{
	enum glcuda_sync_mode mode =
		(enum glcuda_sync_mode)(GLCUDA_SYNC_TIMELINE + _i);
	const struct format_info *fmt = format_info(GLCUDA_FORMAT_RGBA8);
	const uint32_t w = 128, h = 64;
	struct gpu_patterns p;
	volatile unsigned int *gate;
	CUdeviceptr dgate;
	struct glcuda_image *img;
	CUstream stream;
	GLsync fence;
	struct gpu g;
	void *args[1];

	gpu_setup(&g, false, mode);
	ck_ok(test_image_new(g.dev, w, h, fmt->format, 0, &img));
	ck_cu(CU(cuStreamCreate)(&stream, CU_STREAM_NON_BLOCKING));
	ck_cu(CU(cuMemHostAlloc)((void **)&gate, 4, CU_MEMHOSTALLOC_DEVICEMAP |
					 CU_MEMHOSTALLOC_PORTABLE));
	*gate = 0;
	ck_cu(CU(cuMemHostGetDevicePointer)(&dgate, (void *)gate, 0));
	gpu_patterns_init(&p, fmt, w, h, 5);

	ck_assert(test_gl_upload(img->texture, fmt, w, h, p.a));
	ck_ok(glcuda_handoff_to_cuda(g.dev, &img, 1, stream));
	args[0] = &dgate;
	ck_cu(CU(cuLaunchKernel)(g.spin_gate, 1, 1, 1, 1, 1, 1, 0, stream, args,
				 NULL));
	gpu_check_and_fill(&g, img, p.da, p.db, p.dcount, stream);
	ck_ok(glcuda_handoff_to_gl(g.dev, &img, 1, stream));
	/* GL work after the hand-off is queued behind the GPU-side wait. */
	fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
	glFlush();

	/* Every call above returned; the gate is still closed. */
	ck_assert_int_eq(CU(cuStreamQuery)(stream), CUDA_ERROR_NOT_READY);
	ck_assert_int_eq(glClientWaitSync(fence, 0, 0), GL_TIMEOUT_EXPIRED);

	*gate = 1;
	__sync_synchronize();
	ck_assert(test_gl_readback(img->texture, fmt, w, h, p.got));
	ck_assert(test_first_mismatch(p.b, p.got, fmt, w, h) < 0);
	ck_assert_int_ne(glClientWaitSync(fence, 0, 0), GL_TIMEOUT_EXPIRED);
	glDeleteSync(fence);
	printf("%s: the GL->CUDA->GL round trip was issued with the stream "
	       "gated; no call waited\n",
	       glcuda_sync_mode_get_name(mode));

	ck_cu(CU(cuStreamSynchronize)(stream));
	glcuda_image_destroy(img);
	CU(cuStreamDestroy)(stream);
	CU(cuMemFreeHost)((void *)gate);
	gpu_patterns_fini(&p);
	gpu_teardown(&g);
}
END_TEST

/* 1000 images of mixed formats and sizes, some handed to CUDA and back,
 * some destroyed with hand-offs in flight: nothing left behind. The 1000
 * are ten runs of one 100-image cycle; CUDA memory is compared exactly
 * between the end of the first run and the end of the last, so that the
 * driver's pools have grown for every size, format and case before the
 * baseline, and both ends are the same point of the cycle. */
START_TEST(no_leaks)
{
	static const enum glcuda_format mix[] = {
		GLCUDA_FORMAT_RGBA8,	GLCUDA_FORMAT_RGBA16F,
		GLCUDA_FORMAT_R8,	GLCUDA_FORMAT_RG16,
		GLCUDA_FORMAT_R32F,	GLCUDA_FORMAT_RGB10_A2,
		GLCUDA_FORMAT_SRGB8_A8, GLCUDA_FORMAT_RGBA32F,
		GLCUDA_FORMAT_RG8,	GLCUDA_FORMAT_R16,
	};
	struct gl_names before, after;
	size_t mem_before = 0, mem_after;
	GLuint max_name = 0;
	CUstream stream;
	struct gpu g;
	int fds;

	gpu_setup(&g, false, GLCUDA_SYNC_TIMELINE);
	ck_cu(CU(cuStreamCreate)(&stream, CU_STREAM_NON_BLOCKING));
	for (int i = 0; i < 3; i++) { /* driver first-use allocations */
		struct glcuda_image *img;
		ck_ok(test_image_new(g.dev, 64, 64, GLCUDA_FORMAT_RGBA8, 0,
				     &img));
		ck_ok(glcuda_handoff_to_cuda(g.dev, &img, 1, stream));
		ck_ok(glcuda_handoff_to_gl(g.dev, &img, 1, stream));
		glcuda_image_destroy(img);
	}
	glFinish();
	ck_cu(CU(cuStreamSynchronize)(stream));
	fds = test_count_fds();
	test_count_gl_names(&before, 20000);
	for (int i = 0; i < 1000; i++) {
		struct glcuda_image *img;
		int k = i % 100; /* the cycle */
		enum glcuda_format f = mix[k % ARRAY_LENGTH(mix)];
		uint32_t w = 16 + (uint32_t)(k * 37) % 700,
			 h = 8 + (uint32_t)(k * 53) % 500;
		ck_ok(test_image_new(g.dev, w, h, f, 0, &img));
		if (img->texture > max_name)
			max_name = img->texture;
		switch (k % 5) {
		case 1: /* a full round trip */
			ck_ok(glcuda_handoff_to_cuda(g.dev, &img, 1, stream));
			gpu_check_and_fill(&g, img, 0, 0, 0, stream);
			ck_ok(glcuda_handoff_to_gl(g.dev, &img, 1, stream));
			break;
		case 2: { /* destroyed while CUDA still works on it */
			unsigned int iters = 200;
			void *args[] = { &iters };
			ck_ok(glcuda_handoff_to_cuda(g.dev, &img, 1, stream));
			ck_cu(CU(cuLaunchKernel)(g.busy, 1, 1, 1, 1, 1, 1, 0,
						 stream, args, NULL));
			break;
		}
		case 3: /* handed back, GL's wait still pending on the GPU */
			ck_ok(glcuda_handoff_to_cuda(g.dev, &img, 1, stream));
			ck_ok(glcuda_handoff_to_gl(g.dev, &img, 1, stream));
			break;
		default:
			break;
		}
		glcuda_image_destroy(img);
		if (i == 99)
			mem_before = gpu_free_memory();
	}
	mem_after = gpu_free_memory();
	ck_assert_int_eq(test_count_fds(), fds);
	printf("1000 images: fds %d -> %d, CUDA free memory %zu -> %zu bytes, "
	       "names up to %u\n",
	       fds, test_count_fds(), mem_before, mem_after, max_name);
	ck_assert_msg(mem_after == mem_before || !gpu_free_memory_exact(),
		      "CUDA free memory %zu after the first 100 images -> %zu "
		      "after 1000",
		      mem_before, mem_after);
	ck_assert_uint_lt(max_name, 20000);
	test_count_gl_names(&after, 20000);
	ck_assert_gl_names_eq(&before, &after);
	ck_assert_uint_eq(g.dev->live_images, 0);
	CU(cuStreamDestroy)(stream);
	gpu_teardown(&g);
}
END_TEST

START_TEST(bad_input)
{
	struct glcuda_image *img, *img2, *other, *many[65];
	struct glcuda_device *dev2 = NULL;
	CUstream stream;
	struct gpu g;

	gpu_setup(&g, false, GLCUDA_SYNC_TIMELINE);
	ck_cu(CU(cuStreamCreate)(&stream, CU_STREAM_NON_BLOCKING));
	ck_ok(test_image_new(g.dev, 32, 32, GLCUDA_FORMAT_RGBA8, 0, &img));
	ck_ok(test_image_new(g.dev, 32, 32, GLCUDA_FORMAT_R8, 0, &img2));
	ck_ok(glcuda_device_new(glcuda_headless_get_display(g.hl),
				glcuda_headless_get_context(g.hl), NULL,
				&dev2));
	ck_ok(test_image_new(dev2, 32, 32, GLCUDA_FORMAT_RGBA8, 0, &other));

	/* An image of another device. */
	ck_assert_int_eq(glcuda_handoff_to_cuda(g.dev, &other, 1, stream),
			 GLCUDA_ERROR_WRONG_DEVICE);
	/* Wrong direction, twice the same image, too many, NULL. */
	ck_assert_int_eq(glcuda_handoff_to_gl(g.dev, &img, 1, stream),
			 GLCUDA_ERROR_BAD_STATE);
	{
		struct glcuda_image *dup[2] = { img, img };
		ck_assert_int_eq(glcuda_handoff_to_cuda(g.dev, dup, 2, stream),
				 -EINVAL);
	}
	for (int i = 0; i < 65; i++)
		many[i] = img;
	ck_assert_int_eq(glcuda_handoff_to_cuda(g.dev, many, 65, stream),
			 -EINVAL);
	{
		struct glcuda_image *nul[2] = { img, NULL };
		ck_assert_int_eq(glcuda_handoff_to_cuda(g.dev, nul, 2, stream),
				 -EINVAL);
	}
	ck_ok(glcuda_handoff_to_cuda(g.dev, &img, 1, stream));
	ck_assert_int_eq(glcuda_handoff_to_cuda(g.dev, &img, 1, stream),
			 GLCUDA_ERROR_BAD_STATE);
	/* Without the context current: an error, nothing changes. */
	ck_assert(eglMakeCurrent(glcuda_headless_get_display(g.hl),
				 EGL_NO_SURFACE, EGL_NO_SURFACE,
				 EGL_NO_CONTEXT));
	ck_assert_int_eq(glcuda_handoff_to_gl(g.dev, &img, 1, stream),
			 GLCUDA_ERROR_NO_CURRENT_CONTEXT);
	ck_assert_int_eq(glcuda_handoff_to_cuda(g.dev, &img2, 1, stream),
			 GLCUDA_ERROR_NO_CURRENT_CONTEXT);
	ck_assert_ptr_eq(eglGetCurrentContext(), EGL_NO_CONTEXT);
	ck_ok(glcuda_headless_make_current(g.hl));
	ck_ok(glcuda_handoff_to_gl(g.dev, &img, 1, stream));
	/* Oversized images. */
	ck_assert_int_eq(test_image_new(g.dev,
					glcuda_device_get_caps(g.dev)
							->max_image_size +
						1,
					4, GLCUDA_FORMAT_RGBA8, 0, &img2),
			 -EINVAL);
	/* Destroying a device with images alive refuses and says so. */
	glcuda_device_destroy(dev2);
	ck_assert_uint_eq(dev2->live_images, 1);
	glcuda_image_destroy(other);
	glcuda_device_destroy(dev2);

	glcuda_image_destroy(img);
	glcuda_image_destroy(img2);
	CU(cuStreamDestroy)(stream);
	gpu_teardown(&g);
}
END_TEST

int
main(void)
{
	const struct test_case cases[] = {
		TEST_TCASE("formats", 120),    TEST_LOOP(formats_x_modes, 6),
		TEST_TCASE("in-flight", 60),   TEST_LOOP(in_flight, 6),
		TEST_LOOP(no_cpu_blocking, 2), TEST_TCASE("hygiene", 300),
		TEST_ONCE(no_leaks),	       TEST_ONCE(bad_input),
	};

	gpu_require_cuda();
	test_require_egl();
	return test_run_cases("cuda", cases);
}
