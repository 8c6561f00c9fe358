/*
 * glcuda-compositor: wl_data_device_manager, the clipboard between
 * clients. A client offers data with a wl_data_source and
 * wl_data_device.set_selection; the client with the focus gets a
 * wl_data_offer of it (wl_data_device.selection) and reads it with
 * wl_data_offer.receive: the compositor hands the receiver's fd to the
 * source's client (wl_data_source.send), the data goes between the two
 * clients without passing through it.
 *
 * The focus is the keyboard's (seat.c calls data_device_set_focus): a
 * new toplevel takes it, or the control socket's focus command. The
 * serial of set_selection is not checked: a client may set the selection
 * without an input event (the seat is driven by scripts, which may not
 * send any). Drag and drop is not offered: start_drag is refused and its
 * source cancelled.
 * SPDX-License-Identifier: MIT
 */
#include "seat/seat.h"
#include "comp.h"
#include "resource.h"
#include "surface/surface.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The mime types one source may offer; more are ignored. */
#define SOURCE_MIMES_MAX 32

struct data_source {
	struct comp *comp;
	struct wl_resource *resource;
	char *mimes[SOURCE_MIMES_MAX];
	int n_mimes;
	/* set_actions: for drag and drop only */
	bool actions_set;
	bool used;                      /* set as the selection, or dragged */
	struct wl_list offers;          /* wl_data_offer resources made of it */
};

/* wl_data_offer: of a selection source, NULL once the source is gone. */

static void
offer_accept(struct wl_client *client, struct wl_resource *resource,
	     uint32_t serial, const char *mime)
{
	/* For drag and drop only. */
}

static void
offer_receive(struct wl_client *client, struct wl_resource *resource,
	      const char *mime, int32_t fd)
{
	struct data_source *src = wl_resource_get_user_data(resource);

	/* The source's client writes the data and closes its copy. */
	if (src)
		wl_data_source_send_send(src->resource, mime, fd);
	close(fd);
}

static void
offer_finish(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_post_error(
		resource, WL_DATA_OFFER_ERROR_INVALID_FINISH,
		"finish on a selection offer, not a drag-and-drop one");
}

static void
offer_set_actions(struct wl_client *client, struct wl_resource *resource,
		  uint32_t actions, uint32_t preferred)
{
	wl_resource_post_error(
		resource, WL_DATA_OFFER_ERROR_INVALID_OFFER,
		"set_actions on a selection offer, not a drag-and-drop one");
}

static const struct wl_data_offer_interface offer_impl = {
	.accept = offer_accept,
	.receive = offer_receive,
	.destroy = resource_destroy_request,
	.finish = offer_finish,
	.set_actions = offer_set_actions,
};

