/*
 * glcuda's public API end to end without a GPU: the fake CUDA driver
 * (tests/fake-cuda) stands in for libcuda.so.1, GL and Vulkan are whatever
 * the machine has (Mesa llvmpipe and lavapipe on CI), and hand-offs use the
 * "cpu" sync mode. Covers the device binding, images of every supported
 * format, hand-offs, and the frame ring: the cases it shares with the GPU
 * (tests/ring-cases.c: -EAGAIN and misuse errors, the ready fd with the
 * fake's gate modelling work in flight, take_newest dropping older frames,
 * timings), bookkeeping over 200 frames, take_newest (frames completing
 * out of order, held back by the fake's stream holds), the ready fd's
 * wakeups with a completion forced into each step of dispatch and a
 * dispatch into each step of a completion (the library's seams,
 * lib/seam.h), destroy with frames in flight, failures of driver calls,
 * and one push of the CUDA context per call, popped on every way out.
 * Runs anywhere; a real libcuda.so.1 is ignored.
 * SPDX-License-Identifier: MIT
 */
#include "test-common.h"
#include "fake-controls.h"
#include <glcuda/glcuda-cuda.h>
#include "seam.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define W 64
#define H 48
#define RING_SLOTS_MAX_TEST 4

struct env {
	struct glcuda_headless *hl;
	struct glcuda_device *dev;
	bool gles;
};

/* Give the fake device GL's device UUID (read where the GL context is
 * current), so that glcuda binds it to the context. */
static void
set_fake_uuid_from_gl(void)
{
	ck_assert_msg(epoxy_has_gl_extension("GL_EXT_memory_object"),
		      "GL has no GL_EXT_memory_object");
	ck_assert_int_eq(fake_cuda_set_uuid_from_gl(), GL_NO_ERROR);
}

static void
env_setup_mode(struct env *e, bool gles, enum glcuda_sync_mode mode)
{
	struct glcuda_device_options opts = { .size = sizeof(opts),
					      .sync_mode = mode };

	memset(e, 0, sizeof(*e));
	e->gles = gles;
	e->hl = test_headless(gles);
	set_fake_uuid_from_gl();
	ck_ok(glcuda_device_new(glcuda_headless_get_display(e->hl),
				glcuda_headless_get_context(e->hl), &opts,
				&e->dev));
	resolve_fake();
	fake.gate(0);
}

/* The CPU mode, whatever GL offers. */
static void
env_setup(struct env *e, bool gles)
{
	env_setup_mode(e, gles, GLCUDA_SYNC_CPU);
}

static void
env_teardown(struct env *e)
{
	glcuda_device_destroy(e->dev);
	ck_assert_uint_eq(fake.primary_refs(), 0);
	glcuda_headless_destroy(e->hl);
}

/* GL rendered the frame's colour into its input (test only: waits for GL). */
static void
verify_input(struct glcuda_frame *f)
{
	uint8_t c[4], px[4] = { 0 };
	GLint prev;

	test_frame_color(glcuda_frame_get_number(f), c);
	glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &prev);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, glcuda_frame_get_input_fbo(f));
	glReadPixels(W / 2, H / 3, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)prev);
	ck_assert_msg(!memcmp(px, c, 4),
		      "frame %llu: input %u,%u,%u,%u, rendered %u,%u,%u,%u",
		      (unsigned long long)glcuda_frame_get_number(f), px[0],
		      px[1], px[2], px[3], c[0], c[1], c[2], c[3]);
}

static void
run_frame(struct glcuda_ring *ring, struct glcuda_frame **out)
{
	struct glcuda_frame *f;
	ck_ok(glcuda_ring_acquire(ring, &f));
	test_render_frame(f, W, H);
	ck_ok(glcuda_frame_submit(f));
	ck_ok(glcuda_frame_complete(f));
	/* The fake runs the work on its driver thread, as a GPU would: let
	 * it finish before looking at what is ready (a compositor polls the
	 * ready fd instead). */
	fake.settle();
	*out = f;
}

/* The backend of the shared cases (tests/ring-cases.c): the fake CUDA
 * driver in the CPU sync mode; teardown checks the fake holds no
 * reference to the primary context. */
struct ring_env {
	struct env e;
	uint64_t timings_frame; /* the last frame timings were read for */
};

static void
ring_env_setup(struct ring_env *e, bool gles)
{
	env_setup(&e->e, gles);
	e->timings_frame = 0;
}

static void
ring_env_teardown(struct ring_env *e)
{
	env_teardown(&e->e);
}

static struct glcuda_device *
ring_env_device(struct ring_env *e)
{
	return e->e.dev;
}

/* The fake's gate holds back all work queued while it is closed. */
static void
ring_env_hold(struct ring_env *e)
{
	(void)e;
	fake.gate(1);
}

/* The fake's gate: completed frames' work is still queued when the ring
 * is destroyed, and runs after it is gone (as on the real driver, a
 * destroyed stream's work still runs): its host functions must not touch
 * the ring's memory. */
static void
ring_env_hold_past_destroy(struct ring_env *e, bool on)
{
	(void)e;
	fake.gate(on);
	if (!on)
		ck_assert_uint_eq(fake.pending(), 0);
}

/* The fake has no kernel to run: the frame's work is the hand-offs'. */
static void
ring_env_frame_work(struct ring_env *e, struct glcuda_frame *f)
{
	(void)e;
	(void)f;
}

static void
ring_env_run_frame(struct ring_env *e, struct glcuda_ring *ring,
		   struct glcuda_frame **out)
{
	(void)e;
	run_frame(ring, out);
}

/* Opening the gate runs the held work at once: the fd is readable now. */
static void
ring_env_let_go(struct ring_env *e, int fd)
{
	(void)e;
	ck_assert_uint_gt(fake.pending(), 0);
	fake.gate(0);
	ck_assert_uint_eq(fake.pending(), 0);
	ck_assert(test_fd_readable(fd, 0));
}

/* run_frame settled the work: it is ready now. */
static void
ring_env_wait_ready(struct ring_env *e, struct glcuda_ring *ring, int fd, int n)
{
	(void)e;
	(void)ring;
	(void)n;
	ck_assert(test_fd_readable(fd, 0));
}

static void
ring_env_check_frame(struct ring_env *e, struct glcuda_frame *f)
{
	(void)e;
	verify_input(f);
}

static void
ring_env_settle(struct ring_env *e)
{
	(void)e;
	fake.settle();
}

/* The fake clock: 100 us from the submit's event to the complete's;
 * records come in frame order. */
static void
ring_env_check_timings(struct ring_env *e, const struct glcuda_frame_timings *t)
{
	ck_assert_uint_ge(t->frame_number, e->timings_frame);
	e->timings_frame = t->frame_number;
	ck_assert_uint_ge(t->cuda_ns, 99000);
	ck_assert_uint_le(t->cuda_ns, 101000);
	ck_assert_uint_gt(t->total_ns, 0);
	ck_assert_uint_ge(t->total_ns, t->gl_render_ns);
}

