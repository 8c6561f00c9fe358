/*
 * The compositor frame ring: GL renders a slot's input, CUDA processes it
 * into the slot's output, GL presents the output; nothing waits on the CPU
 * (doc/design.md §4).
 * SPDX-License-Identifier: MIT
 *
 * A slot goes FREE -> ACQUIRED (GL renders) -> SUBMITTED (GL->CUDA hand-off
 * enqueued; the caller enqueues kernels) -> COMPLETED (CUDA signalled; a
 * host function marks it done and writes the eventfd) -> PRESENTED (GL's
 * wait enqueued) -> FREE. GL's wait enters GL's command stream only when the
 * compositor takes the frame, so GL renders the next frame meanwhile.
 *
 * Frames complete out of order (one stream per slot, kernels of varying
 * length), but are taken in order: once a frame is taken, an older one is
 * never returned; it is dropped when it becomes ready (next_takeable).
 */
#include "ring/ring.h"
#include "seam.h"
#include <glcuda/glcuda-cuda.h>

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

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
	return device_fail(f->ring->dev, GLCUDA_ERROR_BAD_STATE,
			   "%s: frame %llu (slot %u) is %s; it must be %s",
			   call, (unsigned long long)f->number, f->slot,
			   state_name(f->state), expected);
}

#define STATE(s) (1u << (s))

/* The checks a frame call starts with, in this order: f is not NULL, the
 * device is not lost (the caller's recovery keys on that code), the frame
 * is in one of the states of the mask states (expected names them) and,
 * with gl, the device's GL context is current. */
static int
frame_enter(struct glcuda_frame *f, const char *call, unsigned int states,
	    const char *expected, bool gl)
{
	int ret;

	error_clear();
	if (!f)
		return device_fail(NULL, -EINVAL, "%s: frame is NULL", call);
	ret = device_check_lost(f->ring->dev, call);
	if (ret < 0)
		return ret;
	if (!(states & STATE(f->state)))
		return bad_state(f, call, expected);
	return gl ? device_check_gl(f->ring->dev, call) : 0;
}

/* The checks of the calls that hand a frame out: ring and out are not
 * NULL, the device is usable and its GL context current. */
static int
ring_enter(struct glcuda_ring *ring, struct glcuda_frame **out,
	   const char *call)
{
	error_clear();
	if (!ring || !out)
		return device_fail(ring ? ring->dev : NULL, -EINVAL,
				   "%s: %s is NULL", call,
				   ring ? "out" : "ring");
	return device_check_gl(ring->dev, call);
}

/* Ring ------------------------------------------------------------------ */

/* cuda_current: the caller pushed the device's CUDA context (it may have
 * failed to: the destroy calls, which take explicit handles, are made all
 * the same, or the semaphores and streams would leak). */
static void
ring_free(struct glcuda_ring *ring, bool gl_current, bool cuda_current)
{
	struct glcuda_device *dev = ring->dev;
	/* Let queued work finish before its semaphores and images go; destroy
	 * is not a per-frame path. Not on a lost device, where the wait might
	 * never return. Whether these succeed or not, host functions still
	 * queued only touch ring->done (ring_done_release). */
	bool wait = cuda_current && !dev->errors.lost;

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
	for (uint32_t i = 0; i < ring->slot_count; i++)
		if (dev->has_cuda)
			handoff_sync_fini(dev, &ring->frames[i].sync,
					  gl_current);
	for (uint32_t i = 0; i < ring->slot_count; i++) {
		struct glcuda_frame *f = &ring->frames[i];
		if (gl_current && f->fbo)
			glDeleteFramebuffers(1, &f->fbo);
		if (f->output != f->input)
			image_destroy(f->output, gl_current, cuda_current);
		image_destroy(f->input, gl_current, cuda_current);
		if (f->own_stream && f->stream)
			CU_CALL(cuStreamDestroy, f->stream);
	}
	if (ring->done)
		ring_done_release(dev, ring->done);
	free(ring);
}

/* struct glcuda_ring_desc's members (device.h, struct member_span). */
static const struct member_span ring_desc_members[] = {
	MEMBER_SPAN(struct glcuda_ring_desc, width),
	MEMBER_SPAN(struct glcuda_ring_desc, height),
	MEMBER_SPAN(struct glcuda_ring_desc, slots),
	MEMBER_SPAN(struct glcuda_ring_desc, input_format),
	MEMBER_SPAN(struct glcuda_ring_desc, output_format),
	MEMBER_SPAN(struct glcuda_ring_desc, flags),
	MEMBER_SPAN(struct glcuda_ring_desc, cuda_stream),
};

