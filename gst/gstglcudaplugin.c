/*
 * The glcuda GStreamer plugin (libgstglcuda.so): its one element,
 * glcudafilter (gstglcudafilter.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <gst/gst.h>

#include "gstglcudafilter.h"


static gboolean
plugin_init(GstPlugin *plugin)
{
	return GST_ELEMENT_REGISTER(glcudafilter, plugin);
}

/* The origin: the project's URL, from configure.ac's AC_INIT (the one
 * place it is written). */
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, glcuda,
		  "GL to CUDA hand-offs without copies (glcuda)", plugin_init,
		  VERSION, "MIT/X11", PACKAGE_NAME, PACKAGE_URL)
