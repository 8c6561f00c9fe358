/*
 * glcuda-compositor: the control socket, through which a test (or
 * glcuda-compositor-ctl) drives the seat and waits for frames. A Unix
 * stream socket next to the Wayland socket ($XDG_RUNTIME_DIR/NAME.control,
 * given to the client as GLCUDA_COMPOSITOR_CONTROL); each connection sends
 * commands, one a line, and gets for each zero or more lines of data then
 * one line "ok [RESULT]" or "error MESSAGE". Commands are taken in order:
 * one that waits (frame, screenshot, wait-commit, wait-window) holds the
 * connection's next ones until it is answered. doc/compositor.md lists the
 * commands.
 *
 * Bounded: at most CONTROL_CONNS_MAX connections, lines of at most
 * CONTROL_LINE_MAX bytes (a longer one closes the connection), and a
 * connection that does not read its replies is closed.
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include "control/control.h"
#include "comp.h"
#include "output/output.h"
#include "render/render.h"
#include "resource.h"
#include "seat/seat.h"
#include "shell/shell.h"
#include "surface/surface.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "parse.h"

#define CONTROL_CONNS_MAX 16
#define CONTROL_LINE_MAX 4096

enum wait_kind {
	WAIT_NONE,
	WAIT_FRAME,
	WAIT_SCREENSHOT,
	WAIT_COMMIT,
	WAIT_WINDOW
};

struct control_conn {
	struct comp *comp;
	struct wl_list link;            /* comp.control_conns */
	int fd;
	struct wl_event_source *src;
	char in[CONTROL_LINE_MAX];
	size_t in_len;
	enum wait_kind wait;
	/* composite or commit count at the request */
	uint64_t wait_after;
	/* the screenshot's path, the window's name */
	char arg[PATH_MAX];
};

static void conn_process(struct control_conn *k);

/* What a connection waits for: a screenshot needs the next frame's
 * pixels. */
static void
conn_set_wait(struct control_conn *k, enum wait_kind wait)
{
	if (k->wait == WAIT_SCREENSHOT)
		capture_want_pixels(k->comp, false);
	k->wait = wait;
	if (wait == WAIT_SCREENSHOT)
		capture_want_pixels(k->comp, true);
}

static void
conn_close(struct control_conn *k)
{
	conn_set_wait(k, WAIT_NONE);
	wl_event_source_remove(k->src);
	close(k->fd);
	wl_list_remove(&k->link);
	free(k);
}

/* A reply, all of it, or the connection goes (it does not read). false
 * when it went. */
