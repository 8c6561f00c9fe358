/*
 * Extension lists: whether an EGL or GL extension string names an
 * extension, as a whole word.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>
#include <epoxy/egl.h>

#include "extensions.h"

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
