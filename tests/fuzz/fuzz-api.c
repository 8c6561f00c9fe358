/*
 * API fuzzing: the input bytes are a program of public glcuda calls with
 * their arguments — devices (the public constructor, and GL+Vulkan devices
 * without CUDA so that images are really made where no CUDA driver is),
 * images of random sizes, formats and flags, hand-offs of random image
 * subsets, rings from random descriptions, frame calls in any order, NULLs,
 * calls without the context current, wrapping textures and EGLImages (good
 * and bad names, targets, flags), and the error and format getters on
 * random values. Every misuse must return an error (the checks below abort
 * when one does not, which the fuzzer reports as a crash); the sanitizers
 * catch the rest. Everything an input made is destroyed before the next one.
 *
 * Built as a libFuzzer target (tests/fuzz/fuzz-api, --enable-fuzzing) and,
 * with tests/fuzz/replay.c, as a plain program that replays the corpus.
 * SPDX-License-Identifier: MIT
 */
#include "fuzz-api.h"

#include "device.h"
#include <glcuda/glcuda-cuda.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 2
#define MAX_IMAGES 8
#define MAX_RINGS 2
#define MAX_FRAMES 4
#define MAX_OPS 64

/* The process's one GL context, made once: EGL displays are per-process
 * singletons, and creating one per input would measure EGL, not glcuda. */
static struct glcuda_headless *headless;
/* Whether libcuda.so.1 can be loaded: without it the public constructor
 * must fail with GLCUDA_ERROR_NO_CUDA_DRIVER. */
static bool have_libcuda;

struct fuzz_api_reached fuzz_api_reached;

/* The fake CUDA driver's path, when it is the one loaded, and its control
 * that lets its GPU thread finish what it can. */
static const char *fake_cuda_lib;
static void (*fake_cuda_settle)(void);

struct pool {
	struct glcuda_device *devices[MAX_DEVICES];
	struct glcuda_image *images[MAX_IMAGES];
	struct glcuda_ring *rings[MAX_RINGS];
	struct glcuda_device *ring_device[MAX_RINGS];
	struct glcuda_frame *frames[MAX_FRAMES];
	int frame_ring[MAX_FRAMES];
};

/* Reads the input; past its end every read is 0. */
struct input {
	const uint8_t *data;
	size_t size, pos;
};

static uint8_t
take8(struct input *in)
{
	return in->pos < in->size ? in->data[in->pos++] : 0;
}

static uint32_t
take32(struct input *in)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v = v << 8 | take8(in);
	return v;
}

#define expect(cond, ...)                                                   \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr,                                     \
				"fuzz-api: %s:%d: expected %s: ", __FILE__, \
				__LINE__, #cond);                           \
			fprintf(stderr, __VA_ARGS__);                       \
			fprintf(stderr, " (last error: %s)\n",              \
				glcuda_get_last_error());                   \
			abort();                                            \
		}                                                           \
	} while (0)

/* A failed call returned a negative code, left a message, and has a name
 * and a description. */
static void
expect_failure(int ret, const char *call)
{
	expect(ret < 0, "%s returned %d, not an error", call, ret);
	expect(glcuda_get_last_error()[0] != '\0',
	       "%s failed without a message", call);
	expect(glcuda_error_get_name(ret) != NULL &&
		       glcuda_strerror(ret) != NULL,
	       "%s: error %d has no name", call, ret);
}

static void
quiet_log(enum glcuda_log_priority priority, void *user_data,
	  const char *format, va_list args)
{
	/* The failures are the point: keep the fuzzer's output readable. A
	 * vsnprintf still runs so that the sanitizers see the formatting. */
	char buf[256];
	vsnprintf(buf, sizeof(buf), format, args);
}

static void
make_current(void)
{
	if (glcuda_headless_make_current(headless) < 0) {
		fprintf(stderr,
			"fuzz-api: cannot make the context current: %s\n",
			glcuda_get_last_error());
		abort();
	}
}

/* Sizes: mostly small, plus the edges (0, the device's largest + 1, huge).
 * Valid sizes stay small so that lavapipe allocates little per image. */
static uint32_t
take_size(struct input *in, const struct glcuda_device *dev)
{
	uint8_t b = take8(in);
	uint32_t max = dev ? glcuda_device_get_caps(dev)->max_image_size
			   : 16384;

	switch (b % 8) {
	case 0: return 0;
	case 1: return UINT32_MAX;
	case 2: return max + 1;
	case 3: return 1u << (16 + b % 16);
	default: return 1 + b % 128;
	}
}

