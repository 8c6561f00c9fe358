/*
 * Frames as tensors without a GPU: layered images, their framebuffers and
 * depth buffers, the copies between an image and linear CUDA memory, and
 * the DLPack export, on Mesa and the fake CUDA driver (which copies the
 * very memory GL renders into, laid out as lavapipe lays it out).
 *
 * Every pixel is checked: GL writes a pattern different in every layer,
 * CUDA copies it into linear memory with row and layer pitches larger
 * than tight, and the host compares; then the other way, read back by GL.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"
#include "test-common.h"
#include "fake-cuda/fake-cuda-env.h"
#include "fake-controls.h"
#include <glcuda/glcuda-dlpack.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W \
	13 /* neither a multiple of the 4-pixel raster block nor of 16 bytes */
#define H 7
#define LAYERS 3
#define ROW_PAD 24   /* bytes past a tight row */
#define LAYER_PAD 2  /* rows past a tight layer */

/* fake_env_teardown() for suites that copy: the copy kernels are the
 * process's (a library, which belongs to no context and is not a live
 * object), so the device leaves nothing behind, and nothing is left for
 * the context's end to reclaim. */
static void
tensor_teardown(struct fake_env *e)
{
	unsigned int reclaimed;

	resolve_fake();
	fake_env_push(e);
	ck_cu(CU(cuStreamDestroy)(e->stream));
	ck_cu(CU(cuModuleUnload)(e->module));
	fake_env_pop();
	ck_assert_int_eq(fake.sticky_error(), 0);
	ck_assert_uint_eq(fake.live_objects(), e->live0);
	reclaimed = fake.reclaimed();
	glcuda_device_destroy(e->dev);
	ck_assert_uint_eq(fake.primary_refs(), 0);
	ck_assert_uint_eq(fake.live_objects(), 0);
	ck_assert_uint_eq(fake.reclaimed(), reclaimed);
	/* At most one library for the whole process. */
	ck_assert_uint_le(fake.libraries(), 1);
	glcuda_headless_destroy(e->hl);
}

/* Whether the library has copy kernels: nvcc builds them (lib/local.mk);
 * without them every copy goes through the copy engine. */
#ifdef HAVE_NVCC
static const bool kernels_built = true;
#else
static const bool kernels_built = false;
#endif

/* How copies are made, by GLCUDA_COPY (read once per process: Check forks
 * each case, so each case may set it). */
enum way {
	WAY_MEASURED, /* unset: the kernel for one layer, the engine for more */
	WAY_ENGINE,   /* GLCUDA_COPY=engine */
	WAY_KERNEL,   /* GLCUDA_COPY=kernel */
};

static void
way_set(enum way way)
{
	if (way == WAY_ENGINE)
		setenv("GLCUDA_COPY", "engine", 1);
	else if (way == WAY_KERNEL)
		setenv("GLCUDA_COPY", "kernel", 1);
	else
		unsetenv("GLCUDA_COPY");
}

/* The fake's counts of library kernel launches and of 3D copies. */
struct copies {
	unsigned int kernel, engine;
};

static struct copies
copies_now(void)
{
	struct copies c = { fake.library_launches(), fake.memcpy3d_calls() };

	return c;
}

/* The copies since `before` were one launch of a copy kernel (kernel) or
 * one 3D copy of the copy engine, and nothing else. */
static void
assert_copied_by(const struct copies *before, bool kernel, const char *what)
{
	const struct copies now = copies_now();
	const unsigned int launches = now.kernel - before->kernel;
	const unsigned int copies = now.engine - before->engine;

	ck_assert_msg(launches == (kernel ? 1u : 0u) &&
		      copies == (kernel ? 0u : 1u),
		      "%s: %u copy kernel launches and %u 3D copies, not "
		      "one %s",
		      what, launches, copies, kernel ? "launch" : "3D copy");
}

static struct glcuda_image *
new_image(struct fake_env *e, enum glcuda_format format, uint32_t layers,
	  enum glcuda_format depth)
{
	struct glcuda_image_desc desc;
	struct glcuda_image *img = NULL;

	glcuda_image_desc_init(&desc);
	desc.width = W;
	desc.height = H;
	desc.format = format;
	desc.layers = layers;
	desc.depth_format = depth;
	ck_ok(glcuda_image_new(e->dev, &desc, &img));
	return img;
}

/* GL's upload of layer `layer` of a colour texture (2D or 2D array). */
static void
upload_layer(struct glcuda_image *img, const struct format_info *fmt,
	     uint32_t layer, const void *data)
{
	GLenum target = glcuda_image_get_gl_target(img);
	GLint prev = 0;

	glGetIntegerv(target == GL_TEXTURE_2D ? GL_TEXTURE_BINDING_2D
					      : GL_TEXTURE_BINDING_2D_ARRAY,
		      &prev);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
	glBindTexture(target, glcuda_image_get_gl_texture(img));
	if (target == GL_TEXTURE_2D)
		glTexSubImage2D(target, 0, 0, 0, W, H, fmt->gl_format,
				fmt->gl_type, data);
	else
		glTexSubImage3D(target, 0, 0, 0, (GLint)layer, W, H, 1,
				fmt->gl_format, fmt->gl_type, data);
	glBindTexture(target, (GLuint)prev);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
}

/* GL's read-back of a layer through the image's framebuffer of that layer
 * (colour, or depth for a depth plane on desktop GL). */
static void
read_layer(struct glcuda_image *img, const struct format_info *fmt,
	   uint32_t layer, bool depth, void *out)
{
	GLint prev = 0;

	glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &prev);
	glBindFramebuffer(GL_READ_FRAMEBUFFER,
			  glcuda_image_get_gl_framebuffer(img, layer));
	glPixelStorei(GL_PACK_ALIGNMENT, 1);
	glReadPixels(0, 0, W, H, depth ? GL_DEPTH_COMPONENT : fmt->gl_format,
		     depth ? GL_FLOAT : fmt->gl_type, out);
	glPixelStorei(GL_PACK_ALIGNMENT, 4);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)prev);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
}

/* A device block holding `layers` layers with padded pitches. */
struct block {
	CUdeviceptr ptr;
	size_t row, row_pitch, layer_pitch, size;
};

/* A block of layers of H rows, each row ROW_PAD bytes past a tight one,
 * each layer extra_rows rows and extra_bytes bytes past H rows; its bytes
 * 0xee. */
static struct block
block_new_pitch(struct fake_env *e, const struct format_info *fmt,
		uint32_t layers, size_t extra_rows, size_t extra_bytes)
{
	struct block b;

	b.row = (size_t)W * fmt->bytes_per_pixel;
	b.row_pitch = b.row + ROW_PAD;
	b.layer_pitch = b.row_pitch * (H + extra_rows) + extra_bytes;
	b.size = b.layer_pitch * layers;
	fake_env_push(e);
	ck_cu(CU(cuMemAlloc)(&b.ptr, b.size));
	ck_cu(CU(cuMemsetD8)(b.ptr, 0xee, b.size));
	fake_env_pop();
	return b;
}

/* A block whose layers are LAYER_PAD rows apart past a tight layer. */
static struct block
block_new(struct fake_env *e, const struct format_info *fmt, uint32_t layers)
{
	return block_new_pitch(e, fmt, layers, LAYER_PAD, 0);
}

/* A copy of a batch between a plane (a layer, or GLCUDA_ALL_LAYERS) and
 * the block. */
static struct glcuda_linear_copy
block_copy(struct glcuda_image *img, unsigned int plane, int layer,
	   const struct block *b, enum glcuda_copy_direction direction)
{
	return (struct glcuda_linear_copy){
		.image = img,
		.plane = plane,
		.layer = layer,
		.linear = b->ptr,
		.row_pitch = b->row_pitch,
		.layer_pitch = b->layer_pitch,
		.direction = direction,
	};
}

static void
block_free(struct fake_env *e, struct block *b)
{
	fake_env_push(e);
	ck_cu(CU(cuMemFree)(b->ptr));
	fake_env_pop();
}

/* The stream's work done, then the block in host memory. */
static uint8_t *
block_read(struct fake_env *e, const struct block *b)
{
	uint8_t *host = malloc(b->size);

	ck_assert_ptr_nonnull(host);
	fake_env_push(e);
	ck_cu(CU(cuStreamSynchronize)(e->stream));
	ck_cu(CU(cuMemcpyDtoH)(host, b->ptr, b->size));
	fake_env_pop();
	return host;
}

static void
block_write(struct fake_env *e, const struct block *b, const uint8_t *host)
{
	fake_env_push(e);
	ck_cu(CU(cuMemcpyHtoD)(b->ptr, host, b->size));
	fake_env_pop();
}

/* Layer l of the pattern of seed s: what GL or CUDA writes. */
static void
pattern(const struct format_info *fmt, uint32_t seed, uint32_t layer, void *out)
{
	test_fill_pattern(fmt, W, H, seed * 64 + layer, out);
}

/* Layers 0 .. layers - 1 of the pattern of seed s, at b's pitches in
 * host (b->size bytes; the padding left as it is), want a scratch layer. */
static void
block_pattern(const struct format_info *fmt, uint32_t seed,
	      const struct block *b, uint32_t layers, uint8_t *host,
	      uint8_t *want)
{
	for (uint32_t l = 0; l < layers; l++) {
		pattern(fmt, seed, l, want);
		for (uint32_t y = 0; y < H; y++)
			memcpy(host + l * b->layer_pitch + y * b->row_pitch,
			       want + y * b->row, b->row);
	}
}

/* Every format, 1 and LAYERS layers, GL and GLES, each way of copying
 * (_i / 4: the measured rule, GLCUDA_COPY=engine, GLCUDA_COPY=kernel):
 * GL's pattern into linear memory, pixel for pixel, with the padding
 * untouched; then a new pattern from linear memory back into the image,
 * read by GL. Each copy went the way the rule or the variable says. */
START_TEST(test_copies_every_format)
{
	static const enum glcuda_format formats[] = {
		GLCUDA_FORMAT_RGBA8,	GLCUDA_FORMAT_SRGB8_A8,
		GLCUDA_FORMAT_RGB10_A2, GLCUDA_FORMAT_RGBA16F,
		GLCUDA_FORMAT_RGBA32F,	GLCUDA_FORMAT_R8,
		GLCUDA_FORMAT_RG8,	GLCUDA_FORMAT_R16,
		GLCUDA_FORMAT_RG16,	GLCUDA_FORMAT_R32F,
	};
	const bool gles = _i & 1;
	const uint32_t layers = _i & 2 ? LAYERS : 1;
	const enum way way = (enum way)(_i / 4);
	/* All the layers, and one layer alone. */
	const bool kernel_all = kernels_built &&
				(way == WAY_KERNEL ||
				 (way == WAY_MEASURED && layers == 1));
	const bool kernel_one = kernels_built && way != WAY_ENGINE;
	struct copies before;
	struct fake_env e;

	way_set(way);
	fake_env_setup(&e, gles);
	resolve_fake();
	for (size_t f = 0; f < ARRAY_LENGTH(formats); f++) {
		const struct format_info *fmt = format_info(formats[f]);
		const size_t bytes = (size_t)W * H * fmt->bytes_per_pixel;
		uint8_t *want = malloc(bytes), *got = malloc(bytes), *host;
		struct glcuda_image *img;
		struct glcuda_cuda_plane plane;
		struct block b;

		if (!glcuda_device_has_format(e.dev, formats[f]) ||
		    (gles && formats[f] == GLCUDA_FORMAT_R16) ||
		    (gles && formats[f] == GLCUDA_FORMAT_RG16))
			goto next; /* GLES 3 has no 16-bit normalised formats */
		img = new_image(&e, formats[f], layers, 0);
		ck_assert_uint_eq(glcuda_image_get_layer_count(img), layers);
		ck_assert_uint_eq(glcuda_image_get_gl_target(img),
				  layers > 1 ? GL_TEXTURE_2D_ARRAY
					     : GL_TEXTURE_2D);
		glcuda_cuda_plane_init(&plane);
		ck_ok(glcuda_image_get_cuda_plane(img, 0, &plane));
		ck_assert_uint_eq(plane.layers, layers);
		ck_assert_uint_eq(plane.bytes_per_pixel, fmt->bytes_per_pixel);
		for (uint32_t l = 0; l < layers; l++) {
			pattern(fmt, 1, l, want);
			upload_layer(img, fmt, l, want);
		}
		b = block_new(&e, fmt, layers);
		ck_ok(glcuda_handoff_to_cuda(e.dev, &img, 1, e.stream));
		before = copies_now();
		ck_ok(glcuda_image_copy_to_linear(img, 0, GLCUDA_ALL_LAYERS,
						  b.ptr, b.row_pitch,
						  b.layer_pitch, e.stream));
		assert_copied_by(&before, kernel_all, fmt->name);
		host = block_read(&e, &b);
		for (uint32_t l = 0; l < layers; l++) {
			pattern(fmt, 1, l, want);
			for (uint32_t y = 0; y < H; y++) {
				const uint8_t *row = host + l * b.layer_pitch +
						     y * b.row_pitch;

				ck_assert_msg(!memcmp(row, want + y * b.row,
						      b.row),
					      "%s layer %u row %u differs",
					      fmt->name, l, y);
				for (size_t x = b.row; x < b.row_pitch; x++)
					ck_assert_uint_eq(row[x], 0xee);
			}
		}
		/* The other way: a new pattern, back to GL. */
		block_pattern(fmt, 2, &b, layers, host, want);
		block_write(&e, &b, host);
		before = copies_now();
		ck_ok(glcuda_image_copy_from_linear(img, 0, GLCUDA_ALL_LAYERS,
						    b.ptr, b.row_pitch,
						    b.layer_pitch, e.stream));
		assert_copied_by(&before, kernel_all, fmt->name);
		ck_ok(glcuda_handoff_to_gl(e.dev, &img, 1, e.stream));
		for (uint32_t l = 0; l < layers; l++) {
			pattern(fmt, 2, l, want);
			read_layer(img, fmt, l, false, got);
			ck_assert_msg(
				test_first_mismatch(want, got, fmt, W, H) < 0,
				"%s layer %u: pixel %ld differs after the "
				"copy back",
				fmt->name, l,
				test_first_mismatch(want, got, fmt, W, H));
		}
		/* One layer alone lands at the start of the block. */
		ck_ok(glcuda_handoff_to_cuda(e.dev, &img, 1, e.stream));
		before = copies_now();
		ck_ok(glcuda_image_copy_to_linear(img, 0, (int)layers - 1,
						  b.ptr, b.row_pitch, 0,
						  e.stream));
		assert_copied_by(&before, kernel_one, fmt->name);
		free(host);
		host = block_read(&e, &b);
		pattern(fmt, 2, layers - 1, want);
		for (uint32_t y = 0; y < H; y++)
			ck_assert(!memcmp(host + y * b.row_pitch,
					  want + y * b.row, b.row));
		ck_ok(glcuda_handoff_to_gl(e.dev, &img, 1, e.stream));
		free(host);
		block_free(&e, &b);
		glcuda_image_destroy(img);
next:
		free(want);
		free(got);
	}
	/* One library for every copy of the process, none where the engine
	 * made them all. */
	ck_assert_uint_eq(fake.libraries(), kernel_one ? 1 : 0);
	tensor_teardown(&e);
}
END_TEST

