/*
 * glcudafilter: runs a CUDA filter on GL textures (RGBA, BGRA, RGBx, BGRx,
 * RGB10A2_LE, and NV12, I420 and P010_10LE as one texture per plane), in
 * GStreamer's GL pipeline, through glcuda's public API.
 * SPDX-License-Identifier: MIT
 *
 * One glcuda_device per GstGLContext, made on that context's GL thread
 * and shared by every glcudafilter on the context (a device costs a
 * Vulkan device and a CUDA context: one is enough). Per buffer, on the GL
 * thread: every plane of the input and output is an image in CUDA's
 * sight, handed to CUDA on the element's stream, all planes of both in
 * one hand-off, filtered, and handed back.
 *
 * The element offers upstream, through the allocation query, a buffer
 * pool whose GstGLMemory textures are those of glcuda shared images
 * (GstGlcudaBufferPool), and uses such a pool for its own output: a
 * frame in one of them goes to CUDA as the image it is, with neither a
 * registration nor a copy, on any driver.
 *
 * Any other texture takes the route the route property names. By
 * default (auto) and with route=wrap it is wrapped with
 * glcuda_image_wrap_gl_texture() (once per memory: the wrap is kept on
 * the memory as qdata and dropped just before the memory deletes its
 * texture) and mapped and unmapped at each hand-off: on the H200 the
 * cheapest route, a first filter within about 10 % of a later one. Where
 * the driver refuses to register it (no GL interop, as the fake driver of
 * the tests; formats CUDA cannot register), and always with route=copy,
 * it is copied into (or out of) a glcuda shared image of the element with
 * glBlitFramebuffer on the GPU, which then goes to CUDA as a pooled image
 * does; route=wrap says so once in the log. doc/gstreamer.md has what
 * each route cost on the H200, and bench/gst-bench.sh measures them.
 *
 * This file is the element (properties, start and stop, queries and
 * state); beside it: gstglcudasharing.c (the device and the CUDA context
 * it shares with its neighbours through GstContext),
 * gstglcudanegotiation.c (caps and buffer pools),
 * gstglcudakernel.c (the CUDA work it runs), gstglcudaframe.c (one
 * buffer's routes, hand-offs and copies), gstglcudafilterpriv.h (what
 * those four share),
 * gstglcudadevice.c (the device of each GL context, shared through
 * GstContext), gstglcudacudamemory.c (CUDAMemory pads and the pipeline's
 * CUDA context), gstglcudaformat.c (the formats and the wraps of
 * GstGLMemory), gstglcudabufferpool.c (the pool), gstglcudadisplay.c (the
 * default GL display) and gstglcudaplugin.c (the plugin's registration).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>

#include "gstglcudafilterpriv.h"
#include "gstglcudadisplay.h"

GST_DEBUG_CATEGORY(gst_glcuda_filter_debug);


enum {
	PROP_0,
	PROP_FILTER,
	PROP_PTX_FILE,
	PROP_CUBIN_FILE,
	PROP_KERNEL_NAME,
	PROP_ROUTE,
	PROP_STATS,
};

G_DEFINE_TYPE(GstGlcudaFilter, gst_glcuda_filter, GST_TYPE_GL_FILTER);
GST_ELEMENT_REGISTER_DEFINE(glcudafilter, "glcudafilter", GST_RANK_NONE,
			    GST_TYPE_GLCUDA_FILTER);

#define GST_TYPE_GLCUDA_FILTER_KIND (gst_glcuda_filter_kind_get_type())
static GType
gst_glcuda_filter_kind_get_type(void)
{
	static GType type;
	static const GEnumValue values[] = {
		{ FILTER_NONE, "Copy the input to the output", "none" },
		{ FILTER_INVERT, "Invert the colours", "invert" },
		{ FILTER_BLUR, "Separable Gaussian blur", "blur" },
		{ FILTER_UNSHARP, "Unsharp mask", "unsharp" },
		{ FILTER_GRADE, "Warm 3D-LUT colour grade", "grade" },
		{ 0, NULL, NULL },
	};

	if (g_once_init_enter(&type)) {
		GType t = g_enum_register_static("GstGlcudaFilterKind", values);
		g_once_init_leave(&type, t);
	}
	return type;
}

#define GST_TYPE_GLCUDA_FILTER_ROUTE (gst_glcuda_filter_route_get_type())
static GType
gst_glcuda_filter_route_get_type(void)
{
	static GType type;
	static const GEnumValue values[] = {
		{ TEXTURE_ROUTE_AUTO,
		  "Wrap where the driver registers the texture, else copy",
		  "auto" },
		{ TEXTURE_ROUTE_WRAP,
		  "Wrap: register the texture with CUDA, map and unmap it "
		  "every frame (copy where the driver refuses)",
		  "wrap" },
		{ TEXTURE_ROUTE_COPY,
		  "Copy: glBlitFramebuffer into (out of) a shared image of "
		  "the element",
		  "copy" },
		{ 0, NULL, NULL },
	};

	if (g_once_init_enter(&type)) {
		GType t = g_enum_register_static("GstGlcudaFilterRoute",
						 values);
		g_once_init_leave(&type, t);
	}
	return type;
}

/* The formats of gcf_formats, 2D textures only: what glcuda wraps and
 * shares on GL and GLES alike. Anything else fails negotiation, and so do
 * the formats the configured filter does not run on (transform_caps). */
