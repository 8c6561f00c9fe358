/*
 * A Wayland client whose frames glcuda-compositor must reproduce exactly,
 * and the CPU reference of those frames, for tests/test-compositor.sh.
 *
 *   compositor-pixel-client run SCENE
 *       Connects to the compositor and shows SCENE (shm buffers of known
 *       content). For each state of the scene that is to be checked, it
 *       asks wp_presentation for the feedback of the commit that made it
 *       and prints "presented STATE SEQ" once a frame with it was
 *       presented (the compositor names its PNGs after that sequence
 *       number).
 *
 *   compositor-pixel-client check STATE FILE FILTER X Y [X Y]...
 *       Computes the frame of STATE on the CPU: the background, the
 *       state's buffers placed relative to the toplevel positions X,Y the
 *       compositor logged (in the order the toplevels were mapped), each
 *       surface pixel sampled from its buffer through the buffer scale and
 *       transform, premultiplied "over" blending, then FILTER (none, or
 *       invert: the fake CUDA driver's ring_transform, 255 - r, g, b,
 *       alpha kept), and compares it with FILE, every pixel exactly. Exit
 *       0 when equal, 1 with the first differences.
 *
 *   compositor-pixel-client globals
 *       Prints the interface name of each global the compositor
 *       advertises, one a line.
 *
 * Scenes (and the states checked):
 *   blend  an XRGB8888 toplevel (its X byte is garbage that must be
 *          ignored), then an ARGB8888 toplevel over it whose alpha runs
 *          from 0 to 255 (colours premultiplied, as wl_shm requires)
 *   sub    subsurfaces of a toplevel: positions, one placed below its
 *          parent, one moved above its sibling (sub.tree); a synchronized
 *          subsurface's new buffer and position wait for the parent's
 *          commit while a desynchronized one's apply at once
 *          (sub.cached); the parent's commit applies them (sub)
 *   xform  a toplevel at buffer scale 2, and subsurfaces with each of the
 *          8 buffer transforms, one of them at scale 2 too
 *   damage a toplevel at scale 2 and a subsurface at 90 degrees
 *          (damage.before); every pixel of their buffers changes but only
 *          rectangles are damaged, with damage_buffer and with damage in
 *          surface coordinates: only those may change in the frame
 *          (damage, then damage.sub)
 *   popup  a fullscreen toplevel and xdg popups: one placed by anchor,
 *          gravity and offset, one nested in it (both grabbing), one kept
 *          inside the output by a slide in x and a flip in y (popup);
 *          the last repositioned against the top left corner
 *          (popup.moved); the configures must say where, the toplevel's
 *          NULL buffer dismisses them all, topmost first
 *   viewport  subsurfaces with wp_viewport: a crop, a crop scaled down by
 *          2, a crop of a buffer at scale 2 and 90 degrees, a buffer
 *          stretched to a destination size (viewport); a new source
 *          rectangle committed without a buffer (viewport.moved); the
 *          viewport destroyed: the buffer's own size again
 *          (viewport.unset)
 *
 * Exit status 2 on usage or setup errors, 77 when the compositor lacks a
 * global the scene needs.
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

#include "compositor-client.h"
#include "viewporter-client-protocol.h"

/* render.c's background. */
#define BG_R 32
#define BG_G 48
#define BG_B 64

#define MAX_LAYERS 12

/* A surface as the compositor must draw it: its buffer's content as a
 * function of the buffer pixel (premultiplied ARGB), where it is relative
 * to a toplevel, its buffer scale and transform. The client fills its
 * buffers and the reference composes from the same functions. */
struct layer {
	int top;                        /* the toplevel it is placed on */
	int x, y;                       /* relative to that toplevel */
	int bw, bh;                     /* buffer size */
	int scale;                      /* 0: 1 */
	int transform;                  /* enum wl_output_transform */
	bool opaque;                    /* XRGB8888 */
	uint32_t (*content)(int bx, int by);
	/* wp_viewport source: x, y, w, h; w 0: none */
	int src[4];
	int dst_w, dst_h;               /* wp_viewport destination; 0: none */
	/* a toplevel: asks for fullscreen, at 0,0 */
	bool fullscreen;
};

/* Content ------------------------------------------------------------- */

/* Opaque: every channel differs from its neighbours' and the X byte is
 * not 0xff, so that a compositor that read it as alpha blends. Not
 * symmetric in any way, so that every transform shows. */
static uint32_t
content_opaque(int x, int y)
{
	uint32_t r = (uint32_t)(x * 4) & 0xff, g = (uint32_t)(y * 5) & 0xff;
	uint32_t b = (uint32_t)(x ^ y) * 3 & 0xff,
		 garbage = (uint32_t)(x * 7 + y) & 0x7f;

	return garbage << 24 | r << 16 | g << 8 | b;
}

static uint32_t
premultiply(uint32_t a, uint32_t r, uint32_t g, uint32_t b)
{
	r = (r * a + 127) / 255;
	g = (g * a + 127) / 255;
	b = (b * a + 127) / 255;
	return a << 24 | r << 16 | g << 8 | b;
}

/* Translucent: alpha 0 at the left edge, 255 at x = 63, colours
 * premultiplied (c <= a). The colour before premultiplying varies per
 * row, so that rows differ. */
static uint32_t
content_alpha(int x, int y)
{
	return premultiply((uint32_t)(x * 255 / 63) & 0xff, 255,
			   (uint32_t)(y * 5) & 0xff,
			   (uint32_t)(255 - y * 3) & 0xff);
}

