/*
 * Frames as tensors on the GPU: one layered draw (an instance per layer,
 * gl_Layer from the geometry shader) fills colour and depth of every layer
 * of an image; one hand-off gives both to CUDA; each plane is copied into
 * one block of linear memory; every pixel of every layer is compared with
 * glReadPixels of that layer (GL_DEPTH_COMPONENT, GL_FLOAT for depth).
 * Then one layer alone, the DLPack export of the same image, and a linear
 * block copied back into the image and read by GL. By default a copy of
 * one layer goes through glcuda's copy kernel and a copy of several
 * through the copy engine: run it with GLCUDA_COPY=engine and =kernel too
 * for every size both ways. Sizes: 256 layers of 128x128, 64 of
 * 512x512, one 1920x1080 and one 3840x2160 layer.
 * SPDX-License-Identifier: MIT
 */
#include "test-gpu.h"
#include <glcuda/glcuda-dlpack.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	uint32_t w, h, layers;
} sizes[] = {
	{ 128, 128, 256 },
	{ 512, 512, 64 },
	{ 1920, 1080, 1 },
	{ 3840, 2160, 1 },
};

static GLuint
compile(GLenum type, const char *src)
{
	const char *srcs[2] = { "#version 450 core\n", src };
	GLuint s = glCreateShader(type);
	GLint ok = 0;
	char log[1024] = "";

	glShaderSource(s, 2, srcs, NULL);
	glCompileShader(s);
	glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
	glGetShaderInfoLog(s, sizeof(log), NULL, log);
	ck_assert_msg(ok, "%s", log);
	return s;
}

/* Instance l draws a full-screen triangle into layer l: colour a function
 * of the pixel and the layer, depth a slope across x and y that differs by
 * layer, so that every pixel tells a misplaced one apart. */
static GLuint
layered_program(void)
{
	static const char vs[] =
		"flat out int inst;\n"
		"void main() {\n"
		"       vec2 v = vec2(float((gl_VertexID & 1) * 4 - 1), "
		"float((gl_VertexID & 2) * 2 - 1));\n"
		"	inst = gl_InstanceID;\n"
		"	gl_Position = vec4(v, 0.0, 1.0);\n"
		"}\n";
	static const char gs[] =
		"layout(triangles) in;\n"
		"layout(triangle_strip, max_vertices = 3) out;\n"
		"flat in int inst[];\n"
		"flat out int layer;\n"
		"void main() {\n"
		"	for (int i = 0; i < 3; i++) {\n"
		"		vec4 p = gl_in[i].gl_Position;\n"
		"               p.z = 0.3 * p.x + 0.2 * p.y - 0.5 + "
		"float(inst[0] % 7) * 0.1;\n"
		"		gl_Position = p;\n"
		"		gl_Layer = inst[0];\n"
		"		layer = inst[0];\n"
		"		EmitVertex();\n"
		"	}\n"
		"	EndPrimitive();\n"
		"}\n";
	static const char fs[] =
		"flat in int layer;\n"
		"out vec4 color;\n"
		"void main() {\n"
		"	ivec2 p = ivec2(gl_FragCoord.xy);\n"
		"       ivec4 k = (ivec4(p.x * 7 + p.y * 131 + layer * 977) + "
		"ivec4(0, 61, 122, 183)) & 255;\n"
		"	color = vec4(k) / 255.0;\n"
		"}\n";
	GLuint prog = glCreateProgram(), s[3];
	GLint ok = 0;

	s[0] = compile(GL_VERTEX_SHADER, vs);
	s[1] = compile(GL_GEOMETRY_SHADER, gs);
	s[2] = compile(GL_FRAGMENT_SHADER, fs);
	for (int i = 0; i < 3; i++) {
		glAttachShader(prog, s[i]);
		glDeleteShader(s[i]);
	}
	glLinkProgram(prog);
	glGetProgramiv(prog, GL_LINK_STATUS, &ok);
	ck_assert(ok);
	return prog;
}

static void
draw_layers(struct glcuda_image *img, uint32_t w, uint32_t h, uint32_t layers)
{
	GLuint prog = layered_program(), vao;

	glGenVertexArrays(1, &vao);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER,
			  glcuda_image_get_gl_layered_framebuffer(img));
	glViewport(0, 0, (GLsizei)w, (GLsizei)h);
	glClearColor(0, 0, 0, 0);
	glClearDepthf(1.0f);
	glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
	glEnable(GL_DEPTH_TEST);
	glUseProgram(prog);
	glBindVertexArray(vao);
	glDrawArraysInstanced(GL_TRIANGLES, 0, 3, (GLsizei)layers);
	glBindVertexArray(0);
	glUseProgram(0);
	glDisable(GL_DEPTH_TEST);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
	glDeleteVertexArrays(1, &vao);
	glDeleteProgram(prog);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
}

