/*
 * A Wayland client that checks rules glcuda-compositor promises in the
 * protocols' text and its documentation, for tests/test-compositor-rules.sh.
 * Each mode prints what it saw; "FAIL: ..." when that breaks the rule.
 *
 *   compositor-rules-client popup-flip OUTPUT_W
 *       xdg_positioner with flip_x only: a popup that runs past the
 *       output's left or right edge is placed with its anchor and gravity
 *       mirrored on the x axis, corners included (bottom_right becomes
 *       bottom_left: still bottom), the y position unchanged
 *   compositor-rules-client popup-slide OUTPUT_W OUTPUT_H CTL
 *       xdg_positioner with slide_x (then slide_y) only: a popup of a
 *       window away from the output's origin that runs past the output's
 *       right (bottom) edge moves back just enough, its far edge on the
 *       output's: at output width - popup width - the window's x (height,
 *       y), relative to the window; the other axis as asked
 *   compositor-rules-client viewport-edge x|y
 *       wp_viewport: a source rectangle that ends exactly on the buffer's
 *       edge is legal (the window maps at its size and is drawn); one that
 *       ends 1/256 pixel past it on the x or y axis is out_of_buffer
 *   compositor-rules-client subsurface-chains
 *       two chains of 40 subsurface levels, one joined under the other:
 *       the tree would be 81 levels deep, more than the compositor's 64:
 *       wl_subcompositor.bad_surface
 *   compositor-rules-client upload-budget HZ CTL
 *       an 8192x8192 shm buffer is shown no sooner than the refreshes
 *       that the budget of doc/compositor.md gives at HZ (output frame
 *       numbers: CTL's frame before the commit, wp_presentation's once
 *       shown); meanwhile a second client asking for a frame callback at
 *       each of its callbacks gets at most one a refresh: more than an
 *       upload at 8 MiB a refresh would give, as many as the budget does
 *   compositor-rules-client click-focus CTL
 *       two clients' windows; CTL (glcuda-compositor-ctl) clicks on the
 *       older one (not the focused, newest) and types a key: the older
 *       window's client gets wl_keyboard.enter, then the key; the other
 *       gets leave and no key
 *   compositor-rules-client topmost CTL
 *       two windows whose titles both contain the name asked for: the
 *       control socket's wait-window and focus act on the topmost (the
 *       newer); once it is closed, on the one left
 *   compositor-rules-client input-region-reset CTL
 *       wl_surface.set_input_region(NULL) after a region was set: the
 *       input region is infinite again (the pointer, moved by CTL, enters
 *       the whole surface), not empty, not the region set before
 *   compositor-rules-client desync-under-sync CTL
 *       wl_subsurface: a desynchronized subsurface under a synchronized
 *       one behaves as synchronized: its commit is cached until its
 *       parent's state is applied, which the parent's own commit only
 *       caches and its parent's (the root's) commit applies; seen by
 *       which surface the pointer enters over the subsurface's buffer
 *   compositor-rules-client unconfigured-buffer
 *       xdg_surface: a buffer committed after the initial commit, once the
 *       configure has come but before it is acked, is unconfigured_buffer
 *
 * Exit status 0 when the compositor kept the rule, 1 when not, 2 on usage
 * or setup errors.
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compositor-client.h"

#define PROG "compositor-rules-client"

/* Buffers and windows ------------------------------------------------------ */

/* A w x h ARGB8888 buffer of one colour (the memfd's zeroes when big). */
static struct wl_buffer *
buffer_new(struct test_client *c, int32_t w, int32_t h, bool fill)
{
	size_t size = (size_t)w * (size_t)h * 4;
	void *data;
	struct wl_shm_pool *pool = test_client_pool(c, size, &data);
	struct wl_buffer *b;

	if (!pool)
		exit(2);
	if (fill)
		memset(data, 0xff, size);
	munmap(data, size);
	b = wl_shm_pool_create_buffer(pool, 0, w, h, w * 4,
				      WL_SHM_FORMAT_ARGB8888);
	wl_shm_pool_destroy(pool);
	return b;
}

/* A toplevel titled title (app_id app_id), mapped with a w x h buffer;
 * before that commit, set_up (when not NULL) adds to its state. -1 when
 * the connection broke. */
static int
window_map(struct test_toplevel *win, struct test_client *c,
	   const char *app_id, const char *title, int32_t w, int32_t h,
	   void (*set_up)(struct test_client *c, struct test_toplevel *win))
{
	memset(win, 0, sizeof(*win));
	win->surface = wl_compositor_create_surface(c->compositor);
	win->xdg_surface =
		xdg_wm_base_get_xdg_surface(c->wm_base, win->surface);
	xdg_surface_add_listener(win->xdg_surface, &test_client_configure_acked,
				 &win->serial);
	win->toplevel = xdg_surface_get_toplevel(win->xdg_surface);
	xdg_toplevel_add_listener(win->toplevel, &test_client_toplevel_ignored,
				  NULL);
	xdg_toplevel_set_app_id(win->toplevel, app_id);
	xdg_toplevel_set_title(win->toplevel, title);
	wl_surface_commit(win->surface);
	while (!win->serial)
		if (wl_display_dispatch(c->display) < 0)
			return -1;
	win->buffer = buffer_new(c, w, h, true);
	if (set_up)
		set_up(c, win);
	wl_surface_attach(win->surface, win->buffer, 0, 0);
	wl_surface_commit(win->surface);
	return wl_display_roundtrip(c->display) < 0 ? -1 : 0;
}

/* Unmapped and gone (the toplevel closed). */
static void
window_destroy(struct test_toplevel *win)
{
	if (win->toplevel)
		xdg_toplevel_destroy(win->toplevel);
	if (win->xdg_surface)
		xdg_surface_destroy(win->xdg_surface);
	if (win->surface)
		wl_surface_destroy(win->surface);
	if (win->buffer)
		wl_buffer_destroy(win->buffer);
	memset(win, 0, sizeof(*win));
}

