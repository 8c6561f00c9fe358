/*
 * glcuda-trace: where the time of a GL -> CUDA -> GL switch goes, frame by
 * frame, on one clock.
 *
 * Every frame of a scenario: GL draws into the input image, the frame goes
 * to CUDA, one thread stamps the GPU's global timer, CUDA inverts the
 * image, stamps again, the frame goes back to GL, and GL blits the output
 * into a "screen" texture. GL_TIMESTAMP queries mark the end of GL's draw,
 * the moment GL passed its wait, and the end of the blit; the stamps mark
 * CUDA's first and last instruction. GL_TIMESTAMP and %globaltimer are the
 * same nanosecond clock on NVIDIA's driver: the program checks this first
 * (a kernel's stamp must fall between two GL_TIMESTAMP reads around it)
 * and refuses to report gaps if it does not hold.
 *
 *   to CUDA  CUDA's first instruction - the end of GL's draw
 *   CUDA     the kernel between the two stamps
 *   to GL    GL past its wait - CUDA's last instruction
 *   blit     the end of GL's blit - GL past its wait
 *   frame    the end of the blit - the start of GL's draw
 *   switch per frame  (to CUDA + to GL) / frames per hand-off
 *
 * Scenarios (each on its own glcuda device, so on its own semaphores):
 *   timeline      glcuda_handoff_to_cuda / _to_gl of two shared images,
 *                 timeline semaphores: what the frame ring does per frame
 *   binary        the same with binary semaphore pairs
 *   cuda-prio     timeline, the CUDA stream at the context's greatest
 *                 priority (cuStreamCreateWithPriority)
 *   gl-prio       timeline, GL in a context made with
 *                 EGL_IMG_context_priority HIGH
 *   gl-ready      timeline to CUDA; back to GL only once the CPU saw CUDA's
 *                 work finish (the ring's ready fd), so GL's wait is
 *                 already satisfied when GL reaches it
 *   host          no semaphores: the CPU waits for GL's fence, launches
 *                 CUDA, waits for CUDA's work, then issues GL's blit (the
 *                 images stay CUDA's for the whole run: a timing anchor,
 *                 not a correct hand-off): the switch with the CPU in it
 *   legacy        cuGraphicsGLRegisterImage'd textures, map / unmap
 *   ringN         the frame ring (timeline), N frames at a time: acquire
 *                 and render N, submit N, a kernel each on its frame's
 *                 stream, complete N, GL waits for N, N blits: how an
 *                 application batches with the ring as it is (to CUDA
 *                 and to GL per batch, from stamps on the first and last
 *                 frame's streams)
 *   batchN        timeline, N frames per hand-off: GL draws N inputs, one
 *                 hand-off of all 2N images, N kernels, one hand-off back,
 *                 N blits (to CUDA and to GL are then per hand-off, the
 *                 other columns per frame)
 *
 * And one row without CUDA, gl-gl: GL draws, a second GL context (sharing
 * the first's objects) waits on the GPU for a fence of the first
 * (glWaitSync) and blits; its "to CUDA" column is the switch between the
 * two GL contexts.
 *
 * And one row through NVIDIA's EGLStreams, eglstream: GL renders into a
 * stream's producer surface (EGL_KHR_stream_producer_eglsurface) that
 * CUDA consumes (cuEGLStreamConsumerAcquireFrame), CUDA's kernel writes a
 * pitch-linear frame it presents to a second stream
 * (cuEGLStreamProducerPresentFrame) whose consumer is a GL texture
 * (EGL_KHR_stream_consumer_gltexture, eglStreamConsumerAcquireKHR). Its
 * gaps: GL's draw to CUDA's first instruction, CUDA's last to GL past its
 * acquire; no blit (the frame is an external texture).
 *
 * "isolated": the CPU waits for each frame before issuing the next, so
 * every frame starts on an idle GPU; "steady": frames back to back, the CPU
 * at most two frames ahead. The gl-ready and host scenarios are isolated
 * only (the CPU is part of them).
 *
 * Nothing here is a pass/fail test: it prints medians and percentiles per
 * scenario as a markdown table, and every frame with --csv.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
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
#include "clock.h"
#include "parse.h"
#include "stats.h"

#ifndef EGL_CONTEXT_PRIORITY_LEVEL_IMG
#define EGL_CONTEXT_PRIORITY_LEVEL_IMG 0x3100
#define EGL_CONTEXT_PRIORITY_HIGH_IMG 0x3101
#define EGL_CONTEXT_PRIORITY_MEDIUM_IMG 0x3102
#define EGL_CONTEXT_PRIORITY_LOW_IMG 0x3103
#endif

extern const unsigned char glcuda_trace_fatbin[];
extern const unsigned long glcuda_trace_fatbin_size;

#define ARRAY_LENGTH(a) (sizeof(a) / sizeof((a)[0]))

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

static const char *const scenario_names[SC_COUNT] = {
	"timeline", "binary", "cuda-prio", "gl-prio", "gl-ready",
	"host",	    "legacy", "batch2",	   "batch4",  "batch8",
	"ring1",    "ring2",  "ring4",
};

#define MAX_BATCH 8

/* Frames per hand-off of a scenario. */
static unsigned int
batch_of(enum scenario sc)
{
	switch (sc) {
	case SC_BATCH2:
	case SC_RING2:
		return 2;
	case SC_BATCH4:
	case SC_RING4:
		return 4;
	case SC_BATCH8:
		return 8;
	default:
		return 1;
	}
}

static bool
is_ring(enum scenario sc)
{
	return sc == SC_RING1 || sc == SC_RING2 || sc == SC_RING4;
}

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

static const char *const gap_names[G_COUNT] = {
	"to CUDA", "CUDA", "to GL", "blit", "frame", "switch per frame",
};

static struct {
	unsigned int width, height, frames, warmup;
	unsigned int scenarios; /* bits */
	bool isolated, steady, gl_switch, eglstream;
	const char *csv;
	int cuda_device;
} opt = {
	.width = 1920,
	.height = 1080,
	.frames = 200,
	.warmup = 20,
	.scenarios = (1u << SC_COUNT) - 1,
	.isolated = true,
	.steady = true,
	.gl_switch = true,
	.eglstream = true,
	.cuda_device = 0,
};

static EGLDisplay dpy;
static FILE *csv;

