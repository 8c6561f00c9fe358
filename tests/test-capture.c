/*
 * glcuda_capture_framebuffers() without CUDA: every colour and depth
 * format of a renderer's framebuffer, in textures and renderbuffers,
 * single-sampled and multisampled, captured into a layer of an image and
 * compared with what glReadPixels reads of the source (of a resolved copy
 * for a multisampled one), in both row orders; the GL state, the current
 * context and bad input. GL and GLES. Runs on Mesa (CI) and NVIDIA.
 * SPDX-License-Identifier: MIT
 */
#include "test-common.h"
#include "image.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct glcuda_headless *hl;
static struct glcuda_device *dev;
static bool gles;

/* The source framebuffer, and the rectangle captured out of it. */
#define SRC_W 64
#define SRC_H 48
#define CAP_X 5
#define CAP_Y 11
#define CAP_W 37
#define CAP_H 29
#define LAYERS 3
/* What layers 0 and 2 hold before: nothing writes them. */
static const uint8_t clear_rgba[4] = { 0x11, 0x22, 0x33, 0x44 };
#define CLEAR_DEPTH 0.25f

static const GLenum color_formats[] = { GL_RGBA8, GL_RGB8, GL_SRGB8_ALPHA8 };
static const GLenum depth_formats[] = {
	GL_DEPTH_COMPONENT16, GL_DEPTH_COMPONENT24, GL_DEPTH24_STENCIL8,
	GL_DEPTH_COMPONENT32F, GL_DEPTH32F_STENCIL8,
};

static void
setup(bool use_gles)
{
	int ret;

	gles = use_gles;
	hl = test_headless(gles);
	ret = device_new_internal(glcuda_headless_get_display(hl),
				  glcuda_headless_get_context(hl), NULL, false,
				  &dev);
	ck_assert_msg(ret == 0, "%s: %s", glcuda_error_get_name(ret),
		      glcuda_get_last_error());
}

static void
teardown(void)
{
	glcuda_device_destroy(dev);
	glcuda_headless_destroy(hl);
	dev = NULL;
	hl = NULL;
}

/* A renderer's framebuffer ------------------------------------------------ */

struct source {
	GLuint fbo, color, depth;
	bool renderbuffer;
};

static GLuint
make_buffer(GLenum format, bool renderbuffer, int samples)
{
	GLuint name;

	if (renderbuffer) {
		glGenRenderbuffers(1, &name);
		glBindRenderbuffer(GL_RENDERBUFFER, name);
		if (samples > 1)
			glRenderbufferStorageMultisample(GL_RENDERBUFFER,
							 samples, format, SRC_W,
							 SRC_H);
		else
			glRenderbufferStorage(GL_RENDERBUFFER, format, SRC_W,
					      SRC_H);
		glBindRenderbuffer(GL_RENDERBUFFER, 0);
	} else {
		GLenum target = samples > 1 ? GL_TEXTURE_2D_MULTISAMPLE
					    : GL_TEXTURE_2D;

		glGenTextures(1, &name);
		glBindTexture(target, name);
		if (samples > 1)
			glTexStorage2DMultisample(target, samples, format,
						  SRC_W, SRC_H, GL_TRUE);
		else
			glTexStorage2D(target, 1, format, SRC_W, SRC_H);
		glBindTexture(target, 0);
	}
	return name;
}

static void
attach(GLenum point, GLuint name, bool renderbuffer, int samples)
{
	if (renderbuffer)
		glFramebufferRenderbuffer(GL_FRAMEBUFFER, point,
					  GL_RENDERBUFFER, name);
	else
		glFramebufferTexture2D(GL_FRAMEBUFFER, point,
				       samples > 1 ? GL_TEXTURE_2D_MULTISAMPLE
						   : GL_TEXTURE_2D,
				       name, 0);
}

static bool
depth_is_float(GLenum format)
{
	return format == GL_DEPTH_COMPONENT32F ||
	       format == GL_DEPTH32F_STENCIL8;
}

static GLenum
depth_point(GLenum format)
{
	return format == GL_DEPTH24_STENCIL8 || format == GL_DEPTH32F_STENCIL8
		       ? GL_DEPTH_STENCIL_ATTACHMENT
		       : GL_DEPTH_ATTACHMENT;
}

