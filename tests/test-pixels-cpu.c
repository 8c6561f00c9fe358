/*
 * Pixels through glcuda without a GPU, and the order of the work around
 * them: GL writes known content into an image (an upload, or a draw), the
 * image is handed to CUDA, a kernel of tests/test-kernels.cu runs on the
 * stream (the fake CUDA driver runs it on the CPU, on the very memory GL
 * renders into), the image is handed back, and GL reads every pixel. In
 * the "cpu" sync mode, GL and GLES, every format glcuda supports, images
 * and the frame ring.
 *
 * The fake runs stream work on its own driver thread, in stream order, and
 * can hold a stream: the tests use that to check that glcuda orders work
 * and does not only get lucky with timing —
 *  - the ring's frame-done host function runs after the frame's kernel;
 *  - a hand-off back to GL waits for CUDA's work (the stream is held until
 *    someone waits for it: without the wait, GL reads the old pixels);
 *  - a hand-off to CUDA waits for GL's work (a long draw in flight: without
 *    the wait, the kernel reads what GL has not drawn yet);
 * and that the fake itself models what the gpu sync modes rely on (stream
 * waits on external semaphores, events, the legacy stream), which Mesa's
 * GL cannot reach (no GL_EXT_semaphore_fd).
 * SPDX-License-Identifier: MIT
 */
#include "test-common.h"
#include "fake-cuda/fake-cuda-env.h"
#include "fake-controls.h"
#include <errno.h>
#include <glcuda/glcuda-cuda.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W 61 /* not a multiple of the 4-pixel raster block nor of 16 bytes */
#define H 37

struct env {
	struct fake_env f; /* context, device, kernels, stream */
	CUfunction check[17];
	GLuint program, vao, fbo;
};

/* GL: a program that draws the test pattern (test_fill_pattern's RGBA8
 * values) over the whole target, after `spin` rounds of busy work per
 * pixel that do not change the result. */
static const char vs_src[] = "void main() {\n"
			     "	vec2 v = vec2(float((gl_VertexID & 1) * 4 - "
			     "1), float((gl_VertexID & 2) * 2 - 1));\n"
			     "	gl_Position = vec4(v, 0.0, 1.0);\n"
			     "}\n";
static const char fs_src[] = "uniform int seed;\n"
			     "uniform int spin;\n"
			     "uniform float never;\n"
			     "out vec4 color;\n"
			     "void main() {\n"
			     "	ivec2 p = ivec2(gl_FragCoord.xy);\n"
			     "	ivec4 k = (ivec4(p.x * 7 + p.y * 131 + seed * "
			     "977) + ivec4(0, 61, 122, 183)) & 255;\n"
			     "	float acc = 0.0;\n"
			     "	for (int i = 0; i < spin; i++)\n"
			     "		acc = sin(acc + float(i));\n"
			     "	if (acc == never)\n"
			     "		k = ivec4(0);\n"
			     "	color = vec4(k) / 255.0;\n"
			     "}\n";

static void
gl_setup(struct env *e)
{
	GLuint vs = test_shader(GL_VERTEX_SHADER, e->f.gles, vs_src);
	GLuint fs = test_shader(GL_FRAGMENT_SHADER, e->f.gles, fs_src);
	GLint ok = 0;

	e->program = glCreateProgram();
	glAttachShader(e->program, vs);
	glAttachShader(e->program, fs);
	glLinkProgram(e->program);
	glGetProgramiv(e->program, GL_LINK_STATUS, &ok);
	ck_assert(ok);
	glDeleteShader(vs);
	glDeleteShader(fs);
	glGenVertexArrays(1, &e->vao);
	glGenFramebuffers(1, &e->fbo);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
}

/* Draw the pattern of `seed` into tex (w x h). Queued only: GL runs it on
 * its own threads (llvmpipe's rasterizer). */
static void
gl_draw(struct env *e, GLuint tex, uint32_t w, uint32_t h, uint32_t seed,
	int spin)
{
	glBindFramebuffer(GL_FRAMEBUFFER, e->fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, tex, 0);
	ck_assert_int_eq(glCheckFramebufferStatus(GL_FRAMEBUFFER),
			 GL_FRAMEBUFFER_COMPLETE);
	glViewport(0, 0, (GLsizei)w, (GLsizei)h);
	glUseProgram(e->program);
	glUniform1i(glGetUniformLocation(e->program, "seed"), (GLint)seed);
	glUniform1i(glGetUniformLocation(e->program, "spin"), spin);
	glUniform1f(glGetUniformLocation(e->program, "never"), -12345.0f);
	glBindVertexArray(e->vao);
	glDrawArrays(GL_TRIANGLES, 0, 3);
	glBindVertexArray(0);
	glUseProgram(0);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
}