/* The control socket ------------------------------------------------------- */

/* CTL's answer to command (its data lines and what follows "ok") in out,
 * or -1 when it failed; then a round trip on each display given, so that
 * whatever the compositor sent them while it ran is here. */
static int
ctl(const char *prog, const char *command, char *out, size_t size,
    struct test_client *a, struct test_client *b)
{
	char line[512];
	size_t n = 0;
	FILE *p;

	snprintf(line, sizeof(line), "%s %s", prog, command);
	p = popen(line, "r");
	if (!p) {
		printf("FAIL: cannot run %s\n", line);
		return -1;
	}
	if (out && size)
		n = fread(out, 1, size - 1, p);
	else
		while (fgetc(p) != EOF)
			;
	if (out && size)
		out[n] = '\0';
	if (pclose(p) != 0) {
		printf("FAIL: %s failed\n", line);
		return -1;
	}
	if ((a && wl_display_roundtrip(a->display) < 0) ||
	    (b && wl_display_roundtrip(b->display) < 0))
		return -1;
	return 0;
}

/* The keyboard ------------------------------------------------------------- */

/* What one client's keyboard saw, in order: "e" enter, "l" leave, "k" a
 * key (press or release), each once per event. */
struct keys {
	struct wl_keyboard *keyboard;
	struct wl_surface *focus;
	char log[64];
	size_t len;
};

static void
keys_add(struct keys *k, char what)
{
	if (k->len < sizeof(k->log) - 1)
		k->log[k->len++] = what;
	k->log[k->len] = '\0';
}

static void
kb_keymap(void *data, struct wl_keyboard *kb, uint32_t format, int32_t fd,
	  uint32_t size)
{
	close(fd);
}

static void
kb_enter(void *data, struct wl_keyboard *kb, uint32_t serial,
	 struct wl_surface *s, struct wl_array *pressed)
{
	struct keys *k = data;

	k->focus = s;
	keys_add(k, 'e');
}

static void
kb_leave(void *data, struct wl_keyboard *kb, uint32_t serial,
	 struct wl_surface *s)
{
	struct keys *k = data;

	k->focus = NULL;
	keys_add(k, 'l');
}

static void
kb_key(void *data, struct wl_keyboard *kb, uint32_t serial, uint32_t time,
       uint32_t key, uint32_t state)
{
	keys_add(data, 'k');
}

static void
kb_modifiers(void *data, struct wl_keyboard *kb, uint32_t serial,
	     uint32_t depressed, uint32_t latched, uint32_t locked,
	     uint32_t group)
{
}

static void
kb_repeat_info(void *data, struct wl_keyboard *kb, int32_t rate, int32_t delay)
{
}

static const struct wl_keyboard_listener kb_listener = {
	kb_keymap, kb_enter, kb_leave, kb_key, kb_modifiers, kb_repeat_info
};

static void
keys_init(struct keys *k, struct test_client *c)
{
	memset(k, 0, sizeof(*k));
	k->keyboard = wl_seat_get_keyboard(c->seat);
	wl_keyboard_add_listener(k->keyboard, &kb_listener, k);
}

static void
keys_clear(struct keys *k)
{
	k->len = 0;
	k->log[0] = '\0';
}

/* A second connection with a window of its own, and both keyboards. */
struct two {
	struct test_client other;
	struct test_toplevel older, newer;
	struct keys older_keys, newer_keys;
};

/* The older window (this connection's) mapped first, then the newer (a
 * second connection's), each titled title, app_ids APP-older and
 * APP-newer. */
static int
two_map(struct two *t, struct test_client *c, const char *title)
{
	if (test_client_connect(&t->other, PROG " (second client)") < 0)
		return -1;
	keys_init(&t->older_keys, c);
	keys_init(&t->newer_keys, &t->other);
	if (window_map(&t->older, c, "rules-older", title, 32, 32, NULL) < 0 ||
	    window_map(&t->newer, &t->other, "rules-newer", title, 32, 32,
		       NULL) < 0 ||
	    wl_display_roundtrip(c->display) < 0)
		return -1;
	return 0;
}

static void
two_free(struct two *t)
{
	window_destroy(&t->older);
	window_destroy(&t->newer);
	if (t->older_keys.keyboard)
		wl_keyboard_destroy(t->older_keys.keyboard);
	if (t->newer_keys.keyboard)
		wl_keyboard_destroy(t->newer_keys.keyboard);
	test_client_disconnect(&t->other);
}

/* Popups flipped on the x axis --------------------------------------------- */

struct placed {
	int32_t x, y;
	bool configured;
};

static void
popup_configure(void *data, struct xdg_popup *popup, int32_t x, int32_t y,
		int32_t w, int32_t h)
{
	struct placed *p = data;

	p->x = x, p->y = y;
	p->configured = true;
}

static void
popup_done(void *data, struct xdg_popup *popup)
{
}

static void
popup_repositioned(void *data, struct xdg_popup *popup, uint32_t token)
{
}

static const struct xdg_popup_listener popup_listener = { popup_configure,
							  popup_done,
							  popup_repositioned };

/* Where the popup of parent goes: its configure's position. */
static int
popup_place(struct test_client *c, struct test_toplevel *parent,
	    struct xdg_positioner *pos, struct placed *out)
{
	struct wl_surface *s = wl_compositor_create_surface(c->compositor);
	struct xdg_surface *xs = xdg_wm_base_get_xdg_surface(c->wm_base, s);
	struct xdg_popup *popup =
		xdg_surface_get_popup(xs, parent->xdg_surface, pos);
	uint32_t serial = 0;
	int ret = 0;