/* A framebuffer of a colour format and a depth format (0: none), bound. */
static struct source
source_new(GLenum color_format, GLenum depth_format, bool renderbuffer,
	   int samples)
{
	struct source s = { .renderbuffer = renderbuffer };

	glGenFramebuffers(1, &s.fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, s.fbo);
	if (color_format) {
		s.color = make_buffer(color_format, renderbuffer, samples);
		attach(GL_COLOR_ATTACHMENT0, s.color, renderbuffer, samples);
	}
	if (depth_format) {
		s.depth = make_buffer(depth_format, renderbuffer, samples);
		attach(depth_point(depth_format), s.depth, renderbuffer,
		       samples);
	}
	ck_assert_int_eq(glCheckFramebufferStatus(GL_FRAMEBUFFER),
			 GL_FRAMEBUFFER_COMPLETE);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
	return s;
}

static void
source_free(struct source *s)
{
	glDeleteFramebuffers(1, &s->fbo);
	if (s->renderbuffer) {
		glDeleteRenderbuffers(1, &s->color);
		glDeleteRenderbuffers(1, &s->depth);
	} else {
		glDeleteTextures(1, &s->color);
		glDeleteTextures(1, &s->depth);
	}
}

/* The pattern: colour and depth different on every row and column (mode
 * 0, over the whole framebuffer), then a triangle of one colour at an
 * interpolated depth across it (mode 1), whose edges cover pixels partly:
 * their samples differ, and a resolve shows. */
static const char pattern_vs[] =
	"in vec2 position;\n"
	"uniform int mode;\n"
	"void main()\n"
	"{\n"
	"	vec2 p = mode == 0 ? vec2(gl_VertexID == 1 ? 3.0 : -1.0,\n"
	"				  gl_VertexID == 2 ? 3.0 : -1.0)\n"
	"			   : vec2(gl_VertexID == 0 ? -0.7 : 0.9,\n"
	"				  gl_VertexID == 2 ? 0.8 : -0.6);\n"
	"	float z = mode == 0 ? 0.0 : p.x * 0.3 - 0.2;\n"
	"	gl_Position = vec4(p, z, 1.0);\n"
	"}\n";
static const char pattern_fs[] =
	"uniform int mode;\n"
	"out vec4 color;\n"
	"void main()\n"
	"{\n"
	"	ivec2 p = ivec2(gl_FragCoord.xy);\n"
	"	if (mode == 0) {\n"
	"		color = vec4(float((p.x * 7) % 256),\n"
	"			     float((p.y * 5 + 3) % 256),\n"
	"			     float((p.x * 3 + p.y * 11) % 256),\n"
	"			     float(255 - p.y)) / 255.0;\n"
	"		gl_FragDepth = 0.01 + float(p.x) * 0.0037 +\n"
	"			       float(p.y) * 0.0131;\n"
	"	} else {\n"
	"		color = vec4(0.9, 0.1, 0.6, 0.3);\n"
	"		gl_FragDepth = gl_FragCoord.z;\n"
	"	}\n"
	"}\n";

static void
draw_pattern(GLuint fbo)
{
	GLuint program = glCreateProgram(), vao;
	GLuint vs = test_shader(GL_VERTEX_SHADER, gles, pattern_vs),
	       fs = test_shader(GL_FRAGMENT_SHADER, gles, pattern_fs);

	glAttachShader(program, vs);
	glAttachShader(program, fs);
	glLinkProgram(program);
	glDeleteShader(vs);
	glDeleteShader(fs);
	glGenVertexArrays(1, &vao);
	glBindVertexArray(vao);
	glUseProgram(program);
	glBindFramebuffer(GL_FRAMEBUFFER, fbo);
	glViewport(0, 0, SRC_W, SRC_H);
	glEnable(GL_DEPTH_TEST);
	glDepthFunc(GL_ALWAYS);
	glUniform1i(glGetUniformLocation(program, "mode"), 0);
	glDrawArrays(GL_TRIANGLES, 0, 3);
	glUniform1i(glGetUniformLocation(program, "mode"), 1);
	glDrawArrays(GL_TRIANGLES, 0, 3);
	glDisable(GL_DEPTH_TEST);
	glDepthFunc(GL_LESS);
	glUseProgram(0);
	glBindVertexArray(0);
	glDeleteVertexArrays(1, &vao);
	glDeleteProgram(program);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
}

/* What a renderer reads back ---------------------------------------------- */