static int
take_format(struct input *in)
{
	uint8_t b = take8(in);
	if (b < 0xf0)
		/* INVALID, the formats, one past */
		return b % (GLCUDA_FORMAT_COUNT + 1);
	return (int)take32(in);
}

static uint32_t
take_flags(struct input *in)
{
	uint8_t b = take8(in);
	if (b < 0xc0)
		return b & 3; /* the public flags */
	return take32(in);
}

static bool
format_valid(int f)
{
	return f > GLCUDA_FORMAT_INVALID && f < GLCUDA_FORMAT_COUNT;
}

static struct glcuda_device *
pick_device(struct input *in, struct pool *p)
{
	uint8_t b = take8(in);
	if (b % 8 == 7)
		return NULL;
	return p->devices[b % MAX_DEVICES];
}

static int
slot_of(struct input *in, unsigned int n)
{
	return take8(in) % n;
}

static void
destroy_images_of(struct pool *p, const struct glcuda_device *dev)
{
	for (int i = 0; i < MAX_IMAGES; i++) {
		if (p->images[i] &&
		    glcuda_image_get_device(p->images[i]) == dev) {
			glcuda_image_destroy(p->images[i]);
			p->images[i] = NULL;
		}
	}
}

static void
destroy_ring(struct pool *p, int r)
{
	/* The ring's frames go with it (in flight or not). */
	for (int f = 0; f < MAX_FRAMES; f++)
		if (p->frames[f] && p->frame_ring[f] == r)
			p->frames[f] = NULL;
	glcuda_ring_destroy(p->rings[r]);
	p->rings[r] = NULL;
	p->ring_device[r] = NULL;
}

static void
destroy_device(struct pool *p, int d)
{
	struct glcuda_device *dev = p->devices[d];

	if (!dev)
		return;
	for (int r = 0; r < MAX_RINGS; r++)
		if (p->rings[r] && p->ring_device[r] == dev)
			destroy_ring(p, r);
	destroy_images_of(p, dev);
	glcuda_device_destroy(dev);
	p->devices[d] = NULL;
}

static void
op_device_new(struct input *in, struct pool *p, bool public_call)
{
	struct glcuda_device_options opts = { .size = sizeof(opts) };
	/* sentinel */
	struct glcuda_device *dev = (struct glcuda_device *)&opts;
	struct glcuda_device *const sentinel = dev;
	EGLDisplay display = glcuda_headless_get_display(headless);
	EGLContext context = glcuda_headless_get_context(headless);
	uint8_t how = take8(in);
	int slot = slot_of(in, MAX_DEVICES);
	bool bad_args = false, bad_mode;
	int ret;

	opts.log_func = quiet_log;
	/* 4: not a mode */
	opts.sync_mode = (enum glcuda_sync_mode)(take8(in) % 5);
	/* Unknown device flags are ignored (they are feature bits); the
	 * validation layer's bit stays off, it only slows the run down. */
	opts.flags = take8(in) & 0x80 ? take32(in) & ~1u : 0;
	bad_mode = opts.sync_mode > GLCUDA_SYNC_CPU;
	if (how & 1) {
		display = EGL_NO_DISPLAY;
		bad_args = true;
	}
	if (how & 2) {
		context = EGL_NO_CONTEXT;
		bad_args = true;
	}
	if (p->devices[slot])
		destroy_device(p, slot);

	if (public_call)
		ret = glcuda_device_new(display, context,
					(how & 4) ? NULL : &opts,
					(how & 8) ? NULL : &dev);
	else
		ret = device_new_internal(display, context,
					  (how & 4) ? NULL : &opts, false,
					  (how & 8) ? NULL : &dev);
	if (how & 4)
		bad_mode = false;
	if ((how & 8) || bad_args) {
		expect_failure(ret, "glcuda_device_new(NULL argument)");
		expect(ret == -EINVAL, "NULL argument: %s",
		       glcuda_error_get_name(ret));
	} else if (bad_mode) {
		expect_failure(ret, "glcuda_device_new(bad sync mode)");
	} else if (public_call && !have_libcuda) {
		expect(ret == GLCUDA_ERROR_NO_CUDA_DRIVER,
		       "glcuda_device_new without libcuda.so.1: %s",
		       glcuda_error_get_name(ret));
	}
	if (ret < 0) {
		expect_failure(ret, "glcuda_device_new");
		expect(dev == sentinel,
		       "glcuda_device_new wrote *out on failure");
		return;
	}
	expect(dev != sentinel && dev != NULL,
	       "glcuda_device_new succeeded without a device");
	expect(glcuda_device_get_caps(dev) != NULL, "no caps");
	if (glcuda_device_get_caps(dev)->cuda_device_name[0])
		fuzz_api_reached.cuda_devices++;
	p->devices[slot] = dev;
}

