/*
 * Device binding: bad input, context checks, the missing-CUDA path (CI) and
 * the full binding with UUIDs across GL, Vulkan and CUDA (GPU machine).
 * SPDX-License-Identifier: MIT
 */
#include "test-common.h"
#include "vk/vk-exporter.h"
#include <glcuda/glcuda-cuda.h>
#include <glcuda/glcuda-diag.h>

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct log_counts {
	int debug, info, error;
	char last[512];
};

static void
count_log(enum glcuda_log_priority prio, void *user_data, const char *fmt,
	  va_list args)
{
	struct log_counts *c = user_data;

	if (prio == GLCUDA_LOG_PRIORITY_DEBUG)
		c->debug++;
	else if (prio == GLCUDA_LOG_PRIORITY_INFO)
		c->info++;
	else if (prio == GLCUDA_LOG_PRIORITY_ERROR)
		c->error++;
	vsnprintf(c->last, sizeof(c->last), fmt, args);
}

START_TEST(null_arguments)
{
	struct glcuda_headless *hl = test_headless(false);
	EGLDisplay dpy = glcuda_headless_get_display(hl);
	EGLContext ctx = glcuda_headless_get_context(hl);
	struct glcuda_device *dev = (void *)0x1;

	ck_assert_int_eq(glcuda_device_new(EGL_NO_DISPLAY, ctx, NULL, &dev),
			 -EINVAL);
	ck_assert_ptr_eq(dev, (void *)0x1); /* untouched on failure */
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "display"));
	ck_assert_int_eq(glcuda_device_new(dpy, EGL_NO_CONTEXT, NULL, &dev),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "context"));
	ck_assert_int_eq(glcuda_device_new(dpy, ctx, NULL, NULL), -EINVAL);
	glcuda_device_destroy(NULL); /* no-op */
	glcuda_headless_destroy(hl);
}
END_TEST

/* stderr goes to a file between the two calls; stderr_end returns how many
 * bytes were written to it meanwhile. */
static int
stderr_begin(void)
{
	char path[] = "/tmp/glcuda-stderr.XXXXXX";
	int fd = mkstemp(path), saved;

	ck_assert_int_ge(fd, 0);
	unlink(path);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_eq(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	close(fd);
	return saved;
}

static long
stderr_end(int saved)
{
	struct stat st;

	fflush(stderr);
	ck_assert_int_eq(fstat(STDERR_FILENO, &st), 0);
	ck_assert_int_eq(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	return (long)st.st_size;
}

/* The process-wide handler gets what happens before a device exists, and
 * the messages of devices without a handler; a device's handler wins. */
START_TEST(global_log_handler)
{
	struct glcuda_headless *hl = test_headless(false);
	EGLDisplay dpy = glcuda_headless_get_display(hl);
	EGLContext ctx = glcuda_headless_get_context(hl);
	struct glcuda_device *dev = NULL;
	struct log_counts global = { 0 }, own = { 0 };
	struct glcuda_device_options opts = {
		.size = sizeof(opts),
		.log_func = count_log,
		.log_user_data = &own,
	};
	int saved;

	unsetenv("GLCUDA_LOG");
	ck_assert_int_eq(glcuda_get_log_priority(), GLCUDA_LOG_PRIORITY_ERROR);

	/* Without a handler, an early failure goes to stderr. */
	saved = stderr_begin();
	ck_assert_int_eq(glcuda_device_new(EGL_NO_DISPLAY, ctx, NULL, &dev),
			 -EINVAL);
	ck_assert_int_gt(stderr_end(saved), 0);

	/* With one, to the handler only. */
	glcuda_set_log_handler(count_log, &global);
	saved = stderr_begin();
	ck_assert_int_eq(glcuda_device_new(EGL_NO_DISPLAY, ctx, NULL, &dev),
			 -EINVAL);
	ck_assert_int_eq(glcuda_device_new(dpy, ctx, NULL, NULL), -EINVAL);
	ck_assert_int_eq(stderr_end(saved), 0);
	ck_assert_int_eq(global.error, 2);
	ck_assert_ptr_nonnull(strstr(global.last, "EINVAL"));
	ck_assert_ptr_null(dev);

	/* A device without a handler of its own fails through the global one
	 * (its context is not current: the device exists by then). */
	ck_assert(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE,
				 EGL_NO_CONTEXT));
	memset(&global, 0, sizeof(global));
	saved = stderr_begin();
	ck_assert_int_eq(glcuda_device_new(dpy, ctx, NULL, &dev),
			 GLCUDA_ERROR_NO_CURRENT_CONTEXT);
	ck_assert_int_eq(stderr_end(saved), 0);
	ck_assert_int_eq(global.error, 1);
	ck_assert_ptr_nonnull(
		strstr(global.last, "GLCUDA_ERROR_NO_CURRENT_CONTEXT"));

	/* A device's own handler wins. */
	memset(&global, 0, sizeof(global));
	ck_assert_int_eq(glcuda_device_new(dpy, ctx, &opts, &dev),
			 GLCUDA_ERROR_NO_CURRENT_CONTEXT);
	ck_assert_int_eq(global.error, 0);
	ck_assert_int_eq(own.error, 1);

	/* The priority filters messages without a device. */
	glcuda_set_log_priority(GLCUDA_LOG_PRIORITY_ERROR + 1);
	ck_assert_int_eq(glcuda_get_log_priority(),
			 GLCUDA_LOG_PRIORITY_ERROR + 1);
	ck_assert_int_eq(glcuda_device_new(EGL_NO_DISPLAY, ctx, NULL, &dev),
			 -EINVAL);
	ck_assert_int_eq(global.error, 0);
	/* still recorded */
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "display"));
	glcuda_set_log_priority(0);
	ck_assert_int_eq(glcuda_get_log_priority(), GLCUDA_LOG_PRIORITY_ERROR);
	setenv("GLCUDA_LOG", "debug", 1);
	ck_assert_int_eq(glcuda_get_log_priority(), GLCUDA_LOG_PRIORITY_DEBUG);
	unsetenv("GLCUDA_LOG");

	/* NULL puts stderr back. */
	glcuda_set_log_handler(NULL, NULL);
	saved = stderr_begin();
	ck_assert_int_eq(glcuda_device_new(EGL_NO_DISPLAY, ctx, NULL, &dev),
			 -EINVAL);
	ck_assert_int_gt(stderr_end(saved), 0);
	ck_assert_int_eq(global.error, 0);

	ck_assert(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx));
	glcuda_headless_destroy(hl);
}
END_TEST