static void
env_setup(struct env *e, bool gles)
{
	memset(e, 0, sizeof(*e));
	fake_env_setup(&e->f, gles);
	resolve_fake();
	fake_env_push(&e->f);
	for (unsigned int n = 1; n <= 16; n *= 2) {
		char name[32];
		snprintf(name, sizeof(name), "check_and_fill_%u", n);
		ck_cu(CU(cuModuleGetFunction)(&e->check[n], e->f.module, name));
	}
	fake_env_pop();
	gl_setup(e);
}

static void
env_teardown(struct env *e)
{
	glDeleteProgram(e->program);
	glDeleteVertexArrays(1, &e->vao);
	glDeleteFramebuffers(1, &e->fbo);
	fake_env_teardown(&e->f);
}

/* ring_transform (in, out, w, h): R, G inverted, B flipped, A kept. */
static void
invert_pixels(uint8_t *p, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		p[4 * i] = (uint8_t)(255 - p[4 * i]);
		p[4 * i + 1] = (uint8_t)(255 - p[4 * i + 1]);
		p[4 * i + 2] ^= 0xff;
	}
}

/* Every pixel of tex is `want` (RGBA8). */
static void
check_rgba8(GLuint tex, const uint8_t *want, const char *what)
{
	const struct format_info *fmt = format_info(GLCUDA_FORMAT_RGBA8);
	uint8_t got[W * H * 4];
	long i;

	memset(got, 0, sizeof(got));
	ck_assert(test_gl_readback(tex, fmt, W, H, got));
	i = test_first_mismatch(got, want, fmt, W, H);
	ck_assert_msg(i < 0,
		      "%s: pixel (%ld,%ld) is "
		      "%u,%u,%u,%u, expected %u,%u,%u,%u",
		      what, i % W, i / W, got[4 * i], got[4 * i + 1],
		      got[4 * i + 2], got[4 * i + 3], want[4 * i],
		      want[4 * i + 1], want[4 * i + 2], want[4 * i + 3]);
}

static void
rgba8_pattern(uint32_t seed, uint8_t *out)
{
	test_fill_pattern(format_info(GLCUDA_FORMAT_RGBA8), W, H, seed, out);
}

/* Images
 * ---------------------------------------------------------------------- */

/* How many iterations GL's long draws spin (GLCUDA_TEST_GL_SPIN, 4000 by
 * default). */
static int
gl_spin(void)
{
	const char *env = getenv("GLCUDA_TEST_GL_SPIN");

	return env ? atoi(env) : 4000;
}

/* The environment (GLES or GL) and a ring of 3 slots on its device. */
static struct glcuda_ring *
env_ring(struct env *e, bool gles, uint32_t flags)
{
	env_setup(e, gles);
	return test_make_ring(e->f.dev, W, H, 3, flags, NULL);
}

/* The frame's kernel on its stream: its input inverted into its output. */
static void
frame_invert(struct env *e, struct glcuda_frame *f)
{
	fake_env_launch_invert(&e->f, glcuda_frame_get_input_surface(f),
			       glcuda_frame_get_output_surface(f), W, H,
			       glcuda_frame_get_stream(f));
}

/* Every format: GL uploads a pattern, CUDA checks every texel of it and
 * writes another, GL reads that back. The layout the fake gives the
 * memory (offset, row pitch) and each format's bytes are checked at once. */
