/*
 * glcudafilter's devices: a glcuda_device of a GstGLContext, made on that
 * context's GL thread and shared by every glcudafilter on the context and
 * by every image made or wrapped on it (a device costs a Vulkan device
 * and a CUDA context: one is enough). Elements share it as GStreamer's
 * own elements share their displays and contexts: a GstContext of type
 * "glcuda.device" (GCF_DEVICE_CONTEXT_TYPE), found by a context query to
 * the neighbours, a need-context message to the bin and the application,
 * and posted in a have-context message by the element that made it. An
 * application shares one device between pipelines by setting the
 * context of one on the other.
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
	/* The GstCudaContext whose CUcontext the device uses (a reference:
	 * it must outlive the device), NULL for the device's own. */
	GstObject *cuda_owner;
	/* Bit i set once the driver refused to register a GL texture of
	 * gcf_formats[i]: the copy path for that format from then on,
	 * without retrying at every new memory. Per format: CUDA registers
	 * R8 but not RGB10_A2 textures, for instance. */
	guint wrap_refused;
};

/* A new device of @context (made on its GL thread), one reference, on
 * @cuda_context (a CUcontext of the CUDA device of @context, which
 * @cuda_owner, referenced by the device, keeps alive), or on the CUDA
 * device's primary context if NULL. On failure: NULL, with the glcuda
 * error in *ret and its message in msg. */
struct gcf_device *gcf_device_new(GstGLContext *context, GstObject *cuda_owner,
				  void *cuda_context, int *ret, char *msg,
				  size_t size);

/* Another reference to @d; @d. */
struct gcf_device *gcf_device_ref(struct gcf_device *d);

/* Drops a reference; the last destroys the device on its GL thread.
 * NULL is a no-op. */
void gcf_device_unref(struct gcf_device *d);

/* The boxed type of struct gcf_device (the "device" field of a
 * "glcuda.device" context). */
typedef struct gcf_device GcfDevice;
GType gcf_device_get_type(void);

/* The type of the GstContext that carries a device: fields "device"
 * (the device, GcfDevice) and "gl-context" (its GstGLContext). */
#define GCF_DEVICE_CONTEXT_TYPE "glcuda.device"

/* A new context that carries @d. */
GstContext *gcf_device_context_new(struct gcf_device *d);

/* A reference to the device @context carries if it is a glcuda.device
 * context and, unless @gl is NULL, the device is of @gl and, unless
 * @cuda_context is NULL, on that CUcontext; else NULL. */
struct gcf_device *gcf_device_from_context(GstContext *context,
					   GstGLContext *gl,
					   void *cuda_context);

/* A reference to the device of @gl (and of @cuda_context, if not NULL)
 * of a neighbour of @element (a context query on each pad, downstream
 * first), NULL if none answers with one. */
struct gcf_device *gcf_device_find(GstElement *element, GstGLContext *gl,
				   void *cuda_context);

/* Answers @query with @d if it is a context query for a glcuda.device
 * (TRUE); FALSE for any other query, or when @d is NULL. */
gboolean gcf_device_handle_query(GstElement *element, GstQuery *query,
				 struct gcf_device *d);

/* Destroys @image, an image of @d, on @d's GL thread (from any thread),
 * then drops the reference to @d the image held. */
void gcf_device_release_image(struct gcf_device *d, struct glcuda_image *image);

G_END_DECLS

#endif
