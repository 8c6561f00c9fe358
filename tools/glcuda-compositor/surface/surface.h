/*
 * glcuda-compositor's surfaces: wl_surface and its state (surface.c,
 * surface-state.c), and what is beyond every surface, listening to its
 * events: subsurfaces (subsurface.c), the viewport (viewporter.c),
 * presentation feedback (presentation.c); regions (region.c) and the walk
 * of a subsurface tree (tree.c).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_COMPOSITOR_SURFACE_H
#define GLCUDA_COMPOSITOR_SURFACE_H

#include <epoxy/gl.h>

#include <stdbool.h>
#include <stdint.h>

#include <pixman.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>

struct comp;

/* The deepest subsurface tree a client may build: a surface is at most
 * this many levels below its root surface. get_subsurface past it is a
 * wl_subcompositor.bad_surface error. The bound makes every walk of a tree
 * (applying cached state, drawing) use a fixed-size stack instead of
 * recursion, and every walk up to the root a bounded loop. */
#define SUBSURFACE_DEPTH_MAX 64

/* shm uploads larger than this many bytes are spread over refreshes, this
 * many bytes per refresh at 60 Hz for all surfaces together, and a share
 * of it in proportion to the refresh period above 60 Hz (at least
 * UPLOAD_BYTES_MIN): the upload takes the same share of each refresh at
 * any rate (surface.c, surface_uploads_step()). */
#define UPLOAD_BYTES_PER_REFRESH (8u << 20)
#define UPLOAD_BYTES_MIN (1u << 20)

/* A surface's content in GL: one texture, or for a large shm buffer a
 * column of strips, each a texture of `rows` rows of the buffer (the last
 * one fewer). A strip is at most UPLOAD_BYTES_PER_REFRESH: allocating one
 * (which Mesa's llvmpipe zero-fills: 0.2 s for 8192x8192) fits in a
 * refresh as well as uploading it. tex[i] is 0 until strip i is made. */
#define STRIPS_MAX 64

struct strips {
	int n;
	int32_t rows;
	GLuint tex[STRIPS_MAX];
};

/* Damage: a few rectangles; more are merged into their bounding box (an
 * upload of a little more than was damaged is still correct). */
#define DAMAGE_RECTS 8

struct rect {
	int32_t x, y, w, h;
};

struct damage {
	int n;
	struct rect r[DAMAGE_RECTS];
};

/* wp_viewport's crop and scale (viewporter.c), double-buffered with the
 * rest of a surface's state: the source rectangle in surface coordinates
 * before the viewport (after the buffer transform and scale), and the
 * size the surface takes. src_w < 0: no source rectangle; dst_w < 0: no
 * destination size. */
struct viewport_state {
	wl_fixed_t src_x, src_y, src_w, src_h;
	int32_t dst_w, dst_h;
};

/* The double-buffered state of a wl_surface: pending until commit; for a
 * synchronized subsurface, cached until its parent's state is applied. */
struct surface_state {
	struct wl_resource *buffer;
	struct wl_listener buffer_destroy;
	bool attached;                  /* a buffer (maybe NULL) was attached */
	int32_t scale;
	int32_t transform;              /* enum wl_output_transform */
	struct damage damage;           /* surface coordinates */
	struct damage buffer_damage;    /* buffer coordinates */
	struct wl_list frames;          /* wl_callback resources */
	struct wl_list feedback;        /* wp_presentation_feedback resources */
	struct viewport_state viewport;
	/* set_opaque_region, set_input_region: applied only when set (a
	 * NULL wl_region sets an empty opaque region, an infinite input
	 * region). Surface coordinates. */
	bool opaque_region_set, input_region_set;
	pixman_region32_t opaque_region, input_region;
};

/* An entry of a surface's stack: the surface itself or one of its
 * subsurfaces (subsurface.c's), with its position relative to the parent
 * (0, 0 for itself). Each has a current entry and a pending one: applied
 * is the current entry a pending one is applied to (itself for a current
 * one). */
struct stack_entry {
	struct wl_list link;
	struct surface *surface;
	int32_t x, y;
	struct stack_entry *applied;
};

/* What the client_commit event carries: a listener sets cache to hold the
 * state back (a synchronized subsurface's) until its parent's state is
 * applied or it is released (surface_apply_cached). */
struct surface_commit {
	bool cache;
};

/* What the check event carries: the state about to be applied, its
 * buffer already; a listener that finds it wrong posts the protocol
 * error and sets refused (the state is then not applied). */
struct surface_check {
	const struct surface_state *state;
	bool refused;
};

