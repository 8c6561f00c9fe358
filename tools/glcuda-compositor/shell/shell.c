/*
 * glcuda-compositor: xdg-shell. Toplevels are placed in a cascade from
 * the top left corner, at the size the client picks (configure 0x0), or
 * at the output's size when the client asks for fullscreen or maximized.
 * Popups: popup.c, placed by positioner.c's rules.
 *
 * The xdg_surface role keeps its state in the surface's role_data
 * (struct xdg_surface) and listens to the surface's commit and destroy.
 * A toplevel mapped or unmapped is the compositor's window_map or
 * window_unmap event (the seat focuses it, the control socket lists it);
 * its decoration (decoration.c) listens to the xdg_surface's events.
 * SPDX-License-Identifier: MIT
 */
#include "shell/shell.h"
#include "comp.h"
#include "resource.h"
#include "surface/surface.h"

#include <stdlib.h>
#include <string.h>

#include "xdg-shell-server-protocol.h"

static void
send_configure(struct xdg_surface *xs)
{
	struct surface *s = xs->surface;
	struct wl_array states;
	int32_t w = 0, h = 0;

	if (xs->n_pending == CONFIGURE_PENDING_MAX) {
		/* The client acks none: the next goes out at its next ack,
		 * with the state as it is then. */
		xs->configure_deferred = true;
		return;
	}
	xs->configure_deferred = false;
	wl_array_init(&states);
	if (xs->toplevel) {
		if (xs->fullscreen || xs->maximized) {
			uint32_t *st = wl_array_add(&states, sizeof(*st));
			if (st)
				*st = xs->fullscreen
					      ? XDG_TOPLEVEL_STATE_FULLSCREEN
					      : XDG_TOPLEVEL_STATE_MAXIMIZED;
			w = (int32_t)s->comp->opt.width;
			h = (int32_t)s->comp->opt.height;
		}
		/* Always "activated": it is the only seat's focus. */
		uint32_t *act = wl_array_add(&states, sizeof(*act));
		if (act)
			*act = XDG_TOPLEVEL_STATE_ACTIVATED;
		xdg_toplevel_send_configure(xs->toplevel, w, h, &states);
		wl_signal_emit(&xs->events.configure, xs);
	} else if (xs->popup) {
		popup_send_configure(xs);
	}
	wl_array_release(&states);
	/* Serials only grow (until they wrap): the list is oldest first. */
	xs->pending_serials[xs->n_pending] =
		wl_display_next_serial(s->comp->display);
	xdg_surface_send_configure(xs->resource,
				   xs->pending_serials[xs->n_pending++]);
}

void
shell_configure(struct xdg_surface *xs)
{
	if (xs->initial_commit_done)
		send_configure(xs);
}

/* A toplevel's surface shown or no longer: the compositor's window
 * events. */
static void
toplevel_set_mapped(struct xdg_surface *xs, bool mapped)
{
	struct surface *s = xs->surface;
	bool window = xs->toplevel && s->mapped;

	s->mapped = mapped;
	if (window && !mapped)
		wl_signal_emit(&s->comp->events.window_unmap, s);
	else if (!window && mapped && xs->toplevel)
		wl_signal_emit(&s->comp->events.window_map, s);
}

/* A buffer before the configure is acked: xdg_surface's error, on
 * whichever state would bring it. */
static bool
shell_surface_precommit(struct surface *s, const struct surface_state *st)
{
	struct xdg_surface *xs = s->role_data;

	if (!xs->resource || !st->attached || !st->buffer || xs->configured)
		return true;
	wl_resource_post_error(xs->resource,
			       XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER,
			       "buffer attached before the first configure "
			       "was acked");
	return false;
}

/* A commit with an xdg_surface: the initial one answered with a
 * configure, the toplevel mapped or unmapped, the popup placed. */
