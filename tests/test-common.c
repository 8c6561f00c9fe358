/*
 * Helpers shared by the Check suites.
 * SPDX-License-Identifier: MIT
 */
#include "test-common.h"

#include <dirent.h>
#include <errno.h>
#include <dlfcn.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Whether an fd's file is one that another thread of the process opens
 * for a moment, whatever glcuda does:
 * - Mesa's shader cache, which llvmpipe and lavapipe write from a thread
 *   of their own (a distcheck run failed with one fd fewer at the end
 *   than at the start);
 * - /sys/devices/system/cpu/, which every thread Mesa starts when a
 *   context or device is made reads as it starts (glibc's CPU count): on
 *   a loaded machine the threads start late, and a count taken while one
 *   or two of them held the file open was that much higher than the next
 *   (test-ring-cpu: "test_count_fds() == 6, fds == 7"; under strace, with
 *   two threads, "== 6, fds == 8").
 * glcuda never opens a file there; its fds (Vulkan's exports, eventfds,
 * sync files) are counted. */
static bool
fd_is_other_threads(const char *target)
{
	return strstr(target, "mesa_shader_cache") ||
	       !strncmp(target, "/sys/devices/system/cpu/",
			strlen("/sys/devices/system/cpu/"));
}

/* The process's open fds, less those of fd_is_other_threads() and those
 * closed while the directory was read (readlinkat then fails: ENOENT). */
int
test_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		char target[4096];
		ssize_t len;

		if (e->d_name[0] == '.')
			continue;
		len = readlinkat(dirfd(d), e->d_name, target,
				 sizeof(target) - 1);
		if (len < 0 && errno == ENOENT)
			continue;
		if (len > 0) {
			target[len] = '\0';
			if (fd_is_other_threads(target))
				continue;
		}
		n++;
	}
	closedir(d);
	return n - 1; /* the directory stream itself */
}

bool
test_fd_readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

struct glcuda_ring *
test_make_ring(struct glcuda_device *dev, uint32_t w, uint32_t h,
	       uint32_t slots, uint32_t flags, void *stream)
{
	struct glcuda_ring_desc desc = {
		.size = sizeof(desc),
		.width = w,
		.height = h,
		.slots = slots,
		.input_format = GLCUDA_FORMAT_RGBA8,
		.flags = flags,
		.cuda_stream = stream,
	};
	struct glcuda_ring *ring = NULL;

	ck_ok(glcuda_ring_new(dev, &desc, &ring));
	return ring;
}

void
test_count_gl_names(struct gl_names *out, unsigned int limit)
{
	memset(out, 0, sizeof(*out));
	for (GLuint i = 1; i <= limit; i++) {
		out->textures += glIsTexture(i) ? 1 : 0;
		out->framebuffers += glIsFramebuffer(i) ? 1 : 0;
		out->queries += glIsQuery(i) ? 1 : 0;
		if (epoxy_has_gl_extension("GL_EXT_memory_object"))
			out->memory_objects += glIsMemoryObjectEXT(i) ? 1 : 0;
		if (epoxy_has_gl_extension("GL_EXT_semaphore"))
			out->semaphores += glIsSemaphoreEXT(i) ? 1 : 0;
	}
}

void
ck_assert_gl_names_eq(const struct gl_names *a, const struct gl_names *b)
{
	ck_assert_int_eq(a->textures, b->textures);
	ck_assert_int_eq(a->memory_objects, b->memory_objects);
	ck_assert_int_eq(a->semaphores, b->semaphores);
	ck_assert_int_eq(a->framebuffers, b->framebuffers);
	ck_assert_int_eq(a->queries, b->queries);
}

struct glcuda_headless *
test_headless(bool gles)
{
	struct glcuda_headless *hl = NULL;
	int ret = glcuda_headless_new(-1, gles ? GLCUDA_HEADLESS_FLAG_GLES : 0,
				      &hl);

	if (ret < 0) {
		printf("SKIP: no EGL display/context: %s: %s\n",
		       glcuda_error_get_name(ret), glcuda_get_last_error());
		exit(77);
	}
	return hl;
}