static void
op_image_new(struct input *in, struct pool *p)
{
	struct glcuda_device *dev = pick_device(in, p);
	uint32_t w = take_size(in, dev), h = take_size(in, dev);
	int format = take_format(in);
	uint32_t flags = take_flags(in);
	uint8_t how = take8(in);
	int slot = slot_of(in, MAX_IMAGES);
	struct glcuda_image *img = (struct glcuda_image *)&how;
	struct glcuda_image *const sentinel = img;
	struct glcuda_image_desc desc;
	uint32_t max;
	bool invalid;
	int ret;

	glcuda_image_desc_init(&desc);
	desc.width = w;
	desc.height = h;
	desc.format = (enum glcuda_format)format;
	desc.flags = flags;
	ret = glcuda_image_new(dev, &desc, (how & 1) ? NULL : &img);
	if (!dev || (how & 1)) {
		expect(ret == -EINVAL, "glcuda_image_new(NULL): %s",
		       glcuda_error_get_name(ret));
		expect_failure(ret, "glcuda_image_new");
		return;
	}
	max = glcuda_device_get_caps(dev)->max_image_size;
	invalid = w == 0 || h == 0 || w > max || h > max ||
		  !format_valid(format) ||
		  (flags & ~(uint32_t)(GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE |
				       GLCUDA_IMAGE_FLAG_CUDA_LINEAR_FILTER));
	if (invalid) {
		expect(ret == -EINVAL,
		       "glcuda_image_new(%ux%u, format %d, flags 0x%x): %s", w,
		       h, format, flags, glcuda_error_get_name(ret));
	}
	if (ret < 0) {
		expect_failure(ret, "glcuda_image_new");
		expect(img == sentinel,
		       "glcuda_image_new wrote *out on failure");
		return;
	}
	expect(glcuda_image_get_width(img) == w &&
		       glcuda_image_get_height(img) == h &&
		       (int)glcuda_image_get_format(img) == format &&
		       glcuda_image_get_device(img) == dev &&
		       glcuda_image_get_gl_texture(img) != 0,
	       "the image does not say what was asked for");
	if (p->images[slot])
		glcuda_image_destroy(p->images[slot]);
	p->images[slot] = img;
}

/* Wrapping: textures of the pool's images, names that are not textures,
 * wrong targets, unknown flags, EGL_NO_IMAGE and EGLImages of the pool's
 * textures. A device without CUDA must refuse every one; a wrapped image
 * is destroyed at once (before its EGLImage). */
static void
op_wrap(struct input *in, struct pool *p)
{
	static const unsigned int targets[] = { GL_TEXTURE_2D,
						GL_TEXTURE_RECTANGLE,
						GL_TEXTURE_3D, 0 };
	struct glcuda_device *dev = pick_device(in, p);
	uint8_t how = take8(in);
	struct glcuda_image *src = p->images[take8(in) % MAX_IMAGES];
	unsigned int tex = (how & 2) ? take8(in)
				     : glcuda_image_get_gl_texture(src);
	unsigned int target = targets[(how >> 2) % 4];
	uint32_t flags = (how & 16) ? take32(in) : 0;
	struct glcuda_image *img = NULL;
	EGLImage eimg = EGL_NO_IMAGE;
	const char *what;
	int ret;

	if (how & 1) {
		what = "glcuda_image_wrap_egl_image";
		if (tex && (how & 32))
			eimg = eglCreateImage(glcuda_headless_get_display(
						      headless),
					      glcuda_headless_get_context(
						      headless),
					      EGL_GL_TEXTURE_2D,
					      (EGLClientBuffer)(uintptr_t)tex,
					      NULL);
		ret = glcuda_image_wrap_egl_image(dev, eimg, flags,
						  (how & 64) ? NULL : &img);
	} else {
		what = "glcuda_image_wrap_gl_texture";
		ret = glcuda_image_wrap_gl_texture(dev, tex, target, flags,
						   (how & 64) ? NULL : &img);
	}
	if (!dev || (how & 64))
		expect(ret == -EINVAL, "%s(NULL): %s", what,
		       glcuda_error_get_name(ret));
	if (ret < 0) {
		expect_failure(ret, what);
		expect(img == NULL, "%s wrote *out on failure", what);
	} else {
		expect(img != NULL && glcuda_image_get_device(img) == dev,
		       "%s: no image", what);
		expect(glcuda_device_get_cuda_context(dev) != NULL,
		       "%s succeeded without CUDA", what);
		glcuda_image_destroy(img);
	}
	if (eimg != EGL_NO_IMAGE)
		eglDestroyImage(glcuda_headless_get_display(headless), eimg);
}