#define RING_CUDA_NS_MIN 99000
#define RING_QUIET_MS 0

#include "ring-cases.c"

/* Device ----------------------------------------------------------------- */

START_TEST(device_binds_fake_cuda)
{
	const struct glcuda_caps *caps;
	struct env e;
	bool gl_semaphores;

	e.hl = test_headless(_i == 1);
	gl_semaphores = epoxy_has_gl_extension("GL_EXT_semaphore_fd");
	set_fake_uuid_from_gl();
	ck_ok(glcuda_device_new(glcuda_headless_get_display(e.hl),
				glcuda_headless_get_context(e.hl), NULL,
				&e.dev));
	resolve_fake();
	caps = glcuda_device_get_caps(e.dev);
	ck_assert_uint_ne(caps->sync_modes_supported & (1u << GLCUDA_SYNC_CPU),
			  0);
	if (!gl_semaphores) {
		/* Mesa without GL_EXT_semaphore_fd: the CPU mode is all there
		 * is. */
		ck_assert_int_eq(caps->sync_mode, GLCUDA_SYNC_CPU);
		ck_assert_str_eq(glcuda_sync_mode_get_name(caps->sync_mode),
				 "cpu");
		ck_assert_uint_eq(caps->sync_modes_supported,
				  1u << GLCUDA_SYNC_CPU);
	}
	ck_assert_str_eq(caps->cuda_device_name, "glcuda fake CUDA device");
	ck_assert_int_eq(caps->cuda_ordinal, 0);
	ck_assert_int_eq(caps->cuda_driver_version, 13000);
	ck_assert_ptr_nonnull(glcuda_device_get_cuda_context(e.dev));
	ck_assert_int_eq(glcuda_device_get_cuda_device(e.dev), 0);
	ck_assert_uint_eq(fake.primary_refs(), 1);
	printf("%s: \"%s\" bound to \"%s\", sync mode %s\n", _i ? "GLES" : "GL",
	       caps->gl_renderer, caps->cuda_device_name,
	       glcuda_sync_mode_get_name(caps->sync_mode));
	glcuda_device_destroy(e.dev);
	ck_assert_uint_eq(fake.primary_refs(), 0);

	/* Forcing the CPU mode works everywhere. */
	{
		struct glcuda_device_options opts = {
			.size = sizeof(opts), .sync_mode = GLCUDA_SYNC_CPU
		};
		ck_ok(glcuda_device_new(glcuda_headless_get_display(e.hl),
					glcuda_headless_get_context(e.hl),
					&opts, &e.dev));
		ck_assert_int_eq(glcuda_device_get_caps(e.dev)->sync_mode,
				 GLCUDA_SYNC_CPU);
		glcuda_device_destroy(e.dev);
	}
	glcuda_headless_destroy(e.hl);
}
END_TEST

START_TEST(device_uuid_mismatch)
{
	struct glcuda_device *dev = NULL;
	struct glcuda_headless *hl = test_headless(false);
	int fds;

	set_fake_uuid_from_gl();
	/* Load the fake once, so the fd count below is steady. */
	ck_ok(glcuda_device_new(glcuda_headless_get_display(hl),
				glcuda_headless_get_context(hl), NULL, &dev));
	resolve_fake();
	glcuda_device_destroy(dev);
	dev = NULL;
	fds = test_count_fds();
	setenv("GLCUDA_FAKE_CUDA_UUID", "00112233-4455-6677-8899-aabbccddeeff",
	       1);
	ck_err(glcuda_device_new(glcuda_headless_get_display(hl),
				 glcuda_headless_get_context(hl), NULL, &dev),
	       GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE);
	ck_assert_ptr_null(dev);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "glcuda fake CUDA device"));
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(),
				     "00112233-4455-6677-8899-aabbccddeeff"));
	ck_assert_uint_eq(fake.primary_refs(), 0);
	ck_assert_int_eq(test_count_fds(), fds);
	glcuda_headless_destroy(hl);
}
END_TEST

/* Images ------------------------------------------------------------------ */

START_TEST(images_every_format)
{
	static const uint32_t flag_sets[] = {
		0, GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE,
		GLCUDA_IMAGE_FLAG_CUDA_LINEAR_FILTER
	};
	struct gl_names before, after;
	struct glcuda_image *img;
	unsigned int live0, formats = 0;
	uint32_t supported;
	struct env e;
	int fds;

	env_setup(&e, _i == 1);
	supported = glcuda_device_get_caps(e.dev)->formats_supported;
	ck_assert_uint_ne(supported & (1u << GLCUDA_FORMAT_RGBA8), 0);
	/* warm-up */
	ck_ok(test_image_new(e.dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &img));
	glcuda_image_destroy(img);
	fds = test_count_fds();
	live0 = fake.live_objects();
	test_count_gl_names(&before, 1024);
	for (int f = 1; f < GLCUDA_FORMAT_COUNT; f++) {
		if (!(supported & (1u << f)))
			continue;
		formats++;
		for (size_t k = 0; k < ARRAY_LENGTH(flag_sets); k++) {
			bool tex = !(flag_sets[k] &
				     GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE);
			int ret = test_image_new(e.dev, W + (uint32_t)f, H,
						 (enum glcuda_format)f,
						 flag_sets[k], &img);
			ck_assert_msg(ret == 0, "%s flags 0x%x: %s: %s",
				      glcuda_format_get_name(
					      (enum glcuda_format)f),
				      flag_sets[k], glcuda_error_get_name(ret),
				      glcuda_get_last_error());
			ck_assert_uint_eq(glcuda_image_get_width(img),
					  W + (uint32_t)f);
			ck_assert_uint_eq(glcuda_image_get_height(img), H);
			ck_assert_int_eq(glcuda_image_get_format(img), f);
			ck_assert_ptr_eq(glcuda_image_get_device(img), e.dev);
			ck_assert_uint_ne(glcuda_image_get_gl_texture(img), 0);
			ck_assert_ptr_nonnull(glcuda_image_get_cuda_array(img));
			ck_assert_uint_ne(glcuda_image_get_cuda_surface(img),
					  0);
			ck_assert(tex ==
				  (glcuda_image_get_cuda_texture(img) != 0));
			/* Memory, mipmapped array, its level, surface, the
			 * hand-off event, and the texture object if any. */
			ck_assert_uint_eq(fake.live_objects() - live0,
					  tex ? 6 : 5);
			glcuda_image_destroy(img);
			ck_assert_uint_eq(fake.live_objects(), live0);
		}
	}
	ck_assert_uint_ge(formats, 1);
	ck_assert_int_eq(test_count_fds(), fds);
	test_count_gl_names(&after, 1024);
	ck_assert_gl_names_eq(&before, &after);
	/* Bad arguments. */
	ck_err(test_image_new(NULL, W, H, GLCUDA_FORMAT_RGBA8, 0, &img),
	       -EINVAL);
	ck_err(test_image_new(e.dev, W, H, GLCUDA_FORMAT_RGBA8, 0, NULL),
	       -EINVAL);
	ck_err(test_image_new(e.dev, 0, H, GLCUDA_FORMAT_RGBA8, 0, &img),
	       -EINVAL);
	ck_err(test_image_new(e.dev, W, H, GLCUDA_FORMAT_INVALID, 0, &img),
	       -EINVAL);
	ck_err(test_image_new(e.dev, W, H, GLCUDA_FORMAT_RGBA8, 0x80000000u,
			      &img),
	       -EINVAL);
	ck_assert_uint_eq(fake.live_objects(), live0);
	printf("%s: %u formats created and destroyed without leaks\n",
	       _i ? "GLES" : "GL", formats);
	env_teardown(&e);
}
END_TEST

