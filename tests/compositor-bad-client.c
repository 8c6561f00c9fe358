/*
 * A Wayland client that breaks the protocol on purpose, for
 * tests/test-compositor.sh: glcuda-compositor must answer with the right
 * protocol error (or none, where the client is within its rights) and keep
 * running for the next client.
 *
 *   compositor-bad-client wrong-size    a buffer larger than its shm pool
 *                                       (wl_shm.invalid_stride, posted
 *                                       by libwayland on the pool)
 *   compositor-bad-client bad-scale     a 101x100 buffer at scale 2
 *                                       (wl_surface.invalid_size)
 *   compositor-bad-client zero-scale    buffer scale 0 (wl_surface.invalid_scale)
 *   compositor-bad-client bad-transform buffer transform 8
 *                                       (wl_surface.invalid_transform)
 *   compositor-bad-client destroy-busy  commit a buffer with a frame
 *                                       callback, destroy surface and
 *                                       buffer at once (no error)
 *   compositor-bad-client crash         commit a buffer, then SIGKILL itself
 *   compositor-bad-client sub-loop      make a surface the subsurface of its
 *                                       own subsurface
 *                                       (wl_subcompositor.bad_surface)
 *   compositor-bad-client sub-place     place a subsurface above a surface
 *                                       that is not its sibling
 *                                       (wl_subsurface.bad_surface)
 *   compositor-bad-client sub-destroy   destroy a parent, then its
 *                                       subsurface's surface with a cached
 *                                       buffer and frame callback (no error)
 *
 * Exit status 0 when the compositor answered as expected.
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <wayland-client.h>

static struct wl_compositor *compositor;
static struct wl_subcompositor *subcompositor;
static struct wl_shm *shm;

static void
global(void *data, struct wl_registry *registry, uint32_t name, const char *iface,
       uint32_t version)
{
	if (!strcmp(iface, wl_compositor_interface.name))
		compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (!strcmp(iface, wl_subcompositor_interface.name))
		subcompositor = wl_registry_bind(registry, name, &wl_subcompositor_interface, 1);
	else if (!strcmp(iface, wl_shm_interface.name))
		shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
}

static void
global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = { global, global_remove };

/* A pool of size bytes, filled with grey. */
static struct wl_shm_pool *
make_pool(size_t size)
{
	struct wl_shm_pool *pool;
	void *map;
	int fd = memfd_create("bad-client", MFD_CLOEXEC);

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		perror("memfd");
		exit(2);
	}
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	memset(map, 0x80, size);
	munmap(map, size);
	pool = wl_shm_create_pool(shm, fd, (int32_t)size);
	close(fd);
	return pool;
}

/* Round-trip; report the protocol error if the compositor sent one. */
static int
expect(struct wl_display *display, const char *iface, uint32_t code)
{
	const struct wl_interface *got_iface = NULL;
	uint32_t id, got;
	int err;

	if (wl_display_roundtrip(display) >= 0) {
		if (!iface) {
			printf("no protocol error, as expected\n");
			return 0;
		}
		printf("FAIL: no protocol error, expected %s code %u\n", iface, code);
		return 1;
	}
	err = wl_display_get_error(display);
	if (err != EPROTO) {
		printf("FAIL: connection lost: %s\n", strerror(err));
		return 1;
	}
	got = wl_display_get_protocol_error(display, &got_iface, &id);
	printf("protocol error: %s code %u\n", got_iface ? got_iface->name : "?", got);
	if (iface && got_iface && !strcmp(got_iface->name, iface) && got == code)
		return 0;
	printf("FAIL: expected %s code %u\n", iface ? iface : "no error", code);
	return 1;
}