/* options.size: older sizes work, with the members past them at their
 * defaults; sizes that are no version of the struct fail. The context is
 * not current, so every call that gets past the options fails with
 * GLCUDA_ERROR_NO_CURRENT_CONTEXT, logged through the handler in use. */
START_TEST(options_size)
{
	struct glcuda_headless *hl = test_headless(false);
	EGLDisplay dpy = glcuda_headless_get_display(hl);
	EGLContext ctx = glcuda_headless_get_context(hl);
	struct glcuda_device *dev = (void *)0x1;
	struct log_counts global = { 0 }, own = { 0 };
	struct glcuda_device_options opts;
	const size_t bad[] = {
		0,                                     /* not set */
		sizeof(opts) + sizeof(void *),         /* a newer glcuda's */
		/* inside */
		offsetof(struct glcuda_device_options, cuda_context) + 4,
		sizeof(size_t),                        /* nothing but size */
	};

	glcuda_device_options_init(&opts);
	ck_assert_uint_eq(opts.size, sizeof(opts));
	ck_assert_int_eq(opts.sync_mode, GLCUDA_SYNC_AUTO);
	ck_assert_ptr_null(opts.log_func);
	glcuda_set_log_handler(count_log, &global);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		opts.size = bad[i];
		ck_assert_int_eq(glcuda_device_new(dpy, ctx, &opts, &dev),
				 -EINVAL);
		ck_assert_ptr_eq(dev, (void *)0x1);
		ck_assert_msg(strstr(glcuda_get_last_error(),
				     "glcuda_device_options.size"),
			      "size %zu: %s", bad[i], glcuda_get_last_error());
	}
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "sizeof"));

	ck_assert(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE,
				 EGL_NO_CONTEXT));
	opts.log_func = count_log;
	opts.log_user_data = &own;
	/* The current size, and an older one that has the handler: it is
	 * used. */
	opts.size = sizeof(opts);
	ck_assert_int_eq(glcuda_device_new(dpy, ctx, &opts, &dev),
			 GLCUDA_ERROR_NO_CURRENT_CONTEXT);
	opts.size = offsetof(struct glcuda_device_options, log_priority);
	ck_assert_int_eq(glcuda_device_new(dpy, ctx, &opts, &dev),
			 GLCUDA_ERROR_NO_CURRENT_CONTEXT);
	ck_assert_int_eq(own.error, 2);
	/* A caller built before log_func existed: the handler it cannot have
	 * set is not read, the default (the global handler) is used. */
	memset(&global, 0, sizeof(global));
	opts.size = offsetof(struct glcuda_device_options, log_func);
	ck_assert_int_eq(glcuda_device_new(dpy, ctx, &opts, &dev),
			 GLCUDA_ERROR_NO_CURRENT_CONTEXT);
	ck_assert_int_eq(own.error, 2);
	ck_assert_int_eq(global.error, 1);
	ck_assert_ptr_eq(dev, (void *)0x1);

	glcuda_set_log_handler(NULL, NULL);
	ck_assert(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx));
	glcuda_headless_destroy(hl);
}
END_TEST

START_TEST(context_not_current)
{
	struct glcuda_headless *hl = test_headless(false);
	EGLDisplay dpy = glcuda_headless_get_display(hl);
	EGLContext ctx = glcuda_headless_get_context(hl);
	struct glcuda_device *dev = NULL;

	ck_assert(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE,
				 EGL_NO_CONTEXT));
	ck_assert_int_eq(glcuda_device_new(dpy, ctx, NULL, &dev),
			 GLCUDA_ERROR_NO_CURRENT_CONTEXT);
	ck_assert_ptr_null(dev);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "eglMakeCurrent"));
	/* glcuda never makes a context current itself. */
	ck_assert_ptr_eq(eglGetCurrentContext(), EGL_NO_CONTEXT);
	glcuda_headless_destroy(hl);
}
END_TEST