STRUCT_SIZE_FIRST(struct glcuda_ring_desc);
_Static_assert(STRUCT_SIZE_ENDS(struct glcuda_ring_desc, cuda_stream),
	       "struct glcuda_ring_desc: tail padding, or a new member");

/* The caller's description, checked, as a struct of this glcuda's size
 * whatever the size the caller was built with (lib/struct-size.c). */
static int
ring_desc_copy(struct glcuda_device *dev, const struct glcuda_ring_desc *in,
	       struct glcuda_ring_desc *out)
{
	return struct_size_copy_in(dev, "glcuda_ring_new", "glcuda_ring_desc",
				   in, ring_desc_members,
				   ARRAY_LENGTH(ring_desc_members), out,
				   sizeof(*out));
}

/* The output's format: the input's unless the caller names another. */
static enum glcuda_format
ring_output_format(const struct glcuda_ring_desc *desc)
{
	return desc->output_format ? desc->output_format : desc->input_format;
}

/* The members of a ring's description that need no device. */
static int
ring_desc_check(struct glcuda_device *dev, const struct glcuda_ring_desc *desc)
{
	if (desc->slots != 0 &&
	    (desc->slots < 2 || desc->slots > RING_MAX_SLOTS))
		return device_fail(dev, -EINVAL,
				   "glcuda_ring_new: %u slots; a "
				   "ring has 2..%d",
				   desc->slots, RING_MAX_SLOTS);
	if (desc->flags &
	    ~(uint32_t)(GLCUDA_RING_FLAG_IN_PLACE | GLCUDA_RING_FLAG_TIMINGS))
		return device_fail(dev, -EINVAL,
				   "glcuda_ring_new: unknown flags 0x%x",
				   desc->flags);
	if (!format_info(desc->input_format))
		return device_fail(dev, -EINVAL,
				   "glcuda_ring_new: input_format %d is not a "
				   "glcuda_format",
				   (int)desc->input_format);
	if (!(desc->flags & GLCUDA_RING_FLAG_IN_PLACE) &&
	    !format_info(ring_output_format(desc)))
		return device_fail(dev, -EINVAL,
				   "glcuda_ring_new: output_format %d is not a "
				   "glcuda_format",
				   (int)desc->output_format);
	return 0;
}

/* A ring without slots: its completion block and the block's eventfd. */
static int
ring_alloc(struct glcuda_device *dev, const struct glcuda_ring_desc *desc,
	   struct glcuda_ring **out)
{
	struct glcuda_ring *ring;
	int ret;

	ring = calloc(1, sizeof(*ring));
	if (!ring)
		return device_fail(dev, -ENOMEM,
				   "glcuda_ring_new: out of memory");
	ring->dev = dev;
	ring->desc = *desc;
	ring->slot_count = desc->slots ? desc->slots : 3;
	ring->timings = desc->flags & GLCUDA_RING_FLAG_TIMINGS;
	ring->done = calloc(1, sizeof(*ring->done));
	if (!ring->done) {
		free(ring);
		return device_fail(dev, -ENOMEM,
				   "glcuda_ring_new: out of memory");
	}
	for (uint32_t i = 0; i < RING_MAX_SLOTS; i++)
		ring->done->slots[i].done = ring->done;
	ring->done->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ring->done->efd < 0) {
		ret = device_fail(dev, -errno, "glcuda_ring_new: eventfd: %s",
				  strerror(errno));
		free(ring->done);
		free(ring);
		return ret;
	}
	*out = ring;
	return 0;
}

/* A slot's GL side: its images, the textures its hand-off unit covers, and
 * a framebuffer on its input. Changes the framebuffer binding. What was
 * made stays in the slot for ring_free. */
