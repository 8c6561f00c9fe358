/*
 * glcudafilter: runs a CUDA filter on RGBA GL textures, in GStreamer's GL
 * pipeline, through glcuda's public API.
 * SPDX-License-Identifier: MIT
 *
 * One glcuda_device per GstGLContext, made on that context's GL thread
 * and shared by every glcudafilter on the context (a device costs a
 * Vulkan device and a CUDA context: one is enough). Per buffer, on the GL
 * thread: the input and output GstGLMemory textures are wrapped with
 * glcuda_image_wrap_gl_texture() (once per memory: the wrap is kept on the
 * memory as qdata and dropped just before the memory deletes its texture),
 * handed to CUDA on the element's stream, filtered, and handed back.
 *
 * The element also offers upstream, through the allocation query, a
 * buffer pool whose GstGLMemory textures are those of glcuda shared
 * images (GstGlcudaBufferPool), and uses such a pool for its own output:
 * a frame in one of them goes to CUDA as the image it is, with neither a
 * registration nor a copy, on any driver.
 *
 * Where the CUDA driver refuses to register GL textures (the fake driver
 * of the tests, formats CUDA cannot register), a texture that is not a
 * pool's image is copied into (or out of) a glcuda shared image with
 * glBlitFramebuffer on the GPU; the element says so once in the log.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <EGL/egl.h>
#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>

#include "gstglcudafilter.h"
#include "filters.h"

#ifndef GL_READ_FRAMEBUFFER
#define GL_READ_FRAMEBUFFER 0x8CA8
#endif
#ifndef GL_DRAW_FRAMEBUFFER
#define GL_DRAW_FRAMEBUFFER 0x8CA9
#endif

GST_DEBUG_CATEGORY_STATIC(gst_glcuda_filter_debug);
#define GST_CAT_DEFAULT gst_glcuda_filter_debug

/* ---------------------------------------------------------------------- */
/* One glcuda device per GL context                                         */

/* Referenced by the elements that use the context and by every wrap made
 * on it, so that the device outlives the images made from it whatever
 * order GStreamer frees elements and pooled memory in. */
struct gcf_device {
	gint refcount;
	GstGLContext *context;
	struct glcuda_device *dev;
	/* Set once the driver refused to register a GL texture: the copy
	 * path from then on, without retrying at every new memory. */
	gboolean wrap_refused;
};

static GMutex devices_lock;
static GList *devices; /* struct gcf_device *, one per context */

struct device_new_args {
	struct glcuda_device *dev;
	int ret;
	char msg[1024];
};

/* glcuda's messages of the device go to GStreamer's log, not stderr
 * (the process-wide handler is the application's to set). */
static void G_GNUC_PRINTF(3, 0)
device_log(enum glcuda_log_priority priority, void *user_data, const char *format,
	   va_list args)
{
	GstDebugLevel level = priority >= GLCUDA_LOG_PRIORITY_ERROR ? GST_LEVEL_WARNING :
			      priority >= GLCUDA_LOG_PRIORITY_INFO ? GST_LEVEL_INFO :
								     GST_LEVEL_DEBUG;
	gchar *msg;

	if (level > gst_debug_category_get_threshold(GST_CAT_DEFAULT))
		return;
	msg = g_strdup_vprintf(format, args);
	g_strchomp(msg);
	GST_CAT_LEVEL_LOG(GST_CAT_DEFAULT, level, NULL, "glcuda: %s", msg);
	g_free(msg);
}

/* GL thread: the context is current, so EGL names its display and context. */
static void
device_new_gl(GstGLContext *context, gpointer data)
{
	struct device_new_args *a = data;
	struct glcuda_device_options opts;
	EGLDisplay dpy = eglGetCurrentDisplay();
	EGLContext ctx = eglGetCurrentContext();

	if (gst_gl_context_get_gl_platform(context) != GST_GL_PLATFORM_EGL ||
	    dpy == EGL_NO_DISPLAY || ctx == EGL_NO_CONTEXT) {
		a->ret = GLCUDA_ERROR_NO_DISPLAY;
		snprintf(a->msg, sizeof(a->msg),
			 "the GstGLContext is not an EGL context (glcuda needs EGL: "
			 "set GST_GL_PLATFORM=egl)");
		return;
	}
	glcuda_device_options_init(&opts);
	opts.log_func = device_log;
	/* Everything, filtered by the debug category's threshold. */
	opts.log_priority = GLCUDA_LOG_PRIORITY_DEBUG;
	a->ret = glcuda_device_new(dpy, ctx, &opts, &a->dev);
	/* The message is per thread: read it here, on the GL thread. */
	if (a->ret < 0)
		snprintf(a->msg, sizeof(a->msg), "%s", glcuda_get_last_error());
}

static void
device_destroy_gl(GstGLContext *context, gpointer data)
{
	glcuda_device_destroy(data);
}

/* A reference to the device of @context, made if there is none yet.
 * On failure: NULL, with the glcuda error in *ret and its message in msg. */
static struct gcf_device *
gcf_device_get(GstGLContext *context, int *ret, char *msg, size_t size)
{
	struct device_new_args a = { NULL, 0, "" };
	struct gcf_device *d = NULL;
	GList *l;

	g_mutex_lock(&devices_lock);
	for (l = devices; l; l = l->next) {
		struct gcf_device *e = l->data;
		if (e->context == context) {
			g_atomic_int_inc(&e->refcount);
			d = e;
			break;
		}
	}
	g_mutex_unlock(&devices_lock);
	if (d)
		return d;

	/* Made outside the lock: the GL thread may be freeing memory whose
	 * wraps drop device references (and take the lock) meanwhile. */
	gst_gl_context_thread_add(context, device_new_gl, &a);
	if (a.ret < 0) {
		*ret = a.ret;
		snprintf(msg, size, "%s", a.msg);
		return NULL;
	}
	d = g_new0(struct gcf_device, 1);
	d->refcount = 1;
	d->context = gst_object_ref(context);
	d->dev = a.dev;
	g_mutex_lock(&devices_lock);
	for (l = devices; l; l = l->next) {
		struct gcf_device *e = l->data;
		if (e->context == context) {
			/* Another element made one meanwhile: use that one. */
			g_atomic_int_inc(&e->refcount);
			g_mutex_unlock(&devices_lock);
			gst_gl_context_thread_add(context, device_destroy_gl, d->dev);
			gst_object_unref(d->context);
			g_free(d);
			return e;
		}
	}
	devices = g_list_prepend(devices, d);
	g_mutex_unlock(&devices_lock);
	return d;
}