static EGLContext
make_context(EGLDisplay dpy, EGLenum api, int major, int minor)
{
	EGLint attribs[] = {
		EGL_CONTEXT_MAJOR_VERSION,
		major,
		EGL_CONTEXT_MINOR_VERSION,
		minor,
		api == EGL_OPENGL_API ? EGL_CONTEXT_OPENGL_PROFILE_MASK
				      : EGL_NONE,
		EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
		EGL_NONE,
	};
	eglBindAPI(api);
	return eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT,
				attribs);
}

START_TEST(gl_too_old)
{
	struct glcuda_headless *hl = test_headless(false);
	EGLDisplay dpy = glcuda_headless_get_display(hl);
	struct glcuda_device *dev = NULL;
	EGLContext old = make_context(dpy, EGL_OPENGL_API, 3, 3);

	ck_assert_ptr_ne(old, EGL_NO_CONTEXT);
	ck_assert(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, old));
	if (epoxy_gl_version() >= 45) {
		/* Some drivers hand out a newer context for a 3.3 request. */
		printf("GL 3.3 request returned %d: GL_TOO_OLD not testable "
		       "here\n",
		       epoxy_gl_version());
	} else {
		ck_assert_int_eq(glcuda_device_new(dpy, old, NULL, &dev),
				 GLCUDA_ERROR_GL_TOO_OLD);
		ck_assert_ptr_null(dev);
		ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "4.5"));
	}
	ck_assert(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE,
				 EGL_NO_CONTEXT));
	eglDestroyContext(dpy, old);
	eglBindAPI(EGL_OPENGL_API);
	glcuda_headless_destroy(hl);
}
END_TEST

START_TEST(gles2_context)
{
	struct glcuda_headless *hl = test_headless(true);
	EGLDisplay dpy = glcuda_headless_get_display(hl);
	struct glcuda_device *dev = NULL;
	EGLContext es2 = make_context(dpy, EGL_OPENGL_ES_API, 2, 0);

	ck_assert_ptr_ne(es2, EGL_NO_CONTEXT);
	ck_assert(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, es2));
	if (epoxy_gl_version() >= 30) {
		/* Mesa and NVIDIA return ES 3.x for an ES 2.0 request. */
		printf("ES 2.0 request returned ES %d.%d: nothing to reject\n",
		       epoxy_gl_version() / 10, epoxy_gl_version() % 10);
	} else {
		ck_assert_int_eq(glcuda_device_new(dpy, es2, NULL, &dev),
				 GLCUDA_ERROR_GL_TOO_OLD);
	}
	ck_assert(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE,
				 EGL_NO_CONTEXT));
	eglDestroyContext(dpy, es2);
	eglBindAPI(EGL_OPENGL_API);
	glcuda_headless_destroy(hl);
}
END_TEST

/* GL state glcuda must leave alone. */
struct some_gl_state {
	GLint tex, fbo, active, align;
};

static void
set_unusual_gl_state(struct some_gl_state *s, GLuint *tex, GLuint *fbo)
{
	glGenTextures(1, tex);
	glActiveTexture(GL_TEXTURE3);
	glBindTexture(GL_TEXTURE_2D, *tex);
	glGenFramebuffers(1, fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 2);
	glGetIntegerv(GL_TEXTURE_BINDING_2D, &s->tex);
	glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &s->fbo);
	glGetIntegerv(GL_ACTIVE_TEXTURE, &s->active);
	glGetIntegerv(GL_UNPACK_ALIGNMENT, &s->align);
}

static void
check_gl_state(const struct some_gl_state *s)
{
	struct some_gl_state now;
	glGetIntegerv(GL_TEXTURE_BINDING_2D, &now.tex);
	glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &now.fbo);
	glGetIntegerv(GL_ACTIVE_TEXTURE, &now.active);
	glGetIntegerv(GL_UNPACK_ALIGNMENT, &now.align);
	ck_assert_int_eq(now.tex, s->tex);
	ck_assert_int_eq(now.fbo, s->fbo);
	ck_assert_int_eq(now.active, s->active);
	ck_assert_int_eq(now.align, s->align);
}