static int
slot_gl_new(struct glcuda_ring *ring, struct glcuda_frame *f)
{
	struct glcuda_device *dev = ring->dev;
	const struct glcuda_ring_desc *desc = &ring->desc;
	struct glcuda_image_desc image;
	GLenum status;
	int ret;

	glcuda_image_desc_init(&image);
	image.width = desc->width;
	image.height = desc->height;
	image.format = desc->input_format;
	ret = image_new_internal(dev, &image, IMAGE_PRIVATE_RING_MANAGED,
				 &f->input);
	if (ret < 0)
		return ret;
	if (desc->flags & GLCUDA_RING_FLAG_IN_PLACE) {
		f->output = f->input;
	} else {
		image.format = ring_output_format(desc);
		ret = image_new_internal(dev, &image,
					 IMAGE_PRIVATE_RING_MANAGED,
					 &f->output);
		if (ret < 0)
			return ret;
	}
	/* The output goes to CUDA too: CUDA's writes must wait until GL has
	 * finished sampling it in the slot's previous use. */
	f->textures[0] = f->input->texture;
	f->unit.texture_count = 1;
	if (f->output != f->input)
		f->textures[f->unit.texture_count++] = f->output->texture;
	f->unit.sync = &f->sync;
	f->unit.textures = f->textures;

	glGenFramebuffers(1, &f->fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, f->fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, f->input->texture, 0);
	status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
	if (status != GL_FRAMEBUFFER_COMPLETE)
		return device_fail(
			dev, GLCUDA_ERROR_UNSUPPORTED_FORMAT,
			"glcuda_ring_new: a framebuffer with the %s input "
			"texture is incomplete (glCheckFramebufferStatus "
			"0x%04x); GL cannot render into this format",
			f->input->fmt->name, status);
	return 0;
}

/* Every slot's GL side, leaving the caller's GL state as it was. */
static int
ring_gl_new(struct glcuda_ring *ring)
{
	struct gl_saved_state saved;
	int ret = 0;

	gl_save_state(&saved);
	for (uint32_t i = 0; i < ring->slot_count && ret >= 0; i++) {
		struct glcuda_frame *f = &ring->frames[i];

		f->ring = ring;
		f->slot = i;
		ret = slot_gl_new(ring, f);
	}
	gl_restore_state(&saved);
	if (ret < 0)
		return ret;
	return gl_check_error(&ring->dev->errors,
			      "glcuda_ring_new: creating framebuffers");
}

/* Every slot's CUDA side: its semaphores and stream (the caller's, or one
 * of its own); the GPU timings. What was made stays in the slots for
 * ring_free. */
static int
ring_cuda_new(struct glcuda_ring *ring)
{
	struct glcuda_device *dev = ring->dev;
	int ret;

	for (uint32_t i = 0; i < ring->slot_count; i++) {
		struct glcuda_frame *f = &ring->frames[i];
		ret = handoff_sync_init(dev, &f->sync);
		if (ret < 0)
			return ret;
		if (ring->desc.cuda_stream) {
			f->stream = (CUstream)ring->desc.cuda_stream;
		} else {
			CUresult res = CU_CALL(cuStreamCreate, &f->stream,
					       CU_STREAM_NON_BLOCKING);
			if (res != CUDA_SUCCESS) {
				f->stream = NULL;
				return device_cuda_fail(dev, res,
							"cuStreamCreate", NULL);
			}
			f->own_stream = true;
		}
	}
	if (ring->timings)
		return timing_init(ring, ring->frames[0].stream);
	return 0;
}

GLCUDA_EXPORT int
glcuda_ring_new(struct glcuda_device *dev, const struct glcuda_ring_desc *desc,
		struct glcuda_ring **out)
{
	struct glcuda_ring *ring = NULL;
	struct glcuda_ring_desc copied;
	int ret;

	error_clear();
	if (!dev || !desc || !out)
		return device_fail(dev, -EINVAL, "glcuda_ring_new: %s is NULL",
				   !dev ? "dev" : !desc ? "desc" : "out");
	/* From here on desc is a struct of this glcuda's size, whatever the
	 * size the caller was built with. */
	ret = ring_desc_copy(dev, desc, &copied);
	if (ret < 0)
		return ret;
	desc = &copied;
	ret = ring_desc_check(dev, desc);
	if (ret < 0)
		return ret;
	ret = device_check_gl(dev, "glcuda_ring_new");
	if (ret < 0)
		return ret;
	ring_orphans_reap(dev, false);
	if ((desc->flags & GLCUDA_RING_FLAG_TIMINGS) &&
	    !dev->gl.has_timer_query)
		return device_fail(
			dev, GLCUDA_ERROR_MISSING_GL_EXTENSION,
			"glcuda_ring_new: GLCUDA_RING_FLAG_TIMINGS needs GL "
			"timer queries (GL_EXT_disjoint_timer_query on GLES), "
			"which \"%s\" lacks",
			dev->caps.gl_renderer);
	if (!dev->has_cuda)
		return device_fail(dev, GLCUDA_ERROR_NO_CUDA_DRIVER,
				   "glcuda_ring_new needs a device with CUDA");

