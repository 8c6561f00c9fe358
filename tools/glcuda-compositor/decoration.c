/*
 * glcuda-compositor: zxdg_decoration_manager_v1. glcuda-compositor draws
 * no window decorations (no title bars, borders or buttons: its output
 * is for CUDA and files, with no one to click them), so whatever mode a
 * client asks for, it answers client_side: a client that decorates its
 * windows keeps doing so, one that does not shows none.
 * SPDX-License-Identifier: MIT
 */
#include "compositor.h"

#include "xdg-decoration-unstable-v1-server-protocol.h"

/* set_mode and unset_mode: the answer is the same configure. */
static void
decoration_configure_again(struct wl_resource *resource)
{
	struct surface *s = wl_resource_get_user_data(resource);

	if (s)
		shell_configure(s);
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
	struct surface *s = wl_resource_get_user_data(resource);

	if (s)
		s->decoration = NULL;
}

void
decoration_send_configure(struct surface *s)
{
	if (s->decoration)
		zxdg_toplevel_decoration_v1_send_configure(
			s->decoration,
			ZXDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE);
}

void
decoration_toplevel_destroyed(struct surface *s)
{
	if (!s->decoration)
		return;
	wl_resource_post_error(
		s->decoration, ZXDG_TOPLEVEL_DECORATION_V1_ERROR_ORPHANED,
		"the xdg_toplevel was destroyed before its decoration object");
	wl_resource_set_user_data(s->decoration, NULL);
	s->decoration = NULL;
}

static void
manager_get_toplevel_decoration(struct wl_client *client,
				struct wl_resource *resource, uint32_t id,
				struct wl_resource *toplevel)
{
	/* NULL when the toplevel's wl_surface or xdg_surface is gone. */
	struct surface *s = wl_resource_get_user_data(toplevel);
	struct wl_resource *r = wl_resource_create(
		client, &zxdg_toplevel_decoration_v1_interface,
		wl_resource_get_version(resource), id);

	if (!r) {
		wl_client_post_no_memory(client);
		return;
	}
	/* The errors go on the new object, which is never bound to the
	 * surface. */
	wl_resource_set_implementation(r, &decoration_impl, NULL, NULL);
	if (!s)
		return;
	if (s->decoration) {
		wl_resource_post_error(
			r,
			ZXDG_TOPLEVEL_DECORATION_V1_ERROR_ALREADY_CONSTRUCTED,
			"the xdg_toplevel already has a decoration object");
		return;
	}
	if (surface_has_buffer(s)) {
		wl_resource_post_error(
			r,
			ZXDG_TOPLEVEL_DECORATION_V1_ERROR_UNCONFIGURED_BUFFER,
			"the xdg_toplevel already has a buffer attached or "
			"committed");
		return;
	}
	wl_resource_set_implementation(r, &decoration_impl, s,
				       decoration_destroyed);
	s->decoration = r;
	/* After the initial commit: a configure now. Before: the decoration's
	 * configure goes with the initial one. */
	shell_configure(s);
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
