/*
 * glcuda-compositor: the double-buffered state of a surface (struct
 * surface_state), what surface.c applies at commit: damage and its
 * conversion to buffer coordinates, merging a state into another (a
 * cache, an upload's queue), discarding one that will never be applied;
 * the checks of a shm buffer; the viewport's part of the state and the
 * sizes it gives. Nothing here applies a state or knows a role.
 * SPDX-License-Identifier: MIT
 */
#include "surface/surface.h"
#include "comp.h"
#include "resource.h"

#include <stdlib.h>
#include <string.h>

static void
state_buffer_gone(struct wl_listener *listener, void *data)
{
	struct surface_state *st =
		wl_container_of(listener, st, buffer_destroy);

	/* The client destroyed an attached buffer before its state was
	 * applied: the commit then attaches nothing (as if NULL). */
	st->buffer = NULL;
	listener_detach(&st->buffer_destroy);
}

void
damage_add(struct damage *d, int32_t x, int32_t y, int32_t w, int32_t h)
{
	if (w <= 0 || h <= 0)
		return;
	if (d->n == DAMAGE_RECTS) {
		/* Full: everything becomes one bounding box. */
		int32_t x0 = x, y0 = y, x1 = x + w, y1 = y + h;

		for (int i = 0; i < d->n; i++) {
			x0 = d->r[i].x < x0 ? d->r[i].x : x0;
			y0 = d->r[i].y < y0 ? d->r[i].y : y0;
			x1 = d->r[i].x + d->r[i].w > x1 ? d->r[i].x + d->r[i].w
							: x1;
			y1 = d->r[i].y + d->r[i].h > y1 ? d->r[i].y + d->r[i].h
							: y1;
		}
		d->n = 0;
		x = x0, y = y0, w = x1 - x0, h = y1 - y0;
	}
	d->r[d->n++] = (struct rect){ x, y, w, h };
}

static void
damage_merge(struct damage *dst, const struct damage *src)
{
	for (int i = 0; i < src->n; i++)
		damage_add(dst, src->r[i].x, src->r[i].y, src->r[i].w,
			   src->r[i].h);
}

void
state_init(struct surface_state *st)
{
	memset(st, 0, sizeof(*st));
	pixman_region32_init(&st->opaque_region);
	region_init_infinite(&st->input_region);
	st->scale = 1;
	viewport_state_init(&st->viewport);
	wl_list_init(&st->frames);
	wl_list_init(&st->feedback);
	wl_list_init(&st->buffer_destroy.link);
	st->buffer_destroy.notify = state_buffer_gone;
}

void
state_set_buffer(struct surface_state *st, struct wl_resource *buffer)
{
	listener_detach(&st->buffer_destroy);
	st->buffer = buffer;
	st->attached = true;
	if (buffer)
		wl_resource_add_destroy_listener(buffer, &st->buffer_destroy);
}

/* After the state was applied or moved: what is not sticky goes. The
 * scale stays: it is state that the next commit keeps unless changed. */
void
state_clear(struct surface_state *st)
{
	listener_detach(&st->buffer_destroy);
	st->buffer = NULL;
	st->attached = false;
	st->damage.n = 0;
	st->buffer_damage.n = 0;
	st->opaque_region_set = false;
	st->input_region_set = false;
}

/* A region of src copied into dst when src set it. */
static void
state_move_region(pixman_region32_t *dst, bool *dst_set,
		  const pixman_region32_t *src, bool src_set)
{
	if (!src_set)
		return;
	pixman_region32_copy(dst, (pixman_region32_t *)src);
	*dst_set = true;
}

/* Merge src into dst (a synchronized subsurface's commit caches its
 * state): what src set replaces dst's, callbacks add up. */
void
state_move(struct surface_state *dst, struct surface_state *src)
{
	if (src->attached)
		state_set_buffer(dst, src->buffer);
	dst->scale = src->scale;
	dst->transform = src->transform;
	dst->viewport = src->viewport;
	state_move_region(&dst->opaque_region, &dst->opaque_region_set,
			  &src->opaque_region, src->opaque_region_set);
	state_move_region(&dst->input_region, &dst->input_region_set,
			  &src->input_region, src->input_region_set);
	damage_merge(&dst->damage, &src->damage);
	damage_merge(&dst->buffer_damage, &src->buffer_damage);
	wl_list_insert_list(dst->frames.prev, &src->frames);
	wl_list_init(&src->frames);
	wl_list_insert_list(dst->feedback.prev, &src->feedback);
	wl_list_init(&src->feedback);
	state_clear(src);
}

