/*
 * glcudafilter's insides, shared by the element's files:
 * gstglcudafilter.c (the element: properties, contexts, start and stop),
 * gstglcudanegotiation.c (caps and buffer pools), gstglcudakernel.c (the
 * CUDA work it runs: the filters, the kernels of ptx-file and cubin-file,
 * their changes) and gstglcudaframe.c (one buffer: the routes of its
 * planes to CUDA, the hand-offs, the copies).
 * SPDX-License-Identifier: MIT
 */
#ifndef GST_GLCUDA_FILTER_PRIV_H
#define GST_GLCUDA_FILTER_PRIV_H

#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include "gstglcudafilter.h"
#include "gstglcudabufferpool.h"
#include "gstglcudacudamemory.h"
#include "gstglcudadevice.h"
#include "gstglcudaformat.h"
#include "filters.h"

G_BEGIN_DECLS

#define GST_CAT_DEFAULT gst_glcuda_filter_debug

/* How a frame's texture reached CUDA (input) or CUDA's result reached the
 * output texture, counted per frame in the stats property. */
enum gcf_route {
	ROUTE_POOLED, /* an image of a glcuda pool: no copy, no registration */
	ROUTE_WRAPPED, /* the texture registered with CUDA: no copy */
	ROUTE_COPIED, /* glBlitFramebuffer to or from a shared image */
	ROUTE_CUDA, /* CUDA memory: a CUDA copy to or from a shared image */
	ROUTE_COUNT,
};

/* The route property: how a GL texture that is not an image of a glcuda
 * pool reaches CUDA, or CUDA's result reaches it. */
enum gcf_texture_route {
	/* Wrapped where the driver registers the texture (the cheapest
	 * route on the H200), else copied, silently. */
	TEXTURE_ROUTE_AUTO,
	TEXTURE_ROUTE_WRAP, /* wrapped where the driver registers it */
	TEXTURE_ROUTE_COPY, /* copied through a shared image */
};


struct _GstGlcudaFilter {
	GstGLFilter parent;

	/* Properties, under the object lock. */
	enum filter_kind filter;
	gchar *ptx_file, *cubin_file, *kernel_name;
	enum gcf_texture_route route;
	/* Set when filter, ptx-file, cubin-file or kernel-name changes
	 * after the element started (object lock): the next buffer loads
	 * what they name before it is filtered, on the GL thread, as
	 * gleffects and glshader apply theirs. */
	gboolean config_pending;
	/* The device of the last glcuda.device context set on the element
	 * (by the bin or the application), or the one gl_start found or
	 * made, under the object lock: the one gl_start uses if it is of
	 * the element's GL context, and the one the element gives its
	 * neighbours' context queries. */
	struct gcf_device *context_device;
	/* The pipeline's GstCudaContext (gst.cuda.context), under the
	 * object lock: set by the bin or the application, a neighbour's, or
	 * the one the element shares (its device's CUDA context). */
	GstObject *cuda_context;
	/* CUDA memory on the sink pad, on the src pad (set_caps). */
	gboolean cuda_in, cuda_out;
	/* GStreamer 1.24 and later: the element's own GstCudaStream,
	 * proposed upstream and given to its CUDA output pool where
	 * downstream proposes none; under the object lock, released with
	 * cuda_context. */
	gpointer cuda_stream;

