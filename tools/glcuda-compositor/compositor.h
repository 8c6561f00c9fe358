/*
 * glcuda-compositor: a headless Wayland compositor whose output goes
 * through glcuda's frame ring: every frame it composites with GL is handed
 * to CUDA (a filter or the user's kernel) and back, without copies, and
 * "presented" as PNG files or a y4m video stream, one frame per refresh.
 * Tests drive its seat and take screenshots through a control socket.
 *
 * Files, each with one job:
 *   main.c          setup, the loop and the report at exit
 *   options.c       the command line
 *   resource.c      helpers for protocol objects, listeners and plain
 *                   globals, used by every protocol file
 *   display.c       the wl_display, its socket and the registration of
 *                   every global (wl_shm, wl_output, each file's _init)
 *   seat.c          wl_seat: a pointer and a keyboard, their focus, events
 *   keymap.c        the keyboard's xkb keymap and modifiers
 *   control.c       the control socket: driving the seat, screenshots,
 *                   waits for frames, commits and windows
 *   surface.c       wl_compositor, wl_surface: the protocol, when a commit
 *                   completes; what is beyond listens to its events
 *   surface-state.c a surface's double-buffered state, damage, the
 *                   viewport's sizes
 *   subsurface.c    wl_subcompositor, wl_subsurface: the subsurface role
 *   region.c        wl_region: pixman regions (input, opaque)
 *   tree.c          the walk of a surface's subsurface tree
 *   texture.c       client buffers (shm, dma-buf) to GL textures
 *   dmabuf.c        zwp_linux_dmabuf_v1: dma-bufs imported as EGLImages
 *   shell.c         xdg-shell: xdg_wm_base, xdg_surface, xdg_toplevel
 *   presentation.c  wp_presentation and its feedback
 *   render.c        GL compositing, the ring and the CUDA stage
 *   output.c        the vblank timer, presenting frames: its events
 *   capture.c       what the frames are written to: PNG, y4m, screenshots
 *   launch.c        the runtime directory and the client it runs
 *   viewporter.c    wp_viewporter: crop and scale of surfaces
 *   decoration.c    zxdg_decoration_manager_v1: always client-side
 *   xdg-output.c    zxdg_output_manager_v1: the output's logical geometry
 *   popup.c         xdg_popup: placement, grabs, dismissal
 *   positioner.c    xdg_positioner: the rules that place a popup
 *   data-device.c   wl_data_device_manager: the clipboard between clients
 *   ctl.c           glcuda-compositor-ctl, a separate program: one
 *                   command to the control socket
 *
 * Single-threaded: everything runs on the thread of the event loop, where
 * the EGL context is current.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_COMPOSITOR_H
#define GLCUDA_COMPOSITOR_H

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <pixman.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>

#include "filters.h"

#define COMP_NAME "glcuda-compositor"
/* The one output's wl_output and zxdg_output_v1 name and description. */
#define OUTPUT_NAME "HEADLESS-1"
#define OUTPUT_DESCRIPTION "glcuda-compositor headless output"

enum y4m_chroma { Y4M_444 = 0, Y4M_420 };

struct options {
	uint32_t width, height;
	unsigned int refresh_hz;
	uint64_t frames;            /* 0: until the client exits */
	int filter;                 /* enum filter_kind */
	const char *kernel_file;    /* the user's PTX or cubin */
	const char *kernel_name;
	bool gles;                  /* GLES 3 (default) or GL 4.5 core */
	enum glcuda_sync_mode sync;
	int cuda_device;            /* -1: any */
	uint64_t png_every;         /* 0: no PNGs */
	const char *png_dir;
	const char *output;         /* y4m file, "-" for stdout, NULL: none */
	enum y4m_chroma chroma;
	bool verbose;
	char **command;             /* the client: argv, NULL-terminated */
};

/* The deepest subsurface tree a client may build: a surface is at most
 * this many levels below its root surface. get_subsurface past it is a
 * wl_subcompositor.bad_surface error. The bound makes every walk of a tree
 * (applying cached state, drawing) use a fixed-size stack instead of
 * recursion, and every walk up to the root a bounded loop. */
