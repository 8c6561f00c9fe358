/*
 * Small helpers of the base layer, each written once: UUID text, EGL and GL
 * extension lists, and the EGL binding of the calling thread.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_UTIL_H
#define GLCUDA_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <epoxy/egl.h>

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" and its terminator. */
#define UUID_STRING_SIZE 37
/* The 16 bytes of a device or driver UUID as text, lower-case. */
void uuid_format(const uint8_t uuid[16], char out[UUID_STRING_SIZE]);

/* Whether a space-separated extension string (EGL or GL) lists name. */
bool extension_list_has(const char *list, const char *name);
/* Whether the EGL library has the client extension name (no display
 * needed). */
bool egl_has_client_extension(const char *name);

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