#define GLCUDA_FILTER_FORMATS \
	"{ RGBA, RGB10A2_LE, NV12, P010_10LE, BGRA, BGRx, RGBx, I420 }"
#define GLCUDA_FILTER_GL_CAPS \
	"video/x-raw(" GST_CAPS_FEATURE_MEMORY_GL_MEMORY "), " \
	"format = (string) " GLCUDA_FILTER_FORMATS ", " \
	"width = " GST_VIDEO_SIZE_RANGE ", " \
	"height = " GST_VIDEO_SIZE_RANGE ", " \
	"framerate = " GST_VIDEO_FPS_RANGE ", " \
	"texture-target = (string) 2D"
/* GStreamer's CUDA memory, the same formats, on either pad while the
 * other is GL memory (transform_caps). */
#ifdef HAVE_GST_CUDA
#define GLCUDA_FILTER_CAPS GLCUDA_FILTER_GL_CAPS "; " \
	"video/x-raw(" GCF_CAPS_FEATURE_CUDA_MEMORY "), " \
	"format = (string) " GLCUDA_FILTER_FORMATS ", " \
	"width = " GST_VIDEO_SIZE_RANGE ", " \
	"height = " GST_VIDEO_SIZE_RANGE ", " \
	"framerate = " GST_VIDEO_FPS_RANGE
#else
#define GLCUDA_FILTER_CAPS GLCUDA_FILTER_GL_CAPS
#endif

/* The metadata's author: a name and where to write (the bug tracker of
 * configure.ac's AC_INIT, the one place it is written). */
#define GCF_AUTHOR PACKAGE_NAME " maintainers <" PACKAGE_BUGREPORT ">"

static GstStaticPadTemplate sink_template =
	GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
				GST_STATIC_CAPS(GLCUDA_FILTER_CAPS));
static GstStaticPadTemplate src_template =
	GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
				GST_STATIC_CAPS(GLCUDA_FILTER_CAPS));

static void
log_device(GstGlcudaFilter *self)
{
	const struct glcuda_caps *caps =
		glcuda_device_get_caps(self->device->dev);

	GST_INFO_OBJECT(self,
			"glcuda %s device: GL %s (%s), CUDA device %d \"%s\", "
			"sync mode %s",
			glcuda_get_version(), caps->gl_version,
			caps->gl_renderer, caps->cuda_ordinal,
			caps->cuda_device_name,
			glcuda_sync_mode_get_name(caps->sync_mode));
	GST_DEBUG_OBJECT(
		self,
		"wrapped GL textures %s; hand-offs of wrapped textures %s "
		"the CPU, of shared images (the copy path) %s",
		caps->image_kinds_supported &
				(1u << GLCUDA_IMAGE_KIND_GL_TEXTURE)
			? "supported"
			: "not supported (copy path)",
		caps->image_kinds_cpu_wait &
				(1u << GLCUDA_IMAGE_KIND_GL_TEXTURE)
			? "wait on"
			: "never wait on",
		caps->image_kinds_cpu_wait & (1u << GLCUDA_IMAGE_KIND_SHARED)
			? "wait on the CPU (cpu sync mode)"
			: "do not wait on the CPU");
}

