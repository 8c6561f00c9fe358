/*
 * glcuda-compositor: what the output's frames are written to: PNG files,
 * a y4m stream and the control socket's screenshots. It listens to the
 * output's events (output.c is the clock alone): at "present", a new
 * frame's pixels are read back (only when something will write them); at
 * each "frame", new or repeated, the PNG and the y4m frame are written.
 *
 * Both need the pixels on the CPU, so presented frames (only those) are
 * read back with glReadPixels and converted to YUV on the CPU. That
 * readback is the cost of this output, a file instead of a screen; the
 * hand-off itself (GL -> CUDA -> GL) copies nothing. A compositor with a
 * display would scan the output texture out or sample it instead.
 * SPDX-License-Identifier: MIT
 */
#include "output/output.h"
#include "comp.h"
#include "resource.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "png-file.h"

/* BT.601, limited range (what y4m readers assume), fixed point. */
static inline uint8_t
rgb_y(int r, int g, int b)
{
	return (uint8_t)((66 * r + 129 * g + 25 * b + 128) / 256 + 16);
}

static inline uint8_t
rgb_u(int r, int g, int b)
{
	return (uint8_t)((-38 * r - 74 * g + 112 * b + 128) / 256 + 128);
}

static inline uint8_t
rgb_v(int r, int g, int b)
{
	return (uint8_t)((112 * r - 94 * g - 18 * b + 128) / 256 + 128);
}

/* The frame's RGBA in YUV, into y4m_buf; its size in *len. */
static void
y4m_convert(struct comp *c, const uint8_t *rgba, size_t *len)
{
	uint32_t w = c->opt.width, h = c->opt.height;
	size_t npix = (size_t)w * h;
	uint8_t *y = c->cap.y4m_buf, *u = y + npix, *v;
	size_t csize;

	if (c->opt.chroma == Y4M_444) {
		v = u + npix;
		for (size_t i = 0; i < npix; i++) {
			const uint8_t *p = rgba + i * 4;
			y[i] = rgb_y(p[0], p[1], p[2]);
			u[i] = rgb_u(p[0], p[1], p[2]);
			v[i] = rgb_v(p[0], p[1], p[2]);
		}
		csize = npix;
	} else {
		/* 4:2:0: chroma of the mean of each 2x2 block. */
		csize = npix / 4;
		v = u + csize;
		for (uint32_t j = 0; j < h; j++)
			for (uint32_t i = 0; i < w; i++) {
				const uint8_t *p =
					rgba + ((size_t)j * w + i) * 4;
				y[(size_t)j * w + i] = rgb_y(p[0], p[1], p[2]);
			}
		for (uint32_t j = 0; j < h / 2; j++)
			for (uint32_t i = 0; i < w / 2; i++) {
				int r = 0, g = 0, b = 0;
				for (int k = 0; k < 4; k++) {
					const uint8_t *p =
						rgba +
						((size_t)(2 * j + k / 2) * w +
						 2 * i + k % 2) *
							4;
					r += p[0];
					g += p[1];
					b += p[2];
				}
				u[(size_t)j * (w / 2) + i] =
					rgb_u(r / 4, g / 4, b / 4);
				v[(size_t)j * (w / 2) + i] =
					rgb_v(r / 4, g / 4, b / 4);
			}
	}
	*len = npix + 2 * csize;
}

/* One frame of the stream: the frame presented last, converted once
 * however often it is repeated. */