static struct {
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

static const char *const ring_call_names[RC_COUNT] = {
	"glcuda_ring_acquire", "glcuda_frame_submit", "glcuda_frame_complete",
	"glcuda_frame_wait_gl", "glcuda_frame_release",
};

#define CPU_TIMED(acc, ...)                                              \
	do {                                                             \
		uint64_t c0_ = clock_thread_cpu_ns();                    \
		__VA_ARGS__;                                             \
		(acc) += clock_thread_cpu_ns() - c0_;                    \
	} while (0)

static const char draw_vs[] =
	"#version 330 core\n"
	"void main() {\n"
	"	vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0,\n"
	"		      float((gl_VertexID & 2) << 1) - 1.0);\n"
	"	gl_Position = vec4(p, 0.0, 1.0);\n"
	"}\n";

static const char draw_fs[] =
	"#version 330 core\n"
	"uniform float t;\n"
	"out vec4 color;\n"
	"void main() {\n"
	"	vec2 p = gl_FragCoord.xy * 0.01;\n"
	"	color = vec4(0.5 + 0.5 * sin(p.x + t),\n"
	"		     0.5 + 0.5 * cos(p.y - t),\n"
	"		     fract(p.x * p.y * 0.1 + t), 1.0);\n"
	"}\n";

static int
cu_fail(CUresult res, const char *call)
{
	char buf[160];

	if (res == CUDA_SUCCESS)
		return 0;
	fprintf(stderr, "glcuda-trace: %s failed: %s\n", call,
		tools_cuda_result(res, buf, sizeof(buf)));
	return -1;
}

#define CU_TRY(name, ...)                                      \
	do {                                                   \
		if (cu_fail(CU(name)(__VA_ARGS__), #name) < 0) \
			return -1;                             \
	} while (0)

static int
gc_fail(int r, const char *call)
{
	if (r >= 0)
		return 0;
	fprintf(stderr, "glcuda-trace: %s failed: %s: %s\n", call,
		glcuda_error_get_name(r), glcuda_get_last_error());
	return -1;
}

static GLuint
compile(GLenum type, const char *src)
{
	GLuint s = glCreateShader(type);
	GLint ok = 0;

	glShaderSource(s, 1, &src, NULL);
	glCompileShader(s);
	glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		char log[512];
		glGetShaderInfoLog(s, sizeof(log), NULL, log);
		fprintf(stderr, "glcuda-trace: shader: %s\n", log);
		glDeleteShader(s);
		return 0;
	}
	return s;
}

static int
launch_stamp(CUstream stream, uint64_t *slot)
{
	void *args[] = { &slot };

	CU_TRY(cuLaunchKernel, k.stamp, 1, 1, 1, 1, 1, 1, 0, stream, args,
	       NULL);
	return 0;
}

static int
launch_invert(struct run *r, CUsurfObject in, CUsurfObject out)
{
	int w = (int)opt.width, h = (int)opt.height;
	void *args[] = { &in, &out, &w, &h };

	CU_TRY(cuLaunchKernel, k.invert, (opt.width + 15) / 16,
	       (opt.height + 15) / 16, 1, 16, 16, 1, 0, r->stream, args, NULL);
	return 0;
}

/* The two clocks: a stamp kernel run between two GL_TIMESTAMP reads must
 * fall between them. Returns 0 when it held every time. */
static int
check_clocks(CUstream stream, uint64_t *slot)
{
	int64_t worst_before = INT64_MAX, worst_after = INT64_MAX;

	for (int i = 0; i < 20; i++) {
		GLint64 a = 0, b = 0;
		glGetInteger64v(GL_TIMESTAMP, &a);
		if (launch_stamp(stream, slot) < 0)
			return -1;
		CU_TRY(cuStreamSynchronize, stream);
		glGetInteger64v(GL_TIMESTAMP, &b);
		if ((int64_t)*slot - a < worst_before)
			worst_before = (int64_t)*slot - a;
		if (b - (int64_t)*slot < worst_after)
			worst_after = b - (int64_t)*slot;
	}
	printf("Clock check (20 tries): a CUDA %%globaltimer stamp fell %.1f "
	       "µs or more after the GL_TIMESTAMP read before it and %.1f µs "
	       "or more before the read after it",
	       (double)worst_before / 1e3, (double)worst_after / 1e3);
	if (worst_before < 0 || worst_after < 0) {
		printf(": the clocks differ, gaps between GL and CUDA marks "
		       "are not meaningful.\n\n");
		return -1;
	}
	printf(": one clock.\n\n");
	return 0;
}

static int
make_texture(GLuint *tex)
{
	glGenTextures(1, tex);
	glBindTexture(GL_TEXTURE_2D, *tex);
	glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, (GLsizei)opt.width,
		       (GLsizei)opt.height);
	glBindTexture(GL_TEXTURE_2D, 0);
	return glGetError() == GL_NO_ERROR ? 0 : -1;
}

static int
make_fbo(GLuint tex, GLuint *fbo)
{
	GLenum status;

	glGenFramebuffers(1, fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, tex, 0);
	status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	if (status != GL_FRAMEBUFFER_COMPLETE) {
		fprintf(stderr, "glcuda-trace: framebuffer incomplete (0x%x)\n",
			status);
		return -1;
	}
	return 0;
}

static void
run_teardown(struct run *r)
{
	if (r->stream)
		CU(cuStreamSynchronize)(r->stream);
	for (unsigned int i = 0; i < 2 * MAX_BATCH; i++) {
		if (i < 2 && r->fences[i])
			glDeleteSync(r->fences[i]);
		if (i < 2 && r->surfs[i])
			CU(cuSurfObjectDestroy)(r->surfs[i]);
		if (i < 2 && r->res[i])
			CU(cuGraphicsUnregisterResource)(r->res[i]);
		if (r->fbo[i] && !r->ring) /* a ring's are the ring's */
			glDeleteFramebuffers(1, &r->fbo[i]);
		if (r->img[i])
			glcuda_image_destroy(r->img[i]);
		else if (r->tex[i])
			glDeleteTextures(1, &r->tex[i]);
	}
	if (r->screen_fbo)
		glDeleteFramebuffers(1, &r->screen_fbo);
	if (r->screen_tex)
		glDeleteTextures(1, &r->screen_tex);
	if (r->queries) {
		glDeleteQueries((GLsizei)((opt.warmup + opt.frames) * 4),
				r->queries);
		free(r->queries);
	}
	glcuda_ring_destroy(r->ring);
	if (r->stamps)
		CU(cuMemFreeHost)(r->stamps);
	if (r->prog)
		glDeleteProgram(r->prog);
	if (r->vao)
		glDeleteVertexArrays(1, &r->vao);
	if (r->stream)
		CU(cuStreamDestroy)(r->stream);
	glcuda_device_destroy(r->dev);
	memset(r, 0, sizeof(*r));
}

/* The draw's program and vertex array, in the current context. */
static int
make_draw_program(struct run *r)
{
	GLuint vs = compile(GL_VERTEX_SHADER, draw_vs),
	       fs = compile(GL_FRAGMENT_SHADER, draw_fs);
	GLint ok = 0;

	if (!vs || !fs) {
		glDeleteShader(vs);
		glDeleteShader(fs);
		return -1;
	}
	r->prog = glCreateProgram();
	glAttachShader(r->prog, vs);
	glAttachShader(r->prog, fs);
	glLinkProgram(r->prog);
	glDeleteShader(vs);
	glDeleteShader(fs);
	glGetProgramiv(r->prog, GL_LINK_STATUS, &ok);
	if (!ok)
		return -1;
	r->t_loc = glGetUniformLocation(r->prog, "t");
	glGenVertexArrays(1, &r->vao);
	return 0;
}

static int
run_setup(struct run *r)
{
	struct glcuda_device_options o;
	unsigned int n = opt.warmup + opt.frames;
	int ret;

	glcuda_device_options_init(&o);
	o.sync_mode =
		r->sc == SC_BINARY ? GLCUDA_SYNC_BINARY : GLCUDA_SYNC_TIMELINE;
	ret = glcuda_device_new(dpy, eglGetCurrentContext(), &o, &r->dev);
	if (gc_fail(ret, "glcuda_device_new") < 0)
		return -1;
	if (r->sc == SC_CUDA_PRIO) {
		int least = 0, greatest = 0;
		if (!CU(cuStreamCreateWithPriority) ||
		    !CU(cuCtxGetStreamPriorityRange)) {
			fprintf(stderr, "glcuda-trace: the driver has no "
					"stream priorities\n");
			return -1;
		}
		CU_TRY(cuCtxGetStreamPriorityRange, &least, &greatest);
		CU_TRY(cuStreamCreateWithPriority, &r->stream,
		       CU_STREAM_NON_BLOCKING, greatest);
		snprintf(r->note, sizeof(r->note),
			 "stream priority %d (range %d..%d)", greatest, least,
			 greatest);
	} else if (!is_ring(r->sc)) {
		CU_TRY(cuStreamCreate, &r->stream, CU_STREAM_NON_BLOCKING);
	}
	CU_TRY(cuMemAllocHost, (void **)&r->stamps,
	       (size_t)n * 2 * sizeof(uint64_t));
	memset(r->stamps, 0, (size_t)n * 2 * sizeof(uint64_t));
	r->queries = calloc((size_t)n * 4, sizeof(GLuint));
	if (!r->queries)
		return -1;
	glGenQueries((GLsizei)(n * 4), r->queries);

	r->batch = batch_of(r->sc);
	if (is_ring(r->sc)) {
		struct glcuda_ring_desc desc;
		glcuda_ring_desc_init(&desc);
		desc.width = opt.width;
		desc.height = opt.height;
		desc.slots = r->batch < 2 ? 2 : r->batch;
		desc.input_format = GLCUDA_FORMAT_RGBA8;
		desc.output_format = GLCUDA_FORMAT_RGBA8;
		ret = glcuda_ring_new(r->dev, &desc, &r->ring);
		if (gc_fail(ret, "glcuda_ring_new") < 0)
			return -1;
		snprintf(r->note, sizeof(r->note),
			 "the frame ring, %u slots; %u frame%s rendered, then "
			 "submitted; completed; GL waits for all, then blits",
			 desc.slots, r->batch, r->batch > 1 ? "s" : "");
	}
	for (unsigned int i = 0; i < 2 * r->batch && !r->ring; i++) {
		if (r->sc == SC_LEGACY) {
			CUresult res;
			if (make_texture(&r->tex[i]) < 0)
				return -1;
			res = CU(cuGraphicsGLRegisterImage)(
				&r->res[i], r->tex[i], GL_TEXTURE_2D,
				CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST);
			if (res != CUDA_SUCCESS) {
				r->res[i] = NULL;
				return cu_fail(res,
					       "cuGraphicsGLRegisterImage");
			}
		} else {
			struct glcuda_image_desc desc;

			glcuda_image_desc_init(&desc);
			desc.width = opt.width;
			desc.height = opt.height;
			desc.format = GLCUDA_FORMAT_RGBA8;
			desc.flags = GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE;
			ret = glcuda_image_new(r->dev, &desc, &r->img[i]);
			if (gc_fail(ret, "glcuda_image_new") < 0)
				return -1;
			r->tex[i] = glcuda_image_get_gl_texture(r->img[i]);
		}
		if (make_fbo(r->tex[i], &r->fbo[i]) < 0)
			return -1;
	}
	if (make_texture(&r->screen_tex) < 0 ||
	    make_fbo(r->screen_tex, &r->screen_fbo) < 0)
		return -1;
	if (r->sc == SC_HOST) {
		/* The images stay CUDA's for the whole run. */
		ret = glcuda_handoff_to_cuda(r->dev, r->img, 2, r->stream);
		if (gc_fail(ret, "glcuda_handoff_to_cuda") < 0)
			return -1;
	}
	if (r->batch > 1 && !r->ring)
		snprintf(r->note, sizeof(r->note),
			 "%u frames per hand-off; to CUDA and to GL per "
			 "hand-off, the rest per frame",
			 r->batch);

	if (make_draw_program(r) < 0)
		return -1;
	return glGetError() == GL_NO_ERROR ? 0 : -1;
}

static void
gl_draw(struct run *r, unsigned int b, unsigned int n)
{
	glBindFramebuffer(GL_FRAMEBUFFER, r->fbo[2 * b]);
	glViewport(0, 0, (GLsizei)opt.width, (GLsizei)opt.height);
	glUseProgram(r->prog);
	glUniform1f(r->t_loc, (float)n * 0.05f);
	glBindVertexArray(r->vao);
	glDrawArrays(GL_TRIANGLES, 0, 3);
	glBindVertexArray(0);
	glUseProgram(0);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

static void
gl_blit(struct run *r, unsigned int b)
{
	glBindFramebuffer(GL_READ_FRAMEBUFFER, r->fbo[2 * b + 1]);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, r->screen_fbo);
	glBlitFramebuffer(0, 0, (GLint)opt.width, (GLint)opt.height, 0, 0,
			  (GLint)opt.width, (GLint)opt.height,
			  GL_COLOR_BUFFER_BIT, GL_NEAREST);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
}

/* The CPU waits for GL's work so far: spinning, so that wake-up latency
 * does not land in the gaps of the CPU-gated scenarios. */
static int
cpu_wait_gl(void)
{
	GLsync s = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
	GLenum w;

	if (!s)
		return -1;
	glFlush();
	do
		w = glClientWaitSync(s, 0, 0);
	while (w == GL_TIMEOUT_EXPIRED);
	glDeleteSync(s);
	return w == GL_WAIT_FAILED ? -1 : 0;
}

static int
cpu_wait_cuda(CUstream stream)
{
	CUresult res;

	while ((res = CU(cuStreamQuery)(stream)) == CUDA_ERROR_NOT_READY)
		;
	return cu_fail(res, "cuStreamQuery");
}

static int
legacy_map(struct run *r, CUsurfObject surf[2])
{
	CUDA_RESOURCE_DESC rd;

	CU_TRY(cuGraphicsMapResources, 2, r->res, r->stream);
	for (int i = 0; i < 2; i++) {
		CUarray a;
		CU_TRY(cuGraphicsSubResourceGetMappedArray, &a, r->res[i], 0,
		       0);
		if (a != r->arrays[i] || !r->surfs[i]) {
			if (r->surfs[i])
				CU(cuSurfObjectDestroy)(r->surfs[i]);
			r->surfs[i] = 0;
			memset(&rd, 0, sizeof(rd));
			rd.resType = CU_RESOURCE_TYPE_ARRAY;
			rd.res.array.hArray = a;
			CU_TRY(cuSurfObjectCreate, &r->surfs[i], &rd);
			r->arrays[i] = a;
		}
		surf[i] = r->surfs[i];
	}
	return 0;
}

/* The start of frame n: in the steady mode, at most two frames ahead (the
 * fence frame_end left two frames back). */
static void
frame_begin(struct run *r, unsigned int n)
{
	if (r->fences[n % 2]) {
		glClientWaitSync(r->fences[n % 2], GL_SYNC_FLUSH_COMMANDS_BIT,
				 1000000000);
		glDeleteSync(r->fences[n % 2]);
		r->fences[n % 2] = NULL;
	}
}

/* The end of frame n: the CPU waits for GL and for CUDA's count streams,
 * or, in the steady mode, a fence for frame_begin and a flush. */
static int
frame_end(struct run *r, unsigned int n, const CUstream *streams,
	  unsigned int count)
{
	if (!r->steady) {
		if (cpu_wait_gl() < 0)
			return -1;
		for (unsigned int i = 0; i < count; i++)
			CU_TRY(cuStreamSynchronize, streams[i]);
	} else {
		r->fences[n % 2] =
			glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
		glFlush();
	}
	return glGetError() == GL_NO_ERROR ? 0 : -1;
}

/* One iteration through the frame ring: acquire and render every frame
 * of the batch, submit them all, a kernel each (stamps on the first
 * frame's stream before, on the last's after), complete them all, GL waits
 * for all, then blits each. */
static int
ring_frame(struct run *r, unsigned int n)
{
	GLuint *q = &r->queries[n * 4];
	uint64_t *st = &r->stamps[n * 2];
	unsigned int B = r->batch;
	uint64_t cpu[RC_COUNT] = { 0 };
	CUstream streams[MAX_BATCH];
	int ret;

	frame_begin(r, n);
	glQueryCounter(q[0], GL_TIMESTAMP);
	for (unsigned int b = 0; b < B; b++) {
		CPU_TIMED(cpu[RC_ACQUIRE],
			  ret = glcuda_ring_acquire(r->ring, &r->frames[b]));
		if (gc_fail(ret, "glcuda_ring_acquire") < 0)
			return -1;
		r->fbo[0] = glcuda_frame_get_input_fbo(r->frames[b]);
		gl_draw(r, 0, n * B + b);
	}
	glQueryCounter(q[1], GL_TIMESTAMP);
	for (unsigned int b = 0; b < B; b++) {
		CPU_TIMED(cpu[RC_SUBMIT],
			  ret = glcuda_frame_submit(r->frames[b]));
		if (gc_fail(ret, "glcuda_frame_submit") < 0)
			return -1;
	}
	if (launch_stamp(glcuda_frame_get_stream(r->frames[0]), &st[0]) < 0)
		return -1;
	for (unsigned int b = 0; b < B; b++) {
		struct glcuda_frame *f = r->frames[b];
		r->stream = glcuda_frame_get_stream(f);
		if (launch_invert(r, glcuda_frame_get_input_surface(f),
				  glcuda_frame_get_output_surface(f)) < 0)
			return -1;
	}
	r->stream = NULL;
	if (launch_stamp(glcuda_frame_get_stream(r->frames[B - 1]), &st[1]) < 0)
		return -1;
	for (unsigned int b = 0; b < B; b++) {
		CPU_TIMED(cpu[RC_COMPLETE],
			  ret = glcuda_frame_complete(r->frames[b]));
		if (gc_fail(ret, "glcuda_frame_complete") < 0)
			return -1;
	}
	for (unsigned int b = 0; b < B; b++) {
		CPU_TIMED(cpu[RC_WAIT_GL],
			  ret = glcuda_frame_wait_gl(r->frames[b]));
		if (gc_fail(ret, "glcuda_frame_wait_gl") < 0)
			return -1;
	}
	glQueryCounter(q[2], GL_TIMESTAMP);
	for (unsigned int b = 0; b < B; b++) {
		GLuint fbo;
		glGenFramebuffers(1, &fbo);
		glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
		glFramebufferTexture2D(GL_READ_FRAMEBUFFER,
				       GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
				       glcuda_frame_get_output_texture(
					       r->frames[b]),
				       0);
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, r->screen_fbo);
		glBlitFramebuffer(0, 0, (GLint)opt.width, (GLint)opt.height, 0,
				  0, (GLint)opt.width, (GLint)opt.height,
				  GL_COLOR_BUFFER_BIT, GL_NEAREST);
		glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
		glDeleteFramebuffers(1, &fbo);
	}
	glQueryCounter(q[3], GL_TIMESTAMP);
	for (unsigned int b = 0; b < B; b++) {
		CPU_TIMED(cpu[RC_RELEASE],
			  ret = glcuda_frame_release(r->frames[b]));
		if (gc_fail(ret, "glcuda_frame_release") < 0)
			return -1;
	}
	r->fbo[0] = 0;
	if (n >= opt.warmup)
		for (int i = 0; i < RC_COUNT; i++)
			stats_add(&r->cpu[i], (double)cpu[i] / 1e3 / B);
	for (unsigned int b = 0; b < B; b++)
		streams[b] = glcuda_frame_get_stream(r->frames[b]);
	return frame_end(r, n, streams, B);
}

