/*
 * glcuda-compositor: a headless Wayland compositor whose output goes
 * through glcuda's frame ring: every frame it composites with GL is handed
 * to CUDA (a filter or the user's kernel) and back, without copies, and
 * "presented" as PNG files or a y4m video stream, one frame per refresh.
 * Tests drive its seat and take screenshots through a control socket.
 *
 * One folder per area, each with one header; the areas, bottom up (an
 * area calls only those below it; those above listen to its events,
 * CODING_STYLE.md, "How the compositor's areas talk"):
 *   resource.c      helpers for protocol objects, listeners and plain
 *                   globals, used by every protocol file (resource.h)
 *   buffer/         client buffers: dmabuf.c (zwp_linux_dmabuf_v1, dma-bufs
 *                   as EGLImages), texture.c (buffers to GL textures)
 *   surface/        wl_compositor, wl_surface and what listens to a
 *                   surface: surface.c (the protocol, when a commit
 *                   completes), surface-state.c (the double-buffered
 *                   state), subsurface.c, region.c, tree.c (the walk of a
 *                   subsurface tree), viewporter.c, presentation.c
 *   render/         render.c: GL compositing, the ring, the CUDA stage
 *   output/         output.c (the vblank timer, presenting frames: its
 *                   events), capture.c (PNG, y4m, screenshots: listens),
 *                   xdg-output.c
 *   seat/           seat.c (wl_seat: a pointer and a keyboard, their
 *                   focus, the pointer's grab), keymap.c, data-device.c
 *   shell/          xdg-shell: shell.c (xdg_wm_base, xdg_surface,
 *                   xdg_toplevel), popup.c, positioner.c, decoration.c
 *   control/        control.c (the control socket: driving the seat,
 *                   screenshots, waits for frames, commits and windows),
 *                   ctl.c (glcuda-compositor-ctl, a separate program)
 *   comp.h          the compositor (struct comp) and what sets it up:
 *                   main.c (setup, the loop, the report), options.c,
 *                   display.c (the wl_display, its socket, every global),
 *                   launch.c (the runtime directory and the client)
 *
 * Single-threaded: everything runs on the thread of the event loop, where
 * the EGL context is current.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_COMPOSITOR_COMP_H
#define GLCUDA_COMPOSITOR_COMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <wayland-server-core.h>

#include "filters.h"
#include "output/output.h"
#include "resource.h"
#include "seat/seat.h"

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

/* options.c: 0, or the exit status (2: bad usage, 0 after --help) + 1. */
int options_parse(struct options *o, int argc, char **argv);

/* display.c: the display and its globals. */
int display_init(struct comp *c);
/* --verbose: surfaces, textures and fds alive after a client left. */
void display_report_resources(struct comp *c);
void display_fini(struct comp *c);

/* launch.c */
int launch_client(struct comp *c);
void client_reap(struct comp *c);
void client_stop(struct comp *c);
int runtime_dir_setup(struct comp *c);
void runtime_dir_cleanup(struct comp *c);

#endif
