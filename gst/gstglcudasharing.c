/*
 * glcudafilter's side of GstContext: the glcuda device it shares with the
 * other glcudafilters on its GL context, and the pipeline's GstCudaContext
 * it shares with nvcodec's elements where a pad carries CUDA memory. What
 * the element was given (set_context), found (queries and messages) or
 * made is kept on it, under its object lock, and answered to its
 * neighbours' context queries.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "gstglcudafilterpriv.h"

#ifdef HAVE_GST_CUDA
/* @ctx (the reference is taken) as the pipeline's GstCudaContext, unless
 * the element has one already (then @ctx is dropped). */
void
gcf_keep_cuda_context(GstGlcudaFilter *self, GstObject *ctx)
{
	GST_OBJECT_LOCK(self);
	if (!self->cuda_context) {
		self->cuda_context = ctx;
		ctx = NULL;
	}
	GST_OBJECT_UNLOCK(self);
	if (ctx)
		gst_object_unref(ctx);
}
#endif

/* @d (a new reference) as the device the element gives its neighbours. */
void
gcf_keep_device(GstGlcudaFilter *self, struct gcf_device *d)
{
	struct gcf_device *old;

	gcf_device_ref(d);
	GST_OBJECT_LOCK(self);
	old = self->context_device;
	self->context_device = d;
	GST_OBJECT_UNLOCK(self);
	gcf_device_unref(old);
}

/* The device of @gl set on the element (gst_element_set_context), if
 * any; NULL otherwise. */
static struct gcf_device *
context_device(GstGlcudaFilter *self, GstGLContext *gl, void *cuda_context)
{
	struct gcf_device *d = NULL, *c;

	GST_OBJECT_LOCK(self);
	c = self->context_device;
	if (c && c->context == gl &&
	    (!cuda_context ||
	     glcuda_device_get_cuda_context(c->dev) == cuda_context))
		d = gcf_device_ref(c);
	GST_OBJECT_UNLOCK(self);
	return d;
}

/*
 * The glcuda device of @gl, shared as GstGL shares its display: one set
 * on the element, else a neighbour's (context query), else one the bin
 * or the application gives (need-context message), else a new one,
 * offered to the bin and the application (have-context message) so that
 * the other glcudafilters on @gl use it too. With CUDA memory on a pad
 * and a GstCudaContext in the pipeline, only a device on that context's
 * CUcontext will do. On failure: NULL, with the glcuda error in *ret and
 * its message in msg.
 */
struct gcf_device *
gcf_acquire_device(GstGlcudaFilter *self, GstGLContext *gl, int *ret,
		   char *msg, size_t size)
{
	GstElement *element = GST_ELEMENT(self);
	GstObject *cuda_owner = NULL;
	void *cuda = NULL;
	struct gcf_device *d;
	GstContext *context;

#ifdef HAVE_GST_CUDA
	if (self->cuda_in || self->cuda_out)
		cuda_owner = gcf_pipeline_cuda_context(self);
	if (cuda_owner)
		cuda = gcf_cuda_context_get_handle(cuda_owner);
#endif
	d = context_device(self, gl, cuda);
	if (!d)
		d = gcf_device_find(element, gl, cuda);
	if (!d) {
		gst_element_post_message(element,
			gst_message_new_need_context(GST_OBJECT(self),
						     GCF_DEVICE_CONTEXT_TYPE));
		d = context_device(self, gl, cuda);
	}
	if (d) {
		gcf_keep_device(self, d);
		if (cuda_owner)
			gst_object_unref(cuda_owner);
		return d;
	}
	d = gcf_device_new(gl, cuda_owner, cuda, ret, msg, size);
	if (cuda_owner)
		gst_object_unref(cuda_owner);
	if (!d)
		return NULL;
	GST_INFO_OBJECT(self, "new glcuda device %p for %" GST_PTR_FORMAT,
			(void *)d, gl);
	gcf_keep_device(self, d);
	context = gcf_device_context_new(d);
	gst_element_post_message(element,
		gst_message_new_have_context(GST_OBJECT(self), context));
	return d;
}

