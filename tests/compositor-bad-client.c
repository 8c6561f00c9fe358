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
 *   compositor-bad-client zero-scale buffer scale 0 (wl_surface.invalid_scale)
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
 *   compositor-bad-client sub-deep      a chain of 64 nested subsurfaces
 *                                       with cached buffers, committed (no
 *                                       error), then one of 30 000
 *                                       (wl_subcompositor.bad_surface past
 *                                       64 levels)
 *   compositor-bad-client ack-older     ack the first of two configures,
 *                                       then the second, then map (no error)
 *   compositor-bad-client ack-unsent    ack a configure, then a serial
 *                                       never sent (xdg_surface.invalid_serial)
 *   compositor-bad-client ack-zero      ack_configure(0) before any
 *                                       configure, then a buffer
 *                                       (xdg_surface.invalid_serial)
 *   compositor-bad-client scale-3       a 100x100 buffer, then buffer
 *                                       scale 3 without a new buffer
 *                                       (wl_surface.invalid_size)
 *   compositor-bad-client xdg-buffer    get_xdg_surface for a surface with
 *                                       a buffer
 *                                       (xdg_surface.unconfigured_buffer)
 *   compositor-bad-client xdg-twice     get_xdg_surface twice for one
 *                                       surface
 *                                       (xdg_surface.already_constructed)
 *   compositor-bad-client xdg-defunct   destroy the wl_surface, then
 *                                       get_toplevel on its xdg_surface
 *                                       (xdg_surface.defunct_role_object)
 *   compositor-bad-client bad-stride    a 32x32 ARGB8888 buffer with a
 *                                       stride of 64 bytes
 *                                       (wl_shm.invalid_stride)
 *   compositor-bad-client big-upload    commit an 8192x8192 buffer; a second
 *                                       client's frame callback must come
 *                                       before that buffer's release (no error)
 *
 *   compositor-bad-client upload-gaps   measures, checks nothing
 *                                       (scripts/gpu-compositor-test.sh):
 *                                       the intervals between another
 *                                       client's frame callbacks while an
 *                                       8192x8192 buffer is uploaded
 * Exit status 0 when the compositor answered as expected.
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "compositor-client.h"

static struct test_client tc;

/* A pool of size bytes of a client, filled with grey. */
static struct wl_shm_pool *
make_pool_on(struct test_client *c, size_t size)
{
	void *map;
	struct wl_shm_pool *pool = test_client_pool(c, size, &map);

	if (!pool)
		exit(2);
	memset(map, 0x80, size);
	munmap(map, size);
	return pool;
}

static struct wl_shm_pool *
make_pool(size_t size)
{
	return make_pool_on(&tc, size);
}

/* A w x h buffer of format, 4 bytes a pixel, in a pool of its own size. */
static struct wl_buffer *
make_buffer(struct wl_shm_pool **pool, int w, int h, uint32_t format)
{
	*pool = make_pool((size_t)w * h * 4);
	return wl_shm_pool_create_buffer(*pool, 0, w, h, w * 4, format);
}

/* The xdg-shell modes: whether the compositor has xdg_wm_base (if not,
 * said on stderr). */
static bool
have_wm_base(void)
{
	if (!tc.wm_base)
		fprintf(stderr, "compositor-bad-client: no xdg_wm_base\n");
	return tc.wm_base != NULL;
}

static int
expect(struct wl_display *display, const char *iface, uint32_t code)
{
	return test_client_expect(display, iface, code);
}

/* xdg-shell: the configure serials received, in order. */
static uint32_t configure_serials[8];
static int n_configures;

static void
xdg_surface_configure(void *data, struct xdg_surface *xdg_surface,
		      uint32_t serial)
{
	if (n_configures <
	    (int)(sizeof(configure_serials) / sizeof(configure_serials[0])))
		configure_serials[n_configures++] = serial;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	xdg_surface_configure
};

/* A toplevel of surface, its initial commit made and its first configure
 * received. */
static struct xdg_surface *
make_toplevel(struct wl_display *display, struct wl_surface *surface,
	      struct xdg_toplevel **toplevel)
{
	struct xdg_surface *xs =
		xdg_wm_base_get_xdg_surface(tc.wm_base, surface);