START_TEST(handoff_roundtrip)
{
	struct glcuda_image *img, *img2, *both[2], *same[2];
	struct glcuda_ring *ring;
	struct glcuda_frame *f;
	unsigned int live0;
	struct env e;
	int fds;

	env_setup(&e, _i == 1);
	fds = test_count_fds();
	live0 = fake.live_objects();
	ck_ok(test_image_new(e.dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &img));
	ck_ok(test_image_new(e.dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &img2));
	/* Owned by GL: handing back to GL is a state error. */
	ck_err(glcuda_handoff_to_gl(e.dev, &img, 1, NULL),
	       GLCUDA_ERROR_BAD_STATE);
	for (int i = 0; i < 20; i++) {
		CUstream s = i % 2 ? NULL : CU_STREAM_LEGACY;
		ck_ok(glcuda_handoff_to_cuda(e.dev, &img, 1, s));
		ck_err(glcuda_handoff_to_cuda(e.dev, &img, 1, s),
		       GLCUDA_ERROR_BAD_STATE);
		ck_assert_ptr_nonnull(
			strstr(glcuda_get_last_error(), "owned by CUDA"));
		ck_ok(glcuda_handoff_to_gl(e.dev, &img, 1, s));
		ck_err(glcuda_handoff_to_gl(e.dev, &img, 1, s),
		       GLCUDA_ERROR_BAD_STATE);
		ck_assert_ptr_nonnull(
			strstr(glcuda_get_last_error(), "owned by GL"));
	}
	/* Two at once. */
	both[0] = img;
	both[1] = img2;
	ck_ok(glcuda_handoff_to_cuda(e.dev, both, 2, NULL));
	ck_ok(glcuda_handoff_to_gl(e.dev, both, 2, NULL));
	/* Misuse. */
	same[0] = same[1] = img;
	ck_err(glcuda_handoff_to_cuda(e.dev, same, 2, NULL), -EINVAL);
	ck_err(glcuda_handoff_to_cuda(NULL, &img, 1, NULL), -EINVAL);
	ck_err(glcuda_handoff_to_cuda(e.dev, NULL, 1, NULL), -EINVAL);
	ck_err(glcuda_handoff_to_cuda(e.dev, &img, 0, NULL), -EINVAL);
	ck_err(glcuda_handoff_to_gl(NULL, &img, 1, NULL), -EINVAL);
	ck_err(glcuda_handoff_to_gl(e.dev, NULL, 1, NULL), -EINVAL);
	/* Ring images are handed off by the ring. */
	ring = test_make_ring(e.dev, W, H, 2, 0, NULL);
	ck_ok(glcuda_ring_acquire(ring, &f));
	{
		struct glcuda_image *in = glcuda_frame_get_input(f);
		ck_err(glcuda_handoff_to_cuda(e.dev, &in, 1, NULL),
		       GLCUDA_ERROR_BAD_STATE);
	}
	glcuda_ring_destroy(ring);
	/* Destroyed while CUDA owns it. */
	ck_ok(glcuda_handoff_to_cuda(e.dev, &img, 1, NULL));
	glcuda_image_destroy(img);
	glcuda_image_destroy(img2);
	ck_assert_uint_eq(fake.live_objects(), live0);
	ck_assert_int_eq(test_count_fds(), fds);
	env_teardown(&e);
}
END_TEST

/* Ring
 * ------------------------------------------------------------------------ */

/* 200 frames through 3 slots, pipelined; frames presented in order. */
START_TEST(ring_200_frames)
{
	struct glcuda_frame *queue[4], *taken;
	unsigned int queued = 0, presented = 0, host0;
	struct glcuda_ring *ring;
	struct env e;

	env_setup(&e, _i == 1);
	ring = test_make_ring(e.dev, W, H, 3, 0, NULL);
	host0 = fake.host_fns_run();
	for (uint64_t n = 0; n < 200;) {
		struct glcuda_frame *f;
		int ret = glcuda_ring_acquire(ring, &f);
		if (ret == -EAGAIN) {
			/* All slots in flight: present the oldest. */
			ck_assert_uint_eq(queued, 3);
			f = queue[0];
			memmove(queue, queue + 1, sizeof(queue[0]) * --queued);
			ck_assert_uint_eq(glcuda_frame_get_number(f),
					  presented);
			/* Every slot is completed, and ready once the fake's
			 * driver thread has run each frame's work. */
			fake.settle();
			ck_assert_int_eq(glcuda_ring_dispatch(ring), 3);
			/* Present, then release; or release directly (which
			 * enqueues GL's wait itself). */
			if (presented % 2)
				ck_ok(glcuda_frame_wait_gl(f));
			if (presented % 10 == 1)
				verify_input(f);
			ck_ok(glcuda_frame_release(f));
			presented++;
			continue;
		}
		ck_ok(ret);
		ck_assert_uint_eq(glcuda_frame_get_number(f), n);
		ck_assert_uint_eq(glcuda_frame_get_slot(f), n % 3);
		ck_assert_ptr_nonnull(glcuda_frame_get_input(f));
		ck_assert_ptr_nonnull(glcuda_frame_get_output(f));
		ck_assert_ptr_ne(glcuda_frame_get_input(f),
				 glcuda_frame_get_output(f));
		ck_assert_uint_ne(glcuda_frame_get_input_fbo(f), 0);
		ck_assert_uint_eq(glcuda_frame_get_output_texture(f),
				  glcuda_image_get_gl_texture(
					  glcuda_frame_get_output(f)));
		ck_assert_ptr_nonnull(glcuda_frame_get_stream(f));
		ck_assert_uint_ne(glcuda_frame_get_input_surface(f), 0);
		ck_assert_uint_ne(glcuda_frame_get_output_surface(f), 0);
		test_render_frame(f, W, H);
		ck_ok(glcuda_frame_submit(f));
		ck_ok(glcuda_frame_complete(f));
		queue[queued++] = f;
		n++;
	}
	while (queued) {
		struct glcuda_frame *f = queue[0];
		memmove(queue, queue + 1, sizeof(queue[0]) * --queued);
		ck_assert_uint_eq(glcuda_frame_get_number(f), presented);
		ck_ok(glcuda_frame_wait_gl(f));
		ck_ok(glcuda_frame_release(f));
		presented++;
	}
	ck_assert_uint_eq(presented, 200);
	ck_assert_uint_eq(fake.host_fns_run() - host0, 200);
	ck_assert_int_eq(glcuda_ring_dispatch(ring), 0);
	ck_err(glcuda_ring_take_newest(ring, &taken), -EAGAIN);
	ck_assert_uint_eq(glcuda_ring_get_dropped(ring), 0);
	glcuda_ring_destroy(ring);
	env_teardown(&e);
}
END_TEST

