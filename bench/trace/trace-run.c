/*
 * glcuda-trace: one run of a scenario (trace.h), on its own glcuda device:
 * set-up, the frames through glcuda's hand-off calls, the table row of its
 * gaps, tear-down; and the pieces the other scenarios' files share (the
 * kernels' launches, GL's draw, the CPU's waits, the pacing of frames).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "trace.h"

static const char draw_vs[] =
	"#version 330 core\n"
	"void main() {\n"
	"	vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0,\n"
	"		      float((gl_VertexID & 2) << 1) - 1.0);\n"
	"	gl_Position = vec4(p, 0.0, 1.0);\n"
	"}\n";

static const char draw_fs[] =
	"#version 330 core\n"
	"uniform float t;\n"
	"out vec4 color;\n"
	"void main() {\n"
	"	vec2 p = gl_FragCoord.xy * 0.01;\n"
	"	color = vec4(0.5 + 0.5 * sin(p.x + t),\n"
	"		     0.5 + 0.5 * cos(p.y - t),\n"
	"		     fract(p.x * p.y * 0.1 + t), 1.0);\n"
	"}\n";

int
cu_fail(CUresult res, const char *call)
{
	char buf[160];

	if (res == CUDA_SUCCESS)
		return 0;
	fprintf(stderr, "glcuda-trace: %s failed: %s\n", call,
		tools_cuda_result(res, buf, sizeof(buf)));
	return -1;
}

int
gc_fail(int r, const char *call)
{
	if (r >= 0)
		return 0;
	fprintf(stderr, "glcuda-trace: %s failed: %s: %s\n", call,
		glcuda_error_get_name(r), glcuda_get_last_error());
	return -1;
}

static GLuint
compile(GLenum type, const char *src)
{
	GLuint s = glCreateShader(type);
	GLint ok = 0;

	glShaderSource(s, 1, &src, NULL);
	glCompileShader(s);
	glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		char log[512];
		glGetShaderInfoLog(s, sizeof(log), NULL, log);
		fprintf(stderr, "glcuda-trace: shader: %s\n", log);
		glDeleteShader(s);
		return 0;
	}
	return s;
}

int
launch_stamp(CUstream stream, uint64_t *slot)
{
	void *args[] = { &slot };

	CU_TRY(cuLaunchKernel, k.stamp, 1, 1, 1, 1, 1, 1, 0, stream, args,
	       NULL);
	return 0;
}

int
launch_invert(struct run *r, CUsurfObject in, CUsurfObject out)
{
	int w = (int)opt.width, h = (int)opt.height;
	void *args[] = { &in, &out, &w, &h };

	CU_TRY(cuLaunchKernel, k.invert, (opt.width + 15) / 16,
	       (opt.height + 15) / 16, 1, 16, 16, 1, 0, r->stream, args, NULL);
	return 0;
}

int
make_texture(GLuint *tex)
{
	glGenTextures(1, tex);
	glBindTexture(GL_TEXTURE_2D, *tex);
	glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, (GLsizei)opt.width,
		       (GLsizei)opt.height);
	glBindTexture(GL_TEXTURE_2D, 0);
	return glGetError() == GL_NO_ERROR ? 0 : -1;
}

int
make_fbo(GLuint tex, GLuint *fbo)
{
	GLenum status;

	glGenFramebuffers(1, fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, tex, 0);
	status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	if (status != GL_FRAMEBUFFER_COMPLETE) {
		fprintf(stderr, "glcuda-trace: framebuffer incomplete (0x%x)\n",
			status);
		return -1;
	}
	return 0;
}

static void
run_teardown(struct run *r)
{
	if (r->stream)
		CU(cuStreamSynchronize)(r->stream);
	for (unsigned int i = 0; i < 2 * MAX_BATCH; i++) {
		if (i < 2 && r->fences[i])
			glDeleteSync(r->fences[i]);
		if (i < 2 && r->surfs[i])
			CU(cuSurfObjectDestroy)(r->surfs[i]);
		if (i < 2 && r->res[i])
			CU(cuGraphicsUnregisterResource)(r->res[i]);
		if (r->fbo[i] && !r->ring) /* a ring's are the ring's */
			glDeleteFramebuffers(1, &r->fbo[i]);
		if (r->img[i])
			glcuda_image_destroy(r->img[i]);
		else if (r->tex[i])
			glDeleteTextures(1, &r->tex[i]);
	}
	if (r->screen_fbo)
		glDeleteFramebuffers(1, &r->screen_fbo);
	if (r->screen_tex)
		glDeleteTextures(1, &r->screen_tex);
	if (r->queries) {
		glDeleteQueries((GLsizei)((opt.warmup + opt.frames) * 4),
				r->queries);
		free(r->queries);
	}
	glcuda_ring_destroy(r->ring);
	if (r->stamps)
		CU(cuMemFreeHost)(r->stamps);
	if (r->prog)
		glDeleteProgram(r->prog);
	if (r->vao)
		glDeleteVertexArrays(1, &r->vao);
	if (r->stream)
		CU(cuStreamDestroy)(r->stream);
	glcuda_device_destroy(r->dev);
	memset(r, 0, sizeof(*r));
}