static void
stop_gl(GstGlcudaFilter *self)
{
	const GstGLFuncs *gl = GST_GL_BASE_FILTER(self)->context->gl_vtable;

	if (self->device && self->cuda_ctx &&
	    CU(cuCtxPushCurrent)(self->cuda_ctx) == CUDA_SUCCESS) {
		CUcontext dummy;

		/* The stream's last kernels may still read the images. */
		if (self->stream)
			gcf_sync_streams(self);
		filters_destroy(self->filters);
		if (self->module)
			CU(cuModuleUnload)(self->module);
		if (self->kernels)
			CU(cuModuleUnload)(self->kernels);
		if (self->gpu_pending) {
			float ms;

			/* The last timed frame's, the stream synchronised. */
			if (CU(cuEventElapsedTime)(&ms, self->gpu_start,
						   self->gpu_end) ==
			    CUDA_SUCCESS)
				GST_DEBUG_OBJECT(self,
						 "frame %" G_GUINT64_FORMAT
						 ": CUDA work "
						 "%.3f ms on the GPU",
						 self->gpu_frame, (double)ms);
		}
		if (self->gpu_start)
			CU(cuEventDestroy)(self->gpu_start);
		if (self->gpu_end)
			CU(cuEventDestroy)(self->gpu_end);
		if (self->order_event)
			CU(cuEventDestroy)(self->order_event);
		if (self->stream)
			CU(cuStreamDestroy)(self->stream);
		CU(cuCtxPopCurrent)(&dummy);
	}
	self->filters = NULL;
	self->filters_width = self->filters_height = 0;
	self->module = NULL;
	self->function = NULL;
	self->kernels = NULL;
	memset(self->invert, 0, sizeof(self->invert));
	self->gpu_start = self->gpu_end = self->order_event = NULL;
	self->gpu_timed = self->gpu_pending = FALSE;
	self->stream = self->work_stream = NULL;
	self->cuda_ctx = NULL;
	for (guint p = 0; p < GCF_MAX_PLANES; p++) {
		glcuda_image_destroy(self->stage_in[p]);
		glcuda_image_destroy(self->stage_out[p]);
		self->stage_in[p] = self->stage_out[p] = NULL;
	}
	if (self->fbo[0])
		gl->DeleteFramebuffers(2, self->fbo);
	self->fbo[0] = self->fbo[1] = 0;
	gcf_device_unref(self->device);
	self->device = NULL;
}

/* GL thread, from GstGLBaseFilter when it has a context. */
static gboolean
gst_glcuda_filter_gl_start(GstGLBaseFilter *base)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(base);
	gchar *path, *name, *why;
	enum filter_kind filter;
	char msg[1024], buf[256];
	GError *error = NULL;
	CUcontext dummy;
	CUresult res;
	int ret = 0;

	if (!GST_GL_BASE_FILTER_CLASS(gst_glcuda_filter_parent_class)
		     ->gl_start(base))
		return FALSE;

	GST_OBJECT_LOCK(self);
	path = g_strdup(self->ptx_file ? self->ptx_file : self->cubin_file);
	name = g_strdup(self->kernel_name);
	filter = self->filter;
	why = gcf_config_check(self);
	self->config_pending = FALSE;
	GST_OBJECT_UNLOCK(self);
	if (why) {
		/* Checked going to PAUSED too; set again since. */
		GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("%s", why),
				  (NULL));
		g_free(why);
		goto fail;
	}

	self->frames = 0;
	self->logged_routes = -1;
	self->said_no_wrap = FALSE;
	GST_OBJECT_LOCK(self);
	self->stat_frames = 0;
	memset(self->stat_in, 0, sizeof(self->stat_in));
	memset(self->stat_out, 0, sizeof(self->stat_out));
	GST_OBJECT_UNLOCK(self);
	self->device = gcf_acquire_device(self, base->context, &ret, msg,
				      sizeof(msg));
	if (!self->device) {
		GST_ELEMENT_ERROR(
			self, RESOURCE, NOT_FOUND,
			("No usable CUDA device for this GL context: %s (%s)",
			 glcuda_strerror(ret), glcuda_error_get_name(ret)),
			("%s", msg));
		goto fail;
	}
	log_device(self);
