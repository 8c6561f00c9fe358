/*
 * PNG files of RGBA8 frames, for glcuda-demo's snapshots and
 * glcuda-compositor's presented frames. Built only with libpng.
 * (Not named png.h: -I common would shadow libpng's own header.)
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TOOLS_PNG_FILE_H
#define GLCUDA_TOOLS_PNG_FILE_H

#include <stdbool.h>
#include <stdint.h>

/* Writes w x h RGBA8 pixels, rows of w * 4 bytes, to path. The rows are
 * top first, or bottom first (GL's glReadPixels order) if bottom_up.
 * level: zlib's compression level, 0..9 (lower is faster). Returns 0, or
 * -1 after a message on stderr that starts with prog and names path. */
int png_file_write_rgba(const char *prog, const char *path, const uint8_t *rgba,
			uint32_t w, uint32_t h, bool bottom_up, int level);

#endif
