/*
 * Where two frames written by glcuda-compositor differ, for
 * tests/test-compositor-input.sh:
 *
 *   compositor-diff-png A.png B.png X Y W H
 *
 * Prints the number of pixels of the rectangle X,Y,W,H that differ
 * between A and B, then the box around them (x0 y0 x1 y1, exclusive; 0 0
 * 0 0 when none differs). Exit 0, or 2 when a file cannot be read or the
 * sizes differ.
 * SPDX-License-Identifier: MIT
 */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *
load(const char *path, png_image *img)
{
	unsigned char *px;

	memset(img, 0, sizeof(*img));
	img->version = PNG_IMAGE_VERSION;
	if (!png_image_begin_read_from_file(img, path)) {
		fprintf(stderr, "compositor-diff-png: %s: %s\n", path,
			img->message);
		return NULL;
	}
	img->format = PNG_FORMAT_RGB;
	px = malloc(PNG_IMAGE_SIZE(*img));
	if (!px || !png_image_finish_read(img, NULL, px, 0, NULL)) {
		fprintf(stderr, "compositor-diff-png: %s: %s\n", path,
			px ? img->message : "no memory");
		free(px);
		png_image_free(img);
		return NULL;
	}
	return px;
}

int
main(int argc, char **argv)
{
	png_image ia, ib;
	unsigned char *a, *b;
	long r[4], x0 = 0, y0 = 0, x1 = 0, y1 = 0, n = 0;

	if (argc != 7) {
		fprintf(stderr,
			"usage: compositor-diff-png A.png B.png X Y W H\n");
		return 2;
	}
	for (int i = 0; i < 4; i++)
		r[i] = strtol(argv[3 + i], NULL, 10);
	a = load(argv[1], &ia);
	b = a ? load(argv[2], &ib) : NULL;
	if (!a || !b || ia.width != ib.width || ia.height != ib.height) {
		if (a && b)
			fprintf(stderr,
				"compositor-diff-png: the sizes differ\n");
		free(a);
		free(b);
		return 2;
	}
	for (long y = r[1] < 0 ? 0 : r[1];
	     y < r[1] + r[3] && y < (long)ia.height; y++)
		for (long x = r[0] < 0 ? 0 : r[0];
		     x < r[0] + r[2] && x < (long)ia.width; x++) {
			size_t o = ((size_t)y * ia.width + (size_t)x) * 3;

			if (!memcmp(a + o, b + o, 3))
				continue;
			if (!n++) {
				x0 = x1 = x;
				y0 = y1 = y;
			}
			x0 = x < x0 ? x : x0;
			y0 = y < y0 ? y : y0;
			x1 = x + 1 > x1 ? x + 1 : x1;
			y1 = y + 1 > y1 ? y + 1 : y1;
		}
	printf("%ld %ld %ld %ld %ld\n", n, x0, y0, x1, y1);
	free(a);
	free(b);
	return 0;
}