START_TEST(every_format_both_ways)
{
	uint32_t supported;
	unsigned int formats = 0;
	struct env e;

	env_setup(&e, _i == 1);
	supported = glcuda_device_get_caps(e.f.dev)->formats_supported;
	for (int f = 1; f < GLCUDA_FORMAT_COUNT; f++) {
		const struct format_info *fmt =
			format_info((enum glcuda_format)f);
		size_t bpp = fmt->bytes_per_pixel, size = (size_t)W * H * bpp;
		uint8_t *in = malloc(size), *out = malloc(size),
			*got = calloc(1, size);
		uint32_t mismatches = 1, first = 0;
		CUdeviceptr d_in, d_out, d_count;
		struct glcuda_image *img;
		CUsurfObject surf;
		int w = W, h = H;
		long i;

		if (!(supported & (1u << f)))
			continue;
		ck_assert(in && out && got);
		test_fill_pattern(fmt, W, H, 11, in);
		test_fill_pattern(fmt, W, H, 12, out);
		ck_ok(test_image_new(e.f.dev, W, H, (enum glcuda_format)f, 0,
				     &img));
		ck_assert(test_gl_upload(glcuda_image_get_gl_texture(img), fmt,
					 W, H, in));
		ck_ok(glcuda_handoff_to_cuda(e.f.dev, &img, 1, e.f.stream));

		fake_env_push(&e.f);
		ck_cu(CU(cuMemAlloc)(&d_in, size));
		ck_cu(CU(cuMemAlloc)(&d_out, size));
		ck_cu(CU(cuMemAlloc)(&d_count, 8));
		ck_cu(CU(cuMemcpyHtoD)(d_in, in, size));
		ck_cu(CU(cuMemcpyHtoD)(d_out, out, size));
		ck_cu(CU(cuMemsetD32)(d_count, 0, 2));
		surf = glcuda_image_get_cuda_surface(img);
		{
			CUdeviceptr d_first = d_count + 4;
			void *args[] = { &surf,	 &w,	   &h,	    &d_in,
					 &d_out, &d_count, &d_first };
			ck_cu(CU(cuLaunchKernel)(e.check[bpp], (W + 15) / 16,
						 (H + 15) / 16, 1, 16, 16, 1, 0,
						 e.f.stream, args, NULL));
		}
		fake_env_pop();
		ck_ok(glcuda_handoff_to_gl(e.f.dev, &img, 1, e.f.stream));
		fake_env_push(&e.f);
		ck_cu(CU(cuMemcpyDtoH)(&mismatches, d_count, 4));
		ck_cu(CU(cuMemcpyDtoH)(&first, d_count + 4, 4));
		ck_cu(CU(cuMemFree)(d_in));
		ck_cu(CU(cuMemFree)(d_out));
		ck_cu(CU(cuMemFree)(d_count));
		fake_env_pop();
		ck_assert_msg(mismatches == 0,
			      "%s %s: CUDA saw %u texels that GL did not "
			      "write, the first at (%u,%u)",
			      e.f.gles ? "GLES" : "GL", fmt->name, mismatches,
			      first % W, first / W);
		if (!test_gl_readback(glcuda_image_get_gl_texture(img), fmt, W,
				      H, got)) {
			/* GLES reads some formats only as another type. */
			ck_assert_msg(e.f.gles, "GL cannot read %s back",
				      fmt->name);
			printf("GLES: %s: checked on the CUDA side only\n",
			       fmt->name);
		} else {
			i = test_first_mismatch(got, out, fmt, W, H);
			ck_assert_msg(i < 0,
				      "%s %s: GL reads texel (%ld,%ld) not as "
				      "CUDA wrote it",
				      e.f.gles ? "GLES" : "GL", fmt->name,
				      i % W, i / W);
		}
		glcuda_image_destroy(img);
		free(in);
		free(out);
		free(got);
		formats++;
	}
	ck_assert_uint_ge(formats, 1);
	printf("%s: %u formats, every texel, GL -> CUDA -> GL\n",
	       _i ? "GLES" : "GL", formats);
	env_teardown(&e);
}
END_TEST

/* GL draws, CUDA inverts in place, GL reads: on glcuda's stream, the
 * legacy NULL stream and CU_STREAM_LEGACY. */
