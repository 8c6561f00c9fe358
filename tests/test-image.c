/*
 * Shared images without CUDA: the Vulkan exporter and the GL importer for
 * every format, checked through the other API's view of the same memory;
 * GL state hygiene, leaks, bad input. Runs on Mesa (CI) and NVIDIA.
 * SPDX-License-Identifier: MIT
 */
#include "test-common.h"
#include "image.h"
#include "vk-copy.h"
#include <glcuda/glcuda-cuda.h>
#include <glcuda/glcuda-diag.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct glcuda_headless *hl;
static struct glcuda_device *dev;

static void
setup(bool gles)
{
	int ret;

	hl = test_headless(gles);
	ret = device_new_internal(glcuda_headless_get_display(hl),
				  glcuda_headless_get_context(hl), NULL, false,
				  &dev);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
}

static void
teardown(void)
{
	glcuda_device_destroy(dev);
	glcuda_headless_destroy(hl);
	dev = NULL;
	hl = NULL;
}

/* GLES accepts fewer glReadPixels format/type pairs than desktop GL: a
 * 16-bit normalised colour buffer reads as RGBA/UNSIGNED_SHORT, not as RG
 * (Mesa refuses RG16 read as GL_RG). Read RGBA with the format's component
 * type and keep the channels the format has. Formats of equal,
 * byte-aligned components only. */
static bool
gl_readback_rgba(GLuint tex, const struct format_info *fmt, uint32_t w,
		 uint32_t h, void *out)
{
	size_t csize = fmt->bytes_per_pixel / fmt->cu_channels,
	       npix = (size_t)w * h;
	uint8_t *rgba;
	struct gl_saved_state saved;
	GLuint fbo;
	GLenum err;

	if (fmt->gl_type != GL_UNSIGNED_BYTE &&
	    fmt->gl_type != GL_UNSIGNED_SHORT &&
	    fmt->gl_type != GL_HALF_FLOAT && fmt->gl_type != GL_FLOAT)
		return false;
	rgba = malloc(npix * 4 * csize);
	ck_assert_ptr_nonnull(rgba);
	gl_take_error();
	gl_save_state(&saved);
	glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
	glPixelStorei(GL_PACK_ALIGNMENT, 1);
	glPixelStorei(GL_PACK_ROW_LENGTH, 0);
	glGenFramebuffers(1, &fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, tex, 0);
	glReadPixels(0, 0, (GLsizei)w, (GLsizei)h, GL_RGBA, fmt->gl_type, rgba);
	glDeleteFramebuffers(1, &fbo);
	gl_restore_state(&saved);
	err = gl_take_error();
	if (err == GL_NO_ERROR)
		for (size_t i = 0; i < npix; i++)
			memcpy((uint8_t *)out + i * fmt->bytes_per_pixel,
			       rgba + i * 4 * csize, fmt->bytes_per_pixel);
	else
		fprintf(stderr, "readback(%s) as RGBA: %s\n", fmt->name,
			gl_error_name(err));
	free(rgba);
	return err == GL_NO_ERROR;
}

/* GL writes -> Vulkan reads the same memory; Vulkan writes -> GL reads.
 * Every one of glcuda's formats, on every driver it supports: Mesa 22.3
 * (llvmpipe + lavapipe, CI) and NVIDIA export and import all ten, so a
 * format that is not exportable, refused or inexact fails. */
