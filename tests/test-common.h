/*
 * Helpers shared by the Check suites.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TEST_COMMON_H
#define GLCUDA_TEST_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <check.h>

#include "device.h"
/* The suites call CUDA as the other programs do, through the programs'
 * table (CU), built like the library with glcuda's own declarations of
 * the driver API (and so for the suites: tests/local.mk). */
#ifndef GLCUDA_TOOLS_OWN_CUDA_DECLS
#define GLCUDA_TOOLS_OWN_CUDA_DECLS 1
#endif
#include "../common/cuda-table.h"

/* A call that must return 0, naming glcuda's error and message if not;
 * one that must return err; a CUDA call that must succeed. */
#define ck_ok(call)                                         \
	do {                                                \
		int r_ = (call);                            \
		ck_assert_msg(r_ == 0, "%s: %s: %s", #call, \
			      glcuda_error_get_name(r_),    \
			      glcuda_get_last_error());     \
	} while (0)
#define ck_err(call, err)                                                     \
	do {                                                                  \
		int r_ = (call);                                              \
		ck_assert_msg(r_ == (err), "%s: %s, expected %s (%s)", #call, \
			      glcuda_error_get_name(r_),                      \
			      glcuda_error_get_name(err),                     \
			      glcuda_get_last_error());                       \
	} while (0)
#define ck_cu(call)                                                         \
	do {                                                                \
		CUresult r_ = (call);                                       \
		ck_assert_msg(r_ == CUDA_SUCCESS, "%s: CUresult %d", #call, \
			      (int)r_);                                     \
	} while (0)

/* Open file descriptors of this process (entries of /proc/self/fd, less
 * the one that reads them). */
int test_count_fds(void);

/* Whether fd is readable within timeout_ms (0: now). */
bool test_fd_readable(int fd, int timeout_ms);

/* A ring of slots w x h RGBA8 frames on dev (flags and stream: the
 * description's); the test fails if glcuda_ring_new() does. */
struct glcuda_ring *test_make_ring(struct glcuda_device *dev, uint32_t w,
				   uint32_t h, uint32_t slots, uint32_t flags,
				   void *stream);

/* GL object names alive in the current context among 1..limit. */
struct gl_names {
	int textures, memory_objects, semaphores, framebuffers, queries;
};
void test_count_gl_names(struct gl_names *out, unsigned int limit);
void ck_assert_gl_names_eq(const struct gl_names *a, const struct gl_names *b);

/* A headless context (GL core or GLES), current. Exits 77 with a line if
 * no EGL display works at all. */
struct glcuda_headless *test_headless(bool gles);

/* true if libcuda.so.1 can be loaded (checked without initialising CUDA
 * in this process: in a forked child). */
bool test_have_cuda(void);

/* Make a deterministic pattern of w*h pixels of fmt, valid values for the
 * format (no NaNs), different for each seed. */
void test_fill_pattern(const struct format_info *fmt, uint32_t w, uint32_t h,
		       uint32_t seed, void *out);

/* Upload a tightly packed pattern into a texture (glTexSubImage2D) and read
 * a texture back exactly (desktop GL: glGetTextureImage; GLES: glReadPixels
 * through a framebuffer). Bindings and pixel-store state restored. Return
 * false when GL cannot do it for this format (GL error). */
/* A compiled shader of `type`: GLSL 3.30 core, or 3.00 es with high
 * precision (gles), then `body`; fails the test with the log if it does not
 * compile. */
GLuint test_shader(GLenum type, bool gles, const char *body);

bool test_gl_upload(GLuint tex, const struct format_info *fmt, uint32_t w,
		    uint32_t h, const void *data);
bool test_gl_readback(GLuint tex, const struct format_info *fmt, uint32_t w,
		      uint32_t h, void *out);

/* First differing pixel of two images, or -1. */
long test_first_mismatch(const void *a, const void *b,
			 const struct format_info *fmt, uint32_t w, uint32_t h);

/* The ring suites' frame content: GL clears frame n's input to
 * (n & 255, (n >> 8) & 255, 0x5a, 0xff), so a stale or skipped frame shows.
 * test_render_frame restores the framebuffer binding. */
void test_frame_color(uint64_t n, uint8_t rgba[4]);
void test_render_frame(struct glcuda_frame *f, uint32_t w, uint32_t h);

/* Monotonic clock in seconds (for printed measurements, never asserted). */
double test_now(void);

/* In main(), before running suites: run probe in a child process (so that
 * the parent never initialises EGL or CUDA before Check forks). The probe
 * returns 0 where the suite can run; otherwise it prints one line saying
 * what is missing and returns 77 (skip) or anything else (fail), and the
 * program exits 77 or 99. */
void test_require(int (*probe)(void));

/* test_require() of an EGL display and a GL context. */
void test_require_egl(void);

/* One row of a suite's table of cases: a test and the values of _i it runs
 * with (start to end - 1), or, with TEST_TCASE, the start of a Check test
 * case of its own name and timeout in seconds (0: Check's default). A NULL
 * test is a case this build or machine does not run. */
struct test_case {
	const TTest *test;
	int start, end;
	const char *tcase;
	int timeout_s;
};
#define TEST_TCASE(name, timeout_s) { NULL, 0, 0, (name), (timeout_s) }
#define TEST_ONCE(test) { (test), 0, 1, NULL, 0 }
#define TEST_LOOP(test, loops) { (test), 0, (loops), NULL, 0 }
#define TEST_RANGE(test, start, end) { (test), (start), (end), NULL, 0 }

/* The suite of the table's cases (its first row a TEST_TCASE). */
Suite *test_suite(const char *name, const struct test_case *cases, size_t n);

/* Run a suite (fork mode unless CK_FORK says otherwise); returns the exit
 * status for main. */
int test_run_suite(Suite *s);

/* Run the suite of a table of cases: main's return. */
#define test_run_cases(name, cases) \
	test_run_suite(test_suite((name), (cases), ARRAY_LENGTH(cases)))

/* glcuda_image_new() with the description's members as arguments. */
static inline int
test_image_new(struct glcuda_device *dev, uint32_t width, uint32_t height,
	       enum glcuda_format format, uint32_t flags,
	       struct glcuda_image **out)
{
	struct glcuda_image_desc desc;

	glcuda_image_desc_init(&desc);
	desc.width = width;
	desc.height = height;
	desc.format = format;
	desc.flags = flags;
	return glcuda_image_new(dev, &desc, out);
}

#endif