static int
frame(struct run *r, unsigned int n)
{
	GLuint *q = &r->queries[n * 4];
	uint64_t *st = &r->stamps[n * 2];
	CUsurfObject surf[2] = { 0, 0 };
	bool legacy = r->sc == SC_LEGACY;
	int ret = 0;

	frame_begin(r, n);
	glQueryCounter(q[0], GL_TIMESTAMP);
	for (unsigned int b = 0; b < r->batch; b++)
		gl_draw(r, b, n * r->batch + b);
	glQueryCounter(q[1], GL_TIMESTAMP);

	switch (r->sc) {
	case SC_HOST:
		if (cpu_wait_gl() < 0)
			return -1;
		break;
	case SC_LEGACY:
		if (legacy_map(r, surf) < 0)
			return -1;
		break;
	default:
		ret = glcuda_handoff_to_cuda(r->dev, r->img, 2 * r->batch,
					     r->stream);
		if (gc_fail(ret, "glcuda_handoff_to_cuda") < 0)
			return -1;
	}
	if (launch_stamp(r->stream, &st[0]) < 0)
		return -1;
	for (unsigned int b = 0; b < r->batch; b++) {
		if (!legacy) {
			surf[0] = glcuda_image_get_cuda_surface(r->img[2 * b]);
			surf[1] = glcuda_image_get_cuda_surface(
				r->img[2 * b + 1]);
		}
		if (launch_invert(r, surf[0], surf[1]) < 0)
			return -1;
	}
	if (launch_stamp(r->stream, &st[1]) < 0)
		return -1;

	switch (r->sc) {
	case SC_HOST:
		if (cpu_wait_cuda(r->stream) < 0)
			return -1;
		break;
	case SC_GL_READY:
		if (cpu_wait_cuda(r->stream) < 0)
			return -1;
		/* fall through */
	default:
		if (!legacy) {
			ret = glcuda_handoff_to_gl(r->dev, r->img, 2 * r->batch,
						   r->stream);
			if (gc_fail(ret, "glcuda_handoff_to_gl") < 0)
				return -1;
		} else {
			CU_TRY(cuGraphicsUnmapResources, 2, r->res, r->stream);
		}
	}
	glQueryCounter(q[2], GL_TIMESTAMP);
	for (unsigned int b = 0; b < r->batch; b++)
		gl_blit(r, b);
	glQueryCounter(q[3], GL_TIMESTAMP);

	return frame_end(r, n, &r->stream, 1);
}