static void
gcf_device_unref(struct gcf_device *d)
{
	gboolean last;

	if (!d)
		return;
	g_mutex_lock(&devices_lock);
	last = g_atomic_int_dec_and_test(&d->refcount);
	if (last)
		devices = g_list_remove(devices, d);
	g_mutex_unlock(&devices_lock);
	if (!last)
		return;
	gst_gl_context_thread_add(d->context, device_destroy_gl, d->dev);
	gst_object_unref(d->context);
	g_free(d);
}

/* ---------------------------------------------------------------------- */
/* Wraps of GstGLMemory textures, cached on the memory                      */

struct gcf_wrap {
	struct gcf_device *device;
	struct glcuda_image *image;
	uint32_t flags;
};

static GQuark wrap_quark;

static void
wrap_destroy_gl(GstGLContext *context, gpointer data)
{
	glcuda_image_destroy(data);
}

/* The memory's qdata notify: it runs before the memory's free function
 * deletes the texture, so the registration goes first, as glcuda asks. */
static void
wrap_free(gpointer data)
{
	struct gcf_wrap *w = data;

	gst_gl_context_thread_add(w->device->context, wrap_destroy_gl, w->image);
	gcf_device_unref(w->device);
	g_free(w);
}

/* GL thread. The wrap of @mem's texture, made on first use. */
static int
wrap_get(struct gcf_device *d, GstGLMemory *mem, uint32_t flags, struct glcuda_image **out)
{
	struct gcf_wrap *w = gst_mini_object_get_qdata(GST_MINI_OBJECT(mem), wrap_quark);
	struct glcuda_image *img;
	int ret;

	if (w && w->device == d && w->flags == flags) {
		*out = w->image;
		return 0;
	}
	ret = glcuda_image_wrap_gl_texture(d->dev, gst_gl_memory_get_texture_id(mem),
					   0x0DE1 /* GL_TEXTURE_2D */, flags, &img);
	if (ret < 0)
		return ret;
	w = g_new0(struct gcf_wrap, 1);
	w->device = d;
	g_atomic_int_inc(&d->refcount);
	w->image = img;
	w->flags = flags;
	/* Replaces (and frees) a wrap of another device or other flags. */
	gst_mini_object_set_qdata(GST_MINI_OBJECT(mem), wrap_quark, w, wrap_free);
	*out = img;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The buffer pool: GstGLMemory on the textures of glcuda shared images     */

/* The image behind one pooled memory, found again from the memory (qdata)
 * by the element that receives it. The memory's destroy notify frees it,
 * after GStreamer has let go of the texture (a wrapped texture, which
 * GStreamer does not delete: the image owns it). */
struct gcf_pooled {
	struct gcf_device *device;
	struct glcuda_image *image;
};

static GQuark pooled_quark;

#define GST_TYPE_GLCUDA_BUFFER_POOL (gst_glcuda_buffer_pool_get_type())
G_DECLARE_FINAL_TYPE(GstGlcudaBufferPool, gst_glcuda_buffer_pool, GST, GLCUDA_BUFFER_POOL,
		     GstGLBufferPool)

/* A GstGLBufferPool, so that GL elements upstream (glcolorconvert,
 * GstGLFilter, GstGLBaseSrc) take it as theirs; only the allocation of
 * a buffer differs. */
struct _GstGlcudaBufferPool {
	GstGLBufferPool parent;
	/* A reference: the images of the pool are this device's. */
	struct gcf_device *device;
	gboolean add_sync_meta;
};

G_DEFINE_TYPE(GstGlcudaBufferPool, gst_glcuda_buffer_pool, GST_TYPE_GL_BUFFER_POOL);

struct pool_image_args {
	struct glcuda_device *dev;
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

	a->ret = glcuda_image_new(a->dev, a->width, a->height, GLCUDA_FORMAT_RGBA8, 0, &a->image);
	if (a->ret < 0)
		snprintf(a->msg, sizeof(a->msg), "%s", glcuda_device_get_last_error(a->dev));
}

static void
pooled_free(gpointer data)
{
	struct gcf_pooled *p = data;

	gst_gl_context_thread_add(p->device->context, wrap_destroy_gl, p->image);
	gcf_device_unref(p->device);
	g_free(p);
}

/* The image of @mem if it is a pooled memory of device @d, else NULL. */
static struct glcuda_image *
pooled_image(struct gcf_device *d, GstGLMemory *mem)
{
	struct gcf_pooled *p = gst_mini_object_get_qdata(GST_MINI_OBJECT(mem), pooled_quark);

	return p && p->device == d ? p->image : NULL;
}

static gboolean
gst_glcuda_buffer_pool_set_config(GstBufferPool *bpool, GstStructure *config)
{
	GstGlcudaBufferPool *pool = GST_GLCUDA_BUFFER_POOL(bpool);

	pool->add_sync_meta = gst_buffer_pool_config_has_option(config,
								GST_BUFFER_POOL_OPTION_GL_SYNC_META);
	return GST_BUFFER_POOL_CLASS(gst_glcuda_buffer_pool_parent_class)->set_config(bpool,
										      config);
}

static GstFlowReturn
gst_glcuda_buffer_pool_alloc_buffer(GstBufferPool *bpool, GstBuffer **buffer,
				    GstBufferPoolAcquireParams *params)
{
	GstGlcudaBufferPool *pool = GST_GLCUDA_BUFFER_POOL(bpool);
	GstGLContext *context = GST_GL_BUFFER_POOL(bpool)->context;
	GstGLVideoAllocationParams *vparams, *wrapped;
	GstGLMemoryAllocator *allocator;
	struct pool_image_args a;
	struct gcf_pooled *p;
	GstVideoMeta *meta;
	GstMemory *mem;
	GstBuffer *buf;

	vparams = (GstGLVideoAllocationParams *)gst_gl_buffer_pool_get_gl_allocation_params(
		GST_GL_BUFFER_POOL(bpool));
	if (!vparams) {
		GST_WARNING_OBJECT(pool, "not configured");
		return GST_FLOW_ERROR;
	}
	/* What glcuda cannot share (another format or target, planes):
	 * GStreamer's own GL memory. */
	if (GST_VIDEO_INFO_FORMAT(vparams->v_info) != GST_VIDEO_FORMAT_RGBA ||
	    vparams->target != GST_GL_TEXTURE_TARGET_2D ||
	    GST_VIDEO_INFO_MULTIVIEW_MODE(vparams->v_info) == GST_VIDEO_MULTIVIEW_MODE_SEPARATED) {
		gst_gl_allocation_params_free((GstGLAllocationParams *)vparams);
		return GST_BUFFER_POOL_CLASS(gst_glcuda_buffer_pool_parent_class)->alloc_buffer(
			bpool, buffer, params);
	}

	memset(&a, 0, sizeof(a));
	a.dev = pool->device->dev;
	a.width = (uint32_t)GST_VIDEO_INFO_WIDTH(vparams->v_info);
	a.height = (uint32_t)GST_VIDEO_INFO_HEIGHT(vparams->v_info);
	gst_gl_context_thread_add(context, pool_image_new_gl, &a);
	if (a.ret < 0) {
		GST_WARNING_OBJECT(pool, "glcuda_image_new(%ux%u RGBA8): %s (%s): %s", a.width,
				   a.height, glcuda_strerror(a.ret), glcuda_error_get_name(a.ret),
				   a.msg);
		gst_gl_allocation_params_free((GstGLAllocationParams *)vparams);
		return GST_FLOW_ERROR;
	}
	p = g_new0(struct gcf_pooled, 1);
	p->device = pool->device;
	g_atomic_int_inc(&p->device->refcount);
	p->image = a.image;

	/* From here the memory owns p: its destroy notify frees the image. */
	wrapped = gst_gl_video_allocation_params_new_wrapped_texture(context,
		vparams->parent.alloc_params, vparams->v_info, 0, vparams->valign,
		GST_GL_TEXTURE_TARGET_2D, GST_GL_RGBA8, glcuda_image_get_gl_texture(a.image), p,
		pooled_free);
	allocator = gst_gl_memory_allocator_get_default(context);
	mem = (GstMemory *)gst_gl_base_memory_alloc(GST_GL_BASE_MEMORY_ALLOCATOR(allocator),
				       (GstGLAllocationParams *)wrapped);
	gst_object_unref(allocator);
	gst_gl_allocation_params_free((GstGLAllocationParams *)wrapped);
	if (!mem) {
		GST_WARNING_OBJECT(pool, "cannot make a GstGLMemory of texture %u",
				   glcuda_image_get_gl_texture(a.image));
		gst_gl_allocation_params_free((GstGLAllocationParams *)vparams);
		return GST_FLOW_ERROR;
	}
	gst_mini_object_set_qdata(GST_MINI_OBJECT(mem), pooled_quark, p, NULL);

	buf = gst_buffer_new();
	gst_buffer_append_memory(buf, mem);
	meta = gst_buffer_add_video_meta_full(buf, GST_VIDEO_FRAME_FLAG_NONE,
					      GST_VIDEO_INFO_FORMAT(vparams->v_info),
					      GST_VIDEO_INFO_WIDTH(vparams->v_info),
					      GST_VIDEO_INFO_HEIGHT(vparams->v_info), 1,
					      vparams->v_info->offset, vparams->v_info->stride);
	if (vparams->valign)
		gst_video_meta_set_alignment(meta, *vparams->valign);
	if (pool->add_sync_meta)
		gst_buffer_add_gl_sync_meta(context, buf);
	GST_DEBUG_OBJECT(pool, "buffer %p: image of %ux%u, texture %u", (void *)buf, a.width,
			 a.height, glcuda_image_get_gl_texture(a.image));
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
}

/* A pool of device @d's images (a new reference to @d). */
static GstBufferPool *
gst_glcuda_buffer_pool_new(struct gcf_device *d)
{
	GstGlcudaBufferPool *pool = g_object_new(GST_TYPE_GLCUDA_BUFFER_POOL, NULL);

	gst_object_ref_sink(pool);
	GST_GL_BUFFER_POOL(pool)->context = gst_object_ref(d->context);
	g_atomic_int_inc(&d->refcount);
	pool->device = d;
	return GST_BUFFER_POOL(pool);
}

/* ---------------------------------------------------------------------- */
/* The element                                                              */

enum {
	PROP_0,
	PROP_FILTER,
	PROP_PTX_FILE,
	PROP_CUBIN_FILE,
	PROP_KERNEL_NAME,
	PROP_STATS,
};

/* How a frame's texture reached CUDA (input) or CUDA's result reached the
 * output texture, counted per frame in the stats property. */
enum gcf_route {
	ROUTE_POOLED, /* an image of a glcuda pool: no copy, no registration */
	ROUTE_WRAPPED, /* the texture registered with CUDA: no copy */
	ROUTE_COPIED, /* glBlitFramebuffer to or from a shared image */
	ROUTE_COUNT,
};

static const char *const route_names[ROUTE_COUNT] = { "pooled", "wrapped", "copied" };

struct _GstGlcudaFilter {
	GstGLFilter parent;

	/* Properties, under the object lock. */
	enum filter_kind filter;
	gchar *ptx_file, *cubin_file, *kernel_name;

	/* GL thread state, from gl_start to gl_stop. */
	struct gcf_device *device;
	CUstream stream;
	CUcontext cuda_ctx;
	enum filter_kind run_filter;
	CUmodule module;
	CUfunction function;
	struct filters *filters;
	uint32_t filters_width, filters_height;
	/* The copy path's shared images and framebuffers. */
	struct glcuda_image *stage_in, *stage_out;
	guint fbo[2];
	/* The routes of the last frame, logged when they change. */
	int logged_routes;
	guint64 frames;

	/* Frames by route since gl_start, under the object lock (read by
	 * the stats property from any thread). */
	guint64 stat_frames;
	guint64 stat_in[ROUTE_COUNT], stat_out[ROUTE_COUNT];

	/* One buffer's work on the GL thread: arguments and result. */
	GstGLMemory *cur_in, *cur_out;
	int ret;
	gchar *err;
};

G_DEFINE_TYPE(GstGlcudaFilter, gst_glcuda_filter, GST_TYPE_GL_FILTER);
GST_ELEMENT_REGISTER_DEFINE(glcudafilter, "glcudafilter", GST_RANK_NONE, GST_TYPE_GLCUDA_FILTER);

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

/* RGBA only, 2D textures only: what glcuda wraps on GL and GLES alike and
 * what the filters read. Anything else fails negotiation. */
#define GLCUDA_FILTER_CAPS \
	"video/x-raw(" GST_CAPS_FEATURE_MEMORY_GL_MEMORY "), " \
	"format = (string) RGBA, " \
	"width = " GST_VIDEO_SIZE_RANGE ", " \
	"height = " GST_VIDEO_SIZE_RANGE ", " \
	"framerate = " GST_VIDEO_FPS_RANGE ", " \
	"texture-target = (string) 2D"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
	"sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(GLCUDA_FILTER_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
	"src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(GLCUDA_FILTER_CAPS));

static void
set_error(GstGlcudaFilter *self, int ret, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

static void
set_error(GstGlcudaFilter *self, int ret, const char *fmt, ...)
{
	va_list ap;

	self->ret = ret < 0 ? ret : -EINVAL;
	g_free(self->err);
	va_start(ap, fmt);
	self->err = g_strdup_vprintf(fmt, ap);
	va_end(ap);
}

static const char *
cuda_result(CUresult res, char *buf, size_t size)
{
	return tools_cuda_result(res, buf, size);
}

/* GL thread: what CUDA work the element runs, from the properties. */
static int
load_kernel(GstGlcudaFilter *self, const char *ptx, const char *cubin, const char *name)
{
	const char *path = ptx ? ptx : cubin;
	gchar *data = NULL;
	gsize len;
	GError *gerr = NULL;
	CUresult res;
	char buf[256];

	if (!path) {
		set_error(self, -EINVAL, "kernel-name=%s needs ptx-file or cubin-file", name);
		return self->ret;
	}
	/* g_file_get_contents ends the data with a NUL, as PTX text needs. */
	if (!g_file_get_contents(path, &data, &len, &gerr)) {
		set_error(self, -ENOENT, "cannot read the kernel file: %s", gerr->message);
		g_error_free(gerr);
		return self->ret;
	}
	res = CU(cuModuleLoadData)(&self->module, data);
	g_free(data);
	if (res != CUDA_SUCCESS) {
		self->module = NULL;
		set_error(self, GLCUDA_ERROR_CUDA, "cuModuleLoadData(%s): %s", path,
			  cuda_result(res, buf, sizeof(buf)));
		return self->ret;
	}
	res = CU(cuModuleGetFunction)(&self->function, self->module, name);
	if (res != CUDA_SUCCESS) {
		set_error(self, GLCUDA_ERROR_CUDA, "cuModuleGetFunction(%s) in %s: %s", name,
			  path, cuda_result(res, buf, sizeof(buf)));
		return self->ret;
	}
	return 0;
}

static void
log_device(GstGlcudaFilter *self)
{
	const struct glcuda_caps *caps = glcuda_device_get_caps(self->device->dev);

	GST_INFO_OBJECT(self, "glcuda %s device: GL %s (%s), CUDA device %d \"%s\", "
			"sync mode %s", glcuda_get_version(), caps->gl_version, caps->gl_renderer,
			caps->cuda_ordinal, caps->cuda_device_name,
			glcuda_sync_mode_get_name(caps->sync_mode));
	GST_DEBUG_OBJECT(self, "wrapped GL textures %s; hand-offs of wrapped textures %s "
			 "the CPU, of shared images (the copy path) %s",
			 caps->image_kinds_supported & (1u << GLCUDA_IMAGE_KIND_GL_TEXTURE) ?
				 "supported" : "not supported (copy path)",
			 caps->image_kinds_cpu_wait & (1u << GLCUDA_IMAGE_KIND_GL_TEXTURE) ?
				 "wait on" : "never wait on",
			 caps->image_kinds_cpu_wait & (1u << GLCUDA_IMAGE_KIND_SHARED) ?
				 "wait on the CPU (cpu sync mode)" : "do not wait on the CPU");
}

static void
stop_gl(GstGlcudaFilter *self)
{
	const GstGLFuncs *gl = GST_GL_BASE_FILTER(self)->context->gl_vtable;

	if (self->device && self->cuda_ctx && CU(cuCtxPushCurrent)(self->cuda_ctx) == CUDA_SUCCESS) {
		CUcontext dummy;

		/* The stream's last kernels may still read the images. */
		if (self->stream)
			CU(cuStreamSynchronize)(self->stream);
		filters_destroy(self->filters);
		if (self->module)
			CU(cuModuleUnload)(self->module);
		if (self->stream)
			CU(cuStreamDestroy)(self->stream);
		CU(cuCtxPopCurrent)(&dummy);
	}
	self->filters = NULL;
	self->filters_width = self->filters_height = 0;
	self->module = NULL;
	self->function = NULL;
	self->stream = NULL;
	self->cuda_ctx = NULL;
	glcuda_image_destroy(self->stage_in);
	glcuda_image_destroy(self->stage_out);
	self->stage_in = self->stage_out = NULL;
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
	gchar *ptx, *cubin, *name;
	char msg[1024], buf[256];
	CUcontext dummy;
	CUresult res;
	int ret = 0;

	if (!GST_GL_BASE_FILTER_CLASS(gst_glcuda_filter_parent_class)->gl_start(base))
		return FALSE;

	GST_OBJECT_LOCK(self);
	ptx = g_strdup(self->ptx_file);
	cubin = g_strdup(self->cubin_file);
	name = g_strdup(self->kernel_name);
	self->run_filter = self->filter;
	GST_OBJECT_UNLOCK(self);

	self->frames = 0;
	self->logged_routes = -1;
	GST_OBJECT_LOCK(self);
	self->stat_frames = 0;
	memset(self->stat_in, 0, sizeof(self->stat_in));
	memset(self->stat_out, 0, sizeof(self->stat_out));
	GST_OBJECT_UNLOCK(self);
	self->device = gcf_device_get(base->context, &ret, msg, sizeof(msg));
	if (!self->device) {
		GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND,
				  ("No usable CUDA device for this GL context: %s (%s)",
				   glcuda_strerror(ret), glcuda_error_get_name(ret)),
				  ("%s", msg));
		goto fail;
	}
	log_device(self);
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
		GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("cuCtxPushCurrent: %s",
				  cuda_result(res, buf, sizeof(buf))), (NULL));
		goto fail;
	}
	/* Non-blocking: the stream must not wait for other work on the
	 * legacy NULL stream of the process. */
	res = CU(cuStreamCreate)(&self->stream, CU_STREAM_NON_BLOCKING);
	if (res != CUDA_SUCCESS) {
		self->stream = NULL;
		set_error(self, GLCUDA_ERROR_CUDA, "cuStreamCreate: %s",
			  cuda_result(res, buf, sizeof(buf)));
	} else if (name) {
		load_kernel(self, ptx, cubin, name);
	} else {
		self->ret = 0;
	}
	CU(cuCtxPopCurrent)(&dummy);
	if (self->ret < 0) {
		GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("%s", self->err), (NULL));
		goto fail;
	}
	if (name)
		GST_INFO_OBJECT(self, "running kernel %s of %s on stream %p", name,
				ptx ? ptx : cubin, (void *)self->stream);
	else
		GST_INFO_OBJECT(self, "running filter %s on stream %p",
				filter_name(self->run_filter), (void *)self->stream);
	g_free(ptx);
	g_free(cubin);
	g_free(name);
	return TRUE;

