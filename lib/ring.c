/*
 * The compositor frame ring: GL renders a slot's input, CUDA processes it
 * into the slot's output, GL presents the output; nothing waits on the CPU
 * (DESIGN.md §5).
 * SPDX-License-Identifier: MIT
 *
 * A slot goes FREE -> ACQUIRED (GL renders) -> SUBMITTED (GL->CUDA hand-off
 * enqueued; the caller enqueues kernels) -> COMPLETED (CUDA signalled; a
 * host function marks it done and writes the eventfd) -> PRESENTED (GL's
 * wait enqueued) -> FREE. GL's wait enters GL's command stream only when the
 * compositor takes the frame, so GL renders the next frame meanwhile.
 */
#include "image.h"
#include <glcuda/glcuda-cuda.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define RING_MAX_SLOTS 4
#define TIMING_RECORDS (RING_MAX_SLOTS * 8)

enum frame_state {
	FRAME_FREE = 0,
	FRAME_ACQUIRED,
	FRAME_SUBMITTED,
	FRAME_COMPLETED,
	FRAME_PRESENTED,
};

/* GPU timestamps of one frame: GL timestamp queries and CUDA events. */
struct timing_record {
	bool in_use;
	uint64_t frame_number;
	GLuint q_start, q_submit, q_waited;
	CUevent ev_start, ev_end;
	struct timing_record *next; /* pending FIFO */
};

/*
 * What the host functions touch, apart from the ring: one that runs after
 * glcuda_ring_destroy — whose stream synchronisation failed, or was skipped
 * on a lost device — must not touch freed memory, nor write to an fd number
 * that was closed and reused. Its owner (the ring, then the device if host
 * functions were still queued when the ring went) frees it, eventfd
 * included, once `pending` is 0. A host function's decrement of `pending`
 * is its last access.
 */
struct ring_done {
	_Atomic unsigned int pending; /* host functions launched, not yet run */
	int efd;
	struct ring_done *next_orphan;
	struct ring_done_slot {
		struct ring_done *done;
		/* Host functions run on the slot's frames. They run in launch
		 * order (one stream per slot, or one for all), so frame n's
		 * work is done once the count reaches its launch number. */
		_Atomic uint64_t count;
	} slots[RING_MAX_SLOTS];
};

struct glcuda_frame {
	struct glcuda_ring *ring;
	uint32_t slot;
	enum frame_state state;
	uint64_t number;
	bool ready;
	/* Host functions launched on this slot so far, and the launch number
	 * of this frame's (0: none was launched). */
	uint64_t launched;
	uint64_t done_target;
	struct glcuda_image *input, *output;
	/* The slot's input and output travel together under one pair of
	 * semaphores: one GL signal and one GL wait per frame. */
	GLuint textures[2];
	struct handoff_sync sync;
	struct handoff_unit unit;
	GLuint fbo;
	CUstream stream;
	bool own_stream;
	struct timing_record *timing;
};

struct glcuda_ring {
	struct glcuda_device *dev;
	struct glcuda_ring_desc desc;
	uint32_t slot_count;
	struct glcuda_frame frames[RING_MAX_SLOTS];
	uint32_t next_slot;
	uint64_t next_number;
	uint64_t dropped;
	struct ring_done *done;

	bool timings;
	struct timing_record records[TIMING_RECORDS];
	struct timing_record *pending_head, *pending_tail;
	/* Clock link: CUDA event `ref_event` completed at GL time ref_gl_ns. */
	CUevent ref_event;
	int64_t ref_gl_ns;
};

static const char *
state_name(enum frame_state s)
{
	switch (s) {
	case FRAME_FREE: return "free";
	case FRAME_ACQUIRED: return "acquired";
	case FRAME_SUBMITTED: return "submitted";
	case FRAME_COMPLETED: return "completed";
	case FRAME_PRESENTED: return "presented";
	}
	return "?";
}

