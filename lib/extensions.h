/*
 * Extension lists (extensions.c): EGL and GL extension strings.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_EXTENSIONS_H
#define GLCUDA_EXTENSIONS_H

#include <stdbool.h>

/* Whether a space-separated extension string (EGL or GL) lists name. */
bool extension_list_has(const char *list, const char *name);
/* Whether the EGL library has the client extension name (no display
 * needed). */
bool egl_has_client_extension(const char *name);

#endif
