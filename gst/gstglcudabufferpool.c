/*
 * GstGlcudaBufferPool (gstglcudabufferpool.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "gstglcudabufferpool.h"
#include "gstglcudaformat.h"

#define GST_CAT_DEFAULT gst_glcuda_filter_debug

/* The image behind one pooled memory, found again from the memory (qdata)
 * by the element that receives it. The memory's destroy notify frees it,
 * after GStreamer has let go of the texture (a wrapped texture, which
 * GStreamer does not delete: the image owns it). */
struct gcf_pooled {
	struct gcf_device *device;
	struct glcuda_image *image;
};

static GQuark pooled_quark;

/* A GstGLBufferPool, so that GL elements upstream (glcolorconvert,
 * GstGLFilter, GstGLBaseSrc) take it as theirs; only the allocation of
 * a buffer differs. */
struct _GstGlcudaBufferPool {
	GstGLBufferPool parent;
	/* A reference: the images of the pool are this device's. */
	struct gcf_device *device;
	gboolean add_sync_meta;
	/* The glcudafilter that made the pool: a buffer it cannot make is
	 * an error of that element, with glcuda's reason (the pool's user
	 * may be another element, which would only say "error (-5)"). */
	GWeakRef owner;
};

G_DEFINE_TYPE(GstGlcudaBufferPool, gst_glcuda_buffer_pool,
	      GST_TYPE_GL_BUFFER_POOL);

struct pool_image_args {
	struct glcuda_device *dev;
	enum glcuda_format format;
	uint32_t width, height;
	struct glcuda_image *image;
	int ret;
	char msg[512];
};

/* GL thread. */
static void
pool_image_new_gl(GstGLContext *context, gpointer data)
{
	struct pool_image_args *a = data;
	struct glcuda_image_desc desc;

	glcuda_image_desc_init(&desc);
	desc.width = a->width;
	desc.height = a->height;
	desc.format = a->format;
	a->ret = glcuda_image_new(a->dev, &desc, &a->image);
	if (a->ret < 0)
		snprintf(a->msg, sizeof(a->msg), "%s",
			 glcuda_device_get_last_error(a->dev));
}

static void
pooled_free(gpointer data)
{
	struct gcf_pooled *p = data;

	gcf_device_release_image(p->device, p->image);
	g_free(p);
}

struct glcuda_image *
gcf_pooled_image(struct gcf_device *d, GstGLMemory *mem)
{
	struct gcf_pooled *p =
		gst_mini_object_get_qdata(GST_MINI_OBJECT(mem), pooled_quark);

	return p && p->device == d ? p->image : NULL;
}

static gboolean
gst_glcuda_buffer_pool_set_config(GstBufferPool *bpool, GstStructure *config)
{
	GstGlcudaBufferPool *pool = GST_GLCUDA_BUFFER_POOL(bpool);

	pool->add_sync_meta = gst_buffer_pool_config_has_option(
		config, GST_BUFFER_POOL_OPTION_GL_SYNC_META);
	return GST_BUFFER_POOL_CLASS(gst_glcuda_buffer_pool_parent_class)
		->set_config(bpool, config);
}

/* GstGL names 8-bit formats unsized (GL_RED, GL_RG, GL_RGBA) and sizes
 * them with GL_UNSIGNED_BYTE when it makes the texture (on GL 3 and
 * GLES 3, all glcuda runs on). */
static guint
sized_format(GstGLFormat format)
{
	switch (format) {
	case GST_GL_RED:
		return GST_GL_R8;
	case GST_GL_RG:
		return GST_GL_RG8;
	case GST_GL_RGBA:
		return GST_GL_RGBA8;
	default:
		return format;
	}
}

/* Whether GstGL's textures of @vparams are what glcuda shares: one of the
 * element's formats, in the GL format of its glcuda format per plane. */
static const struct gcf_format *
pool_format(GstGLContext *context, const GstGLVideoAllocationParams *vparams)
{
	const struct gcf_format *fmt =
		gcf_format_find(GST_VIDEO_INFO_FORMAT(vparams->v_info));

	if (!fmt || vparams->target != GST_GL_TEXTURE_TARGET_2D ||
	    GST_VIDEO_INFO_MULTIVIEW_MODE(vparams->v_info) ==
		    GST_VIDEO_MULTIVIEW_MODE_SEPARATED)
		return NULL;
	for (guint p = 0; p < fmt->n_planes; p++)
		if (sized_format(gst_gl_format_from_video_info(
			    context, vparams->v_info, p)) !=
		    glcuda_format_get_gl_internal_format(fmt->planes[p]))
			return NULL;
	return fmt;
}