fail:
	stop_gl(self);
	g_free(ptx);
	g_free(cubin);
	g_free(name);
	GST_GL_BASE_FILTER_CLASS(gst_glcuda_filter_parent_class)->gl_stop(base);
	return FALSE;
}

static void
gst_glcuda_filter_gl_stop(GstGLBaseFilter *base)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(base);

	GST_DEBUG_OBJECT(self, "stopping after %" G_GUINT64_FORMAT " frames", self->frames);
	stop_gl(self);
	GST_GL_BASE_FILTER_CLASS(gst_glcuda_filter_parent_class)->gl_stop(base);
}

/* GL thread: a copy of one texture into another, on the GPU (the copy
 * path only). The framebuffers are the element's; 0 is bound after. */
static int
blit(GstGlcudaFilter *self, guint src, guint dst, int w, int h)
{
	const GstGLFuncs *gl = GST_GL_BASE_FILTER(self)->context->gl_vtable;

	if (!gl->BlitFramebuffer) {
		set_error(self, GLCUDA_ERROR_MISSING_GL_EXTENSION,
			  "the copy path needs glBlitFramebuffer (GL 3.0 / GLES 3.0)");
		return self->ret;
	}
	if (!self->fbo[0])
		gl->GenFramebuffers(2, self->fbo);
	gl->BindFramebuffer(GL_READ_FRAMEBUFFER, self->fbo[0]);
	gl->FramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, src, 0);
	gl->BindFramebuffer(GL_DRAW_FRAMEBUFFER, self->fbo[1]);
	gl->FramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, dst, 0);
	gl->BlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
	gl->FramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
	gl->FramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
	gl->BindFramebuffer(GL_FRAMEBUFFER, 0);
	return 0;
}