/* Read w x h at (x, y) of a framebuffer (colour RGBA bytes, or depth
 * floats); a multisampled one through a resolved copy made as renderers
 * make it, a blit into a single-sampled framebuffer of the same formats. */
static void
read_source(GLuint fbo, GLenum color_format, GLenum depth_format, int samples,
	    bool depth, int x, int y, int w, int h, void *out)
{
	struct source resolved = { 0 };

	if (samples > 1) {
		resolved = source_new(color_format, depth_format, false, 1);
		glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, resolved.fbo);
		glBlitFramebuffer(0, 0, SRC_W, SRC_H, 0, 0, SRC_W, SRC_H,
				  depth ? GL_DEPTH_BUFFER_BIT
					: GL_COLOR_BUFFER_BIT,
				  GL_NEAREST);
		fbo = resolved.fbo;
	}
	glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
	glPixelStorei(GL_PACK_ALIGNMENT, 1);
	if (depth && gles && !depth_is_float(depth_format)) {
		/* GLES reads normalized depth as integers only. */
		uint32_t *u = out;

		glReadPixels(x, y, w, h, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT,
			     out);
		for (int i = 0; i < w * h; i++)
			((float *)out)[i] = (float)(u[i] / 4294967295.0);
	} else if (depth)
		glReadPixels(x, y, w, h, GL_DEPTH_COMPONENT, GL_FLOAT, out);
	else
		glReadPixels(x, y, w, h, GL_RGBA, GL_UNSIGNED_BYTE, out);
	ck_assert_msg(glGetError() == GL_NO_ERROR, "glReadPixels of the "
		      "source");
	if (samples > 1)
		source_free(&resolved);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

/* One layer of an image, through its framebuffer. */
static void
read_layer(struct glcuda_image *img, unsigned int layer, bool depth,
	   void *out)
{
	glBindFramebuffer(GL_READ_FRAMEBUFFER,
			  glcuda_image_get_gl_framebuffer(img, layer));
	glPixelStorei(GL_PACK_ALIGNMENT, 1);
	if (depth)
		glReadPixels(0, 0, (GLsizei)img->width, (GLsizei)img->height,
			     GL_DEPTH_COMPONENT, GL_FLOAT, out);
	else
		glReadPixels(0, 0, (GLsizei)img->width, (GLsizei)img->height,
			     GL_RGBA, GL_UNSIGNED_BYTE, out);
	ck_assert_msg(glGetError() == GL_NO_ERROR, "glReadPixels of layer %u",
		      layer);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
}

/* A w x h x 3 RGBA8 image with a DEPTH32F plane, every layer cleared. */
static struct glcuda_image *
image_new(uint32_t w, uint32_t h, enum glcuda_format format,
	  enum glcuda_format depth_format)
{
	struct glcuda_image_desc desc;
	struct glcuda_image *img = NULL;

	glcuda_image_desc_init(&desc);
	desc.width = w;
	desc.height = h;
	desc.layers = LAYERS;
	desc.format = format;
	desc.depth_format = depth_format;
	ck_ok(glcuda_image_new(dev, &desc, &img));
	for (unsigned int l = 0; l < LAYERS; l++) {
		glBindFramebuffer(GL_FRAMEBUFFER,
				  glcuda_image_get_gl_framebuffer(img, l));
		glClearColor(clear_rgba[0] / 255.0f, clear_rgba[1] / 255.0f,
			     clear_rgba[2] / 255.0f, clear_rgba[3] / 255.0f);
		glClearDepthf(CLEAR_DEPTH);
		glClear(format == GLCUDA_FORMAT_DEPTH32F ? GL_DEPTH_BUFFER_BIT
			: depth_format ? GL_COLOR_BUFFER_BIT |
						 GL_DEPTH_BUFFER_BIT
				       : GL_COLOR_BUFFER_BIT);
	}
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
	return img;
}

/* The layers not in `written` (a mask) hold what image_new cleared them
 * to. */
static void
check_untouched(struct glcuda_image *img, unsigned int written, bool color,
		bool depth)
{
	const size_t n = (size_t)img->width * img->height;
	uint8_t *rgba = malloc(n * 4);
	float *z = malloc(n * sizeof(float));

	for (unsigned int l = 0; l < LAYERS; l++) {
		if (written & (1u << l))
			continue;
		if (color)
			read_layer(img, l, false, rgba);
		if (depth)
			read_layer(img, l, true, z);
		for (size_t i = 0; i < n; i++) {
			ck_assert_msg(!color || !memcmp(rgba + 4 * i,
							clear_rgba, 4),
				      "layer %u, pixel %zu: colour written", l,
				      i);
			ck_assert_msg(!depth || z[i] == CLEAR_DEPTH,
				      "layer %u, pixel %zu: depth written", l,
				      i);
		}
	}
	free(rgba);
	free(z);
}

