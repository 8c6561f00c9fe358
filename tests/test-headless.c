/*
 * The headless EGL helper: GL (core and compatibility) and GLES contexts
 * without a window system, errors, the CUDA-device path without a CUDA
 * driver, which display -1 picks with and without a CUDA device (the fake
 * CUDA driver, tests/fake-cuda, stands in for one), and no leaks.
 * Runs on any machine with an EGL display (Mesa llvmpipe in CI); exits 77
 * when none can be opened.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <glcuda/glcuda.h>
#include "test-common.h"
#include "extensions.h"

static bool
egl_has_cuda_device(void)
{
	const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	EGLDeviceEXT devices[32];
	EGLint n = 0;

	if (!client || (!strstr(client, "EGL_EXT_device_enumeration") &&
			!strstr(client, "EGL_EXT_device_base")))
		return false;
	if (!eglQueryDevicesEXT(32, devices, &n))
		return false;
	for (EGLint i = 0; i < n; i++) {
		const char *exts =
			eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS);

		if (exts && strstr(exts, "EGL_NV_device_cuda"))
			return true;
	}
	return false;
}

static int
egl_device_count(void)
{
	const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	EGLDeviceEXT devices[32];
	EGLint n = 0;

	if (!client || (!strstr(client, "EGL_EXT_device_enumeration") &&
			!strstr(client, "EGL_EXT_device_base")))
		return 0;
	if (!eglQueryDevicesEXT(32, devices, &n))
		return 0;
	return n;
}

/* A headless context destroyed while current: nothing is current after. */
static void
destroy_current(struct glcuda_headless *hl)
{
	glcuda_headless_destroy(hl);
	ck_assert_ptr_eq(eglGetCurrentContext(), EGL_NO_CONTEXT);
}

START_TEST(test_gl_context)
{
	struct glcuda_headless *hl = NULL;
	const char *renderer;
	GLint profile = 0;
	int ret;

	ret = glcuda_headless_new(-1, GLCUDA_HEADLESS_FLAG_NONE, &hl);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	ck_assert_ptr_nonnull(hl);
	ck_assert_ptr_ne(glcuda_headless_get_display(hl), EGL_NO_DISPLAY);
	ck_assert_ptr_ne(glcuda_headless_get_context(hl), EGL_NO_CONTEXT);
	ck_assert_ptr_eq(eglGetCurrentContext(),
			 glcuda_headless_get_context(hl));
	ck_assert_ptr_eq(eglGetCurrentDisplay(),
			 glcuda_headless_get_display(hl));
	ck_assert_ptr_eq(eglGetCurrentSurface(EGL_DRAW), EGL_NO_SURFACE);

	ck_assert(epoxy_is_desktop_gl());
	ck_assert_int_ge(epoxy_gl_version(), 45);
	glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
	ck_assert(profile & GL_CONTEXT_CORE_PROFILE_BIT);
	renderer = (const char *)glGetString(GL_RENDERER);
	ck_assert_ptr_nonnull(renderer);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);

	/* The description names the display and ends with the renderer. */
	ck_assert_int_gt(strlen(glcuda_headless_get_description(hl)),
			 strlen(renderer));
	ck_assert_ptr_nonnull(
		strstr(glcuda_headless_get_description(hl), renderer));
	ck_assert_str_eq(glcuda_get_last_error(), "");

	destroy_current(hl);
}
END_TEST

START_TEST(test_gles_context)
{
	struct glcuda_headless *hl = NULL;
	int ret;

	ret = glcuda_headless_new(-1, GLCUDA_HEADLESS_FLAG_GLES, &hl);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	ck_assert_ptr_eq(eglGetCurrentContext(),
			 glcuda_headless_get_context(hl));
	ck_assert_int_eq(eglQueryAPI(), EGL_OPENGL_ES_API);
	ck_assert(!epoxy_is_desktop_gl());
	ck_assert_int_ge(epoxy_gl_version(), 30);
	ck_assert_ptr_nonnull(glGetString(GL_VERSION));
	ck_assert_ptr_nonnull(
		strstr((const char *)glGetString(GL_VERSION), "OpenGL ES"));
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);

	destroy_current(hl);
}
END_TEST

