/*
 * glcuda-compositor: wl_compositor, wl_surface, wl_subcompositor and
 * wl_subsurface: the protocol, the double-buffered state of surfaces and
 * what a commit applies (wl_region is region.c's; a role's part of a
 * commit is its hooks', struct surface_role). Buffers are wl_shm (ARGB8888 and
 * XRGB8888) or dma-bufs (dmabuf.c); texture.c turns them into GL textures. A
 * shm buffer is released as soon as its damage is copied, so a client may reuse
 * it at once; a copy larger than UPLOAD_BYTES_PER_REFRESH is spread over
 * refreshes instead (surface_uploads_step), its commit waiting until it is
 * complete, so that one client's huge buffer does not stall the others'
 * frames.
 *
 * When a commit completes (its state applied, its role's commit hook
 * run), in this order of cases:
 *   - a synchronized subsurface's (or one below a synchronized one):
 *     with its parent's state, or when set_desync applies its cache;
 *   - one whose large shm upload is in progress (its own, or an earlier
 *     commit's it waits behind): in the vblank handler, at the refresh
 *     whose upload step completes the upload, before that refresh's
 *     composite (surface_uploads_step): the one place a commit completes
 *     outside its wl_surface.commit request;
 *   - any other: in its wl_surface.commit request.
 * Frame callbacks and presentation feedback wait with their state: a
 * client hears that its content was shown only once it was.
 *
 * Subsurface trees are at most SUBSURFACE_DEPTH_MAX levels deep, and are
 * walked with tree.c's walk: nothing here recurses or loops as deep as a
 * client likes.
 * SPDX-License-Identifier: MIT
 */
#include "compositor.h"

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

static void
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

static void
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

static void
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
static void
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
static void
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

static void
destroy_all(struct wl_list *list)
{
	struct wl_resource *r, *tmp;

	/* wl_resource_destroy runs resource_unlink. */
	wl_resource_for_each_safe(r, tmp, list)
		wl_resource_destroy(r);
}

/* The state will never be applied: its callbacks go, its feedback is
 * discarded. It stays usable (a subsurface's cache is emptied so). */
static void
state_discard(struct surface_state *st)
{
	state_clear(st);
	destroy_all(&st->frames);
	feedback_discard_all(&st->feedback);
}

/* The state's object goes: discarded, its regions freed. */
static void
state_fini(struct surface_state *st)
{
	state_discard(st);
	pixman_region32_fini(&st->opaque_region);
	pixman_region32_fini(&st->input_region);
}

static void
surface_attach(struct wl_client *client, struct wl_resource *resource,
	       struct wl_resource *buffer, int32_t x, int32_t y)
{
	struct surface *s = surface_from_resource(resource);

	state_set_buffer(&s->pending, buffer);
}

/* Damage is double-buffered: it says which part of the next buffer
 * differs from the content the surface shows, and only that part is
 * uploaded. Huge values (clients damage INT32_MAX to mean "all") are
 * clipped when the damage is applied. */
static void
surface_damage(struct wl_client *client, struct wl_resource *resource,
	       int32_t x, int32_t y, int32_t w, int32_t h)
{
	struct surface *s = surface_from_resource(resource);

	damage_add(&s->pending.damage, x, y, w, h);
}

static void
surface_damage_buffer(struct wl_client *client, struct wl_resource *resource,
		      int32_t x, int32_t y, int32_t w, int32_t h)
{
	struct surface *s = surface_from_resource(resource);

	damage_add(&s->pending.buffer_damage, x, y, w, h);
}

static void
surface_frame(struct wl_client *client, struct wl_resource *resource,
	      uint32_t id)
{
	struct surface *s = surface_from_resource(resource);
	struct wl_resource *cb = resource_new(client, &wl_callback_interface, 1,
					      id, NULL, NULL, resource_unlink);

	if (!cb)
		return;
	wl_list_insert(s->pending.frames.prev, wl_resource_get_link(cb));
}