/* glReadPixels of one layer, colour (RGBA8) or depth (float). */
static void
read_layer(struct glcuda_image *img, uint32_t layer, uint32_t w, uint32_t h,
	   bool depth, void *out)
{
	glBindFramebuffer(GL_READ_FRAMEBUFFER,
			  glcuda_image_get_gl_framebuffer(img, layer));
	glPixelStorei(GL_PACK_ALIGNMENT, 1);
	glReadPixels(0, 0, (GLsizei)w, (GLsizei)h,
		     depth ? GL_DEPTH_COMPONENT : GL_RGBA,
		     depth ? GL_FLOAT : GL_UNSIGNED_BYTE, out);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
	ck_assert_int_eq(glGetError(), GL_NO_ERROR);
}

/* Layers first .. first + layers - 1 of a plane's linear copy (host, from
 * its start) against GL's read-back. */
static void
compare_layers(struct glcuda_image *img, const uint8_t *host, uint32_t w,
	       uint32_t h, uint32_t first, uint32_t layers, bool depth,
	       const char *tag)
{
	const size_t layer_bytes = (size_t)w * h * 4;
	uint8_t *gl = malloc(layer_bytes);
	size_t bad = 0;

	ck_assert_ptr_nonnull(gl);
	for (uint32_t l = 0; l < layers; l++) {
		read_layer(img, first + l, w, h, depth, gl);
		if (memcmp(gl, host + l * layer_bytes, layer_bytes) != 0) {
			for (size_t i = 0; i < layer_bytes; i += 4)
				bad += memcmp(gl + i,
					      host + l * layer_bytes + i,
					      4) != 0;
			ck_abort_msg(
				"%s %ux%ux%u %s: layer %u differs from "
				"glReadPixels "
				"(%zu pixels)",
				tag, w, h, layers, depth ? "depth" : "colour",
				first + l, bad);
		}
	}
	printf("%s %ux%ux%u %s: %llu pixels equal to glReadPixels\n", tag, w, h,
	       layers, depth ? "depth" : "colour",
	       (unsigned long long)w * h * layers);
	free(gl);
}

/* The distance of window depth d (copy-kernels.cu's formula, in double). */
static float
distance(float d, enum glcuda_depth_mode mode, double n, double f)
{
	const double z = mode == GLCUDA_DEPTH_PERSPECTIVE
				 ? n * f / (f - (double)d * (f - n))
				 : n + (double)d * (f - n);

	return (float)z;
}

/* As compare_layers, for a copy top row first: linear row y is GL's row
 * h - 1 - y; depth converted by `mode` (GLCUDA_DEPTH_AS_STORED: none). */
static void
compare_layers_top_left(struct glcuda_image *img, const uint8_t *host,
			uint32_t w, uint32_t h, uint32_t layers, bool depth,
			enum glcuda_depth_mode mode, double n, double f,
			const char *tag)
{
	const size_t row = (size_t)w * 4, layer_bytes = row * h;
	uint8_t *gl = malloc(layer_bytes);

	ck_assert_ptr_nonnull(gl);
	for (uint32_t l = 0; l < layers; l++) {
		read_layer(img, l, w, h, depth, gl);
		for (uint32_t y = 0; y < h; y++)
			for (uint32_t x = 0; x < w; x++) {
				const uint8_t *want =
					gl + (size_t)(h - 1 - y) * row + x * 4;
				const uint8_t *got = host + l * layer_bytes +
						     (size_t)y * row + x * 4;
				float d, z, g;

				if (!depth || mode == GLCUDA_DEPTH_AS_STORED) {
					ck_assert_msg(!memcmp(want, got, 4),
						      "%s %ux%ux%u: layer %u, "
						      "linear row %u, x %u is "
						      "not GL's row %u",
						      tag, w, h, layers, l, y,
						      x, h - 1 - y);
					continue;
				}
				memcpy(&d, want, 4);
				memcpy(&g, got, 4);
				z = distance(d, mode, n, f);
				ck_assert_msg(z == g,
					      "%s %ux%ux%u: layer %u (%u, %u): "
					      "depth %.9g is %.9g, not %.9g",
					      tag, w, h, layers, l, x, y, d, g,
					      z);
			}
	}
	printf("%s %ux%ux%u %s: %llu pixels equal to glReadPixels, top row "
	       "first%s\n",
	       tag, w, h, layers, depth ? "depth" : "colour",
	       (unsigned long long)w * h * layers,
	       depth && mode ? ", as distances" : "");
	free(gl);
}

