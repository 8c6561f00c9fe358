/*
 * glcuda-compositor: xdg_popup, the xdg_surface's role object (shell.c)
 * for menus and tooltips.
 *
 * A popup is placed by its positioner's rules (positioner.c) relative to
 * its parent's window geometry, kept inside the output. It is drawn above
 * everything mapped before it, its parent included.
 *
 * Grabs: accepted whatever the serial (the seat is driven by scripts,
 * which may send no event first); a grab lasts until the client destroys
 * the popup, its parent is unmapped or destroyed, or a button is pressed
 * outside the client's surfaces (the popups' grab of the seat, struct
 * seat_grab). Then the popup and every popup above it get popup_done,
 * topmost first.
 *
 * Popups nest at most POPUP_DEPTH_MAX deep: the walks of a popup tree use
 * a fixed stack, and each popup is dismissed once.
 * SPDX-License-Identifier: MIT
 */
#include "shell/shell.h"
#include "comp.h"
#include "resource.h"
#include "seat/seat.h"
#include "surface/surface.h"

#include <stdlib.h>

#include "xdg-shell-server-protocol.h"

struct popup {
	struct wl_resource *resource;
	/* NULL once it or its xdg_surface went */
	struct xdg_surface *surface;
	struct xdg_surface *parent;     /* NULL once the parent went */
	struct wl_list parent_link;     /* parent->popups */
	struct positioner pos;
	/* relative to the parent's window geometry */
	struct rect placed;
	int depth;                      /* 1: its parent is a toplevel */
	uint32_t reposition_token;
	bool reposition_pending;
	bool grab, dismissed;
	struct wl_signal reposition;
};

/* Errors of xdg_wm_base go on the client's xdg_wm_base. */
static void
post_wm_base_error(struct wl_resource *resource, uint32_t code, const char *msg)
{
	struct wl_client *client = wl_resource_get_client(resource);
	struct wl_resource *wm_base =
		client_find_resource(client, &xdg_wm_base_interface);

	if (wm_base)
		wl_resource_post_error(wm_base, code, "%s", msg);
	else
		/* It destroyed its xdg_wm_base with surfaces alive. */
		wl_resource_post_error(resource, code, "%s", msg);
}

/* The parent's window geometry's corner on the output. */
static void
window_origin(const struct xdg_surface *xs, int32_t *x, int32_t *y)
{
	*x = xs->surface->x + xs->geometry.x;
	*y = xs->surface->y + xs->geometry.y;
}

static void
popup_place(struct popup *p)
{
	struct comp *c = p->surface->surface->comp;
	int32_t bx = 0, by = 0;

	if (p->parent)
		window_origin(p->parent, &bx, &by);
	p->placed = positioner_place(&p->pos, bx, by, c->opt.width,
				     c->opt.height);
}

/* Dismissal ---------------------------------------------------------------- */

static void
popup_unmap(struct popup *p)
{
	struct surface *s = p->surface ? p->surface->surface : NULL;

	if (p->grab && p->parent && s && s->mapped)
		p->parent->popup_grabs--;
	if (s && s->mapped) {
		s->mapped = false;
		s->comp->damaged = true;
	}
}

/* popup_done for every popup above xs (its popups, theirs...), topmost
 * first: a depth-first walk, newest child first, each popup after the
 * ones above it. The tree is at most POPUP_DEPTH_MAX deep. */
static void
dismiss_above(struct xdg_surface *xs)
{
	struct {
		struct xdg_surface *parent;
		struct wl_list *pos; /* the child last entered */
	} stack[POPUP_DEPTH_MAX + 1];
	int top = 0;

	stack[0].parent = xs;
	stack[0].pos = &xs->popups;
	while (top >= 0) {
		struct xdg_surface *parent = stack[top].parent;
		struct wl_list *prev = stack[top].pos->prev;
		struct popup *p;

		if (prev == &parent->popups) {
			top--;
			if (top >= 0) {
				/* Everything above it is done: now itself. */
				p = wl_container_of(stack[top].pos, p,
						    parent_link);
				popup_unmap(p);
				xdg_popup_send_popup_done(p->resource);
			}
			continue;
		}
		stack[top].pos = prev;
		p = wl_container_of(prev, p, parent_link);
		if (p->dismissed || !p->surface || top == POPUP_DEPTH_MAX) {
			continue;
		}
		p->dismissed = true;
		top++;
		stack[top].parent = p->surface;
		stack[top].pos = &p->surface->popups;
	}
}

void
popup_parent_unmapped(struct xdg_surface *xs)
{
	struct comp *c = xs->surface->comp;

	if (c->popup_grab == xs->surface) {
		c->popup_grab = NULL;
		seat_grab_end(c, &c->popup_seat_grab);
	}
	if (!wl_list_empty(&xs->popups))
		dismiss_above(xs);
}

