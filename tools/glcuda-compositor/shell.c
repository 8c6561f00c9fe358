/*
 * glcuda-compositor: xdg-shell. Toplevels are placed in a cascade from
 * the top left corner, at the size the client picks (configure 0x0), or
 * at the output's size when the client asks for fullscreen or maximized.
 * Popups: popup.c.
 * SPDX-License-Identifier: MIT
 */
#include "compositor.h"

#include <stdlib.h>
#include <string.h>

#include "xdg-shell-server-protocol.h"

static void
send_configure(struct surface *s)
{
	struct wl_array states;
	int32_t w = 0, h = 0;

	if (s->n_pending == CONFIGURE_PENDING_MAX) {
		/* The client acks none: the next goes out at its next ack,
		 * with the state as it is then. */
		s->configure_deferred = true;
		return;
	}
	s->configure_deferred = false;
	wl_array_init(&states);
	if (s->xdg_toplevel) {
		if (s->fullscreen || s->maximized) {
			uint32_t *st = wl_array_add(&states, sizeof(*st));
			if (st)
				*st = s->fullscreen
					      ? XDG_TOPLEVEL_STATE_FULLSCREEN
					      : XDG_TOPLEVEL_STATE_MAXIMIZED;
			w = (int32_t)s->comp->opt.width;
			h = (int32_t)s->comp->opt.height;
		}
		/* Always "activated": it is the only seat's focus. */
		uint32_t *act = wl_array_add(&states, sizeof(*act));
		if (act)
			*act = XDG_TOPLEVEL_STATE_ACTIVATED;
		xdg_toplevel_send_configure(s->xdg_toplevel, w, h, &states);
		decoration_send_configure(s);
	} else if (s->popup) {
		popup_send_configure(s);
	}
	wl_array_release(&states);
	/* Serials only grow (until they wrap): the list is oldest first. */
	s->pending_serials[s->n_pending] =
		wl_display_next_serial(s->comp->display);
	xdg_surface_send_configure(s->xdg_surface,
				   s->pending_serials[s->n_pending++]);
}

void
shell_configure(struct surface *s)
{
	if (s->initial_commit_done)
		send_configure(s);
}

/* On the one output: clients pick their buffer scale from the outputs
 * they are on. */
void
shell_send_enter(struct surface *s)
{
	struct wl_resource *out;

	wl_resource_for_each(out, &s->comp->output_resources)
		if (wl_resource_get_client(out) ==
		    wl_resource_get_client(s->resource))
			wl_surface_send_enter(s->resource, out);
}

/* A buffer before the configure is acked: xdg_surface's error, on
 * whichever state would bring it. */
static bool
shell_surface_precommit(struct surface *s, const struct surface_state *st)
{
	if (!s->xdg_surface || !st->attached || !st->buffer || s->configured)
		return true;
	wl_resource_post_error(s->xdg_surface,
			       XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER,
			       "buffer attached before the first configure "
			       "was acked");
	return false;
}

/* A commit with an xdg_surface: the initial one answered with a
 * configure, the toplevel mapped or unmapped, the popup placed. */
static void
shell_surface_commit(struct surface *s)
{
	struct comp *c = s->comp;

	/* The role stays once its xdg_surface is gone: a new one may come. */
	if (!s->xdg_surface)
		return;
	s->geometry = s->geometry_pending;
	if (!s->initial_commit_done) {
		/* The first commit of a role: answer with a configure. */
		s->initial_commit_done = true;
		if (s->xdg_toplevel || s->popup)
			send_configure(s);
		return;
	}
	if (s->popup && (!s->mapped || s->has_content)) {
		popup_commit(s);
	} else if (s->xdg_toplevel && !s->mapped && s->has_content) {
		s->mapped = true;
		if (s->fullscreen || s->maximized) {
			s->x = 0;
			s->y = 0;
		} else {
			s->x = c->next_x;
			s->y = c->next_y;
			/* Cascade from (32, 32), wrapping in the top left
			 * quarter. */
			c->next_x =
				32 + c->next_x % (int32_t)(c->opt.width / 2);
			c->next_y =
				32 + c->next_y % (int32_t)(c->opt.height / 2);
		}
		shell_send_enter(s);
		/* The test reads this line to know where the window is. */
		if (c->opt.verbose) {
			int32_t w, h;
			surface_get_size(s, &w, &h);
			fprintf(stderr,
				COMP_NAME ": mapped toplevel %dx%d at %d,%d\n",
				w, h, s->x, s->y);
		}
		seat_surface_mapped(s);
		control_window_mapped(c, s);
	} else if (s->mapped && !s->has_content) {
		/* A NULL buffer unmaps: the next buffer maps it again, after a
		 * new initial commit. Its popups are dismissed. */
		popup_parent_unmapped(s);
		popup_unmapped(s);
		s->mapped = false;
		s->configured = false;
		s->initial_commit_done = false;
		/* The configures sent before stay ackable: the client may
		 * have unmapped while one was on its way. */
	}
}