#ifdef HAVE_GST_CUDA
GstObject *
gcf_pipeline_cuda_context(GstGlcudaFilter *self)
{
	GstObject *ctx = NULL;

	GST_OBJECT_LOCK(self);
	if (self->cuda_context)
		ctx = gst_object_ref(self->cuda_context);
	GST_OBJECT_UNLOCK(self);
	return ctx;
}

/* Streaming thread, CUDA memory on a pad, before gl_start: GStreamer's
 * CUDA library loaded and the pipeline's GstCudaContext, if it has one.
 * FALSE (an element error posted) without the library. */
gboolean
gcf_prepare_cuda(GstGlcudaFilter *self)
{
	GstObject *found = NULL;
	char msg[512];

	if (!gcf_cuda_library_check(msg, sizeof(msg))) {
		GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND,
				  ("Cannot use CUDA memory: %s", msg), (NULL));
		return FALSE;
	}
	found = gcf_pipeline_cuda_context(self);
	if (found) {
		gst_object_unref(found);
		return TRUE;
	}
	/* The bin's answer comes through set_context. */
	gcf_cuda_context_find(GST_ELEMENT(self), &found);
	if (found)
		gcf_keep_cuda_context(self, found);
	return TRUE;
}

/* GL thread, the device made: without a GstCudaContext in the pipeline,
 * the device's own CUDA context is shared as one, so that nvcodec's
 * elements work on it too. FALSE (an element error posted) if GStreamer's
 * CUDA library refuses it. */
gboolean
gcf_share_cuda_context(GstGlcudaFilter *self)
{
	GstObject *ctx;

	GST_OBJECT_LOCK(self);
	ctx = self->cuda_context;
	GST_OBJECT_UNLOCK(self);
	if (ctx)
		return TRUE;
	ctx = gcf_cuda_context_share(GST_ELEMENT(self), self->device);
	if (!ctx) {
		GST_ELEMENT_ERROR(
			self, RESOURCE, FAILED,
			("GStreamer's CUDA library refused the glcuda "
			 "device's CUDA context %p",
			 (void *)glcuda_device_get_cuda_context(
				 self->device->dev)),
			(NULL));
		return FALSE;
	}
	gcf_keep_cuda_context(self, ctx);
	return TRUE;
}
#endif


/* A context query for a glcuda.device, answered with the element's. */
static gboolean
query_device(GstGlcudaFilter *self, GstQuery *query)
{
	struct gcf_device *d = NULL;
	gboolean answered;

	GST_OBJECT_LOCK(self);
	if (self->context_device)
		d = gcf_device_ref(self->context_device);
	GST_OBJECT_UNLOCK(self);
	answered = gcf_device_handle_query(GST_ELEMENT(self), query, d);
	gcf_device_unref(d);
	return answered;
}

#ifdef HAVE_GST_CUDA
/* A context query for gst.cuda.context, answered with the pipeline's. */
static gboolean
query_cuda_context(GstGlcudaFilter *self, GstQuery *query)
{
	GstObject *ctx = NULL;
	gboolean answered;

	ctx = gcf_pipeline_cuda_context(self);
	answered = gcf_cuda_handle_query(GST_ELEMENT(self), query, ctx);
	if (ctx)
		gst_object_unref(ctx);
	return answered;
}
#endif

gboolean
gcf_answer_context_query(GstGlcudaFilter *self, GstQuery *query)
{
	/* gst_cuda_handle_context_query() parses any query as a context
	 * query: given another, it reads an unset type and may answer it. */
	if (GST_QUERY_TYPE(query) != GST_QUERY_CONTEXT)
		return FALSE;
	if (query_device(self, query))
		return TRUE;
#ifdef HAVE_GST_CUDA
	if (query_cuda_context(self, query))
		return TRUE;
#endif
	return FALSE;
}