	xdg_surface_add_listener(xs, &xdg_surface_listener, NULL);
	*toplevel = xdg_surface_get_toplevel(xs);
	xdg_toplevel_add_listener(*toplevel, &test_client_toplevel_ignored,
				  NULL);
	wl_surface_commit(surface);
	wl_display_roundtrip(display);
	return xs;
}

static void
set_flag(void *data, struct wl_callback *callback, uint32_t time)
{
	*(bool *)data = true;
}

static const struct wl_callback_listener flag_callback_listener = { set_flag };

static void
buffer_released(void *data, struct wl_buffer *buffer)
{
	*(bool *)data = true;
}

static const struct wl_buffer_listener flag_buffer_listener = {
	buffer_released
};

/* The chain case: depth nested subsurfaces under surface, each with the
 * 1x1 buffer committed (cached: synchronized), then the root committed. */
static int
sub_chain(struct wl_display *display, struct wl_surface *surface, int depth,
	  const char *iface, uint32_t code)
{
	struct wl_shm_pool *pool = make_pool(4);
	struct wl_buffer *buffer =
		wl_shm_pool_create_buffer(pool, 0, 1, 1, 4,
					  WL_SHM_FORMAT_ARGB8888);
	struct wl_surface **surfaces = calloc((size_t)depth, sizeof(*surfaces));
	struct wl_subsurface **subs = calloc((size_t)depth, sizeof(*subs));
	struct wl_surface *parent = surface;
	int ret, made = 0;

	if (!surfaces || !subs) {
		perror("calloc");
		exit(2);
	}
	for (int i = 0; i < depth; i++) {
		surfaces[i] = wl_compositor_create_surface(tc.compositor);
		subs[i] = wl_subcompositor_get_subsurface(tc.subcompositor,
							  surfaces[i], parent);
		wl_surface_attach(surfaces[i], buffer, 0, 0);
		wl_surface_commit(surfaces[i]);
		parent = surfaces[i];
		made++;
		/* Stop at an error. Blocks of 16 levels fit in libwayland's
		 * 4 KiB buffer, sent in one write: nothing is written after
		 * the compositor closed the connection, which would lose its
		 * error to EPIPE. */
		if (i % 16 == 15 && wl_display_roundtrip(display) < 0)
			break;
	}
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_commit(surface);
	ret = expect(display, iface, code);
	for (int i = made - 1; i >= 0; i--) {
		wl_subsurface_destroy(subs[i]);
		wl_surface_destroy(surfaces[i]);
	}
	free(subs);
	free(surfaces);
	wl_buffer_destroy(buffer);
	wl_shm_pool_destroy(pool);
	return ret;
}

/* upload-gaps: a second client commits a 64x64 buffer at each of its
 * frame callbacks; after its 30th, this one commits an 8192x8192 buffer.
 * Printed: how long the upload took (the commit to the buffer's release)
 * and the intervals between the second client's frame callbacks before
 * and during it. A measurement for the GPU machine, asserted nowhere. */