/* GL thread: one of the copy path's shared images, at this size. */
static int
ensure_stage(GstGlcudaFilter *self, struct glcuda_image **stage, uint32_t w, uint32_t h)
{
	int ret;

	if (*stage && glcuda_image_get_width(*stage) == w && glcuda_image_get_height(*stage) == h)
		return 0;
	glcuda_image_destroy(*stage);
	*stage = NULL;
	ret = glcuda_image_new(self->device->dev, w, h, GLCUDA_FORMAT_RGBA8, 0, stage);
	if (ret < 0)
		set_error(self, ret, "glcuda_image_new(%ux%u RGBA8): %s", w, h,
			  glcuda_device_get_last_error(self->device->dev));
	return ret;
}

/* GL thread, images handed to CUDA: the CUDA work of one frame. */
static int
run_cuda(GstGlcudaFilter *self, struct glcuda_image *in, struct glcuda_image *out,
	 uint32_t w, uint32_t h)
{
	char buf[256];
	CUcontext dummy;
	CUresult res;
	int ret;

	if (self->function) {
		/* The documented convention: (CUsurfObject in, CUsurfObject
		 * out, int width, int height), one thread per pixel. */
		CUsurfObject sin = glcuda_image_get_cuda_surface(in);
		CUsurfObject sout = glcuda_image_get_cuda_surface(out);
		int iw = (int)w, ih = (int)h;
		void *args[] = { &sin, &sout, &iw, &ih };

		if (CU(cuCtxPushCurrent)(self->cuda_ctx) != CUDA_SUCCESS) {
			set_error(self, GLCUDA_ERROR_CUDA, "cuCtxPushCurrent failed");
			return self->ret;
		}
		res = CU(cuLaunchKernel)(self->function, (w + 15) / 16, (h + 15) / 16, 1, 16, 16, 1,
					 0, self->stream, args, NULL);
		CU(cuCtxPopCurrent)(&dummy);
		if (res != CUDA_SUCCESS) {
			set_error(self, GLCUDA_ERROR_CUDA, "cuLaunchKernel: %s",
				  cuda_result(res, buf, sizeof(buf)));
			return self->ret;
		}
		return 0;
	}
	if (self->run_filter == FILTER_NONE) {
		/* A copy needs no kernel: array to array, on the stream. */
		CUDA_MEMCPY2D copy;

		memset(&copy, 0, sizeof(copy));
		copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
		copy.srcArray = glcuda_image_get_cuda_array(in);
		copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
		copy.dstArray = glcuda_image_get_cuda_array(out);
		copy.WidthInBytes = (size_t)w * 4;
		copy.Height = h;
		if (CU(cuCtxPushCurrent)(self->cuda_ctx) != CUDA_SUCCESS) {
			set_error(self, GLCUDA_ERROR_CUDA, "cuCtxPushCurrent failed");
			return self->ret;
		}
		res = CU(cuMemcpy2DAsync)(&copy, self->stream);
		CU(cuCtxPopCurrent)(&dummy);
		if (res != CUDA_SUCCESS) {
			set_error(self, GLCUDA_ERROR_CUDA, "cuMemcpy2DAsync: %s",
				  cuda_result(res, buf, sizeof(buf)));
			return self->ret;
		}
		return 0;
	}
	/* The built-in filters size their scratch buffers for the largest
	 * frame: made on first use, again when a frame is larger. */
	if (!self->filters || w > self->filters_width || h > self->filters_height) {
		filters_destroy(self->filters);
		self->filters = NULL;
		ret = filters_new(self->device->dev, w, h, NULL, &self->filters);
		if (ret < 0) {
			set_error(self, ret, "filter %s: %s", filter_name(self->run_filter),
				  filters_last_error());
			return self->ret;
		}
		self->filters_width = w;
		self->filters_height = h;
	}
	ret = filters_run(self->filters, self->run_filter, self->stream, in, out);
	if (ret < 0)
		set_error(self, ret, "filter %s: %s", filter_name(self->run_filter),
			  filters_last_error());
	return ret;
}