START_TEST(image_draw_invert)
{
	CUstream streams[3];
	uint8_t want[W * H * 4];
	struct glcuda_image *img;
	struct env e;

	env_setup(&e, _i == 1);
	streams[0] = e.f.stream;
	streams[1] = NULL;
	streams[2] = CU_STREAM_LEGACY;
	ck_ok(test_image_new(e.f.dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &img));
	for (uint32_t n = 0; n < 6; n++) {
		CUstream s = streams[n % 3];
		gl_draw(&e, glcuda_image_get_gl_texture(img), W, H, n, 0);
		ck_ok(glcuda_handoff_to_cuda(e.f.dev, &img, 1, s));
		fake_env_launch_invert(&e.f, glcuda_image_get_cuda_surface(img),
				       glcuda_image_get_cuda_surface(img), W, H,
				       s);
		ck_ok(glcuda_handoff_to_gl(e.f.dev, &img, 1, s));
		rgba8_pattern(n, want);
		invert_pixels(want, W * H);
		check_rgba8(glcuda_image_get_gl_texture(img), want,
			    "drawn, inverted by CUDA");
	}
	glcuda_image_destroy(img);
	env_teardown(&e);
}
END_TEST

/* The hand-off back to GL waits for CUDA's work: the stream's work runs
 * only once someone waits for it, so GL reading before the kernel ran
 * shows (the old pixels) every time, not only when the timing is bad. */
START_TEST(handoff_to_gl_waits_for_cuda)
{
	uint8_t want[W * H * 4];
	struct glcuda_image *img;
	struct env e;

	env_setup(&e, _i == 1);
	ck_ok(test_image_new(e.f.dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &img));
	for (uint32_t n = 0; n < 3; n++) {
		gl_draw(&e, glcuda_image_get_gl_texture(img), W, H, 20 + n, 0);
		ck_ok(glcuda_handoff_to_cuda(e.f.dev, &img, 1, e.f.stream));
		ck_assert_int_eq(fake.hold(e.f.stream,
					   FAKE_CUDA_HOLD_UNTIL_SYNC),
				 0);
		fake_env_launch_invert(&e.f, glcuda_image_get_cuda_surface(img),
				       glcuda_image_get_cuda_surface(img), W, H,
				       e.f.stream);
		ck_assert_uint_eq(fake.stream_pending(e.f.stream), 1);
		ck_ok(glcuda_handoff_to_gl(e.f.dev, &img, 1, e.f.stream));
		rgba8_pattern(20 + n, want);
		invert_pixels(want, W * H);
		check_rgba8(
			glcuda_image_get_gl_texture(img), want,
			"image handed back to GL: CUDA's kernel must be done");
		ck_assert_uint_eq(fake.stream_pending(e.f.stream), 0);
	}
	glcuda_image_destroy(img);
	env_teardown(&e);
}
END_TEST

/* The hand-off to CUDA waits for GL's work: a long draw is in flight on
 * GL's threads when glcuda_handoff_to_cuda is called, and the kernel runs
 * as soon as it is launched. Without the wait it would invert what was
 * there before the draw. */
START_TEST(handoff_to_cuda_waits_for_gl)
{
	int spin = gl_spin();
	uint8_t want[W * H * 4];
	struct glcuda_image *img;
	struct env e;

	env_setup(&e, _i == 1);
	ck_ok(test_image_new(e.f.dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &img));
	gl_draw(&e, glcuda_image_get_gl_texture(img), W, H, 30, 0);
	glFinish();
	gl_draw(&e, glcuda_image_get_gl_texture(img), W, H, 31, spin);
	ck_ok(glcuda_handoff_to_cuda(e.f.dev, &img, 1, e.f.stream));
	fake_env_launch_invert(&e.f, glcuda_image_get_cuda_surface(img),
			       glcuda_image_get_cuda_surface(img), W, H,
			       e.f.stream);
	ck_ok(glcuda_handoff_to_gl(e.f.dev, &img, 1, e.f.stream));
	rgba8_pattern(31, want);
	invert_pixels(want, W * H);
	check_rgba8(glcuda_image_get_gl_texture(img), want,
		    "image handed to CUDA during a long draw: CUDA must see "
		    "all of it");
	glcuda_image_destroy(img);
	env_teardown(&e);
}
END_TEST

/* Ring
 * -------------------------------------------------------------------------- */

static struct glcuda_frame *
frame_draw_submit(struct env *e, struct glcuda_ring *ring, int spin)
{
	struct glcuda_frame *f;

	ck_ok(glcuda_ring_acquire(ring, &f));
	gl_draw(e, glcuda_image_get_gl_texture(glcuda_frame_get_input(f)), W, H,
		(uint32_t)glcuda_frame_get_number(f), spin);
	ck_ok(glcuda_frame_submit(f));
	return f;
}

