/*
 * glcuda-tensor-bench: GL-rendered batches into linear CUDA memory, the
 * way a headless renderer feeds a network. One instanced draw fills every
 * layer of an RGBA8 2D array (gl_Layer from a geometry shader); then each
 * path produces a linear CUDA buffer of the rendered pixels:
 *
 *   glcuda    glcuda_copy_linear: the hand-off to CUDA, the copy of all
 *             layers and the hand-back to GL in one call, on one stream;
 *   bare      the driver calls glcuda_copy_linear makes in the timeline
 *             sync mode, made by hand on the same image's texture and
 *             CUDA array, with the bench's own semaphores (bare-sync.c),
 *             nothing else: GL signals (glSemaphoreParameterui64vEXT,
 *             glSignalSemaphoreEXT naming the texture, GENERAL layout) and
 *             flushes; one cuCtxPushCurrent; cuWaitExternalSemaphoresAsync;
 *             one cuMemcpy3DAsync of every layer; cuSignalExternal-
 *             SemaphoresAsync; cuEventRecord (glcuda's teardown event);
 *             cuCtxPopCurrent; GL waits (glSemaphoreParameterui64vEXT,
 *             glWaitSemaphoreEXT). What glcuda adds is its checks: the
 *             current context, the reset status, glGetError around each GL
 *             semaphore call, the desc and the images' states. For one
 *             layer glcuda launches its copy kernel where bare copies with
 *             the engine: GLCUDA_COPY=engine makes the calls the same;
 *   legacy    the renderer's own array texture (plain GL storage, its own
 *             layered framebuffer) registered once with
 *             cuGraphicsGLRegisterImage, read-only; per batch map on the
 *             stream, the mapped array copied with cuMemcpy3DAsync, unmap:
 *             the legacy path at its strongest (habitat-sim's way);
 *   legacy on glcuda's texture
 *             the same calls on glcuda's image texture, whose storage is
 *             imported Vulkan memory: 1.1's "legacy" column, kept to show
 *             what made it slow;
 *   readback  glGetTextureImage into a pixel-pack buffer, a fence waited
 *             for, the buffer mapped and copied into pinned memory,
 *             cuMemcpyHtoDAsync.
 *
 * Per path: batches and frames (layers) per second with the render, the
 * CPU time inside the path's calls per batch, and the time those calls
 * blocked (wall minus CPU). Then, apart from the render, what the hand-off
 * and the copy cost on the GPU, and the copy against a plain
 * cuMemcpyDtoDAsync of the same bytes, both timed with CUDA events.
 *
 * The CPU never runs more than two batches ahead of GL (a fence per batch,
 * as a swap chain throttles): that wait is not counted in the calls.
 * GLCUDA_COPY=engine or =kernel forces how glcuda copies (by default the
 * copy kernel for one layer, the copy engine for several): run it three
 * ways to compare the copy column.
 * The line "glcuda - bare" per size is the CPU glcuda adds to those calls.
 * Usage: glcuda-tensor-bench [BATCHES]   (default 200); --help
 * SPDX-License-Identifier: MIT
 */
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <glcuda/glcuda-cuda.h>

#include "bare-sync.h"
#include "cuda-table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct {
	uint32_t layers, w, h;
} sizes[] = {
	{ 2048, 64, 64 }, { 2048, 128, 128 }, { 256, 128, 128 },
	{ 64, 512, 512 }, { 1, 1920, 1080 },
};

static __typeof__(cuMemcpy3DAsync) *memcpy3d;
static __typeof__(cuMemcpyDtoDAsync) *memcpy_dtod;
static __typeof__(cuMemcpyHtoDAsync) *memcpy_htod;
static __typeof__(cuArray3DGetDescriptor) *array_desc;
static __typeof__(cuMemcpyDtoH) *memcpy_dtoh;

#define CHECK_CU(call) check_cu((call), #call, __LINE__)
static void
check_cu(CUresult res, const char *what, int line)
{
	char buf[128];

	if (res == CUDA_SUCCESS)
		return;
	fprintf(stderr, "line %d: %s: %s\n", line, what,
		tools_cuda_result(res, buf, sizeof(buf)));
	exit(1);
}

