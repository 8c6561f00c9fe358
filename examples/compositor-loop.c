/*
 * compositor-loop: how a Wayland compositor drives glcuda's frame ring from
 * its event loop. Copy from here.
 *
 * The shape is a compositor's, without a display or clients:
 *
 *   - libwayland-server's wl_event_loop is the main loop (a compositor
 *     already has one: wl_display_get_event_loop());
 *   - a timerfd at --hz (default 60) stands in for the output's vblank: at
 *     each tick the compositor latches the newest finished frame and
 *     "presents" it (a blit into a screen framebuffer, where a real
 *     compositor would page-flip or scan out);
 *   - the ring's fd (an eventfd glcuda writes when a frame's CUDA work has
 *     finished on the GPU) sits in the same loop, so the compositor learns
 *     about finished frames without ever waiting on the GPU;
 *   - a producer renders frames with GL as fast as the ring lets it, and
 *     each frame goes through a CUDA kernel (invert, PTX text below).
 *     When every slot is in flight, acquire returns -EAGAIN and the producer
 *     simply skips: the compositor never blocks on the GPU.
 *
 * Nothing here waits on the CPU for the GPU: GL hands the frame to CUDA
 * with a semaphore, CUDA hands it back with another, and GL's wait for it
 * is enqueued only when the compositor takes the frame at the vblank.
 *
 * Run:  examples/compositor-loop [--hz N] [--seconds N | --frames N]
 *                                [--size WxH] [--gles] [--device N]
 * --frames N ends it after N presented frames instead of after --seconds
 * (however long they take: tests use it).
 * At the end it prints frames produced, presented and dropped (frames that
 * finished but were overtaken by a newer one before the vblank), and the
 * mean latency from the start of rendering to the vblank that showed it.
 *
 * SPDX-License-Identifier: MIT
 */
/* timerfd, clock_gettime and getopt_long are GNU/POSIX, not C99. */
#define _GNU_SOURCE


/* epoxy's EGL/GL headers first: glcuda.h includes <EGL/egl.h>. */
#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <wayland-server-core.h>

/* glcuda-cuda.h: the CUDA side of the ring (streams, surfaces). */
#include <glcuda/glcuda-cuda.h>

/* The program's own CUDA calls, through libcuda opened at run time like
 * glcuda opens it (example-cuda.h says why; -lcuda works too). */
#include "example-cuda.h"

/* invert(in, out, width, height): out.RGB = 255 - in.RGB, alpha kept, for
 * RGBA8 surfaces. Hand-written PTX: the driver compiles it for the GPU when
 * it is loaded, so the program needs no nvcc; a kernel built with nvcc
 * (a fat binary, or its PTX) loads the same way. */
static const char invert_ptx[] =
	".version 6.0\n.target sm_52\n.address_size 64\n"
	".visible .entry invert(.param .u64 in, .param .u64 out,\n"
	"                       .param .u32 w, .param .u32 h)\n{\n"
	"  .reg .pred %p<3>; .reg .b16 %rs<5>; .reg .b32 %r<8>;\n"
	"  .reg .b64 %rd<3>;\n"
	"  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"
	"  ld.param.u32 %r1, [w]; ld.param.u32 %r2, [h];\n"
	"  mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mov.u32 %r5, %tid.x;\n"
	"  mad.lo.s32 %r6, %r3, %r4, %r5;\n" /* x */
	"  mov.u32 %r3, %ctaid.y; mov.u32 %r4, %ntid.y; mov.u32 %r5, %tid.y;\n"
	"  mad.lo.s32 %r7, %r3, %r4, %r5;\n" /* y */
	"  setp.ge.u32 %p1, %r6, %r1; setp.ge.u32 %p2, %r7, %r2;\n"
	"  or.pred %p1, %p1, %p2; @%p1 bra DONE;\n"
	"  shl.b32 %r6, %r6, 2;\n" /* x in bytes */
	"  suld.b.2d.v4.b8.trap {%rs1, %rs2, %rs3, %rs4}, [%rd1, {%r6, %r7}];\n"
	"  xor.b16 %rs1, %rs1, 255; xor.b16 %rs2, %rs2, 255;\n"
	"  xor.b16 %rs3, %rs3, 255;\n"
	"  sust.b.2d.v4.b8.trap [%rd2, {%r6, %r7}], {%rs1, %rs2, %rs3, %rs4};\n"
	"DONE:\n  ret;\n}\n";