static void
roundtrip(bool gles)
{
	const uint32_t w = 67, h = 45; /* odd sizes catch row-pitch mistakes */
	int tested = 0;

	setup(gles);
	for (int f = 1; f < GLCUDA_FORMAT_COUNT; f++) {
		const struct format_info *fmt =
			format_info((enum glcuda_format)f);
		size_t size = (size_t)w * h * fmt->bytes_per_pixel;
		uint8_t *a = malloc(size), *b = malloc(size),
			*got = malloc(size);
		struct glcuda_image *img = NULL;
		long bad;
		int ret;

		ck_assert_msg(glcuda_device_get_caps(dev)->formats_supported &
				      (1u << f),
			      "%s %s: not exportable here",
			      gles ? "GLES" : "GL", fmt->name);
		ret = test_image_new(dev, w, h, fmt->format, 0, &img);
		ck_assert_msg(ret == 0, "%s %s: %s: %s", gles ? "GLES" : "GL",
			      fmt->name, glcuda_error_get_name(ret),
			      glcuda_get_last_error());
		ck_assert_uint_ne(glcuda_image_get_gl_texture(img), 0);
		ck_assert_uint_eq(glcuda_image_get_width(img), w);
		ck_assert_uint_eq(glcuda_image_get_format(img), fmt->format);

		test_fill_pattern(fmt, w, h, 1, a);
		test_fill_pattern(fmt, w, h, 2, b);
		ck_assert_msg(test_gl_upload(img->texture, fmt, w, h, a),
			      "%s %s: GL upload", gles ? "GLES" : "GL",
			      fmt->name);
		glFinish();
		ck_assert_int_eq(vk_image_read(dev->vk, &img->vk, fmt, got,
					       size),
				 0);
		bad = test_first_mismatch(a, got, fmt, w, h);
		ck_assert_msg(bad < 0,
			      "%s: GL write, Vulkan read: pixel %ld differs",
			      fmt->name, bad);

		ck_assert_int_eq(vk_image_write(dev->vk, &img->vk, fmt, b,
						size),
				 0);
		/* GLES 3 cannot read depth back (no glReadPixels of
		 * GL_DEPTH_COMPONENT): GL's write and Vulkan's read above
		 * are what it checks of depth. */
		if (gles && fmt->is_depth)
			memcpy(got, b, size);
		else
			ck_assert_msg(test_gl_readback(img->texture, fmt, w, h,
						       got) ||
					      gl_readback_rgba(img->texture,
							       fmt, w, h, got),
				      "%s %s: GL cannot read the image back",
				      gles ? "GLES" : "GL", fmt->name);
		bad = test_first_mismatch(b, got, fmt, w, h);
		ck_assert_msg(bad < 0,
			      "%s: Vulkan write, GL read: pixel %ld differs",
			      fmt->name, bad);
		glcuda_image_destroy(img);
		tested++;
		printf("%s %s: GL->Vulkan and Vulkan->GL exact\n",
		       gles ? "GLES" : "GL", fmt->name);
		free(a);
		free(b);
		free(got);
	}
	ck_assert_int_eq(tested, GLCUDA_FORMAT_COUNT - 1);
	teardown();
}

START_TEST(formats_gl)
{
	roundtrip(false);
}
END_TEST

START_TEST(formats_gles)
{
	roundtrip(true);
}
END_TEST

/* The image can be rendered to and sampled: an FBO with it is complete. */
START_TEST(render_target)
{
	struct glcuda_image *img = NULL;
	GLuint fbo;
	uint8_t px[4];

	setup(false);
	ck_assert_int_eq(test_image_new(dev, 16, 16, GLCUDA_FORMAT_RGBA8, 0,
					&img),
			 0);
	glGenFramebuffers(1, &fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, glcuda_image_get_gl_texture(img),
			       0);
	ck_assert_int_eq(glCheckFramebufferStatus(GL_FRAMEBUFFER),
			 GL_FRAMEBUFFER_COMPLETE);
	glClearColor(1.0f, 0.0f, 1.0f, 0.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glReadPixels(3, 5, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
	ck_assert_int_eq(px[0], 255);
	ck_assert_int_eq(px[1], 0);
	ck_assert_int_eq(px[2], 255);
	ck_assert_int_eq(px[3], 0);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	glDeleteFramebuffers(1, &fbo);
	glcuda_image_destroy(img);
	teardown();
}
END_TEST

START_TEST(gl_state_restored)
{
	struct glcuda_image *img = NULL;
	GLuint tex, fbo, pbo;
	GLint v;

	setup(false);
	glGenTextures(1, &tex);
	glActiveTexture(GL_TEXTURE5);
	glBindTexture(GL_TEXTURE_2D, tex);
	glGenFramebuffers(1, &fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, fbo);
	glGenBuffers(1, &pbo);
	glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 2);

	ck_assert_int_eq(test_image_new(dev, 32, 32, GLCUDA_FORMAT_RGBA8, 0,
					&img),
			 0);
	glcuda_image_destroy(img);

	glGetIntegerv(GL_ACTIVE_TEXTURE, &v);
	ck_assert_int_eq(v, GL_TEXTURE5);
	glGetIntegerv(GL_TEXTURE_BINDING_2D, &v);
	ck_assert_int_eq(v, (GLint)tex);
	glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &v);
	ck_assert_int_eq(v, (GLint)fbo);
	glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &v);
	ck_assert_int_eq(v, (GLint)pbo);
	glGetIntegerv(GL_UNPACK_ALIGNMENT, &v);
	ck_assert_int_eq(v, 2);
	ck_assert_ptr_eq(eglGetCurrentContext(),
			 glcuda_headless_get_context(hl));

	glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
	glDeleteBuffers(1, &pbo);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	glDeleteFramebuffers(1, &fbo);
	glDeleteTextures(1, &tex);
	teardown();
}
END_TEST