/* One memory of a pooled buffer: plane @plane's texture, that of a new
 * glcuda image. NULL on failure (logged). */
static GstMemory *
pool_plane_new(GstGlcudaBufferPool *pool, GstGLContext *context,
	       const GstGLVideoAllocationParams *vparams,
	       const struct gcf_format *fmt, guint plane)
{
	GstGLVideoAllocationParams *wrapped;
	GstGLMemoryAllocator *allocator;
	struct pool_image_args a;
	struct gcf_pooled *p;
	GstMemory *mem;

	memset(&a, 0, sizeof(a));
	a.dev = pool->device->dev;
	a.format = fmt->planes[plane];
	a.width = gcf_plane_width(vparams->v_info, plane);
	a.height = gcf_plane_height(vparams->v_info, plane);
	gst_gl_context_thread_add(context, pool_image_new_gl, &a);
	if (a.ret < 0) {
		GstElement *owner = g_weak_ref_get(&pool->owner);

		GST_WARNING_OBJECT(
			pool, "glcuda_image_new(%ux%u %s): %s (%s): %s",
			a.width, a.height, glcuda_format_get_name(a.format),
			glcuda_strerror(a.ret), glcuda_error_get_name(a.ret),
			a.msg);
		if (owner) {
			GST_ELEMENT_ERROR(
				owner, RESOURCE, FAILED,
				("Cannot make a frame of %dx%d %s: %s",
				 GST_VIDEO_INFO_WIDTH(vparams->v_info),
				 GST_VIDEO_INFO_HEIGHT(vparams->v_info),
				 gst_video_format_to_string(fmt->video), a.msg),
				("plane %u, glcuda_image_new(%ux%u %s): %s "
				 "(%s)",
				 plane, a.width, a.height,
				 glcuda_format_get_name(a.format),
				 glcuda_strerror(a.ret),
				 glcuda_error_get_name(a.ret)));
			gst_object_unref(owner);
		}
		return NULL;
	}
	p = g_new0(struct gcf_pooled, 1);
	p->device = gcf_device_ref(pool->device);
	p->image = a.image;

	/* From here the memory owns p: its destroy notify frees the image. */
	wrapped = gst_gl_video_allocation_params_new_wrapped_texture(
		context, vparams->parent.alloc_params, vparams->v_info, plane,
		vparams->valign, GST_GL_TEXTURE_TARGET_2D,
		(GstGLFormat)glcuda_format_get_gl_internal_format(a.format),
		glcuda_image_get_gl_texture(a.image), p, pooled_free);
	allocator = gst_gl_memory_allocator_get_default(context);
	mem = (GstMemory *)gst_gl_base_memory_alloc(
		GST_GL_BASE_MEMORY_ALLOCATOR(allocator),
		(GstGLAllocationParams *)wrapped);
	gst_object_unref(allocator);
	gst_gl_allocation_params_free((GstGLAllocationParams *)wrapped);
	if (!mem) {
		GST_WARNING_OBJECT(pool,
				   "cannot make a GstGLMemory of texture %u",
				   glcuda_image_get_gl_texture(a.image));
		/* No memory was made to own it. */
		pooled_free(p);
		return NULL;
	}
	gst_mini_object_set_qdata(GST_MINI_OBJECT(mem), pooled_quark, p, NULL);
	GST_DEBUG_OBJECT(pool, "plane %u: image of %ux%u %s, texture %u", plane,
			 a.width, a.height, glcuda_format_get_name(a.format),
			 glcuda_image_get_gl_texture(a.image));
	return mem;
}

