/*
 * PNG files of RGBA8 frames (see png-file.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png-file.h"

int
png_file_write_rgba(const char *prog, const char *path, const uint8_t *rgba,
		    uint32_t w, uint32_t h, bool bottom_up, int level)
{
	png_structp png = NULL;
	png_infop info = NULL;
	png_bytep *rows = malloc(h * sizeof(*rows));
	FILE *fp = NULL;
	volatile int ret = -1; /* set after setjmp */

	if (!rows) {
		fprintf(stderr, "%s: out of memory writing %s\n", prog, path);
		return -1;
	}
	for (uint32_t y = 0; y < h; y++)
		rows[y] =
			(png_bytep)(rgba + (size_t)(bottom_up ? h - 1 - y : y) *
						   w * 4);
	fp = fopen(path, "wb");
	if (!fp) {
		fprintf(stderr, "%s: cannot create %s: %s\n", prog, path,
			strerror(errno));
		free(rows);
		return -1;
	}
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	if (png)
		info = png_create_info_struct(png);
	if (!png || !info) {
		fprintf(stderr, "%s: libpng: out of memory writing %s\n", prog,
			path);
		goto out;
	}
	if (setjmp(png_jmpbuf(png))) {
		fprintf(stderr, "%s: libpng failed writing %s (a full disk?)\n",
			prog, path);
		goto out;
	}
	png_init_io(png, fp);
	png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB_ALPHA,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
		     PNG_FILTER_TYPE_DEFAULT);
	png_set_compression_level(png, level);
	png_write_info(png, info);
	png_write_image(png, rows);
	png_write_end(png, NULL);
	ret = 0;
out:
	png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
	if (fclose(fp) != 0 && ret == 0) {
		fprintf(stderr, "%s: writing %s: %s\n", prog, path,
			strerror(errno));
		ret = -1;
	}
	free(rows);
	return ret;
}
