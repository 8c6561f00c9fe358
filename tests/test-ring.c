/*
 * The frame ring on the GPU. The cases it shares with the fake CUDA driver
 * (tests/ring-cases.c: -EAGAIN and misuse, the ready fd, take_newest
 * dropping older frames, timings), run here with a kernel on every frame
 * and its output checked; and the GPU's own: 1000 frames with every frame
 * verified, frames in batches, frames taken in order when kernels of
 * varying length finish out of order, destroy with frames in flight (free
 * GPU memory). GL and GLES.
 * Needs an NVIDIA GPU; exits 77 without a CUDA driver.
 * SPDX-License-Identifier: MIT
 */
#include "test-gpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 320
#define H 180

/* GL renders test_frame_color(n) into frame n (test-common.c); the kernel
 * inverts R and G and flips B. */

static void
launch_transform(struct gpu *g, struct glcuda_frame *f)
{
	CUsurfObject in = glcuda_frame_get_input_surface(f),
		     out = glcuda_frame_get_output_surface(f);
	int w = W, h = H;
	void *args[] = { &in, &out, &w, &h };
	ck_cu(CU(cuLaunchKernel)(g->ring_transform, (W + 15) / 16,
				 (H + 15) / 16, 1, 16, 16, 1, 0,
				 glcuda_frame_get_stream(f), args, NULL));
}

/* Read a few pixels of the output (test only: this waits for GL). */
static void
verify_output(struct glcuda_frame *f, GLuint fbo)
{
	static const int xs[] = { 0, W - 1, W / 2, 17 },
			 ys[] = { 0, H - 1, H / 3, 101 };
	uint8_t c[4], px[4];
	GLint prev;

	test_frame_color(glcuda_frame_get_number(f), c);
	glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &prev);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
	glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D,
			       glcuda_frame_get_output_texture(f), 0);
	const unsigned int want[4] = { 255u - c[0], 255u - c[1], 0xffu - c[2],
				       c[3] };
	for (size_t i = 0; i < ARRAY_LENGTH(xs); i++) {
		glReadPixels(xs[i], ys[i], 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
		ck_assert_msg(px[0] == want[0] && px[1] == want[1] &&
				      px[2] == want[2] && px[3] == want[3],
			      "frame %llu pixel (%d,%d): got %u,%u,%u,%u",
			      (unsigned long long)glcuda_frame_get_number(f),
			      xs[i], ys[i], px[0], px[1], px[2], px[3]);
	}
	glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)prev);
}

/* The backend of the shared cases (tests/ring-cases.c): a GPU and the
 * NVIDIA driver's sync mode of choice. Work is held back by a spin_gate
 * kernel ahead of the frame's own, spinning on a word of mapped host
 * memory until the test sets it. */
struct ring_env {
	struct gpu g;
	volatile unsigned int *gate;
	CUdeviceptr dgate;
	bool hold_next;
	GLuint fbo; /* to read outputs back */
};

static void
ring_env_setup(struct ring_env *e, bool gles)
{
	gpu_setup(&e->g, gles, GLCUDA_SYNC_AUTO);
	ck_cu(CU(cuMemHostAlloc)((void **)&e->gate, 4,
				 CU_MEMHOSTALLOC_DEVICEMAP |
					 CU_MEMHOSTALLOC_PORTABLE));
	ck_cu(CU(cuMemHostGetDevicePointer)(&e->dgate, (void *)e->gate, 0));
	*e->gate = 1;
	e->hold_next = false;
	glGenFramebuffers(1, &e->fbo);
}

static void
ring_env_teardown(struct ring_env *e)
{
	glDeleteFramebuffers(1, &e->fbo);
	/* No spin_gate may still read the gate. */
	*e->gate = 1;
	__sync_synchronize();
	ck_cu(CU(cuCtxSynchronize)());
	CU(cuMemFreeHost)((void *)e->gate);
	gpu_teardown(&e->g);
}