static int
bad_state(struct glcuda_frame *f, const char *call, const char *expected)
{
	return glcuda_fail(f->ring->dev, GLCUDA_ERROR_BAD_STATE,
			   "%s: frame %llu (slot %u) is %s; it must be %s", call,
			   (unsigned long long)f->number, f->slot, state_name(f->state),
			   expected);
}

static void CUDA_CB
frame_done_host_fn(void *data)
{
	struct ring_done_slot *slot = data;
	struct ring_done *done = slot->done;
	uint64_t one = 1;

	/* Runs on a CUDA driver thread: no CUDA calls here. */
	atomic_fetch_add(&slot->count, 1);
	if (write(done->efd, &one, sizeof(one)) < 0) {
		/* The counter cannot overflow in practice; nothing to do. */
	}
	atomic_fetch_sub(&done->pending, 1); /* the last access */
}

static void
ring_done_free(struct ring_done *done)
{
	if (done->efd >= 0)
		close(done->efd);
	free(done);
}

static unsigned int ring_orphans_reap(struct glcuda_device *dev, bool context_gone);

/* The ring lets go of its block: freed now if no host function is queued,
 * else handed to the device until they have run (or cannot any more). */
static void
ring_done_release(struct glcuda_device *dev, struct ring_done *done)
{
	if (atomic_load(&done->pending) == 0) {
		ring_done_free(done);
		return;
	}
	log_debug(dev, "ring destroyed with %u host functions queued; their block "
		  "stays until they have run\n", atomic_load(&done->pending));
	done->next_orphan = dev->orphans.head;
	dev->orphans.head = done;
	dev->orphans.reap = ring_orphans_reap;
}

static unsigned int
ring_orphans_reap(struct glcuda_device *dev, bool context_gone)
{
	struct ring_done *done, *next, *keep = NULL;
	unsigned int left = 0;

	for (done = dev->orphans.head; done; done = next) {
		next = done->next_orphan;
		if (context_gone || atomic_load(&done->pending) == 0) {
			ring_done_free(done);
		} else {
			done->next_orphan = keep;
			keep = done;
			left++;
		}
	}
	dev->orphans.head = keep;
	return left;
}

/* Timing records ------------------------------------------------------- */

static void
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

static int
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
			res = CU_CALL(cuEventCreate, &r->ev_end, CU_EVENT_DEFAULT);
		if (res != CUDA_SUCCESS)
			return device_cuda_fail(dev, res, "cuEventCreate", NULL);
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
			return device_cuda_fail(dev, res, "cuEventRecord/cuEventSynchronize", NULL);
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

static struct timing_record *
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

static void
timing_put(struct timing_record *r)
{
	if (r)
		r->in_use = false;
}

static void
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
static void
frame_drop_timing(struct glcuda_frame *f)
{
	log_debug(f->ring->dev, "frame %llu: timing event not recorded; not measured\n",
		  (unsigned long long)f->number);
	timing_put(f->timing);
	f->timing = NULL;
}

/* Ring ------------------------------------------------------------------ */