/* The info messages about the copy kernels a device logged. */
static void
count_kernel_notes(enum glcuda_log_priority priority, void *data,
		   const char *format, va_list args)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), format, args);
	if (priority == GLCUDA_LOG_PRIORITY_INFO && strstr(msg, "copy kernels"))
		(*(unsigned int *)data)++;
}

/* The copy kernels are loaded once for the process, by the first copy of a
 * single layer, and two devices one after the other use the one library.
 * Where the kernels cannot be had for a device, its copies go through the
 * copy engine, with one info message and no error, and it does not try
 * again; the next device does. _i: 0, cuLibraryLoadData fails; 1,
 * cuLibraryGetKernel fails on the third kernel (the library stays, the
 * next device asks for the kernels it lacks); 2, nothing fails; 3, the
 * first launch fails as where the driver has no code for the GPU. */
START_TEST(test_copy_kernels_per_process)
{
	static const char *const fail[] = {
		"cuLibraryLoadData:1", "cuLibraryGetKernel:3", NULL,
		"cuLaunchKernel:1:CUDA_ERROR_NO_BINARY_FOR_GPU",
	};
	const struct format_info *fmt = format_info(GLCUDA_FORMAT_RGBA8);
	const size_t bytes = (size_t)W * H * fmt->bytes_per_pixel;
	uint8_t *want = malloc(bytes);

	way_set(WAY_MEASURED);
	if (fail[_i])
		setenv("GLCUDA_FAKE_CUDA_FAIL", fail[_i], 1);
	for (unsigned int d = 0; d < 2; d++) {
		const bool engine = (d == 0 && fail[_i]) || !kernels_built;
		/* The library stays where only a kernel's look-up failed. */
		const bool library = kernels_built && (_i != 0 || d > 0);
		unsigned int notes = 0;
		struct glcuda_image *img;
		struct copies before;
		struct fake_env e;
		struct block b;

		fake_env_setup(&e, false);
		resolve_fake();
		glcuda_device_set_log_handler(e.dev, count_kernel_notes,
					      &notes);
		glcuda_device_set_log_priority(e.dev, GLCUDA_LOG_PRIORITY_INFO);
		img = new_image(&e, GLCUDA_FORMAT_RGBA8, 1, 0);
		pattern(fmt, d, 0, want);
		upload_layer(img, fmt, 0, want);
		b = block_new(&e, fmt, 1);
		ck_ok(glcuda_handoff_to_cuda(e.dev, &img, 1, e.stream));
		for (int c = 0; c < 2; c++) {
			uint8_t *host;

			before = copies_now();
			ck_ok(glcuda_image_copy_to_linear(img, 0, 0, b.ptr,
							  b.row_pitch, 0,
							  e.stream));
			assert_copied_by(&before, !engine, "one layer");
			host = block_read(&e, &b);
			for (uint32_t y = 0; y < H; y++)
				ck_assert(!memcmp(host + y * b.row_pitch,
						  want + y * b.row, b.row));
			free(host);
		}
		/* A build without kernels has nothing to say. */
		ck_assert_uint_eq(notes, engine && kernels_built ? 1 : 0);
		ck_assert_uint_eq(fake.libraries(), library ? 1 : 0);
		ck_ok(glcuda_handoff_to_gl(e.dev, &img, 1, e.stream));
		block_free(&e, &b);
		glcuda_image_destroy(img);
		tensor_teardown(&e);
	}
	free(want);
}
END_TEST

/* The arguments a copy refuses, each with a message that says why. */
START_TEST(test_copy_errors)
{
	const struct format_info *fmt = format_info(GLCUDA_FORMAT_RGBA8);
	struct glcuda_image *img;
	struct fake_env e;
	struct block b;

	fake_env_setup(&e, false);
	img = new_image(&e, GLCUDA_FORMAT_RGBA8, LAYERS, 0);
	b = block_new(&e, fmt, LAYERS);
	/* Owned by GL. */
	ck_assert_int_eq(glcuda_image_copy_to_linear(img, 0, GLCUDA_ALL_LAYERS,
						     b.ptr, b.row_pitch,
						     b.layer_pitch, e.stream),
			 GLCUDA_ERROR_BAD_STATE);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "glcuda_handoff_to_cuda"));
	ck_ok(glcuda_handoff_to_cuda(e.dev, &img, 1, e.stream));
	/* Row pitch too small: the message names the smallest. */
	ck_assert_int_eq(glcuda_image_copy_to_linear(img, 0, GLCUDA_ALL_LAYERS,
						     b.ptr, b.row - 1,
						     b.layer_pitch, e.stream),
			 -EINVAL);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "52 bytes at least"));
	/* Layer pitch too small. */
	ck_assert_int_eq(glcuda_image_copy_from_linear(img, 0,
						       GLCUDA_ALL_LAYERS, b.ptr,
						       b.row_pitch,
						       b.row_pitch * H - 1,
						       e.stream),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "layer pitch"));
	/* A layer pitch is not needed for one layer. */
	ck_ok(glcuda_image_copy_to_linear(img, 0, 1, b.ptr, b.row_pitch, 0,
					  e.stream));
	/* Plane and layer out of range, a NULL pointer and image. */
	ck_assert_int_eq(glcuda_image_copy_to_linear(img, 1, 0, b.ptr,
						     b.row_pitch, 0, e.stream),
			 -EINVAL);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "plane 1 of an image with 1"));
	ck_assert_int_eq(glcuda_image_copy_to_linear(img, 0, LAYERS, b.ptr,
						     b.row_pitch, 0, e.stream),
			 -EINVAL);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "layer 3 of an image with 3"));
	ck_assert_int_eq(glcuda_image_copy_to_linear(img, 0, -2, b.ptr,
						     b.row_pitch, 0, e.stream),
			 -EINVAL);
	ck_assert_int_eq(glcuda_image_copy_to_linear(img, 0, 0, 0, b.row_pitch,
						     0, e.stream),
			 -EINVAL);
	ck_assert_int_eq(glcuda_image_copy_to_linear(NULL, 0, 0, b.ptr,
						     b.row_pitch, 0, e.stream),
			 -EINVAL);
	ck_ok(glcuda_handoff_to_gl(e.dev, &img, 1, e.stream));
	block_free(&e, &b);
	glcuda_image_destroy(img);
	tensor_teardown(&e);
}
END_TEST

/* The image description's new members: layers and depth_format. */
START_TEST(test_image_desc_errors)
{
	const struct glcuda_caps *caps;
	struct glcuda_image_desc desc;
	struct glcuda_image *img = NULL;
	struct fake_env e;

	fake_env_setup(&e, _i);
	caps = glcuda_device_get_caps(e.dev);
	ck_assert_uint_ge(caps->max_image_layers, 256);
	ck_assert_uint_le(caps->max_image_layers,
			  2048); /* the fake's CUDA limit */
	glcuda_image_desc_init(&desc);
	desc.width = W;
	desc.height = H;
	desc.format = GLCUDA_FORMAT_RGBA8;
	desc.layers = caps->max_image_layers + 1;
	ck_assert_int_eq(glcuda_image_new(e.dev, &desc, &img), -EINVAL);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "caps.max_image_layers"));
	desc.layers = 2;
	desc.depth_format = GLCUDA_FORMAT_R32F;
	ck_assert_int_eq(glcuda_image_new(e.dev, &desc, &img), -EINVAL);
	ck_assert_ptr_nonnull(
		strstr(glcuda_get_last_error(), "not a depth format"));
	desc.format = GLCUDA_FORMAT_DEPTH32F;
	desc.depth_format = GLCUDA_FORMAT_DEPTH32F;
	ck_assert_int_eq(glcuda_image_new(e.dev, &desc, &img), -EINVAL);
	ck_assert_ptr_null(img);
	/* Getters on NULL. */
	ck_assert_uint_eq(glcuda_image_get_layer_count(NULL), 0);
	ck_assert_uint_eq(glcuda_image_get_gl_target(NULL), 0);
	ck_assert_uint_eq(glcuda_image_get_gl_framebuffer(NULL, 0), 0);
	ck_assert_uint_eq(glcuda_image_get_gl_layered_framebuffer(NULL), 0);
	ck_assert_uint_eq(glcuda_image_get_gl_depth_texture(NULL), 0);
	ck_assert_int_eq(glcuda_image_get_depth_format(NULL),
			 GLCUDA_FORMAT_INVALID);
	tensor_teardown(&e);
}
END_TEST

/* GL: a program whose geometry shader sends triangle i to layer i and
 * colours it (i * 40 + 10, 200 - i * 30, 77, 255) / 255 at depth
 * 0.1 + i * 0.2: one draw call fills every layer's colour and depth. */
static GLuint
layered_program(bool gles)
{
	static const char vs[] =
		"void main() {\n"
		"       vec2 v = vec2(float((gl_VertexID & 1) * 4 - 1), "
		"float((gl_VertexID & 2) * 2 - 1));\n"
		"	gl_Position = vec4(v, 0.0, 1.0);\n"
		"}\n";
	static const char gs[] =
		"layout(triangles) in;\n"
		"layout(triangle_strip, max_vertices = 12) out;\n"
		"uniform int layers;\n"
		"flat out int layer;\n"
		"void main() {\n"
		"	for (int l = 0; l < layers; l++) {\n"
		"		for (int i = 0; i < 3; i++) {\n"
		"			gl_Layer = l;\n"
		"			layer = l;\n"
		"                       gl_Position = "
		"vec4(gl_in[i].gl_Position.xy, (0.1 + float(l) * 0.2) * 2.0 - "
		"1.0, 1.0);\n"
		"			EmitVertex();\n"
		"		}\n"
		"		EndPrimitive();\n"
		"	}\n"
		"}\n";
	static const char fs[] =
		"flat in int layer;\n"
		"out vec4 color;\n"
		"void main() {\n"
		"       color = vec4(float(layer * 40 + 10), float(200 - "
		"layer * 30), 77.0, 255.0) / 255.0;\n"
		"}\n";
	const char *head = gles ? "#version 320 es\nprecision highp float;\n"
				: "#version 330 core\n";
	const char *gs_head = gles ? "#version 320 es\nprecision highp float;\n"
				   : "#version 330 core\n";
	const char *srcs[3] = { vs, gs, fs };
	const GLenum types[3] = { GL_VERTEX_SHADER, GL_GEOMETRY_SHADER,
				  GL_FRAGMENT_SHADER };
	GLuint prog = glCreateProgram();
	GLint ok = 0;
	char log[1024] = "";

	for (int i = 0; i < 3; i++) {
		const char *src[2] = { i == 1 ? gs_head : head, srcs[i] };
		GLuint s = glCreateShader(types[i]);

		glShaderSource(s, 2, src, NULL);
		glCompileShader(s);
		glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
		glGetShaderInfoLog(s, sizeof(log), NULL, log);
		ck_assert_msg(ok, "shader %d: %s", i, log);
		glAttachShader(prog, s);
		glDeleteShader(s);
	}
	glLinkProgram(prog);
	glGetProgramiv(prog, GL_LINK_STATUS, &ok);
	glGetProgramInfoLog(prog, sizeof(log), NULL, log);
	ck_assert_msg(ok, "link: %s", log);
	return prog;
}

/* One layered draw into colour and depth; one hand-off; both planes
 * exported, with DLPack's shape, strides, type and device; depth equal to
 * what GL reads back. */