/* Without a CUDA driver: the documented error, nothing leaked, state kept. */
static void
no_cuda_driver(bool gles)
{
	struct glcuda_headless *hl = test_headless(gles);
	struct glcuda_device *dev = NULL;
	struct gl_names before, after;
	struct some_gl_state state;
	struct log_counts logs = { 0 };
	struct glcuda_device_options opts = {
		.size = sizeof(opts),
		.log_func = count_log,
		.log_user_data = &logs,
		.log_priority = GLCUDA_LOG_PRIORITY_DEBUG,
	};
	GLuint tex, fbo;
	int fds;

	if (test_have_cuda()) {
		glcuda_headless_destroy(hl);
		return; /* covered by the GPU tests */
	}
	unsetenv("GLCUDA_LOG");
	set_unusual_gl_state(&state, &tex, &fbo);
	fds = test_count_fds();
	test_count_gl_names(&before, 256);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(glcuda_device_new(glcuda_headless_get_display(
							   hl),
						   glcuda_headless_get_context(
							   hl),
						   &opts, &dev),
				 GLCUDA_ERROR_NO_CUDA_DRIVER);
		ck_assert_ptr_null(dev);
	}
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "libcuda.so.1"));
	ck_assert_str_eq(glcuda_error_get_name(GLCUDA_ERROR_NO_CUDA_DRIVER),
			 "GLCUDA_ERROR_NO_CUDA_DRIVER");
	/* The debug line about the GL context, and the error. */
	ck_assert_int_ge(logs.debug, 3);
	ck_assert_int_eq(logs.error, 3);
	ck_assert_ptr_nonnull(strstr(logs.last, "GLCUDA_ERROR_NO_CUDA_DRIVER"));
	ck_assert_int_eq(test_count_fds(), fds);
	test_count_gl_names(&after, 256);
	ck_assert_gl_names_eq(&before, &after);
	check_gl_state(&state);
	ck_assert_ptr_eq(eglGetCurrentContext(),
			 glcuda_headless_get_context(hl));

	/* Raising the threshold keeps debug lines out. */
	memset(&logs, 0, sizeof(logs));
	opts.log_priority = GLCUDA_LOG_PRIORITY_ERROR;
	glcuda_device_new(glcuda_headless_get_display(hl),
			  glcuda_headless_get_context(hl), &opts, &dev);
	ck_assert_int_eq(logs.debug, 0);
	ck_assert_int_eq(logs.info, 0);
	ck_assert_int_eq(logs.error, 1);
	/* GLCUDA_LOG=debug raises it again. */
	memset(&logs, 0, sizeof(logs));
	setenv("GLCUDA_LOG", "debug", 1);
	glcuda_device_new(glcuda_headless_get_display(hl),
			  glcuda_headless_get_context(hl), &opts, &dev);
	unsetenv("GLCUDA_LOG");
	ck_assert_int_ge(logs.debug, 1);

	glDeleteTextures(1, &tex);
	glDeleteFramebuffers(1, &fbo);
	glcuda_headless_destroy(hl);
}

START_TEST(no_cuda_driver_gl)
{
	no_cuda_driver(false);
}
END_TEST

START_TEST(no_cuda_driver_gles)
{
	no_cuda_driver(true);
}
END_TEST

/* The GL + Vulkan half of the binding works without CUDA (internal). */
START_TEST(gl_vulkan_binding)
{
	struct glcuda_headless *hl = test_headless(_i == 1);
	struct glcuda_device *dev = NULL;
	const struct glcuda_caps *caps;
	int ret;

	ret = device_new_internal(glcuda_headless_get_display(hl),
				  glcuda_headless_get_context(hl), NULL, false,
				  &dev);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	caps = glcuda_device_get_caps(dev);
	ck_assert_int_eq(caps->gl_api,
			 _i == 1 ? GLCUDA_GL_API_GLES : GLCUDA_GL_API_GL);
	ck_assert_int_ge(caps->gl_major * 10 + caps->gl_minor,
			 _i == 1 ? 30 : 45);
	ck_assert(memcmp(caps->device_uuid,
			 vk_exporter_info(dev->vk)->device_uuid, 16) == 0);
	ck_assert(memcmp(caps->driver_uuid,
			 vk_exporter_info(dev->vk)->driver_uuid, 16) == 0);
	ck_assert_str_eq(caps->vulkan_device_name,
			 vk_exporter_info(dev->vk)->name);
	ck_assert_uint_ne(caps->formats_supported & (1u << GLCUDA_FORMAT_RGBA8),
			  0);
	ck_assert_uint_gt(caps->max_image_size, 1024);
	ck_assert_uint_ne(caps->sync_modes_supported & (1u << GLCUDA_SYNC_CPU),
			  0);
	if (!dev->gl.has_semaphore_fd)
		ck_assert_int_eq(caps->sync_mode, GLCUDA_SYNC_CPU);
	glcuda_device_destroy(dev);
	glcuda_headless_destroy(hl);
}
END_TEST

/* A UUID that equals `uuid` but in byte i: the comparisons must read all
 * 16 bytes, the second half as much as the first. */
static void
uuid_flip(uint8_t out[16], const uint8_t uuid[16], int i)
{
	memcpy(out, uuid, 16);
	out[i] ^= 0x5a;
}

/* The Vulkan side of the binding: the physical device is matched by GL's
 * device UUID, its driver UUID compared with GL's. A UUID that differs in
 * any one byte, the last 8 included, matches no device (lavapipe on CI,
 * the GPU on the GPU machine). Internal: vk_exporter_new with the UUIDs
 * the test chooses. */