struct compositor {
	struct glcuda_headless *headless;
	struct glcuda_device *dev;
	struct glcuda_ring *ring;
	CUmodule module;
	CUfunction invert;
	uint32_t width, height;

	/* The "screen": what the output would scan out. */
	GLuint screen_tex, screen_fbo;
	/* A framebuffer to read a frame's output texture from, for the blit. */
	GLuint read_fbo;

	/* When each slot's current frame was acquired (its render started). */
	double acquired_at[GLCUDA_RING_MAX_SLOTS];

	uint64_t produced, presented, vblanks, missed_vblanks;
	uint64_t frames; /* --frames: the frames to present, 0: --seconds */
	double latency_sum;
	bool running;
	int status; /* exit status once something failed */
};

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Report a glcuda failure: every call leaves a detailed message (what
 * failed, the raw GL/Vulkan/CUDA code, what to do) in glcuda_get_last_error().
 */
static void
fail(struct compositor *c, const char *call, int err)
{
	fprintf(stderr, "compositor-loop: %s: %s\n  %s\n", call,
		glcuda_error_get_name(err), glcuda_get_last_error());
	c->status = 1;
	c->running = false;
}

/* The producer ------------------------------------------------------------ */

/* The client's GL content: a background whose colour cycles and a bar that
 * sweeps across. Kept to clears so that the example stays about the loop. */