/* The table cells of count gaps, each its median (10th–90th percentile);
 * frees them. */
static void
print_gap_cells(struct stats *st, unsigned int count)
{
	for (unsigned int i = 0; i < count; i++) {
		double mean, p50, p99;
		qsort(st[i].v, st[i].n, sizeof(double), stats_cmp_double);
		stats_summary(&st[i], &mean, &p50, &p99);
		printf(" %.1f (%.1f–%.1f) |", p50,
		       stats_percentile(st[i].v, st[i].n, 10),
		       stats_percentile(st[i].v, st[i].n, 90));
		stats_free(&st[i]);
	}
}

static void
summarize(const struct run *r, bool ok)
{
	struct stats s[G_COUNT];
	char label[64];

	snprintf(label, sizeof(label), "%s, %s", scenario_names[r->sc],
		 r->steady ? "steady" : "isolated");
	if (!ok) {
		printf("| %s | failed | | | | | | |\n", label);
		return;
	}
	memset(s, 0, sizeof(s));
	for (unsigned int n = opt.warmup; n < opt.warmup + opt.frames; n++) {
		uint64_t m[M_COUNT];
		const GLuint *q = &r->queries[n * 4];
		GLuint64 v;

		glGetQueryObjectui64v(q[0], GL_QUERY_RESULT, &v);
		m[M_GL_START] = v;
		glGetQueryObjectui64v(q[1], GL_QUERY_RESULT, &v);
		m[M_GL_DRAWN] = v;
		glGetQueryObjectui64v(q[2], GL_QUERY_RESULT, &v);
		m[M_GL_WAITED] = v;
		glGetQueryObjectui64v(q[3], GL_QUERY_RESULT, &v);
		m[M_GL_BLITTED] = v;
		m[M_CUDA_START] = r->stamps[n * 2];
		m[M_CUDA_END] = r->stamps[n * 2 + 1];
		double b = r->batch;
		double g[G_COUNT] = {
			[G_TO_CUDA] = ((double)m[M_CUDA_START] -
				       (double)m[M_GL_DRAWN]) /
				      1e3,
			[G_CUDA] = ((double)m[M_CUDA_END] -
				    (double)m[M_CUDA_START]) /
				   1e3 / b,
			[G_TO_GL] = ((double)m[M_GL_WAITED] -
				     (double)m[M_CUDA_END]) /
				    1e3,
			[G_BLIT] = ((double)m[M_GL_BLITTED] -
				    (double)m[M_GL_WAITED]) /
				   1e3 / b,
			[G_FRAME] = ((double)m[M_GL_BLITTED] -
				     (double)m[M_GL_START]) /
				    1e3 / b,
		};
		g[G_SWITCH] = (g[G_TO_CUDA] + g[G_TO_GL]) / b;
		for (int i = 0; i < G_COUNT; i++)
			stats_add(&s[i], g[i]);
		if (csv)
			fprintf(csv, "%s,%s,%u,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n",
				scenario_names[r->sc],
				r->steady ? "steady" : "isolated",
				n - opt.warmup, g[0], g[1], g[2], g[3], g[4],
				g[5]);
	}
	printf("| %s |", label);
	print_gap_cells(s, G_COUNT);
	printf(" %s |\n", r->note);
}

/* A GL 4.5 core context with EGL_IMG_context_priority HIGH on the same
 * display; what the driver granted goes in the note. */
static EGLContext
make_priority_context(char *note, size_t size)
{
	static const EGLint attribs[] = {
		EGL_CONTEXT_MAJOR_VERSION, 4,
		EGL_CONTEXT_MINOR_VERSION, 5,
		EGL_CONTEXT_OPENGL_PROFILE_MASK,
		EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
		EGL_CONTEXT_PRIORITY_LEVEL_IMG,
		EGL_CONTEXT_PRIORITY_HIGH_IMG, EGL_NONE,
	};
	EGLContext ctx;
	EGLint got = 0;

	if (!epoxy_has_egl_extension(dpy, "EGL_IMG_context_priority")) {
		snprintf(note, size, "no EGL_IMG_context_priority");
		return EGL_NO_CONTEXT;
	}
	eglBindAPI(EGL_OPENGL_API);
	ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
	if (ctx == EGL_NO_CONTEXT) {
		snprintf(note, size, "eglCreateContext: EGL error 0x%x",
			 eglGetError());
		return EGL_NO_CONTEXT;
	}
	eglQueryContext(dpy, ctx, EGL_CONTEXT_PRIORITY_LEVEL_IMG, &got);
	snprintf(note, size, "EGL context priority %s",
		 got == EGL_CONTEXT_PRIORITY_HIGH_IMG	  ? "HIGH granted"
		 : got == EGL_CONTEXT_PRIORITY_MEDIUM_IMG ? "MEDIUM (HIGH "
							    "refused)"
		 : got == EGL_CONTEXT_PRIORITY_LOW_IMG	  ? "LOW (HIGH refused)"
							  : "unknown");
	return ctx;
}

/* The CPU table's rows, printed after the GPU table. */
static char cpu_rows[4096];

static void
cpu_summary(struct run *r)
{
	size_t len = strlen(cpu_rows);
	double total = 0;

	len += (size_t)snprintf(cpu_rows + len, sizeof(cpu_rows) - len,
				"| %s, %s |", scenario_names[r->sc],
				r->steady ? "steady" : "isolated");
	for (int i = 0; i < RC_COUNT && len < sizeof(cpu_rows); i++) {
		double mean, p50, p99;
		qsort(r->cpu[i].v, r->cpu[i].n, sizeof(double),
		      stats_cmp_double);
		stats_summary(&r->cpu[i], &mean, &p50, &p99);
		total += p50;
		len += (size_t)snprintf(cpu_rows + len, sizeof(cpu_rows) - len,
					" %.1f |", p50);
		stats_free(&r->cpu[i]);
	}
	if (len < sizeof(cpu_rows))
		snprintf(cpu_rows + len, sizeof(cpu_rows) - len, " %.1f |\n",
			 total);
}

