/*
 * glcuda-compositor: GL, glcuda and the CUDA stage.
 *
 * Each composite renders every mapped surface into the input image of a
 * ring frame (its framebuffer), hands the frame to CUDA
 * (glcuda_frame_submit), enqueues the filter or the user's kernel on the
 * frame's stream and marks it complete. Nothing waits here: the ring's
 * ready fd tells the loop when CUDA is done (output.c presents it).
 *
 * Orientation: row 0 of the ring's images is the top of the output, as
 * CUDA kernels and image files expect; the projection below flips GL's
 * bottom-up convention when compositing.
 * SPDX-License-Identifier: MIT
 */
#include "render/render.h"
#include "comp.h"
#include "surface/surface.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shader.h"
#include "user-kernel.h"

/* Background, RGBA 8-bit: the test looks for it outside the windows. */
#define BG_R 32
#define BG_G 48
#define BG_B 64

/* render.c's own state: the GL program that draws surfaces, the CUDA
 * stage, and the content records of the ring's frames. */
struct renderer {
	GLuint program, vao, vbo;
	GLint u_rect, u_swizzle, u_opaque, u_uv_matrix, u_uv_offset, u_band,
	      u_strip;
	struct filters *filters;
	CUmodule module;
	CUfunction kernel;
	/* struct frame_content.link: one per ring frame, made with the
	 * ring; the spare ones become a frame's user data at its first
	 * composite and stay until the ring goes. */
	struct wl_list spare, frames;
};

static const char vs_body[] =
	"in vec2 pos;\n"
	"out vec2 uv;\n"
	"uniform vec4 rect; /* x, y, w, h in clip space, y down */\n"
	"uniform vec4 band; /* the part of the surface drawn: x, y, w, h in "
	"0..1 */\n"
	"uniform mat2 uv_matrix; /* the buffer transform, undone */\n"
	"uniform vec2 uv_offset;\n"
	"uniform vec2 strip; /* its rows: v of the first, 1 / their height in "
	"v */\n"
	"void main() {\n"
	"	vec2 p = band.xy + pos * band.zw;\n"
	"	uv = uv_matrix * p + uv_offset;\n"
	"	uv.y = (uv.y - strip.x) * strip.y;\n"
	"	gl_Position = vec4(rect.xy + p * rect.zw, 0.0, 1.0);\n"
	"}\n";
static const char fs_body[] =
	"precision mediump float;\n"
	"in vec2 uv;\n"
	"out vec4 color;\n"
	"uniform sampler2D tex;\n"
	"uniform float opaque;\n"
	"uniform float swizzle;\n"
	"void main() {\n"
	"	/* shm ARGB8888 is B, G, R, A in memory, uploaded as RGBA; a\n"
	"	 * dma-buf's EGLImage samples as RGBA already. */\n"
	"	vec4 t = texture(tex, uv);\n"
	"	t = swizzle > 0.5 ? t.bgra : t;\n"
	"	color = opaque > 0.5 ? vec4(t.rgb, 1.0) : t;\n"
	"}\n";

static int
setup_gl(struct comp *c, struct renderer *r)
{
	const char *version =
		c->opt.gles ? "#version 300 es\n" : "#version 330 core\n";
	const char *vs_src[] = { version, vs_body };
	const char *fs_src[] = { version, fs_body };
	static const float quad[] = { 0, 0, 1, 0, 0, 1, 1, 1 };
	char log[1024];
	GLuint vs, fs, pos;

	vs = shader_compile(GL_VERTEX_SHADER, vs_src, 2, log, sizeof(log));
	if (!vs) {
		fprintf(stderr, COMP_NAME ": vertex shader: %s\n", log);
		return -1;
	}
	fs = shader_compile(GL_FRAGMENT_SHADER, fs_src, 2, log, sizeof(log));
	if (!fs) {
		glDeleteShader(vs);
		fprintf(stderr, COMP_NAME ": fragment shader: %s\n", log);
		return -1;
	}
	r->program = shader_link(vs, fs, log, sizeof(log));
	if (!r->program) {
		fprintf(stderr, COMP_NAME ": shader program: %s\n", log);
		return -1;
	}
	r->u_rect = glGetUniformLocation(r->program, "rect");
	r->u_opaque = glGetUniformLocation(r->program, "opaque");
	r->u_swizzle = glGetUniformLocation(r->program, "swizzle");
	r->u_uv_matrix = glGetUniformLocation(r->program, "uv_matrix");
	r->u_uv_offset = glGetUniformLocation(r->program, "uv_offset");
	r->u_band = glGetUniformLocation(r->program, "band");
	r->u_strip = glGetUniformLocation(r->program, "strip");
	glUseProgram(r->program);
	glUniform1i(glGetUniformLocation(r->program, "tex"), 0);
	glUseProgram(0);

	glGenVertexArrays(1, &r->vao);
	glGenBuffers(1, &r->vbo);
	glBindVertexArray(r->vao);
	glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
	glBufferData(GL_ARRAY_BUFFER, sizeof(quad), quad, GL_STATIC_DRAW);
	pos = (GLuint)glGetAttribLocation(r->program, "pos");
	glEnableVertexAttribArray(pos);
	glVertexAttribPointer(pos, 2, GL_FLOAT, GL_FALSE, 0, NULL);
	glBindVertexArray(0);
	glBindBuffer(GL_ARRAY_BUFFER, 0);
	if (glGetError() != GL_NO_ERROR) {
		fprintf(stderr, COMP_NAME
			": a GL error while setting up the renderer\n");
		return -1;
	}
	return 0;
}