bool
test_have_cuda(void)
{
	/* dlopen only; cuInit would make CUDA unusable in forked tests. */
	void *h = dlopen(getenv("GLCUDA_LIBCUDA") ? getenv("GLCUDA_LIBCUDA")
						  : "libcuda.so.1",
			 RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return false;
	dlclose(h);
	return true;
}

static uint16_t
half_from_small(unsigned int v)
{
	/* v in 0..2047 exactly representable: build the half by hand. */
	if (v == 0)
		return 0;
	int e = 31 - __builtin_clz(v);
	unsigned int mant = (v << (10 - e)) & 0x3ff;
	return (uint16_t)(((e + 15) << 10) | mant);
}

void
test_fill_pattern(const struct format_info *fmt, uint32_t w, uint32_t h,
		  uint32_t seed, void *out)
{
	uint8_t *p = out;

	for (uint32_t y = 0; y < h; y++) {
		for (uint32_t x = 0; x < w; x++) {
			/* Different per channel, position and seed, so a
			 * swapped channel, a transposed or tiled layout, or a
			 * stale frame shows. */
			uint32_t base = x * 7u + y * 131u + seed * 977u;
			size_t o = ((size_t)y * w + x) * fmt->bytes_per_pixel;
			switch (fmt->format) {
			case GLCUDA_FORMAT_RGBA8:
			case GLCUDA_FORMAT_SRGB8_A8:
			case GLCUDA_FORMAT_R8:
			case GLCUDA_FORMAT_RG8:
				for (unsigned int c = 0; c < fmt->cu_channels;
				     c++)
					p[o + c] = (uint8_t)(base + c * 61u);
				break;
			case GLCUDA_FORMAT_R16:
			case GLCUDA_FORMAT_RG16:
				for (unsigned int c = 0; c < fmt->cu_channels;
				     c++) {
					uint16_t v = (uint16_t)(base * 257u +
								c * 4099u);
					memcpy(p + o + 2 * c, &v, 2);
				}
				break;
			case GLCUDA_FORMAT_RGB10_A2: {
				uint32_t r = base & 1023,
					 g = (base + 341) & 1023,
					 b = (base + 682) & 1023,
					 a = (base >> 3) & 3;
				uint32_t v = r | g << 10 | b << 20 | a << 30;
				memcpy(p + o, &v, 4);
				break;
			}
			case GLCUDA_FORMAT_RGBA16F:
				for (unsigned int c = 0; c < 4; c++) {
					uint16_t v = half_from_small(
						(base + c * 61u) & 2047);
					memcpy(p + o + 2 * c, &v, 2);
				}
				break;
			case GLCUDA_FORMAT_RGBA32F:
			case GLCUDA_FORMAT_R32F:
				for (unsigned int c = 0; c < fmt->cu_channels;
				     c++) {
					float v = (float)((base + c * 61u) &
							  0xffff) /
						  64.0f;
					memcpy(p + o + 4 * c, &v, 4);
				}
				break;
			case GLCUDA_FORMAT_DEPTH32F: {
				/* Depth stays in 0..1, exact in a float. */
				float v = (float)(base & 0xffff) / 65536.0f;
				memcpy(p + o, &v, 4);
				break;
			}
			default:
				ck_abort_msg("no pattern for %s", fmt->name);
			}
		}
	}
}

bool
test_gl_upload(GLuint tex, const struct format_info *fmt, uint32_t w,
	       uint32_t h, const void *data)
{
	struct gl_saved_state saved;
	GLenum err;

	gl_take_error();
	gl_save_state(&saved);
	glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
	glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
	glBindTexture(GL_TEXTURE_2D, tex);
	glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)w, (GLsizei)h,
			fmt->gl_format, fmt->gl_type, data);
	gl_restore_state(&saved);
	err = gl_take_error();
	if (err != GL_NO_ERROR)
		fprintf(stderr, "glTexSubImage2D(%s): %s\n", fmt->name,
			gl_error_name(err));
	return err == GL_NO_ERROR;
}