static void
run_scenario(enum scenario sc, bool steady)
{
	EGLContext main_ctx = eglGetCurrentContext(), prio_ctx = EGL_NO_CONTEXT;
	struct run r;
	char note[160] = "";
	bool ok = true;

	memset(&r, 0, sizeof(r));
	r.sc = sc;
	r.steady = steady;
	if (sc == SC_GL_PRIO) {
		prio_ctx = make_priority_context(note, sizeof(note));
		if (prio_ctx == EGL_NO_CONTEXT ||
		    !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE,
				    prio_ctx)) {
			printf("| %s, %s | skipped | | | | | | %s |\n",
			       scenario_names[sc],
			       steady ? "steady" : "isolated", note);
			if (prio_ctx != EGL_NO_CONTEXT)
				eglDestroyContext(dpy, prio_ctx);
			return;
		}
	}
	if (run_setup(&r) < 0)
		ok = false;
	if (note[0])
		snprintf(r.note, sizeof(r.note), "%s", note);
	for (unsigned int n = 0; ok && n < opt.warmup + opt.frames; n++)
		if ((r.ring ? ring_frame(&r, n) : frame(&r, n)) < 0)
			ok = false;
	if (ok && (cpu_wait_gl() < 0 ||
		   (r.stream && cu_fail(CU(cuStreamSynchronize)(r.stream),
					"cuStreamSynchronize") < 0)))
		ok = false;
	if (ok && sc == SC_HOST &&
	    gc_fail(glcuda_handoff_to_gl(r.dev, r.img, 2, r.stream),
		    "glcuda_handoff_to_gl") < 0)
		ok = false;
	summarize(&r, ok);
	if (ok && r.ring)
		cpu_summary(&r);
	for (int i = 0; i < RC_COUNT; i++)
		stats_free(&r.cpu[i]);
	fflush(stdout);
	if (sc == SC_HOST)
		cpu_wait_gl();
	run_teardown(&r);
	if (prio_ctx != EGL_NO_CONTEXT) {
		eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, main_ctx);
		eglDestroyContext(dpy, prio_ctx);
	}
}

/*
 * What the driver calls glcuda makes per frame cost the CPU on their own
 * (thread CPU time, median of 500): the floor under glcuda's in-call CPU.
 */
static void CUDA_CB
empty_host_fn(void *data)
{
	(void)data;
}

static void
driver_call_costs(CUstream stream)
{
	enum { N = 500 };
	struct stats s[5] = { { 0 } };
	static const char *const names[5] = {
		"cuCtxPushCurrent + cuCtxPopCurrent",
		"eglGetCurrentContext",
		"glFlush after a clear",
		"cuEventRecord",
		"cuLaunchHostFunc (an empty function)",
	};
	CUcontext ctx = NULL, popped;
	CUevent ev = NULL;

	if (CU(cuEventCreate)(&ev, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
		ev = NULL;
	CU(cuCtxPopCurrent)(&ctx);
	for (int i = 0; i < N; i++) {
		uint64_t c0 = clock_thread_cpu_ns();
		CU(cuCtxPushCurrent)(ctx);
		CU(cuCtxPopCurrent)(&popped);
		stats_add(&s[0], (double)(clock_thread_cpu_ns() - c0) / 1e3);
		c0 = clock_thread_cpu_ns();
		(void)eglGetCurrentContext();
		stats_add(&s[1], (double)(clock_thread_cpu_ns() - c0) / 1e3);
		glClear(GL_COLOR_BUFFER_BIT);
		c0 = clock_thread_cpu_ns();
		glFlush();
		stats_add(&s[2], (double)(clock_thread_cpu_ns() - c0) / 1e3);
		if (ev) {
			CU(cuCtxPushCurrent)(ctx);
			c0 = clock_thread_cpu_ns();
			CU(cuEventRecord)(ev, stream);
			stats_add(&s[3],
				  (double)(clock_thread_cpu_ns() - c0) / 1e3);
			if (CU(cuLaunchHostFunc)) {
				c0 = clock_thread_cpu_ns();
				CU(cuLaunchHostFunc)
				(stream, empty_host_fn, NULL);
				stats_add(&s[4],
					  (double)(clock_thread_cpu_ns() - c0) /
						  1e3);
			}
			CU(cuCtxPopCurrent)(&popped);
		}
	}
	glFinish();
	CU(cuCtxPushCurrent)(ctx);
	CU(cuStreamSynchronize)(stream);
	if (ev)
		CU(cuEventDestroy)(ev);
	printf("\nDriver calls on their own, thread CPU µs per call (median of "
	       "%d):\n\n",
	       N);
	printf("| call | µs |\n|---|--:|\n");
	for (int i = 0; i < 5; i++) {
		double mean, p50, p99;
		if (!s[i].n)
			continue;
		qsort(s[i].v, s[i].n, sizeof(double), stats_cmp_double);
		stats_summary(&s[i], &mean, &p50, &p99);
		printf("| %s | %.2f |\n", names[i], p50);
		stats_free(&s[i]);
	}
}

/*
 * The same switch without CUDA: GL draws in this context, and a second GL
 * context (sharing its textures and syncs) waits for it on the GPU
 * (glWaitSync) and blits the result. Prints one row: the gap between the
 * draw's end and the second context passing its wait, in the "to CUDA"
 * column.
 */
static void
run_gl_switch(bool steady)
{
	static const EGLint attribs[] = {
		EGL_CONTEXT_MAJOR_VERSION, 4,
		EGL_CONTEXT_MINOR_VERSION, 5,
		EGL_CONTEXT_OPENGL_PROFILE_MASK,
		EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE,
	};
	EGLContext a = eglGetCurrentContext(), b;
	unsigned int n_all = opt.warmup + opt.frames;
	GLuint qa[2 * 1024], qb[2 * 1024];
	GLuint tex = 0, fbo_a = 0, fbo_b = 0, screen_tex = 0, screen_fbo = 0;
	struct run r; /* for gl_draw's program */
	struct stats st = { 0 };
	GLsync last = NULL;
	bool ok = false;

	if (n_all > 1024) {
		printf("| gl-gl, %s | skipped | | | | | | more than 1024 "
		       "frames |\n",
		       steady ? "steady" : "isolated");
		return;
	}
	memset(&r, 0, sizeof(r));
	eglBindAPI(EGL_OPENGL_API);
	b = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, a, attribs);
	if (b == EGL_NO_CONTEXT) {
		printf("| gl-gl, %s | failed | | | | | | eglCreateContext: "
		       "0x%x |\n",
		       steady ? "steady" : "isolated", eglGetError());
		return;
	}
	/* Context A: the texture, its draw target, the program. */
	glGenQueries((GLsizei)(2 * n_all), qa);
	if (make_texture(&tex) < 0 || make_fbo(tex, &fbo_a) < 0)
		goto out_a;
	if (make_draw_program(&r) < 0)
		goto out_a;
	r.fbo[0] = fbo_a;
	/* Context B: its own framebuffers (not shared) and queries. */
	if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, b))
		goto out_a;
	glGenQueries((GLsizei)(2 * n_all), qb);
	if (make_fbo(tex, &fbo_b) < 0 || make_texture(&screen_tex) < 0 ||
	    make_fbo(screen_tex, &screen_fbo) < 0)
		goto out_b;
	for (unsigned int n = 0; n < n_all; n++) {
		GLsync s;

		eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, a);
		glQueryCounter(qa[2 * n], GL_TIMESTAMP);
		gl_draw(&r, 0, n);
		glQueryCounter(qa[2 * n + 1], GL_TIMESTAMP);
		s = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
		glFlush();
		eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, b);
		glWaitSync(s, 0, GL_TIMEOUT_IGNORED);
		glDeleteSync(s);
		glQueryCounter(qb[2 * n], GL_TIMESTAMP);
		glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_b);
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, screen_fbo);
		glBlitFramebuffer(0, 0, (GLint)opt.width, (GLint)opt.height, 0,
				  0, (GLint)opt.width, (GLint)opt.height,
				  GL_COLOR_BUFFER_BIT, GL_NEAREST);
		glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
		glQueryCounter(qb[2 * n + 1], GL_TIMESTAMP);
		if (last) {
			glClientWaitSync(last, GL_SYNC_FLUSH_COMMANDS_BIT,
					 1000000000);
			glDeleteSync(last);
		}
		last = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
		glFlush();
		if (!steady) {
			glClientWaitSync(last, GL_SYNC_FLUSH_COMMANDS_BIT,
					 1000000000);
			glDeleteSync(last);
			last = NULL;
		}
	}
	if (last) {
		glClientWaitSync(last, GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000);
		glDeleteSync(last);
	}
	ok = glGetError() == GL_NO_ERROR;
	for (unsigned int n = opt.warmup; ok && n < n_all; n++) {
		GLuint64 drawn = 0, waited = 0;
		glGetQueryObjectui64v(qb[2 * n], GL_QUERY_RESULT, &waited);
		eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, a);
		glGetQueryObjectui64v(qa[2 * n + 1], GL_QUERY_RESULT, &drawn);
		eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, b);
		stats_add(&st, ((double)waited - (double)drawn) / 1e3);
	}
	if (ok) {
		double mean, p50, p99;
		qsort(st.v, st.n, sizeof(double), stats_cmp_double);
		stats_summary(&st, &mean, &p50, &p99);
		printf("| gl-gl, %s | %.1f (%.1f–%.1f) | | | | | | GL to a "
		       "second GL context (glWaitSync), no CUDA |\n",
		       steady ? "steady" : "isolated", p50,
		       stats_percentile(st.v, st.n, 10),
		       stats_percentile(st.v, st.n, 90));
	} else {
		printf("| gl-gl, %s | failed | | | | | | |\n",
		       steady ? "steady" : "isolated");
	}
	stats_free(&st);