/* The image's layer holds the source's rectangle: row r of the image is
 * row r of the source's readback (BOTTOM_LEFT) or row h - 1 - r. */
/* tolerance: of depth, 0 for exact (GLES reads normalized depth back as
 * integers only, which GL converts otherwise than the sampler). */
static void
check_layer(struct glcuda_image *img, unsigned int layer, bool depth,
	    const void *want, bool top_left, float tolerance,
	    const char *what)
{
	const uint32_t w = img->width, h = img->height;
	const size_t bpp = depth ? sizeof(float) : 4, row = w * bpp;
	uint8_t *got = malloc(row * h);

	read_layer(img, layer, depth, got);
	for (uint32_t r = 0; r < h; r++) {
		const uint8_t *g = got + r * row,
			      *e = (const uint8_t *)want +
				   (top_left ? h - 1 - r : r) * row;

		for (uint32_t x = 0; x < w; x++) {
			if (!memcmp(g + x * bpp, e + x * bpp, bpp))
				continue;
			if (depth && fabsf(((const float *)g)[x] -
					   ((const float *)e)[x]) <= tolerance)
				continue;
			if (depth)
				ck_abort_msg("%s: depth of row %u, column %u: "
					     "%.9g, the source's %.9g",
					     what, r, x,
					     ((const float *)g)[x],
					     ((const float *)e)[x]);
			ck_abort_msg("%s: colour of row %u, column %u: "
				     "%02x%02x%02x%02x, the source's "
				     "%02x%02x%02x%02x",
				     what, r, x, g[4 * x], g[4 * x + 1],
				     g[4 * x + 2], g[4 * x + 3], e[4 * x],
				     e[4 * x + 1], e[4 * x + 2], e[4 * x + 3]);
		}
	}
	free(got);
}

static int
capture_one(GLuint fbo, int x, int y, struct glcuda_image *img,
	    unsigned int layer, unsigned int flags, enum glcuda_origin origin)
{
	struct glcuda_capture c = {
		.framebuffer = fbo, .x = x, .y = y, .image = img,
		.layer = layer, .flags = flags,
	};
	struct glcuda_capture_desc desc;

	glcuda_capture_desc_init(&desc);
	desc.captures = &c;
	desc.count = 1;
	desc.origin = origin;
	return glcuda_capture_framebuffers(dev, &desc);
}

/* _i: the colour format (of 3) and the depth format (of 5), textures or
 * renderbuffers, single-sampled or 4 samples. */
static void
formats(bool use_gles, int i)
{
	const GLenum color_format = color_formats[i % 3];
	const GLenum depth_format = depth_formats[i % 5];
	const bool renderbuffer = (i / 5) % 2;
	const int samples = (i / 10) % 2 ? 4 : 1;
	const size_t n = CAP_W * CAP_H;
	uint8_t *rgba = malloc(n * 4);
	float *z = malloc(n * sizeof(float));
	struct glcuda_image *img;
	struct source src;
	char what[128];

	setup(use_gles);
	src = source_new(color_format, depth_format, renderbuffer, samples);
	draw_pattern(src.fbo);
	read_source(src.fbo, color_format, depth_format, samples, false,
		    CAP_X, CAP_Y, CAP_W, CAP_H, rgba);
	read_source(src.fbo, color_format, depth_format, samples, true,
		    CAP_X, CAP_Y, CAP_W, CAP_H, z);
	img = image_new(CAP_W, CAP_H, GLCUDA_FORMAT_RGBA8,
			GLCUDA_FORMAT_DEPTH32F);
	for (int o = 0; o < 2; o++) {
		const enum glcuda_origin origin = o ? GLCUDA_ORIGIN_TOP_LEFT
						    : GLCUDA_ORIGIN_BOTTOM_LEFT;

		snprintf(what, sizeof(what),
			 "%s colour 0x%04x, depth 0x%04x, %s, %d sample(s), "
			 "%s",
			 gles ? "GLES" : "GL", color_format, depth_format,
			 renderbuffer ? "renderbuffers" : "textures", samples,
			 o ? "TOP_LEFT" : "BOTTOM_LEFT");
		ck_ok(capture_one(src.fbo, CAP_X, CAP_Y, img, 1,
				  GLCUDA_CAPTURE_COLOR | GLCUDA_CAPTURE_DEPTH,
				  origin));
		check_layer(img, 1, false, rgba, o, 0, what);
		check_layer(img, 1, true, z, o,
			    gles && !depth_is_float(depth_format) ? 1.2e-7f
								  : 0,
			    what);
		check_untouched(img, 1u << 1, true, true);
		printf("%s: exact\n", what);
	}
	glcuda_image_destroy(img);
	source_free(&src);
	free(rgba);
	free(z);
	teardown();
}

