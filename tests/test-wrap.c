/*
 * Wrapped GL textures and EGLImages on the GPU: every format both ways
 * exactly (or a clear refusal), hand-offs that do not wait for a busy GPU,
 * a mixed hand-off, 1000 wrap/unwrap cycles without a leak, bad input.
 * Needs an NVIDIA GPU; exits 77 without a CUDA driver.
 * SPDX-License-Identifier: MIT
 */
#include "test-gpu.h"
#include "image.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 61
#define H 37

static const char *
api_name(bool gles)
{
	return gles ? "GLES" : "GL";
}

static GLuint
make_texture(GLenum internal_format, uint32_t w, uint32_t h)
{
	GLuint tex;
	GLint prev;

	glGetIntegerv(GL_TEXTURE_BINDING_2D, &prev);
	glGenTextures(1, &tex);
	glBindTexture(GL_TEXTURE_2D, tex);
	glTexStorage2D(GL_TEXTURE_2D, 1, internal_format, (GLsizei)w,
		       (GLsizei)h);
	glBindTexture(GL_TEXTURE_2D, (GLuint)prev);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
	return tex;
}

static EGLImage
make_egl_image(struct gpu *g, GLuint tex)
{
	return eglCreateImage(glcuda_headless_get_display(g->hl),
			      glcuda_headless_get_context(g->hl),
			      EGL_GL_TEXTURE_2D,
			      (EGLClientBuffer)(uintptr_t)tex, NULL);
}

/* _i: 0..5 = {GL, GLES} x {timeline, binary, cpu}. The sync mode does not
 * matter to wrapped GL textures (map/unmap); it is checked all the same. */
START_TEST(gl_texture_formats)
{
	bool gles = _i >= 3;
	enum glcuda_sync_mode mode =
		(enum glcuda_sync_mode)(GLCUDA_SYNC_TIMELINE + _i % 3);
	int exact = 0, refused = 0;
	CUstream stream;
	struct gpu g;

	gpu_setup(&g, gles, mode);
	ck_cu(CU(cuStreamCreate)(&stream, CU_STREAM_NON_BLOCKING));
	{
		const struct glcuda_caps *caps = glcuda_device_get_caps(g.dev);
		ck_assert_uint_eq(caps->image_kinds_supported, 7);
		ck_assert_uint_eq(
			caps->image_kinds_cpu_wait,
			mode == GLCUDA_SYNC_CPU
				? (1u << GLCUDA_IMAGE_KIND_SHARED) |
					  (1u << GLCUDA_IMAGE_KIND_EGL_IMAGE)
				: 0u);
	}
	for (int f = 1; f < GLCUDA_FORMAT_COUNT; f++) {
		const struct format_info *fmt =
			format_info((enum glcuda_format)f);
		GLuint tex = make_texture(fmt->gl_internal_format, W, H);
		struct glcuda_image *img = NULL;
		char tag[96];
		int ret;

		ret = glcuda_image_wrap_gl_texture(g.dev, tex, GL_TEXTURE_2D, 0,
						   &img);
		if (ret != 0) {
			/* A refusal must be CUDA's, and say so. */
			ck_assert_msg(ret == GLCUDA_ERROR_CUDA, "%s %s: %s: %s",
				      api_name(gles), fmt->name,
				      glcuda_error_get_name(ret),
				      glcuda_get_last_error());
			ck_assert_ptr_nonnull(
				strstr(glcuda_get_last_error(),
				       "cuGraphicsGLRegisterImage"));
			ck_assert_ptr_null(img);
			printf("%s %s %s: refused: %s\n", api_name(gles),
			       glcuda_sync_mode_get_name(mode), fmt->name,
			       glcuda_get_last_error());
			refused++;
			glDeleteTextures(1, &tex);
			continue;
		}
		ck_assert_int_eq(glcuda_image_get_kind(img),
				 GLCUDA_IMAGE_KIND_GL_TEXTURE);
		ck_assert_int_eq(glcuda_image_get_format(img), fmt->format);
		ck_assert_uint_eq(glcuda_image_get_gl_texture(img), tex);
		ck_assert_uint_eq(glcuda_image_get_width(img), W);
		ck_assert_uint_eq(glcuda_image_get_height(img), H);
		ck_assert_uint_eq(glcuda_image_get_plane_count(img), 1);
		for (uint32_t round = 0; round < 2; round++) {
			snprintf(tag, sizeof(tag), "%s %s wrapped %s round %u",
				 api_name(gles),
				 glcuda_sync_mode_get_name(mode), fmt->name,
				 round);
			gpu_roundtrip(&g, img, tex, fmt, 20 + round * 2, stream,
				      tag);
		}
		glcuda_image_destroy(img);
		/* Destroying the image left the texture alone. */
		ck_assert(glIsTexture(tex));
		glDeleteTextures(1, &tex);
		exact++;
	}
	printf("%s %s: wrapped GL textures: %d formats exact both ways, %d "
	       "refused by CUDA\n",
	       api_name(gles), glcuda_sync_mode_get_name(mode), exact, refused);
	/* RGBA8, RGBA16F, RGBA32F and the video-plane formats at least. */
	ck_assert_int_ge(exact, 8);
	ck_cu(CU(cuStreamDestroy)(stream));
	gpu_teardown(&g);
}
END_TEST