/* The caller's pointers on rings and frames: kept per object, across a
 * frame's uses, and handed back with the frame take_newest returns. */
START_TEST(user_data)
{
	int tags[3], ring_tag;
	struct glcuda_frame *f, *got;
	struct glcuda_ring *ring;
	struct env e;

	env_setup(&e, false);
	ring = test_make_ring(e.dev, W, H, 3, 0, NULL);
	ck_assert_ptr_null(glcuda_ring_get_user_data(ring));
	glcuda_ring_set_user_data(ring, &ring_tag);
	ck_assert_ptr_eq(glcuda_ring_get_user_data(ring), &ring_tag);
	glcuda_ring_set_user_data(NULL, &ring_tag); /* no-op */
	ck_assert_ptr_null(glcuda_ring_get_user_data(NULL));
	ck_assert_ptr_null(glcuda_frame_get_user_data(NULL));
	glcuda_frame_set_user_data(NULL, &ring_tag); /* no-op */

	/* Three frames, one per slot, each tagged when acquired. */
	for (int i = 0; i < 3; i++) {
		run_frame(ring, &f);
		ck_assert_ptr_null(glcuda_frame_get_user_data(f));
		glcuda_frame_set_user_data(f, &tags[i]);
	}
	ck_assert_int_eq(glcuda_ring_dispatch(ring), 3);
	/* The newest comes back with its own tag; the others are dropped. */
	ck_ok(glcuda_ring_take_newest(ring, &got));
	ck_assert_ptr_eq(glcuda_frame_get_user_data(got), &tags[2]);
	ck_ok(glcuda_frame_release(got));
	/* Slots are used again in order: the pointers stayed with them. */
	for (int i = 0; i < 3; i++) {
		run_frame(ring, &f);
		ck_assert_ptr_eq(glcuda_frame_get_user_data(f), &tags[i]);
		glcuda_frame_set_user_data(f, NULL);
		ck_assert_ptr_null(glcuda_frame_get_user_data(f));
		ck_ok(glcuda_frame_wait_gl(f));
		ck_ok(glcuda_frame_release(f));
	}
	ck_assert_ptr_eq(glcuda_ring_get_user_data(ring), &ring_tag);
	glcuda_ring_destroy(ring);
	env_teardown(&e);
}
END_TEST

/* The fake CUDA driver on GL (or GLES) and a ring of 3 slots on it. */
static struct glcuda_ring *
ring_of_three(struct env *e, bool gles)
{
	env_setup(e, gles);
	return test_make_ring(e->dev, W, H, 3, 0, NULL);
}

/* Frames whose CUDA work completes out of order are still taken in order:
 * frame 0's stream is held while frame 1's work runs, frame 1 is taken,
 * and frame 0, ready later, is dropped, never returned. The same when the
 * newer frame was presented with glcuda_frame_wait_gl(). */
START_TEST(take_newest_never_goes_back)
{
	struct glcuda_frame *old, *young, *got, *f[3];
	struct env e;
	struct glcuda_ring *ring = ring_of_three(&e, _i == 1);
	int fd = glcuda_ring_get_fd(ring);
	for (int round = 0; round < 3; round++) {
		uint64_t dropped = glcuda_ring_get_dropped(ring);
		bool by_wait_gl = round == 2;

		ck_ok(glcuda_ring_acquire(ring, &old));
		ck_assert_int_eq(fake.hold(glcuda_frame_get_stream(old),
					   FAKE_CUDA_HOLD),
				 0);
		test_render_frame(old, W, H);
		ck_ok(glcuda_frame_submit(old));
		ck_ok(glcuda_frame_complete(old));
		run_frame(ring, &young);
		ck_assert_uint_lt(glcuda_frame_get_number(old),
				  glcuda_frame_get_number(young));
		ck_assert_int_eq(glcuda_ring_dispatch(ring), 1);
		if (by_wait_gl) {
			ck_ok(glcuda_frame_wait_gl(young));
		} else {
			ck_ok(glcuda_ring_take_newest(ring, &got));
			ck_assert_ptr_eq(got, young);
		}
		ck_ok(glcuda_frame_release(young));
		ck_assert_uint_eq(glcuda_ring_get_dropped(ring), dropped);

		/* The older frame's work finishes now: its wakeup comes... */
		ck_assert_int_eq(fake.hold(glcuda_frame_get_stream(old),
					   FAKE_CUDA_RUN),
				 0);
		ck_assert(test_fd_readable(fd, 0));
		if (round == 1) {
			/* ...but it is not a frame to take: a compositor that
			 * latches when dispatch says so would latch nothing. */
			ck_assert_int_eq(glcuda_ring_dispatch(ring), 0);
		}
		{
			int ret = glcuda_ring_take_newest(ring, &got);
			ck_assert_msg(ret == -EAGAIN,
				      "take_newest went back in time: it "
				      "returned frame %llu after frame %llu "
				      "(%s)",
				      ret == 0
					      ? (unsigned long long)
							glcuda_frame_get_number(
								got)
					      : 0ull,
				      (unsigned long long)
					      glcuda_frame_get_number(young),
				      glcuda_error_get_name(ret));
		}
		/* ...and it is dropped, its slot freed. */
		ck_assert_uint_eq(glcuda_ring_get_dropped(ring), dropped + 1);
		ck_assert_int_eq(glcuda_ring_dispatch(ring), 0);
		ck_assert(!test_fd_readable(fd, 0));
	}
	/* Every slot is free again and the ring goes on as before. */
	for (int i = 0; i < 3; i++)
		run_frame(ring, &f[i]);
	ck_assert_uint_ne(glcuda_frame_get_slot(f[0]),
			  glcuda_frame_get_slot(f[1]));
	ck_assert_uint_ne(glcuda_frame_get_slot(f[1]),
			  glcuda_frame_get_slot(f[2]));
	ck_assert_uint_ne(glcuda_frame_get_slot(f[0]),
			  glcuda_frame_get_slot(f[2]));
	ck_assert_int_eq(glcuda_ring_dispatch(ring), 3);
	ck_ok(glcuda_ring_take_newest(ring, &got));
	ck_assert_ptr_eq(got, f[2]);
	ck_assert_uint_eq(glcuda_ring_get_dropped(ring), 5);
	ck_ok(glcuda_frame_release(got));
	{
		struct glcuda_frame *extra;
		for (int i = 0; i < 3; i++)
			ck_ok(glcuda_ring_acquire(ring, &f[i]));
		ck_err(glcuda_ring_acquire(ring, &extra), -EAGAIN);
		for (int i = 0; i < 3; i++) {
			ck_ok(glcuda_frame_submit(f[i]));
			ck_ok(glcuda_frame_complete(f[i]));
		}
		fake.settle();
		for (int i = 0; i < 3; i++) {
			ck_ok(glcuda_frame_wait_gl(f[i]));
			ck_ok(glcuda_frame_release(f[i]));
		}
	}
	glcuda_ring_destroy(ring);
	env_teardown(&e);
}
END_TEST