/* GL thread: one buffer, self->cur_in to self->cur_out. */
static void
process_gl(GstGLContext *context, gpointer data)
{
	GstGlcudaFilter *self = data;
	struct gcf_device *d = self->device;
	struct glcuda_device *dev = d->dev;
	GstGLMemory *min = self->cur_in, *mout = self->cur_out;
	uint32_t w = (uint32_t)gst_gl_memory_get_texture_width(min);
	uint32_t h = (uint32_t)gst_gl_memory_get_texture_height(min);
	/* Images of a glcuda pool (ours or another glcudafilter's on this
	 * device) go to CUDA as they are. */
	struct glcuda_image *in = pooled_image(d, min), *out = pooled_image(d, mout);
	enum gcf_route in_route = ROUTE_POOLED, out_route = ROUTE_POOLED;
	gboolean can_wrap = !d->wrap_refused &&
			    (glcuda_device_get_caps(dev)->image_kinds_supported &
			     (1u << GLCUDA_IMAGE_KIND_GL_TEXTURE));
	gboolean identity = !self->function && self->run_filter == FILTER_NONE;
	struct glcuda_image *images[2];
	unsigned int count = 0;
	int ret = 0, back;

	self->ret = 0;
	if (w != (uint32_t)gst_gl_memory_get_texture_width(mout) ||
	    h != (uint32_t)gst_gl_memory_get_texture_height(mout)) {
		set_error(self, -EINVAL, "input %ux%u and output %dx%d differ", w, h,
			  gst_gl_memory_get_texture_width(mout),
			  gst_gl_memory_get_texture_height(mout));
		return;
	}
	if (can_wrap && !in) {
		in_route = ROUTE_WRAPPED;
		ret = wrap_get(d, min, 0, &in);
	}
	if (can_wrap && ret == 0 && !out) {
		out_route = ROUTE_WRAPPED;
		ret = wrap_get(d, mout, GLCUDA_WRAP_FLAG_WRITE_DISCARD, &out);
	}
	if (ret < 0) {
		/* The driver or the format refuses registration: copies from
		 * now on, for what is not a pool's image. */
		GST_WARNING_OBJECT(self, "cannot wrap GL texture %u: %s (%s); copying into and "
				   "out of shared images on the GPU instead",
				   gst_gl_memory_get_texture_id(out_route == ROUTE_WRAPPED ? mout : min),
				   glcuda_strerror(ret), glcuda_device_get_last_error(dev));
		d->wrap_refused = TRUE;
		can_wrap = FALSE;
		in = pooled_image(d, min);
		out = pooled_image(d, mout);
		in_route = out_route = ROUTE_POOLED;
	}
	if (!in) {
		in_route = ROUTE_COPIED;
		if (ensure_stage(self, &self->stage_in, w, h) < 0 ||
		    blit(self, gst_gl_memory_get_texture_id(min),
			 glcuda_image_get_gl_texture(self->stage_in), (int)w, (int)h) < 0)
			return;
		in = self->stage_in;
	}
	/* "none" is a copy: CUDA's, array to array, where CUDA registers GL
	 * textures. Elsewhere (CUDA may not copy between the arrays of
	 * shared images: the fake driver) the input's image alone is handed
	 * to CUDA and back, the frame's hand-off as for any filter, and GL
	 * copies it into the output texture. */
	if (identity && !can_wrap) {
		out = NULL;
		out_route = ROUTE_COPIED;
	} else if (!out) {
		out_route = ROUTE_COPIED;
		if (ensure_stage(self, &self->stage_out, w, h) < 0)
			return;
		out = self->stage_out;
	}
	if (self->logged_routes != (int)(in_route * ROUTE_COUNT + out_route)) {
		GST_INFO_OBJECT(self, "%ux%u RGBA: input %s, output %s", w, h,
				route_names[in_route], route_names[out_route]);
		self->logged_routes = (int)(in_route * ROUTE_COUNT + out_route);
	}

	images[count++] = in;
	if (out)
		images[count++] = out;
	ret = glcuda_handoff_to_cuda(dev, images, count, self->stream);
	if (ret < 0) {
		set_error(self, ret, "glcuda_handoff_to_cuda: %s: %s", glcuda_strerror(ret),
			  glcuda_device_get_last_error(dev));
		return;
	}
	ret = out ? run_cuda(self, in, out, w, h) : 0;
	/* Handed back whatever the CUDA work did: GL owns the textures again.
	 * GL's later commands (the copy out, or downstream's reads of a
	 * pooled output) wait for CUDA's on the GPU. */
	back = glcuda_handoff_to_gl(dev, images, count, self->stream);
	if (back < 0 && ret == 0)
		set_error(self, back, "glcuda_handoff_to_gl: %s: %s", glcuda_strerror(back),
			  glcuda_device_get_last_error(dev));
	if (ret < 0 || back < 0)
		return;
	if (out_route == ROUTE_COPIED &&
	    blit(self, glcuda_image_get_gl_texture(out ? out : in),
		 gst_gl_memory_get_texture_id(mout), (int)w, (int)h) < 0)
		return;
	GST_LOG_OBJECT(self, "frame %" G_GUINT64_FORMAT ": textures %u -> %u, input %s, "
		       "output %s, hand-offs of %u images on stream %p", self->frames,
		       gst_gl_memory_get_texture_id(min), gst_gl_memory_get_texture_id(mout),
		       route_names[in_route], route_names[out_route], count,
		       (void *)self->stream);
	self->frames++;
	GST_OBJECT_LOCK(self);
	self->stat_frames++;
	self->stat_in[in_route]++;
	self->stat_out[out_route]++;
	GST_OBJECT_UNLOCK(self);
}