static void
render(struct compositor *c, struct glcuda_frame *f)
{
	uint64_t n = glcuda_frame_get_number(f);
	float t = (float)(n % 240) / 240.f;
	int bar = (int)(t * (float)c->width);

	glBindFramebuffer(GL_FRAMEBUFFER, glcuda_frame_get_input_fbo(f));
	glViewport(0, 0, (GLsizei)c->width, (GLsizei)c->height);
	glDisable(GL_SCISSOR_TEST);
	glClearColor(0.2f + 0.6f * t, 0.3f, 0.8f - 0.6f * t, 1.f);
	glClear(GL_COLOR_BUFFER_BIT);
	glEnable(GL_SCISSOR_TEST);
	glScissor(bar, 0, (GLsizei)(c->width / 16 + 1), (GLsizei)c->height);
	glClearColor(1.f, 1.f, 1.f, 1.f);
	glClear(GL_COLOR_BUFFER_BIT);
	glDisable(GL_SCISSOR_TEST);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

/* Make one frame if the ring has a free slot. Returns false when it has
 * none (or on failure): the caller then sleeps in the event loop. */
/* Load the kernel into glcuda's CUDA context (the device's primary
 * context), where every CUDA call on its images and streams must run. */
static bool
load_kernel(struct compositor *c)
{
	bool ok;

	if (EXAMPLE_CU(cuCtxPushCurrent)(
		    glcuda_device_get_cuda_context(c->dev)) != CUDA_SUCCESS)
		return false;
	ok = EXAMPLE_CU(cuModuleLoadData)(&c->module, invert_ptx) ==
		     CUDA_SUCCESS &&
	     EXAMPLE_CU(cuModuleGetFunction)(&c->invert, c->module, "invert") ==
		     CUDA_SUCCESS;
	EXAMPLE_CU(cuCtxPopCurrent)(NULL);
	return ok;
}

/* Enqueue the kernel on the frame's stream: its input surface in, its
 * output surface out. */
static bool
launch_invert(struct compositor *c, struct glcuda_frame *f)
{
	CUsurfObject in = glcuda_frame_get_input_surface(f);
	CUsurfObject out = glcuda_frame_get_output_surface(f);
	unsigned int w = c->width, h = c->height;
	void *args[] = { &in, &out, &w, &h };
	CUresult res;

	if (EXAMPLE_CU(cuCtxPushCurrent)(
		    glcuda_device_get_cuda_context(c->dev)) != CUDA_SUCCESS)
		return false;
	res = EXAMPLE_CU(cuLaunchKernel)(c->invert, (w + 15) / 16,
					 (h + 15) / 16, 1, 16, 16, 1, 0,
					 glcuda_frame_get_stream(f), args,
					 NULL);
	EXAMPLE_CU(cuCtxPopCurrent)(NULL);
	return res == CUDA_SUCCESS;
}

static bool
produce(struct compositor *c)
{
	struct glcuda_frame *f;
	int ret;

	/* Never blocks. -EAGAIN: every slot is in flight (rendering, in
	 * CUDA, finished but not yet latched, or on screen): skip. */
	ret = glcuda_ring_acquire(c->ring, &f);
	if (ret == -EAGAIN)
		return false;
	if (ret < 0) {
		fail(c, "glcuda_ring_acquire", ret);
		return false;
	}
	c->acquired_at[glcuda_frame_get_slot(f)] = now();

	/* 1. GL renders into the slot's input image. */
	render(c, f);

	/* 2. Hand it to CUDA: GL signals a semaphore and flushes; the slot's
	 *    CUDA stream waits for it on the GPU. The CPU goes on at once. */
	ret = glcuda_frame_submit(f);
	if (ret < 0) {
		fail(c, "glcuda_frame_submit", ret);
		return false;
	}

	/* 3. Enqueue the CUDA work on the frame's stream: input surface in,
	 *    output surface out. Any kernel works here, launched through the
	 *    driver API on glcuda_frame_get_stream(f). */
	if (!launch_invert(c, f)) {
		fprintf(stderr, "compositor-loop: cuLaunchKernel failed\n");
		c->status = 1;
		c->running = false;
		/* Complete anyway: the ring gets the slot back. */
		glcuda_frame_complete(f);
		return false;
	}

	/* 4. Done enqueuing: CUDA signals the hand-off back to GL after the
	 *    filter, and the ring's fd becomes readable when it has run.
	 *    Nothing waits yet: GL waits only when the frame is latched. */
	ret = glcuda_frame_complete(f);
	if (ret < 0) {
		fail(c, "glcuda_frame_complete", ret);
		return false;
	}
	c->produced++;
	return true;
}

/* Event sources ---------------------------------------------------------- */

/* The ring's fd: a frame's CUDA stage has finished. Drain the fd and let
 * the ring mark the frames ready. A compositor would schedule a repaint for
 * the next vblank here (and may even skip it when nothing is ready); the
 * latch itself waits for the deadline, so that the newest frame wins. */
static int
on_ring_ready(int fd, uint32_t mask, void *data)
{
	struct compositor *c = data;
	int ready = glcuda_ring_dispatch(c->ring);

	if (ready < 0)
		fail(c, "glcuda_ring_dispatch", ready);
	return 0;
}

/* The "vblank": latch the newest finished frame and present it. */
static int
on_vblank(int fd, uint32_t mask, void *data)
{
	struct compositor *c = data;
	struct glcuda_frame *f;
	uint64_t expirations = 0;
	int ret;

	/* A timerfd counts the ticks since the last read: more than one means
	 * the loop was late and vblanks went by. */
	if (read(fd, &expirations, sizeof(expirations)) !=
	    (ssize_t)sizeof(expirations))
		return 0;
	c->vblanks += expirations;
	c->missed_vblanks += expirations - 1;

	/* The newest frame whose CUDA stage is done. Older finished frames
	 * are dropped (their slots become free at once). This enqueues GL's
	 * wait for CUDA on the GPU: GL commands issued from now on see the
	 * filter's output. -EAGAIN: nothing new; keep showing the last
	 * frame. */
	ret = glcuda_ring_take_newest(c->ring, &f);
	if (ret == -EAGAIN)
		return 0;
	if (ret < 0) {
		fprintf(stderr,
			"compositor-loop: glcuda_ring_take_newest: %s\n",
			glcuda_get_last_error());
		c->status = 1;
		c->running = false;
		return 0;
	}

	/* Composite: here a blit of the frame's output onto the screen. A
	 * real compositor samples glcuda_frame_get_output_texture(f) in its
	 * scene like any client buffer. */
	glBindFramebuffer(GL_READ_FRAMEBUFFER, c->read_fbo);
	glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D,
			       glcuda_frame_get_output_texture(f), 0);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, c->screen_fbo);
	glBlitFramebuffer(0, 0, (GLint)c->width, (GLint)c->height, 0, 0,
			  (GLint)c->width, (GLint)c->height,
			  GL_COLOR_BUFFER_BIT, GL_NEAREST);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
	/* "Present": a page flip would go here; flush so the GPU starts. */
	glFlush();

	c->presented++;
	c->latency_sum += now() - c->acquired_at[glcuda_frame_get_slot(f)];

	/* Give the slot back. GL may still be reading the output: the ring
	 * orders the slot's next use after this blit on the GPU, so there is
	 * no need to wait for it here. */
	ret = glcuda_frame_release(f);
	if (ret < 0)
		fail(c, "glcuda_frame_release", ret);
	if (c->frames && c->presented >= c->frames)
		c->running = false;
	return 0;
}

