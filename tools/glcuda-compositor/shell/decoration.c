/*
 * glcuda-compositor: zxdg_decoration_manager_v1. glcuda-compositor draws
 * no window decorations (no title bars, borders or buttons: its output
 * is for CUDA and files, with no one to click them), so whatever mode a
 * client asks for, it answers client_side: a client that decorates its
 * windows keeps doing so, one that does not shows none.
 *
 * A decoration object listens to its toplevel's xdg_surface (shell.c):
 * its configure follows each of the toplevel's; it is orphaned when the
 * toplevel goes first.
 * SPDX-License-Identifier: MIT
 */
#include "shell/shell.h"
#include "comp.h"
#include "resource.h"
#include "surface/surface.h"

#include <stdlib.h>

#include "xdg-decoration-unstable-v1-server-protocol.h"

struct decoration {
	struct wl_resource *resource;
	struct xdg_surface *xs;         /* NULL once it let go */
	struct wl_listener configure, toplevel_destroy, defunct;
};

/* The decoration no longer refers to its toplevel. */
static void
decoration_detach(struct decoration *d)
{
	listener_detach(&d->configure);
	listener_detach(&d->toplevel_destroy);
	listener_detach(&d->defunct);
	d->xs = NULL;
}

/* set_mode and unset_mode: the answer is the same configure. */
static void
decoration_configure_again(struct wl_resource *resource)
{
	struct decoration *d = wl_resource_get_user_data(resource);

	if (d && d->xs)
		shell_configure(d->xs);
}

static void
decoration_set_mode(struct wl_client *client, struct wl_resource *resource,
		    uint32_t mode)
{
	decoration_configure_again(resource);
}

static void
decoration_unset_mode(struct wl_client *client, struct wl_resource *resource)
{
	decoration_configure_again(resource);
}

static const struct zxdg_toplevel_decoration_v1_interface decoration_impl = {
	.destroy = resource_destroy_request,
	.set_mode = decoration_set_mode,
	.unset_mode = decoration_unset_mode,
};

static void
decoration_destroyed(struct wl_resource *resource)
{
	struct decoration *d = wl_resource_get_user_data(resource);

	decoration_detach(d);
	free(d);
}

/* In each configure of its toplevel. */
static void
on_configure(struct wl_listener *listener, void *data)
{
	struct decoration *d = wl_container_of(listener, d, configure);

	zxdg_toplevel_decoration_v1_send_configure(
		d->resource, ZXDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE);
}

static void
on_toplevel_destroy(struct wl_listener *listener, void *data)
{
	struct decoration *d = wl_container_of(listener, d, toplevel_destroy);

	wl_resource_post_error(
		d->resource, ZXDG_TOPLEVEL_DECORATION_V1_ERROR_ORPHANED,
		"the xdg_toplevel was destroyed before its decoration object");
	decoration_detach(d);
}

static void
on_defunct(struct wl_listener *listener, void *data)
{
	struct decoration *d = wl_container_of(listener, d, defunct);

	decoration_detach(d);
}

static void
manager_get_toplevel_decoration(struct wl_client *client,
				struct wl_resource *resource, uint32_t id,
				struct wl_resource *toplevel)
{
	/* NULL when the toplevel's wl_surface or xdg_surface is gone. */
	struct xdg_surface *xs = wl_resource_get_user_data(toplevel);
	struct wl_resource *r = wl_resource_create(
		client, &zxdg_toplevel_decoration_v1_interface,
		wl_resource_get_version(resource), id);
	struct decoration *d;

	if (!r) {
		wl_client_post_no_memory(client);
		return;
	}
	/* The errors go on the new object, which is never bound to the
	 * surface. */
	wl_resource_set_implementation(r, &decoration_impl, NULL, NULL);
	if (!xs)
		return;
	/* Each decoration listens to the configures: one that does is
	 * there already. */
	if (wl_signal_get(&xs->events.configure, on_configure)) {
		wl_resource_post_error(
			r,
			ZXDG_TOPLEVEL_DECORATION_V1_ERROR_ALREADY_CONSTRUCTED,
			"the xdg_toplevel already has a decoration object");
		return;
	}
	if (surface_has_buffer(xs->surface)) {
		wl_resource_post_error(
			r,
			ZXDG_TOPLEVEL_DECORATION_V1_ERROR_UNCONFIGURED_BUFFER,
			"the xdg_toplevel already has a buffer attached or "
			"committed");
		return;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		wl_client_post_no_memory(client);
		return;
	}
	d->resource = r;
	d->xs = xs;
	d->configure.notify = on_configure;
	wl_signal_add(&xs->events.configure, &d->configure);
	d->toplevel_destroy.notify = on_toplevel_destroy;
	wl_signal_add(&xs->events.toplevel_destroy, &d->toplevel_destroy);
	d->defunct.notify = on_defunct;
	wl_signal_add(&xs->events.defunct, &d->defunct);
	wl_resource_set_implementation(r, &decoration_impl, d,
				       decoration_destroyed);
	/* After the initial commit: a configure now. Before: the decoration's
	 * configure goes with the initial one. */
	shell_configure(xs);
}

static const struct zxdg_decoration_manager_v1_interface manager_impl = {
	.destroy = resource_destroy_request,
	.get_toplevel_decoration = manager_get_toplevel_decoration,
};

bool
decoration_init(struct comp *c)
{
	return resource_add_plain_global(
		c, &zxdg_decoration_manager_v1_interface, 1, &manager_impl);
}