static void
ring_free(struct glcuda_ring *ring, bool gl_current)
{
	struct glcuda_device *dev = ring->dev;
	bool pushed = dev->has_cuda && CU_CALL(cuCtxPushCurrent, dev->cu_context) == CUDA_SUCCESS;
	/* Let queued work finish before its semaphores and images go; destroy
	 * is not a per-frame path. Not on a lost device, where the wait might
	 * never return. Whether these succeed or not, host functions still
	 * queued only touch ring->done (ring_done_release). */
	bool wait = pushed && !dev->errors.lost;

	for (uint32_t i = 0; i < ring->slot_count; i++) {
		struct glcuda_frame *f = &ring->frames[i];
		if (wait && f->stream && (f->state == FRAME_SUBMITTED ||
					  f->state == FRAME_COMPLETED ||
					  f->state == FRAME_PRESENTED))
			CU_CALL(cuStreamSynchronize, f->stream);
	}
	if (wait && ring->desc.cuda_stream)
		CU_CALL(cuStreamSynchronize, (CUstream)ring->desc.cuda_stream);
	if (ring->timings)
		timing_fini(ring, gl_current);
	/* Destroy calls take explicit handles: make them even if the push
	 * failed, or the semaphores and streams would leak. */
	for (uint32_t i = 0; i < ring->slot_count; i++)
		if (dev->has_cuda)
			handoff_sync_fini(dev, &ring->frames[i].sync, gl_current);
	for (uint32_t i = 0; i < ring->slot_count; i++) {
		struct glcuda_frame *f = &ring->frames[i];
		if (gl_current && f->fbo)
			glDeleteFramebuffers(1, &f->fbo);
		if (f->output != f->input)
			glcuda_image_destroy(f->output);
		glcuda_image_destroy(f->input);
		if (f->own_stream && f->stream)
			CU_CALL(cuStreamDestroy, f->stream);
	}
	if (pushed)
		device_pop_cuda(dev);
	if (ring->done)
		ring_done_release(dev, ring->done);
	free(ring);
}

GLCUDA_EXPORT int
glcuda_ring_new(struct glcuda_device *dev, const struct glcuda_ring_desc *desc,
		struct glcuda_ring **out)
{
	struct glcuda_ring *ring;
	struct gl_saved_state saved;
	bool pushed = false, saved_state = false;
	enum glcuda_format out_fmt;
	int ret;

	glcuda_clear_error();
	if (!dev || !desc || !out)
		return glcuda_fail(dev, -EINVAL, "glcuda_ring_new: %s is NULL",
				   !dev ? "dev" : !desc ? "desc" : "out");
	if (desc->slots != 0 && (desc->slots < 2 || desc->slots > RING_MAX_SLOTS))
		return glcuda_fail(dev, -EINVAL, "glcuda_ring_new: %u slots; a ring has 2..%d",
				   desc->slots, RING_MAX_SLOTS);
	if (desc->flags & ~(uint32_t)(GLCUDA_RING_FLAG_IN_PLACE | GLCUDA_RING_FLAG_TIMINGS))
		return glcuda_fail(dev, -EINVAL, "glcuda_ring_new: unknown flags 0x%x",
				   desc->flags);
	if (!format_info(desc->input_format))
		return glcuda_fail(dev, -EINVAL, "glcuda_ring_new: input_format %d is not a "
				   "glcuda_format", (int)desc->input_format);
	out_fmt = desc->output_format ? desc->output_format : desc->input_format;
	if (!(desc->flags & GLCUDA_RING_FLAG_IN_PLACE) && !format_info(out_fmt))
		return glcuda_fail(dev, -EINVAL, "glcuda_ring_new: output_format %d is not a "
				   "glcuda_format", (int)desc->output_format);
	ret = device_check_gl(dev, "glcuda_ring_new");
	if (ret < 0)
		return ret;
	ring_orphans_reap(dev, false);
	if ((desc->flags & GLCUDA_RING_FLAG_TIMINGS) && !dev->gl.has_timer_query)
		return glcuda_fail(dev, GLCUDA_ERROR_MISSING_GL_EXTENSION,
				   "glcuda_ring_new: GLCUDA_RING_FLAG_TIMINGS needs GL timer "
				   "queries (GL_EXT_disjoint_timer_query on GLES), which "
				   "\"%s\" lacks", dev->caps.gl_renderer);
	if (!dev->has_cuda)
		return glcuda_fail(dev, GLCUDA_ERROR_NO_CUDA_DRIVER,
				   "glcuda_ring_new needs a device with CUDA");

