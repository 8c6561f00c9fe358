/*
 * Device loss and teardown on failure, without a GPU: the fake CUDA driver
 * (tests/fake-cuda) stands in for libcuda.so.1 and breaks its context with
 * a sticky error on demand, and the GL importer's reset-status seam stands
 * in for a GL reset (no driver resets a context on demand). Covers:
 *  - a sticky CUDA error mid-stream: the call that hits it and every later
 *    call on the device, its images and its ring return
 *    GLCUDA_ERROR_DEVICE_LOST; destroying everything returns fds, GL names
 *    and CUDA objects to where they were; a new device works;
 *  - a GL reset on a context made with reset notification, and none
 *    reported on a context made without;
 *  - a ring destroyed while its host functions are queued behind a GPU
 *    that does not finish (the fake's gate): they run later and touch no
 *    freed memory (run it under ASan or valgrind);
 *  - the CPU sync mode's cuEventSynchronize failing in the hand-off back to
 *    GL: the image can be handed back again, or destroyed.
 * SPDX-License-Identifier: MIT
 */
#include "test-common.h"
#include "fake-controls.h"
#include <glcuda/glcuda-cuda.h>

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define W 64
#define H 48

/* A call after the loss: DEVICE_LOST, and the message says what was lost
 * (`what` and `code`: the first failure's call and code). */
