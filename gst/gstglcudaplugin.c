/*
 * The glcuda GStreamer plugin (libgstglcuda.so): its one element,
 * glcudafilter (gstglcudafilter.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <gst/gst.h>

#include "gstglcudafilter.h"

/* The plugin's origin (a URL): configure.ac's AC_INIT is the one place it
 * is written. GStreamer refuses a plugin with an empty origin: while
 * AC_INIT names no URL, the package's name stands in. */
#define GCF_ORIGIN (sizeof(PACKAGE_URL) > 1 ? PACKAGE_URL : PACKAGE_NAME)

static gboolean
plugin_init(GstPlugin *plugin)
{
	return GST_ELEMENT_REGISTER(glcudafilter, plugin);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, glcuda,
		  "GL to CUDA hand-offs without copies (glcuda)", plugin_init, VERSION, "MIT/X11",
		  PACKAGE_NAME, GCF_ORIGIN)