START_TEST(test_layered_draw_and_dlpack)
{
	const bool gles = _i;
	const struct format_info *d32 = format_info(GLCUDA_FORMAT_DEPTH32F);
	DLManagedTensorVersioned *color = NULL, *depth = NULL;
	DLManagedTensor *old = NULL;
	struct glcuda_image *img;
	struct fake_env e;
	GLuint prog, vao;
	float gl_depth[W * H];
	uint8_t *host;

	fake_env_setup(&e, gles);
	resolve_fake();
	if (!glcuda_device_has_format(e.dev, GLCUDA_FORMAT_DEPTH32F)) {
		tensor_teardown(&e);
		ck_abort_msg("Mesa shares no DEPTH32F images here");
	}
	img = new_image(&e, GLCUDA_FORMAT_RGBA8, LAYERS,
			GLCUDA_FORMAT_DEPTH32F);
	ck_assert_uint_eq(glcuda_image_get_plane_count(img), 2);
	ck_assert_int_eq(glcuda_image_get_depth_format(img),
			 GLCUDA_FORMAT_DEPTH32F);
	ck_assert_uint_ne(glcuda_image_get_gl_depth_texture(img), 0);
	ck_assert_uint_ne(glcuda_image_get_gl_layered_framebuffer(img), 0);
	for (uint32_t l = 0; l < LAYERS; l++)
		ck_assert_uint_ne(glcuda_image_get_gl_framebuffer(img, l), 0);
	ck_assert_uint_eq(glcuda_image_get_gl_framebuffer(img, LAYERS), 0);

	prog = layered_program(gles);
	glGenVertexArrays(1, &vao);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER,
			  glcuda_image_get_gl_layered_framebuffer(img));
	glViewport(0, 0, W, H);
	glClearColor(0, 0, 0, 0);
	glClearDepthf(1.0f);
	glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
	glEnable(GL_DEPTH_TEST);
	glUseProgram(prog);
	glUniform1i(glGetUniformLocation(prog, "layers"), LAYERS);
	glBindVertexArray(vao);
	glDrawArrays(GL_TRIANGLES, 0, 3);
	glDisable(GL_DEPTH_TEST);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);

	/* GL's own depth of the middle layer, before the hand-off. */
	if (!gles)
		read_layer(img, d32, 1, true, gl_depth);

	/* Owned by GL: the export hands off, copies and hands back; every
	 * layer, so with the copy engine. */
	{
		struct copies before = copies_now();

		ck_ok(glcuda_image_export_dlpack(img, 0, e.stream, &color));
		assert_copied_by(&before, false, "a layered export");
		before = copies_now();
		ck_ok(glcuda_image_export_dlpack(img, 1, e.stream, &depth));
		assert_copied_by(&before, false, "a layered export (depth)");
	}
	ck_assert_uint_eq(color->version.major, 1);
	ck_assert(color->flags & DLPACK_FLAG_BITMASK_IS_COPIED);
	ck_assert_int_eq(color->dl_tensor.device.device_type, kDLCUDA);
	ck_assert_int_eq(color->dl_tensor.device.device_id, 0);
	ck_assert_int_eq(color->dl_tensor.ndim, 4);
	ck_assert_int_eq(color->dl_tensor.shape[0], LAYERS);
	ck_assert_int_eq(color->dl_tensor.shape[1], H);
	ck_assert_int_eq(color->dl_tensor.shape[2], W);
	ck_assert_int_eq(color->dl_tensor.shape[3], 4);
	ck_assert_int_eq(color->dl_tensor.strides[0], H * W * 4);
	ck_assert_int_eq(color->dl_tensor.strides[1], W * 4);
	ck_assert_int_eq(color->dl_tensor.strides[2], 4);
	ck_assert_int_eq(color->dl_tensor.strides[3], 1);
	ck_assert_int_eq(color->dl_tensor.dtype.code, kDLUInt);
	ck_assert_int_eq(color->dl_tensor.dtype.bits, 8);
	ck_assert_int_eq(color->dl_tensor.dtype.lanes, 1);
	ck_assert_int_eq(depth->dl_tensor.dtype.code, kDLFloat);
	ck_assert_int_eq(depth->dl_tensor.dtype.bits, 32);
	ck_assert_int_eq(depth->dl_tensor.shape[3], 1);

	host = malloc((size_t)LAYERS * W * H * 4);
	fake_env_push(&e);
	ck_cu(CU(cuStreamSynchronize)(e.stream));
	ck_cu(CU(cuMemcpyDtoH)(host,
			       (CUdeviceptr)(uintptr_t)color->dl_tensor.data,
			       (size_t)LAYERS * W * H * 4));
	fake_env_pop();
	for (uint32_t l = 0; l < LAYERS; l++)
		for (uint32_t p = 0; p < W * H; p++) {
			const uint8_t *px = host + ((size_t)l * W * H + p) * 4;

			ck_assert_msg(px[0] == l * 40 + 10 &&
					      px[1] == 200 - l * 30 &&
					      px[2] == 77 && px[3] == 255,
				      "layer %u pixel %u: %u %u %u %u", l, p,
				      px[0], px[1], px[2], px[3]);
		}
	fake_env_push(&e);
	ck_cu(CU(cuMemcpyDtoH)(host,
			       (CUdeviceptr)(uintptr_t)depth->dl_tensor.data,
			       (size_t)LAYERS * W * H * 4));
	fake_env_pop();
	for (uint32_t l = 0; l < LAYERS; l++) {
		const float *d = (const float *)host + (size_t)l * W * H;
		const float want = 0.1f + l * 0.2f;

		for (uint32_t p = 0; p < W * H; p++)
			ck_assert_msg(d[p] > want - 1e-5f &&
					      d[p] < want + 1e-5f,
				      "layer %u depth %u: %f, not %f", l, p,
				      d[p], want);
		if (l == 1 && !gles)
			ck_assert(!memcmp(d, gl_depth, sizeof(gl_depth)));
	}
	free(host);

	/* The image went back to GL: a hand-off to CUDA works again. */
	ck_ok(glcuda_handoff_to_cuda(e.dev, &img, 1, e.stream));
	ck_ok(glcuda_handoff_to_gl(e.dev, &img, 1, e.stream));

	/* The pool: a block given back is reused on the same stream. */
	{
		void *data = color->dl_tensor.data;
		DLManagedTensorVersioned *again = NULL;

		color->deleter(color);
		ck_ok(glcuda_image_export_dlpack(img, 0, e.stream, &again));
		ck_assert_ptr_eq(again->dl_tensor.data, data);
		color = again;
	}
	ck_ok(glcuda_image_export_dlpack_unversioned(img, 0, e.stream, &old));
	ck_assert_int_eq(old->dl_tensor.ndim, 4);
	ck_assert_ptr_ne(old->dl_tensor.data, color->dl_tensor.data);

	/* The deleters after the image and the device are gone. */
	glDeleteVertexArrays(1, &vao);
	glDeleteProgram(prog);
	glcuda_image_destroy(img);
	color->deleter(color);
	fake_env_push(&e);
	ck_cu(CU(cuStreamDestroy)(e.stream));
	ck_cu(CU(cuModuleUnload)(e.module));
	fake_env_pop();
	glcuda_device_destroy(e.dev);
	ck_assert_uint_ne(fake.primary_refs(), 0); /* the tensors hold it */
	depth->deleter(depth);
	old->deleter(old);
	/* With the last reference the context went, and all it held. */
	ck_assert_uint_eq(fake.primary_refs(), 0);
	ck_assert_uint_eq(fake.live_objects(), 0);
	glcuda_headless_destroy(e.hl);
}
END_TEST

/* Exports refused: a plane that is not there, NULLs, a wrapped image. */
START_TEST(test_dlpack_errors)
{
	DLManagedTensorVersioned *t = NULL;
	struct glcuda_image *img;
	struct fake_env e;

	fake_env_setup(&e, false);
	img = new_image(&e, GLCUDA_FORMAT_R8, 1, 0);
	ck_assert_int_eq(glcuda_image_export_dlpack(img, 1, e.stream, &t),
			 -EINVAL);
	ck_assert_ptr_null(t);
	ck_assert_int_eq(glcuda_image_export_dlpack(img, 0, e.stream, NULL),
			 -EINVAL);
	ck_assert_int_eq(glcuda_image_export_dlpack(NULL, 0, e.stream, &t),
			 -EINVAL);
	/* The image kept its owner: GL. */
	ck_ok(glcuda_handoff_to_cuda(e.dev, &img, 1, e.stream));
	/* Owned by CUDA: copied only (one layer: by a kernel), the image
	 * stays CUDA's. */
	resolve_fake();
	{
		struct copies before = copies_now();

		ck_ok(glcuda_image_export_dlpack(img, 0, e.stream, &t));
		assert_copied_by(&before, kernels_built, "a one-layer export");
	}
	ck_assert_int_eq(t->dl_tensor.ndim, 3);
	ck_assert_int_eq(glcuda_handoff_to_cuda(e.dev, &img, 1, e.stream),
			 GLCUDA_ERROR_BAD_STATE);
	ck_ok(glcuda_handoff_to_gl(e.dev, &img, 1, e.stream));
	t->deleter(t);
	glcuda_image_destroy(img);
	tensor_teardown(&e);
}
END_TEST

/* A block with padded rows and a layer pitch that is not a whole number
 * of rows (16 bytes past them), which the copy engine cannot describe as
 * one 3D copy: one copy per layer. */
static struct block
block_new_odd(struct fake_env *e, const struct format_info *fmt,
	      uint32_t layers)
{
	struct block b = block_new_pitch(e, fmt, layers, 1, 16);

	ck_assert_uint_ne(b.layer_pitch % b.row_pitch, 0);
	return b;
}

/* Every layer of the image, as GL reads it, is layer `layer` of the
 * pattern of seed seeds[layer]. */
static void
assert_layers(struct glcuda_image *img, const struct format_info *fmt,
	      const uint32_t *seeds, const char *what)
{
	const size_t bytes = (size_t)W * H * fmt->bytes_per_pixel;
	uint8_t *want = malloc(bytes), *got = malloc(bytes);

	for (uint32_t l = 0; l < LAYERS; l++) {
		long bad;

		pattern(fmt, seeds[l], l, want);
		read_layer(img, fmt, l, false, got);
		bad = test_first_mismatch(want, got, fmt, W, H);
		ck_assert_msg(bad < 0,
			      "%s %s: layer %u, pixel %ld is not the pattern "
			      "of seed %u",
			      fmt->name, what, l, bad, seeds[l]);
	}
	free(want);
	free(got);
}

/* The copies' two layouts that only one way could get right, through
 * each way (_i / 2: the measured rule, GLCUDA_COPY=engine,
 * GLCUDA_COPY=kernel, and the measured rule where the kernels cannot be
 * loaded, as with a driver older than CUDA 12.0's library API), GL and
 * GLES (_i % 2): a copy into one layer, not
 * the first, lands in that layer and leaves the others; a copy out of a
 * middle layer reads that layer; and every layer to and from a block
 * whose layer pitch is not a whole number of rows, each layer at its
 * pitch, the padding untouched. */
START_TEST(test_copy_layer_and_odd_pitch)
{
	static const enum glcuda_format formats[] = {
		GLCUDA_FORMAT_RGBA8,
		GLCUDA_FORMAT_R32F,
	};
	const bool gles = _i & 1;
	const bool no_library = _i / 2 == 3;
	const enum way way = no_library ? WAY_MEASURED : (enum way)(_i / 2);
	const bool kernel_one = kernels_built && way != WAY_ENGINE &&
				!no_library;
	const bool kernel_all = kernels_built && way == WAY_KERNEL;
	struct fake_env e;

	way_set(way);
	if (no_library)
		setenv("GLCUDA_FAKE_CUDA_FAIL",
		       "cuLibraryLoadData:1:CUDA_ERROR_NOT_SUPPORTED", 1);
	fake_env_setup(&e, gles);
	resolve_fake();
	for (size_t f = 0; f < ARRAY_LENGTH(formats); f++) {
		const struct format_info *fmt = format_info(formats[f]);
		const size_t bytes = (size_t)W * H * fmt->bytes_per_pixel;
		uint8_t *want = malloc(bytes), *host;
		uint32_t seeds[LAYERS];
		struct glcuda_image *img;
		struct copies before, now;
		struct block one, odd;

		img = new_image(&e, formats[f], LAYERS, 0);
		for (uint32_t l = 0; l < LAYERS; l++) {
			pattern(fmt, 1, l, want);
			upload_layer(img, fmt, l, want);
			seeds[l] = 1;
		}
		one = block_new(&e, fmt, 1);
		odd = block_new_odd(&e, fmt, LAYERS);
		ck_ok(glcuda_handoff_to_cuda(e.dev, &img, 1, e.stream));

		/* Into the last layer alone. */
		host = calloc(1, one.size);
		pattern(fmt, 3, LAYERS - 1, want);
		for (uint32_t y = 0; y < H; y++)
			memcpy(host + y * one.row_pitch, want + y * one.row,
			       one.row);
		block_write(&e, &one, host);
		free(host);
		before = copies_now();
		ck_ok(glcuda_image_copy_from_linear(img, 0, LAYERS - 1, one.ptr,
						    one.row_pitch, 0,
						    e.stream));
		assert_copied_by(&before, kernel_one, fmt->name);
		seeds[LAYERS - 1] = 3;
		/* Out of the middle layer alone. */
		fake_env_push(&e);
		ck_cu(CU(cuMemsetD8)(one.ptr, 0xee, one.size));
		fake_env_pop();
		before = copies_now();
		ck_ok(glcuda_image_copy_to_linear(img, 0, 1, one.ptr,
						  one.row_pitch, 0, e.stream));
		assert_copied_by(&before, kernel_one, fmt->name);
		host = block_read(&e, &one);
		pattern(fmt, 1, 1, want);
		for (uint32_t y = 0; y < H; y++)
			ck_assert_msg(!memcmp(host + y * one.row_pitch,
					      want + y * one.row, one.row),
				      "%s: row %u of the copy of layer 1 is "
				      "not layer 1's",
				      fmt->name, y);
		free(host);
		ck_ok(glcuda_handoff_to_gl(e.dev, &img, 1, e.stream));
		assert_layers(img, fmt, seeds, "after a copy into one layer");

		/* Every layer into the block of the odd layer pitch. */
		ck_ok(glcuda_handoff_to_cuda(e.dev, &img, 1, e.stream));
		before = copies_now();
		ck_ok(glcuda_image_copy_to_linear(img, 0, GLCUDA_ALL_LAYERS,
						  odd.ptr, odd.row_pitch,
						  odd.layer_pitch, e.stream));
		now = copies_now();
		ck_assert_msg(now.kernel - before.kernel == (kernel_all ? 1 : 0)
			      && now.engine - before.engine ==
					 (kernel_all ? 0 : LAYERS),
			      "%s: %u kernel launches and %u 3D copies for "
			      "%u layers at a layer pitch of %zu bytes",
			      fmt->name, now.kernel - before.kernel,
			      now.engine - before.engine, LAYERS,
			      odd.layer_pitch);
		host = block_read(&e, &odd);
		for (size_t i = 0; i < odd.size; i++) {
			const size_t l = i / odd.layer_pitch;
			const size_t in_layer = i % odd.layer_pitch;
			const size_t y = in_layer / odd.row_pitch;
			const size_t x = in_layer % odd.row_pitch;

			if (y < H && x < odd.row) {
				pattern(fmt, seeds[l], (uint32_t)l, want);
				ck_assert_msg(host[i] == want[y * odd.row + x],
					      "%s: layer %zu row %zu byte %zu "
					      "of the block at a layer pitch "
					      "of %zu bytes is %u, not %u",
					      fmt->name, l, y, x,
					      odd.layer_pitch, host[i],
					      want[y * odd.row + x]);
			} else {
				ck_assert_msg(host[i] == 0xee,
					      "%s: padding byte %zu (layer "
					      "%zu) was written",
					      fmt->name, i, l);
			}
		}
		/* And back, a new pattern in every layer. */
		block_pattern(fmt, 4, &odd, LAYERS, host, want);
		for (uint32_t l = 0; l < LAYERS; l++)
			seeds[l] = 4;
		block_write(&e, &odd, host);
		free(host);
		ck_ok(glcuda_image_copy_from_linear(img, 0, GLCUDA_ALL_LAYERS,
						    odd.ptr, odd.row_pitch,
						    odd.layer_pitch, e.stream));
		ck_ok(glcuda_handoff_to_gl(e.dev, &img, 1, e.stream));
		assert_layers(img, fmt, seeds,
			      "after a copy at an odd layer pitch");

		block_free(&e, &one);
		block_free(&e, &odd);
		glcuda_image_destroy(img);
		free(want);
	}
	tensor_teardown(&e);
}
END_TEST