/* The draw's program and vertex array, in the current context. */
int
make_draw_program(struct run *r)
{
	GLuint vs = compile(GL_VERTEX_SHADER, draw_vs),
	       fs = compile(GL_FRAGMENT_SHADER, draw_fs);
	GLint ok = 0;

	if (!vs || !fs) {
		glDeleteShader(vs);
		glDeleteShader(fs);
		return -1;
	}
	r->prog = glCreateProgram();
	glAttachShader(r->prog, vs);
	glAttachShader(r->prog, fs);
	glLinkProgram(r->prog);
	glDeleteShader(vs);
	glDeleteShader(fs);
	glGetProgramiv(r->prog, GL_LINK_STATUS, &ok);
	if (!ok)
		return -1;
	r->t_loc = glGetUniformLocation(r->prog, "t");
	glGenVertexArrays(1, &r->vao);
	return 0;
}

static int
run_setup(struct run *r)
{
	struct glcuda_device_options o;
	unsigned int n = opt.warmup + opt.frames;
	int ret;

	glcuda_device_options_init(&o);
	o.sync_mode =
		r->sc == SC_BINARY ? GLCUDA_SYNC_BINARY : GLCUDA_SYNC_TIMELINE;
	ret = glcuda_device_new(dpy, eglGetCurrentContext(), &o, &r->dev);
	if (gc_fail(ret, "glcuda_device_new") < 0)
		return -1;
	if (r->sc == SC_CUDA_PRIO) {
		int least = 0, greatest = 0;
		if (!CU(cuStreamCreateWithPriority) ||
		    !CU(cuCtxGetStreamPriorityRange)) {
			fprintf(stderr, "glcuda-trace: the driver has no "
					"stream priorities\n");
			return -1;
		}
		CU_TRY(cuCtxGetStreamPriorityRange, &least, &greatest);
		CU_TRY(cuStreamCreateWithPriority, &r->stream,
		       CU_STREAM_NON_BLOCKING, greatest);
		snprintf(r->note, sizeof(r->note),
			 "stream priority %d (range %d..%d)", greatest, least,
			 greatest);
	} else if (!scenarios[r->sc].ring) {
		CU_TRY(cuStreamCreate, &r->stream, CU_STREAM_NON_BLOCKING);
	}
	CU_TRY(cuMemAllocHost, (void **)&r->stamps,
	       (size_t)n * 2 * sizeof(uint64_t));
	memset(r->stamps, 0, (size_t)n * 2 * sizeof(uint64_t));
	r->queries = calloc((size_t)n * 4, sizeof(GLuint));
	if (!r->queries)
		return -1;
	glGenQueries((GLsizei)(n * 4), r->queries);

	r->batch = scenarios[r->sc].batch;
	if (scenarios[r->sc].ring) {
		struct glcuda_ring_desc desc;
		glcuda_ring_desc_init(&desc);
		desc.width = opt.width;
		desc.height = opt.height;
		desc.slots = r->batch < 2 ? 2 : r->batch;
		desc.input_format = GLCUDA_FORMAT_RGBA8;
		desc.output_format = GLCUDA_FORMAT_RGBA8;
		ret = glcuda_ring_new(r->dev, &desc, &r->ring);
		if (gc_fail(ret, "glcuda_ring_new") < 0)
			return -1;
		snprintf(r->note, sizeof(r->note),
			 "the frame ring, %u slots; %u frame%s rendered, then "
			 "submitted; completed; GL waits for all, then blits",
			 desc.slots, r->batch, r->batch > 1 ? "s" : "");
	}
	for (unsigned int i = 0; i < 2 * r->batch && !r->ring; i++) {
		if (r->sc == SC_LEGACY) {
			CUresult res;
			if (make_texture(&r->tex[i]) < 0)
				return -1;
			res = CU(cuGraphicsGLRegisterImage)(
				&r->res[i], r->tex[i], GL_TEXTURE_2D,
				CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST);
			if (res != CUDA_SUCCESS) {
				r->res[i] = NULL;
				return cu_fail(res,
					       "cuGraphicsGLRegisterImage");
			}
		} else {
			struct glcuda_image_desc desc;

			glcuda_image_desc_init(&desc);
			desc.width = opt.width;
			desc.height = opt.height;
			desc.format = GLCUDA_FORMAT_RGBA8;
			desc.flags = GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE;
			ret = glcuda_image_new(r->dev, &desc, &r->img[i]);
			if (gc_fail(ret, "glcuda_image_new") < 0)
				return -1;
			r->tex[i] = glcuda_image_get_gl_texture(r->img[i]);
		}
		if (make_fbo(r->tex[i], &r->fbo[i]) < 0)
			return -1;
	}
	if (make_texture(&r->screen_tex) < 0 ||
	    make_fbo(r->screen_tex, &r->screen_fbo) < 0)
		return -1;
	if (r->sc == SC_HOST) {
		/* The images stay CUDA's for the whole run. */
		ret = glcuda_handoff_to_cuda(r->dev, r->img, 2, r->stream);
		if (gc_fail(ret, "glcuda_handoff_to_cuda") < 0)
			return -1;
	}
	if (r->batch > 1 && !r->ring)
		snprintf(r->note, sizeof(r->note),
			 "%u frames per hand-off; to CUDA and to GL per "
			 "hand-off, the rest per frame",
			 r->batch);

	if (make_draw_program(r) < 0)
		return -1;
	return glGetError() == GL_NO_ERROR ? 0 : -1;
}

