/*
 * glcuda-compositor: the output. A timerfd at the refresh rate stands in
 * for the vblank: at each tick the newest frame whose CUDA stage is done is
 * presented, the clients' frame callbacks are sent, and, if anything
 * changed, the next frame is composited.
 *
 * The output is the clock alone: what is done with its frames listens to
 * its events (struct output.events): capture.c writes them out (PNG files,
 * a y4m stream, screenshots), presentation.c sends the feedback, control.c
 * answers the waits for frames.
 * SPDX-License-Identifier: MIT
 */
#include "output/output.h"
#include "comp.h"
#include "render/render.h"
#include "surface/surface.h"

#include <errno.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

/* One frame of the output, at one vblank: what was presented last, new
 * or repeated. The PNGs, the y4m stream and --frames count these, so the
 * stream has one frame per refresh, as its header says. */
static int
output_frame(struct comp *c)
{
	struct output_event ev = { .n = c->out.frames++ };

	if (c->out.shows_window)
		c->out.window_frames++;
	wl_signal_emit(&c->out.events.frame, &ev);
	return ev.err;
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
	struct output_event ev = { .frame = f, .content = fc };

	if (output_repeat(c, missed) < 0)
		return -1;
	wl_signal_emit(&c->out.events.present, &ev);
	if (ev.err < 0)
		return -1;
	c->out.have_frame = true;
	c->out.shows_window = fc->shows_window;
	c->out.shown_commits = fc->commits;
	c->out.shown_composite = fc->composite;
	c->out.presented++;
	ev.n = c->out.frames;
	if (output_frame(c) < 0)
		return -1;
	ev.when_ns = clock_now_ns();
	wl_signal_emit(&c->out.events.presented, &ev);
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

void
output_events_init(struct comp *c)
{
	wl_signal_init(&c->out.events.present);
	wl_signal_init(&c->out.events.frame);
	wl_signal_init(&c->out.events.presented);
}

int
output_init(struct comp *c)
{
	struct itimerspec its = { 0 };

	c->out.refresh_ns = 1000000000u / c->opt.refresh_hz;
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
}