START_TEST(formats_gl)
{
	formats(false, _i);
}
END_TEST

START_TEST(formats_gles)
{
	formats(true, _i);
}
END_TEST

/* Every item of GL state the call touches, as glGet says it. */
struct state {
	GLint ints[24];
	GLboolean bools[12];
};

static void
get_state(struct state *st)
{
	static const GLenum ints[] = {
		GL_READ_FRAMEBUFFER_BINDING, GL_DRAW_FRAMEBUFFER_BINDING,
		GL_CURRENT_PROGRAM, GL_VERTEX_ARRAY_BINDING, GL_DEPTH_FUNC,
		GL_ACTIVE_TEXTURE, GL_TEXTURE_BINDING_2D, GL_SAMPLER_BINDING,
		GL_PACK_ALIGNMENT, GL_UNPACK_ALIGNMENT, GL_PACK_ROW_LENGTH,
		GL_PACK_SKIP_ROWS, GL_UNPACK_SKIP_PIXELS,
		GL_PIXEL_PACK_BUFFER_BINDING, GL_PIXEL_UNPACK_BUFFER_BINDING,
		GL_RENDERBUFFER_BINDING,
	};
	static const GLenum caps[] = {
		GL_SCISSOR_TEST, GL_DEPTH_TEST, GL_STENCIL_TEST, GL_BLEND,
		GL_CULL_FACE, GL_RASTERIZER_DISCARD,
	};
	GLint active;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < ARRAY_LENGTH(ints); i++)
		glGetIntegerv(ints[i], &st->ints[i]);
	glGetIntegerv(GL_VIEWPORT, &st->ints[16]);
	/* Unit 0's bindings, seen from unit 0. */
	glGetIntegerv(GL_ACTIVE_TEXTURE, &active);
	glActiveTexture(GL_TEXTURE0);
	glGetIntegerv(GL_TEXTURE_BINDING_2D, &st->ints[20]);
	glGetIntegerv(GL_SAMPLER_BINDING, &st->ints[21]);
	glActiveTexture((GLenum)active);
	if (!gles)
		glGetIntegerv(GL_POLYGON_MODE, &st->ints[22]);
	for (size_t i = 0; i < ARRAY_LENGTH(caps); i++)
		st->bools[i] = glIsEnabled(caps[i]);
	if (!gles)
		st->bools[6] = glIsEnabled(GL_FRAMEBUFFER_SRGB);
	glGetBooleanv(GL_DEPTH_WRITEMASK, &st->bools[7]);
	glGetBooleanv(GL_COLOR_WRITEMASK, &st->bools[8]);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
}

/* The state, the context and the surfaces as they were, after captures
 * of colour and depth of a multisampled source (every path: the
 * resolves, the depth pass, the buffers made on the first call), the
 * state set to values other than GL's defaults. */