out_b:
	glDeleteQueries((GLsizei)(2 * n_all), qb);
	glDeleteFramebuffers(1, &fbo_b);
	glDeleteFramebuffers(1, &screen_fbo);
	glDeleteTextures(1, &screen_tex);
	eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, a);
out_a:
	eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, a);
	glDeleteQueries((GLsizei)(2 * n_all), qa);
	glDeleteFramebuffers(1, &fbo_a);
	glDeleteTextures(1, &tex);
	if (r.prog)
		glDeleteProgram(r.prog);
	if (r.vao)
		glDeleteVertexArrays(1, &r.vao);
	eglDestroyContext(dpy, b);
	fflush(stdout);
}

#ifdef TRACE_HAVE_EGLSTREAM
/* cudaEGL.h's entry points, from the driver the programs' table was loaded
 * from: the table keeps to what every tool needs. */
static struct {
	__typeof__(cuEGLStreamConsumerConnect) *consumer_connect;
	__typeof__(cuEGLStreamConsumerDisconnect) *consumer_disconnect;
	__typeof__(cuEGLStreamConsumerAcquireFrame) *consumer_acquire;
	__typeof__(cuEGLStreamConsumerReleaseFrame) *consumer_release;
	__typeof__(cuEGLStreamProducerConnect) *producer_connect;
	__typeof__(cuEGLStreamProducerDisconnect) *producer_disconnect;
	__typeof__(cuEGLStreamProducerPresentFrame) *producer_present;
	__typeof__(cuEGLStreamProducerReturnFrame) *producer_return;
	__typeof__(cuGraphicsResourceGetMappedEglFrame) *mapped_frame;
} es;

