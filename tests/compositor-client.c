/*
 * What the test clients of glcuda-compositor share: see
 * compositor-client.h.
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include "compositor-client.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void
global(void *data, struct wl_registry *registry, uint32_t name,
       const char *iface, uint32_t version)
{
	struct test_client *c = data;

	if (!strcmp(iface, wl_compositor_interface.name))
		c->compositor = wl_registry_bind(registry, name,
						 &wl_compositor_interface, 4);
	else if (!strcmp(iface, wl_subcompositor_interface.name))
		c->subcompositor = wl_registry_bind(registry, name,
						    &wl_subcompositor_interface,
						    1);
	else if (!strcmp(iface, wl_shm_interface.name))
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (!strcmp(iface, xdg_wm_base_interface.name))
		c->wm_base = wl_registry_bind(registry, name,
					      &xdg_wm_base_interface,
					      version < 3 ? version : 3);
	else if (!strcmp(iface, wp_presentation_interface.name))
		c->presentation = wl_registry_bind(registry, name,
						   &wp_presentation_interface,
						   1);
	else if (!strcmp(iface, wp_viewporter_interface.name))
		c->viewporter = wl_registry_bind(registry, name,
						 &wp_viewporter_interface, 1);
	else if (!strcmp(iface, zxdg_decoration_manager_v1_interface.name))
		c->decoration_manager =
			wl_registry_bind(registry, name,
					 &zxdg_decoration_manager_v1_interface,
					 1);
	else if (!strcmp(iface, zxdg_output_manager_v1_interface.name))
		c->xdg_output_manager =
			wl_registry_bind(registry, name,
					 &zxdg_output_manager_v1_interface,
					 version < 3 ? version : 3);
	else if (!strcmp(iface, wl_output_interface.name) && !c->output)
		c->output = wl_registry_bind(registry, name,
					     &wl_output_interface,
					     version < 4 ? version : 4);
	else if (!strcmp(iface, wl_seat_interface.name) && !c->seat)
		c->seat =
			wl_registry_bind(registry, name, &wl_seat_interface, 1);
	else if (!strcmp(iface, wl_data_device_manager_interface.name))
		c->data_device_manager =
			wl_registry_bind(registry, name,
					 &wl_data_device_manager_interface,
					 version < 3 ? version : 3);
}

static void
global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = { global,
							       global_remove };

static void
wm_base_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = { wm_base_ping };

int
test_client_connect(struct test_client *c, const char *prog)
{
	memset(c, 0, sizeof(*c));
	c->prog = prog;
	c->display = wl_display_connect(NULL);
	if (!c->display) {
		fprintf(stderr, "%s: cannot connect to the compositor: %s\n",
			prog, strerror(errno));
		return -1;
	}
	c->registry = wl_display_get_registry(c->display);
	wl_registry_add_listener(c->registry, &registry_listener, c);
	if (wl_display_roundtrip(c->display) < 0) {
		test_client_report_error(c);
		test_client_disconnect(c);
		return -1;
	}
	if (c->wm_base)
		xdg_wm_base_add_listener(c->wm_base, &wm_base_listener, NULL);
	return 0;
}

void
test_client_disconnect(struct test_client *c)
{
	if (!c->display)
		return;
	if (c->data_device_manager)
		wl_data_device_manager_destroy(c->data_device_manager);
	if (c->seat)
		wl_seat_destroy(c->seat);
	if (c->output &&
	    wl_output_get_version(c->output) >= WL_OUTPUT_RELEASE_SINCE_VERSION)
		wl_output_release(c->output);
	else if (c->output)
		wl_output_destroy(c->output);
	if (c->xdg_output_manager)
		zxdg_output_manager_v1_destroy(c->xdg_output_manager);
	if (c->decoration_manager)
		zxdg_decoration_manager_v1_destroy(c->decoration_manager);
	if (c->viewporter)
		wp_viewporter_destroy(c->viewporter);
	if (c->presentation)
		wp_presentation_destroy(c->presentation);
	if (c->wm_base)
		xdg_wm_base_destroy(c->wm_base);
	if (c->shm)
		wl_shm_destroy(c->shm);
	if (c->subcompositor)
		wl_subcompositor_destroy(c->subcompositor);
	if (c->compositor)
		wl_compositor_destroy(c->compositor);
	wl_registry_destroy(c->registry);
	wl_display_disconnect(c->display);
	memset(c, 0, sizeof(*c));
}

struct wl_shm_pool *
test_client_pool(struct test_client *c, size_t size, void **data)
{
	struct wl_shm_pool *pool;
	int fd = memfd_create(c->prog, MFD_CLOEXEC);

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		fprintf(stderr, "%s: a memfd of %zu bytes: %s\n", c->prog, size,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	*data = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*data == MAP_FAILED) {
		fprintf(stderr, "%s: mmap of %zu bytes: %s\n", c->prog, size,
			strerror(errno));
		*data = NULL;
		close(fd);
		return NULL;
	}
	pool = wl_shm_create_pool(c->shm, fd, (int32_t)size);
	close(fd);
	return pool;
}

void
test_client_report_error(struct test_client *c)
{
	const struct wl_interface *iface = NULL;
	uint32_t id, code;
	int err = wl_display_get_error(c->display);

	if (err != EPROTO) {
		fprintf(stderr, "%s: connection lost: %s\n", c->prog,
			strerror(err));
		return;
	}
	code = wl_display_get_protocol_error(c->display, &iface, &id);
	fprintf(stderr, "%s: protocol error: %s@%u code %u\n", c->prog,
		iface ? iface->name : "?", id, code);
}

int
test_client_expect(struct wl_display *display, const char *iface, uint32_t code)
{
	const struct wl_interface *got_iface = NULL;
	uint32_t id, got;
	int err;

	if (wl_display_roundtrip(display) >= 0) {
		if (!iface) {
			printf("no protocol error, as expected\n");
			return 0;
		}
		printf("FAIL: no protocol error, expected %s code %u\n", iface,
		       code);
		return 1;
	}
	err = wl_display_get_error(display);
	if (err != EPROTO) {
		printf("FAIL: connection lost: %s\n", strerror(err));
		return 1;
	}
	got = wl_display_get_protocol_error(display, &got_iface, &id);
	printf("protocol error: %s code %u\n",
	       got_iface ? got_iface->name : "?", got);
	if (iface && got_iface && !strcmp(got_iface->name, iface) &&
	    got == code)
		return 0;
	printf("FAIL: expected %s code %u\n", iface ? iface : "no error", code);
	return 1;
}

static void
toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t w,
		   int32_t h, struct wl_array *states)
{
}

static void
toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
}

const struct xdg_toplevel_listener test_client_toplevel_ignored = {
	toplevel_configure, toplevel_close
};

static void
configure_acked(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	*(uint32_t *)data = serial;
	xdg_surface_ack_configure(xdg_surface, serial);
}

const struct xdg_surface_listener test_client_configure_acked = {
	configure_acked
};