static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void
count_frame(void *data, struct wl_callback *callback, uint32_t time)
{
	(*(int *)data)++;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener count_frame_listener = { count_frame };

static int
compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The longest and the median of n intervals (sorted here). */
static void
print_gaps(const char *what, double *gaps, int n)
{
	if (n == 0) {
		printf("upload-gaps: no frame callback %s\n", what);
		return;
	}
	qsort(gaps, n, sizeof(*gaps), compare_doubles);
	printf("upload-gaps: %d frame callbacks of the other client %s: "
	       "longest interval %.1f ms, median %.1f ms\n",
	       n, what, gaps[n - 1], gaps[n / 2]);
}

static void
commit_small(struct wl_surface *s, struct wl_buffer *b, int *frames)
{
	struct wl_callback *cb;

	wl_surface_attach(s, b, 0, 0);
	wl_surface_damage_buffer(s, 0, 0, 64, 64);
	cb = wl_surface_frame(s);
	wl_callback_add_listener(cb, &count_frame_listener, frames);
	wl_surface_commit(s);
}

static int
upload_gaps(struct wl_display *display, struct wl_surface *surface)
{
	enum { WARM = 30, GAPS_MAX = 4096 };
	const int32_t big = 8192;
	static double before[GAPS_MAX], during[GAPS_MAX];
	struct test_client o;
	struct wl_surface *osurface;
	struct wl_shm_pool *opool, *pool;
	struct wl_buffer *obuffer, *buffer;
	bool released = false;
	int frames = 0, seen = 0, nbefore = 0, nduring = 0, refreshes = 0;
	double last = 0, start = 0, upload_ms = 0;

	/* The big buffer is made (256 MiB written) before the measurement:
	 * the loop below then measures the compositor, not this process. */
	buffer = make_buffer(&pool, big, big, WL_SHM_FORMAT_XRGB8888);
	wl_buffer_add_listener(buffer, &flag_buffer_listener, &released);
	if (test_client_connect(&o, "compositor-bad-client (second client)") <
	    0)
		return 2;
	osurface = wl_compositor_create_surface(o.compositor);
	opool = make_pool_on(&o, 64 * 64 * 4);
	obuffer = wl_shm_pool_create_buffer(opool, 0, 64, 64, 64 * 4,
					    WL_SHM_FORMAT_XRGB8888);
	commit_small(osurface, obuffer, &frames);
	while (!released) {
		struct pollfd fds[2] = {
			{ .fd = wl_display_get_fd(display), .events = POLLIN },
			{ .fd = wl_display_get_fd(o.display),
			  .events = POLLIN },
		};

		if (wl_display_flush(display) < 0 ||
		    wl_display_flush(o.display) < 0 || poll(fds, 2, -1) < 0 ||
		    ((fds[0].revents & POLLIN) &&
		     wl_display_dispatch(display) < 0) ||
		    ((fds[1].revents & POLLIN) &&
		     wl_display_dispatch(o.display) < 0)) {
			printf("FAIL: upload-gaps: the connection broke\n");
			break;
		}
		if (frames == seen)
			continue;
		seen = frames;
		double t = now_ms();
		if (seen > 1 && !start && nbefore < GAPS_MAX)
			before[nbefore++] = t - last;
		else if (start && nduring < GAPS_MAX)
			during[nduring++] = t - last;
		last = t;
		if (start)
			refreshes++;
		if (seen == WARM) {
			wl_surface_attach(surface, buffer, 0, 0);
			wl_surface_damage_buffer(surface, 0, 0, big, big);
			wl_surface_commit(surface);
			start = now_ms();
		}
		commit_small(osurface, obuffer, &frames);
	}
	upload_ms = now_ms() - start;
	if (released)
		printf("upload-gaps: the %dx%d upload took %.0f ms (commit to "
		       "release), %d frame callbacks of the other client "
		       "meanwhile\n",
		       big, big, upload_ms, refreshes);
	print_gaps("before the upload", before, nbefore);
	print_gaps("during the upload", during, nduring);
	wl_buffer_destroy(buffer);
	wl_shm_pool_destroy(pool);
	wl_buffer_destroy(obuffer);
	wl_shm_pool_destroy(opool);
	wl_surface_destroy(osurface);
	test_client_disconnect(&o);
	wl_surface_destroy(surface);
	return released ? 0 : 1;
}

int
main(int argc, char **argv)
{
	struct wl_display *display;
	struct wl_surface *surface;
	struct wl_shm_pool *pool;
	struct wl_buffer *buffer;
	struct wl_callback *callback;
	const char *mode = argc > 1 ? argv[1] : "";
	int ret;

	if (test_client_connect(&tc, "compositor-bad-client") < 0)
		return 2;
	display = tc.display;
	if (!tc.compositor || !tc.subcompositor || !tc.shm) {
		fprintf(stderr, "compositor-bad-client: no wl_compositor, "
				"wl_subcompositor or wl_shm\n");
		test_client_disconnect(&tc);
		return 2;
	}
	surface = wl_compositor_create_surface(tc.compositor);

	if (!strcmp(mode, "wrong-size")) {
		/* 128x128 pixels out of a pool of 64x64. */
		pool = make_pool(64 * 64 * 4);
		buffer = wl_shm_pool_create_buffer(pool, 0, 128, 128, 128 * 4,
						   WL_SHM_FORMAT_XRGB8888);
		wl_surface_attach(surface, buffer, 0, 0);
		wl_surface_commit(surface);
		ret = expect(display, "wl_shm_pool",
			     WL_SHM_ERROR_INVALID_STRIDE);
		wl_buffer_destroy(buffer);
		wl_shm_pool_destroy(pool);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "bad-scale")) {
		buffer = make_buffer(&pool, 101, 100, WL_SHM_FORMAT_ARGB8888);
		wl_surface_set_buffer_scale(surface, 2);
		wl_surface_attach(surface, buffer, 0, 0);
		wl_surface_commit(surface);
		ret = expect(display, "wl_surface",
			     WL_SURFACE_ERROR_INVALID_SIZE);
		wl_buffer_destroy(buffer);
		wl_shm_pool_destroy(pool);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "zero-scale")) {
		wl_surface_set_buffer_scale(surface, 0);
		ret = expect(display, "wl_surface",
			     WL_SURFACE_ERROR_INVALID_SCALE);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "bad-transform")) {
		/* One past the last transform. */
		wl_surface_set_buffer_transform(
			surface, WL_OUTPUT_TRANSFORM_FLIPPED_270 + 1);
		ret = expect(display, "wl_surface",
			     WL_SURFACE_ERROR_INVALID_TRANSFORM);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "destroy-busy")) {
		buffer = make_buffer(&pool, 64, 64, WL_SHM_FORMAT_ARGB8888);
		wl_surface_attach(surface, buffer, 0, 0);
		callback = wl_surface_frame(surface);
		wl_surface_commit(surface);
		wl_surface_destroy(surface);
		wl_buffer_destroy(buffer);
		wl_shm_pool_destroy(pool);
		ret = expect(display, NULL, 0);
		wl_callback_destroy(callback);
	} else if (!strcmp(mode, "crash")) {
		buffer = make_buffer(&pool, 64, 64, WL_SHM_FORMAT_ARGB8888);
		wl_surface_attach(surface, buffer, 0, 0);
		wl_surface_frame(surface);
		wl_surface_commit(surface);
		wl_display_flush(display);
		raise(SIGKILL);
		ret = 1;
	} else if (!strcmp(mode, "sub-loop")) {
		struct wl_surface *child =
			wl_compositor_create_surface(tc.compositor);
		struct wl_subsurface *sub =
			wl_subcompositor_get_subsurface(tc.subcompositor, child,
							surface);
		struct wl_subsurface *loop =
			wl_subcompositor_get_subsurface(tc.subcompositor,
							surface, child);
		ret = expect(display, "wl_subcompositor",
			     WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE);
		wl_subsurface_destroy(loop);
		wl_subsurface_destroy(sub);
		wl_surface_destroy(child);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "sub-place")) {
		struct wl_surface *child =
			wl_compositor_create_surface(tc.compositor);
		struct wl_surface *other =
			wl_compositor_create_surface(tc.compositor);
		struct wl_subsurface *sub =
			wl_subcompositor_get_subsurface(tc.subcompositor, child,
							surface);
		wl_subsurface_place_above(sub, other);
		ret = expect(display, "wl_subsurface",
			     WL_SUBSURFACE_ERROR_BAD_SURFACE);
		wl_subsurface_destroy(sub);
		wl_surface_destroy(other);
		wl_surface_destroy(child);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "sub-destroy")) {
		struct wl_surface *child =
			wl_compositor_create_surface(tc.compositor);
		struct wl_subsurface *sub =
			wl_subcompositor_get_subsurface(tc.subcompositor, child,
							surface);
		buffer = make_buffer(&pool, 32, 32, WL_SHM_FORMAT_ARGB8888);
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
	} else if (!strcmp(mode, "sub-deep")) {
		/* 64 levels: SUBSURFACE_DEPTH_MAX, documented in
		 * doc/compositor.md. */
		struct wl_surface *root =
			wl_compositor_create_surface(tc.compositor);
		struct xdg_toplevel *toplevel = NULL;
		struct xdg_surface *xs = NULL;

		/* A mapped toplevel where the compositor has xdg-shell: the
		 * chain is drawn too. */
		if (tc.wm_base) {
			xs = make_toplevel(display, root, &toplevel);
			if (n_configures)
				xdg_surface_ack_configure(xs,
							  configure_serials[0]);
		}
		ret = sub_chain(display, root, 64, NULL, 0);
		if (xs) {
			xdg_toplevel_destroy(toplevel);
			xdg_surface_destroy(xs);
		}
		wl_surface_destroy(root);
		if (ret == 0)
			ret = sub_chain(display, surface, 30000,
					"wl_subcompositor",
					WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "ack-older") || !strcmp(mode, "ack-unsent") ||
		   !strcmp(mode, "ack-zero")) {
		struct xdg_toplevel *toplevel;
		struct xdg_surface *xs;

		if (!have_wm_base())
			return 2;
		buffer = make_buffer(&pool, 64, 64, WL_SHM_FORMAT_ARGB8888);
		if (!strcmp(mode, "ack-zero")) {
			/* Before the initial commit: no configure was sent. */
			xs = xdg_wm_base_get_xdg_surface(tc.wm_base, surface);
			xdg_surface_add_listener(xs, &xdg_surface_listener,
						 NULL);
			toplevel = xdg_surface_get_toplevel(xs);
			xdg_toplevel_add_listener(toplevel,
						  &test_client_toplevel_ignored,
						  NULL);
			xdg_surface_ack_configure(xs, 0);
			wl_surface_attach(surface, buffer, 0, 0);
			wl_surface_commit(surface);
			ret = expect(display, "xdg_surface",
				     XDG_SURFACE_ERROR_INVALID_SERIAL);
		} else if (!strcmp(mode, "ack-unsent")) {
			xs = make_toplevel(display, surface, &toplevel);
			xdg_surface_ack_configure(xs, configure_serials[0]);
			xdg_surface_ack_configure(xs,
						  configure_serials[0] + 1000);
			ret = expect(display, "xdg_surface",
				     XDG_SURFACE_ERROR_INVALID_SERIAL);
		} else {
			/* A second configure before the first ack: both are
			 * the client's to ack, oldest first. */
			xs = make_toplevel(display, surface, &toplevel);
			xdg_toplevel_set_fullscreen(toplevel, NULL);
			wl_display_roundtrip(display);
			if (n_configures < 2) {
				printf("FAIL: no second configure after "
				       "set_fullscreen\n");
				ret = 1;
			} else {
				xdg_surface_ack_configure(xs,
							  configure_serials[0]);
				ret = expect(display, NULL, 0);
				xdg_surface_ack_configure(xs,
							  configure_serials[1]);
				wl_surface_attach(surface, buffer, 0, 0);
				wl_surface_commit(surface);
				ret |= expect(display, NULL, 0);
			}
		}
		xdg_toplevel_destroy(toplevel);
		xdg_surface_destroy(xs);
		wl_buffer_destroy(buffer);
		wl_shm_pool_destroy(pool);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "scale-3")) {
		/* 100x100 is fine at scale 1, and at scale 3 not. */
		buffer = make_buffer(&pool, 100, 100, WL_SHM_FORMAT_ARGB8888);
		wl_surface_attach(surface, buffer, 0, 0);
		wl_surface_commit(surface);
		ret = expect(display, NULL, 0);
		wl_surface_set_buffer_scale(surface, 3);
		wl_surface_commit(surface);
		ret |= expect(display, "wl_surface",
			      WL_SURFACE_ERROR_INVALID_SIZE);
		wl_buffer_destroy(buffer);
		wl_shm_pool_destroy(pool);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "xdg-buffer") || !strcmp(mode, "xdg-twice") ||
		   !strcmp(mode, "xdg-defunct")) {
		struct xdg_surface *xs, *xs2 = NULL;
		struct xdg_toplevel *toplevel = NULL;

		if (!have_wm_base())
			return 2;
		buffer = make_buffer(&pool, 64, 64, WL_SHM_FORMAT_ARGB8888);
		if (!strcmp(mode, "xdg-buffer")) {
			wl_surface_attach(surface, buffer, 0, 0);
			wl_surface_commit(surface);
			xs = xdg_wm_base_get_xdg_surface(tc.wm_base, surface);
			ret = expect(display, "xdg_surface",
				     XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER);
		} else if (!strcmp(mode, "xdg-twice")) {
			xs = xdg_wm_base_get_xdg_surface(tc.wm_base, surface);
			xs2 = xdg_wm_base_get_xdg_surface(tc.wm_base, surface);
			ret = expect(display, "xdg_surface",
				     XDG_SURFACE_ERROR_ALREADY_CONSTRUCTED);
		} else {
			xs = xdg_wm_base_get_xdg_surface(tc.wm_base, surface);
			wl_surface_destroy(surface);
			surface = NULL;
			toplevel = xdg_surface_get_toplevel(xs);
			ret = expect(display, "xdg_surface",
				     XDG_SURFACE_ERROR_DEFUNCT_ROLE_OBJECT);
		}
		if (toplevel)
			xdg_toplevel_destroy(toplevel);
		if (xs2)
			xdg_surface_destroy(xs2);
		xdg_surface_destroy(xs);
		wl_buffer_destroy(buffer);
		wl_shm_pool_destroy(pool);
		if (surface)
			wl_surface_destroy(surface);
	} else if (!strcmp(mode, "bad-stride")) {
		/* libwayland checks the stride against the width, not against
		 * the format's 4 bytes per pixel. */
		pool = make_pool(32 * 64);
		buffer = wl_shm_pool_create_buffer(pool, 0, 32, 32, 64,
						   WL_SHM_FORMAT_ARGB8888);
		wl_surface_attach(surface, buffer, 0, 0);
		wl_surface_commit(surface);
		ret = expect(display, "wl_shm", WL_SHM_ERROR_INVALID_STRIDE);
		wl_buffer_destroy(buffer);
		wl_shm_pool_destroy(pool);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "big-upload")) {
		/* This client commits an 8192x8192 buffer; another commits a
		 * small one after that commit was handled. The other's frame
		 * callback must come first: counted in events, not time. The
		 * big buffer's release says its upload is complete. */
		const int32_t big = 8192;
		struct test_client o;
		struct wl_surface *osurface;
		struct wl_shm_pool *opool;
		struct wl_buffer *obuffer;
		struct wl_callback *ocallback;
		bool released = false, done = false, odone = false;

		buffer = make_buffer(&pool, big, big, WL_SHM_FORMAT_XRGB8888);
		wl_buffer_add_listener(buffer, &flag_buffer_listener,
				       &released);
		wl_surface_attach(surface, buffer, 0, 0);
		wl_surface_damage_buffer(surface, 0, 0, big, big);
		callback = wl_surface_frame(surface);
		wl_callback_add_listener(callback, &flag_callback_listener,
					 &done);
		wl_surface_commit(surface);
		wl_display_roundtrip(display);

		if (test_client_connect(
			    &o, "compositor-bad-client (second client)") < 0)
			return 2;
		osurface = wl_compositor_create_surface(o.compositor);
		opool = make_pool_on(&o, 64 * 64 * 4);
		obuffer = wl_shm_pool_create_buffer(opool, 0, 64, 64, 64 * 4,
						    WL_SHM_FORMAT_XRGB8888);
		wl_surface_attach(osurface, obuffer, 0, 0);
		ocallback = wl_surface_frame(osurface);
		wl_callback_add_listener(ocallback, &flag_callback_listener,
					 &odone);
		wl_surface_commit(osurface);
		while (!odone && wl_display_dispatch(o.display) >= 0)
			;
		/* Whatever the compositor sent this client before it sent the
		 * other's frame callback is here after a round trip. */
		wl_display_roundtrip(display);
		if (!odone) {
			printf("FAIL: the second client got "
			       "no frame callback\n");
			ret = 1;
		} else if (released || done) {
			printf("FAIL: the %dx%d upload was complete before "
			       "another client's next frame\n",
			       big, big);
			ret = 1;
		} else {
			printf("another client's frame came before the %dx%d "
			       "upload was complete\n",
			       big, big);
			ret = 0;
		}
		while (!done && wl_display_dispatch(display) >= 0)
			;
		if (!done || !released) {
			printf("FAIL: the %dx%d upload did not complete\n", big,
			       big);
			ret = 1;
		}
		ret |= expect(display, NULL, 0);
		wl_callback_destroy(ocallback);
		wl_buffer_destroy(obuffer);
		wl_shm_pool_destroy(opool);
		wl_surface_destroy(osurface);
		test_client_disconnect(&o);
		wl_callback_destroy(callback);
		wl_buffer_destroy(buffer);
		wl_shm_pool_destroy(pool);
		wl_surface_destroy(surface);
	} else if (!strcmp(mode, "upload-gaps")) {
		ret = upload_gaps(display, surface);
	} else {
		fprintf(stderr,
			"usage: compositor-bad-client "
			"wrong-size|bad-scale|zero-scale|"
			"bad-transform|destroy-busy|crash|"
			"sub-loop|sub-place|sub-destroy|"
			"sub-deep|ack-older|ack-unsent|ack-zero|"
			"scale-3|xdg-buffer|xdg-twice|"
			"xdg-defunct|bad-stride|big-upload|upload-gaps\n");
		return 2;
	}
	/* Every proxy freed, even after a protocol error: the sanitizer build
	 * checks this program's own leaks too. */
	test_client_disconnect(&tc);
	return ret;
}