/* A surface's role. wl_surface gives a surface one role for its life: set
 * by xdg_wm_base.get_xdg_surface (shell.c: xdg_toplevel and xdg_popup are
 * that role's objects), wl_subcompositor.get_subsurface (surface.c) and
 * wl_pointer.set_cursor (seat.c). Its role object may go and a new one of
 * the same role come; another role is a protocol error of the request
 * that asks for it. The role keeps its state in the surface's role_data
 * and listens to the surface's events (commit, destroy); surface.c calls
 * the hooks below and knows nothing else of the role. */
struct surface_role {
	const char *name;
	/* Before a state is applied: false after a protocol error (the
	 * state is then not applied). NULL: nothing to check. */
	bool (*precommit)(struct surface *s, const struct surface_state *st);
	/* What names the surface's window in messages, NULL for nothing.
	 * NULL: nothing does. */
	const char *(*describe)(const struct surface *s);
};

/* A large shm buffer uploaded over several refreshes: renderer state, as
 * weston's GL renderer keeps what it uploads apart from the protocol's
 * state. texture.c fills its strips, rows [0, row) done; surface.c starts
 * and finishes it (surface_uploads_step). state is the commit that
 * attached the buffer, which completes with the upload (its buffer held,
 * its callbacks and feedback waiting); the commits made meanwhile are
 * merged into next and applied after it, in order. */
struct upload {
	struct surface *surface;
	struct wl_list link;            /* comp.uploads */
	struct strips strips;
	uint32_t row;
	struct surface_state state;
	bool has_next;
	struct surface_state next;
};

/* A wl_surface, and its role if it has one. */
struct surface {
	struct comp *comp;
	struct wl_resource *resource;
	struct wl_list link;            /* comp.surfaces, stacking order */
	struct {
		/* wl_surface.commit, before anything: struct surface_commit. */
		struct wl_signal client_commit;
		/* A state is being applied: struct surface_check. */
		struct wl_signal check;
		/* A state was applied, with the states that its synchronized
		 * subsurfaces cached: the role's part of the commit. */
		struct wl_signal commit;
		/* The wl_surface is being destroyed: what holds it lets go. */
		struct wl_signal destroy;
	} events;

	struct surface_state pending;
	/* A committed state held back (client_commit's cache), and whether
	 * there is one. */
	struct surface_state cached;
	bool has_cache;

	/* Current state. */
	struct strips tex;              /* n == 0: none */
	bool tex_image;                 /* made from a dma-buf's EGLImage */
	struct wl_resource *held_buffer; /* a dma-buf buffer sampled in place */
	struct wl_listener held_buffer_destroy;
	uint32_t tex_width, tex_height; /* the textures' storage, all strips */
	uint32_t buffer_width, buffer_height;
	bool opaque;                    /* XRGB8888: alpha ignored */
	/* Where the client says its content is opaque, and where it takes
	 * pointer input (both within the surface's size only). */
	pixman_region32_t opaque_region, input_region;
	int32_t scale;
	int32_t transform;              /* enum wl_output_transform */
	bool has_content;
	struct viewport_state viewport;
	struct wl_list frames;          /* committed, waiting for a composite */
	struct wl_list feedback;

	/* The stacking order of itself and its subsurfaces, bottom to top
	 * (the pending order is applied with its state). */
	struct wl_list stack, stack_pending; /* struct stack_entry */
	struct stack_entry self, self_pending;

	/* A large shm upload in progress (NULL: none); tex above shows the
	 * previous content until it is complete. */
	struct upload *upload;

	/* Its role (NULL: none yet), the role's own state and its current
	 * role object (NULL: none now). */
	const struct surface_role *role;
	void *role_data;
	struct wl_resource *role_resource;
	/* Shown on the output (its role decides) and where. */
	bool mapped;
	int32_t x, y;                   /* position on the output */
};

/* tree.c: a surface's tree, depth first in stacking order (bottom to
 * top), without recursion. Each entry is a surface's own place in its
 * parent's order (self: where it is drawn; the root's comes too) or a
 * subsurface's place, whose own tree is walked next only if
 * tree_walk_enter is called before the next tree_walk_next. */
struct tree_entry {
	struct surface *surface;
	bool self;
	int depth;                      /* levels below the root */
	int32_t x, y;                   /* its position on the output */
};

struct tree_walk {
	struct {
		struct surface *s;
		/* the entry last returned in s->stack */
		struct wl_list *pos;
		int32_t x, y;
	} level[SUBSURFACE_DEPTH_MAX + 1];
	int top;
	struct surface *child;          /* the subsurface just returned */
	int32_t child_x, child_y;
};

void tree_walk_init(struct tree_walk *w, struct surface *root, int32_t x,
		    int32_t y);