static void
state_restored(bool use_gles)
{
	struct source src, other;
	struct glcuda_image *img;
	struct state before, after;
	GLuint program, vao, texture[2], sampler, buffer[2], renderbuffer;
	EGLContext ctx;
	EGLSurface draw, read;

	setup(use_gles);
	src = source_new(GL_RGBA8, GL_DEPTH24_STENCIL8, true, 4);
	other = source_new(GL_RGBA8, 0, false, 1);
	draw_pattern(src.fbo);
	img = image_new(CAP_W, CAP_H, GLCUDA_FORMAT_RGBA8,
			GLCUDA_FORMAT_DEPTH32F);

	program = glCreateProgram();
	glAttachShader(program,
		       test_shader(GL_VERTEX_SHADER, gles, pattern_vs));
	glAttachShader(program,
		       test_shader(GL_FRAGMENT_SHADER, gles, pattern_fs));
	glLinkProgram(program);
	glUseProgram(program);
	glGenVertexArrays(1, &vao);
	glBindVertexArray(vao);
	glGenTextures(2, texture);
	glActiveTexture(GL_TEXTURE0);
	glBindTexture(GL_TEXTURE_2D, texture[0]);
	glGenSamplers(1, &sampler);
	glBindSampler(0, sampler);
	glActiveTexture(GL_TEXTURE3);
	glBindTexture(GL_TEXTURE_2D, texture[1]);
	glGenBuffers(2, buffer);
	glBindBuffer(GL_PIXEL_PACK_BUFFER, buffer[0]);
	glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer[1]);
	glGenRenderbuffers(1, &renderbuffer);
	glBindRenderbuffer(GL_RENDERBUFFER, renderbuffer);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, other.fbo);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, src.fbo);
	glEnable(GL_SCISSOR_TEST);
	glScissor(1, 2, 3, 4);
	glEnable(GL_DEPTH_TEST);
	glDepthFunc(GL_GREATER);
	glDepthMask(GL_FALSE);
	glColorMask(GL_TRUE, GL_FALSE, GL_TRUE, GL_FALSE);
	glEnable(GL_STENCIL_TEST);
	glEnable(GL_BLEND);
	glEnable(GL_CULL_FACE);
	glViewport(3, 4, 5, 6);
	glPixelStorei(GL_PACK_ALIGNMENT, 2);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 8);
	glPixelStorei(GL_PACK_ROW_LENGTH, 7);
	glPixelStorei(GL_PACK_SKIP_ROWS, 1);
	glPixelStorei(GL_UNPACK_SKIP_PIXELS, 2);
	if (!gles) {
		glEnable(GL_FRAMEBUFFER_SRGB);
		glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
	}
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
	get_state(&before);
	ctx = eglGetCurrentContext();
	draw = eglGetCurrentSurface(EGL_DRAW);
	read = eglGetCurrentSurface(EGL_READ);

	for (int o = 0; o < 2; o++) {
		ck_ok(capture_one(src.fbo, CAP_X, CAP_Y, img, 1,
				  GLCUDA_CAPTURE_COLOR | GLCUDA_CAPTURE_DEPTH,
				  (enum glcuda_origin)o));
		get_state(&after);
		for (size_t i = 0; i < ARRAY_LENGTH(before.ints); i++)
			ck_assert_msg(before.ints[i] == after.ints[i],
				      "state item %zu: %d before, %d after",
				      i, before.ints[i], after.ints[i]);
		for (size_t i = 0; i < ARRAY_LENGTH(before.bools); i++)
			ck_assert_msg(before.bools[i] == after.bools[i],
				      "state flag %zu: %d before, %d after",
				      i, before.bools[i], after.bools[i]);
		ck_assert_ptr_eq(eglGetCurrentContext(), ctx);
		ck_assert_ptr_eq(eglGetCurrentSurface(EGL_DRAW), draw);
		ck_assert_ptr_eq(eglGetCurrentSurface(EGL_READ), read);
	}
	/* Nothing read the image back: let GL finish with it before its
	 * memory goes (llvmpipe would still write it). */
	glFinish();
	glcuda_image_destroy(img);
	teardown();
}

START_TEST(state_gl)
{
	state_restored(false);
}
END_TEST

START_TEST(state_gles)
{
	state_restored(true);
}
END_TEST

/* A batch: every capture enqueued, in the array's order (the second of
 * two into one layer wins), one per camera into layers of one image. */
