/*
 * glcuda-trace's parts (bench/trace/trace-main.c says what each holds):
 * the scenarios and their table, the options, the marks and gaps of a
 * frame, what one scenario run holds, and the functions the files call
 * in each other.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_BENCH_TRACE_H
#define GLCUDA_BENCH_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <glcuda/glcuda.h>
#include "cuda-table.h"
#include <glcuda/glcuda-cuda.h>
#ifndef GLCUDA_TOOLS_OWN_CUDA_DECLS
#include <cudaEGL.h>
#define TRACE_HAVE_EGLSTREAM 1
#endif
#include "array-length.h"
#include "clock.h"
#include "parse.h"
#include "stats.h"

extern const unsigned char glcuda_trace_fatbin[];
extern const unsigned long glcuda_trace_fatbin_size;


enum scenario {
	SC_TIMELINE,
	SC_BINARY,
	SC_CUDA_PRIO,
	SC_GL_PRIO,
	SC_GL_READY,
	SC_HOST,
	SC_LEGACY,
	SC_BATCH2,
	SC_BATCH4,
	SC_BATCH8,
	SC_RING1,
	SC_RING2,
	SC_RING4,
	SC_COUNT,
};

/* A row of the scenario table (scenarios.c). */
struct scenario_info {
	const char *name;
	unsigned int batch;  /* frames per hand-off */
	bool ring;           /* through the frame ring */
	bool isolated_only;  /* the CPU is part of it: no steady run */
};

extern const struct scenario_info scenarios[SC_COUNT];

#define MAX_BATCH 8

/* The marks of one frame, GPU nanoseconds. */
enum mark {
	M_GL_START,   /* GL_TIMESTAMP before the draw */
	M_GL_DRAWN,   /* GL_TIMESTAMP after the draw */
	M_CUDA_START, /* stamp before the kernel */
	M_CUDA_END,   /* stamp after the kernel */
	M_GL_WAITED,  /* GL_TIMESTAMP after GL's wait (or map/unmap) */
	M_GL_BLITTED, /* GL_TIMESTAMP after the blit */
	M_COUNT,
};

enum gap { G_TO_CUDA, G_CUDA, G_TO_GL, G_BLIT, G_FRAME, G_SWITCH, G_COUNT };

struct trace_options {
	unsigned int width, height, frames, warmup;
	unsigned int scenarios; /* bits */
	bool isolated, steady, gl_switch, eglstream;
	const char *csv;
	int cuda_device;
};

extern struct trace_options opt;
extern EGLDisplay dpy;
extern FILE *csv;

extern struct trace_kernels {
	CUmodule module;
	CUfunction stamp, invert, invert_to_pitch;
} k;

/* Everything one scenario run holds (made and destroyed in the context
 * that is current for it). */
struct run {
	enum scenario sc;
	bool steady;
	struct glcuda_device *dev;
	CUstream stream;
	unsigned int batch;    /* frames per hand-off */
	/* Frame b of a batch: input 2b, output 2b + 1. */
	struct glcuda_image *img[2 * MAX_BATCH];
	GLuint tex[2 * MAX_BATCH]; /* legacy: own textures; else the images' */
	GLuint fbo[2 * MAX_BATCH]; /* draw target, blit source */
	GLuint screen_tex, screen_fbo;
	GLuint prog, vao;
	GLint t_loc;
	struct glcuda_ring *ring;
	struct glcuda_frame *frames[MAX_BATCH];
	CUgraphicsResource res[2];
	CUarray arrays[2];     /* legacy: the surfaces' arrays, made again */
	CUsurfObject surfs[2]; /* only when the mapped array changes */
	GLuint *queries;       /* 4 per frame */
	uint64_t *stamps;      /* pinned, 2 per frame */
	GLsync fences[2];
	char note[160];
	/* ring scenarios: thread CPU per call, summed over a frame's calls */
	struct stats cpu[5];
};

/* The ring's calls, timed in CPU (thread CPU time) per frame. */
enum ring_call {
	RC_ACQUIRE,
	RC_SUBMIT,
	RC_COMPLETE,
	RC_WAIT_GL,
	RC_RELEASE,
	RC_COUNT
};

#define CPU_TIMED(acc, ...)                                              \
	do {                                                             \
		uint64_t c0_ = clock_thread_cpu_ns();                    \
		__VA_ARGS__;                                             \
		(acc) += clock_thread_cpu_ns() - c0_;                    \
	} while (0)

#define CU_TRY(name, ...)                                      \
	do {                                                   \
		if (cu_fail(CU(name)(__VA_ARGS__), #name) < 0) \
			return -1;                             \
	} while (0)

/* trace-run.c */
int cu_fail(CUresult res, const char *call);
int gc_fail(int r, const char *call);
int launch_stamp(CUstream stream, uint64_t *slot);
int launch_invert(struct run *r, CUsurfObject in, CUsurfObject out);
int make_texture(GLuint *tex);
int make_fbo(GLuint tex, GLuint *fbo);
int make_draw_program(struct run *r);
void gl_draw(struct run *r, unsigned int b, unsigned int n);
int cpu_wait_gl(void);
void frame_begin(struct run *r, unsigned int n);
int frame_end(struct run *r, unsigned int n, const CUstream *streams,
	      unsigned int count);
void print_gap_cells(struct stats *st, unsigned int count);
void run_scenario(enum scenario sc, bool steady);

/* scenario-legacy.c */
int legacy_map(struct run *r, CUsurfObject surf[2]);

/* scenario-ring.c: the CPU table's rows, printed after the GPU table. */
extern char cpu_rows[4096];
int ring_frame(struct run *r, unsigned int n);
void cpu_summary(struct run *r);

/* scenario-gl-prio.c */
EGLContext make_priority_context(char *note, size_t size);

/* scenario-gl-switch.c */
void run_gl_switch(bool steady);

#ifdef TRACE_HAVE_EGLSTREAM
/* scenario-eglstream.c */
void run_eglstream(CUstream unused);
#endif

/* driver-calls.c */
void driver_call_costs(CUstream stream);

#endif