static void
op_handoff(struct input *in, struct pool *p, bool to_cuda)
{
	struct glcuda_device *dev = pick_device(in, p);
	struct glcuda_image *list[MAX_IMAGES + 2] = { 0 };
	unsigned int n = take8(in) % (MAX_IMAGES + 3);
	unsigned int count = n;
	uint8_t how = take8(in);
	int ret;

	for (unsigned int i = 0; i < n; i++) {
		uint8_t b = take8(in);
		list[i] = b % 5 == 4 ? NULL : p->images[b % MAX_IMAGES];
	}
	if (how & 1)
		/* a count beyond the array: only with a NULL array */
		count = how >> 1;
	if (to_cuda)
		ret = glcuda_handoff_to_cuda(dev, (how & 1) ? NULL : list,
					     (how & 1) ? count : n, NULL);
	else
		ret = glcuda_handoff_to_gl(dev, (how & 1) ? NULL : list,
					   (how & 1) ? count : n, NULL);
	if (!dev || (how & 1) || n == 0) {
		expect(ret == -EINVAL, "hand-off with NULL/0: %s",
		       glcuda_error_get_name(ret));
	}
	for (unsigned int i = 0; i < n && !(how & 1); i++) {
		if (!list[i])
			expect(ret < 0, "hand-off with a NULL image succeeded");
		else if (glcuda_image_get_device(list[i]) != dev)
			expect(ret < 0,
			       "hand-off of another device's image succeeded");
	}
	if (dev && !glcuda_device_get_caps(dev)->cuda_device_name[0])
		expect(ret < 0, "hand-off on a device without CUDA succeeded");
	if (ret < 0)
		expect_failure(ret, to_cuda ? "glcuda_handoff_to_cuda"
					    : "glcuda_handoff_to_gl");
	else if (to_cuda)
		fuzz_api_reached.handoffs_to_cuda++;
	else
		fuzz_api_reached.handoffs_to_gl++;
}

static void
op_ring_new(struct input *in, struct pool *p)
{
	struct glcuda_device *dev = pick_device(in, p);
	struct glcuda_ring_desc desc = { .size = sizeof(desc) };
	struct glcuda_ring *ring = (struct glcuda_ring *)&desc;
	struct glcuda_ring *const sentinel = ring;
	uint8_t how = take8(in);
	int slot = slot_of(in, MAX_RINGS);
	bool invalid;
	int ret;

	desc.width = take_size(in, dev);
	desc.height = take_size(in, dev);
	desc.slots = take8(in) % 7;
	desc.input_format = (enum glcuda_format)take_format(in);
	desc.output_format = (enum glcuda_format)take_format(in);
	desc.flags = take_flags(in);
	/* cuda_stream stays NULL: a random CUstream is the caller's
	 * undefined behaviour, not a misuse glcuda can detect. */

	ret = glcuda_ring_new(dev, (how & 1) ? NULL : &desc,
			      (how & 2) ? NULL : &ring);
	invalid = !dev || (how & 3) || (desc.slots != 0 && desc.slots < 2) ||
		  desc.slots > 4 ||
		  (desc.flags & ~(uint32_t)(GLCUDA_RING_FLAG_IN_PLACE |
					    GLCUDA_RING_FLAG_TIMINGS)) ||
		  !format_valid(desc.input_format) ||
		  (!(desc.flags & GLCUDA_RING_FLAG_IN_PLACE) &&
		   desc.output_format != 0 &&
		   !format_valid(desc.output_format));
	if (invalid)
		expect(ret == -EINVAL, "glcuda_ring_new(invalid): %s",
		       glcuda_error_get_name(ret));
	if (dev && !glcuda_device_get_caps(dev)->cuda_device_name[0])
		expect(ret < 0,
		       "glcuda_ring_new on a device without CUDA succeeded");
	if (ret < 0) {
		expect_failure(ret, "glcuda_ring_new");
		expect(ring == sentinel,
		       "glcuda_ring_new wrote *out on failure");
		return;
	}
	fuzz_api_reached.rings++;
	if (p->rings[slot])
		destroy_ring(p, slot);
	p->rings[slot] = ring;
	p->ring_device[slot] = dev;
}

