/*
 * glcudafilter's CUDAMemory pads (gstglcudacudamemory.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>

#include "gstglcudacudamemory.h"

#define GST_CAT_DEFAULT gst_glcuda_filter_debug

gboolean
gcf_caps_are_cuda(const GstCaps *caps)
{
	GstCapsFeatures *features;

	if (!caps || gst_caps_is_empty(caps) || gst_caps_is_any(caps))
		return FALSE;
	features = gst_caps_get_features(caps, 0);
	return features && gst_caps_features_contains(features,
					GCF_CAPS_FEATURE_CUDA_MEMORY);
}

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <glcuda/glcuda-cuda.h>

G_STATIC_ASSERT(sizeof(GCF_CAPS_FEATURE_CUDA_MEMORY) ==
		sizeof(GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));

gboolean
gcf_cuda_library_check(char *msg, size_t size)
{
	if (gst_cuda_load_library()) {
		gst_cuda_memory_init_once();
		return TRUE;
	}
	snprintf(msg, size, "GStreamer's CUDA library (gstreamer-cuda-1.0) "
		 "cannot load the NVIDIA driver: it opens libcuda.so.1 itself, "
		 "neither through glcuda nor GLCUDA_LIBCUDA. Install the "
		 "NVIDIA driver, or negotiate GL memory on both pads");
	return FALSE;
}

gboolean
gcf_cuda_set_context(GstElement *element, GstContext *context,
		     GstObject **cuda_context)
{
	GstCudaContext *ctx = (GstCudaContext *)*cuda_context;

	if (g_strcmp0(gst_context_get_context_type(context),
		      GST_CUDA_CONTEXT_TYPE) != 0)
		return FALSE;
	/* Any device: the glcuda device checks that it is the GL
	 * context's (gcf_device_new). */
	if (gst_cuda_handle_set_context(element, context, -1, &ctx) &&
	    !*cuda_context) {
		*cuda_context = GST_OBJECT(ctx);
		GST_INFO_OBJECT(element, "CUDA context %" GST_PTR_FORMAT
				" (CUcontext %p) from the pipeline", ctx,
				gst_cuda_context_get_handle(ctx));
	}
	return TRUE;
}

gboolean
gcf_cuda_handle_query(GstElement *element, GstQuery *query,
		      GstObject *cuda_context)
{
	if (!cuda_context)
		return FALSE;
	return gst_cuda_handle_context_query(element, query,
					     GST_CUDA_CONTEXT(cuda_context));
}

/* gst_element_foreach_*_pad: asks @pad's peer for its CUDA context; FALSE
 * (stop) once the element has one. */
static gboolean
cuda_context_from_peer(GstElement *element, GstPad *pad, gpointer data)
{
	GstObject **cuda_context = data;
	GstQuery *query = gst_query_new_context(GST_CUDA_CONTEXT_TYPE);
	GstContext *context;

	if (gst_pad_peer_query(pad, query)) {
		gst_query_parse_context(query, &context);
		if (context)
			gcf_cuda_set_context(element, context, cuda_context);
	}
	gst_query_unref(query);
	return *cuda_context == NULL;
}

void
gcf_cuda_context_find(GstElement *element, GstObject **cuda_context)
{
	if (*cuda_context)
		return;
	/* As gst_cuda_ensure_element_context() asks, but without making a
	 * context of its own when none answers (gcf_cuda_context_share
	 * then shares the glcuda device's). */
	gst_element_foreach_src_pad(element, cuda_context_from_peer,
				    cuda_context);
	if (!*cuda_context)
		gst_element_foreach_sink_pad(element, cuda_context_from_peer,
					     cuda_context);
	if (!*cuda_context)
		gst_element_post_message(element,
			gst_message_new_need_context(GST_OBJECT(element),
						     GST_CUDA_CONTEXT_TYPE));
}