/* glcuda_copy_linear of colour and depth, top row first, depth as
 * distances by `mode`. */
static void
copy_top_left(struct gpu *g, struct glcuda_image *img, CUdeviceptr color,
	      CUdeviceptr depth, uint32_t w, uint32_t h,
	      enum glcuda_depth_mode mode, double n, double f,
	      CUstream stream)
{
	struct glcuda_linear_copy copies[2] = {
		{ img, 0, GLCUDA_ALL_LAYERS, color, (size_t)w * 4,
		  (size_t)w * h * 4, GLCUDA_COPY_TO_LINEAR },
		{ img, 1, GLCUDA_ALL_LAYERS, depth, (size_t)w * 4,
		  (size_t)w * h * 4, GLCUDA_COPY_TO_LINEAR },
	};
	struct glcuda_copy_desc desc;

	glcuda_copy_desc_init(&desc);
	desc.copies = copies;
	desc.copy_count = 2;
	desc.stream = stream;
	desc.origin = GLCUDA_ORIGIN_TOP_LEFT;
	desc.depth.mode = mode;
	desc.depth.znear = n;
	desc.depth.zfar = f;
	ck_ok(glcuda_copy_linear(g->dev, &desc));
	ck_cu(CU(cuStreamSynchronize)(stream));
}