START_TEST(vulkan_uuid_every_byte)
{
	struct glcuda_headless *hl = test_headless(false);
	struct glcuda_device *dev = NULL;
	struct error_sink sink = { .log_priority = GLCUDA_LOG_PRIORITY_ERROR };
	uint8_t device_uuid[16], driver_uuid[16], other[16];
	struct vk_exporter *vk;
	int ret;

	ret = device_new_internal(glcuda_headless_get_display(hl),
				  glcuda_headless_get_context(hl), NULL, false,
				  &dev);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	memcpy(device_uuid, glcuda_device_get_caps(dev)->device_uuid, 16);
	memcpy(driver_uuid, glcuda_device_get_caps(dev)->driver_uuid, 16);
	glcuda_device_destroy(dev);

	/* The UUIDs GL gave: found. */
	vk = NULL;
	ret = vk_exporter_new(&sink, device_uuid, driver_uuid, false, &vk);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      sink.last_error);
	vk_exporter_destroy(vk);
	for (int i = 0; i < 16; i++) {
		vk = NULL;
		sink.last_error[0] = '\0';
		uuid_flip(other, device_uuid, i);
		ret = vk_exporter_new(&sink, other, driver_uuid, false, &vk);
		ck_assert_msg(ret == GLCUDA_ERROR_NO_MATCHING_VULKAN_DEVICE,
			      "device UUID differing in byte %d: %s (%s)", i,
			      glcuda_error_get_name(ret), sink.last_error);
		ck_assert_ptr_null(vk);
		uuid_flip(other, driver_uuid, i);
		sink.last_error[0] = '\0';
		ret = vk_exporter_new(&sink, device_uuid, other, false, &vk);
		ck_assert_msg(ret == GLCUDA_ERROR_DRIVER_MISMATCH,
			      "driver UUID differing in byte %d: %s (%s)", i,
			      glcuda_error_get_name(ret), sink.last_error);
		ck_assert_ptr_null(vk);
	}
	glcuda_headless_destroy(hl);
}
END_TEST

/* The fake CUDA driver (tests/fake-cuda), found as its suites find it
 * (GLCUDA_FAKE_CUDA_LIB, or where make check builds it), or NULL. */
static const char *
fake_cuda_lib(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("GLCUDA_FAKE_CUDA_LIB");

	if (env && realpath(env, path))
		return path;
	if (realpath("tests/fake-cuda/.libs/libfakecuda.so", path))
		return path;
	return NULL;
}

/* GLCUDA_FAKE_CUDA_UUID: the fake device's UUID, read at each
 * cuDeviceGetUuid. */
static void
fake_cuda_uuid(const uint8_t uuid[16])
{
	char hex[33];

	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", uuid[i]);
	setenv("GLCUDA_FAKE_CUDA_UUID", hex, 1);
}

/* The CUDA side of the binding, on the fake driver: glcuda_device_new binds
 * the CUDA device whose UUID is GL's, all 16 bytes of it; a CUDA device
 * that differs in any one byte, the last 8 included, is no match, whether
 * glcuda looks for the device or checks the caller's options.cuda_context. */
START_TEST(cuda_uuid_every_byte)
{
	struct glcuda_headless *hl = test_headless(false);
	EGLDisplay dpy = glcuda_headless_get_display(hl);
	EGLContext ctx = glcuda_headless_get_context(hl);
	struct glcuda_device *dev = NULL, *other_dev = (void *)0x1;
	struct glcuda_device_options opts;
	const char *lib = fake_cuda_lib();
	uint8_t gl_uuid[16], other[16];
	int ret;

	ck_assert_msg(lib, "the fake CUDA driver "
			   "tests/fake-cuda/.libs/libfakecuda.so was not found "
			   "(set GLCUDA_FAKE_CUDA_LIB)");
	setenv("GLCUDA_LIBCUDA", lib, 1);
	glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, gl_uuid);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);

	for (int i = 0; i < 16; i++) {
		uuid_flip(other, gl_uuid, i);
		fake_cuda_uuid(other);
		ret = glcuda_device_new(dpy, ctx, NULL, &other_dev);
		ck_assert_msg(ret == GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE,
			      "CUDA UUID differing in byte %d: %s (%s)", i,
			      glcuda_error_get_name(ret),
			      glcuda_get_last_error());
		ck_assert_ptr_eq(other_dev, (void *)0x1);
	}

	/* A context of the fake while its UUID is GL's ... */
	fake_cuda_uuid(gl_uuid);
	ret = glcuda_device_new(dpy, ctx, NULL, &dev);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	glcuda_device_options_init(&opts);
	opts.cuda_context = glcuda_device_get_cuda_context(dev);
	ret = glcuda_device_new(dpy, ctx, &opts, &other_dev);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	glcuda_device_destroy(other_dev);
	other_dev = (void *)0x1;
	/* ... is no longer one of GL's device once its UUID differs. */
	for (int i = 0; i < 16; i++) {
		uuid_flip(other, gl_uuid, i);
		fake_cuda_uuid(other);
		ret = glcuda_device_new(dpy, ctx, &opts, &other_dev);
		ck_assert_msg(ret == GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE,
			      "options.cuda_context on a CUDA device whose "
			      "UUID differs in byte %d: %s (%s)",
			      i, glcuda_error_get_name(ret),
			      glcuda_get_last_error());
		ck_assert_ptr_eq(other_dev, (void *)0x1);
	}
	glcuda_device_destroy(dev);
	unsetenv("GLCUDA_FAKE_CUDA_UUID");
	unsetenv("GLCUDA_LIBCUDA");
	glcuda_headless_destroy(hl);
}
END_TEST

/* A member of a caller-allocated struct: where it starts, how long it is. */
struct member {
	const char *name;
	size_t offset, size;
};
#define MEMBER(type, m) { #m, offsetof(type, m), sizeof(((type *)0)->m) }

/* Every member after `size`, in order: the last must end the struct, so a
 * member appended to the header and not here fails the test. */