/* A depth-only image (format DEPTH32F, no depth_format): its depth
 * texture is its texture, a depth texture of its layers; an image with a
 * depth buffer has one of its own. GL and GLES (_i), 1 and LAYERS
 * layers. */
START_TEST(test_depth_texture_getter)
{
	struct fake_env e;

	fake_env_setup(&e, _i);
	if (!glcuda_device_has_format(e.dev, GLCUDA_FORMAT_DEPTH32F)) {
		tensor_teardown(&e);
		ck_abort_msg("Mesa shares no DEPTH32F images here");
	}
	for (uint32_t layers = 1; layers <= LAYERS; layers += LAYERS - 1) {
		struct glcuda_image *img =
			new_image(&e, GLCUDA_FORMAT_DEPTH32F, layers, 0);
		struct glcuda_image *both =
			new_image(&e, GLCUDA_FORMAT_RGBA8, layers,
				  GLCUDA_FORMAT_DEPTH32F);
		const GLenum target = glcuda_image_get_gl_target(img);
		const GLuint tex = glcuda_image_get_gl_texture(img);
		GLint format = 0, prev = 0;

		ck_assert_uint_eq(glcuda_image_get_plane_count(img), 1);
		ck_assert_uint_ne(tex, 0);
		ck_assert_msg(glcuda_image_get_gl_depth_texture(img) == tex,
			      "%u layer%s: the depth texture of a DEPTH32F "
			      "image is %u, not its texture %u",
			      layers, layers > 1 ? "s" : "",
			      glcuda_image_get_gl_depth_texture(img), tex);
		glGetIntegerv(target == GL_TEXTURE_2D
				      ? GL_TEXTURE_BINDING_2D
				      : GL_TEXTURE_BINDING_2D_ARRAY,
			      &prev);
		glBindTexture(target, tex);
		glGetTexLevelParameteriv(target, 0, GL_TEXTURE_INTERNAL_FORMAT,
					 &format);
		glBindTexture(target, (GLuint)prev);
		ck_assert_int_eq(format, GL_DEPTH_COMPONENT32F);
		/* Colour and depth: two textures. */
		ck_assert_uint_ne(glcuda_image_get_gl_depth_texture(both), 0);
		ck_assert_uint_ne(glcuda_image_get_gl_depth_texture(both),
				  glcuda_image_get_gl_texture(both));
		ck_assert_int_eq(glGetError(), GL_NO_ERROR);
		glcuda_image_destroy(both);
		glcuda_image_destroy(img);
	}
	tensor_teardown(&e);
}
END_TEST

/* What <glcuda/glcuda-dlpack.h> promises of each format's tensor. */
static const struct dlpack_want {
	enum glcuda_format format;
	uint8_t code, bits;
	int64_t channels;
} dlpack_wants[] = {
	{ GLCUDA_FORMAT_RGBA8, kDLUInt, 8, 4 },
	{ GLCUDA_FORMAT_SRGB8_A8, kDLUInt, 8, 4 },
	{ GLCUDA_FORMAT_R8, kDLUInt, 8, 1 },
	{ GLCUDA_FORMAT_RG8, kDLUInt, 8, 2 },
	{ GLCUDA_FORMAT_R16, kDLUInt, 16, 1 },
	{ GLCUDA_FORMAT_RG16, kDLUInt, 16, 2 },
	{ GLCUDA_FORMAT_RGBA16F, kDLFloat, 16, 4 },
	{ GLCUDA_FORMAT_RGBA32F, kDLFloat, 32, 4 },
	{ GLCUDA_FORMAT_R32F, kDLFloat, 32, 1 },
	{ GLCUDA_FORMAT_DEPTH32F, kDLFloat, 32, 1 },
	{ GLCUDA_FORMAT_RGB10_A2, kDLUInt, 32, 1 },
};

/* The tensor of a plane of `layers` layers of W x H, format w. */
static void
assert_dlpack(const DLTensor *t, const struct dlpack_want *w,
	      uint32_t layers, const char *what)
{
	const int32_t ndim = layers > 1 ? 4 : 3;
	const int64_t shape[4] = { layers, H, W, w->channels };
	const int64_t *want = shape + (4 - ndim);
	int64_t stride = 1;

	ck_assert_msg(t->dtype.code == w->code && t->dtype.bits == w->bits &&
			      t->dtype.lanes == 1,
		      "%s: dtype (code %u, %u bits, %u lanes), not (code %u, "
		      "%u bits, 1 lane)",
		      what, t->dtype.code, t->dtype.bits, t->dtype.lanes,
		      w->code, w->bits);
	ck_assert_msg(t->ndim == ndim, "%s: ndim %d, not %d", what, t->ndim,
		      ndim);
	for (int32_t i = ndim - 1; i >= 0; i--) {
		ck_assert_msg(t->shape[i] == want[i] &&
				      t->strides[i] == stride,
			      "%s: dimension %d: shape %lld stride %lld, not "
			      "%lld and %lld",
			      what, i, (long long)t->shape[i],
			      (long long)t->strides[i], (long long)want[i],
			      (long long)stride);
		stride *= want[i];
	}
	ck_assert_int_eq(t->byte_offset, 0);
	ck_assert_int_eq(t->device.device_type, kDLCUDA);
}

/* Every format glcuda shares, 1 and LAYERS layers, GL and GLES (_i):
 * the tensor's dtype, shape and strides are the header's, versioned and
 * not, and its bytes are the image's. */
START_TEST(test_dlpack_every_format)
{
	struct fake_env e;

	fake_env_setup(&e, _i);
	for (size_t f = 0; f < ARRAY_LENGTH(dlpack_wants); f++) {
		const struct dlpack_want *w = &dlpack_wants[f];
		const struct format_info *fmt = format_info(w->format);

		ck_assert_uint_eq(fmt->bytes_per_pixel,
				  w->channels * w->bits / 8);
		if (!glcuda_device_has_format(e.dev, w->format))
			continue;
		for (uint32_t layers = 1; layers <= LAYERS;
		     layers += LAYERS - 1) {
			struct glcuda_image *img =
				new_image(&e, w->format, layers, 0);
			DLManagedTensorVersioned *t = NULL;
			DLManagedTensor *u = NULL;
			char what[64];

			snprintf(what, sizeof(what), "%s %s, %u layer%s",
				 _i ? "GLES" : "GL", fmt->name, layers,
				 layers > 1 ? "s" : "");
			ck_ok(glcuda_image_export_dlpack(img, 0, e.stream,
							 &t));
			assert_dlpack(&t->dl_tensor, w, layers, what);
			ck_ok(glcuda_image_export_dlpack_unversioned(
				img, 0, e.stream, &u));
			assert_dlpack(&u->dl_tensor, w, layers, what);
			t->deleter(t);
			u->deleter(u);
			glcuda_image_destroy(img);
		}
	}
	/* The depth plane of a colour image. */
	if (glcuda_device_has_format(e.dev, GLCUDA_FORMAT_DEPTH32F)) {
		struct glcuda_image *img = new_image(
			&e, GLCUDA_FORMAT_RGBA16F, LAYERS,
			GLCUDA_FORMAT_DEPTH32F);
		DLManagedTensorVersioned *t = NULL;

		ck_ok(glcuda_image_export_dlpack(img, 0, e.stream, &t));
		assert_dlpack(&t->dl_tensor, &dlpack_wants[6], LAYERS,
			      "RGBA16F with depth, plane 0");
		t->deleter(t);
		ck_ok(glcuda_image_export_dlpack(img, 1, e.stream, &t));
		assert_dlpack(&t->dl_tensor, &dlpack_wants[9], LAYERS,
			      "RGBA16F with depth, plane 1");
		t->deleter(t);
		glcuda_image_destroy(img);
	}
	tensor_teardown(&e);
}
END_TEST

/* The pool across streams (<glcuda/glcuda-dlpack.h>: a block given back
 * is reused only by an export on the same stream). A consumer on stream A
 * reads its tensor, the GPU still busy with A (held), and drops it; an
 * export on stream B gets another block, so A's read, when A runs, reads
 * what A's export copied, not B's frame. The next export on A reuses A's
 * block. */
START_TEST(test_pool_across_streams)
{
	const struct format_info *fmt = format_info(GLCUDA_FORMAT_RGBA8);
	const size_t bytes = (size_t)W * H * fmt->bytes_per_pixel;
	const size_t row = (size_t)W * fmt->bytes_per_pixel;
	uint8_t *want = malloc(bytes), *read_on_a = malloc(bytes);
	DLManagedTensorVersioned *ta = NULL, *tb = NULL, *again = NULL;
	struct glcuda_image *img;
	CUstream a, b;
	CUdeviceptr block_a;
	CUDA_MEMCPY2D m;
	struct fake_env e;

	fake_env_setup(&e, false);
	resolve_fake();
	a = e.stream;
	fake_env_push(&e);
	ck_cu(CU(cuStreamCreate)(&b, CU_STREAM_NON_BLOCKING));
	fake_env_pop();
	img = new_image(&e, GLCUDA_FORMAT_RGBA8, 1, 0);
	pattern(fmt, 1, 0, want);
	upload_layer(img, fmt, 0, want);
	ck_ok(glcuda_image_export_dlpack(img, 0, a, &ta));
	block_a = (CUdeviceptr)(uintptr_t)ta->dl_tensor.data;

	/* The consumer's read of its tensor, enqueued on A, which the GPU
	 * has not run yet; then its deleter. */
	ck_assert_int_eq(fake.hold(a, FAKE_CUDA_HOLD), 0);
	memset(&m, 0, sizeof(m));
	m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	m.srcDevice = block_a;
	m.srcPitch = row;
	m.dstMemoryType = CU_MEMORYTYPE_HOST;
	m.dstHost = read_on_a;
	m.dstPitch = row;
	m.WidthInBytes = row;
	m.Height = H;
	memset(read_on_a, 0, bytes);
	fake_env_push(&e);
	ck_cu(CU(cuMemcpy2DAsync)(&m, a));
	fake_env_pop();
	ta->deleter(ta);

	/* A new frame, exported on B while A's read waits. */
	pattern(fmt, 2, 0, want);
	upload_layer(img, fmt, 0, want);
	ck_ok(glcuda_image_export_dlpack(img, 0, b, &tb));
	ck_assert_msg((CUdeviceptr)(uintptr_t)tb->dl_tensor.data != block_a,
		      "the block given back on stream A, whose work is not "
		      "done, was reused by an export on stream B");
	fake_env_push(&e);
	ck_cu(CU(cuStreamSynchronize)(b));
	fake_env_pop();

	/* A runs: its read saw A's frame. */
	ck_assert_int_eq(fake.hold(a, FAKE_CUDA_RUN), 0);
	fake_env_push(&e);
	ck_cu(CU(cuStreamSynchronize)(a));
	fake_env_pop();
	pattern(fmt, 1, 0, want);
	ck_assert_msg(test_first_mismatch(want, read_on_a, fmt, W, H) < 0,
		      "the consumer's read on stream A saw pixel %ld of "
		      "another frame",
		      test_first_mismatch(want, read_on_a, fmt, W, H));

	/* On A again: A's block. */
	ck_ok(glcuda_image_export_dlpack(img, 0, a, &again));
	ck_assert_ptr_eq(again->dl_tensor.data, (void *)(uintptr_t)block_a);
	again->deleter(again);
	tb->deleter(tb);
	glcuda_image_destroy(img);
	fake_env_push(&e);
	ck_cu(CU(cuStreamDestroy)(b));
	fake_env_pop();
	free(want);
	free(read_on_a);
	tensor_teardown(&e);
}
END_TEST

/* glcuda_copy_linear(): the batch's callback records what it saw. */
struct batch_probe {
	const struct fake_env *e;
	struct copies start;
	unsigned int calls, copies_before; /* copies enqueued before it */
	bool check_context, context_current, on_stream;
	int ret; /* what it returns */
};

static int
batch_probe_enqueue(void *data, CUstream stream)
{
	struct batch_probe *p = data;
	const struct copies now = copies_now();
	CUcontext ctx = NULL;

	p->calls++;
	p->copies_before = now.kernel - p->start.kernel + now.engine -
			   p->start.engine;
	/* The current context, taken off the stack and put back (a push
	 * of the test's, where it counts the call's pushes). */
	if (!p->check_context)
		return p->ret;
	p->context_current =
		CU(cuCtxPopCurrent)(&ctx) == CUDA_SUCCESS &&
		ctx == glcuda_device_get_cuda_context(p->e->dev) &&
		CU(cuCtxPushCurrent)(ctx) == CUDA_SUCCESS;
	p->on_stream = stream == p->e->stream;
	return p->ret;
}

/* Whether layer l of block b holds layer l of the pattern of seed s
 * (rows only, the padding is the caller's). */
static void
assert_block_layer(const struct format_info *fmt, const struct block *b,
		   const uint8_t *host, uint32_t l, uint32_t blk_layer,
		   uint32_t seed, const char *what)
{
	uint8_t want[W * H * 4];

	pattern(fmt, seed, l, want);
	for (uint32_t y = 0; y < H; y++)
		ck_assert_msg(!memcmp(host + blk_layer * b->layer_pitch +
					      y * b->row_pitch,
				      want + y * b->row, b->row),
			      "%s: layer %u row %u is not pattern %u", what,
			      l, y, seed);
}

/* A block holding layer l of the pattern of seed s in its layer 0. */
static void
block_fill(struct fake_env *e, const struct format_info *fmt,
	   const struct block *b, uint32_t seed, uint32_t l)
{
	uint8_t want[W * H * 4], *host = calloc(1, b->size);

	ck_assert_ptr_nonnull(host);
	pattern(fmt, seed, l, want);
	for (uint32_t y = 0; y < H; y++)
		memcpy(host + y * b->row_pitch, want + y * b->row, b->row);
	block_write(e, b, host);
	free(host);
}

/* One glcuda_copy_linear() batch of several images, layers and both
 * directions: the images handed to CUDA, the copies out of linear memory
 * first, the callback once, on the stream, with the device's context
 * current, then the copies into linear memory (which see what the copies
 * out of it wrote), the images handed back to GL, one push of the
 * context, none left. */