static void
op_ring_call(struct input *in, struct pool *p)
{
	uint8_t b = take8(in);
	int r = b % MAX_RINGS;
	struct glcuda_ring *ring = b & 0x80 ? NULL : p->rings[r];
	struct glcuda_frame *frame = (struct glcuda_frame *)&b;
	struct glcuda_frame *const sentinel = frame;
	struct glcuda_frame_timings timings = {
		.size = sizeof(struct glcuda_frame_timings)
	};
	int slot = slot_of(in, MAX_FRAMES);
	int ret;

	switch (take8(in) % 7) {
	case 0:
		ret = glcuda_ring_acquire(ring, (b & 0x40) ? NULL : &frame);
		if (!ring || (b & 0x40))
			expect(ret == -EINVAL, "glcuda_ring_acquire(NULL): %d",
			       ret);
		if (ret < 0) {
			expect_failure(ret, "glcuda_ring_acquire");
			expect(frame == sentinel,
			       "glcuda_ring_acquire wrote *out on failure");
		} else {
			p->frames[slot] = frame;
			p->frame_ring[slot] = r;
		}
		break;
	case 1:
		ret = glcuda_ring_dispatch(ring);
		if (!ring)
			expect_failure(ret, "glcuda_ring_dispatch(NULL)");
		break;
	case 2:
		ret = glcuda_ring_take_newest(ring, (b & 0x40) ? NULL : &frame);
		if (!ring || (b & 0x40))
			expect(ret == -EINVAL,
			       "glcuda_ring_take_newest(NULL): %d", ret);
		if (ret < 0) {
			/* -EAGAIN (nothing ready) is no failure: no message. */
			if (ret != -EAGAIN)
				expect_failure(ret, "glcuda_ring_take_newest");
			expect(frame == sentinel,
			       "glcuda_ring_take_newest wrote *out on failure");
		} else {
			p->frames[slot] = frame;
			p->frame_ring[slot] = r;
		}
		break;
	case 3:
		/* A getter: -1 (never an fd) for NULL, no message. */
		ret = glcuda_ring_get_fd(ring);
		expect(ring || ret < 0, "glcuda_ring_get_fd(NULL) returned %d",
		       ret);
		break;
	case 4:
		(void)glcuda_ring_get_dropped(ring);
		break;
	case 5:
		ret = glcuda_ring_read_timings(ring,
					       (b & 0x40) ? NULL : &timings);
		if (!ring || (b & 0x40))
			expect_failure(ret, "glcuda_ring_read_timings(NULL)");
		break;
	case 6:
		if (ring) {
			destroy_ring(p, r);
		} else {
			glcuda_ring_destroy(NULL);
		}
		break;
	}
}

static void
op_frame_call(struct input *in, struct pool *p)
{
	uint8_t b = take8(in);
	struct glcuda_frame *frame = b & 0x80 ? NULL
					      : p->frames[b % MAX_FRAMES];
	int ret = 0;

	switch (take8(in) % 6) {
	case 0:
		ret = glcuda_frame_submit(frame);
		fuzz_api_reached.submits += ret == 0;
		break;
	case 1:
		ret = glcuda_frame_complete(frame);
		fuzz_api_reached.completes += ret == 0;
		break;
	case 2:
		ret = glcuda_frame_wait_gl(frame);
		fuzz_api_reached.gl_waits += ret == 0;
		break;
	case 3:
		ret = glcuda_frame_release(frame);
		if (ret == 0) {
			p->frames[b % MAX_FRAMES] = NULL;
			fuzz_api_reached.releases++;
		}
		break;
	case 4:
		(void)glcuda_frame_get_number(frame);
		(void)glcuda_frame_get_slot(frame);
		(void)glcuda_frame_get_input(frame);
		(void)glcuda_frame_get_output(frame);
		(void)glcuda_frame_get_input_fbo(frame);
		(void)glcuda_frame_get_output_texture(frame);
		(void)glcuda_frame_get_input_surface(frame);
		(void)glcuda_frame_get_output_surface(frame);
		(void)glcuda_frame_get_stream(frame);
		return;
	case 5:
		return;
	}
	if (!frame)
		expect_failure(ret, "a frame call on NULL");
}

