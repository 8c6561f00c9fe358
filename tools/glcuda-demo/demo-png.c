/*
 * glcuda-demo: PNG snapshots of the screen.
 * SPDX-License-Identifier: MIT
 */
#include "demo.h"

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
				fprintf(stderr,
					"glcuda-demo: cannot create directory "
					"%s: %s\n",
					d->opt.output, strerror(errno));
				return 1;
			}
			d->out_dir_made = true;
		}
		snprintf(path, sizeof(path), "%s%sframe-%06llu.png",
			 d->opt.output,
			 d->opt.output[strlen(d->opt.output) - 1] == '/' ? ""
									 : "/",
			 (unsigned long long)number);
	} else {
		snprintf(path, sizeof(path), "%s-%06llu.png", d->opt.output,
			 (unsigned long long)number);
	}
	if (!d->readback) {
		d->readback = malloc(size);
		if (!d->readback) {
			fprintf(stderr, "glcuda-demo: out of memory for the "
					"PNG readback\n");
			return 1;
		}
	}
	glBindFramebuffer(GL_READ_FRAMEBUFFER, d->screen_fbo);
	glPixelStorei(GL_PACK_ALIGNMENT, 1);
	glReadPixels(0, 0, (GLsizei)d->opt.width, (GLsizei)d->opt.height,
		     GL_RGBA, GL_UNSIGNED_BYTE, d->readback);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
	if (gl_failed_check("reading the screen back for a PNG"))
		return 1;
	/* GL's rows go bottom-up. */
	if (png_file_write_rgba("glcuda-demo", path, d->readback, d->opt.width,
				d->opt.height, true, 3) < 0)
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
		d->png_next_every =
			(number / d->opt.png_every + 1) * d->opt.png_every;
	}
	return want;
}
