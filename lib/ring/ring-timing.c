/*
 * The frame ring's GPU timings: GL timestamp queries and CUDA events per
 * frame, linked to one clock (glcuda_ring_read_timings).
 * SPDX-License-Identifier: MIT
 */
#include "ring/ring.h"
#include <glcuda/glcuda-cuda.h>

#include <errno.h>
#include <string.h>

/* Timing records ------------------------------------------------------- */

void
timing_fini(struct glcuda_ring *ring, bool gl_current)
{
	for (int i = 0; i < TIMING_RECORDS; i++) {
		struct timing_record *r = &ring->records[i];
		GLuint q[3] = { r->q_start, r->q_submit, r->q_waited };
		if (q[0] && gl_current)
			glDeleteQueries(3, q);
		if (r->ev_start)
			CU_CALL(cuEventDestroy, r->ev_start);
		if (r->ev_end)
			CU_CALL(cuEventDestroy, r->ev_end);
	}
	if (ring->ref_event)
		CU_CALL(cuEventDestroy, ring->ref_event);
}

int
timing_init(struct glcuda_ring *ring, CUstream stream)
{
	struct glcuda_device *dev = ring->dev;
	int64_t best_span = INT64_MAX;
	CUevent probe = NULL;
	CUresult res;

	for (int i = 0; i < TIMING_RECORDS; i++) {
		struct timing_record *r = &ring->records[i];
		GLuint q[3];
		glGenQueries(3, q);
		r->q_start = q[0];
		r->q_submit = q[1];
		r->q_waited = q[2];
		res = CU_CALL(cuEventCreate, &r->ev_start, CU_EVENT_DEFAULT);
		if (res == CUDA_SUCCESS)
			res = CU_CALL(cuEventCreate, &r->ev_end,
				      CU_EVENT_DEFAULT);
		if (res != CUDA_SUCCESS)
			return device_cuda_fail(dev, res, "cuEventCreate",
						NULL);
	}
	res = CU_CALL(cuEventCreate, &ring->ref_event, CU_EVENT_DEFAULT);
	if (res != CUDA_SUCCESS)
		return device_cuda_fail(dev, res, "cuEventCreate", NULL);

	/* Link the CUDA event clock to GL's timestamp clock once, at creation
	 * (the ring's only CPU wait): record an event on an idle stream
	 * between two reads of GL_TIMESTAMP and keep the tightest of a few
	 * tries. Later frames chain from the last measured event, so the
	 * float milliseconds of cuEventElapsedTime stay small and precise. */
	res = CU_CALL(cuEventCreate, &probe, CU_EVENT_DEFAULT);
	if (res != CUDA_SUCCESS)
		return device_cuda_fail(dev, res, "cuEventCreate", NULL);
	for (int i = 0; i < 6; i++) {
		GLint64 g0 = 0, g1 = 0;
		glGetInteger64v(GL_TIMESTAMP, &g0);
		res = CU_CALL(cuEventRecord, probe, stream);
		if (res == CUDA_SUCCESS)
			res = CU_CALL(cuEventSynchronize, probe);
		glGetInteger64v(GL_TIMESTAMP, &g1);
		if (res != CUDA_SUCCESS) {
			CU_CALL(cuEventDestroy, probe);
			return device_cuda_fail(dev, res,
						"cuEventRecord/"
						"cuEventSynchronize",
						NULL);
		}
		if (g1 - g0 < best_span) {
			CUevent t = ring->ref_event;
			best_span = g1 - g0;
			ring->ref_gl_ns = g0 + (g1 - g0) / 2;
			ring->ref_event = probe;
			probe = t;
		}
	}
	CU_CALL(cuEventDestroy, probe);
	log_debug(dev, "ring timings: GL/CUDA clock link within +-%lld ns\n",
		  (long long)best_span / 2);
	return gl_check_error(&dev->errors, "creating timer queries");
}

struct timing_record *
timing_get(struct glcuda_ring *ring)
{
	for (int i = 0; i < TIMING_RECORDS; i++)
		if (!ring->records[i].in_use) {
			ring->records[i].in_use = true;
			return &ring->records[i];
		}
	/* Nobody fetches timings: recycle the oldest pending record. */
	if (ring->pending_head) {
		struct timing_record *r = ring->pending_head;
		ring->pending_head = r->next;
		if (!ring->pending_head)
			ring->pending_tail = NULL;
		r->next = NULL;
		return r;
	}
	return NULL;
}

void
timing_put(struct timing_record *r)
{
	if (r)
		r->in_use = false;
}

void
timing_queue(struct glcuda_ring *ring, struct timing_record *r)
{
	r->next = NULL;
	if (ring->pending_tail)
		ring->pending_tail->next = r;
	else
		ring->pending_head = r;
	ring->pending_tail = r;
}

/* A frame whose timing events could not be recorded is not measured;
 * timings are a diagnostic, not a reason to fail the frame. */