	ring = calloc(1, sizeof(*ring));
	if (!ring)
		return glcuda_fail(dev, -ENOMEM, "glcuda_ring_new: out of memory");
	ring->dev = dev;
	ring->desc = *desc;
	ring->slot_count = desc->slots ? desc->slots : 3;
	ring->timings = desc->flags & GLCUDA_RING_FLAG_TIMINGS;
	ring->done = calloc(1, sizeof(*ring->done));
	if (!ring->done) {
		free(ring);
		return glcuda_fail(dev, -ENOMEM, "glcuda_ring_new: out of memory");
	}
	for (uint32_t i = 0; i < RING_MAX_SLOTS; i++)
		ring->done->slots[i].done = ring->done;
	ring->done->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ring->done->efd < 0) {
		ret = glcuda_fail(dev, -errno, "glcuda_ring_new: eventfd: %s", strerror(errno));
		free(ring->done);
		free(ring);
		return ret;
	}

	gl_save_state(&saved);
	saved_state = true;
	for (uint32_t i = 0; i < ring->slot_count; i++) {
		struct glcuda_frame *f = &ring->frames[i];
		GLenum status;

		f->ring = ring;
		f->slot = i;
		ret = image_new_internal(dev, desc->width, desc->height, desc->input_format,
					 0, IMAGE_PRIVATE_RING_MANAGED, &f->input);
		if (ret < 0)
			goto fail;
		if (desc->flags & GLCUDA_RING_FLAG_IN_PLACE) {
			f->output = f->input;
		} else {
			ret = image_new_internal(dev, desc->width, desc->height, out_fmt,
						 0, IMAGE_PRIVATE_RING_MANAGED, &f->output);
			if (ret < 0)
				goto fail;
		}
		/* The output goes to CUDA too: CUDA's writes must wait until GL
		 * has finished sampling it in the slot's previous use. */
		f->textures[0] = f->input->texture;
		f->unit.texture_count = 1;
		if (f->output != f->input)
			f->textures[f->unit.texture_count++] = f->output->texture;
		f->unit.sync = &f->sync;
		f->unit.textures = f->textures;

		glGenFramebuffers(1, &f->fbo);
		glBindFramebuffer(GL_FRAMEBUFFER, f->fbo);
		glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
				       f->input->texture, 0);
		status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
		if (status != GL_FRAMEBUFFER_COMPLETE) {
			ret = glcuda_fail(dev, GLCUDA_ERROR_UNSUPPORTED_FORMAT,
					  "glcuda_ring_new: a framebuffer with the %s input "
					  "texture is incomplete (glCheckFramebufferStatus "
					  "0x%04x); GL cannot render into this format",
					  f->input->fmt->name, status);
			goto fail;
		}
	}
	gl_restore_state(&saved);
	saved_state = false;
	ret = gl_check_error(&dev->errors, "glcuda_ring_new: creating framebuffers");
	if (ret < 0)
		goto fail;

	ret = device_push_cuda(dev, "glcuda_ring_new");
	if (ret < 0)
		goto fail;
	pushed = true;
	for (uint32_t i = 0; i < ring->slot_count; i++) {
		struct glcuda_frame *f = &ring->frames[i];
		ret = handoff_sync_init(dev, &f->sync);
		if (ret < 0)
			goto fail;
		if (desc->cuda_stream) {
			f->stream = (CUstream)desc->cuda_stream;
		} else {
			CUresult res = CU_CALL(cuStreamCreate, &f->stream, CU_STREAM_NON_BLOCKING);
			if (res != CUDA_SUCCESS) {
				f->stream = NULL;
				ret = device_cuda_fail(dev, res, "cuStreamCreate", NULL);
				goto fail;
			}
			f->own_stream = true;
		}
	}
	if (ring->timings) {
		ret = timing_init(ring, ring->frames[0].stream);
		if (ret < 0)
			goto fail;
	}
	device_pop_cuda(dev);
	pushed = false;

	dev->live_rings++;
	log_debug(dev, "ring %p: %u slots of %ux%u %s -> %s%s\n", (void *)ring,
		  ring->slot_count, desc->width, desc->height,
		  glcuda_format_name(desc->input_format),
		  desc->flags & GLCUDA_RING_FLAG_IN_PLACE ? "(in place)" : glcuda_format_name(out_fmt),
		  ring->timings ? ", timings" : "");
	*out = ring;
	return 0;