START_TEST(test_debug_context)
{
	struct glcuda_headless *hl = NULL;
	GLint flags = 0;
	int ret;

	ret = glcuda_headless_new(-1, GLCUDA_HEADLESS_FLAG_DEBUG, &hl);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	glGetIntegerv(GL_CONTEXT_FLAGS, &flags);
	ck_assert(flags & GL_CONTEXT_FLAG_DEBUG_BIT);
	glcuda_headless_destroy(hl);
}
END_TEST

START_TEST(test_make_current)
{
	struct glcuda_headless *hl = NULL;
	EGLDisplay dpy;

	ck_assert_int_eq(glcuda_headless_new(-1, 0, &hl), 0);
	dpy = glcuda_headless_get_display(hl);
	ck_assert(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE,
				 EGL_NO_CONTEXT));
	ck_assert_ptr_eq(eglGetCurrentContext(), EGL_NO_CONTEXT);

	ck_assert_int_eq(glcuda_headless_make_current(hl), 0);
	ck_assert_ptr_eq(eglGetCurrentContext(),
			 glcuda_headless_get_context(hl));
	ck_assert_ptr_nonnull(glGetString(GL_RENDERER));

	/* Destroying a context that is not current leaves the thread alone. */
	ck_assert(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE,
				 EGL_NO_CONTEXT));
	destroy_current(hl);

	ck_assert_int_eq(glcuda_headless_make_current(NULL), -EINVAL);
}
END_TEST

START_TEST(test_two_at_once)
{
	struct glcuda_headless *a = NULL, *b = NULL;

	ck_assert_int_eq(glcuda_headless_new(-1, 0, &a), 0);
	ck_assert_int_eq(glcuda_headless_new(-1, GLCUDA_HEADLESS_FLAG_GLES, &b),
			 0);
	ck_assert_ptr_ne(glcuda_headless_get_context(a),
			 glcuda_headless_get_context(b));
	ck_assert_ptr_eq(eglGetCurrentContext(),
			 glcuda_headless_get_context(b));

	/* Both may live on the same display (a per-platform singleton):
	 * destroying one must not terminate it under the other. */
	glcuda_headless_destroy(a);
	ck_assert_int_eq(glcuda_headless_make_current(b), 0);
	ck_assert_ptr_nonnull(glGetString(GL_RENDERER));
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
	destroy_current(b);
}
END_TEST

/* The helper terminates a display it initialised, and leaves alone one the
 * caller had initialised (EGL displays are per-platform singletons). */
START_TEST(test_display_ownership)
{
	struct glcuda_headless *hl = NULL;
	EGLDisplay dpy;
	EGLint major, minor;

	ck_assert_int_eq(glcuda_headless_new(-1, 0, &hl), 0);
	dpy = glcuda_headless_get_display(hl);
	ck_assert_ptr_nonnull(eglQueryString(dpy, EGL_VENDOR));
	glcuda_headless_destroy(hl);
	ck_assert_ptr_null(eglQueryString(dpy, EGL_VENDOR));
	ck_assert_int_eq(eglGetError(), EGL_NOT_INITIALIZED);

	ck_assert(eglInitialize(dpy, &major, &minor));
	ck_assert_int_eq(glcuda_headless_new(-1, 0, &hl), 0);
	ck_assert_ptr_eq(glcuda_headless_get_display(hl), dpy);
	glcuda_headless_destroy(hl);
	ck_assert_ptr_nonnull(eglQueryString(dpy, EGL_VENDOR));
	ck_assert(eglTerminate(dpy));
}
END_TEST

START_TEST(test_invalid_arguments)
{
	struct glcuda_headless *hl = (struct glcuda_headless *)0x1;

	ck_assert_int_eq(glcuda_headless_new(-1, 0, NULL), -EINVAL);
	ck_assert_str_ne(glcuda_get_last_error(), "");
	ck_assert_int_eq(glcuda_headless_new(-2, 0, &hl), -EINVAL);
	ck_assert_ptr_eq(hl, (struct glcuda_headless *)0x1);
	ck_assert_int_eq(glcuda_headless_new(-1, 1u << 30, &hl), -EINVAL);
	ck_assert_ptr_eq(hl, (struct glcuda_headless *)0x1);

	/* NULL is accepted everywhere else. */
	glcuda_headless_destroy(NULL);
	ck_assert_ptr_eq(glcuda_headless_get_display(NULL), EGL_NO_DISPLAY);
	ck_assert_ptr_eq(glcuda_headless_get_context(NULL), EGL_NO_CONTEXT);
	ck_assert_str_eq(glcuda_headless_get_description(NULL), "");
}
END_TEST

