/*
 * glcuda-compositor's xdg-shell: the xdg_surface role and its toplevels
 * (shell.c), popups (popup.c) placed by positioners (positioner.c), and
 * decorations (decoration.c).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_COMPOSITOR_SHELL_H
#define GLCUDA_COMPOSITOR_SHELL_H

#include <stdbool.h>
#include <stdint.h>

#include <wayland-server-core.h>

#include "surface/surface.h"

struct comp;
struct popup;

/* The deepest popup nesting: a popup is at most this many levels above
 * its toplevel. get_popup past it is xdg_wm_base.invalid_popup_parent. */
#define POPUP_DEPTH_MAX 16
#define POPUP_DEPTH_MAX_STR "16"

/* Configures sent and not yet acked, per xdg_surface: while this many are
 * outstanding, a new one waits for an ack (a client that never acks
 * cannot make the list grow). */
#define CONFIGURE_PENDING_MAX 16

/* An xdg_surface's state (shell.c): the role data of a surface with the
 * xdg_surface role, made by its first get_xdg_surface and kept for the
 * wl_surface's life (a new xdg_surface may come). */
struct xdg_surface {
	struct surface *surface;
	/* The xdg_surface object and its role object, NULL when none. */
	struct wl_resource *resource, *toplevel, *xdg_popup;
	struct popup *popup;            /* its xdg_popup's state (popup.c) */
	/* The popups whose parent it is (struct popup.parent_link), oldest
	 * first, and how many of them are mapped with a grab. */
	struct wl_list popups;
	int popup_grabs;
	/* xdg_surface.set_window_geometry, applied at commit; w 0: unset
	 * (the surface's origin is then the window's). */
	struct rect geometry, geometry_pending;
	/* sent, not acked; oldest first */
	uint32_t pending_serials[CONFIGURE_PENDING_MAX];
	int n_pending;
	bool configure_deferred;        /* one is due once the client acks */
	bool configured;                /* a configure was acked */
	bool initial_commit_done;
	bool fullscreen, maximized;
	char title[128], app_id[128];   /* as set, cut at 127 bytes */
	struct {
		/* A toplevel's configure was sent: its decoration's follows,
		 * before xdg_surface.configure. */
		struct wl_signal configure;
		/* The xdg_toplevel goes. */
		struct wl_signal toplevel_destroy;
		/* The xdg objects let go of the surface: the xdg_surface went
		 * before its role object, or the wl_surface went. */
		struct wl_signal defunct;
	} events;
	struct wl_listener surface_commit, surface_destroy;
	struct wl_listener popup_reposition;
};

/* Whether s has the xdg_surface role: its xdg state, else NULL. */
extern const struct surface_role xdg_surface_role;
static inline struct xdg_surface *
xdg_surface_from_surface(const struct surface *s)
{
	return s->role == &xdg_surface_role ? s->role_data : NULL;
}

/* shell.c */
bool shell_init(struct comp *c);
/* A configure for the xdg surface's new state, once the initial commit
 * was answered (before, the initial configure will carry it). */
void shell_configure(struct xdg_surface *xs);

/* positioner.c: xdg_positioner. */
struct positioner {
	int32_t w, h;                   /* 0: not set */
	struct rect anchor_rect;
	bool has_anchor_rect;
	uint32_t anchor, gravity, constraint;
	int32_t off_x, off_y;
};
void positioner_create(struct wl_client *client, struct wl_resource *wm_base,
		       uint32_t id);
/* The rules as they are now: later changes do not move the popup. */
void positioner_get(struct wl_resource *resource, struct positioner *to);
/* Where the rules place a popup, relative to its parent's window geometry
 * at bx, by on an output of area_w x area_h, kept inside the output. */
struct rect positioner_place(const struct positioner *pos, int32_t bx,
			     int32_t by, uint32_t area_w, uint32_t area_h);

/* popup.c */
/* The xdg_popup of xs; its xdg_surface's errors go on xdg_surface. NULL
 * after an error. */
struct popup *popup_create(struct wl_client *client,
			   struct wl_resource *xdg_surface,
			   struct xdg_surface *xs, uint32_t id,
			   struct wl_resource *parent,
			   struct wl_resource *positioner);
/* The popup asked to be placed again (reposition): data, the popup. */
struct wl_signal *popup_reposition_signal(struct popup *p);
/* xdg_popup.configure (and repositioned), before xdg_surface.configure. */
void popup_send_configure(struct xdg_surface *xs);
/* A commit after the initial one: placed, mapped over its parent. */
void popup_commit(struct xdg_surface *xs);
/* The popups above xs get popup_done, topmost first (xs is unmapped). */
void popup_parent_unmapped(struct xdg_surface *xs);
/* The surface or its xdg_surface goes: its popups are dismissed, its
 * xdg_popup becomes inert. */
void popup_surface_destroyed(struct xdg_surface *xs);
/* The popup's surface was unmapped by its client (a NULL buffer). */
void popup_unmapped(struct xdg_surface *xs);
/* The popups' grab of the seat, before any popup. */
void popup_init(struct comp *c);

/* decoration.c */
bool decoration_init(struct comp *c);

#endif