#define CHECK(call)                                                           \
	do {                                                                  \
		int r_ = (call);                                              \
		if (r_ < 0) {                                                 \
			fprintf(stderr, "line %d: %s: %s\n", __LINE__, #call, \
				glcuda_get_last_error());                     \
			exit(1);                                              \
		}                                                             \
	} while (0)

static double
now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Time inside a path's calls: wall and this thread's CPU. */
struct in_call {
	double wall, cpu, w0, c0;
};

static void
enter(struct in_call *t)
{
	t->w0 = now(CLOCK_MONOTONIC);
	t->c0 = now(CLOCK_THREAD_CPUTIME_ID);
}

static void
leave(struct in_call *t)
{
	t->cpu += now(CLOCK_THREAD_CPUTIME_ID) - t->c0;
	t->wall += now(CLOCK_MONOTONIC) - t->w0;
}

static GLuint
shader(GLenum type, const char *body)
{
	const char *src[2] = { "#version 450 core\n", body };
	GLuint s = glCreateShader(type);
	GLint ok = 0;
	char log[512] = "";

	glShaderSource(s, 2, src, NULL);
	glCompileShader(s);
	glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		glGetShaderInfoLog(s, sizeof(log), NULL, log);
		fprintf(stderr, "shader: %s\n", log);
		exit(1);
	}
	return s;
}

/* A trivial scene: instance l fills layer l with a colour of its own. */
static GLuint
layered_program(void)
{
	GLuint p = glCreateProgram();

	glAttachShader(
		p,
		shader(GL_VERTEX_SHADER,
		       "flat out int inst;\n"
		       "void main() {\n"
		       "        vec2 v = vec2(float((gl_VertexID & 1) * 4 - "
		       "1), float((gl_VertexID & 2) * 2 - 1));\n"
		       "	inst = gl_InstanceID;\n"
		       "	gl_Position = vec4(v, 0.0, 1.0);\n"
		       "}\n"));
	glAttachShader(p, shader(GL_GEOMETRY_SHADER,
		"layout(triangles) in;\n"
		"layout(triangle_strip, max_vertices = 3) out;\n"
		"flat in int inst[];\n"
		"flat out int layer;\n"
		"void main() {\n"
		"	for (int i = 0; i < 3; i++) {\n"
		"		gl_Position = gl_in[i].gl_Position;\n"
		"		gl_Layer = inst[0];\n"
		"		layer = inst[0];\n"
		"		EmitVertex();\n"
		"	}\n"
		"}\n"));
	glAttachShader(
		p,
		shader(GL_FRAGMENT_SHADER,
		       "flat in int layer;\n"
		       "out vec4 color;\n"
		       "void main() {\n"
		       "        color = vec4(float(layer & 255), float((layer "
		       ">> 8) & 255), 90.0, 255.0) / 255.0;\n"
		       "}\n"));
	glLinkProgram(p);
	return p;
}

struct scene {
	GLuint program, vao, fbo;
	uint32_t w, h, layers;
	GLsync fences[2];
	unsigned int batch;
	double pacing;
};

/* Render one batch; wait (pacing, not counted) for the batch two back. */
static void
render(struct scene *s)
{
	GLsync *f = &s->fences[s->batch++ % 2];
	double t0;

	if (*f) {
		t0 = now(CLOCK_MONOTONIC);
		glClientWaitSync(*f, GL_SYNC_FLUSH_COMMANDS_BIT, UINT64_MAX);
		s->pacing += now(CLOCK_MONOTONIC) - t0;
		glDeleteSync(*f);
	}
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, s->fbo);
	glViewport(0, 0, (GLsizei)s->w, (GLsizei)s->h);
	glUseProgram(s->program);
	glBindVertexArray(s->vao);
	glDrawArraysInstanced(GL_TRIANGLES, 0, 3, (GLsizei)s->layers);
	*f = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
}

