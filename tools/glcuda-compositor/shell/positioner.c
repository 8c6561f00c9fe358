/*
 * glcuda-compositor: xdg_positioner, the rules that place a popup
 * (popup.c): the anchor point on the anchor rectangle, the gravity, the
 * offset, relative to the parent's window geometry; then kept inside the
 * output: per axis, flipped (anchor and gravity mirrored) when that makes
 * it fit, else slid, else resized, as the constraint adjustment allows.
 * SPDX-License-Identifier: MIT
 */
#include "shell/shell.h"
#include "resource.h"
#include "surface/surface.h"

#include <stdlib.h>

#include "xdg-shell-server-protocol.h"

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

struct rect
positioner_place(const struct positioner *pos, int32_t bx, int32_t by,
		 uint32_t area_w, uint32_t area_h)
{
	int64_t x = place_x(pos, pos->anchor, pos->gravity);
	int64_t y = place_y(pos, pos->anchor, pos->gravity);
	int64_t w = pos->w, h = pos->h;
	uint32_t ca = pos->constraint;

	constrain_axis(bx, area_w, &x, &w,
		       place_x(pos, flip_x(pos->anchor), flip_x(pos->gravity)),
		       ca & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_X,
		       ca & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_X,
		       ca & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_RESIZE_X);
	constrain_axis(by, area_h, &y, &h,
		       place_y(pos, flip_y(pos->anchor), flip_y(pos->gravity)),
		       ca & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_Y,
		       ca & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_Y,
		       ca & XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_RESIZE_Y);
	/* The inputs are int32_t: sums of three stay far inside int64_t,
	 * and the clamp keeps what goes on the wire an int32_t. */
	x = x < INT32_MIN ? INT32_MIN : x > INT32_MAX ? INT32_MAX : x;
	y = y < INT32_MIN ? INT32_MIN : y > INT32_MAX ? INT32_MAX : y;
	return (struct rect){ (int32_t)x, (int32_t)y, (int32_t)w, (int32_t)h };
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

void
positioner_get(struct wl_resource *resource, struct positioner *to)
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
