/*
 * The frames CUDA has finished (ring.h, struct ring_done): the host
 * function each completed frame enqueues after its work, which counts the
 * frame done and wakes the ring's eventfd, and the blocks of destroyed
 * rings whose host functions have not run yet, kept by the device until
 * they have.
 * SPDX-License-Identifier: MIT
 */
#include "ring/ring.h"
#include "seam.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

/* The two steps of a completion, in this order: a dispatch that drains the
 * fd after the write must find the count raised, or the wakeup is lost
 * until another frame completes. Each step ends at a seam (lib/seam.h). */
static void
done_slot_count(struct ring_done_slot *slot)
{
	atomic_fetch_add(&slot->count, 1);
	SEAM(SEAM_RING_DONE_COUNTED);
}

static void
done_notify(struct ring_done *done)
{
	uint64_t one = 1;

	if (write(done->efd, &one, sizeof(one)) < 0) {
		/* The counter cannot overflow in practice; nothing to do. */
	}
	SEAM(SEAM_RING_DONE_NOTIFIED);
}

void CUDA_CB
ring_done_host_fn(void *data)
{
	struct ring_done_slot *slot = data;
	struct ring_done *done = slot->done;

	/* Runs on a CUDA driver thread: no CUDA calls here. */
	done_slot_count(slot);
	done_notify(done);
	atomic_fetch_sub(&done->pending, 1); /* the last access */
}

static void
ring_done_free(struct ring_done *done)
{
	if (done->efd >= 0)
		close(done->efd);
	free(done);
}

/* The ring lets go of its block: freed now if no host function is queued,
 * else handed to the device until they have run (or cannot any more). */
void
ring_done_release(struct glcuda_device *dev, struct ring_done *done)
{
	if (atomic_load(&done->pending) == 0) {
		ring_done_free(done);
		return;
	}
	log_debug(dev,
		  "ring destroyed with %u host functions queued; their block "
		  "stays until they have run\n",
		  atomic_load(&done->pending));
	done->next_orphan = dev->orphans.head;
	dev->orphans.head = done;
	dev->orphans.reap = ring_orphans_reap;
}

unsigned int
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