START_TEST(no_leaks)
{
	static const enum glcuda_format mix[] = {
		GLCUDA_FORMAT_RGBA8, GLCUDA_FORMAT_R8, GLCUDA_FORMAT_RGBA16F,
		GLCUDA_FORMAT_RG8, GLCUDA_FORMAT_R32F, GLCUDA_FORMAT_RGBA32F,
	};
	struct gl_names before, after;
	int fds;

	setup(false);
	/* Warm the drivers up first: their own first-use allocations are not
	 * leaks. */
	for (int i = 0; i < 2; i++) {
		struct glcuda_image *img = NULL;
		ck_assert_int_eq(test_image_new(dev, 64, 64,
						GLCUDA_FORMAT_RGBA8, 0, &img),
				 0);
		glcuda_image_destroy(img);
	}
	fds = test_count_fds();
	test_count_gl_names(&before, 2048);
	for (int i = 0; i < 300; i++) {
		struct glcuda_image *img = NULL;
		enum glcuda_format f = mix[i % ARRAY_LENGTH(mix)];
		uint32_t w = 16 + (uint32_t)(i * 37) % 500,
			 h = 8 + (uint32_t)(i * 53) % 300;
		ck_assert_int_eq(test_image_new(dev, w, h, f, 0, &img), 0);
		glcuda_image_destroy(img);
	}
	ck_assert_int_eq(test_count_fds(), fds);
	test_count_gl_names(&after, 2048);
	ck_assert_gl_names_eq(&before, &after);
	ck_assert_uint_eq(dev->live_images, 0);
	teardown();
}
END_TEST

START_TEST(bad_input)
{
	struct glcuda_image *img = (void *)0x1;
	uint32_t max;
	int fds;

	setup(false);
	max = glcuda_device_get_caps(dev)->max_image_size;
	fds = test_count_fds();
	ck_assert_int_eq(test_image_new(NULL, 4, 4, GLCUDA_FORMAT_RGBA8, 0,
					&img),
			 -EINVAL);
	ck_assert_int_eq(test_image_new(dev, 4, 4, GLCUDA_FORMAT_RGBA8, 0,
					NULL),
			 -EINVAL);
	ck_assert_int_eq(test_image_new(dev, 0, 4, GLCUDA_FORMAT_RGBA8, 0,
					&img),
			 -EINVAL);
	ck_assert_int_eq(test_image_new(dev, 4, 0, GLCUDA_FORMAT_RGBA8, 0,
					&img),
			 -EINVAL);
	ck_assert_int_eq(test_image_new(dev, max + 1, 4, GLCUDA_FORMAT_RGBA8, 0,
					&img),
			 -EINVAL);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "GL_MAX_TEXTURE_SIZE"));
	ck_assert_int_eq(test_image_new(dev, 4, 4, (enum glcuda_format)99, 0,
					&img),
			 -EINVAL);
	ck_assert_int_eq(test_image_new(dev, 4, 4, GLCUDA_FORMAT_INVALID, 0,
					&img),
			 -EINVAL);
	ck_assert_int_eq(test_image_new(dev, 4, 4, GLCUDA_FORMAT_RGBA8,
					1u << 30, &img),
			 -EINVAL);
	ck_assert_ptr_eq(img, (void *)0x1);
	ck_assert_str_ne(glcuda_device_get_last_error(dev), "");

	/* Without the context current. */
	ck_assert(eglMakeCurrent(glcuda_headless_get_display(hl),
				 EGL_NO_SURFACE, EGL_NO_SURFACE,
				 EGL_NO_CONTEXT));
	ck_assert_int_eq(test_image_new(dev, 4, 4, GLCUDA_FORMAT_RGBA8, 0,
					&img),
			 GLCUDA_ERROR_NO_CURRENT_CONTEXT);
	ck_assert_ptr_eq(eglGetCurrentContext(), EGL_NO_CONTEXT);
	ck_assert_int_eq(glcuda_headless_make_current(hl), 0);
	ck_assert_int_eq(test_count_fds(), fds);

	glcuda_image_destroy(NULL);
	ck_assert_uint_eq(glcuda_image_get_gl_texture(NULL), 0);
	ck_assert_int_eq(glcuda_format_get_bytes_per_pixel(
				 GLCUDA_FORMAT_RGBA16F),
			 8);
	ck_assert_str_eq(glcuda_format_get_name(GLCUDA_FORMAT_RG16), "RG16");
	ck_assert_str_eq(glcuda_format_get_name((enum glcuda_format)42),
			 "INVALID");
	teardown();
}
END_TEST