/*
 * A CUDA ordinal on a machine where no EGL device says it is a CUDA device
 * and libcuda.so.1 cannot be loaded: GLCUDA_ERROR_NO_CUDA_DRIVER (or
 * GLCUDA_ERROR_NO_DISPLAY when there is no EGL device at all), as
 * documented, and whatever was current stays current.
 */
START_TEST(test_cuda_ordinal_without_cuda)
{
	struct glcuda_headless *current = NULL,
			       *hl = (struct glcuda_headless *)0x1;
	int ret, expected;

	if (egl_has_cuda_device()) {
		fprintf(stderr,
			"test_cuda_ordinal_without_cuda: an EGL device is a "
			"CUDA device here, nothing to test\n");
		return;
	}
	setenv("GLCUDA_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
	expected = egl_device_count() > 0 ? GLCUDA_ERROR_NO_CUDA_DRIVER
					  : GLCUDA_ERROR_NO_DISPLAY;

	ck_assert_int_eq(glcuda_headless_new(-1, 0, &current), 0);
	ret = glcuda_headless_new(0, 0, &hl);
	ck_assert_msg(ret == expected, "got %s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	ck_assert_ptr_eq(hl, (struct glcuda_headless *)0x1);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "CUDA device 0"));
	if (expected == GLCUDA_ERROR_NO_CUDA_DRIVER)
		ck_assert_ptr_nonnull(
			strstr(glcuda_get_last_error(), "libcuda.so.1"));

	ck_assert_ptr_eq(eglGetCurrentContext(),
			 glcuda_headless_get_context(current));
	ck_assert_int_eq(eglQueryAPI(), EGL_OPENGL_API);
	glcuda_headless_destroy(current);
	unsetenv("GLCUDA_LIBCUDA");
}
END_TEST

/* tests/fake-cuda/.libs/libfakecuda.so (make check runs tests from the
 * build directory; the program may be libtool's lt- copy in .libs), or
 * $GLCUDA_FAKE_CUDA_LIB. */
static bool
find_fake_cuda(char path[PATH_MAX])
{
	const char *env = getenv("GLCUDA_FAKE_CUDA_LIB");
	char exe[PATH_MAX], cand[PATH_MAX + 64];
	ssize_t n;

	if (env && realpath(env, path))
		return true;
	if (realpath("tests/fake-cuda/.libs/libfakecuda.so", path))
		return true;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(cand, sizeof(cand), "%s/fake-cuda/.libs/libfakecuda.so", exe);
	if (realpath(cand, path))
		return true;
	snprintf(cand, sizeof(cand), "%s/../fake-cuda/.libs/libfakecuda.so",
		 exe);
	return realpath(cand, path) != NULL;
}

/*
 * Set up the fake CUDA driver for -1: its one device gets the GL device
 * UUID of the display -1 opens without CUDA (uuid true), or a UUID no
 * display has. Returns false (and says why) where this cannot be tested:
 * an EGL device with EGL_NV_device_cuda decides before any UUID, and GL
 * without GL_EXT_memory_object has no UUID.
 */
static bool
fake_cuda_for_any(bool uuid, char gl_uuid_out[33])
{
	struct glcuda_headless *hl = NULL;
	char path[PATH_MAX], hex[33];
	uint8_t gl_uuid[GL_UUID_SIZE_EXT] = { 0 };

	if (egl_has_cuda_device()) {
		fprintf(stderr, "an EGL device is a CUDA device here "
				"(EGL_NV_device_cuda): -1 does not match by "
				"UUID, nothing to test with the fake\n");
		return false;
	}
	ck_assert_msg(find_fake_cuda(path),
		      "the fake CUDA driver "
		      "tests/fake-cuda/.libs/libfakecuda.so was not found "
		      "(make check builds it; or set GLCUDA_FAKE_CUDA_LIB)");

	setenv("GLCUDA_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
	ck_assert_int_eq(glcuda_headless_new(-1, 0, &hl), 0);
	if (!epoxy_has_gl_extension("GL_EXT_memory_object")) {
		fprintf(stderr,
			"GL has no GL_EXT_memory_object (no device UUID): "
			"nothing to match\n");
		glcuda_headless_destroy(hl);
		return false;
	}
	glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, gl_uuid);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
	glcuda_headless_destroy(hl);

	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", gl_uuid[i]);
	if (gl_uuid_out)
		memcpy(gl_uuid_out, hex, sizeof(hex));
	/* Not the GL UUID: its last byte flipped. */
	if (!uuid)
		snprintf(hex + 30, 3, "%02x", gl_uuid[15] ^ 0xff);
	setenv("GLCUDA_FAKE_CUDA_UUID", hex, 1);
	setenv("GLCUDA_LIBCUDA", path, 1);
	return true;
}

/*
 * GLCUDA_HEADLESS_FLAG_COMPATIBILITY: a desktop GL context of the
 * compatibility profile (the fixed-function calls of legacy renderers
 * work), on the display of the CUDA device as without the flag, and
 * glcuda_device_new() takes it. Run twice: _i 1 with the debug flag too.
 */
START_TEST(test_compat_context)
{
	const uint32_t flags = GLCUDA_HEADLESS_FLAG_COMPATIBILITY |
			       (_i ? GLCUDA_HEADLESS_FLAG_DEBUG : 0);
	struct glcuda_headless *hl = NULL;
	struct glcuda_device *dev = NULL;
	const struct glcuda_caps *caps;
	GLint profile = 0, context_flags = 0;
	const char *desc;
	bool real_cuda = egl_has_cuda_device();
	int ret;

	if (!real_cuda && !fake_cuda_for_any(true, NULL))
		return;
	ret = glcuda_headless_new(-1, flags, &hl);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	ck_assert_ptr_eq(eglGetCurrentContext(),
			 glcuda_headless_get_context(hl));
	ck_assert_int_eq(eglQueryAPI(), EGL_OPENGL_API);
	ck_assert(epoxy_is_desktop_gl());
	ck_assert_int_ge(epoxy_gl_version(), 32);
	glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
	ck_assert_msg(profile & GL_CONTEXT_COMPATIBILITY_PROFILE_BIT,
		      "GL_CONTEXT_PROFILE_MASK 0x%x: not the compatibility "
		      "profile (GL_VERSION \"%s\")",
		      (unsigned)profile, (const char *)glGetString(GL_VERSION));
	ck_assert(!(profile & GL_CONTEXT_CORE_PROFILE_BIT));
	/* Fixed-function state, which a core context refuses
	 * (GL_INVALID_OPERATION). */
	glMatrixMode(GL_MODELVIEW);
	glPushMatrix();
	glLoadIdentity();
	glPopMatrix();
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
	glGetIntegerv(GL_CONTEXT_FLAGS, &context_flags);
	ck_assert_int_eq(!!(context_flags & GL_CONTEXT_FLAG_DEBUG_BIT), _i);
	desc = glcuda_headless_get_description(hl);
	if (!real_cuda)
		ck_assert_msg(strstr(desc, "(UUID of CUDA 0)"),
			      "description \"%s\" does not say the display "
			      "is CUDA device 0's",
			      desc);
	ck_assert_int_eq(glcuda_headless_get_cuda_match(hl),
			 GLCUDA_HEADLESS_CUDA_MATCHED);

	ret = glcuda_device_new(glcuda_headless_get_display(hl),
				glcuda_headless_get_context(hl), NULL, &dev);
	if (ret == GLCUDA_ERROR_NO_VULKAN ||
	    ret == GLCUDA_ERROR_MISSING_VULKAN_EXTENSION) {
		fprintf(stderr,
			"no Vulkan driver to make a device with here (%s): "
			"the device on a compatibility context is not "
			"tested\n",
			glcuda_error_get_name(ret));
	} else {
		ck_assert_msg(ret == 0,
			      "glcuda_device_new on a compatibility context: "
			      "%s: %s",
			      glcuda_error_get_name(ret),
			      glcuda_get_last_error());
		caps = glcuda_device_get_caps(dev);
		ck_assert_int_eq(caps->gl_api, GLCUDA_GL_API_GL);
		glcuda_device_destroy(dev);
	}
	ck_assert_ptr_eq(eglGetCurrentContext(),
			 glcuda_headless_get_context(hl));
	destroy_current(hl);
	unsetenv("GLCUDA_LIBCUDA");
	unsetenv("GLCUDA_FAKE_CUDA_UUID");
}
END_TEST

/* The compatibility profile is desktop GL's: with the GLES flag it is
 * refused before anything is made, and what was current stays current. */
START_TEST(test_compat_with_gles_refused)
{
	struct glcuda_headless *current = NULL,
			       *hl = (struct glcuda_headless *)0x1;
	const uint32_t flags = GLCUDA_HEADLESS_FLAG_GLES |
			       GLCUDA_HEADLESS_FLAG_COMPATIBILITY;

	ck_assert_int_eq(glcuda_headless_new(-1, 0, &current), 0);
	ck_assert_int_eq(glcuda_headless_new(-1, flags, &hl), -EINVAL);
	ck_assert_ptr_eq(hl, (struct glcuda_headless *)0x1);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(),
				     "GLCUDA_HEADLESS_FLAG_COMPATIBILITY"));
	ck_assert_ptr_eq(eglGetCurrentContext(),
			 glcuda_headless_get_context(current));
	ck_assert_int_eq(eglQueryAPI(), EGL_OPENGL_API);
	destroy_current(current);
}
END_TEST

