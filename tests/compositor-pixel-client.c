/*
 * A Wayland client whose frames glcuda-compositor must reproduce exactly,
 * and the CPU reference of those frames, for tests/test-compositor.sh.
 *
 *   compositor-pixel-client run SCENE
 *       Connects to the compositor, shows SCENE (shm buffers of known
 *       content), asks wp_presentation for the feedback of its last
 *       commit and prints "presented SEQ" when that content was presented
 *       (the compositor names its PNGs after that sequence number).
 *
 *   compositor-pixel-client check SCENE FILE FILTER X Y [X Y]...
 *       Computes the frame on the CPU: the background, the scene's
 *       buffers placed at the toplevel positions X,Y the compositor logged
 *       (in the order the toplevels were mapped), premultiplied "over"
 *       blending, then FILTER (none, or invert: the fake CUDA driver's
 *       ring_transform, 255 - r, g, b, alpha kept), and compares it with
 *       FILE, every pixel exactly. Exit 0 when equal, 1 with the first
 *       differences.
 *
 * Scenes:
 *   blend  an XRGB8888 toplevel (its X byte is garbage that must be
 *          ignored), then an ARGB8888 toplevel over it whose alpha runs
 *          from 0 to 255 (colours premultiplied, as wl_shm requires)
 *
 * Exit status 2 on usage or setup errors, 77 when the compositor lacks a
 * global the scene needs.
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <png.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <wayland-client.h>

#include "presentation-time-client-protocol.h"
#include "xdg-shell-client-protocol.h"

/* render.c's background. */
#define BG_R 32
#define BG_G 48
#define BG_B 64

#define MAX_LAYERS 8

/* The scene, as the compositor must draw it: layers bottom to top, each a
 * function of the output pixel that gives a premultiplied ARGB colour and
 * whether the layer covers that pixel. Both the client (to fill its
 * buffers) and the reference (to compose) use the same content
 * functions. */
struct layer {
	int x, y, w, h;                 /* on the output, surface size */
	bool opaque;                    /* XRGB8888 */
	uint32_t (*content)(int x, int y); /* surface-local, premultiplied */
};

/* Content ------------------------------------------------------------- */

/* Opaque: every channel differs from its neighbours' and the X byte is
 * not 0xff, so that a compositor that read it as alpha blends. */
static uint32_t
content_opaque(int x, int y)
{
	uint32_t r = (uint32_t)(x * 4) & 0xff, g = (uint32_t)(y * 5) & 0xff;
	uint32_t b = (uint32_t)(x ^ y) * 3 & 0xff, garbage = (uint32_t)(x * 7 + y) & 0x7f;

	return garbage << 24 | r << 16 | g << 8 | b;
}

/* Translucent: alpha 0 at the left edge, 255 at the right, colours
 * premultiplied (c <= a). The colour before premultiplying varies per
 * row, so that rows differ. */
static uint32_t
content_alpha(int x, int y)
{
	uint32_t a = (uint32_t)(x * 255 / 63);
	uint32_t r = 255, g = (uint32_t)(y * 5) & 0xff, b = (uint32_t)(255 - y * 3) & 0xff;

	r = (r * a + 127) / 255;
	g = (g * a + 127) / 255;
	b = (b * a + 127) / 255;
	return a << 24 | r << 16 | g << 8 | b;
}

/* Scenes: the layers in stacking order. Positions are the toplevels'
 * (filled in from the compositor's log in check mode). */
struct scene {
	const char *name;
	int nlayers;
	struct layer layers[MAX_LAYERS];
	int ntoplevels;
};

static const struct scene scenes[] = {
	{ "blend", 2, {
		{ 0, 0, 64, 48, true, content_opaque },
		{ 0, 0, 64, 48, false, content_alpha },
	  }, 2 },
};

static const struct scene *
scene_find(const char *name)
{
	for (size_t i = 0; i < sizeof(scenes) / sizeof(scenes[0]); i++)
		if (!strcmp(scenes[i].name, name))
			return &scenes[i];
	return NULL;
}

/* The reference ---------------------------------------------------------- */

