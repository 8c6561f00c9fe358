/*
 * glcuda-compositor: what every protocol file uses for its objects
 * (resource.c).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_COMPOSITOR_RESOURCE_H
#define GLCUDA_COMPOSITOR_RESOURCE_H

#include <stdbool.h>

#include <wayland-server-core.h>

struct comp;

/* A global whose bind makes the client's resource and nothing more: its
 * interface with impl, the compositor as the resource's data
 * (resource_add_plain_global). */
struct plain_global {
	struct comp *comp;
	const struct wl_interface *iface;
	const void *impl;
};
#define COMP_MAX_PLAIN_GLOBALS 8

/* resource.c: what every protocol file uses for its objects. */
/* A new resource with its implementation, or NULL after
 * wl_client_post_no_memory. */
struct wl_resource *resource_new(struct wl_client *client,
				 const struct wl_interface *iface,
				 int version, uint32_t id, const void *impl,
				 void *data,
				 wl_resource_destroy_func_t destroyed);
/* The destroy (or release) request of an object that needs nothing more. */
void resource_destroy_request(struct wl_client *client,
			      struct wl_resource *resource);
/* The destructor of a resource kept in one of our lists (callbacks,
 * feedback, outputs): out of the list when it is sent or the client
 * goes. */
void resource_unlink(struct wl_resource *resource);
/* Out of the signal it listens to (if any), and safe to detach again. */
void listener_detach(struct wl_listener *l);
/* One of the client's objects of that interface, NULL if none: for the
 * errors that go on a global's object. A walk of all the client's
 * objects: only on error paths, which end the client. */
struct wl_resource *client_find_resource(struct wl_client *client,
					 const struct wl_interface *iface);
/* Advertise iface up to version; a client's bind makes a resource with
 * impl and c as its data, nothing more. false when it cannot be made. */
bool resource_add_plain_global(struct comp *c,
			       const struct wl_interface *iface, int version,
			       const void *impl);

#endif
