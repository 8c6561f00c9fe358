/*
 * glcuda-demo: PNG snapshots of the screen.
 * SPDX-License-Identifier: MIT
 */
#include "demo.h"

int
write_png(const char *path, const uint8_t *rgba, uint32_t w, uint32_t h)
{
	png_structp png = NULL;
	png_infop info = NULL;
	png_bytep *rows = malloc(h * sizeof(*rows));
	FILE *fp = NULL;
	volatile int ret = 1; /* set after setjmp */

	if (!rows) {
		fprintf(stderr, "glcuda-demo: out of memory writing %s\n", path);
		return 1;
	}
	/* GL's rows go bottom-up, PNG's top-down. */
	for (uint32_t y = 0; y < h; y++)
		rows[y] = (png_bytep)(rgba + (size_t)(h - 1 - y) * w * 4);
	fp = fopen(path, "wb");
	if (!fp) {
		fprintf(stderr, "glcuda-demo: cannot create %s: %s\n", path, strerror(errno));
		free(rows);
		return 1;
	}
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	if (png)
		info = png_create_info_struct(png);
	if (!png || !info) {
		fprintf(stderr, "glcuda-demo: libpng: out of memory\n");
		goto out;
	}
	if (setjmp(png_jmpbuf(png))) {
		fprintf(stderr, "glcuda-demo: libpng failed writing %s\n", path);
		goto out;
	}
	png_init_io(png, fp);
	png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_set_compression_level(png, 3);
	png_write_info(png, info);
	png_write_image(png, rows);
	png_write_end(png, NULL);
	ret = 0;
out:
	png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
	if (fclose(fp) != 0 && ret == 0) {
		fprintf(stderr, "glcuda-demo: writing %s: %s\n", path, strerror(errno));
		ret = 1;
	}
	free(rows);
	return ret;
}

/* Read the screen back (only for frames written as PNG) and write it. */
int
save_screen(struct demo *d, uint64_t number)
{
	char path[PATH_MAX];
	size_t size = (size_t)d->opt.width * d->opt.height * 4;

	if (d->png_last_written == number + 1)
		return 0;
	if (d->out_is_dir) {
		if (!d->out_dir_made) {
			if (mkdir(d->opt.output, 0777) < 0 && errno != EEXIST) {
				fprintf(stderr, "glcuda-demo: cannot create directory %s: %s\n",
					d->opt.output, strerror(errno));
				return 1;
			}
			d->out_dir_made = true;
		}
		snprintf(path, sizeof(path), "%s%sframe-%06llu.png", d->opt.output,
			 d->opt.output[strlen(d->opt.output) - 1] == '/' ? "" : "/",
			 (unsigned long long)number);
	} else {
		snprintf(path, sizeof(path), "%s-%06llu.png", d->opt.output,
			 (unsigned long long)number);
	}
	if (!d->readback) {
		d->readback = malloc(size);
		if (!d->readback) {
			fprintf(stderr, "glcuda-demo: out of memory for the PNG readback\n");
			return 1;
		}
	}
	glBindFramebuffer(GL_READ_FRAMEBUFFER, d->screen_fbo);
	glPixelStorei(GL_PACK_ALIGNMENT, 1);
	glReadPixels(0, 0, (GLsizei)d->opt.width, (GLsizei)d->opt.height, GL_RGBA,
		     GL_UNSIGNED_BYTE, d->readback);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
	if (gl_failed_check("reading the screen back for a PNG"))
		return 1;
	if (write_png(path, d->readback, d->opt.width, d->opt.height))
		return 1;
	d->png_last_written = number + 1;
	d->png_count++;
	if (!d->opt.quiet) {
		if (d->progress_tty)
			fprintf(stderr, "\r\033[K");
		fprintf(stderr, "glcuda-demo: wrote %s\n", path);
	}
	return 0;
}

/* Whether the presented frame `number` is one to write: the first
 * presented frame at or after each asked-for number. */
bool
png_wanted(struct demo *d, uint64_t number)
{
	bool want = false;

	while (d->png_next < d->opt.png_frame_count &&
	       d->opt.png_frames[d->png_next] <= number) {
		want = true;
		d->png_next++;
	}
	if (d->opt.png_every && number >= d->png_next_every) {
		want = true;
		d->png_next_every = (number / d->opt.png_every + 1) * d->opt.png_every;
	}
	return want;
}