	xdg_surface_add_listener(xs, &test_client_configure_acked, &serial);
	xdg_popup_add_listener(popup, &popup_listener, out);
	out->configured = false;
	wl_surface_commit(s);
	while (!out->configured)
		if (wl_display_dispatch(c->display) < 0) {
			ret = -1;
			break;
		}
	xdg_popup_destroy(popup);
	xdg_surface_destroy(xs);
	wl_surface_destroy(s);
	return ret;
}

/* The parent window's position on the output (the control socket's
 * windows: one window, "X Y W H APP_ID TITLE"). */
static int
window_position(const char *ctl_prog, struct test_client *c, int *x, int *y)
{
	char out[256];

	if (ctl(ctl_prog, "windows", out, sizeof(out), c, NULL) < 0 ||
	    sscanf(out, "%d %d", x, y) != 2) {
		printf("FAIL: no window position from windows\n");
		return -1;
	}
	return 0;
}

static int
run_popup_flip(struct test_client *c, int output_w, const char *ctl_prog)
{
	/* In the parent's window geometry (360x200): an anchor rectangle
	 * near its right edge, one near its left; a 100x30 popup. Placed as
	 * asked it runs past the output's edge; mirrored it fits. */
	static const struct {
		const char *name;
		uint32_t corner; /* anchor and gravity */
		int32_t rect_x;
		int32_t want_x, want_y; /* mirrored on x; y as asked */
	} cases[] = {
		{ "bottom_right", XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT, 300,
		  300 - 100, 20 + 20 },
		{ "top_right", XDG_POSITIONER_ANCHOR_TOP_RIGHT, 300, 300 - 100,
		  20 - 30 },
		{ "bottom_left", XDG_POSITIONER_ANCHOR_BOTTOM_LEFT, 10, 10 + 40,
		  20 + 20 },
		{ "top_left", XDG_POSITIONER_ANCHOR_TOP_LEFT, 10, 10 + 40,
		  20 - 30 },
	};
	struct test_toplevel parent;
	int px, py, ret = 0;

	if (window_map(&parent, c, "rules-popup-parent", "popup parent", 360,
		       200, NULL) < 0 ||
	    window_position(ctl_prog, c, &px, &py) < 0)
		return 1;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct xdg_positioner *pos =
			xdg_wm_base_create_positioner(c->wm_base);
		int32_t x = cases[i].rect_x;
		bool left =
			cases[i].corner == XDG_POSITIONER_ANCHOR_BOTTOM_LEFT ||
			cases[i].corner == XDG_POSITIONER_ANCHOR_TOP_LEFT;
		/* Where it would go unflipped: past the output's edge. */
		int32_t asked = left ? x - 100 : x + 40;
		struct placed got;

		if (px + asked >= 0 && px + asked + 100 <= output_w) {
			printf("FAIL: the parent at %d,%d: the %s popup would "
			       "fit unflipped\n",
			       px, py, cases[i].name);
			ret = 1;
		}
		xdg_positioner_set_size(pos, 100, 30);
		xdg_positioner_set_anchor_rect(pos, x, 20, 40, 20);
		xdg_positioner_set_anchor(pos, cases[i].corner);
		xdg_positioner_set_gravity(pos, cases[i].corner);
		xdg_positioner_set_constraint_adjustment(
			pos, XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_X);
		if (popup_place(c, &parent, pos, &got) < 0) {
			xdg_positioner_destroy(pos);
			ret = 1;
			break;
		}
		xdg_positioner_destroy(pos);
		printf("popup %s flipped on x: at %d,%d\n", cases[i].name,
		       got.x, got.y);
		if (got.x != cases[i].want_x || got.y != cases[i].want_y) {
			printf("FAIL: popup %s: expected %d,%d (anchor and "
			       "gravity mirrored on x only)\n", cases[i].name,
			       cases[i].want_x, cases[i].want_y);
			ret = 1;
		}
	}
	window_destroy(&parent);
	return ret;
}

/* Popups slid back from the output's far edges ----------------------------- */

static int
run_popup_slide(struct test_client *c, int output_w, int output_h,
		const char *ctl_prog)
{
	/* In the parent's window geometry (360x200), anchor and gravity
	 * bottom_right: on x, an anchor rectangle near its right edge and a
	 * 100x30 popup; on y, one near its bottom and a 100x100 popup. As
	 * asked each runs past the output's far edge on its axis only. */
	static const struct {
		const char *axis;
		uint32_t slide;
		int32_t rect_x, rect_y, w, h;
	} cases[] = {
		{ "x", XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_X, 300, 20,
		  100, 30 },
		{ "y", XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_Y, 10, 180,
		  100, 100 },
	};
	struct test_toplevel parent;
	int px, py, ret = 0;

	if (window_map(&parent, c, "rules-popup-slide", "popup parent", 360,
		       200, NULL) < 0 ||
	    window_position(ctl_prog, c, &px, &py) < 0)
		return 1;
	/* At the origin, forgetting the parent's position would not show. */
	if (px <= 0 || py <= 0) {
		printf("FAIL: the parent at %d,%d, not away from the output's "
		       "origin\n", px, py);
		window_destroy(&parent);
		return 1;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct xdg_positioner *pos =
			xdg_wm_base_create_positioner(c->wm_base);
		bool on_x = cases[i].slide ==
			    XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_X;
		/* As asked: below and right of the rectangle's corner. */
		int32_t asked_x = cases[i].rect_x + 40;
		int32_t asked_y = cases[i].rect_y + 20;
		int32_t want_x = on_x ? output_w - cases[i].w - px : asked_x;
		int32_t want_y = on_x ? asked_y : output_h - cases[i].h - py;
		struct placed got;

		if (on_x ? px + asked_x + cases[i].w <= output_w ||
				   py + asked_y + cases[i].h > output_h
			 : py + asked_y + cases[i].h <= output_h ||
				   px + asked_x + cases[i].w > output_w) {
			printf("FAIL: the parent at %d,%d: the popup slid on "
			       "%s would not run past that edge only\n",
			       px, py, cases[i].axis);
			ret = 1;
		}
		xdg_positioner_set_size(pos, cases[i].w, cases[i].h);
		xdg_positioner_set_anchor_rect(pos, cases[i].rect_x,
					       cases[i].rect_y, 40, 20);
		xdg_positioner_set_anchor(pos,
					  XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT);
		xdg_positioner_set_gravity(pos,
					   XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT);
		xdg_positioner_set_constraint_adjustment(pos, cases[i].slide);
		if (popup_place(c, &parent, pos, &got) < 0) {
			xdg_positioner_destroy(pos);
			ret = 1;
			break;
		}
		xdg_positioner_destroy(pos);
		printf("popup %dx%d slid on %s, the parent at %d,%d: "
		       "at %d,%d\n",
		       cases[i].w, cases[i].h, cases[i].axis, px, py, got.x,
		       got.y);
		if (got.x != want_x || got.y != want_y) {
			printf("FAIL: popup slid on %s: expected %d,%d (its "
			       "far edge on the output's %s edge)\n",
			       cases[i].axis, want_x, want_y,
			       on_x ? "right" : "bottom");
			ret = 1;
		}
	}
	window_destroy(&parent);
	return ret;
}