static gboolean
gst_glcuda_filter_filter_texture(GstGLFilter *filter, GstGLMemory *in, GstGLMemory *out)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(filter);

	self->cur_in = in;
	self->cur_out = out;
	gst_gl_context_thread_add(GST_GL_BASE_FILTER(filter)->context, process_gl, self);
	self->cur_in = self->cur_out = NULL;
	if (self->ret < 0) {
		GST_ELEMENT_ERROR(self, STREAM, FAILED, ("CUDA filter failed: %s", self->err),
				  ("glcuda error %s", glcuda_error_get_name(self->ret)));
		return FALSE;
	}
	return TRUE;
}

/* Upstream renders into glcuda images: a pool of this element's device,
 * whose buffers this element then hands to CUDA as they are. Before the
 * device exists (or without one), GstGLFilter's plain GL pool. */
static gboolean
gst_glcuda_filter_propose_allocation(GstBaseTransform *trans, GstQuery *decide_query,
				     GstQuery *query)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(trans);
	GstGLContext *context = GST_GL_BASE_FILTER(trans)->context;
	GstBufferPool *pool = NULL;
	GstStructure *config;
	GstVideoInfo info;
	GstCaps *caps;
	gboolean need_pool;

	if (!self->device || !context)
		return GST_BASE_TRANSFORM_CLASS(gst_glcuda_filter_parent_class)->propose_allocation(
			trans, decide_query, query);
	gst_query_parse_allocation(query, &caps, &need_pool);
	if (!caps || !gst_video_info_from_caps(&info, caps)) {
		GST_DEBUG_OBJECT(self, "allocation query without usable caps");
		return FALSE;
	}
	if (need_pool) {
		pool = gst_glcuda_buffer_pool_new(self->device);
		config = gst_buffer_pool_get_config(pool);
		gst_buffer_pool_config_set_params(config, caps, (guint)info.size, 0, 0);
		gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
		if (!gst_buffer_pool_set_config(pool, config)) {
			GST_WARNING_OBJECT(self, "cannot configure the pool for %" GST_PTR_FORMAT,
					   caps);
			gst_object_unref(pool);
			return FALSE;
		}
		GST_DEBUG_OBJECT(self, "proposing %" GST_PTR_FORMAT " for %" GST_PTR_FORMAT,
				 pool, caps);
	}
	gst_query_add_allocation_pool(query, pool, (guint)info.size, 1, 0);
	if (pool)
		gst_object_unref(pool);
	if (context->gl_vtable->FenceSync)
		gst_query_add_allocation_meta(query, GST_GL_SYNC_META_API_TYPE, NULL);
	return TRUE;
}

