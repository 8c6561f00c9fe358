/*
 * glcuda-demo: what its parts share (glcuda-demo.c has the overview).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_DEMO_H
#define GLCUDA_DEMO_H

#include "config.h"

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The CUDA driver API's declarations first (<cuda.h>, or glcuda's own
 * without the toolkit): glcuda-cuda.h needs its types. */
#include "cuda-table.h"
#include <glcuda/glcuda-cuda.h>

#include "clock.h"
#include "filters.h"
#include "info-report.h"
#include "parse.h"
#include "png-file.h"
#include "shader.h"
#include "stats.h"

#define DEFAULT_OUTPUT "./glcuda-demo-out"
/* How long poll() waits for a frame before the GPU is presumed hung. */
#define FRAME_TIMEOUT_MS 10000

struct options {
	uint32_t width, height;
	uint64_t frames;
	uint32_t in_flight;
	enum filter_kind filter;
	enum glcuda_format format;
	const char *output;
	uint64_t png_every;        /* 0: off */
	uint64_t *png_frames;      /* sorted */
	size_t png_frame_count;
	bool png_last;
	bool gles, quiet;
	enum glcuda_sync_mode sync;
	int device;
	float sigma, amount;
};

void usage(FILE *out);

bool parse_png_frames(const char *s, struct options *o);

int parse_options(int argc, char **argv, struct options *o);

extern const char vertex_body[];

/* The scene: a drifting colour gradient, a fine grid (detail for the blur
 * and the sharpening to act on), a rotating striped disc, three circles on
 * Lissajous paths, a sweeping second hand, and the frame number in
 * seven-segment digits. Time comes from the frame number, so a frame looks
 * the same on every run. */
extern const char scene_body[];

extern const char composite_body[];

extern const char header_gl[];

extern const char header_gles[];

struct demo {
	struct options opt;
	struct glcuda_headless *hl;
	struct glcuda_device *dev;
	struct glcuda_ring *ring;
	struct filters *filters;
	const struct glcuda_caps *caps;
	bool timings;

	GLuint vao, scene_prog, composite_prog, sampler;
	GLint u_time, u_resolution, u_frame, u_tex;
	GLuint screen_tex, screen_fbo;

	/* PNGs */
	bool out_is_dir;
	bool out_dir_made;
	size_t png_next;     /* next index in opt.png_frames */
	uint64_t png_next_every;
	uint64_t png_last_written; /* frame number + 1, 0: none */
	unsigned png_count;
	uint8_t *readback;

	/* Progress and statistics */
	uint64_t produced, presented;
	int64_t last_presented; /* -1: none */
	uint64_t warmup;
	struct stats gl_render, to_cuda, cuda, to_gl, total, wall;
	double t_prev_complete;
	bool progress_tty;
	double t_progress;
};

int glcuda_failed(const char *call, int err);

int gl_failed_check(const char *where);

const char * missing_what(int err);

int setup_failed(struct demo *d, const char *call, int err);

GLuint compile(GLenum type, const char *header, const char *body,
	       const char *name);

GLuint link_program(const char *header, const char *fragment_body,
		    const char *name);

int gl_setup(struct demo *d);

void gl_teardown(struct demo *d);

void render_scene(struct demo *d, struct glcuda_frame *f);

void fill_rect(int x, int y, int w, int h, float r, float g, float b);

void draw_texture(GLuint tex, int x, int y, int w, int h);

void composite(struct demo *d, struct glcuda_frame *f);

int save_screen(struct demo *d, uint64_t number);

bool png_wanted(struct demo *d, uint64_t number);

int collect_timings(struct demo *d);

int present_newest(struct demo *d, bool *presented);

int wait_for_frame(struct demo *d);

void progress(struct demo *d, bool final);

int produce_frame(struct demo *d, struct glcuda_frame *f);

int run_frames(struct demo *d, double *wall_s, double *cpu_per_frame_s);

void print_row(const char *name, struct stats *s);

void print_summary(struct demo *d, double wall_s, double cpu_per_frame_s);

int run(struct demo *d);

#endif