void
destroy_all(struct wl_list *list)
{
	struct wl_resource *r, *tmp;

	/* wl_resource_destroy runs resource_unlink. */
	wl_resource_for_each_safe(r, tmp, list)
		wl_resource_destroy(r);
}

/* The state will never be applied: its callbacks go, its feedback is
 * discarded. It stays usable (a subsurface's cache is emptied so). */
void
state_discard(struct comp *c, struct surface_state *st)
{
	state_clear(st);
	destroy_all(&st->frames);
	/* The feedback's discarded (presentation.c). */
	if (!wl_list_empty(&st->feedback))
		wl_signal_emit(&c->events.feedback_discard, &st->feedback);
}

/* The state's object goes: discarded, its regions freed. */
void
state_fini(struct comp *c, struct surface_state *st)
{
	state_discard(c, st);
	pixman_region32_fini(&st->opaque_region);
	pixman_region32_fini(&st->input_region);
}


static int64_t
clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* A rectangle of surface coordinates in buffer coordinates: through the
 * buffer transform (the corners as in wl_output.transform), then the
 * scale; clipped to the buffer. sw, sh: the surface size. */
static struct rect
surface_to_buffer_rect(const struct surface *s, struct rect r, int32_t sw,
		       int32_t sh)
{
	int64_t x0 = clamp64(r.x, 0, sw), y0 = clamp64(r.y, 0, sh);
	int64_t x1 = clamp64((int64_t)r.x + r.w, 0, sw),
		y1 = clamp64((int64_t)r.y + r.h, 0, sh);
	int64_t bx0, by0, bx1, by1;

	switch (s->transform) {
	default:
	case WL_OUTPUT_TRANSFORM_NORMAL:
		bx0 = x0, by0 = y0, bx1 = x1, by1 = y1;
		break;
	case WL_OUTPUT_TRANSFORM_90:
		bx0 = y0, by0 = sw - x1, bx1 = y1, by1 = sw - x0;
		break;
	case WL_OUTPUT_TRANSFORM_180:
		bx0 = sw - x1, by0 = sh - y1, bx1 = sw - x0, by1 = sh - y0;
		break;
	case WL_OUTPUT_TRANSFORM_270:
		bx0 = sh - y1, by0 = x0, bx1 = sh - y0, by1 = x1;
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED:
		bx0 = sw - x1, by0 = y0, bx1 = sw - x0, by1 = y1;
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_90:
		bx0 = y0, by0 = x0, bx1 = y1, by1 = x1;
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_180:
		bx0 = x0, by0 = sh - y1, bx1 = x1, by1 = sh - y0;
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_270:
		bx0 = sh - y1, by0 = sw - x1, bx1 = sh - y0, by1 = sw - x0;
		break;
	}
	return (struct rect){ (int32_t)(bx0 * s->scale),
			      (int32_t)(by0 * s->scale),
			      (int32_t)((bx1 - bx0) * s->scale),
			      (int32_t)((by1 - by0) * s->scale) };
}

/* The state's damage in buffer coordinates, clipped to the buffer of
 * w x h pixels. */
void
state_buffer_damage(const struct surface *s, const struct surface_state *st,
		    int32_t w, int32_t h, struct damage *out)
{
	bool swap = s->transform & 1;
	int32_t sw = (swap ? h : w) / s->scale, sh = (swap ? w : h) / s->scale;

	out->n = 0;
	/* Through a viewport: all of the buffer (more than was damaged, still
	 * correct). */
	if (viewport_is_set(&st->viewport) && st->damage.n)
		damage_add(out, 0, 0, w, h);
	for (int i = 0; i < st->damage.n && !viewport_is_set(&st->viewport);
	     i++) {
		struct rect r =
			surface_to_buffer_rect(s, st->damage.r[i], sw, sh);
		damage_add(out, r.x, r.y, r.w, r.h);
	}
	for (int i = 0; i < st->buffer_damage.n; i++) {
		const struct rect *r = &st->buffer_damage.r[i];
		int64_t x0 = clamp64(r->x, 0, w), y0 = clamp64(r->y, 0, h);
		int64_t x1 = clamp64((int64_t)r->x + r->w, 0, w);
		int64_t y1 = clamp64((int64_t)r->y + r->h, 0, h);

		damage_add(out, (int32_t)x0, (int32_t)y0, (int32_t)(x1 - x0),
			   (int32_t)(y1 - y0));
	}
}