/* x * y / 255, rounded to nearest: what GL's fixed-function blending
 * computes for unorm8 (1 - a) * dst, the result converted with
 * round-to-nearest (GL 4.6 / GLES 3.2, "Conversion from Floating-Point to
 * Normalized Fixed-Point"). Exact, so no tolerance is needed. */
static unsigned int
mul255(unsigned int x, unsigned int y)
{
	return (x * y * 2 + 255) / 510;
}

static int
check(const struct scene *sc, const char *file, const char *filter, int argc, char **argv)
{
	struct layer layers[MAX_LAYERS];
	png_image img;
	unsigned char *px;
	bool invert;
	unsigned long bad = 0;

	if (strcmp(filter, "none") && strcmp(filter, "invert")) {
		fprintf(stderr, "compositor-pixel-client: filter %s: none or invert\n", filter);
		return 2;
	}
	invert = !strcmp(filter, "invert");
	if (argc != 2 * sc->ntoplevels) {
		fprintf(stderr, "compositor-pixel-client: scene %s has %d toplevels: give as many "
			"X Y\n", sc->name, sc->ntoplevels);
		return 2;
	}
	memcpy(layers, sc->layers, sizeof(layers));
	for (int i = 0; i < sc->nlayers; i++) {
		/* Layer i belongs to toplevel i (subsurfaces add to it). */
		layers[i].x += atoi(argv[2 * i]);
		layers[i].y += atoi(argv[2 * i + 1]);
	}

	memset(&img, 0, sizeof(img));
	img.version = PNG_IMAGE_VERSION;
	if (!png_image_begin_read_from_file(&img, file)) {
		fprintf(stderr, "%s: %s\n", file, img.message);
		return 1;
	}
	img.format = PNG_FORMAT_RGBA;
	px = malloc(PNG_IMAGE_SIZE(img));
	if (!px || !png_image_finish_read(&img, NULL, px, 0, NULL)) {
		fprintf(stderr, "%s: cannot decode\n", file);
		free(px);
		png_image_free(&img);
		return 1;
	}
	for (int y = 0; y < (int)img.height; y++)
		for (int x = 0; x < (int)img.width; x++) {
			unsigned int want[4] = { BG_R, BG_G, BG_B, 255 };
			const unsigned char *got = px + ((size_t)y * img.width + (size_t)x) * 4;

			for (int i = 0; i < sc->nlayers; i++) {
				const struct layer *l = &layers[i];
				uint32_t v;
				unsigned int a;

				if (x < l->x || y < l->y || x >= l->x + l->w || y >= l->y + l->h)
					continue;
				v = l->content(x - l->x, y - l->y);
				a = l->opaque ? 255 : v >> 24;
				/* Premultiplied "over": src + (1 - src.a) * dst. */
				want[0] = (v >> 16 & 0xff) + mul255(want[0], 255 - a);
				want[1] = (v >> 8 & 0xff) + mul255(want[1], 255 - a);
				want[2] = (v & 0xff) + mul255(want[2], 255 - a);
			}
			if (invert)
				for (int c = 0; c < 3; c++)
					want[c] = 255 - want[c];
			if (got[0] != want[0] || got[1] != want[1] || got[2] != want[2] ||
			    got[3] != want[3]) {
				if (bad++ < 10)
					printf("FAIL: %s: pixel %d,%d is %d,%d,%d,%d, the reference %u,%u,%u,%u\n",
					       file, x, y, got[0], got[1], got[2], got[3], want[0], want[1],
					       want[2], want[3]);
			}
		}
	if (bad)
		printf("FAIL: %s: %lu pixels differ from the reference of scene %s\n", file, bad,
		       sc->name);
	free(px);
	return bad ? 1 : 0;
}

/* The client ----------------------------------------------------------- */

struct client {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wp_presentation *presentation;
};

struct buffer {
	struct wl_buffer *wl;
	uint32_t *data;
	size_t size;
};

struct window {
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	bool configured;
	struct buffer buffer;
};

static void
global(void *data, struct wl_registry *registry, uint32_t name, const char *iface,
       uint32_t version)
{
	struct client *c = data;

	if (!strcmp(iface, wl_compositor_interface.name))
		c->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (!strcmp(iface, wl_shm_interface.name))
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (!strcmp(iface, xdg_wm_base_interface.name))
		c->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
	else if (!strcmp(iface, wp_presentation_interface.name))
		c->presentation = wl_registry_bind(registry, name, &wp_presentation_interface, 1);
}