#ifdef HAVE_GST_CUDA
	if ((self->cuda_in || self->cuda_out) && !gcf_share_cuda_context(self))
		goto fail;
#endif
	/* The device loaded the driver; the element's own calls (stream,
	 * modules, launches) go through the tools' table of it. */
	if (tools_cuda_load(msg, sizeof(msg)) < 0) {
		GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND,
				  ("No usable CUDA driver: %s", msg), (NULL));
		goto fail;
	}
	self->cuda_ctx = glcuda_device_get_cuda_context(self->device->dev);
	res = CU(cuCtxPushCurrent)(self->cuda_ctx);
	if (res != CUDA_SUCCESS) {
		self->cuda_ctx = NULL;
		GST_ELEMENT_ERROR(self, RESOURCE, FAILED,
				  ("cuCtxPushCurrent: %s",
				   tools_cuda_result(res, buf, sizeof(buf))),
				  (NULL));
		goto fail;
	}
	/* Non-blocking: the stream must not wait for other work on the
	 * legacy NULL stream of the process. */
	res = CU(cuStreamCreate)(&self->stream, CU_STREAM_NON_BLOCKING);
	self->work_stream = self->stream;
	if (res != CUDA_SUCCESS) {
		self->stream = self->work_stream = NULL;
		gcf_set_error(&error, GLCUDA_ERROR_CUDA, "cuStreamCreate: %s",
			  tools_cuda_result(res, buf, sizeof(buf)));
	} else {
		gcf_load_config(self, filter, path, name, &error);
	}
	CU(cuCtxPopCurrent)(&dummy);
	if (error) {
		GST_ELEMENT_ERROR(self, RESOURCE, FAILED,
				  ("%s", error->message),
				  ("glcuda error %s",
				   glcuda_error_get_name(error->code)));
		g_error_free(error);
		goto fail;
	}
	g_free(path);
	g_free(name);
	return TRUE;

fail:
	stop_gl(self);
	g_free(path);
	g_free(name);
	GST_GL_BASE_FILTER_CLASS(gst_glcuda_filter_parent_class)->gl_stop(base);
	return FALSE;
}

static void
gst_glcuda_filter_gl_stop(GstGLBaseFilter *base)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(base);

	GST_DEBUG_OBJECT(self, "stopping after %" G_GUINT64_FORMAT " frames",
			 self->frames);
	stop_gl(self);
	GST_GL_BASE_FILTER_CLASS(gst_glcuda_filter_parent_class)->gl_stop(base);
}

/* @buf mapped for GL (each plane's GstGLMemory) or, with @cuda, for CUDA
 * (each plane's device pointer; the memory of the pipeline's CUDA
 * context). */
static gboolean
map_frame(GstGlcudaFilter *self, GstVideoFrame *frame, GstVideoInfo *info,
	  GstBuffer *buf, gboolean cuda, GstMapFlags flags)
{
#ifdef HAVE_GST_CUDA
	GstObject *ctx = NULL;
	gboolean mapped;

	if (cuda) {
		ctx = gcf_pipeline_cuda_context(self);
		mapped = ctx && gcf_cuda_frame_map(frame, buf, flags, ctx);
		if (ctx)
			gst_object_unref(ctx);
		return mapped;
	}
#endif
	return !cuda && gst_video_frame_map(frame, info, buf,
					    (GstMapFlags)(flags | GST_MAP_GL));
}

/* GstGLFilter calls it on the GL thread: every plane's GstGLMemory
 * (GstGLFilter's own filter() hands on the first plane only). */
