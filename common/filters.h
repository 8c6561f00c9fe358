/*
 * CUDA filters for glcuda-demo: copy,
 * invert, separable Gaussian blur, unsharp mask and a 3D-LUT colour grade,
 * from one shared image's surface to another's, enqueued on a stream.
 *
 * The kernels (common/filters.cu) are a fat binary embedded in the program
 * and loaded with cuModuleLoadData in the device's CUDA context. Every CUDA
 * call goes through the programs' run-time table (common/cuda-table.h),
 * loaded by filters_new(): nothing links libcuda. Built
 * without nvcc, only FILTER_NONE exists (an array-to-array copy).
 *
 * Formats: GLCUDA_FORMAT_RGBA8, GLCUDA_FORMAT_RGBA16F and
 * GLCUDA_FORMAT_RGBA32F, as input and output in any combination.
 *
 * Single-threaded, like the glcuda_device it belongs to.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TOOLS_FILTERS_H
#define GLCUDA_TOOLS_FILTERS_H

#include <stdbool.h>
#include <stdint.h>

/* The CUDA driver API's declarations (<cuda.h>, or glcuda's own without
 * the toolkit), then glcuda's CUDA accessors. */
#include "cuda-table.h"
#include <glcuda/glcuda-cuda.h>

enum filter_kind {
	FILTER_NONE = 0, /* copy */
	FILTER_INVERT,   /* 1 - rgb */
	FILTER_BLUR,     /* separable Gaussian, two passes */
	FILTER_UNSHARP,  /* original + amount * (original - blur) */
	FILTER_GRADE,    /* warm "film" 3D LUT, trilinear */
};
#define FILTER_COUNT 5

struct filter_params {
	/* Gaussian sigma in pixels for blur and unsharp; 0: 4 px at 1080 lines,
	 * scaled with the image height. */
	float sigma;
	/* Unsharp-mask strength; 0: 1.0. */
	float amount;
	/* Edge length of the grading LUT, 2..65; 0: 33. */
	int lut_size;
};

struct filters;

/* "none", "invert", "blur", "unsharp", "grade"; NULL for an unknown kind. */
const char *filter_name(enum filter_kind kind);
/* The kind with this name; -1 if none. */
int filter_from_name(const char *name);
/* Whether the kernels of this filter are built in (false for all but
 * FILTER_NONE without nvcc). */
bool filter_available(enum filter_kind kind);
/* Whether the kernels were built at all. */
bool filters_have_kernels(void);

/*
 * Load the kernels into dev's CUDA context and allocate what the filters
 * need for images up to max_width x max_height (the blur's scratch buffer,
 * the Gaussian taps, the grading LUT). params may be NULL (defaults).
 * Returns 0, -EINVAL, -ENOMEM, GLCUDA_ERROR_NO_CUDA_DRIVER or
 * GLCUDA_ERROR_CUDA; filters_last_error() says what failed.
 */
int filters_new(struct glcuda_device *dev, uint32_t max_width,
		uint32_t max_height, const struct filter_params *params,
		struct filters **out);

/* Waits for the filters' pending GPU work, then frees everything.
 * NULL is a no-op. */
void filters_destroy(struct filters *filters);

/*
 * Enqueue a filter from in to out on stream: the images must be handed to
 * CUDA on that stream (a ring frame after glcuda_frame_submit()), of the
 * same size, and in and out must differ. Nothing waits on the CPU.
 * Blur and unsharp share one scratch buffer: their runs on different
 * streams are ordered on the GPU (an event), never on the CPU.
 * Returns 0, -EINVAL (sizes, formats, same image), -ENOTSUP (a filter built
 * without kernels) or GLCUDA_ERROR_CUDA; filters_last_error() says more.
 */
int filters_run(struct filters *filters, enum filter_kind kind, CUstream stream,
		struct glcuda_image *in, struct glcuda_image *out);

/*
 * The order of the colours in an 8-bit image's bytes: R, G, B (RGBA,
 * RGBx) or B, G, R (BGRA, BGRx, whose GL texture holds blue in its red
 * channel). Byte 3 is alpha, or x (filtered as alpha is). Only grade
 * depends on it: it grades the same colours in either order.
 */
enum filter_order {
	FILTER_ORDER_RGB = 0,
	FILTER_ORDER_BGR = 1,
};

/* filters_run on images whose colours are in @order (filters_run: RGB). */
int filters_run_ordered(struct filters *filters, enum filter_kind kind,
			CUstream stream, struct glcuda_image *in,
			struct glcuda_image *out, enum filter_order order);

/* The same on bare surface objects (no array copy: needs the kernels). */
int filters_run_surfaces(struct filters *filters, enum filter_kind kind,
			 CUstream stream, CUsurfObject in,
			 enum glcuda_format in_format, CUsurfObject out,
			 enum glcuda_format out_format, uint32_t width,
			 uint32_t height);

/* The effective parameters (defaults filled in). */
const struct filter_params *filters_params(const struct filters *filters);

/* What the last failing filters_* call of this thread said ("" if none). */
const char *filters_last_error(void);

#endif
