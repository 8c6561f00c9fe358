/*
 * The "cpu" sync mode's two waits (lib/sync.c), the mode glcuda uses where
 * GL has no GL_EXT_semaphore_fd (Mesa), on the fake CUDA driver: what a
 * quick or lenient driver lets pass and another would not.
 *
 * GL -> CUDA: the CPU waits for a GL fence. A fence nobody has flushed may
 * never signal (GL 4.6 and GLES 3.2, section 4.1.2: a client wait on a
 * fence whose command was not flushed may wait forever, which
 * GL_SYNC_FLUSH_COMMANDS_BIT is there to prevent): on a driver that keeps
 * commands queued until a flush, the hand-off sits behind GL's unflushed
 * work for as long as nothing else flushes it. Mesa signals such a fence
 * anyway (without the flag, test-pixels-cpu's pixels are the same and
 * nothing hangs), so no pixel shows a missing flush here. The test
 * records the GL calls glcuda makes instead (libepoxy's entry points are
 * function pointers, which the test points at recording wrappers) and
 * checks the rule itself: every fence the CPU waits on is flushed before
 * or by that wait (glFlush, glFinish, or GL_SYNC_FLUSH_COMMANDS_BIT in a
 * wait, in the context that made it), and the hand-off returns only once
 * GL's work is done (a fence waited on until it signalled, or glFinish).
 *
 * CUDA -> GL: the CPU waits for a CUDA event recorded on the hand-off's
 * stream after CUDA's work. The fake holds the stream's work until a
 * synchronisation needs it (FAKE_CUDA_HOLD_UNTIL_WAITED): an event
 * recorded anywhere else (the legacy NULL stream, which a non-blocking
 * stream such as the ring's does not synchronise with) is done at once,
 * and GL reads the pixels before CUDA's kernel ran, every time.
 * SPDX-License-Identifier: MIT
 */
#include "test-common.h"
#include "fake-cuda/fake-cuda-env.h"
#include "fake-controls.h"
#include <glcuda/glcuda-cuda.h>

#include <EGL/egl.h>
#include <stdio.h>
#include <string.h>

#define W \
	29 /* neither a multiple of the 4-pixel raster block nor of 16 bytes */
#define H 19

static void
env_setup(struct fake_env *e, bool gles)
{
	fake_env_setup(e, gles);
	resolve_fake();
}

static const struct format_info *
rgba8(void)
{
	return format_info(GLCUDA_FORMAT_RGBA8);
}

/* GL's work: the pattern of seed uploaded into tex (queued, not flushed). */
static void
upload_pattern(GLuint tex, uint32_t seed)
{
	uint8_t px[W * H * 4];

	test_fill_pattern(rgba8(), W, H, seed, px);
	ck_assert(test_gl_upload(tex, rgba8(), W, H, px));
}

/* ring_transform (in, out, w, h): R, G inverted, B flipped, A kept. */
/* Every pixel of tex is the pattern of seed put through ring_transform. */
static void
check_inverted(GLuint tex, uint32_t seed, const char *what)
{
	uint8_t want[W * H * 4], got[W * H * 4];
	long i;

	test_fill_pattern(rgba8(), W, H, seed, want);
	for (size_t p = 0; p < (size_t)W * H; p++) {
		want[4 * p] = (uint8_t)(255 - want[4 * p]);
		want[4 * p + 1] = (uint8_t)(255 - want[4 * p + 1]);
		want[4 * p + 2] ^= 0xff;
	}
	memset(got, 0, sizeof(got));
	ck_assert(test_gl_readback(tex, rgba8(), W, H, got));
	i = test_first_mismatch(got, want, rgba8(), W, H);
	ck_assert_msg(i < 0,
		      "%s: pixel (%ld,%ld) is "
		      "%u,%u,%u,%u, expected %u,%u,%u,%u",
		      what, i % W, i / W, got[4 * i], got[4 * i + 1],
		      got[4 * i + 2], got[4 * i + 3], want[4 * i],
		      want[4 * i + 1], want[4 * i + 2], want[4 * i + 3]);
}

