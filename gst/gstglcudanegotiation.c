/*
 * glcudafilter's negotiation: the caps of each pad (the formats the
 * configured filter runs on, GL or CUDA memory), a renegotiation when the
 * filter changes, and the buffer pools it proposes and decides
 * (gstglcudafilterpriv.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <gst/gl/gstglfuncs.h>

#include "gstglcudafilterpriv.h"

/* GstGLFilter's own vfuncs, which these chain up to. */
static GstBaseTransformClass *
parent_transform_class(void)
{
	return GST_BASE_TRANSFORM_CLASS(g_type_class_peek(GST_TYPE_GL_FILTER));
}

/* Whether the configured filter runs on @fmt; if not, why not in *why.
 * Object lock held. */
gboolean
gcf_format_allowed(GstGlcudaFilter *self, const struct gcf_format *fmt,
		   const char **why)
{
	/* A kernel of kernel-name runs on every plane of every format. */
	if (self->kernel_name || self->filter == FILTER_NONE ||
	    self->filter == FILTER_INVERT)
		return TRUE;
	*why = "blur, unsharp and grade run on RGBA, BGRA, RGBx and BGRx only";
	return GCF_FORMAT_IS_RGB8(fmt);
}

/* The formats the configured filter runs on, bit i for gcf_formats[i].
 * Object lock held. */
guint
gcf_formats_allowed(GstGlcudaFilter *self)
{
	const char *why;
	guint mask = 0;

	for (guint i = 0; i < GCF_N_FORMATS; i++)
		if (gcf_format_allowed(self, &gcf_formats[i], &why))
			mask |= 1u << i;
	return mask;
}

/* Caps of @formats (a mask of gcf_formats) in GL memory and, with
 * @cuda, in CUDA memory, any size and rate. */
static GstCaps *
formats_caps(guint formats, gboolean cuda)
{
	GstCaps *caps = gst_caps_new_empty_simple("video/x-raw");
	GValue list = G_VALUE_INIT, item = G_VALUE_INIT;

	g_value_init(&list, GST_TYPE_LIST);
	g_value_init(&item, G_TYPE_STRING);
	for (guint i = 0; i < GCF_N_FORMATS; i++) {
		if (!(formats & (1u << i)))
			continue;
		g_value_set_static_string(&item,
			gst_video_format_to_string(gcf_formats[i].video));
		gst_value_list_append_value(&list, &item);
	}
	gst_caps_set_value(caps, "format", &list);
	g_value_unset(&item);
	g_value_unset(&list);
	if (cuda)
		gst_caps_append(caps, gst_caps_copy(caps));
	gst_caps_set_features(caps, 0, gst_caps_features_new(
		GST_CAPS_FEATURE_MEMORY_GL_MEMORY, NULL));
	if (cuda)
		gst_caps_set_features(caps, 1, gst_caps_features_new(
			GCF_CAPS_FEATURE_CUDA_MEMORY, NULL));
	return caps;
}

/*
 * The same format, size and pixel aspect ratio on both pads, less the
 * formats the configured filter does not run on: such caps fail
 * negotiation rather than the first frame. (GstGLFilter's own
 * transform_internal_caps frees the size, for filters that scale as they
 * draw; the element copies planes and runs kernels on them, at one size:
 * a scaler downstream, cudascale or glcolorscale, does the scaling.) GL
 * memory on the other pad, and CUDA memory too where @caps are GL memory:
 * a frame goes between GL and CUDA memory, never from CUDA memory to CUDA
 * memory. A GL texture target does not carry into CUDA memory.
 */
