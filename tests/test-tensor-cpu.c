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
	};

	fake_cuda_test_setup();
	return test_run_cases("tensor-cpu", cases);
}