/* Translucent, alpha by row: 0 at the top, 248 at y = 31. */
static uint32_t
content_alpha_rows(int x, int y)
{
	return premultiply((uint32_t)(y * 8) & 0xff, (uint32_t)(x * 8) & 0xff,
			   255, 64);
}

/* 4x4 checkers, with a garbage X byte. */
static uint32_t
content_checker(int x, int y)
{
	return (x / 4 + y / 4) % 2 ? 0x12ffe000 : 0x340020ff;
}

static uint32_t
content_checker2(int x, int y)
{
	return (x / 4 + y / 4) % 2 ? 0x56ff2020 : 0x7820c040;
}

/* Scale 2: the same value in each 2x2 block of the buffer. */
static uint32_t
content_blocks(int x, int y)
{
	return content_opaque(x / 2, y / 2);
}

static uint32_t
content_alpha_blocks(int x, int y)
{
	return content_alpha(x / 2 * 3, y / 2);
}

/* The damage scene: the toplevel's buffer (scale 2) is rewritten with
 * content_checker everywhere, but only buffer rectangle 16,8 40x24 and
 * surface rectangle 40,30 12x10 (buffer 80,60 24x20) are damaged; the
 * subsurface's (transform 90, surface 16x24) with content_checker2, and
 * only surface rectangle 2,4 6x8 is damaged: buffer 4,8 8x6 (x from the
 * surface's y, y from its width 16 minus x). Only the damaged pixels may
 * change. */
static bool
in_rect(int x, int y, int rx, int ry, int rw, int rh)
{
	return x >= rx && y >= ry && x < rx + rw && y < ry + rh;
}

static uint32_t
content_damaged_top(int x, int y)
{
	if (in_rect(x, y, 16, 8, 40, 24) || in_rect(x, y, 80, 60, 24, 20))
		return content_checker(x, y);
	return content_blocks(x, y);
}

static uint32_t
content_damaged_sub(int x, int y)
{
	return in_rect(x, y, 4, 8, 8, 6) ? content_checker2(x, y)
					 : content_opaque(x, y);
}

static uint32_t
content_flat(int x, int y)
{
	return 0xffc08040;
}

/* States: the layers in stacking order, bottom to top. */
struct state {
	const char *name;
	int ntoplevels;
	int nlayers;
	struct layer layers[MAX_LAYERS];
};

/* The sub scene's surfaces. */
#define SUB_T { 0, 0, 0, 96, 64, 1, 0, true, content_opaque }
#define SUB_C { 0, -8, -8, 16, 16, 1, 0, true, content_checker2 }
#define SUB_B1 { 0, 20, 16, 24, 24, 1, 0, true, content_checker }
#define SUB_B2 { 0, 20, 16, 24, 24, 1, 0, true, content_checker2 }
#define SUB_A1 { 0, 10, 8, 32, 32, 1, 0, false, content_alpha_rows }
#define SUB_A2 { 0, 50, 30, 32, 32, 1, 0, false, content_alpha }