GstCaps *
gst_glcuda_filter_transform_caps(GstBaseTransform *trans,
				 GstPadDirection direction, GstCaps *caps,
				 GstCaps *filter)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(trans);
	GstCaps *result, *allowed, *ret;
	gboolean from_gl = FALSE;
	const char *why = NULL;
	guint formats = 0;

	result = gst_caps_new_empty();
	for (guint i = 0; i < gst_caps_get_size(caps); i++) {
		GstCapsFeatures *f = gst_caps_get_features(caps, i);

		from_gl |= !f || gst_caps_features_is_any(f) ||
			   gst_caps_features_contains(f,
				GST_CAPS_FEATURE_MEMORY_GL_MEMORY);
		result = gst_caps_merge_structure_full(result,
			gst_structure_copy(gst_caps_get_structure(caps, i)),
			gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_GL_MEMORY,
					      NULL));
	}
	GST_OBJECT_LOCK(self);
	for (guint i = 0; i < GCF_N_FORMATS; i++) {
		if (gcf_format_allowed(self, &gcf_formats[i], &why))
			formats |= 1u << i;
		else
			GST_DEBUG_OBJECT(self, "%s refused: %s",
					 gst_video_format_to_string(
						 gcf_formats[i].video),
					 why);
	}
	GST_OBJECT_UNLOCK(self);
#ifdef HAVE_GST_CUDA
	if (from_gl) {
		GstCaps *cuda = gst_caps_copy(result);

		for (guint i = 0; i < gst_caps_get_size(cuda); i++)
			gst_structure_remove_field(
				gst_caps_get_structure(cuda, i),
				"texture-target");
		gst_caps_set_features_simple(cuda, gst_caps_features_new(
			GCF_CAPS_FEATURE_CUDA_MEMORY, NULL));
		result = gst_caps_merge(result, cuda);
	}
#endif
	allowed = formats_caps(formats, from_gl && GCF_CUDA_PADS);
	ret = gst_caps_intersect_full(result, allowed,
				      GST_CAPS_INTERSECT_FIRST);
	gst_caps_unref(allowed);
	gst_caps_unref(result);
	if (filter) {
		result = gst_caps_intersect_full(filter, ret,
						 GST_CAPS_INTERSECT_FIRST);
		gst_caps_unref(ret);
		ret = result;
	}
	GST_DEBUG_OBJECT(self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
			 direction == GST_PAD_SINK ? "sink" : "src", caps, ret);
	return ret;
}

/* Which pads carry CUDA memory; GstGLFilter's own caps. */
gboolean
gst_glcuda_filter_set_caps(GstBaseTransform *trans, GstCaps *incaps,
			   GstCaps *outcaps)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(trans);

	self->cuda_in = gcf_caps_are_cuda(incaps);
	self->cuda_out = gcf_caps_are_cuda(outcaps);
	if (self->cuda_in && self->cuda_out) {
		GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
				  ("CUDA memory on both pads: one must be GL "
				   "memory"), (NULL));
		return FALSE;
	}
	if (self->cuda_in || self->cuda_out)
		GST_INFO_OBJECT(self, "CUDA memory on the %s pad",
				self->cuda_in ? "sink" : "src");
	return parent_transform_class()
		->set_caps(trans, incaps, outcaps);
}

#ifdef HAVE_GST_CUDA
#if GCF_CUDA_STREAMS
/* The element's own GstCudaStream on @ctx, made once (NULL if the library
 * cannot make one); the element keeps the reference. */
static gpointer
own_stream(GstGlcudaFilter *self, GstObject *ctx)
{
	gpointer stream;

	GST_OBJECT_LOCK(self);
	if (!self->cuda_stream)
		self->cuda_stream = gcf_cuda_stream_new(ctx);
	stream = self->cuda_stream;
	GST_OBJECT_UNLOCK(self);
	return stream;
}
#endif

/* CUDA memory in: a GstCudaBufferPool of the pipeline's CUDA context
 * (none before there is one: upstream then uses its own pool, on the
 * context it shares), on the element's own stream since 1.24. */
static gboolean
propose_cuda_pool(GstGlcudaFilter *self, GstQuery *query, GstCaps *caps,
		  gboolean need_pool)
{
	GstBufferPool *pool = NULL;
	GstObject *ctx = NULL;
	GstVideoInfo info;

	if (!gst_video_info_from_caps(&info, caps))
		return FALSE;
	if (!gcf_prepare_cuda(self))
		return FALSE;
	ctx = gcf_pipeline_cuda_context(self);
	if (need_pool && ctx) {
		gpointer stream = NULL;

#if GCF_CUDA_STREAMS
		stream = own_stream(self, ctx);
#endif
		pool = gcf_cuda_pool_new(ctx, caps, (guint)info.size, 0, 0,
					 stream);
	}
	GST_DEBUG_OBJECT(self, "proposing %" GST_PTR_FORMAT " for %"
			 GST_PTR_FORMAT, pool, caps);
	gst_query_add_allocation_pool(query, pool, (guint)info.size, 1, 0);
	gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
	if (pool)
		gst_object_unref(pool);
	if (ctx)
		gst_object_unref(ctx);
	return TRUE;
}

