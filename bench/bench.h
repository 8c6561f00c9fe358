/*
 * glcuda-bench: what its parts share (glcuda-bench.c has the overview).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_BENCH_H
#define GLCUDA_BENCH_H

#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <glcuda/glcuda.h>
/* The CUDA driver API's declarations first (<cuda.h>, or glcuda's own
 * without the toolkit): glcuda-cuda.h needs its types. */
#include "cuda-table.h"
#include <glcuda/glcuda-cuda.h>
#include "array-length.h"
#include "clock.h"
#include "cuda-table.h"
#include "parse.h"
#include "shader.h"
#include "stats.h"

/* bench/bench-kernels.cu, embedded by scripts/embed-fatbin.sh. */
extern const unsigned char glcuda_bench_fatbin[];
extern const unsigned long glcuda_bench_fatbin_size;

#define MAX_GROUPS 8
#define MAX_DEPTH 4
#define MAX_REPS 9
#define MAX_QUEUE 8
#define MAX_RADIUS 63
/* Stages of the readback pipeline: read into a pack PBO, copy through CUDA,
 * upload from an unpack PBO. */
#define READBACK_SLOTS 3

enum path_kind {
	PATH_GL,
	PATH_CUDA,
	PATH_LEGACY,
	PATH_LEGACY_NOSYNC,
	PATH_READBACK,
	PATH_WRAP_GL,
	PATH_WRAP_EGL,
	PATH_GLCUDA,
	PATH_BARE,
	PATH_COUNT,
};

extern const char *const path_names[PATH_COUNT];

enum kernel_kind { KERNEL_INVERT, KERNEL_BLUR, KERNEL_COUNT };

extern const char *const kernel_names[KERNEL_COUNT];

/* How a pipelined glcuda row presents: every frame, GL waiting for the
 * oldest at once (wait) or once the ready fd says it is done (ready), or
 * the newest ready frame only, dropping the others (newest). */
enum policy {
	POLICY_WAIT,
	POLICY_READY,
	POLICY_NEWEST,
	POLICY_BATCH,
	POLICY_COUNT
};

extern const char *const policy_names[POLICY_COUNT];

/* Mode bits use enum glcuda_sync_mode values. */
extern const enum glcuda_sync_mode all_modes[3];

struct group {
	char name[32];
	uint32_t width, height;
	enum glcuda_format format;
	/* GL */
	GLenum internal_format, pixel_type;
	unsigned int bpp;
	GLuint screen_tex, screen_fbo;
};

struct options {
	struct group groups[MAX_GROUPS];
	unsigned int group_count;
	unsigned int kernels;  /* bits of enum kernel_kind */
	unsigned int paths;    /* bits of enum path_kind */
	unsigned int modes;    /* bits 1 << enum glcuda_sync_mode */
	unsigned int depths;   /* bits 1 << depth, 1..4 */
	unsigned int policies; /* bits of enum policy */
	unsigned int frames, warmup, reps, min_frames, timing_frames;
	double max_seconds, time_limit;
	unsigned int queue;
	double blur_sigma;
	const char *out_dir;
	char label[64];
	int cuda_device;
	bool gl_only, dry_run;
	const char *preset;
};

extern struct options opt;

extern char command_line[2048];

void usage(FILE *f);

void set_preset(const char *name);

int parse_group(const char *s, struct group *g);

int parse_names(const char *list, const char *const *names, unsigned int count,
	    unsigned int *bits, const char *what);

int option_uint(const char *s, unsigned int lo, unsigned int hi,
		unsigned int *out, const char *what);

int option_double(const char *s, double lo, double hi, double *out,
		  const char *what);

enum {
	OPT_QUICK = 256,
	OPT_FULL,
	OPT_SIZES,
	OPT_KERNELS,
	OPT_PATHS,
	OPT_MODES,
	OPT_DEPTHS,
	OPT_POLICIES,
	OPT_FRAMES,
	OPT_WARMUP,
	OPT_REPS,
	OPT_MAX_SECONDS,
	OPT_MIN_FRAMES,
	OPT_QUEUE,
	OPT_TIMING_FRAMES,
	OPT_BLUR_SIGMA,
	OPT_OUT,
	OPT_LABEL,
	OPT_CUDA_DEVICE,
	OPT_DRY_RUN,
	OPT_GL_ONLY,
	OPT_HELP,
	OPT_TIME_LIMIT,
};

extern const struct option long_options[];

int parse_options(int argc, char **argv);

