/*
 * glcudafilter's default GL display (gstglcudadisplay.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <glcuda/glcuda.h>
#include <gst/gl/egl/gstgldisplay_egl_device.h>

#include "gstglcudadevice.h"
#include "gstglcudadisplay.h"

#define GST_CAT_DEFAULT gst_glcuda_filter_debug

/* The EGL device glcuda_headless_new(-1) opens (that of a CUDA device CUDA
 * can see), NULL when none can be opened or it has no EGL device. On a
 * thread of its own: the headless context is made current there, never on
 * the caller's thread. */
static gpointer
cuda_egl_device_thread(gpointer data)
{
	PFNEGLQUERYDISPLAYATTRIBEXTPROC query_display =
		(PFNEGLQUERYDISPLAYATTRIBEXTPROC)eglGetProcAddress(
			"eglQueryDisplayAttribEXT");
	struct glcuda_headless *hl = NULL;
	EGLAttrib device = 0;

	if (!query_display ||
	    (glcuda_headless_new(-1, 0, &hl) != 0 &&
	     glcuda_headless_new(-1, GLCUDA_HEADLESS_FLAG_GLES, &hl) != 0))
		return NULL;
	/* A display that is no CUDA device's is no better than GstGL's. */
	if (glcuda_headless_get_cuda_match(hl) == GLCUDA_HEADLESS_CUDA_NONE ||
	    !query_display(glcuda_headless_get_display(hl), EGL_DEVICE_EXT,
			   &device))
		device = 0;
	glcuda_headless_destroy(hl);
	return (gpointer)device;
}

/* Looked for once per process (it opens a GL context, and what it finds
 * does not change while the process runs). */
static gpointer
cuda_egl_device_once(gpointer data)
{
	return g_thread_join(
		g_thread_new("glcuda-display", cuda_egl_device_thread, NULL));
}

void
gcf_offer_default_display(GstGLBaseFilter *filter)
{
	PFNEGLQUERYDEVICESEXTPROC query_devices =
		(PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress(
			"eglQueryDevicesEXT");
	const char *window = g_getenv("GST_GL_WINDOW");
	static GOnce once = G_ONCE_INIT;
	GstGLDisplayEGLDevice *display;
	EGLDeviceEXT device, listed[32];
	GstContext *context;
	EGLint n = 0, index = -1;

	if (filter->display || !window || !strstr(window, "egl-device") ||
	    !query_devices)
		return;
	device = g_once(&once, cuda_egl_device_once, NULL);
	if (!device || !query_devices(G_N_ELEMENTS(listed), listed, &n) ||
	    n < 1 || device == listed[0]) {
		(void)eglGetError();
		return;
	}
	for (EGLint i = 0; i < n && index < 0; i++)
		if (listed[i] == device)
			index = i;
	display = gst_gl_display_egl_device_new_with_egl_device(device);
	if (!display)
		return;
	GST_INFO_OBJECT(
		filter,
		"GL display: EGL device %d, a CUDA device's that CUDA can "
		"see (GstGL's own would be EGL device 0)",
		index);
	context = gst_context_new(GST_GL_DISPLAY_CONTEXT_TYPE, TRUE);
	gst_context_set_gl_display(context, GST_GL_DISPLAY(display));
	gst_element_set_context(GST_ELEMENT(filter), context);
	gst_element_post_message(
		GST_ELEMENT(filter),
		gst_message_new_have_context(GST_OBJECT(filter), context));
	gst_object_unref(display);
}