GstObject *
gcf_cuda_context_share(GstElement *element, struct gcf_device *d)
{
	GstCudaContext *ctx;
	GstContext *context;

	ctx = gst_cuda_context_new_wrapped(
		glcuda_device_get_cuda_context(d->dev),
		glcuda_device_get_cuda_device(d->dev));
	if (!ctx)
		return NULL;
	/* The CUcontext is the device's: the device lives as long. */
	g_object_set_data_full(G_OBJECT(ctx), "glcuda-device",
			       gcf_device_ref(d),
			       (GDestroyNotify)gcf_device_unref);
	GST_INFO_OBJECT(element, "sharing the glcuda device's CUDA context "
			"%p as %" GST_PTR_FORMAT,
			(void *)glcuda_device_get_cuda_context(d->dev), ctx);
	context = gst_context_new_cuda_context(ctx);
	gst_element_post_message(element,
		gst_message_new_have_context(GST_OBJECT(element), context));
	return GST_OBJECT(ctx);
}

void *
gcf_cuda_context_get_handle(GstObject *cuda_context)
{
	return gst_cuda_context_get_handle(GST_CUDA_CONTEXT(cuda_context));
}

GstBufferPool *
gcf_cuda_pool_new(GstObject *cuda_context, GstCaps *caps, guint size,
		  guint min, guint max, gpointer stream)
{
	GstBufferPool *pool =
		gst_cuda_buffer_pool_new(GST_CUDA_CONTEXT(cuda_context));
	GstStructure *config = gst_buffer_pool_get_config(pool);

	gst_buffer_pool_config_set_params(config, caps, size, min, max);
	gst_buffer_pool_config_add_option(config,
					  GST_BUFFER_POOL_OPTION_VIDEO_META);
#if GCF_CUDA_STREAMS
	if (stream)
		gst_buffer_pool_config_set_cuda_stream(config,
						       (GstCudaStream *)stream);
#else
	(void)stream; /* no streams before 1.24 */
#endif
	if (!gst_buffer_pool_set_config(pool, config)) {
		gst_object_unref(pool);
		return NULL;
	}
	return pool;
}

gboolean
gcf_cuda_frame_map(GstVideoFrame *frame, GstBuffer *buf, GstMapFlags flags,
		   GstObject *cuda_context)
{
	GstMemory *mem = gst_buffer_n_memory(buf) == 1 ?
			 gst_buffer_peek_memory(buf, 0) : NULL;
	GstCudaMemory *cmem;

	if (!mem || !gst_is_cuda_memory(mem))
		return FALSE;
	cmem = GST_CUDA_MEMORY_CAST(mem);
	if (cmem->context != GST_CUDA_CONTEXT(cuda_context) &&
	    gst_cuda_context_get_handle(cmem->context) !=
		    gcf_cuda_context_get_handle(cuda_context))
		return FALSE;
	/* The planes' device pointers: data[p], in the memory's layout
	 * (every plane at the pitch of cuMemAllocPitch), not the caps'. A
	 * write map marks a memory with a stream as needing a sync for
	 * consumers on other streams (1.24 and later). */
	return gst_video_frame_map(frame, &cmem->info, buf,
				   (GstMapFlags)(flags | GST_MAP_CUDA));
}

#if GCF_CUDA_STREAMS
gpointer
gcf_cuda_stream_new(GstObject *cuda_context)
{
	return gst_cuda_stream_new(GST_CUDA_CONTEXT(cuda_context));
}

gpointer
gcf_cuda_stream_ref(gpointer stream)
{
	return stream ? gst_cuda_stream_ref((GstCudaStream *)stream) : NULL;
}

void
gcf_cuda_stream_unref(gpointer stream)
{
	if (stream)
		gst_cuda_stream_unref((GstCudaStream *)stream);
}

gpointer
gcf_cuda_query_stream(GstQuery *query)
{
	GstBufferPool *pool = NULL;
	GstStructure *config;
	GstCudaStream *stream;

	if (gst_query_get_n_allocation_pools(query) == 0)
		return NULL;
	gst_query_parse_nth_allocation_pool(query, 0, &pool, NULL, NULL, NULL);
	if (!pool)
		return NULL;
	config = gst_buffer_pool_get_config(pool);
	stream = gst_buffer_pool_config_get_cuda_stream(config);
	gst_structure_free(config);
	gst_object_unref(pool);
	return stream;
}

CUstream
gcf_cuda_frame_stream(const GstVideoFrame *frame)
{
	GstCudaStream *stream = gst_cuda_memory_get_stream(
		GST_CUDA_MEMORY_CAST(frame->map[0].memory));

	return stream ? gst_cuda_stream_get_handle(stream) : NULL;
}
#endif

#endif
