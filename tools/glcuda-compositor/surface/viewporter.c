/*
 * glcuda-compositor: wp_viewporter, crop and scale of a surface. The
 * source rectangle picks the part of the buffer shown (in surface
 * coordinates after the buffer transform and scale), the destination
 * size the size the surface takes; render.c samples the source rectangle
 * over the destination (GL's linear filtering when it scales).
 *
 * The state is double-buffered with the surface's (struct surface_state,
 * whose sizes surface-state.c computes) and checked at commit, when the
 * surface's check event says so (viewport_check): a source rectangle
 * outside the buffer is out_of_buffer, a fractional one without a
 * destination size bad_size, as the XML says.
 * SPDX-License-Identifier: MIT
 */
#include "surface/surface.h"
#include "comp.h"
#include "resource.h"

#include <inttypes.h>
#include <stdlib.h>

#include "viewporter-server-protocol.h"

/* A surface's viewport: made by its first wp_viewport and kept for the
 * surface's life (the state it set may still be cached), resource NULL
 * while it has none. */
struct viewport {
	struct surface *surface;
	struct wl_resource *resource;
	struct wl_listener check, surface_destroy;
};

/* At commit, once the buffer is applied: the state's viewport checked
 * against the buffer (out_of_buffer, bad_size). */
static void
viewport_check(struct wl_listener *listener, void *data)
{
	struct viewport *vp = wl_container_of(listener, vp, check);
	struct surface_check *check = data;
	const struct viewport_state *v = &check->state->viewport;
	struct surface *s = vp->surface;

	/* A NULL buffer raises no error: no content, no size. */
	if (s->has_content && v->src_w >= 0) {
		int64_t w, h;

		surface_unviewported_size(s, check->state->scale,
					  check->state->transform, &w, &h);
		/* In 24.8 fixed point, exactly. */
		if ((int64_t)v->src_x + v->src_w > w * 256 ||
		    (int64_t)v->src_y + v->src_h > h * 256) {
			if (vp->resource)
				wl_resource_post_error(
					vp->resource,
					WP_VIEWPORT_ERROR_OUT_OF_BUFFER,
					"source rectangle %.2f,%.2f %.2fx%.2f "
					"is outside "
					"the surface's %" PRId64 "x%" PRId64
					" of buffer",
					wl_fixed_to_double(v->src_x),
					wl_fixed_to_double(v->src_y),
					wl_fixed_to_double(v->src_w),
					wl_fixed_to_double(v->src_h), w, h);
			check->refused = true;
			return;
		}
		if (v->dst_w < 0 && ((v->src_w | v->src_h) & 0xff)) {
			if (vp->resource)
				wl_resource_post_error(
					vp->resource,
					WP_VIEWPORT_ERROR_BAD_SIZE,
					"source size %.2fx%.2f is not integer "
					"and no destination size is set",
					wl_fixed_to_double(v->src_w),
					wl_fixed_to_double(v->src_h));
			check->refused = true;
			return;
		}
	}
}

/* The surface goes: its wp_viewport, if any, becomes inert. */
static void
viewport_surface_destroyed(struct wl_listener *listener, void *data)
{
	struct viewport *vp = wl_container_of(listener, vp, surface_destroy);

	if (vp->resource)
		wl_resource_set_user_data(vp->resource, NULL);
	listener_detach(&vp->check);
	listener_detach(&vp->surface_destroy);
	free(vp);
}

/* wp_viewport ------------------------------------------------------------ */

/* The surface of a viewport, or NULL after the no_surface error. */
static struct surface *
viewport_surface(struct wl_resource *resource)
{
	struct viewport *vp = wl_resource_get_user_data(resource);

	if (!vp)
		wl_resource_post_error(
			resource, WP_VIEWPORT_ERROR_NO_SURFACE,
			"the wl_surface of this wp_viewport was destroyed");
	return vp ? vp->surface : NULL;
}

