/*
 * Inside the frame ring (ring.c, ring-timing.c): its slots, completion
 * blocks and timing records.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_RING_H
#define GLCUDA_RING_H

#include "image.h"

#include <stdatomic.h>

#define RING_MAX_SLOTS GLCUDA_RING_MAX_SLOTS
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
	/* The caller's, kept with the slot (glcuda_frame_set_user_data). */
	void *user_data;
};

struct glcuda_ring {
	struct glcuda_device *dev;
	struct glcuda_ring_desc desc;
	uint32_t slot_count;
	struct glcuda_frame frames[RING_MAX_SLOTS];
	uint32_t next_slot;
	uint64_t next_number;
	/* One past the number of the last frame taken (glcuda_ring_take_newest,
	 * glcuda_frame_wait_gl); 0 before the first. A frame numbered below it
	 * is never returned: CUDA work of varying length completes out of
	 * order, and a frame older than one already shown would go back in
	 * time. It is dropped once ready. */
	uint64_t next_takeable;
	uint64_t dropped;
	struct ring_done *done;

	bool timings;
	struct timing_record records[TIMING_RECORDS];
	struct timing_record *pending_head, *pending_tail;
	/* Clock link: CUDA event `ref_event` completed at GL time ref_gl_ns. */
	CUevent ref_event;
	int64_t ref_gl_ns;

	/* The caller's, untouched by glcuda (glcuda_ring_set_user_data). */
	void *user_data;
};

/* ring-done.c: the host function enqueued after a frame's CUDA work
 * (data: the frame's struct ring_done_slot), on a CUDA driver thread. */
void CUDA_CB ring_done_host_fn(void *data);
/* The ring lets go of its block: freed now if no host function is queued,
 * else handed to the device until they have run (or cannot any more). */
void ring_done_release(struct glcuda_device *dev, struct ring_done *done);
/* Free the device's orphaned blocks whose host functions have run (all of
 * them if @context_gone); the count of those left. */
unsigned int ring_orphans_reap(struct glcuda_device *dev, bool context_gone);

/* ring-timing.c: the GPU timestamps of frames (GLCUDA_RING_FLAG_TIMINGS). */
int timing_init(struct glcuda_ring *ring, CUstream stream);
void timing_fini(struct glcuda_ring *ring, bool gl_current);
/* A free record for a frame, or NULL when all are in use. */
struct timing_record *timing_get(struct glcuda_ring *ring);
void timing_put(struct timing_record *r);
/* Queue a frame's record for glcuda_ring_read_timings. */
void timing_queue(struct glcuda_ring *ring, struct timing_record *r);
/* A frame whose timing events could not be recorded is not measured. */
void frame_drop_timing(struct glcuda_frame *f);

#endif