	/* One push for the slots' images and the ring's CUDA side. */
	ret = device_push_cuda(dev, "glcuda_ring_new");
	if (ret < 0)
		return ret;
	ret = ring_alloc(dev, desc, &ring);
	if (ret < 0)
		goto out;
	ret = ring_gl_new(ring);
	if (ret == 0)
		ret = ring_cuda_new(ring);
	if (ret < 0) {
		ring_free(ring, true, true);
		goto out;
	}

	dev->live_rings++;
	log_debug(dev, "ring %p: %u slots of %ux%u %s -> %s%s\n", (void *)ring,
		  ring->slot_count, desc->width, desc->height,
		  glcuda_format_get_name(desc->input_format),
		  desc->flags & GLCUDA_RING_FLAG_IN_PLACE ? "(in place)"
		  : glcuda_format_get_name(ring_output_format(desc)),
		  ring->timings ? ", timings" : "");
	*out = ring;
out:
	device_pop_cuda(dev);
	return ret;
}

GLCUDA_EXPORT void
glcuda_ring_destroy(struct glcuda_ring *ring)
{
	struct glcuda_device *dev;
	bool gl_current, cuda_current;

	if (!ring)
		return;
	dev = ring->dev;
	gl_current = eglGetCurrentContext() == dev->context;
	if (!gl_current)
		log_error(dev,
			  "glcuda_ring_destroy: the device's context is not "
			  "current; GL framebuffers and queries of the ring "
			  "leak\n");
	dev->live_rings--;
	cuda_current = device_push_cuda_quietly(dev);
	ring_free(ring, gl_current, cuda_current);
	if (cuda_current)
		device_pop_cuda(dev);
	ring_orphans_reap(dev, false);
}

GLCUDA_EXPORT int
glcuda_ring_get_fd(const struct glcuda_ring *ring)
{
	return ring ? ring->done->efd : -1;
}

GLCUDA_EXPORT uint64_t
glcuda_ring_get_dropped(const struct glcuda_ring *ring)
{
	return ring ? ring->dropped : 0;
}

GLCUDA_EXPORT int
glcuda_ring_acquire(struct glcuda_ring *ring, struct glcuda_frame **out)
{
	struct glcuda_frame *f = NULL;
	int ret;

	/* The checks first, so that a lost device is reported even when
	 * every slot is in flight (-EAGAIN would have the caller wait for
	 * frames that never complete). */
	ret = ring_enter(ring, out, "glcuda_ring_acquire");
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
		/* not an error worth a message: the caller skips */
		return -EAGAIN;

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

	ret = frame_enter(f, "glcuda_frame_submit", STATE(FRAME_ACQUIRED),
			  "acquired", true);
	if (ret < 0)
		return ret;
	dev = f->ring->dev;
	if (f->sync.broken)
		return device_fail(dev, GLCUDA_ERROR_BAD_STATE,
				   "glcuda_frame_submit: an earlier hand-off "
				   "of slot %u failed half-way and its "
				   "semaphores are out of step; destroy and "
				   "recreate the ring",
				   f->slot);
	ret = device_push_cuda(dev, "glcuda_frame_submit");
	if (ret < 0)
		return ret;
	if (f->timing)
		glQueryCounter(f->timing->q_submit, GL_TIMESTAMP);
	ret = sync_to_cuda(dev, &f->unit, 1, f->stream);
	if (ret < 0)
		goto out;
	f->state = FRAME_SUBMITTED;
	if (f->timing && CU_CALL(cuEventRecord, f->timing->ev_start,
				 f->stream) != CUDA_SUCCESS)
		frame_drop_timing(f);
out:
	device_pop_cuda(dev);
	return ret;
}

