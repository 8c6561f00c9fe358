/*
 * A Wayland client of the protocols glcuda-compositor offers beyond the
 * core and xdg-shell's toplevels, for tests/test-compositor-protocols.sh:
 * what they answer, and the protocol errors their XML names.
 *
 *   compositor-protocol-client output W H
 *       zxdg_output_v1 of the output: logical position 0,0, size WxH,
 *       wl_output's name, the group ended by wl_output.done
 *   compositor-protocol-client decoration
 *       a toplevel asking for server-side decorations gets client_side
 *       with its configures, again after set_mode
 *   compositor-protocol-client clipboard-source TEXT
 *       sets the selection to TEXT as text/plain;charset=utf-8 and serves
 *       one receive, then exits
 *   compositor-protocol-client clipboard-target TEXT
 *       maps a toplevel (so it has the focus), waits for a selection
 *       offering text/plain;charset=utf-8, receives it: it must be TEXT
 *   compositor-protocol-client popup-click CTL
 *       a toplevel and a grabbing popup; CTL (glcuda-compositor-ctl)
 *       clicks on the toplevel: the popup stays; then outside: it gets
 *       popup_done
 *   compositor-protocol-client input-region CTL
 *       a toplevel whose input region is its left half: CTL's click on
 *       its right half must not reach it, one on its left half must
 *   compositor-protocol-client opaque-region CTL FILE
 *       a toplevel whose buffer's left half is transparent (all zero)
 *       and whose opaque region is all of it, then CTL's screenshot to
 *       FILE: the left half must be black, not the background
 *   compositor-protocol-client ERROR-CASE
 *       breaks a rule and expects the protocol error the XML names:
 *       viewport-exists viewport-bad-value viewport-bad-dest
 *       viewport-bad-size viewport-out-of-buffer viewport-no-surface
 *       decoration-twice decoration-buffer decoration-orphaned
 *       positioner-bad popup-incomplete popup-parent popup-late-grab
 *       popup-not-topmost offer-finish source-actions
 *
 * Prints what it saw; exit 0 when it is what the protocol says, 1 when
 * not, 2 on usage or setup errors.
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compositor-client.h"

#define MIME "text/plain;charset=utf-8"

static struct test_client tc;

/* The proxies made, freed at the end (after a protocol error too: the
 * sanitizer build checks this program's leaks). */
#define KEPT_MAX 32
static struct wl_proxy *kept[KEPT_MAX];
static int n_kept;

static void *
keep(void *proxy)
{
	if (n_kept == KEPT_MAX) {
		fprintf(stderr,
			"compositor-protocol-client: more than %d objects\n",
			KEPT_MAX);
		exit(2);
	}
	kept[n_kept++] = proxy;
	return proxy;
}

/* A kept proxy destroyed by a request of its own. */
static void
forget(void *proxy)
{
	for (int i = 0; i < n_kept; i++)
		if (kept[i] == proxy)
			kept[i] = NULL;
}

static void
free_kept(void)
{
	while (n_kept > 0)
		if (kept[--n_kept])
			wl_proxy_destroy(kept[n_kept]);
}

/* Toplevels -------------------------------------------------------------- */

static int
wait_configure(struct test_toplevel *t)
{
	t->serial = 0;
	while (!t->serial)
		if (wl_display_dispatch(tc.display) < 0)
			return -1;
	return 0;
}

/* A 32x32 ARGB8888 buffer, white; its pixels in *pixels when not NULL
 * (mapped until the process exits), else unmapped. */
static struct wl_buffer *
buffer_new_mapped(uint32_t **pixels)
{
	void *data;
	struct wl_shm_pool *pool = test_client_pool(&tc, 32 * 32 * 4, &data);
	struct wl_buffer *b;

	if (!pool)
		exit(2);
	memset(data, 0xff, 32 * 32 * 4);
	if (pixels)
		*pixels = data;
	else
		munmap(data, 32 * 32 * 4);
	b = keep(wl_shm_pool_create_buffer(pool, 0, 32, 32, 32 * 4,
					   WL_SHM_FORMAT_ARGB8888));
	wl_shm_pool_destroy(pool);
	return b;
}