static struct glcuda_device *
ring_env_device(struct ring_env *e)
{
	return e->g.dev;
}

static void
ring_env_hold(struct ring_env *e)
{
	*e->gate = 0;
	__sync_synchronize();
	e->hold_next = true;
}

/* glcuda_ring_destroy() waits for the ring's work: none is held past it. */
static void
ring_env_hold_past_destroy(struct ring_env *e, bool on)
{
	(void)e;
	(void)on;
}

/* The frame's kernel, behind a spin_gate after ring_env_hold. */
static void
ring_env_frame_work(struct ring_env *e, struct glcuda_frame *f)
{
	if (e->hold_next) {
		void *args[] = { &e->dgate };
		ck_cu(CU(cuLaunchKernel)(e->g.spin_gate, 1, 1, 1, 1, 1, 1, 0,
					 glcuda_frame_get_stream(f), args,
					 NULL));
		e->hold_next = false;
	}
	launch_transform(&e->g, f);
}

static void
ring_env_run_frame(struct ring_env *e, struct glcuda_ring *ring,
		   struct glcuda_frame **out)
{
	struct glcuda_frame *f;

	ck_ok(glcuda_ring_acquire(ring, &f));
	test_render_frame(f, W, H);
	ck_ok(glcuda_frame_submit(f));
	ring_env_frame_work(e, f);
	ck_ok(glcuda_frame_complete(f));
	*out = f;
}

/* The bound only keeps a lost wakeup from hanging the test. */
static void
ring_env_let_go(struct ring_env *e, int fd)
{
	*e->gate = 1;
	__sync_synchronize();
	ck_assert_msg(test_fd_readable(fd, 5000),
		      "work let go, and no wakeup in 5 s");
}

static void
ring_env_wait_ready(struct ring_env *e, struct glcuda_ring *ring, int fd, int n)
{
	(void)e;
	while (glcuda_ring_dispatch(ring) < n)
		ck_assert_msg(test_fd_readable(fd, 5000),
			      "%d frames not ready, and no wakeup in 5 s", n);
}

static void
ring_env_check_frame(struct ring_env *e, struct glcuda_frame *f)
{
	verify_output(f, e->fbo);
}

static void
ring_env_settle(struct ring_env *e)
{
	(void)e;
	ck_cu(CU(cuCtxSynchronize)());
}

/* Every part measured, and the parts add up to the total (within 0.1 ms
 * and 10 %). */
static void
ring_env_check_timings(struct ring_env *e, const struct glcuda_frame_timings *t)
{
	uint64_t parts = t->gl_render_ns + t->handoff_to_cuda_ns + t->cuda_ns +
			 t->handoff_to_gl_ns;
	int64_t diff = (int64_t)parts - (int64_t)t->total_ns;

	(void)e;
	ck_assert_uint_gt(t->gl_render_ns, 0);
	ck_assert_uint_gt(t->cuda_ns, 0);
	ck_assert_uint_gt(t->total_ns, 0);
	if (diff < 0)
		diff = -diff;
	ck_assert_msg(diff <= 100000 + (int64_t)t->total_ns / 10,
		      "frame %llu: parts %llu ns vs total %llu ns",
		      (unsigned long long)t->frame_number,
		      (unsigned long long)parts,
		      (unsigned long long)t->total_ns);
}

#define RING_CUDA_NS_MIN 1

/* Held work is watched this long for a wrong wakeup. */
#define RING_QUIET_MS 20

#include "ring-cases.c"

/* 1000 frames through 3 slots, pipelined (GL renders the next frame before
 * it waits for the oldest), every frame's output checked in order. */
