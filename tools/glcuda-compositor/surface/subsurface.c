/*
 * glcuda-compositor: wl_subcompositor and wl_subsurface, the role of a
 * surface drawn as part of its parent. The role's state is its
 * struct subsurface (the surface's role_data while the object lives); the
 * parent's stack (struct surface.stack, stack_pending) holds the
 * subsurface's place and position, applied with the parent's state
 * (surface.c). A synchronized subsurface has its commits cached: it
 * listens to its surface's client_commit event, and surface.c applies
 * the cache with the parent's state (or when set_desync releases it).
 *
 * Subsurface trees are at most SUBSURFACE_DEPTH_MAX levels deep, and are
 * walked with tree.c's walk: nothing here recurses or loops as deep as a
 * client likes.
 * SPDX-License-Identifier: MIT
 */
#include "surface/surface.h"
#include "comp.h"
#include "resource.h"

#include <stdlib.h>

/* A wl_subsurface. surface and parent are NULL once they are gone (the
 * object is then inert). */
struct subsurface {
	struct wl_resource *resource;
	struct surface *surface, *parent;
	/* In the parent's stack (current and pending): its place and its
	 * position relative to the parent. */
	struct stack_entry entry, entry_pending;
	bool synchronized;
	struct wl_listener client_commit;      /* the surface's */
	struct wl_listener surface_destroy, parent_destroy;
};

/* The role has no hooks: what it does, it does by listening. */
static const struct surface_role subsurface_role = {
	.name = "wl_subsurface",
};

/* The subsurface object of s, NULL if it has none (now). */
static struct subsurface *
subsurface_of(const struct surface *s)
{
	return s->role == &subsurface_role ? s->role_data : NULL;
}

/* Whether the surface's commits are cached: it or one of its ancestors
 * is a synchronized subsurface. */
static bool
subsurface_is_synchronized(struct surface *s)
{
	struct subsurface *sub;

	while (s && (sub = subsurface_of(s))) {
		if (sub->synchronized)
			return true;
		s = sub->parent;
	}
	return false;
}

struct surface *
surface_root(struct surface *s)
{
	struct subsurface *sub;

	for (; (sub = subsurface_of(s)) && sub->parent; s = sub->parent)
		;
	return s;
}

/* Out of its parent's stack: the surface is no longer drawn with it. Its
 * cached state will never be applied. */
static void
subsurface_unlink(struct subsurface *sub)
{
	if (sub->parent) {
		wl_list_remove(&sub->entry.link);
		wl_list_remove(&sub->entry_pending.link);
		wl_list_init(&sub->entry.link);
		wl_list_init(&sub->entry_pending.link);
		listener_detach(&sub->parent_destroy);
		sub->parent->comp->damaged = true;
		sub->parent = NULL;
	}
	if (sub->surface)
		surface_discard_cached(sub->surface);
}

/* A commit of the surface: cached while it is synchronized. */
static void
on_client_commit(struct wl_listener *listener, void *data)
{
	struct subsurface *sub = wl_container_of(listener, sub, client_commit);
	struct surface_commit *commit = data;

	if (subsurface_is_synchronized(sub->surface))
		commit->cache = true;
}

/* The parent goes: the subsurface becomes inert. */
static void
on_parent_destroy(struct wl_listener *listener, void *data)
{
	struct subsurface *sub =
		wl_container_of(listener, sub, parent_destroy);

	subsurface_unlink(sub);
}

/* Its own surface goes: the object becomes inert. */
static void
on_surface_destroy(struct wl_listener *listener, void *data)
{
	struct subsurface *sub =
		wl_container_of(listener, sub, surface_destroy);

	subsurface_unlink(sub);
	listener_detach(&sub->client_commit);
	listener_detach(&sub->surface_destroy);
	sub->surface->role_data = NULL;
	sub->surface->role_resource = NULL;
	sub->surface = NULL;
}

static void
subsurface_destroyed(struct wl_resource *resource)
{
	struct subsurface *sub = wl_resource_get_user_data(resource);

	/* The wl_surface is unmapped at once and loses its role. */
	subsurface_unlink(sub);
	if (sub->surface) {
		listener_detach(&sub->client_commit);
		listener_detach(&sub->surface_destroy);
		sub->surface->role_data = NULL;
		sub->surface->role_resource = NULL;
	}
	free(sub);
}

static void
subsurface_set_position(struct wl_client *client, struct wl_resource *resource,
			int32_t x, int32_t y)
{
	struct subsurface *sub = wl_resource_get_user_data(resource);

	sub->entry_pending.x = x;
	sub->entry_pending.y = y;
}

/* Move the subsurface above or below a sibling or its parent, in the
 * parent's pending order. */
static void
subsurface_place(struct wl_resource *resource,
		 struct wl_resource *sibling_resource, bool above)
{
	struct subsurface *sub = wl_resource_get_user_data(resource);
	struct surface *sibling = surface_from_resource(sibling_resource);
	struct subsurface *sibling_sub = subsurface_of(sibling);
	struct stack_entry *target;

	if (!sub->parent)
		return;
	if (sibling == sub->parent) {
		target = &sub->parent->self_pending;
	} else if (sibling != sub->surface && sibling_sub &&
		   sibling_sub->parent == sub->parent) {
		target = &sibling_sub->entry_pending;
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
	if (sub->surface && !subsurface_is_synchronized(sub->surface))
		surface_apply_cached(sub->surface);
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
	const struct subsurface *sub;
	int depth = 0;

	for (; (sub = subsurface_of(s)) && sub->parent; s = sub->parent)
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

	if (s->role && (s->role != &subsurface_role || s->role_data)) {
		wl_resource_post_error(resource,
				       WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE,
				       "the wl_surface already has the role %s",
				       s->role->name);
		return;
	}
	/* Neither itself nor one of its descendants. */
	for (struct surface *p = parent; p;
	     p = subsurface_of(p) ? subsurface_of(p)->parent : NULL)
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
	sub->surface = s;
	sub->parent = parent;
	/* Synchronized by default, on top of its siblings and parent. */
	sub->synchronized = true;
	sub->entry.surface = sub->entry_pending.surface = s;
	sub->entry.applied = sub->entry_pending.applied = &sub->entry;
	wl_list_insert(parent->stack.prev, &sub->entry.link);
	wl_list_insert(parent->stack_pending.prev, &sub->entry_pending.link);
	sub->client_commit.notify = on_client_commit;
	wl_signal_add(&s->events.client_commit, &sub->client_commit);
	sub->surface_destroy.notify = on_surface_destroy;
	wl_signal_add(&s->events.destroy, &sub->surface_destroy);
	sub->parent_destroy.notify = on_parent_destroy;
	wl_signal_add(&parent->events.destroy, &sub->parent_destroy);
	surface_set_role(s, &subsurface_role);
	s->role_data = sub;
	s->role_resource = sub->resource;
	wl_resource_set_implementation(sub->resource, &subsurface_impl, sub,
				       subsurface_destroyed);
}

static const struct wl_subcompositor_interface subcompositor_impl = {
	.destroy = resource_destroy_request,
	.get_subsurface = subcompositor_get_subsurface,
};

bool
subsurface_init(struct comp *c)
{
	return resource_add_plain_global(c, &wl_subcompositor_interface, 1,
					 &subcompositor_impl);
}
