/*
 * Extension strings (eglQueryString(..., EGL_EXTENSIONS), a device's):
 * whether one names an extension, as a whole word.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TOOLS_EXTENSIONS_H
#define GLCUDA_TOOLS_EXTENSIONS_H

#include <stdbool.h>

/* (Named apart from the library's internal copy, which a static
 * libglcuda also carries.) "EGL_KHR_image" does not match "EGL_KHR_image_base"; list may be NULL
 * (then false). */
bool tools_extension_list_has(const char *list, const char *name);

#endif
