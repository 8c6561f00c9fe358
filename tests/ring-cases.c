/*
 * The frame ring cases that run the same on the GPU (tests/test-ring.c)
 * and on the fake CUDA driver (tests/test-ring-cpu.c). Included by both
 * after they define the backend:
 *  - struct ring_env: a display, a GL context and a glcuda device;
 *  - ring_env_setup(e, gles), ring_env_teardown(e): make and free it
 *    (teardown also checks what the backend can see was left behind);
 *  - ring_env_device(e): its device;
 *  - ring_env_frame_work(e, f): a submitted frame's CUDA work (its
 *    kernel, held back behind a gate after ring_env_hold where the
 *    backend holds work per stream);
 *  - ring_env_hold_past_destroy(e, on): where the backend can, the work
 *    queued from now on held back until it is called again with false,
 *    after the ring it was queued for is destroyed;
 *  - ring_env_run_frame(e, ring, &f): one frame acquired, rendered,
 *    submitted, given its CUDA work and completed;
 *  - ring_env_hold(e): the next frame run_frame runs has its work held
 *    back (a busy GPU) until ring_env_let_go(e, fd), which then waits
 *    for the ring's ready fd;
 *  - ring_env_wait_ready(e, ring, fd, n): until n frames whose work was
 *    not held are ready (the fake has finished them already);
 *  - ring_env_check_frame(e, f): the pixels of a frame taken (the GPU's
 *    kernel output, the fake's GL input);
 *  - ring_env_settle(e): until all work queued so far has run;
 *  - ring_env_check_timings(e, t): what the backend's clock promises of
 *    one frame's timings; RING_CUDA_NS_MIN: the least CUDA time a frame
 *    can measure;
 *  - RING_QUIET_MS: how long the ready fd is watched to stay quiet while
 *    work is held back;
 *  - W, H: the frame size.
 * RING_SHARED_CASES: the cases' rows in the including suite's table;
 * ring_leak_step(): one ring of the suites' destroy-with-frames-in-flight
 * cycles, whose witnesses of leaks are the backend's own.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

/* xorshift64*: the same sequence on every machine and every run. */
static uint64_t
prng_next(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* The backend set up (GLES or GL) and a ring of slots on its device. */
static struct glcuda_ring *
ring_env_ring(struct ring_env *e, bool gles, uint32_t slots, uint32_t flags)
{
	ring_env_setup(e, gles);
	return test_make_ring(ring_env_device(e), W, H, slots, flags, NULL);
}

/* Step i of a cycle of 12: a ring of 2..4 slots, with or without timings,
 * in place or not, destroyed with 1..4 frames acquired (as many as fit):
 * the first left acquired, the others submitted with their CUDA work, the
 * third and fourth completed; in half the steps the work is held back
 * until the ring is gone. */
static void
ring_leak_step(struct ring_env *e, int i)
{
	uint32_t flags = (i % 2 ? GLCUDA_RING_FLAG_TIMINGS : 0) |
			 (i % 3 == 2 ? GLCUDA_RING_FLAG_IN_PLACE : 0);
	struct glcuda_ring *ring = test_make_ring(ring_env_device(e), W, H,
						  2 + i % 3, flags, NULL);
	struct glcuda_frame *f;

	ring_env_hold_past_destroy(e, i % 4 >= 2);
	for (int k = 0; k < 1 + i % 4; k++) {
		if (glcuda_ring_acquire(ring, &f) < 0)
			break;
		test_render_frame(f, W, H);
		if (k == 0)
			continue; /* leave one acquired */
		ck_ok(glcuda_frame_submit(f));
		ring_env_frame_work(e, f);
		if (k >= 2)
			ck_ok(glcuda_frame_complete(f));
	}
	glcuda_ring_destroy(ring);
	ring_env_hold_past_destroy(e, false);
}

/* Creation errors, NULLs, -EAGAIN exactly when every slot is in flight,
 * every call out of order in every state of a frame, release without
 * presenting, destroy with frames acquired, submitted and completed. */
START_TEST(eagain_and_misuse)
{
	struct glcuda_ring_desc desc = { .size = sizeof(desc),
					 .width = W,
					 .height = H,
					 .input_format = GLCUDA_FORMAT_RGBA8 };
	struct glcuda_frame_timings t = {
		.size = sizeof(struct glcuda_frame_timings)
	};
	struct glcuda_frame *f[4], *extra;
	struct glcuda_ring *ring = NULL;
	struct glcuda_device *dev;
	struct ring_env e;

	ring_env_setup(&e, false);
	dev = ring_env_device(&e);
	/* Creation. */
	ck_err(glcuda_ring_new(NULL, &desc, &ring), -EINVAL);
	ck_err(glcuda_ring_new(dev, NULL, &ring), -EINVAL);
	ck_err(glcuda_ring_new(dev, &desc, NULL), -EINVAL);
	desc.slots = 1;
	ck_err(glcuda_ring_new(dev, &desc, &ring), -EINVAL);
	desc.slots = GLCUDA_RING_MAX_SLOTS + 1;
	ck_err(glcuda_ring_new(dev, &desc, &ring), -EINVAL);
	/* The limit the header states is the one glcuda_ring_new() applies. */
	desc.slots = GLCUDA_RING_MAX_SLOTS;
	ck_ok(glcuda_ring_new(dev, &desc, &ring));
	glcuda_ring_destroy(ring);
	ring = NULL;
	desc.slots = 3;
	desc.flags = 0x100;
	ck_err(glcuda_ring_new(dev, &desc, &ring), -EINVAL);
	desc.flags = 0;
	desc.input_format = GLCUDA_FORMAT_INVALID;
	ck_err(glcuda_ring_new(dev, &desc, &ring), -EINVAL);
	ck_assert_ptr_null(ring);
	desc.input_format = GLCUDA_FORMAT_RGBA8;
	/* desc.size: not set, a newer glcuda's, inside a member. */
	{
		const size_t bad[] = {
			0, sizeof(desc) + 8,
			offsetof(struct glcuda_ring_desc, height) + 1
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			desc.size = bad[i];
			ck_err(glcuda_ring_new(dev, &desc, &ring), -EINVAL);
			ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(),
						     "glcuda_ring_desc.size"));
		}
		ck_assert_ptr_null(ring);
	}
	/* Older sizes: the members past them are not read, their defaults
	 * apply (here an unknown flag and a stream that is no stream). */
	desc.flags = 0x100;
	desc.cuda_stream = (void *)0x1;
	desc.size = offsetof(struct glcuda_ring_desc, flags);
	ck_ok(glcuda_ring_new(dev, &desc, &ring));
	ck_ok(glcuda_ring_acquire(ring, &extra));
	ck_assert_ptr_ne(glcuda_frame_get_stream(extra), (CUstream)0x1);
	ck_ok(glcuda_frame_submit(extra));
	ck_ok(glcuda_frame_complete(extra));
	ck_ok(glcuda_frame_release(extra));
	glcuda_ring_destroy(ring);
	ring = NULL;
	desc.flags = 0;
	desc.size = offsetof(struct glcuda_ring_desc, cuda_stream);
	ck_ok(glcuda_ring_new(dev, &desc, &ring));
	glcuda_ring_destroy(ring);
	ring = NULL;
	desc.cuda_stream = NULL;
	desc.size = sizeof(desc);

	ring = test_make_ring(dev, W, H, 3, 0, NULL);
	/* NULLs. */
	ck_err(glcuda_ring_acquire(NULL, &extra), -EINVAL);
	ck_err(glcuda_ring_acquire(ring, NULL), -EINVAL);
	ck_err(glcuda_frame_submit(NULL), -EINVAL);
	ck_err(glcuda_frame_complete(NULL), -EINVAL);
	ck_err(glcuda_frame_wait_gl(NULL), -EINVAL);
	ck_err(glcuda_frame_release(NULL), -EINVAL);
	ck_err(glcuda_ring_dispatch(NULL), -EINVAL);
	ck_err(glcuda_ring_take_newest(NULL, &extra), -EINVAL);
	ck_err(glcuda_ring_take_newest(ring, NULL), -EINVAL);
	ck_err(glcuda_ring_read_timings(NULL, &t), -EINVAL);
	ck_err(glcuda_ring_read_timings(ring, NULL), -EINVAL);
	/* Timings were not asked for. */
	ck_err(glcuda_ring_read_timings(ring, &t), -EINVAL);
	ck_assert_int_eq(glcuda_ring_get_fd(NULL), -1);
	ck_assert_uint_eq(glcuda_ring_get_dropped(NULL), 0);
	ck_assert_uint_eq(glcuda_frame_get_number(NULL), 0);
	ck_assert_ptr_null(glcuda_frame_get_input(NULL));
	ck_assert_ptr_null(glcuda_frame_get_stream(NULL));
	glcuda_ring_destroy(NULL);

	/* -EAGAIN exactly when every slot is in flight. */
	for (int i = 0; i < 3; i++) {
		ck_ok(glcuda_ring_acquire(ring, &f[i]));
		ck_assert_uint_eq(glcuda_frame_get_slot(f[i]), (uint32_t)i);
		ck_assert_uint_eq(glcuda_frame_get_number(f[i]), (uint64_t)i);
	}
	ck_err(glcuda_ring_acquire(ring, &extra), -EAGAIN);
	ck_err(glcuda_ring_acquire(ring, &extra), -EAGAIN);

	/* Out of order calls on an acquired frame. */
	ck_err(glcuda_frame_complete(f[0]), GLCUDA_ERROR_BAD_STATE);
	ck_err(glcuda_frame_release(f[0]), GLCUDA_ERROR_BAD_STATE);
	ck_err(glcuda_frame_wait_gl(f[0]), GLCUDA_ERROR_BAD_STATE);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "acquired"));
	ck_ok(glcuda_frame_submit(f[0]));
	/* Submitted. */
	ck_err(glcuda_frame_submit(f[0]), GLCUDA_ERROR_BAD_STATE);
	ck_err(glcuda_frame_release(f[0]), GLCUDA_ERROR_BAD_STATE);
	ck_err(glcuda_frame_wait_gl(f[0]), GLCUDA_ERROR_BAD_STATE);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "submitted"));
	ck_ok(glcuda_frame_complete(f[0]));
	/* Completed. */
	ck_err(glcuda_frame_complete(f[0]), GLCUDA_ERROR_BAD_STATE);
	ck_err(glcuda_frame_submit(f[0]), GLCUDA_ERROR_BAD_STATE);
	ck_err(glcuda_ring_acquire(ring, &extra), -EAGAIN);
	ck_ok(glcuda_frame_wait_gl(f[0]));
	/* Presented. */
	ck_err(glcuda_frame_wait_gl(f[0]), GLCUDA_ERROR_BAD_STATE);
	ck_err(glcuda_frame_complete(f[0]), GLCUDA_ERROR_BAD_STATE);
	ck_err(glcuda_ring_acquire(ring, &extra), -EAGAIN);
	ck_ok(glcuda_frame_release(f[0]));
	/* Free. */
	ck_err(glcuda_frame_release(f[0]), GLCUDA_ERROR_BAD_STATE);
	ck_err(glcuda_frame_submit(f[0]), GLCUDA_ERROR_BAD_STATE);
	ck_ok(glcuda_ring_acquire(ring, &extra));
	ck_assert_ptr_eq(extra, f[0]);
	ck_assert_uint_eq(glcuda_frame_get_number(extra), 3);
	ck_err(glcuda_ring_acquire(ring, &extra), -EAGAIN);

	/* Released without presenting: GL's wait is enqueued, the slot free. */
	ck_ok(glcuda_frame_submit(f[1]));
	ck_ok(glcuda_frame_complete(f[1]));
	ck_ok(glcuda_frame_release(f[1]));
	ck_err(glcuda_frame_release(f[1]), GLCUDA_ERROR_BAD_STATE);
	ck_ok(glcuda_ring_acquire(ring, &extra));
	ck_assert_ptr_eq(extra, f[1]);
	ck_assert_uint_eq(glcuda_frame_get_number(extra), 4);
	ck_err(glcuda_ring_acquire(ring, &extra), -EAGAIN);
	ck_assert_uint_eq(glcuda_ring_get_dropped(ring), 0);

	/* Destroy with frames acquired, submitted and completed. */
	ck_ok(glcuda_frame_submit(f[1]));
	ck_ok(glcuda_frame_submit(f[2]));
	ck_ok(glcuda_frame_complete(f[2]));
	glcuda_ring_destroy(ring);
	ring_env_teardown(&e);
}
END_TEST