/* The fake's hold (or run) of frame f's stream. */
static void
stream_hold(struct glcuda_frame *f, int how)
{
	ck_assert_int_eq(fake.hold(glcuda_frame_get_stream(f), how), 0);
}

static unsigned long long
number(struct glcuda_frame *f)
{
	return (unsigned long long)glcuda_frame_get_number(f);
}

/* glcuda_frame_wait_gl() presents an older frame late, after a newer one
 * was taken: the ring still never goes back before the newest taken (the
 * header: take_newest never returns a frame older than one already
 * presented). Frames a and b are held, c runs and is taken; a finishes
 * and is presented late, then b finishes: b is older than c, so it is
 * dropped, neither counted by dispatch nor returned. */
START_TEST(take_newest_after_late_present)
{
	struct glcuda_frame *a, *b, *c, *got;
	struct env e;
	struct glcuda_ring *ring = ring_of_three(&e, _i == 1);

	for (int i = 0; i < 3; i++) {
		uint64_t dropped = glcuda_ring_get_dropped(ring);
		int ret;

		ck_ok(glcuda_ring_acquire(ring, &a));
		stream_hold(a, FAKE_CUDA_HOLD);
		ck_ok(glcuda_frame_submit(a));
		ck_ok(glcuda_frame_complete(a));
		ck_ok(glcuda_ring_acquire(ring, &b));
		stream_hold(b, FAKE_CUDA_HOLD);
		ck_ok(glcuda_frame_submit(b));
		ck_ok(glcuda_frame_complete(b));
		run_frame(ring, &c);
		ck_assert_int_eq(glcuda_ring_dispatch(ring), 1);
		ck_ok(glcuda_ring_take_newest(ring, &got));
		ck_assert_ptr_eq(got, c);
		ck_ok(glcuda_frame_release(c));

		/* a, the oldest, finishes and is presented late. */
		stream_hold(a, FAKE_CUDA_RUN);
		fake.settle();
		ck_ok(glcuda_frame_wait_gl(a));
		ck_ok(glcuda_frame_release(a));
		ck_assert_uint_eq(glcuda_ring_get_dropped(ring), dropped);

		/* b finishes: newer than a, older than c. */
		stream_hold(b, FAKE_CUDA_RUN);
		fake.settle();
		ck_assert(test_fd_readable(glcuda_ring_get_fd(ring), 0));
		ck_assert_msg(glcuda_ring_dispatch(ring) == 0,
			      "dispatch counts frame %llu to take after frame "
			      "%llu was taken", number(b), number(c));
		ret = glcuda_ring_take_newest(ring, &got);
		ck_assert_msg(ret == -EAGAIN,
			      "take_newest went back after a late present: it "
			      "returned frame %llu after frame %llu (%s)",
			      ret == 0 ? number(got) : 0ull, number(c),
			      glcuda_error_get_name(ret));
		ck_assert_uint_eq(glcuda_ring_get_dropped(ring), dropped + 1);
		ck_assert_int_eq(glcuda_ring_dispatch(ring), 0);
	}
	glcuda_ring_destroy(ring);
	env_teardown(&e);
}
END_TEST

/* Many frames whose work completes in an order the fake's stream holds
 * decide (a seeded sequence, the same every run): a producer acquiring
 * as fast as the ring allows, streams held and released in varied order,
 * and a "vblank" that dispatches and takes the newest. The frames taken
 * are strictly increasing in number, every frame is either presented or
 * counted as dropped, and dispatch's count never promises a frame that
 * take_newest does not give. */
