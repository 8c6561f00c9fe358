/*
 * Copies between a plane of an image and linear device memory (copy.c),
 * for the public copy calls and the DLPack export.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_COPY_H
#define GLCUDA_COPY_H

#include "image.h"
#include <glcuda/glcuda-cuda.h>

/* Linear device memory: row y of layer l at
 * pointer + l * layer_pitch + y * row_pitch. */
struct linear_block {
	CUdeviceptr pointer;
	size_t row_pitch;
	size_t layer_pitch;
};

/* The options of a batch's copies (struct glcuda_copy_desc's, struct
 * glcuda_export_desc's): rows flipped (GLCUDA_ORIGIN_TOP_LEFT), and depth
 * planes converted on the way into linear memory. */
struct copy_options {
	bool flip;
	struct glcuda_depth_conversion depth;
};

/* The options from a desc's origin and depth: 0, or a recorded -EINVAL
 * naming `what` (an origin or mode out of range, planes that do not make
 * a projection). */
int copy_options_check(struct glcuda_device *dev, enum glcuda_origin origin,
		       const struct glcuda_depth_conversion *depth,
		       const char *what, struct copy_options *out);

/* Whether `plane` of the image holds depth: plane 1 of an image with
 * desc.depth_format, plane 0 of a GLCUDA_FORMAT_DEPTH32F image. */
bool copy_plane_is_depth(const struct glcuda_image *img, unsigned int plane);

/* The checks of a copy of `plane` (`layer`, or GLCUDA_ALL_LAYERS) with the
 * block that do not depend on who owns the image: plane, layer, pointer,
 * pitches. 0 or a recorded -EINVAL naming `what`. */
int copy_check_layout(struct glcuda_image *img, unsigned int plane, int layer,
		      const struct linear_block *b, const char *what);

/* The checks of a copy of `plane` (`layer`, or GLCUDA_ALL_LAYERS) with the
 * block: plane, layer, pitches, and an image handed to CUDA. 0 or a
 * recorded error naming `what`. */
int copy_check(struct glcuda_image *img, unsigned int plane, int layer,
	       const struct linear_block *b, const char *what);

/* Enqueue the copy on the stream, image to block (to_linear) or back, with
 * the options `o` (NULL: none; a depth conversion applies only to a depth
 * plane copied to linear memory). With the device's CUDA context current;
 * after copy_check. */
int copy_enqueue(struct glcuda_image *img, unsigned int plane, int layer,
		 const struct linear_block *b, bool to_linear,
		 const struct copy_options *o, CUstream stream,
		 const char *what);

/* glcuda_copy_linear() for the calls of the library that make the same
 * sequence (the DLPack export): d is of this glcuda's size, the CUDA
 * context is pushed; errors name `what`. */
struct glcuda_copy_desc;
int copy_batch_pushed(struct glcuda_device *dev,
		      const struct glcuda_copy_desc *d, const char *what);

#endif
