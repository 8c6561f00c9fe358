/*
 * Checks a frame written by glcuda-compositor, for
 * tests/test-compositor.sh:
 *
 *   compositor-check-png FILE X Y W H R G B [PX PY PR PG PB]
 *
 * Every pixel outside the rectangle X,Y,W,H (the client's window) must be
 * the background R,G,B; inside it the pixels must not all be the
 * background, nor all one colour (the client's pattern is there). With
 * PX PY PR PG PB, the pixel at PX,PY must be PR,PG,PB. Exit 0 when all
 * holds, 1 with the first difference otherwise.
 * SPDX-License-Identifier: MIT
 */
#include <png.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
	png_image img;
	unsigned char *px;
	long a[13];
	long x0, y0, w, h;
	unsigned long inside = 0, inside_bg = 0, inside_first_same = 0;
	unsigned char first[3] = { 0 };

	if (argc != 9 && argc != 14) {
		fprintf(stderr, "usage: compositor-check-png FILE X Y W H R G B [PX PY PR PG PB]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++)
		a[i - 2] = strtol(argv[i], NULL, 10);
	x0 = a[0], y0 = a[1], w = a[2], h = a[3];
	memset(&img, 0, sizeof(img));
	img.version = PNG_IMAGE_VERSION;
	if (!png_image_begin_read_from_file(&img, argv[1])) {
		fprintf(stderr, "%s: %s\n", argv[1], img.message);
		return 1;
	}
	img.format = PNG_FORMAT_RGB;
	px = malloc(PNG_IMAGE_SIZE(img));
	if (!px || !png_image_finish_read(&img, NULL, px, 0, NULL)) {
		fprintf(stderr, "%s: cannot decode\n", argv[1]);
		return 1;
	}
	for (long y = 0; y < (long)img.height; y++)
		for (long x = 0; x < (long)img.width; x++) {
			const unsigned char *p = px + ((size_t)y * img.width + (size_t)x) * 3;
			bool in = x >= x0 && x < x0 + w && y >= y0 && y < y0 + h;
			bool bg = p[0] == a[4] && p[1] == a[5] && p[2] == a[6];
			if (!in && !bg) {
				printf("FAIL: %s: pixel %ld,%ld outside the window is %d,%d,%d, not the "
				       "background %ld,%ld,%ld\n", argv[1], x, y, p[0], p[1], p[2],
				       a[4], a[5], a[6]);
				return 1;
			}
			if (in) {
				if (inside == 0)
					memcpy(first, p, 3);
				inside++;
				inside_bg += bg;
				inside_first_same += !memcmp(first, p, 3);
			}
		}
	if (inside == 0 || inside_bg == inside || inside_first_same == inside) {
		printf("FAIL: %s: the window %ldx%ld at %ld,%ld is %s\n", argv[1], w, h, x0, y0,
		       inside == 0 ? "outside the frame" :
		       inside_bg == inside ? "all background" : "one colour");
		return 1;
	}
	if (argc == 14) {
		const unsigned char *p = px + ((size_t)a[8] * img.width + (size_t)a[7]) * 3;
		if (p[0] != a[9] || p[1] != a[10] || p[2] != a[11]) {
			printf("FAIL: %s: pixel %ld,%ld is %d,%d,%d, expected %ld,%ld,%ld\n", argv[1],
			       a[7], a[8], p[0], p[1], p[2], a[9], a[10], a[11]);
			return 1;
		}
	}
	printf("ok: %s: background outside the window, %lu pixels of the client's inside\n",
	       argv[1], inside - inside_bg);
	free(px);
	png_image_free(&img);
	return 0;
}