/* -1 with a CUDA device: the display whose GL device UUID is the CUDA
 * device's, and the description says it was chosen for that. */
START_TEST(test_any_matches_cuda_uuid)
{
	struct glcuda_headless *hl = NULL;
	uint8_t gl_uuid[GL_UUID_SIZE_EXT] = { 0 };
	char want[33], got[33];
	const char *desc;
	int ret;

	if (!fake_cuda_for_any(true, want))
		return;
	ret = glcuda_headless_new(-1, _i ? GLCUDA_HEADLESS_FLAG_GLES : 0, &hl);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	desc = glcuda_headless_get_description(hl);
	ck_assert_msg(strstr(desc, "(UUID of CUDA 0)"),
		      "description \"%s\" does not say the display is CUDA "
		      "device 0's",
		      desc);
	ck_assert_msg(!strstr(desc, "no interop"), "description \"%s\"", desc);
	glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, gl_uuid);
	for (int i = 0; i < 16; i++)
		snprintf(got + 2 * i, 3, "%02x", gl_uuid[i]);
	ck_assert_str_eq(got, want);
	destroy_current(hl);
}
END_TEST

/*
 * -1 with a CUDA device that no display is: a GL context still (GL alone
 * works there), never passed off as the CUDA device's: the description
 * says "no interop", and glcuda_device_new() on it fails with
 * GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE.
 */