START_TEST(take_newest_in_order_randomized)
{
	const uint32_t slots = _i == 1 ? 4 : 3;
	const unsigned int frames = 1500;
	struct glcuda_frame *held[RING_SLOTS_MAX_TEST];
	unsigned int held_count = 0, completed = 0, presented = 0,
		     violations = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)_i, last = 0;
	bool taken_any = false;
	struct glcuda_ring *ring;
	struct glcuda_frame *f;
	struct env e;

	env_setup(&e, _i == 1);
	ring = test_make_ring(e.dev, W, H, slots, 0, NULL);
	while (completed < frames) {
		uint64_t r = prng_next(&seed);
		int ret;

		/* The producer: one frame, its stream held about a third of
		 * the time. */
		if (r % 4 != 0 &&
		    (ret = glcuda_ring_acquire(ring, &f)) != -EAGAIN) {
			bool hold = (r >> 8) % 3 == 0;
			ck_ok(ret);
			if (hold) {
				ck_assert_int_eq(
					fake.hold(glcuda_frame_get_stream(f),
						  FAKE_CUDA_HOLD),
					0);
				held[held_count++] = f;
			}
			if (completed % 50 == 0)
				test_render_frame(f, W, H);
			ck_ok(glcuda_frame_submit(f));
			ck_ok(glcuda_frame_complete(f));
			completed++;
		}
		/* Work held back finishes, in an order of its own. */
		for (unsigned int k = 0; k < held_count;) {
			if ((prng_next(&seed) >> 20) % 3 == 0) {
				ck_assert_int_eq(
					fake.hold(glcuda_frame_get_stream(
							  held[k]),
						  FAKE_CUDA_RUN),
					0);
				held[k] = held[--held_count];
			} else {
				k++;
			}
		}
		fake.settle();
		/* The vblank. */
		if ((r >> 32) % 2 == 0) {
			int ready = glcuda_ring_dispatch(ring);

			ret = glcuda_ring_take_newest(ring, &f);

			ck_assert_int_ge(ready, 0);
			ck_assert_msg(ready == 0 || ret == 0,
				      "dispatch counted %d frames to take, "
				      "take_newest: %s",
				      ready, glcuda_error_get_name(ret));
			if (ret == -EAGAIN)
				continue;
			ck_ok(ret);
			if (taken_any && glcuda_frame_get_number(f) <= last) {
				violations++;
				fprintf(stderr,
					"frame %llu taken after frame %llu\n",
					(unsigned long long)
						glcuda_frame_get_number(f),
					(unsigned long long)last);
			}
			last = glcuda_frame_get_number(f);
			taken_any = true;
			presented++;
			ck_ok(glcuda_frame_release(f));
		}
	}
	/* The rest finishes; the last vblank takes the newest. */
	while (held_count)
		ck_assert_int_eq(fake.hold(glcuda_frame_get_stream(
						   held[--held_count]),
					   FAKE_CUDA_RUN),
				 0);
	if (glcuda_ring_take_newest(ring, &f) == 0) {
		if (taken_any && glcuda_frame_get_number(f) <= last)
			violations++;
		presented++;
		ck_ok(glcuda_frame_release(f));
	}
	ck_err(glcuda_ring_take_newest(ring, &f), -EAGAIN);
	printf("%s: %u frames through %u slots, out-of-order completion: %u "
	       "presented, %llu dropped, %u order violations\n",
	       _i ? "GLES" : "GL", completed, slots, presented,
	       (unsigned long long)glcuda_ring_get_dropped(ring), violations);
	ck_assert_uint_eq(violations, 0);
	ck_assert_uint_eq(presented + glcuda_ring_get_dropped(ring), completed);
	/* Out of order often enough to mean something. */
	ck_assert_uint_gt(glcuda_ring_get_dropped(ring), frames / 10);
	glcuda_ring_destroy(ring);
	env_teardown(&e);
}
END_TEST

/* The ready fd's wakeups. A completion's two steps (raise the slot's
 * count, write the fd) and dispatch's two (drain the fd, read the counts)
 * race in a real program; the seams of the tests' build of the library put
 * the other party into the window after each step on purpose, and then no
 * wakeup may be lost: the frame is reported ready, or the fd is still
 * readable. */
struct wakeup_race {
	struct glcuda_ring *ring;
	CUstream stream;
	enum seam_point point;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool at_seam, dispatched, released;
	int ready; /* what the dispatch in the window returned */
	unsigned int passes;
};

static const char *
seam_name(enum seam_point p)
{
	switch (p) {
	case SEAM_RING_DONE_COUNTED: return "the completion raised the count";
	case SEAM_RING_DONE_NOTIFIED: return "the completion wrote the fd";
	case SEAM_RING_DRAINED: return "dispatch drained the fd";
	case SEAM_RING_LOOKED: return "dispatch read the counts";
	case SEAM_POINT_COUNT: break;
	}
	return "?";
}

/* A frame whose work (and so its frame-done host function) is queued on a
 * held stream. */
static struct glcuda_frame *
frame_held(struct wakeup_race *w)
{
	struct glcuda_frame *f;

	ck_ok(glcuda_ring_acquire(w->ring, &f));
	w->stream = glcuda_frame_get_stream(f);
	ck_assert_int_eq(fake.hold(w->stream, FAKE_CUDA_HOLD), 0);
	test_render_frame(f, W, H);
	ck_ok(glcuda_frame_submit(f));
	ck_ok(glcuda_frame_complete(f));
	ck_assert(!test_fd_readable(glcuda_ring_get_fd(w->ring), 0));
	ck_assert_int_eq(glcuda_ring_dispatch(w->ring), 0);
	return f;
}

/* After the race: the frame comes, and exactly once. */
static void
frame_comes(struct wakeup_race *w, struct glcuda_frame *f)
{
	struct glcuda_frame *got;

	ck_assert_msg(w->ready == 1 ||
			      test_fd_readable(glcuda_ring_get_fd(w->ring), 0),
		      "a wakeup was lost: a dispatch right after \"%s\" "
		      "returned %d, and the ready fd is not readable although "
		      "the frame's work is done",
		      seam_name(w->point), w->ready);
	ck_assert_int_eq(glcuda_ring_dispatch(w->ring), 1);
	ck_ok(glcuda_ring_take_newest(w->ring, &got));
	ck_assert_ptr_eq(got, f);
	ck_ok(glcuda_frame_release(f));
	ck_assert(!test_fd_readable(glcuda_ring_get_fd(w->ring), 0));
}

/* On the driver thread, in the host function: let the ring's thread
 * dispatch, and go on once it has. */