static int
on_end(void *data)
{
	struct compositor *c = data;
	c->running = false;
	return 0;
}

/* Setup ------------------------------------------------------------------ */

static int
setup_gl(struct compositor *c)
{
	glGenTextures(1, &c->screen_tex);
	glBindTexture(GL_TEXTURE_2D, c->screen_tex);
	glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, (GLsizei)c->width,
		       (GLsizei)c->height);
	glBindTexture(GL_TEXTURE_2D, 0);
	glGenFramebuffers(1, &c->screen_fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, c->screen_fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, c->screen_tex, 0);
	if (glCheckFramebufferStatus(GL_FRAMEBUFFER) !=
	    GL_FRAMEBUFFER_COMPLETE) {
		fprintf(stderr, "compositor-loop: the screen framebuffer is "
				"incomplete\n");
		return 1;
	}
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	glGenFramebuffers(1, &c->read_fbo);
	if (glGetError() != GL_NO_ERROR) {
		fprintf(stderr, "compositor-loop: GL error while creating the "
				"screen\n");
		return 1;
	}
	return 0;
}

static void
usage(FILE *out)
{
	fprintf(out, "Usage: compositor-loop [--hz N] [--seconds N | --frames "
		     "N] [--size WxH] [--gles] [--device N]\n");
}

/* The command line: 0, or -1 on a bad one (usage printed), 1 for --help. */
struct options {
	int hz, seconds, frames, device;
	uint32_t headless_flags;
};

static int
parse_args(int argc, char **argv, struct compositor *c, struct options *o)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i],
			   *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(arg, "--gles") == 0) {
			o->headless_flags |= GLCUDA_HEADLESS_FLAG_GLES;
		} else if (strcmp(arg, "--hz") == 0 && val) {
			o->hz = atoi(val);
			i++;
		} else if (strcmp(arg, "--seconds") == 0 && val) {
			o->seconds = atoi(val);
			i++;
		} else if (strcmp(arg, "--frames") == 0 && val) {
			o->frames = atoi(val);
			if (o->frames < 1) {
				usage(stderr);
				return -1;
			}
			i++;
		} else if (strcmp(arg, "--device") == 0 && val) {
			o->device = atoi(val);
			i++;
		} else if (strcmp(arg, "--size") == 0 && val &&
			   sscanf(val, "%ux%u", &c->width, &c->height) == 2) {
			i++;
		} else if (strcmp(arg, "--help") == 0) {
			usage(stdout);
			return 1;
		} else {
			usage(stderr);
			return -1;
		}
	}
	if (o->hz < 1 || o->hz > 1000 || o->seconds < 1 || o->device < -1 ||
	    c->width == 0 || c->height == 0 || c->width > 16384 ||
	    c->height > 16384) {
		usage(stderr);
		return -1;
	}
	c->frames = (uint64_t)o->frames;
	return 0;
}

