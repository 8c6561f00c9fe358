/*
 * Seams (seam.h): the tests' build of the library only.
 * SPDX-License-Identifier: MIT
 */
#include "seam.h"

#include <stddef.h>

static struct seam_hook {
	seam_fn fn;
	void *data;
} hooks[SEAM_POINT_COUNT];

void
seam_set(enum seam_point point, seam_fn fn, void *data)
{
	/* Release: a thread that sees fn sees its data. */
	__atomic_store_n(&hooks[point].data, data, __ATOMIC_RELAXED);
	__atomic_store_n(&hooks[point].fn, fn, __ATOMIC_RELEASE);
}

void
seam_pass(enum seam_point point)
{
	seam_fn fn = __atomic_load_n(&hooks[point].fn, __ATOMIC_ACQUIRE);

	if (fn)
		fn(point,
		   __atomic_load_n(&hooks[point].data, __ATOMIC_RELAXED));
}
