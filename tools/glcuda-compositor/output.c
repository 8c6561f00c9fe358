/*
 * glcuda-compositor: the output. A timerfd at the refresh rate stands in
 * for the vblank: at each tick the newest frame whose CUDA stage is done is
 * presented, the clients' frame callbacks are sent, and, if anything
 * changed, the next frame is composited.
 *
 * "Presenting" writes the frame out: PNG files and a y4m stream. Both need
 * the pixels on the CPU, so presented frames (only those) are read back
 * with glReadPixels and converted to YUV on the CPU. That readback is the
 * cost of this output, a file instead of a screen; the hand-off itself
 * (GL -> CUDA -> GL) copies nothing. A compositor with a display would
 * scan the output texture out or sample it instead.
 * SPDX-License-Identifier: MIT
 */
#include "compositor.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
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
	uint8_t *y = c->out.y4m_buf, *u = y + npix, *v;
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
	if (c->out.y4m_composite != c->out.shown_composite) {
		y4m_convert(c, c->out.readback, &c->out.y4m_len);
		c->out.y4m_composite = c->out.shown_composite;
	}
	if (fputs("FRAME\n", c->out.y4m) == EOF ||
	    fwrite(c->out.y4m_buf, 1, c->out.y4m_len, c->out.y4m) !=
		    c->out.y4m_len) {
		fprintf(stderr, COMP_NAME ": writing the y4m stream: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* The presented frame's pixels into c->out.readback, when something will
 * write them: PNGs, the y4m stream, a screenshot asked for. */
static int
read_back(struct comp *c, struct glcuda_frame *f)
{
	c->out.readback_valid = false;
	if (!c->opt.png_every && !c->out.y4m && !control_wants_pixels(c))
		return 0;
	/* The output's cost: a readback of the presented frame. */
	glBindFramebuffer(GL_READ_FRAMEBUFFER, c->out.read_fbo);
	glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D,
			       glcuda_frame_get_output_texture(f), 0);
	glPixelStorei(GL_PACK_ALIGNMENT, 1);
	glReadPixels(0, 0, (GLsizei)c->opt.width, (GLsizei)c->opt.height,
		     GL_RGBA, GL_UNSIGNED_BYTE, c->out.readback);
	glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, 0, 0);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
	if (glGetError() != GL_NO_ERROR) {
		fprintf(stderr, COMP_NAME
			": reading the presented frame back failed\n");
		return -1;
	}
	c->out.readback_valid = true;
	return 0;
}