START_TEST(egl_image_formats)
{
	bool gles = _i >= 3;
	enum glcuda_sync_mode mode =
		(enum glcuda_sync_mode)(GLCUDA_SYNC_TIMELINE + _i % 3);
	int exact = 0, refused = 0, no_image = 0;
	bool rgba8 = false;
	CUstream stream;
	struct gpu g;

	gpu_setup(&g, gles, mode);
	ck_cu(CU(cuStreamCreate)(&stream, CU_STREAM_NON_BLOCKING));
	for (int f = 1; f < GLCUDA_FORMAT_COUNT; f++) {
		const struct format_info *fmt =
			format_info((enum glcuda_format)f);
		GLuint tex = make_texture(fmt->gl_internal_format, W, H);
		EGLImage eimg = make_egl_image(&g, tex);
		struct glcuda_image *img = NULL;
		char tag[96];
		int ret;

		if (eimg == EGL_NO_IMAGE) {
			printf("%s %s: EGL cannot make an EGLImage of it "
			       "(0x%x)\n",
			       api_name(gles), fmt->name, eglGetError());
			no_image++;
			glDeleteTextures(1, &tex);
			continue;
		}
		ret = glcuda_image_wrap_egl_image(g.dev, eimg, 0, &img);
		if (ret != 0) {
			ck_assert_msg(ret == GLCUDA_ERROR_CUDA, "%s %s: %s: %s",
				      api_name(gles), fmt->name,
				      glcuda_error_get_name(ret),
				      glcuda_get_last_error());
			ck_assert_ptr_nonnull(
				strstr(glcuda_get_last_error(),
				       "cuGraphicsEGLRegisterImage"));
			printf("%s %s %s: refused: %s\n", api_name(gles),
			       glcuda_sync_mode_get_name(mode), fmt->name,
			       glcuda_get_last_error());
			refused++;
		} else {
			ck_assert_int_eq(glcuda_image_get_kind(img),
					 GLCUDA_IMAGE_KIND_EGL_IMAGE);
			ck_assert_uint_eq(glcuda_image_get_gl_texture(img), 0);
			ck_assert_uint_eq(glcuda_image_get_plane_count(img), 1);
			ck_assert_uint_eq(glcuda_image_get_width(img), W);
			ck_assert_uint_eq(glcuda_image_get_height(img), H);
			ck_assert_msg(glcuda_image_get_format(img) ==
					      fmt->format,
				      "%s: wrapped EGLImage reads as %s",
				      fmt->name,
				      glcuda_format_get_name(
					      glcuda_image_get_format(img)));
			for (uint32_t round = 0; round < 2; round++) {
				snprintf(tag, sizeof(tag),
					 "%s %s EGLImage %s round %u",
					 api_name(gles),
					 glcuda_sync_mode_get_name(mode),
					 fmt->name, round);
				gpu_roundtrip(&g, img, tex, fmt, 30 + round * 2,
					      stream, tag);
			}
			glcuda_image_destroy(img);
			exact++;
			rgba8 |= f == GLCUDA_FORMAT_RGBA8;
		}
		eglDestroyImage(glcuda_headless_get_display(g.hl), eimg);
		glDeleteTextures(1, &tex);
	}
	printf("%s %s: wrapped EGLImages: %d formats exact both ways, %d "
	       "refused by CUDA, %d without an EGLImage\n",
	       api_name(gles), glcuda_sync_mode_get_name(mode), exact, refused,
	       no_image);
	ck_assert(rgba8);
	ck_cu(CU(cuStreamDestroy)(stream));
	gpu_teardown(&g);
}
END_TEST

