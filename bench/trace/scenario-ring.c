/*
 * glcuda-trace: the ringN scenarios, N frames at a time through the frame
 * ring, and the table of the ring's calls' CPU time.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "trace.h"

/* One iteration through the frame ring: acquire and render every frame
 * of the batch, submit them all, a kernel each (stamps on the first
 * frame's stream before, on the last's after), complete them all, GL waits
 * for all, then blits each. */
int
ring_frame(struct run *r, unsigned int n)
{
	GLuint *q = &r->queries[n * 4];
	uint64_t *st = &r->stamps[n * 2];
	unsigned int B = r->batch;
	uint64_t cpu[RC_COUNT] = { 0 };
	CUstream streams[MAX_BATCH];
	int ret;

	frame_begin(r, n);
	glQueryCounter(q[0], GL_TIMESTAMP);
	for (unsigned int b = 0; b < B; b++) {
		CPU_TIMED(cpu[RC_ACQUIRE],
			  ret = glcuda_ring_acquire(r->ring, &r->frames[b]));
		if (gc_fail(ret, "glcuda_ring_acquire") < 0)
			return -1;
		r->fbo[0] = glcuda_frame_get_input_fbo(r->frames[b]);
		gl_draw(r, 0, n * B + b);
	}
	glQueryCounter(q[1], GL_TIMESTAMP);
	for (unsigned int b = 0; b < B; b++) {
		CPU_TIMED(cpu[RC_SUBMIT],
			  ret = glcuda_frame_submit(r->frames[b]));
		if (gc_fail(ret, "glcuda_frame_submit") < 0)
			return -1;
	}
	if (launch_stamp(glcuda_frame_get_stream(r->frames[0]), &st[0]) < 0)
		return -1;
	for (unsigned int b = 0; b < B; b++) {
		struct glcuda_frame *f = r->frames[b];
		r->stream = glcuda_frame_get_stream(f);
		if (launch_invert(r, glcuda_frame_get_input_surface(f),
				  glcuda_frame_get_output_surface(f)) < 0)
			return -1;
	}
	r->stream = NULL;
	if (launch_stamp(glcuda_frame_get_stream(r->frames[B - 1]), &st[1]) < 0)
		return -1;
	for (unsigned int b = 0; b < B; b++) {
		CPU_TIMED(cpu[RC_COMPLETE],
			  ret = glcuda_frame_complete(r->frames[b]));
		if (gc_fail(ret, "glcuda_frame_complete") < 0)
			return -1;
	}
	for (unsigned int b = 0; b < B; b++) {
		CPU_TIMED(cpu[RC_WAIT_GL],
			  ret = glcuda_frame_wait_gl(r->frames[b]));
		if (gc_fail(ret, "glcuda_frame_wait_gl") < 0)
			return -1;
	}
	glQueryCounter(q[2], GL_TIMESTAMP);
	for (unsigned int b = 0; b < B; b++) {
		GLuint fbo;
		glGenFramebuffers(1, &fbo);
		glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
		glFramebufferTexture2D(GL_READ_FRAMEBUFFER,
				       GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
				       glcuda_frame_get_output_texture(
					       r->frames[b]),
				       0);
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, r->screen_fbo);
		glBlitFramebuffer(0, 0, (GLint)opt.width, (GLint)opt.height, 0,
				  0, (GLint)opt.width, (GLint)opt.height,
				  GL_COLOR_BUFFER_BIT, GL_NEAREST);
		glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
		glDeleteFramebuffers(1, &fbo);
	}
	glQueryCounter(q[3], GL_TIMESTAMP);
	for (unsigned int b = 0; b < B; b++) {
		CPU_TIMED(cpu[RC_RELEASE],
			  ret = glcuda_frame_release(r->frames[b]));
		if (gc_fail(ret, "glcuda_frame_release") < 0)
			return -1;
	}
	r->fbo[0] = 0;
	if (n >= opt.warmup)
		for (int i = 0; i < RC_COUNT; i++)
			stats_add(&r->cpu[i], (double)cpu[i] / 1e3 / B);
	for (unsigned int b = 0; b < B; b++)
		streams[b] = glcuda_frame_get_stream(r->frames[b]);
	return frame_end(r, n, streams, B);
}

/* The CPU table's rows, printed after the GPU table. */
char cpu_rows[4096];

void
cpu_summary(struct run *r)
{
	size_t len = strlen(cpu_rows);
	double total = 0;

	len += (size_t)snprintf(cpu_rows + len, sizeof(cpu_rows) - len,
				"| %s, %s |", scenarios[r->sc].name,
				r->steady ? "steady" : "isolated");
	for (int i = 0; i < RC_COUNT && len < sizeof(cpu_rows); i++) {
		double mean, p50, p99;
		qsort(r->cpu[i].v, r->cpu[i].n, sizeof(double),
		      stats_cmp_double);
		stats_summary(&r->cpu[i], &mean, &p50, &p99);
		total += p50;
		len += (size_t)snprintf(cpu_rows + len, sizeof(cpu_rows) - len,
					" %.1f |", p50);
		stats_free(&r->cpu[i]);
	}
	if (len < sizeof(cpu_rows))
		snprintf(cpu_rows + len, sizeof(cpu_rows) - len, " %.1f |\n",
			 total);
}