/* The fd is readable exactly when a frame's CUDA work is done. */
START_TEST(ready_fd)
{
	struct glcuda_frame *f, *taken;
	struct ring_env e;
	struct glcuda_ring *ring = ring_env_ring(&e, _i == 1, 2, 0);
	int fd = glcuda_ring_get_fd(ring);

	ck_assert_int_ge(fd, 0);
	for (int round = 0; round < 20; round++) {
		ck_assert(!test_fd_readable(fd, 0));
		ring_env_hold(&e);
		ring_env_run_frame(&e, ring, &f);
		/* Held back: not ready, nothing to take. */
		ck_assert(!test_fd_readable(fd, RING_QUIET_MS));
		ck_assert_int_eq(glcuda_ring_dispatch(ring), 0);
		ck_err(glcuda_ring_take_newest(ring, &taken), -EAGAIN);
		ck_assert_uint_eq(glcuda_ring_get_dropped(ring), 0);
		ring_env_let_go(&e, fd);
		ck_assert_int_eq(glcuda_ring_dispatch(ring), 1);
		ck_assert(!test_fd_readable(fd, 0)); /* drained */
		/* still ready */
		ck_assert_int_eq(glcuda_ring_dispatch(ring), 1);
		ck_ok(glcuda_ring_take_newest(ring, &taken));
		ck_assert_ptr_eq(taken, f);
		ck_assert_int_eq(glcuda_ring_dispatch(ring), 0);
		ck_ok(glcuda_frame_release(f));
	}
	/* Two frames, the second held back: take_newest returns the first
	 * and drops nothing; the second comes when its work is done. */
	{
		struct glcuda_frame *a, *b;
		ring_env_run_frame(&e, ring, &a);
		ring_env_hold(&e);
		ring_env_run_frame(&e, ring, &b);
		ring_env_wait_ready(&e, ring, fd, 1);
		ck_assert_int_eq(glcuda_ring_dispatch(ring), 1);
		ck_ok(glcuda_ring_take_newest(ring, &taken));
		ck_assert_ptr_eq(taken, a);
		ck_ok(glcuda_frame_release(a));
		ck_err(glcuda_ring_take_newest(ring, &taken), -EAGAIN);
		ring_env_let_go(&e, fd);
		ck_ok(glcuda_ring_take_newest(ring, &taken));
		ck_assert_ptr_eq(taken, b);
		ck_ok(glcuda_frame_release(b));
		ck_assert_uint_eq(glcuda_ring_get_dropped(ring), 0);
	}
	glcuda_ring_destroy(ring);
	ring_env_teardown(&e);
}
END_TEST