void
render_fail(struct comp *c, const char *what, int err)
{
	const char *msg = c->dev ? glcuda_device_get_last_error(c->dev) : "";

	if (!*msg)
		msg = glcuda_get_last_error();
	fprintf(stderr, COMP_NAME ": %s: %s\n  %s\n", what,
		glcuda_error_get_name(err), msg);
	c->status = 1;
	c->running = false;
}

/* -1, after saying which filter failed doing what, and why. */
static int
filter_failed(const struct comp *c, const char *doing)
{
	fprintf(stderr, COMP_NAME ": %s the %s filter: %s\n", doing,
		filter_name(c->opt.filter), filters_last_error());
	return -1;
}

/* The user's module: PTX, or a cubin/fatbin (common/user-kernel.h). */
static int
load_user_kernel(struct comp *c, struct renderer *r)
{
	char msg[512];
	int ret;

	if (tools_cuda_load(msg, sizeof(msg)) < 0) {
		fprintf(stderr, COMP_NAME ": %s\n", msg);
		return -1;
	}
	/* Into glcuda's context: the ring's streams and surfaces live there. */
	if (CU(cuCtxPushCurrent)(glcuda_device_get_cuda_context(c->dev)) !=
	    CUDA_SUCCESS) {
		fprintf(stderr, COMP_NAME
			": cannot make glcuda's CUDA context current\n");
		return -1;
	}
	ret = user_kernel_load(c->opt.kernel_file, c->opt.kernel_name,
			       &r->module, &r->kernel, msg, sizeof(msg));
	CU(cuCtxPopCurrent)(NULL);
	if (ret < 0) {
		fprintf(stderr, COMP_NAME ": %s\n", msg);
		return -1;
	}
	return 0;
}