/* GL's fences, recorded
 * ------------------------------------------------------ */

/* libepoxy's entry points as the library calls them. */
static struct {
	__typeof__(epoxy_glFenceSync) FenceSync;
	__typeof__(epoxy_glClientWaitSync) ClientWaitSync;
	__typeof__(epoxy_glDeleteSync) DeleteSync;
	__typeof__(epoxy_glFlush) Flush;
	__typeof__(epoxy_glFinish) Finish;
} real, saved;

/* The fences alive, in the order GL made them. */
#define MAX_FENCES 16
static struct fence_record {
	GLsync sync;
	EGLContext context; /* the one that made it */
	bool flushed;  /* a flush after it was made: it reaches the GPU */
	bool signaled; /* a client wait saw it signalled */
} fences[MAX_FENCES];
static unsigned int fence_count;

static struct {
	unsigned int fences, signaled, finishes, unflushed_waits;
	char first[160];
} seen;

static struct fence_record *
fence_find(GLsync sync, unsigned int *index)
{
	for (unsigned int i = 0; i < fence_count; i++)
		if (fences[i].sync == sync) {
			if (index)
				*index = i;
			return &fences[i];
		}
	return NULL;
}

/* A flush reaches every fence the current context made before it. */
static void
fences_flushed(unsigned int up_to)
{
	EGLContext current = eglGetCurrentContext();

	for (unsigned int i = 0; i < up_to && i < fence_count; i++)
		if (fences[i].context == current)
			fences[i].flushed = true;
}

static GLsync GLAPIENTRY
rec_FenceSync(GLenum condition, GLbitfield flags)
{
	GLsync sync = real.FenceSync(condition, flags);

	if (sync) {
		ck_assert_uint_lt(fence_count, MAX_FENCES);
		fences[fence_count++] = (struct fence_record){
			.sync = sync, .context = eglGetCurrentContext() };
		seen.fences++;
	}
	return sync;
}

static GLenum GLAPIENTRY
rec_ClientWaitSync(GLsync sync, GLbitfield flags, GLuint64 timeout)
{
	unsigned int index = 0;
	struct fence_record *f = fence_find(sync, &index);
	GLenum r;

	/* The flag flushes as a glFlush right after the fence would, in
	 * the context that made it only. */
	if (f && (flags & GL_SYNC_FLUSH_COMMANDS_BIT))
		fences_flushed(index + 1);
	if (f && !f->flushed && !f->signaled && seen.unflushed_waits++ == 0)
		snprintf(seen.first, sizeof(seen.first),
			 "glClientWaitSync(flags 0x%x, timeout %llu ns) on a "
			 "fence never flushed",
			 (unsigned int)flags, (unsigned long long)timeout);
	r = real.ClientWaitSync(sync, flags, timeout);
	if (f && (r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED) &&
	    !f->signaled) {
		f->signaled = true;
		seen.signaled++;
	}
	return r;
}

static void GLAPIENTRY
rec_DeleteSync(GLsync sync)
{
	unsigned int index;

	if (fence_find(sync, &index)) {
		memmove(&fences[index], &fences[index + 1],
			(fence_count - index - 1) * sizeof(fences[0]));
		fence_count--;
	}
	real.DeleteSync(sync);
}

static void GLAPIENTRY
rec_Flush(void)
{
	fences_flushed(fence_count);
	real.Flush();
}

static void GLAPIENTRY
rec_Finish(void)
{
	fences_flushed(fence_count);
	seen.finishes++;
	real.Finish();
}

/* Point libepoxy's entry points, which the library calls, at the
 * recording wrappers; they call GL's own functions (not libepoxy's
 * first-call resolvers, which would call the wrappers again). */