static void
batch(bool use_gles)
{
	const size_t n = CAP_W * CAP_H;
	uint8_t *a = malloc(n * 4), *b = malloc(n * 4);
	struct source first, second;
	struct glcuda_image *img;
	struct glcuda_capture c[3];
	struct glcuda_capture_desc desc;

	setup(use_gles);
	first = source_new(GL_RGBA8, 0, false, 1);
	second = source_new(GL_RGBA8, 0, true, 4);
	draw_pattern(first.fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, second.fbo);
	glClearColor(0.5f, 0.25f, 0.75f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	read_source(first.fbo, GL_RGBA8, 0, 1, false, CAP_X, CAP_Y, CAP_W,
		    CAP_H, a);
	read_source(second.fbo, GL_RGBA8, 0, 4, false, 0, 0, CAP_W, CAP_H,
		    b);
	img = image_new(CAP_W, CAP_H, GLCUDA_FORMAT_RGBA8, 0);
	memset(c, 0, sizeof(c));
	c[0] = (struct glcuda_capture){ first.fbo, CAP_X, CAP_Y, img, 0,
					GLCUDA_CAPTURE_COLOR };
	c[1] = (struct glcuda_capture){ first.fbo, CAP_X, CAP_Y, img, 2,
					GLCUDA_CAPTURE_COLOR };
	c[2] = (struct glcuda_capture){ second.fbo, 0, 0, img, 2,
					GLCUDA_CAPTURE_COLOR };
	glcuda_capture_desc_init(&desc);
	desc.captures = c;
	desc.count = 3;
	ck_ok(glcuda_capture_framebuffers(dev, &desc));
	check_layer(img, 0, false, a, false, 0, "batch, layer 0");
	check_layer(img, 2, false, b, false, 0, "batch, layer 2");
	check_untouched(img, 1u << 0 | 1u << 2, true, false);
	glcuda_image_destroy(img);
	source_free(&first);
	source_free(&second);
	free(a);
	free(b);
	teardown();
}

START_TEST(batch_gl)
{
	batch(false);
}
END_TEST

START_TEST(batch_gles)
{
	batch(true);
}
END_TEST

/* A bad capture: its error and message, and nothing enqueued, not even
 * the good capture before it in the batch. */
static void
expect_error(struct glcuda_capture bad, int err, const char *says,
	     struct glcuda_image *img, GLuint good_fbo)
{
	struct glcuda_capture c[2] = {
		{ good_fbo, CAP_X, CAP_Y, img, 0, GLCUDA_CAPTURE_COLOR },
		bad,
	};
	struct glcuda_capture_desc desc;

	glcuda_capture_desc_init(&desc);
	desc.captures = c;
	desc.count = 2;
	ck_err(glcuda_capture_framebuffers(dev, &desc), err);
	ck_assert_msg(strstr(glcuda_get_last_error(), says) &&
			      strstr(glcuda_get_last_error(), "captures[1]"),
		      "message \"%s\" lacks \"%s\" or the capture",
		      glcuda_get_last_error(), says);
	check_untouched(img, 0, true, false);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
}

static void
bad_input(bool use_gles)
{
	const size_t n = CAP_W * CAP_H;
	uint8_t *want = malloc(n * 4);
	struct source good, incomplete, depthless, half;
	struct glcuda_image *img, *depth_only, *no_depth;
	struct glcuda_capture c;
	struct glcuda_capture_desc desc;
	GLuint tex;

	setup(use_gles);
	good = source_new(GL_RGBA8, GL_DEPTH_COMPONENT24, false, 1);
	draw_pattern(good.fbo);
	read_source(good.fbo, GL_RGBA8, 0, 1, false, CAP_X, CAP_Y, CAP_W,
		    CAP_H, want);
	depthless = source_new(GL_RGBA8, 0, false, 1);
	half = source_new(GL_RGBA16F, 0, false, 1);
	glGenFramebuffers(1, &incomplete.fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, incomplete.fbo);
	glGenTextures(1, &tex);
	glBindTexture(GL_TEXTURE_2D, tex); /* no storage */
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, tex, 0);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	img = image_new(CAP_W, CAP_H, GLCUDA_FORMAT_RGBA8,
			GLCUDA_FORMAT_DEPTH32F);
	depth_only = image_new(CAP_W, CAP_H, GLCUDA_FORMAT_DEPTH32F, 0);
	no_depth = image_new(CAP_W, CAP_H, GLCUDA_FORMAT_RGBA8, 0);
	c = (struct glcuda_capture){ good.fbo, CAP_X, CAP_Y, img, 1,
				     GLCUDA_CAPTURE_COLOR };

#define BAD(member, value, err, says)                                \
	do {                                                         \
		struct glcuda_capture b_ = c;                        \
		b_.member = value;                                   \
		expect_error(b_, err, says, img, good.fbo);          \
	} while (0)
	BAD(framebuffer, incomplete.fbo, GLCUDA_ERROR_GL, "incomplete");
	/* The headless context has no surface: no default framebuffer. */
	if (eglGetCurrentSurface(EGL_READ) == EGL_NO_SURFACE)
		BAD(framebuffer, 0, GLCUDA_ERROR_GL,
		    "GL_FRAMEBUFFER_UNDEFINED");
	BAD(framebuffer, 4242, -EINVAL, "not a framebuffer");
	BAD(x, SRC_W - CAP_W + 1, -EINVAL, "not inside");
	BAD(y, SRC_H - CAP_H + 1, -EINVAL, "not inside");
	BAD(x, -1, -EINVAL, "not inside");
	BAD(layer, LAYERS, -EINVAL, "layer 3 of an image of 3 layers");
	BAD(flags, 0, -EINVAL, "flags 0x0");
	BAD(flags, 1u << 5, -EINVAL, "flags 0x20");
	BAD(image, NULL, -EINVAL, "image is NULL");
	BAD(image, depth_only, -EINVAL, "no colour plane");
	c.image = no_depth;
	BAD(flags, GLCUDA_CAPTURE_DEPTH, -EINVAL, "without a depth plane");
	c.image = img;
	c.flags = GLCUDA_CAPTURE_DEPTH;
	BAD(framebuffer, depthless.fbo, GLCUDA_ERROR_UNSUPPORTED_FORMAT,
	    "no depth attachment");
	c.flags = GLCUDA_CAPTURE_COLOR;
	BAD(framebuffer, half.fbo, GLCUDA_ERROR_UNSUPPORTED_FORMAT,
	    gles ? "R16G16B16A16, float" : "0x881a (R16G16B16A16, float)");
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(),
				     "GL_SRGB8_ALPHA8"));
	img->owner = IMAGE_OWNER_CUDA;
	expect_error(c, GLCUDA_ERROR_BAD_STATE, "handed to CUDA", no_depth,
		     good.fbo);
	img->owner = IMAGE_OWNER_GL;