/* A viewport's source on the buffer's edge --------------------------------- */

/* A surface's frame callbacks: their count, the one pending. */
struct frames {
	int count;
	struct wl_callback *pending;
};

static void
frames_done(void *data, struct wl_callback *cb, uint32_t time)
{
	struct frames *f = data;

	f->count++;
	f->pending = NULL;
	wl_callback_destroy(cb);
}

static const struct wl_callback_listener frames_listener = { frames_done };

static struct wp_viewport *edge_viewport;

/* The last 10x10 of the 32x32 buffer: it ends on both edges. */
static void
viewport_on_edge(struct test_client *c, struct test_toplevel *win)
{
	edge_viewport = wp_viewporter_get_viewport(c->viewporter, win->surface);
	wp_viewport_set_source(edge_viewport, wl_fixed_from_int(22),
			       wl_fixed_from_int(22), wl_fixed_from_int(10),
			       wl_fixed_from_int(10));
}

static int
run_viewport_edge(struct test_client *c, bool y_axis)
{
	struct test_toplevel win;
	struct wl_surface *s;
	struct wl_buffer *b;
	struct wp_viewport *v;
	struct frames frames = { 0 };
	int ret;

	if (window_map(&win, c, "rules-viewport", "viewport on the edge", 32,
		       32, viewport_on_edge) < 0) {
		test_client_report_error(c);
		printf("FAIL: a source rectangle ending on the buffer's edge "
		       "was refused\n");
		ret = 1;
		goto out;
	}
	/* Drawn: a frame callback comes once it is in a frame. */
	frames.pending = wl_surface_frame(win.surface);
	wl_callback_add_listener(frames.pending, &frames_listener, &frames);
	wl_surface_damage_buffer(win.surface, 0, 0, 32, 32);
	wl_surface_commit(win.surface);
	while (!frames.count)
		if (wl_display_dispatch(c->display) < 0) {
			test_client_report_error(c);
			printf("FAIL: a source rectangle ending on the "
			       "buffer's edge was refused\n");
			ret = 1;
			goto out;
		}
	printf("viewport source ending on the buffer's edge: accepted and "
	       "drawn\n");

	/* 1/256 pixel past the edge (24.8 fixed point) on one axis. */
	s = wl_compositor_create_surface(c->compositor);
	v = wp_viewporter_get_viewport(c->viewporter, s);
	b = buffer_new(c, 32, 32, true);
	wp_viewport_set_source(
		v, y_axis ? wl_fixed_from_int(22) : wl_fixed_from_int(22) + 1,
		y_axis ? wl_fixed_from_int(22) + 1 : wl_fixed_from_int(22),
		wl_fixed_from_int(10), wl_fixed_from_int(10));
	wl_surface_attach(s, b, 0, 0);
	wl_surface_commit(s);
	ret = test_client_expect(c->display, "wp_viewport",
				 WP_VIEWPORT_ERROR_OUT_OF_BUFFER);
	wp_viewport_destroy(v);
	wl_buffer_destroy(b);
	wl_surface_destroy(s);
out:
	if (frames.pending)
		wl_callback_destroy(frames.pending);
	if (edge_viewport)
		wp_viewport_destroy(edge_viewport);
	window_destroy(&win);
	return ret;
}

/* Subsurface depth --------------------------------------------------------- */

#define CHAIN_LEVELS 40

struct chain {
	struct wl_surface *surface[CHAIN_LEVELS + 1]; /* [0]: the root */
	/* [0]: NULL, then the join */
	struct wl_subsurface *sub[CHAIN_LEVELS + 1];
};

static void
chain_make(struct test_client *c, struct chain *ch)
{
	memset(ch, 0, sizeof(*ch));
	ch->surface[0] = wl_compositor_create_surface(c->compositor);
	for (int i = 1; i <= CHAIN_LEVELS; i++) {
		ch->surface[i] = wl_compositor_create_surface(c->compositor);
		ch->sub[i] = wl_subcompositor_get_subsurface(
			c->subcompositor, ch->surface[i], ch->surface[i - 1]);
	}
}

static void
chain_free(struct chain *ch)
{
	for (int i = CHAIN_LEVELS; i >= 0; i--) {
		if (ch->sub[i])
			wl_subsurface_destroy(ch->sub[i]);
		wl_surface_destroy(ch->surface[i]);
	}
}

static int
run_subsurface_chains(struct test_client *c)
{
	struct chain a, b;
	int ret;

	chain_make(c, &a);
	chain_make(c, &b);
	/* Each is 40 levels deep: legal. */
	ret = test_client_expect(c->display, NULL, 0);
	if (!ret) {
		/* b's root under a's deepest: 40 + 1 + 40 levels. */
		b.sub[0] = wl_subcompositor_get_subsurface(
			c->subcompositor, b.surface[0],
			a.surface[CHAIN_LEVELS]);
		ret = test_client_expect(c->display, "wl_subcompositor",
					 WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE);
	}
	chain_free(&b);
	chain_free(&a);
	return ret;
}

