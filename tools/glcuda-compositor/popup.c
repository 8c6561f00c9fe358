/*
 * glcuda-compositor: xdg_positioner and xdg_popup.
 *
 * A popup is placed by its positioner's rules relative to its parent's
 * window geometry: the anchor point on the anchor rectangle, the gravity,
 * the offset; then kept inside the output: per axis, flipped (anchor and
 * gravity mirrored) when that makes it fit, else slid, else resized, as
 * the constraint adjustment allows. It is drawn above everything mapped
 * before it, its parent included.
 *
 * Grabs: accepted whatever the serial (the seat is driven by scripts,
 * which may send no event first); a grab lasts until the client destroys
 * the popup, its parent is unmapped or destroyed, or a button is pressed
 * outside the client's surfaces. Then the popup and every popup above it
 * get popup_done, topmost first.
 *
 * Popups nest at most POPUP_DEPTH_MAX deep: the walks of a popup tree use
 * a fixed stack, and each popup is dismissed once.
 * SPDX-License-Identifier: MIT
 */
#include "compositor.h"

#include <stdlib.h>

#include "xdg-shell-server-protocol.h"

struct positioner {
	int32_t w, h;                   /* 0: not set */
	struct rect anchor_rect;
	bool has_anchor_rect;
	uint32_t anchor, gravity, constraint;
	int32_t off_x, off_y;
};

