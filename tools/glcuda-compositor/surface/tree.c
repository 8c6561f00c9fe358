/*
 * glcuda-compositor: the walk of a surface's subsurface tree, for all who
 * walk one (applying cached state, measuring a tree, drawing).
 *
 * Depth first, in stacking order, bottom to top: each surface's stack
 * holds its own place among its subsurfaces'. A subsurface is gone into
 * only when the walker asks (tree_walk_enter), so each decides what it
 * skips. The stack is a fixed array of SUBSURFACE_DEPTH_MAX + 1 levels:
 * get_subsurface keeps every tree that shallow, and nothing here recurses
 * or loops as deep as a client likes.
 * SPDX-License-Identifier: MIT
 */
#include "surface/surface.h"

void
tree_walk_init(struct tree_walk *w, struct surface *root, int32_t x, int32_t y)
{
	w->top = 0;
	w->level[0].s = root;
	w->level[0].pos = &root->stack;
	w->level[0].x = x;
	w->level[0].y = y;
	w->child = NULL;
}

struct surface *
tree_walk_next(struct tree_walk *w, struct tree_entry *out)
{
	w->child = NULL;
	while (w->top >= 0) {
		struct surface *s = w->level[w->top].s;
		struct wl_list *next = w->level[w->top].pos->next;
		struct stack_entry *e;

		if (next == &s->stack) {
			w->top--;
			continue;
		}
		w->level[w->top].pos = next;
		e = wl_container_of(next, e, link);
		out->surface = e->surface;
		out->self = e->surface == s;
		out->depth = out->self ? w->top : w->top + 1;
		out->x = w->level[w->top].x;
		out->y = w->level[w->top].y;
		if (!out->self) {
			out->x += e->x;
			out->y += e->y;
			w->child = e->surface;
			w->child_x = out->x;
			w->child_y = out->y;
		}
		return out->surface;
	}
	return NULL;
}

bool
tree_walk_enter(struct tree_walk *w)
{
	struct surface *t = w->child;

	if (!t || w->top == SUBSURFACE_DEPTH_MAX)
		return false; /* not reached: the depth is bounded */
	w->top++;
	w->level[w->top].s = t;
	w->level[w->top].pos = &t->stack;
	w->level[w->top].x = w->child_x;
	w->level[w->top].y = w->child_y;
	w->child = NULL;
	return true;
}