/* The next entry (out filled), NULL after the last. */
struct surface *tree_walk_next(struct tree_walk *w, struct tree_entry *out);
/* Into the subsurface just returned; false past SUBSURFACE_DEPTH_MAX (not
 * reached: get_subsurface keeps trees shallower). */
bool tree_walk_enter(struct tree_walk *w);

/* surface.c */
/* wl_compositor advertised. */
bool surface_init(struct comp *c);
struct surface *surface_from_resource(struct wl_resource *resource);
/* Give s the role, or keep the one it has if it is that one; false when
 * it has another (the caller posts its interface's error). */
bool surface_set_role(struct surface *s, const struct surface_role *role);
/* wl_surface.enter for the output: clients pick their buffer scale from
 * the outputs they are on. */
void surface_send_enter(struct surface *s);
/* The state cached (struct surface_commit) applied now, or discarded. */
void surface_apply_cached(struct surface *s);
void surface_discard_cached(struct surface *s);
/* A buffer was attached (pending) or committed: too late for a role or
 * its decoration. */
bool surface_has_buffer(const struct surface *s);
/* The surface's size: its buffer's divided by the scale, rotated by the
 * buffer transform. */
void surface_get_size(const struct surface *s, int32_t *w, int32_t *h);
/* Whether sx, sy (surface coordinates) is within the surface and its
 * input region: where the pointer finds it. */
bool surface_accepts_input(const struct surface *s, double sx, double sy);
/* Whether the whole surface is opaque: its format has no alpha, or its
 * opaque region covers it. It is then drawn without blending. */
bool surface_is_opaque(const struct surface *s);
/* At each refresh, before compositing: the next rows of the large uploads
 * in progress; the ones completed show their new content. */
void surface_uploads_step(struct comp *c);

/* surface-state.c: a surface's double-buffered state. */
void state_init(struct surface_state *st);
void state_set_buffer(struct surface_state *st, struct wl_resource *buffer);
/* After the state was applied or moved: what is not sticky goes. */
void state_clear(struct surface_state *st);
/* Merge src into dst: what src set replaces dst's, callbacks add up. */
void state_move(struct surface_state *dst, struct surface_state *src);
/* The state will never be applied: its callbacks go, its feedback is
 * discarded (c's feedback_discard event). It stays usable. */
void state_discard(struct comp *c, struct surface_state *st);
/* The state's object goes: discarded, its regions freed. */
void state_fini(struct comp *c, struct surface_state *st);
void damage_add(struct damage *d, int32_t x, int32_t y, int32_t w, int32_t h);
/* Destroy every resource of the list (wl_callback). */
void destroy_all(struct wl_list *list);
/* The state's damage in buffer coordinates, clipped to the buffer of
 * w x h pixels. */
void state_buffer_damage(const struct surface *s,
			 const struct surface_state *st, int32_t w, int32_t h,
			 struct damage *out);
/* What libwayland does not check about a shm buffer. false after a
 * protocol error. */
bool shm_buffer_check(struct surface *s, struct wl_resource *buffer,
		      struct wl_shm_buffer *shm, int32_t scale);
void viewport_state_init(struct viewport_state *v);
bool viewport_is_set(const struct viewport_state *v);
/* The surface size the viewport gives; false when it gives none (no
 * destination size, no source rectangle). */
bool viewport_size(const struct viewport_state *v, int32_t *w, int32_t *h);
/* The surface size before the viewport: the buffer's through a buffer
 * transform and scale. */
void surface_unviewported_size(const struct surface *s, int32_t scale,
			       int32_t transform, int64_t *w, int64_t *h);
/* The source rectangle of the current state in the surface's coordinates
 * before the viewport, normalized: x, y, w, h in 0..1 (0, 0, 1, 1 without
 * one). */
void surface_get_crop(const struct surface *s, float crop[4]);

/* subsurface.c: wl_subcompositor advertised. */
bool subsurface_init(struct comp *c);
/* The root of s's tree: a toplevel if s is part of a window. */
struct surface *surface_root(struct surface *s);

/* region.c: wl_region. */
void region_create(struct wl_client *client, int version, uint32_t id);
/* dst (initialized) becomes a copy of the wl_region's region. */
void region_copy(pixman_region32_t *dst, struct wl_resource *resource);
/* A region of every point: an input region not set. */
void region_init_infinite(pixman_region32_t *r);

/* viewporter.c */
bool viewporter_init(struct comp *c);

/* presentation.c */
bool presentation_init(struct comp *c);
/* Feedback for content that never reaches the output. */
void feedback_discard_all(struct wl_list *list);

#endif