static void
record_gl_start(void)
{
#define REPLACE(name)                                                         \
	do {                                                                  \
		saved.name = epoxy_gl##name;                                  \
		real.name =                                                   \
			(__typeof__(real.name))eglGetProcAddress("gl" #name); \
		ck_assert_msg(real.name, "eglGetProcAddress(gl%s) failed",    \
			      #name);                                         \
		epoxy_gl##name = rec_##name;                                  \
	} while (0)
	REPLACE(FenceSync);
	REPLACE(ClientWaitSync);
	REPLACE(DeleteSync);
	REPLACE(Flush);
	REPLACE(Finish);
#undef REPLACE
	memset(&seen, 0, sizeof(seen));
	fence_count = 0;
}

static void
record_gl_stop(void)
{
	epoxy_glFenceSync = saved.FenceSync;
	epoxy_glClientWaitSync = saved.ClientWaitSync;
	epoxy_glDeleteSync = saved.DeleteSync;
	epoxy_glFlush = saved.Flush;
	epoxy_glFinish = saved.Finish;
}

/* After a hand-off to CUDA: it waited for GL, with fences that signal on
 * any driver. */
static void
check_waited_for_gl(const char *what)
{
	ck_assert_msg(seen.unflushed_waits == 0,
		      "%s: %s (%u such waits): a driver that keeps GL's "
		      "commands queued until a flush never signals it",
		      what, seen.first, seen.unflushed_waits);
	ck_assert_msg(seen.signaled > 0 || seen.finishes > 0,
		      "%s: returned without waiting for GL's work (%u fences "
		      "made, none seen signalled; no glFinish)",
		      what, seen.fences);
}

/* The environment (GLES or GL) and a ring of 3 slots on its device. */
static struct glcuda_ring *
env_ring(struct fake_env *e, bool gles)
{
	env_setup(e, gles);
	return test_make_ring(e->dev, W, H, 3, 0, NULL);
}

/* The ring's next frame, pattern n uploaded into its input. */
static struct glcuda_frame *
frame_with_pattern(struct glcuda_ring *ring, uint32_t n)
{
	struct glcuda_frame *f;

	ck_ok(glcuda_ring_acquire(ring, &f));
	upload_pattern(glcuda_image_get_gl_texture(glcuda_frame_get_input(f)),
		       n);
	return f;
}

/* The frame's kernel on its stream: its input inverted into its output. */
static void
frame_invert(struct fake_env *e, struct glcuda_frame *f)
{
	fake_env_launch_invert(e, glcuda_frame_get_input_surface(f),
			       glcuda_frame_get_output_surface(f), W, H,
			       glcuda_frame_get_stream(f));
}

/* glcuda_handoff_to_cuda, GL's upload still queued. */
START_TEST(handoff_to_cuda_flushes_its_fence)
{
	struct glcuda_image *img;
	struct fake_env e;

	env_setup(&e, _i == 1);
	ck_ok(test_image_new(e.dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &img));
	for (uint32_t n = 0; n < 3; n++) {
		upload_pattern(glcuda_image_get_gl_texture(img), n);
		record_gl_start();
		ck_ok(glcuda_handoff_to_cuda(e.dev, &img, 1, e.stream));
		record_gl_stop();
		check_waited_for_gl("glcuda_handoff_to_cuda");
		fake_env_launch_invert(&e, glcuda_image_get_cuda_surface(img),
				       glcuda_image_get_cuda_surface(img), W, H,
				       e.stream);
		ck_ok(glcuda_handoff_to_gl(e.dev, &img, 1, e.stream));
		check_inverted(glcuda_image_get_gl_texture(img), n, "image");
	}
	glcuda_image_destroy(img);
	fake_env_teardown(&e);
}
END_TEST

/* glcuda_frame_submit, the frame's rendering still queued. */
START_TEST(frame_submit_flushes_its_fence)
{
	struct glcuda_frame *f;
	struct fake_env e;
	struct glcuda_ring *ring = env_ring(&e, _i == 1);

	for (uint32_t n = 0; n < 4; n++) {
		f = frame_with_pattern(ring, n);
		record_gl_start();
		ck_ok(glcuda_frame_submit(f));
		record_gl_stop();
		check_waited_for_gl("glcuda_frame_submit");
		frame_invert(&e, f);
		ck_ok(glcuda_frame_complete(f));
		ck_ok(glcuda_frame_wait_gl(f));
		check_inverted(glcuda_frame_get_output_texture(f), n,
			       "ring frame");
		ck_ok(glcuda_frame_release(f));
	}
	glcuda_ring_destroy(ring);
	fake_env_teardown(&e);
}
END_TEST

/* CUDA's event, on the hand-off's stream
 * ------------------------------------- */

/* glcuda_handoff_to_gl on a non-blocking stream whose kernel runs only
 * once someone waits for the stream's work. */
START_TEST(handoff_to_gl_waits_on_its_stream)
{
	struct glcuda_image *img;
	struct fake_env e;

	env_setup(&e, _i == 1);
	ck_ok(test_image_new(e.dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &img));
	for (uint32_t n = 0; n < 3; n++) {
		upload_pattern(glcuda_image_get_gl_texture(img), 10 + n);
		ck_ok(glcuda_handoff_to_cuda(e.dev, &img, 1, e.stream));
		ck_assert_int_eq(fake.hold(e.stream,
					   FAKE_CUDA_HOLD_UNTIL_WAITED),
				 0);
		fake_env_launch_invert(&e, glcuda_image_get_cuda_surface(img),
				       glcuda_image_get_cuda_surface(img), W, H,
				       e.stream);
		ck_assert_uint_eq(fake.stream_pending(e.stream), 1);
		ck_ok(glcuda_handoff_to_gl(e.dev, &img, 1, e.stream));
		check_inverted(glcuda_image_get_gl_texture(img), 10 + n,
			       "image handed back to GL: the wait must be for "
			       "the stream's kernel");
		ck_assert_uint_eq(fake.stream_pending(e.stream), 0);
	}
	glcuda_image_destroy(img);
	fake_env_teardown(&e);
}
END_TEST

/* glcuda_frame_wait_gl, the frame's stream held the same way. */
START_TEST(frame_wait_gl_waits_on_its_stream)
{
	struct glcuda_frame *f;
	struct fake_env e;
	struct glcuda_ring *ring = env_ring(&e, _i == 1);

	for (uint32_t n = 0; n < 4; n++) {
		f = frame_with_pattern(ring, 20 + n);
		ck_ok(glcuda_frame_submit(f));
		ck_assert_int_eq(fake.hold(glcuda_frame_get_stream(f),
					   FAKE_CUDA_HOLD_UNTIL_WAITED),
				 0);
		frame_invert(&e, f);
		ck_ok(glcuda_frame_complete(f));
		ck_assert_uint_gt(fake.stream_pending(
					  glcuda_frame_get_stream(f)),
				  0);
		ck_ok(glcuda_frame_wait_gl(f));
		check_inverted(glcuda_frame_get_output_texture(f), 20 + n,
			       "ring frame waited for by GL: the wait must be "
			       "for the frame's kernel");
		ck_ok(glcuda_frame_release(f));
	}
	glcuda_ring_destroy(ring);
	fake_env_teardown(&e);
}
END_TEST

int
main(void)
{
	const struct test_case cases[] = {
		TEST_TCASE("gl-fence", 60),
		TEST_LOOP(handoff_to_cuda_flushes_its_fence, 2),
		TEST_LOOP(frame_submit_flushes_its_fence, 2),
		TEST_TCASE("cuda-event", 60),
		TEST_LOOP(handoff_to_gl_waits_on_its_stream, 2),
		TEST_LOOP(frame_wait_gl_waits_on_its_stream, 2),
	};

	fake_cuda_test_setup();
	return test_run_cases("sync-cpu", cases);
}