/*
 * The cost of each path's hand-off: gate the GPU and check that the calls
 * return while it is gated (a call that waited would hang this test until
 * its timeout).
 *   GL -> CUDA: GL's queue is stalled behind a semaphore wait that only
 *     the gated stream's signal releases; GL then clears the wrapped image
 *     and glcuda_handoff_to_cuda() must return without waiting for it.
 *   CUDA -> GL: the stream is gated before the kernel that writes the
 *     image; glcuda_handoff_to_gl() must return.
 * Then the gates open and the contents must be exact. _i: 0 GL texture,
 * 1 EGLImage; timeline mode.
 */
START_TEST(no_cpu_blocking)
{
	bool egl = _i == 1;
	const struct format_info *fmt = format_info(GLCUDA_FORMAT_RGBA8);
	const uint32_t w = 128, h = 64;
	struct gpu_patterns p;
	volatile unsigned int *gate;
	CUdeviceptr dgate;
	struct glcuda_image *img, *stall;
	CUstream stream, stall_stream;
	EGLImage eimg = EGL_NO_IMAGE;
	uint32_t count[2];
	GLuint tex, fbo;
	struct gpu g;
	void *args[1] = { &dgate };
	double t0, t1;

	gpu_setup(&g, false, GLCUDA_SYNC_TIMELINE);
	tex = make_texture(GL_RGBA8, w, h);
	if (egl) {
		eimg = make_egl_image(&g, tex);
		ck_assert_ptr_ne(eimg, EGL_NO_IMAGE);
		ck_ok(glcuda_image_wrap_egl_image(g.dev, eimg, 0, &img));
	} else {
		ck_ok(glcuda_image_wrap_gl_texture(g.dev, tex, GL_TEXTURE_2D, 0,
						   &img));
	}
	ck_ok(test_image_new(g.dev, 16, 16, GLCUDA_FORMAT_RGBA8, 0, &stall));
	ck_cu(CU(cuStreamCreate)(&stream, CU_STREAM_NON_BLOCKING));
	ck_cu(CU(cuStreamCreate)(&stall_stream, CU_STREAM_NON_BLOCKING));
	ck_cu(CU(cuMemHostAlloc)((void **)&gate, 4, CU_MEMHOSTALLOC_DEVICEMAP |
					 CU_MEMHOSTALLOC_PORTABLE));
	ck_cu(CU(cuMemHostGetDevicePointer)(&dgate, (void *)gate, 0));
	gpu_patterns_init(&p, fmt, w, h, 7);

	/* GL -> CUDA with GL stalled. */
	*gate = 0;
	__sync_synchronize();
	ck_ok(glcuda_handoff_to_cuda(g.dev, &stall, 1, stall_stream));
	ck_cu(CU(cuLaunchKernel)(g.spin_gate, 1, 1, 1, 1, 1, 1, 0, stall_stream,
				 args, NULL));
	ck_ok(glcuda_handoff_to_gl(g.dev, &stall, 1, stall_stream));
	glGenFramebuffers(1, &fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D,
			       glcuda_image_get_gl_texture(stall), 0);
	glClear(GL_COLOR_BUFFER_BIT); /* behind the stall */
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	glDeleteFramebuffers(1, &fbo);
	/* queued behind the stall too */
	ck_assert(test_gl_upload(tex, fmt, w, h, p.a));
	t0 = test_now();
	ck_ok(glcuda_handoff_to_cuda(g.dev, &img, 1, stream));
	t1 = test_now();
	gpu_check_and_fill(&g, img, p.da, 0, p.dcount, stream);
	ck_assert_int_eq(CU(cuStreamQuery)(stall_stream), CUDA_ERROR_NOT_READY);
	printf("%s: glcuda_handoff_to_cuda returned in %.0f us with GL stalled "
	       "on the GPU\n",
	       egl ? "EGLImage" : "GL texture", (t1 - t0) * 1e6);
	*gate = 1;
	__sync_synchronize();
	ck_cu(CU(cuStreamSynchronize)(stream));
	ck_cu(CU(cuMemcpyDtoH)(count, p.dcount, 8));
	ck_assert_msg(count[0] == 0,
		      "CUDA read %u pixels GL had not written yet", count[0]);

	/* CUDA -> GL with the stream gated. */
	*gate = 0;
	__sync_synchronize();
	ck_cu(CU(cuLaunchKernel)(g.spin_gate, 1, 1, 1, 1, 1, 1, 0, stream, args,
				 NULL));
	gpu_check_and_fill(&g, img, 0, p.db, p.dcount, stream);
	t0 = test_now();
	ck_ok(glcuda_handoff_to_gl(g.dev, &img, 1, stream));
	t1 = test_now();
	ck_assert_int_eq(CU(cuStreamQuery)(stream), CUDA_ERROR_NOT_READY);
	printf("%s: glcuda_handoff_to_gl returned in %.0f us with the stream "
	       "gated\n",
	       egl ? "EGLImage" : "GL texture", (t1 - t0) * 1e6);
	*gate = 1;
	__sync_synchronize();
	ck_assert(test_gl_readback(tex, fmt, w, h, p.got));
	ck_assert_msg(test_first_mismatch(p.b, p.got, fmt, w, h) < 0,
		      "GL read a pixel CUDA had not written yet");

	ck_cu(CU(cuCtxSynchronize)());
	glcuda_image_destroy(img);
	glcuda_image_destroy(stall);
	if (egl)
		eglDestroyImage(glcuda_headless_get_display(g.hl), eimg);
	glDeleteTextures(1, &tex);
	CU(cuStreamDestroy)(stream);
	CU(cuStreamDestroy)(stall_stream);
	CU(cuMemFreeHost)((void *)gate);
	gpu_patterns_fini(&p);
	gpu_teardown(&g);
}
END_TEST