static void
op_image_destroy(struct input *in, struct pool *p)
{
	uint8_t b = take8(in);
	if (b & 0x80) {
		glcuda_image_destroy(NULL);
		return;
	}
	glcuda_image_destroy(p->images[b % MAX_IMAGES]);
	p->images[b % MAX_IMAGES] = NULL;
}

static void
op_getters(struct input *in, struct pool *p)
{
	int v = (int)take32(in);
	struct glcuda_device *dev = p->devices[take8(in) % MAX_DEVICES];
	struct glcuda_image *img = p->images[take8(in) % MAX_IMAGES];
	const char *s;

	s = glcuda_strerror(v);
	expect(s != NULL && s[0] != '\0', "glcuda_strerror(%d)", v);
	s = glcuda_error_get_name(v);
	expect(s != NULL && s[0] != '\0', "glcuda_error_get_name(%d)", v);
	s = glcuda_format_get_name((enum glcuda_format)v);
	expect(s != NULL, "glcuda_format_get_name(%d)", v);
	expect((glcuda_format_get_bytes_per_pixel((enum glcuda_format)v) !=
		0) == format_valid(v),
	       "glcuda_format_get_bytes_per_pixel(%d)", v);
	expect((glcuda_format_get_gl_internal_format((enum glcuda_format)v) !=
		0) == format_valid(v),
	       "glcuda_format_get_gl_internal_format(%d)", v);
	expect(glcuda_sync_mode_get_name((enum glcuda_sync_mode)v) != NULL,
	       "glcuda_sync_mode_get_name(%d)", v);
	expect(glcuda_get_version() != NULL && glcuda_get_last_error() != NULL,
	       "version");

	(void)glcuda_image_get_gl_texture(img);
	(void)glcuda_image_get_width(img);
	(void)glcuda_image_get_height(img);
	(void)glcuda_image_get_format(img);
	(void)glcuda_image_get_device(img);
	(void)glcuda_image_get_cuda_array(img);
	(void)glcuda_image_get_cuda_surface(img);
	(void)glcuda_image_get_cuda_texture(img);
	if (dev) {
		expect(glcuda_device_get_caps(dev) != NULL, "caps");
		expect(glcuda_device_get_last_error(dev) != NULL,
		       "device last error");
		glcuda_device_set_log_priority(dev, (enum glcuda_log_priority)(
							    v & 0x3f));
		(void)glcuda_device_get_log_priority(dev);
		glcuda_device_set_log_handler(dev, quiet_log, NULL);
		(void)glcuda_device_get_cuda_context(dev);
		(void)glcuda_device_get_cuda_device(dev);
	}
}

/* GL calls without the device's context current must fail with
 * GLCUDA_ERROR_NO_CURRENT_CONTEXT, not touch another context. */
static void
op_without_context(struct input *in, struct pool *p)
{
	struct glcuda_device *dev = p->devices[take8(in) % MAX_DEVICES];
	struct glcuda_image *img = (struct glcuda_image *)&dev;
	struct glcuda_image *const sentinel = img;
	struct glcuda_ring_desc desc = { .size = sizeof(desc),
					 .width = 16,
					 .height = 16,
					 .input_format = GLCUDA_FORMAT_RGBA8 };
	struct glcuda_image_desc image_desc;
	struct glcuda_ring *ring = (struct glcuda_ring *)&desc;
	int ret;

	if (!dev)
		return;
	eglMakeCurrent(glcuda_headless_get_display(headless), EGL_NO_SURFACE,
		       EGL_NO_SURFACE, EGL_NO_CONTEXT);
	glcuda_image_desc_init(&image_desc);
	image_desc.width = image_desc.height = 16;
	image_desc.format = GLCUDA_FORMAT_RGBA8;
	ret = glcuda_image_new(dev, &image_desc, &img);
	expect(ret == GLCUDA_ERROR_NO_CURRENT_CONTEXT,
	       "glcuda_image_new without context: %s",
	       glcuda_error_get_name(ret));
	expect(img == sentinel, "wrote *out on failure");
	ret = glcuda_ring_new(dev, &desc, &ring);
	expect(ret == GLCUDA_ERROR_NO_CURRENT_CONTEXT,
	       "glcuda_ring_new without context: %s",
	       glcuda_error_get_name(ret));
	make_current();
}