/* struct glcuda_image_desc follows the size rule of the other structs the
 * caller allocates: 0, too large and a size ending inside a member fail;
 * the size of an older, shorter struct works with defaults for the rest. */
START_TEST(image_desc_size)
{
	struct glcuda_image *img = (void *)0x1;
	struct glcuda_image_desc desc;

	setup(false);
	ck_assert_int_eq(glcuda_image_new(dev, NULL, &img), -EINVAL);
	glcuda_image_desc_init(&desc);
	ck_assert_uint_eq(desc.size, sizeof(desc));
	desc.width = desc.height = 4;
	desc.format = GLCUDA_FORMAT_RGBA8;

	desc.size = 0;
	ck_assert_int_eq(glcuda_image_new(dev, &desc, &img), -EINVAL);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "glcuda_image_desc.size is 0"));
	desc.size = sizeof(desc) + 8;
	ck_assert_int_eq(glcuda_image_new(dev, &desc, &img), -EINVAL);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "newer glcuda"));
	desc.size = offsetof(struct glcuda_image_desc, height) + 2;
	ck_assert_int_eq(glcuda_image_new(dev, &desc, &img), -EINVAL);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "ends inside a member"));
	ck_assert_ptr_eq(img, (void *)0x1);

	/* A struct without flags: the flags take their default, so garbage
	 * past the size is not read. */
	desc.size = offsetof(struct glcuda_image_desc, flags);
	desc.flags = 0xdeadbeef;
	ck_assert_int_eq(glcuda_image_new(dev, &desc, &img), 0);
	ck_assert_uint_eq(glcuda_image_get_width(img), 4);
	glcuda_image_destroy(img);
	teardown();
}
END_TEST

/* User data: NULL when made, kept, never touched; NULL objects are no-ops. */
START_TEST(user_data)
{
	struct glcuda_image *img = NULL;
	int a, b;

	setup(false);
	ck_assert_ptr_null(glcuda_device_get_user_data(dev));
	glcuda_device_set_user_data(dev, &a);
	ck_assert_ptr_eq(glcuda_device_get_user_data(dev), &a);
	ck_assert_int_eq(test_image_new(dev, 4, 4, GLCUDA_FORMAT_RGBA8, 0,
					&img),
			 0);
	ck_assert_ptr_null(glcuda_image_get_user_data(img));
	glcuda_image_set_user_data(img, &b);
	ck_assert_ptr_eq(glcuda_image_get_user_data(img), &b);
	ck_assert_ptr_eq(glcuda_device_get_user_data(dev), &a);
	glcuda_image_set_user_data(NULL, &b);
	glcuda_device_set_user_data(NULL, &a);
	ck_assert_ptr_null(glcuda_image_get_user_data(NULL));
	ck_assert_ptr_null(glcuda_device_get_user_data(NULL));
	glcuda_image_destroy(img);
	teardown();
}
END_TEST

/* The per-value queries agree with the caps' masks where those reach, and
 * answer 0 past them instead of shifting out of range. */