/* Latch the newest: older ready frames are dropped, the newest shown. */
START_TEST(take_newest_drops_older)
{
	struct glcuda_frame *f, *got;
	struct ring_env e;
	struct glcuda_ring *ring = ring_env_ring(&e, _i == 1, 4, 0);
	int fd = glcuda_ring_get_fd(ring);

	for (int round = 0; round < 50; round++) {
		uint64_t last = 0;
		for (int i = 0; i < 3; i++) {
			ring_env_run_frame(&e, ring, &f);
			last = glcuda_frame_get_number(f);
		}
		ring_env_wait_ready(&e, ring, fd, 3);
		ck_assert_int_eq(glcuda_ring_dispatch(ring), 3);
		ck_ok(glcuda_ring_take_newest(ring, &got));
		ck_assert_uint_eq(glcuda_frame_get_number(got), last);
		ring_env_check_frame(&e, got);
		ck_err(glcuda_ring_take_newest(ring, &got), -EAGAIN);
		ck_assert_uint_eq(glcuda_ring_get_dropped(ring),
				  2 * (uint64_t)(round + 1));
		/* The dropped slots are free again: 3 more fit. */
		ck_ok(glcuda_frame_release(got));
	}
	ck_assert_uint_eq(glcuda_ring_get_dropped(ring), 100);
	glcuda_ring_destroy(ring);
	ring_env_teardown(&e);
}
END_TEST

