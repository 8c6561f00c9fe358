/*
 * glcuda-trace: the gl-gl row, the same switch between two GL contexts,
 * without CUDA.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "trace.h"

/*
 * The same switch without CUDA: GL draws in this context, and a second GL
 * context (sharing its textures and syncs) waits for it on the GPU
 * (glWaitSync) and blits the result. Prints one row: the gap between the
 * draw's end and the second context passing its wait, in the "to CUDA"
 * column.
 */
void
run_gl_switch(bool steady)
{
	static const EGLint attribs[] = {
		EGL_CONTEXT_MAJOR_VERSION, 4,
		EGL_CONTEXT_MINOR_VERSION, 5,
		EGL_CONTEXT_OPENGL_PROFILE_MASK,
		EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE,
	};
	EGLContext a = eglGetCurrentContext(), b;
	unsigned int n_all = opt.warmup + opt.frames;
	GLuint qa[2 * 1024], qb[2 * 1024];
	GLuint tex = 0, fbo_a = 0, fbo_b = 0, screen_tex = 0, screen_fbo = 0;
	struct run r; /* for gl_draw's program */
	struct stats st = { 0 };
	GLsync last = NULL;
	bool ok = false;

	if (n_all > 1024) {
		printf("| gl-gl, %s | skipped | | | | | | more than 1024 "
		       "frames |\n",
		       steady ? "steady" : "isolated");
		return;
	}
	memset(&r, 0, sizeof(r));
	eglBindAPI(EGL_OPENGL_API);
	b = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, a, attribs);
	if (b == EGL_NO_CONTEXT) {
		printf("| gl-gl, %s | failed | | | | | | eglCreateContext: "
		       "0x%x |\n",
		       steady ? "steady" : "isolated", eglGetError());
		return;
	}
	/* Context A: the texture, its draw target, the program. */
	glGenQueries((GLsizei)(2 * n_all), qa);
	if (make_texture(&tex) < 0 || make_fbo(tex, &fbo_a) < 0)
		goto out_a;
	if (make_draw_program(&r) < 0)
		goto out_a;
	r.fbo[0] = fbo_a;
	/* Context B: its own framebuffers (not shared) and queries. */
	if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, b))
		goto out_a;
	glGenQueries((GLsizei)(2 * n_all), qb);
	if (make_fbo(tex, &fbo_b) < 0 || make_texture(&screen_tex) < 0 ||
	    make_fbo(screen_tex, &screen_fbo) < 0)
		goto out_b;
	for (unsigned int n = 0; n < n_all; n++) {
		GLsync s;

		eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, a);
		glQueryCounter(qa[2 * n], GL_TIMESTAMP);
		gl_draw(&r, 0, n);
		glQueryCounter(qa[2 * n + 1], GL_TIMESTAMP);
		s = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
		glFlush();
		eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, b);
		glWaitSync(s, 0, GL_TIMEOUT_IGNORED);
		glDeleteSync(s);
		glQueryCounter(qb[2 * n], GL_TIMESTAMP);
		glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_b);
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, screen_fbo);
		glBlitFramebuffer(0, 0, (GLint)opt.width, (GLint)opt.height, 0,
				  0, (GLint)opt.width, (GLint)opt.height,
				  GL_COLOR_BUFFER_BIT, GL_NEAREST);
		glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
		glQueryCounter(qb[2 * n + 1], GL_TIMESTAMP);
		if (last) {
			glClientWaitSync(last, GL_SYNC_FLUSH_COMMANDS_BIT,
					 1000000000);
			glDeleteSync(last);
		}
		last = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
		glFlush();
		if (!steady) {
			glClientWaitSync(last, GL_SYNC_FLUSH_COMMANDS_BIT,
					 1000000000);
			glDeleteSync(last);
			last = NULL;
		}
	}
	if (last) {
		glClientWaitSync(last, GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000);
		glDeleteSync(last);
	}
	ok = glGetError() == GL_NO_ERROR;
	for (unsigned int n = opt.warmup; ok && n < n_all; n++) {
		GLuint64 drawn = 0, waited = 0;
		glGetQueryObjectui64v(qb[2 * n], GL_QUERY_RESULT, &waited);
		eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, a);
		glGetQueryObjectui64v(qa[2 * n + 1], GL_QUERY_RESULT, &drawn);
		eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, b);
		stats_add(&st, ((double)waited - (double)drawn) / 1e3);
	}
	if (ok) {
		double mean, p50, p99;
		qsort(st.v, st.n, sizeof(double), stats_cmp_double);
		stats_summary(&st, &mean, &p50, &p99);
		printf("| gl-gl, %s | %.1f (%.1f–%.1f) | | | | | | GL to a "
		       "second GL context (glWaitSync), no CUDA |\n",
		       steady ? "steady" : "isolated", p50,
		       stats_percentile(st.v, st.n, 10),
		       stats_percentile(st.v, st.n, 90));
	} else {
		printf("| gl-gl, %s | failed | | | | | | |\n",
		       steady ? "steady" : "isolated");
	}
	stats_free(&st);
out_b:
	glDeleteQueries((GLsizei)(2 * n_all), qb);
	glDeleteFramebuffers(1, &fbo_b);
	glDeleteFramebuffers(1, &screen_fbo);
	glDeleteTextures(1, &screen_tex);
	eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, a);
out_a:
	eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, a);
	glDeleteQueries((GLsizei)(2 * n_all), qa);
	glDeleteFramebuffers(1, &fbo_a);
	glDeleteTextures(1, &tex);
	if (r.prog)
		glDeleteProgram(r.prog);
	if (r.vao)
		glDeleteVertexArrays(1, &r.vao);
	eglDestroyContext(dpy, b);
	fflush(stdout);
}