void
gl_draw(struct run *r, unsigned int b, unsigned int n)
{
	glBindFramebuffer(GL_FRAMEBUFFER, r->fbo[2 * b]);
	glViewport(0, 0, (GLsizei)opt.width, (GLsizei)opt.height);
	glUseProgram(r->prog);
	glUniform1f(r->t_loc, (float)n * 0.05f);
	glBindVertexArray(r->vao);
	glDrawArrays(GL_TRIANGLES, 0, 3);
	glBindVertexArray(0);
	glUseProgram(0);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

static void
gl_blit(struct run *r, unsigned int b)
{
	glBindFramebuffer(GL_READ_FRAMEBUFFER, r->fbo[2 * b + 1]);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, r->screen_fbo);
	glBlitFramebuffer(0, 0, (GLint)opt.width, (GLint)opt.height, 0, 0,
			  (GLint)opt.width, (GLint)opt.height,
			  GL_COLOR_BUFFER_BIT, GL_NEAREST);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
}

/* The CPU waits for GL's work so far: spinning, so that wake-up latency
 * does not land in the gaps of the CPU-gated scenarios. */
int
cpu_wait_gl(void)
{
	GLsync s = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
	GLenum w;

	if (!s)
		return -1;
	glFlush();
	do
		w = glClientWaitSync(s, 0, 0);
	while (w == GL_TIMEOUT_EXPIRED);
	glDeleteSync(s);
	return w == GL_WAIT_FAILED ? -1 : 0;
}

static int
cpu_wait_cuda(CUstream stream)
{
	CUresult res;

	while ((res = CU(cuStreamQuery)(stream)) == CUDA_ERROR_NOT_READY)
		;
	return cu_fail(res, "cuStreamQuery");
}

/* The start of frame n: in the steady mode, at most two frames ahead (the
 * fence frame_end left two frames back). */
void
frame_begin(struct run *r, unsigned int n)
{
	if (r->fences[n % 2]) {
		glClientWaitSync(r->fences[n % 2], GL_SYNC_FLUSH_COMMANDS_BIT,
				 1000000000);
		glDeleteSync(r->fences[n % 2]);
		r->fences[n % 2] = NULL;
	}
}