static void
scene_drain(struct scene *s)
{
	for (int i = 0; i < 2; i++) {
		if (s->fences[i]) {
			glClientWaitSync(s->fences[i],
					 GL_SYNC_FLUSH_COMMANDS_BIT,
					 UINT64_MAX);
			glDeleteSync(s->fences[i]);
			s->fences[i] = NULL;
		}
	}
}

enum path {
	PATH_RENDER,
	PATH_GLCUDA,
	PATH_BARE,
	PATH_LEGACY,
	PATH_LEGACY_SHARED,
	PATH_READBACK,
	PATH_COUNT
};
static const char *const path_names[] = { "render only", "glcuda", "bare",
					  "legacy",
					  "legacy on glcuda's texture",
					  "readback" };

/* The bare path's own semaphores, made once (bare-sync.c); the event
 * stands for glcuda's per-image teardown event. NULL device: no bare
 * path (the reason in bare_why). */
static struct bare_vulkan bare_vk;
static struct bare_semaphore bare_to_cuda, bare_to_gl;
static CUevent bare_done;
static char bare_why[512];
/* A line per size, printed under the table. */
static char bare_summary[16][128];
static unsigned int bare_summaries;

/* The bare path's semaphores and event, with the CUDA context current:
 * where GL or Vulkan cannot have them, the path is left out (bare_why). */
static void
bare_setup(struct glcuda_device *dev)
{
	const uint8_t *uuid = glcuda_device_get_caps(dev)->device_uuid;

	if (bare_gl_check_extensions(bare_why, sizeof(bare_why)) < 0 ||
	    bare_vulkan_new(&bare_vk, uuid, bare_why, sizeof(bare_why)) < 0 ||
	    bare_semaphore_new(&bare_vk, &bare_to_cuda, bare_why,
			       sizeof(bare_why)) < 0 ||
	    bare_semaphore_new(&bare_vk, &bare_to_gl, bare_why,
			       sizeof(bare_why)) < 0) {
		if (bare_vk.device) {
			bare_semaphore_free(&bare_vk, &bare_to_cuda);
			bare_semaphore_free(&bare_vk, &bare_to_gl);
		}
		bare_vulkan_free(&bare_vk);
		return;
	}
	CHECK_CU(CU(cuEventCreate)(&bare_done, CU_EVENT_DISABLE_TIMING));
}

static void
bare_teardown(void)
{
	if (!bare_vk.device)
		return;
	glFinish();
	CHECK_CU(CU(cuCtxSynchronize)());
	bare_semaphore_free(&bare_vk, &bare_to_cuda);
	bare_semaphore_free(&bare_vk, &bare_to_gl);
	CHECK_CU(CU(cuEventDestroy)(bare_done));
	bare_vulkan_free(&bare_vk);
}

struct ctx {
	struct glcuda_device *dev;
	struct glcuda_image *img;
	CUstream stream;
	CUdeviceptr linear;
	size_t bytes, row, layer;
	CUgraphicsResource resource;
	/* The legacy path's own texture array, framebuffer and
	 * registration. */
	GLuint own_texture, own_fbo;
	CUgraphicsResource own_resource;
	GLuint pbo;
	void *pinned;
	/* The bare path: the image's texture and CUDA array. */
	GLuint texture;
	CUarray array;
	uint32_t w, h, layers;
};

/* glcuda's path: the hand-off, the copy of every layer into c->linear and
 * the hand-back, in one call on c->stream. */
static int
copy_batch(struct ctx *c)
{
	struct glcuda_linear_copy copy = {
		.image = c->img,
		.plane = 0,
		.layer = GLCUDA_ALL_LAYERS,
		.linear = c->linear,
		.row_pitch = c->row,
		.layer_pitch = c->layer,
		.direction = GLCUDA_COPY_TO_LINEAR,
	};
	struct glcuda_copy_desc desc;

	glcuda_copy_desc_init(&desc);
	desc.copies = &copy;
	desc.copy_count = 1;
	desc.stream = c->stream;
	return glcuda_copy_linear(c->dev, &desc);
}