#define SUBSURFACE_DEPTH_MAX 64

/* The deepest popup nesting: a popup is at most this many levels above
 * its toplevel. get_popup past it is xdg_wm_base.invalid_popup_parent. */
#define POPUP_DEPTH_MAX 16
#define POPUP_DEPTH_MAX_STR "16"

/* Configures sent and not yet acked, per xdg_surface: while this many are
 * outstanding, a new one waits for an ack (a client that never acks
 * cannot make the list grow). */
#define CONFIGURE_PENDING_MAX 16

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

/* The keyboard's modifiers, as wl_keyboard.modifiers sends them. */
struct key_mods {
	uint32_t depressed, latched, locked, group;
};

/* Keys and buttons held down at once: more are refused. */
#define SEAT_KEYS_MAX 32
#define SEAT_BUTTONS_MAX 16

/* A device's focus: NULL once the surface is destroyed. */
struct focus {
	struct surface *surface;
	struct wl_listener gone;
};

/* A grab of the seat's pointer (a popup's): the seat calls it, and knows
 * nothing else of who holds it. */
struct seat_grab;
struct seat_grab_interface {
	/* A button pressed over under (NULL: nothing), before the click
	 * focuses it. */
	void (*button)(struct seat_grab *grab, struct surface *under);
};
struct seat_grab {
	const struct seat_grab_interface *impl;
	struct comp *comp;
};

/* wl_seat: one pointer, one keyboard (seat.c). */
struct seat {
	struct seat_grab *grab;         /* NULL: none */
	struct wl_listener window_map;
	/* wl_pointer, wl_keyboard resources */
	struct wl_list pointers, keyboards;
	struct keymap *keymap;
	struct focus pointer_focus;     /* the surface under the pointer */
	struct focus keyboard_focus;    /* a toplevel's surface */
	double x, y;                    /* the pointer on the output */
	double sx, sy;                  /* and on its focus */
	uint32_t buttons[SEAT_BUTTONS_MAX];
	int n_buttons;
	uint32_t keys[SEAT_KEYS_MAX];   /* evdev codes */
	int n_keys;
	struct key_mods mods;
};

/* The clipboard (data-device.c). */
struct data_source;
struct clipboard {
	struct wl_list devices;         /* wl_data_device resources */
	struct data_source *selection;  /* NULL: none */
	struct wl_client *focus;        /* gets the selection; NULL: none */
	struct wl_listener focus_destroy;
};

/* A global whose bind makes the client's resource and nothing more: its
 * interface with impl, the compositor as the resource's data
 * (resource_add_plain_global). */
struct plain_global {
	struct comp *comp;
	const struct wl_interface *iface;
	const void *impl;
};
#define COMP_MAX_PLAIN_GLOBALS 8

/* What the output's events carry (struct output.events). */
struct output_event {
	/* present: the new frame presented (its output texture) */
	struct glcuda_frame *frame;
	/* present, presented: what the frame shows */
	struct frame_content *content;
	/* frame, presented: the output frame's number (the presentation
	 * sequence); presented: the vblank's time */
	uint64_t n, when_ns;
	/* present, frame: set by a listener that failed (the compositor
	 * then stops with status 1) */
	int err;
};

/* The one output: its vblank and its frames (output.c, the clock alone;
 * main.c and control.c read its counts). What is done with the frames
 * listens to its events, each with a struct output_event. */
struct output {
	uint64_t refresh_ns;
	int vblank_fd;
	struct wl_event_source *vblank_src, *ring_src;
	uint64_t presented;             /* frames presented */
	/* The output's frames, one per vblank from the first frame presented
	 * on (a frame is repeated until the next is presented): PNGs, y4m,
	 * the presentation sequence. */
	uint64_t frames;
	uint64_t skipped;               /* vblanks past a second late */
	/* output frames with a window in them: --frames */
	uint64_t window_frames;
	bool have_frame;                /* a frame was presented */
	/* the one presented last has a window */
	bool shows_window;
	uint64_t shown_commits;         /* and the commits in it */
	uint64_t shown_composite;       /* and its number (render_frame's) */
	struct {
		/* A new frame is presented at this vblank, before it is
		 * output (frame): its pixels may be read. */
		struct wl_signal present;
		/* An output frame, the new one or the last one repeated. */
		struct wl_signal frame;
		/* The new frame was output: its feedback, the waits for it. */
		struct wl_signal presented;
	} events;
};