/* Timings: nothing before the first frame, a record per frame while
 * paced like a display, nothing (and no stall) while work is held back,
 * and the struct size rule. */
START_TEST(timings)
{
	struct glcuda_frame_timings t = {
		.size = sizeof(struct glcuda_frame_timings)
	};
	struct glcuda_frame *f;
	double sum[5] = { 0 };
	int got = 0, summed = 0;
	struct ring_env e;
	struct glcuda_ring *ring =
		ring_env_ring(&e, _i == 1, 3, GLCUDA_RING_FLAG_TIMINGS);

	/* Nothing measured yet: nothing to fetch, and no stall. */
	ck_assert_int_eq(glcuda_ring_read_timings(ring, &t), 0);
	for (int n = 0; n < 60; n++) {
		ring_env_run_frame(&e, ring, &f);
		ck_ok(glcuda_frame_wait_gl(f));
		ck_ok(glcuda_frame_release(f));
		for (;;) {
			int r = glcuda_ring_read_timings(ring, &t);
			ck_assert_msg(r >= 0, "%s", glcuda_get_last_error());
			if (r == 0)
				break;
			got++;
		}
		/* Pace like a display would (test only), so that results
		 * come in before their records are reused. */
		if (n % 2)
			glFinish();
	}
	glFinish();
	ring_env_settle(&e);
	for (;;) {
		int r = glcuda_ring_read_timings(ring, &t);
		ck_assert_msg(r >= 0, "%s", glcuda_get_last_error());
		if (r == 0)
			break;
		got++;
		ring_env_check_timings(&e, &t);
		sum[0] += t.gl_render_ns;
		sum[1] += t.handoff_to_cuda_ns;
		sum[2] += t.cuda_ns;
		sum[3] += t.handoff_to_gl_ns;
		sum[4] += t.total_ns;
		summed++;
	}
	ck_assert_int_ge(got, 40);
	/* Timings are a diagnostic: with the work held back, nothing comes
	 * and nothing stalls. */
	ring_env_hold(&e);
	ring_env_run_frame(&e, ring, &f);
	ck_assert_int_eq(glcuda_ring_read_timings(ring, &t), 0);
	ring_env_let_go(&e, glcuda_ring_get_fd(ring));
	ck_ok(glcuda_frame_wait_gl(f));
	ck_ok(glcuda_frame_release(f));
	glFinish();
	ring_env_settle(&e);
	/* The size rule: 0 fails, and an older, shorter struct gets only
	 * the members it has (here: up to cuda_ns). */
	{
		struct glcuda_frame_timings old;

		memset(&old, 0xa5, sizeof(old));
		old.size = 0;
		ck_err(glcuda_ring_read_timings(ring, &old), -EINVAL);
		ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(),
					     "glcuda_frame_timings.size is 0"));
		old.size =
			offsetof(struct glcuda_frame_timings, handoff_to_gl_ns);
		ck_assert_int_eq(glcuda_ring_read_timings(ring, &old), 1);
		ck_assert_uint_eq(old.size,
				  offsetof(struct glcuda_frame_timings,
					   handoff_to_gl_ns));
		ck_assert_uint_ge(old.cuda_ns, RING_CUDA_NS_MIN);
		ck_assert_uint_eq(old.total_ns, 0xa5a5a5a5a5a5a5a5ull);
	}
	glcuda_frame_timings_init(&t);
	ck_assert_int_eq(glcuda_ring_read_timings(ring, &t), 0);
	if (summed)
		printf("%s timings over the last %d frames (us): render %.1f, "
		       "to CUDA %.1f, CUDA %.1f, to GL %.1f, total %.1f (%d "
		       "frames measured)\n",
		       _i ? "GLES" : "GL", summed, sum[0] / 1e3 / summed,
		       sum[1] / 1e3 / summed, sum[2] / 1e3 / summed,
		       sum[3] / 1e3 / summed, sum[4] / 1e3 / summed, got);
	glcuda_ring_destroy(ring);
	ring_env_teardown(&e);
}
END_TEST

#define RING_SHARED_CASES                                     \
	TEST_ONCE(eagain_and_misuse), TEST_LOOP(ready_fd, 2), \
		TEST_LOOP(take_newest_drops_older, 2), TEST_LOOP(timings, 2)