#undef BAD

	/* The batch itself. */
	ck_err(glcuda_capture_framebuffers(dev, NULL), -EINVAL);
	ck_err(glcuda_capture_framebuffers(NULL, NULL), -EINVAL);
	glcuda_capture_desc_init(&desc);
	desc.captures = &c;
	ck_err(glcuda_capture_framebuffers(dev, &desc), -EINVAL);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(), "count is 0"));
	desc.count = 1;
	desc.captures = NULL;
	ck_err(glcuda_capture_framebuffers(dev, &desc), -EINVAL);
	desc.captures = &c;
	desc.origin = (enum glcuda_origin)2;
	ck_err(glcuda_capture_framebuffers(dev, &desc), -EINVAL);
	desc.origin = GLCUDA_ORIGIN_BOTTOM_LEFT;
	desc.size = 3;
	ck_err(glcuda_capture_framebuffers(dev, &desc), -EINVAL);
	ck_assert_ptr_nonnull(strstr(glcuda_get_last_error(),
				     "glcuda_capture_desc"));
	desc.size = sizeof(desc) + 8;
	ck_err(glcuda_capture_framebuffers(dev, &desc), -EINVAL);
	check_untouched(img, 0, true, true);

	/* After all that, a good capture works. */
	desc.size = sizeof(desc);
	ck_ok(glcuda_capture_framebuffers(dev, &desc));
	check_layer(img, 1, false, want, false, 0, "after the errors");
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);

	glcuda_image_destroy(img);
	glcuda_image_destroy(depth_only);
	glcuda_image_destroy(no_depth);
	glDeleteTextures(1, &tex);
	glDeleteFramebuffers(1, &incomplete.fbo);
	source_free(&good);
	source_free(&depthless);
	source_free(&half);
	free(want);
	teardown();
}

START_TEST(bad_input_gl)
{
	bad_input(false);
}
END_TEST

START_TEST(bad_input_gles)
{
	bad_input(true);
}
END_TEST

int
main(void)
{
	const struct test_case cases[] = {
		TEST_TCASE("formats", 300),
		TEST_RANGE(formats_gl, 0, 20),
		TEST_RANGE(formats_gles, 0, 20),
		TEST_TCASE("state", 300),
		TEST_ONCE(state_gl),
		TEST_ONCE(state_gles),
		TEST_ONCE(batch_gl),
		TEST_ONCE(batch_gles),
		TEST_ONCE(bad_input_gl),
		TEST_ONCE(bad_input_gles),
	};

	test_require_egl();
	return test_run_cases("capture", cases);
}
