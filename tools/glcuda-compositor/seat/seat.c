/*
 * glcuda-compositor: wl_seat "seat0" with a pointer and a keyboard, both
 * driven from outside through the control socket (control.c): no input
 * devices. The pointer's focus is the surface under it, the topmost one
 * whose input region holds the pointer (subsurfaces included: a point
 * outside a surface's input region goes to what is below it); the
 * keyboard's is a toplevel, given by a button press on it,
 * the focus command, or when a toplevel maps. Events follow wl_seat's
 * rules: enter before anything else with a fresh serial, leave when the
 * focus moves, wl_pointer.frame after each group (version 5), modifiers
 * after wl_keyboard.enter and whenever they change. Keys do not repeat
 * (repeat_info rate 0): a test gets exactly the keys it sends.
 * SPDX-License-Identifier: MIT
 */
#include "seat/seat.h"
#include "comp.h"
#include "resource.h"
#include "surface/surface.h"

#include <stdlib.h>
#include <string.h>

#include "clock.h"

static uint32_t
now_ms(void)
{
	return (uint32_t)(clock_now_ns() / 1000000u);
}

static uint32_t
next_serial(struct comp *c)
{
	return wl_display_next_serial(c->display);
}

/* The resources in list that belong to the client of surface s. */
#define for_each_resource_of(r, list, s)                               \
	wl_resource_for_each(r, list)                                  \
		if (wl_resource_get_client(r) ==                       \
		    wl_resource_get_client((s)->resource))

/* Focus ------------------------------------------------------------------ */

static void
focus_gone(struct wl_listener *listener, void *data)
{
	struct focus *f = wl_container_of(listener, f, gone);

	/* The surface is being destroyed: no leave (it names the surface). */
	listener_detach(&f->gone);
	f->surface = NULL;
}

/* The focus to s (NULL: none), watching it go. */
static void
focus_set(struct focus *f, struct surface *s)
{
	listener_detach(&f->gone);
	f->surface = s;
	if (s)
		wl_resource_add_destroy_listener(s->resource, &f->gone);
}

static void
focus_init(struct focus *f)
{
	f->surface = NULL;
	wl_list_init(&f->gone.link);
	f->gone.notify = focus_gone;
}

/* The topmost surface at x, y on the output, and x, y on it. */
static struct surface *
surface_at(struct comp *c, double x, double y, double *sx, double *sy)
{
	struct surface *s, *hit = NULL;

	wl_list_for_each(s, &c->surfaces, link) {
		struct tree_walk w;
		struct tree_entry e;

		if (!s->mapped || !s->has_content)
			continue;
		/* As render.c draws: the last one drawn at x, y is on top. */
		tree_walk_init(&w, s, s->x, s->y);
		while (tree_walk_next(&w, &e)) {
			if (!e.surface->has_content)
				continue;
			if (!e.self) {
				tree_walk_enter(&w);
				continue;
			}
			if (surface_accepts_input(e.surface, x - e.x,
						  y - e.y)) {
				hit = e.surface;
				*sx = x - e.x;
				*sy = y - e.y;
			}
		}
	}
	return hit;
}

static void
pointer_send_frame(struct seat *seat, struct surface *s)
{
	struct wl_resource *r;

	for_each_resource_of(r, &seat->pointers, s)
		if (wl_resource_get_version(r) >=
		    WL_POINTER_FRAME_SINCE_VERSION)
			wl_pointer_send_frame(r);
}

/* The pointer's focus becomes the surface under it; enter and leave as
 * it changes. true when the focus changed (enter sent). */
static bool
pointer_refocus(struct comp *c)
{
	struct seat *seat = &c->seat;
	double sx = 0, sy = 0;
	struct surface *s = surface_at(c, seat->x, seat->y, &sx, &sy);
	struct surface *old = seat->pointer_focus.surface;
	struct wl_resource *r;
	uint32_t serial;

	seat->sx = sx;
	seat->sy = sy;
	if (s == old)
		return false;
	if (old) {
		serial = next_serial(c);
		for_each_resource_of(r, &seat->pointers, old)
			wl_pointer_send_leave(r, serial, old->resource);
		pointer_send_frame(seat, old);
	}
	focus_set(&seat->pointer_focus, s);
	if (!s)
		return true;
	serial = next_serial(c);
	for_each_resource_of(r, &seat->pointers, s)
		wl_pointer_send_enter(r, serial, s->resource,
				      wl_fixed_from_double(sx),
				      wl_fixed_from_double(sy));
	return true;
}