START_TEST(test_copy_linear_batch)
{
	const struct format_info *fmt = format_info(GLCUDA_FORMAT_RGBA8);
	struct glcuda_image *a, *b, *c, *extra[2];
	struct glcuda_linear_copy copies[4];
	struct glcuda_copy_desc desc;
	struct block a_out, a_in, b_in, b_out;
	struct batch_probe probe = { 0 };
	struct copies after;
	uint8_t want[W * H * 4], got[W * H * 4], *host;
	struct fake_env e;
	CUcontext ctx;
	int ret;

	fake_env_setup(&e, _i);
	resolve_fake();
	a = new_image(&e, GLCUDA_FORMAT_RGBA8, LAYERS, 0);
	b = new_image(&e, GLCUDA_FORMAT_RGBA8, 1, 0);
	c = new_image(&e, GLCUDA_FORMAT_RGBA8, 1, 0);
	for (uint32_t l = 0; l < LAYERS; l++) {
		pattern(fmt, 1, l, want);
		upload_layer(a, fmt, l, want);
	}
	pattern(fmt, 2, 0, want);
	upload_layer(b, fmt, 0, want);
	a_out = block_new(&e, fmt, LAYERS);
	a_in = block_new(&e, fmt, 1);
	b_in = block_new(&e, fmt, 1);
	b_out = block_new(&e, fmt, 1);
	block_fill(&e, fmt, &a_in, 4, 1);
	block_fill(&e, fmt, &b_in, 3, 0);

	copies[0] = (struct glcuda_linear_copy){
		.image = a, .plane = 0, .layer = GLCUDA_ALL_LAYERS,
		.linear = a_out.ptr, .row_pitch = a_out.row_pitch,
		.layer_pitch = a_out.layer_pitch,
		.direction = GLCUDA_COPY_TO_LINEAR,
	};
	copies[1] = (struct glcuda_linear_copy){
		.image = b, .layer = GLCUDA_ALL_LAYERS, .linear = b_in.ptr,
		.row_pitch = b_in.row_pitch,
		.direction = GLCUDA_COPY_FROM_LINEAR,
	};
	copies[2] = (struct glcuda_linear_copy){
		.image = a, .layer = 1, .linear = a_in.ptr,
		.row_pitch = a_in.row_pitch,
		.direction = GLCUDA_COPY_FROM_LINEAR,
	};
	copies[3] = (struct glcuda_linear_copy){
		.image = b, .layer = 0, .linear = b_out.ptr,
		.row_pitch = b_out.row_pitch,
		.direction = GLCUDA_COPY_TO_LINEAR,
	};
	/* c only for the callback; a listed again is handed off once. */
	extra[0] = c;
	extra[1] = a;
	glcuda_copy_desc_init(&desc);
	desc.copies = copies;
	desc.copy_count = 4;
	desc.images = extra;
	desc.image_count = 2;
	desc.stream = e.stream;
	desc.enqueue = batch_probe_enqueue;
	desc.enqueue_data = &probe;
	probe.e = &e;
	probe.start = copies_now();
	/* A second push in the call fails it. */
	setenv("GLCUDA_FAKE_CUDA_FAIL", "cuCtxPushCurrent:2", 1);
	ret = glcuda_copy_linear(e.dev, &desc);
	unsetenv("GLCUDA_FAKE_CUDA_FAIL");
	ck_assert_msg(ret == 0,
		      "glcuda_copy_linear, its second push made to fail: %s",
		      glcuda_get_last_error());
	ck_assert_msg(CU(cuCtxPopCurrent)(&ctx) != CUDA_SUCCESS,
		      "glcuda_copy_linear left a CUDA context pushed");
	ck_assert_uint_eq(probe.calls, 1);
	/* The same batch again (the same bytes land), the callback looking
	 * at the current context. */
	probe.check_context = true;
	probe.start = copies_now();
	ck_ok(glcuda_copy_linear(e.dev, &desc));
	ck_assert_uint_eq(probe.calls, 2);
	ck_assert_msg(probe.context_current,
		      "the callback ran without the device's context");
	ck_assert_msg(probe.on_stream, "the callback got another stream");
	ck_assert_msg(probe.copies_before == 2,
		      "%u copies enqueued before the callback, not the 2 out "
		      "of linear memory",
		      probe.copies_before);
	after = copies_now();
	ck_assert_uint_eq(after.kernel - probe.start.kernel + after.engine -
				  probe.start.engine,
			  4);

	/* Into linear memory, after the copies out of it. */
	host = block_read(&e, &a_out);
	assert_block_layer(fmt, &a_out, host, 0, 0, 1, "a, layer 0");
	assert_block_layer(fmt, &a_out, host, 1, 1, 4, "a, layer 1");
	assert_block_layer(fmt, &a_out, host, 2, 2, 1, "a, layer 2");
	free(host);
	host = block_read(&e, &b_out);
	assert_block_layer(fmt, &b_out, host, 0, 0, 3, "b");
	free(host);
	/* Owned by GL again: GL reads what CUDA wrote, and every image,
	 * c too, can be handed off again. */
	read_layer(a, fmt, 1, false, got);
	pattern(fmt, 4, 1, want);
	ck_assert_msg(!memcmp(got, want, sizeof(want)), "a, layer 1 in GL");
	read_layer(b, fmt, 0, false, got);
	pattern(fmt, 3, 0, want);
	ck_assert_msg(!memcmp(got, want, sizeof(want)), "b in GL");
	{
		struct glcuda_image *all[3] = { a, b, c };

		ck_ok(glcuda_handoff_to_cuda(e.dev, all, 3, e.stream));
		ck_ok(glcuda_handoff_to_gl(e.dev, all, 3, e.stream));
	}
	/* Only images: the callback alone. */
	desc.copies = NULL;
	desc.copy_count = 0;
	ck_ok(glcuda_copy_linear(e.dev, &desc));
	ck_assert_uint_eq(probe.calls, 3);

	block_free(&e, &a_out);
	block_free(&e, &a_in);
	block_free(&e, &b_in);
	block_free(&e, &b_out);
	glcuda_image_destroy(c);
	glcuda_image_destroy(b);
	glcuda_image_destroy(a);
	tensor_teardown(&e);
}
END_TEST

/* glcuda_copy_linear()'s errors: bad arguments enqueue nothing and leave
 * the images GL's; a failing copy or callback stops the batch, returns its
 * error with its message, and the images are GL's again. */
START_TEST(test_copy_linear_errors)
{
	const struct format_info *fmt = format_info(GLCUDA_FORMAT_RGBA8);
	struct glcuda_image *img, *other;
	struct glcuda_linear_copy copies[2];
	struct glcuda_copy_desc desc;
	struct batch_probe probe = { 0 };
	struct copies before;
	struct fake_env e;
	struct block b;
	CUcontext ctx;

	fake_env_setup(&e, false);
	resolve_fake();
	img = new_image(&e, GLCUDA_FORMAT_RGBA8, LAYERS, 0);
	other = new_image(&e, GLCUDA_FORMAT_RGBA8, 1, 0);
	b = block_new(&e, fmt, LAYERS);
	copies[0] = (struct glcuda_linear_copy){
		.image = img, .layer = GLCUDA_ALL_LAYERS, .linear = b.ptr,
		.row_pitch = b.row_pitch, .layer_pitch = b.layer_pitch,
		.direction = GLCUDA_COPY_FROM_LINEAR,
	};
	copies[1] = (struct glcuda_linear_copy){
		.image = other, .layer = 0, .linear = b.ptr,
		.row_pitch = b.row_pitch,
		.direction = GLCUDA_COPY_TO_LINEAR,
	};
	glcuda_copy_desc_init(&desc);
	desc.copies = copies;
	desc.copy_count = 2;
	desc.stream = e.stream;
	desc.enqueue = batch_probe_enqueue;
	desc.enqueue_data = &probe;
	probe.e = &e;

#define FAILS(ret, text)                                                   \
	do {                                                               \
		before = copies_now();                                     \
		ck_assert_int_eq(glcuda_copy_linear(e.dev, &desc), (ret)); \
		ck_assert_msg(strstr(glcuda_get_last_error(), (text)),     \
			      "\"%s\" is not in \"%s\"", (text),           \
			      glcuda_get_last_error());                    \
		ck_assert_msg(CU(cuCtxPopCurrent)(&ctx) != CUDA_SUCCESS,   \
			      "a failed call left a context pushed");      \
	} while (0)
	/* Arguments: nothing enqueued, no callback. */
	ck_assert_int_eq(glcuda_copy_linear(NULL, &desc), -EINVAL);
	ck_assert_int_eq(glcuda_copy_linear(e.dev, NULL), -EINVAL);
	desc.size = 0;
	FAILS(-EINVAL, "glcuda_copy_desc.size is 0");
	desc.size = sizeof(desc) + 8;
	FAILS(-EINVAL, "larger than");
	glcuda_copy_desc_init(&desc);
	desc.stream = e.stream;
	desc.enqueue = batch_probe_enqueue;
	desc.enqueue_data = &probe;
	FAILS(-EINVAL, "no copy and no image");
	desc.copy_count = 2;
	FAILS(-EINVAL, "desc.copies is NULL");
	desc.copies = copies;
	copies[1].row_pitch = b.row - 1;
	FAILS(-EINVAL, "copies[1]: a row pitch of 51 bytes is too small");
	copies[1].row_pitch = b.row_pitch;
	copies[1].direction = (enum glcuda_copy_direction)7;
	FAILS(-EINVAL, "copies[1]: direction 7");
	copies[1].direction = GLCUDA_COPY_TO_LINEAR;
	copies[0].layer = LAYERS;
	FAILS(-EINVAL, "copies[0]: layer 3 of an image with 3");
	copies[0].layer = GLCUDA_ALL_LAYERS;
	copies[1].image = NULL;
	FAILS(-EINVAL, "copies[1] is NULL");
	copies[1].image = other;
	/* An image CUDA owns. */
	ck_ok(glcuda_handoff_to_cuda(e.dev, &other, 1, e.stream));
	FAILS(GLCUDA_ERROR_BAD_STATE, "owned by CUDA, expected owned by GL");
	ck_ok(glcuda_handoff_to_gl(e.dev, &other, 1, e.stream));
	ck_assert_uint_eq(probe.calls, 0);
	ck_assert_uint_eq(copies_now().engine, before.engine);
	ck_assert_uint_eq(copies_now().kernel, before.kernel);

	/* The copy out of linear memory fails: no callback, no copy into
	 * it; both images handed back; the copy's error and message. */
	setenv("GLCUDA_COPY", "engine", 1);
	setenv("GLCUDA_FAKE_CUDA_FAIL", "cuMemcpy3DAsync:1:1", 1);
	FAILS(GLCUDA_ERROR_CUDA, "cuMemcpy3DAsync");
	unsetenv("GLCUDA_FAKE_CUDA_FAIL");
	ck_assert_msg(strstr(glcuda_get_last_error(), "glcuda_copy_linear"),
		      "%s", glcuda_get_last_error());
	ck_assert_uint_eq(probe.calls, 0);
	ck_assert_uint_eq(copies_now().engine, before.engine);
	/* The callback fails: its error, no copy into linear memory. */
	probe.ret = GLCUDA_ERROR_GL;
	FAILS(GLCUDA_ERROR_GL, "desc.enqueue failed");
	ck_assert_uint_eq(probe.calls, 1);
	ck_assert_uint_eq(copies_now().engine, before.engine + 1);
	/* Both images are GL's again. */
	probe.ret = 0;
	ck_ok(glcuda_copy_linear(e.dev, &desc));
	ck_assert_uint_eq(probe.calls, 2);
	{
		struct glcuda_image *both[2] = { img, other };

		ck_ok(glcuda_handoff_to_cuda(e.dev, both, 2, e.stream));
		ck_ok(glcuda_handoff_to_gl(e.dev, both, 2, e.stream));
	}
#undef FAILS
	block_free(&e, &b);
	glcuda_image_destroy(other);
	glcuda_image_destroy(img);
	tensor_teardown(&e);
}
END_TEST

/* Row order (GLCUDA_ORIGIN_TOP_LEFT) and depth to distance: what
 * glcuda_copy_linear() and the DLPack export with a desc copy, against
 * what GL reads back of the same plane (desktop GL: GLES reads no depth). */

/* Layer l of the depth pattern of seed s: window depths in (0, 1), exact
 * in float, different at every texel, layer and seed. */
static void
depth_pattern(uint32_t seed, uint32_t layer, float *out)
{
	for (uint32_t i = 0; i < W * H; i++)
		out[i] = (float)(1 + i + layer * W * H + seed * 331) / 4096.0f;
}

/* GL's upload of layer `layer` of the image's depth texture. */
static void
upload_depth_layer(struct glcuda_image *img, uint32_t layer, const float *data)
{
	GLenum target = glcuda_image_get_gl_target(img);
	GLint prev = 0;

	glGetIntegerv(target == GL_TEXTURE_2D ? GL_TEXTURE_BINDING_2D
					      : GL_TEXTURE_BINDING_2D_ARRAY,
		      &prev);
	glBindTexture(target, glcuda_image_get_gl_depth_texture(img));
	if (target == GL_TEXTURE_2D)
		glTexSubImage2D(target, 0, 0, 0, W, H, GL_DEPTH_COMPONENT,
				GL_FLOAT, data);
	else
		glTexSubImage3D(target, 0, 0, 0, (GLint)layer, W, H, 1,
				GL_DEPTH_COMPONENT, GL_FLOAT, data);
	glBindTexture(target, (GLuint)prev);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
}

/* Layer l of a plane's pattern of seed s (4 bytes a texel: RGBA8, or
 * depth as float), whose first and last rows differ. */
static void
plane_pattern(bool depth, uint32_t seed, uint32_t layer, uint8_t *out)
{
	if (depth)
		depth_pattern(seed, layer, (float *)out);
	else
		pattern(format_info(GLCUDA_FORMAT_RGBA8), seed, layer, out);
	ck_assert(memcmp(out, out + (H - 1) * W * 4, W * 4) != 0);
}

/* GL's upload of the pattern into layer l of the colour or depth plane. */
static void
plane_upload(struct glcuda_image *img, bool depth, uint32_t seed,
	     uint32_t layer)
{
	uint8_t data[W * H * 4];

	plane_pattern(depth, seed, layer, data);
	if (depth)
		upload_depth_layer(img, layer, (const float *)data);
	else
		upload_layer(img, format_info(GLCUDA_FORMAT_RGBA8), layer,
			     data);
}

