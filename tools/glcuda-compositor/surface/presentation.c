/*
 * glcuda-compositor: wp_presentation. A feedback asked for with a commit
 * goes with the surface's state; once the state is composited, with the
 * ring slot of that frame (render.c); when the frame is presented at a
 * vblank (output.c), "presented" with the vblank's time, or "discarded"
 * if the content never reaches the output (a frame overtaken, a state
 * never applied, a surface destroyed).
 * SPDX-License-Identifier: MIT
 */
#include "surface/surface.h"
#include "comp.h"
#include "output/output.h"
#include "render/render.h"
#include "resource.h"

#include <time.h>

#include "presentation-time-server-protocol.h"

static void
presentation_feedback(struct wl_client *client, struct wl_resource *resource,
		      struct wl_resource *surface_resource, uint32_t id)
{
	struct surface *s = surface_from_resource(surface_resource);
	struct wl_resource *fb =
		resource_new(client, &wp_presentation_feedback_interface, 1, id,
			     NULL, NULL, resource_unlink);

	if (!fb)
		return;
	wl_list_insert(s->pending.feedback.prev, wl_resource_get_link(fb));
}

static const struct wp_presentation_interface presentation_impl = {
	.destroy = resource_destroy_request,
	.feedback = presentation_feedback,
};

static void
bind_presentation(struct wl_client *client, void *data, uint32_t version,
		  uint32_t id)
{
	struct wl_resource *r =
		resource_new(client, &wp_presentation_interface, (int)version,
			     id, &presentation_impl, data, NULL);

	if (!r)
		return;
	wp_presentation_send_clock_id(r, CLOCK_MONOTONIC);
}

/* The content these feedbacks asked about reached the output: "presented"
 * at the vblank that showed it, with the output's refresh period. */
static void
on_presented(struct wl_listener *listener, void *data)
{
	struct comp *c = wl_container_of(listener, c, presented);
	const struct output_event *ev = data;
	uint64_t when_ns = ev->when_ns, seq = ev->n;
	struct wl_resource *fb, *tmp;

	wl_resource_for_each_safe(fb, tmp, &ev->content->feedback) {
		struct wl_client *client = wl_resource_get_client(fb);
		struct wl_resource *out;

		wl_resource_for_each(out, &c->output_resources)
			if (wl_resource_get_client(out) == client)
				wp_presentation_feedback_send_sync_output(fb,
									  out);
		wp_presentation_feedback_send_presented(
			fb, (uint32_t)((when_ns / 1000000000u) >> 32),
			(uint32_t)(when_ns / 1000000000u),
			(uint32_t)(when_ns % 1000000000u),
			(uint32_t)c->out.refresh_ns, (uint32_t)(seq >> 32),
			(uint32_t)seq, WP_PRESENTATION_FEEDBACK_KIND_VSYNC);
		wl_resource_destroy(fb);
	}
}

/* Feedback for content that never reaches the output. */
void
feedback_discard_all(struct wl_list *list)
{
	struct wl_resource *fb, *tmp;

	wl_resource_for_each_safe(fb, tmp, list) {
		wp_presentation_feedback_send_discarded(fb);
		wl_resource_destroy(fb);
	}
}

/* A surface's state that will never be applied: its feedback. */
static void
on_feedback_discard(struct wl_listener *listener, void *data)
{
	feedback_discard_all(data);
}

bool
presentation_init(struct comp *c)
{
	c->feedback_discard.notify = on_feedback_discard;
	wl_signal_add(&c->events.feedback_discard, &c->feedback_discard);
	c->presented.notify = on_presented;
	wl_signal_add(&c->out.events.presented, &c->presented);
	return wl_global_create(c->display, &wp_presentation_interface, 1, c,
				bind_presentation);
}