/* The end of frame n: the CPU waits for GL and for CUDA's count streams,
 * or, in the steady mode, a fence for frame_begin and a flush. */
int
frame_end(struct run *r, unsigned int n, const CUstream *streams,
	  unsigned int count)
{
	if (!r->steady) {
		if (cpu_wait_gl() < 0)
			return -1;
		for (unsigned int i = 0; i < count; i++)
			CU_TRY(cuStreamSynchronize, streams[i]);
	} else {
		r->fences[n % 2] =
			glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
		glFlush();
	}
	return glGetError() == GL_NO_ERROR ? 0 : -1;
}

static int
frame(struct run *r, unsigned int n)
{
	GLuint *q = &r->queries[n * 4];
	uint64_t *st = &r->stamps[n * 2];
	CUsurfObject surf[2] = { 0, 0 };
	bool legacy = r->sc == SC_LEGACY;
	int ret = 0;

	frame_begin(r, n);
	glQueryCounter(q[0], GL_TIMESTAMP);
	for (unsigned int b = 0; b < r->batch; b++)
		gl_draw(r, b, n * r->batch + b);
	glQueryCounter(q[1], GL_TIMESTAMP);

	switch (r->sc) {
	case SC_HOST:
		if (cpu_wait_gl() < 0)
			return -1;
		break;
	case SC_LEGACY:
		if (legacy_map(r, surf) < 0)
			return -1;
		break;
	default:
		ret = glcuda_handoff_to_cuda(r->dev, r->img, 2 * r->batch,
					     r->stream);
		if (gc_fail(ret, "glcuda_handoff_to_cuda") < 0)
			return -1;
	}
	if (launch_stamp(r->stream, &st[0]) < 0)
		return -1;
	for (unsigned int b = 0; b < r->batch; b++) {
		if (!legacy) {
			surf[0] = glcuda_image_get_cuda_surface(r->img[2 * b]);
			surf[1] = glcuda_image_get_cuda_surface(
				r->img[2 * b + 1]);
		}
		if (launch_invert(r, surf[0], surf[1]) < 0)
			return -1;
	}
	if (launch_stamp(r->stream, &st[1]) < 0)
		return -1;

	switch (r->sc) {
	case SC_HOST:
		if (cpu_wait_cuda(r->stream) < 0)
			return -1;
		break;
	case SC_GL_READY:
		if (cpu_wait_cuda(r->stream) < 0)
			return -1;
		/* fall through */
	default:
		if (!legacy) {
			ret = glcuda_handoff_to_gl(r->dev, r->img, 2 * r->batch,
						   r->stream);
			if (gc_fail(ret, "glcuda_handoff_to_gl") < 0)
				return -1;
		} else {
			CU_TRY(cuGraphicsUnmapResources, 2, r->res, r->stream);
		}
	}
	glQueryCounter(q[2], GL_TIMESTAMP);
	for (unsigned int b = 0; b < r->batch; b++)
		gl_blit(r, b);
	glQueryCounter(q[3], GL_TIMESTAMP);

	return frame_end(r, n, &r->stream, 1);
}

/* The table cells of count gaps, each its median (10th–90th percentile);
 * frees them. */
void
print_gap_cells(struct stats *st, unsigned int count)
{
	for (unsigned int i = 0; i < count; i++) {
		double mean, p50, p99;
		qsort(st[i].v, st[i].n, sizeof(double), stats_cmp_double);
		stats_summary(&st[i], &mean, &p50, &p99);
		printf(" %.1f (%.1f–%.1f) |", p50,
		       stats_percentile(st[i].v, st[i].n, 10),
		       stats_percentile(st[i].v, st[i].n, 90));
		stats_free(&st[i]);
	}
}