/* xdg_toplevel ---------------------------------------------------------- */

/* The parent is not kept. It says to stack the toplevel above its parent
 * and to raise them together: here windows are stacked in the order their
 * surfaces were made (a dialog's after its parent's) and never raised or
 * moved, so there is nothing to follow. A parent that is the toplevel or
 * one of its children (invalid_parent) can only be told from parents kept:
 * none are, so none makes a loop. */
static void
toplevel_set_parent(struct wl_client *client, struct wl_resource *resource,
		    struct wl_resource *parent)
{
}

/* Kept for the control socket's window names, cut to fit, as one line
 * (control characters become spaces) and, for the app_id, one word
 * (spaces become '_'): a client cannot add lines or fields to the
 * answers. */
static void
copy_name(char *dst, size_t size, const char *src, bool word)
{
	snprintf(dst, size, "%s", src);
	for (char *p = dst; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f ||
		    (word && *p == ' '))
			*p = word ? '_' : ' ';
}

static void
toplevel_set_title(struct wl_client *client, struct wl_resource *resource,
		   const char *str)
{
	struct surface *s = wl_resource_get_user_data(resource);

	if (s)
		copy_name(s->title, sizeof(s->title), str, false);
}

static void
toplevel_set_app_id(struct wl_client *client, struct wl_resource *resource,
		    const char *str)
{
	struct surface *s = wl_resource_get_user_data(resource);

	if (s)
		copy_name(s->app_id, sizeof(s->app_id), str, true);
}

/* There is no window menu to show (decorations are the client's, and
 * nothing draws for the compositor); the XML leaves it to the compositor. */
static void
toplevel_show_window_menu(struct wl_client *client,
			  struct wl_resource *resource,
			  struct wl_resource *seat, uint32_t serial, int32_t x,
			  int32_t y)
{
}

/* Interactive move and resize: windows stay where they were placed (the
 * tests find them from the "mapped toplevel" line) and keep the size their
 * client gives them. The XML lets the compositor ignore both (it says to,
 * for one, when the serial is not that of a press still held). */
static void
toplevel_move(struct wl_client *client, struct wl_resource *resource,
	      struct wl_resource *seat, uint32_t serial)
{
}

/* See toplevel_move. */
static void
toplevel_resize(struct wl_client *client, struct wl_resource *resource,
		struct wl_resource *seat, uint32_t serial, uint32_t edges)
{
}

static void
toplevel_set_size(struct wl_client *client, struct wl_resource *resource,
		  int32_t w, int32_t h)
{
	if (w < 0 || h < 0)
		wl_resource_post_error(resource,
				       XDG_TOPLEVEL_ERROR_INVALID_SIZE,
				       "negative size %dx%d", w, h);
}

static void
set_state(struct wl_resource *resource, bool *state, bool on)
{
	struct surface *s = wl_resource_get_user_data(resource);

	if (!s)
		return;
	*state = on;
	if (s->initial_commit_done)
		send_configure(s);
}

static void
toplevel_set_maximized(struct wl_client *client, struct wl_resource *resource)
{
	struct surface *s = wl_resource_get_user_data(resource);
	if (s)
		set_state(resource, &s->maximized, true);
}

static void
toplevel_unset_maximized(struct wl_client *client, struct wl_resource *resource)
{
	struct surface *s = wl_resource_get_user_data(resource);
	if (s)
		set_state(resource, &s->maximized, false);
}

static void
toplevel_set_fullscreen(struct wl_client *client, struct wl_resource *resource,
			struct wl_resource *output)
{
	struct surface *s = wl_resource_get_user_data(resource);
	if (s)
		set_state(resource, &s->fullscreen, true);
}

static void
toplevel_unset_fullscreen(struct wl_client *client,
			  struct wl_resource *resource)
{
	struct surface *s = wl_resource_get_user_data(resource);
	if (s)
		set_state(resource, &s->fullscreen, false);
}

/* Nothing could bring a minimized window back (no task bar, no window
 * list): it stays shown, which the XML allows ("the compositor may choose
 * to ignore this request"). */
static void
toplevel_set_minimized(struct wl_client *client, struct wl_resource *resource)
{
}