static void
check_frame_output(struct glcuda_frame *f, const char *what)
{
	uint8_t want[W * H * 4];

	rgba8_pattern((uint32_t)glcuda_frame_get_number(f), want);
	invert_pixels(want, W * H);
	check_rgba8(glcuda_frame_get_output_texture(f), want, what);
}

/* Frames drawn by GL, inverted by CUDA into the output (or in place),
 * presented by GL: every pixel of every frame, two frames in flight. */
START_TEST(ring_draw_invert)
{
	struct glcuda_frame *f, *prev = NULL, *got;
	struct glcuda_ring *ring;
	struct env e;

	ring = env_ring(&e, _i / 2 == 1,
			_i % 2 ? GLCUDA_RING_FLAG_IN_PLACE : 0);
	for (int n = 0; n < 12; n++) {
		f = frame_draw_submit(&e, ring, 0);
		frame_invert(&e, f);
		ck_ok(glcuda_frame_complete(f));
		if (prev) {
			ck_ok(glcuda_frame_wait_gl(prev));
			check_frame_output(prev, "ring frame presented");
			ck_ok(glcuda_frame_release(prev));
		}
		prev = f;
	}
	fake.settle();
	ck_ok(glcuda_ring_take_newest(ring, &got));
	ck_assert_ptr_eq(got, prev);
	check_frame_output(got, "ring frame taken");
	ck_ok(glcuda_frame_release(got));
	glcuda_ring_destroy(ring);
	env_teardown(&e);
}
END_TEST

/* Frames in batches, the order that pays the GL <-> CUDA switch once per
 * batch rather than once per frame (doc/performance.md): every frame of
 * the batch drawn before any is submitted, all submitted, a kernel each,
 * all completed, GL waits for all, then reads each. The streams are held
 * until GL's first wait (the fake then runs them all), and the batch's
 * first frame is a long draw: every pixel of every frame must be GL's
 * drawing of that frame, put through CUDA's kernel. */
START_TEST(ring_batches)
{
	int spin = gl_spin();
	struct glcuda_frame *f[3];
	struct glcuda_ring *ring;
	struct env e;

	ring = env_ring(&e, _i == 1, 0);
	for (int b = 0; b < 4; b++) {
		for (int i = 0; i < 3; i++) {
			ck_ok(glcuda_ring_acquire(ring, &f[i]));
			gl_draw(&e,
				glcuda_image_get_gl_texture(
					glcuda_frame_get_input(f[i])),
				W, H, (uint32_t)glcuda_frame_get_number(f[i]),
				i == 0 ? spin : 0);
		}
		for (int i = 0; i < 3; i++)
			ck_ok(glcuda_frame_submit(f[i]));
		for (int i = 0; i < 3; i++) {
			CUstream s = glcuda_frame_get_stream(f[i]);
			ck_assert_int_eq(fake.hold(s,
						   FAKE_CUDA_HOLD_UNTIL_SYNC),
					 0);
			fake_env_launch_invert(
				&e.f, glcuda_frame_get_input_surface(f[i]),
				glcuda_frame_get_output_surface(f[i]), W, H, s);
		}
		for (int i = 0; i < 3; i++)
			ck_ok(glcuda_frame_complete(f[i]));
		for (int i = 0; i < 3; i++)
			ck_ok(glcuda_frame_wait_gl(f[i]));
		for (int i = 0; i < 3; i++) {
			check_frame_output(f[i], "batched ring frame");
			ck_ok(glcuda_frame_release(f[i]));
		}
	}
	glcuda_ring_destroy(ring);
	env_teardown(&e);
}
END_TEST

/* A frame is ready (fd, dispatch, take_newest) only once the work CUDA
 * was given on its stream has run: the frame's stream is held after its
 * kernel was launched, and nothing may say the frame is done until it is
 * released. */
