/*
 * glcuda-compositor: wp_viewporter, crop and scale of a surface. The
 * source rectangle picks the part of the buffer shown (in surface
 * coordinates after the buffer transform and scale), the destination
 * size the size the surface takes; render.c samples the source rectangle
 * over the destination (GL's linear filtering when it scales).
 *
 * The state is double-buffered with the surface's (struct surface_state),
 * applied and checked at commit (viewport_apply): a source rectangle
 * outside the buffer is out_of_buffer, a fractional one without a
 * destination size bad_size, as the XML says.
 * SPDX-License-Identifier: MIT
 */
#include "compositor.h"

#include <inttypes.h>

#include "viewporter-server-protocol.h"

void
viewport_state_init(struct viewport_state *v)
{
	v->src_x = v->src_y = v->src_w = v->src_h = wl_fixed_from_int(-1);
	v->dst_w = v->dst_h = -1;
}

bool
viewport_is_set(const struct viewport_state *v)
{
	return v->src_w >= 0 || v->dst_w >= 0;
}

bool
viewport_size(const struct viewport_state *v, int32_t *w, int32_t *h)
{
	if (v->dst_w >= 0) {
		*w = v->dst_w;
		*h = v->dst_h;
		return true;
	}
	if (v->src_w >= 0) {
		/* Integers: viewport_apply checked. */
		*w = wl_fixed_to_int(v->src_w);
		*h = wl_fixed_to_int(v->src_h);
		return true;
	}
	return false;
}

/* The surface size before the viewport: the buffer's through the buffer
 * transform and scale. */
static void
unviewported_size(const struct surface *s, int32_t scale, int32_t transform,
		  int64_t *w, int64_t *h)
{
	bool swap = transform & 1;

	*w = (int64_t)(swap ? s->buffer_height : s->buffer_width) / scale;
	*h = (int64_t)(swap ? s->buffer_width : s->buffer_height) / scale;
}

bool
viewport_apply(struct surface *s, const struct viewport_state *v, int32_t scale,
	       int32_t transform)
{
	const struct viewport_state *cur = &s->viewport;
	bool changed = cur->src_x != v->src_x || cur->src_y != v->src_y ||
		       cur->src_w != v->src_w || cur->src_h != v->src_h ||
		       cur->dst_w != v->dst_w || cur->dst_h != v->dst_h;

	/* A NULL buffer raises no error: no content, no size. */
	if (s->has_content && v->src_w >= 0) {
		int64_t w, h;

		unviewported_size(s, scale, transform, &w, &h);
		/* In 24.8 fixed point, exactly. */
		if ((int64_t)v->src_x + v->src_w > w * 256 ||
		    (int64_t)v->src_y + v->src_h > h * 256) {
			if (s->viewport_resource)
				wl_resource_post_error(
					s->viewport_resource,
					WP_VIEWPORT_ERROR_OUT_OF_BUFFER,
					"source rectangle %.2f,%.2f %.2fx%.2f "
					"is outside "
					"the surface's %" PRId64 "x%" PRId64
					" of buffer",
					wl_fixed_to_double(v->src_x),
					wl_fixed_to_double(v->src_y),
					wl_fixed_to_double(v->src_w),
					wl_fixed_to_double(v->src_h), w, h);
			return false;
		}
		if (v->dst_w < 0 && ((v->src_w | v->src_h) & 0xff)) {
			if (s->viewport_resource)
				wl_resource_post_error(
					s->viewport_resource,
					WP_VIEWPORT_ERROR_BAD_SIZE,
					"source size %.2fx%.2f is not integer "
					"and no destination size is set",
					wl_fixed_to_double(v->src_w),
					wl_fixed_to_double(v->src_h));
			return false;
		}
	}
	s->viewport = *v;
	if (changed)
		s->comp->damaged = true;
	return true;
}

void
viewport_crop(const struct surface *s, float crop[4])
{
	const struct viewport_state *v = &s->viewport;
	int64_t w, h;

	crop[0] = crop[1] = 0.f;
	crop[2] = crop[3] = 1.f;
	if (v->src_w < 0)
		return;
	unviewported_size(s, s->scale, s->transform, &w, &h);
	if (w <= 0 || h <= 0)
		return;
	crop[0] = (float)wl_fixed_to_double(v->src_x) / (float)w;
	crop[1] = (float)wl_fixed_to_double(v->src_y) / (float)h;
	crop[2] = (float)wl_fixed_to_double(v->src_w) / (float)w;
	crop[3] = (float)wl_fixed_to_double(v->src_h) / (float)h;
}

/* wp_viewport ------------------------------------------------------------ */

/* The surface of a viewport, or NULL after the no_surface error. */
static struct surface *
viewport_surface(struct wl_resource *resource)
{
	struct surface *s = wl_resource_get_user_data(resource);

	if (!s)
		wl_resource_post_error(
			resource, WP_VIEWPORT_ERROR_NO_SURFACE,
			"the wl_surface of this wp_viewport was destroyed");
	return s;
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
	struct surface *s = wl_resource_get_user_data(resource);

	/* The crop and scale go at the surface's next commit. */
	if (!s)
		return;
	viewport_state_init(&s->pending.viewport);
	s->viewport_resource = NULL;
}

void
viewport_surface_destroyed(struct surface *s)
{
	if (s->viewport_resource)
		wl_resource_set_user_data(s->viewport_resource, NULL);
	s->viewport_resource = NULL;
}

/* wp_viewporter ---------------------------------------------------------- */

static void
viewporter_get_viewport(struct wl_client *client, struct wl_resource *resource,
			uint32_t id, struct wl_resource *surface_resource)
{
	struct surface *s = surface_from_resource(surface_resource);
	struct wl_resource *r;

	if (s->viewport_resource) {
		wl_resource_post_error(
			resource, WP_VIEWPORTER_ERROR_VIEWPORT_EXISTS,
			"the wl_surface already has a wp_viewport");
		return;
	}
	r = resource_new(client, &wp_viewport_interface,
			 wl_resource_get_version(resource), id, &viewport_impl,
			 s, viewport_destroyed);
	if (r)
		s->viewport_resource = r;
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