static void
surface_set_opaque_region(struct wl_client *client,
			  struct wl_resource *resource,
			  struct wl_resource *region)
{
	struct surface *s = surface_from_resource(resource);

	if (region)
		region_copy(&s->pending.opaque_region, region);
	else
		pixman_region32_clear(&s->pending.opaque_region);
	s->pending.opaque_region_set = true;
}

static void
surface_set_input_region(struct wl_client *client,
			 struct wl_resource *resource,
			 struct wl_resource *region)
{
	struct surface *s = surface_from_resource(resource);

	if (region) {
		region_copy(&s->pending.input_region, region);
	} else {
		pixman_region32_fini(&s->pending.input_region);
		region_init_infinite(&s->pending.input_region);
	}
	s->pending.input_region_set = true;
}

/* Copy a shm buffer into the surface's texture. Errors are the client's:
 * a protocol error, the surface keeps its previous content. */
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
static void
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

struct find_class {
	const char *name;
	struct wl_resource *found;
};

static enum wl_iterator_result
find_class(struct wl_resource *resource, void *data)
{
	struct find_class *f = data;

	if (strcmp(wl_resource_get_class(resource), f->name))
		return WL_ITERATOR_CONTINUE;
	f->found = resource;
	return WL_ITERATOR_STOP;
}