static void
offer_destroyed(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

/* The current selection to one data device: a new offer and its mime
 * types, or NULL. */
static void
device_send_selection(struct comp *c, struct wl_resource *device)
{
	struct data_source *src = c->clipboard.selection;
	struct wl_resource *offer;

	if (!src) {
		wl_data_device_send_selection(device, NULL);
		return;
	}
	offer = resource_new(wl_resource_get_client(device),
			     &wl_data_offer_interface,
			     wl_resource_get_version(device), 0, &offer_impl,
			     src, offer_destroyed);
	if (!offer)
		return;
	wl_list_insert(&src->offers, wl_resource_get_link(offer));
	wl_data_device_send_data_offer(device, offer);
	for (int i = 0; i < src->n_mimes; i++)
		wl_data_offer_send_offer(offer, src->mimes[i]);
	wl_data_device_send_selection(device, offer);
}

/* To every data device of the focused client. */
static void
focus_send_selection(struct comp *c)
{
	struct wl_resource *device;

	if (!c->clipboard.focus)
		return;
	wl_resource_for_each(device, &c->clipboard.devices)
		if (wl_resource_get_client(device) == c->clipboard.focus)
			device_send_selection(c, device);
}

static void
focus_gone(struct wl_listener *listener, void *data)
{
	struct clipboard *cb = wl_container_of(listener, cb, focus_destroy);

	listener_detach(&cb->focus_destroy);
	cb->focus = NULL;
}

void
data_device_set_focus(struct comp *c, struct wl_client *client)
{
	struct clipboard *cb = &c->clipboard;

	if (cb->focus == client)
		return;
	listener_detach(&cb->focus_destroy);
	cb->focus = client;
	if (!client)
		return;
	cb->focus_destroy.notify = focus_gone;
	wl_client_add_destroy_listener(client, &cb->focus_destroy);
	focus_send_selection(c);
}

/* wl_data_source ----------------------------------------------------------- */

static void
source_offer(struct wl_client *client, struct wl_resource *resource,
	     const char *mime)
{
	struct data_source *src = wl_resource_get_user_data(resource);
	char *copy;

	if (src->n_mimes == SOURCE_MIMES_MAX)
		return;
	copy = strdup(mime);
	if (!copy) {
		wl_client_post_no_memory(client);
		return;
	}
	src->mimes[src->n_mimes++] = copy;
}

static void
source_set_actions(struct wl_client *client, struct wl_resource *resource,
		   uint32_t actions)
{
	struct data_source *src = wl_resource_get_user_data(resource);
	const uint32_t all = WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY |
			     WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE |
			     WL_DATA_DEVICE_MANAGER_DND_ACTION_ASK;

	if (actions & ~all) {
		wl_resource_post_error(
			resource, WL_DATA_SOURCE_ERROR_INVALID_ACTION_MASK,
			"actions 0x%x are not "
			"wl_data_device_manager.dnd_action's",
			actions);
		return;
	}
	if (src->actions_set || src->used) {
		wl_resource_post_error(
			resource, WL_DATA_SOURCE_ERROR_INVALID_SOURCE,
			"set_actions twice, or after the source was used");
		return;
	}
	src->actions_set = true;
}

static const struct wl_data_source_interface source_impl = {
	.offer = source_offer,
	.destroy = resource_destroy_request,
	.set_actions = source_set_actions,
};

static void
source_destroyed(struct wl_resource *resource)
{
	struct data_source *src = wl_resource_get_user_data(resource);
	struct wl_resource *offer, *tmp;

	/* Its offers stay until their clients destroy them, inert. */
	wl_resource_for_each_safe(offer, tmp, &src->offers) {
		wl_resource_set_user_data(offer, NULL);
		wl_list_remove(wl_resource_get_link(offer));
		wl_list_init(wl_resource_get_link(offer));
	}
	if (src->comp->clipboard.selection == src) {
		src->comp->clipboard.selection = NULL;
		focus_send_selection(src->comp);
	}
	for (int i = 0; i < src->n_mimes; i++)
		free(src->mimes[i]);
	free(src);
}

/* wl_data_device ----------------------------------------------------------- */

static void
device_start_drag(struct wl_client *client, struct wl_resource *resource,
		  struct wl_resource *source, struct wl_resource *origin,
		  struct wl_resource *icon, uint32_t serial)
{
	struct surface *s = icon ? surface_from_resource(icon) : NULL;

	if (s && s->role_resource) {
		wl_resource_post_error(resource, WL_DATA_DEVICE_ERROR_ROLE,
				       "the drag icon already has a role");
		return;
	}
	/* No pointer: no implicit grab the serial could name. */
	if (source) {
		struct data_source *src = wl_resource_get_user_data(source);

		src->used = true;
		wl_data_source_send_cancelled(source);
	}
}

static void
device_set_selection(struct wl_client *client, struct wl_resource *resource,
		     struct wl_resource *source, uint32_t serial)
{
	struct comp *c = wl_resource_get_user_data(resource);
	struct data_source *src =
		source ? wl_resource_get_user_data(source) : NULL;
	struct data_source *old = c->clipboard.selection;

	if (src && src->actions_set) {
		wl_resource_post_error(
			source, WL_DATA_SOURCE_ERROR_INVALID_SOURCE,
			"a source for drag and drop (set_actions) set as the "
			"selection");
		return;
	}
	if (src == old)
		return;
	if (src)
		src->used = true;
	c->clipboard.selection = src;
	/* The previous one is no longer the selection. */
	if (old)
		wl_data_source_send_cancelled(old->resource);
	focus_send_selection(c);
}

static const struct wl_data_device_interface device_impl = {
	.start_drag = device_start_drag,
	.set_selection = device_set_selection,
	.release = resource_destroy_request,
};

static void
device_destroyed(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

/* wl_data_device_manager --------------------------------------------------- */

static void
manager_create_data_source(struct wl_client *client,
			   struct wl_resource *resource, uint32_t id)
{
	struct data_source *src = calloc(1, sizeof(*src));

	if (!src) {
		wl_client_post_no_memory(client);
		return;
	}
	src->resource =
		wl_resource_create(client, &wl_data_source_interface,
				   wl_resource_get_version(resource), id);
	if (!src->resource) {
		free(src);
		wl_client_post_no_memory(client);
		return;
	}
	src->comp = wl_resource_get_user_data(resource);
	wl_list_init(&src->offers);
	wl_resource_set_implementation(src->resource, &source_impl, src,
				       source_destroyed);
}

static void
manager_get_data_device(struct wl_client *client, struct wl_resource *resource,
			uint32_t id, struct wl_resource *seat)
{
	struct comp *c = wl_resource_get_user_data(resource);
	struct wl_resource *r =
		resource_new(client, &wl_data_device_interface,
			     wl_resource_get_version(resource), id,
			     &device_impl, c, device_destroyed);

	if (!r)
		return;
	wl_list_insert(&c->clipboard.devices, wl_resource_get_link(r));
	if (client == c->clipboard.focus)
		device_send_selection(c, r);
}

static const struct wl_data_device_manager_interface manager_impl = {
	.create_data_source = manager_create_data_source,
	.get_data_device = manager_get_data_device,
};

bool
data_device_init(struct comp *c)
{
	wl_list_init(&c->clipboard.devices);
	wl_list_init(&c->clipboard.focus_destroy.link);
	return resource_add_plain_global(c, &wl_data_device_manager_interface,
					 3, &manager_impl);
}
