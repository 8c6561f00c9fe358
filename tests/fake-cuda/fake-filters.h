/*
 * The fake CUDA driver's CPU versions of the tools' filters
 * (common/filters.cu) on 8-bit RGBA surfaces: copy, invert, the blur's two
 * passes (blur and unsharp) and the colour grade, the same arithmetic as
 * the kernels, one texel after another. The other formats (f16, f32) are
 * listed so that the filters load, and fault if launched. Also the kernel
 * of examples/mujoco/mujoco-cameras.c, which turns MuJoCo's segmentation
 * colours into object ids.
 * SPDX-License-Identifier: MIT
 */
#ifndef FAKE_FILTERS_H
#define FAKE_FILTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fake_filter {
	FAKE_FILTER_NONE = 0, /* not a filter kernel */
	FAKE_FILTER_COPY,
	FAKE_FILTER_INVERT,
	FAKE_FILTER_BLUR_H,
	FAKE_FILTER_BLUR_V,
	FAKE_FILTER_GRADE,
	FAKE_FILTER_OTHER_FORMAT, /* f16 or f32: not run on the CPU */
	/* examples/mujoco's id colours to object ids (linear memory). */
	FAKE_FILTER_MUJOCO_SEGMENT,
};

/* The memory a kernel reads and writes: @size bytes of a surface's texel
 * at byte @xbytes of row @y, or @n bytes of device memory at @ptr; NULL
 * when out of bounds (a fault). */
struct fake_filter_memory {
	uint8_t *(*texel)(uint64_t surface, int xbytes, int y, size_t size);
	uint8_t *(*device)(uint64_t ptr, size_t n);
};

/* The filter kernel @name (its parameters' sizes in *args: S 8 bytes, i 4
 * bytes, as the fake's table has them); FAKE_FILTER_NONE if it is none. */
enum fake_filter fake_filter_find(const char *name, const char **args);

/* Runs filter kernel @id over a grid of @gw x @gh threads with the
 * launch's parameters @a (8-byte or 32-bit values, in order). false on a
 * fault (memory out of bounds, a format not run on the CPU). */
bool fake_filter_run(enum fake_filter id, const uint64_t *a, int gw, int gh,
		     const struct fake_filter_memory *mem);

#endif