/* The bare path: glcuda_copy_linear's driver calls in the timeline mode,
 * by hand, on the image's texture and array and the bench's semaphores. */
static void
bare_batch(struct ctx *c)
{
	CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wait;
	CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS signal;
	CUDA_MEMCPY3D m;
	CUcontext popped;

	bare_to_cuda.value++;
	bare_gl_semaphore(true, &bare_to_cuda, &c->texture, 1);
	glFlush();
	CHECK_CU(CU(cuCtxPushCurrent)(glcuda_device_get_cuda_context(c->dev)));
	memset(&wait, 0, sizeof(wait));
	wait.params.fence.value = bare_to_cuda.value;
	CHECK_CU(CU(cuWaitExternalSemaphoresAsync)(&bare_to_cuda.cu, &wait, 1,
						   c->stream));
	/* As lib/copy.c describes every layer in one 3D copy. */
	memset(&m, 0, sizeof(m));
	m.WidthInBytes = c->row;
	m.Height = c->h;
	m.Depth = c->layers;
	m.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	m.srcArray = c->array;
	m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	m.dstDevice = c->linear;
	m.dstPitch = c->row;
	m.dstHeight = c->layers > 1 ? c->layer / c->row : c->h;
	CHECK_CU(memcpy3d(&m, c->stream));
	memset(&signal, 0, sizeof(signal));
	signal.params.fence.value = bare_to_gl.value + 1;
	CHECK_CU(CU(cuSignalExternalSemaphoresAsync)(&bare_to_gl.cu, &signal,
						     1, c->stream));
	bare_to_gl.value++;
	CHECK_CU(CU(cuEventRecord)(bare_done, c->stream));
	CHECK_CU(CU(cuCtxPopCurrent)(&popped));
	bare_gl_semaphore(false, &bare_to_gl, &c->texture, 1);
}

static void
one_batch(struct ctx *c, struct scene *s, enum path p, struct in_call *t)
{
	CUarray array;

	render(s);
	switch (p) {
	case PATH_RENDER:
		break;
	case PATH_GLCUDA:
		enter(t);
		CHECK(copy_batch(c));
		leave(t);
		break;
	case PATH_BARE:
		enter(t);
		bare_batch(c);
		leave(t);
		break;
	case PATH_LEGACY:
	case PATH_LEGACY_SHARED: {
		CUgraphicsResource res = p == PATH_LEGACY ? c->own_resource
							  : c->resource;
		CUDA_ARRAY3D_DESCRIPTOR d;
		CUDA_MEMCPY3D m;

		enter(t);
		CHECK_CU(CU(cuGraphicsMapResources)(1, &res, c->stream));
		CHECK_CU(CU(cuGraphicsSubResourceGetMappedArray)(&array, res,
								 0, 0));
		CHECK_CU(array_desc(&d, array));
		memset(&m, 0, sizeof(m));
		m.srcMemoryType = CU_MEMORYTYPE_ARRAY;
		m.srcArray = array;
		m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		m.dstDevice = c->linear;
		m.dstPitch = c->row;
		m.dstHeight = s->h;
		m.WidthInBytes = c->row;
		m.Height = s->h;
		m.Depth = d.Depth ? d.Depth : 1;
		CHECK_CU(memcpy3d(&m, c->stream));
		/* An array of one layer per index: the other layers one by
		 * one (not seen with NVIDIA's driver 580, which maps the
		 * whole array). */
		for (uint32_t l = 1; l < s->layers && d.Depth <= 1; l++) {
			CHECK_CU(CU(cuGraphicsSubResourceGetMappedArray)(
				&array, res, l, 0));
			m.srcArray = array;
			m.dstDevice = c->linear + l * c->layer;
			CHECK_CU(memcpy3d(&m, c->stream));
		}
		CHECK_CU(CU(cuGraphicsUnmapResources)(1, &res, c->stream));
		leave(t);
		break;
	}
	case PATH_READBACK: {
		GLsync f;
		void *p;

		enter(t);
		glBindBuffer(GL_PIXEL_PACK_BUFFER, c->pbo);
		glGetTextureImage(glcuda_image_get_gl_texture(c->img), 0,
				  GL_RGBA, GL_UNSIGNED_BYTE, (GLsizei)c->bytes,
				  NULL);
		f = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
		glClientWaitSync(f, GL_SYNC_FLUSH_COMMANDS_BIT, UINT64_MAX);
		glDeleteSync(f);
		/* The last batch's upload must be done before the pinned
		 * buffer is written again. */
		CHECK_CU(CU(cuStreamSynchronize)(c->stream));
		p = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0,
				     (GLsizeiptr)c->bytes, GL_MAP_READ_BIT);
		memcpy(c->pinned, p, c->bytes);
		glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
		glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
		CHECK_CU(
			memcpy_htod(c->linear, c->pinned, c->bytes, c->stream));
		leave(t);
		break;
	}
	default:
		break;
	}
}