START_TEST(thousand_frames)
{
	bool gles = _i == 1;
	struct glcuda_frame *queue[4];
	unsigned int queued = 0, verified = 0;
	struct glcuda_ring *ring;
	struct gpu g;
	GLuint fbo;

	gpu_setup(&g, gles, GLCUDA_SYNC_AUTO);
	ring = test_make_ring(g.dev, W, H, 3, 0, NULL);
	glGenFramebuffers(1, &fbo);
	for (uint64_t n = 0; n < 1000;) {
		struct glcuda_frame *f;
		int ret = glcuda_ring_acquire(ring, &f);
		if (ret == -EAGAIN) {
			/* All slots in flight: present the oldest. */
			ck_assert_uint_eq(queued, 3);
			f = queue[0];
			memmove(queue, queue + 1, sizeof(queue[0]) * --queued);
			ck_ok(glcuda_frame_wait_gl(f));
			verify_output(f, fbo);
			ck_ok(glcuda_frame_release(f));
			verified++;
			continue;
		}
		ck_ok(ret);
		ck_assert_uint_eq(glcuda_frame_get_number(f), n);
		ck_assert_uint_eq(glcuda_frame_get_slot(f), n % 3);
		test_render_frame(f, W, H);
		ck_ok(glcuda_frame_submit(f));
		launch_transform(&g, f);
		ck_ok(glcuda_frame_complete(f));
		queue[queued++] = f;
		n++;
	}
	while (queued) {
		struct glcuda_frame *f = queue[0];
		memmove(queue, queue + 1, sizeof(queue[0]) * --queued);
		ck_ok(glcuda_frame_wait_gl(f));
		verify_output(f, fbo);
		ck_ok(glcuda_frame_release(f));
		verified++;
	}
	ck_assert_uint_eq(verified, 1000);
	printf("%s %s: 1000 frames through 3 slots, all verified\n",
	       gles ? "GLES" : "GL",
	       glcuda_sync_mode_get_name(
		       glcuda_device_get_caps(g.dev)->sync_mode));
	glDeleteFramebuffers(1, &fbo);
	glcuda_ring_destroy(ring);
	gpu_teardown(&g);
}
END_TEST

/* Frames in batches of 2, 3 and 4 (the ring's slots): every frame of a
 * batch rendered before any is submitted, all submitted, a kernel each,
 * all completed, GL waits for all, then every frame is checked. The order
 * that pays the GL <-> CUDA switch once per batch (doc/performance.md);
 * 300 frames per batch size, every one verified. */
START_TEST(batched_frames)
{
	bool gles = _i == 1;
	unsigned int verified = 0;
	struct gpu g;
	GLuint fbo;

	gpu_setup(&g, gles, GLCUDA_SYNC_AUTO);
	glGenFramebuffers(1, &fbo);
	for (uint32_t batch = 2; batch <= 4; batch++) {
		struct glcuda_ring *ring =
			test_make_ring(g.dev, W, H, batch, 0, NULL);
		struct glcuda_frame *f[4];

		for (unsigned int n = 0; n < 300; n += batch) {
			for (uint32_t i = 0; i < batch; i++) {
				ck_ok(glcuda_ring_acquire(ring, &f[i]));
				test_render_frame(f[i], W, H);
			}
			for (uint32_t i = 0; i < batch; i++)
				ck_ok(glcuda_frame_submit(f[i]));
			for (uint32_t i = 0; i < batch; i++)
				launch_transform(&g, f[i]);
			for (uint32_t i = 0; i < batch; i++)
				ck_ok(glcuda_frame_complete(f[i]));
			for (uint32_t i = 0; i < batch; i++)
				ck_ok(glcuda_frame_wait_gl(f[i]));
			for (uint32_t i = 0; i < batch; i++) {
				verify_output(f[i], fbo);
				ck_ok(glcuda_frame_release(f[i]));
				verified++;
			}
		}
		glcuda_ring_destroy(ring);
	}
	printf("%s %s: %u frames in batches of 2, 3 and 4, all verified\n",
	       gles ? "GLES" : "GL",
	       glcuda_sync_mode_get_name(
		       glcuda_device_get_caps(g.dev)->sync_mode),
	       verified);
	glDeleteFramebuffers(1, &fbo);
	gpu_teardown(&g);
}
END_TEST