START_TEST(has_queries)
{
	const struct glcuda_caps *caps;

	setup(false);
	caps = glcuda_device_get_caps(dev);
	for (int f = 0; f < GLCUDA_FORMAT_COUNT; f++) {
		enum glcuda_format format = (enum glcuda_format)f;

		ck_assert_int_eq(glcuda_device_has_format(dev, format),
				 !!(caps->formats_supported & (1u << f)));
	}
	ck_assert_int_eq(glcuda_device_has_format(dev, GLCUDA_FORMAT_RGBA8), 1);
	ck_assert_int_eq(glcuda_device_has_format(dev, GLCUDA_FORMAT_INVALID),
			 0);
	ck_assert_int_eq(glcuda_device_has_format(dev, (enum glcuda_format)32),
			 0);
	ck_assert_int_eq(glcuda_device_has_format(dev,
						  (enum glcuda_format)1000),
			 0);
	ck_assert_int_eq(glcuda_device_has_format(dev,
						  (enum glcuda_format) - 1),
			 0);
	ck_assert_int_eq(glcuda_device_has_format(NULL, GLCUDA_FORMAT_RGBA8),
			 0);

	ck_assert_int_eq(glcuda_device_has_sync_mode(dev, caps->sync_mode), 1);
	ck_assert_int_eq(glcuda_device_has_sync_mode(dev, GLCUDA_SYNC_CPU), 1);
	ck_assert_int_eq(glcuda_device_has_sync_mode(dev, GLCUDA_SYNC_AUTO), 0);
	for (int m = GLCUDA_SYNC_TIMELINE; m <= GLCUDA_SYNC_CPU; m++)
		ck_assert_int_eq(glcuda_device_has_sync_mode(
					 dev, (enum glcuda_sync_mode)m),
				 !!(caps->sync_modes_supported & (1u << m)));
	ck_assert_int_eq(glcuda_device_has_sync_mode(dev,
						     (enum glcuda_sync_mode)40),
			 0);

	ck_assert_int_eq(glcuda_device_has_image_kind(dev,
						      GLCUDA_IMAGE_KIND_SHARED),
			 1);
	for (int k = GLCUDA_IMAGE_KIND_SHARED; k <= GLCUDA_IMAGE_KIND_EGL_IMAGE;
	     k++) {
		ck_assert_int_eq(glcuda_device_has_image_kind(
					 dev, (enum glcuda_image_kind)k),
				 !!(caps->image_kinds_supported & (1u << k)));
		ck_assert_int_eq(glcuda_device_image_kind_waits_on_cpu(
					 dev, (enum glcuda_image_kind)k),
				 !!(caps->image_kinds_cpu_wait & (1u << k)));
	}
	ck_assert_int_eq(
		glcuda_device_has_image_kind(dev, (enum glcuda_image_kind)33),
		0);
	ck_assert_int_eq(glcuda_device_has_image_kind(NULL,
						      GLCUDA_IMAGE_KIND_SHARED),
			 0);
	ck_assert_int_eq(glcuda_device_image_kind_waits_on_cpu(
				 NULL, GLCUDA_IMAGE_KIND_SHARED),
			 0);
	teardown();
}
END_TEST

static void GLCUDA_PRINTF(3, 0)
	count_errors(enum glcuda_log_priority priority, void *user_data,
		     const char *format, va_list args)
{
	(void)format;
	(void)args;
	if (priority >= GLCUDA_LOG_PRIORITY_ERROR)
		++*(int *)user_data;
}

/* Destroying a device with a live image is refused: logged, the last
 * error says so, and the device and image stay usable; once the image is
 * gone the device is destroyed. */
START_TEST(destroy_with_children)
{
	struct glcuda_image *img = NULL, *img2 = NULL;
	int errors = 0;

	setup(false);
	glcuda_device_set_log_handler(dev, count_errors, &errors);
	glcuda_device_set_user_data(dev, &errors);
	ck_assert_int_eq(test_image_new(dev, 4, 4, GLCUDA_FORMAT_RGBA8, 0,
					&img),
			 0);

	glcuda_device_destroy(dev);
	ck_assert_int_eq(errors, 1);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "1 images and 0 rings"));
	ck_assert_ptr_nonnull(
		strstr(glcuda_device_get_last_error(dev), "not destroyed"));
	/* Still the device, still usable. */
	ck_assert_ptr_eq(glcuda_device_get_user_data(dev), &errors);
	ck_assert_ptr_eq(glcuda_image_get_device(img), dev);
	ck_assert_int_eq(test_image_new(dev, 4, 4, GLCUDA_FORMAT_R8, 0, &img2),
			 0);
	glcuda_image_destroy(img2);
	glcuda_image_destroy(img);

	/* An unwind after a failure: the destroy calls keep its message. */
	ck_assert_int_eq(test_image_new(dev, 0, 4, GLCUDA_FORMAT_RGBA8, 0,
					&img2),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "0x4"));
	glcuda_image_destroy(NULL);
	/* Now it goes, without complaint (LeakSanitizer and valgrind see
	 * that it is freed). */
	glcuda_device_destroy(dev);
	ck_assert_int_eq(errors, 2);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "0x4"));
	dev = NULL;
	teardown();
}
END_TEST

/* The diagnosis lists: the total count whatever max (like snprintf), at
 * most max elements written, the elements' size checked, failures in the
 * thread's last error. */