/* glReadPixels of layer l of the colour or depth plane. */
static void
plane_read(struct glcuda_image *img, bool depth, uint32_t layer, uint8_t *out)
{
	read_layer(img,
		   format_info(depth ? GLCUDA_FORMAT_DEPTH32F
				     : GLCUDA_FORMAT_RGBA8),
		   layer, depth, out);
}

/* Layer `l` of linear memory (rows row_pitch apart, layers layer_pitch)
 * holds the rows of `gl` (a layer as glReadPixels read it, bottom row
 * first): in GL's order, or flipped (row y is GL's row H - 1 - y); the
 * bytes past a row untouched (0xee). */
static void
assert_rows(const uint8_t *host, size_t row_pitch, size_t layer_pitch,
	    uint32_t l, const uint8_t *gl, bool flip, const char *what)
{
	const size_t row = (size_t)W * 4;

	for (uint32_t y = 0; y < H; y++) {
		const uint32_t gy = flip ? H - 1 - y : y;
		const uint8_t *r = host + l * layer_pitch + y * row_pitch;

		ck_assert_msg(!memcmp(r, gl + gy * row, row),
			      "%s: layer %u: row %u of linear memory is not "
			      "GL's row %u",
			      what, l, y, gy);
		for (size_t x = row; x < row_pitch; x++)
			ck_assert_msg(r[x] == 0xee,
				      "%s: layer %u: byte %zu past row %u "
				      "written",
				      what, l, x, y);
	}
}

/* The copies since `before`, of `layers` layers: one copy kernel launch
 * (kernel), or the copy engine's: one 3D copy (the blocks here have
 * layer pitches of whole rows), one a row when flipped. */
static void
assert_copied_rows(const struct copies *before, bool kernel, bool flip,
		   uint32_t layers, const char *what)
{
	const struct copies now = copies_now();
	const unsigned int launches = now.kernel - before->kernel;
	const unsigned int copies = now.engine - before->engine;
	const unsigned int want = kernel ? 0 : flip ? layers * H : 1;

	ck_assert_msg(launches == (kernel ? 1u : 0u) && copies == want,
		      "%s: %u copy kernel launches and %u 3D copies, not %u "
		      "and %u",
		      what, launches, copies, kernel ? 1u : 0u, want);
}

/* Whether a copy of `layers` layers goes through the copy kernel (lib/
 * copy.c: the measured rule, GLCUDA_COPY; flipped, the kernel wins at
 * every size). */
static bool
by_kernel(bool kernels, enum way way, bool flip, uint32_t layers)
{
	if (!kernels || way == WAY_ENGINE)
		return false;
	return flip || way == WAY_KERNEL || layers == 1;
}

/* Plane `plane` of img in one origin: every layer, then its last layer
 * alone, into linear memory (rows as GL reads them, reversed for
 * TOP_LEFT) and back (GL reads linear memory's rows, reversed); then the
 * exports with a desc, versioned and not, of the image GL owns and of
 * the image CUDA owns. */
static void
origin_case(struct fake_env *e, struct glcuda_image *img, unsigned int plane,
	    enum glcuda_origin origin, enum way way, bool kernels,
	    uint32_t *seed)
{
	const bool depth = plane == 1;
	const bool flip = origin == GLCUDA_ORIGIN_TOP_LEFT;
	const struct format_info *fmt = format_info(GLCUDA_FORMAT_RGBA8);
	const uint32_t layers = glcuda_image_get_layer_count(img);
	const size_t row = (size_t)W * 4;
	static uint8_t gl[LAYERS][W * H * 4];
	uint8_t src[LAYERS][W * H * 4], got[W * H * 4];
	char what[128];

	for (int s = 0; s < 2; s++) {
		const int layer = s == 0 ? GLCUDA_ALL_LAYERS : (int)layers - 1;
		const uint32_t first = s == 0 ? 0 : layers - 1;
		const uint32_t count = s == 0 ? layers : 1;
		const bool kernel = by_kernel(kernels, way, flip, count);
		struct block b = block_new(e, fmt, count);
		struct glcuda_linear_copy c = {
			.image = img,
			.plane = plane,
			.layer = layer,
			.linear = b.ptr,
			.row_pitch = b.row_pitch,
			.layer_pitch = count > 1 ? b.layer_pitch : 0,
			.direction = GLCUDA_COPY_TO_LINEAR,
		};
		struct glcuda_copy_desc d;
		struct copies before;
		uint8_t *host;

		snprintf(what, sizeof(what), "%u layer%s, %s plane, %s, %s%s",
			 layers, layers > 1 ? "s" : "",
			 depth ? "depth" : "colour",
			 flip ? "TOP_LEFT" : "BOTTOM_LEFT",
			 s == 0 ? "every layer" : "layer ",
			 s == 0 ? "" : (layers > 1 ? "2" : "0"));
		for (uint32_t l = 0; l < layers; l++) {
			plane_upload(img, depth, *seed, l);
			plane_read(img, depth, l, gl[l]);
		}
		(*seed)++;
		glcuda_copy_desc_init(&d);
		d.copies = &c;
		d.copy_count = 1;
		d.stream = e->stream;
		d.origin = origin;
		before = copies_now();
		ck_ok(glcuda_copy_linear(e->dev, &d));
		assert_copied_rows(&before, kernel, flip, count, what);
		host = block_read(e, &b);
		for (uint32_t l = 0; l < count; l++)
			assert_rows(host, b.row_pitch, b.layer_pitch, l,
				    gl[first + l], flip, what);

		/* Back: new rows in linear memory, into GL. */
		for (uint32_t l = 0; l < count; l++) {
			plane_pattern(depth, *seed, first + l, src[l]);
			for (uint32_t y = 0; y < H; y++)
				memcpy(host + l * b.layer_pitch +
					       y * b.row_pitch,
				       src[l] + y * row, row);
		}
		(*seed)++;
		block_write(e, &b, host);
		free(host);
		c.direction = GLCUDA_COPY_FROM_LINEAR;
		before = copies_now();
		ck_ok(glcuda_copy_linear(e->dev, &d));
		assert_copied_rows(&before, kernel, flip, count, what);
		for (uint32_t l = 0; l < layers; l++) {
			const bool copied = l >= first && l < first + count;

			plane_read(img, depth, l, got);
			for (uint32_t y = 0; y < H; y++) {
				const uint32_t gy = flip ? H - 1 - y : y;

				ck_assert_msg(
					!memcmp(got + gy * row,
						copied ? src[l - first] +
								 y * row
						       : gl[l] + gy * row,
						row),
					"%s, from linear memory: layer %u: "
					"GL's row %u is not %s",
					what, l, gy,
					copied ? "the row of linear memory"
					       : "what it was (not copied)");
			}
		}
		block_free(e, &b);
	}

	/* The exports: GL owns the image (versioned, unversioned), then
	 * CUDA does. */
	for (uint32_t l = 0; l < layers; l++) {
		plane_upload(img, depth, *seed, l);
		plane_read(img, depth, l, gl[l]);
	}
	(*seed)++;
	for (int v = 0; v < 3; v++) {
		const bool kernel = by_kernel(kernels, way, flip, layers);
		const size_t bytes = (size_t)layers * H * row;
		DLManagedTensorVersioned *t = NULL;
		DLManagedTensor *u = NULL;
		struct glcuda_export_desc x;
		struct copies before;
		const DLTensor *dl;
		uint8_t *host = malloc(bytes);

		snprintf(what, sizeof(what), "%s of %u layer%s, %s plane, %s",
			 v == 0 ? "glcuda_image_export_dlpack_desc"
			 : v == 1
				 ? "glcuda_image_export_dlpack_unversioned_desc"
				 : "glcuda_image_export_dlpack_desc (CUDA's)",
			 layers, layers > 1 ? "s" : "",
			 depth ? "depth" : "colour",
			 flip ? "TOP_LEFT" : "BOTTOM_LEFT");
		glcuda_export_desc_init(&x);
		x.plane = plane;
		x.stream = e->stream;
		x.origin = origin;
		if (v == 2)
			ck_ok(glcuda_handoff_to_cuda(e->dev, &img, 1,
						     e->stream));
		before = copies_now();
		if (v == 1) {
			ck_ok(glcuda_image_export_dlpack_unversioned_desc(img,
									  &x,
									  &u));
			dl = &u->dl_tensor;
		} else {
			ck_ok(glcuda_image_export_dlpack_desc(img, &x, &t));
			dl = &t->dl_tensor;
		}
		assert_copied_rows(&before, kernel, flip, layers, what);
		if (v == 2)
			ck_ok(glcuda_handoff_to_gl(e->dev, &img, 1, e->stream));
		ck_assert_int_eq(dl->ndim, layers > 1 ? 4 : 3);
		ck_assert_int_eq(dl->shape[dl->ndim - 3], H);
		ck_assert_int_eq(dl->shape[dl->ndim - 2], W);
		fake_env_push(e);
		ck_cu(CU(cuStreamSynchronize)(e->stream));
		ck_cu(CU(cuMemcpyDtoH)(host, (CUdeviceptr)(uintptr_t)dl->data,
				       bytes));
		fake_env_pop();
		for (uint32_t l = 0; l < layers; l++)
			assert_rows(host, row, H * row, l, gl[l], flip, what);
		free(host);
		if (t)
			t->deleter(t);
		if (u)
			u->deleter(u);
	}
}

/* Both origins, both planes (RGBA8 and its depth buffer), one layer and
 * LAYERS, every layer and one, to and from linear memory and exported:
 * BOTTOM_LEFT is GL's row order, TOP_LEFT reverses it, through the way
 * the rule says (_i: the measured rule, GLCUDA_COPY=engine, =kernel, and
 * the measured rule where the kernels cannot be loaded): the copy kernel
 * (its flip), or the copy engine, one 3D copy a row flipped. */
START_TEST(test_origin_copies)
{
	const bool no_library = _i == 3;
	const enum way way = no_library ? WAY_MEASURED : (enum way)_i;
	const bool kernels = kernels_built && !no_library;
	struct glcuda_image *imgs[2];
	uint32_t seed = 1;
	struct fake_env e;

	way_set(way);
	if (no_library)
		setenv("GLCUDA_FAKE_CUDA_FAIL",
		       "cuLibraryLoadData:1:CUDA_ERROR_NOT_SUPPORTED", 1);
	fake_env_setup(&e, false);
	resolve_fake();
	if (!glcuda_device_has_format(e.dev, GLCUDA_FORMAT_DEPTH32F)) {
		tensor_teardown(&e);
		ck_abort_msg("Mesa shares no DEPTH32F images here");
	}
	imgs[0] = new_image(&e, GLCUDA_FORMAT_RGBA8, 1, GLCUDA_FORMAT_DEPTH32F);
	imgs[1] = new_image(&e, GLCUDA_FORMAT_RGBA8, LAYERS,
			    GLCUDA_FORMAT_DEPTH32F);
	for (int i = 0; i < 2; i++)
		for (unsigned int plane = 0; plane < 2; plane++) {
			origin_case(&e, imgs[i], plane,
				    GLCUDA_ORIGIN_BOTTOM_LEFT, way, kernels,
				    &seed);
			origin_case(&e, imgs[i], plane, GLCUDA_ORIGIN_TOP_LEFT,
				    way, kernels, &seed);
		}
	ck_assert_uint_eq(fake.libraries(),
			  kernels && way != WAY_ENGINE ? 1 : 0);
	glcuda_image_destroy(imgs[1]);
	glcuda_image_destroy(imgs[0]);
	tensor_teardown(&e);
}
END_TEST

/* GL: a triangle over the lower left half of the viewport whose window
 * depth slopes in x and y (its vertices' z from the uniform zs), drawn
 * into depth only. */
static GLuint
slope_program(void)
{
	static const char vs[] =
		"#version 330 core\n"
		"uniform vec3 zs;\n"
		"void main() {\n"
		"	vec2 v = vec2(gl_VertexID == 1 ? 1.0 : -1.0,\n"
		"		      gl_VertexID == 2 ? 1.0 : -1.0);\n"
		"	float z = gl_VertexID == 0 ? zs.x\n"
		"		: gl_VertexID == 1 ? zs.y : zs.z;\n"
		"	gl_Position = vec4(v, z, 1.0);\n"
		"}\n";
	static const char fs[] = "#version 330 core\n"
				 "out vec4 color;\n"
				 "void main() { color = vec4(1.0); }\n";
	const char *srcs[2] = { vs, fs };
	const GLenum types[2] = { GL_VERTEX_SHADER, GL_FRAGMENT_SHADER };
	GLuint prog = glCreateProgram();
	GLint ok = 0;
	char log[1024] = "";

	for (int i = 0; i < 2; i++) {
		GLuint s = glCreateShader(types[i]);

		glShaderSource(s, 1, &srcs[i], NULL);
		glCompileShader(s);
		glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
		glGetShaderInfoLog(s, sizeof(log), NULL, log);
		ck_assert_msg(ok, "shader %d: %s", i, log);
		glAttachShader(prog, s);
		glDeleteShader(s);
	}
	glLinkProgram(prog);
	glGetProgramiv(prog, GL_LINK_STATUS, &ok);
	glGetProgramInfoLog(prog, sizeof(log), NULL, log);
	ck_assert_msg(ok, "link: %s", log);
	return prog;
}

/* Each layer's depth cleared (1, or 0.25 in odd layers), then the sloped
 * triangle, its slope different in each layer. */
static void
draw_slopes(struct glcuda_image *img, GLuint prog, GLuint vao)
{
	const uint32_t layers = glcuda_image_get_layer_count(img);

	glUseProgram(prog);
	glBindVertexArray(vao);
	glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
	glEnable(GL_DEPTH_TEST);
	glDepthFunc(GL_ALWAYS);
	glViewport(0, 0, W, H);
	for (uint32_t l = 0; l < layers; l++) {
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER,
				  glcuda_image_get_gl_framebuffer(img, l));
		glClearDepthf(l % 2 ? 0.25f : 1.0f);
		glClear(GL_DEPTH_BUFFER_BIT);
		glUniform3f(glGetUniformLocation(prog, "zs"),
			    -0.9f + 0.3f * (float)l, 0.3f,
			    0.8f - 0.2f * (float)l);
		glDrawArrays(GL_TRIANGLES, 0, 3);
	}
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
	glDepthFunc(GL_LESS);
	glDisable(GL_DEPTH_TEST);
	glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
	glClearDepthf(1.0f);
	glBindVertexArray(0);
	glUseProgram(0);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
}