static const char *
eglstream_resolve(void)
{
	if (!tools_cuda_loaded())
		return "libcuda.so.1 is not loaded";
#define ES(member, name) \
	if (!(es.member = (__typeof__(es.member))tools_cuda_find(#name))) \
		return #name " not found in libcuda";
	ES(consumer_connect, cuEGLStreamConsumerConnect)
	ES(consumer_disconnect, cuEGLStreamConsumerDisconnect)
	ES(consumer_acquire, cuEGLStreamConsumerAcquireFrame)
	ES(consumer_release, cuEGLStreamConsumerReleaseFrame)
	ES(producer_connect, cuEGLStreamProducerConnect)
	ES(producer_disconnect, cuEGLStreamProducerDisconnect)
	ES(producer_present, cuEGLStreamProducerPresentFrame)
	ES(producer_return, cuEGLStreamProducerReturnFrame)
	ES(mapped_frame, cuGraphicsResourceGetMappedEglFrame)
#undef ES
	return NULL;
}

static void
eglstream_row(const char *result, const char *note)
{
	printf("| eglstream, isolated | %s | | | | | | %s |\n", result, note);
	fflush(stdout);
}

/* GL -> CUDA -> GL through two EGLStreams: GL renders into the producer
 * surface of to_cuda, CUDA consumes it and produces into to_gl, which GL
 * consumes as an external texture. */
struct eglstream_run {
	EGLContext main_ctx, ctx;
	EGLConfig cfg;
	EGLStreamKHR to_cuda, to_gl;
	EGLSurface surf;               /* GL's producer surface on to_cuda */
	CUeglStreamConnection cons, prod;
	GLuint ext_tex;                /* GL's consumer texture on to_gl */
	struct run r;                  /* for gl_draw's program and the marks */
	unsigned int n_all;
	CUdeviceptr out[2];            /* CUDA's output frames, by turns */
	CUarray cached_array; /* GL's last frame, and a surface on it */
	CUsurfObject cached_surf;
	CUstream cs;
	unsigned int presented;
	char note[256];
};

/* Why the run cannot be made here, or NULL (with the config chosen). */
static const char *
eglstream_skip_reason(struct eglstream_run *s)
{
	static const char *const exts[] = {
		"EGL_KHR_stream", "EGL_KHR_stream_producer_eglsurface",
		"EGL_KHR_stream_consumer_gltexture",
	};
	EGLint cfg_attribs[] = {
		EGL_SURFACE_TYPE,
		EGL_STREAM_BIT_KHR,
		EGL_RENDERABLE_TYPE,
		EGL_OPENGL_BIT,
		EGL_RED_SIZE, 8,
		EGL_GREEN_SIZE, 8,
		EGL_BLUE_SIZE, 8,
		EGL_ALPHA_SIZE, 8,
		EGL_NONE,
	};
	EGLint ncfg = 0;
	const char *why;

	for (size_t i = 0; i < ARRAY_LENGTH(exts); i++)
		if (!epoxy_has_egl_extension(dpy, exts[i])) {
			snprintf(s->note, sizeof(s->note), "no %s", exts[i]);
			return s->note;
		}
	why = eglstream_resolve();
	if (why)
		return why;
	eglBindAPI(EGL_OPENGL_API);
	if (!eglChooseConfig(dpy, cfg_attribs, &s->cfg, 1, &ncfg) || ncfg < 1)
		return "no EGLConfig with EGL_STREAM_BIT_KHR and GL";
	return NULL;
}

/* The context, the streams and their four ends (the producer surface
 * current), CUDA's stream and frames, the queries and the program. -1 with
 * the reason in the note; eglstream_close frees what was made. */
static int
eglstream_open(struct eglstream_run *s)
{
	static const EGLint ctx_attribs[] = {
		EGL_CONTEXT_MAJOR_VERSION, 4,
		EGL_CONTEXT_MINOR_VERSION, 5,
		EGL_CONTEXT_OPENGL_PROFILE_MASK,
		EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE,
	};

	s->ctx = eglCreateContext(dpy, s->cfg, EGL_NO_CONTEXT, ctx_attribs);
	s->to_cuda = eglCreateStreamKHR(dpy, (EGLint[]){ EGL_NONE });
	s->to_gl = eglCreateStreamKHR(dpy, (EGLint[]){ EGL_NONE });
	if (s->ctx == EGL_NO_CONTEXT || s->to_cuda == EGL_NO_STREAM_KHR ||
	    s->to_gl == EGL_NO_STREAM_KHR) {
		snprintf(s->note, sizeof(s->note),
			 "context or streams: EGL error 0x%x", eglGetError());
		return -1;
	}
	/* Consumers connect first. */
	if (cu_fail(es.consumer_connect(&s->cons, s->to_cuda),
		    "cuEGLStreamConsumerConnect") < 0) {
		s->cons = NULL;
		snprintf(s->note, sizeof(s->note),
			 "cuEGLStreamConsumerConnect failed");
		return -1;
	}
	s->surf = eglCreateStreamProducerSurfaceKHR(
		dpy, s->cfg, s->to_cuda,
		(EGLint[]){ EGL_WIDTH, (EGLint)opt.width, EGL_HEIGHT,
			    (EGLint)opt.height, EGL_NONE });
	if (s->surf == EGL_NO_SURFACE ||
	    !eglMakeCurrent(dpy, s->surf, s->surf, s->ctx)) {
		snprintf(s->note, sizeof(s->note),
			 "producer surface: EGL error 0x%x", eglGetError());
		return -1;
	}
	glGenTextures(1, &s->ext_tex);
	glBindTexture(GL_TEXTURE_EXTERNAL_OES, s->ext_tex);
	if (!eglStreamConsumerGLTextureExternalKHR(dpy, s->to_gl)) {
		snprintf(s->note, sizeof(s->note),
			 "eglStreamConsumerGLTextureExternalKHR: EGL error "
			 "0x%x",
			 eglGetError());
		return -1;
	}
	if (cu_fail(es.producer_connect(&s->prod, s->to_gl, (EGLint)opt.width,
					(EGLint)opt.height),
		    "cuEGLStreamProducerConnect") < 0) {
		s->prod = NULL;
		snprintf(s->note, sizeof(s->note),
			 "cuEGLStreamProducerConnect failed");
		return -1;
	}
	if (cu_fail(CU(cuStreamCreate)(&s->cs, CU_STREAM_NON_BLOCKING),
		    "cuStreamCreate") < 0 ||
	    cu_fail(CU(cuMemAllocHost)((void **)&s->r.stamps,
				       (size_t)s->n_all * 2 * sizeof(uint64_t)),
		    "cuMemAllocHost") < 0)
		return -1;
	for (int i = 0; i < 2; i++)
		if (cu_fail(CU(cuMemAlloc)(&s->out[i],
					   (size_t)opt.width * opt.height * 4),
			    "cuMemAlloc") < 0)
			return -1;
	s->r.queries = calloc((size_t)s->n_all * 4, sizeof(GLuint));
	if (!s->r.queries)
		return -1;
	glGenQueries((GLsizei)(s->n_all * 4), s->r.queries);
	if (make_draw_program(&s->r) < 0)
		return -1;
	s->r.fbo[0] = 0; /* the stream's producer surface */
	return 0;
}

/* CUDA's side of frame n: GL's frame from to_cuda, inverted into dst. */
static int
eglstream_cuda(struct eglstream_run *s, unsigned int n, CUdeviceptr dst)
{
	CUgraphicsResource res = NULL;
	CUeglFrame in_frame;
	CUresult cr;
	int w = (int)opt.width, h = (int)opt.height, pitch_px = (int)opt.width;
	void *args[] = { &s->cached_surf, &dst, &pitch_px, &w, &h };

	cr = es.consumer_acquire(&s->cons, &res, &s->cs, 1000000);
	if (cr != CUDA_SUCCESS) {
		cu_fail(cr, "cuEGLStreamConsumerAcquireFrame");
		snprintf(s->note, sizeof(s->note),
			 "cuEGLStreamConsumerAcquireFrame failed (%d)", cr);
		return -1;
	}
	cr = es.mapped_frame(&in_frame, res, 0, 0);
	if (cr == CUDA_SUCCESS &&
	    in_frame.frameType != CU_EGL_FRAME_TYPE_ARRAY) {
		snprintf(s->note, sizeof(s->note),
			 "GL's frame is not a CUDA array (type %d)",
			 (int)in_frame.frameType);
		es.consumer_release(&s->cons, res, &s->cs);
		return -1;
	}
	if (cr == CUDA_SUCCESS && in_frame.frame.pArray[0] != s->cached_array) {
		CUDA_RESOURCE_DESC rd;
		if (s->cached_surf)
			CU(cuSurfObjectDestroy)(s->cached_surf);
		s->cached_surf = 0;
		memset(&rd, 0, sizeof(rd));
		rd.resType = CU_RESOURCE_TYPE_ARRAY;
		rd.res.array.hArray = in_frame.frame.pArray[0];
		cr = CU(cuSurfObjectCreate)(&s->cached_surf, &rd);
		s->cached_array =
			cr == CUDA_SUCCESS ? in_frame.frame.pArray[0] : NULL;
	}
	if (cr == CUDA_SUCCESS)
		cr = launch_stamp(s->cs, &s->r.stamps[n * 2]) < 0
			     ? CUDA_ERROR_UNKNOWN
			     : CUDA_SUCCESS;
	if (cr == CUDA_SUCCESS)
		cr = CU(cuLaunchKernel)(k.invert_to_pitch,
					(opt.width + 15) / 16,
					(opt.height + 15) / 16, 1, 16, 16, 1, 0,
					s->cs, args, NULL);
	if (cr == CUDA_SUCCESS)
		cr = launch_stamp(s->cs, &s->r.stamps[n * 2 + 1]) < 0
			     ? CUDA_ERROR_UNKNOWN
			     : CUDA_SUCCESS;
	es.consumer_release(&s->cons, res, &s->cs);
	if (cr != CUDA_SUCCESS) {
		cu_fail(cr, "the EGLStream frame's kernel");
		snprintf(s->note, sizeof(s->note),
			 "mapping or using GL's frame in CUDA failed (%d)", cr);
		return -1;
	}
	return 0;
}

/* CUDA's frame dst into to_gl, and GL's acquire of it. */
static int
eglstream_present(struct eglstream_run *s, CUdeviceptr dst)
{
	CUeglFrame out_frame;
	CUresult cr;

	/* Buffers the consumer is done with come back to the producer. */
	if (s->presented >= 2) {
		CUeglFrame back;
		es.producer_return(&s->prod, &back, &s->cs);
	}
	memset(&out_frame, 0, sizeof(out_frame));
	out_frame.frame.pPitch[0] = (void *)(uintptr_t)dst;
	out_frame.width = opt.width;
	out_frame.height = opt.height;
	out_frame.depth = 1;
	out_frame.pitch = opt.width * 4;
	out_frame.planeCount = 1;
	out_frame.numChannels = 4;
	out_frame.frameType = CU_EGL_FRAME_TYPE_PITCH;
	out_frame.eglColorFormat = CU_EGL_COLOR_FORMAT_ABGR;
	out_frame.cuFormat = CU_AD_FORMAT_UNSIGNED_INT8;
	cr = es.producer_present(&s->prod, out_frame, &s->cs);
	if (cr != CUDA_SUCCESS) {
		cu_fail(cr, "cuEGLStreamProducerPresentFrame");
		snprintf(s->note, sizeof(s->note),
			 "cuEGLStreamProducerPresentFrame failed (%d)", cr);
		return -1;
	}
	s->presented++;
	glBindTexture(GL_TEXTURE_EXTERNAL_OES, s->ext_tex);
	if (!eglStreamConsumerAcquireKHR(dpy, s->to_gl)) {
		snprintf(s->note, sizeof(s->note),
			 "eglStreamConsumerAcquireKHR: EGL error 0x%x",
			 eglGetError());
		return -1;
	}
	return 0;
}

/* Frame n through both streams, its marks taken, on an idle GPU after. */
static int
eglstream_frame(struct eglstream_run *s, unsigned int n)
{
	GLuint *q = &s->r.queries[n * 4];
	CUdeviceptr dst = s->out[n % 2];

	glQueryCounter(q[0], GL_TIMESTAMP);
	gl_draw(&s->r, 0, n);
	glQueryCounter(q[1], GL_TIMESTAMP);
	if (!eglSwapBuffers(dpy, s->surf)) {
		snprintf(s->note, sizeof(s->note),
			 "eglSwapBuffers: EGL error 0x%x", eglGetError());
		return -1;
	}
	if (eglstream_cuda(s, n, dst) < 0 || eglstream_present(s, dst) < 0)
		return -1;
	glQueryCounter(q[2], GL_TIMESTAMP);
	eglStreamConsumerReleaseKHR(dpy, s->to_gl);
	glQueryCounter(q[3], GL_TIMESTAMP);
	if (cpu_wait_gl() < 0 ||
	    cu_fail(CU(cuStreamSynchronize)(s->cs), "cuStreamSynchronize") < 0)
		return -1;
	return 0;
}

/* The table row of the frames after the warm-up. */
static void
eglstream_report(struct eglstream_run *s)
{
	struct stats st[3] = { { 0 } };

	for (unsigned int n = opt.warmup; n < s->n_all; n++) {
		GLuint64 drawn = 0, acquired = 0;
		glGetQueryObjectui64v(s->r.queries[n * 4 + 1], GL_QUERY_RESULT,
				      &drawn);
		glGetQueryObjectui64v(s->r.queries[n * 4 + 2], GL_QUERY_RESULT,
				      &acquired);
		stats_add(&st[0],
			  ((double)s->r.stamps[n * 2] - (double)drawn) / 1e3);
		stats_add(&st[1], ((double)s->r.stamps[n * 2 + 1] -
				   (double)s->r.stamps[n * 2]) /
					  1e3);
		stats_add(&st[2],
			  ((double)acquired - (double)s->r.stamps[n * 2 + 1]) /
				  1e3);
	}
	printf("| eglstream, isolated |");
	print_gap_cells(st, ARRAY_LENGTH(st));
	printf(" | | | GL producer surface -> CUDA consumer; CUDA producer -> "
	       "GL texture consumer; to GL ends at GL past its acquire |\n");
	fflush(stdout);
}

/* Whatever eglstream_open made, after CUDA's work is done; the bench's
 * context current again. */
static void
eglstream_close(struct eglstream_run *s)
{
	if (s->cs)
		CU(cuStreamSynchronize)(s->cs);
	if (s->cached_surf)
		CU(cuSurfObjectDestroy)(s->cached_surf);
	if (s->prod)
		es.producer_disconnect(&s->prod);
	if (s->cons)
		es.consumer_disconnect(&s->cons);
	if (eglGetCurrentContext() == s->ctx && s->ctx != EGL_NO_CONTEXT) {
		if (s->r.queries)
			glDeleteQueries((GLsizei)(s->n_all * 4), s->r.queries);
		if (s->ext_tex)
			glDeleteTextures(1, &s->ext_tex);
		if (s->r.prog)
			glDeleteProgram(s->r.prog);
		if (s->r.vao)
			glDeleteVertexArrays(1, &s->r.vao);
	}
	free(s->r.queries);
	eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, s->main_ctx);
	if (s->surf != EGL_NO_SURFACE)
		eglDestroySurface(dpy, s->surf);
	if (s->to_cuda != EGL_NO_STREAM_KHR)
		eglDestroyStreamKHR(dpy, s->to_cuda);
	if (s->to_gl != EGL_NO_STREAM_KHR)
		eglDestroyStreamKHR(dpy, s->to_gl);
	if (s->ctx != EGL_NO_CONTEXT)
		eglDestroyContext(dpy, s->ctx);
	for (int i = 0; i < 2; i++)
		if (s->out[i])
			CU(cuMemFree)(s->out[i]);
	if (s->r.stamps)
		CU(cuMemFreeHost)(s->r.stamps);
	if (s->cs)
		CU(cuStreamDestroy)(s->cs);
}

/* GL -> CUDA -> GL through two EGLStreams, every frame on an idle GPU. */
static void
run_eglstream(CUstream unused)
{
	struct eglstream_run s;
	const char *why;
	int ret;

	(void)unused;
	memset(&s, 0, sizeof(s));
	s.main_ctx = eglGetCurrentContext();
	s.ctx = EGL_NO_CONTEXT;
	s.to_cuda = s.to_gl = EGL_NO_STREAM_KHR;
	s.surf = EGL_NO_SURFACE;
	s.n_all = opt.warmup + opt.frames;
	why = eglstream_skip_reason(&s);
	if (why) {
		eglstream_row("skipped", why);
		return;
	}
	ret = eglstream_open(&s);
	for (unsigned int n = 0; ret == 0 && n < s.n_all; n++)
		ret = eglstream_frame(&s, n);
	if (ret == 0)
		eglstream_report(&s);
	else
		eglstream_row("failed", s.note);
	eglstream_close(&s);
}
#endif

static void
usage(FILE *f)
{
	fprintf(f, "usage: glcuda-trace [--size WxH] [--frames N] [--warmup "
		   "N]\n"
		   "                    [--scenarios LIST] [--isolated | "
		   "--steady] [--csv FILE]\n"
		   "                    [--cuda-device N] [--no-gl-switch] "
		   "[--no-eglstream]\n"
		   "scenarios: "
		   "timeline,binary,cuda-prio,gl-prio,gl-ready,host,legacy,\n"
		   "           batch2,batch4,batch8,ring1,ring2,ring4 (default "
		   "all)\n");
}

static int
parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "size", required_argument, NULL, 's' },
		{ "frames", required_argument, NULL, 'f' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "scenarios", required_argument, NULL, 'S' },
		{ "isolated", no_argument, NULL, 'i' },
		{ "steady", no_argument, NULL, 't' },
		{ "csv", required_argument, NULL, 'c' },
		{ "no-gl-switch", no_argument, NULL, 'g' },
		{ "no-eglstream", no_argument, NULL, 'E' },
		{ "cuda-device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			if (!parse_size(optarg, 1, 16384, &opt.width,
					&opt.height))
				return -1;
			break;
		case 'f':
			opt.frames = (unsigned int)strtoul(optarg, NULL, 10);
			if (!opt.frames || opt.frames > 100000)
				return -1;
			break;
		case 'w':
			opt.warmup = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'S': {
			char *list = strdup(optarg), *save = NULL;
			opt.scenarios = 0;
			for (char *t = strtok_r(list, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				unsigned int i;
				for (i = 0; i < SC_COUNT &&
					    strcmp(t, scenario_names[i]);
				     i++)
					;
				if (i == SC_COUNT) {
					fprintf(stderr,
						"glcuda-trace: unknown "
						"scenario %s\n",
						t);
					free(list);
					return -1;
				}
				opt.scenarios |= 1u << i;
			}
			free(list);
			break;
		}
		case 'i':
			opt.steady = false;
			opt.isolated = true;
			break;
		case 't':
			opt.isolated = false;
			opt.steady = true;
			break;
		case 'c':
			opt.csv = optarg;
			break;
		case 'g':
			opt.gl_switch = false;
			break;
		case 'E':
			opt.eglstream = false;
			break;
		case 'd':
			if (!parse_int(optarg, -1, INT_MAX, &opt.cuda_device))
				return -1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
		}
	}
	return optind == argc ? 0 : -1;
}