fail:
	if (saved_state)
		gl_restore_state(&saved);
	if (pushed)
		device_pop_cuda(dev);
	ring_free(ring, true);
	return ret;
}

GLCUDA_EXPORT void
glcuda_ring_destroy(struct glcuda_ring *ring)
{
	struct glcuda_device *dev;
	bool gl_current;

	if (!ring)
		return;
	dev = ring->dev;
	gl_current = eglGetCurrentContext() == dev->context;
	if (!gl_current)
		log_error(dev, "glcuda_ring_destroy: the device's context is not "
			  "current; GL framebuffers and queries of the ring leak\n");
	dev->live_rings--;
	ring_free(ring, gl_current);
	ring_orphans_reap(dev, false);
}

GLCUDA_EXPORT int
glcuda_ring_get_fd(const struct glcuda_ring *ring)
{
	return ring ? ring->done->efd : -1;
}

GLCUDA_EXPORT uint64_t
glcuda_ring_dropped(const struct glcuda_ring *ring)
{
	return ring ? ring->dropped : 0;
}

GLCUDA_EXPORT int
glcuda_ring_acquire(struct glcuda_ring *ring, struct glcuda_frame **out)
{
	struct glcuda_frame *f = NULL;
	int ret;

	glcuda_clear_error();
	if (!ring || !out)
		return glcuda_fail(ring ? ring->dev : NULL, -EINVAL,
				   "glcuda_ring_acquire: %s is NULL", ring ? "out" : "ring");
	/* First, so that a lost device is reported even when every slot is
	 * in flight (-EAGAIN would have the caller wait for frames that never
	 * complete). */
	ret = device_check_gl(ring->dev, "glcuda_ring_acquire");
	if (ret < 0)
		return ret;
	/* Slots in order; the first free one from where the last left off. */
	for (uint32_t i = 0; i < ring->slot_count; i++) {
		struct glcuda_frame *cand =
			&ring->frames[(ring->next_slot + i) % ring->slot_count];
		if (cand->state == FRAME_FREE) {
			f = cand;
			break;
		}
	}
	if (!f)
		return -EAGAIN; /* not an error worth a message: the caller skips */

	ring->next_slot = (f->slot + 1) % ring->slot_count;
	f->number = ring->next_number++;
	f->ready = false;
	f->done_target = 0;
	f->state = FRAME_ACQUIRED;
	if (ring->timings) {
		f->timing = timing_get(ring);
		if (f->timing) {
			f->timing->frame_number = f->number;
			glQueryCounter(f->timing->q_start, GL_TIMESTAMP);
		}
	}
	*out = f;
	return 0;
}

GLCUDA_EXPORT int
glcuda_frame_submit(struct glcuda_frame *f)
{
	struct glcuda_device *dev;
	int ret;

	glcuda_clear_error();
	if (!f)
		return glcuda_fail(NULL, -EINVAL, "glcuda_frame_submit: frame is NULL");
	dev = f->ring->dev;
	/* A lost device first: the caller's recovery keys on that code. */
	ret = device_check_lost(dev, "glcuda_frame_submit");
	if (ret < 0)
		return ret;
	if (f->state != FRAME_ACQUIRED)
		return bad_state(f, "glcuda_frame_submit", "acquired");
	ret = device_check_gl(dev, "glcuda_frame_submit");
	if (ret < 0)
		return ret;
	if (f->sync.broken)
		return glcuda_fail(dev, GLCUDA_ERROR_BAD_STATE,
				   "glcuda_frame_submit: an earlier hand-off of slot %u failed "
				   "half-way and its semaphores are out of step; destroy and "
				   "recreate the ring", f->slot);
	if (f->timing)
		glQueryCounter(f->timing->q_submit, GL_TIMESTAMP);
	ret = sync_to_cuda(dev, &f->unit, 1, f->stream);
	if (ret < 0)
		return ret;
	f->state = FRAME_SUBMITTED;
	if (f->timing) {
		CUresult res = CUDA_ERROR_INVALID_CONTEXT;
		if (device_push_cuda(dev, "glcuda_frame_submit") == 0) {
			res = CU_CALL(cuEventRecord, f->timing->ev_start, f->stream);
			device_pop_cuda(dev);
		}
		if (res != CUDA_SUCCESS)
			frame_drop_timing(f);
	}
	return 0;
}

