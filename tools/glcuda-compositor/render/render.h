/*
 * glcuda-compositor's renderer: compositing the mapped surfaces, the ring
 * and the CUDA stage (render.c).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_COMPOSITOR_RENDER_H
#define GLCUDA_COMPOSITOR_RENDER_H

#include <epoxy/gl.h>

#include <stdbool.h>
#include <stdint.h>

#include <wayland-server-core.h>

struct comp;

/* render.c */
/* What a ring frame shows, kept with the frame as its user data
 * (glcuda_frame_set_user_data): render_frame fills it when it composites
 * the frame, output.c reads it when it presents the frame. */
struct frame_content {
	struct wl_list link;            /* render.c's */
	struct wl_list feedback;        /* wp_presentation_feedback resources */
	bool shows_window;              /* a window is in it */
	uint64_t composite;             /* its number (comp.composited) */
	uint64_t commits;               /* the commits in it (comp.commits) */
};
int render_init(struct comp *c);
void render_fini(struct comp *c);
/* Composite every mapped surface into a new ring frame and hand it to
 * CUDA. false when the ring had no free slot (try at the next vblank). */
bool render_frame(struct comp *c);
void render_collect_timings(struct comp *c);
/* A glcuda call failed: says which (what), its error and glcuda's message,
 * and stops the compositor with status 1. */
void render_fail(struct comp *c, const char *what, int err);

#endif
