/*
 * Checks a frame written by glcuda-compositor, for
 * tests/test-compositor.sh and scripts/gpu-compositor-clients.sh:
 *
 *   compositor-check-png FILE X Y W H R G B [PX PY PR PG PB]
 *
 * Every pixel outside the rectangle X,Y,W,H (the client's window) must be
 * the background R,G,B; inside it the pixels must not all be the
 * background, nor all one colour (the client's pattern is there). With
 * PX PY PR PG PB, the pixel at PX,PY must be PR,PG,PB.
 *
 *   compositor-check-png --inverse FILE REF
 *
 * FILE and REF have one size and every pixel of FILE is REF's with R, G
 * and B inverted (255 - v): a frame through --filter invert against the
 * same frame through --filter none.
 *
 * Exit 0 when all holds, 1 with the first difference otherwise, 2 on a
 * usage error.
 * SPDX-License-Identifier: MIT
 */
#include <png.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FILE as 8-bit RGB: *px (free() it) and its size; false, said on stderr,
 * when it cannot be read. */
static bool
read_rgb(const char *path, unsigned char **px, unsigned long *width,
	 unsigned long *height)
{
	png_image img;

	memset(&img, 0, sizeof(img));
	img.version = PNG_IMAGE_VERSION;
	if (!png_image_begin_read_from_file(&img, path)) {
		fprintf(stderr, "%s: %s\n", path, img.message);
		return false;
	}
	img.format = PNG_FORMAT_RGB;
	*px = malloc(PNG_IMAGE_SIZE(img));
	if (!*px || !png_image_finish_read(&img, NULL, *px, 0, NULL)) {
		fprintf(stderr, "%s: cannot decode: %s\n", path,
			*px ? img.message : "out of memory");
		free(*px);
		png_image_free(&img);
		return false;
	}
	*width = img.width;
	*height = img.height;
	png_image_free(&img);
	return true;
}

static int
check_inverse(const char *file, const char *ref)
{
	unsigned char *a = NULL, *b = NULL;
	unsigned long aw, ah, bw, bh, differ = 0, fx = 0, fy = 0;
	int ret = 1;

	if (!read_rgb(file, &a, &aw, &ah))
		return 1;
	if (!read_rgb(ref, &b, &bw, &bh))
		goto out;
	if (aw != bw || ah != bh) {
		printf("FAIL: %s is %lux%lu, %s %lux%lu\n", file, aw, ah, ref,
		       bw, bh);
		goto out;
	}
	for (unsigned long i = 0; i < aw * ah; i++) {
		const unsigned char *p = a + i * 3, *q = b + i * 3;
		if (p[0] == 255 - q[0] && p[1] == 255 - q[1] &&
		    p[2] == 255 - q[2])
			continue;
		if (differ++ == 0)
			fx = i % aw, fy = i / aw;
	}
	if (differ) {
		const unsigned char *p = a + (fy * aw + fx) * 3,
				    *q = b + (fy * aw + fx) * 3;
		printf("FAIL: %s: %lu of %lu pixels are not the inverse of "
		       "%s's; the first, at %lu,%lu, is %d,%d,%d where %s has "
		       "%d,%d,%d\n",
		       file, differ, aw * ah, ref, fx, fy, p[0], p[1], p[2],
		       ref, q[0], q[1], q[2]);
		goto out;
	}
	printf("ok: %s: all %lu pixels are the inverse of %s's\n", file,
	       aw * ah, ref);
	ret = 0;
out:
	free(a);
	free(b);
	return ret;
}

static int
check_window(int argc, char **argv)
{
	unsigned char *px;
	unsigned long width, height;
	long a[13];
	long x0, y0, w, h;
	unsigned long inside = 0, inside_bg = 0, inside_first_same = 0;
	unsigned char first[3] = { 0 };
	int ret = 1;

	for (int i = 2; i < argc; i++)
		a[i - 2] = strtol(argv[i], NULL, 10);
	x0 = a[0], y0 = a[1], w = a[2], h = a[3];
	if (!read_rgb(argv[1], &px, &width, &height))
		return 1;
	for (long y = 0; y < (long)height; y++)
		for (long x = 0; x < (long)width; x++) {
			const unsigned char *p =
				px + ((size_t)y * width + (size_t)x) * 3;
			bool in = x >= x0 && x < x0 + w && y >= y0 &&
				  y < y0 + h;
			bool bg = p[0] == a[4] && p[1] == a[5] && p[2] == a[6];
			if (!in && !bg) {
				printf("FAIL: %s: pixel %ld,%ld outside the "
				       "window is %d,%d,%d, not the background "
				       "%ld,%ld,%ld\n",
				       argv[1], x, y, p[0], p[1], p[2], a[4],
				       a[5], a[6]);
				goto out;
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
		printf("FAIL: %s: the window %ldx%ld at %ld,%ld is %s\n",
		       argv[1], w, h, x0, y0,
		       inside == 0	     ? "outside the frame"
		       : inside_bg == inside ? "all background"
					     : "one colour");
		goto out;
	}
	if (argc == 14) {
		if (a[7] < 0 || a[8] < 0 || a[7] >= (long)width ||
		    a[8] >= (long)height) {
			printf("FAIL: %s: the pixel %ld,%ld is outside the "
			       "%lux%lu frame\n",
			       argv[1], a[7], a[8], width, height);
			goto out;
		}
		const unsigned char *p =
			px + ((size_t)a[8] * width + (size_t)a[7]) * 3;
		if (p[0] != a[9] || p[1] != a[10] || p[2] != a[11]) {
			printf("FAIL: %s: pixel %ld,%ld is %d,%d,%d, expected "
			       "%ld,%ld,%ld\n",
			       argv[1], a[7], a[8], p[0], p[1], p[2], a[9],
			       a[10], a[11]);
			goto out;
		}
	}
	printf("ok: %s: background outside the window, %lu pixels of the "
	       "client's inside\n",
	       argv[1], inside - inside_bg);
	ret = 0;
out:
	free(px);
	return ret;
}

int
main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--inverse"))
		return check_inverse(argv[2], argv[3]);
	if (argc == 9 || argc == 14)
		return check_window(argc, argv);
	fprintf(stderr, "usage: compositor-check-png FILE X Y W H R G B [PX PY "
			"PR PG PB]\n"
			"       compositor-check-png --inverse FILE REF\n");
	return 2;
}