/* What the frames are written to (capture.c). */
struct capture {
	/* The presented frame read back: readback holds its pixels when
	 * readback_valid; read_fbo is what reads them. */
	GLuint read_fbo;
	uint8_t *readback;
	bool readback_valid;
	/* screenshots waiting: the next frame must be read back */
	unsigned int pixels_wanted;
	/* PNGs: how many written; the last one's frame and composite. */
	uint64_t png_written, png_last, png_composite;
	FILE *y4m;
	uint8_t *y4m_buf;
	uint64_t y4m_composite;         /* the frame y4m_buf holds */
	size_t y4m_len;
	struct wl_listener present, frame;
};

struct comp {
	struct options opt;

	struct wl_display *display;
	struct wl_event_loop *loop;
	const char *socket;
	char *runtime_dir;              /* made by us, removed at exit */
	struct wl_list surfaces;
	struct wl_list uploads;         /* struct upload.link */
	struct wl_list output_resources;
	struct wl_listener presented;   /* presentation.c's */
	struct plain_global plain_globals[COMP_MAX_PLAIN_GLOBALS];
	unsigned int plain_global_count;
	uint64_t commits;               /* commits that changed what is shown */
	struct seat seat;

	/* The control socket (control.c). */
	int control_fd;
	char *control_path;
	struct wl_event_source *control_src;
	struct wl_list control_conns;
	struct wl_listener control_presented;
	int32_t next_x, next_y;         /* where the next toplevel goes */
	struct clipboard clipboard;
	/* a toplevel whose popups hold a grab, and the grab (popup.c) */
	struct surface *popup_grab;
	struct seat_grab popup_seat_grab;
	struct {
		/* Windows (mapped toplevels, shell.c), data: the surface. */
		struct wl_signal window_map, window_unmap;
		/* A state that will never be applied: its feedback (data,
		 * the list of wp_presentation_feedback resources). */
		struct wl_signal feedback_discard;
	} events;
	struct wl_listener feedback_discard;    /* presentation.c's */
	/* control.c's window list */
	struct wl_list control_windows;
	struct wl_listener control_window_map, control_window_unmap;

	/* GL, glcuda and CUDA. */
	struct glcuda_headless *headless;
	struct glcuda_device *dev;
	struct glcuda_ring *ring;
	bool ring_timings;
	struct renderer *renderer;      /* render.c's own */

	/* The output (output.c's) and what its frames are written to. */
	struct output out;
	struct capture cap;
	struct wl_event_source *sigchld_src, *sigint_src, *sigterm_src;
	bool damaged;                   /* something to composite */
	/* commits that changed nothing visible */
	bool frame_only;
	uint64_t composited, acquire_busy;
	uint64_t start_ns;

	/* The client. */
	pid_t client_pid;
	bool client_exited;
	int client_status;              /* waitpid() status */

	/* What clients leave behind: counted so that --verbose can show
	 * that a client's disconnect frees everything it made. */
	unsigned int surfaces_alive, textures_alive;
	struct wl_listener client_created;

	bool running;
	int status;                     /* exit status */