/* Where the CUDA driver is the tests' fake (tests/fake-cuda, which the
 * replay loads), it claims the GL context's device UUID, so that the
 * public constructor binds it and inputs get to images with CUDA, rings
 * and hand-offs instead of stopping at device creation. */
static void
claim_gl_device_for_fake_cuda(void)
{
	const char *lib = getenv("GLCUDA_LIBCUDA");
	uint8_t uuid[GL_UUID_SIZE_EXT] = { 0 };
	char hex[2 * GL_UUID_SIZE_EXT + 1];

	if (!have_libcuda || !lib || !strstr(lib, "libfakecuda") ||
	    !epoxy_has_gl_extension("GL_EXT_memory_object"))
		return;
	fake_cuda_lib = lib;
	glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, uuid);
	for (int i = 0; i < GL_UUID_SIZE_EXT; i++)
		snprintf(hex + 2 * i, 3, "%02x", uuid[i]);
	setenv("GLCUDA_FAKE_CUDA_UUID", hex, 1);
}

/* The fake runs stream work on its own thread, as a GPU does: between two
 * calls of an input it is let finish, so that whether a frame is ready
 * does not depend on timing and an input always takes the same path. */
static void
settle_fake_gpu(void)
{
	if (!fake_cuda_lib)
		return;
	if (!fake_cuda_settle) {
		/* Loaded by glcuda's loader at the first device, not before. */
		void *h = dlopen(fake_cuda_lib, RTLD_NOW | RTLD_NOLOAD);
		if (!h)
			return;
		fake_cuda_settle = (void (*)(void))dlsym(h, "fake_cuda_settle");
		dlclose(h);
	}
	if (fake_cuda_settle)
		fake_cuda_settle();
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	void *h;
	int ret;

	(void)argc;
	(void)argv;
	/* Only failures are logged; the log handler of the public calls made
	 * before a device exists is stderr. */
	setenv("GLCUDA_LOG", "error", 0);
	h = dlopen(getenv("GLCUDA_LIBCUDA") ? getenv("GLCUDA_LIBCUDA")
					    : "libcuda.so.1",
		   RTLD_NOW | RTLD_LOCAL);
	have_libcuda = h != NULL;
	if (h)
		dlclose(h);
	ret = glcuda_headless_new(-1, 0, &headless);
	if (ret < 0) {
		fprintf(stderr, "fuzz-api: no EGL display/context: %s: %s\n",
			glcuda_error_get_name(ret), glcuda_get_last_error());
		exit(FUZZ_API_NO_CONTEXT);
	}
	claim_gl_device_for_fake_cuda();
	return 0;
}

void
fuzz_api_fini(void)
{
	glcuda_headless_destroy(headless);
	headless = NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size, 0 };
	struct pool pool;

	memset(&pool, 0, sizeof(pool));
	for (int ops = 0; ops < MAX_OPS && in.pos < in.size; ops++) {
		switch (take8(&in) % 14) {
		case 0: op_device_new(&in, &pool, true); break;
		case 1:
		case 2: op_device_new(&in, &pool, false); break;
		case 3: destroy_device(&pool, slot_of(&in, MAX_DEVICES)); break;
		case 4:
		case 5: op_image_new(&in, &pool); break;
		case 6: op_image_destroy(&in, &pool); break;
		case 7: op_handoff(&in, &pool, true); break;
		case 8: op_handoff(&in, &pool, false); break;
		case 9: op_ring_new(&in, &pool); break;
		case 10:
			op_ring_call(&in, &pool);
			op_frame_call(&in, &pool);
			break;
		case 11: op_getters(&in, &pool); break;
		case 12: op_without_context(&in, &pool); break;
		case 13: op_wrap(&in, &pool); break;
		}
		settle_fake_gpu();
	}
	for (int d = 0; d < MAX_DEVICES; d++)
		destroy_device(&pool, d);
	glcuda_device_destroy(NULL);
	return 0;
}