/* CUDA memory out: the pool GstGLFilter configured replaced by a
 * GstCudaBufferPool of the pipeline's CUDA context, with the same
 * configuration; since 1.24 on the stream downstream's proposed pool has
 * (nvcodec's elements propose their own), else the element's own. */
static gboolean
decide_cuda_pool(GstGlcudaFilter *self, GstQuery *query)
{
	GstBufferPool *pool = NULL;
	guint size = 0, min = 0, max = 0;
	GstObject *ctx = NULL;
	gpointer stream = NULL;
	GstVideoInfo info;
	GstCaps *caps;

	gst_query_parse_allocation(query, &caps, NULL);
	if (!caps || !gst_video_info_from_caps(&info, caps))
		return FALSE;
#if GCF_CUDA_STREAMS
	stream = gcf_cuda_query_stream(query);
#endif
	if (gst_query_get_n_allocation_pools(query) > 0) {
		gst_query_parse_nth_allocation_pool(query, 0, &pool, &size,
						    &min, &max);
		if (pool)
			gst_object_unref(pool);
	}
	size = MAX(size, (guint)info.size);
	ctx = gcf_pipeline_cuda_context(self);
#if GCF_CUDA_STREAMS
	GST_DEBUG_OBJECT(self, "CUDA memory out on %s stream",
			 stream ? "downstream's" : "the element's own");
	if (!stream && ctx)
		stream = gcf_cuda_stream_ref(own_stream(self, ctx));
#endif
	pool = ctx ? gcf_cuda_pool_new(ctx, caps, size, min, max, stream)
		   : NULL;
#if GCF_CUDA_STREAMS
	gcf_cuda_stream_unref(stream);
#endif
	if (ctx)
		gst_object_unref(ctx);
	if (!pool) {
		GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS,
				  ("Cannot make a pool of CUDA memory for %"
				   GST_PTR_FORMAT, caps), (NULL));
		return FALSE;
	}
	GST_DEBUG_OBJECT(self, "output into %" GST_PTR_FORMAT, pool);
	if (gst_query_get_n_allocation_pools(query) > 0)
		gst_query_set_nth_allocation_pool(query, 0, pool, size, min,
						  max);
	else
		gst_query_add_allocation_pool(query, pool, size, min, max);
	gst_object_unref(pool);
	return TRUE;
}
#endif

/* Upstream renders into glcuda images: a pool of this element's device,
 * whose buffers this element then hands to CUDA as they are. Before the
 * device exists (or without one), GstGLFilter's plain GL pool. */
gboolean
gst_glcuda_filter_propose_allocation(GstBaseTransform *trans,
				     GstQuery *decide_query, GstQuery *query)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(trans);
	GstGLContext *context = GST_GL_BASE_FILTER(trans)->context;
	GstBufferPool *pool = NULL;
	GstStructure *config;
	GstVideoInfo info;
	GstCaps *caps;
	gboolean need_pool;

	gst_query_parse_allocation(query, &caps, &need_pool);
#ifdef HAVE_GST_CUDA
	if (gcf_caps_are_cuda(caps))
		return propose_cuda_pool(self, query, caps, need_pool);
#endif
	if (!self->device || !context)
		return parent_transform_class()
			->propose_allocation(trans, decide_query, query);
	if (!caps || !gst_video_info_from_caps(&info, caps)) {
		GST_DEBUG_OBJECT(self, "allocation query without usable caps");
		return FALSE;
	}
	if (need_pool) {
		pool = gcf_buffer_pool_new(self->device, GST_ELEMENT(self));
		config = gst_buffer_pool_get_config(pool);
		gst_buffer_pool_config_set_params(config, caps,
						  (guint)info.size, 0, 0);
		gst_buffer_pool_config_add_option(
			config, GST_BUFFER_POOL_OPTION_VIDEO_META);
		if (!gst_buffer_pool_set_config(pool, config)) {
			GST_WARNING_OBJECT(self,
					   "cannot configure the pool for "
					   "%" GST_PTR_FORMAT,
					   caps);
			gst_object_unref(pool);
			return FALSE;
		}
		GST_DEBUG_OBJECT(self,
				 "proposing %" GST_PTR_FORMAT
				 " for %" GST_PTR_FORMAT,
				 pool, caps);
	}
	gst_query_add_allocation_pool(query, pool, (guint)info.size, 1, 0);
	if (pool)
		gst_object_unref(pool);
	if (context->gl_vtable->FenceSync)
		gst_query_add_allocation_meta(query, GST_GL_SYNC_META_API_TYPE,
					      NULL);
	return TRUE;
}