START_TEST(test_any_matches_no_cuda_device)
{
	struct glcuda_headless *hl = NULL;
	struct glcuda_device *dev = NULL;
	const char *desc;
	int ret;

	if (!fake_cuda_for_any(false, NULL))
		return;
	ret = glcuda_headless_new(-1, 0, &hl);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	desc = glcuda_headless_get_description(hl);
	ck_assert_msg(strstr(desc, "[none of the 1 CUDA device: no interop]"),
		      "description \"%s\" does not say the display is no CUDA "
		      "device's",
		      desc);
	ck_assert_msg(!strstr(desc, "UUID of CUDA"), "description \"%s\"",
		      desc);

	ret = glcuda_device_new(glcuda_headless_get_display(hl),
				glcuda_headless_get_context(hl), NULL, &dev);
	if (ret == GLCUDA_ERROR_NO_VULKAN ||
	    ret == GLCUDA_ERROR_MISSING_VULKAN_EXTENSION ||
	    ret == GLCUDA_ERROR_NO_MATCHING_VULKAN_DEVICE ||
	    ret == GLCUDA_ERROR_MISSING_GL_EXTENSION)
		fprintf(stderr,
			"glcuda_device_new stops before CUDA here (%s): the "
			"error it gives is not tested\n",
			glcuda_error_get_name(ret));
	else
		ck_assert_msg(ret == GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE,
			      "got %s: %s", glcuda_error_get_name(ret),
			      glcuda_get_last_error());
	ck_assert_ptr_null(dev);
	glcuda_headless_destroy(hl);
}
END_TEST