/* The first and last layer of the linear buffer against glReadPixels. */
static const char *
check_pixels(struct ctx *c, struct scene *s, bool own)
{
	const GLuint tex = own ? c->own_texture
			       : glcuda_image_get_gl_texture(c->img);
	uint8_t *gl = malloc(c->layer), *cu = malloc(c->layer);
	const char *verdict = "exact";
	uint32_t ls[2] = { 0, s->layers - 1 };
	GLuint fbo;

	CHECK_CU(CU(cuStreamSynchronize)(c->stream));
	glGenFramebuffers(1, &fbo);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
	for (int i = 0; i < 2; i++) {
		glFramebufferTextureLayer(GL_READ_FRAMEBUFFER,
					  GL_COLOR_ATTACHMENT0, tex, 0,
					  (GLint)ls[i]);
		if (s->layers == 1 && !own)
			glFramebufferTexture2D(GL_READ_FRAMEBUFFER,
					       GL_COLOR_ATTACHMENT0,
					       GL_TEXTURE_2D,
					       glcuda_image_get_gl_texture(
						       c->img),
					       0);
		glReadPixels(0, 0, (GLsizei)s->w, (GLsizei)s->h, GL_RGBA,
			     GL_UNSIGNED_BYTE, gl);
		CHECK_CU(memcpy_dtoh(cu, c->linear + ls[i] * c->layer,
				     c->layer));
		if (memcmp(gl, cu, c->layer))
			verdict = "MISMATCH";
	}
	glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
	glDeleteFramebuffers(1, &fbo);
	free(gl);
	free(cu);
	return verdict;
}

/* Microseconds per operation on the GPU: `n` of them between two events. */
static double
gpu_us(struct ctx *c, int what, int n)
{
	CUevent a, b;
	float ms;

	CHECK_CU(CU(cuEventCreate)(&a, 0));
	CHECK_CU(CU(cuEventCreate)(&b, 0));
	CHECK_CU(CU(cuEventRecord)(a, c->stream));
	for (int i = 0; i < n; i++) {
		if (what == 0)
			CHECK(glcuda_image_copy_to_linear(c->img, 0,
							  GLCUDA_ALL_LAYERS,
							  c->linear, c->row,
							  c->layer, c->stream));
		else
			CHECK_CU(memcpy_dtod(c->linear, c->linear + c->bytes,
					     c->bytes, c->stream));
	}
	CHECK_CU(CU(cuEventRecord)(b, c->stream));
	CHECK_CU(CU(cuEventSynchronize)(b));
	CHECK_CU(CU(cuEventElapsedTime)(&ms, a, b));
	CHECK_CU(CU(cuEventDestroy)(a));
	CHECK_CU(CU(cuEventDestroy)(b));
	return ms * 1000.0 / n;
}

