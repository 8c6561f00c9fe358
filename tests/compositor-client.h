/*
 * What the test clients of glcuda-compositor share
 * (tests/compositor-bad-client.c, tests/compositor-pixel-client.c): the
 * connection, the globals they bind, xdg_wm_base's ping, shm pools, and
 * the report of a protocol error.
 * SPDX-License-Identifier: MIT
 */
#ifndef COMPOSITOR_CLIENT_H
#define COMPOSITOR_CLIENT_H

#include <stddef.h>

#include <wayland-client.h>

#include "presentation-time-client-protocol.h"
#include "viewporter-client-protocol.h"
#include "xdg-decoration-unstable-v1-client-protocol.h"
#include "xdg-output-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

struct test_client {
	const char *prog;               /* for messages */
	struct wl_display *display;
	struct wl_registry *registry;
	/* NULL where the compositor has none. */
	struct wl_compositor *compositor;
	struct wl_subcompositor *subcompositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;    /* answers pings */
	struct wp_presentation *presentation;
	struct wp_viewporter *viewporter;
	struct zxdg_decoration_manager_v1 *decoration_manager;
	struct zxdg_output_manager_v1 *xdg_output_manager;
	struct wl_output *output;
	struct wl_seat *seat;
	struct wl_data_device_manager *data_device_manager;
};

/* Connect to $WAYLAND_DISPLAY and bind the globals (after a round trip).
 * 0, or -1 with the reason printed (c is then empty: nothing to free). */
int test_client_connect(struct test_client *c, const char *prog);
/* Every proxy freed, then the connection: a sanitizer build checks the
 * clients' own leaks too. */
void test_client_disconnect(struct test_client *c);

/* A mapped memfd of size bytes (*data), or NULL with the reason printed;
 * the pool holds its own reference to the fd. */
struct wl_shm_pool *test_client_pool(struct test_client *c, size_t size,
				     void **data);

/* A toplevel listener that ignores configure and close (the test clients
 * draw at sizes of their own). */
extern const struct xdg_toplevel_listener test_client_toplevel_ignored;

/* A toplevel's objects; serial: of its last configure (0: none yet), as
 * test_client_configure_acked keeps it. */
struct test_toplevel {
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	struct wl_buffer *buffer;
	uint32_t serial;
};

/* An xdg_surface listener that acks every configure and stores its
 * serial in the uint32_t its data points to. */
extern const struct xdg_surface_listener test_client_configure_acked;

/* After a failed dispatch: print the protocol error (or the lost
 * connection). */
void test_client_report_error(struct test_client *c);

/* Round-trip; the protocol error the compositor sent must be code of
 * the interface named iface (NULL: none must come). Prints what came;
 * 0 when it was the one expected, else 1. */
int test_client_expect(struct wl_display *display, const char *iface,
		       uint32_t code);

#endif