struct wl_resource *
client_find_resource(struct wl_client *client, const struct wl_interface *iface)
{
	struct find_class f = { iface->name, NULL };

	wl_client_for_each_resource(client, find_class, &f);
	return f.found;
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
static bool
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

/* A large upload: into new strips, the whole buffer (the client's buffer
 * holds all of its content; the damage only says what changed), a part at
 * each refresh (surface_uploads_step). The state (buffer held, callbacks)
 * waits in the upload; the surface keeps its current content meanwhile.
 * false when there is no memory for it (the caller copies at once). */
static bool
upload_start(struct surface *s, struct wl_shm_buffer *shm,
	     struct surface_state *st)
{
	struct upload *u = calloc(1, sizeof(*u));

	if (!u)
		return false;
	u->surface = s;
	state_init(&u->state);
	state_init(&u->next);
	s->upload = u;
	texture_upload_begin(s, shm);
	state_move(&u->state, st);
	wl_list_insert(s->comp->uploads.prev, &u->link);
	return true;
}

/* The upload goes: out of the list, the states it held never applied. Its
 * strips are texture.c's: shown, or freed (texture_upload_cancel). */
static void
upload_free(struct upload *u)
{
	wl_list_remove(&u->link);
	state_fini(&u->state);
	state_fini(&u->next);
	free(u);
}

/* The dma-buf buffer the surface sampled in place is the client's again. */
static void
surface_release_held(struct surface *s)
{
	if (!s->held_buffer)
		return;
	wl_buffer_send_release(s->held_buffer);
	listener_detach(&s->held_buffer_destroy);
	s->held_buffer = NULL;
}

static void
held_buffer_gone(struct wl_listener *listener, void *data)
{
	struct surface *s = wl_container_of(listener, s, held_buffer_destroy);

	/* The texture keeps the EGLImage's memory: the content stays. */
	listener_detach(&s->held_buffer_destroy);
	s->held_buffer = NULL;
}

/* A dma-buf buffer: a texture of its EGLImage, no copy; the buffer is held
 * until another replaces it. */
static bool
attach_dmabuf(struct surface *s, struct wl_resource *buffer,
	      struct dmabuf_buffer *b, int32_t scale)
{
	if (b->width % scale || b->height % scale) {
		wl_resource_post_error(
			s->resource, WL_SURFACE_ERROR_INVALID_SIZE,
			"buffer %dx%d is not a multiple of the scale %d",
			b->width, b->height, scale);
		return false;
	}
	if (!texture_set_dmabuf(s, b)) {
		wl_client_post_implementation_error(
			wl_resource_get_client(s->resource),
			"GL cannot sample the dma-buf buffer");
		return false;
	}
	if (s->held_buffer != buffer) {
		surface_release_held(s);
		s->held_buffer = buffer;
		wl_resource_add_destroy_listener(buffer,
						 &s->held_buffer_destroy);
	}
	return true;
}

/* A checked shm buffer: its damage copied at once and the buffer
 * released, or, when the copy is large, its upload started (true: the
 * state waits in the upload until it is complete). */
static bool
attach_shm(struct surface *s, struct wl_resource *buffer,
	   struct wl_shm_buffer *shm, struct surface_state *st)
{
	struct damage damage;

	state_buffer_damage(s, st, wl_shm_buffer_get_width(shm),
			    wl_shm_buffer_get_height(shm), &damage);
	if (texture_upload_bytes(s, shm, &damage) > UPLOAD_BYTES_PER_REFRESH &&
	    upload_start(s, shm, st))
		return true;
	texture_upload_shm(s, shm, &damage);
	/* Copied: the client may reuse it now. */
	wl_buffer_send_release(buffer);
	surface_release_held(s);
	return false;
}

/* Whether the surface's commits are cached: it or one of its ancestors
 * is a synchronized subsurface. */
static bool
surface_is_synchronized(struct surface *s)
{
	while (s && s->subsurface) {
		if (s->subsurface->synchronized)
			return true;
		s = s->subsurface->parent;
	}
	return false;
}

/* The parent's state holds where its subsurfaces are and their order.
 * true when either changed. */
static bool
surface_apply_children(struct surface *s)
{
	struct stack_entry *e;
	struct subsurface *sub;
	bool changed = false;

	wl_list_for_each(e, &s->stack_pending, link) {
		struct stack_entry *cur = e == &s->self_pending ? &s->self
					  : &e->surface->subsurface->entry;
		/* The entries not moved yet keep their order at the front:
		 * the order is the same if each comes from there. */
		if (s->stack.next != &cur->link)
			changed = true;
		wl_list_remove(&cur->link);
		wl_list_insert(s->stack.prev, &cur->link);
	}
	wl_list_for_each(sub, &s->subsurfaces, parent_link) {
		changed |= sub->x != sub->pending_x || sub->y != sub->pending_y;
		sub->x = sub->pending_x;
		sub->y = sub->pending_y;
	}
	return changed;
}

/* The surface's own part of a state: the buffer, uploaded (or its
 * upload started) when it is shm, scale, transform, callbacks. A commit
 * that changed nothing visible (only a frame callback, say) is not
 * composited: its callbacks are sent at the next vblank. false after a
 * protocol error. */
static bool
surface_apply_own(struct surface *s, struct surface_state *st)
{
	struct wl_resource *buffer = st->buffer;
	bool changed = st->attached || st->damage.n || st->buffer_damage.n ||
		       s->scale != st->scale || s->transform != st->transform ||
		       st->opaque_region_set || !wl_list_empty(&st->feedback);

	if (s->role && s->role->precommit && !s->role->precommit(s, st))
		return false;
	if (st->attached && buffer) {
		struct dmabuf_buffer *db = dmabuf_buffer_get(buffer);
		struct wl_shm_buffer *shm = wl_shm_buffer_get(buffer);

		if (db) {
			if (!attach_dmabuf(s, buffer, db, st->scale))
				return false;
		} else if (!shm) {
			/* wl_shm and our dma-bufs are all there is: the
			 * object is not a buffer this compositor made. */
			wl_resource_post_error(
				wl_client_get_object(
					wl_resource_get_client(buffer), 1),
				WL_DISPLAY_ERROR_INVALID_OBJECT,
				"wl_buffer@%u is not a wl_shm or dma-buf "
				"buffer",
				wl_resource_get_id(buffer));
			return false;
		} else if (!shm_buffer_check(s, buffer, shm, st->scale)) {
			return false;
		} else if (attach_shm(s, buffer, shm, st)) {
			return true;
		}
	} else if (st->attached) {
		s->has_content = false;
		surface_release_held(s);
	} else if (s->has_content && (s->buffer_width % (uint32_t)st->scale ||
				      s->buffer_height % (uint32_t)st->scale)) {
		/* A new scale for the buffer already shown. */
		wl_resource_post_error(
			s->resource, WL_SURFACE_ERROR_INVALID_SIZE,
			"buffer %ux%u is not a multiple of the scale %d",
			s->buffer_width, s->buffer_height, st->scale);
		return false;
	}
	if (!viewport_apply(s, &st->viewport, st->scale, st->transform))
		return false;
	s->scale = st->scale;
	s->transform = st->transform;
	if (st->opaque_region_set)
		pixman_region32_copy(&s->opaque_region, &st->opaque_region);
	if (st->input_region_set)
		pixman_region32_copy(&s->input_region, &st->input_region);
	state_clear(st);
	if (!wl_list_empty(&st->frames))
		s->comp->frame_only = true;
	wl_list_insert_list(s->frames.prev, &st->frames);
	wl_list_init(&st->frames);
	wl_list_insert_list(s->feedback.prev, &st->feedback);
	wl_list_init(&st->feedback);
	if (changed) {
		s->comp->damaged = true;
		s->comp->commits++;
	}
	return true;
}

/* One surface's state: its own part, queued behind a large upload in
 * progress, and its subsurfaces' places. false after a protocol error. */
static bool
surface_apply_one(struct surface *s, struct surface_state *st)
{
	if (s->upload) {
		/* Applied when the upload is complete, in commit order. */
		state_move(&s->upload->next, st);
		s->upload->has_next = true;
	} else if (!surface_apply_own(s, st)) {
		return false;
	}
	if (surface_apply_children(s)) {
		s->comp->damaged = true;
		s->comp->commits++;
	}
	return true;
}

/* The role's part of a commit, once the state is applied: the commit
 * event. */
static void
role_commit(struct surface *s)
{
	wl_signal_emit(&s->events.commit, s);
}

/* Apply a state to s, then the states its synchronized subsurfaces
 * cached, and their subsurfaces' in turn, each before its own
 * subsurfaces (tree.c's walk: no recursion, whose depth a client would
 * choose). */
static void
surface_apply(struct surface *s, struct surface_state *st)
{
	struct tree_walk w;
	struct tree_entry e;

	if (!surface_apply_one(s, st))
		return;
	tree_walk_init(&w, s, 0, 0);
	while (tree_walk_next(&w, &e)) {
		struct subsurface *sub = e.surface->subsurface;

		/* Only a synchronized subsurface has a cache (set_desync
		 * applies it); one without keeps its subsurfaces' too. */
		if (e.self || !sub->has_cache)
			continue;
		sub->has_cache = false;
		if (!surface_apply_one(e.surface, &sub->cached))
			return;
		tree_walk_enter(&w);
	}
	role_commit(s);
}

/* A large upload is complete (done) or its buffer went away before (the
 * commit then attached nothing: the previous content stays). The rest of
 * its state and what was queued behind it are applied now. */
static void
upload_finish(struct surface *s, bool done)
{
	struct upload *u = s->upload;
	struct surface_state *st = &u->state;
	struct wl_resource *buffer = st->buffer;

	if (done) {
		texture_upload_finish(s, wl_shm_buffer_get(buffer));
		wl_buffer_send_release(buffer);
		surface_release_held(s);
	} else {
		texture_upload_cancel(s);
	}
	/* The commit behind may start an upload of its own. */
	s->upload = NULL;
	st->attached = false;
	s->comp->damaged = true;
	s->comp->commits++;
	if (surface_apply_own(s, st)) {
		role_commit(s);
		if (u->has_next && surface_apply_own(s, &u->next))
			role_commit(s);
	}
	upload_free(u);
}

void
surface_uploads_step(struct comp *c)
{
	uint64_t budget = UPLOAD_BYTES_PER_REFRESH;
	struct wl_list todo;

	/* At 240 Hz, 8 MiB a refresh held the other clients' frame
	 * callbacks for three refreshes on the H200: scale it to the period. */
	if (c->opt.refresh_hz > 60)
		budget = budget * 60 / c->opt.refresh_hz;
	if (budget < UPLOAD_BYTES_MIN)
		budget = UPLOAD_BYTES_MIN;

	/* Round robin: each surface in its turn gets what is left of the
	 * budget, at least one row. */
	wl_list_init(&todo);
	wl_list_insert_list(&todo, &c->uploads);
	wl_list_init(&c->uploads);
	while (!wl_list_empty(&todo)) {
		struct upload *u = wl_container_of(todo.next, u, link);
		struct surface *s = u->surface;
		struct wl_shm_buffer *shm = u->state.buffer ?
			wl_shm_buffer_get(u->state.buffer) : NULL;

		wl_list_remove(&u->link);
		wl_list_insert(c->uploads.prev, &u->link);
		if (!shm) {
			upload_finish(s, false);
			continue;
		}
		if (budget && texture_upload_step(s, shm, &budget))
			upload_finish(s, true);
	}
}

static void
surface_commit(struct wl_client *client, struct wl_resource *resource)
{
	struct surface *s = surface_from_resource(resource);

	if (surface_is_synchronized(s)) {
		/* Applied when the parent's state is. */
		state_move(&s->subsurface->cached, &s->pending);
		s->subsurface->has_cache = true;
		return;
	}
	surface_apply(s, &s->pending);
}

static void
surface_set_buffer_transform(struct wl_client *client,
			     struct wl_resource *resource, int32_t transform)
{
	struct surface *s = surface_from_resource(resource);

	if (transform < WL_OUTPUT_TRANSFORM_NORMAL ||
	    transform > WL_OUTPUT_TRANSFORM_FLIPPED_270) {
		wl_resource_post_error(
			resource, WL_SURFACE_ERROR_INVALID_TRANSFORM,
			"transform %d is not a wl_output.transform", transform);
		return;
	}
	s->pending.transform = transform;
}

static void
surface_set_buffer_scale(struct wl_client *client, struct wl_resource *resource,
			 int32_t scale)
{
	struct surface *s = surface_from_resource(resource);

	if (scale < 1) {
		wl_resource_post_error(resource, WL_SURFACE_ERROR_INVALID_SCALE,
				       "scale %d is not positive", scale);
		return;
	}
	s->pending.scale = scale;
}

static const struct wl_surface_interface surface_impl = {
	.destroy = resource_destroy_request,
	.attach = surface_attach,
	.damage = surface_damage,
	.frame = surface_frame,
	.set_opaque_region = surface_set_opaque_region,
	.set_input_region = surface_set_input_region,
	.commit = surface_commit,
	.set_buffer_transform = surface_set_buffer_transform,
	.set_buffer_scale = surface_set_buffer_scale,
	.damage_buffer = surface_damage_buffer,
};

static void subsurface_unlink(struct subsurface *sub);

static void
surface_destroyed(struct wl_resource *resource)
{
	struct surface *s = surface_from_resource(resource);

	/* The client destroyed it or went away, perhaps while a frame with
	 * it is in the ring: the ring holds its own copy of the pixels, so
	 * only our texture and lists go. */
	wl_signal_emit(&s->events.destroy, s);
	viewport_surface_destroyed(s);
	/* Its subsurfaces and its own subsurface object become inert. */
	while (!wl_list_empty(&s->subsurfaces)) {
		struct subsurface *sub =
			wl_container_of(s->subsurfaces.next, sub, parent_link);
		subsurface_unlink(sub);
	}
	if (s->subsurface) {
		subsurface_unlink(s->subsurface);
		s->subsurface->surface = NULL;
		s->subsurface = NULL;
	}
	wl_list_remove(&s->link);
	if (s->upload) {
		texture_upload_cancel(s);
		upload_free(s->upload);
		s->upload = NULL;
	}
	surface_release_held(s);
	state_fini(&s->pending);
	destroy_all(&s->frames);
	feedback_discard_all(&s->feedback);
	texture_surface_fini(s);
	pixman_region32_fini(&s->opaque_region);
	pixman_region32_fini(&s->input_region);
	s->comp->surfaces_alive--;
	s->comp->damaged = true;
	free(s);
}

struct surface *
surface_from_resource(struct wl_resource *resource)
{
	return wl_resource_get_user_data(resource);
}

bool
surface_set_role(struct surface *s, const struct surface_role *role)
{
	if (s->role && s->role != role)
		return false;
	s->role = role;
	return true;
}

void
surface_send_enter(struct surface *s)
{
	struct wl_resource *out;

	wl_resource_for_each(out, &s->comp->output_resources)
		if (wl_resource_get_client(out) ==
		    wl_resource_get_client(s->resource))
			wl_surface_send_enter(s->resource, out);
}

bool
surface_has_buffer(const struct surface *s)
{
	return s->has_content || s->upload ||
	       (s->pending.attached && s->pending.buffer);
}

void
surface_get_size(const struct surface *s, int32_t *w, int32_t *h)
{
	/* 90 and 270, flipped or not, swap width and height. */
	bool swap = s->transform & 1;
	uint32_t bw = swap ? s->buffer_height : s->buffer_width;
	uint32_t bh = swap ? s->buffer_width : s->buffer_height;

	if (viewport_size(&s->viewport, w, h))
		return;
	*w = (int32_t)(bw / (uint32_t)s->scale);
	*h = (int32_t)(bh / (uint32_t)s->scale);
}

bool
surface_accepts_input(const struct surface *s, double sx, double sy)
{
	int32_t w, h;

	surface_get_size(s, &w, &h);
	if (sx < 0 || sy < 0 || sx >= w || sy >= h)
		return false;
	/* pixman takes a const region, without saying so. */
	return pixman_region32_contains_point(
		(pixman_region32_t *)&s->input_region, (int)sx, (int)sy, NULL);
}

bool
surface_is_opaque(const struct surface *s)
{
	pixman_box32_t box = { 0, 0, 0, 0 };

	if (s->opaque)
		return true;
	surface_get_size(s, &box.x2, &box.y2);
	return pixman_region32_contains_rectangle(
		(pixman_region32_t *)&s->opaque_region, &box) ==
	       PIXMAN_REGION_IN;
}

static void
compositor_create_surface(struct wl_client *client,
			  struct wl_resource *resource, uint32_t id)
{
	struct comp *c = wl_resource_get_user_data(resource);
	struct surface *s = calloc(1, sizeof(*s));

	if (!s) {
		wl_client_post_no_memory(client);
		return;
	}
	s->resource = wl_resource_create(client, &wl_surface_interface,
					 wl_resource_get_version(resource), id);
	if (!s->resource) {
		free(s);
		wl_client_post_no_memory(client);
		return;
	}
	s->comp = c;
	s->scale = 1;
	viewport_state_init(&s->viewport);
	pixman_region32_init(&s->opaque_region);
	region_init_infinite(&s->input_region);
	state_init(&s->pending);
	wl_list_init(&s->frames);
	wl_list_init(&s->feedback);
	wl_list_init(&s->held_buffer_destroy.link);
	s->held_buffer_destroy.notify = held_buffer_gone;
	wl_list_init(&s->subsurfaces);
	wl_signal_init(&s->events.commit);
	wl_signal_init(&s->events.destroy);
	wl_list_init(&s->stack);
	wl_list_init(&s->stack_pending);
	s->self.surface = s->self_pending.surface = s;
	wl_list_insert(&s->stack, &s->self.link);
	wl_list_insert(&s->stack_pending, &s->self_pending.link);
	wl_list_insert(c->surfaces.prev, &s->link);
	c->surfaces_alive++;
	wl_resource_set_implementation(s->resource, &surface_impl, s,
				       surface_destroyed);
}

static void
compositor_create_region(struct wl_client *client,
			 struct wl_resource *resource, uint32_t id)
{
	region_create(client, wl_resource_get_version(resource), id);
}

static const struct wl_compositor_interface compositor_impl = {
	.create_surface = compositor_create_surface,
	.create_region = compositor_create_region,
};

/* wl_subsurface ---------------------------------------------------------- */

/* Whether a subsurface's commit is cached or applied is surface.c's own
 * rule (surface_commit): the role needs no hooks. */
static const struct surface_role subsurface_role = {
	.name = "wl_subsurface",
};

/* Out of its parent's lists: the surface is no longer drawn with it. Its
 * cached state will never be applied. */
static void
subsurface_unlink(struct subsurface *sub)
{
	if (sub->parent) {
		wl_list_remove(&sub->parent_link);
		wl_list_remove(&sub->entry.link);
		wl_list_remove(&sub->entry_pending.link);
		wl_list_init(&sub->parent_link);
		wl_list_init(&sub->entry.link);
		wl_list_init(&sub->entry_pending.link);
		sub->parent->comp->damaged = true;
		sub->parent = NULL;
	}
	if (sub->has_cache) {
		sub->has_cache = false;
		state_discard(&sub->cached);
	}
}

static void
subsurface_destroyed(struct wl_resource *resource)
{
	struct subsurface *sub = wl_resource_get_user_data(resource);

	/* The wl_surface is unmapped at once and loses its role. */
	subsurface_unlink(sub);
	state_fini(&sub->cached);
	if (sub->surface)
		sub->surface->subsurface = NULL;
	free(sub);
}

static void
subsurface_set_position(struct wl_client *client, struct wl_resource *resource,
			int32_t x, int32_t y)
{
	struct subsurface *sub = wl_resource_get_user_data(resource);

	sub->pending_x = x;
	sub->pending_y = y;
}

/* Move the subsurface above or below a sibling or its parent, in the
 * parent's pending order. */
static void
subsurface_place(struct wl_resource *resource,
		 struct wl_resource *sibling_resource, bool above)
{
	struct subsurface *sub = wl_resource_get_user_data(resource);
	struct surface *sibling = surface_from_resource(sibling_resource);
	struct stack_entry *target;

	if (!sub->parent)
		return;
	if (sibling == sub->parent) {
		target = &sub->parent->self_pending;
	} else if (sibling != sub->surface && sibling->subsurface &&
		   sibling->subsurface->parent == sub->parent) {
		target = &sibling->subsurface->entry_pending;
	} else {
		wl_resource_post_error(
			resource, WL_SUBSURFACE_ERROR_BAD_SURFACE,
			"the reference surface is neither a sibling nor the "
			"parent");
		return;
	}
	wl_list_remove(&sub->entry_pending.link);
	wl_list_insert(above ? &target->link : target->link.prev,
		       &sub->entry_pending.link);
}

static void
subsurface_place_above(struct wl_client *client, struct wl_resource *resource,
		       struct wl_resource *sibling)
{
	subsurface_place(resource, sibling, true);
}

static void
subsurface_place_below(struct wl_client *client, struct wl_resource *resource,
		       struct wl_resource *sibling)
{
	subsurface_place(resource, sibling, false);
}

static void
subsurface_set_sync(struct wl_client *client, struct wl_resource *resource)
{
	struct subsurface *sub = wl_resource_get_user_data(resource);

	sub->synchronized = true;
}

static void
subsurface_set_desync(struct wl_client *client, struct wl_resource *resource)
{
	struct subsurface *sub = wl_resource_get_user_data(resource);

	sub->synchronized = false;
	/* Desynchronized (and no ancestor synchronized): what was cached is
	 * applied now, as if committed now. */
	if (sub->surface && sub->has_cache &&
	    !surface_is_synchronized(sub->surface)) {
		sub->has_cache = false;
		surface_apply(sub->surface, &sub->cached);
	}
}

static const struct wl_subsurface_interface subsurface_impl = {
	.destroy = resource_destroy_request,
	.set_position = subsurface_set_position,
	.place_above = subsurface_place_above,
	.place_below = subsurface_place_below,
	.set_sync = subsurface_set_sync,
	.set_desync = subsurface_set_desync,
};

/* Levels above s: 0 for a root. Bounded by SUBSURFACE_DEPTH_MAX, as every
 * tree is. */
static int
surface_depth(const struct surface *s)
{
	int depth = 0;

	for (; s->subsurface && s->subsurface->parent;
	     s = s->subsurface->parent)
		depth++;
	return depth;
}

/* Levels of subsurfaces below s: 0 without any. */
static int
surface_height(struct surface *s)
{
	struct tree_walk w;
	struct tree_entry e;
	int height = 0;

	tree_walk_init(&w, s, 0, 0);
	while (tree_walk_next(&w, &e)) {
		if (e.self)
			continue;
		height = e.depth > height ? e.depth : height;
		tree_walk_enter(&w);
	}
	return height;
}

static void
subcompositor_get_subsurface(struct wl_client *client,
			     struct wl_resource *resource, uint32_t id,
			     struct wl_resource *surface_resource,
			     struct wl_resource *parent_resource)
{
	struct surface *s = surface_from_resource(surface_resource);
	struct surface *parent = surface_from_resource(parent_resource);
	struct subsurface *sub;

	if (s->subsurface || (s->role && s->role != &subsurface_role)) {
		wl_resource_post_error(resource,
				       WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE,
				       "the wl_surface already has the role %s",
				       s->role->name);
		return;
	}
	/* Neither itself nor one of its descendants. */
	for (struct surface *p = parent; p;
	     p = p->subsurface ? p->subsurface->parent : NULL)
		if (p == s) {
			wl_resource_post_error(
				resource, WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE,
				"the parent is the surface or one of its "
				"descendants");
			return;
		}
	if (surface_depth(parent) + 1 + surface_height(s) >
	    SUBSURFACE_DEPTH_MAX) {
		wl_resource_post_error(
			resource, WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE,
			"the subsurface would be more than %d levels deep",
			SUBSURFACE_DEPTH_MAX);
		return;
	}
	sub = calloc(1, sizeof(*sub));
	if (!sub) {
		wl_client_post_no_memory(client);
		return;
	}
	sub->resource =
		wl_resource_create(client, &wl_subsurface_interface, 1, id);
	if (!sub->resource) {
		free(sub);
		wl_client_post_no_memory(client);
		return;
	}
	state_init(&sub->cached);
	sub->surface = s;
	sub->parent = parent;
	/* Synchronized by default, on top of its siblings and parent. */
	sub->synchronized = true;
	sub->entry.surface = sub->entry_pending.surface = s;
	wl_list_insert(parent->subsurfaces.prev, &sub->parent_link);
	wl_list_insert(parent->stack.prev, &sub->entry.link);
	wl_list_insert(parent->stack_pending.prev, &sub->entry_pending.link);
	s->subsurface = sub;
	surface_set_role(s, &subsurface_role);
	wl_resource_set_implementation(sub->resource, &subsurface_impl, sub,
				       subsurface_destroyed);
}

static const struct wl_subcompositor_interface subcompositor_impl = {
	.destroy = resource_destroy_request,
	.get_subsurface = subcompositor_get_subsurface,
};

bool
surface_init(struct comp *c)
{
	/* Version 4: damage_buffer; not 5 (wl_surface.offset). */
	return resource_add_plain_global(c, &wl_compositor_interface, 4,
					 &compositor_impl) &&
	       resource_add_plain_global(c, &wl_subcompositor_interface, 1,
					 &subcompositor_impl);
}