static const struct member device_options_members[] = {
	MEMBER(struct glcuda_device_options, sync_mode),
	MEMBER(struct glcuda_device_options, cuda_context),
	MEMBER(struct glcuda_device_options, log_func),
	MEMBER(struct glcuda_device_options, log_user_data),
	MEMBER(struct glcuda_device_options, log_priority),
	MEMBER(struct glcuda_device_options, flags),
};
static const struct member ring_desc_members[] = {
	MEMBER(struct glcuda_ring_desc, width),
	MEMBER(struct glcuda_ring_desc, height),
	MEMBER(struct glcuda_ring_desc, slots),
	MEMBER(struct glcuda_ring_desc, input_format),
	MEMBER(struct glcuda_ring_desc, output_format),
	MEMBER(struct glcuda_ring_desc, flags),
	MEMBER(struct glcuda_ring_desc, cuda_stream),
};
static const struct member cuda_plane_members[] = {
	MEMBER(struct glcuda_cuda_plane, array),
	MEMBER(struct glcuda_cuda_plane, surface),
	MEMBER(struct glcuda_cuda_plane, texture),
	MEMBER(struct glcuda_cuda_plane, pointer),
	MEMBER(struct glcuda_cuda_plane, pitch),
	MEMBER(struct glcuda_cuda_plane, width),
	MEMBER(struct glcuda_cuda_plane, height),
	MEMBER(struct glcuda_cuda_plane, format),
	MEMBER(struct glcuda_cuda_plane, channels),
	MEMBER(struct glcuda_cuda_plane, layers),
	MEMBER(struct glcuda_cuda_plane, bytes_per_pixel),
};
static const struct member image_desc_members[] = {
	MEMBER(struct glcuda_image_desc, width),
	MEMBER(struct glcuda_image_desc, height),
	MEMBER(struct glcuda_image_desc, format),
	MEMBER(struct glcuda_image_desc, flags),
	MEMBER(struct glcuda_image_desc, layers),
	MEMBER(struct glcuda_image_desc, depth_format),
};
/* The diagnosis lists' elements, which glcuda only writes, may end in tail
 * padding (struct-size.c). */
static const struct member diag_egl_device_members[] = {
	MEMBER(struct glcuda_diag_egl_device, extensions),
	MEMBER(struct glcuda_diag_egl_device, cuda_device),
	MEMBER(struct glcuda_diag_egl_device, drm_device),
	MEMBER(struct glcuda_diag_egl_device, drm_render_node),
};
static const struct member diag_vk_device_members[] = {
	MEMBER(struct glcuda_diag_vk_device, name),
	MEMBER(struct glcuda_diag_vk_device, api_major),
	MEMBER(struct glcuda_diag_vk_device, api_minor),
	MEMBER(struct glcuda_diag_vk_device, api_patch),
	MEMBER(struct glcuda_diag_vk_device, driver_version),
	MEMBER(struct glcuda_diag_vk_device, vendor_id),
	MEMBER(struct glcuda_diag_vk_device, device_uuid),
	MEMBER(struct glcuda_diag_vk_device, driver_uuid),
	MEMBER(struct glcuda_diag_vk_device, driver_name),
	MEMBER(struct glcuda_diag_vk_device, driver_info),
	MEMBER(struct glcuda_diag_vk_device, external_memory_fd),
	MEMBER(struct glcuda_diag_vk_device, rgba8_exportable),
	MEMBER(struct glcuda_diag_vk_device, external_semaphore_fd),
	MEMBER(struct glcuda_diag_vk_device, binary_exportable),
	MEMBER(struct glcuda_diag_vk_device, timeline_semaphore),
	MEMBER(struct glcuda_diag_vk_device, timeline_exportable),
};
static const struct member diag_cuda_device_members[] = {
	MEMBER(struct glcuda_diag_cuda_device, name),
	MEMBER(struct glcuda_diag_cuda_device, has_uuid),
	MEMBER(struct glcuda_diag_cuda_device, uuid),
};

/* The call under test with `size` in its struct: returns its error. */
typedef int (*sized_call)(void *ctx, size_t size);

/* Every size that ends where a member ends (an older version of the
 * struct) gets past the size check; every size one byte short of a
 * member's end, or one byte into it, ends inside the member and fails with
 * -EINVAL and a message about `type`.size. tail_padding: the struct may
 * end in padding (less than the alignment of its size_t), and its full
 * size gets past the check too. */
static void
check_member_boundaries(const char *type, const struct member *members,
			size_t count, size_t full, bool tail_padding,
			sized_call call, void *ctx)
{
	size_t last_end = members[count - 1].offset + members[count - 1].size;
	char expect[64];
	int checked = 0;

	snprintf(expect, sizeof(expect), "%s.size", type);
	if (tail_padding)
		ck_assert_msg(
			last_end <= full && full - last_end < sizeof(size_t),
			"%s: the test's member list does not end the struct",
			type);
	else
		ck_assert_msg(
			last_end == full,
			"%s: the test's member list does not end the struct",
			type);
	if (tail_padding) {
		int ret = call(ctx, full);

		ck_assert_msg(!(ret == -EINVAL &&
				strstr(glcuda_get_last_error(), expect)),
			      "%s.size %zu (sizeof) refused: %s", type, full,
			      glcuda_get_last_error());
	}
	for (size_t i = 0; i < count; i++) {
		size_t end = members[i].offset + members[i].size;
		size_t inside[2] = { end - 1, members[i].offset + 1 };
		int ret = call(ctx, end);

		ck_assert_msg(!(ret == -EINVAL &&
				strstr(glcuda_get_last_error(), expect)),
			      "%s.size %zu (ends with %s) refused: %s", type,
			      end, members[i].name, glcuda_get_last_error());
		if (members[i].size < 2)
			continue; /* no byte inside it */
		for (int k = 0; k < 2; k++) {
			ret = call(ctx, inside[k]);
			ck_assert_msg(ret == -EINVAL &&
					      strstr(glcuda_get_last_error(),
						     expect),
				      "%s.size %zu ends inside %s (bytes "
				      "%zu..%zu), yet: %s: %s",
				      type, inside[k], members[i].name,
				      members[i].offset, end - 1,
				      glcuda_error_get_name(ret),
				      glcuda_get_last_error());
			checked++;
		}
	}
	ck_assert_int_gt(checked, 0);
}