/* The upload budget -------------------------------------------------------- */

/* doc/compositor.md: 8 MiB a refresh at 60 Hz or less; at faster rates
 * a share in proportion to the refresh period, at least 1 MiB. */
static uint64_t
upload_budget(int hz)
{
	uint64_t budget = 8u << 20;

	if (hz > 60)
		budget = budget * 60 / (uint64_t)hz;
	return budget < (1u << 20) ? 1u << 20 : budget;
}

/* Refreshes an upload of a w x h (4 bytes a pixel) buffer takes at
 * budget bytes each: whole rows a refresh. */
static int
upload_refreshes(int32_t w, int32_t h, uint64_t budget)
{
	uint64_t rows = budget / ((uint64_t)w * 4);

	rows = rows ? rows : 1;
	return (int)(((uint64_t)h + rows - 1) / rows);
}

static void
buffer_released(void *data, struct wl_buffer *b)
{
	*(bool *)data = true;
}

static const struct wl_buffer_listener release_listener = { buffer_released };

/* The other client asks for its next frame callback. Nothing it shows
 * changes: the compositor answers at the next refresh without compositing
 * (whether the ring has a free slot then does not matter), so the count
 * depends on the refreshes, not on how fast frames are composited. */
static void
next_frame(struct wl_surface *s, struct frames *f)
{
	f->pending = wl_surface_frame(s);
	wl_callback_add_listener(f->pending, &frames_listener, f);
	wl_surface_commit(s);
}

/* The big commit's presentation: the output frame that showed it. */
struct shown {
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
	     uint32_t refresh, uint32_t seq_hi, uint32_t seq_lo,
	     uint32_t flags)
{
	struct shown *shown = data;

	shown->seq = (uint64_t)seq_hi << 32 | seq_lo;
	shown->presented = shown->done = true;
	wp_presentation_feedback_destroy(fb);
}

static void
fb_discarded(void *data, struct wp_presentation_feedback *fb)
{
	struct shown *shown = data;

	shown->done = true;
	wp_presentation_feedback_destroy(fb);
}

static const struct wp_presentation_feedback_listener fb_listener = {
	fb_sync_output, fb_presented, fb_discarded
};

/* Both connections' events until the big buffer is released and shown;
 * the other client's callbacks until the release counted in *during,
 * each answered with a new request. false when a connection broke. */
static bool
upload_wait(struct test_client *c, struct test_client *o,
	    struct wl_surface *os, struct frames *frames,
	    const bool *released, const struct shown *shown, int *during)
{
	int seen = frames->count;

	while (!*released || !shown->done) {
		struct pollfd fds[2] = {
			{ .fd = wl_display_get_fd(c->display),
			  .events = POLLIN },
			{ .fd = wl_display_get_fd(o->display),
			  .events = POLLIN },
		};

		if (!frames->pending)
			next_frame(os, frames);
		if (wl_display_flush(c->display) < 0 ||
		    wl_display_flush(o->display) < 0 || poll(fds, 2, -1) < 0 ||
		    ((fds[0].revents & POLLIN) &&
		     wl_display_dispatch(c->display) < 0) ||
		    ((fds[1].revents & POLLIN) &&
		     wl_display_dispatch(o->display) < 0))
			return false;
		if (!*released)
			*during += frames->count - seen;
		seen = frames->count;
	}
	return true;
}

static int
run_upload_budget(struct test_client *c, int hz, const char *ctl_prog)
{
	const int32_t big = 8192;
	const int most = upload_refreshes(big, big, upload_budget(hz));
	/* At 8 MiB a refresh, whatever the rate. */
	const int unscaled = upload_refreshes(big, big, 8u << 20);
	struct test_client o;
	struct wl_surface *s, *os;
	struct wl_buffer *b;
	struct wp_presentation_feedback *fb;
	struct frames frames = { 0 };
	struct shown shown = { 0 };
	bool released = false;
	char out[128];
	unsigned long long before = 0;
	int during = 0, ret = 0;

	if (!c->presentation || most <= unscaled + 4) {
		printf("FAIL: no wp_presentation, or at %d Hz the budget "
		       "gives %d refreshes, too close to %d to tell them "
		       "apart\n", hz, most, unscaled);
		return 2;
	}
	if (test_client_connect(&o, PROG " (second client)") < 0)
		return 2;
	s = wl_compositor_create_surface(c->compositor);
	b = buffer_new(c, big, big, false);
	wl_buffer_add_listener(b, &release_listener, &released);
	os = wl_compositor_create_surface(o.compositor);
	next_frame(os, &frames);
	/* The output frame presented last before the commit. */
	if (ctl(ctl_prog, "frame", out, sizeof(out), c, &o) < 0 ||
	    sscanf(out, "%llu", &before) != 1) {
		printf("FAIL: no frame number from the control socket\n");
		ret = 1;
		goto out;
	}
	wl_surface_attach(s, b, 0, 0);
	wl_surface_damage_buffer(s, 0, 0, big, big);
	fb = wp_presentation_feedback(c->presentation, s);
	wp_presentation_feedback_add_listener(fb, &fb_listener, &shown);
	wl_surface_commit(s);
	if (!upload_wait(c, &o, os, &frames, &released, &shown, &during)) {
		printf("FAIL: upload-budget: the connection broke\n");
		ret = 1;
		goto out;
	}
	printf("upload-budget: the %dx%d buffer shown %llu refreshes after "
	       "its commit at %d Hz (the budget gives %d, 8 MiB a refresh "
	       "%d); %d frame callbacks of the other client meanwhile\n",
	       big, big, shown.seq - before, hz, most, unscaled, during);
	/* Each refresh uploads one share and sends the other client at
	 * most one callback: the buffer cannot be shown sooner than the
	 * budget's refreshes after the commit, and the other client gets
	 * at most one callback a refresh of the upload (and the one in
	 * flight at each end): no more than 34 if each took 8 MiB, however
	 * slow the machine. More than that says the share is smaller. */
	if (!shown.presented || shown.seq - before < (uint64_t)most) {
		printf("FAIL: shown %s %llu refreshes: less than %d\n",
		       shown.presented ? "after" : "never,",
		       shown.seq - before, most);
		ret = 1;
	}
	if (during <= unscaled + 2 || during > most + 2) {
		printf("FAIL: expected more than %d and at most %d frame "
		       "callbacks\n", unscaled + 2, most + 2);
		ret = 1;
	}
out:
	if (frames.pending)
		wl_callback_destroy(frames.pending);
	wl_surface_destroy(os);
	test_client_disconnect(&o);
	wl_buffer_destroy(b);
	wl_surface_destroy(s);
	return ret;
}