/* The grab's button: a press outside the grabbing client's surfaces. */
static void
popup_grab_button(struct seat_grab *grab, struct surface *under)
{
	struct surface *root = grab->comp->popup_grab;

	/* Owner events: a click on the client's own surfaces is its own. */
	if (!root || (under && wl_resource_get_client(under->resource) ==
				       wl_resource_get_client(root->resource)))
		return;
	popup_parent_unmapped(xdg_surface_from_surface(root));
}

static const struct seat_grab_interface popup_grab_impl = {
	.button = popup_grab_button,
};

void
popup_init(struct comp *c)
{
	c->popup_seat_grab.impl = &popup_grab_impl;
	c->popup_seat_grab.comp = c;
}

/* The toplevel below a popup: at most POPUP_DEPTH_MAX steps. */
static struct xdg_surface *
popup_root(struct popup *p)
{
	struct xdg_surface *xs = p->parent;

	for (int i = 0; xs && xs->popup && i < POPUP_DEPTH_MAX; i++)
		xs = xs->popup->parent;
	return xs;
}

/* The popup no longer has a parent surface to be placed against. */
static void
popup_detach_parent(struct popup *p)
{
	if (!p->parent)
		return;
	wl_list_remove(&p->parent_link);
	wl_list_init(&p->parent_link);
	p->parent = NULL;
}

void
popup_unmapped(struct xdg_surface *xs)
{
	if (xs->popup)
		popup_unmap(xs->popup);
}

void
popup_surface_destroyed(struct xdg_surface *xs)
{
	struct popup *p = xs->popup;

	popup_parent_unmapped(xs);
	/* Its popups are dismissed: they forget it. */
	while (!wl_list_empty(&xs->popups)) {
		struct popup *child =
			wl_container_of(xs->popups.next, child, parent_link);
		popup_detach_parent(child);
	}
	if (p) {
		popup_unmap(p);
		p->surface = NULL;
		xs->popup = NULL;
	}
}

/* xdg_popup ---------------------------------------------------------------- */

static void
popup_destroy(struct wl_client *client, struct wl_resource *resource)
{
	struct popup *p = wl_resource_get_user_data(resource);
	struct popup *child;

	/* Only the topmost may go: none of its popups is still shown. */
	if (p->surface)
		wl_list_for_each(child, &p->surface->popups, parent_link)
			if (!child->dismissed) {
			post_wm_base_error(
				resource,
				XDG_WM_BASE_ERROR_NOT_THE_TOPMOST_POPUP,
				"xdg_popup destroyed while a popup above it is "
				"not dismissed");
			return;
			}
	wl_resource_destroy(resource);
}

static void
popup_grab(struct wl_client *client, struct wl_resource *resource,
	   struct wl_resource *seat, uint32_t serial)
{
	struct popup *p = wl_resource_get_user_data(resource);

	if (!p->surface)
		return;
	if (p->surface->initial_commit_done) {
		wl_resource_post_error(resource, XDG_POPUP_ERROR_INVALID_GRAB,
				       "grab after the popup's initial commit");
		return;
	}
	if (p->parent && p->parent->popup) {
		if (!p->parent->popup->grab) {
			wl_resource_post_error(
				resource, XDG_POPUP_ERROR_INVALID_GRAB,
				"grab on a popup whose parent popup holds no "
				"grab");
			return;
		}
		if (p->parent->popup->dismissed) {
			/* Its parent's grab is over: so is this one. */
			p->dismissed = true;
			xdg_popup_send_popup_done(resource);
			return;
		}
	}
	p->grab = true;
}

static void
popup_reposition(struct wl_client *client, struct wl_resource *resource,
		 struct wl_resource *positioner, uint32_t token)
{
	struct popup *p = wl_resource_get_user_data(resource);
	struct positioner pos;

	positioner_get(positioner, &pos);
	if (!pos.w || !pos.has_anchor_rect) {
		post_wm_base_error(
			resource, XDG_WM_BASE_ERROR_INVALID_POSITIONER,
			"reposition with a positioner without a size or anchor "
			"rectangle");
		return;
	}
	if (!p->surface || p->dismissed)
		return;
	p->pos = pos;
	p->reposition_token = token;
	p->reposition_pending = true;
	/* Its xdg_surface sends a configure (before the initial commit,
	 * the initial configure carries it). */
	wl_signal_emit(&p->reposition, p);
}

static const struct xdg_popup_interface popup_impl = {
	.destroy = popup_destroy,
	.grab = popup_grab,
	.reposition = popup_reposition,
};