static const struct state states[] = {
	{ "blend",
	  2,
	  2,
	  {
		  { 0, 0, 0, 64, 48, 1, 0, true, content_opaque },
		  { 1, 0, 0, 64, 48, 1, 0, false, content_alpha },
	  } },
	{ "sub.tree", 1, 4, { SUB_C, SUB_T, SUB_B1, SUB_A1 } },
	{ "sub.cached", 1, 4, { SUB_C, SUB_T, SUB_B2, SUB_A1 } },
	{ "sub", 1, 4, { SUB_C, SUB_T, SUB_B2, SUB_A2 } },
	/* A toplevel at scale 2 and, on it, a subsurface for each of the 8
	 * transforms, and one at scale 2 and 90 degrees. */
	{ "xform",
	  1,
	  10,
	  {
		  { 0, 0, 0, 256, 160, 2, WL_OUTPUT_TRANSFORM_NORMAL, true,
		    content_blocks },
		  { 0, 4, 4, 24, 16, 1, WL_OUTPUT_TRANSFORM_NORMAL, true,
		    content_opaque },
		  { 0, 34, 4, 24, 16, 1, WL_OUTPUT_TRANSFORM_90, false,
		    content_alpha },
		  { 0, 64, 4, 24, 16, 1, WL_OUTPUT_TRANSFORM_180, true,
		    content_opaque },
		  { 0, 94, 4, 24, 16, 1, WL_OUTPUT_TRANSFORM_270, false,
		    content_alpha },
		  { 0, 4, 34, 24, 16, 1, WL_OUTPUT_TRANSFORM_FLIPPED, true,
		    content_opaque },
		  { 0, 34, 34, 24, 16, 1, WL_OUTPUT_TRANSFORM_FLIPPED_90, false,
		    content_alpha },
		  { 0, 64, 34, 24, 16, 1, WL_OUTPUT_TRANSFORM_FLIPPED_180, true,
		    content_opaque },
		  { 0, 94, 34, 24, 16, 1, WL_OUTPUT_TRANSFORM_FLIPPED_270,
		    false, content_alpha },
		  { 0, 40, 60, 32, 48, 2, WL_OUTPUT_TRANSFORM_90, false,
		    content_alpha_blocks },
	  } },
	{ "damage.before",
	  1,
	  2,
	  {
		  { 0, 0, 0, 128, 96, 2, WL_OUTPUT_TRANSFORM_NORMAL, true,
		    content_blocks },
		  { 0, 2, 20, 24, 16, 1, WL_OUTPUT_TRANSFORM_90, true,
		    content_opaque },
	  } },
	{ "damage",
	  1,
	  2,
	  {
		  { 0, 0, 0, 128, 96, 2, WL_OUTPUT_TRANSFORM_NORMAL, true,
		    content_damaged_top },
		  { 0, 2, 20, 24, 16, 1, WL_OUTPUT_TRANSFORM_90, true,
		    content_opaque },
	  } },
/* Every sampled point is a buffer pixel's centre, or between pixels
	 * of equal value, or in a buffer of one colour: exact whatever GL's
	 * filtering. */
#define VP_T { 0, 0, 0, 128, 64, 1, 0, true, content_opaque }
#define VP_A(sx, sy)                                         \
	{                                                    \
		0, 4, 4, 64, 48, 1, 0, true, content_opaque, \
		{                                            \
			sx, sy, 20, 12                       \
		}                                            \
	}
#define VP_B                                                  \
	{                                                     \
		0, 30, 4, 64, 48, 1, 0, true, content_blocks, \
			{ 8, 4, 48, 32 }, 24, 16              \
	}
#define VP_C                                                        \
	{                                                           \
		0, 60, 4, 32, 48, 2, WL_OUTPUT_TRANSFORM_90, false, \
			content_alpha_blocks,                       \
		{                                                   \
			4, 2, 12, 10                                \
		}                                                   \
	}
#define VP_D { 0, 4, 40, 4, 4, 1, 0, true, content_flat, { 0 }, 40, 6 }
	{ "viewport", 1, 5, { VP_T, VP_A(10, 6), VP_B, VP_C, VP_D } },
	{ "viewport.moved", 1, 5, { VP_T, VP_A(30, 20), VP_B, VP_C, VP_D } },
	{ "viewport.unset",
	  1,
	  5,
	  { VP_T,
	    VP_A(30, 20),
	    { 0, 30, 4, 64, 48, 1, 0, true, content_blocks },
	    VP_C,
	    VP_D } },
	/* Where the positioner rules put the popups (run_popup checks the
	 * configures say so). */
#define PO_T                                                                \
	{                                                                   \
		0, 0, 0, 400, 320, 1, 0, true, content_opaque, { 0 }, 0, 0, \
			true                                                \
	}
#define PO_1 { 0, 32, 23, 40, 30, 1, 0, true, content_checker }
#define PO_2 { 0, 72, 30, 24, 16, 1, 0, false, content_alpha }
	{ "popup",
	  1,
	  4,
	  { PO_T,
	    PO_1,
	    PO_2,
	    { 0, 300, 220, 100, 60, 1, 0, true, content_checker2 } } },
	{ "popup.moved",
	  1,
	  4,
	  { PO_T,
	    PO_1,
	    PO_2,
	    { 0, 0, 0, 100, 60, 1, 0, true, content_checker2 } } },
	{ "damage.sub",
	  1,
	  2,
	  {
		  { 0, 0, 0, 128, 96, 2, WL_OUTPUT_TRANSFORM_NORMAL, true,
		    content_damaged_top },
		  { 0, 2, 20, 24, 16, 1, WL_OUTPUT_TRANSFORM_90, true,
		    content_damaged_sub },
	  } },
};

static const struct state *
state_find(const char *name)
{
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (!strcmp(states[i].name, name))
			return &states[i];
	return NULL;
}

static bool
transform_swaps(int transform)
{
	return transform & 1; /* 90, 270 and their flipped forms */
}

/* The surface size: the buffer's divided by the scale, rotated for 90
 * and 270. */
static void
layer_size_unviewported(const struct layer *l, int *w, int *h)
{
	int scale = l->scale ? l->scale : 1;

	*w = (transform_swaps(l->transform) ? l->bh : l->bw) / scale;
	*h = (transform_swaps(l->transform) ? l->bw : l->bh) / scale;
}

/* Then the viewport: its destination size, or its source's. */
static void
layer_size(const struct layer *l, int *w, int *h)
{
	if (l->dst_w) {
		*w = l->dst_w;
		*h = l->dst_h;
	} else if (l->src[2]) {
		*w = l->src[2];
		*h = l->src[3];
	} else {
		layer_size_unviewported(l, w, h);
	}
}

/* The buffer pixel that the surface pixel sx, sy shows: its centre
 * through the viewport (source rectangle over the surface size), then
 * the inverse of the buffer transform (wl_output.transform: the
 * client rendered the buffer rotated counter-clockwise and flipped, the
 * compositor undoes it), then the scale. Where the centre falls between
 * buffer pixels (at scale 2) the scenes make all of them equal, so GL's
 * linear filtering gives that value exactly. */