/* -1 where EGL devices say which CUDA device they are (the NVIDIA driver):
 * the first EGL device that names one CUDA can see, whatever
 * CUDA_VISIBLE_DEVICES hides from CUDA before it. */
START_TEST(test_any_nv_device_cuda)
{
	EGLDeviceEXT devices[32];
	struct glcuda_headless *hl = NULL;
	char want[64] = "";
	EGLint n = 0;
	int ret;

	if (!egl_has_cuda_device()) {
		fprintf(stderr, "no EGL device has EGL_NV_device_cuda here: "
				"nothing to test\n");
		return;
	}
	ck_assert(eglQueryDevicesEXT(32, devices, &n));
	for (EGLint i = 0; i < n && !want[0]; i++) {
		const char *exts =
			eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS);
		EGLAttrib cuda;

		if (exts && strstr(exts, "EGL_NV_device_cuda") &&
		    eglQueryDeviceAttribEXT(devices[i], EGL_CUDA_DEVICE_NV,
					    &cuda))
			snprintf(want, sizeof(want),
				 "EGL device %d (EGL_NV_device_cuda, CUDA %ld",
				 (int)i, (long)cuda);
		(void)eglGetError();
	}
	ck_assert_msg(want[0],
		      "no EGL device names a CUDA device CUDA can see");
	ret = glcuda_headless_new(-1, 0, &hl);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	ck_assert_msg(strncmp(glcuda_headless_get_description(hl), want,
			      strlen(want)) == 0,
		      "description \"%s\", expected it to start with \"%s\"",
		      glcuda_headless_get_description(hl), want);
	glcuda_headless_destroy(hl);
}
END_TEST

/* -1 with a CUDA driver that sees no device (cuInit fails with
 * CUDA_ERROR_NO_DEVICE, as with CUDA_VISIBLE_DEVICES=""): the first display
 * that works, not marked as a CUDA device's nor as none of them. */
START_TEST(test_any_cuda_sees_no_device)
{
	struct glcuda_headless *hl = NULL;
	const char *desc;
	int ret;

	if (!fake_cuda_for_any(false, NULL))
		return;
	setenv("GLCUDA_FAKE_CUDA_FAIL", "cuInit:1:CUDA_ERROR_NO_DEVICE", 1);
	ret = glcuda_headless_new(-1, 0, &hl);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	desc = glcuda_headless_get_description(hl);
	ck_assert_msg(!strstr(desc, "UUID of CUDA") &&
			      !strstr(desc, "no interop"),
		      "description \"%s\"", desc);
	glcuda_headless_destroy(hl);
	unsetenv("GLCUDA_FAKE_CUDA_FAIL");
}
END_TEST

/* -1 without a CUDA driver: the first display that works, described as
 * before (no CUDA device named, no "no interop" mark). */