GLCUDA_EXPORT int
glcuda_frame_complete(struct glcuda_frame *f)
{
	struct glcuda_device *dev;
	CUresult res;
	int ret;

	glcuda_clear_error();
	if (!f)
		return glcuda_fail(NULL, -EINVAL, "glcuda_frame_complete: frame is NULL");
	dev = f->ring->dev;
	ret = device_check_lost(dev, "glcuda_frame_complete");
	if (ret < 0)
		return ret;
	if (f->state != FRAME_SUBMITTED)
		return bad_state(f, "glcuda_frame_complete", "submitted");
	ret = device_push_cuda(dev, "glcuda_frame_complete");
	if (ret < 0)
		return ret;
	if (f->timing && CU_CALL(cuEventRecord, f->timing->ev_end, f->stream) != CUDA_SUCCESS)
		frame_drop_timing(f);
	device_pop_cuda(dev);
	ret = sync_cuda_signal(dev, &f->unit, 1, f->stream);
	if (ret < 0)
		return ret;
	ret = device_push_cuda(dev, "glcuda_frame_complete");
	if (ret < 0)
		return ret;
	/* Counted before the launch: the host function may run (and
	 * uncount itself) before cuLaunchHostFunc returns. */
	atomic_fetch_add(&f->ring->done->pending, 1);
	res = CU_CALL(cuLaunchHostFunc, f->stream, frame_done_host_fn,
				   &f->ring->done->slots[f->slot]);
	device_pop_cuda(dev);
	/* The hand-off back is enqueued whatever happens next. */
	f->state = FRAME_COMPLETED;
	if (res != CUDA_SUCCESS) {
		atomic_fetch_sub(&f->ring->done->pending, 1);
		return device_cuda_fail(dev, res, "cuLaunchHostFunc", NULL);
	}
	f->done_target = ++f->launched;
	return 0;
}

static void
update_ready(struct glcuda_ring *ring)
{
	for (uint32_t i = 0; i < ring->slot_count; i++) {
		struct glcuda_frame *f = &ring->frames[i];
		if (f->state == FRAME_COMPLETED && !f->ready && f->done_target &&
		    atomic_load(&ring->done->slots[i].count) >= f->done_target)
			f->ready = true;
	}
}

GLCUDA_EXPORT int
glcuda_ring_dispatch(struct glcuda_ring *ring)
{
	uint64_t count;
	int n = 0, ret;

	if (!ring)
		return glcuda_fail(NULL, -EINVAL, "glcuda_ring_dispatch: ring is NULL");
	ret = device_check_lost(ring->dev, "glcuda_ring_dispatch");
	if (ret < 0)
		return ret;
	/* Drain first, then look: a completion after the read leaves the fd
	 * readable for the next round. */
	while (read(ring->done->efd, &count, sizeof(count)) == (ssize_t)sizeof(count))
		;
	update_ready(ring);
	for (uint32_t i = 0; i < ring->slot_count; i++)
		if (ring->frames[i].state == FRAME_COMPLETED && ring->frames[i].ready)
			n++;
	return n;
}