bool
test_gl_readback(GLuint tex, const struct format_info *fmt, uint32_t w,
		 uint32_t h, void *out)
{
	struct gl_saved_state saved;
	GLenum err;

	gl_take_error();
	gl_save_state(&saved);
	glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
	glPixelStorei(GL_PACK_ALIGNMENT, 1);
	glPixelStorei(GL_PACK_ROW_LENGTH, 0);
	{
		/* Through a framebuffer, as GL samples it. glGetTextureImage is
		 * not used: NVIDIA's GL answers it from its own copy of the
		 * last glTexSubImage2D upload and misses what CUDA wrote into
		 * the shared memory since (seen with driver 580), while
		 * glReadPixels and sampling read the memory. */
		GLuint fbo;
		glGenFramebuffers(1, &fbo);
		glBindFramebuffer(GL_FRAMEBUFFER, fbo);
		glFramebufferTexture2D(GL_FRAMEBUFFER,
				       fmt->is_depth ? GL_DEPTH_ATTACHMENT
						     : GL_COLOR_ATTACHMENT0,
				       GL_TEXTURE_2D, tex, 0);
		glReadPixels(0, 0, (GLsizei)w, (GLsizei)h, fmt->gl_format,
			     fmt->gl_type, out);
		glDeleteFramebuffers(1, &fbo);
	}
	gl_restore_state(&saved);
	err = gl_take_error();
	if (err != GL_NO_ERROR)
		fprintf(stderr, "readback(%s): %s\n", fmt->name,
			gl_error_name(err));
	return err == GL_NO_ERROR;
}

long
test_first_mismatch(const void *a, const void *b, const struct format_info *fmt,
		    uint32_t w, uint32_t h)
{
	size_t bpp = fmt->bytes_per_pixel;
	for (size_t i = 0; i < (size_t)w * h; i++)
		if (memcmp((const uint8_t *)a + i * bpp,
			   (const uint8_t *)b + i * bpp, bpp))
			return (long)i;
	return -1;
}

void
test_require(int (*probe)(void))
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		int ret = probe();

		fflush(stdout);
		_exit(ret);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		exit(99);
	if (WEXITSTATUS(status) != 0)
		exit(WEXITSTATUS(status) == 77 ? 77 : 99);
}

static int
probe_egl(void)
{
	struct glcuda_headless *hl = NULL;
	int ret = glcuda_headless_new(-1, 0, &hl);

	if (ret < 0) {
		printf("SKIP: no EGL display or GL context: %s: %s\n",
		       glcuda_error_get_name(ret), glcuda_get_last_error());
		return 77;
	}
	glcuda_headless_destroy(hl);
	return 0;
}

void
test_require_egl(void)
{
	test_require(probe_egl);
}

Suite *
test_suite(const char *name, const struct test_case *cases, size_t n)
{
	Suite *s = suite_create(name);
	TCase *tc = NULL;

	for (size_t i = 0; i < n; i++) {
		if (cases[i].tcase) {
			tc = tcase_create(cases[i].tcase);
			if (cases[i].timeout_s)
				tcase_set_timeout(tc, cases[i].timeout_s);
			suite_add_tcase(s, tc);
		} else if (!tc) {
			fprintf(stderr,
				"FAIL: suite %s: case %zu comes before any "
				"TEST_TCASE: start the table with one\n",
				name, i);
			exit(99);
		} else if (cases[i].test) {
			tcase_add_loop_test(tc, cases[i].test, cases[i].start,
					    cases[i].end);
		}
	}
	return s;
}

int
test_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

void
test_frame_color(uint64_t n, uint8_t rgba[4])
{
	rgba[0] = (uint8_t)(n & 255);
	rgba[1] = (uint8_t)((n >> 8) & 255);
	rgba[2] = 0x5a;
	rgba[3] = 0xff;
}

void
test_render_frame(struct glcuda_frame *f, uint32_t w, uint32_t h)
{
	uint8_t c[4];
	GLint prev;

	test_frame_color(glcuda_frame_get_number(f), c);
	glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &prev);
	glBindFramebuffer(GL_FRAMEBUFFER, glcuda_frame_get_input_fbo(f));
	glViewport(0, 0, (GLsizei)w, (GLsizei)h);
	glClearColor(c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f,
		     c[3] / 255.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)prev);
}

double
test_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

GLuint
test_shader(GLenum type, bool gles, const char *body)
{
	const char *src[2] = { gles ? "#version 300 es\n"
				      "precision highp float;\n"
				      "precision highp int;\n"
				    : "#version 330 core\n",
			       body };
	GLuint s = glCreateShader(type);
	GLint ok = 0;
	char log[1024] = "";

	glShaderSource(s, 2, src, NULL);
	glCompileShader(s);
	glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
	glGetShaderInfoLog(s, sizeof(log), NULL, log);
	ck_assert_msg(ok, "shader: %s", log);
	return s;
}
