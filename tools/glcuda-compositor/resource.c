/*
 * glcuda-compositor: the helpers every protocol file uses for its objects
 * (resources) and its listeners, and plain globals (whose bind makes a
 * resource and nothing more). They call nothing else of the compositor:
 * every file may use them, and display.c, which registers the globals,
 * is not one they need.
 * SPDX-License-Identifier: MIT
 */
#include "comp.h"
#include "resource.h"

#include <string.h>

void
resource_unlink(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

struct wl_resource *
resource_new(struct wl_client *client, const struct wl_interface *iface,
	     int version, uint32_t id, const void *impl, void *data,
	     wl_resource_destroy_func_t destroyed)
{
	struct wl_resource *r = wl_resource_create(client, iface, version, id);

	if (!r) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	wl_resource_set_implementation(r, impl, data, destroyed);
	return r;
}

void
resource_destroy_request(struct wl_client *client,
			 struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

void
listener_detach(struct wl_listener *l)
{
	wl_list_remove(&l->link);
	wl_list_init(&l->link);
}

static void
bind_plain(struct wl_client *client, void *data, uint32_t version,
	   uint32_t id)
{
	struct plain_global *g = data;

	resource_new(client, g->iface, (int)version, id, g->impl, g->comp,
		     NULL);
}

bool
resource_add_plain_global(struct comp *c, const struct wl_interface *iface,
			  int version, const void *impl)
{
	struct plain_global *g;

	if (c->plain_global_count == COMP_MAX_PLAIN_GLOBALS) {
		fprintf(stderr, COMP_NAME ": cannot advertise %s: more than "
			"%d plain globals (raise COMP_MAX_PLAIN_GLOBALS)\n",
			iface->name, COMP_MAX_PLAIN_GLOBALS);
		return false;
	}
	g = &c->plain_globals[c->plain_global_count++];
	*g = (struct plain_global){ .comp = c, .iface = iface, .impl = impl };
	return wl_global_create(c->display, iface, version, g, bind_plain);
}

struct find_class {
	const char *name;
	struct wl_resource *found;
};

static enum wl_iterator_result
find_class(struct wl_resource *resource, void *data)
{
	struct find_class *f = data;

	if (strcmp(wl_resource_get_class(resource), f->name))
		return WL_ITERATOR_CONTINUE;
	f->found = resource;
	return WL_ITERATOR_STOP;
}

struct wl_resource *
client_find_resource(struct wl_client *client, const struct wl_interface *iface)
{
	struct find_class f = { iface->name, NULL };

	wl_client_for_each_resource(client, find_class, &f);
	return f.found;
}