/* The output buffers are glcuda images too: a pool of this device that
 * downstream proposed (a glcudafilter after this one) as it is, any other
 * replaced by one of ours with the same configuration. */
static gboolean
gst_glcuda_filter_decide_allocation(GstBaseTransform *trans, GstQuery *query)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(trans);
	GstBufferPool *pool = NULL, *ours;
	GstStructure *config;
	guint size, min, max;

	/* GstGLFilter's: the context, gl_start, a configured GL pool. */
	if (!GST_BASE_TRANSFORM_CLASS(gst_glcuda_filter_parent_class)->decide_allocation(trans,
											    query))
		return FALSE;
	if (!self->device || gst_query_get_n_allocation_pools(query) == 0)
		return TRUE;
	gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min, &max);
	if (!pool)
		return TRUE;
	if (GST_IS_GLCUDA_BUFFER_POOL(pool) &&
	    GST_GLCUDA_BUFFER_POOL(pool)->device == self->device) {
		GST_DEBUG_OBJECT(self, "output into downstream's %" GST_PTR_FORMAT, pool);
		gst_object_unref(pool);
		return TRUE;
	}
	ours = gst_glcuda_buffer_pool_new(self->device);
	config = gst_buffer_pool_get_config(pool);
	gst_object_unref(pool);
	if (!gst_buffer_pool_set_config(ours, config)) {
		GST_WARNING_OBJECT(self, "cannot configure an output pool of glcuda images; "
				   "the output is copied out of one");
		gst_object_unref(ours);
		return TRUE;
	}
	GST_DEBUG_OBJECT(self, "output into %" GST_PTR_FORMAT, ours);
	gst_query_set_nth_allocation_pool(query, 0, ours, size, min, max);
	gst_object_unref(ours);
	return TRUE;
}