static void
run_size(struct glcuda_device *dev, uint32_t layers, uint32_t w, uint32_t h,
	 int batches)
{
	struct glcuda_image_desc desc;
	struct scene s = { 0 };
	struct ctx c = { .dev = dev };
	double fps[PATH_COUNT] = { 0 }, cpu_us[PATH_COUNT] = { 0 };

	glcuda_image_desc_init(&desc);
	desc.width = w;
	desc.height = h;
	desc.format = GLCUDA_FORMAT_RGBA8;
	desc.layers = layers;
	CHECK(glcuda_image_new(dev, &desc, &c.img));
	c.row = (size_t)w * 4;
	c.layer = c.row * h;
	c.bytes = c.layer * layers;
	c.w = w;
	c.h = h;
	c.layers = layers;
	c.texture = glcuda_image_get_gl_texture(c.img);
	{
		struct glcuda_cuda_plane plane;

		glcuda_cuda_plane_init(&plane);
		CHECK(glcuda_image_get_cuda_plane(c.img, 0, &plane));
		c.array = plane.array;
	}
	CHECK_CU(CU(cuStreamCreate)(&c.stream, CU_STREAM_NON_BLOCKING));
	/* Twice the bytes: the plain copy's source and destination. */
	CHECK_CU(CU(cuMemAlloc)(&c.linear, 2 * c.bytes));
	CHECK_CU(CU(cuMemAllocHost)(&c.pinned, c.bytes));
	CHECK_CU(CU(
		cuGraphicsGLRegisterImage)(&c.resource,
					   glcuda_image_get_gl_texture(c.img),
					   glcuda_image_get_gl_target(c.img),
					   1 /* READ_ONLY */));
	/* The legacy path's own texture array, as a renderer has it. */
	glGenTextures(1, &c.own_texture);
	glBindTexture(GL_TEXTURE_2D_ARRAY, c.own_texture);
	glTexStorage3D(GL_TEXTURE_2D_ARRAY, 1, GL_RGBA8, (GLsizei)w, (GLsizei)h,
		       (GLsizei)layers);
	glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
	glGenFramebuffers(1, &c.own_fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, c.own_fbo);
	glFramebufferTexture(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			     c.own_texture, 0);
	if (glCheckFramebufferStatus(GL_FRAMEBUFFER) !=
	    GL_FRAMEBUFFER_COMPLETE) {
		fprintf(stderr, "the legacy path's framebuffer is not "
				"complete\n");
		exit(1);
	}
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	CHECK_CU(CU(cuGraphicsGLRegisterImage)(&c.own_resource, c.own_texture,
					       GL_TEXTURE_2D_ARRAY,
					       1 /* READ_ONLY */));
	glGenBuffers(1, &c.pbo);
	glBindBuffer(GL_PIXEL_PACK_BUFFER, c.pbo);
	glBufferData(GL_PIXEL_PACK_BUFFER, (GLsizeiptr)c.bytes, NULL,
		     GL_STREAM_READ);
	glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
	s.program = layered_program();
	glGenVertexArrays(1, &s.vao);
	s.fbo = glcuda_image_get_gl_layered_framebuffer(c.img);
	s.w = w;
	s.h = h;
	s.layers = layers;

	for (int p = 0; p < PATH_COUNT; p++) {
		struct in_call t = { 0 };
		const int n = p == PATH_READBACK ? batches / 4 + 1 : batches;
		const char *verdict = "";
		double t0, wall;

		if (p == PATH_BARE && !bare_vk.device) {
			printf("| %ux%ux%u | %s | %s | | | | |\n", layers, w, h,
			       path_names[p], bare_why);
			continue;
		}
		s.fbo = glcuda_image_get_gl_layered_framebuffer(c.img);
		if (p == PATH_LEGACY)
			s.fbo = c.own_fbo;
		for (int i = 0; i < 10; i++)
			one_batch(&c, &s, (enum path)p, &t);
		scene_drain(&s);
		CHECK_CU(CU(cuStreamSynchronize)(c.stream));
		glFinish();
		memset(&t, 0, sizeof(t));
		s.pacing = 0;
		t0 = now(CLOCK_MONOTONIC);
		for (int i = 0; i < n; i++)
			one_batch(&c, &s, (enum path)p, &t);
		scene_drain(&s);
		CHECK_CU(CU(cuStreamSynchronize)(c.stream));
		glFinish();
		wall = now(CLOCK_MONOTONIC) - t0;
		fps[p] = n / wall;
		if (p != PATH_RENDER)
			verdict = check_pixels(&c, &s, p == PATH_LEGACY);
		printf("| %ux%ux%u | %s | %.0f | %.0f | %.1f | %.1f | %s |\n",
		       layers, w, h, path_names[p], fps[p], fps[p] * layers,
		       t.cpu * 1e6 / n, (t.wall - t.cpu) * 1e6 / n, verdict);
		cpu_us[p] = t.cpu * 1e6 / n;
	}
	/* What glcuda adds to the same driver calls, in the same run. */
	if (bare_vk.device) {
		printf("| %ux%ux%u | glcuda - bare | %.1f us CPU/batch | | | "
		       "| |\n",
		       layers, w, h, cpu_us[PATH_GLCUDA] - cpu_us[PATH_BARE]);
		snprintf(bare_summary[bare_summaries++],
			 sizeof(bare_summary[0]),
			 "glcuda - bare: %.1f us at %ux%ux%u (glcuda %.1f us, "
			 "bare %.1f us: CPU in calls per batch)",
			 cpu_us[PATH_GLCUDA] - cpu_us[PATH_BARE], layers, w, h,
			 cpu_us[PATH_GLCUDA], cpu_us[PATH_BARE]);
	}
	printf("| %ux%ux%u | glcuda / legacy | %.2fx | | | | |\n", layers, w, h,
	       fps[PATH_GLCUDA] / fps[PATH_LEGACY]);
	printf("| %ux%ux%u | glcuda / legacy on glcuda's texture | %.2fx | | "
	       "| | |\n",
	       layers, w, h, fps[PATH_GLCUDA] / fps[PATH_LEGACY_SHARED]);
	printf("| %ux%ux%u | glcuda / readback | %.1fx | | | | |\n", layers, w,
	       h, fps[PATH_GLCUDA] / fps[PATH_READBACK]);

	/* Apart from the render: the hand-off and the copy, GPU time per
	 * batch; and the copy against a plain copy of the same bytes. */
	{
		const int n = 100;
		double t0, wall, copy, plain;

		t0 = now(CLOCK_MONOTONIC);
		for (int i = 0; i < n; i++)
			CHECK(copy_batch(&c));
		CHECK_CU(CU(cuStreamSynchronize)(c.stream));
		glFinish();
		wall = (now(CLOCK_MONOTONIC) - t0) * 1e6 / n;
		CHECK(glcuda_handoff_to_cuda(dev, &c.img, 1, c.stream));
		copy = gpu_us(&c, 0, n);
		plain = gpu_us(&c, 1, n);
		CHECK(glcuda_handoff_to_gl(dev, &c.img, 1, c.stream));
		printf("| %ux%ux%u | hand-off + copy, no render | %.1f "
		       "us/batch | copy %.1f us | "
		       "plain copy %.1f us | copy at %.0f %% of plain | |\n",
		       layers, w, h, wall, copy, plain, 100.0 * plain / copy);
	}

	glDeleteVertexArrays(1, &s.vao);
	glDeleteProgram(s.program);
	glDeleteBuffers(1, &c.pbo);
	CHECK_CU(CU(cuGraphicsUnregisterResource)(c.resource));
	CHECK_CU(CU(cuGraphicsUnregisterResource)(c.own_resource));
	glDeleteFramebuffers(1, &c.own_fbo);
	glDeleteTextures(1, &c.own_texture);
	CHECK_CU(CU(cuMemFreeHost)(c.pinned));
	CHECK_CU(CU(cuMemFree)(c.linear));
	CHECK_CU(CU(cuStreamDestroy)(c.stream));
	glcuda_image_destroy(c.img);
}

