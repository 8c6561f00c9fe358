/*
 * Small helpers of the base layer.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include "util.h"

void
uuid_format(const uint8_t uuid[16], char out[UUID_STRING_SIZE])
{
	static const char hex[] = "0123456789abcdef";
	int o = 0;

	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[uuid[i] >> 4];
		out[o++] = hex[uuid[i] & 15];
	}
	out[o] = '\0';
}

bool
extension_list_has(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	/* An empty name would match at every place and never advance. */
	if (!list || len == 0)
		return false;
	while ((p = strstr(p, name))) {
		if ((p == list || p[-1] == ' ') &&
		    (p[len] == ' ' || p[len] == '\0'))
			return true;
		p += len;
	}
	return false;
}

bool
egl_has_client_extension(const char *name)
{
	const char *exts = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);

	if (!exts) {
		/* EGL_EXT_client_extensions missing: no client extensions. */
		(void)eglGetError();
		return false;
	}
	return extension_list_has(exts, name);
}

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