/* Click to focus ----------------------------------------------------------- */

static int
run_click_focus(struct test_client *c, const char *ctl_prog)
{
	struct two t = { 0 };
	char out[512], cmd[64];
	int x, y, ret = 1;

	if (two_map(&t, c, "rules click") < 0)
		goto out;
	/* Bottom to top: the older window's line first. */
	if (ctl(ctl_prog, "windows", out, sizeof(out), c, &t.other) < 0 ||
	    sscanf(out, "%d %d", &x, &y) != 2) {
		printf("FAIL: no windows from the control socket\n");
		goto out;
	}
	if (t.newer_keys.focus != t.newer.surface || t.older_keys.focus) {
		printf("FAIL: the window mapped last does not have the "
		       "keyboard\n");
		goto out;
	}
	keys_clear(&t.older_keys);
	keys_clear(&t.newer_keys);
	/* The corner of the older window that the newer does not cover
	 * (the cascade moves each window down and right). */
	snprintf(cmd, sizeof(cmd), "click %d %d", x + 2, y + 2);
	if (ctl(ctl_prog, cmd, NULL, 0, c, &t.other) < 0 ||
	    ctl(ctl_prog, "key a", NULL, 0, c, &t.other) < 0)
		goto out;
	printf("click on the older window, then a key: older \"%s\", newer "
	       "\"%s\"\n",
	       t.older_keys.log, t.newer_keys.log);
	/* Enter, then the key's press and release; leave for the other. */
	if (strcmp(t.older_keys.log, "ekk") || strcmp(t.newer_keys.log, "l") ||
	    t.older_keys.focus != t.older.surface) {
		printf("FAIL: expected older \"ekk\" (enter, press, "
		       "release), newer \"l\" "
		       "(leave)\n");
		goto out;
	}
	ret = 0;
out:
	two_free(&t);
	return ret;
}

/* The topmost of the windows a name matches -------------------------------- */

/* CTL's command naming a window; its answer must name app_id. */
static int
expect_window(const char *ctl_prog, const char *command, const char *app_id,
	      struct two *t, struct test_client *c)
{
	char out[512], got[128] = "";

	if (ctl(ctl_prog, command, out, sizeof(out), c, &t->other) < 0)
		return -1;
	sscanf(out, "%*d %*d %*d %*d %127s", got);
	printf("%s: %s\n", command, got);
	if (strcmp(got, app_id)) {
		printf("FAIL: %s answered %s, expected %s\n", command, got,
		       app_id);
		return -1;
	}
	return 0;
}

static int
run_topmost(struct test_client *c, const char *ctl_prog)
{
	struct two t = { 0 };
	int ret = 1;

	if (two_map(&t, c, "rules twin") < 0)
		goto out;
	if (expect_window(ctl_prog, "wait-window twin", "rules-newer", &t,
			  c) < 0)
		goto out;
	/* The keyboard to the older (its own name), then by the shared
	 * one: to the topmost. */
	if (ctl(ctl_prog, "focus rules-older", NULL, 0, c, &t.other) < 0)
		goto out;
	if (t.older_keys.focus != t.older.surface) {
		printf("FAIL: focus rules-older: the older window has no "
		       "keyboard\n");
		goto out;
	}
	if (ctl(ctl_prog, "focus twin", NULL, 0, c, &t.other) < 0)
		goto out;
	printf("focus twin: the keyboard on the %s window\n",
	       t.newer_keys.focus == t.newer.surface ? "newer" :
	       t.older_keys.focus == t.older.surface ? "older" : "no");
	if (t.newer_keys.focus != t.newer.surface || t.older_keys.focus) {
		printf("FAIL: focus twin did not give the keyboard to the "
		       "topmost window\n");
		goto out;
	}
	/* The topmost closes: the one left is the topmost that matches. */
	window_destroy(&t.newer);
	if (wl_display_roundtrip(t.other.display) < 0 ||
	    expect_window(ctl_prog, "wait-window twin", "rules-older", &t,
			  c) < 0 ||
	    ctl(ctl_prog, "focus twin", NULL, 0, c, &t.other) < 0)
		goto out;
	if (t.older_keys.focus != t.older.surface) {
		printf("FAIL: focus twin, the topmost closed: the older "
		       "window has no "
		       "keyboard\n");
		goto out;
	}
	printf("the topmost closed: wait-window and focus act on the one "
	       "left\n");
	ret = 0;
out:
	two_free(&t);
	return ret;
}

/* The pointer -------------------------------------------------------------- */

/* Which of this client's surfaces the pointer is on (NULL: none). */
struct pointer_watch {
	struct wl_pointer *pointer;
	struct wl_surface *focus;
};

static void
ptr_enter(void *data, struct wl_pointer *p, uint32_t serial,
	  struct wl_surface *s, wl_fixed_t x, wl_fixed_t y)
{
	((struct pointer_watch *)data)->focus = s;
}