static void
usage(void)
{
	printf("Usage: glcuda-tensor-bench [BATCHES]   (default 200)\n"
	       "\n"
	       "GL-rendered batches of RGBA8 layers into linear CUDA memory, "
	       "per path:\n");
	for (int p = 0; p < PATH_COUNT; p++)
		printf("  %s\n", path_names[p]);
	printf("at");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		printf(" %ux%ux%u", sizes[i].layers, sizes[i].w, sizes[i].h);
	printf(" (layers x w x h). Prints batches and frames per second, the "
	       "CPU time in each path's calls per batch, \"glcuda - bare\" "
	       "(the CPU glcuda_copy_linear adds to its driver calls made by "
	       "hand, timeline sync mode) and the pixels checked against "
	       "glReadPixels.\n"
	       "GLCUDA_COPY=engine or =kernel forces how glcuda copies; "
	       "=engine makes glcuda's one-layer copy the bare path's.\n");
}

int
main(int argc, char **argv)
{
	int batches = argc > 1 ? atoi(argv[1]) : 200;
	struct glcuda_headless *hl;
	struct glcuda_device *dev;
	char msg[512];

	if (argc > 1 &&
	    (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage();
		return 0;
	}
	if (batches < 1)
		batches = 200;
	CHECK(glcuda_headless_new(-1, 0, &hl));
	CHECK(glcuda_device_new(glcuda_headless_get_display(hl),
				glcuda_headless_get_context(hl), NULL, &dev));
	if (tools_cuda_load(msg, sizeof(msg)) < 0) {
		fprintf(stderr, "%s\n", msg);
		return 1;
	}
	memcpy3d = (__typeof__(memcpy3d))tools_cuda_find("cuMemcpy3DAsync");
	memcpy_dtod =
		(__typeof__(memcpy_dtod))tools_cuda_find("cuMemcpyDtoDAsync");
	memcpy_htod =
		(__typeof__(memcpy_htod))tools_cuda_find("cuMemcpyHtoDAsync");
	array_desc = (__typeof__(array_desc))tools_cuda_find(
		"cuArray3DGetDescriptor");
	memcpy_dtoh = (__typeof__(memcpy_dtoh))tools_cuda_find("cuMemcpyDtoH");
	if (!memcpy3d || !memcpy_dtod || !memcpy_htod || !array_desc ||
	    !memcpy_dtoh) {
		fprintf(stderr,
			"the CUDA driver lacks cuMemcpy3DAsync, "
			"cuMemcpyDtoDAsync, "
			"cuMemcpyHtoDAsync or cuArray3DGetDescriptor\n");
		return 1;
	}
	CHECK_CU(CU(cuCtxPushCurrent)(glcuda_device_get_cuda_context(dev)));
	bare_setup(dev);
	printf("%s, sync mode %s, %d batches per path (readback: %d)\n",
	       glcuda_device_get_caps(dev)->cuda_device_name,
	       glcuda_sync_mode_get_name(
		       glcuda_device_get_caps(dev)->sync_mode),
	       batches, batches / 4 + 1);
	if (glcuda_device_get_caps(dev)->sync_mode != GLCUDA_SYNC_TIMELINE)
		printf("bare: glcuda's calls in the timeline sync mode; this "
		       "device hands off in another\n");
	/* What glcuda's copies go through (lib/copy.c). */
	if (getenv("GLCUDA_COPY"))
		printf("copies: GLCUDA_COPY=%s\n", getenv("GLCUDA_COPY"));
	else
		printf("copies: GLCUDA_COPY unset: the copy kernel for one "
		       "layer, the copy engine for several\n");
	printf("| layers x w x h | path | batches/s | frames/s | CPU in calls "
	       "us/batch | "
	       "blocked us/batch | pixels |\n|---|---|--:|--:|--:|--:|---|\n");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		run_size(dev, sizes[i].layers, sizes[i].w, sizes[i].h, batches);
	printf("\n");
	for (unsigned int i = 0; i < bare_summaries; i++)
		printf("%s\n", bare_summary[i]);
	if (!bare_vk.device)
		printf("no bare path: %s\n", bare_why);
	bare_teardown();
	{
		CUcontext popped;

		CHECK_CU(CU(cuCtxPopCurrent)(&popped));
	}
	glcuda_device_destroy(dev);
	glcuda_headless_destroy(hl);
	return 0;
}