START_TEST(test_any_without_cuda)
{
	struct glcuda_headless *hl = NULL;
	const char *desc;

	setenv("GLCUDA_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
	ck_assert_int_eq(glcuda_headless_new(-1, 0, &hl), 0);
	desc = glcuda_headless_get_description(hl);
	ck_assert_msg(!strstr(desc, "UUID of CUDA") &&
			      !strstr(desc, "no interop"),
		      "description \"%s\"", desc);
	ck_assert_msg(strncmp(desc, "EGL device ", 11) == 0 ||
		      strncmp(desc, "Mesa surfaceless platform", 25) == 0,
		      "description \"%s\"", desc);
	glcuda_headless_destroy(hl);
	unsetenv("GLCUDA_LIBCUDA");
}
END_TEST

START_TEST(test_no_fd_leak)
{
	struct glcuda_headless *hl;
	int before, after;

	/* The first context loads the driver, which may keep fds open for
	 * the life of the process. */
	ck_assert_int_eq(glcuda_headless_new(-1, 0, &hl), 0);
	glcuda_headless_destroy(hl);
	ck_assert_int_eq(glcuda_headless_new(-1, GLCUDA_HEADLESS_FLAG_GLES,
					     &hl),
			 0);
	glcuda_headless_destroy(hl);

	before = test_count_fds();
	for (int i = 0; i < 50; i++) {
		uint32_t flags = i % 2 ? GLCUDA_HEADLESS_FLAG_GLES : 0;

		ck_assert_int_eq(glcuda_headless_new(-1, flags, &hl), 0);
		ck_assert_ptr_nonnull(glGetString(GL_VERSION));
		glcuda_headless_destroy(hl);
	}
	after = test_count_fds();
	ck_assert_int_eq(after, before);
	ck_assert_ptr_eq(eglGetCurrentContext(), EGL_NO_CONTEXT);
}
END_TEST

/* The extension-list lookup that libglcuda and its programs share
 * (lib/extensions.c): whole words only; an empty name matches nothing (and
 * returns: it once searched the same place forever). */
START_TEST(test_extension_list)
{
	const char *list = "EGL_KHR_image_base EGL_KHR_image EGL_EXT_a";

	ck_assert(extension_list_has(list, "EGL_KHR_image"));
	ck_assert(extension_list_has(list, "EGL_KHR_image_base"));
	ck_assert(extension_list_has(list, "EGL_EXT_a"));
	ck_assert(!extension_list_has(list, "EGL_KHR_imag"));
	ck_assert(!extension_list_has(list, "EXT_a"));
	ck_assert(!extension_list_has("EGL_KHR_image_base", "EGL_KHR_image"));
	ck_assert(!extension_list_has(list, ""));
	ck_assert(!extension_list_has(NULL, "EGL_EXT_a"));
}
END_TEST

/* Skip (77) if no EGL display can be opened at all. */
static int
probe_display(void)
{
	struct glcuda_headless *hl;
	int ret;

	/* The one line that says why is this probe's. */
	if (!freopen("/dev/null", "w", stderr))
		return 1;
	ret = glcuda_headless_new(-1, 0, &hl);
	if (ret == GLCUDA_ERROR_NO_DISPLAY ||
	    ret == GLCUDA_ERROR_MISSING_EGL_EXTENSION) {
		printf("SKIP: no EGL display can be opened (no EGL device, no "
		       "Mesa surfaceless platform)\n");
		return 77;
	}
	if (ret == 0)
		glcuda_headless_destroy(hl);
	return 0;
}

int
main(void)
{
	const struct test_case cases[] = {
		TEST_TCASE("contexts", 0),
		TEST_ONCE(test_gl_context),
		TEST_ONCE(test_gles_context),
		TEST_ONCE(test_debug_context),
		TEST_ONCE(test_make_current),
		TEST_ONCE(test_two_at_once),
		TEST_ONCE(test_display_ownership),
		TEST_TCASE("errors", 0),
		TEST_ONCE(test_extension_list),
		TEST_ONCE(test_invalid_arguments),
		TEST_ONCE(test_cuda_ordinal_without_cuda),
		/* _i: 0 GL, 1 GLES. */
		TEST_TCASE("any-device", 0),
		TEST_LOOP(test_any_matches_cuda_uuid, 2),
		TEST_ONCE(test_any_matches_no_cuda_device),
		TEST_ONCE(test_any_cuda_sees_no_device),
		TEST_ONCE(test_any_nv_device_cuda),
		TEST_ONCE(test_any_without_cuda),
		/* _i: 1 with the debug flag. */
		TEST_TCASE("compatibility", 0),
		TEST_LOOP(test_compat_context, 2),
		TEST_ONCE(test_compat_with_gles_refused),
		TEST_TCASE("leaks", 120),
		TEST_ONCE(test_no_fd_leak),
	};

	test_require(probe_display);
	return test_run_cases("headless", cases);
}