#define ck_lost(call)                                                          \
	do {                                                                   \
		ck_err(call, GLCUDA_ERROR_DEVICE_LOST);                        \
		ck_assert_msg(strstr(glcuda_get_last_error(),                  \
				     "lost earlier") &&                        \
				      strstr(glcuda_get_last_error(), what) && \
				      strstr(glcuda_get_last_error(), code),   \
			      "%s: %s", #call, glcuda_get_last_error());       \
	} while (0)

/* What a test starts from: compared after everything is destroyed. */
struct baseline {
	int fds;
	unsigned int live, reclaimed;
	struct gl_names names;
};

static struct glcuda_device *
device_new(EGLDisplay display, EGLContext context,
	   const struct glcuda_device_options *opts)
{
	struct glcuda_device_options cpu = { .size = sizeof(cpu),
					     .sync_mode = GLCUDA_SYNC_CPU };
	struct glcuda_device *dev = NULL;

	if (!opts)
		opts = &cpu;
	ck_assert_int_eq(fake_cuda_set_uuid_from_gl(), GL_NO_ERROR);
	ck_ok(glcuda_device_new(display, context, opts, &dev));
	resolve_fake();
	fake.gate(0);
	return dev;
}

static struct glcuda_device *
hl_device_new(struct glcuda_headless *hl)
{
	return device_new(glcuda_headless_get_display(hl),
			  glcuda_headless_get_context(hl), NULL);
}

/* Create and destroy once (the fake gets loaded, the drivers warm up), then
 * record where things stand. The context must be current. */
static void
baseline_take(struct glcuda_device *warm_up, struct baseline *b)
{
	struct glcuda_ring_desc desc = { .size = sizeof(desc),
					 .width = W,
					 .height = H,
					 .slots = 3,
					 .input_format = GLCUDA_FORMAT_RGBA8,
					 .flags = GLCUDA_RING_FLAG_TIMINGS };
	struct glcuda_ring *ring;

	ck_ok(glcuda_ring_new(warm_up, &desc, &ring));
	glcuda_ring_destroy(ring);
	glcuda_device_destroy(warm_up);
	ck_assert_uint_eq(fake.primary_refs(), 0);
	b->fds = test_count_fds();
	b->live = fake.live_objects();
	b->reclaimed = fake.reclaimed();
	test_count_gl_names(&b->names, 4096);
}

/* Everything is back where it was; `reclaimed` objects were freed with a
 * broken CUDA context rather than one by one. */
static void
baseline_check(const struct baseline *b, unsigned int *reclaimed)
{
	struct gl_names names;

	ck_assert_uint_eq(fake.primary_refs(), 0);
	ck_assert_uint_eq(fake.pending(), 0);
	ck_assert_int_eq(test_count_fds(), b->fds);
	ck_assert_uint_eq(fake.live_objects(), b->live);
	test_count_gl_names(&names, 4096);
	ck_assert_gl_names_eq(&b->names, &names);
	*reclaimed = fake.reclaimed() - b->reclaimed;
}

static struct glcuda_frame *
frame_to(struct glcuda_ring *ring, bool complete)
{
	struct glcuda_frame *f;
	ck_ok(glcuda_ring_acquire(ring, &f));
	test_render_frame(f, W, H);
	ck_ok(glcuda_frame_submit(f));
	if (complete)
		ck_ok(glcuda_frame_complete(f));
	/* The fake runs the work on its driver thread, as a GPU would: let
	 * it finish before the test looks at what is ready. */
	fake.settle();
	return f;
}

/* A device, its images and a ring, used normally for a few frames. */
static void
device_works(struct glcuda_device *dev)
{
	struct glcuda_ring *ring =
		test_make_ring(dev, W, H, 3, GLCUDA_RING_FLAG_TIMINGS, NULL);
	struct glcuda_frame_timings timings = { .size = sizeof(timings) };
	struct glcuda_image *img;
	struct glcuda_frame *f, *taken;

	ck_ok(test_image_new(dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &img));
	ck_ok(glcuda_handoff_to_cuda(dev, &img, 1, NULL));
	ck_ok(glcuda_handoff_to_gl(dev, &img, 1, NULL));
	for (int n = 0; n < 6; n++) {
		f = frame_to(ring, true);
		ck_assert_int_eq(glcuda_ring_dispatch(ring), 1);
		ck_ok(glcuda_ring_take_newest(ring, &taken));
		ck_assert_ptr_eq(taken, f);
		ck_ok(glcuda_frame_release(f));
	}
	glFinish();
	ck_assert_int_ge(glcuda_ring_read_timings(ring, &timings), 0);
	glcuda_image_destroy(img);
	glcuda_ring_destroy(ring);
}

/* A sticky CUDA error ------------------------------------------------------ */

enum trigger { T_COMPLETE, T_WAIT_GL, T_HANDOFF_TO_GL, T_IMAGE_NEW };

static const struct {
	const char *fail;  /* GLCUDA_FAKE_CUDA_FAIL */
	const char *call;  /* the CUDA call the message must name */
	const char *code;  /* and its code */
	int sticky;        /* the CUresult */
	enum trigger trigger;
} sticky_cases[] = {
	{ "cuLaunchHostFunc:1:CUDA_ERROR_LAUNCH_FAILED", "cuLaunchHostFunc",
	  "CUDA_ERROR_LAUNCH_FAILED (719)", CUDA_ERROR_LAUNCH_FAILED,
	  T_COMPLETE },
	/* The first record is the timing event (not an error: timings are a
	 * diagnostic); the second signals the hand-off back. */
	{ "cuEventRecord:2:CUDA_ERROR_ILLEGAL_ADDRESS", "cuEventRecord",
	  "CUDA_ERROR_ILLEGAL_ADDRESS (700)", CUDA_ERROR_ILLEGAL_ADDRESS,
	  T_COMPLETE },
	{ "cuEventSynchronize:1:CUDA_ERROR_ILLEGAL_ADDRESS",
	  "cuEventSynchronize", "CUDA_ERROR_ILLEGAL_ADDRESS (700)",
	  CUDA_ERROR_ILLEGAL_ADDRESS, T_WAIT_GL },
	{ "cuEventRecord:1:719", "cuEventRecord",
	  "CUDA_ERROR_LAUNCH_FAILED (719)", CUDA_ERROR_LAUNCH_FAILED,
	  T_HANDOFF_TO_GL },
	/* A watchdog timeout is sticky too (cuda.h). */
	{ "cuImportExternalMemory:1:CUDA_ERROR_LAUNCH_TIMEOUT",
	  "cuImportExternalMemory", "CUDA_ERROR_LAUNCH_TIMEOUT (702)",
	  CUDA_ERROR_LAUNCH_TIMEOUT, T_IMAGE_NEW },
};

START_TEST(cuda_sticky_error)
{
	struct glcuda_ring_desc desc = { .size = sizeof(desc),
					 .width = W,
					 .height = H,
					 .slots = 3,
					 .input_format = GLCUDA_FORMAT_RGBA8 };
	struct glcuda_headless *hl = test_headless(false);
	struct glcuda_frame *f0, *f1, *f2, *got;
	struct glcuda_image *a, *b, *c = NULL;
	struct glcuda_ring *ring, *ring2 = NULL;
	struct glcuda_frame_timings t = {
		.size = sizeof(struct glcuda_frame_timings)
	};
	struct glcuda_device *dev;
	struct baseline base;
	unsigned int host0, reclaimed, reclaimed_by_loss;
	const char *what = sticky_cases[_i].call, *code = sticky_cases[_i].code;
	int ret = 0;

	baseline_take(hl_device_new(hl), &base);
	dev = hl_device_new(hl);
	ring = test_make_ring(dev, W, H, 3, GLCUDA_RING_FLAG_TIMINGS, NULL);
	ck_ok(test_image_new(dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &a));
	ck_ok(test_image_new(dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &b));
	/* a: CUDA's, b: GL's */
	ck_ok(glcuda_handoff_to_cuda(dev, &a, 1, NULL));

	/* Mid-stream: f0 done, f1's work queued behind a busy GPU (its host
	 * function too), f2 submitted. */
	f0 = frame_to(ring, true);
	fake.gate(1);
	host0 = fake.host_fns_run();
	f1 = frame_to(ring, true);
	f2 = frame_to(ring, false);
	ck_assert_uint_gt(fake.pending(), 0);

	setenv("GLCUDA_FAKE_CUDA_FAIL", sticky_cases[_i].fail, 1);
	switch (sticky_cases[_i].trigger) {
	case T_COMPLETE: ret = glcuda_frame_complete(f2); break;
	case T_WAIT_GL: ret = glcuda_frame_wait_gl(f0); break;
	case T_HANDOFF_TO_GL:
		ret = glcuda_handoff_to_gl(dev, &a, 1, NULL);
		break;
	case T_IMAGE_NEW:
		ret = test_image_new(dev, W, H, GLCUDA_FORMAT_R8, 0, &c);
		break;
	}
	unsetenv("GLCUDA_FAKE_CUDA_FAIL");
	ck_assert_msg(ret == GLCUDA_ERROR_DEVICE_LOST, "%s: %s: %s",
		      sticky_cases[_i].fail, glcuda_error_get_name(ret),
		      glcuda_get_last_error());
	ck_assert_ptr_null(c);
	/* The message names the call and the code, and says what to do. */
	ck_assert_msg(strstr(glcuda_get_last_error(), sticky_cases[_i].call) &&
		      strstr(glcuda_get_last_error(), sticky_cases[_i].code) &&
		      strstr(glcuda_get_last_error(), "destroy"),
		      "%s", glcuda_get_last_error());
	ck_assert_str_eq(glcuda_device_get_last_error(dev),
			 glcuda_get_last_error());
	ck_assert_int_eq(fake.sticky_error(), sticky_cases[_i].sticky);
	printf("%s -> %s\n", sticky_cases[_i].fail, glcuda_get_last_error());

	/* Every later call that does work: lost, whatever the object's state
	 * (a state error would hide the loss from the caller). */
	ck_lost(test_image_new(dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &c));
	ck_assert_ptr_null(c);
	ck_lost(glcuda_handoff_to_cuda(dev, &b, 1, NULL));
	ck_lost(glcuda_handoff_to_gl(dev, &a, 1, NULL));
	ck_lost(glcuda_ring_new(dev, &desc, &ring2));
	ck_assert_ptr_null(ring2);
	/* Every slot is in flight: lost, not -EAGAIN (which would have the
	 * caller wait for frames that never complete). */
	ck_lost(glcuda_ring_acquire(ring, &got));
	ck_lost(glcuda_frame_submit(f2));
	ck_lost(glcuda_frame_complete(f2));
	ck_lost(glcuda_frame_complete(f1));
	ck_lost(glcuda_frame_wait_gl(f0));
	ck_lost(glcuda_frame_release(f0));
	ck_lost(glcuda_frame_release(f1));
	ck_lost(glcuda_ring_dispatch(ring));
	ck_lost(glcuda_ring_read_timings(ring, &t));
	ck_lost(glcuda_ring_take_newest(ring, &got));
	/* Getters keep returning what they hold; they do no work. */
	ck_assert_int_ge(glcuda_ring_get_fd(ring), 0);
	ck_assert_uint_eq(glcuda_frame_get_number(f2), 2);
	ck_assert_uint_ne(glcuda_image_get_gl_texture(b), 0);
	ck_assert_ptr_eq(glcuda_image_get_device(a), dev);
	ck_assert_int_eq(glcuda_device_get_caps(dev)->sync_mode,
			 GLCUDA_SYNC_CPU);
	ck_assert_ptr_nonnull(glcuda_device_get_cuda_context(dev));

	/* Destroy everything: nothing waits on the broken context, nothing
	 * crashes. Its objects cannot be destroyed one by one (every call on
	 * it fails); they go when glcuda_device_destroy releases the context
	 * and the last reference destroys it, queued work included. */
	glcuda_image_destroy(a);
	glcuda_image_destroy(b);
	glcuda_ring_destroy(ring);
	ck_assert_uint_gt(fake.live_objects(), base.live);
	glcuda_device_destroy(dev);
	ck_assert_uint_eq(fake.host_fns_run(), host0); /* never ran */
	fake.gate(0);
	ck_assert_int_eq(fake.sticky_error(), 0);
	baseline_check(&base, &reclaimed_by_loss);
	ck_assert_uint_gt(reclaimed_by_loss, 0);

	/* A new device works, and frees its objects one by one again. */
	dev = hl_device_new(hl);
	device_works(dev);
	glcuda_device_destroy(dev);
	baseline_check(&base, &reclaimed);
	ck_assert_uint_eq(reclaimed, reclaimed_by_loss);
	glcuda_headless_destroy(hl);
}
END_TEST

/* A GL reset
 * ----------------------------------------------------------------- */

static GLenum
reset_status_guilty(void)
{
	return GL_GUILTY_CONTEXT_RESET;
}

static char log_text[8192];

static void
log_capture(enum glcuda_log_priority prio, void *data, const char *fmt,
	    va_list args)
{
	size_t len = strlen(log_text);
	(void)prio;
	(void)data;
	if (len < sizeof(log_text) - 1)
		vsnprintf(log_text + len, sizeof(log_text) - len, fmt, args);
}

/* A context made with reset notification (EGL_EXT_create_context_robustness
 * for GLES, EGL 1.5 for GL), current; EGL_NO_CONTEXT if the driver cannot. */
static EGLContext
robust_context_new(EGLDisplay display, bool gles)
{
	const EGLint gl_attribs[] = {
		EGL_CONTEXT_MAJOR_VERSION,
		4,
		EGL_CONTEXT_MINOR_VERSION,
		5,
		EGL_CONTEXT_OPENGL_PROFILE_MASK,
		EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
		EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY,
		EGL_LOSE_CONTEXT_ON_RESET,
		EGL_NONE,
	};
	const EGLint gles_attribs[] = {
		EGL_CONTEXT_MAJOR_VERSION,
		3,
		EGL_CONTEXT_MINOR_VERSION,
		0,
		EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT,
		EGL_LOSE_CONTEXT_ON_RESET_EXT,
		EGL_NONE,
	};
	EGLContext ctx;

	if (gles &&
	    !epoxy_has_egl_extension(display,
				     "EGL_EXT_create_context_robustness"))
		return EGL_NO_CONTEXT;
	eglBindAPI(gles ? EGL_OPENGL_ES_API : EGL_OPENGL_API);
	ctx = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT,
			       gles ? gles_attribs : gl_attribs);
	if (ctx == EGL_NO_CONTEXT)
		return EGL_NO_CONTEXT;
	ck_assert(eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx));
	return ctx;
}