static struct wl_buffer *
buffer_new(void)
{
	return buffer_new_mapped(NULL);
}

/* The toplevel's buffer made, its pixels to fill before it is attached. */
static uint32_t *
buffer_pixels(struct test_toplevel *t)
{
	uint32_t *px;

	t->buffer = buffer_new_mapped(&px);
	return px;
}

/* The xdg objects, not committed yet. */
static void
toplevel_new(struct test_toplevel *t)
{
	memset(t, 0, sizeof(*t));
	t->surface = keep(wl_compositor_create_surface(tc.compositor));
	t->xdg_surface =
		keep(xdg_wm_base_get_xdg_surface(tc.wm_base, t->surface));
	xdg_surface_add_listener(t->xdg_surface, &test_client_configure_acked,
				 &t->serial);
	t->toplevel = keep(xdg_surface_get_toplevel(t->xdg_surface));
}

/* The initial commit, its configure, then a buffer: mapped. */
static int
toplevel_map(struct test_toplevel *t)
{
	wl_surface_commit(t->surface);
	if (wait_configure(t) < 0)
		return -1;
	t->buffer = buffer_new();
	wl_surface_attach(t->surface, t->buffer, 0, 0);
	wl_surface_commit(t->surface);
	return wl_display_roundtrip(tc.display) < 0 ? -1 : 0;
}

/* xdg-output --------------------------------------------------------------- */

struct output_info {
	int32_t x, y, w, h;
	char xdg_name[64], name[64];
	bool done;
};

static void
xo_position(void *data, struct zxdg_output_v1 *o, int32_t x, int32_t y)
{
	struct output_info *i = data;

	i->x = x, i->y = y;
}

static void
xo_size(void *data, struct zxdg_output_v1 *o, int32_t w, int32_t h)
{
	struct output_info *i = data;

	i->w = w, i->h = h;
}

static void
xo_done(void *data, struct zxdg_output_v1 *o)
{
	/* Deprecated from version 3: wl_output.done instead. */
}

static void
xo_name(void *data, struct zxdg_output_v1 *o, const char *name)
{
	struct output_info *i = data;

	snprintf(i->xdg_name, sizeof(i->xdg_name), "%s", name);
}

static void
xo_description(void *data, struct zxdg_output_v1 *o, const char *d)
{
}

static const struct zxdg_output_v1_listener xo_listener = {
	xo_position, xo_size, xo_done, xo_name, xo_description
};

static void
out_geometry(void *data, struct wl_output *o, int32_t x, int32_t y, int32_t pw,
	     int32_t ph, int32_t subpixel, const char *make, const char *model,
	     int32_t transform)
{
}

static void
out_mode(void *data, struct wl_output *o, uint32_t flags, int32_t w, int32_t h,
	 int32_t refresh)
{
}

static void
out_done(void *data, struct wl_output *o)
{
	struct output_info *i = data;

	i->done = true;
}

static void
out_scale(void *data, struct wl_output *o, int32_t scale)
{
}

static void
out_name(void *data, struct wl_output *o, const char *name)
{
	struct output_info *i = data;

	snprintf(i->name, sizeof(i->name), "%s", name);
}

static void
out_description(void *data, struct wl_output *o, const char *d)
{
}

static const struct wl_output_listener out_listener = {
	out_geometry, out_mode, out_done, out_scale, out_name, out_description
};