static void
keyboard_send_enter(struct seat *seat, struct wl_resource *r, uint32_t serial)
{
	struct wl_array keys;

	wl_array_init(&keys);
	if (seat->n_keys) {
		uint32_t *k = wl_array_add(&keys, sizeof(uint32_t) *
							  (size_t)seat->n_keys);
		if (k)
			memcpy(k, seat->keys,
			       sizeof(uint32_t) * (size_t)seat->n_keys);
	}
	wl_keyboard_send_enter(r, serial,
			       seat->keyboard_focus.surface->resource, &keys);
	wl_array_release(&keys);
	wl_keyboard_send_modifiers(r, serial, seat->mods.depressed,
				   seat->mods.latched, seat->mods.locked,
				   seat->mods.group);
}

void
seat_focus(struct comp *c, struct surface *s)
{
	struct seat *seat = &c->seat;
	struct surface *old = seat->keyboard_focus.surface;
	struct wl_resource *r;
	uint32_t serial;

	if (s)
		s = surface_root(s);
	if (s == old)
		return;
	if (old) {
		serial = next_serial(c);
		for_each_resource_of(r, &seat->keyboards, old)
			wl_keyboard_send_leave(r, serial, old->resource);
	}
	focus_set(&seat->keyboard_focus, s);
	/* The selection goes to the client with the keyboard. */
	data_device_set_focus(c,
			      s ? wl_resource_get_client(s->resource) : NULL);
	if (!s)
		return;
	serial = next_serial(c);
	for_each_resource_of(r, &seat->keyboards, s)
		keyboard_send_enter(seat, r, serial);
	if (c->opt.verbose) {
		const char *name = s->role && s->role->describe
					   ? s->role->describe(s)
					   : NULL;

		fprintf(stderr, COMP_NAME ": keyboard focus on %s\n",
			name ? name : "a surface");
	}
}

/* Driving the seat ------------------------------------------------------ */

void
seat_pointer_move(struct comp *c, double x, double y)
{
	struct seat *seat = &c->seat;
	struct wl_resource *r;

	seat->x = x < 0 ? 0 : x > c->opt.width - 1 ? c->opt.width - 1 : x;
	seat->y = y < 0 ? 0 : y > c->opt.height - 1 ? c->opt.height - 1 : y;
	if (pointer_refocus(c)) {
		if (seat->pointer_focus.surface)
			pointer_send_frame(seat, seat->pointer_focus.surface);
		return;
	}
	if (!seat->pointer_focus.surface)
		return;
	for_each_resource_of(r, &seat->pointers, seat->pointer_focus.surface)
		wl_pointer_send_motion(r, now_ms(),
				       wl_fixed_from_double(seat->sx),
				       wl_fixed_from_double(seat->sy));
	pointer_send_frame(seat, seat->pointer_focus.surface);
}

bool
seat_pointer_button(struct comp *c, uint32_t button, bool pressed)
{
	struct seat *seat = &c->seat;
	struct wl_resource *r;
	uint32_t serial;
	int i;

	for (i = 0; i < seat->n_buttons && seat->buttons[i] != button; i++)
		;
	if (pressed == (i < seat->n_buttons))
		return false; /* pressed twice, or released while up */
	if (pressed) {
		if (seat->n_buttons == SEAT_BUTTONS_MAX)
			return false;
		seat->buttons[seat->n_buttons++] = button;
		if (seat->grab)
			seat->grab->impl->button(seat->grab,
						 seat->pointer_focus.surface);
		/* Click to focus. */
		if (seat->pointer_focus.surface)
			seat_focus(c, seat->pointer_focus.surface);
	} else {
		seat->buttons[i] = seat->buttons[--seat->n_buttons];
	}
	if (!seat->pointer_focus.surface)
		return true;
	serial = next_serial(c);
	for_each_resource_of(r, &seat->pointers, seat->pointer_focus.surface)
		wl_pointer_send_button(
			r, serial, now_ms(), button,
			pressed ? WL_POINTER_BUTTON_STATE_PRESSED
				: WL_POINTER_BUTTON_STATE_RELEASED);
	pointer_send_frame(seat, seat->pointer_focus.surface);
	return true;
}