int
render_init(struct comp *c)
{
	struct glcuda_device_options dopt;
	struct glcuda_ring_desc desc;
	uint32_t hflags = c->opt.gles ? GLCUDA_HEADLESS_FLAG_GLES
				      : GLCUDA_HEADLESS_FLAG_NONE;
	struct renderer *r;
	bool in_place;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r) {
		fprintf(stderr, COMP_NAME ": out of memory\n");
		return -1;
	}
	wl_list_init(&r->spare);
	wl_list_init(&r->frames);
	c->renderer = r;

	/* A headless EGL display and context: Mesa's surfaceless platform,
	 * or the EGL device of a CUDA device on NVIDIA. */
	ret = glcuda_headless_new(c->opt.cuda_device, hflags, &c->headless);
	if (ret < 0) {
		render_fail(c, "glcuda_headless_new", ret);
		return -1;
	}
	glcuda_device_options_init(&dopt);
	dopt.sync_mode = c->opt.sync;
	ret = glcuda_device_new(glcuda_headless_get_display(c->headless),
				glcuda_headless_get_context(c->headless), &dopt,
				&c->dev);
	if (ret < 0) {
		render_fail(c, "glcuda_device_new", ret);
		return -1;
	}
	if (setup_gl(c, r) < 0)
		return -1;

	/* "none" has no CUDA stage: an in-place ring, the frame's output is
	 * its input. A filter or kernel writes a second image. */
	in_place = c->opt.filter == FILTER_NONE && !c->opt.kernel_file;
	glcuda_ring_desc_init(&desc);
	desc.width = c->opt.width;
	desc.height = c->opt.height;
	desc.slots = 3; /* one presented, one in CUDA, one compositing */
	desc.input_format = GLCUDA_FORMAT_RGBA8;
	desc.output_format = GLCUDA_FORMAT_RGBA8;
	desc.flags = (in_place ? GLCUDA_RING_FLAG_IN_PLACE : 0) |
		     GLCUDA_RING_FLAG_TIMINGS;
	ret = glcuda_ring_new(c->dev, &desc, &c->ring);
	if (ret == GLCUDA_ERROR_MISSING_GL_EXTENSION) {
		/* No GL timer queries (GLES without
		 * GL_EXT_disjoint_timer_query): run without timings. */
		desc.flags &= ~(uint32_t)GLCUDA_RING_FLAG_TIMINGS;
		ret = glcuda_ring_new(c->dev, &desc, &c->ring);
	} else if (ret == 0) {
		c->ring_timings = true;
	}
	if (ret < 0) {
		render_fail(c, "glcuda_ring_new", ret);
		return -1;
	}
	for (uint32_t i = 0; i < desc.slots; i++) {
		struct frame_content *fc = calloc(1, sizeof(*fc));

		if (!fc) {
			fprintf(stderr, COMP_NAME ": out of memory\n");
			return -1;
		}
		wl_list_init(&fc->feedback);
		wl_list_insert(&r->spare, &fc->link);
	}

	if (c->opt.kernel_file) {
		if (load_user_kernel(c, r) < 0)
			return -1;
	} else if (!in_place) {
		ret = filters_new(c->dev, c->opt.width, c->opt.height, NULL,
				  &r->filters);
		if (ret < 0)
			return filter_failed(c, "setting up");
	}
	return 0;
}

void
render_fini(struct comp *c)
{
	struct renderer *r = c->renderer;
	struct frame_content *fc, *tmp;

	if (!r)
		return;
	if (c->dev) {
		if (r->vbo)
			glDeleteBuffers(1, &r->vbo);
		if (r->vao)
			glDeleteVertexArrays(1, &r->vao);
		if (r->program)
			glDeleteProgram(r->program);
	}
	/* The ring waits for its CUDA work; then nothing uses the module or
	 * the filters' buffers. */
	glcuda_ring_destroy(c->ring);
	c->ring = NULL;
	/* The frames' records go with the ring; feedback still in one was
	 * for a frame never presented. */
	wl_list_insert_list(&r->spare, &r->frames);
	wl_list_for_each_safe(fc, tmp, &r->spare, link) {
		feedback_discard_all(&fc->feedback);
		free(fc);
	}
	filters_destroy(r->filters);
	if (r->module) {
		CU(cuCtxPushCurrent)(glcuda_device_get_cuda_context(c->dev));
		CU(cuModuleUnload)(r->module);
		CU(cuCtxPopCurrent)(NULL);
	}
	free(r);
	c->renderer = NULL;
	glcuda_device_destroy(c->dev);
	c->dev = NULL;
	glcuda_headless_destroy(c->headless);
	c->headless = NULL;
}

/* Texture coordinates from the surface's normalized coordinates (u, v),
 * for each wl_output.transform: the client drew the buffer rotated
 * counter-clockwise and flipped; sampling undoes it. Rows: u' = a u + b v
 * + e, v' = c u + d v + f, as { a, b, c, d, e, f }. */
static const float uv_transforms[8][6] = {
	[WL_OUTPUT_TRANSFORM_NORMAL] = { 1, 0, 0, 1, 0, 0 },
	[WL_OUTPUT_TRANSFORM_90] = { 0, 1, -1, 0, 0, 1 },
	[WL_OUTPUT_TRANSFORM_180] = { -1, 0, 0, -1, 1, 1 },
	[WL_OUTPUT_TRANSFORM_270] = { 0, -1, 1, 0, 1, 0 },
	[WL_OUTPUT_TRANSFORM_FLIPPED] = { -1, 0, 0, 1, 1, 0 },
	[WL_OUTPUT_TRANSFORM_FLIPPED_90] = { 0, 1, 1, 0, 0, 0 },
	[WL_OUTPUT_TRANSFORM_FLIPPED_180] = { 1, 0, 0, -1, 0, 1 },
	[WL_OUTPUT_TRANSFORM_FLIPPED_270] = { 0, -1, -1, 0, 1, 1 },
};

