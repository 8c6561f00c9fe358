/*
 * glcudafilter's devices, shared through GstContext (gstglcudadevice.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>

#include <EGL/egl.h>

#include "cuda-table.h"
#include <glcuda/glcuda-cuda.h>

#include "gstglcudadevice.h"

#define GST_CAT_DEFAULT gst_glcuda_filter_debug

struct device_new_args {
	void *cuda_context;
	struct glcuda_device *dev;
	int ret;
	char msg[1024];
};

/* glcuda's messages of the device go to GStreamer's log, not stderr
 * (the process-wide handler is the application's to set). */
static void G_GNUC_PRINTF(3, 0)
	device_log(enum glcuda_log_priority priority, void *user_data,
		   const char *format, va_list args)
{
	GstDebugLevel level =
		priority >= GLCUDA_LOG_PRIORITY_ERROR  ? GST_LEVEL_WARNING
		: priority >= GLCUDA_LOG_PRIORITY_INFO ? GST_LEVEL_INFO
						       : GST_LEVEL_DEBUG;
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
			 "the GstGLContext is not an EGL context (glcuda needs "
			 "EGL: "
			 "set GST_GL_PLATFORM=egl)");
		return;
	}
	glcuda_device_options_init(&opts);
	opts.log_func = device_log;
	/* Everything, filtered by the debug category's threshold. */
	opts.log_priority = GLCUDA_LOG_PRIORITY_DEBUG;
	opts.cuda_context = a->cuda_context;
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

struct gcf_device *
gcf_device_new(GstGLContext *context, GstObject *cuda_owner,
	       void *cuda_context, int *ret, char *msg, size_t size)
{
	struct device_new_args a = { cuda_context, NULL, 0, "" };
	struct gcf_device *d;

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
	d->cuda_owner = cuda_owner ? gst_object_ref(cuda_owner) : NULL;
	return d;
}

struct gcf_device *
gcf_device_ref(struct gcf_device *d)
{
	g_atomic_int_inc(&d->refcount);
	return d;
}

void
gcf_device_unref(struct gcf_device *d)
{
	if (!d || !g_atomic_int_dec_and_test(&d->refcount))
		return;
	gst_gl_context_thread_add(d->context, device_destroy_gl, d->dev);
	gst_object_unref(d->context);
	if (d->cuda_owner)
		gst_object_unref(d->cuda_owner);
	g_free(d);
}

G_DEFINE_BOXED_TYPE(GcfDevice, gcf_device, gcf_device_ref, gcf_device_unref)

GstContext *
gcf_device_context_new(struct gcf_device *d)
{
	GstContext *context = gst_context_new(GCF_DEVICE_CONTEXT_TYPE, TRUE);

	gst_structure_set(gst_context_writable_structure(context),
			  "device", gcf_device_get_type(), d,
			  "gl-context", GST_TYPE_GL_CONTEXT, d->context, NULL);
	return context;
}

struct gcf_device *
gcf_device_from_context(GstContext *context, GstGLContext *gl,
			void *cuda_context)
{
	const GstStructure *s;
	struct gcf_device *d = NULL;

	if (g_strcmp0(gst_context_get_context_type(context),
		      GCF_DEVICE_CONTEXT_TYPE) != 0)
		return NULL;
	s = gst_context_get_structure(context);
	if (!gst_structure_get(s, "device", gcf_device_get_type(), &d, NULL))
		return NULL;
	if ((gl && d->context != gl) ||
	    (cuda_context &&
	     glcuda_device_get_cuda_context(d->dev) != cuda_context)) {
		gcf_device_unref(d);
		return NULL;
	}
	return d;
}

struct device_find_args {
	GstGLContext *gl;
	void *cuda_context;
	struct gcf_device *device;
};

/* gst_element_foreach_*_pad: the device of a->gl that @pad's peer has,
 * if it answers the query; FALSE (stop) once one is found. */
static gboolean
device_from_peer(GstElement *element, GstPad *pad, gpointer data)
{
	struct device_find_args *a = data;
	GstQuery *query = gst_query_new_context(GCF_DEVICE_CONTEXT_TYPE);
	GstContext *context;

	if (gst_pad_peer_query(pad, query)) {
		gst_query_parse_context(query, &context);
		if (context)
			a->device = gcf_device_from_context(context, a->gl,
							    a->cuda_context);
	}
	gst_query_unref(query);
	return a->device == NULL;
}

struct gcf_device *
gcf_device_find(GstElement *element, GstGLContext *gl, void *cuda_context)
{
	struct device_find_args a = { gl, cuda_context, NULL };

	/* Downstream first, as GstGL's elements ask for their context. */
	gst_element_foreach_src_pad(element, device_from_peer, &a);
	if (!a.device)
		gst_element_foreach_sink_pad(element, device_from_peer, &a);
	if (a.device)
		GST_DEBUG_OBJECT(element, "glcuda device %p from a neighbour",
				 (void *)a.device);
	return a.device;
}

gboolean
gcf_device_handle_query(GstElement *element, GstQuery *query,
			struct gcf_device *d)
{
	GstContext *context;
	const gchar *type;

	if (!d || GST_QUERY_TYPE(query) != GST_QUERY_CONTEXT ||
	    !gst_query_parse_context_type(query, &type) ||
	    g_strcmp0(type, GCF_DEVICE_CONTEXT_TYPE) != 0)
		return FALSE;
	context = gcf_device_context_new(d);
	gst_query_set_context(query, context);
	gst_context_unref(context);
	GST_DEBUG_OBJECT(element, "gave glcuda device %p in a context query",
			 (void *)d);
	return TRUE;
}

static void
image_destroy_gl(GstGLContext *context, gpointer data)
{
	glcuda_image_destroy(data);
}

void
gcf_device_release_image(struct gcf_device *d, struct glcuda_image *image)
{
	gst_gl_context_thread_add(d->context, image_destroy_gl, image);
	gcf_device_unref(d);
}