static void
ptr_leave(void *data, struct wl_pointer *p, uint32_t serial,
	  struct wl_surface *s)
{
	((struct pointer_watch *)data)->focus = NULL;
}

static void
ptr_motion(void *data, struct wl_pointer *p, uint32_t time, wl_fixed_t x,
	   wl_fixed_t y)
{
}

static void
ptr_button(void *data, struct wl_pointer *p, uint32_t serial, uint32_t time,
	   uint32_t button, uint32_t state)
{
}

static void
ptr_axis(void *data, struct wl_pointer *p, uint32_t time, uint32_t axis,
	 wl_fixed_t value)
{
}

/* wl_seat version 1: these are all its pointer's events. */
static const struct wl_pointer_listener ptr_listener = {
	ptr_enter, ptr_leave, ptr_motion, ptr_button, ptr_axis
};

/* The surface the pointer is on once CTL moved it to x, y on the output,
 * after all this client asked before is done. From the output's corner
 * first (no window there): whatever the compositor does on a move to
 * where the pointer already is, the surface is found anew. */
static int
pointer_at(const char *ctl_prog, struct test_client *c,
	   struct pointer_watch *pw, int x, int y, struct wl_surface **on)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "pointer-move %d %d", x, y);
	if (wl_display_roundtrip(c->display) < 0 ||
	    ctl(ctl_prog, "pointer-move 0 0", NULL, 0, c, NULL) < 0 ||
	    ctl(ctl_prog, cmd, NULL, 0, c, NULL) < 0) {
		test_client_report_error(c);
		return -1;
	}
	*on = pw->focus;
	return 0;
}

/* set_input_region(NULL): infinite again ----------------------------------- */

static int
run_input_region_reset(struct test_client *c, const char *ctl_prog)
{
	struct pointer_watch pw = { 0 };
	struct test_toplevel win;
	struct wl_region *r;
	struct wl_surface *corner = NULL, *middle = NULL, *reset = NULL;
	int x, y, ret = 1;

	pw.pointer = wl_seat_get_pointer(c->seat);
	wl_pointer_add_listener(pw.pointer, &ptr_listener, &pw);
	if (window_map(&win, c, "rules-input", "input region", 100, 80,
		       NULL) < 0 ||
	    window_position(ctl_prog, c, &x, &y) < 0)
		goto out;
	/* Input only in the top left 10x10. */
	r = wl_compositor_create_region(c->compositor);
	wl_region_add(r, 0, 0, 10, 10);
	wl_surface_set_input_region(win.surface, r);
	wl_region_destroy(r);
	wl_surface_commit(win.surface);
	if (pointer_at(ctl_prog, c, &pw, x + 5, y + 5, &corner) < 0 ||
	    pointer_at(ctl_prog, c, &pw, x + 50, y + 40, &middle) < 0)
		goto out;
	/* NULL: the whole surface again. */
	wl_surface_set_input_region(win.surface, NULL);
	wl_surface_commit(win.surface);
	if (pointer_at(ctl_prog, c, &pw, x + 50, y + 40, &reset) < 0)
		goto out;
	printf("input region 10x10: the pointer at 5,5 %s the window, at "
	       "50,40 %s; set to NULL: at 50,40 %s\n",
	       corner == win.surface ? "on" : "off",
	       middle == win.surface ? "on" : "off",
	       reset == win.surface ? "on" : "off");
	if (corner != win.surface || middle) {
		printf("FAIL: the input region set is not the one used\n");
		goto out;
	}
	if (reset != win.surface) {
		printf("FAIL: set_input_region(NULL) did not make the input "
		       "region infinite again\n");
		goto out;
	}
	ret = 0;
out:
	wl_pointer_destroy(pw.pointer);
	window_destroy(&win);
	return ret;
}

/* A desynchronized subsurface under a synchronized one --------------------- */

static const char *
which(struct wl_surface *on, struct wl_surface *parent,
      struct wl_surface *child)
{
	return on == child ? "child" : on == parent ? "parent" :
	       on ? "root" : "none";
}

static int
run_desync_under_sync(struct test_client *c, const char *ctl_prog)
{
	struct pointer_watch pw = { 0 };
	struct test_toplevel root;
	struct wl_surface *parent, *child, *on[4] = { NULL };
	struct wl_subsurface *parent_sub = NULL, *child_sub = NULL;
	struct wl_buffer *parent_buf, *child_buf;
	int x, y, ret = 1;

	pw.pointer = wl_seat_get_pointer(c->seat);
	wl_pointer_add_listener(pw.pointer, &ptr_listener, &pw);
	parent = wl_compositor_create_surface(c->compositor);
	child = wl_compositor_create_surface(c->compositor);
	parent_buf = buffer_new(c, 60, 60, true);
	child_buf = buffer_new(c, 20, 20, true);
	if (window_map(&root, c, "rules-desync", "desync under sync", 100, 80,
		       NULL) < 0 ||
	    window_position(ctl_prog, c, &x, &y) < 0)
		goto out;
	/* The parent: synchronized (the default), a 60x60 buffer at 0,0;
	 * the child under it, desynchronized, no buffer yet. Both in the
	 * tree once the root commits. */
	parent_sub = wl_subcompositor_get_subsurface(c->subcompositor, parent,
						     root.surface);
	child_sub = wl_subcompositor_get_subsurface(c->subcompositor, child,
						    parent);
	wl_subsurface_set_desync(child_sub);
	wl_surface_attach(parent, parent_buf, 0, 0);
	wl_surface_commit(parent);
	wl_surface_commit(root.surface);
	if (pointer_at(ctl_prog, c, &pw, x + 15, y + 15, &on[0]) < 0)
		goto out;
	/* The child's 20x20 buffer at 0,0 of the parent, over the point the
	 * pointer goes to: cached, as its parent is synchronized. */
	wl_surface_attach(child, child_buf, 0, 0);
	wl_surface_commit(child);
	if (pointer_at(ctl_prog, c, &pw, x + 15, y + 15, &on[1]) < 0)
		goto out;
	/* The parent's commit is cached: the child's stays so. */
	wl_surface_commit(parent);
	if (pointer_at(ctl_prog, c, &pw, x + 15, y + 15, &on[2]) < 0)
		goto out;
	/* The root's applies the parent's, then the child's. */
	wl_surface_commit(root.surface);
	if (pointer_at(ctl_prog, c, &pw, x + 15, y + 15, &on[3]) < 0)
		goto out;
	printf("desync under sync: the pointer on the %s; after the child's "
	       "commit on the %s, after the parent's on the %s, after the "
	       "root's on the %s\n",
	       which(on[0], parent, child), which(on[1], parent, child),
	       which(on[2], parent, child), which(on[3], parent, child));
	if (on[0] != parent || on[1] != parent || on[2] != parent ||
	    on[3] != child) {
		printf("FAIL: expected the parent, the parent, the parent, "
		       "then the child: the child's commits are cached until "
		       "the root's commit applies its synchronized parent's "
		       "state\n");
		goto out;
	}
	ret = 0;
out:
	if (child_sub)
		wl_subsurface_destroy(child_sub);
	if (parent_sub)
		wl_subsurface_destroy(parent_sub);
	wl_pointer_destroy(pw.pointer);
	wl_surface_destroy(child);
	wl_surface_destroy(parent);
	wl_buffer_destroy(child_buf);
	wl_buffer_destroy(parent_buf);
	window_destroy(&root);
	return ret;
}