struct popup {
	struct wl_resource *resource;
	/* NULL once it or its xdg_surface went */
	struct surface *surface;
	struct surface *parent;         /* NULL once the parent went */
	struct wl_list parent_link;     /* parent->popups */
	struct positioner pos;
	/* relative to the parent's window geometry */
	struct rect placed;
	int depth;                      /* 1: its parent is a toplevel */
	uint32_t reposition_token;
	bool reposition_pending;
	bool grab, dismissed;
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

/* Placement ---------------------------------------------------------------- */

enum { EDGE_TOP = 1, EDGE_BOTTOM = 2, EDGE_LEFT = 4, EDGE_RIGHT = 8 };

/* The edges an anchor points to (a gravity too: they share values); e is
 * one of the protocol's nine values, checked when it was set. */
static unsigned int
edges(uint32_t e)
{
	static const unsigned int m[9] = {
		[XDG_POSITIONER_ANCHOR_NONE] = 0,
		[XDG_POSITIONER_ANCHOR_TOP] = EDGE_TOP,
		[XDG_POSITIONER_ANCHOR_BOTTOM] = EDGE_BOTTOM,
		[XDG_POSITIONER_ANCHOR_LEFT] = EDGE_LEFT,
		[XDG_POSITIONER_ANCHOR_RIGHT] = EDGE_RIGHT,
		[XDG_POSITIONER_ANCHOR_TOP_LEFT] = EDGE_TOP | EDGE_LEFT,
		[XDG_POSITIONER_ANCHOR_BOTTOM_LEFT] = EDGE_BOTTOM | EDGE_LEFT,
		[XDG_POSITIONER_ANCHOR_TOP_RIGHT] = EDGE_TOP | EDGE_RIGHT,
		[XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT] = EDGE_BOTTOM | EDGE_RIGHT,
	};
	return m[e];
}

/* Anchors and gravities share their values: the same edge mirrored. */
static uint32_t
flip_x(uint32_t e)
{
	static const uint32_t m[9] = { 0, 1, 2, 4, 3, 7, 8, 5, 6 };
	return m[e];
}

static uint32_t
flip_y(uint32_t e)
{
	static const uint32_t m[9] = { 0, 2, 1, 3, 4, 6, 5, 8, 7 };
	return m[e];
}

/* One axis: where the popup starts, from the anchor rectangle's start
 * and length, whether anchor and gravity point to the low or high end
 * (or neither: the middle), the popup's length and the offset. */
static int64_t
place_axis(int64_t start, int64_t len, bool anchor_lo, bool anchor_hi,
	   bool gravity_lo, bool gravity_hi, int64_t size, int64_t off)
{
	int64_t a = anchor_lo ? start
		    : anchor_hi ? start + len
		    : start + len / 2;

	return (gravity_lo ? a - size : gravity_hi ? a : a - size / 2) + off;
}

static int64_t
place_x(const struct positioner *p, uint32_t anchor, uint32_t gravity)
{
	unsigned int a = edges(anchor), g = edges(gravity);

	return place_axis(p->anchor_rect.x, p->anchor_rect.w, a & EDGE_LEFT,
			  a & EDGE_RIGHT, g & EDGE_LEFT, g & EDGE_RIGHT, p->w,
			  p->off_x);
}

static int64_t
place_y(const struct positioner *p, uint32_t anchor, uint32_t gravity)
{
	unsigned int a = edges(anchor), g = edges(gravity);

	return place_axis(p->anchor_rect.y, p->anchor_rect.h, a & EDGE_TOP,
			  a & EDGE_BOTTOM, g & EDGE_TOP, g & EDGE_BOTTOM, p->h,
			  p->off_y);
}

static bool
fits(int64_t base, int64_t x, int64_t size, int64_t area)
{
	return base + x >= 0 && base + x + size <= area;
}

/* One axis kept in [0, area) of the output: x and size relative to base
 * (the parent's window geometry on the output); flipped is x placed with
 * anchor and gravity mirrored. */
static void
constrain_axis(int64_t base, int64_t area, int64_t *x, int64_t *size,
	       int64_t flipped, bool can_flip, bool can_slide, bool can_resize)
{
	if (fits(base, *x, *size, area))
		return;
	if (can_flip && fits(base, flipped, *size, area)) {
		*x = flipped;
		return;
	}
	if (can_slide) {
		/* The start edge stays visible when both cannot. */
		if (base + *x + *size > area)
			*x = area - *size - base;
		if (base + *x < 0)
			*x = -base;
	}
	if (can_resize) {
		int64_t lo = base + *x < 0 ? -base : *x;
		int64_t hi =
			base + *x + *size > area ? area - base : *x + *size;

		if (hi > lo) {
			*x = lo;
			*size = hi - lo;
		}
	}
}

/* The parent's window geometry's corner on the output. */
static void
window_origin(const struct surface *s, int32_t *x, int32_t *y)
{
	*x = s->x + s->geometry.x;
	*y = s->y + s->geometry.y;
}

static void
popup_place(struct popup *p)
{
	const struct positioner *pos = &p->pos;
	struct comp *c = p->surface->comp;
	int32_t bx = 0, by = 0;
	int64_t x = place_x(pos, pos->anchor, pos->gravity);
	int64_t y = place_y(pos, pos->anchor, pos->gravity);
	int64_t w = pos->w, h = pos->h;
	uint32_t ca = pos->constraint;

	if (p->parent)
		window_origin(p->parent, &bx, &by);
	constrain_axis(bx, c->opt.width, &x, &w,
		       place_x(pos, flip_x(pos->anchor), flip_x(pos->gravity)),
		       ca & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_X,
		       ca & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_X,
		       ca & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_RESIZE_X);
	constrain_axis(by, c->opt.height, &y, &h,
		       place_y(pos, flip_y(pos->anchor), flip_y(pos->gravity)),
		       ca & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_Y,
		       ca & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_Y,
		       ca & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_RESIZE_Y);
	/* The inputs are int32_t: sums of three stay far inside int64_t,
	 * and the clamp keeps what goes on the wire an int32_t. */
	x = x < INT32_MIN ? INT32_MIN : x > INT32_MAX ? INT32_MAX : x;
	y = y < INT32_MIN ? INT32_MIN : y > INT32_MAX ? INT32_MAX : y;
	p->placed =
		(struct rect){ (int32_t)x, (int32_t)y, (int32_t)w, (int32_t)h };
}

/* Dismissal ---------------------------------------------------------------- */

static void
popup_unmap(struct popup *p)
{
	struct surface *s = p->surface;

	if (p->grab && p->parent && s && s->mapped)
		p->parent->popup_grabs--;
	if (s && s->mapped) {
		s->mapped = false;
		s->comp->damaged = true;
	}
}

/* popup_done for every popup above s (its popups, theirs...), topmost
 * first: a depth-first walk, newest child first, each popup after the
 * ones above it. The tree is at most POPUP_DEPTH_MAX deep. */
static void
dismiss_above(struct surface *s)
{
	struct {
		struct surface *parent;
		struct wl_list *pos; /* the child last entered */
	} stack[POPUP_DEPTH_MAX + 1];
	int top = 0;

	stack[0].parent = s;
	stack[0].pos = &s->popups;
	while (top >= 0) {
		struct surface *parent = stack[top].parent;
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
popup_parent_unmapped(struct surface *s)
{
	if (s->comp->popup_grab == s)
		s->comp->popup_grab = NULL;
	if (!wl_list_empty(&s->popups))
		dismiss_above(s);
}

void
popup_pointer_pressed(struct comp *c, struct surface *under)
{
	struct surface *root = c->popup_grab;

	/* Owner events: a click on the client's own surfaces is its own. */
	if (!root || (under && wl_resource_get_client(under->resource) ==
				       wl_resource_get_client(root->resource)))
		return;
	popup_parent_unmapped(root);
}

/* The toplevel below a popup: at most POPUP_DEPTH_MAX steps. */
static struct surface *
popup_root(struct popup *p)
{
	struct surface *s = p->parent;

	for (int i = 0; s && s->popup && i < POPUP_DEPTH_MAX; i++)
		s = s->popup->parent;
	return s;
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
popup_unmapped(struct surface *s)
{
	if (s->popup)
		popup_unmap(s->popup);
}

void
popup_surface_destroyed(struct surface *s)
{
	struct popup *p = s->popup;

	popup_parent_unmapped(s);
	/* Its popups are dismissed: they forget it. */
	while (!wl_list_empty(&s->popups)) {
		struct popup *child =
			wl_container_of(s->popups.next, child, parent_link);
		popup_detach_parent(child);
	}
	if (p) {
		popup_unmap(p);
		p->surface = NULL;
		s->popup = NULL;
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

static void positioner_copy(struct wl_resource *resource,
			    struct positioner *to);

static void
popup_reposition(struct wl_client *client, struct wl_resource *resource,
		 struct wl_resource *positioner, uint32_t token)
{
	struct popup *p = wl_resource_get_user_data(resource);
	struct positioner pos;

	positioner_copy(positioner, &pos);
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
	/* Before the initial commit, the initial configure carries it. */
	shell_configure(p->surface);
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
	struct surface *s = p->surface;

	if (s) {
		popup_unmap(p);
		s->xdg_popup = NULL;
		s->popup = NULL;
		s->configured = false;
		s->initial_commit_done = false;
		popup_parent_unmapped(s);
		while (!wl_list_empty(&s->popups)) {
			struct popup *child = wl_container_of(
				s->popups.next, child, parent_link);
			popup_detach_parent(child);
		}
	}
	popup_detach_parent(p);
	free(p);
}

void
popup_send_configure(struct surface *s)
{
	struct popup *p = s->popup;

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
popup_commit(struct surface *s)
{
	struct popup *p = s->popup;
	struct comp *c = s->comp;
	int32_t bx, by;

	if (p->dismissed || !p->parent || !p->parent->mapped) {
		/* Shown only over its mapped parent. */
		if (!p->dismissed && s->has_content) {
			p->dismissed = true;
			xdg_popup_send_popup_done(p->resource);
		}
		return;
	}
	window_origin(p->parent, &bx, &by);
	/* Where the last configure placed it, once acked. */
	if (s->n_pending == 0) {
		s->x = bx + p->placed.x - s->geometry.x;
		s->y = by + p->placed.y - s->geometry.y;
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
		c->popup_grab = popup_root(p);
	}
	/* Above everything mapped so far. */
	wl_list_remove(&s->link);
	wl_list_insert(c->surfaces.prev, &s->link);
	c->damaged = true;
	shell_send_enter(s);
	if (c->opt.verbose) {
		int32_t w, h;

		surface_get_size(s, &w, &h);
		fprintf(stderr, COMP_NAME ": mapped popup %dx%d at %d,%d\n", w,
			h, s->x, s->y);
	}
}

void
popup_create(struct wl_client *client, struct wl_resource *xdg_surface,
	     struct surface *s, uint32_t id,
	     struct wl_resource *parent_resource,
	     struct wl_resource *positioner)
{
	struct surface *parent =
		parent_resource ? wl_resource_get_user_data(parent_resource)
				: NULL;
	struct popup *p;

	if (!parent || !(parent->xdg_toplevel || parent->popup)) {
		post_wm_base_error(
			xdg_surface, XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT,
			"the popup's parent is not an xdg_surface with a role");
		return;
	}
	if (parent->popup && parent->popup->depth >= POPUP_DEPTH_MAX) {
		post_wm_base_error(
			xdg_surface, XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT,
			"popups nest at most " POPUP_DEPTH_MAX_STR " deep");
		return;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		wl_client_post_no_memory(client);
		return;
	}
	positioner_copy(positioner, &p->pos);
	if (!p->pos.w || !p->pos.has_anchor_rect) {
		free(p);
		post_wm_base_error(
			xdg_surface, XDG_WM_BASE_ERROR_INVALID_POSITIONER,
			"the positioner has no size or no anchor rectangle");
		return;
	}
	p->resource =
		wl_resource_create(client, &xdg_popup_interface,
				   wl_resource_get_version(xdg_surface), id);
	if (!p->resource) {
		free(p);
		wl_client_post_no_memory(client);
		return;
	}
	p->surface = s;
	p->parent = parent;
	p->depth = parent->popup ? parent->popup->depth + 1 : 1;
	p->dismissed = parent->popup && parent->popup->dismissed;
	/* Newest last: above the popups of the same parent. */
	wl_list_insert(parent->popups.prev, &p->parent_link);
	wl_resource_set_implementation(p->resource, &popup_impl, p,
				       popup_destroyed);
	s->xdg_popup = p->resource;
	s->popup = p;
}

/* xdg_positioner ----------------------------------------------------------- */

static void
positioner_set_size(struct wl_client *client, struct wl_resource *resource,
		    int32_t w, int32_t h)
{
	struct positioner *p = wl_resource_get_user_data(resource);

	if (w <= 0 || h <= 0) {
		wl_resource_post_error(resource,
				       XDG_POSITIONER_ERROR_INVALID_INPUT,
				       "size %dx%d is not positive", w, h);
		return;
	}
	p->w = w;
	p->h = h;
}

static void
positioner_set_anchor_rect(struct wl_client *client,
			   struct wl_resource *resource, int32_t x, int32_t y,
			   int32_t w, int32_t h)
{
	struct positioner *p = wl_resource_get_user_data(resource);

	if (w < 0 || h < 0) {
		wl_resource_post_error(
			resource, XDG_POSITIONER_ERROR_INVALID_INPUT,
			"anchor rectangle size %dx%d is negative", w, h);
		return;
	}
	p->anchor_rect = (struct rect){ x, y, w, h };
	p->has_anchor_rect = true;
}

/* Anchor and gravity: a value of the enum, or invalid_input. */
static bool
positioner_edge(struct wl_resource *resource, uint32_t v, const char *what)
{
	if (v > XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT) {
		wl_resource_post_error(
			resource, XDG_POSITIONER_ERROR_INVALID_INPUT,
			"%s %u is not one of the enum's", what, v);
		return false;
	}
	return true;
}

static void
positioner_set_anchor(struct wl_client *client, struct wl_resource *resource,
		      uint32_t v)
{
	struct positioner *p = wl_resource_get_user_data(resource);

	if (positioner_edge(resource, v, "anchor"))
		p->anchor = v;
}

static void
positioner_set_gravity(struct wl_client *client, struct wl_resource *resource,
		       uint32_t v)
{
	struct positioner *p = wl_resource_get_user_data(resource);

	if (positioner_edge(resource, v, "gravity"))
		p->gravity = v;
}

static void
positioner_set_constraint_adjustment(struct wl_client *client,
				     struct wl_resource *resource, uint32_t v)
{
	struct positioner *p = wl_resource_get_user_data(resource);

	/* Bits this version does not know are ignored. */
	p->constraint = v;
}

static void
positioner_set_offset(struct wl_client *client, struct wl_resource *resource,
		      int32_t x, int32_t y)
{
	struct positioner *p = wl_resource_get_user_data(resource);

	p->off_x = x;
	p->off_y = y;
}

/* Reactive popups follow a parent that moves or resizes: parents here
 * never move, and their size does not change a placement. */
static void
positioner_set_reactive(struct wl_client *client, struct wl_resource *resource)
{
}

/* The parent's future size and the configure it answers (version 3), for
 * placing a popup against a parent being resized: a placement here depends
 * on the anchor rectangle and the output's bounds only, never on the
 * parent's size. */
static void
positioner_set_parent_size(struct wl_client *client,
			   struct wl_resource *resource, int32_t w, int32_t h)
{
}

/* See positioner_set_parent_size. */
static void
positioner_set_parent_configure(struct wl_client *client,
				struct wl_resource *resource, uint32_t serial)
{
}

static const struct xdg_positioner_interface positioner_impl = {
	.destroy = resource_destroy_request,
	.set_size = positioner_set_size,
	.set_anchor_rect = positioner_set_anchor_rect,
	.set_anchor = positioner_set_anchor,
	.set_gravity = positioner_set_gravity,
	.set_constraint_adjustment = positioner_set_constraint_adjustment,
	.set_offset = positioner_set_offset,
	.set_reactive = positioner_set_reactive,
	.set_parent_size = positioner_set_parent_size,
	.set_parent_configure = positioner_set_parent_configure,
};

static void
positioner_destroyed(struct wl_resource *resource)
{
	free(wl_resource_get_user_data(resource));
}

/* The rules as they are now: later changes do not move the popup. */
static void
positioner_copy(struct wl_resource *resource, struct positioner *to)
{
	*to = *(struct positioner *)wl_resource_get_user_data(resource);
}

void
positioner_create(struct wl_client *client, struct wl_resource *wm_base,
		  uint32_t id)
{
	struct positioner *p = calloc(1, sizeof(*p));
	struct wl_resource *r;

	if (!p) {
		wl_client_post_no_memory(client);
		return;
	}
	r = resource_new(client, &xdg_positioner_interface,
			 wl_resource_get_version(wm_base), id, &positioner_impl,
			 p, positioner_destroyed);
	if (!r) {
		free(p);
		return;
	}
}