struct sized_ctx {
	EGLDisplay dpy;
	EGLContext ctx;
	struct glcuda_device *dev;
	struct glcuda_image *img;
};

static int
call_device_new(void *p, size_t size)
{
	struct sized_ctx *c = p;
	struct glcuda_device_options opts;
	struct glcuda_device *dev = NULL;
	int ret;

	glcuda_device_options_init(&opts);
	opts.size = size;
	ret = glcuda_device_new(c->dpy, c->ctx, &opts, &dev);
	glcuda_device_destroy(dev);
	return ret;
}

static int
call_ring_new(void *p, size_t size)
{
	struct sized_ctx *c = p;
	struct glcuda_ring_desc desc = { .size = size,
					 .width = 64,
					 .height = 64,
					 .slots = 3,
					 .input_format = GLCUDA_FORMAT_RGBA8 };
	struct glcuda_ring *ring = NULL;
	int ret = glcuda_ring_new(c->dev, &desc, &ring);

	glcuda_ring_destroy(ring);
	return ret;
}

static int
call_get_cuda_plane(void *p, size_t size)
{
	struct sized_ctx *c = p;
	struct glcuda_cuda_plane plane = { .size = size };

	return glcuda_image_get_cuda_plane(c->img, 0, &plane);
}

static int
call_image_new(void *p, size_t size)
{
	struct sized_ctx *c = p;
	struct glcuda_image_desc desc = { .size = size,
					  .width = 64,
					  .height = 64,
					  .format = GLCUDA_FORMAT_RGBA8 };
	struct glcuda_image *img = NULL;
	int ret = glcuda_image_new(c->dev, &desc, &img);

	glcuda_image_destroy(img);
	return ret;
}

/* A list of one element whose size is `size` (the list's stride). */
static int
call_diag_egl_device(void *p, size_t size)
{
	struct glcuda_diag_egl_device element = { .size = size };

	(void)p;
	return glcuda_diag_list_egl_devices(&element, 1);
}

static int
call_diag_vk_device(void *p, size_t size)
{
	struct glcuda_diag_vk_device element = { .size = size };

	(void)p;
	return glcuda_diag_list_vk_devices(&element, 1);
}

static int
call_diag_cuda_device(void *p, size_t size)
{
	struct glcuda_diag_cuda_device element = { .size = size };
	int driver_version;

	(void)p;
	return glcuda_diag_list_cuda_devices(&driver_version, &element, 1);
}

/* Each caller-allocated struct, every member boundary: the device's
 * options with the context not current (past the size check it fails with
 * GLCUDA_ERROR_NO_CURRENT_CONTEXT), the ring's description, the image's
 * and the CUDA plane on a device without CUDA (past the check they fail
 * for want of it, or succeed), and the diagnosis lists' elements. */
START_TEST(struct_size_member_boundaries)
{
	struct glcuda_headless *hl = test_headless(false);
	struct sized_ctx c = { glcuda_headless_get_display(hl),
			       glcuda_headless_get_context(hl) };
	int ret;

	ck_assert(eglMakeCurrent(c.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE,
				 EGL_NO_CONTEXT));
	check_member_boundaries("glcuda_device_options", device_options_members,
				ARRAY_LENGTH(device_options_members),
				sizeof(struct glcuda_device_options), false,
				call_device_new, &c);
	ck_assert(eglMakeCurrent(c.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, c.ctx));

	ret = device_new_internal(c.dpy, c.ctx, NULL, false, &c.dev);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	ret = test_image_new(c.dev, 64, 64, GLCUDA_FORMAT_RGBA8, 0, &c.img);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	check_member_boundaries("glcuda_ring_desc", ring_desc_members,
				ARRAY_LENGTH(ring_desc_members),
				sizeof(struct glcuda_ring_desc), false,
				call_ring_new, &c);
	check_member_boundaries("glcuda_cuda_plane", cuda_plane_members,
				ARRAY_LENGTH(cuda_plane_members),
				sizeof(struct glcuda_cuda_plane), false,
				call_get_cuda_plane, &c);
	check_member_boundaries("glcuda_image_desc", image_desc_members,
				ARRAY_LENGTH(image_desc_members),
				sizeof(struct glcuda_image_desc), false,
				call_image_new, &c);
	check_member_boundaries("glcuda_diag_egl_device",
				diag_egl_device_members,
				ARRAY_LENGTH(diag_egl_device_members),
				sizeof(struct glcuda_diag_egl_device), true,
				call_diag_egl_device, &c);
	check_member_boundaries("glcuda_diag_vk_device", diag_vk_device_members,
				ARRAY_LENGTH(diag_vk_device_members),
				sizeof(struct glcuda_diag_vk_device), true,
				call_diag_vk_device, &c);
	check_member_boundaries("glcuda_diag_cuda_device",
				diag_cuda_device_members,
				ARRAY_LENGTH(diag_cuda_device_members),
				sizeof(struct glcuda_diag_cuda_device), true,
				call_diag_cuda_device, &c);
	glcuda_image_destroy(c.img);
	glcuda_device_destroy(c.dev);
	glcuda_headless_destroy(hl);
}
END_TEST