START_TEST(gl_reset)
{
	const char *what = "glGetGraphicsResetStatus",
		   *code = "GL_GUILTY_CONTEXT_RESET";
	struct glcuda_headless *hl = test_headless(_i == 1);
	EGLDisplay display = glcuda_headless_get_display(hl);
	struct glcuda_device_options opts = {
		.size = sizeof(opts),
		.sync_mode = GLCUDA_SYNC_CPU, .log_func = log_capture,
		.log_priority = GLCUDA_LOG_PRIORITY_INFO,
	};
	struct glcuda_frame *f0, *f1, *got;
	struct glcuda_image *img, *img2 = NULL;
	struct glcuda_ring *ring;
	struct glcuda_device *dev;
	GLenum (*reset_status_default)(void) = gl_reset_status_hook;
	struct baseline base;
	unsigned int reclaimed;
	EGLContext ctx;

	/* Without reset notification, glGetGraphicsResetStatus says nothing:
	 * glcuda says so at creation and does not ask it. */
	log_text[0] = '\0';
	dev = device_new(display, glcuda_headless_get_context(hl), &opts);
	ck_assert_ptr_nonnull(strstr(log_text, "without reset notification"));
	gl_reset_status_hook = reset_status_guilty;
	ck_ok(test_image_new(dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &img));
	gl_reset_status_hook = reset_status_default;
	glcuda_image_destroy(img);
	glcuda_device_destroy(dev);

	ctx = robust_context_new(display, _i == 1);
	if (ctx == EGL_NO_CONTEXT) {
		/* Not on this driver: the seam alone then (Mesa 22.3 and 25.0
		 * make such contexts, GL and GLES). */
		printf("%s: no context with reset notification (EGL 0x%04x)\n",
		       _i ? "GLES" : "GL", eglGetError());
		ctx = glcuda_headless_get_context(hl);
		glcuda_headless_make_current(hl);
	}
	baseline_take(device_new(display, ctx, NULL), &base);
	log_text[0] = '\0';
	dev = device_new(display, ctx, &opts);
	if (ctx != glcuda_headless_get_context(hl)) {
		ck_assert_msg(!strstr(log_text, "without reset notification"),
			      "%s", log_text);
		ck_assert(dev->gl.reset_notification);
	} else {
		dev->gl.reset_notification = true;
	}
	ring = test_make_ring(dev, W, H, 2, GLCUDA_RING_FLAG_TIMINGS, NULL);
	ck_ok(test_image_new(dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &img));
	ck_ok(glcuda_handoff_to_cuda(dev, &img, 1, NULL));
	f0 = frame_to(ring, true);
	fake.gate(1);
	f1 = frame_to(ring, true);

	/* The GPU resets. The next call that touches GL sees it. */
	gl_reset_status_hook = reset_status_guilty;
	ck_err(glcuda_ring_acquire(ring, &got), GLCUDA_ERROR_DEVICE_LOST);
	ck_assert_msg(strstr(glcuda_get_last_error(), what) &&
			      strstr(glcuda_get_last_error(), code) &&
			      strstr(glcuda_get_last_error(), "GL context"),
		      "%s", glcuda_get_last_error());
	printf("%s: %s\n", _i ? "GLES" : "GL", glcuda_get_last_error());
	/* Later calls, with GL or without. */
	ck_lost(test_image_new(dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &img2));
	ck_lost(glcuda_handoff_to_gl(dev, &img, 1, NULL));
	ck_lost(glcuda_frame_wait_gl(f0));
	ck_lost(glcuda_frame_release(f1));
	ck_lost(glcuda_ring_dispatch(ring));
	ck_lost(glcuda_ring_read_timings(
		ring, &(struct glcuda_frame_timings){
			      .size = sizeof(struct glcuda_frame_timings) }));
	ck_lost(glcuda_ring_take_newest(ring, &got));
	/* CUDA itself is fine here: its objects are destroyed one by one, and
	 * nothing waits on work a reset GL might never let finish. */
	glcuda_image_destroy(img);
	glcuda_ring_destroy(ring);
	glcuda_device_destroy(dev);
	gl_reset_status_hook = reset_status_default;
	fake.gate(0);
	baseline_check(&base, &reclaimed);
	ck_assert_uint_eq(reclaimed, 0);

	/* Rebuild: a new context (GL_KHR_robustness: a reset one stays
	 * unusable), a new device. */
	if (ctx != glcuda_headless_get_context(hl)) {
		eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE,
			       EGL_NO_CONTEXT);
		eglDestroyContext(display, ctx);
		ctx = robust_context_new(display, _i == 1);
		ck_assert_ptr_ne(ctx, EGL_NO_CONTEXT);
	}
	dev = device_new(display, ctx, NULL);
	device_works(dev);
	glcuda_device_destroy(dev);
	if (ctx != glcuda_headless_get_context(hl)) {
		eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE,
			       EGL_NO_CONTEXT);
		eglDestroyContext(display, ctx);
		glcuda_headless_make_current(hl);
	}
	glcuda_headless_destroy(hl);
}
END_TEST