static void
layer_sample(const struct layer *l, int sx, int sy, int *bx, int *by)
{
	int w, h, vw, vh, scale = l->scale ? l->scale : 1;
	float x = (float)sx + 0.5f, y = (float)sy + 0.5f, u, v;

	layer_size(l, &vw, &vh);
	layer_size_unviewported(l, &w, &h);
	if (l->src[2]) {
		x = (float)l->src[0] + x * (float)l->src[2] / (float)vw;
		y = (float)l->src[1] + y * (float)l->src[3] / (float)vh;
	} else {
		x = x * (float)w / (float)vw;
		y = y * (float)h / (float)vh;
	}
	switch (l->transform) {
	default:
	case WL_OUTPUT_TRANSFORM_NORMAL:
		u = x;
		v = y;
		break;
	case WL_OUTPUT_TRANSFORM_90:
		u = y;
		v = (float)w - x;
		break;
	case WL_OUTPUT_TRANSFORM_180:
		u = (float)w - x;
		v = (float)h - y;
		break;
	case WL_OUTPUT_TRANSFORM_270:
		u = (float)h - y;
		v = x;
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED:
		u = (float)w - x;
		v = y;
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_90:
		u = y;
		v = x;
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_180:
		u = x;
		v = (float)h - y;
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_270:
		u = (float)h - y;
		v = (float)w - x;
		break;
	}
	*bx = (int)(u * (float)scale);
	*by = (int)(v * (float)scale);
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
check(const struct state *st, const char *file, const char *filter, int argc,
      char **argv)
{
	int top_x[MAX_LAYERS], top_y[MAX_LAYERS];
	png_image img;
	unsigned char *px;
	bool invert;
	unsigned long bad = 0;

	if (strcmp(filter, "none") && strcmp(filter, "invert")) {
		fprintf(stderr,
			"compositor-pixel-client: filter %s: none or invert\n",
			filter);
		return 2;
	}
	invert = !strcmp(filter, "invert");
	if (argc != 2 * st->ntoplevels) {
		fprintf(stderr,
			"compositor-pixel-client: %s has %d toplevels: give as "
			"many X Y\n",
			st->name, st->ntoplevels);
		return 2;
	}
	for (int i = 0; i < st->ntoplevels; i++) {
		top_x[i] = atoi(argv[2 * i]);
		top_y[i] = atoi(argv[2 * i + 1]);
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
			const unsigned char *got =
				px + ((size_t)y * img.width + (size_t)x) * 4;

			for (int i = 0; i < st->nlayers; i++) {
				const struct layer *l = &st->layers[i];
				int lx = top_x[l->top] + l->x,
				    ly = top_y[l->top] + l->y;
				int w, h, bx, by;
				uint32_t v;
				unsigned int a;

				layer_size(l, &w, &h);
				if (x < lx || y < ly || x >= lx + w ||
				    y >= ly + h)
					continue;
				layer_sample(l, x - lx, y - ly, &bx, &by);
				v = l->content(bx, by);
				a = l->opaque ? 255 : v >> 24;
				/* Premultiplied "over": src + (1 - src.a) *
				 * dst. */
				want[0] = (v >> 16 & 0xff) +
					  mul255(want[0], 255 - a);
				want[1] = (v >> 8 & 0xff) +
					  mul255(want[1], 255 - a);
				want[2] = (v & 0xff) + mul255(want[2], 255 - a);
			}
			if (invert)
				for (int c = 0; c < 3; c++)
					want[c] = 255 - want[c];
			if (got[0] != want[0] || got[1] != want[1] ||
			    got[2] != want[2] || got[3] != want[3]) {
				if (bad++ < 10)
					printf("FAIL: %s: pixel %d,%d is "
					       "%d,%d,%d,%d, the reference "
					       "%u,%u,%u,%u\n",
					       file, x, y, got[0], got[1],
					       got[2], got[3], want[0], want[1],
					       want[2], want[3]);
			}
		}
	if (bad)
		printf("FAIL: %s: %lu pixels differ from the reference of %s\n",
		       file, bad, st->name);
	free(px);
	return bad ? 1 : 0;
}

/* The client ----------------------------------------------------------- */

/* For surface_show: the viewporter, where the compositor has one. */
static struct wp_viewporter *viewporter;

struct buffer {
	struct wl_buffer *wl;
	uint32_t *data;
	size_t size;
	int w, h;
};

/* A surface: a toplevel (xdg objects) or a subsurface. */
struct window {
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	struct wl_subsurface *subsurface;
	struct wp_viewport *viewport;
	struct xdg_popup *popup;
	bool configured;
	int32_t popup_x, popup_y, popup_w, popup_h; /* its last configure */
	uint32_t repositioned;          /* the token of the last repositioned */
	int done;                       /* popup_done: its rank, from 1 */
};

static void
buffer_fill(struct buffer *b, uint32_t (*fn)(int x, int y))
{
	for (int y = 0; y < b->h; y++)
		for (int x = 0; x < b->w; x++)
			b->data[(size_t)y * (size_t)b->w + (size_t)x] =
				fn(x, y);
}

/* A buffer of the layer's size filled with its content, in its own
 * pool. */
static int
buffer_init(struct test_client *c, struct buffer *b, const struct layer *l)
{
	struct wl_shm_pool *pool;
	void *data;

	b->w = l->bw;
	b->h = l->bh;
	b->size = (size_t)b->w * (size_t)b->h * 4;
	pool = test_client_pool(c, b->size, &data);
	if (!pool)
		return -1;
	b->data = data;
	buffer_fill(b, l->content);
	b->wl = wl_shm_pool_create_buffer(pool, 0, b->w, b->h, b->w * 4,
					  l->opaque ? WL_SHM_FORMAT_XRGB8888
						    : WL_SHM_FORMAT_ARGB8888);
	wl_shm_pool_destroy(pool);
	return 0;
}

static void
buffer_fini(struct buffer *b)
{
	if (b->wl)
		wl_buffer_destroy(b->wl);
	if (b->data)
		munmap(b->data, b->size);
	memset(b, 0, sizeof(*b));
}

static void
xdg_surface_configure(void *data, struct xdg_surface *xdg_surface,
		      uint32_t serial)
{
	struct window *w = data;

	xdg_surface_ack_configure(xdg_surface, serial);
	w->configured = true;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	xdg_surface_configure
};

/* Attach the buffer with the layer's scale, transform and viewport, all
 * of it damaged. */
static void
surface_show(struct window *w, const struct layer *l, struct buffer *b)
{
	wl_surface_set_buffer_scale(w->surface, l->scale ? l->scale : 1);
	wl_surface_set_buffer_transform(w->surface, l->transform);
	if (l->src[2] || l->dst_w) {
		if (!w->viewport)
			w->viewport = wp_viewporter_get_viewport(viewporter,
								 w->surface);
		if (l->src[2])
			wp_viewport_set_source(w->viewport,
					       wl_fixed_from_int(l->src[0]),
					       wl_fixed_from_int(l->src[1]),
					       wl_fixed_from_int(l->src[2]),
					       wl_fixed_from_int(l->src[3]));
		if (l->dst_w)
			wp_viewport_set_destination(w->viewport, l->dst_w,
						    l->dst_h);
	}
	wl_surface_attach(w->surface, b->wl, 0, 0);
	wl_surface_damage_buffer(w->surface, 0, 0, b->w, b->h);
}

/* A toplevel showing the buffer: the initial commit, the configure, then
 * the buffer. */
static int
toplevel_init(struct test_client *c, struct window *w, const struct layer *l,
	      struct buffer *b)
{
	w->surface = wl_compositor_create_surface(c->compositor);
	w->xdg_surface = xdg_wm_base_get_xdg_surface(c->wm_base, w->surface);
	xdg_surface_add_listener(w->xdg_surface, &xdg_surface_listener, w);
	w->toplevel = xdg_surface_get_toplevel(w->xdg_surface);
	xdg_toplevel_add_listener(w->toplevel, &test_client_toplevel_ignored,
				  w);
	if (l->fullscreen)
		xdg_toplevel_set_fullscreen(w->toplevel, NULL);
	wl_surface_commit(w->surface);
	while (!w->configured)
		if (wl_display_dispatch(c->display) < 0)
			return -1;
	surface_show(w, l, b);
	wl_surface_commit(w->surface);
	return 0;
}

/* A subsurface of parent at the layer's position, the buffer committed
 * (cached until the parent commits: subsurfaces start synchronized). */
static void
subsurface_init(struct test_client *c, struct window *w, struct window *parent,
		const struct layer *l, struct buffer *b)
{
	w->surface = wl_compositor_create_surface(c->compositor);
	w->subsurface = wl_subcompositor_get_subsurface(c->subcompositor,
							w->surface,
							parent->surface);
	wl_subsurface_set_position(w->subsurface, l->x, l->y);
	surface_show(w, l, b);
	wl_surface_commit(w->surface);
}

static void
window_fini(struct window *w)
{
	if (w->viewport)
		wp_viewport_destroy(w->viewport);
	if (w->subsurface)
		wl_subsurface_destroy(w->subsurface);
	if (w->popup)
		xdg_popup_destroy(w->popup);
	if (w->toplevel)
		xdg_toplevel_destroy(w->toplevel);
	if (w->xdg_surface)
		xdg_surface_destroy(w->xdg_surface);
	if (w->surface)
		wl_surface_destroy(w->surface);
	memset(w, 0, sizeof(*w));
}

/* Presentation feedback of the last commit. */
struct feedback {
	bool done, presented;
	uint64_t seq;
};

static void
fb_sync_output(void *data, struct wp_presentation_feedback *fb,
	       struct wl_output *output)
{
}

static void
fb_presented(void *data, struct wp_presentation_feedback *fb,
	     uint32_t tv_sec_hi, uint32_t tv_sec_lo, uint32_t tv_nsec,
	     uint32_t refresh, uint32_t seq_hi, uint32_t seq_lo, uint32_t flags)
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

/* What a commit changes: do() is called before each try (a frame may be
 * dropped before it is presented: the same commit is made again). */
typedef void (*commit_fn)(struct window *w, void *data);

/* Commit with a presentation feedback, until a frame with the commit was
 * presented (rather than dropped), and print its sequence number. */
static int
present(struct test_client *c, struct window *w, commit_fn fn, void *data,
	const char *state)
{
	for (;;) {
		struct feedback f = { 0 };
		struct wp_presentation_feedback *fb =
			wp_presentation_feedback(c->presentation, w->surface);

		wp_presentation_feedback_add_listener(fb, &feedback_listener,
						      &f);
		fn(w, data);
		wl_surface_commit(w->surface);
		while (!f.done)
			if (wl_display_dispatch(c->display) < 0) {
				wp_presentation_feedback_destroy(fb);
				return -1;
			}
		wp_presentation_feedback_destroy(fb);
		if (f.presented) {
			printf("presented %s %llu\n", state,
			       (unsigned long long)f.seq);
			fflush(stdout);
			return 0;
		}
	}
}

struct reattach {
	const struct layer *layer;
	struct buffer *buffer;
};

/* The buffer again, all damaged: the same content or a new one. */
static void
commit_reattach(struct window *w, void *data)
{
	struct reattach *r = data;

	surface_show(w, r->layer, r->buffer);
}

static int
run_blend(struct test_client *c, struct window *win, struct buffer *buf)
{
	const struct state *st = state_find("blend");
	struct reattach r = { &st->layers[1], &buf[1] };

	for (int i = 0; i < 2; i++)
		if (buffer_init(c, &buf[i], &st->layers[i]) < 0 ||
		    toplevel_init(c, &win[i], &st->layers[i], &buf[i]) < 0)
			return -1;
	return present(c, &win[1], commit_reattach, &r, "blend");
}

static int
run_sub(struct test_client *c, struct window *win, struct buffer *buf)
{
	const struct state *tree = state_find("sub.tree"),
			   *fin = state_find("sub");
	const struct layer *lc = &tree->layers[0], *lt = &tree->layers[1];
	const struct layer *lb1 = &tree->layers[2], *la1 = &tree->layers[3];
	const struct layer *lb2 = &fin->layers[2], *la2 = &fin->layers[3];
	struct window *t = &win[0], *a = &win[1], *b = &win[2], *cw = &win[3];
	struct reattach rt = { lt, &buf[0] }, rb = { lb2, &buf[4] };

	if (buffer_init(c, &buf[0], lt) < 0 ||
	    buffer_init(c, &buf[1], la1) < 0 ||
	    buffer_init(c, &buf[2], lb1) < 0 ||
	    buffer_init(c, &buf[3], lc) < 0 ||
	    buffer_init(c, &buf[4], lb2) < 0 ||
	    buffer_init(c, &buf[5], la2) < 0 ||
	    toplevel_init(c, t, lt, &buf[0]) < 0)
		return -1;
	/* a, then b: b on top; then a above b, c below the parent. */
	subsurface_init(c, a, t, la1, &buf[1]);
	subsurface_init(c, b, t, lb1, &buf[2]);
	subsurface_init(c, cw, t, lc, &buf[3]);
	wl_subsurface_place_above(a->subsurface, b->surface);
	wl_subsurface_place_below(cw->subsurface, t->surface);
	if (present(c, t, commit_reattach, &rt, "sub.tree") < 0)
		return -1;

	/* a is synchronized: its new buffer and position wait for t. b is
	 * desynchronized: its commit applies at once. */
	wl_subsurface_set_position(a->subsurface, la2->x, la2->y);
	surface_show(a, la2, &buf[5]);
	wl_surface_commit(a->surface);
	wl_subsurface_set_desync(b->subsurface);
	if (present(c, b, commit_reattach, &rb, "sub.cached") < 0)
		return -1;

	/* t's commit applies a's cached state and position. */
	return present(c, t, commit_reattach, &rt, "sub");
}

/* A toplevel (the state's first layer) and its subsurfaces (the others,
 * in stacking order), shown with one commit of the toplevel. */
static int
run_tree(struct test_client *c, struct window *win, struct buffer *buf,
	 const char *name)
{
	const struct state *st = state_find(name);
	struct reattach r = { &st->layers[0], &buf[0] };

	if (buffer_init(c, &buf[0], &st->layers[0]) < 0 ||
	    toplevel_init(c, &win[0], &st->layers[0], &buf[0]) < 0)
		return -1;
	for (int i = 1; i < st->nlayers; i++) {
		if (buffer_init(c, &buf[i], &st->layers[i]) < 0)
			return -1;
		subsurface_init(c, &win[i], &win[0], &st->layers[i], &buf[i]);
	}
	return present(c, &win[0], commit_reattach, &r, name);
}

struct partial {
	struct buffer *buffer;
	int n;
	struct {
		bool buffer_coords;
		int x, y, w, h;
	} rects[2];
};

/* The buffer again, only some of it damaged. */
static void
commit_partial(struct window *w, void *data)
{
	struct partial *p = data;

	wl_surface_attach(w->surface, p->buffer->wl, 0, 0);
	for (int i = 0; i < p->n; i++)
		if (p->rects[i].buffer_coords)
			wl_surface_damage_buffer(w->surface, p->rects[i].x,
						 p->rects[i].y, p->rects[i].w,
						 p->rects[i].h);
		else
			wl_surface_damage(w->surface, p->rects[i].x,
					  p->rects[i].y, p->rects[i].w,
					  p->rects[i].h);
}

static int
run_damage(struct test_client *c, struct window *win, struct buffer *buf)
{
	struct partial top = { &buf[0],
			       2,
			       { { true, 16, 8, 40, 24 },
				 { false, 40, 30, 12, 10 } } };
	struct partial sub = { &buf[1], 1, { { false, 2, 4, 6, 8 } } };

	if (run_tree(c, win, buf, "damage.before") < 0)
		return -1;
	/* Released at once (the compositor copies): free to rewrite. All of
	 * it changes, some of it is damaged. */
	buffer_fill(&buf[0], content_checker);
	if (present(c, &win[0], commit_partial, &top, "damage") < 0)
		return -1;
	wl_subsurface_set_desync(win[1].subsurface);
	buffer_fill(&buf[1], content_checker2);
	return present(c, &win[1], commit_partial, &sub, "damage.sub");
}

static int
run_xform(struct test_client *c, struct window *win, struct buffer *buf)
{
	return run_tree(c, win, buf, "xform");
}

/* The viewport's new source rectangle, no new buffer. */
static void
commit_source(struct window *w, void *data)
{
	const struct layer *l = data;

	wp_viewport_set_source(w->viewport, wl_fixed_from_int(l->src[0]),
			       wl_fixed_from_int(l->src[1]),
			       wl_fixed_from_int(l->src[2]),
			       wl_fixed_from_int(l->src[3]));
}

/* The viewport goes: the surface takes its buffer's size again. */
static void
commit_unset(struct window *w, void *data)
{
	if (w->viewport)
		wp_viewport_destroy(w->viewport);
	w->viewport = NULL;
}

static int
run_viewport(struct test_client *c, struct window *win, struct buffer *buf)
{
	if (!c->viewporter) {
		printf("compositor-pixel-client: no wp_viewporter\n");
		return 77;
	}
	if (run_tree(c, win, buf, "viewport") < 0)
		return -1;
	wl_subsurface_set_desync(win[1].subsurface);
	wl_subsurface_set_desync(win[2].subsurface);
	if (present(c, &win[1], commit_source,
		    (void *)&state_find("viewport.moved")->layers[1],
		    "viewport.moved") < 0)
		return -1;
	return present(c, &win[2], commit_unset, NULL, "viewport.unset");
}

/* Popups ---------------------------------------------------------------- */

static int popups_done;

static void
popup_configure(void *data, struct xdg_popup *popup, int32_t x, int32_t y,
		int32_t w, int32_t h)
{
	struct window *win = data;

	win->popup_x = x, win->popup_y = y, win->popup_w = w, win->popup_h = h;
}

static void
popup_done(void *data, struct xdg_popup *popup)
{
	struct window *win = data;

	win->done = ++popups_done;
}

static void
popup_repositioned(void *data, struct xdg_popup *popup, uint32_t token)
{
	struct window *win = data;

	win->repositioned = token;
}

static const struct xdg_popup_listener popup_listener = { popup_configure,
							  popup_done,
							  popup_repositioned };

struct popup_rule {
	int w, h;
	int ax, ay, aw, ah;
	uint32_t anchor, gravity, constraint;
	int off_x, off_y;
};

static struct xdg_positioner *
positioner_new(struct test_client *c, const struct popup_rule *r)
{
	struct xdg_positioner *p = xdg_wm_base_create_positioner(c->wm_base);

	xdg_positioner_set_size(p, r->w, r->h);
	xdg_positioner_set_anchor_rect(p, r->ax, r->ay, r->aw, r->ah);
	xdg_positioner_set_anchor(p, r->anchor);
	xdg_positioner_set_gravity(p, r->gravity);
	xdg_positioner_set_constraint_adjustment(p, r->constraint);
	xdg_positioner_set_offset(p, r->off_x, r->off_y);
	return p;
}

/* Wait for the configure; it must place the popup at the layer's
 * position (relative to the toplevel at 0,0: the parent's, for a
 * nested one, is px, py). */
static int
popup_wait_configure(struct test_client *c, struct window *w,
		     const struct layer *l, int px, int py)
{
	while (!w->configured)
		if (wl_display_dispatch(c->display) < 0)
			return -1;
	if (w->popup_x != l->x - px || w->popup_y != l->y - py ||
	    w->popup_w != l->bw || w->popup_h != l->bh) {
		printf("FAIL: popup configured at %d,%d %dx%d, the rules say "
		       "%d,%d %dx%d\n",
		       w->popup_x, w->popup_y, w->popup_w, w->popup_h,
		       l->x - px, l->y - py, l->bw, l->bh);
		return -1;
	}
	return 0;
}

/* A popup of parent placed by the rule, configured where the layer
 * is, showing the buffer (committed). */
static int
popup_init(struct test_client *c, struct window *w, struct window *parent,
	   const struct popup_rule *r, bool grab, const struct layer *l,
	   struct buffer *b, int px, int py)
{
	struct xdg_positioner *pos = positioner_new(c, r);

	w->surface = wl_compositor_create_surface(c->compositor);
	w->xdg_surface = xdg_wm_base_get_xdg_surface(c->wm_base, w->surface);
	xdg_surface_add_listener(w->xdg_surface, &xdg_surface_listener, w);
	w->popup =
		xdg_surface_get_popup(w->xdg_surface, parent->xdg_surface, pos);
	xdg_popup_add_listener(w->popup, &popup_listener, w);
	xdg_positioner_destroy(pos);
	if (grab)
		xdg_popup_grab(w->popup, c->seat, 0);
	wl_surface_commit(w->surface);
	if (popup_wait_configure(c, w, l, px, py) < 0)
		return -1;
	surface_show(w, l, b);
	return 0;
}

static void
commit_nothing(struct window *w, void *data)
{
}

static int
run_popup(struct test_client *c, struct window *win, struct buffer *buf)
{
	const struct state *st = state_find("popup"),
			   *moved = state_find("popup.moved");
	const struct layer *l = st->layers;
	static const struct popup_rule r1 = {
		40,
		30,
		10,
		10,
		20,
		10,
		XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT,
		XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT,
		0,
		2,
		3
	};
	static const struct popup_rule r2 = { 24,
					      16,
					      0,
					      0,
					      40,
					      30,
					      XDG_POSITIONER_ANCHOR_RIGHT,
					      XDG_POSITIONER_GRAVITY_RIGHT,
					      0,
					      0,
					      0 };
	/* Off the output's right and bottom edges: slid back in x, flipped
	 * above the anchor in y. */
	static const struct popup_rule r3 = {
		100,
		60,
		340,
		280,
		20,
		20,
		XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT,
		XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT,
		XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_X |
			XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_Y,
		0,
		0
	};
	/* Off the top left corner: slid in both. */
	static const struct popup_rule r4 = {
		100,
		60,
		0,
		0,
		20,
		20,
		XDG_POSITIONER_ANCHOR_TOP_LEFT,
		XDG_POSITIONER_GRAVITY_TOP_LEFT,
		XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_X |
			XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_Y,
		0,
		0
	};
	struct xdg_positioner *pos;
	struct reattach rp = { &l[3], &buf[3] };

	if (!c->seat || xdg_wm_base_get_version(c->wm_base) < 3) {
		printf("compositor-pixel-client: no wl_seat or xdg_wm_base "
		       "version 3\n");
		return 77;
	}
	for (int i = 0; i < 4; i++)
		if (buffer_init(c, &buf[i], &l[i]) < 0)
			return -1;
	if (toplevel_init(c, &win[0], &l[0], &buf[0]) < 0 ||
	    popup_init(c, &win[1], &win[0], &r1, true, &l[1], &buf[1], 0, 0) <
		    0)
		return -1;
	wl_surface_commit(win[1].surface);
	if (popup_init(c, &win[2], &win[1], &r2, true, &l[2], &buf[2], l[1].x,
		       l[1].y) < 0)
		return -1;
	wl_surface_commit(win[2].surface);
	if (popup_init(c, &win[3], &win[0], &r3, false, &l[3], &buf[3], 0, 0) <
		    0 ||
	    present(c, &win[3], commit_reattach, &rp, "popup") < 0)
		return -1;

	/* Repositioned: repositioned, configure, and the new place once
	 * acked. */
	win[3].configured = false;
	pos = positioner_new(c, &r4);
	xdg_popup_reposition(win[3].popup, pos, 7);
	xdg_positioner_destroy(pos);
	if (popup_wait_configure(c, &win[3], &moved->layers[3], 0, 0) < 0)
		return -1;
	if (win[3].repositioned != 7) {
		printf("FAIL: repositioned with token %u, not 7\n",
		       win[3].repositioned);
		return -1;
	}
	if (present(c, &win[3], commit_nothing, NULL, "popup.moved") < 0)
		return -1;

	/* The toplevel unmapped: every popup dismissed, the nested one
	 * before its parent. */
	wl_surface_attach(win[0].surface, NULL, 0, 0);
	wl_surface_commit(win[0].surface);
	while (popups_done < 3)
		if (wl_display_dispatch(c->display) < 0)
			return -1;
	if (win[2].done > win[1].done) {
		printf("FAIL: popup_done for the nested popup came after its "
		       "parent's\n");
		return -1;
	}
	printf("popups dismissed, topmost first\n");
	return 0;
}

static const struct {
	const char *name;
	int (*run)(struct test_client *c, struct window *win,
		   struct buffer *buf);
} scenes[] = {
	{ "blend", run_blend },
	{ "sub", run_sub },
	{ "xform", run_xform },
	{ "damage", run_damage },
	{ "viewport", run_viewport },
	{ "popup", run_popup },
};

#define MAX_BUFFERS 16

static int
run(const char *scene)
{
	struct test_client c;
	struct window win[MAX_LAYERS] = { 0 };
	struct buffer buf[MAX_BUFFERS] = { 0 };
	int (*fn)(struct test_client * c, struct window * win,
		  struct buffer * buf) = NULL;
	int ret = 1;

	for (size_t i = 0; i < sizeof(scenes) / sizeof(scenes[0]); i++)
		if (!strcmp(scenes[i].name, scene))
			fn = scenes[i].run;
	if (!fn) {
		fprintf(stderr, "compositor-pixel-client: no scene %s\n",
			scene);
		return 2;
	}
	if (test_client_connect(&c, "compositor-pixel-client") < 0)
		return 2;
	if (!c.compositor || !c.subcompositor || !c.shm || !c.wm_base ||
	    !c.presentation) {
		printf("compositor-pixel-client: no wl_compositor, "
		       "wl_subcompositor, wl_shm, xdg_wm_base or "
		       "wp_presentation\n");
		ret = 77;
		goto out;
	}
	viewporter = c.viewporter;
	ret = fn(&c, win, buf);
	ret = ret == 77 ? 77 : ret == 0 ? 0 : 1;
out:
	if (ret == 1 && wl_display_get_error(c.display))
		test_client_report_error(&c);
	/* Children first: a subsurface's surface before its parent's. */
	for (int i = MAX_LAYERS - 1; i >= 0; i--)
		window_fini(&win[i]);
	for (int i = 0; i < MAX_BUFFERS; i++)
		buffer_fini(&buf[i]);
	test_client_disconnect(&c);
	return ret;
}

static void
global_print(void *data, struct wl_registry *registry, uint32_t name,
	     const char *iface, uint32_t version)
{
	printf("%s\n", iface);
}

static void
global_print_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener print_listener = {
	global_print, global_print_remove
};

static int
globals(void)
{
	struct wl_display *display = wl_display_connect(NULL);
	struct wl_registry *registry;
	int ret;

	if (!display) {
		fprintf(stderr, "compositor-pixel-client: cannot connect to "
				"the compositor\n");
		return 2;
	}
	registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &print_listener, NULL);
	ret = wl_display_roundtrip(display) < 0 ? 1 : 0;
	wl_registry_destroy(registry);
	wl_display_disconnect(display);
	return ret;
}

int
main(int argc, char **argv)
{
	const struct state *st = argc > 2 ? state_find(argv[2]) : NULL;

	if (argc == 2 && !strcmp(argv[1], "globals"))
		return globals();
	if (argc == 3 && !strcmp(argv[1], "run"))
		return run(argv[2]);
	if (st && argc >= 5 && !strcmp(argv[1], "check"))
		return check(st, argv[3], argv[4], argc - 5, argv + 5);
	fprintf(stderr, "usage: compositor-pixel-client globals\n"
			"       compositor-pixel-client run SCENE\n"
			"       compositor-pixel-client check STATE FILE "
			"none|invert X Y [X Y]...\n");
	return 2;
}