static const struct xdg_toplevel_interface toplevel_impl = {
	.destroy = resource_destroy_request,
	.set_parent = toplevel_set_parent,
	.set_title = toplevel_set_title,
	.set_app_id = toplevel_set_app_id,
	.show_window_menu = toplevel_show_window_menu,
	.move = toplevel_move,
	.resize = toplevel_resize,
	.set_max_size = toplevel_set_size,
	.set_min_size = toplevel_set_size,
	.set_maximized = toplevel_set_maximized,
	.unset_maximized = toplevel_unset_maximized,
	.set_fullscreen = toplevel_set_fullscreen,
	.unset_fullscreen = toplevel_unset_fullscreen,
	.set_minimized = toplevel_set_minimized,
};

static void
toplevel_destroyed(struct wl_resource *resource)
{
	struct surface *s = wl_resource_get_user_data(resource);

	if (!s)
		return;
	/* The role object goes: the surface is unmapped, its popups
	 * dismissed. */
	decoration_toplevel_destroyed(s);
	popup_parent_unmapped(s);
	s->xdg_toplevel = NULL;
	s->mapped = false;
	s->comp->damaged = true;
}

/* xdg_surface ----------------------------------------------------------- */

static bool
check_role(struct wl_resource *resource, struct surface *s)
{
	if (!s) {
		/* The wl_surface went first: the error the XML names for
		 * "Surface was destroyed before its role object". */
		wl_resource_post_error(
			resource, XDG_SURFACE_ERROR_DEFUNCT_ROLE_OBJECT,
			"the wl_surface was destroyed before its xdg_surface");
		return false;
	}
	if (s->xdg_toplevel || s->popup) {
		wl_resource_post_error(
			resource, XDG_SURFACE_ERROR_ALREADY_CONSTRUCTED,
			"the xdg_surface already has a role object");
		return false;
	}
	return true;
}

static void
xdg_surface_get_toplevel(struct wl_client *client, struct wl_resource *resource,
			 uint32_t id)
{
	struct surface *s = wl_resource_get_user_data(resource);
	struct wl_resource *r;

	if (!check_role(resource, s))
		return;
	r = resource_new(client, &xdg_toplevel_interface,
			 wl_resource_get_version(resource), id, &toplevel_impl,
			 s, toplevel_destroyed);
	if (!r)
		return;
	s->xdg_toplevel = r;
}

static void
xdg_surface_get_popup(struct wl_client *client, struct wl_resource *resource,
		      uint32_t id, struct wl_resource *parent,
		      struct wl_resource *positioner)
{
	struct surface *s = wl_resource_get_user_data(resource);

	if (check_role(resource, s))
		popup_create(client, resource, s, id, parent, positioner);
}

static void
xdg_surface_set_window_geometry(struct wl_client *client,
				struct wl_resource *resource, int32_t x,
				int32_t y, int32_t w, int32_t h)
{
	struct surface *s = wl_resource_get_user_data(resource);

	if (w <= 0 || h <= 0) {
		wl_resource_post_error(resource, XDG_SURFACE_ERROR_INVALID_SIZE,
				       "window geometry %dx%d is not positive",
				       w, h);
		return;
	}
	if (s)
		s->geometry_pending = (struct rect){ x, y, w, h };
}

/* Any configure sent and not yet superseded by a later ack may be acked:
 * that one and all older ones are then done with. Anything else (a
 * serial never sent, or one already acked or superseded) is
 * invalid_serial. */
static void
xdg_surface_ack_configure(struct wl_client *client,
			  struct wl_resource *resource, uint32_t serial)
{
	struct surface *s = wl_resource_get_user_data(resource);
	int i;

	if (!s)
		return;
	for (i = 0; i < s->n_pending; i++)
		if (s->pending_serials[i] == serial)
			break;
	if (i == s->n_pending) {
		wl_resource_post_error(
			resource, XDG_SURFACE_ERROR_INVALID_SERIAL,
			"serial %u is not that of a configure waiting for its "
			"ack",
			serial);
		return;
	}
	s->n_pending -= i + 1;
	memmove(s->pending_serials, s->pending_serials + i + 1,
		(size_t)s->n_pending * sizeof(s->pending_serials[0]));
	s->configured = true;
	if (s->configure_deferred)
		send_configure(s);
}

static const struct xdg_surface_interface xdg_surface_impl = {
	.destroy = resource_destroy_request,
	.get_toplevel = xdg_surface_get_toplevel,
	.get_popup = xdg_surface_get_popup,
	.set_window_geometry = xdg_surface_set_window_geometry,
	.ack_configure = xdg_surface_ack_configure,
};

