/*
 * Seams: named points in the library where a test runs code of its own, to
 * open on purpose a window between two steps that the scheduler only
 * rarely opens (a frame completing between the two steps of
 * glcuda_ring_dispatch(), a dispatch between the two steps of a
 * completion). Compiled only into the library the tests link
 * (GLCUDA_TEST_BUILD, lib/local.mk); in the installed library SEAM()
 * expands to nothing and seam.c is not built (tests/test-symbols.sh
 * checks).
 * SPDX-License-Identifier: MIT
 *
 * A seam ends the step it belongs to (inside the same function), so that
 * it stays right after that step wherever the step is moved: a test that
 * acts at every seam of a pair of steps sees the window between them in
 * whichever order the code takes them.
 */
#ifndef GLCUDA_SEAM_H
#define GLCUDA_SEAM_H

enum seam_point {
	/* The ring's frame-done host function, on a CUDA driver thread: the
	 * slot's completion count was raised... */
	SEAM_RING_DONE_COUNTED,
	/* ...the ready fd was written. */
	SEAM_RING_DONE_NOTIFIED,
	/* glcuda_ring_dispatch(): the ready fd was drained... */
	SEAM_RING_DRAINED,
	/* ...the slots' completion counts were read. */
	SEAM_RING_LOOKED,
	SEAM_POINT_COUNT
};

typedef void (*seam_fn)(enum seam_point point, void *data);

/* Defined only in the tests' build (lib/libglcuda-test.la). */
/* From now on, fn(point, data) runs at each pass through the seam, on the
 * thread that passes; fn NULL: nothing runs. Set it while no thread can
 * pass the seam (the other thread's pass must come after, through a lock
 * or a join). */
void seam_set(enum seam_point point, seam_fn fn, void *data);
void seam_pass(enum seam_point point);

#ifdef GLCUDA_TEST_BUILD
#define SEAM(point) seam_pass(point)
#else
/* The installed library: no hook, and no reference to seam.c even at -O0. */
#define SEAM(point) ((void)0)
#endif

#endif