/* Enqueue GL's wait for a completed frame and mark it presented. */
static int
frame_gl_wait(struct glcuda_frame *f)
{
	int ret = sync_gl_wait(f->ring->dev, &f->unit, 1);
	if (ret < 0)
		return ret;
	f->state = FRAME_PRESENTED;
	if (f->timing) {
		glQueryCounter(f->timing->q_waited, GL_TIMESTAMP);
		timing_queue(f->ring, f->timing);
		f->timing = NULL;
	}
	return 0;
}

GLCUDA_EXPORT struct glcuda_frame *
glcuda_ring_take_newest(struct glcuda_ring *ring)
{
	struct glcuda_frame *newest = NULL;

	glcuda_clear_error();
	if (!ring || device_check_gl(ring->dev, "glcuda_ring_take_newest") < 0)
		return NULL;
	glcuda_ring_dispatch(ring);
	for (uint32_t i = 0; i < ring->slot_count; i++) {
		struct glcuda_frame *f = &ring->frames[i];
		if (f->state == FRAME_COMPLETED && f->ready &&
		    (!newest || f->number > newest->number))
			newest = f;
	}
	if (!newest)
		return NULL;
	for (uint32_t i = 0; i < ring->slot_count; i++) {
		struct glcuda_frame *f = &ring->frames[i];
		if (f == newest || f->state != FRAME_COMPLETED || !f->ready ||
		    f->number > newest->number)
			continue;
		/* An older frame nobody will present: keep the semaphores
		 * balanced and free the slot. */
		if (sync_gl_wait(ring->dev, &f->unit, 1) == 0) {
			timing_put(f->timing);
			f->timing = NULL;
			f->state = FRAME_FREE;
			ring->dropped++;
		}
	}
	if (frame_gl_wait(newest) < 0)
		return NULL;
	return newest;
}

GLCUDA_EXPORT int
glcuda_frame_wait_gl(struct glcuda_frame *f)
{
	int ret;

	glcuda_clear_error();
	if (!f)
		return glcuda_fail(NULL, -EINVAL, "glcuda_frame_wait_gl: frame is NULL");
	ret = device_check_lost(f->ring->dev, "glcuda_frame_wait_gl");
	if (ret < 0)
		return ret;
	if (f->state != FRAME_COMPLETED)
		return bad_state(f, "glcuda_frame_wait_gl", "completed");
	ret = device_check_gl(f->ring->dev, "glcuda_frame_wait_gl");
	if (ret < 0)
		return ret;
	return frame_gl_wait(f);
}

GLCUDA_EXPORT int
glcuda_frame_release(struct glcuda_frame *f)
{
	int ret;

	glcuda_clear_error();
	if (!f)
		return glcuda_fail(NULL, -EINVAL, "glcuda_frame_release: frame is NULL");
	ret = device_check_lost(f->ring->dev, "glcuda_frame_release");
	if (ret < 0)
		return ret;
	if (f->state != FRAME_COMPLETED && f->state != FRAME_PRESENTED)
		return bad_state(f, "glcuda_frame_release", "completed or presented");
	ret = device_check_gl(f->ring->dev, "glcuda_frame_release");
	if (ret < 0)
		return ret;
	if (f->state == FRAME_COMPLETED) {
		ret = frame_gl_wait(f);
		if (ret < 0)
			return ret;
	}
	f->state = FRAME_FREE;
	return 0;
}