/* A buffer before the configure is acked ----------------------------------- */

static void
configure_kept(void *data, struct xdg_surface *xs, uint32_t serial)
{
	*(uint32_t *)data = serial; /* not acked */
}

static const struct xdg_surface_listener configure_kept_listener = {
	configure_kept
};

static int
run_unconfigured_buffer(struct test_client *c)
{
	struct wl_surface *s = wl_compositor_create_surface(c->compositor);
	struct xdg_surface *xs = xdg_wm_base_get_xdg_surface(c->wm_base, s);
	struct xdg_toplevel *top = xdg_surface_get_toplevel(xs);
	struct wl_buffer *b = buffer_new(c, 32, 32, true);
	uint32_t serial = 0;
	int ret = 1;

	xdg_surface_add_listener(xs, &configure_kept_listener, &serial);
	xdg_toplevel_add_listener(top, &test_client_toplevel_ignored, NULL);
	xdg_toplevel_set_title(top, "unconfigured buffer");
	/* The initial commit, and its configure: here, not acked. */
	wl_surface_commit(s);
	while (!serial)
		if (wl_display_dispatch(c->display) < 0) {
			test_client_report_error(c);
			goto out;
		}
	printf("configure %u came; a buffer committed before its ack\n",
	       serial);
	wl_surface_attach(s, b, 0, 0);
	wl_surface_commit(s);
	ret = test_client_expect(c->display, "xdg_surface",
				 XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER);
out:
	xdg_toplevel_destroy(top);
	xdg_surface_destroy(xs);
	wl_surface_destroy(s);
	wl_buffer_destroy(b);
	return ret;
}

int
main(int argc, char **argv)
{
	struct test_client c;
	const char *mode = argc > 1 ? argv[1] : "";
	int ret;

	if (argc < 2 || argc > 5) {
		fprintf(stderr, "usage: " PROG " popup-flip OUTPUT_W CTL | "
			"popup-slide OUTPUT_W OUTPUT_H CTL | "
			"viewport-edge x|y | subsurface-chains | "
			"upload-budget HZ CTL | click-focus CTL | "
			"topmost CTL | input-region-reset CTL | "
			"desync-under-sync CTL | unconfigured-buffer\n");
		return 2;
	}
	if (test_client_connect(&c, PROG) < 0)
		return 2;
	if (!c.compositor || !c.subcompositor || !c.shm || !c.wm_base ||
	    !c.viewporter || !c.seat) {
		printf("FAIL: a global is missing (wl_compositor, "
		       "wl_subcompositor, wl_shm, "
		       "xdg_wm_base, wp_viewporter, wl_seat)\n");
		test_client_disconnect(&c);
		return 1;
	}
	if (!strcmp(mode, "popup-flip") && argc == 4)
		ret = run_popup_flip(&c, atoi(argv[2]), argv[3]);
	else if (!strcmp(mode, "popup-slide") && argc == 5)
		ret = run_popup_slide(&c, atoi(argv[2]), atoi(argv[3]),
				      argv[4]);
	else if (!strcmp(mode, "viewport-edge"))
		ret = run_viewport_edge(&c, !strcmp(argv[2], "y"));
	else if (!strcmp(mode, "subsurface-chains"))
		ret = run_subsurface_chains(&c);
	else if (!strcmp(mode, "upload-budget") && argc == 4)
		ret = run_upload_budget(&c, atoi(argv[2]), argv[3]);
	else if (!strcmp(mode, "click-focus"))
		ret = run_click_focus(&c, argv[2]);
	else if (!strcmp(mode, "topmost"))
		ret = run_topmost(&c, argv[2]);
	else if (!strcmp(mode, "input-region-reset") && argc == 3)
		ret = run_input_region_reset(&c, argv[2]);
	else if (!strcmp(mode, "desync-under-sync") && argc == 3)
		ret = run_desync_under_sync(&c, argv[2]);
	else if (!strcmp(mode, "unconfigured-buffer"))
		ret = run_unconfigured_buffer(&c);
	else {
		fprintf(stderr, PROG ": no mode %s with %d arguments\n", mode,
			argc - 2);
		ret = 2;
	}
	test_client_disconnect(&c);
	return ret;
}