/* A compositor's loop on one ring of 3 slots: each iteration produces a
 * frame if a slot is free, its kernel running for a length of its own
 * (none, about 0.15 ms or about 1.5 ms), and then, as at a vblank, takes
 * the newest frame. The slots' streams run concurrently, so frames finish
 * out of order; the frames taken must still go strictly up in number, and
 * every frame is presented or counted as dropped. */
START_TEST(take_newest_in_order)
{
	const bool gles = _i == 1;
	const unsigned int frames = 2400;
	unsigned int produced = 0, presented = 0, violations = 0, verified = 0;
	uint64_t seed = 0x243f6a8885a308d3ull, last = 0;
	bool taken_any = false;
	struct glcuda_ring *ring;
	struct glcuda_frame *f;
	CUfunction spin;
	struct gpu g;
	GLuint fbo;

	gpu_setup(&g, gles, GLCUDA_SYNC_AUTO);
	ck_cu(CU(cuModuleGetFunction)(&spin, g.module, "spin_cycles"));
	ring = test_make_ring(g.dev, W, H, 3, 0, NULL);
	glGenFramebuffers(1, &fbo);
	while (produced < frames) {
		int ret = glcuda_ring_acquire(ring, &f);
		bool slots_full = ret == -EAGAIN;

		if (ret == 0) {
			uint64_t r = prng_next(&seed) % 8;
			long long cycles = r < 3 ? 3000000 : r < 5 ? 300000 : 0;
			void *args[] = { &cycles };

			test_render_frame(f, W, H);
			ck_ok(glcuda_frame_submit(f));
			ck_cu(CU(cuLaunchKernel)(spin, 1, 1, 1, 1, 1, 1, 0,
						 glcuda_frame_get_stream(f),
						 args, NULL));
			launch_transform(&g, f);
			ck_ok(glcuda_frame_complete(f));
			produced++;
		} else {
			ck_assert_int_eq(ret, -EAGAIN);
		}
		/* The vblank. */
		uint64_t dropped_before = glcuda_ring_get_dropped(ring);
		ret = glcuda_ring_take_newest(ring, &f);
		if (ret == -EAGAIN) {
			/* Every slot in flight and nothing ready: wait for
			 * the ready fd rather than spin (the bound only keeps
			 * a lost wakeup from hanging the test). Unless this
			 * take dropped stale frames: their slots are free. */
			if (slots_full &&
			    glcuda_ring_get_dropped(ring) == dropped_before)
				ck_assert_msg(test_fd_readable(
						      glcuda_ring_get_fd(ring),
						      10000),
					      "every slot in flight, none "
					      "ready, and no wakeup in 10 s");
			continue;
		}
		ck_ok(ret);
		if (taken_any && glcuda_frame_get_number(f) <= last) {
			violations++;
			fprintf(stderr,
				"%s: frame %llu taken after frame %llu\n",
				gles ? "GLES" : "GL",
				(unsigned long long)glcuda_frame_get_number(f),
				(unsigned long long)last);
		}
		last = glcuda_frame_get_number(f);
		taken_any = true;
		presented++;
		if (presented % 64 == 0) {
			verify_output(f, fbo);
			verified++;
		}
		ck_ok(glcuda_frame_release(f));
	}
	/* The last frames finish: vblanks until each is presented or
	 * dropped. */
	while (presented + glcuda_ring_get_dropped(ring) < produced) {
		int ret = glcuda_ring_take_newest(ring, &f);
		if (ret == -EAGAIN) {
			/* It may have dropped the last stale frames. */
			if (presented + glcuda_ring_get_dropped(ring) >=
			    produced)
				break;
			ck_assert_msg(
				test_fd_readable(glcuda_ring_get_fd(ring),
						 10000),
				"%llu frames neither presented nor dropped, "
				"and no wakeup in 10 s",
				(unsigned long long)(produced - presented -
						     glcuda_ring_get_dropped(
							     ring)));
			continue;
		}
		ck_ok(ret);
		if (taken_any && glcuda_frame_get_number(f) <= last)
			violations++;
		last = glcuda_frame_get_number(f);
		taken_any = true;
		presented++;
		ck_ok(glcuda_frame_release(f));
	}
	ck_assert_int_eq(glcuda_ring_take_newest(ring, &f), -EAGAIN);
	printf("%s %s: %u frames through 3 slots, kernels of varying length: "
	       "%u presented, %llu dropped, %u order violations (%u outputs "
	       "verified)\n",
	       gles ? "GLES" : "GL",
	       glcuda_sync_mode_get_name(
		       glcuda_device_get_caps(g.dev)->sync_mode),
	       produced, presented,
	       (unsigned long long)glcuda_ring_get_dropped(ring), violations,
	       verified);
	ck_assert_uint_eq(violations, 0);
	ck_assert_uint_eq(presented + glcuda_ring_get_dropped(ring), produced);
	glDeleteFramebuffers(1, &fbo);
	glcuda_ring_destroy(ring);
	gpu_teardown(&g);
}
END_TEST