static gboolean
gst_glcuda_filter_filter(GstGLFilter *filter, GstBuffer *inbuf,
			 GstBuffer *outbuf)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(filter);
	const struct gcf_format *fmt =
		gcf_format_find(GST_VIDEO_INFO_FORMAT(&filter->in_info));
	GstVideoFrame in_frame, out_frame;
	struct gcf_frame f = { .fmt = fmt };
	GError *error = NULL;
	guint p;

	/* Negotiation allows nothing else: the same format both sides. */
	if (!fmt || GST_VIDEO_INFO_FORMAT(&filter->out_info) != fmt->video) {
		GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
				  ("Unexpected formats %s -> %s",
				   GST_VIDEO_INFO_NAME(&filter->in_info),
				   GST_VIDEO_INFO_NAME(&filter->out_info)),
				  (NULL));
		return FALSE;
	}
	if (!gcf_apply_config(self, fmt))
		return FALSE;
	if (!map_frame(self, &in_frame, &filter->in_info, inbuf,
		       self->cuda_in, GST_MAP_READ)) {
		GST_ELEMENT_ERROR(self, RESOURCE, READ,
				  ("Cannot map the input buffer as %s",
				   self->cuda_in ? "CUDA memory of the "
				   "pipeline's CUDA context" : "GL memory"),
				  (NULL));
		return FALSE;
	}
	if (!map_frame(self, &out_frame, &filter->out_info, outbuf,
		       self->cuda_out, GST_MAP_WRITE)) {
		gst_video_frame_unmap(&in_frame);
		GST_ELEMENT_ERROR(self, RESOURCE, WRITE,
				  ("Cannot map the output buffer as %s",
				   self->cuda_out ? "CUDA memory of the "
				   "pipeline's CUDA context" : "GL memory"),
				  (NULL));
		return FALSE;
	}
	f.n = fmt->n_planes;
	GST_OBJECT_LOCK(self);
	f.route = self->route;
	GST_OBJECT_UNLOCK(self);
	f.cuda_in = self->cuda_in ? &in_frame : NULL;
	f.cuda_out = self->cuda_out ? &out_frame : NULL;
	for (p = 0; p < f.n; p++) {
		if ((!f.cuda_in && !gst_is_gl_memory(in_frame.map[p].memory)) ||
		    (!f.cuda_out &&
		     !gst_is_gl_memory(out_frame.map[p].memory))) {
			gcf_set_error(&error, -EINVAL,
				      "plane %u is not GL memory", p);
			break;
		}
		if (!f.cuda_in)
			f.mem_in[p] =
				GST_GL_MEMORY_CAST(in_frame.map[p].memory);
		if (!f.cuda_out)
			f.mem_out[p] =
				GST_GL_MEMORY_CAST(out_frame.map[p].memory);
	}
	if (!error)
		gcf_process(self, &f, &error);
	gst_video_frame_unmap(&out_frame);
	gst_video_frame_unmap(&in_frame);
	if (error) {
		GST_ELEMENT_ERROR(self, STREAM, FAILED,
				  ("CUDA filter failed: %s", error->message),
				  ("glcuda error %s",
				   glcuda_error_get_name(error->code)));
		g_error_free(error);
		return FALSE;
	}
	return TRUE;
}


static void
gst_glcuda_filter_set_property(GObject *object, guint prop_id,
			       const GValue *value, GParamSpec *pspec)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(object);
	guint before, after;

	if (prop_id == PROP_ROUTE) {
		/* The next frame takes it: nothing to load or renegotiate. */
		GST_OBJECT_LOCK(self);
		self->route = (enum gcf_texture_route)g_value_get_enum(value);
		GST_OBJECT_UNLOCK(self);
		return;
	}
	GST_OBJECT_LOCK(self);
	before = gcf_formats_allowed(self);
	switch (prop_id) {
	case PROP_FILTER:
		self->filter = (enum filter_kind)g_value_get_enum(value);
		break;
	case PROP_PTX_FILE:
		g_free(self->ptx_file);
		self->ptx_file = g_value_dup_string(value);
		break;
	case PROP_CUBIN_FILE:
		g_free(self->cubin_file);
		self->cubin_file = g_value_dup_string(value);
		break;
	case PROP_KERNEL_NAME:
		g_free(self->kernel_name);
		self->kernel_name = g_value_dup_string(value);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
		break;
	}
	self->config_pending = TRUE;
	after = gcf_formats_allowed(self);
	GST_OBJECT_UNLOCK(self);
	if (before != after)
		gcf_renegotiate(self, after);
}