int
output_write_png(struct comp *c, const char *path)
{
	if (!c->out.readback_valid) {
		fprintf(stderr,
			COMP_NAME ": no pixels of the presented frame for %s\n",
			path);
		return -1;
	}
	/* Row 0 of the ring's images is the top (render.c). */
	if (png_file_write_rgba(COMP_NAME, path, c->out.readback, c->opt.width,
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
		 (unsigned long long)c->out.png_last);
	if (!(c->out.png_written &&
	      c->out.png_composite == c->out.shown_composite &&
	      link(last, path) == 0) &&
	    output_write_png(c, path) < 0)
		return -1;
	c->out.png_written++;
	c->out.png_last = n;
	c->out.png_composite = c->out.shown_composite;
	return 0;
}

/* One frame of the output, at one vblank: what was presented last, new
 * or repeated. The PNGs, the y4m stream and --frames count these, so the
 * stream has one frame per refresh, as its header says. */
static int
output_frame(struct comp *c)
{
	uint64_t n = c->out.frames++;

	if (c->out.shows_window)
		c->out.window_frames++;
	if (c->opt.png_every && n % c->opt.png_every == 0 &&
	    write_frame_png(c, n) < 0)
		return -1;
	if (c->out.y4m && write_y4m(c) < 0)
		return -1;
	return 0;
}

/* The vblanks the loop missed (it was late: a slow client, a loaded
 * machine) showed the previous frame: the output repeats it. */
static int
output_repeat(struct comp *c, uint64_t n)
{
	for (uint64_t i = 0; i < n && c->out.have_frame; i++) {
		if (c->opt.frames && c->out.window_frames >= c->opt.frames)
			break;
		if (output_frame(c) < 0)
			return -1;
	}
	return 0;
}

/* A frame whose CUDA stage is done, at this vblank: the output's next
 * frame, its feedback, the control socket's waits. */
static int
output_present(struct comp *c, struct glcuda_frame *f, uint64_t missed)
{
	struct frame_content *fc = glcuda_frame_get_user_data(f);
	uint64_t seq;

	if (output_repeat(c, missed) < 0 || read_back(c, f) < 0)
		return -1;
	c->out.have_frame = true;
	c->out.shows_window = fc->shows_window;
	c->out.shown_commits = fc->commits;
	c->out.shown_composite = fc->composite;
	c->out.presented++;
	seq = c->out.frames;
	if (output_frame(c) < 0)
		return -1;
	presentation_send_presented(c, &fc->feedback, clock_now_ns(), seq);
	control_frame_presented(c, fc->composite, fc->commits, seq);
	return 0;
}

void
output_send_frame_done(struct comp *c)
{
	uint32_t ms = (uint32_t)(clock_now_ns() / 1000000u);
	struct surface *s;

	wl_list_for_each(s, &c->surfaces, link) {
		struct wl_resource *cb, *tmp;
		wl_resource_for_each_safe(cb, tmp, &s->frames) {
			wl_callback_send_done(cb, ms);
			wl_resource_destroy(cb);
		}
	}
}

/* The ring's fd: CUDA finished a frame. Only bookkeeping: the frame is
 * presented at the next vblank, the newest one winning. */
static int
on_ring_ready(int fd, uint32_t mask, void *data)
{
	struct comp *c = data;
	int ret = glcuda_ring_dispatch(c->ring);

	if (ret < 0)
		render_fail(c, "glcuda_ring_dispatch", ret);
	return 0;
}

/* The vblanks this one stands for, the missed ones included: at most a
 * second's worth. Making up a missed vblank costs an output frame (a PNG
 * link or encode, a y4m frame); a loop later than a second (a stopped or
 * starved process) skips the rest, counted for the report. Without the
 * bound, one late vblank made the next later still whenever a frame costs
 * more than the refresh period (a loaded machine, a slow disk): the loop
 * then spent all its time catching up and never again served its clients,
 * their exits or SIGTERM. */
static uint64_t
vblanks_to_output(struct comp *c, uint64_t ticks)
{
	if (ticks <= c->opt.refresh_hz)
		return ticks;
	c->out.skipped += ticks - c->opt.refresh_hz;
	return c->opt.refresh_hz;
}

static int
on_vblank(int fd, uint32_t mask, void *data)
{
	struct comp *c = data;
	struct glcuda_frame *f;
	uint64_t ticks = 0;
	int ret;

	if (read(fd, &ticks, sizeof(ticks)) != (ssize_t)sizeof(ticks) ||
	    !c->running)
		return 0;
	ticks = vblanks_to_output(c, ticks);

	/* Present: the newest finished frame (older ones are dropped). This
	 * enqueues GL's wait for CUDA; the readback comes after it. Without
	 * one, the output repeats what it showed. */
	ret = glcuda_ring_take_newest(c->ring, &f);
	if (ret == 0) {
		if (output_present(c, f, ticks - 1) < 0) {
			c->status = 1;
			c->running = false;
		}
		ret = glcuda_frame_release(f);
		if (ret < 0)
			render_fail(c, "glcuda_frame_release", ret);
		render_collect_timings(c);
	} else if (ret == -EAGAIN) {
		if (output_repeat(c, ticks) < 0) {
			c->status = 1;
			c->running = false;
		}
	} else {
		render_fail(c, "glcuda_ring_take_newest", ret);
		return 0;
	}
	/* --frames counts the frames with a window in them: however long
	 * the client takes to start, its content is shown. */
	if (c->opt.frames && c->out.window_frames >= c->opt.frames) {
		c->running = false;
		return 0;
	}

	/* The next slice of the large uploads: one that completes applies
	 * its commit here (the rule is surface.c's) and changes what the
	 * composite below shows. */
	surface_uploads_step(c);

	/* Composite what changed; the clients' frame callbacks go out once
	 * their content is in a frame, so they draw at the refresh rate. */
	if (c->damaged && render_frame(c)) {
		c->damaged = false;
		c->frame_only = false;
		output_send_frame_done(c);
	} else if (!c->damaged && c->frame_only) {
		/* Commits that changed nothing visible: no composite, but the
		 * clients may draw their next frame. */
		c->frame_only = false;
		output_send_frame_done(c);
	}
	return 0;
}

int
output_init(struct comp *c)
{
	struct itimerspec its = { 0 };
	size_t npix = (size_t)c->opt.width * c->opt.height;

	c->out.refresh_ns = 1000000000u / c->opt.refresh_hz;
	c->out.readback = malloc(npix * 4);
	if (!c->out.readback) {
		fprintf(stderr, COMP_NAME ": out of memory\n");
		return -1;
	}
	/* The framebuffer read_back() attaches a presented frame's output
	 * texture to. */
	glGenFramebuffers(1, &c->out.read_fbo);
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
		c->out.y4m_buf = malloc(npix * 3);
		if (!c->out.y4m_buf) {
			fprintf(stderr, COMP_NAME ": out of memory\n");
			return -1;
		}
		c->out.y4m = strcmp(c->opt.output, "-")
				     ? fopen(c->opt.output, "wb")
				     : stdout;
		if (!c->out.y4m) {
			fprintf(stderr, COMP_NAME ": cannot create %s: %s\n",
				c->opt.output, strerror(errno));
			return -1;
		}
		fprintf(c->out.y4m,
			"YUV4MPEG2 W%u H%u F%u:1 Ip A1:1 %s XYSCSS=%s\n",
			c->opt.width, c->opt.height, c->opt.refresh_hz,
			c->opt.chroma == Y4M_444 ? "C444" : "C420jpeg",
			c->opt.chroma == Y4M_444 ? "444" : "420JPEG");
	}
	c->out.vblank_fd =
		timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (c->out.vblank_fd < 0) {
		fprintf(stderr, COMP_NAME ": timerfd_create: %s\n",
			strerror(errno));
		return -1;
	}
	its.it_interval.tv_sec = (time_t)(c->out.refresh_ns / 1000000000u);
	its.it_interval.tv_nsec = (long)(c->out.refresh_ns % 1000000000u);
	its.it_value = its.it_interval;
	if (timerfd_settime(c->out.vblank_fd, 0, &its, NULL) < 0) {
		fprintf(stderr, COMP_NAME ": timerfd_settime: %s\n",
			strerror(errno));
		return -1;
	}
	/* The ring's fd is the ring's: glcuda_ring_dispatch() drains it. */
	c->out.ring_src =
		wl_event_loop_add_fd(c->loop, glcuda_ring_get_fd(c->ring),
				     WL_EVENT_READABLE, on_ring_ready, c);
	c->out.vblank_src = wl_event_loop_add_fd(c->loop, c->out.vblank_fd,
					     WL_EVENT_READABLE, on_vblank, c);
	if (!c->out.ring_src || !c->out.vblank_src) {
		fprintf(stderr,
			COMP_NAME ": cannot add the output's event sources\n");
		return -1;
	}
	/* The first frame: the background, before any client. */
	c->damaged = true;
	return 0;
}

void
output_fini(struct comp *c)
{
	if (c->out.vblank_src)
		wl_event_source_remove(c->out.vblank_src);
	if (c->out.ring_src)
		wl_event_source_remove(c->out.ring_src);
	c->out.vblank_src = c->out.ring_src = NULL;
	if (c->out.vblank_fd >= 0)
		close(c->out.vblank_fd);
	c->out.vblank_fd = -1;
	if (c->out.y4m && c->out.y4m != stdout)
		fclose(c->out.y4m);
	else if (c->out.y4m)
		fflush(stdout);
	c->out.y4m = NULL;
	free(c->out.y4m_buf);
	c->out.y4m_buf = NULL;
	free(c->out.readback);
	c->out.readback = NULL;
	if (c->out.read_fbo)
		glDeleteFramebuffers(1, &c->out.read_fbo);
	c->out.read_fbo = 0;
}
