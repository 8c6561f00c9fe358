/*
 * The EGL binding of the calling thread (egl-binding.c): saved before the
 * driver calls that may change it, restored after.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_EGL_BINDING_H
#define GLCUDA_EGL_BINDING_H

#include <epoxy/egl.h>

/*
 * What is current on the calling thread. glcuda never changes which
 * context is current, but some driver calls do as a side effect (tearing
 * down a Vulkan device or the CUDA primary context on NVIDIA's driver 580
 * left eglGetCurrentContext() at EGL_NO_CONTEXT), and a failed
 * glcuda_headless_new must leave the thread as it found it.
 */
struct egl_binding {
	EGLenum api;
	EGLDisplay display;
	EGLSurface draw, read;
	EGLContext context;
};

void egl_binding_save(struct egl_binding *b);
/* Bind the saved API again and, if the saved context is no longer current,
 * make it current. Returns 0 when it still was, 1 when it was made current
 * again, or the EGL error of a failed eglMakeCurrent (a negative EGLint is
 * never an EGL error code, so the result is its negation). The thread's
 * EGL error is left clear. */
int egl_binding_restore(const struct egl_binding *b);

#endif
