/*
 * The headless helper: an EGL display without a window system and a
 * surfaceless GL 4.5+ core, GL compatibility or GLES 3.x context on it, on
 * the EGL device of a given CUDA device when asked, else on that of a CUDA
 * device CUDA can see.
 * This file holds the public calls; headless.h says which file does what.
 * SPDX-License-Identifier: MIT
 */
#include "headless/headless.h"

#include <errno.h>
#include <stdlib.h>

GLCUDA_EXPORT int
glcuda_headless_new(int cuda_ordinal, uint32_t flags,
		    struct glcuda_headless **out)
{
	const uint32_t known = GLCUDA_HEADLESS_FLAG_GLES |
			       GLCUDA_HEADLESS_FLAG_DEBUG |
			       GLCUDA_HEADLESS_FLAG_COMPATIBILITY;
	/* A failure leaves the thread as it found it. */
	struct egl_binding saved;
	struct glcuda_headless *hl;
	int ret;

	error_clear();
	if (!out)
		return error_fail(NULL, -EINVAL,
				  "glcuda_headless_new: out is NULL");
	if (cuda_ordinal < -1)
		return error_fail(NULL, -EINVAL,
				  "glcuda_headless_new: cuda_ordinal %d: pass "
				  "a CUDA device ordinal or -1 for any device",
				  cuda_ordinal);
	if (flags & ~known)
		return error_fail(NULL, -EINVAL,
				  "glcuda_headless_new: unknown flags 0x%x",
				  flags & ~known);
	if ((flags & GLCUDA_HEADLESS_FLAG_GLES) &&
	    (flags & GLCUDA_HEADLESS_FLAG_COMPATIBILITY))
		return error_fail(NULL, -EINVAL,
				  "glcuda_headless_new: "
				  "GLCUDA_HEADLESS_FLAG_COMPATIBILITY is a "
				  "profile of desktop OpenGL: it cannot go "
				  "with GLCUDA_HEADLESS_FLAG_GLES");
	if (!egl_has_client_extension("EGL_EXT_platform_base"))
		return error_fail(NULL, GLCUDA_ERROR_MISSING_EGL_EXTENSION,
				  "the EGL library lacks "
				  "EGL_EXT_platform_base: it cannot open a "
				  "display without a window system. Use "
				  "libglvnd's libEGL with the NVIDIA driver or "
				  "Mesa 17 or newer.");

	hl = calloc(1, sizeof(*hl));
	if (!hl)
		return error_fail(NULL, -ENOMEM,
				  "glcuda_headless_new: out of memory");
	hl->api = flags & GLCUDA_HEADLESS_FLAG_GLES ? EGL_OPENGL_ES_API
						    : EGL_OPENGL_API;

	egl_binding_save(&saved);
	if (cuda_ordinal >= 0)
		ret = headless_devices_open_cuda(cuda_ordinal, flags, hl);
	else
		ret = headless_devices_open_any(flags, hl);
	if (ret) {
		egl_binding_restore(&saved);
		free(hl);
		return ret;
	}
	*out = hl;
	return 0;
}

GLCUDA_EXPORT void
glcuda_headless_destroy(struct glcuda_headless *hl)
{
	EGLenum api;

	if (!hl)
		return;
	/* eglGetCurrentContext answers for the bound API only. */
	api = eglQueryAPI();
	eglBindAPI(hl->api);
	if (eglGetCurrentContext() == hl->context)
		eglMakeCurrent(hl->display, EGL_NO_SURFACE, EGL_NO_SURFACE,
			       EGL_NO_CONTEXT);
	eglBindAPI(api);
	driver_lifecycle_lock();
	eglDestroyContext(hl->display, hl->context);
	driver_lifecycle_unlock();
	(void)eglGetError();
	headless_display_release(hl->display);
	free(hl);
}

GLCUDA_EXPORT EGLDisplay
glcuda_headless_get_display(const struct glcuda_headless *hl)
{
	return hl ? hl->display : EGL_NO_DISPLAY;
}

GLCUDA_EXPORT EGLContext
glcuda_headless_get_context(const struct glcuda_headless *hl)
{
	return hl ? hl->context : EGL_NO_CONTEXT;
}

GLCUDA_EXPORT int
glcuda_headless_make_current(const struct glcuda_headless *hl)
{
	error_clear();
	if (!hl)
		return error_fail(NULL, -EINVAL,
				  "glcuda_headless_make_current: NULL");
	if (!eglBindAPI(hl->api) ||
	    !eglMakeCurrent(hl->display, EGL_NO_SURFACE, EGL_NO_SURFACE,
			    hl->context)) {
		EGLint err = eglGetError();

		return error_fail(NULL, GLCUDA_ERROR_EGL,
				  "eglMakeCurrent of the headless context "
				  "failed: %s (0x%04x). Is the context current "
				  "on another thread? Release it there first.",
				  egl_error_name(err), (unsigned)err);
	}
	return 0;
}

GLCUDA_EXPORT const char *
glcuda_headless_get_description(const struct glcuda_headless *hl)
{
	return hl ? hl->description : "";
}

GLCUDA_EXPORT enum glcuda_headless_cuda_match
glcuda_headless_get_cuda_match(const struct glcuda_headless *hl)
{
	return hl ? (enum glcuda_headless_cuda_match)hl->cuda_match
		  : GLCUDA_HEADLESS_CUDA_UNKNOWN;
}