static void
gst_glcuda_filter_set_property(GObject *object, guint prop_id, const GValue *value,
			       GParamSpec *pspec)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(object);

	GST_OBJECT_LOCK(self);
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
	GST_OBJECT_UNLOCK(self);
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
	case PROP_STATS:
		g_value_take_boxed(value, gst_structure_new("glcudafilter-stats",
			"frames", G_TYPE_UINT64, self->stat_frames,
			"input-pooled", G_TYPE_UINT64, self->stat_in[ROUTE_POOLED],
			"input-wrapped", G_TYPE_UINT64, self->stat_in[ROUTE_WRAPPED],
			"input-copied", G_TYPE_UINT64, self->stat_in[ROUTE_COPIED],
			"output-pooled", G_TYPE_UINT64, self->stat_out[ROUTE_POOLED],
			"output-wrapped", G_TYPE_UINT64, self->stat_out[ROUTE_WRAPPED],
			"output-copied", G_TYPE_UINT64, self->stat_out[ROUTE_COPIED], NULL));
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
		break;
	}
	GST_OBJECT_UNLOCK(self);
}

static void
gst_glcuda_filter_finalize(GObject *object)
{
	GstGlcudaFilter *self = GST_GLCUDA_FILTER(object);

	g_free(self->ptx_file);
	g_free(self->cubin_file);
	g_free(self->kernel_name);
	g_free(self->err);
	G_OBJECT_CLASS(gst_glcuda_filter_parent_class)->finalize(object);
}

static void
gst_glcuda_filter_class_init(GstGlcudaFilterClass *klass)
{
	GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
	GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
	GstBaseTransformClass *transform_class = GST_BASE_TRANSFORM_CLASS(klass);
	GstGLBaseFilterClass *base_class = GST_GL_BASE_FILTER_CLASS(klass);
	GstGLFilterClass *filter_class = GST_GL_FILTER_CLASS(klass);
	const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
				  GST_PARAM_MUTABLE_READY;

	gobject_class->set_property = gst_glcuda_filter_set_property;
	gobject_class->get_property = gst_glcuda_filter_get_property;
	gobject_class->finalize = gst_glcuda_filter_finalize;

	g_object_class_install_property(gobject_class, PROP_FILTER,
		g_param_spec_enum("filter", "Filter",
				  "Built-in CUDA filter (ignored when kernel-name is set)",
				  GST_TYPE_GLCUDA_FILTER_KIND, FILTER_NONE, flags));
	g_object_class_install_property(gobject_class, PROP_PTX_FILE,
		g_param_spec_string("ptx-file", "PTX file",
				    "PTX file with the kernel named by kernel-name",
				    NULL, flags));
	g_object_class_install_property(gobject_class, PROP_CUBIN_FILE,
		g_param_spec_string("cubin-file", "Cubin file",
				    "Cubin or fatbin file with the kernel named by kernel-name "
				    "(used when ptx-file is not set)", NULL, flags));
	g_object_class_install_property(gobject_class, PROP_KERNEL_NAME,
		g_param_spec_string("kernel-name", "Kernel name",
				    "Kernel to run instead of the built-in filter: "
				    "extern \"C\" __global__ void NAME(cudaSurfaceObject_t in, "
				    "cudaSurfaceObject_t out, int width, int height), launched "
				    "with 16x16 blocks covering the frame", NULL, flags));
	g_object_class_install_property(gobject_class, PROP_STATS,
		g_param_spec_boxed("stats", "Statistics",
				   "Frames filtered since the element started, and how each "
				   "frame's input reached CUDA and CUDA's result the output: "
				   "pooled (an image of a glcuda buffer pool, no copy), wrapped "
				   "(a registered GL texture, no copy) or copied (a GPU copy "
				   "through a shared image)", GST_TYPE_STRUCTURE,
				   G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

	gst_element_class_set_static_metadata(element_class, "glcuda CUDA filter",
		"Filter/Effect/Video/Hardware",
		"Runs a CUDA filter on RGBA GL textures without copies, through glcuda",
		"glcuda");
	gst_element_class_add_static_pad_template(element_class, &sink_template);
	gst_element_class_add_static_pad_template(element_class, &src_template);

	base_class->supported_gl_api = GST_GL_API_OPENGL3 | GST_GL_API_GLES2;
	base_class->gl_start = gst_glcuda_filter_gl_start;
	base_class->gl_stop = gst_glcuda_filter_gl_stop;
	filter_class->filter_texture = gst_glcuda_filter_filter_texture;
	transform_class->propose_allocation = gst_glcuda_filter_propose_allocation;
	transform_class->decide_allocation = gst_glcuda_filter_decide_allocation;

	gst_type_mark_as_plugin_api(GST_TYPE_GLCUDA_FILTER_KIND, 0);
	wrap_quark = g_quark_from_static_string("glcuda-wrap");
	GST_DEBUG_CATEGORY_INIT(gst_glcuda_filter_debug, "glcudafilter", 0,
				"glcuda CUDA filter");
}

static void
gst_glcuda_filter_init(GstGlcudaFilter *self)
{
	self->filter = FILTER_NONE;
}

static gboolean
plugin_init(GstPlugin *plugin)
{
	return GST_ELEMENT_REGISTER(glcudafilter, plugin);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, glcuda,
		  "GL to CUDA hand-offs without copies (glcuda)", plugin_init, VERSION, "MIT",
		  PACKAGE_NAME, PACKAGE_NAME)