START_TEST(diag_lists)
{
	struct glcuda_diag_egl_device egl[2];
	struct glcuda_diag_vk_device vk[2];
	struct glcuda_diag_cuda_device cu[2];
	int n, n0, ret;

	/* EGL (Mesa lists its devices; the NVIDIA driver too). */
	n0 = glcuda_diag_list_egl_devices(NULL, 0);
	ck_assert_int_ge(n0, 1);
	memset(egl, 0xa5, sizeof(egl));
	glcuda_diag_egl_device_init(&egl[0]);
	n = glcuda_diag_list_egl_devices(egl, 1);
	ck_assert_int_eq(n, n0);
	ck_assert_uint_eq(egl[0].size, sizeof(egl[0]));
	ck_assert_int_ge(egl[0].cuda_device, -1);
	/* Only max elements written. */
	ck_assert_uint_eq(((unsigned char *)&egl[1])[0], 0xa5);
	ck_assert_uint_eq(((unsigned char *)&egl[1])[sizeof(egl[1]) - 1], 0xa5);
	egl[0].size = 0;
	ck_assert_int_eq(glcuda_diag_list_egl_devices(egl, 1), -EINVAL);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(),
				     "glcuda_diag_egl_device.size is 0"));
	ck_assert_int_eq(glcuda_diag_list_egl_devices(NULL, 1), -EINVAL);

	/* An older, shorter element: its size is the stride, and nothing
	 * past max of them is written. */
	{
		size_t small =
			offsetof(struct glcuda_diag_egl_device, drm_device);
		unsigned char buf[2 * sizeof(struct glcuda_diag_egl_device)];

		memset(buf, 0xa5, sizeof(buf));
		memcpy(buf, &small, sizeof(small));
		ck_assert_int_eq(glcuda_diag_list_egl_devices((void *)buf, 1),
				 n0);
		ck_assert_uint_eq(buf[small], 0xa5);
		ck_assert_uint_eq(buf[sizeof(buf) - 1], 0xa5);
	}

	/* Vulkan (lavapipe on CI). */
	n0 = glcuda_diag_list_vk_devices(NULL, 0);
	ck_assert_msg(n0 >= 1, "%d: %s", n0, glcuda_get_last_error());
	memset(vk, 0xa5, sizeof(vk));
	glcuda_diag_vk_device_init(&vk[0]);
	ck_assert_int_eq(glcuda_diag_list_vk_devices(vk, 1), n0);
	ck_assert_uint_eq(vk[0].size, sizeof(vk[0]));
	ck_assert_str_ne(vk[0].name, "");
	ck_assert_uint_eq(((unsigned char *)&vk[1])[0], 0xa5);
	vk[0].size = sizeof(vk[0]) + 1;
	ck_assert_int_eq(glcuda_diag_list_vk_devices(vk, 1), -EINVAL);

	/* CUDA: a count, or the reason in the thread's last error. */
	memset(cu, 0xa5, sizeof(cu));
	glcuda_diag_cuda_device_init(&cu[0]);
	ret = glcuda_diag_list_cuda_devices(NULL, cu, 1);
	if (ret < 0) {
		ck_assert_msg(ret == GLCUDA_ERROR_NO_CUDA_DRIVER ||
				      ret == GLCUDA_ERROR_CUDA,
			      "%s", glcuda_error_get_name(ret));
		ck_assert_str_ne(glcuda_get_last_error(), "");
	} else {
		ck_assert_int_eq(glcuda_diag_list_cuda_devices(NULL, NULL, 0),
				 ret);
		if (ret > 0)
			ck_assert_uint_eq(cu[0].size, sizeof(cu[0]));
	}
	ck_assert_uint_eq(((unsigned char *)&cu[1])[0], 0xa5);
	cu[0].size = 0;
	ck_assert_int_eq(glcuda_diag_list_cuda_devices(NULL, cu, 1), -EINVAL);
}
END_TEST

/* Without CUDA, the hand-off and ring calls say so instead of crashing. */
START_TEST(needs_cuda)
{
	struct glcuda_image *img = NULL;
	struct glcuda_ring *ring = NULL;
	struct glcuda_ring_desc desc = { .size = sizeof(desc),
					 .width = 64,
					 .height = 64,
					 .input_format = GLCUDA_FORMAT_RGBA8 };

	setup(false);
	ck_assert_int_eq(test_image_new(dev, 8, 8, GLCUDA_FORMAT_RGBA8, 0,
					&img),
			 0);
	ck_assert_int_eq(glcuda_handoff_to_cuda(dev, &img, 1, NULL),
			 GLCUDA_ERROR_NO_CUDA_DRIVER);
	/* Still owned by GL: handing it back is a state error. */
	ck_assert_int_eq(glcuda_handoff_to_gl(dev, &img, 1, NULL),
			 GLCUDA_ERROR_BAD_STATE);
	ck_assert_int_eq(glcuda_handoff_to_cuda(dev, NULL, 1, NULL), -EINVAL);
	ck_assert_int_eq(glcuda_handoff_to_cuda(dev, &img, 0, NULL), -EINVAL);
	ck_assert_int_eq(glcuda_handoff_to_cuda(NULL, &img, 1, NULL), -EINVAL);
	ck_assert_int_eq(glcuda_ring_new(dev, &desc, &ring),
			 GLCUDA_ERROR_NO_CUDA_DRIVER);
	ck_assert_ptr_null(ring);
	desc.slots = 7;
	ck_assert_int_eq(glcuda_ring_new(dev, &desc, &ring), -EINVAL);
	ck_assert_ptr_null(glcuda_device_get_cuda_context(dev));
	glcuda_image_destroy(img);
	teardown();
}
END_TEST