/* Wall and thread-CPU time spent inside a class of calls. */
struct meter {
	uint64_t wall_ns, cpu_ns;
};

/* The interop calls of the path being measured (glcuda_*, cuGraphics*,
 * the readback copies) and the frame pacing wait. */
extern struct meter interop_meter, pacing_meter;

#define METER(m, ...)                                          \
	do {                                                   \
		uint64_t w0_ = clock_now_ns(), c0_ = clock_thread_cpu_ns(); \
		__VA_ARGS__;                                   \
		(m).cpu_ns += clock_thread_cpu_ns() - c0_;           \
		(m).wall_ns += clock_now_ns() - w0_;                 \
	} while (0)

extern char run_error[1024];

int GLCUDA_PRINTF(1, 2) fail(const char *fmt, ...);

int cu_check(CUresult res, const char *call);

int glcuda_check(int ret, const char *call);

int gl_check(const char *what);

#define CU_TRY(name, ...)                                       \
	do {                                                    \
		if (cu_check(CU(name)(__VA_ARGS__), #name) < 0) \
			return -1;                              \
	} while (0)

struct bench_gl {
	GLuint scene_prog, composite_prog, vao, sampler;
	GLint scene_t_loc, scene_size_loc;
	GLsync fences[MAX_QUEUE];
	unsigned int fence_head, fence_count;
};
extern struct bench_gl gl;

extern const char scene_vs[];

/* A cheap per-pixel pattern that changes every frame: the GL work is a
 * clear plus one full-screen draw, as a compositor's simplest frame. */
extern const char scene_fs[];

extern const char composite_fs[];

GLuint link_program(const char *vs_src, const char *fs_src);

int gl_init(void);

void gl_fini(void);

int gl_make_target(const struct group *g, GLenum internal_format, GLuint *tex,
		   GLuint *fbo);

void gl_delete_target(GLuint *tex, GLuint *fbo);

void gl_render(GLuint fbo, const struct group *g, uint64_t frame);

void gl_composite(GLuint tex, const struct group *g);

int pace_wait(void);

void pace_push(void);

void pace_reset(void);

struct bench_cuda {
	bool loaded;
	CUcontext ctx;
	bool pushed;
	CUmodule module;
	/* [0] RGBA8, [1] RGBA16F */
	CUfunction invert[2], blur_h[2], blur_v[2];
	/* Why a kernel is missing from the module (NULL function), if it is. */
	char missing[256];
	/* cuGraphicsResourceSetMapFlags, looked up apart from the programs'
	 * table (the legacy path alone needs it, and the fake CUDA driver the
	 * tools also run on has no GL registration to set flags on). */
	CUresult (*set_map_flags)(CUgraphicsResource, unsigned int);
	CUdeviceptr weights;
	int radius;
	double sigma;
	/* float4 scratch of the blur, one per ring slot: slots run on their
	 * own streams and may overlap on the GPU. */
	CUdeviceptr scratch[MAX_DEPTH];
	size_t scratch_bytes;
};
extern struct bench_cuda cu;

int cuda_init(struct glcuda_device *dev);

void cuda_free_scratch(void);

void cuda_fini(void);

int cuda_prepare_group(const struct group *g, bool blur);

int run_kernel(const struct group *g, enum kernel_kind k, CUsurfObject in,
	       CUsurfObject out, unsigned int slot, CUstream stream);

struct config {
	enum path_kind path;
	enum glcuda_sync_mode mode; /* glcuda only */
	enum policy policy;         /* glcuda only */
	unsigned int
		depth; /* glcuda, legacy, legacy-nosync: frames in flight */
};

struct run_result {
	bool ok;
	/* frames: produced (rendered and handed through the path) while
	 * measuring; composited: drawn into the screen texture meanwhile. fps
	 * and mean_us count composited frames, produced_fps the others. */
	unsigned int frames, composited;
	double seconds;
	double fps, produced_fps, drop_pct, mean_us, p50_us, p99_us;
	bool verified; /* the last composited frame matched the reference */
	double interop_cpu_us, interop_wall_us, blocked_us, pacing_us,
		process_cpu_us;
	unsigned int timing_count;
	double to_cuda_us, to_gl_us, cuda_us, gl_render_us, gpu_total_us;
	uint64_t dropped;
};

struct row {
	const struct group *group;
	enum kernel_kind kernel;
	struct config cfg;
	struct run_result reps[MAX_REPS];
	unsigned int rep_count;
	struct run_result timing;
	bool failed, skipped;
	char error[sizeof(run_error)];
	/* Aggregates over the reps. */
	struct run_result med;
	double spread_pct;
	/* Some run composited fewer frames than it produced: never a
	 * headline, a ratio's reference or a target check. */
	bool drops;
	double max_drop_pct;
};

struct mode_device {
	enum glcuda_sync_mode mode;
	struct glcuda_device *dev;
	char error[1024];
};

extern struct glcuda_device *main_dev;

extern EGLDisplay main_dpy;

extern struct mode_device mode_devs[ARRAY_LENGTH(all_modes)];

struct glcuda_device *device_for_mode(enum glcuda_sync_mode mode,
				      const char **why);

const char * mode_name(enum glcuda_sync_mode m);

void config_id(const struct config *c, char *buf, size_t size);

void config_label(const struct config *c, char *buf, size_t size);

/* A frame in flight on the legacy path: its slot and number. */
struct legacy_frame {
	unsigned int slot;
	uint64_t n;
};

/* Everything one run of one configuration holds. */
struct run_ctx {
	const struct group *g;
	enum kernel_kind kernel;
	struct config cfg;
	bool timings;
	struct glcuda_device *dev;
	CUstream stream;

	/* GL-side targets of the gl, wrap and readback paths */
	GLuint in_tex, in_fbo, out_tex;

	/* legacy: a registered pair of textures and a stream per slot */
	GLuint l_in_tex[MAX_DEPTH], l_in_fbo[MAX_DEPTH], l_out_tex[MAX_DEPTH];
	CUstream l_stream[MAX_DEPTH];
	CUgraphicsResource res[MAX_DEPTH][2];
	CUarray cached_array[MAX_DEPTH][2];
	CUsurfObject cached_surface[MAX_DEPTH][2];
	struct legacy_frame l_fifo[MAX_DEPTH];
	unsigned int l_fifo_len;

	/* readback and cuda: CUDA-side images (shared images used as plain
	 * CUDA arrays: handed to CUDA once, never back); wrap-*: the wrapped
	 * textures or EGLImages */
	struct glcuda_image *img[2];
	EGLImage egl_image[2];
	bool img_on_cuda;

	/* readback: a pack PBO, its fence, pinned staging both ways, an
	 * unpack PBO and a CUDA event per stage slot; frames [rb_uploaded,
	 * rb_copied) are in CUDA's hands, [rb_copied, rb_read) in GL's pack
	 * PBOs */
	GLuint pack_pbo[READBACK_SLOTS], unpack_pbo[READBACK_SLOTS],
		rb_out_tex[READBACK_SLOTS];
	GLsync pack_fence[READBACK_SLOTS];
	void *pinned_in[READBACK_SLOTS], *pinned_out[READBACK_SLOTS];
	CUevent rb_event[READBACK_SLOTS];
	uint64_t rb_read, rb_copied, rb_uploaded;

	/* cuda: CUDA events around every measured frame, and a short ring of
	 * events that keeps the launch queue bounded */
	CUevent *events;
	unsigned int event_count, event_next;
	CUevent pace_events[32];
	bool measuring;

	/* bare: its Vulkan device, semaphores and slots (bench-bare.c) */
	struct bare *bare;

	/* glcuda */
	struct glcuda_ring *ring;
	struct glcuda_frame *queue[MAX_DEPTH + 1];
	unsigned int queue_len;
	unsigned int pending; /* completed, not taken (newest policy) */
	uint64_t dropped_at_start;
	/* hand-off timings */
	unsigned int timing_count;
	double sum_to_cuda, sum_to_gl, sum_cuda, sum_gl_render, sum_total;

	/* Frames drawn into the screen texture while measuring, and the last
	 * one drawn (its texture and frame number), verified after the run. */
	unsigned int composited, composited_total;
	bool have_last;
	GLuint last_tex;
	uint64_t last_frame;
};

/* Draw a frame's output into the screen texture and count it. */
void present_texture(struct run_ctx *c, GLuint tex, uint64_t frame);

/* Read the last composited frame back and compare it with the reference. */
int verify_run(struct run_ctx *c);

int ring_collect_timings(struct run_ctx *c);

int glcuda_setup(struct run_ctx *c);

int glcuda_present(struct run_ctx *c, struct glcuda_frame *f);

int glcuda_present_oldest(struct run_ctx *c);

int glcuda_present_newest(struct run_ctx *c);

int glcuda_present_ready(struct run_ctx *c);

int glcuda_frame_fn(struct run_ctx *c, uint64_t n);

int glcuda_drain(struct run_ctx *c);

void glcuda_teardown(struct run_ctx *c);

int gl_setup(struct run_ctx *c);

int gl_frame_fn(struct run_ctx *c, uint64_t n);

void gl_teardown(struct run_ctx *c);

int cuda_images_setup(struct run_ctx *c, bool pattern);

void cuda_images_teardown(struct run_ctx *c);

int cuda_setup(struct run_ctx *c);

int cuda_frame_fn(struct run_ctx *c, uint64_t n);

void cuda_teardown(struct run_ctx *c);

int legacy_setup(struct run_ctx *c);

int legacy_surface(struct run_ctx *c, unsigned int slot, int i, CUarray array,
		   CUsurfObject *out);

int legacy_frame_fn(struct run_ctx *c, uint64_t n);

int legacy_drain(struct run_ctx *c);

void legacy_teardown(struct run_ctx *c);

int wrap_setup(struct run_ctx *c);

int wrap_frame_fn(struct run_ctx *c, uint64_t n);

void wrap_teardown(struct run_ctx *c);

size_t frame_bytes(const struct group *g);

int readback_setup(struct run_ctx *c);

int readback_frame_fn(struct run_ctx *c, uint64_t n);

int readback_drain(struct run_ctx *c);

void readback_teardown(struct run_ctx *c);

int bare_setup(struct run_ctx *c);

int bare_frame_fn(struct run_ctx *c, uint64_t n);

int bare_drain(struct run_ctx *c);

void bare_teardown(struct run_ctx *c);

struct path_ops {
	int (*setup)(struct run_ctx *);
	int (*frame)(struct run_ctx *, uint64_t n);
	int (*drain)(struct run_ctx *);
	void (*teardown)(struct run_ctx *);
};

extern const struct path_ops path_ops[PATH_COUNT];

int settle(void);

void frame_stats(double *ft, unsigned int n, struct run_result *out);

int run_once(const struct group *g, enum kernel_kind k,
	     const struct config *cfg, bool timings, unsigned int frames,
	     struct run_result *out);

extern uint64_t start_ns;

extern struct row *rows;

extern unsigned int row_count, row_cap;

struct row *add_row(const struct group *g, enum kernel_kind k,
		    struct config cfg);

void plan_rows(const struct group *g, enum kernel_kind k);

double estimate_frame_ms(const struct group *g, const struct config *c,
			 enum kernel_kind k);

double estimate_seconds(void);

#define MEDIAN_FIELD(row, field)                                         \
	do {                                                             \
		double v_[MAX_REPS];                                      \
		unsigned int k_ = 0;                                     \
		for (unsigned int i_ = 0; i_ < (row)->rep_count; i_++)   \
			if ((row)->reps[i_].ok)                          \
				v_[k_++] = (row)->reps[i_].field;        \
		(row)->med.field = stats_median(v_, k_);                    \
	} while (0)

void aggregate(struct row *r);

const struct row *find_row(const struct group *g, enum kernel_kind k,
			   enum path_kind p);

/* The best row (highest composited fps, no drops) of a size and kernel
 * among the paths in the mask; NULL if none. */
const struct row *best_row(const struct group *g, enum kernel_kind k,
			   unsigned int paths);

double floor_us(const struct group *g, enum kernel_kind k);

const char *fmt_num(char *buf, size_t size, double v, int decimals,
		    const char *none);

const char * gl_yield(void);

/* Output goes to stdout and, with --out, to the markdown file. */
extern FILE *md_file, *summary_csv, *runs_csv;

void GLCUDA_PRINTF(1, 2) md(const char *fmt, ...);

bool
is_4k_class(const struct group *g);

void print_targets(const struct group *g, enum kernel_kind k);

void csv_summary_row(const struct row *r, double floor,
		     const struct row *legacy, const struct row *readback);

void csv_run_row(const struct row *r, const struct run_result *x,
		 const char *rep);

void print_table(const struct group *g, enum kernel_kind k);

void print_legend(void);

/* The headline table of every size and kernel measured, as markdown. */
void write_headline(FILE *f);

void read_first_line(const char *path, const char *prefix, char *buf,
		     size_t size);

void print_system(const struct glcuda_headless *hl);

void build_command_line(int argc, char **argv);

FILE * open_output(const char *prefix, const char *ext);

int make_dirs(const char *dir);

void print_plan(void);

int make_devices(struct glcuda_headless *hl);

void destroy_devices(void);

void run_row(struct row *r, unsigned int rep, bool timing, unsigned int *done,
	     unsigned int total);

#endif