/* The header's formula, in double, for window depth d. */
static double
distance_of(const struct glcuda_depth_conversion *c, float depth)
{
	const double d = depth, n = c->znear, f = c->zfar;

	return c->mode == GLCUDA_DEPTH_PERSPECTIVE ? n * f / (f - d * (f - n))
						   : n + d * (f - n);
}

/* Layer `l` of linear memory (tight rows and layers) holds the distances
 * of GL's depth `gl` (rows flipped or not): within 1e-6 of the formula in
 * double, and the very float it rounds to. */
static void
assert_distances(const float *lin, uint32_t l, const float *gl,
		 const struct glcuda_depth_conversion *c, bool flip,
		 const char *what)
{
	for (uint32_t y = 0; y < H; y++)
		for (uint32_t x = 0; x < W; x++) {
			const uint32_t gy = flip ? H - 1 - y : y;
			const float d = gl[gy * W + x];
			const double z = distance_of(c, d);
			const float got = lin[((size_t)l * H + y) * W + x];

			ck_assert_msg(fabs(got - z) <= 1e-6 * fabs(z),
				      "%s: layer %u row %u x %u: %.9g, not "
				      "%.9g (GL's depth %.9g at row %u)",
				      what, l, y, x, (double)got, z, (double)d,
				      gy);
			ck_assert_msg(got == (float)z,
				      "%s: layer %u row %u x %u: %a, not the "
				      "float %a of the formula in double",
				      what, l, y, x, (double)got,
				      (double)(float)z);
		}
}

/* The export of the depth plane with the batch's origin and conversion
 * (v: versioned, unversioned, versioned of the image CUDA owns): one
 * launch of the copy kernel, distances of GL's depth `gl`. */
static void
depth_export(struct fake_env *e, struct glcuda_image *img, unsigned int plane,
	     const struct glcuda_copy_desc *d, int v, float (*gl)[W * H],
	     const char *what)
{
	const uint32_t layers = glcuda_image_get_layer_count(img);
	const size_t layer_bytes = (size_t)W * H * 4;
	DLManagedTensorVersioned *t = NULL;
	DLManagedTensor *u = NULL;
	struct glcuda_export_desc x;
	struct copies before;
	const DLTensor *dl;
	float *host = malloc(layers * layer_bytes);

	glcuda_export_desc_init(&x);
	x.plane = plane;
	x.stream = e->stream;
	x.origin = d->origin;
	x.depth = d->depth;
	if (v == 2)
		ck_ok(glcuda_handoff_to_cuda(e->dev, &img, 1, e->stream));
	before = copies_now();
	if (v == 1) {
		ck_ok(glcuda_image_export_dlpack_unversioned_desc(img, &x, &u));
		dl = &u->dl_tensor;
	} else {
		ck_ok(glcuda_image_export_dlpack_desc(img, &x, &t));
		dl = &t->dl_tensor;
	}
	assert_copied_by(&before, true, what);
	if (v == 2)
		ck_ok(glcuda_handoff_to_gl(e->dev, &img, 1, e->stream));
	ck_assert_int_eq(dl->dtype.code, kDLFloat);
	ck_assert_int_eq(dl->dtype.bits, 32);
	fake_env_push(e);
	ck_cu(CU(cuStreamSynchronize)(e->stream));
	ck_cu(CU(cuMemcpyDtoH)(host, (CUdeviceptr)(uintptr_t)dl->data,
			       layers * layer_bytes));
	fake_env_pop();
	for (uint32_t l = 0; l < layers; l++)
		assert_distances(host, l, gl[l], &d->depth,
				 d->origin == GLCUDA_ORIGIN_TOP_LEFT, what);
	free(host);
	if (t)
		t->deleter(t);
	if (u)
		u->deleter(u);
}

/* Depth to distance, perspective and orthographic, planes as given and
 * swapped (reversed depth), in both origins, on the depth plane of an
 * RGBA8 image with depth_format (LAYERS) and on a DEPTH32F image: through
 * glcuda_copy_linear (every layer, and one layer in the same batch, the
 * colour plane as stored beside them) and the exports with a desc,
 * against the formula applied to GL's own depth. The copy kernel converts,
 * whatever GLCUDA_COPY says (_i: the measured rule, engine, kernel). */
START_TEST(test_depth_distance)
{
	static const struct glcuda_depth_conversion convs[] = {
		{ GLCUDA_DEPTH_PERSPECTIVE, 0.1, 100.0 },
		{ GLCUDA_DEPTH_ORTHOGRAPHIC, -2.5, 40.0 },
		{ GLCUDA_DEPTH_PERSPECTIVE, 100.0, 0.1 }, /* reversed */
		{ GLCUDA_DEPTH_ORTHOGRAPHIC, 40.0, -2.5 }, /* reversed */
		{ GLCUDA_DEPTH_PERSPECTIVE, 0.01, 1000.0 },
	};
	const enum way way = (enum way)_i;
	const struct format_info *fmt = format_info(GLCUDA_FORMAT_RGBA8);
	const size_t row = (size_t)W * 4, layer_bytes = row * H;
	struct glcuda_image *both, *donly;
	struct fake_env e;
	GLuint prog, vao;

	way_set(way);
	fake_env_setup(&e, false);
	resolve_fake();
	if (!glcuda_device_has_format(e.dev, GLCUDA_FORMAT_DEPTH32F)) {
		tensor_teardown(&e);
		ck_abort_msg("Mesa shares no DEPTH32F images here");
	}
	both = new_image(&e, GLCUDA_FORMAT_RGBA8, LAYERS,
			 GLCUDA_FORMAT_DEPTH32F);
	donly = new_image(&e, GLCUDA_FORMAT_DEPTH32F, 1, 0);
	prog = slope_program();
	glGenVertexArrays(1, &vao);
	draw_slopes(both, prog, vao);
	draw_slopes(donly, prog, vao);
	for (uint32_t l = 0; l < LAYERS; l++)
		plane_upload(both, false, 9, l);

	for (int i = 0; i < 2; i++) {
		struct glcuda_image *img = i == 0 ? both : donly;
		const unsigned int plane = i == 0 ? 1 : 0;
		const uint32_t layers = glcuda_image_get_layer_count(img);
		static float gl[LAYERS][W * H];
		static uint8_t colour[LAYERS][W * H * 4];
		uint32_t cleared = 0, drawn = 0;

		for (uint32_t l = 0; l < layers; l++) {
			plane_read(img, true, l, (uint8_t *)gl[l]);
			if (i == 0)
				plane_read(img, false, l, colour[l]);
			for (uint32_t p = 0; p < W * H; p++) {
				cleared += gl[l][p] == (l % 2 ? 0.25f : 1.0f);
				drawn += gl[l][p] != gl[l][0];
			}
		}
		/* The triangle covers part of each layer, its depth sloped. */
		ck_assert_uint_gt(cleared, layers * W);
		ck_assert_uint_gt(drawn, layers * W);

		for (size_t c = 0; c < ARRAY_LENGTH(convs); c++)
			for (int o = 0; o < 2; o++) {
				const bool flip = o == 1;
				const bool colour_kernel =
					by_kernel(kernels_built, way, flip,
						  layers);
				struct block all =
					block_new_pitch(&e, fmt, layers, 0, 0);
				struct block one = block_new(&e, fmt, 1);
				struct block col =
					block_new_pitch(&e, fmt, layers, 0, 0);
				struct glcuda_linear_copy copies[3] = {
					{ .image = img,
					  .plane = plane,
					  .layer = GLCUDA_ALL_LAYERS,
					  .linear = all.ptr,
					  .row_pitch = row,
					  .layer_pitch = layer_bytes,
					  .direction = GLCUDA_COPY_TO_LINEAR },
					{ .image = img,
					  .plane = plane,
					  .layer = (int)layers - 1,
					  .linear = one.ptr,
					  .row_pitch = row,
					  .direction = GLCUDA_COPY_TO_LINEAR },
					{ .image = img,
					  .plane = 0,
					  .layer = GLCUDA_ALL_LAYERS,
					  .linear = col.ptr,
					  .row_pitch = row,
					  .layer_pitch = layer_bytes,
					  .direction = GLCUDA_COPY_TO_LINEAR },
				};
				struct glcuda_copy_desc d;
				struct copies before, after;
				char what[160];
				uint8_t *host;

				snprintf(what, sizeof(what), "%s, %s %g %g, %s",
					 i == 0 ? "depth plane of RGBA8"
						: "DEPTH32F",
					 convs[c].mode == 1 ? "perspective"
							    : "orthographic",
					 convs[c].znear, convs[c].zfar,
					 flip ? "TOP_LEFT" : "BOTTOM_LEFT");
				glcuda_copy_desc_init(&d);
				d.copies = copies;
				d.copy_count = i == 0 ? 3 : 2;
				d.stream = e.stream;
				d.origin = flip ? GLCUDA_ORIGIN_TOP_LEFT
						: GLCUDA_ORIGIN_BOTTOM_LEFT;
				d.depth = convs[c];
				if (!kernels_built) {
					ck_assert_int_eq(
						glcuda_copy_linear(e.dev, &d),
						GLCUDA_ERROR_CUDA);
					goto next;
				}
				before = copies_now();
				ck_ok(glcuda_copy_linear(e.dev, &d));
				after = copies_now();
				/* The depth copies by the kernel; the colour
				 * copy's way is the rule's. */
				ck_assert_msg(after.kernel - before.kernel ==
						      2u + (i == 0 &&
							    colour_kernel),
					      "%s: %u copy kernel launches",
					      what,
					      after.kernel - before.kernel);
				host = block_read(&e, &all);
				for (uint32_t l = 0; l < layers; l++)
					assert_distances((const float *)host, l,
							 gl[l], &convs[c], flip,
							 what);
				free(host);
				host = block_read(&e, &one);
				assert_distances((const float *)host, 0,
						 gl[layers - 1], &convs[c],
						 flip, what);
				free(host);
				if (i == 0) {
					host = block_read(&e, &col);
					for (uint32_t l = 0; l < layers; l++)
						assert_rows(host, row,
							    layer_bytes, l,
							    colour[l], flip,
							    "the colour plane "
							    "beside a depth "
							    "conversion");
					free(host);
				}

				/* The exports with the same conversion. */
				for (int v = 0; v < 3; v++)
					depth_export(&e, img, plane, &d, v, gl,
						     what);
			next:
				block_free(&e, &all);
				block_free(&e, &one);
				block_free(&e, &col);
			}
	}
	glDeleteVertexArrays(1, &vao);
	glDeleteProgram(prog);
	glcuda_image_destroy(donly);
	glcuda_image_destroy(both);
	tensor_teardown(&e);
}
END_TEST

/* The refusals of row order and depth to distance, each -EINVAL before
 * anything is enqueued, with a message that names it: the images stay
 * GL's, and a good batch and export work after them. */