/* Wrapping textures and EGLImages: the checks that need no CUDA, then the
 * no-CUDA error itself. Nothing leaks, and the texture binding is restored. */
START_TEST(wrap_without_cuda)
{
	struct glcuda_image *img = NULL, *shared = NULL;
	struct glcuda_cuda_plane plane;
	struct glcuda_headless *other;
	struct gl_names names0, names1;
	GLuint tex, gone, bare, marker, foreign = 0;
	EGLImage eimg;
	GLint bound;
	int fds0;

	setup(false);
	fds0 = test_count_fds();
	test_count_gl_names(&names0, 4096);
	glGenTextures(1, &tex);
	glBindTexture(GL_TEXTURE_2D, tex);
	glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, 16, 16);
	glGenTextures(1, &marker);
	glBindTexture(GL_TEXTURE_2D, marker);

	ck_assert_int_eq(glcuda_image_wrap_gl_texture(NULL, tex, GL_TEXTURE_2D,
						      0, &img),
			 -EINVAL);
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(dev, tex, GL_TEXTURE_2D,
						      0, NULL),
			 -EINVAL);
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(dev, 0, GL_TEXTURE_2D, 0,
						      &img),
			 -EINVAL);
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(dev, tex, GL_TEXTURE_3D,
						      0, &img),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "target"));
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(dev, tex, GL_TEXTURE_2D,
						      1u << 20, &img),
			 -EINVAL);
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(
				 dev, tex, GL_TEXTURE_2D,
				 GLCUDA_WRAP_FLAG_READ_ONLY |
					 GLCUDA_WRAP_FLAG_WRITE_DISCARD,
				 &img),
			 -EINVAL);
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(dev, tex,
						      GL_TEXTURE_RECTANGLE, 0,
						      &img),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(),
				     "not a GL_TEXTURE_RECTANGLE texture"));

	glGenTextures(1, &gone);
	glBindTexture(GL_TEXTURE_2D, gone);
	glDeleteTextures(1, &gone);
	glBindTexture(GL_TEXTURE_2D, marker);
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(dev, gone, GL_TEXTURE_2D,
						      0, &img),
			 -EINVAL);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(),
		       "not a texture of the current GL context"));

	glGenTextures(1, &bare);
	glBindTexture(GL_TEXTURE_2D, bare);
	glBindTexture(GL_TEXTURE_2D, marker);
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(dev, bare, GL_TEXTURE_2D,
						      0, &img),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "no storage"));
	glDeleteTextures(1, &bare);

	/* A texture of another context that shares nothing with this one. */
	ck_assert_int_eq(glcuda_headless_new(-1, 0, &other), 0);
	for (int i = 0; i < 64; i++) {
		GLuint t;
		glGenTextures(1, &t);
		glBindTexture(GL_TEXTURE_2D, t);
		if (foreign)
			glDeleteTextures(1, &foreign);
		foreign = t;
	}
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(dev, foreign,
						      GL_TEXTURE_2D, 0, &img),
			 GLCUDA_ERROR_NO_CURRENT_CONTEXT);
	ck_assert_int_eq(glcuda_headless_make_current(hl), 0);
	if (!glIsTexture(foreign)) {
		ck_assert_int_eq(glcuda_image_wrap_gl_texture(dev, foreign,
							      GL_TEXTURE_2D, 0,
							      &img),
				 -EINVAL);
		ck_assert_ptr_nonnull(
			strstr(glcuda_get_last_error(), "share objects"));
	} else {
		/* Some drivers hand out names from one pool for all contexts
		 * of a display: the name then means a texture here too. */
		printf("texture %u of the other context is a texture of this "
		       "one too\n",
		       foreign);
	}
	glcuda_headless_destroy(other);
	ck_assert_int_eq(glcuda_headless_make_current(hl), 0);

	/* A good texture: the one thing missing is CUDA, as the caps say. */
	ck_assert_uint_eq(glcuda_device_get_caps(dev)->image_kinds_supported,
			  1u << GLCUDA_IMAGE_KIND_SHARED);
	ck_assert_int_eq(glcuda_image_wrap_gl_texture(dev, tex, GL_TEXTURE_2D,
						      0, &img),
			 GLCUDA_ERROR_NO_CUDA_DRIVER);
	ck_assert_ptr_null(img);
	glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
	ck_assert_int_eq(bound, (GLint)marker);

	ck_assert_int_eq(glcuda_image_wrap_egl_image(dev, EGL_NO_IMAGE, 0,
						     &img),
			 -EINVAL);
	eimg = eglCreateImage(glcuda_headless_get_display(hl),
			      glcuda_headless_get_context(hl),
			      EGL_GL_TEXTURE_2D,
			      (EGLClientBuffer)(uintptr_t)tex, NULL);
	if (eimg != EGL_NO_IMAGE) {
		ck_assert_int_eq(glcuda_image_wrap_egl_image(dev, eimg, 0,
							     &img),
				 GLCUDA_ERROR_NO_CUDA_DRIVER);
		eglDestroyImage(glcuda_headless_get_display(hl), eimg);
	}

	/* A shared image describes its one plane. */
	ck_assert_int_eq(test_image_new(dev, 8, 4, GLCUDA_FORMAT_RG16, 0,
					&shared),
			 0);
	ck_assert_int_eq(glcuda_image_get_kind(shared),
			 GLCUDA_IMAGE_KIND_SHARED);
	ck_assert_uint_eq(glcuda_image_get_plane_count(shared), 1);
	glcuda_cuda_plane_init(&plane);
	ck_assert_int_eq(glcuda_image_get_cuda_plane(shared, 0, &plane), 0);
	ck_assert_uint_eq(plane.size, sizeof(plane));
	ck_assert_uint_eq(plane.width, 8);
	ck_assert_uint_eq(plane.height, 4);
	ck_assert_int_eq(plane.format, CU_AD_FORMAT_UNSIGNED_INT16);
	ck_assert_uint_eq(plane.channels, 2);
	ck_assert_int_eq(glcuda_image_get_cuda_plane(shared, 1, &plane),
			 -EINVAL);
	/* A caller built when the struct ended before format: the members
	 * past its size are not written. */
	memset(&plane, 0xa5, sizeof(plane));
	plane.size = offsetof(struct glcuda_cuda_plane, format);
	ck_assert_int_eq(glcuda_image_get_cuda_plane(shared, 0, &plane), 0);
	ck_assert_uint_eq(plane.size,
			  offsetof(struct glcuda_cuda_plane, format));
	ck_assert_uint_eq(plane.width, 8);
	ck_assert_uint_eq(plane.height, 4);
	ck_assert_uint_eq(plane.channels, 0xa5a5a5a5u);
	/* Sizes that are no version of the struct: not set, newer than this
	 * glcuda, inside a member. Nothing is written. */
	{
		const size_t bad[] = {
			0, sizeof(plane) + 8,
			offsetof(struct glcuda_cuda_plane, width) + 2, 3
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			memset(&plane, 0xa5, sizeof(plane));
			plane.size = bad[i];
			ck_assert_int_eq(glcuda_image_get_cuda_plane(shared, 0,
								     &plane),
					 -EINVAL);
			ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(),
						     "glcuda_cuda_plane.size"));
			ck_assert_uint_eq(plane.width, 0xa5a5a5a5u);
		}
	}
	glcuda_cuda_plane_init(&plane);
	ck_assert_int_eq(glcuda_image_get_cuda_plane(NULL, 0, &plane), -EINVAL);
	ck_assert_uint_eq(glcuda_image_get_plane_count(NULL), 0);
	glcuda_image_destroy(shared);

	glBindTexture(GL_TEXTURE_2D, 0);
	glDeleteTextures(1, &tex);
	glDeleteTextures(1, &marker);
	test_count_gl_names(&names1, 4096);
	ck_assert_gl_names_eq(&names0, &names1);
	ck_assert_int_eq(test_count_fds(), fds0);
	teardown();
}
END_TEST

int
main(void)
{
	const struct test_case cases[] = {
		TEST_TCASE("formats", 300),
		TEST_ONCE(formats_gl),
		TEST_ONCE(formats_gles),
		TEST_ONCE(render_target),
		TEST_TCASE("hygiene", 300),
		TEST_ONCE(gl_state_restored),
		TEST_ONCE(no_leaks),
		TEST_ONCE(bad_input),
		TEST_ONCE(needs_cuda),
		TEST_ONCE(wrap_without_cuda),
		TEST_TCASE("api", 300),
		TEST_ONCE(image_desc_size),
		TEST_ONCE(user_data),
		TEST_ONCE(has_queries),
		TEST_ONCE(destroy_with_children),
		TEST_ONCE(diag_lists),
	};

	test_require_egl();
	return test_run_cases("image", cases);
}