static void
global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = { global, global_remove };

static void
wm_base_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = { wm_base_ping };

/* A buffer of w x h filled from fn, in its own pool. */
static int
buffer_init(struct client *c, struct buffer *b, int w, int h, bool opaque,
	    uint32_t (*fn)(int x, int y))
{
	struct wl_shm_pool *pool;
	int fd = memfd_create("pixel-client", MFD_CLOEXEC);

	b->size = (size_t)w * (size_t)h * 4;
	if (fd < 0 || ftruncate(fd, (off_t)b->size) < 0) {
		perror("compositor-pixel-client: memfd");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	b->data = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (b->data == MAP_FAILED) {
		perror("compositor-pixel-client: mmap");
		close(fd);
		return -1;
	}
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			b->data[(size_t)y * (size_t)w + (size_t)x] = fn(x, y);
	pool = wl_shm_create_pool(c->shm, fd, (int32_t)b->size);
	b->wl = wl_shm_pool_create_buffer(pool, 0, w, h, w * 4,
					  opaque ? WL_SHM_FORMAT_XRGB8888 : WL_SHM_FORMAT_ARGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	return 0;
}

static void
buffer_fini(struct buffer *b)
{
	if (b->wl)
		wl_buffer_destroy(b->wl);
	if (b->data && b->data != MAP_FAILED)
		munmap(b->data, b->size);
	memset(b, 0, sizeof(*b));
}

static void
xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct window *w = data;

	xdg_surface_ack_configure(xdg_surface, serial);
	w->configured = true;
}

static const struct xdg_surface_listener xdg_surface_listener = { xdg_surface_configure };

static void
toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t w, int32_t h,
		   struct wl_array *states)
{
}

static void
toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
}

static const struct xdg_toplevel_listener toplevel_listener = { toplevel_configure,
								 toplevel_close };

/* A toplevel showing the layer's content: the initial commit, the
 * configure, then the buffer. */
static int
window_init(struct client *c, struct window *w, const struct layer *l)
{
	w->surface = wl_compositor_create_surface(c->compositor);
	w->xdg_surface = xdg_wm_base_get_xdg_surface(c->wm_base, w->surface);
	xdg_surface_add_listener(w->xdg_surface, &xdg_surface_listener, w);
	w->toplevel = xdg_surface_get_toplevel(w->xdg_surface);
	xdg_toplevel_add_listener(w->toplevel, &toplevel_listener, w);
	wl_surface_commit(w->surface);
	while (!w->configured)
		if (wl_display_dispatch(c->display) < 0)
			return -1;
	if (buffer_init(c, &w->buffer, l->w, l->h, l->opaque, l->content) < 0)
		return -1;
	wl_surface_attach(w->surface, w->buffer.wl, 0, 0);
	wl_surface_damage_buffer(w->surface, 0, 0, l->w, l->h);
	wl_surface_commit(w->surface);
	return 0;
}

static void
window_fini(struct window *w)
{
	if (w->toplevel)
		xdg_toplevel_destroy(w->toplevel);
	if (w->xdg_surface)
		xdg_surface_destroy(w->xdg_surface);
	if (w->surface)
		wl_surface_destroy(w->surface);
	buffer_fini(&w->buffer);
}

/* Presentation feedback of the last commit. */
struct feedback {
	bool done, presented;
	uint64_t seq;
};

static void
fb_sync_output(void *data, struct wp_presentation_feedback *fb, struct wl_output *output)
{
}

static void
fb_presented(void *data, struct wp_presentation_feedback *fb, uint32_t tv_sec_hi,
	     uint32_t tv_sec_lo, uint32_t tv_nsec, uint32_t refresh, uint32_t seq_hi,
	     uint32_t seq_lo, uint32_t flags)
{
	struct feedback *f = data;

	f->done = f->presented = true;
	f->seq = (uint64_t)seq_hi << 32 | seq_lo;
}

static void
fb_discarded(void *data, struct wp_presentation_feedback *fb)
{
	struct feedback *f = data;

	f->done = true;
}