START_TEST(ring_ready_only_after_kernel)
{
	struct glcuda_frame *f, *got;
	struct glcuda_ring *ring;
	unsigned int host0;
	struct env e;

	ring = env_ring(&e, _i == 1, 0);
	for (int n = 0; n < 4; n++) {
		f = frame_draw_submit(&e, ring, 0);
		ck_assert_int_eq(fake.hold(glcuda_frame_get_stream(f),
					   FAKE_CUDA_HOLD),
				 0);
		host0 = fake.host_fns_run();
		frame_invert(&e, f);
		ck_ok(glcuda_frame_complete(f));
		fake.settle();
		ck_assert_msg(fake.host_fns_run() == host0,
			      "frame %d: the frame-done host function ran "
			      "while the frame's kernel was still queued",
			      n);
		ck_assert(!test_fd_readable(glcuda_ring_get_fd(ring), 0));
		ck_assert_int_eq(glcuda_ring_dispatch(ring), 0);
		ck_assert_int_eq(glcuda_ring_take_newest(ring, &got), -EAGAIN);
		ck_assert_uint_gt(fake.stream_pending(
					  glcuda_frame_get_stream(f)),
				  0);

		ck_assert_int_eq(fake.hold(glcuda_frame_get_stream(f),
					   FAKE_CUDA_RUN),
				 0);
		ck_assert_uint_eq(fake.host_fns_run(), host0 + 1);
		ck_assert(test_fd_readable(glcuda_ring_get_fd(ring), 0));
		ck_assert_int_eq(glcuda_ring_dispatch(ring), 1);
		ck_ok(glcuda_ring_take_newest(ring, &got));
		ck_assert_ptr_eq(got, f);
		check_frame_output(f, "ring frame ready");
		ck_ok(glcuda_frame_release(f));
	}
	glcuda_ring_destroy(ring);
	env_teardown(&e);
}
END_TEST

/* GL's wait for a completed frame waits for its CUDA work (cpu mode: on
 * the CPU), ready or not: the stream runs only once someone waits. */
START_TEST(ring_wait_gl_waits_for_cuda)
{
	struct glcuda_frame *f;
	struct glcuda_ring *ring;
	struct env e;

	ring = env_ring(&e, _i == 1, 0);
	for (int n = 0; n < 4; n++) {
		f = frame_draw_submit(&e, ring, 0);
		ck_assert_int_eq(fake.hold(glcuda_frame_get_stream(f),
					   FAKE_CUDA_HOLD_UNTIL_SYNC),
				 0);
		frame_invert(&e, f);
		ck_ok(glcuda_frame_complete(f));
		if (n % 2)
			ck_ok(glcuda_frame_wait_gl(f));
		else
			/* enqueues GL's wait itself */
			ck_ok(glcuda_frame_release(f));
		check_frame_output(f, "ring frame waited for by GL");
		if (n % 2)
			ck_ok(glcuda_frame_release(f));
	}
	glcuda_ring_destroy(ring);
	env_teardown(&e);
}
END_TEST

/* A frame submitted during a long draw: the kernel must see all of it. */
START_TEST(ring_submit_waits_for_gl)
{
	int spin = gl_spin();
	struct glcuda_frame *f;
	struct glcuda_ring *ring;
	struct env e;

	ring = env_ring(&e, _i == 1, GLCUDA_RING_FLAG_IN_PLACE);
	f = frame_draw_submit(&e, ring, spin);
	frame_invert(&e, f);
	ck_ok(glcuda_frame_complete(f));
	ck_ok(glcuda_frame_release(f));
	check_frame_output(f, "ring frame submitted during a long draw");
	glcuda_ring_destroy(ring);
	env_teardown(&e);
}
END_TEST

/* The fake's stream model, which the gpu sync modes rely on ---------------- */

static unsigned int host_order[16], host_calls;
static pthread_t host_thread;

static void CUDA_CB
record_host_fn(void *data)
{
	host_thread = pthread_self();
	host_order[host_calls++ % 16] = (unsigned int)(uintptr_t)data;
}

/* What the ring enqueues per frame in the binary and timeline modes
 * (lib/sync.c; Mesa's GL cannot reach them): the stream waits for GL's
 * signal, runs the kernel, signals GL, records the frame's event and
 * runs the frame-done host function. Nothing of it may run before the
 * signal, and all of it in that order after. */