int
main(int argc, char **argv)
{
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_surface *surface;
	struct wl_shm_pool *pool;
	struct wl_buffer *buffer;
	struct wl_callback *callback;
	const char *mode = argc > 1 ? argv[1] : "";
	int ret;

	display = wl_display_connect(NULL);
	if (!display) {
		fprintf(stderr, "compositor-bad-client: cannot connect to the compositor\n");
		return 2;
	}
	registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, NULL);
	wl_display_roundtrip(display);
	if (!compositor || !subcompositor || !shm) {
		fprintf(stderr, "compositor-bad-client: no wl_compositor, wl_subcompositor or wl_shm\n");
		return 2;
	}
	surface = wl_compositor_create_surface(compositor);

	if (!strcmp(mode, "wrong-size")) {
		/* 128x128 pixels out of a pool of 64x64. */
		pool = make_pool(64 * 64 * 4);
		buffer = wl_shm_pool_create_buffer(pool, 0, 128, 128, 128 * 4,
						   WL_SHM_FORMAT_XRGB8888);
		wl_surface_attach(surface, buffer, 0, 0);
		wl_surface_commit(surface);
		ret = expect(display, "wl_shm_pool", WL_SHM_ERROR_INVALID_STRIDE);
		wl_buffer_destroy(buffer);
		wl_shm_pool_destroy(pool);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "bad-scale")) {
		pool = make_pool(101 * 100 * 4);
		buffer = wl_shm_pool_create_buffer(pool, 0, 101, 100, 101 * 4,
						   WL_SHM_FORMAT_ARGB8888);
		wl_surface_set_buffer_scale(surface, 2);
		wl_surface_attach(surface, buffer, 0, 0);
		wl_surface_commit(surface);
		ret = expect(display, "wl_surface", WL_SURFACE_ERROR_INVALID_SIZE);
		wl_buffer_destroy(buffer);
		wl_shm_pool_destroy(pool);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "zero-scale")) {
		wl_surface_set_buffer_scale(surface, 0);
		ret = expect(display, "wl_surface", WL_SURFACE_ERROR_INVALID_SCALE);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "bad-transform")) {
		wl_surface_set_buffer_transform(surface, WL_OUTPUT_TRANSFORM_FLIPPED_270 + 1);
		ret = expect(display, "wl_surface", WL_SURFACE_ERROR_INVALID_TRANSFORM);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "destroy-busy")) {
		pool = make_pool(64 * 64 * 4);
		buffer = wl_shm_pool_create_buffer(pool, 0, 64, 64, 64 * 4,
						   WL_SHM_FORMAT_ARGB8888);
		wl_surface_attach(surface, buffer, 0, 0);
		callback = wl_surface_frame(surface);
		wl_surface_commit(surface);
		wl_surface_destroy(surface);
		wl_buffer_destroy(buffer);
		wl_shm_pool_destroy(pool);
		ret = expect(display, NULL, 0);
		wl_callback_destroy(callback);
	} else if (!strcmp(mode, "crash")) {
		pool = make_pool(64 * 64 * 4);
		buffer = wl_shm_pool_create_buffer(pool, 0, 64, 64, 64 * 4,
						   WL_SHM_FORMAT_ARGB8888);
		wl_surface_attach(surface, buffer, 0, 0);
		wl_surface_frame(surface);
		wl_surface_commit(surface);
		wl_display_flush(display);
		raise(SIGKILL);
		ret = 1;
	} else if (!strcmp(mode, "sub-loop")) {
		struct wl_surface *child = wl_compositor_create_surface(compositor);
		struct wl_subsurface *sub = wl_subcompositor_get_subsurface(subcompositor, child,
									    surface);
		struct wl_subsurface *loop = wl_subcompositor_get_subsurface(subcompositor, surface,
									     child);
		ret = expect(display, "wl_subcompositor", WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE);
		wl_subsurface_destroy(loop);
		wl_subsurface_destroy(sub);
		wl_surface_destroy(child);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "sub-place")) {
		struct wl_surface *child = wl_compositor_create_surface(compositor);
		struct wl_surface *other = wl_compositor_create_surface(compositor);
		struct wl_subsurface *sub = wl_subcompositor_get_subsurface(subcompositor, child,
									    surface);
		wl_subsurface_place_above(sub, other);
		ret = expect(display, "wl_subsurface", WL_SUBSURFACE_ERROR_BAD_SURFACE);
		wl_subsurface_destroy(sub);
		wl_surface_destroy(other);
		wl_surface_destroy(child);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "sub-destroy")) {
		struct wl_surface *child = wl_compositor_create_surface(compositor);
		struct wl_subsurface *sub = wl_subcompositor_get_subsurface(subcompositor, child,
									    surface);
		pool = make_pool(32 * 32 * 4);
		buffer = wl_shm_pool_create_buffer(pool, 0, 32, 32, 32 * 4,
						   WL_SHM_FORMAT_ARGB8888);
		wl_surface_attach(child, buffer, 0, 0);
		callback = wl_surface_frame(child);
		wl_surface_commit(child); /* synchronized: cached */
		wl_surface_destroy(surface);
		wl_surface_destroy(child);
		wl_subsurface_destroy(sub);
		wl_buffer_destroy(buffer);
		wl_shm_pool_destroy(pool);
		ret = expect(display, NULL, 0);
		wl_callback_destroy(callback);
	} else {
		fprintf(stderr, "usage: compositor-bad-client wrong-size|bad-scale|zero-scale|"
			"bad-transform|destroy-busy|crash|"
			"sub-loop|sub-place|sub-destroy\n");
		return 2;
	}
	/* Every proxy freed, even after a protocol error: the sanitizer build
	 * checks this program's own leaks too. */
	wl_shm_destroy(shm);
	wl_subcompositor_destroy(subcompositor);
	wl_compositor_destroy(compositor);
	wl_registry_destroy(registry);
	wl_display_disconnect(display);
	return ret;
}