static void
shell_surface_commit(struct wl_listener *listener, void *data)
{
	struct xdg_surface *xs = wl_container_of(listener, xs, surface_commit);
	struct surface *s = xs->surface;
	struct comp *c = s->comp;

	/* The role stays once its xdg_surface is gone: a new one may come. */
	if (!xs->resource)
		return;
	xs->geometry = xs->geometry_pending;
	if (!xs->initial_commit_done) {
		/* The first commit of a role: answer with a configure. */
		xs->initial_commit_done = true;
		if (xs->toplevel || xs->popup)
			send_configure(xs);
		return;
	}
	if (xs->popup && (!s->mapped || s->has_content)) {
		popup_commit(xs);
	} else if (xs->toplevel && !s->mapped && s->has_content) {
		if (xs->fullscreen || xs->maximized) {
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
		surface_send_enter(s);
		/* The test reads this line to know where the window is. */
		if (c->opt.verbose) {
			int32_t w, h;
			surface_get_size(s, &w, &h);
			fprintf(stderr,
				COMP_NAME ": mapped toplevel %dx%d at %d,%d\n",
				w, h, s->x, s->y);
		}
		toplevel_set_mapped(xs, true);
	} else if (s->mapped && !s->has_content) {
		/* A NULL buffer unmaps: the next buffer maps it again, after a
		 * new initial commit. Its popups are dismissed. */
		popup_parent_unmapped(xs);
		popup_unmapped(xs);
		toplevel_set_mapped(xs, false);
		xs->configured = false;
		xs->initial_commit_done = false;
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
	struct xdg_surface *xs = wl_resource_get_user_data(resource);

	if (xs)
		copy_name(xs->title, sizeof(xs->title), str, false);
}

static void
toplevel_set_app_id(struct wl_client *client, struct wl_resource *resource,
		    const char *str)
{
	struct xdg_surface *xs = wl_resource_get_user_data(resource);

	if (xs)
		copy_name(xs->app_id, sizeof(xs->app_id), str, true);
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
	struct xdg_surface *xs = wl_resource_get_user_data(resource);

	if (!xs)
		return;
	*state = on;
	if (xs->initial_commit_done)
		send_configure(xs);
}

static void
toplevel_set_maximized(struct wl_client *client, struct wl_resource *resource)
{
	struct xdg_surface *xs = wl_resource_get_user_data(resource);
	if (xs)
		set_state(resource, &xs->maximized, true);
}

static void
toplevel_unset_maximized(struct wl_client *client, struct wl_resource *resource)
{
	struct xdg_surface *xs = wl_resource_get_user_data(resource);
	if (xs)
		set_state(resource, &xs->maximized, false);
}

static void
toplevel_set_fullscreen(struct wl_client *client, struct wl_resource *resource,
			struct wl_resource *output)
{
	struct xdg_surface *xs = wl_resource_get_user_data(resource);
	if (xs)
		set_state(resource, &xs->fullscreen, true);
}

static void
toplevel_unset_fullscreen(struct wl_client *client,
			  struct wl_resource *resource)
{
	struct xdg_surface *xs = wl_resource_get_user_data(resource);
	if (xs)
		set_state(resource, &xs->fullscreen, false);
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
	struct xdg_surface *xs = wl_resource_get_user_data(resource);

	if (!xs)
		return;
	/* The role object goes: the surface is unmapped, its popups
	 * dismissed. */
	wl_signal_emit(&xs->events.toplevel_destroy, xs);
	popup_parent_unmapped(xs);
	toplevel_set_mapped(xs, false);
	xs->toplevel = NULL;
	xs->surface->comp->damaged = true;
}

/* xdg_surface ----------------------------------------------------------- */

static bool
check_role(struct wl_resource *resource, struct xdg_surface *xs)
{
	if (!xs) {
		/* The wl_surface went first: the error the XML names for
		 * "Surface was destroyed before its role object". */
		wl_resource_post_error(
			resource, XDG_SURFACE_ERROR_DEFUNCT_ROLE_OBJECT,
			"the wl_surface was destroyed before its xdg_surface");
		return false;
	}
	if (xs->toplevel || xs->popup) {
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
	struct xdg_surface *xs = wl_resource_get_user_data(resource);
	struct wl_resource *r;

	if (!check_role(resource, xs))
		return;
	r = resource_new(client, &xdg_toplevel_interface,
			 wl_resource_get_version(resource), id, &toplevel_impl,
			 xs, toplevel_destroyed);
	if (!r)
		return;
	xs->toplevel = r;
}

/* A popup asked to be placed again: a configure. */
static void
popup_repositioned(struct wl_listener *listener, void *data)
{
	struct xdg_surface *xs =
		wl_container_of(listener, xs, popup_reposition);

	shell_configure(xs);
}

static void
xdg_surface_get_popup(struct wl_client *client, struct wl_resource *resource,
		      uint32_t id, struct wl_resource *parent,
		      struct wl_resource *positioner)
{
	struct xdg_surface *xs = wl_resource_get_user_data(resource);
	struct popup *p;

	if (!check_role(resource, xs))
		return;
	p = popup_create(client, resource, xs, id, parent, positioner);
	if (!p)
		return;
	listener_detach(&xs->popup_reposition);
	wl_signal_add(popup_reposition_signal(p), &xs->popup_reposition);
}

static void
xdg_surface_set_window_geometry(struct wl_client *client,
				struct wl_resource *resource, int32_t x,
				int32_t y, int32_t w, int32_t h)
{
	struct xdg_surface *xs = wl_resource_get_user_data(resource);

	if (w <= 0 || h <= 0) {
		wl_resource_post_error(resource, XDG_SURFACE_ERROR_INVALID_SIZE,
				       "window geometry %dx%d is not positive",
				       w, h);
		return;
	}
	if (xs)
		xs->geometry_pending = (struct rect){ x, y, w, h };
}

/* Any configure sent and not yet superseded by a later ack may be acked:
 * that one and all older ones are then done with. Anything else (a
 * serial never sent, or one already acked or superseded) is
 * invalid_serial. */
static void
xdg_surface_ack_configure(struct wl_client *client,
			  struct wl_resource *resource, uint32_t serial)
{
	struct xdg_surface *xs = wl_resource_get_user_data(resource);
	int i;

	if (!xs)
		return;
	for (i = 0; i < xs->n_pending; i++)
		if (xs->pending_serials[i] == serial)
			break;
	if (i == xs->n_pending) {
		wl_resource_post_error(
			resource, XDG_SURFACE_ERROR_INVALID_SERIAL,
			"serial %u is not that of a configure waiting for its "
			"ack",
			serial);
		return;
	}
	xs->n_pending -= i + 1;
	memmove(xs->pending_serials, xs->pending_serials + i + 1,
		(size_t)xs->n_pending * sizeof(xs->pending_serials[0]));
	xs->configured = true;
	if (xs->configure_deferred)
		send_configure(xs);
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
	struct xdg_surface *xs = wl_resource_get_user_data(resource);
	struct surface *s;

	if (!xs)
		return;
	s = xs->surface;
	if (xs->toplevel || xs->xdg_popup) {
		/* Protocol: the role object must go first. The client is in
		 * error; its surface is not ours to touch any more. */
		wl_resource_post_error(
			resource, XDG_SURFACE_ERROR_DEFUNCT_ROLE_OBJECT,
			"xdg_surface destroyed before its role object");
		if (xs->toplevel)
			wl_resource_set_user_data(xs->toplevel, NULL);
		popup_surface_destroyed(xs);
		wl_signal_emit(&xs->events.defunct, xs);
		toplevel_set_mapped(xs, false);
		xs->toplevel = xs->xdg_popup = NULL;
	}
	xs->resource = NULL;
	s->role_resource = NULL;
	s->mapped = false;
	xs->configured = false;
	xs->n_pending = 0;
	xs->configure_deferred = false;
	xs->initial_commit_done = false;
	s->comp->damaged = true;
}

static void
shell_surface_destroyed(struct wl_listener *listener, void *data)
{
	struct xdg_surface *xs =
		wl_container_of(listener, xs, surface_destroy);

	/* The wl_surface goes before its xdg objects (a client that quits
	 * does that, or a buggy one): they must not point at it any more. */
	if (xs->surface->mapped && xs->toplevel)
		toplevel_set_mapped(xs, false);
	if (xs->toplevel)
		wl_resource_set_user_data(xs->toplevel, NULL);
	popup_surface_destroyed(xs);
	if (xs->resource)
		wl_resource_set_user_data(xs->resource, NULL);
	wl_signal_emit(&xs->events.defunct, xs);
	listener_detach(&xs->surface_commit);
	listener_detach(&xs->surface_destroy);
	listener_detach(&xs->popup_reposition);
	xs->surface->role_data = NULL;
	free(xs);
}

/* The name of a toplevel's window: its app_id, else its title. */
static const char *
shell_describe(const struct surface *s)
{
	const struct xdg_surface *xs = s->role_data;

	if (!xs)
		return NULL;
	return xs->app_id[0] ? xs->app_id : xs->title[0] ? xs->title : NULL;
}

/* The xdg_surface role: xdg_toplevel and xdg_popup are its objects. One
 * role for both, set by get_xdg_surface: the configure sequence and the
 * unconfigured_buffer rule hold from then on, before either exists. */
const struct surface_role xdg_surface_role = {
	.name = "xdg_surface",
	.precommit = shell_surface_precommit,
	.describe = shell_describe,
};

/* The role's state, at the surface's first xdg_surface. */
static struct xdg_surface *
xdg_surface_new(struct surface *s)
{
	struct xdg_surface *xs = calloc(1, sizeof(*xs));

	if (!xs)
		return NULL;
	xs->surface = s;
	wl_list_init(&xs->popups);
	wl_signal_init(&xs->events.configure);
	wl_signal_init(&xs->events.toplevel_destroy);
	wl_signal_init(&xs->events.defunct);
	wl_list_init(&xs->popup_reposition.link);
	xs->popup_reposition.notify = popup_repositioned;
	xs->surface_commit.notify = shell_surface_commit;
	wl_signal_add(&s->events.commit, &xs->surface_commit);
	xs->surface_destroy.notify = shell_surface_destroyed;
	wl_signal_add(&s->events.destroy, &xs->surface_destroy);
	s->role_data = xs;
	return xs;
}

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
	struct xdg_surface *xs;
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
	xs = s->role_data;
	if (xs && xs->resource) {
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
	if (!xs && !(xs = xdg_surface_new(s))) {
		wl_resource_destroy(r);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(r, &xdg_surface_impl, xs,
				       xdg_surface_destroyed);
	xs->resource = r;
	s->role_resource = r;
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
	popup_init(c);
	return resource_add_plain_global(c, &xdg_wm_base_interface, 3,
					 &wm_base_impl);
}