static void
xdg_surface_destroyed(struct wl_resource *resource)
{
	struct surface *s = wl_resource_get_user_data(resource);

	if (!s)
		return;
	if (s->xdg_toplevel || s->xdg_popup) {
		/* Protocol: the role object must go first. The client is in
		 * error; its surface is not ours to touch any more. */
		wl_resource_post_error(
			resource, XDG_SURFACE_ERROR_DEFUNCT_ROLE_OBJECT,
			"xdg_surface destroyed before its role object");
		if (s->xdg_toplevel)
			wl_resource_set_user_data(s->xdg_toplevel, NULL);
		popup_surface_destroyed(s);
		if (s->decoration)
			wl_resource_set_user_data(s->decoration, NULL);
		s->xdg_toplevel = s->xdg_popup = s->decoration = NULL;
	}
	s->xdg_surface = NULL;
	s->mapped = false;
	s->configured = false;
	s->n_pending = 0;
	s->configure_deferred = false;
	s->initial_commit_done = false;
	s->comp->damaged = true;
}

static void
shell_surface_destroyed(struct surface *s)
{
	/* The wl_surface goes before its xdg objects (a client that quits
	 * does that, or a buggy one): they must not point at it any more. */
	if (s->xdg_toplevel)
		wl_resource_set_user_data(s->xdg_toplevel, NULL);
	popup_surface_destroyed(s);
	if (s->xdg_surface)
		wl_resource_set_user_data(s->xdg_surface, NULL);
	if (s->decoration)
		wl_resource_set_user_data(s->decoration, NULL);
}

/* The xdg_surface role: xdg_toplevel and xdg_popup are its objects. One
 * role for both, set by get_xdg_surface: the configure sequence and the
 * unconfigured_buffer rule hold from then on, before either exists. */
static const struct surface_role xdg_surface_role = {
	.name = "xdg_surface",
	.precommit = shell_surface_precommit,
	.commit = shell_surface_commit,
	.destroyed = shell_surface_destroyed,
};

/* xdg_wm_base ----------------------------------------------------------- */

static void
wm_base_create_positioner(struct wl_client *client,
			  struct wl_resource *resource, uint32_t id)
{
	positioner_create(client, resource, id);
}

static void
wm_base_get_xdg_surface(struct wl_client *client, struct wl_resource *resource,
			uint32_t id, struct wl_resource *surface_resource)
{
	struct surface *s = surface_from_resource(surface_resource);
	struct wl_resource *r;

	if (s->role && s->role != &xdg_surface_role) {
		wl_resource_post_error(resource, XDG_WM_BASE_ERROR_ROLE,
				       "the wl_surface already has the role %s",
				       s->role->name);
		return;
	}
	r = wl_resource_create(client, &xdg_surface_interface,
			       wl_resource_get_version(resource), id);
	if (!r) {
		wl_client_post_no_memory(client);
		return;
	}
	/* The errors that are xdg_surface's go on the new object, which is
	 * never bound to the wl_surface. */
	if (s->xdg_surface) {
		/* No role yet, but an xdg_surface already. */
		wl_resource_set_implementation(r, &xdg_surface_impl, NULL,
					       NULL);
		wl_resource_post_error(
			r, XDG_SURFACE_ERROR_ALREADY_CONSTRUCTED,
			"the wl_surface already has an xdg_surface");
		return;
	}
	if (surface_has_buffer(s)) {
		wl_resource_set_implementation(r, &xdg_surface_impl, NULL,
					       NULL);
		wl_resource_post_error(
			r, XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER,
			"the wl_surface already has a buffer attached or "
			"committed");
		return;
	}
	wl_resource_set_implementation(r, &xdg_surface_impl, s,
				       xdg_surface_destroyed);
	s->xdg_surface = r;
	surface_set_role(s, &xdg_surface_role);
}

/* The compositor never pings (it never declares a client unresponsive),
 * so a pong answers nothing; the XML has no error for one unasked. */
static void
wm_base_pong(struct wl_client *client, struct wl_resource *resource,
	     uint32_t serial)
{
}

static const struct xdg_wm_base_interface wm_base_impl = {
	.destroy = resource_destroy_request,
	.create_positioner = wm_base_create_positioner,
	.get_xdg_surface = wm_base_get_xdg_surface,
	.pong = wm_base_pong,
};

bool
shell_init(struct comp *c)
{
	return resource_add_plain_global(c, &xdg_wm_base_interface, 3,
					 &wm_base_impl);
}