/* The client's wl_shm: its error enum holds invalid_format and
 * invalid_stride (wl_buffer has none). */
static void
post_shm_error(struct wl_resource *buffer, uint32_t code, const char *msg,
	       int32_t w, int32_t h, int32_t stride, uint32_t format)
{
	struct wl_client *client = wl_resource_get_client(buffer);
	struct wl_resource *shm =
		client_find_resource(client, &wl_shm_interface);

	if (shm)
		wl_resource_post_error(
			shm, code, "%s: buffer %dx%d, stride %d, format 0x%08x",
			msg, w, h, stride, format);
	else
		/* The client released its wl_shm (version 2, advertised by
		 * libwayland 1.22 and later; version 1 has no release): the
		 * error goes on its wl_display. */
		wl_resource_post_error(
			wl_client_get_object(client, 1),
			WL_DISPLAY_ERROR_INVALID_OBJECT,
			"%s: buffer %dx%d, stride %d, format 0x%08x", msg, w, h,
			stride, format);
}

/* What libwayland does not check about a shm buffer: the format's bytes
 * per pixel against the stride, the scale against the size, our size
 * limit. false after a protocol error. */
bool
shm_buffer_check(struct surface *s, struct wl_resource *buffer,
		 struct wl_shm_buffer *shm, int32_t scale)
{
	int32_t w = wl_shm_buffer_get_width(shm),
		h = wl_shm_buffer_get_height(shm);
	int32_t stride = wl_shm_buffer_get_stride(shm);
	uint32_t format = wl_shm_buffer_get_format(shm);

	if (format != WL_SHM_FORMAT_ARGB8888 &&
	    format != WL_SHM_FORMAT_XRGB8888) {
		post_shm_error(buffer, WL_SHM_ERROR_INVALID_FORMAT,
			       "the format is not ARGB8888 or XRGB8888", w, h,
			       stride, format);
		return false;
	}
	if (w <= 0 || h <= 0 || stride / 4 < w || stride % 4) {
		post_shm_error(
			buffer, WL_SHM_ERROR_INVALID_STRIDE,
			"the stride is not a multiple of 4 of at least 4 x "
			"width",
			w, h, stride, format);
		return false;
	}
	if (w % scale || h % scale) {
		wl_resource_post_error(
			s->resource, WL_SURFACE_ERROR_INVALID_SIZE,
			"buffer %dx%d is not a multiple of the scale %d", w, h,
			scale);
		return false;
	}
	if (w > 8192 || h > 8192) {
		wl_resource_post_error(
			s->resource, WL_SURFACE_ERROR_INVALID_SIZE,
			"buffer %dx%d is larger than 8192x8192", w, h);
		return false;
	}
	return true;
}


/* The viewport's part of the state (wp_viewport's requests set it,
 * viewporter.c checks it at commit): unset. */
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
		/* Integers: viewporter.c checked. */
		*w = wl_fixed_to_int(v->src_w);
		*h = wl_fixed_to_int(v->src_h);
		return true;
	}
	return false;
}

void
surface_unviewported_size(const struct surface *s, int32_t scale,
			  int32_t transform, int64_t *w, int64_t *h)
{
	bool swap = transform & 1;

	*w = (int64_t)(swap ? s->buffer_height : s->buffer_width) / scale;
	*h = (int64_t)(swap ? s->buffer_width : s->buffer_height) / scale;
}

void
surface_get_crop(const struct surface *s, float crop[4])
{
	const struct viewport_state *v = &s->viewport;
	int64_t w, h;

	crop[0] = crop[1] = 0.f;
	crop[2] = crop[3] = 1.f;
	if (v->src_w < 0)
		return;
	surface_unviewported_size(s, s->scale, s->transform, &w, &h);
	if (w <= 0 || h <= 0)
		return;
	crop[0] = (float)wl_fixed_to_double(v->src_x) / (float)w;
	crop[1] = (float)wl_fixed_to_double(v->src_y) / (float)h;
	crop[2] = (float)wl_fixed_to_double(v->src_w) / (float)w;
	crop[3] = (float)wl_fixed_to_double(v->src_h) / (float)h;
}