/* A shared image, a wrapped texture and a wrapped EGLImage in one hand-off
 * each way. */
START_TEST(mixed_handoff)
{
	const struct format_info *fmt = format_info(GLCUDA_FORMAT_RGBA8);
	struct glcuda_image *img[3];
	GLuint tex[3];
	struct gpu_patterns p;
	uint32_t count[2];
	CUstream stream;
	EGLImage eimg;
	struct gpu g;

	gpu_setup(&g, false, GLCUDA_SYNC_TIMELINE);
	ck_cu(CU(cuStreamCreate)(&stream, CU_STREAM_NON_BLOCKING));
	ck_ok(test_image_new(g.dev, W, H, fmt->format, 0, &img[0]));
	tex[0] = glcuda_image_get_gl_texture(img[0]);
	tex[1] = make_texture(GL_RGBA8, W, H);
	ck_ok(glcuda_image_wrap_gl_texture(g.dev, tex[1], GL_TEXTURE_2D, 0,
					   &img[1]));
	tex[2] = make_texture(GL_RGBA8, W, H);
	eimg = make_egl_image(&g, tex[2]);
	ck_ok(glcuda_image_wrap_egl_image(g.dev, eimg, 0, &img[2]));
	gpu_patterns_init(&p, fmt, W, H, 40);
	for (int i = 0; i < 3; i++)
		ck_assert(test_gl_upload(tex[i], fmt, W, H, p.a));
	ck_ok(glcuda_handoff_to_cuda(g.dev, img, 3, stream));
	/* Every image now CUDA's: a second hand-off is a state error. */
	ck_assert_int_eq(glcuda_handoff_to_cuda(g.dev, &img[1], 1, stream),
			 GLCUDA_ERROR_BAD_STATE);
	for (int i = 0; i < 3; i++)
		gpu_check_and_fill(&g, img[i], p.da, p.db, p.dcount, stream);
	ck_ok(glcuda_handoff_to_gl(g.dev, img, 3, stream));
	ck_assert_int_eq(glcuda_handoff_to_gl(g.dev, &img[2], 1, stream),
			 GLCUDA_ERROR_BAD_STATE);
	for (int i = 0; i < 3; i++) {
		ck_assert(test_gl_readback(tex[i], fmt, W, H, p.got));
		ck_assert_msg(test_first_mismatch(p.b, p.got, fmt, W, H) < 0,
			      "image %d wrong", i);
	}
	ck_cu(CU(cuStreamSynchronize)(stream));
	ck_cu(CU(cuMemcpyDtoH)(count, p.dcount, 8));
	ck_assert_uint_eq(count[0], 0);
	printf("shared + wrapped texture + wrapped EGLImage: one hand-off each "
	       "way, exact\n");
	for (int i = 0; i < 3; i++)
		glcuda_image_destroy(img[i]);
	eglDestroyImage(glcuda_headless_get_display(g.hl), eimg);
	glDeleteTextures(2, &tex[1]);
	CU(cuStreamDestroy)(stream);
	gpu_patterns_fini(&p);
	gpu_teardown(&g);
}
END_TEST