/* GPU machine: the whole binding. */
static void
full_binding(bool gles)
{
	struct glcuda_headless *hl = test_headless(gles);
	struct glcuda_device *dev = NULL;
	const struct glcuda_caps *caps;
	struct some_gl_state state;
	GLuint tex, fbo;
	CUdevice cu_device;
	CUuuid uuid;
	int ret;

	set_unusual_gl_state(&state, &tex, &fbo);
	ret = glcuda_device_new(glcuda_headless_get_display(hl),
				glcuda_headless_get_context(hl), NULL, &dev);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	caps = glcuda_device_get_caps(dev);
	printf("%s %d.%d on \"%s\"; Vulkan \"%s\"; CUDA %d \"%s\" (driver %d); "
	       "sync %s\n",
	       gles ? "GLES" : "GL", caps->gl_major, caps->gl_minor,
	       caps->gl_renderer, caps->vulkan_device_name, caps->cuda_ordinal,
	       caps->cuda_device_name, caps->cuda_driver_version,
	       glcuda_sync_mode_get_name(caps->sync_mode));
	ck_assert_int_eq(caps->sync_mode, GLCUDA_SYNC_TIMELINE);
	ck_assert_int_ge(caps->cuda_ordinal, 0);
	cu_device = glcuda_device_get_cuda_device(dev);
	ck_assert_int_eq(CU(cuDeviceGetUuid)(&uuid, cu_device), CUDA_SUCCESS);
	ck_assert(memcmp(uuid.bytes, caps->device_uuid, 16) == 0);
	ck_assert(memcmp(vk_exporter_info(dev->vk)->device_uuid,
			 caps->device_uuid, 16) == 0);
	ck_assert_ptr_nonnull(glcuda_device_get_cuda_context(dev));
	check_gl_state(&state);
	ck_assert_ptr_eq(eglGetCurrentContext(),
			 glcuda_headless_get_context(hl));
	glcuda_device_destroy(dev);
	/* Tearing down the drivers leaves the caller's context current. */
	ck_assert_ptr_eq(eglGetCurrentContext(),
			 glcuda_headless_get_context(hl));

	/* Forced modes. */
	for (int m = GLCUDA_SYNC_TIMELINE; m <= GLCUDA_SYNC_CPU; m++) {
		struct glcuda_device_options opts = {
			.size = sizeof(opts),
			.sync_mode = (enum glcuda_sync_mode)m
		};
		ret = glcuda_device_new(glcuda_headless_get_display(hl),
					glcuda_headless_get_context(hl), &opts,
					&dev);
		ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
			      glcuda_get_last_error());
		ck_assert_int_eq(glcuda_device_get_caps(dev)->sync_mode, m);
		glcuda_device_destroy(dev);
	}
	glDeleteTextures(1, &tex);
	glDeleteFramebuffers(1, &fbo);
	glcuda_headless_destroy(hl);
}

START_TEST(cuda_binding_gl)
{
	full_binding(false);
}
END_TEST

START_TEST(cuda_binding_gles)
{
	full_binding(true);
}
END_TEST

int
main(void)
{
	bool cuda, fake;

	test_require_egl();
	cuda = test_have_cuda();
	/* On the fake CUDA driver, which make check builds; a build without
	 * it (the GPU machine's static one) says so and runs the rest. */
	fake = fake_cuda_lib() != NULL;
	if (!fake)
		printf("the fake CUDA driver is not built here: the CUDA UUID "
		       "checks on it (cuda_uuid_every_byte) do not run\n");
	const struct test_case cases[] = {
		TEST_TCASE("arguments", 0),
		TEST_ONCE(null_arguments),
		TEST_ONCE(context_not_current),
		TEST_ONCE(global_log_handler),
		TEST_ONCE(options_size),
		TEST_ONCE(gl_too_old),
		TEST_ONCE(gles2_context),
		TEST_ONCE(struct_size_member_boundaries),
		TEST_TCASE("binding", 120),
		TEST_LOOP(gl_vulkan_binding, 2),
		TEST_ONCE(vulkan_uuid_every_byte),
		TEST_ONCE(cuda ? cuda_binding_gl : no_cuda_driver_gl),
		TEST_ONCE(cuda ? cuda_binding_gles : no_cuda_driver_gles),
		TEST_TCASE("fake-cuda", 120),
		TEST_ONCE(fake ? cuda_uuid_every_byte : NULL),
	};
	return test_run_cases("device", cases);
}
