/*
 * Saving and restoring the EGL binding of the calling thread.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "egl-binding.h"

void
egl_binding_save(struct egl_binding *b)
{
	b->api = eglQueryAPI();
	b->display = eglGetCurrentDisplay();
	b->draw = eglGetCurrentSurface(EGL_DRAW);
	b->read = eglGetCurrentSurface(EGL_READ);
	b->context = eglGetCurrentContext();
}

int
egl_binding_restore(const struct egl_binding *b)
{
	EGLint err;

	/* First: eglGetCurrentContext answers for the bound API only. */
	if (eglQueryAPI() != b->api)
		eglBindAPI(b->api);
	if (b->context == EGL_NO_CONTEXT ||
	    eglGetCurrentContext() == b->context) {
		(void)eglGetError();
		return 0;
	}
	if (eglMakeCurrent(b->display, b->draw, b->read, b->context))
		return 1;
	err = eglGetError();
	return -err;
}