	/* GL thread state, from gl_start to gl_stop. */
	struct gcf_device *device;
	/* The element's own stream; work_stream: the one a frame's CUDA
	 * work runs on (stream, or for frames in CUDA memory the legacy
	 * default stream before GStreamer 1.24 and the memory's stream
	 * since: gstglcudacudamemory.h says why). order_event: orders an
	 * input on another stream (1.24 and later). */
	CUstream stream, work_stream;
	CUevent order_event;
	CUcontext cuda_ctx;
	enum filter_kind run_filter;
	CUmodule module;
	CUfunction function;
	struct filters *filters;
	uint32_t filters_width, filters_height;
	/* The built-in invert on formats other than 8-bit RGB: the element's
	 * own kernels, per format and plane (loaded for filter=invert only). */
	CUmodule kernels;
	CUfunction invert[GCF_N_FORMATS][GCF_MAX_PLANES];
	/* The copy path's shared images (per plane) and framebuffers. */
	struct glcuda_image *stage_in[GCF_MAX_PLANES],
		*stage_out[GCF_MAX_PLANES];
	guint fbo[2];
	/* The routes of the last frame, logged when they change. */
	int logged_routes;
	/* route=wrap copied a texture the driver does not register: said
	 * once (a warning) since gl_start. */
	gboolean said_no_wrap;
	guint64 frames;
	/* Per-frame timings (GST_LEVEL_DEBUG): events around the CUDA work
	 * of the last timed frame, read one frame later, without waiting. */
	CUevent gpu_start, gpu_end;
	gboolean gpu_timed, gpu_pending;
	guint64 gpu_frame;

	/* Frames by route since gl_start, under the object lock (read by
	 * the stats property from any thread). */
	guint64 stat_frames;
	guint64 stat_in[ROUTE_COUNT], stat_out[ROUTE_COUNT];
};

/* One frame's planes as CUDA sees them, and how each got there. */
struct gcf_frame {
	const struct gcf_format *fmt;
	guint n;
	/* The route property as the frame started. */
	enum gcf_texture_route route;
	/* The buffers' memories, one per plane; NULL on a pad of CUDA
	 * memory, whose frame is mapped in cuda_in or cuda_out (each
	 * plane's device pointer and pitch). */
	GstGLMemory *mem_in[GCF_MAX_PLANES], *mem_out[GCF_MAX_PLANES];
	GstVideoFrame *cuda_in, *cuda_out;
	uint32_t w[GCF_MAX_PLANES], h[GCF_MAX_PLANES];
	struct glcuda_image *in[GCF_MAX_PLANES], *out[GCF_MAX_PLANES];
	enum gcf_route in_routes[GCF_MAX_PLANES], out_routes[GCF_MAX_PLANES];
	/* The frame's routes: the costliest of its planes'. */
	enum gcf_route in_route, out_route;
	/* FALSE: only the input goes to CUDA and back ("none" on the copy
	 * path), GL copies it into the output. */
	gboolean hand_out;
};

/* The errors of the element's GL-thread work: the code is the glcuda
 * error (or -errno) that failed, the message what failed and what to do. */
#define GCF_ERROR (gcf_error_quark())
GQuark gcf_error_quark(void);

/* Sets *error (ret, or -EINVAL if @ret is not an error); returns its code. */
int gcf_set_error(GError **error, int ret, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);

/* gstglcudanegotiation.c: whether the configured filter runs on @fmt; if
 * not, why not in *why. Object lock held. */
gboolean gcf_format_allowed(GstGlcudaFilter *self,
			    const struct gcf_format *fmt, const char **why);

/* Whether a pad can carry GStreamer's CUDA memory (gstreamer-cuda-1.0). */
#ifdef HAVE_GST_CUDA
#define GCF_CUDA_PADS TRUE
#else
#define GCF_CUDA_PADS FALSE
#endif

/* gstglcudasharing.c: what the element shares through GstContext. */
/* @d (a new reference) as the device the element gives its neighbours. */
void gcf_keep_device(GstGlcudaFilter *self, struct gcf_device *d);
/* GL thread: the glcuda device of @gl, shared as GstGL shares its
 * display: one set on the element, else a neighbour's (context query),
 * else one the bin or the application gives (need-context message), else
 * a new one, offered to them (have-context message). With CUDA memory on
 * a pad and a GstCudaContext in the pipeline, only a device on that
 * context's CUcontext will do. On failure: NULL, with the glcuda error in
 * *ret and its message in @msg. */
struct gcf_device *gcf_acquire_device(GstGlcudaFilter *self,
				      GstGLContext *gl, int *ret, char *msg,
				      size_t size);
/* A context query for glcuda.device or gst.cuda.context answered with
 * what the element holds: TRUE if it answered. */