/* One axis: steps wheel notches, 10 units each (as weston sends for a
 * wheel). */
static void
pointer_axis(struct seat *seat, uint32_t axis, int32_t steps, uint32_t time)
{
	struct wl_resource *r;

	if (!steps)
		return;
	for_each_resource_of(r, &seat->pointers, seat->pointer_focus.surface) {
		if (wl_resource_get_version(r) >=
		    WL_POINTER_AXIS_SOURCE_SINCE_VERSION)
			wl_pointer_send_axis_source(
				r, WL_POINTER_AXIS_SOURCE_WHEEL);
		if (wl_resource_get_version(r) >=
		    WL_POINTER_AXIS_DISCRETE_SINCE_VERSION)
			wl_pointer_send_axis_discrete(r, axis, steps);
		wl_pointer_send_axis(r, time, axis,
				     wl_fixed_from_int(10 * steps));
	}
}

void
seat_pointer_scroll(struct comp *c, int32_t dx, int32_t dy)
{
	struct seat *seat = &c->seat;
	uint32_t time = now_ms();

	if (!seat->pointer_focus.surface)
		return;
	pointer_axis(seat, WL_POINTER_AXIS_VERTICAL_SCROLL, dy, time);
	pointer_axis(seat, WL_POINTER_AXIS_HORIZONTAL_SCROLL, dx, time);
	pointer_send_frame(seat, seat->pointer_focus.surface);
}

bool
seat_key(struct comp *c, uint32_t code, bool pressed)
{
	struct seat *seat = &c->seat;
	struct wl_resource *r;
	struct key_mods mods;
	bool mods_changed;
	uint32_t serial;
	int i;

	for (i = 0; i < seat->n_keys && seat->keys[i] != code; i++)
		;
	if (pressed == (i < seat->n_keys))
		return false;
	if (pressed) {
		if (seat->n_keys == SEAT_KEYS_MAX)
			return false;
		seat->keys[seat->n_keys++] = code;
	} else {
		seat->keys[i] = seat->keys[--seat->n_keys];
	}
	mods_changed = keymap_update(seat->keymap, code, pressed, &mods) &&
		       memcmp(&mods, &seat->mods, sizeof(mods));
	seat->mods = mods;
	if (!seat->keyboard_focus.surface)
		return true;
	serial = next_serial(c);
	for_each_resource_of(r, &seat->keyboards,
			     seat->keyboard_focus.surface) {
		wl_keyboard_send_key(r, serial, now_ms(), code,
				     pressed ? WL_KEYBOARD_KEY_STATE_PRESSED
					     : WL_KEYBOARD_KEY_STATE_RELEASED);
		if (mods_changed)
			wl_keyboard_send_modifiers(r, serial, mods.depressed,
						   mods.latched, mods.locked,
						   mods.group);
	}
	return true;
}

void
seat_grab_begin(struct comp *c, struct seat_grab *grab)
{
	c->seat.grab = grab;
}

void
seat_grab_end(struct comp *c, struct seat_grab *grab)
{
	if (c->seat.grab == grab)
		c->seat.grab = NULL;
}

/* A new window takes the keyboard, as on a desktop. */
static void
window_mapped(struct surface *s)
{
	seat_focus(s->comp, s);
}

static void
on_window_map(struct wl_listener *listener, void *data)
{
	window_mapped(data);
}

/* The protocol ----------------------------------------------------------- */

/* The cursor role: no cursor is drawn (the output shows what clients
 * draw), so its commits need nothing beyond the surface's own state. */
static const struct surface_role cursor_role = {
	.name = "wl_pointer cursor",
};

static void
pointer_set_cursor(struct wl_client *client, struct wl_resource *resource,
		   uint32_t serial, struct wl_resource *surface, int32_t x,
		   int32_t y)
{
	struct surface *s = surface ? surface_from_resource(surface) : NULL;

	if (s && !surface_set_role(s, &cursor_role))
		wl_resource_post_error(resource, WL_POINTER_ERROR_ROLE,
				       "the wl_surface already has the role %s",
				       s->role->name);
}