static void
gst_glcuda_filter_get_property(GObject *object, guint prop_id, GValue *value,
			       GParamSpec *pspec)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(object);

	GST_OBJECT_LOCK(self);
	switch (prop_id) {
	case PROP_FILTER:
		g_value_set_enum(value, (gint)self->filter);
		break;
	case PROP_PTX_FILE:
		g_value_set_string(value, self->ptx_file);
		break;
	case PROP_CUBIN_FILE:
		g_value_set_string(value, self->cubin_file);
		break;
	case PROP_KERNEL_NAME:
		g_value_set_string(value, self->kernel_name);
		break;
	case PROP_ROUTE:
		g_value_set_enum(value, (gint)self->route);
		break;
	case PROP_STATS:
		g_value_take_boxed(
			value,
			gst_structure_new(
				"glcudafilter-stats", "frames", G_TYPE_UINT64,
				self->stat_frames, "input-pooled",
				G_TYPE_UINT64, self->stat_in[ROUTE_POOLED],
				"input-wrapped", G_TYPE_UINT64,
				self->stat_in[ROUTE_WRAPPED], "input-copied",
				G_TYPE_UINT64, self->stat_in[ROUTE_COPIED],
				"output-pooled", G_TYPE_UINT64,
				self->stat_out[ROUTE_POOLED], "output-wrapped",
				G_TYPE_UINT64, self->stat_out[ROUTE_WRAPPED],
				"output-copied", G_TYPE_UINT64,
				self->stat_out[ROUTE_COPIED], "input-cuda",
				G_TYPE_UINT64, self->stat_in[ROUTE_CUDA],
				"output-cuda", G_TYPE_UINT64,
				self->stat_out[ROUTE_CUDA], NULL));
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
		break;
	}
	GST_OBJECT_UNLOCK(self);
}

static gboolean
gst_glcuda_filter_query(GstBaseTransform *trans, GstPadDirection direction,
			GstQuery *query)
{
	const gchar *type;

	if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT &&
	    gst_query_parse_context_type(query, &type) &&
	    g_strcmp0(type, GST_GL_DISPLAY_CONTEXT_TYPE) == 0)
		gcf_offer_default_display(GST_GL_BASE_FILTER(trans));
	if (gcf_answer_context_query(GST_GLCUDA_FILTER(trans), query))
		return TRUE;
	return GST_BASE_TRANSFORM_CLASS(gst_glcuda_filter_parent_class)
		->query(trans, direction, query);
}

static GstStateChangeReturn
gst_glcuda_filter_change_state(GstElement *element, GstStateChange transition)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(element);
	struct gcf_device *old;
	GstStateChangeReturn ret;
	GstObject *cuda;

	if (transition == GST_STATE_CHANGE_NULL_TO_READY)
		gcf_offer_default_display(GST_GL_BASE_FILTER(self));
	if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
		gchar *why;

		/* Kernel properties that cannot run: refused before the
		 * stream starts, with the reason. */
		GST_OBJECT_LOCK(self);
		why = gcf_config_check(self);
		GST_OBJECT_UNLOCK(self);
		if (why) {
			GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("%s", why),
					  (NULL));
			g_free(why);
			return GST_STATE_CHANGE_FAILURE;
		}
	}
	ret = GST_ELEMENT_CLASS(gst_glcuda_filter_parent_class)->change_state(
		element, transition);
	if (transition == GST_STATE_CHANGE_READY_TO_NULL) {
		/* The GL context goes with NULL: so do its device and the
		 * pipeline's CUDA context. */
		GST_OBJECT_LOCK(self);
		old = self->context_device;
		self->context_device = NULL;
		cuda = self->cuda_context;
		self->cuda_context = NULL;
#if defined(HAVE_GST_CUDA) && GCF_CUDA_STREAMS
		gcf_cuda_stream_unref(self->cuda_stream);
		self->cuda_stream = NULL;
#endif
		GST_OBJECT_UNLOCK(self);
		gcf_device_unref(old);
		if (cuda)
			gst_object_unref(cuda);
	}
	return ret;
}