static void
dispatch_in_host_fn(enum seam_point point, void *data)
{
	struct wakeup_race *w = data;

	(void)point;
	pthread_mutex_lock(&w->lock);
	w->passes++;
	w->at_seam = true;
	pthread_cond_broadcast(&w->cond);
	while (!w->dispatched)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

static void *
release_stream(void *data)
{
	struct wakeup_race *w = data;
	/* Returns once the stream's work, host function included, has run. */
	fake.hold(w->stream, FAKE_CUDA_RUN);
	pthread_mutex_lock(&w->lock);
	w->released = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* For each seam point in turn: a frame held, the race at that point, and
 * then the frame comes, exactly once. */
static void
wakeup_races(const enum seam_point *points, size_t n,
	     void (*race)(struct wakeup_race *w))
{
	struct wakeup_race w = { .lock = PTHREAD_MUTEX_INITIALIZER,
				 .cond = PTHREAD_COND_INITIALIZER };
	struct env e;

	env_setup(&e, false);
	w.ring = test_make_ring(e.dev, W, H, 2, 0, NULL);
	for (size_t i = 0; i < n; i++) {
		struct glcuda_frame *f = frame_held(&w);

		w.point = points[i];
		w.passes = 0;
		race(&w);
		frame_comes(&w, f);
	}
	glcuda_ring_destroy(w.ring);
	env_teardown(&e);
}

/* The frame's work let go on another thread; the ring's thread dispatches
 * while the host function is stopped at the seam. */
static void
race_dispatch_inside_completion(struct wakeup_race *w)
{
	pthread_t releaser;

	w->at_seam = w->dispatched = w->released = false;
	w->ready = -1;
	seam_set(w->point, dispatch_in_host_fn, w);
	ck_assert_int_eq(pthread_create(&releaser, NULL, release_stream, w), 0);
	pthread_mutex_lock(&w->lock);
	while (!w->at_seam && !w->released)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
	ck_assert_msg(w->at_seam,
		      "the frame-done host function ran without passing \"%s\"",
		      seam_name(w->point));
	/* The host function is stopped at the seam. */
	w->ready = glcuda_ring_dispatch(w->ring);
	pthread_mutex_lock(&w->lock);
	w->dispatched = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	ck_assert_int_eq(pthread_join(releaser, NULL), 0);
	seam_set(w->point, NULL, NULL);
	ck_assert_uint_eq(w->passes, 1);
}

/* A dispatch right after each step of the frame-done host function. */
START_TEST(wakeup_dispatch_inside_completion)
{
	static const enum seam_point points[] = { SEAM_RING_DONE_COUNTED,
						  SEAM_RING_DONE_NOTIFIED };

	wakeup_races(points, ARRAY_LENGTH(points),
		     race_dispatch_inside_completion);
}
END_TEST

/* On the ring's thread, in dispatch: the frame's work, its host function
 * in full, runs now. */
static void
complete_in_dispatch(enum seam_point point, void *data)
{
	struct wakeup_race *w = data;

	(void)point;
	if (w->passes++ == 0)
		ck_assert_int_eq(fake.hold(w->stream, FAKE_CUDA_RUN), 0);
}

/* The ring's thread dispatches; the frame's work runs inside it, at the
 * seam. */
static void
race_completion_inside_dispatch(struct wakeup_race *w)
{
	unsigned int host0 = fake.host_fns_run();

	seam_set(w->point, complete_in_dispatch, w);
	w->ready = glcuda_ring_dispatch(w->ring);
	seam_set(w->point, NULL, NULL);
	ck_assert_msg(w->passes == 1, "dispatch passed \"%s\" %u times",
		      seam_name(w->point), w->passes);
	ck_assert_uint_eq(fake.host_fns_run(), host0 + 1);
}

/* A completion right after each step of glcuda_ring_dispatch. */
START_TEST(wakeup_completion_inside_dispatch)
{
	static const enum seam_point points[] = { SEAM_RING_DRAINED,
						  SEAM_RING_LOOKED };

	wakeup_races(points, ARRAY_LENGTH(points),
		     race_completion_inside_dispatch);
}
END_TEST

/* Rings destroyed with frames in flight (ring_leak_step, the cycle of 12
 * the GPU's suite runs too), four cycles, witnessed by the fake's live
 * objects, the fds and GL's names. */
START_TEST(destroy_in_flight_no_leaks)
{
	struct gl_names before, after;
	unsigned int live0;
	struct ring_env re;
	struct env *e = &re.e;
	int fds;

	ring_env_setup(&re, _i == 1);
	/* warm-up */
	glcuda_ring_destroy(test_make_ring(e->dev, W, H, 3,
					   GLCUDA_RING_FLAG_TIMINGS, NULL));
	fds = test_count_fds();
	live0 = fake.live_objects();
	test_count_gl_names(&before, 4096);
	for (int i = 0; i < 48; i++)
		ring_leak_step(&re, i);
	/* The last ring's eventfd stayed open for its late host functions;
	 * the next ring call on the device closes it. */
	glcuda_ring_destroy(test_make_ring(e->dev, W, H, 2, 0, NULL));
	ck_assert_int_eq(test_count_fds(), fds);
	ck_assert_uint_eq(fake.live_objects(), live0);
	test_count_gl_names(&after, 4096);
	ck_assert_gl_names_eq(&before, &after);
	glcuda_device_destroy(e->dev);
	/* Everything the device made is gone, its context too. */
	ck_assert_uint_eq(fake.live_objects(), 0);
	ck_assert_uint_eq(fake.primary_refs(), 0);
	glcuda_headless_destroy(e->hl);
}
END_TEST

/* Each public call pushes the device's CUDA context once and pops it on
 * every way out (doc/design.md, "The CUDA context"): with the second
 * cuCtxPushCurrent of each call made to fail, every call of an image's and
 * a frame's life still succeeds; and after calls that fail once pushed,
 * nothing is left pushed on the caller's thread. */
static void
arm_second_push(void)
{
	/* Each time spelt differently ("2", "02", "002"...): the fake
	 * restarts its count when the variable differs from the one it last
	 * read, so each call counts its own pushes. */
	static int armed;
	char fail[128];

	armed++;
	ck_assert_int_lt(armed, 100);
	snprintf(fail, sizeof(fail), "cuCtxPushCurrent:%0*d", armed, 2);
	setenv("GLCUDA_FAKE_CUDA_FAIL", fail, 1);
}

#define ONE_PUSH(call)                                                     \
	do {                                                               \
		int r_;                                                    \
		arm_second_push();                                         \
		r_ = (call);                                               \
		unsetenv("GLCUDA_FAKE_CUDA_FAIL");                         \
		ck_assert_msg(r_ >= 0, "%s pushed more than once: %s", #call, \
			      glcuda_get_last_error());                    \
	} while (0)

/* This thread's context stack is empty: the test pushes nothing itself. */
static void
assert_nothing_pushed(const char *after)
{
	CUcontext ctx = NULL;

	ck_assert_msg(CU(cuCtxPopCurrent)(&ctx) != CUDA_SUCCESS,
		      "%s left a CUDA context pushed", after);
}

/* A call that fails after its push, on the fake's failure of call. */
#define FAILS_POPPED(fail, call)                                          \
	do {                                                              \
		setenv("GLCUDA_FAKE_CUDA_FAIL", fail, 1);                 \
		ck_assert_int_lt((call), 0);                              \
		unsetenv("GLCUDA_FAKE_CUDA_FAIL");                        \
		assert_nothing_pushed(#call);                             \
	} while (0)

START_TEST(one_push_per_call)
{
	struct glcuda_ring_desc desc = {
		.size = sizeof(desc), .width = W, .height = H, .slots = 2,
		.input_format = GLCUDA_FORMAT_RGBA8,
		.flags = GLCUDA_RING_FLAG_TIMINGS,
	};
	struct glcuda_frame_timings t = { .size = sizeof(t) };
	struct glcuda_image *img, *img2 = NULL;
	struct glcuda_ring *ring, *ring2 = NULL;
	struct glcuda_frame *f, *taken;
	struct env e;

	env_setup(&e, false);
	ONE_PUSH(test_image_new(e.dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &img));
	ONE_PUSH(glcuda_handoff_to_cuda(e.dev, &img, 1, NULL));
	ONE_PUSH(glcuda_handoff_to_gl(e.dev, &img, 1, NULL));
	ONE_PUSH(glcuda_ring_new(e.dev, &desc, &ring));
	for (int n = 0; n < 3; n++) {
		ONE_PUSH(glcuda_ring_acquire(ring, &f));
		test_render_frame(f, W, H);
		ONE_PUSH(glcuda_frame_submit(f));
		ONE_PUSH(glcuda_frame_complete(f));
		fake.settle();
		if (n == 0) {
			ONE_PUSH(glcuda_frame_wait_gl(f));
			ONE_PUSH(glcuda_frame_release(f));
		} else if (n == 1) {
			ONE_PUSH(glcuda_ring_take_newest(ring, &taken));
			ck_assert_ptr_eq(taken, f);
			ONE_PUSH(glcuda_frame_release(f));
		} else {
			/* Released while completed: the release waits. */
			ONE_PUSH(glcuda_frame_release(f));
		}
		ONE_PUSH(glcuda_ring_read_timings(ring, &t));
	}
	assert_nothing_pushed("a frame's calls");

	FAILS_POPPED("cuImportExternalMemory:1",
		     test_image_new(e.dev, W, H, GLCUDA_FORMAT_RGBA8, 0,
				    &img2));
	FAILS_POPPED("cuStreamCreate:1", glcuda_ring_new(e.dev, &desc, &ring2));
	ck_ok(glcuda_handoff_to_cuda(e.dev, &img, 1, NULL));
	FAILS_POPPED("cuEventRecord:1",
		     glcuda_handoff_to_gl(e.dev, &img, 1, NULL));
	ck_ok(glcuda_ring_acquire(ring, &f));
	ck_ok(glcuda_frame_submit(f));
	FAILS_POPPED("cuLaunchHostFunc:1", glcuda_frame_complete(f));
	ck_ok(glcuda_frame_release(f));
	glcuda_ring_destroy(ring);
	glcuda_image_destroy(img);
	assert_nothing_pushed("the destroy calls");
	env_teardown(&e);
}
END_TEST

/* Driver calls that fail: clean errors, nothing leaked, and the device
 * works afterwards. */
START_TEST(driver_failures)
{
	static const struct {
		const char *fail;
		bool ring, timings;
	} cases[] = {
		{ "cuImportExternalMemory:1", false, false },
		{ "cuExternalMemoryGetMappedMipmappedArray:1", false, false },
		{ "cuSurfObjectCreate:1", false, false },
		{ "cuTexObjectCreate:1", false, false },
		{ "cuEventCreate:1", false, false },
		{ "cuImportExternalMemory:4", true, false },
		{ "cuStreamCreate:2", true, false },
		{ "cuEventCreate:2", true, false },
		{ "cuEventCreate:9", true, true },
		{ "cuEventRecord:2", true, true },
	};
	struct gl_names before, after;
	unsigned int live0;
	struct env e;
	int fds;

	env_setup(&e, false);
	glcuda_ring_destroy(
		test_make_ring(e.dev, W, H, 3, GLCUDA_RING_FLAG_TIMINGS, NULL));
	fds = test_count_fds();
	live0 = fake.live_objects();
	test_count_gl_names(&before, 4096);
	for (size_t i = 0; i < ARRAY_LENGTH(cases); i++) {
		struct glcuda_ring_desc desc = {
			.size = sizeof(desc),
			.width = W,
			.height = H,
			.slots = 3,
			.input_format = GLCUDA_FORMAT_RGBA8,
			.flags = cases[i].timings ? GLCUDA_RING_FLAG_TIMINGS : 0
		};
		struct glcuda_image *img = NULL;
		struct glcuda_ring *ring = NULL;
		int ret;

		setenv("GLCUDA_FAKE_CUDA_FAIL", cases[i].fail, 1);
		if (cases[i].ring)
			ret = glcuda_ring_new(e.dev, &desc, &ring);
		else
			ret = test_image_new(e.dev, W, H, GLCUDA_FORMAT_RGBA8,
					     0, &img);
		unsetenv("GLCUDA_FAKE_CUDA_FAIL");
		ck_assert_msg(ret == GLCUDA_ERROR_CUDA, "%s: %s: %s",
			      cases[i].fail, glcuda_error_get_name(ret),
			      glcuda_get_last_error());
		ck_assert_msg(strstr(glcuda_get_last_error(),
				     "CUDA_ERROR_OUT_OF_MEMORY"),
			      "%s: %s", cases[i].fail, glcuda_get_last_error());
		ck_assert_ptr_null(img);
		ck_assert_ptr_null(ring);
		ck_assert_msg(fake.live_objects() == live0,
			      "%s: %u fake objects leaked", cases[i].fail,
			      fake.live_objects() - live0);
		ck_assert_msg(test_count_fds() == fds, "%s: %d fds leaked",
			      cases[i].fail, test_count_fds() - fds);
	}
	test_count_gl_names(&after, 4096);
	ck_assert_gl_names_eq(&before, &after);

	/* A failed host function launch: the frame is completed but never
	 * ready; releasing it frees the slot. */
	{
		struct glcuda_ring *ring =
			test_make_ring(e.dev, W, H, 2, 0, NULL);
		struct glcuda_frame *f, *taken;
		ck_ok(glcuda_ring_acquire(ring, &f));
		ck_ok(glcuda_frame_submit(f));
		setenv("GLCUDA_FAKE_CUDA_FAIL", "cuLaunchHostFunc:1", 1);
		ck_err(glcuda_frame_complete(f), GLCUDA_ERROR_CUDA);
		unsetenv("GLCUDA_FAKE_CUDA_FAIL");
		ck_assert_int_eq(glcuda_ring_dispatch(ring), 0);
		ck_ok(glcuda_frame_release(f));
		run_frame(ring, &f);
		ck_assert_int_eq(glcuda_ring_dispatch(ring), 1);
		ck_ok(glcuda_ring_take_newest(ring, &taken));
		ck_assert_ptr_eq(taken, f);
		ck_ok(glcuda_frame_release(f));
		glcuda_ring_destroy(ring);
	}
	ck_assert_uint_eq(fake.live_objects(), live0);
	ck_assert_int_eq(test_count_fds(), fds);
	env_teardown(&e);
}
END_TEST

int
main(void)
{
	const struct test_case cases[] = {
		TEST_TCASE("fake-cuda", 120),
		TEST_LOOP(device_binds_fake_cuda, 2),
		TEST_ONCE(device_uuid_mismatch),
		TEST_LOOP(images_every_format, 2),
		TEST_LOOP(handoff_roundtrip, 2),
		TEST_LOOP(ring_200_frames, 2),
		RING_SHARED_CASES,
		TEST_LOOP(take_newest_never_goes_back, 2),
		TEST_LOOP(take_newest_after_late_present, 2),
		TEST_LOOP(take_newest_in_order_randomized, 2),
		TEST_ONCE(wakeup_dispatch_inside_completion),
		TEST_ONCE(wakeup_completion_inside_dispatch),
		TEST_ONCE(user_data),
		TEST_LOOP(destroy_in_flight_no_leaks, 2),
		TEST_ONCE(driver_failures),
		TEST_ONCE(one_push_per_call),
	};

	fake_cuda_test_setup();
	return test_run_cases("ring-cpu", cases);
}
