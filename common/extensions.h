/*
 * Extension strings (eglQueryString(..., EGL_EXTENSIONS), a device's):
 * whether one names an extension, as a whole word. libglcuda's own
 * helper, extension_list_has(), which the programs link through
 * lib/loader/libglcuda-shared.la.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TOOLS_EXTENSIONS_H
#define GLCUDA_TOOLS_EXTENSIONS_H

#include "../lib/extensions.h"

#endif