	/* Timings summed over the frames glcuda reported. */
	uint64_t t_count, t_render, t_to_cuda, t_cuda, t_to_gl, t_total;
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

/* options.c: 0, or the exit status (2: bad usage, 0 after --help) + 1. */
int options_parse(struct options *o, int argc, char **argv);

/* resource.c: what every protocol file uses for its objects. */
/* A new resource with its implementation, or NULL after
 * wl_client_post_no_memory. */
struct wl_resource *resource_new(struct wl_client *client,
				 const struct wl_interface *iface,
				 int version, uint32_t id, const void *impl,
				 void *data,
				 wl_resource_destroy_func_t destroyed);
/* The destroy (or release) request of an object that needs nothing more. */
void resource_destroy_request(struct wl_client *client,
			      struct wl_resource *resource);
/* The destructor of a resource kept in one of our lists (callbacks,
 * feedback, outputs): out of the list when it is sent or the client
 * goes. */
void resource_unlink(struct wl_resource *resource);
/* Out of the signal it listens to (if any), and safe to detach again. */
void listener_detach(struct wl_listener *l);
/* One of the client's objects of that interface, NULL if none: for the
 * errors that go on a global's object. A walk of all the client's
 * objects: only on error paths, which end the client. */
struct wl_resource *client_find_resource(struct wl_client *client,
					 const struct wl_interface *iface);
/* Advertise iface up to version; a client's bind makes a resource with
 * impl and c as its data, nothing more. false when it cannot be made. */
bool resource_add_plain_global(struct comp *c,
			       const struct wl_interface *iface, int version,
			       const void *impl);

/* display.c: the display and its globals. */
int display_init(struct comp *c);
/* --verbose: surfaces, textures and fds alive after a client left. */
void display_report_resources(struct comp *c);
void display_fini(struct comp *c);

/* presentation.c */
bool presentation_init(struct comp *c);
/* Feedback for content that never reaches the output. */
void feedback_discard_all(struct wl_list *list);

/* shell.c */
bool shell_init(struct comp *c);
/* A configure for the xdg surface's new state, once the initial commit
 * was answered (before, the initial configure will carry it). */
void shell_configure(struct xdg_surface *xs);

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

/* data-device.c */
bool data_device_init(struct comp *c);
/* The client that gets the selection (NULL: none). */
void data_device_set_focus(struct comp *c, struct wl_client *client);

/* xdg-output.c */
bool xdg_output_init(struct comp *c);

/* decoration.c */
bool decoration_init(struct comp *c);

/* dmabuf.c */
/* An imported dma-buf buffer: its EGLImage holds the memory. */
struct dmabuf_buffer {
	struct comp *comp;
	struct wl_resource *resource;
	EGLImageKHR image;
	int32_t width, height;
	bool opaque;                    /* XRGB8888: alpha ignored */
};
/* Advertise zwp_linux_dmabuf_v1 if EGL and GL can import dma-bufs; false
 * only on failure (not when they cannot). */
bool dmabuf_init(struct comp *c);
/* The dma-buf buffer of a wl_buffer resource, NULL if it is not one. */
struct dmabuf_buffer *dmabuf_buffer_get(struct wl_resource *resource);

/* texture.c: client buffers to GL textures. */
/* Copy the damage (buffer coordinates, clipped) of a checked shm buffer
 * into the surface's strips at once; all of the buffer when the strips
 * cannot take it (none yet, another size, a dma-buf's). */
void texture_upload_shm(struct surface *s, struct wl_shm_buffer *shm,
			const struct damage *damage);
/* The bytes texture_upload_shm would copy. */
uint64_t texture_upload_bytes(const struct surface *s,
			      struct wl_shm_buffer *shm,
			      const struct damage *damage);
/* A large upload into s->upload's strips, all of the buffer: begun (once
 * s->upload is set), then a step
 * at each refresh within *budget bytes (at least one row; true once the
 * last row is in), then finished (the surface shows it) or cancelled. */
void texture_upload_begin(struct surface *s, struct wl_shm_buffer *shm);
bool texture_upload_step(struct surface *s, struct wl_shm_buffer *shm,
			 uint64_t *budget);
void texture_upload_finish(struct surface *s, struct wl_shm_buffer *shm);
void texture_upload_cancel(struct surface *s);
/* The surface samples the buffer's EGLImage in place; false on a GL
 * error (the surface keeps what it showed). */
bool texture_set_dmabuf(struct surface *s, const struct dmabuf_buffer *b);
/* The surface's textures, and those of an upload in progress, freed. */
void texture_surface_fini(struct surface *s);

/* render.c */
/* What a ring frame shows, kept with the frame as its user data
 * (glcuda_frame_set_user_data): render_frame fills it when it composites
 * the frame, output.c reads it when it presents the frame. */
struct frame_content {
	struct wl_list link;            /* render.c's */
	struct wl_list feedback;        /* wp_presentation_feedback resources */
	bool shows_window;              /* a window is in it */
	uint64_t composite;             /* its number (comp.composited) */
	uint64_t commits;               /* the commits in it (comp.commits) */
};
int render_init(struct comp *c);
void render_fini(struct comp *c);
/* Composite every mapped surface into a new ring frame and hand it to
 * CUDA. false when the ring had no free slot (try at the next vblank). */
bool render_frame(struct comp *c);
void render_collect_timings(struct comp *c);
/* A glcuda call failed: says which (what), its error and glcuda's message,
 * and stops the compositor with status 1. */
void render_fail(struct comp *c, const char *what, int err);

/* output.c */
/* Send the frame callbacks of every state applied so far (not those of a
 * state cached or waiting for its upload): after a composite, which shows
 * that state, or at a vblank when the commits since the last one changed
 * nothing visible (on_vblank's frame_only). */
void output_send_frame_done(struct comp *c);
/* The output's events, before anything listens. */
void output_events_init(struct comp *c);
int output_init(struct comp *c);
void output_fini(struct comp *c);

/* capture.c */
int capture_init(struct comp *c);
void capture_fini(struct comp *c);
/* A screenshot waits (want) or no longer: while one does, presented
 * frames are read back. */
void capture_want_pixels(struct comp *c, bool want);
/* The last presented frame's pixels as a PNG file. */
int capture_write_png(struct comp *c, const char *path);

/* keymap.c: the keyboard's xkb keymap and state. */
struct keymap;
struct keymap *keymap_new(void);
void keymap_destroy(struct keymap *k);
/* The keymap's text, a sealed memfd of size bytes (the keymap's). */
int keymap_get_fd(const struct keymap *k, uint32_t *size);
/* The evdev code of the key that gives a keysym (by name: Return, a,
 * Shift_L) or a character, and whether Shift is needed. */
bool keymap_key_for_name(const struct keymap *k, const char *name,
			 uint32_t *code, bool *shift);
bool keymap_key_for_char(const struct keymap *k, uint32_t ucs4, uint32_t *code,
			 bool *shift);
bool keymap_shift_key(const struct keymap *k, uint32_t *code);
/* A key pressed or released: the modifiers now; true if they changed. */
bool keymap_update(struct keymap *k, uint32_t code, bool pressed,
		   struct key_mods *mods);
void keymap_get_mods(const struct keymap *k, struct key_mods *mods);

/* seat.c: wl_seat, driven by control.c. */
bool seat_init(struct comp *c);
void seat_fini(struct comp *c);
/* The pointer to x, y on the output (clamped): enter, leave, motion. */
void seat_pointer_move(struct comp *c, double x, double y);
/* false when the button already is in that state. A press focuses the
 * keyboard on the window under the pointer. */
bool seat_pointer_button(struct comp *c, uint32_t button, bool pressed);
/* Wheel steps, vertical and horizontal. */
void seat_pointer_scroll(struct comp *c, int32_t dx, int32_t dy);
/* false when the key already is in that state. */
bool seat_key(struct comp *c, uint32_t code, bool pressed);
/* The keyboard's focus to s's window (NULL: none). */
void seat_focus(struct comp *c, struct surface *s);
/* The pointer's grab: button presses go to it first. End: only if it is
 * the grab held. */
void seat_grab_begin(struct comp *c, struct seat_grab *grab);
void seat_grab_end(struct comp *c, struct seat_grab *grab);

/* control.c: the control socket. */
int control_init(struct comp *c);
void control_fini(struct comp *c);

/* launch.c */
int launch_client(struct comp *c);
void client_reap(struct comp *c);
void client_stop(struct comp *c);
int runtime_dir_setup(struct comp *c);
void runtime_dir_cleanup(struct comp *c);


#endif
