/*
 * glcuda-trace: the gl-prio scenario's context, a GL context of the
 * greatest priority EGL_IMG_context_priority grants.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "trace.h"

#ifndef EGL_CONTEXT_PRIORITY_LEVEL_IMG
#define EGL_CONTEXT_PRIORITY_LEVEL_IMG 0x3100
#define EGL_CONTEXT_PRIORITY_HIGH_IMG 0x3101
#define EGL_CONTEXT_PRIORITY_MEDIUM_IMG 0x3102
#define EGL_CONTEXT_PRIORITY_LOW_IMG 0x3103
#endif

/* A GL 4.5 core context with EGL_IMG_context_priority HIGH on the same
 * display; what the driver granted goes in the note. */
EGLContext
make_priority_context(char *note, size_t size)
{
	static const EGLint attribs[] = {
		EGL_CONTEXT_MAJOR_VERSION, 4,
		EGL_CONTEXT_MINOR_VERSION, 5,
		EGL_CONTEXT_OPENGL_PROFILE_MASK,
		EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
		EGL_CONTEXT_PRIORITY_LEVEL_IMG,
		EGL_CONTEXT_PRIORITY_HIGH_IMG, EGL_NONE,
	};
	EGLContext ctx;
	EGLint got = 0;

	if (!epoxy_has_egl_extension(dpy, "EGL_IMG_context_priority")) {
		snprintf(note, size, "no EGL_IMG_context_priority");
		return EGL_NO_CONTEXT;
	}
	eglBindAPI(EGL_OPENGL_API);
	ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
	if (ctx == EGL_NO_CONTEXT) {
		snprintf(note, size, "eglCreateContext: EGL error 0x%x",
			 eglGetError());
		return EGL_NO_CONTEXT;
	}
	eglQueryContext(dpy, ctx, EGL_CONTEXT_PRIORITY_LEVEL_IMG, &got);
	snprintf(note, size, "EGL context priority %s",
		 got == EGL_CONTEXT_PRIORITY_HIGH_IMG	  ? "HIGH granted"
		 : got == EGL_CONTEXT_PRIORITY_MEDIUM_IMG ? "MEDIUM (HIGH "
							    "refused)"
		 : got == EGL_CONTEXT_PRIORITY_LOW_IMG	  ? "LOW (HIGH refused)"
							  : "unknown");
	return ctx;
}
