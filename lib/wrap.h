/*
 * Wrapped images (wrap.c): what the layers above need of them beyond the
 * public calls.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_WRAP_H
#define GLCUDA_WRAP_H

#include "image.h"

/* After the map of wrapped GL textures, pick up a new array if the driver
 * moved the texture (never seen; the objects are made again then). The
 * CUDA context must be pushed. */
int wrap_refresh_mapped(struct glcuda_image *img);

#endif
