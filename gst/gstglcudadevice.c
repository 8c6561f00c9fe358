/*
 * glcudafilter's devices, one per GstGLContext (gstglcudadevice.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>

#include <EGL/egl.h>

#include "gstglcudadevice.h"

#define GST_CAT_DEFAULT gst_glcuda_filter_debug

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

struct gcf_device *
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

struct gcf_device *
gcf_device_ref(struct gcf_device *d)
{
	g_atomic_int_inc(&d->refcount);
	return d;
}

void
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
