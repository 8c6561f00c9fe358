/*
 * glcuda-compositor's output: the clock (output.c), what its frames are
 * written to (capture.c), its xdg-output (xdg-output.c).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_COMPOSITOR_OUTPUT_H
#define GLCUDA_COMPOSITOR_OUTPUT_H

#include <epoxy/gl.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <wayland-server-core.h>

struct comp;
struct frame_content;
struct glcuda_frame;

/* What the output's events carry (struct output.events). */
struct output_event {
	/* present: the new frame presented (its output texture) */
	struct glcuda_frame *frame;
	/* present, presented: what the frame shows */
	struct frame_content *content;
	/* frame, presented: the output frame's number (the presentation
	 * sequence); presented: the vblank's time */
	uint64_t n, when_ns;
	/* present, frame: set by a listener that failed (the compositor
	 * then stops with status 1) */
	int err;
};

/* The one output: its vblank and its frames (output.c, the clock alone;
 * main.c and control.c read its counts). What is done with the frames
 * listens to its events, each with a struct output_event. */
struct output {
	uint64_t refresh_ns;
	int vblank_fd;
	struct wl_event_source *vblank_src, *ring_src;
	uint64_t presented;             /* frames presented */
	/* The output's frames, one per vblank from the first frame presented
	 * on (a frame is repeated until the next is presented): PNGs, y4m,
	 * the presentation sequence. */
	uint64_t frames;
	uint64_t skipped;               /* vblanks past a second late */
	/* output frames with a window in them: --frames */
	uint64_t window_frames;
	bool have_frame;                /* a frame was presented */
	/* the one presented last has a window */
	bool shows_window;
	uint64_t shown_commits;         /* and the commits in it */
	uint64_t shown_composite;       /* and its number (render_frame's) */
	struct {
		/* A new frame is presented at this vblank, before it is
		 * output (frame): its pixels may be read. */
		struct wl_signal present;
		/* An output frame, the new one or the last one repeated. */
		struct wl_signal frame;
		/* The new frame was output: its feedback, the waits for it. */
		struct wl_signal presented;
	} events;
};

/* What the frames are written to (capture.c). */
struct capture {
	/* The presented frame read back: readback holds its pixels when
	 * readback_valid; read_fbo is what reads them. */
	GLuint read_fbo;
	uint8_t *readback;
	bool readback_valid;
	/* screenshots waiting: the next frame must be read back */
	unsigned int pixels_wanted;
	/* PNGs: how many written; the last one's frame and composite. */
	uint64_t png_written, png_last, png_composite;
	FILE *y4m;
	uint8_t *y4m_buf;
	uint64_t y4m_composite;         /* the frame y4m_buf holds */
	size_t y4m_len;
	struct wl_listener present, frame;
};

/* xdg-output.c */
bool xdg_output_init(struct comp *c);

/* output.c */
/* Send the frame callbacks of every state applied so far (not those of a
 * state cached or waiting for its upload): after a composite, which shows
 * that state, or at a vblank when the commits since the last one changed
 * nothing visible (on_vblank's frame_only). */
void output_send_frame_done(struct comp *c);
/* The output's events, before anything listens. */
void output_events_init(struct comp *c);
int output_init(struct comp *c);
void output_fini(struct comp *c);

/* capture.c */
int capture_init(struct comp *c);
void capture_fini(struct comp *c);
/* A screenshot waits (want) or no longer: while one does, presented
 * frames are read back. */
void capture_want_pixels(struct comp *c, bool want);
/* The last presented frame's pixels as a PNG file. */
int capture_write_png(struct comp *c, const char *path);

#endif
