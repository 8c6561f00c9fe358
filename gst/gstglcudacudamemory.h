/*
 * glcudafilter's CUDAMemory pads: frames in GStreamer's CUDA memory
 * (gstreamer-cuda-1.0's GstCudaMemory, what nvcodec's elements take and
 * give) on either pad, the other pad GL memory. Built where configure
 * finds gstreamer-cuda-1.0 (HAVE_GST_CUDA).
 *
 * One CUDA context for the whole pipeline: the element takes the
 * GstCudaContext its neighbours, the bin or the application share
 * ("gst.cuda.context", as nvcodec's elements do) and makes its glcuda
 * device on that context; where none is shared, it shares its device's
 * own. A frame crosses between a glcuda shared image's CUDA array and the
 * CUDA memory with one device-side copy per plane (cuMemcpy2DAsync).
 *
 * The order of work on GStreamer 1.22, where GstCudaMemory carries no
 * stream: every producer and consumer of CUDA memory in 1.22's nvcodec
 * (cudaupload, cudadownload, cudaconvert, cudascale, the encoders and
 * decoders) works on the legacy default stream or on a blocking stream
 * of the shared context (made with CU_STREAM_DEFAULT), and the legacy
 * default stream is ordered after all earlier work on every blocking
 * stream of the context and before all later work on them. The frames
 * with CUDA memory on a pad therefore run their CUDA work (the hand-offs,
 * the filter, the copies) on the legacy default stream: what downstream
 * enqueues after the push waits for it on the GPU, and what upstream
 * enqueued before the push is done before it starts. No CPU wait.
 *
 * Since GStreamer 1.24 a GstCudaMemory carries the stream of its producer
 * (a GstCudaStream, non-blocking, which the legacy default stream does not
 * order), and nvcodec's elements propose and take pools whose memory has a
 * stream. Built against 1.24 or later (GCF_CUDA_STREAMS), the element
 * takes downstream's stream for its CUDA memory out (the pool downstream
 * proposes; its own stream where downstream proposes none), proposes its
 * own stream upstream, and runs a frame's CUDA work on the output memory's
 * stream, else the input's, else its own: a consumer on that stream needs
 * no wait, and one on another stream synchronises the memory, as 1.24's
 * consumers do (the write map marks it). An input on another stream is
 * ordered on the GPU both ways (an event: the work after its producer's,
 * the producer's later work after the element's reads). No CPU wait, but
 * where an output memory has no stream (its consumers assume none).
 * SPDX-License-Identifier: MIT
 */
#ifndef GST_GLCUDA_CUDA_MEMORY_H
#define GST_GLCUDA_CUDA_MEMORY_H

#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstglcudadevice.h"

G_BEGIN_DECLS

/* The caps feature of GstCudaMemory (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY),
 * written here so that the element's caps name it with or without the
 * library. */
#define GCF_CAPS_FEATURE_CUDA_MEMORY "memory:CUDAMemory"

/* Whether the first structure of @caps has the CUDAMemory feature. */
gboolean gcf_caps_are_cuda(const GstCaps *caps);

#ifdef HAVE_GST_CUDA

/* Whether GStreamer's CUDA memory carries streams (1.24 and later). */
#define GCF_CUDA_STREAMS GST_CHECK_VERSION(1, 24, 0)

/* The stream the frames with CUDA memory run their CUDA work on (the
 * legacy default stream: see above), before 1.24. */
#define GCF_CUDA_MEMORY_STREAM ((CUstream)0)

/* Whether GStreamer's CUDA library loaded the driver (it loads
 * libcuda.so.1 itself, not through glcuda); if not, why, in msg. */
gboolean gcf_cuda_library_check(char *msg, size_t size);

/* @context if it is a gst.cuda.context: its GstCudaContext kept in
 * *cuda_context (a reference; one already there is kept) and TRUE. */
gboolean gcf_cuda_set_context(GstElement *element, GstContext *context,
			      GstObject **cuda_context);

/* Answers a context query for gst.cuda.context with @cuda_context. */
gboolean gcf_cuda_handle_query(GstElement *element, GstQuery *query,
			       GstObject *cuda_context);

/* The pipeline's GstCudaContext, if one is shared: a context query to
 * the neighbours, then a need-context message (the bin and the
 * application answer through set_context, which fills *cuda_context).
 * Streaming thread, not the GL thread. */
void gcf_cuda_context_find(GstElement *element, GstObject **cuda_context);

/* The GstCudaContext of @d's own CUDA context (a new reference; it keeps
 * a reference to @d), posted to the bin and the application in a
 * have-context message so that the pipeline's CUDA elements use it. NULL
 * if GStreamer's CUDA library refuses it. */
GstObject *gcf_cuda_context_share(GstElement *element, struct gcf_device *d);

/* The CUcontext of a GstCudaContext (for gcf_device_new). */
void *gcf_cuda_context_get_handle(GstObject *cuda_context);

/* A pool of GstCudaMemory buffers of @caps on @cuda_context, configured,
 * its memory on @stream (a GstCudaStream; NULL: none, and always NULL
 * before 1.24); NULL if the library refuses the configuration. */
GstBufferPool *gcf_cuda_pool_new(GstObject *cuda_context, GstCaps *caps,
				 guint size, guint min, guint max,
				 gpointer stream);

#if GCF_CUDA_STREAMS
#include <glcuda/glcuda-cuda.h>

/* A new GstCudaStream of @cuda_context (NULL if the library cannot make
 * one), and its release. */
gpointer gcf_cuda_stream_new(GstObject *cuda_context);
/* A new reference to @stream (NULL for NULL), and its release. */
gpointer gcf_cuda_stream_ref(gpointer stream);
void gcf_cuda_stream_unref(gpointer stream);

/* The GstCudaStream of the pool @query's first pool is configured with
 * (downstream's proposal), a new reference; NULL if none. */
gpointer gcf_cuda_query_stream(GstQuery *query);

/* The CUstream of the memory of @frame (mapped by gcf_cuda_frame_map);
 * NULL if the memory has none. */
CUstream gcf_cuda_frame_stream(const GstVideoFrame *frame);
#endif

/* @buf (one GstCudaMemory holding every plane) mapped for CUDA: each
 * plane's device pointer in frame->data[p], its pitch in the frame's
 * strides. FALSE if @buf is not CUDA memory of @cuda_context's CUcontext
 * or cannot be mapped. Nothing waits: the caller orders its work after
 * the memory's stream (1.24 and later). */
gboolean gcf_cuda_frame_map(GstVideoFrame *frame, GstBuffer *buf,
			    GstMapFlags flags, GstObject *cuda_context);

#endif

G_END_DECLS

#endif