/* The GL context, the glcuda device on it, the ring, the kernel and the
 * screen. 0, or -1 with the failure printed. */
static int
compositor_setup(struct compositor *c, const struct options *o)
{
	struct glcuda_ring_desc desc;
	int ret;

	/* A compositor has its own EGLDisplay and context; this example makes
	 * a headless one. glcuda binds to whichever context is current. */
	ret = glcuda_headless_new(o->device, o->headless_flags, &c->headless);
	if (ret < 0) {
		fail(c, "glcuda_headless_new", ret);
		return -1;
	}
	ret = glcuda_device_new(glcuda_headless_get_display(c->headless),
				glcuda_headless_get_context(c->headless), NULL,
				&c->dev);
	if (ret < 0) {
		fail(c, "glcuda_device_new", ret);
		return -1;
	}

	/* Three slots: one on screen, one latched or in CUDA, one rendering. */
	glcuda_ring_desc_init(&desc); /* sets desc.size: see glcuda.h */
	desc.width = c->width;
	desc.height = c->height;
	desc.slots = 3;
	desc.input_format = GLCUDA_FORMAT_RGBA8;
	desc.output_format = GLCUDA_FORMAT_RGBA8;
	ret = glcuda_ring_new(c->dev, &desc, &c->ring);
	if (ret < 0) {
		fail(c, "glcuda_ring_new", ret);
		return -1;
	}
	/* glcuda has loaded the driver: open it for this program's calls, and
	 * load the kernel into glcuda's CUDA context. */
	if (example_cuda_open() < 0 || !load_kernel(c)) {
		fprintf(stderr, "compositor-loop: cannot load the CUDA "
				"kernel\n");
		c->status = 1;
		return -1;
	}
	if (setup_gl(c)) {
		c->status = 1;
		return -1;
	}
	return 0;
}

/* Teardown with the context current: GL objects first, then the ring (safe
 * with frames in flight: it waits for the CUDA work on its streams), the
 * kernel's module (no work uses it any more), the device, the context.
 * Whatever compositor_setup made. */
static void
compositor_teardown(struct compositor *c)
{
	if (c->read_fbo)
		glDeleteFramebuffers(1, &c->read_fbo);
	if (c->screen_fbo)
		glDeleteFramebuffers(1, &c->screen_fbo);
	if (c->screen_tex)
		glDeleteTextures(1, &c->screen_tex);
	glcuda_ring_destroy(c->ring);
	if (c->module) {
		EXAMPLE_CU(cuCtxPushCurrent)
		(glcuda_device_get_cuda_context(c->dev));
		EXAMPLE_CU(cuModuleUnload)(c->module);
		EXAMPLE_CU(cuCtxPopCurrent)(NULL);
	}
	glcuda_device_destroy(c->dev);
	glcuda_headless_destroy(c->headless);
}

/* The event loop and its three sources: the ring's fd, the vblank timer and
 * the end of the run. */
struct event_loop {
	struct wl_event_loop *loop;
	int timer_fd;
	struct wl_event_source *ring_src, *vblank_src, *end_src;
};

static int
event_loop_setup(struct event_loop *el, struct compositor *c,
		 const struct options *o)
{
	struct itimerspec its = { 0 };

	el->loop = wl_event_loop_create();
	el->timer_fd =
		timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (!el->loop || el->timer_fd < 0) {
		fprintf(stderr,
			"compositor-loop: cannot create the event loop or "
			"timerfd: %s\n",
			strerror(errno));
		return -1;
	}
	its.it_interval.tv_nsec = 1000000000L / o->hz;
	if (o->hz == 1)
		its.it_interval = (struct timespec){ .tv_sec = 1 };
	its.it_value = its.it_interval;
	if (timerfd_settime(el->timer_fd, 0, &its, NULL) < 0) {
		fprintf(stderr, "compositor-loop: timerfd_settime: %s\n",
			strerror(errno));
		return -1;
	}
	/* The ring's fd is owned by the ring: never close or read it yourself;
	 * glcuda_ring_dispatch() drains it. */
	el->ring_src =
		wl_event_loop_add_fd(el->loop, glcuda_ring_get_fd(c->ring),
				     WL_EVENT_READABLE, on_ring_ready, c);
	el->vblank_src = wl_event_loop_add_fd(el->loop, el->timer_fd,
					      WL_EVENT_READABLE, on_vblank, c);
	el->end_src = wl_event_loop_add_timer(el->loop, on_end, c);
	if (!el->ring_src || !el->vblank_src || !el->end_src ||
	    (!c->frames &&
	     wl_event_source_timer_update(el->end_src, o->seconds * 1000) <
		     0)) {
		fprintf(stderr, "compositor-loop: cannot add the event "
				"sources\n");
		return -1;
	}
	return 0;
}