static bool
conn_send(struct control_conn *k, const char *fmt, ...)
{
	char buf[CONTROL_LINE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return false;
	if ((size_t)n > sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (send(k->fd, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) != n) {
		conn_close(k);
		return false;
	}
	return true;
}

/* A waiting command answered: the next ones may run. */
static void
conn_resume(struct control_conn *k)
{
	conn_set_wait(k, WAIT_NONE);
	conn_process(k);
}

/* A window of the list: a mapped toplevel (the window_map and
 * window_unmap events), in the order of the surfaces' stack. */
struct control_window {
	struct wl_list link;            /* comp.control_windows */
	struct surface *surface;
	const struct xdg_surface *xs;
};

static bool
name_matches(const struct control_window *w, const char *name)
{
	return !*name || strstr(w->xs->app_id, name) ||
	       strstr(w->xs->title, name);
}

/* The mapped toplevel named (app_id or title containing name), the
 * topmost if several; any with "". */
static struct control_window *
window_find(struct comp *c, const char *name)
{
	struct control_window *w, *found = NULL;

	wl_list_for_each(w, &c->control_windows, link)
		if (name_matches(w, name))
			found = w;
	return found;
}

static bool
send_window(struct control_conn *k, const struct control_window *win,
	    const char *prefix)
{
	const struct surface *s = win->surface;
	int32_t w, h;

	surface_get_size(s, &w, &h);
	return conn_send(k, "%s%d %d %d %d %s %s", prefix, s->x, s->y, w, h,
			 win->xs->app_id[0] ? win->xs->app_id : "-",
			 win->xs->title);
}

static bool
parse_button(const char *s, uint32_t *button)
{
	unsigned int b;

	/* linux/input-event-codes.h's BTN_LEFT, BTN_RIGHT, BTN_MIDDLE. */
	if (!strcmp(s, "left"))
		*button = 0x110;
	else if (!strcmp(s, "right"))
		*button = 0x111;
	else if (!strcmp(s, "middle"))
		*button = 0x112;
	else if (parse_uint(s, 0x110, 0x11f, &b))
		*button = b;
	else
		return false;
	return true;
}

/* A key press and release, with Shift around it if needed. */
static void
type_key(struct comp *c, uint32_t code, bool shift)
{
	uint32_t shift_code;

	shift = shift && keymap_shift_key(c->seat.keymap, &shift_code);
	if (shift)
		seat_key(c, shift_code, true);
	seat_key(c, code, true);
	seat_key(c, code, false);
	if (shift)
		seat_key(c, shift_code, false);
}

/* The next UTF-8 character of *p; 0 at the end or on a bad sequence. */
static uint32_t
utf8_next(const char **p)
{
	const unsigned char *s = (const unsigned char *)*p;
	uint32_t ch;
	int n;

	if (!*s)
		return 0;
	if (*s < 0x80)
		ch = *s, n = 0;
	else if ((*s & 0xe0) == 0xc0)
		ch = *s & 0x1f, n = 1;
	else if ((*s & 0xf0) == 0xe0)
		ch = *s & 0x0f, n = 2;
	else if ((*s & 0xf8) == 0xf0)
		ch = *s & 0x07, n = 3;
	else
		return 0;
	for (int i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		ch = ch << 6 | (s[i] & 0x3f);
	}
	*p += n + 1;
	return ch;
}

static bool
cmd_type(struct control_conn *k, const char *text)
{
	struct comp *c = k->comp;
	const char *p = text;
	uint32_t ch, code;
	bool shift;

	/* All of it known before any key goes. */
	while ((ch = utf8_next(&p)))
		if (!keymap_key_for_char(c->seat.keymap, ch, &code, &shift))
			return conn_send(k, "error no key types U+%04X", ch);
	if (*p)
		return conn_send(k, "error the text is not UTF-8");
	p = text;
	while ((ch = utf8_next(&p)) &&
	       keymap_key_for_char(c->seat.keymap, ch, &code, &shift))
		type_key(c, code, shift);
	return conn_send(k, "ok");
}

static bool
cmd_key(struct control_conn *k, char **argv, int argc)
{
	struct comp *c = k->comp;
	uint32_t code;
	bool shift;

	if (argc < 2 || argc > 3)
		return conn_send(k, "error usage: key NAME [press|release]");
	if (!keymap_key_for_name(c->seat.keymap, argv[1], &code, &shift))
		return conn_send(k, "error no key gives the keysym %s",
				 argv[1]);
	if (argc == 2)
		type_key(c, code, shift);
	else if (!strcmp(argv[2], "press") || !strcmp(argv[2], "release")) {
		if (!seat_key(c, code, !strcmp(argv[2], "press")))
			return conn_send(k, "error key %s is already %s",
					 argv[1],
					 argv[2][0] == 'p' ? "down" : "up");
	} else
		return conn_send(k, "error usage: key NAME [press|release]");
	return conn_send(k, "ok");
}

/* A command that waits for a frame composited after it: one is forced,
 * so the answer comes at the next vblank the ring allows. */
static bool
wait_frame(struct control_conn *k, enum wait_kind kind)
{
	conn_set_wait(k, kind);
	k->wait_after = k->comp->composited;
	k->comp->damaged = true;
	return true;
}

/* One command line, split in place. false when the connection went. */
static bool
conn_command(struct control_conn *k, char *line)
{
	struct comp *c = k->comp;
	char *argv[8], *save = NULL;
	int argc = 0, x, y;

	/* "type" takes the rest of the line as it is. */
	if (!strncmp(line, "type ", 5))
		return cmd_type(k, line + 5);
	for (char *t = strtok_r(line, " \t", &save); t && argc < 8;
	     t = strtok_r(NULL, " \t", &save))
		argv[argc++] = t;
	if (!argc)
		return true;
	if (!strcmp(argv[0], "pointer-move") || !strcmp(argv[0], "click")) {
		uint32_t button = 0x110;

		if (argc < 3 || argc > (argv[0][0] == 'c' ? 4 : 3) ||
		    !parse_int(argv[1], -65536, 65536, &x) ||
		    !parse_int(argv[2], -65536, 65536, &y) ||
		    (argc == 4 && !parse_button(argv[3], &button)))
			return conn_send(
				k,
				"error usage: pointer-move X Y, click X Y "
				"[BUTTON]");
		seat_pointer_move(c, x, y);
		if (argv[0][0] == 'c' && seat_pointer_button(c, button, true))
			seat_pointer_button(c, button, false);
		return conn_send(k, "ok");
	}
	if (!strcmp(argv[0], "pointer-button")) {
		uint32_t button;

		if (argc != 3 || !parse_button(argv[1], &button) ||
		    (strcmp(argv[2], "press") && strcmp(argv[2], "release")))
			return conn_send(
				k,
				"error usage: pointer-button "
				"left|right|middle|CODE press|release");
		if (!seat_pointer_button(c, button, !strcmp(argv[2], "press")))
			return conn_send(k, "error button %s is already %s",
					 argv[1],
					 argv[2][0] == 'p' ? "down" : "up");
		return conn_send(k, "ok");
	}
	if (!strcmp(argv[0], "scroll")) {
		if (argc != 3 || !parse_int(argv[1], -1000, 1000, &x) ||
		    !parse_int(argv[2], -1000, 1000, &y))
			return conn_send(
				k, "error usage: scroll DX DY (wheel steps)");
		seat_pointer_scroll(c, x, y);
		return conn_send(k, "ok");
	}
	if (!strcmp(argv[0], "key"))
		return cmd_key(k, argv, argc);
	if (!strcmp(argv[0], "focus")) {
		struct control_window *w =
			window_find(c, argc > 1 ? argv[1] : "");

		if (argc != 2)
			return conn_send(k, "error usage: focus NAME");
		if (!w)
			return conn_send(k, "error no mapped window %s",
					 argv[1]);
		seat_focus(c, w->surface);
		return conn_send(k, "ok");
	}
	if (!strcmp(argv[0], "windows")) {
		struct control_window *w;

		wl_list_for_each(w, &c->control_windows, link)
			if (!send_window(k, w, ""))
				return false;
		return conn_send(k, "ok");
	}
	if (!strcmp(argv[0], "wait-window")) {
		if (argc > 2)
			return conn_send(k, "error usage: wait-window [NAME]");
		snprintf(k->arg, sizeof(k->arg), "%s", argc > 1 ? argv[1] : "");
		if (window_find(c, k->arg))
			return send_window(k, window_find(c, k->arg), "ok ");
		conn_set_wait(k, WAIT_WINDOW);
		return true;
	}
	if (!strcmp(argv[0], "wait-commit")) {
		uint64_t after = c->commits;

		if (argc > 2 ||
		    (argc == 2 && !parse_u64(argv[1], 0, UINT64_MAX, &after)))
			return conn_send(k,
					 "error usage: wait-commit [COMMITS]");
		if (c->out.have_frame && c->out.shown_commits > after)
			return conn_send(
				k, "ok %llu %llu",
				(unsigned long long)(c->out.frames - 1),
				(unsigned long long)c->out.shown_commits);
		conn_set_wait(k, WAIT_COMMIT);
		k->wait_after = after;
		return true;
	}
	if (!strcmp(argv[0], "frame") && argc == 1)
		return wait_frame(k, WAIT_FRAME);
	if (!strcmp(argv[0], "screenshot")) {
		if (argc != 2 || strlen(argv[1]) >= sizeof(k->arg))
			return conn_send(k, "error usage: screenshot FILE.png");
		snprintf(k->arg, sizeof(k->arg), "%s", argv[1]);
		return wait_frame(k, WAIT_SCREENSHOT);
	}
	if (!strcmp(argv[0], "quit") && argc == 1) {
		c->running = false;
		return conn_send(k, "ok");
	}
	return conn_send(
		k, "error unknown command %s (doc/compositor.md lists them)",
		argv[0]);
}

/* The complete lines received, while none waits. */
static void
conn_process(struct control_conn *k)
{
	while (k->wait == WAIT_NONE) {
		char *nl = memchr(k->in, '\n', k->in_len);
		size_t len;

		if (!nl)
			return;
		*nl = '\0';
		len = (size_t)(nl - k->in) + 1;
		if (nl > k->in && nl[-1] == '\r')
			nl[-1] = '\0';
		if (!conn_command(k, k->in))
			return;
		memmove(k->in, k->in + len, k->in_len - len);
		k->in_len -= len;
	}
}

static int
on_conn_data(int fd, uint32_t mask, void *data)
{
	struct control_conn *k = data;
	ssize_t n;

	if (k->in_len == sizeof(k->in)) {
		/* A line longer than CONTROL_LINE_MAX, or a client that sends
		 * while it waits and never reads. */
		if (conn_send(k, "error a line is longer than %d bytes",
			      CONTROL_LINE_MAX - 1))
			conn_close(k);
		return 0;
	}
	n = recv(fd, k->in + k->in_len, sizeof(k->in) - k->in_len,
		 MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0) {
		conn_close(k);
		return 0;
	}
	k->in_len += (size_t)n;
	conn_process(k);
	return 0;
}

static int
on_accept(int fd, uint32_t mask, void *data)
{
	struct comp *c = data;
	struct control_conn *k;
	int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (cfd < 0)
		return 0;
	if (wl_list_length(&c->control_conns) >= CONTROL_CONNS_MAX) {
		static const char msg[] =
			"error too many control connections\n";
		send(cfd, msg, sizeof(msg) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		close(cfd);
		return 0;
	}
	k = calloc(1, sizeof(*k));
	if (!k) {
		close(cfd);
		return 0;
	}
	k->comp = c;
	k->fd = cfd;
	k->src = wl_event_loop_add_fd(c->loop, cfd, WL_EVENT_READABLE,
				      on_conn_data, k);
	if (!k->src) {
		close(cfd);
		free(k);
		return 0;
	}
	wl_list_insert(c->control_conns.prev, &k->link);
	return 0;
}

/* A toplevel mapped: into the list, at its place in the surfaces'
 * stack (a toplevel's surface never moves in it), and the waits for it
 * answered. */
static void
on_window_map(struct wl_listener *listener, void *data)
{
	struct comp *c = wl_container_of(listener, c, control_window_map);
	struct surface *s = data, *above;
	struct control_window *w = calloc(1, sizeof(*w)), *pos;
	struct wl_list *before = &c->control_windows;
	struct control_conn *k, *tmp;

	if (!w)
		return;
	w->surface = s;
	w->xs = xdg_surface_from_surface(s);
	/* Before the first window whose surface is above s. */
	for (above = wl_container_of(s->link.next, above, link);
	     &above->link != &c->surfaces && before == &c->control_windows;
	     above = wl_container_of(above->link.next, above, link))
		wl_list_for_each(pos, &c->control_windows, link)
			if (pos->surface == above) {
				before = &pos->link;
				break;
			}
	wl_list_insert(before->prev, &w->link);
	wl_list_for_each_safe(k, tmp, &c->control_conns, link)
		if (k->wait == WAIT_WINDOW && name_matches(w, k->arg) &&
		    send_window(k, w, "ok "))
			conn_resume(k);
}

static void
on_window_unmap(struct wl_listener *listener, void *data)
{
	struct comp *c = wl_container_of(listener, c, control_window_unmap);
	struct control_window *w, *tmp;

	wl_list_for_each_safe(w, tmp, &c->control_windows, link)
		if (w->surface == data) {
			wl_list_remove(&w->link);
			free(w);
		}
}

/* A frame presented as the output's frame seq: composite, its number;
 * commits, the commits in it. */
static void
on_presented(struct wl_listener *listener, void *data)
{
	struct comp *c = wl_container_of(listener, c, control_presented);
	const struct output_event *ev = data;
	uint64_t composite = ev->content->composite;
	uint64_t commits = ev->content->commits, seq = ev->n;
	struct control_conn *k, *tmp;

	wl_list_for_each_safe(k, tmp, &c->control_conns, link) {
		bool sent;

		if ((k->wait == WAIT_FRAME || k->wait == WAIT_SCREENSHOT) &&
		    composite > k->wait_after) {
			if (k->wait == WAIT_SCREENSHOT) {
				if (capture_write_png(c, k->arg) < 0)
					sent = conn_send(
						k, "error cannot write %s",
						k->arg);
				else
					sent = conn_send(
						k, "ok %llu %llu %s",
						(unsigned long long)seq,
						(unsigned long long)commits,
						k->arg);
			} else {
				sent = conn_send(k, "ok %llu %llu",
						 (unsigned long long)seq,
						 (unsigned long long)commits);
			}
		} else if (k->wait == WAIT_COMMIT && commits > k->wait_after) {
			sent = conn_send(k, "ok %llu %llu",
					 (unsigned long long)seq,
					 (unsigned long long)commits);
		} else {
			continue;
		}
		if (sent)
			conn_resume(k);
	}
}

int
control_init(struct comp *c)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	const char *dir = getenv("XDG_RUNTIME_DIR");
	int n;

	wl_list_init(&c->control_conns);
	wl_list_init(&c->control_windows);
	c->control_window_map.notify = on_window_map;
	wl_signal_add(&c->events.window_map, &c->control_window_map);
	c->control_window_unmap.notify = on_window_unmap;
	wl_signal_add(&c->events.window_unmap, &c->control_window_unmap);
	c->control_presented.notify = on_presented;
	wl_signal_add(&c->out.events.presented, &c->control_presented);
	n = snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%s.control", dir,
		     c->socket);
	if (n < 0 || (size_t)n >= sizeof(addr.sun_path)) {
		fprintf(stderr,
			COMP_NAME
			": the control socket's path %s/%s.control is longer "
			"than %zu bytes: use a shorter XDG_RUNTIME_DIR\n",
			dir, c->socket, sizeof(addr.sun_path) - 1);
		return -1;
	}
	c->control_fd =
		socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->control_fd < 0) {
		fprintf(stderr, COMP_NAME ": socket: %s\n", strerror(errno));
		return -1;
	}
	/* The Wayland socket's lock is held: a file left there is stale. */
	unlink(addr.sun_path);
	if (bind(c->control_fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(c->control_fd, CONTROL_CONNS_MAX) < 0) {
		fprintf(stderr, COMP_NAME ": cannot listen on %s: %s\n",
			addr.sun_path, strerror(errno));
		close(c->control_fd);
		c->control_fd = -1;
		return -1;
	}
	c->control_path = strdup(addr.sun_path);
	c->control_src = wl_event_loop_add_fd(c->loop, c->control_fd,
					      WL_EVENT_READABLE, on_accept, c);
	if (!c->control_path || !c->control_src) {
		fprintf(stderr,
			COMP_NAME ": cannot watch the control socket\n");
		return -1;
	}
	return 0;
}

void
control_fini(struct comp *c)
{
	while (c->control_conns.next && !wl_list_empty(&c->control_conns)) {
		struct control_conn *k =
			wl_container_of(c->control_conns.next, k, link);
		conn_close(k);
	}
	if (c->control_presented.notify) {
		listener_detach(&c->control_presented);
		listener_detach(&c->control_window_map);
		listener_detach(&c->control_window_unmap);
	}
	while (c->control_windows.next && !wl_list_empty(&c->control_windows)) {
		struct control_window *w =
			wl_container_of(c->control_windows.next, w, link);

		wl_list_remove(&w->link);
		free(w);
	}
	if (c->control_src)
		wl_event_source_remove(c->control_src);
	c->control_src = NULL;
	if (c->control_fd >= 0)
		close(c->control_fd);
	c->control_fd = -1;
	if (c->control_path)
		unlink(c->control_path);
	free(c->control_path);
	c->control_path = NULL;
}
