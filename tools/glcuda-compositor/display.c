/*
 * glcuda-compositor: the wl_display, its socket, and the registration of
 * every global: wl_shm and wl_output here, the others through each file's
 * _init (surface.c, shell.c, seat.c, presentation.c...). display.c calls
 * down into those files and none of them calls display.c: the helpers
 * they share are resource.c's.
 * SPDX-License-Identifier: MIT
 */
#include "comp.h"
#include "output/output.h"
#include "resource.h"
#include "seat/seat.h"
#include "shell/shell.h"
#include "surface/surface.h"

#include <dirent.h>
#include <stdlib.h>

/* wl_output ------------------------------------------------------------- */

static const struct wl_output_interface output_impl = {
	.release = resource_destroy_request,
};

static void
bind_output(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct comp *c = data;
	struct wl_resource *r =
		resource_new(client, &wl_output_interface, (int)version, id,
			     &output_impl, c, resource_unlink);

	if (!r)
		return;
	wl_list_insert(&c->output_resources, wl_resource_get_link(r));
	/* A headless output: no physical size. */
	wl_output_send_geometry(r, 0, 0, 0, 0, WL_OUTPUT_SUBPIXEL_NONE,
				"glcuda", "headless",
				WL_OUTPUT_TRANSFORM_NORMAL);
	wl_output_send_mode(r,
			    WL_OUTPUT_MODE_CURRENT | WL_OUTPUT_MODE_PREFERRED,
			    (int32_t)c->opt.width, (int32_t)c->opt.height,
			    (int32_t)(c->opt.refresh_hz * 1000));
	if (version >= WL_OUTPUT_SCALE_SINCE_VERSION)
		wl_output_send_scale(r, 1);
	if (version >= WL_OUTPUT_NAME_SINCE_VERSION)
		wl_output_send_name(r, OUTPUT_NAME);
	if (version >= WL_OUTPUT_DESCRIPTION_SINCE_VERSION)
		wl_output_send_description(r, OUTPUT_DESCRIPTION);
	if (version >= WL_OUTPUT_DONE_SINCE_VERSION)
		wl_output_send_done(r);
}

/* The display ------------------------------------------------------------ */

/* A client's destroy signal comes before its objects are destroyed: count
 * what is left once the loop is idle again, when they are gone (and before
 * the next client can connect, which takes a fork and an exec). */
static void
report_idle(void *data)
{
	display_report_resources(data);
}
struct client_watch {
	struct wl_listener listener;
	struct comp *comp;
};

static void
client_watch_destroyed(struct wl_listener *listener, void *data)
{
	struct client_watch *w = wl_container_of(listener, w, listener);

	if (w->comp->opt.verbose && w->comp->running)
		wl_event_loop_add_idle(w->comp->loop, report_idle, w->comp);
	wl_list_remove(&w->listener.link);
	free(w);
}

static void
on_client_created(struct wl_listener *listener, void *data)
{
	struct comp *c = wl_container_of(listener, c, client_created);
	struct client_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return;
	w->comp = c;
	w->listener.notify = client_watch_destroyed;
	wl_client_add_destroy_listener(data, &w->listener);
}

void
display_report_resources(struct comp *c)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	struct wl_client *client;
	int fds = 0, clients = 0;

	wl_client_for_each(client, wl_display_get_client_list(c->display))
		clients++;

	if (d) {
		while ((e = readdir(d)))
			fds += e->d_name[0] != '.';
		closedir(d);
	}
	fprintf(stderr,
		COMP_NAME
		": a client left: %d clients, %u surfaces, %u textures, "
		"%d fds open\n",
		clients, c->surfaces_alive, c->textures_alive, fds);
}

int
display_init(struct comp *c)
{
	wl_list_init(&c->surfaces);
	wl_list_init(&c->uploads);
	wl_list_init(&c->output_resources);
	wl_signal_init(&c->events.window_map);
	wl_signal_init(&c->events.window_unmap);
	wl_signal_init(&c->events.feedback_discard);
	c->display = wl_display_create();
	if (!c->display) {
		fprintf(stderr,
			COMP_NAME ": cannot create the Wayland display\n");
		return -1;
	}
	c->loop = wl_display_get_event_loop(c->display);
	c->client_created.notify = on_client_created;
	wl_display_add_client_created_listener(c->display, &c->client_created);
	/* wl_shm with ARGB8888 and XRGB8888, the two formats every
	 * compositor has; libwayland checks pools and buffers against their
	 * sizes and posts the protocol errors itself. */
	if (wl_display_init_shm(c->display) < 0 || !surface_init(c) ||
	    !subsurface_init(c) ||
	    !shell_init(c) || !viewporter_init(c) || !xdg_output_init(c) ||
	    !decoration_init(c) || !data_device_init(c) ||
	    !wl_global_create(c->display, &wl_output_interface, 4, c,
			      bind_output) ||
	    !presentation_init(c)) {
		fprintf(stderr,
			COMP_NAME ": cannot create the Wayland globals\n");
		return -1;
	}
	if (!seat_init(c))
		return -1;
	c->socket = wl_display_add_socket_auto(c->display);
	if (!c->socket) {
		fprintf(stderr,
			COMP_NAME ": cannot create a Wayland socket in %s\n",
			getenv("XDG_RUNTIME_DIR"));
		return -1;
	}
	return 0;
}

void
display_fini(struct comp *c)
{
	if (!c->display)
		return;
	/* The clients first: their surfaces free their GL textures while the
	 * context is still current. */
	wl_display_destroy_clients(c->display);
	wl_display_destroy(c->display);
	c->display = NULL;
	seat_fini(c);
}
