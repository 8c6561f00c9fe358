/*
 * glcuda-compositor: wl_compositor and wl_surface: the protocol and what a
 * commit applies (the state itself is surface-state.c's, wl_region is
 * region.c's). What is beyond every surface listens to the surface's
 * events (struct surface.events): its role (its part of a commit, at
 * commit), a synchronized subsurface (subsurface.c, which has its state
 * cached, at client_commit), its viewport (viewporter.c, which checks the
 * state, at check); the role's hooks (struct surface_role) check a state
 * first and name a window. Buffers are wl_shm (ARGB8888 and
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
#include "surface/surface.h"
#include "comp.h"
#include "buffer/buffer.h"
#include "resource.h"

#include <stdlib.h>
#include <string.h>

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
	state_fini(u->surface->comp, &u->state);
	state_fini(u->surface->comp, &u->next);
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

/* The parent's state holds where its subsurfaces are and their order
 * (each pending entry of its stack, and the current one it is applied
 * to). true when either changed. */
static bool
surface_apply_children(struct surface *s)
{
	struct stack_entry *e;
	bool changed = false;

	wl_list_for_each(e, &s->stack_pending, link) {
		struct stack_entry *cur = e->applied;

		/* The entries not moved yet keep their order at the front:
		 * the order is the same if each comes from there. */
		if (s->stack.next != &cur->link)
			changed = true;
		wl_list_remove(&cur->link);
		wl_list_insert(s->stack.prev, &cur->link);
		changed |= cur->x != e->x || cur->y != e->y;
		cur->x = e->x;
		cur->y = e->y;
	}
	return changed;
}

/* The state checked by what listens (its viewport: viewporter.c), once
 * its buffer is applied. false after a protocol error. */
static bool
surface_check(struct surface *s, const struct surface_state *st)
{
	struct surface_check check = { .state = st };

	wl_signal_emit(&s->events.check, &check);
	return !check.refused;
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
	if (!surface_check(s, st))
		return false;
	if (memcmp(&s->viewport, &st->viewport, sizeof(s->viewport)))
		s->comp->damaged = true;
	s->viewport = st->viewport;
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
		/* Only a synchronized subsurface has a cache (set_desync
		 * applies it); one without keeps its subsurfaces' too. */
		if (e.self || !e.surface->has_cache)
			continue;
		e.surface->has_cache = false;
		if (!surface_apply_one(e.surface, &e.surface->cached))
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

	struct surface_commit commit = { .cache = false };

	wl_signal_emit(&s->events.client_commit, &commit);
	if (commit.cache) {
		/* Applied when the parent's state is, or when released. */
		state_move(&s->cached, &s->pending);
		s->has_cache = true;
		return;
	}
	surface_apply(s, &s->pending);
}

void
surface_apply_cached(struct surface *s)
{
	if (!s->has_cache)
		return;
	s->has_cache = false;
	surface_apply(s, &s->cached);
}

void
surface_discard_cached(struct surface *s)
{
	if (!s->has_cache)
		return;
	s->has_cache = false;
	state_discard(s->comp, &s->cached);
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

static void
surface_destroyed(struct wl_resource *resource)
{
	struct surface *s = surface_from_resource(resource);

	/* The client destroyed it or went away, perhaps while a frame with
	 * it is in the ring: the ring holds its own copy of the pixels, so
	 * only our texture and lists go. What holds it (its role, its
	 * viewport, its subsurface objects and its subsurfaces') lets go. */
	wl_signal_emit(&s->events.destroy, s);
	wl_list_remove(&s->link);
	if (s->upload) {
		texture_upload_cancel(s);
		upload_free(s->upload);
		s->upload = NULL;
	}
	surface_release_held(s);
	state_fini(s->comp, &s->pending);
	state_fini(s->comp, &s->cached);
	destroy_all(&s->frames);
	if (!wl_list_empty(&s->feedback))
		wl_signal_emit(&s->comp->events.feedback_discard, &s->feedback);
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
	state_init(&s->cached);
	wl_list_init(&s->frames);
	wl_list_init(&s->feedback);
	wl_list_init(&s->held_buffer_destroy.link);
	s->held_buffer_destroy.notify = held_buffer_gone;
	wl_signal_init(&s->events.client_commit);
	wl_signal_init(&s->events.check);
	wl_signal_init(&s->events.commit);
	wl_signal_init(&s->events.destroy);
	wl_list_init(&s->stack);
	wl_list_init(&s->stack_pending);
	s->self.surface = s->self_pending.surface = s;
	s->self.applied = s->self_pending.applied = &s->self;
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

bool
surface_init(struct comp *c)
{
	/* Version 4: damage_buffer; not 5 (wl_surface.offset). */
	return resource_add_plain_global(c, &wl_compositor_interface, 4,
					 &compositor_impl);
}