/* Rings destroyed with frames in flight (ring_leak_step, the cycle of 12
 * the fake CUDA driver's suite runs too), witnessed by CUDA's free memory,
 * the fds and GL's names. */
START_TEST(destroy_in_flight_no_leaks)
{
	struct gl_names before, after;
	size_t free0, free1;
	struct ring_env e;
	int fds;

	ring_env_setup(&e, false);
	/* warm-up */
	glcuda_ring_destroy(test_make_ring(e.g.dev, W, H, 3,
					   GLCUDA_RING_FLAG_TIMINGS, NULL));
	fds = test_count_fds();
	test_count_gl_names(&before, 4096);
	/* CUDA memory: the driver's pools grow in 64 KiB steps on their own
	 * schedule (on the H200 one step came after the first 12 rings), so
	 * the cycle of 12 cases runs until two whole cycles in a row leave
	 * free memory exactly where they found it; a leak of even one
	 * allocation per cycle never settles. Then four more cycles must
	 * each end exactly there. */
	free0 = free1 = gpu_free_memory();
	int unchanged = 0, cycles = 0;
	/* Under compute-sanitizer free memory does not settle: one cycle. */
	while (unchanged < (gpu_free_memory_exact() ? 2 : 1)) {
		ck_assert_msg(
			cycles < 10,
			"CUDA free memory still changing after %d cycles of 12 "
			"rings (last %zu -> %zu)",
			cycles, free0, free1);
		for (int i = 0; i < 12; i++)
			ring_leak_step(&e, i);
		free1 = gpu_free_memory();
		unchanged = free1 == free0 || !gpu_free_memory_exact()
				    ? unchanged + 1
				    : 0;
		free0 = free1;
		cycles++;
	}
	for (int c = 0; c < 4; c++) {
		for (int i = 0; i < 12; i++)
			ring_leak_step(&e, i);
		free1 = gpu_free_memory();
		ck_assert_msg(free1 == free0 || !gpu_free_memory_exact(),
			      "CUDA free memory %zu after %d settled cycles -> "
			      "%zu after one more", free0, cycles + c, free1);
	}
	ck_assert_int_eq(test_count_fds(), fds);
	test_count_gl_names(&after, 4096);
	ck_assert_gl_names_eq(&before, &after);
	ck_assert_uint_eq(e.g.dev->live_rings, 0);
	ck_assert_uint_eq(e.g.dev->live_images, 0);
	ring_env_teardown(&e);
}
END_TEST

int
main(void)
{
	const struct test_case cases[] = {
		TEST_TCASE("frames", 180),
		TEST_LOOP(thousand_frames, 2),
		TEST_LOOP(batched_frames, 2),
		TEST_LOOP(take_newest_in_order, 2),
		RING_SHARED_CASES,
		TEST_ONCE(destroy_in_flight_no_leaks),
	};

	gpu_require_cuda();
	test_require_egl();
	return test_run_cases("ring", cases);
}
