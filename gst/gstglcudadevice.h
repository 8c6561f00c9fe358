/*
 * glcudafilter's devices: one glcuda_device per GstGLContext, made on that
 * context's GL thread and shared by every glcudafilter on the context and
 * by every image made or wrapped on it (a device costs a Vulkan device
 * and a CUDA context: one is enough).
 * SPDX-License-Identifier: MIT
 */
#ifndef GST_GLCUDA_DEVICE_H
#define GST_GLCUDA_DEVICE_H

#include <stddef.h>

#include <glcuda/glcuda.h>
#include <gst/gl/gl.h>

G_BEGIN_DECLS

/* glcudafilter's debug category (gstglcudafilter.c), shared by its files. */
GST_DEBUG_CATEGORY_EXTERN(gst_glcuda_filter_debug);

/* Referenced by the elements that use the context and by every wrap or
 * pooled image made on it, so that the device outlives the images made
 * from it whatever order GStreamer frees elements and pooled memory in. */
struct gcf_device {
	gint refcount;
	GstGLContext *context;
	struct glcuda_device *dev;
	/* Bit i set once the driver refused to register a GL texture of
	 * gcf_formats[i]: the copy path for that format from then on,
	 * without retrying at every new memory. Per format: CUDA registers
	 * R8 but not RGB10_A2 textures, for instance. */
	guint wrap_refused;
};

/* A reference to the device of @context, made if there is none yet.
 * On failure: NULL, with the glcuda error in *ret and its message in msg. */
struct gcf_device *gcf_device_get(GstGLContext *context, int *ret, char *msg, size_t size);

/* Another reference to @d; @d. */
struct gcf_device *gcf_device_ref(struct gcf_device *d);

/* Drops a reference; the last destroys the device on its GL thread.
 * NULL is a no-op. */
void gcf_device_unref(struct gcf_device *d);

/* Destroys @image, an image of @d, on @d's GL thread (from any thread),
 * then drops the reference to @d the image held. */
void gcf_device_release_image(struct gcf_device *d, struct glcuda_image *image);

G_END_DECLS

#endif