/* The output buffers are glcuda images too: a pool of this device that
 * downstream proposed (a glcudafilter after this one) as it is, any other
 * replaced by one of ours with the same configuration. */
gboolean
gst_glcuda_filter_decide_allocation(GstBaseTransform *trans, GstQuery *query)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(trans);
	GstBufferPool *pool = NULL, *ours;
	GstStructure *config;
	guint size, min, max;

#ifdef HAVE_GST_CUDA
	/* The CUDA context gl_start makes the device on. */
	if ((self->cuda_in || self->cuda_out) && !gcf_prepare_cuda(self))
		return FALSE;
#endif
	/* GstGLFilter's: the context, gl_start, a configured GL pool. */
	if (!parent_transform_class()
		     ->decide_allocation(trans, query))
		return FALSE;
#ifdef HAVE_GST_CUDA
	if (self->cuda_out)
		return decide_cuda_pool(self, query);
#endif
	if (!self->device || gst_query_get_n_allocation_pools(query) == 0)
		return TRUE;
	gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min, &max);
	if (!pool)
		return TRUE;
	if (gcf_buffer_pool_is_of_device(pool, self->device)) {
		GST_DEBUG_OBJECT(self,
				 "output into downstream's %" GST_PTR_FORMAT,
				 pool);
		gst_object_unref(pool);
		return TRUE;
	}
	ours = gcf_buffer_pool_new(self->device, GST_ELEMENT(self));
	config = gst_buffer_pool_get_config(pool);
	gst_object_unref(pool);
	if (!gst_buffer_pool_set_config(ours, config)) {
		GST_WARNING_OBJECT(self, "cannot configure an output pool of "
					 "glcuda images; "
					 "the output is copied out of one");
		gst_object_unref(ours);
		return TRUE;
	}
	GST_DEBUG_OBJECT(self, "output into %" GST_PTR_FORMAT, ours);
	gst_query_set_nth_allocation_pool(query, 0, ours, size, min, max);
	gst_object_unref(ours);
	return TRUE;
}

/*
 * The filter now runs on @formats (a mask of gcf_formats), not on those
 * it ran on. As GstGLFilter elements do when their caps depend on a
 * property, upstream is asked to renegotiate before its next buffer
 * (glcolorconvert in front then converts to a format the new filter
 * runs on; the new caps reach downstream with the frame). Only where
 * upstream can make one of @formats: elsewhere (a source of fixed caps)
 * its renegotiation would fail with a mere warning and drop the frames,
 * whereas the next frame reaching the element is an error that says why
 * (apply_config).
 */
void
gcf_renegotiate(GstGlcudaFilter *self, guint formats)
{
	GstPad *sinkpad = GST_BASE_TRANSFORM_SINK_PAD(self);
	GstCaps *allowed = formats_caps(formats, GCF_CUDA_PADS), *peer;
	gboolean offers;

	/* Unlinked: nothing to renegotiate yet (NULL, or ANY caps). */
	peer = gst_pad_peer_query_caps(sinkpad, NULL);
	offers = !peer || gst_caps_can_intersect(peer, allowed);
	GST_DEBUG_OBJECT(
		self, "formats now %" GST_PTR_FORMAT ": upstream %s", allowed,
		offers ? "asked to renegotiate" : "cannot make any of them");
	if (offers)
		gst_base_transform_reconfigure_sink(GST_BASE_TRANSFORM(self));
	if (peer)
		gst_caps_unref(peer);
	gst_caps_unref(allowed);
}