void
frame_drop_timing(struct glcuda_frame *f)
{
	log_debug(f->ring->dev,
		  "frame %llu: timing event not recorded; not measured\n",
		  (unsigned long long)f->number);
	timing_put(f->timing);
	f->timing = NULL;
}

GLCUDA_EXPORT int
glcuda_ring_read_timings(struct glcuda_ring *ring,
			 struct glcuda_frame_timings *out)
{
	struct glcuda_device *dev;
	struct timing_record *r;
	GLuint available = 0;
	GLuint64 t_start = 0, t_submit = 0, t_waited = 0;
	float ms_ref_start = 0, ms_cuda = 0, ms_ref_end = 0;
	struct glcuda_frame_timings full;
	const char *call;
	CUresult res;
	CUevent tmp;
	int ret;

	error_clear();
	if (!ring || !out)
		return device_fail(ring ? ring->dev : NULL, -EINVAL,
				   "glcuda_ring_read_timings: %s is NULL",
				   ring ? "out" : "ring");
	dev = ring->dev;
	ret = frame_timings_check(dev, out);
	if (ret < 0)
		return ret;
	if (!ring->timings)
		return device_fail(dev, -EINVAL,
				   "glcuda_ring_read_timings: the ring was "
				   "made without GLCUDA_RING_FLAG_TIMINGS");
	ret = device_check_gl(dev, "glcuda_ring_read_timings");
	if (ret < 0)
		return ret;
	r = ring->pending_head;
	if (!r)
		return 0;
	/* Never stall: only read what the GPU has finished. */
	glGetQueryObjectuiv(r->q_waited, GL_QUERY_RESULT_AVAILABLE, &available);
	if (!available)
		return 0;
	ret = device_push_cuda(dev, "glcuda_ring_read_timings");
	if (ret < 0)
		return ret;
	call = "cuEventQuery";
	res = CU_CALL(cuEventQuery, r->ev_end);
	if (res == CUDA_ERROR_NOT_READY) {
		device_pop_cuda(dev);
		return 0;
	}
	if (res == CUDA_SUCCESS) {
		/* Only now: a failed cuEventQuery is reported as itself. */
		call = "cuEventElapsedTime";
		res = CU_CALL(cuEventElapsedTime, &ms_ref_start,
			      ring->ref_event, r->ev_start);
	}
	if (res == CUDA_SUCCESS)
		res = CU_CALL(cuEventElapsedTime, &ms_cuda, r->ev_start,
			      r->ev_end);
	if (res == CUDA_SUCCESS)
		res = CU_CALL(cuEventElapsedTime, &ms_ref_end, ring->ref_event,
			      r->ev_end);
	device_pop_cuda(dev);
	if (res != CUDA_SUCCESS) {
		/* Drop the record, or every later call would fail on it. */
		ring->pending_head = r->next;
		if (!ring->pending_head)
			ring->pending_tail = NULL;
		r->next = NULL;
		timing_put(r);
		return device_cuda_fail(dev, res, call, NULL);
	}

	glGetQueryObjectui64v(r->q_start, GL_QUERY_RESULT, &t_start);
	glGetQueryObjectui64v(r->q_submit, GL_QUERY_RESULT, &t_submit);
	glGetQueryObjectui64v(r->q_waited, GL_QUERY_RESULT, &t_waited);

	{
		int64_t cuda_start =
			ring->ref_gl_ns + (int64_t)((double)ms_ref_start * 1e6);
		int64_t cuda_end =
			ring->ref_gl_ns + (int64_t)((double)ms_ref_end * 1e6);
		int64_t to_cuda = cuda_start - (int64_t)t_submit;
		int64_t to_gl = (int64_t)t_waited - cuda_end;

		memset(&full, 0, sizeof(full));
		full.size = sizeof(full);
		full.frame_number = r->frame_number;
		full.gl_render_ns = t_submit > t_start ? t_submit - t_start : 0;
		full.cuda_ns = (uint64_t)((double)ms_cuda * 1e6);
		full.handoff_to_cuda_ns = to_cuda > 0 ? (uint64_t)to_cuda : 0;
		full.handoff_to_gl_ns = to_gl > 0 ? (uint64_t)to_gl : 0;
		full.total_ns = t_waited > t_start ? t_waited - t_start : 0;
		sized_copy_out(out, &full, out->size);
		/* Chain the clock link to this frame's end event: keeps the
		 * float milliseconds of cuEventElapsedTime small. */
		ring->ref_gl_ns = cuda_end;
	}
	tmp = ring->ref_event;
	ring->ref_event = r->ev_end;
	r->ev_end = tmp;

	ring->pending_head = r->next;
	if (!ring->pending_head)
		ring->pending_tail = NULL;
	r->next = NULL;
	timing_put(r);
	return gl_check_error(&dev->errors, "glcuda_ring_read_timings") ?: 1;
}
