/*
 * Inside the headless helper (headless.c and the files it is built from):
 * the object, the process-wide references of EGL displays
 * (headless-display.c), context creation (headless-context.c) and the
 * choice of the EGL device of a CUDA device (headless-devices.c).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_HEADLESS_H
#define GLCUDA_HEADLESS_H

#include "config.h"

#include "export.h"
#include "array-length.h"
#include "error.h"
#include "driver-lock.h"
#include "extensions.h"
#include "egl-binding.h"

#define MAX_EGL_DEVICES 32

struct glcuda_headless {
	EGLDisplay display;
	EGLContext context;
	EGLenum api; /* EGL_OPENGL_API or EGL_OPENGL_ES_API */
	/* enum glcuda_headless_cuda_match: how the display relates to CUDA's
	 * devices, set by the step that picked it. */
	int cuda_match;
	char description[384];
};

/* headless-display.c ----------------------------------------------------- */

/* Initialise dpy (if needed) and take a reference: 0, or an error code
 * with the reason in why. */
int headless_display_acquire(EGLDisplay dpy, char *why, size_t whysize);
/* Drop a reference; the last one terminates a display that was not
 * initialised before the first reference. */
void headless_display_release(EGLDisplay dpy);

/* headless-context.c ----------------------------------------------------- */

/* Open and reference the display of platform and native, and make the
 * context flags ask for current on it: 0, or an error code with the
 * reason in why (nothing left behind). */
int headless_context_open(EGLenum platform, void *native,
			  EGLDisplay *dpy_out, EGLContext *ctx_out,
			  uint32_t flags, char *why, size_t whysize);
/* Release and destroy the context, and drop the display's reference. */
void headless_context_close(EGLDisplay dpy, EGLContext ctx);

/* headless-devices.c ----------------------------------------------------- */

/* Fill hl's display, context, cuda_match and description with those of
 * CUDA device ordinal (>= 0), or of any CUDA device (cuda_ordinal -1 of
 * glcuda_headless_new): 0, or the error recorded with error_fail(). */
int headless_devices_open_cuda(int ordinal, uint32_t flags,
			       struct glcuda_headless *hl);
int headless_devices_open_any(uint32_t flags, struct glcuda_headless *hl);

#endif