START_TEST(gpu_mode_stream_order)
{
	bool timeline = _i == 1;
	CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
	CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wait;
	CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS signal;
	CUexternalSemaphore to_cuda, to_gl;
	uint8_t want[W * H * 4];
	struct glcuda_image *img;
	unsigned long long value, waits, signals;
	CUevent done;
	struct env e;

	env_setup(&e, false);
	ck_ok(test_image_new(e.f.dev, W, H, GLCUDA_FORMAT_RGBA8, 0, &img));
	gl_draw(&e, glcuda_image_get_gl_texture(img), W, H, 40, 0);
	glFinish();
	host_calls = 0;
	fake_env_push(&e.f);
	memset(&desc, 0, sizeof(desc));
	desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
	if (timeline)
		desc.type =
			CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
	desc.handle.fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_cu(CU(cuImportExternalSemaphore)(&to_cuda, &desc));
	desc.handle.fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_cu(CU(cuImportExternalSemaphore)(&to_gl, &desc));
	ck_cu(CU(cuEventCreate)(&done, CU_EVENT_DISABLE_TIMING));
	for (unsigned int frame = 1; frame <= 3; frame++) {
		memset(&wait, 0, sizeof(wait));
		memset(&signal, 0, sizeof(signal));
		wait.params.fence.value = frame;
		signal.params.fence.value = frame;
		ck_cu(CU(cuWaitExternalSemaphoresAsync)(&to_cuda, &wait, 1,
							e.f.stream));
		fake_env_pop();
		fake_env_launch_invert(&e.f, glcuda_image_get_cuda_surface(img),
				       glcuda_image_get_cuda_surface(img), W, H,
				       e.f.stream);
		fake_env_push(&e.f);
		ck_cu(CU(cuSignalExternalSemaphoresAsync)(&to_gl, &signal, 1,
							  e.f.stream));
		ck_cu(CU(cuEventRecord)(done, e.f.stream));
		ck_cu(CU(cuLaunchHostFunc)(e.f.stream, record_host_fn,
					   (void *)(uintptr_t)frame));

		/* GL has not signalled: everything waits. */
		ck_assert_int_eq(fake.sem_state(to_gl, &value, NULL, NULL), 0);
		ck_assert_uint_eq(value, frame - 1); /* binary: nobody waited */
		ck_assert_uint_eq(fake.stream_pending(e.f.stream), 5);
		ck_assert_int_eq(CU(cuEventQuery)(done), CUDA_ERROR_NOT_READY);
		ck_assert_uint_eq(host_calls, frame - 1);
		/* A timeline's earlier value does not release it. */
		if (timeline) {
			ck_assert_int_eq(fake.sem_signal(to_cuda, frame - 1),
					 0);
			ck_assert_uint_eq(fake.stream_pending(e.f.stream), 5);
		}
		ck_assert_int_eq(fake.sem_signal(to_cuda, frame), 0);
		ck_cu(CU(cuEventSynchronize)(done));
		fake.settle();
		ck_assert_uint_eq(fake.stream_pending(e.f.stream), 0);
		ck_assert_uint_eq(host_calls, frame);
		ck_assert_uint_eq(host_order[frame - 1], frame);
		ck_assert_int_eq(fake.sem_state(to_gl, &value, &waits,
						&signals),
				 0);
		/* Binary: the signal waits for GL's wait; timeline: the
		 * value. */
		ck_assert_uint_eq(value, frame);
		ck_assert_uint_eq(signals, frame);
		ck_assert_int_eq(fake.sem_state(to_cuda, &value, &waits, NULL),
				 0);
		ck_assert_uint_eq(waits, frame);
		/* binary: consumed */
		ck_assert_uint_eq(value, timeline ? frame : 0);
		fake_env_pop();
		/* The kernel ran between the wait and the signal: inverted
		 * an odd number of times now or not. */
		rgba8_pattern(40, want);
		if (frame % 2)
			invert_pixels(want, W * H);
		check_rgba8(glcuda_image_get_gl_texture(img), want,
			    "kernel after the semaphore wait");
		fake_env_push(&e.f);
	}
	ck_cu(CU(cuEventDestroy)(done));
	ck_cu(CU(cuDestroyExternalSemaphore)(to_cuda));
	ck_cu(CU(cuDestroyExternalSemaphore)(to_gl));
	fake_env_pop();
	glcuda_image_destroy(img);
	env_teardown(&e);
}
END_TEST

/* The legacy NULL stream waits for blocking streams and they for it;
 * non-blocking streams (the ring's) do neither. cuStreamWaitEvent holds
 * a stream until the event's record has run. */