gboolean gcf_answer_context_query(GstGlcudaFilter *self, GstQuery *query);

#ifdef HAVE_GST_CUDA
/* @ctx (the reference is taken) as the pipeline's GstCudaContext, unless
 * the element has one already (then @ctx is dropped). */
void gcf_keep_cuda_context(GstGlcudaFilter *self, GstObject *ctx);
/* Streaming thread, CUDA memory on a pad, before gl_start: GStreamer's
 * CUDA library loaded and the pipeline's GstCudaContext, if it has one.
 * FALSE (an element error posted) without the library. */
gboolean gcf_prepare_cuda(GstGlcudaFilter *self);
/* GL thread, the device made: without a GstCudaContext in the pipeline,
 * the device's own CUDA context is shared as one. FALSE (an element
 * error posted) if GStreamer's CUDA library refuses it. */
gboolean gcf_share_cuda_context(GstGlcudaFilter *self);

/* A reference to the pipeline's GstCudaContext the element holds, NULL
 * if it holds none (yet). */
GstObject *gcf_pipeline_cuda_context(GstGlcudaFilter *self);
#endif

/* gstglcudanegotiation.c: GstBaseTransform's negotiation and allocation
 * of the element. */
GstCaps *gst_glcuda_filter_transform_caps(GstBaseTransform *trans,
					  GstPadDirection direction,
					  GstCaps *caps, GstCaps *filter);
gboolean gst_glcuda_filter_set_caps(GstBaseTransform *trans,
				    GstCaps *incaps, GstCaps *outcaps);
gboolean gst_glcuda_filter_propose_allocation(GstBaseTransform *trans,
					      GstQuery *decide_query,
					      GstQuery *query);
gboolean gst_glcuda_filter_decide_allocation(GstBaseTransform *trans,
					     GstQuery *query);

/* The formats the configured filter runs on, bit i for gcf_formats[i].
 * Object lock held. */
guint gcf_formats_allowed(GstGlcudaFilter *self);

/* Upstream asked to renegotiate: the filter now runs on @formats. */
void gcf_renegotiate(GstGlcudaFilter *self, guint formats);

/* gstglcudakernel.c */

/* Why the kernel properties cannot run as set (a new string), NULL if
 * they can. Object lock held. */
gchar *gcf_config_check(GstGlcudaFilter *self);

/* The CUDA context current: waits on the CPU for the element's CUDA work
 * (at a change of kernel and at the stop only). */
void gcf_sync_streams(GstGlcudaFilter *self);

/* GL thread, the CUDA context current: makes the CUDA work of @filter,
 * or of kernel @name in @path (ptx-file or cubin-file), what the element
 * runs from the next frame on. On failure it keeps what it ran. */
int gcf_load_config(GstGlcudaFilter *self, enum filter_kind filter,
		    const char *path, const char *name, GError **error);

/* Before a frame: the kernel properties changed since the last one
 * loaded. FALSE (an element error posted) if they cannot run. */
gboolean gcf_apply_config(GstGlcudaFilter *self,
			  const struct gcf_format *fmt);

/* GL thread, images handed to CUDA: the CUDA work of one frame, every
 * plane of @fmt (w[p] x h[p] texels) from in[p] to out[p]. */
int gcf_run_cuda(GstGlcudaFilter *self, const struct gcf_format *fmt,
		 struct glcuda_image *const *in,
		 struct glcuda_image *const *out, const uint32_t *w,
		 const uint32_t *h, GError **error);

/* GL thread, around a frame's CUDA work: GPU timings (GST_LEVEL_DEBUG),
 * read one frame later, never waited for. */
void gcf_gpu_timing_start(GstGlcudaFilter *self);
void gcf_gpu_timing_end(GstGlcudaFilter *self);

/* gstglcudaframe.c: GL thread, one buffer, the planes of f->mem_in (or
 * f->cuda_in) to f->mem_out (or f->cuda_out). */
int gcf_process(GstGlcudaFilter *self, struct gcf_frame *f, GError **error);

G_END_DECLS

#endif