/* 1000 wrap/unwrap cycles of each kind, every tenth with a hand-off both
 * ways: fds, GL names and CUDA memory end where they started. */
START_TEST(wrap_cycles_no_leak)
{
	size_t free0 = 0, free1;
	struct gl_names names0, names1;
	CUstream stream;
	GLuint tex;
	EGLImage eimg;
	int fds0;
	struct gpu g;

	gpu_setup(&g, false, GLCUDA_SYNC_TIMELINE);
	ck_cu(CU(cuStreamCreate)(&stream, CU_STREAM_NON_BLOCKING));
	tex = make_texture(GL_RGBA8, 256, 256);
	eimg = make_egl_image(&g, tex);
	ck_assert_ptr_ne(eimg, EGL_NO_IMAGE);
	for (int warm = 0; warm < 2; warm++) {
		struct glcuda_image *img;
		ck_ok(glcuda_image_wrap_gl_texture(g.dev, tex, GL_TEXTURE_2D, 0,
						   &img));
		ck_ok(glcuda_handoff_to_cuda(g.dev, &img, 1, stream));
		ck_ok(glcuda_handoff_to_gl(g.dev, &img, 1, stream));
		glcuda_image_destroy(img);
		ck_ok(glcuda_image_wrap_egl_image(g.dev, eimg, 0, &img));
		ck_ok(glcuda_handoff_to_cuda(g.dev, &img, 1, stream));
		ck_ok(glcuda_handoff_to_gl(g.dev, &img, 1, stream));
		glcuda_image_destroy(img);
	}
	ck_cu(CU(cuCtxSynchronize)());
	fds0 = test_count_fds();
	test_count_gl_names(&names0, 4096);
	for (int i = 0; i < 1000; i++) {
		struct glcuda_image *img[2];
		ck_ok(glcuda_image_wrap_gl_texture(g.dev, tex, GL_TEXTURE_2D, 0,
						   &img[0]));
		ck_ok(glcuda_image_wrap_egl_image(g.dev, eimg, 0, &img[1]));
		if (i % 10 == 0) {
			/* Both views of one texture: one at a time. */
			for (int k = 0; k < 2; k++) {
				ck_ok(glcuda_handoff_to_cuda(g.dev, &img[k], 1,
							     stream));
				ck_ok(glcuda_handoff_to_gl(g.dev, &img[k], 1,
							   stream));
			}
		}
		glcuda_image_destroy(img[1]);
		glcuda_image_destroy(img[0]);
		/* The driver grows internal pools on first use (64 KiB seen
		 * after the first hand-offs): the baseline is taken once
		 * every kind of call has run a hundred times. */
		if (i == 99)
			free0 = gpu_free_memory();
	}
	free1 = gpu_free_memory();
	test_count_gl_names(&names1, 4096);
	ck_assert_int_eq(test_count_fds(), fds0);
	ck_assert_gl_names_eq(&names0, &names1);
	ck_assert_msg(free1 == free0 || !gpu_free_memory_exact(),
		      "CUDA free memory %zu after 100 cycles -> %zu after 1000",
		      free0, free1);
	printf("1000 wrap/unwrap cycles of a texture and an EGLImage: fds %d, "
	       "CUDA free %zu MiB, GL names unchanged\n",
	       fds0, free1 >> 20);
	eglDestroyImage(glcuda_headless_get_display(g.hl), eimg);
	glDeleteTextures(1, &tex);
	CU(cuStreamDestroy)(stream);
	gpu_teardown(&g);
}
END_TEST