static void
viewport_set_source(struct wl_client *client, struct wl_resource *resource,
		    wl_fixed_t x, wl_fixed_t y, wl_fixed_t w, wl_fixed_t h)
{
	struct surface *s = viewport_surface(resource);
	wl_fixed_t unset = wl_fixed_from_int(-1);

	if (!s)
		return;
	if (x == unset && y == unset && w == unset && h == unset) {
		s->pending.viewport.src_x = s->pending.viewport.src_y = unset;
		s->pending.viewport.src_w = s->pending.viewport.src_h = unset;
		return;
	}
	if (x < 0 || y < 0 || w <= 0 || h <= 0) {
		wl_resource_post_error(
			resource, WP_VIEWPORT_ERROR_BAD_VALUE,
			"source rectangle %.2f,%.2f %.2fx%.2f: negative "
			"position or size not positive",
			wl_fixed_to_double(x), wl_fixed_to_double(y),
			wl_fixed_to_double(w), wl_fixed_to_double(h));
		return;
	}
	s->pending.viewport.src_x = x;
	s->pending.viewport.src_y = y;
	s->pending.viewport.src_w = w;
	s->pending.viewport.src_h = h;
}

static void
viewport_set_destination(struct wl_client *client, struct wl_resource *resource,
			 int32_t w, int32_t h)
{
	struct surface *s = viewport_surface(resource);

	if (!s)
		return;
	if (!(w == -1 && h == -1) && (w <= 0 || h <= 0)) {
		wl_resource_post_error(resource, WP_VIEWPORT_ERROR_BAD_VALUE,
				       "destination size %dx%d is not positive",
				       w, h);
		return;
	}
	s->pending.viewport.dst_w = w;
	s->pending.viewport.dst_h = h;
}

static const struct wp_viewport_interface viewport_impl = {
	.destroy = resource_destroy_request,
	.set_source = viewport_set_source,
	.set_destination = viewport_set_destination,
};

static void
viewport_destroyed(struct wl_resource *resource)
{
	struct viewport *vp = wl_resource_get_user_data(resource);

	/* The crop and scale go at the surface's next commit. */
	if (!vp)
		return;
	viewport_state_init(&vp->surface->pending.viewport);
	vp->resource = NULL;
}

/* wp_viewporter ---------------------------------------------------------- */

static void
viewporter_get_viewport(struct wl_client *client, struct wl_resource *resource,
			uint32_t id, struct wl_resource *surface_resource)
{
	struct surface *s = surface_from_resource(surface_resource);
	struct wl_listener *l = wl_signal_get(&s->events.check, viewport_check);
	struct viewport *vp = l ? wl_container_of(l, vp, check) : NULL;
	struct wl_resource *r;

	if (vp && vp->resource) {
		wl_resource_post_error(
			resource, WP_VIEWPORTER_ERROR_VIEWPORT_EXISTS,
			"the wl_surface already has a wp_viewport");
		return;
	}
	if (!vp) {
		vp = calloc(1, sizeof(*vp));
		if (!vp) {
			wl_client_post_no_memory(client);
			return;
		}
		vp->surface = s;
		vp->check.notify = viewport_check;
		wl_signal_add(&s->events.check, &vp->check);
		vp->surface_destroy.notify = viewport_surface_destroyed;
		wl_signal_add(&s->events.destroy, &vp->surface_destroy);
	}
	r = resource_new(client, &wp_viewport_interface,
			 wl_resource_get_version(resource), id, &viewport_impl,
			 vp, viewport_destroyed);
	if (r)
		vp->resource = r;
}

static const struct wp_viewporter_interface viewporter_impl = {
	.destroy = resource_destroy_request,
	.get_viewport = viewporter_get_viewport,
};

bool
viewporter_init(struct comp *c)
{
	return resource_add_plain_global(c, &wp_viewporter_interface, 1,
					 &viewporter_impl);
}