/*
 * A glcuda.device context is kept for gl_start (unless it carries a
 * device of another GL context than the element's), and GstElement's own
 * set_context stores it; GstGLBaseFilter takes the others (display, GL
 * context). Not through GstGLBaseFilter's: it takes a lock that its
 * streaming thread holds while gl_start runs, and gl_start asks the bin
 * for a device (the bin sets it from gl_start's thread).
 */
static void
gst_glcuda_filter_set_context(GstElement *element, GstContext *context)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(element);
	struct gcf_device *d = gcf_device_from_context(context, NULL, NULL);
	GstElementClass *element_class = g_type_class_peek(GST_TYPE_ELEMENT);
	GstGLContext *gl;
#ifdef HAVE_GST_CUDA
	GstObject *ctx = NULL;

	if (gcf_cuda_set_context(element, context, &ctx)) {
		if (ctx)
			gcf_keep_cuda_context(self, ctx);
		element_class->set_context(element, context);
		return;
	}
#endif
	if (!d) {
		GST_ELEMENT_CLASS(gst_glcuda_filter_parent_class)->set_context(
			element, context);
		return;
	}
	/* A device of another GL context is not the element's: its images
	 * and hand-offs belong to that context. Before the element has a GL
	 * context, gcf_acquire_device checks it against the one it gets;
	 * once it has one (only compared, never used here), the device is
	 * refused, and the element answers with its own. */
	gl = g_atomic_pointer_get(&GST_GL_BASE_FILTER(self)->context);
	if (gl && d->context != gl) {
		GST_INFO_OBJECT(self, "glcuda device %p of %" GST_PTR_FORMAT
				" refused: the element's GL context is %p",
				(void *)d, d->context, (void *)gl);
		gcf_device_unref(d);
		return;
	}
	gcf_keep_device(self, d);
	gcf_device_unref(d);
	element_class->set_context(element, context);
}

static void
gst_glcuda_filter_finalize(GObject *object)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(object);

	gcf_device_unref(self->context_device);
	if (self->cuda_context)
		gst_object_unref(self->cuda_context);
	g_free(self->ptx_file);
	g_free(self->cubin_file);
	g_free(self->kernel_name);
	G_OBJECT_CLASS(gst_glcuda_filter_parent_class)->finalize(object);
}