/* Neither path copies: wrapping a 64 MiB texture and handing it to CUDA
 * takes no device memory of its size (a driver-side copy would). GL fills
 * each texture first: drivers may allocate a texture's storage only when
 * it is first used, and that is not the wrap's doing. */
static void
clear_texture(GLuint tex)
{
	GLuint fbo;

	glGenFramebuffers(1, &fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, tex, 0);
	glClearColor(0.25f, 0.5f, 0.75f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	glDeleteFramebuffers(1, &fbo);
}

START_TEST(no_copy)
{
	const uint32_t side = 4096; /* RGBA8: 64 MiB */
	const size_t slack = (size_t)8 << 20;
	struct glcuda_image *img;
	size_t free0, free1, total;
	EGLImage eimg = EGL_NO_IMAGE;
	CUstream stream;
	GLuint tex;
	struct gpu g;

	gpu_setup(&g, false, GLCUDA_SYNC_TIMELINE);
	ck_cu(CU(cuStreamCreate)(&stream, CU_STREAM_NON_BLOCKING));
	for (int egl = 0; egl < 2; egl++) {
		tex = make_texture(GL_RGBA8, side, side);
		clear_texture(tex);
		if (egl) {
			eimg = make_egl_image(&g, tex);
			ck_assert_ptr_ne(eimg, EGL_NO_IMAGE);
		}
		glFinish();
		ck_cu(CU(cuCtxSynchronize)());
		ck_cu(CU(cuMemGetInfo)(&free0, &total));
		if (egl)
			ck_ok(glcuda_image_wrap_egl_image(g.dev, eimg, 0,
							  &img));
		else
			ck_ok(glcuda_image_wrap_gl_texture(g.dev, tex,
							   GL_TEXTURE_2D, 0,
							   &img));
		ck_ok(glcuda_handoff_to_cuda(g.dev, &img, 1, stream));
		ck_cu(CU(cuStreamSynchronize)(stream));
		ck_cu(CU(cuMemGetInfo)(&free1, &total));
		printf("%s: a 4096x4096 RGBA8 image (64 MiB) wrapped and "
		       "handed to CUDA: device memory used %+.1f MiB\n",
		       egl ? "EGLImage" : "GL texture",
		       ((double)free0 - (double)free1) / 1048576.0);
		ck_assert_msg(free1 + slack >= free0,
			      "%s: wrapping took %zu bytes: a copy?",
			      egl ? "EGLImage" : "GL texture", free0 - free1);
		ck_ok(glcuda_handoff_to_gl(g.dev, &img, 1, stream));
		glcuda_image_destroy(img);
		if (egl)
			eglDestroyImage(glcuda_headless_get_display(g.hl),
					eimg);
		glDeleteTextures(1, &tex);
	}
	CU(cuStreamDestroy)(stream);
	gpu_teardown(&g);
}
END_TEST

/* Clear errors for what cannot be wrapped. */
START_TEST(bad_input)
{
	struct glcuda_image *img = NULL;
	struct glcuda_headless *other;
	struct glcuda_cuda_plane plane;
	GLuint tex, gone, foreign = 0, bare;
	struct gpu g;

	gpu_setup(&g, false, GLCUDA_SYNC_TIMELINE);
	tex = make_texture(GL_RGBA8, 32, 32);

	gone = make_texture(GL_RGBA8, 32, 32);
	glDeleteTextures(1, &gone);
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(g.dev, gone,
						      GL_TEXTURE_2D, 0, &img),
			 -EINVAL);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(),
		       "not a texture of the current GL context"));
	ck_assert_ptr_null(img);

	glGenTextures(1, &bare);
	glBindTexture(GL_TEXTURE_2D, bare);
	glBindTexture(GL_TEXTURE_2D, 0);
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(g.dev, bare,
						      GL_TEXTURE_2D, 0, &img),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "no storage"));
	glDeleteTextures(1, &bare);

	ck_assert_int_eq(glcuda_image_wrap_gl_texture(g.dev, tex,
						      GL_TEXTURE_RECTANGLE, 0,
						      &img),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(),
				     "not a GL_TEXTURE_RECTANGLE texture"));

	/* A texture of a context that shares nothing with the device's. */
	ck_assert_int_eq(glcuda_headless_new(0, 0, &other), 0);
	for (int i = 0; i < 64; i++) {
		GLuint t = make_texture(GL_RGBA8, 8, 8);
		if (foreign)
			glDeleteTextures(1, &foreign);
		foreign = t;
	}
	/* With the other context current: not the device's context. */
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(g.dev, foreign,
						      GL_TEXTURE_2D, 0, &img),
			 GLCUDA_ERROR_NO_CURRENT_CONTEXT);
	ck_assert_int_eq(glcuda_headless_make_current(g.hl), 0);
	ck_assert(!glIsTexture(foreign));
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(g.dev, foreign,
						      GL_TEXTURE_2D, 0, &img),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "share objects"));

	ck_assert_int_eq(glcuda_image_wrap_gl_texture(g.dev, 0, GL_TEXTURE_2D,
						      0, &img),
			 -EINVAL);
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(g.dev, tex, GL_TEXTURE_3D,
						      0, &img),
			 -EINVAL);
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(g.dev, tex, GL_TEXTURE_2D,
						      1u << 20, &img),
			 -EINVAL);
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(
				 g.dev, tex, GL_TEXTURE_2D,
				 GLCUDA_WRAP_FLAG_READ_ONLY |
					 GLCUDA_WRAP_FLAG_WRITE_DISCARD,
				 &img),
			 -EINVAL);
	ck_assert_int_eq(glcuda_image_wrap_egl_image(g.dev, EGL_NO_IMAGE, 0,
						     &img),
			 -EINVAL);

	/* Refused formats: a CUDA error that names the call and the code. */
	GLuint packed = make_texture(GL_RGB10_A2, 8, 8);
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(g.dev, packed,
						      GL_TEXTURE_2D, 0, &img),
			 GLCUDA_ERROR_CUDA);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "CUDA_ERROR_INVALID_VALUE"));
	glDeleteTextures(1, &packed);

	/* READ_ONLY: a texture object, no surface; handed back by the
	 * state machine like any image. */
	ck_ok(glcuda_image_wrap_gl_texture(g.dev, tex, GL_TEXTURE_2D,
					   GLCUDA_WRAP_FLAG_READ_ONLY, &img));
	glcuda_cuda_plane_init(&plane);
	ck_ok(glcuda_image_get_cuda_plane(img, 0, &plane));
	ck_assert_uint_eq(plane.surface, 0);
	ck_assert_uint_ne(plane.texture, 0);
	ck_assert_ptr_nonnull(plane.array);
	ck_assert_int_eq(plane.format, CU_AD_FORMAT_UNSIGNED_INT8);
	ck_assert_uint_eq(plane.channels, 4);
	ck_assert_int_eq(glcuda_image_get_cuda_plane(img, 1, &plane), -EINVAL);
	ck_assert_int_eq(glcuda_handoff_to_gl(g.dev, &img, 1, NULL),
			 GLCUDA_ERROR_BAD_STATE);
	ck_ok(glcuda_handoff_to_cuda(g.dev, &img, 1, NULL));
	ck_ok(glcuda_handoff_to_gl(g.dev, &img, 1, NULL));
	glcuda_image_destroy(img);

	/* Destroyed while handed to CUDA: unmapped and unregistered. */
	ck_ok(glcuda_image_wrap_gl_texture(g.dev, tex, GL_TEXTURE_2D, 0, &img));
	ck_ok(glcuda_handoff_to_cuda(g.dev, &img, 1, NULL));
	glcuda_image_destroy(img);
	ck_ok(glcuda_image_wrap_gl_texture(g.dev, tex, GL_TEXTURE_2D, 0, &img));
	glcuda_image_destroy(img);

	glDeleteTextures(1, &tex);
	glcuda_headless_destroy(other);
	ck_assert_int_eq(glcuda_headless_make_current(g.hl), 0);
	gpu_teardown(&g);
}
END_TEST

int
main(void)
{
	const struct test_case cases[] = {
		TEST_TCASE("wrap", 300),
		TEST_LOOP(gl_texture_formats, 6),
		TEST_LOOP(egl_image_formats, 6),
		TEST_LOOP(no_cpu_blocking, 2),
		TEST_ONCE(mixed_handoff),
		TEST_ONCE(wrap_cycles_no_leak),
		TEST_ONCE(no_copy),
		TEST_ONCE(bad_input),
	};

	gpu_require_cuda();
	test_require_egl();
	return test_run_cases("wrap", cases);
}