GLCUDA_EXPORT int
glcuda_frame_complete(struct glcuda_frame *f)
{
	struct glcuda_device *dev;
	CUresult res;
	int ret;

	ret = frame_enter(f, "glcuda_frame_complete", STATE(FRAME_SUBMITTED),
			  "submitted", false);
	if (ret < 0)
		return ret;
	dev = f->ring->dev;
	ret = device_push_cuda(dev, "glcuda_frame_complete");
	if (ret < 0)
		return ret;
	if (f->timing && CU_CALL(cuEventRecord, f->timing->ev_end, f->stream) !=
				 CUDA_SUCCESS)
		frame_drop_timing(f);
	ret = sync_cuda_signal(dev, &f->unit, 1, f->stream);
	if (ret < 0)
		goto out;
	/* Counted before the launch: the host function may run (and
	 * uncount itself) before cuLaunchHostFunc returns. */
	atomic_fetch_add(&f->ring->done->pending, 1);
	res = CU_CALL(cuLaunchHostFunc, f->stream, ring_done_host_fn,
				   &f->ring->done->slots[f->slot]);
	/* The hand-off back is enqueued whatever happens next. */
	f->state = FRAME_COMPLETED;
	if (res != CUDA_SUCCESS) {
		atomic_fetch_sub(&f->ring->done->pending, 1);
		ret = device_cuda_fail(dev, res, "cuLaunchHostFunc", NULL);
		goto out;
	}
	f->done_target = ++f->launched;
out:
	device_pop_cuda(dev);
	return ret;
}

static void
drain_fd(struct glcuda_ring *ring)
{
	uint64_t count;

	while (read(ring->done->efd, &count, sizeof(count)) ==
	       (ssize_t)sizeof(count))
		;
	SEAM(SEAM_RING_DRAINED);
}

static void
update_ready(struct glcuda_ring *ring)
{
	for (uint32_t i = 0; i < ring->slot_count; i++) {
		struct glcuda_frame *f = &ring->frames[i];
		if (f->state == FRAME_COMPLETED && !f->ready &&
		    f->done_target &&
		    atomic_load(&ring->done->slots[i].count) >= f->done_target)
			f->ready = true;
	}
	SEAM(SEAM_RING_LOOKED);
}

/* Whether glcuda_ring_take_newest() may still return the frame: it is not
 * older than a frame already taken. */
static bool
frame_takeable(const struct glcuda_frame *f)
{
	return f->number >= f->ring->next_takeable;
}

static void
frame_taken(struct glcuda_frame *f)
{
	if (f->number >= f->ring->next_takeable)
		f->ring->next_takeable = f->number + 1;
}

GLCUDA_EXPORT int
glcuda_ring_dispatch(struct glcuda_ring *ring)
{
	int n = 0, ret;

	if (!ring)
		return device_fail(NULL, -EINVAL,
				   "glcuda_ring_dispatch: ring is NULL");
	ret = device_check_lost(ring->dev, "glcuda_ring_dispatch");
	if (ret < 0)
		return ret;
	/* Drain first, then look: a completion after the read leaves the fd
	 * readable for the next round. */
	drain_fd(ring);
	update_ready(ring);
	/* Only the frames take_newest can return: a compositor that latches
	 * when this is > 0 must not latch for a frame that is only dropped.
	 * Those are dropped (their slots freed) by the next take_newest; no
	 * GL here, as the fd's handler may run without the context. */
	for (uint32_t i = 0; i < ring->slot_count; i++)
		if (ring->frames[i].state == FRAME_COMPLETED &&
		    ring->frames[i].ready && frame_takeable(&ring->frames[i]))
			n++;
	return n;
}

/* The calls on GL's side of a frame call CUDA only for the CPU mode's wait
 * (sync_gl_wait_needs_cuda), and push the CUDA context for it then only.
 * Returns 1 when it pushed, 0 when CUDA is not needed, or the push's
 * error. */
static int
gl_side_push(struct glcuda_device *dev, const char *call)
{
	int ret;

	if (!sync_gl_wait_needs_cuda(dev))
		return 0;
	ret = device_push_cuda(dev, call);
	return ret < 0 ? ret : 1;
}