static void
summarize(const struct run *r, bool ok)
{
	struct stats s[G_COUNT];
	char label[64];

	snprintf(label, sizeof(label), "%s, %s", scenarios[r->sc].name,
		 r->steady ? "steady" : "isolated");
	if (!ok) {
		printf("| %s | failed | | | | | | |\n", label);
		return;
	}
	memset(s, 0, sizeof(s));
	for (unsigned int n = opt.warmup; n < opt.warmup + opt.frames; n++) {
		uint64_t m[M_COUNT];
		const GLuint *q = &r->queries[n * 4];
		GLuint64 v;

		glGetQueryObjectui64v(q[0], GL_QUERY_RESULT, &v);
		m[M_GL_START] = v;
		glGetQueryObjectui64v(q[1], GL_QUERY_RESULT, &v);
		m[M_GL_DRAWN] = v;
		glGetQueryObjectui64v(q[2], GL_QUERY_RESULT, &v);
		m[M_GL_WAITED] = v;
		glGetQueryObjectui64v(q[3], GL_QUERY_RESULT, &v);
		m[M_GL_BLITTED] = v;
		m[M_CUDA_START] = r->stamps[n * 2];
		m[M_CUDA_END] = r->stamps[n * 2 + 1];
		double b = r->batch;
		double g[G_COUNT] = {
			[G_TO_CUDA] = ((double)m[M_CUDA_START] -
				       (double)m[M_GL_DRAWN]) /
				      1e3,
			[G_CUDA] = ((double)m[M_CUDA_END] -
				    (double)m[M_CUDA_START]) /
				   1e3 / b,
			[G_TO_GL] = ((double)m[M_GL_WAITED] -
				     (double)m[M_CUDA_END]) /
				    1e3,
			[G_BLIT] = ((double)m[M_GL_BLITTED] -
				    (double)m[M_GL_WAITED]) /
				   1e3 / b,
			[G_FRAME] = ((double)m[M_GL_BLITTED] -
				     (double)m[M_GL_START]) /
				    1e3 / b,
		};
		g[G_SWITCH] = (g[G_TO_CUDA] + g[G_TO_GL]) / b;
		for (int i = 0; i < G_COUNT; i++)
			stats_add(&s[i], g[i]);
		if (csv)
			fprintf(csv, "%s,%s,%u,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n",
				scenarios[r->sc].name,
				r->steady ? "steady" : "isolated",
				n - opt.warmup, g[0], g[1], g[2], g[3], g[4],
				g[5]);
	}
	printf("| %s |", label);
	print_gap_cells(s, G_COUNT);
	printf(" %s |\n", r->note);
}

void
run_scenario(enum scenario sc, bool steady)
{
	EGLContext main_ctx = eglGetCurrentContext(), prio_ctx = EGL_NO_CONTEXT;
	struct run r;
	char note[160] = "";
	bool ok = true;

	memset(&r, 0, sizeof(r));
	r.sc = sc;
	r.steady = steady;
	if (sc == SC_GL_PRIO) {
		prio_ctx = make_priority_context(note, sizeof(note));
		if (prio_ctx == EGL_NO_CONTEXT ||
		    !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE,
				    prio_ctx)) {
			printf("| %s, %s | skipped | | | | | | %s |\n",
			       scenarios[sc].name,
			       steady ? "steady" : "isolated", note);
			if (prio_ctx != EGL_NO_CONTEXT)
				eglDestroyContext(dpy, prio_ctx);
			return;
		}
	}
	if (run_setup(&r) < 0)
		ok = false;
	if (note[0])
		snprintf(r.note, sizeof(r.note), "%s", note);
	for (unsigned int n = 0; ok && n < opt.warmup + opt.frames; n++)
		if ((r.ring ? ring_frame(&r, n) : frame(&r, n)) < 0)
			ok = false;
	if (ok && (cpu_wait_gl() < 0 ||
		   (r.stream && cu_fail(CU(cuStreamSynchronize)(r.stream),
					"cuStreamSynchronize") < 0)))
		ok = false;
	if (ok && sc == SC_HOST &&
	    gc_fail(glcuda_handoff_to_gl(r.dev, r.img, 2, r.stream),
		    "glcuda_handoff_to_gl") < 0)
		ok = false;
	summarize(&r, ok);
	if (ok && r.ring)
		cpu_summary(&r);
	for (int i = 0; i < RC_COUNT; i++)
		stats_free(&r.cpu[i]);
	fflush(stdout);
	if (sc == SC_HOST)
		cpu_wait_gl();
	run_teardown(&r);
	if (prio_ctx != EGL_NO_CONTEXT) {
		eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, main_ctx);
		eglDestroyContext(dpy, prio_ctx);
	}
}
