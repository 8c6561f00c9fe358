/*
 * glcuda-trace: the eglstream row, GL -> CUDA -> GL through NVIDIA's
 * EGLStreams (where the toolkit's cudaEGL.h declares them).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "trace.h"

#ifdef TRACE_HAVE_EGLSTREAM
/* cudaEGL.h's entry points, from the driver the programs' table was loaded
 * from: the table keeps to what every tool needs. */
static struct {
	__typeof__(cuEGLStreamConsumerConnect) *consumer_connect;
	__typeof__(cuEGLStreamConsumerDisconnect) *consumer_disconnect;
	__typeof__(cuEGLStreamConsumerAcquireFrame) *consumer_acquire;
	__typeof__(cuEGLStreamConsumerReleaseFrame) *consumer_release;
	__typeof__(cuEGLStreamProducerConnect) *producer_connect;
	__typeof__(cuEGLStreamProducerDisconnect) *producer_disconnect;
	__typeof__(cuEGLStreamProducerPresentFrame) *producer_present;
	__typeof__(cuEGLStreamProducerReturnFrame) *producer_return;
	__typeof__(cuGraphicsResourceGetMappedEglFrame) *mapped_frame;
} es;

static const char *
eglstream_resolve(void)
{
	if (!tools_cuda_loaded())
		return "libcuda.so.1 is not loaded";
#define ES(member, name) \
	if (!(es.member = (__typeof__(es.member))tools_cuda_find(#name))) \
		return #name " not found in libcuda";
	ES(consumer_connect, cuEGLStreamConsumerConnect)
	ES(consumer_disconnect, cuEGLStreamConsumerDisconnect)
	ES(consumer_acquire, cuEGLStreamConsumerAcquireFrame)
	ES(consumer_release, cuEGLStreamConsumerReleaseFrame)
	ES(producer_connect, cuEGLStreamProducerConnect)
	ES(producer_disconnect, cuEGLStreamProducerDisconnect)
	ES(producer_present, cuEGLStreamProducerPresentFrame)
	ES(producer_return, cuEGLStreamProducerReturnFrame)
	ES(mapped_frame, cuGraphicsResourceGetMappedEglFrame)
#undef ES
	return NULL;
}

static void
eglstream_row(const char *result, const char *note)
{
	printf("| eglstream, isolated | %s | | | | | | %s |\n", result, note);
	fflush(stdout);
}

/* GL -> CUDA -> GL through two EGLStreams: GL renders into the producer
 * surface of to_cuda, CUDA consumes it and produces into to_gl, which GL
 * consumes as an external texture. */
struct eglstream_run {
	EGLContext main_ctx, ctx;
	EGLConfig cfg;
	EGLStreamKHR to_cuda, to_gl;
	EGLSurface surf;               /* GL's producer surface on to_cuda */
	CUeglStreamConnection cons, prod;
	GLuint ext_tex;                /* GL's consumer texture on to_gl */
	struct run r;                  /* for gl_draw's program and the marks */
	unsigned int n_all;
	CUdeviceptr out[2];            /* CUDA's output frames, by turns */
	CUarray cached_array; /* GL's last frame, and a surface on it */
	CUsurfObject cached_surf;
	CUstream cs;
	unsigned int presented;
	char note[256];
};

/* Why the run cannot be made here, or NULL (with the config chosen). */
static const char *
eglstream_skip_reason(struct eglstream_run *s)
{
	static const char *const exts[] = {
		"EGL_KHR_stream", "EGL_KHR_stream_producer_eglsurface",
		"EGL_KHR_stream_consumer_gltexture",
	};
	EGLint cfg_attribs[] = {
		EGL_SURFACE_TYPE,
		EGL_STREAM_BIT_KHR,
		EGL_RENDERABLE_TYPE,
		EGL_OPENGL_BIT,
		EGL_RED_SIZE, 8,
		EGL_GREEN_SIZE, 8,
		EGL_BLUE_SIZE, 8,
		EGL_ALPHA_SIZE, 8,
		EGL_NONE,
	};
	EGLint ncfg = 0;
	const char *why;

	for (size_t i = 0; i < ARRAY_LENGTH(exts); i++)
		if (!epoxy_has_egl_extension(dpy, exts[i])) {
			snprintf(s->note, sizeof(s->note), "no %s", exts[i]);
			return s->note;
		}
	why = eglstream_resolve();
	if (why)
		return why;
	eglBindAPI(EGL_OPENGL_API);
	if (!eglChooseConfig(dpy, cfg_attribs, &s->cfg, 1, &ncfg) || ncfg < 1)
		return "no EGLConfig with EGL_STREAM_BIT_KHR and GL";
	return NULL;
}

/* The context, the streams and their four ends (the producer surface
 * current), CUDA's stream and frames, the queries and the program. -1 with
 * the reason in the note; eglstream_close frees what was made. */
static int
eglstream_open(struct eglstream_run *s)
{
	static const EGLint ctx_attribs[] = {
		EGL_CONTEXT_MAJOR_VERSION, 4,
		EGL_CONTEXT_MINOR_VERSION, 5,
		EGL_CONTEXT_OPENGL_PROFILE_MASK,
		EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE,
	};

	s->ctx = eglCreateContext(dpy, s->cfg, EGL_NO_CONTEXT, ctx_attribs);
	s->to_cuda = eglCreateStreamKHR(dpy, (EGLint[]){ EGL_NONE });
	s->to_gl = eglCreateStreamKHR(dpy, (EGLint[]){ EGL_NONE });
	if (s->ctx == EGL_NO_CONTEXT || s->to_cuda == EGL_NO_STREAM_KHR ||
	    s->to_gl == EGL_NO_STREAM_KHR) {
		snprintf(s->note, sizeof(s->note),
			 "context or streams: EGL error 0x%x", eglGetError());
		return -1;
	}
	/* Consumers connect first. */
	if (cu_fail(es.consumer_connect(&s->cons, s->to_cuda),
		    "cuEGLStreamConsumerConnect") < 0) {
		s->cons = NULL;
		snprintf(s->note, sizeof(s->note),
			 "cuEGLStreamConsumerConnect failed");
		return -1;
	}
	s->surf = eglCreateStreamProducerSurfaceKHR(
		dpy, s->cfg, s->to_cuda,
		(EGLint[]){ EGL_WIDTH, (EGLint)opt.width, EGL_HEIGHT,
			    (EGLint)opt.height, EGL_NONE });
	if (s->surf == EGL_NO_SURFACE ||
	    !eglMakeCurrent(dpy, s->surf, s->surf, s->ctx)) {
		snprintf(s->note, sizeof(s->note),
			 "producer surface: EGL error 0x%x", eglGetError());
		return -1;
	}
	glGenTextures(1, &s->ext_tex);
	glBindTexture(GL_TEXTURE_EXTERNAL_OES, s->ext_tex);
	if (!eglStreamConsumerGLTextureExternalKHR(dpy, s->to_gl)) {
		snprintf(s->note, sizeof(s->note),
			 "eglStreamConsumerGLTextureExternalKHR: EGL error "
			 "0x%x",
			 eglGetError());
		return -1;
	}
	if (cu_fail(es.producer_connect(&s->prod, s->to_gl, (EGLint)opt.width,
					(EGLint)opt.height),
		    "cuEGLStreamProducerConnect") < 0) {
		s->prod = NULL;
		snprintf(s->note, sizeof(s->note),
			 "cuEGLStreamProducerConnect failed");
		return -1;
	}
	if (cu_fail(CU(cuStreamCreate)(&s->cs, CU_STREAM_NON_BLOCKING),
		    "cuStreamCreate") < 0 ||
	    cu_fail(CU(cuMemAllocHost)((void **)&s->r.stamps,
				       (size_t)s->n_all * 2 * sizeof(uint64_t)),
		    "cuMemAllocHost") < 0)
		return -1;
	for (int i = 0; i < 2; i++)
		if (cu_fail(CU(cuMemAlloc)(&s->out[i],
					   (size_t)opt.width * opt.height * 4),
			    "cuMemAlloc") < 0)
			return -1;
	s->r.queries = calloc((size_t)s->n_all * 4, sizeof(GLuint));
	if (!s->r.queries)
		return -1;
	glGenQueries((GLsizei)(s->n_all * 4), s->r.queries);
	if (make_draw_program(&s->r) < 0)
		return -1;
	s->r.fbo[0] = 0; /* the stream's producer surface */
	return 0;
}

/* CUDA's side of frame n: GL's frame from to_cuda, inverted into dst. */
static int
eglstream_cuda(struct eglstream_run *s, unsigned int n, CUdeviceptr dst)
{
	CUgraphicsResource res = NULL;
	CUeglFrame in_frame;
	CUresult cr;
	int w = (int)opt.width, h = (int)opt.height, pitch_px = (int)opt.width;
	void *args[] = { &s->cached_surf, &dst, &pitch_px, &w, &h };

	cr = es.consumer_acquire(&s->cons, &res, &s->cs, 1000000);
	if (cr != CUDA_SUCCESS) {
		cu_fail(cr, "cuEGLStreamConsumerAcquireFrame");
		snprintf(s->note, sizeof(s->note),
			 "cuEGLStreamConsumerAcquireFrame failed (%d)", cr);
		return -1;
	}
	cr = es.mapped_frame(&in_frame, res, 0, 0);
	if (cr == CUDA_SUCCESS &&
	    in_frame.frameType != CU_EGL_FRAME_TYPE_ARRAY) {
		snprintf(s->note, sizeof(s->note),
			 "GL's frame is not a CUDA array (type %d)",
			 (int)in_frame.frameType);
		es.consumer_release(&s->cons, res, &s->cs);
		return -1;
	}
	if (cr == CUDA_SUCCESS && in_frame.frame.pArray[0] != s->cached_array) {
		CUDA_RESOURCE_DESC rd;
		if (s->cached_surf)
			CU(cuSurfObjectDestroy)(s->cached_surf);
		s->cached_surf = 0;
		memset(&rd, 0, sizeof(rd));
		rd.resType = CU_RESOURCE_TYPE_ARRAY;
		rd.res.array.hArray = in_frame.frame.pArray[0];
		cr = CU(cuSurfObjectCreate)(&s->cached_surf, &rd);
		s->cached_array =
			cr == CUDA_SUCCESS ? in_frame.frame.pArray[0] : NULL;
	}
	if (cr == CUDA_SUCCESS)
		cr = launch_stamp(s->cs, &s->r.stamps[n * 2]) < 0
			     ? CUDA_ERROR_UNKNOWN
			     : CUDA_SUCCESS;
	if (cr == CUDA_SUCCESS)
		cr = CU(cuLaunchKernel)(k.invert_to_pitch,
					(opt.width + 15) / 16,
					(opt.height + 15) / 16, 1, 16, 16, 1, 0,
					s->cs, args, NULL);
	if (cr == CUDA_SUCCESS)
		cr = launch_stamp(s->cs, &s->r.stamps[n * 2 + 1]) < 0
			     ? CUDA_ERROR_UNKNOWN
			     : CUDA_SUCCESS;
	es.consumer_release(&s->cons, res, &s->cs);
	if (cr != CUDA_SUCCESS) {
		cu_fail(cr, "the EGLStream frame's kernel");
		snprintf(s->note, sizeof(s->note),
			 "mapping or using GL's frame in CUDA failed (%d)", cr);
		return -1;
	}
	return 0;
}

/* CUDA's frame dst into to_gl, and GL's acquire of it. */
static int
eglstream_present(struct eglstream_run *s, CUdeviceptr dst)
{
	CUeglFrame out_frame;
	CUresult cr;

	/* Buffers the consumer is done with come back to the producer. */
	if (s->presented >= 2) {
		CUeglFrame back;
		es.producer_return(&s->prod, &back, &s->cs);
	}
	memset(&out_frame, 0, sizeof(out_frame));
	out_frame.frame.pPitch[0] = (void *)(uintptr_t)dst;
	out_frame.width = opt.width;
	out_frame.height = opt.height;
	out_frame.depth = 1;
	out_frame.pitch = opt.width * 4;
	out_frame.planeCount = 1;
	out_frame.numChannels = 4;
	out_frame.frameType = CU_EGL_FRAME_TYPE_PITCH;
	out_frame.eglColorFormat = CU_EGL_COLOR_FORMAT_ABGR;
	out_frame.cuFormat = CU_AD_FORMAT_UNSIGNED_INT8;
	cr = es.producer_present(&s->prod, out_frame, &s->cs);
	if (cr != CUDA_SUCCESS) {
		cu_fail(cr, "cuEGLStreamProducerPresentFrame");
		snprintf(s->note, sizeof(s->note),
			 "cuEGLStreamProducerPresentFrame failed (%d)", cr);
		return -1;
	}
	s->presented++;
	glBindTexture(GL_TEXTURE_EXTERNAL_OES, s->ext_tex);
	if (!eglStreamConsumerAcquireKHR(dpy, s->to_gl)) {
		snprintf(s->note, sizeof(s->note),
			 "eglStreamConsumerAcquireKHR: EGL error 0x%x",
			 eglGetError());
		return -1;
	}
	return 0;
}

/* Frame n through both streams, its marks taken, on an idle GPU after. */
static int
eglstream_frame(struct eglstream_run *s, unsigned int n)
{
	GLuint *q = &s->r.queries[n * 4];
	CUdeviceptr dst = s->out[n % 2];

	glQueryCounter(q[0], GL_TIMESTAMP);
	gl_draw(&s->r, 0, n);
	glQueryCounter(q[1], GL_TIMESTAMP);
	if (!eglSwapBuffers(dpy, s->surf)) {
		snprintf(s->note, sizeof(s->note),
			 "eglSwapBuffers: EGL error 0x%x", eglGetError());
		return -1;
	}
	if (eglstream_cuda(s, n, dst) < 0 || eglstream_present(s, dst) < 0)
		return -1;
	glQueryCounter(q[2], GL_TIMESTAMP);
	eglStreamConsumerReleaseKHR(dpy, s->to_gl);
	glQueryCounter(q[3], GL_TIMESTAMP);
	if (cpu_wait_gl() < 0 ||
	    cu_fail(CU(cuStreamSynchronize)(s->cs), "cuStreamSynchronize") < 0)
		return -1;
	return 0;
}

/* The table row of the frames after the warm-up. */
static void
eglstream_report(struct eglstream_run *s)
{
	struct stats st[3] = { { 0 } };

	for (unsigned int n = opt.warmup; n < s->n_all; n++) {
		GLuint64 drawn = 0, acquired = 0;
		glGetQueryObjectui64v(s->r.queries[n * 4 + 1], GL_QUERY_RESULT,
				      &drawn);
		glGetQueryObjectui64v(s->r.queries[n * 4 + 2], GL_QUERY_RESULT,
				      &acquired);
		stats_add(&st[0],
			  ((double)s->r.stamps[n * 2] - (double)drawn) / 1e3);
		stats_add(&st[1], ((double)s->r.stamps[n * 2 + 1] -
				   (double)s->r.stamps[n * 2]) /
					  1e3);
		stats_add(&st[2],
			  ((double)acquired - (double)s->r.stamps[n * 2 + 1]) /
				  1e3);
	}
	printf("| eglstream, isolated |");
	print_gap_cells(st, ARRAY_LENGTH(st));
	printf(" | | | GL producer surface -> CUDA consumer; CUDA producer -> "
	       "GL texture consumer; to GL ends at GL past its acquire |\n");
	fflush(stdout);
}

/* Whatever eglstream_open made, after CUDA's work is done; the bench's
 * context current again. */
static void
eglstream_close(struct eglstream_run *s)
{
	if (s->cs)
		CU(cuStreamSynchronize)(s->cs);
	if (s->cached_surf)
		CU(cuSurfObjectDestroy)(s->cached_surf);
	if (s->prod)
		es.producer_disconnect(&s->prod);
	if (s->cons)
		es.consumer_disconnect(&s->cons);
	if (eglGetCurrentContext() == s->ctx && s->ctx != EGL_NO_CONTEXT) {
		if (s->r.queries)
			glDeleteQueries((GLsizei)(s->n_all * 4), s->r.queries);
		if (s->ext_tex)
			glDeleteTextures(1, &s->ext_tex);
		if (s->r.prog)
			glDeleteProgram(s->r.prog);
		if (s->r.vao)
			glDeleteVertexArrays(1, &s->r.vao);
	}
	free(s->r.queries);
	eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, s->main_ctx);
	if (s->surf != EGL_NO_SURFACE)
		eglDestroySurface(dpy, s->surf);
	if (s->to_cuda != EGL_NO_STREAM_KHR)
		eglDestroyStreamKHR(dpy, s->to_cuda);
	if (s->to_gl != EGL_NO_STREAM_KHR)
		eglDestroyStreamKHR(dpy, s->to_gl);
	if (s->ctx != EGL_NO_CONTEXT)
		eglDestroyContext(dpy, s->ctx);
	for (int i = 0; i < 2; i++)
		if (s->out[i])
			CU(cuMemFree)(s->out[i]);
	if (s->r.stamps)
		CU(cuMemFreeHost)(s->r.stamps);
	if (s->cs)
		CU(cuStreamDestroy)(s->cs);
}

/* GL -> CUDA -> GL through two EGLStreams, every frame on an idle GPU. */
void
run_eglstream(CUstream unused)
{
	struct eglstream_run s;
	const char *why;
	int ret;

	(void)unused;
	memset(&s, 0, sizeof(s));
	s.main_ctx = eglGetCurrentContext();
	s.ctx = EGL_NO_CONTEXT;
	s.to_cuda = s.to_gl = EGL_NO_STREAM_KHR;
	s.surf = EGL_NO_SURFACE;
	s.n_all = opt.warmup + opt.frames;
	why = eglstream_skip_reason(&s);
	if (why) {
		eglstream_row("skipped", why);
		return;
	}
	ret = eglstream_open(&s);
	for (unsigned int n = 0; ret == 0 && n < s.n_all; n++)
		ret = eglstream_frame(&s, n);
	if (ret == 0)
		eglstream_report(&s);
	else
		eglstream_row("failed", s.note);
	eglstream_close(&s);
}
#endif