/* Ring teardown with host functions queued
 * ---------------------------------- */

/* Host functions of frames queued behind a GPU that does not finish; the
 * ring is destroyed (its stream synchronisation fails); then the GPU runs
 * them. Variants: the ring's own streams or the caller's stream, in place
 * or not, and the device destroyed before the GPU moves again. */
START_TEST(ring_destroy_host_functions_queued)
{
	bool own_stream = _i % 2 == 0, device_first = _i >= 2;
	struct glcuda_headless *hl = test_headless(false);
	struct glcuda_device *dev;
	struct glcuda_ring *ring;
	struct baseline base;
	unsigned int host0, reclaimed;
	CUstream stream = NULL;
	CUcontext popped;
	int fds;

	baseline_take(hl_device_new(hl), &base);
	dev = hl_device_new(hl);
	fds = test_count_fds();
	if (!own_stream) {
		ck_assert_int_eq(CU(cuCtxPushCurrent)(
					 glcuda_device_get_cuda_context(dev)),
				 0);
		ck_assert_int_eq(CU(cuStreamCreate)(&stream,
						    CU_STREAM_NON_BLOCKING),
				 0);
		CU(cuCtxPopCurrent)(&popped);
	}
	ring = test_make_ring(dev, W, H, 3,
			      (_i == 1 ? GLCUDA_RING_FLAG_IN_PLACE : 0) |
				      GLCUDA_RING_FLAG_TIMINGS,
			      stream);
	frame_to(ring, true);
	fake.gate(1);
	host0 = fake.host_fns_run();
	frame_to(ring, true);
	frame_to(ring, true);
	ck_assert_int_eq(glcuda_ring_dispatch(ring), 1);
	glcuda_ring_destroy(ring);
	/* Queued still (the fake, like the real driver, runs a destroyed
	 * stream's work); the ring's memory is gone. */
	ck_assert_uint_ge(fake.pending(), 2);
	ck_assert_uint_eq(fake.host_fns_run(), host0);
	if (!own_stream) {
		CU(cuCtxPushCurrent)(glcuda_device_get_cuda_context(dev));
		CU(cuStreamDestroy)(stream);
		CU(cuCtxPopCurrent)(&popped);
	}
	if (device_first) {
		/* The context goes with the device: the queued host
		 * functions never run, and their block goes too. */
		glcuda_device_destroy(dev);
		fake.gate(0);
		ck_assert_uint_eq(fake.host_fns_run(), host0);
	} else {
		/* They run now, on memory that is still theirs. */
		fake.gate(0);
		ck_assert_uint_eq(fake.host_fns_run(), host0 + 2);
		/* The next ring call frees what they used. */
		glcuda_ring_destroy(test_make_ring(dev, W, H, 2, 0, NULL));
		ck_assert_int_eq(test_count_fds(), fds);
		glcuda_device_destroy(dev);
	}
	baseline_check(&base, &reclaimed);
	/* Work still queued when the context was destroyed is the only thing
	 * it took with it: glcuda freed all its objects. */
	ck_assert_uint_eq(reclaimed, 0);
	glcuda_headless_destroy(hl);
}
END_TEST