static const struct wp_presentation_feedback_listener feedback_listener = {
	fb_sync_output, fb_presented, fb_discarded
};

/* Commit the surface's current buffer again (its whole content damaged,
 * nothing changes) with a feedback, until the compositor reports that a
 * frame with it was presented rather than dropped. */
static int
wait_presented(struct client *c, struct window *w, int bw, int bh, uint64_t *seq)
{
	for (;;) {
		struct feedback f = { 0 };
		struct wp_presentation_feedback *fb =
			wp_presentation_feedback(c->presentation, w->surface);

		wp_presentation_feedback_add_listener(fb, &feedback_listener, &f);
		wl_surface_attach(w->surface, w->buffer.wl, 0, 0);
		wl_surface_damage_buffer(w->surface, 0, 0, bw, bh);
		wl_surface_commit(w->surface);
		while (!f.done)
			if (wl_display_dispatch(c->display) < 0) {
				wp_presentation_feedback_destroy(fb);
				return -1;
			}
		wp_presentation_feedback_destroy(fb);
		if (f.presented) {
			*seq = f.seq;
			return 0;
		}
	}
}

static int
report_error(struct client *c)
{
	const struct wl_interface *iface = NULL;
	uint32_t id, code;
	int err = wl_display_get_error(c->display);

	if (err != EPROTO) {
		fprintf(stderr, "compositor-pixel-client: connection lost: %s\n", strerror(err));
		return 1;
	}
	code = wl_display_get_protocol_error(c->display, &iface, &id);
	fprintf(stderr, "compositor-pixel-client: protocol error: %s code %u\n",
		iface ? iface->name : "?", code);
	return 1;
}

static int
run(const struct scene *sc)
{
	struct client c = { 0 };
	struct window windows[MAX_LAYERS] = { 0 };
	int n = 0, ret = 1;
	uint64_t seq;

	c.display = wl_display_connect(NULL);
	if (!c.display) {
		fprintf(stderr, "compositor-pixel-client: cannot connect to the compositor\n");
		return 2;
	}
	c.registry = wl_display_get_registry(c.display);
	wl_registry_add_listener(c.registry, &registry_listener, &c);
	if (wl_display_roundtrip(c.display) < 0)
		goto out;
	if (!c.compositor || !c.shm || !c.wm_base || !c.presentation) {
		printf("compositor-pixel-client: no wl_compositor, wl_shm, xdg_wm_base or "
		       "wp_presentation\n");
		ret = 77;
		goto out;
	}
	xdg_wm_base_add_listener(c.wm_base, &wm_base_listener, NULL);

	for (n = 0; n < sc->ntoplevels; n++)
		if (window_init(&c, &windows[n], &sc->layers[n]) < 0)
			goto out;
	if (wait_presented(&c, &windows[n - 1], sc->layers[n - 1].w, sc->layers[n - 1].h,
			   &seq) < 0)
		goto out;
	printf("presented %llu\n", (unsigned long long)seq);
	ret = 0;
out:
	if (ret == 1 && wl_display_get_error(c.display))
		report_error(&c);
	for (int i = 0; i < MAX_LAYERS; i++)
		window_fini(&windows[i]);
	if (c.presentation)
		wp_presentation_destroy(c.presentation);
	if (c.wm_base)
		xdg_wm_base_destroy(c.wm_base);
	if (c.shm)
		wl_shm_destroy(c.shm);
	if (c.compositor)
		wl_compositor_destroy(c.compositor);
	wl_registry_destroy(c.registry);
	wl_display_disconnect(c.display);
	return ret;
}

int
main(int argc, char **argv)
{
	const struct scene *sc = argc > 2 ? scene_find(argv[2]) : NULL;

	if (sc && !strcmp(argv[1], "run") && argc == 3)
		return run(sc);
	if (sc && !strcmp(argv[1], "check") && argc >= 5)
		return check(sc, argv[3], argv[4], argc - 5, argv + 5);
	fprintf(stderr, "usage: compositor-pixel-client run SCENE\n"
		"       compositor-pixel-client check SCENE FILE none|invert X Y [X Y]...\n");
	return 2;
}