GLCUDA_EXPORT int
glcuda_ring_get_timings(struct glcuda_ring *ring, struct glcuda_frame_timings *out)
{
	struct glcuda_device *dev;
	struct timing_record *r;
	GLuint available = 0;
	GLuint64 t_start = 0, t_submit = 0, t_waited = 0;
	float ms_ref_start = 0, ms_cuda = 0, ms_ref_end = 0;
	const char *call;
	CUresult res;
	CUevent tmp;
	int ret;

	glcuda_clear_error();
	if (!ring || !out)
		return glcuda_fail(ring ? ring->dev : NULL, -EINVAL,
				   "glcuda_ring_get_timings: %s is NULL", ring ? "out" : "ring");
	dev = ring->dev;
	if (!ring->timings)
		return glcuda_fail(dev, -EINVAL, "glcuda_ring_get_timings: the ring was made "
				   "without GLCUDA_RING_FLAG_TIMINGS");
	ret = device_check_gl(dev, "glcuda_ring_get_timings");
	if (ret < 0)
		return ret;
	r = ring->pending_head;
	if (!r)
		return 0;
	/* Never stall: only read what the GPU has finished. */
	glGetQueryObjectuiv(r->q_waited, GL_QUERY_RESULT_AVAILABLE, &available);
	if (!available)
		return 0;
	ret = device_push_cuda(dev, "glcuda_ring_get_timings");
	if (ret < 0)
		return ret;
	call = "cuEventQuery";
	res = CU_CALL(cuEventQuery, r->ev_end);
	if (res == CUDA_ERROR_NOT_READY) {
		device_pop_cuda(dev);
		return 0;
	}
	call = "cuEventElapsedTime";
	if (res == CUDA_SUCCESS)
		res = CU_CALL(cuEventElapsedTime, &ms_ref_start, ring->ref_event, r->ev_start);
	if (res == CUDA_SUCCESS)
		res = CU_CALL(cuEventElapsedTime, &ms_cuda, r->ev_start, r->ev_end);
	if (res == CUDA_SUCCESS)
		res = CU_CALL(cuEventElapsedTime, &ms_ref_end, ring->ref_event, r->ev_end);
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
		int64_t cuda_start = ring->ref_gl_ns + (int64_t)((double)ms_ref_start * 1e6);
		int64_t cuda_end = ring->ref_gl_ns + (int64_t)((double)ms_ref_end * 1e6);
		int64_t to_cuda = cuda_start - (int64_t)t_submit;
		int64_t to_gl = (int64_t)t_waited - cuda_end;

		memset(out, 0, sizeof(*out));
		out->frame_number = r->frame_number;
		out->gl_render_ns = t_submit > t_start ? t_submit - t_start : 0;
		out->cuda_ns = (uint64_t)((double)ms_cuda * 1e6);
		out->handoff_to_cuda_ns = to_cuda > 0 ? (uint64_t)to_cuda : 0;
		out->handoff_to_gl_ns = to_gl > 0 ? (uint64_t)to_gl : 0;
		out->total_ns = t_waited > t_start ? t_waited - t_start : 0;
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
	return gl_check_error(&dev->errors, "glcuda_ring_get_timings") ?: 1;
}

/* Accessors -------------------------------------------------------------- */

GLCUDA_EXPORT uint64_t
glcuda_frame_number(const struct glcuda_frame *f)
{
	return f ? f->number : 0;
}

GLCUDA_EXPORT uint32_t
glcuda_frame_slot(const struct glcuda_frame *f)
{
	return f ? f->slot : 0;
}

GLCUDA_EXPORT struct glcuda_image *
glcuda_frame_input(const struct glcuda_frame *f)
{
	return f ? f->input : NULL;
}

GLCUDA_EXPORT struct glcuda_image *
glcuda_frame_output(const struct glcuda_frame *f)
{
	return f ? f->output : NULL;
}

GLCUDA_EXPORT unsigned int
glcuda_frame_input_fbo(const struct glcuda_frame *f)
{
	return f ? f->fbo : 0;
}

GLCUDA_EXPORT unsigned int
glcuda_frame_output_texture(const struct glcuda_frame *f)
{
	return f && f->output ? f->output->texture : 0;
}

GLCUDA_EXPORT CUstream
glcuda_frame_stream(const struct glcuda_frame *f)
{
	return f ? f->stream : NULL;
}