static void
gst_glcuda_filter_class_init(GstGlcudaFilterClass *klass)
{
	GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
	GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
	GstBaseTransformClass *transform_class =
		GST_BASE_TRANSFORM_CLASS(klass);
	GstGLBaseFilterClass *base_class = GST_GL_BASE_FILTER_CLASS(klass);
	GstGLFilterClass *filter_class = GST_GL_FILTER_CLASS(klass);
	/* Changed while PLAYING, they apply from the next buffer on. */
	const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
				  GST_PARAM_MUTABLE_PLAYING;

	gobject_class->set_property = gst_glcuda_filter_set_property;
	gobject_class->get_property = gst_glcuda_filter_get_property;
	gobject_class->finalize = gst_glcuda_filter_finalize;

	g_object_class_install_property(
		gobject_class, PROP_FILTER,
		g_param_spec_enum("filter", "Filter",
				  "Built-in CUDA filter (ignored when "
				  "kernel-name is set)",
				  GST_TYPE_GLCUDA_FILTER_KIND, FILTER_NONE,
				  flags));
	g_object_class_install_property(
		gobject_class, PROP_PTX_FILE,
		g_param_spec_string(
			"ptx-file", "PTX file",
			"PTX file with the kernel named by kernel-name "
			"(set this or cubin-file, not both)",
			NULL, flags));
	g_object_class_install_property(
		gobject_class, PROP_CUBIN_FILE,
		g_param_spec_string("cubin-file", "Cubin file",
				    "Cubin or fatbin file with the kernel "
				    "named by kernel-name "
				    "(set this or ptx-file, not both)",
				    NULL, flags));
	g_object_class_install_property(
		gobject_class, PROP_KERNEL_NAME,
		g_param_spec_string(
			"kernel-name", "Kernel name",
			"Kernel to run instead of the built-in filter: "
			"extern \"C\" __global__ void NAME(cudaSurfaceObject_t "
			"in, "
			"cudaSurfaceObject_t out, int width, int height, int "
			"plane, "
			"int format) (the last two may be left out), launched "
			"once "
			"per plane with 16x16 blocks covering it",
			NULL, flags));
	g_object_class_install_property(
		gobject_class, PROP_ROUTE,
		g_param_spec_enum(
			"route", "Route",
			"How a GL texture that is not an image of a glcuda "
			"buffer pool reaches CUDA (input) or takes CUDA's "
			"result (output): auto (wrap where the driver "
			"registers the texture, else copy), wrap (registered "
			"with CUDA: no copy, "
			"a map and an unmap every frame; copy where the "
			"driver refuses) or copy (a GPU blit into or out of "
			"a shared image, then the hand-off of a pooled "
			"frame)",
			GST_TYPE_GLCUDA_FILTER_ROUTE, TEXTURE_ROUTE_AUTO,
			flags));
	g_object_class_install_property(
		gobject_class, PROP_STATS,
		g_param_spec_boxed(
			"stats", "Statistics",
			"Frames filtered since the element started, and how "
			"each "
			"frame's input reached CUDA and CUDA's result the "
			"output: "
			"pooled (an image of a glcuda buffer pool, no copy), "
			"wrapped "
			"(a registered GL texture, no copy), copied (a GPU "
			"copy "
			"through a shared image) or cuda (CUDA memory, a CUDA "
			"copy to or from a shared image)",
			GST_TYPE_STRUCTURE,
			G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

	gst_element_class_set_static_metadata(
		element_class, "glcuda CUDA filter",
		"Filter/Effect/Video/Hardware",
		"Runs a CUDA filter on GL textures (RGBA, BGRA, RGBx, BGRx, "
		"RGB10A2_LE, NV12, "
		"I420, P010_10LE) "
		"without copies, through glcuda",
		GCF_AUTHOR);
	gst_element_class_add_static_pad_template(element_class,
						  &sink_template);
	gst_element_class_add_static_pad_template(element_class, &src_template);

	base_class->supported_gl_api = GST_GL_API_OPENGL3 | GST_GL_API_GLES2;
	base_class->gl_start = gst_glcuda_filter_gl_start;
	base_class->gl_stop = gst_glcuda_filter_gl_stop;
	filter_class->filter = gst_glcuda_filter_filter;
	transform_class->transform_caps = gst_glcuda_filter_transform_caps;
	transform_class->set_caps = gst_glcuda_filter_set_caps;
	transform_class->propose_allocation =
		gst_glcuda_filter_propose_allocation;
	transform_class->decide_allocation =
		gst_glcuda_filter_decide_allocation;
	transform_class->query = gst_glcuda_filter_query;
	element_class->change_state = gst_glcuda_filter_change_state;
	element_class->set_context = gst_glcuda_filter_set_context;

	gst_type_mark_as_plugin_api(GST_TYPE_GLCUDA_FILTER_KIND, 0);
	gst_type_mark_as_plugin_api(GST_TYPE_GLCUDA_FILTER_ROUTE, 0);
	GST_DEBUG_CATEGORY_INIT(gst_glcuda_filter_debug, "glcudafilter", 0,
				"glcuda CUDA filter");
}

static void
gst_glcuda_filter_init(GstGlcudaFilter *self)
{
	self->filter = FILTER_NONE;
	self->route = TEXTURE_ROUTE_AUTO;
}