START_TEST(layered_draw_copies)
{
	const uint32_t w = sizes[_i].w, h = sizes[_i].h,
		       layers = sizes[_i].layers;
	const size_t bytes = (size_t)w * h * 4 * layers;
	struct glcuda_image_desc desc;
	struct glcuda_image *img = NULL;
	DLManagedTensorVersioned *t = NULL;
	CUdeviceptr color, depth;
	CUstream stream;
	uint8_t *host = malloc(bytes);
	struct gpu g;

	ck_assert_ptr_nonnull(host);
	gpu_setup(&g, false, GLCUDA_SYNC_AUTO);
	glcuda_image_desc_init(&desc);
	desc.width = w;
	desc.height = h;
	desc.format = GLCUDA_FORMAT_RGBA8;
	desc.layers = layers;
	desc.depth_format = GLCUDA_FORMAT_DEPTH32F;
	ck_ok(glcuda_image_new(g.dev, &desc, &img));
	ck_cu(CU(cuStreamCreate)(&stream, CU_STREAM_NON_BLOCKING));
	ck_cu(CU(cuMemAlloc)(&color, bytes));
	ck_cu(CU(cuMemAlloc)(&depth, bytes));

	draw_layers(img, w, h, layers);
	/* One hand-off for colour and depth of every layer; one block each. */
	ck_ok(glcuda_handoff_to_cuda(g.dev, &img, 1, stream));
	ck_ok(glcuda_image_copy_to_linear(img, 0, GLCUDA_ALL_LAYERS, color,
					  (size_t)w * 4, (size_t)w * h * 4,
					  stream));
	ck_ok(glcuda_image_copy_to_linear(img, 1, GLCUDA_ALL_LAYERS, depth,
					  (size_t)w * 4, (size_t)w * h * 4,
					  stream));
	ck_ok(glcuda_handoff_to_gl(g.dev, &img, 1, stream));
	ck_cu(CU(cuStreamSynchronize)(stream));
	ck_cu(CU(cuMemcpyDtoH)(host, color, bytes));
	compare_layers(img, host, w, h, 0, layers, false, "copy");
	ck_cu(CU(cuMemcpyDtoH)(host, depth, bytes));
	compare_layers(img, host, w, h, 0, layers, true, "copy");

	/* One layer of the layered image alone, which by default goes
	 * through the copy kernel (reading the layered surface) where every
	 * layer went through the copy engine: layer 0 of the block. */
	if (layers > 1) {
		ck_ok(glcuda_handoff_to_cuda(g.dev, &img, 1, stream));
		ck_ok(glcuda_image_copy_to_linear(img, 0, (int)layers - 1,
						  color, (size_t)w * 4, 0,
						  stream));
		ck_ok(glcuda_handoff_to_gl(g.dev, &img, 1, stream));
		ck_cu(CU(cuStreamSynchronize)(stream));
		ck_cu(CU(cuMemcpyDtoH)(host, color, (size_t)w * h * 4));
		compare_layers(img, host, w, h, layers - 1, 1, false,
			       "one-layer");
	}

	/* DLPack: the export hands off, copies and hands back by itself. */
	ck_ok(glcuda_image_export_dlpack(img, 1, stream, &t));
	ck_assert_int_eq(t->dl_tensor.ndim, layers > 1 ? 4 : 3);
	ck_cu(CU(cuStreamSynchronize)(stream));
	ck_cu(CU(cuMemcpyDtoH)(host, (CUdeviceptr)(uintptr_t)t->dl_tensor.data,
			       bytes));
	compare_layers(img, host, w, h, 0, layers, true, "dlpack");
	t->deleter(t);

	/* Top row first, depth as distances: the copy kernel flips and
	 * converts (or, GLCUDA_COPY=engine, the copy engine flips colour row
	 * by row), in one glcuda_copy_linear(). */
	{
		static const struct {
			enum glcuda_depth_mode mode;
			double n, f;
		} conv[] = {
			{ GLCUDA_DEPTH_PERSPECTIVE, 0.05, 40.0 },
			{ GLCUDA_DEPTH_ORTHOGRAPHIC, -2.0, 7.5 },
			{ GLCUDA_DEPTH_PERSPECTIVE, 40.0, 0.05 },
		};

		for (size_t i = 0; i < ARRAY_LENGTH(conv); i++) {
			copy_top_left(&g, img, color, depth, w, h, conv[i].mode,
				      conv[i].n, conv[i].f, stream);
			ck_cu(CU(cuMemcpyDtoH)(host, color, bytes));
			compare_layers_top_left(img, host, w, h, layers, false,
						GLCUDA_DEPTH_AS_STORED, 0, 0,
						"top-left");
			ck_cu(CU(cuMemcpyDtoH)(host, depth, bytes));
			compare_layers_top_left(img, host, w, h, layers, true,
						conv[i].mode, conv[i].n,
						conv[i].f, "top-left");
		}
	}
	/* The export with a desc: top row first, depth as stored. */
	{
		struct glcuda_export_desc ed;

		glcuda_export_desc_init(&ed);
		ed.plane = 1;
		ed.stream = stream;
		ed.origin = GLCUDA_ORIGIN_TOP_LEFT;
		ck_ok(glcuda_image_export_dlpack_desc(img, &ed, &t));
		ck_cu(CU(cuStreamSynchronize)(stream));
		ck_cu(CU(cuMemcpyDtoH)(
			host, (CUdeviceptr)(uintptr_t)t->dl_tensor.data,
			bytes));
		compare_layers_top_left(img, host, w, h, layers, true,
					GLCUDA_DEPTH_AS_STORED, 0, 0,
					"dlpack-top-left");
		t->deleter(t);
	}

	/* The other way: colour from linear memory, read by GL. */
	for (size_t i = 0; i < bytes; i++)
		host[i] = (uint8_t)(i * 2654435761u >> 13);
	ck_cu(CU(cuMemcpyHtoD)(color, host, bytes));
	ck_ok(glcuda_handoff_to_cuda(g.dev, &img, 1, stream));
	ck_ok(glcuda_image_copy_from_linear(img, 0, GLCUDA_ALL_LAYERS, color,
					    (size_t)w * 4, (size_t)w * h * 4,
					    stream));
	ck_ok(glcuda_handoff_to_gl(g.dev, &img, 1, stream));
	compare_layers(img, host, w, h, 0, layers, false, "from-linear");

	ck_cu(CU(cuMemFree)(color));
	ck_cu(CU(cuMemFree)(depth));
	ck_cu(CU(cuStreamDestroy)(stream));
	glcuda_image_destroy(img);
	free(host);
	gpu_teardown(&g);
}
END_TEST

int
main(void)
{
	const struct test_case cases[] = {
		TEST_TCASE("tensor", 300),
		TEST_RANGE(layered_draw_copies, 0, (int)ARRAY_LENGTH(sizes)),
	};

	gpu_require_cuda();
	return test_run_cases("tensor", cases);
}