static void
draw_surface(struct comp *c, struct surface *s, int32_t x, int32_t y)
{
	const struct renderer *r = c->renderer;
	float ow = (float)c->opt.width, oh = (float)c->opt.height;
	const float *bt = uv_transforms[s->transform];
	float crop[4], t[6];
	float m[4];
	float bh = (float)s->tex_height;
	int32_t w, h;
	/* Clip space with y pointing down the image: row 0 (y = -1 in
	 * clip space) is the top of the output. */
	float x0 = 2.f * (float)x / ow - 1.f, y0 = 2.f * (float)y / oh - 1.f;

	/* The viewport's source rectangle first, then the buffer transform:
	 * u = cx + cw u", v = cy + ch v" in the composition above. */
	surface_get_crop(s, crop);
	t[0] = bt[0] * crop[2];
	t[1] = bt[1] * crop[3];
	t[2] = bt[2] * crop[2];
	t[3] = bt[3] * crop[3];
	t[4] = bt[0] * crop[0] + bt[1] * crop[1] + bt[4];
	t[5] = bt[2] * crop[0] + bt[3] * crop[1] + bt[5];
	/* Column-major: the first column multiplies u. */
	m[0] = t[0], m[1] = t[2], m[2] = t[1], m[3] = t[3];
	surface_get_size(s, &w, &h);
	glUniform4f(r->u_rect, x0, y0, 2.f * (float)w / ow,
		    2.f * (float)h / oh);
	glUniformMatrix2fv(r->u_uv_matrix, 1, GL_FALSE, m);
	glUniform2f(r->u_uv_offset, t[4], t[5]);
	glUniform1f(r->u_opaque, surface_is_opaque(s) ? 1.f : 0.f);
	glUniform1f(r->u_swizzle, s->tex_image ? 0.f : 1.f);
	/* Each strip over the band of the surface that shows its rows, v in
	 * [v0, v1]: v = t[2] u + t[3] v' + t[5] in the surface's (u, v'),
	 * and one of t[2], t[3] is 0, so the band is a column or a row. */
	for (int i = 0; i < s->tex.n; i++) {
		float v0 = (float)(i * s->tex.rows) / bh;
		float v1 = i == s->tex.n - 1
				   ? 1.f
				   : (float)((i + 1) * s->tex.rows) / bh;
		float k = t[3] != 0.f ? t[3] : t[2];
		float a = (v0 - t[5]) / k, b = (v1 - t[5]) / k;
		float lo = a < b ? a : b, hi = a < b ? b : a, span;

		/* A source rectangle shows only part of the strips. */
		lo = lo < 0.f ? 0.f : lo;
		hi = hi > 1.f ? 1.f : hi;
		span = hi - lo;
		if (!s->tex.tex[i] || span <= 0.f)
			continue;
		if (t[3] != 0.f)
			glUniform4f(r->u_band, 0.f, lo, 1.f, span);
		else
			glUniform4f(r->u_band, lo, 0.f, span, 1.f);
		glUniform2f(r->u_strip, v0, 1.f / (v1 - v0));
		glBindTexture(GL_TEXTURE_2D, s->tex.tex[i]);
		glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
	}
}

/* A surface and its subsurfaces in their stacking order, each at its
 * position relative to its parent; x, y is the surface's on the output.
 * A subsurface is mapped when its parent is and it has a buffer. */
static void
draw_tree(struct comp *c, struct surface *root, int32_t x, int32_t y)
{
	struct tree_walk w;
	struct tree_entry e;

	tree_walk_init(&w, root, x, y);
	while (tree_walk_next(&w, &e)) {
		if (!e.surface->has_content)
			continue;
		if (!e.self)
			tree_walk_enter(&w);
		else if (e.surface->tex.n)
			draw_surface(c, e.surface, e.x, e.y);
	}
}

/* The CUDA stage on the frame's stream: input surface to output surface. */
static int
run_cuda_stage(struct comp *c, struct glcuda_frame *f)
{
	const struct renderer *r = c->renderer;

	if (r->module) {
		char msg[512];
		int ret;

		if (CU(cuCtxPushCurrent)(glcuda_device_get_cuda_context(
			    c->dev)) != CUDA_SUCCESS)
			return -1;
		/* One plane of RGBA8: the ring's output format. */
		ret = user_kernel_launch(r->kernel, glcuda_frame_get_stream(f),
					 glcuda_frame_get_input_surface(f),
					 glcuda_frame_get_output_surface(f),
					 c->opt.width, c->opt.height, 0,
					 GLCUDA_FORMAT_RGBA8, msg, sizeof(msg));
		CU(cuCtxPopCurrent)(NULL);
		if (ret < 0) {
			fprintf(stderr, COMP_NAME ": kernel %s: %s\n",
				c->opt.kernel_name, msg);
			return -1;
		}
		return 0;
	}
	if (r->filters) {
		int ret = filters_run(
			r->filters, c->opt.filter, glcuda_frame_get_stream(f),
			glcuda_frame_get_input(f), glcuda_frame_get_output(f));
		if (ret < 0)
			return filter_failed(c, "running");
	}
	return 0;
}

