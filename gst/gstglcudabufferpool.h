/*
 * GstGlcudaBufferPool: a GstGLBufferPool whose GstGLMemory textures are
 * those of glcuda shared images, one per plane. glcudafilter offers it
 * upstream (the allocation query) and outputs into one: a frame in such a
 * pool goes to CUDA as the image it is, with neither a registration nor a
 * copy, on any driver.
 * SPDX-License-Identifier: MIT
 */
#ifndef GST_GLCUDA_BUFFER_POOL_H
#define GST_GLCUDA_BUFFER_POOL_H

#include <gst/gl/gl.h>

#include "gstglcudadevice.h"

G_BEGIN_DECLS

#define GST_TYPE_GLCUDA_BUFFER_POOL (gst_glcuda_buffer_pool_get_type())
G_DECLARE_FINAL_TYPE(GstGlcudaBufferPool, gst_glcuda_buffer_pool, GST,
		     GLCUDA_BUFFER_POOL, GstGLBufferPool)

/* A pool of device @d's images (a new reference to @d), made by @owner
 * (a weak reference: the errors of the pool are its). */
GstBufferPool *gcf_buffer_pool_new(struct gcf_device *d, GstElement *owner);

/* Whether @pool is a glcuda pool of device @d. */
gboolean gcf_buffer_pool_is_of_device(GstBufferPool *pool,
				      struct gcf_device *d);

/* The image of @mem if it is a pooled memory of device @d (any glcuda
 * pool's), else NULL. */
struct glcuda_image *gcf_pooled_image(struct gcf_device *d, GstGLMemory *mem);

G_END_DECLS

#endif