static const struct wl_pointer_interface pointer_impl = {
	.set_cursor = pointer_set_cursor,
	.release = resource_destroy_request,
};
static const struct wl_keyboard_interface keyboard_impl = {
	.release = resource_destroy_request,
};
static const struct wl_touch_interface touch_impl = {
	.release = resource_destroy_request,
};

static void
seat_get_pointer(struct wl_client *client, struct wl_resource *resource,
		 uint32_t id)
{
	struct comp *c = wl_resource_get_user_data(resource);
	struct seat *seat = &c->seat;
	struct wl_resource *r =
		resource_new(client, &wl_pointer_interface,
			     wl_resource_get_version(resource), id,
			     &pointer_impl, c, resource_unlink);

	if (!r)
		return;
	wl_list_insert(&seat->pointers, wl_resource_get_link(r));
	if (seat->pointer_focus.surface &&
	    wl_resource_get_client(seat->pointer_focus.surface->resource) ==
		    client) {
		wl_pointer_send_enter(r, next_serial(c),
				      seat->pointer_focus.surface->resource,
				      wl_fixed_from_double(seat->sx),
				      wl_fixed_from_double(seat->sy));
		if (wl_resource_get_version(r) >=
		    WL_POINTER_FRAME_SINCE_VERSION)
			wl_pointer_send_frame(r);
	}
}

static void
seat_get_keyboard(struct wl_client *client, struct wl_resource *resource,
		  uint32_t id)
{
	struct comp *c = wl_resource_get_user_data(resource);
	struct seat *seat = &c->seat;
	struct wl_resource *r =
		resource_new(client, &wl_keyboard_interface,
			     wl_resource_get_version(resource), id,
			     &keyboard_impl, c, resource_unlink);
	uint32_t size;
	int fd;

	if (!r)
		return;
	wl_list_insert(&seat->keyboards, wl_resource_get_link(r));
	fd = keymap_get_fd(seat->keymap, &size);
	/* libwayland sends a duplicate of the fd. */
	wl_keyboard_send_keymap(r, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, size);
	if (wl_resource_get_version(r) >= WL_KEYBOARD_REPEAT_INFO_SINCE_VERSION)
		wl_keyboard_send_repeat_info(r, 0, 0);
	if (seat->keyboard_focus.surface &&
	    wl_resource_get_client(seat->keyboard_focus.surface->resource) ==
		    client)
		keyboard_send_enter(seat, r, next_serial(c));
}

static void
seat_get_touch(struct wl_client *client, struct wl_resource *resource,
	       uint32_t id)
{
	/* No touch capability: allowed by the protocol, never gets events. */
	resource_new(client, &wl_touch_interface,
		     wl_resource_get_version(resource), id, &touch_impl, NULL,
		     NULL);
}

static const struct wl_seat_interface seat_impl = {
	.get_pointer = seat_get_pointer,
	.get_keyboard = seat_get_keyboard,
	.get_touch = seat_get_touch,
	.release = resource_destroy_request,
};

static void
bind_seat(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *r =
		resource_new(client, &wl_seat_interface, (int)version, id,
			     &seat_impl, data, NULL);

	if (!r)
		return;
	wl_seat_send_capabilities(r, WL_SEAT_CAPABILITY_POINTER |
					     WL_SEAT_CAPABILITY_KEYBOARD);
	if (version >= WL_SEAT_NAME_SINCE_VERSION)
		wl_seat_send_name(r, "seat0");
}

bool
seat_init(struct comp *c)
{
	struct seat *seat = &c->seat;

	wl_list_init(&seat->pointers);
	wl_list_init(&seat->keyboards);
	focus_init(&seat->pointer_focus);
	focus_init(&seat->keyboard_focus);
	seat->keymap = keymap_new();
	if (!seat->keymap)
		return false;
	keymap_get_mods(seat->keymap, &seat->mods);
	seat->window_map.notify = on_window_map;
	wl_signal_add(&c->events.window_map, &seat->window_map);
	if (!wl_global_create(c->display, &wl_seat_interface, 7, c,
			      bind_seat)) {
		fprintf(stderr,
			COMP_NAME ": cannot create the wl_seat global\n");
		return false;
	}
	return true;
}

void
seat_fini(struct comp *c)
{
	/* After the clients: their resources are gone. */
	keymap_destroy(c->seat.keymap);
	c->seat.keymap = NULL;
}