START_TEST(test_origin_depth_errors)
{
	static const struct {
		int origin;
		struct glcuda_depth_conversion depth;
		const char *text;
	} bad[] = {
		{ 2,
		  { 0 },
		  "origin 2 is neither GLCUDA_ORIGIN_BOTTOM_LEFT nor "
		  "GLCUDA_ORIGIN_TOP_LEFT" },
		{ -1, { 0 }, "origin -1 is neither" },
		{ 1,
		  { (enum glcuda_depth_mode)3, 1, 2 },
		  "depth.mode 3 is none of GLCUDA_DEPTH_AS_STORED" },
		{ 0, { (enum glcuda_depth_mode) - 1, 1, 2 }, "depth.mode -1" },
		{ 1,
		  { GLCUDA_DEPTH_PERSPECTIVE, 0, 10 },
		  "depth.znear 0 and depth.zfar 10 are not the planes of a "
		  "perspective projection" },
		{ 1,
		  { GLCUDA_DEPTH_PERSPECTIVE, -0.5, 10 },
		  "depth.znear -0.5 and depth.zfar 10 are not the planes of a "
		  "perspective" },
		{ 1,
		  { GLCUDA_DEPTH_PERSPECTIVE, 10, 0 },
		  "depth.znear 10 and depth.zfar 0 are not the planes of a "
		  "perspective" },
		{ 1,
		  { GLCUDA_DEPTH_PERSPECTIVE, 0.1, -100 },
		  "depth.znear 0.1 and depth.zfar -100 are not the planes of a "
		  "perspective" },
		{ 0,
		  { GLCUDA_DEPTH_PERSPECTIVE, 3, 3 },
		  "depth.znear 3 and depth.zfar 3 are not the planes of a "
		  "perspective" },
		{ 1,
		  { GLCUDA_DEPTH_PERSPECTIVE, 0.1, INFINITY },
		  "depth.znear 0.1 and depth.zfar inf are not the planes of a "
		  "perspective" },
		{ 1,
		  { GLCUDA_DEPTH_PERSPECTIVE, NAN, 10 },
		  "depth.znear nan and depth.zfar 10 are not the planes of a "
		  "perspective" },
		{ 1,
		  { GLCUDA_DEPTH_ORTHOGRAPHIC, -2, -2 },
		  "depth.znear -2 and depth.zfar -2 are not the planes of an "
		  "orthographic projection" },
		{ 1,
		  { GLCUDA_DEPTH_ORTHOGRAPHIC, 0, INFINITY },
		  "depth.znear 0 and depth.zfar inf are not the planes of an "
		  "orthographic" },
		{ 0,
		  { GLCUDA_DEPTH_ORTHOGRAPHIC, -INFINITY, 1 },
		  "depth.znear -inf and depth.zfar 1 are not the planes of an "
		  "orthographic" },
		{ 1,
		  { GLCUDA_DEPTH_ORTHOGRAPHIC, 1, NAN },
		  "depth.znear 1 and depth.zfar nan are not the planes of an "
		  "orthographic" },
	};
	const struct format_info *fmt = format_info(GLCUDA_FORMAT_RGBA8);
	const struct glcuda_depth_conversion good = { GLCUDA_DEPTH_PERSPECTIVE,
						      0.1, 10 };
	struct glcuda_image *img, *donly, *plain;
	struct glcuda_linear_copy copies[2];
	struct glcuda_copy_desc desc;
	struct glcuda_export_desc x;
	struct batch_probe probe = { 0 };
	DLManagedTensorVersioned *t = NULL;
	DLManagedTensor *u = NULL;
	struct copies before;
	struct fake_env e;
	struct block b;
	CUcontext ctx;
	char text[160];

	fake_env_setup(&e, false);
	resolve_fake();
	if (!glcuda_device_has_format(e.dev, GLCUDA_FORMAT_DEPTH32F)) {
		tensor_teardown(&e);
		ck_abort_msg("Mesa shares no DEPTH32F images here");
	}
	img = new_image(&e, GLCUDA_FORMAT_RGBA8, LAYERS,
			GLCUDA_FORMAT_DEPTH32F);
	donly = new_image(&e, GLCUDA_FORMAT_DEPTH32F, 1, 0);
	plain = new_image(&e, GLCUDA_FORMAT_RGBA8, 1, 0);
	b = block_new(&e, fmt, LAYERS);
	copies[0] = block_copy(img, 1, GLCUDA_ALL_LAYERS, &b,
				GLCUDA_COPY_TO_LINEAR);
	copies[1] = block_copy(plain, 0, 0, &b,
				GLCUDA_COPY_FROM_LINEAR);
	glcuda_copy_desc_init(&desc);
	desc.copies = copies;
	desc.copy_count = 2;
	desc.stream = e.stream;
	desc.enqueue = batch_probe_enqueue;
	desc.enqueue_data = &probe;
	probe.e = &e;

/* The call fails with ret and text, and nothing was enqueued. */
#define NOTHING_ENQUEUED(call, ret, text)                                \
	do {                                                             \
		before = copies_now();                                   \
		ck_assert_int_eq((call), (ret));                         \
		ck_assert_msg(strstr(glcuda_get_last_error(), (text)),   \
			      "\"%s\" is not in \"%s\"", (text),         \
			      glcuda_get_last_error());                  \
		ck_assert_msg(CU(cuCtxPopCurrent)(&ctx) != CUDA_SUCCESS, \
			      "a failed call left a context pushed");    \
		ck_assert_uint_eq(copies_now().kernel, before.kernel);   \
		ck_assert_uint_eq(copies_now().engine, before.engine);   \
		ck_assert_uint_eq(probe.calls, 0);                       \
		ck_assert_ptr_null(t);                                   \
		ck_assert_ptr_null(u);                                   \
	} while (0)
	for (size_t i = 0; i < ARRAY_LENGTH(bad); i++) {
		desc.origin = (enum glcuda_origin)bad[i].origin;
		desc.depth = bad[i].depth;
		snprintf(text, sizeof(text), "glcuda_copy_linear: %s",
			 bad[i].text);
		NOTHING_ENQUEUED(glcuda_copy_linear(e.dev, &desc), -EINVAL,
				 text);
		glcuda_export_desc_init(&x);
		x.plane = 1;
		x.stream = e.stream;
		x.origin = desc.origin;
		x.depth = desc.depth;
		snprintf(text, sizeof(text),
			 "glcuda_image_export_dlpack_desc: %s", bad[i].text);
		NOTHING_ENQUEUED(glcuda_image_export_dlpack_desc(img, &x, &t),
				 -EINVAL, text);
		snprintf(text, sizeof(text),
			 "glcuda_image_export_dlpack_unversioned_desc: %s",
			 bad[i].text);
		NOTHING_ENQUEUED(glcuda_image_export_dlpack_unversioned_desc(
					 img, &x, &u),
				 -EINVAL, text);
	}

	/* Out of linear memory into a depth plane, with a conversion set:
	 * refused (distances are not turned back into depth), of a depth
	 * buffer and of a DEPTH32F image; into a colour plane, the batch's
	 * conversion does not concern it. */
	desc.origin = GLCUDA_ORIGIN_TOP_LEFT;
	desc.depth = good;
	copies[1] = block_copy(img, 1, 1, &b,
				GLCUDA_COPY_FROM_LINEAR);
	NOTHING_ENQUEUED(glcuda_copy_linear(e.dev, &desc), -EINVAL,
			 "glcuda_copy_linear: copies[1]: a copy into depth "
			 "plane 1 with desc.depth set");
	copies[1].image = donly;
	copies[1].plane = 0;
	copies[1].layer = 0;
	desc.depth.mode = GLCUDA_DEPTH_ORTHOGRAPHIC;
	NOTHING_ENQUEUED(glcuda_copy_linear(e.dev, &desc), -EINVAL,
			 "glcuda_copy_linear: copies[1]: a copy into depth "
			 "plane 0 with desc.depth set");

	/* The export's conversion of a plane that is not depth: the colour
	 * plane of an image with depth, a colour image's. */
	glcuda_export_desc_init(&x);
	x.stream = e.stream;
	x.depth = good;
	NOTHING_ENQUEUED(glcuda_image_export_dlpack_desc(img, &x, &t), -EINVAL,
			 "glcuda_image_export_dlpack_desc: depth.mode asks "
			 "for distances of plane 0, which is not a depth "
			 "plane");
	x.depth.mode = GLCUDA_DEPTH_ORTHOGRAPHIC;
	NOTHING_ENQUEUED(glcuda_image_export_dlpack_unversioned_desc(plain, &x,
								     &u),
			 -EINVAL,
			 "glcuda_image_export_dlpack_unversioned_desc: "
			 "depth.mode asks for distances of plane 0, which is "
			 "not a depth plane");
	/* The desc itself. */
	NOTHING_ENQUEUED(glcuda_image_export_dlpack_desc(img, NULL, &t),
			 -EINVAL,
			 "glcuda_image_export_dlpack_desc: desc is "
			 "NULL");
	NOTHING_ENQUEUED(glcuda_image_export_dlpack_desc(NULL, &x, &t), -EINVAL,
			 "glcuda_image_export_dlpack_desc: img is "
			 "NULL");
	NOTHING_ENQUEUED(glcuda_image_export_dlpack_unversioned_desc(img, &x,
								     NULL),
			 -EINVAL,
			 "glcuda_image_export_dlpack_unversioned_desc: "
			 "out is NULL");
	glcuda_export_desc_init(&x);
	x.plane = 1;
	x.stream = e.stream;
	x.size = 0;
	NOTHING_ENQUEUED(glcuda_image_export_dlpack_desc(img, &x, &t), -EINVAL,
			 "glcuda_image_export_dlpack_desc: glcuda_export_desc."
			 "size is 0");
	x.size = sizeof(x) + 8;
	NOTHING_ENQUEUED(glcuda_image_export_dlpack_unversioned_desc(img, &x,
								     &u),
			 -EINVAL,
			 "glcuda_image_export_dlpack_unversioned_desc: "
			 "glcuda_export_desc.size is");
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "larger than"));
	x.size = sizeof(size_t) - 1;
	NOTHING_ENQUEUED(glcuda_image_export_dlpack_desc(img, &x, &t), -EINVAL,
			 "smaller than any version");
#undef NOTHING_ENQUEUED

	/* Every image is GL's still. */
	{
		struct glcuda_image *all[3] = { img, donly, plain };

		ck_ok(glcuda_handoff_to_cuda(e.dev, all, 3, e.stream));
		ck_ok(glcuda_handoff_to_gl(e.dev, all, 3, e.stream));
	}
	/* Reversed planes and orthographic planes below 0 are planes; a
	 * copy into a colour plane in a batch with a conversion is not
	 * converted, so not refused. */
	copies[1] = block_copy(plain, 0, 0, &b,
				GLCUDA_COPY_FROM_LINEAR);
	desc.depth = (struct glcuda_depth_conversion){ GLCUDA_DEPTH_PERSPECTIVE,
						       10, 0.1 };
	if (kernels_built) {
		ck_ok(glcuda_copy_linear(e.dev, &desc));
		ck_assert_uint_eq(probe.calls, 1);
		desc.depth = (struct glcuda_depth_conversion){
			GLCUDA_DEPTH_ORTHOGRAPHIC, -5, -1
		};
		ck_ok(glcuda_copy_linear(e.dev, &desc));
		ck_assert_uint_eq(probe.calls, 2);
		glcuda_export_desc_init(&x);
		x.plane = 1;
		x.stream = e.stream;
		x.origin = GLCUDA_ORIGIN_TOP_LEFT;
		x.depth = good;
		ck_ok(glcuda_image_export_dlpack_desc(img, &x, &t));
		t->deleter(t);
		x.plane = 0;
		ck_ok(glcuda_image_export_dlpack_unversioned_desc(donly, &x,
								  &u));
		u->deleter(u);
	}
	block_free(&e, &b);
	glcuda_image_destroy(plain);
	glcuda_image_destroy(donly);
	glcuda_image_destroy(img);
	tensor_teardown(&e);
}
END_TEST

/* Where the copy kernels cannot be had (cuLibraryLoadData fails, as
 * without CUDA 12.0's library API, or a build without nvcc), a depth
 * conversion fails with GLCUDA_ERROR_CUDA and says why, from the batch
 * and the exports; the images are GL's again; the same copies without
 * the conversion work (rows flipped by the copy engine). */
START_TEST(test_depth_without_kernels)
{
	const struct format_info *fmt = format_info(GLCUDA_FORMAT_RGBA8);
	const char *text = "depth to distance runs in glcuda's copy kernels";
	struct glcuda_image *img, *donly;
	struct glcuda_linear_copy copies[2];
	struct glcuda_copy_desc desc;
	struct glcuda_export_desc x;
	DLManagedTensorVersioned *t = NULL;
	DLManagedTensor *u = NULL;
	struct copies before;
	struct fake_env e;
	struct block b, one;
	char want[160];

	way_set(WAY_MEASURED);
	setenv("GLCUDA_FAKE_CUDA_FAIL",
	       "cuLibraryLoadData:1:CUDA_ERROR_NOT_SUPPORTED", 1);
	fake_env_setup(&e, false);
	resolve_fake();
	if (!glcuda_device_has_format(e.dev, GLCUDA_FORMAT_DEPTH32F)) {
		tensor_teardown(&e);
		ck_abort_msg("Mesa shares no DEPTH32F images here");
	}
	img = new_image(&e, GLCUDA_FORMAT_RGBA8, LAYERS,
			GLCUDA_FORMAT_DEPTH32F);
	donly = new_image(&e, GLCUDA_FORMAT_DEPTH32F, 1, 0);
	b = block_new(&e, fmt, LAYERS);
	one = block_new(&e, fmt, 1);
	copies[0] = block_copy(img, 1, GLCUDA_ALL_LAYERS, &b,
				GLCUDA_COPY_TO_LINEAR);
	copies[1] = block_copy(donly, 0, 0, &one,
				GLCUDA_COPY_TO_LINEAR);
	glcuda_copy_desc_init(&desc);
	desc.copies = copies;
	desc.copy_count = 2;
	desc.stream = e.stream;
	desc.origin = GLCUDA_ORIGIN_TOP_LEFT;
	desc.depth = (struct glcuda_depth_conversion){ GLCUDA_DEPTH_PERSPECTIVE,
						       0.1, 10 };
	ck_assert_int_eq(glcuda_copy_linear(e.dev, &desc), GLCUDA_ERROR_CUDA);
	snprintf(want, sizeof(want), "glcuda_copy_linear: %s", text);
	ck_assert_msg(strstr(glcuda_get_last_error(), want),
		      "\"%s\" is not in \"%s\"", want, glcuda_get_last_error());
	glcuda_export_desc_init(&x);
	x.plane = 1;
	x.stream = e.stream;
	x.depth = desc.depth;
	ck_assert_int_eq(glcuda_image_export_dlpack_desc(img, &x, &t),
			 GLCUDA_ERROR_CUDA);
	snprintf(want, sizeof(want), "glcuda_image_export_dlpack_desc: %s",
		 text);
	ck_assert_msg(strstr(glcuda_get_last_error(), want),
		      "\"%s\" is not in \"%s\"", want, glcuda_get_last_error());
	ck_assert_ptr_null(t);
	x.plane = 0;
	x.depth.mode = GLCUDA_DEPTH_ORTHOGRAPHIC;
	ck_assert_int_eq(glcuda_image_export_dlpack_unversioned_desc(donly, &x,
								     &u),
			 GLCUDA_ERROR_CUDA);
	snprintf(want, sizeof(want),
		 "glcuda_image_export_dlpack_unversioned_desc: %s", text);
	ck_assert_msg(strstr(glcuda_get_last_error(), want),
		      "\"%s\" is not in \"%s\"", want, glcuda_get_last_error());
	ck_assert_ptr_null(u);
	/* GL's again. */
	{
		struct glcuda_image *all[2] = { img, donly };

		ck_ok(glcuda_handoff_to_cuda(e.dev, all, 2, e.stream));
		ck_ok(glcuda_handoff_to_gl(e.dev, all, 2, e.stream));
	}
	/* As stored, flipped by the copy engine: a 3D copy a row. */
	desc.depth.mode = GLCUDA_DEPTH_AS_STORED;
	before = copies_now();
	ck_ok(glcuda_copy_linear(e.dev, &desc));
	ck_assert_uint_eq(copies_now().kernel, before.kernel);
	ck_assert_uint_eq(copies_now().engine - before.engine,
			  (LAYERS + 1) * H);
	x.depth.mode = GLCUDA_DEPTH_AS_STORED;
	ck_ok(glcuda_image_export_dlpack_unversioned_desc(donly, &x, &u));
	u->deleter(u);
	ck_assert_uint_eq(fake.libraries(), 0);
	block_free(&e, &b);
	block_free(&e, &one);
	glcuda_image_destroy(donly);
	glcuda_image_destroy(img);
	tensor_teardown(&e);
}
END_TEST

int
main(void)
{
	const struct test_case cases[] = {
		TEST_TCASE("tensor", 120),
		TEST_RANGE(test_copies_every_format, 0, 12),
		TEST_RANGE(test_copy_kernels_per_process, 0, 4),
		TEST_ONCE(test_copy_errors),
		TEST_RANGE(test_image_desc_errors, 0, 2),
		TEST_RANGE(test_layered_draw_and_dlpack, 0, 2),
		TEST_ONCE(test_dlpack_errors),
		TEST_RANGE(test_copy_layer_and_odd_pitch, 0, 8),
		TEST_RANGE(test_depth_texture_getter, 0, 2),
		TEST_RANGE(test_dlpack_every_format, 0, 2),
		TEST_ONCE(test_pool_across_streams),
		TEST_RANGE(test_copy_linear_batch, 0, 2),
		TEST_ONCE(test_copy_linear_errors),
		TEST_RANGE(test_origin_copies, 0, 4),
		TEST_RANGE(test_depth_distance, 0, 3),
		TEST_ONCE(test_origin_depth_errors),
		TEST_ONCE(test_depth_without_kernels),
	};

	fake_cuda_test_setup();
	return test_run_cases("tensor-cpu", cases);
}
