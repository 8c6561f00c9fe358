/*
 * glcudafilter: a GstGLFilter that runs a CUDA filter on GL textures
 * through glcuda (gst/gstglcudafilter.c says how).
 * SPDX-License-Identifier: MIT
 */
#ifndef GST_GLCUDA_FILTER_H
#define GST_GLCUDA_FILTER_H

#include <gst/gst.h>
#include <gst/gl/gl.h>

G_BEGIN_DECLS

#define GST_TYPE_GLCUDA_FILTER (gst_glcuda_filter_get_type())
G_DECLARE_FINAL_TYPE(GstGlcudaFilter, gst_glcuda_filter, GST, GLCUDA_FILTER,
		     GstGLFilter)

GST_ELEMENT_REGISTER_DECLARE(glcudafilter);

G_END_DECLS

#endif