static void
event_loop_teardown(struct event_loop *el)
{
	if (el->end_src)
		wl_event_source_remove(el->end_src);
	if (el->vblank_src)
		wl_event_source_remove(el->vblank_src);
	if (el->ring_src)
		wl_event_source_remove(el->ring_src);
	if (el->loop)
		wl_event_loop_destroy(el->loop);
	if (el->timer_fd >= 0)
		close(el->timer_fd);
}

/* Until the end: produce while the ring has room, handling whatever events
 * are pending in between (timeout 0). When it is full, sleep in the loop
 * (timeout -1) until a frame finishes or the vblank comes: both free slots,
 * and neither wastes the CPU. */
static void
run(struct compositor *c, struct wl_event_loop *loop)
{
	while (c->running) {
		bool made = produce(c);
		if (!c->running)
			break;
		if (wl_event_loop_dispatch(loop, made ? 0 : -1) < 0 &&
		    errno != EINTR) {
			fprintf(stderr,
				"compositor-loop: wl_event_loop_dispatch: %s\n",
				strerror(errno));
			c->status = 1;
			break;
		}
	}
}

static void
print_summary(const struct compositor *c, double secs)
{
	uint64_t dropped = glcuda_ring_get_dropped(c->ring);

	printf("frames produced:  %" PRIu64 " (%.1f/s)\n", c->produced,
	       c->produced / secs);
	printf("frames presented: %" PRIu64 " of %" PRIu64 " vblanks (%" PRIu64
	       " missed)\n", c->presented, c->vblanks, c->missed_vblanks);
	printf("frames dropped:   %" PRIu64 " (finished, then overtaken before "
					    "a vblank)\n",
	       dropped);
	printf("in flight at exit: %" PRIu64 "\n",
	       c->produced - c->presented - dropped);
	if (c->presented)
		printf("mean latency:     %.2f ms from the start of rendering "
		       "to the vblank that showed it\n",
		       1e3 * c->latency_sum / c->presented);
}

int
main(int argc, char **argv)
{
	struct compositor c = { .width = 1920,
				.height = 1080,
				.running = true };
	struct options o = { .hz = 60, .seconds = 3, .device = -1 };
	struct event_loop el = { .timer_fd = -1 };
	double t0;
	int ret;

	ret = parse_args(argc, argv, &c, &o);
	if (ret != 0)
		return ret < 0 ? 2 : 0;
	if (compositor_setup(&c, &o) < 0)
		goto out;
	if (event_loop_setup(&el, &c, &o) < 0) {
		c.status = 1;
		goto out;
	}

	if (c.frames)
		printf("compositor-loop: %ux%u, %d Hz for %d frames", c.width,
		       c.height, o.hz, o.frames);
	else
		printf("compositor-loop: %ux%u, %d Hz for %d s", c.width,
		       c.height, o.hz, o.seconds);
	printf(", CUDA stage: %s, sync %s\n", "invert",
	       glcuda_sync_mode_get_name(
		       glcuda_device_get_caps(c.dev)->sync_mode));
	t0 = now();
	run(&c, el.loop);
	if (c.status == 0)
		print_summary(&c, now() - t0);

out:
	event_loop_teardown(&el);
	compositor_teardown(&c);
	return c.status;
}