static int
run_output(int w, int h)
{
	struct output_info info = { 0 };
	struct zxdg_output_v1 *xo;

	if (!tc.xdg_output_manager || !tc.output ||
	    zxdg_output_manager_v1_get_version(tc.xdg_output_manager) < 3 ||
	    wl_output_get_version(tc.output) < 4) {
		printf("FAIL: no zxdg_output_manager_v1 version 3 or wl_output "
		       "version 4\n");
		return 1;
	}
	wl_output_add_listener(tc.output, &out_listener, &info);
	if (wl_display_roundtrip(tc.display) < 0)
		return 1;
	info.done = false;
	xo = zxdg_output_manager_v1_get_xdg_output(tc.xdg_output_manager,
						   tc.output);
	zxdg_output_v1_add_listener(xo, &xo_listener, &info);
	if (wl_display_roundtrip(tc.display) < 0) {
		zxdg_output_v1_destroy(xo);
		return 1;
	}
	zxdg_output_v1_destroy(xo);
	printf("xdg-output: %d,%d %dx%d %s, %s\n", info.x, info.y, info.w,
	       info.h, info.xdg_name,
	       info.done ? "then wl_output.done" : "no wl_output.done");
	if (info.x || info.y || info.w != w || info.h != h ||
	    strcmp(info.xdg_name, info.name) || !info.done) {
		printf("FAIL: expected 0,0 %dx%d %s, then wl_output.done\n", w,
		       h, info.name);
		return 1;
	}
	return 0;
}

/* xdg-decoration ----------------------------------------------------------- */

static uint32_t deco_mode;
static int deco_configures;

static void
deco_configure(void *data, struct zxdg_toplevel_decoration_v1 *d, uint32_t mode)
{
	deco_mode = mode;
	deco_configures++;
}

static const struct zxdg_toplevel_decoration_v1_listener deco_listener = {
	deco_configure
};