/* The frame's content record: a spare one at the frame's first use. The
 * ring has desc.slots frames and render_init made as many records: none
 * is allocated while compositing. */
static struct frame_content *
frame_content_get(struct renderer *r, struct glcuda_frame *f)
{
	struct frame_content *fc = glcuda_frame_get_user_data(f);

	if (!fc) {
		fc = wl_container_of(r->spare.next, fc, link);
		wl_list_remove(&fc->link);
		wl_list_insert(&r->frames, &fc->link);
		glcuda_frame_set_user_data(f, fc);
	}
	return fc;
}

bool
render_frame(struct comp *c)
{
	struct renderer *r = c->renderer;
	struct frame_content *fc;
	struct glcuda_frame *f;
	struct surface *s;
	int ret;

	/* Never blocks: -EAGAIN when every slot is in flight. */
	ret = glcuda_ring_acquire(c->ring, &f);
	if (ret == -EAGAIN) {
		c->acquire_busy++;
		return false;
	}
	if (ret < 0) {
		render_fail(c, "glcuda_ring_acquire", ret);
		return false;
	}

	fc = frame_content_get(r, f);
	/* Feedback still waiting in the frame belongs to its previous use,
	 * which was dropped (overtaken before a vblank): never presented. */
	feedback_discard_all(&fc->feedback);

	glBindFramebuffer(GL_FRAMEBUFFER, glcuda_frame_get_input_fbo(f));
	glViewport(0, 0, (GLsizei)c->opt.width, (GLsizei)c->opt.height);
	glClearColor(BG_R / 255.f, BG_G / 255.f, BG_B / 255.f, 1.f);
	glClear(GL_COLOR_BUFFER_BIT);
	glUseProgram(r->program);
	glBindVertexArray(r->vao);
	glActiveTexture(GL_TEXTURE0);
	/* shm ARGB8888 is premultiplied. */
	glEnable(GL_BLEND);
	glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
	fc->shows_window = false;
	wl_list_for_each(s, &c->surfaces, link) {
		if (s->mapped && s->has_content) {
			draw_tree(c, s, s->x, s->y);
			fc->shows_window = true;
		}
	}
	glDisable(GL_BLEND);
	glBindTexture(GL_TEXTURE_2D, 0);
	glBindVertexArray(0);
	glUseProgram(0);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);

	/* GL -> CUDA: a semaphore (or, in the cpu mode, a fence glcuda waits
	 * for). The CUDA stage is enqueued behind it on the frame's stream. */
	ret = glcuda_frame_submit(f);
	if (ret < 0) {
		render_fail(c, "glcuda_frame_submit", ret);
		return false;
	}
	if (run_cuda_stage(c, f) < 0) {
		c->status = 1;
		c->running = false;
		/* Complete anyway: the ring gets its slot back. */
		glcuda_frame_complete(f);
		return false;
	}
	ret = glcuda_frame_complete(f);
	if (ret < 0) {
		render_fail(c, "glcuda_frame_complete", ret);
		return false;
	}
	c->composited++;
	fc->composite = c->composited;
	fc->commits = c->commits;
	/* The content committed so far is in this frame: its presentation
	 * feedback goes with the frame, sent when the frame is presented. */
	wl_list_for_each(s, &c->surfaces, link) {
		wl_list_insert_list(fc->feedback.prev, &s->feedback);
		wl_list_init(&s->feedback);
	}
	return true;
}

void
render_collect_timings(struct comp *c)
{
	struct glcuda_frame_timings t = {
		.size = sizeof(struct glcuda_frame_timings)
	};

	if (!c->ring_timings)
		return;
	while (glcuda_ring_read_timings(c->ring, &t) == 1) {
		c->t_count++;
		c->t_render += t.gl_render_ns;
		c->t_to_cuda += t.handoff_to_cuda_ns;
		c->t_cuda += t.cuda_ns;
		c->t_to_gl += t.handoff_to_gl_ns;
		c->t_total += t.total_ns;
	}
}