/* The CPU mode's wait fails
 * ----------------------------------------------------- */

START_TEST(cpu_wait_failure)
{
	struct glcuda_headless *hl = test_headless(false);
	struct glcuda_image *img, *img2, *both[2];
	struct glcuda_device *dev;
	struct glcuda_ring *ring;
	struct glcuda_frame *f;
	struct baseline base;
	unsigned int reclaimed;

	baseline_take(hl_device_new(hl), &base);
	dev = hl_device_new(hl);
	ck_ok(test_image_new(dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &img));
	ck_ok(test_image_new(dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &img2));

	/* A failure that is not a loss: CUDA's half is done, GL's failed. */
	ck_ok(glcuda_handoff_to_cuda(dev, &img, 1, NULL));
	setenv("GLCUDA_FAKE_CUDA_FAIL", "cuEventSynchronize:1", 1);
	ck_err(glcuda_handoff_to_gl(dev, &img, 1, NULL), GLCUDA_ERROR_CUDA);
	unsetenv("GLCUDA_FAKE_CUDA_FAIL");
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "cuEventSynchronize"));
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "CUDA_ERROR_OUT_OF_MEMORY"));
	/* Not GL's yet, nor CUDA's to hand over again. */
	ck_err(glcuda_handoff_to_cuda(dev, &img, 1, NULL),
	       GLCUDA_ERROR_BAD_STATE);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "handed back by CUDA"));
	/* With an image in another state: refused, nothing changes. */
	ck_ok(glcuda_handoff_to_cuda(dev, &img2, 1, NULL));
	both[0] = img;
	both[1] = img2;
	ck_err(glcuda_handoff_to_gl(dev, both, 2, NULL),
	       GLCUDA_ERROR_BAD_STATE);
	/* Handing back again retries the wait, and GL owns it. */
	ck_ok(glcuda_handoff_to_gl(dev, &img, 1, NULL));
	ck_err(glcuda_handoff_to_gl(dev, &img, 1, NULL),
	       GLCUDA_ERROR_BAD_STATE);
	ck_ok(glcuda_handoff_to_gl(dev, &img2, 1, NULL));
	ck_ok(glcuda_handoff_to_cuda(dev, both, 2, NULL));
	ck_ok(glcuda_handoff_to_gl(dev, both, 2, NULL));

	/* The GPU still busy: the wait cannot finish now. */
	ck_ok(glcuda_handoff_to_cuda(dev, both, 2, NULL));
	fake.gate(1);
	ck_err(glcuda_handoff_to_gl(dev, both, 2, NULL), GLCUDA_ERROR_CUDA);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "CUDA_ERROR_NOT_READY"));
	fake.gate(0);
	ck_ok(glcuda_handoff_to_gl(dev, both, 2, NULL));

	/* Or destroyed where it stands. */
	ck_ok(glcuda_handoff_to_cuda(dev, &img, 1, NULL));
	setenv("GLCUDA_FAKE_CUDA_FAIL",
	       "cuEventSynchronize:1:CUDA_ERROR_INVALID_HANDLE", 1);
	ck_err(glcuda_handoff_to_gl(dev, &img, 1, NULL), GLCUDA_ERROR_CUDA);
	unsetenv("GLCUDA_FAKE_CUDA_FAIL");
	glcuda_image_destroy(img);

	/* A ring frame stays completed: its wait can be retried. */
	ring = test_make_ring(dev, W, H, 2, 0, NULL);
	f = frame_to(ring, true);
	setenv("GLCUDA_FAKE_CUDA_FAIL", "cuEventSynchronize:1", 1);
	ck_err(glcuda_frame_wait_gl(f), GLCUDA_ERROR_CUDA);
	unsetenv("GLCUDA_FAKE_CUDA_FAIL");
	ck_ok(glcuda_frame_wait_gl(f));
	ck_ok(glcuda_frame_release(f));
	f = frame_to(ring, true);
	setenv("GLCUDA_FAKE_CUDA_FAIL", "cuEventSynchronize:1", 1);
	ck_err(glcuda_frame_release(f), GLCUDA_ERROR_CUDA);
	unsetenv("GLCUDA_FAKE_CUDA_FAIL");
	ck_ok(glcuda_frame_release(f));
	glcuda_ring_destroy(ring);

	glcuda_image_destroy(img2);
	glcuda_device_destroy(dev);
	baseline_check(&base, &reclaimed);
	ck_assert_uint_eq(reclaimed, 0);
	glcuda_headless_destroy(hl);
}
END_TEST

int
main(void)
{
	const struct test_case cases[] = {
		TEST_TCASE("fake-cuda", 120),
		TEST_LOOP(cuda_sticky_error, (int)ARRAY_LENGTH(sticky_cases)),
		TEST_LOOP(gl_reset, 2),
		TEST_LOOP(ring_destroy_host_functions_queued, 4),
		TEST_ONCE(cpu_wait_failure),
	};

	fake_cuda_test_setup();
	return test_run_cases("loss", cases);
}