static int
run_decoration(void)
{
	struct test_toplevel t;
	struct zxdg_toplevel_decoration_v1 *d;
	int ret = 0;

	toplevel_new(&t);
	d = keep(zxdg_decoration_manager_v1_get_toplevel_decoration(
		tc.decoration_manager, t.toplevel));
	zxdg_toplevel_decoration_v1_add_listener(d, &deco_listener, NULL);
	zxdg_toplevel_decoration_v1_set_mode(
		d, ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
	/* With the initial configure, and after set_mode once mapped. */
	if (toplevel_map(&t) < 0 || deco_configures != 1 ||
	    deco_mode != ZXDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE) {
		printf("FAIL: the initial configure: %d decoration configures, "
		       "mode %u\n",
		       deco_configures, deco_mode);
		ret = 1;
	}
	zxdg_toplevel_decoration_v1_set_mode(
		d, ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
	if (!ret &&
	    (wait_configure(&t) < 0 || deco_configures != 2 ||
	     deco_mode != ZXDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE)) {
		printf("FAIL: after set_mode: %d decoration configures, mode "
		       "%u\n",
		       deco_configures, deco_mode);
		ret = 1;
	}
	if (!ret)
		printf("decoration: client_side, with each configure\n");
	return ret;
}

/* The clipboard ----------------------------------------------------------- */

static const char *clip_text;
static bool clip_served, clip_cancelled;

static void
source_target(void *data, struct wl_data_source *s, const char *mime)
{
}

static void
source_send(void *data, struct wl_data_source *s, const char *mime, int32_t fd)
{
	size_t len = strlen(clip_text);

	if (!strcmp(mime, MIME) && write(fd, clip_text, len) != (ssize_t)len)
		perror("compositor-protocol-client: write");
	close(fd);
	clip_served = true;
}

static void
source_cancelled(void *data, struct wl_data_source *s)
{
	clip_cancelled = true;
}

static const struct wl_data_source_listener source_listener = {
	source_target, source_send, source_cancelled
};

/* The offers the target saw, and the one that is the selection. */
struct offer {
	struct wl_data_offer *offer;
	bool has_mime;
};

static struct offer last_offer, selection;

static void
offer_offer(void *data, struct wl_data_offer *o, const char *mime)
{
	if (o == last_offer.offer && !strcmp(mime, MIME))
		last_offer.has_mime = true;
}

static const struct wl_data_offer_listener offer_listener = { offer_offer };

static void
device_data_offer(void *data, struct wl_data_device *d, struct wl_data_offer *o)
{
	if (last_offer.offer && last_offer.offer != selection.offer)
		wl_data_offer_destroy(last_offer.offer);
	last_offer = (struct offer){ o, false };
	wl_data_offer_add_listener(o, &offer_listener, NULL);
}

static void
device_enter(void *data, struct wl_data_device *d, uint32_t serial,
	     struct wl_surface *s, wl_fixed_t x, wl_fixed_t y,
	     struct wl_data_offer *o)
{
}

static void
device_leave(void *data, struct wl_data_device *d)
{
}

static void
device_motion(void *data, struct wl_data_device *d, uint32_t time, wl_fixed_t x,
	      wl_fixed_t y)
{
}

static void
device_drop(void *data, struct wl_data_device *d)
{
}

static void
device_selection(void *data, struct wl_data_device *d, struct wl_data_offer *o)
{
	if (selection.offer && selection.offer != o)
		wl_data_offer_destroy(selection.offer);
	selection = o == last_offer.offer ? last_offer
					  : (struct offer){ NULL, false };
}

static const struct wl_data_device_listener device_listener = {
	device_data_offer, device_enter, device_leave,
	device_motion,	   device_drop,	 device_selection
};

static int
run_clipboard_source(void)
{
	struct wl_data_device *dev = keep(
		wl_data_device_manager_get_data_device(tc.data_device_manager,
						       tc.seat));
	struct wl_data_source *src =
		keep(wl_data_device_manager_create_data_source(
			tc.data_device_manager));

	wl_data_source_add_listener(src, &source_listener, NULL);
	wl_data_source_offer(src, "text/plain");
	wl_data_source_offer(src, MIME);
	wl_data_device_set_selection(dev, src, 0);
	printf("selection set\n");
	fflush(stdout);
	while (!clip_served && !clip_cancelled)
		if (wl_display_dispatch(tc.display) < 0)
			return 1;
	if (clip_cancelled) {
		printf("FAIL: the selection was cancelled before anyone "
		       "received it\n");
		return 1;
	}
	return 0;
}

static int
run_clipboard_target(const char *want)
{
	struct test_toplevel t;
	struct wl_data_device *dev;
	char got[256];
	size_t n = 0;
	ssize_t r;
	int fds[2], ret;

	toplevel_new(&t);
	if (toplevel_map(&t) < 0)
		return 1;
	dev = keep(
		wl_data_device_manager_get_data_device(tc.data_device_manager,
						       tc.seat));
	wl_data_device_add_listener(dev, &device_listener, NULL);
	while (!selection.has_mime)
		if (wl_display_dispatch(tc.display) < 0)
			return 1;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return 2;
	wl_data_offer_receive(selection.offer, MIME, fds[1]);
	close(fds[1]);
	wl_display_flush(tc.display);
	/* The source's client writes and closes its end: read to the end. */
	while (n < sizeof(got) - 1 &&
	       (r = read(fds[0], got + n, sizeof(got) - 1 - n)) > 0)
		n += (size_t)r;
	close(fds[0]);
	got[n] = '\0';
	printf("clipboard: received \"%s\"\n", got);
	ret = strcmp(got, want) ? 1 : 0;
	if (ret)
		printf("FAIL: expected \"%s\"\n", want);
	return ret;
}

/* Error cases -------------------------------------------------------------- */

static struct xdg_positioner *
positioner_new(bool complete)
{
	struct xdg_positioner *p =
		keep(xdg_wm_base_create_positioner(tc.wm_base));

	xdg_positioner_set_size(p, 20, 10);
	if (complete)
		xdg_positioner_set_anchor_rect(p, 0, 0, 10, 10);
	return p;
}

struct popup {
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_popup *popup;
	uint32_t serial;
};

/* A popup of parent, grabbing, configured and mapped with buffer. */
static int
popup_map(struct popup *p, struct xdg_surface *parent, struct wl_buffer *buffer)
{
	struct xdg_positioner *pos = positioner_new(true);

	p->surface = keep(wl_compositor_create_surface(tc.compositor));
	p->xdg_surface =
		keep(xdg_wm_base_get_xdg_surface(tc.wm_base, p->surface));
	xdg_surface_add_listener(p->xdg_surface, &test_client_configure_acked,
				 &p->serial);
	p->popup = keep(xdg_surface_get_popup(p->xdg_surface, parent, pos));
	xdg_popup_grab(p->popup, tc.seat, 0);
	wl_surface_commit(p->surface);
	while (!p->serial)
		if (wl_display_dispatch(tc.display) < 0)
			return -1;
	wl_surface_attach(p->surface, buffer, 0, 0);
	wl_surface_commit(p->surface);
	return 0;
}

static bool popup_was_done;

static void
popup_configure(void *data, struct xdg_popup *popup, int32_t x, int32_t y,
		int32_t w, int32_t h)
{
}

static void
popup_done(void *data, struct xdg_popup *popup)
{
	popup_was_done = true;
}

static void
popup_repositioned(void *data, struct xdg_popup *popup, uint32_t token)
{
}

static const struct xdg_popup_listener popup_listener = { popup_configure,
							  popup_done,
							  popup_repositioned };

/* Run CTL's command, then a round trip: the compositor answered the
 * command once it had done it, so what it sent is here. */
static int
ctl(const char *prog, const char *command)
{
	char line[512];

	snprintf(line, sizeof(line), "%s %s >/dev/null", prog, command);
	if (system(line) != 0) {
		printf("FAIL: %s %s\n", prog, command);
		return -1;
	}
	return wl_display_roundtrip(tc.display) < 0 ? -1 : 0;
}

static int
run_popup_click(const char *prog)
{
	struct test_toplevel t;
	struct popup p = { 0 };

	toplevel_new(&t);
	if (toplevel_map(&t) < 0 || popup_map(&p, t.xdg_surface, t.buffer) < 0)
		return 1;
	xdg_popup_add_listener(p.popup, &popup_listener, NULL);
	/* The first toplevel of a compositor is at 32,32 (32x32). */
	if (ctl(prog, "click 40 40") < 0)
		return 1;
	if (popup_was_done) {
		printf("FAIL: a click on the client's own toplevel dismissed "
		       "its popup\n");
		return 1;
	}
	if (ctl(prog, "click 1 1") < 0)
		return 1;
	if (!popup_was_done) {
		printf("FAIL: a click outside left the grabbing popup\n");
		return 1;
	}
	printf("popup dismissed by a click outside, not by one inside\n");
	return 0;
}

/* Input regions ------------------------------------------------------------ */

static int pointer_enters, pointer_presses;

static void
pointer_enter(void *data, struct wl_pointer *p, uint32_t serial,
	      struct wl_surface *s, wl_fixed_t x, wl_fixed_t y)
{
	pointer_enters++;
}

static void
pointer_leave(void *data, struct wl_pointer *p, uint32_t serial,
	      struct wl_surface *s)
{
}

static void
pointer_motion(void *data, struct wl_pointer *p, uint32_t time, wl_fixed_t x,
	       wl_fixed_t y)
{
}

static void
pointer_button(void *data, struct wl_pointer *p, uint32_t serial, uint32_t time,
	       uint32_t button, uint32_t state)
{
	pointer_presses += state == WL_POINTER_BUTTON_STATE_PRESSED;
}

static void
pointer_axis(void *data, struct wl_pointer *p, uint32_t time, uint32_t axis,
	     wl_fixed_t v)
{
}

/* wl_seat version 1: these are all its pointer's events. */
static const struct wl_pointer_listener pointer_listener = {
	pointer_enter,	pointer_leave, pointer_motion,
	pointer_button, pointer_axis,
};

static int
run_input_region(const char *prog)
{
	struct wl_pointer *pointer = keep(wl_seat_get_pointer(tc.seat));
	struct wl_region *region = wl_compositor_create_region(tc.compositor);
	struct test_toplevel t;

	wl_pointer_add_listener(pointer, &pointer_listener, NULL);
	toplevel_new(&t);
	/* The left half of the 32x32 window, set with its first state. */
	wl_region_add(region, 0, 0, 32, 32);
	wl_region_subtract(region, 16, 0, 16, 32);
	wl_surface_set_input_region(t.surface, region);
	wl_region_destroy(region);
	if (toplevel_map(&t) < 0)
		return 1;
	/* The first toplevel of a compositor is at 32,32: 56,40 is 24,8
	 * on it, right of its input region; 40,40 is 8,8, in it. */
	if (ctl(prog, "click 56 40") < 0)
		return 1;
	if (pointer_enters || pointer_presses) {
		printf("FAIL: a click outside the input region reached the "
		       "window (%d enter, %d press)\n",
		       pointer_enters, pointer_presses);
		return 1;
	}
	if (ctl(prog, "click 40 40") < 0)
		return 1;
	if (pointer_enters != 1 || pointer_presses != 1) {
		printf("FAIL: a click in the input region: %d enter, %d press, "
		       "not 1 and 1\n",
		       pointer_enters, pointer_presses);
		return 1;
	}
	printf("input region: a click outside it missed the window, one in it "
	       "reached it\n");
	return 0;
}

/* Opaque regions ----------------------------------------------------------- */

static int
run_opaque_region(const char *prog, const char *file)
{
	struct wl_region *region = wl_compositor_create_region(tc.compositor);
	char command[512];
	struct test_toplevel t;
	uint32_t *px;

	toplevel_new(&t);
	wl_region_add(region, 0, 0, 32, 32);
	wl_surface_set_opaque_region(t.surface, region);
	wl_region_destroy(region);
	wl_surface_commit(t.surface);
	if (wait_configure(&t) < 0)
		return 1;
	/* White, with its left half transparent: premultiplied zero. */
	px = buffer_pixels(&t);
	for (int y = 0; y < 32; y++)
		memset(px + y * 32, 0, 16 * 4);
	wl_surface_attach(t.surface, t.buffer, 0, 0);
	wl_surface_commit(t.surface);
	if (wl_display_roundtrip(tc.display) < 0)
		return 1;
	snprintf(command, sizeof(command), "screenshot %s", file);
	if (ctl(prog, command) < 0)
		return 1;
	printf("opaque region: screenshot taken\n");
	return 0;
}

/* A source set as the selection by the focused client: its offer. */
static int
own_selection(struct test_toplevel *t, struct wl_data_device **dev,
	      struct wl_data_source **src)
{
	toplevel_new(t);
	if (toplevel_map(t) < 0)
		return -1;
	*dev = keep(
		wl_data_device_manager_get_data_device(tc.data_device_manager,
						       tc.seat));
	wl_data_device_add_listener(*dev, &device_listener, NULL);
	*src = keep(wl_data_device_manager_create_data_source(
		tc.data_device_manager));
	wl_data_source_add_listener(*src, &source_listener, NULL);
	wl_data_source_offer(*src, MIME);
	wl_data_device_set_selection(*dev, *src, 0);
	while (!selection.has_mime)
		if (wl_display_dispatch(tc.display) < 0)
			return -1;
	return 0;
}

/* The case's requests; the error the XML names for them. */
static int
run_error(const char *mode)
{
	struct wl_surface *s =
		keep(wl_compositor_create_surface(tc.compositor));
	struct test_toplevel t;
	struct popup p1 = { 0 }, p2 = { 0 };

	if (!strcmp(mode, "viewport-exists")) {
		keep(wp_viewporter_get_viewport(tc.viewporter, s));
		keep(wp_viewporter_get_viewport(tc.viewporter, s));
		return test_client_expect(tc.display, "wp_viewporter",
					  WP_VIEWPORTER_ERROR_VIEWPORT_EXISTS);
	}
	if (!strcmp(mode, "viewport-bad-value") ||
	    !strcmp(mode, "viewport-bad-dest")) {
		struct wp_viewport *v =
			keep(wp_viewporter_get_viewport(tc.viewporter, s));

		/* All -1 unsets: no error; a zero width is one. */
		wp_viewport_set_source(v, wl_fixed_from_int(-1),
				       wl_fixed_from_int(-1),
				       wl_fixed_from_int(-1),
				       wl_fixed_from_int(-1));
		wp_viewport_set_destination(v, -1, -1);
		if (!strcmp(mode, "viewport-bad-value"))
			wp_viewport_set_source(v, 0, 0, 0,
					       wl_fixed_from_int(10));
		else
			wp_viewport_set_destination(v, 10, 0);
		return test_client_expect(tc.display, "wp_viewport",
					  WP_VIEWPORT_ERROR_BAD_VALUE);
	}
	if (!strcmp(mode, "viewport-bad-size") ||
	    !strcmp(mode, "viewport-out-of-buffer")) {
		struct wp_viewport *v =
			keep(wp_viewporter_get_viewport(tc.viewporter, s));
		bool size = !strcmp(mode, "viewport-bad-size");

		/* 10.5 wide with no destination; or past the 32x32 buffer. */
		wp_viewport_set_source(v, wl_fixed_from_int(size ? 0 : 30), 0,
				       size ? wl_fixed_from_double(10.5)
					    : wl_fixed_from_int(10),
				       wl_fixed_from_int(10));
		wl_surface_attach(s, buffer_new(), 0, 0);
		wl_surface_commit(s);
		return test_client_expect(
			tc.display, "wp_viewport",
			size ? WP_VIEWPORT_ERROR_BAD_SIZE
			     : WP_VIEWPORT_ERROR_OUT_OF_BUFFER);
	}
	if (!strcmp(mode, "viewport-no-surface")) {
		struct wp_viewport *v =
			keep(wp_viewporter_get_viewport(tc.viewporter, s));

		forget(s);
		wl_surface_destroy(s);
		wp_viewport_set_destination(v, 10, 10);
		return test_client_expect(tc.display, "wp_viewport",
					  WP_VIEWPORT_ERROR_NO_SURFACE);
	}
	if (!strcmp(mode, "decoration-twice")) {
		toplevel_new(&t);
		keep(zxdg_decoration_manager_v1_get_toplevel_decoration(
			tc.decoration_manager, t.toplevel));
		keep(zxdg_decoration_manager_v1_get_toplevel_decoration(
			tc.decoration_manager, t.toplevel));
		return test_client_expect(
			tc.display, "zxdg_toplevel_decoration_v1",
			ZXDG_TOPLEVEL_DECORATION_V1_ERROR_ALREADY_CONSTRUCTED);
	}
	if (!strcmp(mode, "decoration-buffer")) {
		toplevel_new(&t);
		if (toplevel_map(&t) < 0)
			return 1;
		keep(zxdg_decoration_manager_v1_get_toplevel_decoration(
			tc.decoration_manager, t.toplevel));
		return test_client_expect(
			tc.display, "zxdg_toplevel_decoration_v1",
			ZXDG_TOPLEVEL_DECORATION_V1_ERROR_UNCONFIGURED_BUFFER);
	}
	if (!strcmp(mode, "decoration-orphaned")) {
		toplevel_new(&t);
		keep(zxdg_decoration_manager_v1_get_toplevel_decoration(
			tc.decoration_manager, t.toplevel));
		forget(t.toplevel);
		xdg_toplevel_destroy(t.toplevel);
		return test_client_expect(
			tc.display, "zxdg_toplevel_decoration_v1",
			ZXDG_TOPLEVEL_DECORATION_V1_ERROR_ORPHANED);
	}
	if (!strcmp(mode, "positioner-bad")) {
		xdg_positioner_set_size(keep(xdg_wm_base_create_positioner(
						tc.wm_base)),
					0, 10);
		return test_client_expect(tc.display, "xdg_positioner",
					  XDG_POSITIONER_ERROR_INVALID_INPUT);
	}
	if (!strcmp(mode, "popup-incomplete") ||
	    !strcmp(mode, "popup-parent")) {
		bool parent = !strcmp(mode, "popup-parent");

		toplevel_new(&t);
		keep(xdg_surface_get_popup(
			keep(xdg_wm_base_get_xdg_surface(tc.wm_base, s)),
			parent ? NULL : t.xdg_surface, positioner_new(parent)));
		return test_client_expect(
			tc.display, "xdg_wm_base",
			parent ? XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT
			       : XDG_WM_BASE_ERROR_INVALID_POSITIONER);
	}
	if (!strcmp(mode, "popup-late-grab")) {
		struct xdg_popup *popup;

		toplevel_new(&t);
		if (toplevel_map(&t) < 0)
			return 1;
		popup = keep(xdg_surface_get_popup(
			keep(xdg_wm_base_get_xdg_surface(tc.wm_base, s)),
			t.xdg_surface, positioner_new(true)));
		wl_surface_commit(s);
		xdg_popup_grab(popup, tc.seat, 0);
		return test_client_expect(tc.display, "xdg_popup",
					  XDG_POPUP_ERROR_INVALID_GRAB);
	}
	if (!strcmp(mode, "popup-not-topmost")) {
		toplevel_new(&t);
		if (toplevel_map(&t) < 0 ||
		    popup_map(&p1, t.xdg_surface, t.buffer) < 0 ||
		    popup_map(&p2, p1.xdg_surface, t.buffer) < 0)
			return 1;
		forget(p1.popup);
		xdg_popup_destroy(p1.popup);
		return test_client_expect(
			tc.display, "xdg_wm_base",
			XDG_WM_BASE_ERROR_NOT_THE_TOPMOST_POPUP);
	}
	if (!strcmp(mode, "offer-finish")) {
		struct wl_data_device *dev;
		struct wl_data_source *src;

		if (own_selection(&t, &dev, &src) < 0)
			return 1;
		wl_data_offer_finish(selection.offer);
		return test_client_expect(tc.display, "wl_data_offer",
					  WL_DATA_OFFER_ERROR_INVALID_FINISH);
	}
	if (!strcmp(mode, "source-actions")) {
		struct wl_data_device *dev =
			keep(wl_data_device_manager_get_data_device(
				tc.data_device_manager, tc.seat));
		struct wl_data_source *src =
			keep(wl_data_device_manager_create_data_source(
				tc.data_device_manager));

		wl_data_source_set_actions(
			src, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
		wl_data_device_set_selection(dev, src, 0);
		return test_client_expect(tc.display, "wl_data_source",
					  WL_DATA_SOURCE_ERROR_INVALID_SOURCE);
	}
	fprintf(stderr, "compositor-protocol-client: no mode %s\n", mode);
	return 2;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int ret;

	if (argc < 2) {
		fprintf(stderr, "usage: compositor-protocol-client output W H "
				"| decoration | clipboard-source TEXT | "
				"clipboard-target TEXT | ERROR-CASE\n");
		return 2;
	}
	if (test_client_connect(&tc, "compositor-protocol-client") < 0)
		return 2;
	if (!tc.compositor || !tc.shm || !tc.wm_base || !tc.viewporter ||
	    !tc.seat || !tc.decoration_manager || !tc.data_device_manager ||
	    xdg_wm_base_get_version(tc.wm_base) < 3) {
		printf("FAIL: a global is missing (wl_compositor, wl_shm, "
		       "xdg_wm_base version 3, wp_viewporter, wl_seat, "
		       "zxdg_decoration_manager_v1, wl_data_device_manager)\n");
		test_client_disconnect(&tc);
		return 1;
	}
	if (!strcmp(mode, "output") && argc == 4)
		ret = run_output(atoi(argv[2]), atoi(argv[3]));
	else if (!strcmp(mode, "decoration"))
		ret = run_decoration();
	else if (!strcmp(mode, "clipboard-source") && argc == 3)
		clip_text = argv[2], ret = run_clipboard_source();
	else if (!strcmp(mode, "popup-click") && argc == 3)
		ret = run_popup_click(argv[2]);
	else if (!strcmp(mode, "input-region") && argc == 3)
		ret = run_input_region(argv[2]);
	else if (!strcmp(mode, "opaque-region") && argc == 4)
		ret = run_opaque_region(argv[2], argv[3]);
	else if (!strcmp(mode, "clipboard-target") && argc == 3)
		ret = run_clipboard_target(argv[2]);
	else
		ret = run_error(mode);
	if (last_offer.offer && last_offer.offer != selection.offer)
		wl_data_offer_destroy(last_offer.offer);
	if (selection.offer)
		wl_data_offer_destroy(selection.offer);
	free_kept();
	test_client_disconnect(&tc);
	return ret;
}