static void
gl_side_pop(struct glcuda_device *dev, int pushed)
{
	if (pushed > 0)
		device_pop_cuda(dev);
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

GLCUDA_EXPORT int
glcuda_ring_take_newest(struct glcuda_ring *ring, struct glcuda_frame **out)
{
	struct glcuda_frame *newest = NULL;
	int pushed, ret;

	ret = ring_enter(ring, out, "glcuda_ring_take_newest");
	if (ret < 0)
		return ret;
	pushed = gl_side_push(ring->dev, "glcuda_ring_take_newest");
	if (pushed < 0)
		return pushed;
	glcuda_ring_dispatch(ring);
	for (uint32_t i = 0; i < ring->slot_count; i++) {
		struct glcuda_frame *f = &ring->frames[i];
		if (f->state == FRAME_COMPLETED && f->ready &&
		    frame_takeable(f) &&
		    (!newest || f->number > newest->number))
			newest = f;
	}
	/* Every other ready frame is older than the one returned, or than one
	 * returned before (a frame whose work ran longer than a newer one's):
	 * nobody will present it. Keep the semaphores balanced and free the
	 * slot, also when nothing is returned, so that the producer gets it
	 * back. */
	for (uint32_t i = 0; i < ring->slot_count; i++) {
		struct glcuda_frame *f = &ring->frames[i];
		if (f == newest || f->state != FRAME_COMPLETED || !f->ready)
			continue;
		if (sync_gl_wait(ring->dev, &f->unit, 1) == 0) {
			timing_put(f->timing);
			f->timing = NULL;
			f->state = FRAME_FREE;
			ring->dropped++;
		}
	}
	/* Not a failure: nothing is recorded, as for glcuda_ring_acquire(). */
	if (!newest) {
		ret = -EAGAIN;
		goto out;
	}
	ret = frame_gl_wait(newest);
	if (ret < 0)
		goto out;
	frame_taken(newest);
	*out = newest;
out:
	gl_side_pop(ring->dev, pushed);
	return ret;
}

GLCUDA_EXPORT int
glcuda_frame_wait_gl(struct glcuda_frame *f)
{

	int pushed, ret;

	ret = frame_enter(f, "glcuda_frame_wait_gl", STATE(FRAME_COMPLETED),
			  "completed", true);
	if (ret < 0)
		return ret;
	pushed = gl_side_push(f->ring->dev, "glcuda_frame_wait_gl");
	if (pushed < 0)
		return pushed;
	ret = frame_gl_wait(f);
	/* Presented: take_newest must not go back before it. */
	if (ret == 0)
		frame_taken(f);
	gl_side_pop(f->ring->dev, pushed);
	return ret;
}

GLCUDA_EXPORT int
glcuda_frame_release(struct glcuda_frame *f)
{
	int ret;

	ret = frame_enter(f, "glcuda_frame_release",
			  STATE(FRAME_COMPLETED) | STATE(FRAME_PRESENTED),
			  "completed or presented", true);
	if (ret < 0)
		return ret;
	if (f->state == FRAME_COMPLETED) {
		int pushed = gl_side_push(f->ring->dev, "glcuda_frame_release");

		if (pushed < 0)
			return pushed;
		ret = frame_gl_wait(f);
		gl_side_pop(f->ring->dev, pushed);
		if (ret < 0)
			return ret;
	}
	f->state = FRAME_FREE;
	return 0;
}

/* Accessors -------------------------------------------------------------- */

GLCUDA_EXPORT uint64_t
glcuda_frame_get_number(const struct glcuda_frame *f)
{
	return f ? f->number : 0;
}

GLCUDA_EXPORT uint32_t
glcuda_frame_get_slot(const struct glcuda_frame *f)
{
	return f ? f->slot : 0;
}

GLCUDA_EXPORT struct glcuda_image *
glcuda_frame_get_input(const struct glcuda_frame *f)
{
	return f ? f->input : NULL;
}

GLCUDA_EXPORT struct glcuda_image *
glcuda_frame_get_output(const struct glcuda_frame *f)
{
	return f ? f->output : NULL;
}

GLCUDA_EXPORT unsigned int
glcuda_frame_get_input_fbo(const struct glcuda_frame *f)
{
	return f ? f->fbo : 0;
}

GLCUDA_EXPORT unsigned int
glcuda_frame_get_output_texture(const struct glcuda_frame *f)
{
	return f && f->output ? f->output->texture : 0;
}

GLCUDA_EXPORT CUstream
glcuda_frame_get_stream(const struct glcuda_frame *f)
{
	return f ? f->stream : NULL;
}

GLCUDA_EXPORT void
glcuda_ring_set_user_data(struct glcuda_ring *ring, void *user_data)
{
	if (ring)
		ring->user_data = user_data;
}

GLCUDA_EXPORT void *
glcuda_ring_get_user_data(const struct glcuda_ring *ring)
{
	return ring ? ring->user_data : NULL;
}

GLCUDA_EXPORT void
glcuda_frame_set_user_data(struct glcuda_frame *f, void *user_data)
{
	if (f)
		f->user_data = user_data;
}

GLCUDA_EXPORT void *
glcuda_frame_get_user_data(const struct glcuda_frame *f)
{
	return f ? f->user_data : NULL;
}