static void
popup_destroyed(struct wl_resource *resource)
{
	struct popup *p = wl_resource_get_user_data(resource);
	struct xdg_surface *xs = p->surface;

	if (xs) {
		popup_unmap(p);
		xs->xdg_popup = NULL;
		xs->popup = NULL;
		xs->configured = false;
		xs->initial_commit_done = false;
		popup_parent_unmapped(xs);
		while (!wl_list_empty(&xs->popups)) {
			struct popup *child = wl_container_of(
				xs->popups.next, child, parent_link);
			popup_detach_parent(child);
		}
	}
	popup_detach_parent(p);
	/* Its xdg_surface no longer listens. */
	while (!wl_list_empty(&p->reposition.listener_list)) {
		struct wl_listener *l = wl_container_of(
			p->reposition.listener_list.next, l, link);
		listener_detach(l);
	}
	free(p);
}

void
popup_send_configure(struct xdg_surface *xs)
{
	struct popup *p = xs->popup;

	if (p->reposition_pending &&
	    wl_resource_get_version(p->resource) >=
		    XDG_POPUP_REPOSITIONED_SINCE_VERSION)
		xdg_popup_send_repositioned(p->resource, p->reposition_token);
	p->reposition_pending = false;
	popup_place(p);
	xdg_popup_send_configure(p->resource, p->placed.x, p->placed.y,
				 p->placed.w, p->placed.h);
}

void
popup_commit(struct xdg_surface *xs)
{
	struct popup *p = xs->popup;
	struct surface *s = xs->surface;
	struct comp *c = s->comp;
	int32_t bx, by;

	if (p->dismissed || !p->parent || !p->parent->surface->mapped) {
		/* Shown only over its mapped parent. */
		if (!p->dismissed && s->has_content) {
			p->dismissed = true;
			xdg_popup_send_popup_done(p->resource);
		}
		return;
	}
	window_origin(p->parent, &bx, &by);
	/* Where the last configure placed it, once acked. */
	if (xs->n_pending == 0) {
		s->x = bx + p->placed.x - xs->geometry.x;
		s->y = by + p->placed.y - xs->geometry.y;
	}
	if (s->mapped || !s->has_content)
		return;
	if (p->grab && p->parent->popup_grabs) {
		post_wm_base_error(
			p->resource, XDG_WM_BASE_ERROR_NOT_THE_TOPMOST_POPUP,
			"a grabbing popup mapped over a parent that is not the "
			"topmost grabbing popup");
		return;
	}
	s->mapped = true;
	if (p->grab) {
		p->parent->popup_grabs++;
		c->popup_grab = popup_root(p)->surface;
		seat_grab_begin(c, &c->popup_seat_grab);
	}
	/* Above everything mapped so far. */
	wl_list_remove(&s->link);
	wl_list_insert(c->surfaces.prev, &s->link);
	c->damaged = true;
	surface_send_enter(s);
	if (c->opt.verbose) {
		int32_t w, h;

		surface_get_size(s, &w, &h);
		fprintf(stderr, COMP_NAME ": mapped popup %dx%d at %d,%d\n", w,
			h, s->x, s->y);
	}
}

struct wl_signal *
popup_reposition_signal(struct popup *p)
{
	return &p->reposition;
}

struct popup *
popup_create(struct wl_client *client, struct wl_resource *xdg_surface,
	     struct xdg_surface *xs, uint32_t id,
	     struct wl_resource *parent_resource,
	     struct wl_resource *positioner)
{
	struct xdg_surface *parent =
		parent_resource ? wl_resource_get_user_data(parent_resource)
				: NULL;
	struct popup *p;

	if (!parent || !(parent->toplevel || parent->popup)) {
		post_wm_base_error(
			xdg_surface, XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT,
			"the popup's parent is not an xdg_surface with a role");
		return NULL;
	}
	if (parent->popup && parent->popup->depth >= POPUP_DEPTH_MAX) {
		post_wm_base_error(
			xdg_surface, XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT,
			"popups nest at most " POPUP_DEPTH_MAX_STR " deep");
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	positioner_get(positioner, &p->pos);
	if (!p->pos.w || !p->pos.has_anchor_rect) {
		free(p);
		post_wm_base_error(
			xdg_surface, XDG_WM_BASE_ERROR_INVALID_POSITIONER,
			"the positioner has no size or no anchor rectangle");
		return NULL;
	}
	p->resource =
		wl_resource_create(client, &xdg_popup_interface,
				   wl_resource_get_version(xdg_surface), id);
	if (!p->resource) {
		free(p);
		wl_client_post_no_memory(client);
		return NULL;
	}
	p->surface = xs;
	p->parent = parent;
	p->depth = parent->popup ? parent->popup->depth + 1 : 1;
	p->dismissed = parent->popup && parent->popup->dismissed;
	wl_signal_init(&p->reposition);
	/* Newest last: above the popups of the same parent. */
	wl_list_insert(parent->popups.prev, &p->parent_link);
	wl_resource_set_implementation(p->resource, &popup_impl, p,
				       popup_destroyed);
	xs->xdg_popup = p->resource;
	xs->popup = p;
	return p;
}