static int
write_y4m(struct comp *c)
{
	if (c->cap.y4m_composite != c->out.shown_composite) {
		y4m_convert(c, c->cap.readback, &c->cap.y4m_len);
		c->cap.y4m_composite = c->out.shown_composite;
	}
	if (fputs("FRAME\n", c->cap.y4m) == EOF ||
	    fwrite(c->cap.y4m_buf, 1, c->cap.y4m_len, c->cap.y4m) !=
		    c->cap.y4m_len) {
		fprintf(stderr, COMP_NAME ": writing the y4m stream: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* The presented frame's pixels into c->cap.readback, when something will
 * write them: PNGs, the y4m stream, a screenshot asked for
 * (capture_want_pixels). */
static int
read_back(struct comp *c, struct glcuda_frame *f)
{
	c->cap.readback_valid = false;
	if (!c->opt.png_every && !c->cap.y4m && !c->cap.pixels_wanted)
		return 0;
	/* The output's cost: a readback of the presented frame. */
	glBindFramebuffer(GL_READ_FRAMEBUFFER, c->cap.read_fbo);
	glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D,
			       glcuda_frame_get_output_texture(f), 0);
	glPixelStorei(GL_PACK_ALIGNMENT, 1);
	glReadPixels(0, 0, (GLsizei)c->opt.width, (GLsizei)c->opt.height,
		     GL_RGBA, GL_UNSIGNED_BYTE, c->cap.readback);
	glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, 0, 0);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
	if (glGetError() != GL_NO_ERROR) {
		fprintf(stderr, COMP_NAME
			": reading the presented frame back failed\n");
		return -1;
	}
	c->cap.readback_valid = true;
	return 0;
}

int
capture_write_png(struct comp *c, const char *path)
{
	if (!c->cap.readback_valid) {
		fprintf(stderr,
			COMP_NAME ": no pixels of the presented frame for %s\n",
			path);
		return -1;
	}
	/* Row 0 of the ring's images is the top (render.c). */
	if (png_file_write_rgba(COMP_NAME, path, c->cap.readback, c->opt.width,
				c->opt.height, false, 1) < 0)
		return -1;
	if (c->opt.verbose)
		fprintf(stderr, COMP_NAME ": wrote %s\n", path);
	return 0;
}

/* The PNG of output frame n. A repeated frame is a hard link to the PNG
 * of the same frame written before (where the file system has them): an
 * encode at every refresh would take longer than the refresh. */
static int
write_frame_png(struct comp *c, uint64_t n)
{
	char path[PATH_MAX], last[PATH_MAX];

	snprintf(path, sizeof(path), "%s/frame-%06llu.png", c->opt.png_dir,
		 (unsigned long long)n);
	snprintf(last, sizeof(last), "%s/frame-%06llu.png", c->opt.png_dir,
		 (unsigned long long)c->cap.png_last);
	if (!(c->cap.png_written &&
	      c->cap.png_composite == c->out.shown_composite &&
	      link(last, path) == 0) &&
	    capture_write_png(c, path) < 0)
		return -1;
	c->cap.png_written++;
	c->cap.png_last = n;
	c->cap.png_composite = c->out.shown_composite;
	return 0;
}

/* One frame of the output, new or repeated: the PNGs, the y4m stream. */
static void
on_frame(struct wl_listener *listener, void *data)
{
	struct comp *c = wl_container_of(listener, c, cap.frame);
	struct output_event *ev = data;

	if (c->opt.png_every && ev->n % c->opt.png_every == 0 &&
	    write_frame_png(c, ev->n) < 0)
		ev->err = -1;
	else if (c->cap.y4m && write_y4m(c) < 0)
		ev->err = -1;
}

/* A new frame presented, before it is output: its pixels read back. */
static void
on_present(struct wl_listener *listener, void *data)
{
	struct comp *c = wl_container_of(listener, c, cap.present);
	struct output_event *ev = data;

	if (read_back(c, ev->frame) < 0)
		ev->err = -1;
}

void
capture_want_pixels(struct comp *c, bool want)
{
	if (want)
		c->cap.pixels_wanted++;
	else
		c->cap.pixels_wanted--;
}

int
capture_init(struct comp *c)
{
	size_t npix = (size_t)c->opt.width * c->opt.height;

	c->cap.readback = malloc(npix * 4);
	if (!c->cap.readback) {
		fprintf(stderr, COMP_NAME ": out of memory\n");
		return -1;
	}
	/* The framebuffer read_back() attaches a presented frame's output
	 * texture to. */
	glGenFramebuffers(1, &c->cap.read_fbo);
	if (glGetError() != GL_NO_ERROR) {
		fprintf(stderr, COMP_NAME ": cannot create the framebuffer "
			"to read frames back\n");
		return -1;
	}
	if (c->opt.png_every && mkdir(c->opt.png_dir, 0777) < 0 &&
	    errno != EEXIST) {
		fprintf(stderr, COMP_NAME ": cannot create %s: %s\n",
			c->opt.png_dir, strerror(errno));
		return -1;
	}
	if (c->opt.output) {
		c->cap.y4m_buf = malloc(npix * 3);
		if (!c->cap.y4m_buf) {
			fprintf(stderr, COMP_NAME ": out of memory\n");
			return -1;
		}
		c->cap.y4m = strcmp(c->opt.output, "-")
				     ? fopen(c->opt.output, "wb")
				     : stdout;
		if (!c->cap.y4m) {
			fprintf(stderr, COMP_NAME ": cannot create %s: %s\n",
				c->opt.output, strerror(errno));
			return -1;
		}
		fprintf(c->cap.y4m,
			"YUV4MPEG2 W%u H%u F%u:1 Ip A1:1 %s XYSCSS=%s\n",
			c->opt.width, c->opt.height, c->opt.refresh_hz,
			c->opt.chroma == Y4M_444 ? "C444" : "C420jpeg",
			c->opt.chroma == Y4M_444 ? "444" : "420JPEG");
	}
	c->cap.present.notify = on_present;
	wl_signal_add(&c->out.events.present, &c->cap.present);
	c->cap.frame.notify = on_frame;
	wl_signal_add(&c->out.events.frame, &c->cap.frame);
	return 0;
}

void
capture_fini(struct comp *c)
{
	if (c->cap.present.notify) {
		listener_detach(&c->cap.present);
		listener_detach(&c->cap.frame);
	}
	if (c->cap.y4m && c->cap.y4m != stdout)
		fclose(c->cap.y4m);
	else if (c->cap.y4m)
		fflush(stdout);
	c->cap.y4m = NULL;
	free(c->cap.y4m_buf);
	c->cap.y4m_buf = NULL;
	free(c->cap.readback);
	c->cap.readback = NULL;
	if (c->cap.read_fbo)
		glDeleteFramebuffers(1, &c->cap.read_fbo);
	c->cap.read_fbo = 0;
}