START_TEST(legacy_stream_and_events)
{
	CUstream blocking, other;
	CUevent ev;
	struct env e;

	env_setup(&e, false);
	host_calls = 0;
	fake_env_push(&e.f);
	ck_cu(CU(cuStreamCreate)(&blocking, 0));
	ck_cu(CU(cuStreamCreate)(&other, CU_STREAM_NON_BLOCKING));
	ck_cu(CU(cuEventCreate)(&ev, CU_EVENT_DISABLE_TIMING));
	ck_assert_int_eq(fake.hold(blocking, FAKE_CUDA_HOLD), 0);
	ck_cu(CU(cuLaunchHostFunc)(blocking, record_host_fn, (void *)1));
	ck_cu(CU(cuEventRecord)(ev, blocking));
	ck_cu(CU(cuLaunchHostFunc)(NULL, record_host_fn, (void *)2));
	ck_cu(CU(cuLaunchHostFunc)(e.f.stream, record_host_fn, (void *)3));
	ck_cu(CU(cuStreamWaitEvent)(other, ev, 0));
	ck_cu(CU(cuLaunchHostFunc)(other, record_host_fn, (void *)4));
	fake.settle();
	/* Only the non-blocking stream without a wait has run. */
	ck_assert_uint_eq(host_calls, 1);
	ck_assert_uint_eq(host_order[0], 3);
	/* On the driver's thread, as the real driver runs them. */
	ck_assert(!pthread_equal(host_thread, pthread_self()));
	ck_assert_int_eq(CU(cuStreamQuery)(other), CUDA_ERROR_NOT_READY);
	/* Held: a synchronisation cannot finish, and says so at once. */
	ck_assert_int_eq(CU(cuStreamSynchronize)(blocking),
			 CUDA_ERROR_NOT_READY);
	ck_assert_int_eq(fake.hold(blocking, FAKE_CUDA_RUN), 0);
	ck_cu(CU(cuCtxSynchronize)());
	ck_assert_uint_eq(host_calls, 4);
	ck_assert_uint_eq(host_order[1], 1);
	/* The NULL stream's and the waiting stream's, in either order. */
	ck_assert(host_order[2] + host_order[3] == 6 && host_order[2] != 3);
	ck_cu(CU(cuEventDestroy)(ev));
	ck_cu(CU(cuStreamDestroy)(blocking));
	ck_cu(CU(cuStreamDestroy)(other));
	fake_env_pop();
	env_teardown(&e);
}
END_TEST

int
main(int argc, char **argv)
{
	const char *lsan = getenv("LSAN_OPTIONS");
	const struct test_case cases[] = {
		TEST_TCASE("fake-cuda", 120),
		TEST_LOOP(every_format_both_ways, 2),
		TEST_LOOP(image_draw_invert, 2),
		TEST_LOOP(handoff_to_gl_waits_for_cuda, 2),
		TEST_LOOP(handoff_to_cuda_waits_for_gl, 2),
		TEST_LOOP(ring_draw_invert, 4),
		TEST_LOOP(ring_batches, 2),
		TEST_LOOP(ring_ready_only_after_kernel, 2),
		TEST_LOOP(ring_wait_gl_waits_for_cuda, 2),
		TEST_LOOP(ring_submit_waits_for_gl, 2),
		TEST_LOOP(gpu_mode_stream_order, 2),
		TEST_ONCE(legacy_stream_and_events),
	};

	/* In the sanitizer build (LSAN_OPTIONS set), LeakSanitizer's scan of
	 * every thread's TLS at the exit of each forked case crashed in this
	 * program's GLES cases ("Tracer caught signal 11", then
	 * "LeakSanitizer has encountered a fatal error"), every run, on
	 * Debian 12's GCC 12 runtime. The program runs again with the scan
	 * off: glcuda keeps no heap pointer in thread-local storage (its
	 * thread's last error is an array), and without the scan only the
	 * dynamic loader's own lists show, suppressed in tests/lsan.supp. */
	if (lsan && !strstr(lsan, "use_tls=0")) {
		size_t size = strlen(lsan) + sizeof(":use_tls=0");
		char *opts = malloc(size);

		if (opts) {
			snprintf(opts, size, "%s:use_tls=0", lsan);
			setenv("LSAN_OPTIONS", opts, 1);
			execv("/proc/self/exe", argv);
			free(opts); /* exec failed: run with the scan */
		}
	}
	(void)argc;

	fake_cuda_test_setup();
	return test_run_cases("pixels-cpu", cases);
}