int
main(int argc, char **argv)
{
	struct glcuda_headless *hl = NULL;
	struct glcuda_device *dev = NULL;
	CUstream stream = NULL;
	uint64_t *slot = NULL;
	char msg[512];
	int ret = 1, r;

	if (parse(argc, argv) < 0) {
		usage(stderr);
		return 2;
	}
	r = glcuda_headless_new(opt.cuda_device, GLCUDA_HEADLESS_FLAG_NONE,
				&hl);
	if (r < 0) {
		fprintf(stderr, "glcuda-trace: glcuda_headless_new: %s: %s\n",
			glcuda_error_get_name(r), glcuda_get_last_error());
		return 1;
	}
	dpy = glcuda_headless_get_display(hl);
	r = glcuda_device_new(dpy, glcuda_headless_get_context(hl), NULL, &dev);
	if (gc_fail(r, "glcuda_device_new") < 0)
		goto out;
	if (tools_cuda_load(msg, sizeof(msg)) < 0) {
		fprintf(stderr, "glcuda-trace: %s\n", msg);
		goto out;
	}
	/* The CUDA context glcuda uses, current on this thread for every
	 * CUDA call of the program (the device's primary context). */
	if (cu_fail(CU(cuCtxPushCurrent)(glcuda_device_get_cuda_context(dev)),
		    "cuCtxPushCurrent") < 0)
		goto out;
	if (cu_fail(CU(cuModuleLoadData)(&k.module, glcuda_trace_fatbin),
		    "cuModuleLoadData") < 0 ||
	    cu_fail(CU(cuModuleGetFunction)(&k.stamp, k.module, "trace_stamp"),
		    "trace_stamp") < 0 ||
	    cu_fail(CU(cuModuleGetFunction)(&k.invert, k.module,
					    "trace_invert"),
		    "trace_invert") < 0 ||
	    cu_fail(CU(cuModuleGetFunction)(&k.invert_to_pitch, k.module,
					    "trace_invert_to_pitch"),
		    "trace_invert_to_pitch") < 0 ||
	    cu_fail(CU(cuStreamCreate)(&stream, CU_STREAM_NON_BLOCKING),
		    "cuStreamCreate") < 0 ||
	    cu_fail(CU(cuMemAllocHost)((void **)&slot, sizeof(*slot)),
		    "cuMemAllocHost") < 0)
		goto out;
	if (opt.csv) {
		csv = fopen(opt.csv, "w");
		if (!csv) {
			fprintf(stderr, "glcuda-trace: %s: %s\n", opt.csv,
				strerror(errno));
			goto out;
		}
		fprintf(csv, "scenario,pacing,frame,to_cuda_us,cuda_us,"
			     "to_gl_us,blit_us,frame_us,switch_per_frame_us\n");
	}

	printf("# glcuda-trace, %ux%u RGBA8, %u frames after %u of warm-up\n\n",
	       opt.width, opt.height, opt.frames, opt.warmup);
	printf("GL: %s, %s\n\n", (const char *)glGetString(GL_RENDERER),
	       (const char *)glGetString(GL_VERSION));
	if (check_clocks(stream, slot) < 0)
		goto out;
	printf("Medians (10th–90th percentile) in µs of GPU time per "
	       "frame.\n\n");
	printf("| scenario |");
	for (int i = 0; i < G_COUNT; i++)
		printf(" %s |", gap_names[i]);
	printf(" note |\n");
	printf("|---|--:|--:|--:|--:|--:|--:|---|\n");
	for (int sc = 0; sc < SC_COUNT; sc++) {
		if (!(opt.scenarios & (1u << sc)))
			continue;
		if (opt.isolated)
			run_scenario((enum scenario)sc, false);
		if (opt.steady && sc != SC_GL_READY && sc != SC_HOST)
			run_scenario((enum scenario)sc, true);
	}
	if (opt.gl_switch) {
		if (opt.isolated)
			run_gl_switch(false);
		if (opt.steady)
			run_gl_switch(true);
	}
#ifdef TRACE_HAVE_EGLSTREAM
	if (opt.eglstream && opt.isolated)
		run_eglstream(stream);
#endif
	if (cpu_rows[0]) {
		printf("\nThe ring's calls, thread CPU µs per frame (median), "
		       "ring scenarios:\n\n");
		printf("| scenario |");
		for (int i = 0; i < RC_COUNT; i++)
			printf(" %s |", ring_call_names[i]);
		printf(" total |\n|---|--:|--:|--:|--:|--:|--:|\n%s", cpu_rows);
	}
	driver_call_costs(stream);
	ret = 0;
out:
	if (csv)
		fclose(csv);
	if (slot)
		CU(cuMemFreeHost)(slot);
	if (stream)
		CU(cuStreamDestroy)(stream);
	if (k.module)
		CU(cuModuleUnload)(k.module);
	if (tools_cuda_loaded()) {
		CUcontext c;
		CU(cuCtxPopCurrent)(&c);
	}
	glcuda_device_destroy(dev);
	glcuda_headless_destroy(hl);
	return ret;
}