static GstFlowReturn
gst_glcuda_buffer_pool_alloc_buffer(GstBufferPool *bpool, GstBuffer **buffer,
				    GstBufferPoolAcquireParams *params)
{
	GstGlcudaBufferPool *pool = GST_GLCUDA_BUFFER_POOL(bpool);
	GstGLContext *context = GST_GL_BUFFER_POOL(bpool)->context;
	GstGLVideoAllocationParams *vparams;
	const struct gcf_format *fmt;
	GstVideoMeta *meta;
	GstBuffer *buf;

	vparams = (GstGLVideoAllocationParams *)
		gst_gl_buffer_pool_get_gl_allocation_params(
			GST_GL_BUFFER_POOL(bpool));
	if (!vparams) {
		GST_WARNING_OBJECT(pool, "not configured");
		return GST_FLOW_ERROR;
	}
	/* What glcuda cannot share (another format or target, GL formats
	 * other than glcuda's): GStreamer's own GL memory. */
	fmt = pool_format(context, vparams);
	if (!fmt) {
		gst_gl_allocation_params_free((GstGLAllocationParams *)vparams);
		return GST_BUFFER_POOL_CLASS(
			       gst_glcuda_buffer_pool_parent_class)
			->alloc_buffer(bpool, buffer, params);
	}

	buf = gst_buffer_new();
	for (guint plane = 0; plane < fmt->n_planes; plane++) {
		GstMemory *mem =
			pool_plane_new(pool, context, vparams, fmt, plane);

		if (!mem) {
			/* The planes made so far free their images with it. */
			gst_buffer_unref(buf);
			gst_gl_allocation_params_free(
				(GstGLAllocationParams *)vparams);
			return GST_FLOW_ERROR;
		}
		gst_buffer_append_memory(buf, mem);
	}
	meta = gst_buffer_add_video_meta_full(
		buf, GST_VIDEO_FRAME_FLAG_NONE,
		GST_VIDEO_INFO_FORMAT(vparams->v_info),
		GST_VIDEO_INFO_WIDTH(vparams->v_info),
		GST_VIDEO_INFO_HEIGHT(vparams->v_info),
		GST_VIDEO_INFO_N_PLANES(vparams->v_info),
		vparams->v_info->offset, vparams->v_info->stride);
	if (vparams->valign)
		gst_video_meta_set_alignment(meta, *vparams->valign);
	if (pool->add_sync_meta)
		gst_buffer_add_gl_sync_meta(context, buf);
	GST_DEBUG_OBJECT(pool, "buffer %p: %s, %u planes of glcuda images",
			 (void *)buf, gst_video_format_to_string(fmt->video),
			 fmt->n_planes);
	gst_gl_allocation_params_free((GstGLAllocationParams *)vparams);
	*buffer = buf;
	return GST_FLOW_OK;
}

static void
gst_glcuda_buffer_pool_finalize(GObject *object)
{
	GstGlcudaBufferPool *pool = GST_GLCUDA_BUFFER_POOL(object);
	struct gcf_device *d = pool->device;

	/* The buffers go first (each memory holds its own reference). */
	G_OBJECT_CLASS(gst_glcuda_buffer_pool_parent_class)->finalize(object);
	g_weak_ref_clear(&pool->owner);
	gcf_device_unref(d);
}

static void
gst_glcuda_buffer_pool_class_init(GstGlcudaBufferPoolClass *klass)
{
	GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
	GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS(klass);

	gobject_class->finalize = gst_glcuda_buffer_pool_finalize;
	pool_class->set_config = gst_glcuda_buffer_pool_set_config;
	pool_class->alloc_buffer = gst_glcuda_buffer_pool_alloc_buffer;
	pooled_quark = g_quark_from_static_string("glcuda-pooled-image");
}

static void
gst_glcuda_buffer_pool_init(GstGlcudaBufferPool *pool)
{
	g_weak_ref_init(&pool->owner, NULL);
}

GstBufferPool *
gcf_buffer_pool_new(struct gcf_device *d, GstElement *owner)
{
	GstGlcudaBufferPool *pool =
		g_object_new(GST_TYPE_GLCUDA_BUFFER_POOL, NULL);

	gst_object_ref_sink(pool);
	GST_GL_BUFFER_POOL(pool)->context = gst_object_ref(d->context);
	pool->device = gcf_device_ref(d);
	g_weak_ref_set(&pool->owner, owner);
	return GST_BUFFER_POOL(pool);
}

gboolean
gcf_buffer_pool_is_of_device(GstBufferPool *pool, struct gcf_device *d)
{
	return GST_IS_GLCUDA_BUFFER_POOL(pool) &&
	       GST_GLCUDA_BUFFER_POOL(pool)->device == d;
}
