/*
 * glcudafilter's default GL display: the EGL device of a CUDA device CUDA
 * can see, where GstGL's headless display would be another GPU's.
 * SPDX-License-Identifier: MIT
 */
#ifndef GST_GLCUDA_DISPLAY_H
#define GST_GLCUDA_DISPLAY_H

#include <gst/gl/gl.h>

G_BEGIN_DECLS

/*
 * GstGL's headless display (GST_GL_WINDOW=egl-device) is always the first
 * EGL device, and EGL lists every GPU whatever CUDA_VISIBLE_DEVICES says:
 * with CUDA_VISIBLE_DEVICES=1 on two GPUs, that is a GPU CUDA cannot use.
 * Unless the application or a neighbour gave a display, @filter offers
 * (to itself, its GL neighbours and the bin) the display of the EGL
 * device glcuda_headless_new(-1) picks. Called before the element needs a
 * display: when a neighbour asks for one, and going to READY.
 */
void gcf_offer_default_display(GstGLBaseFilter *filter);

G_END_DECLS

#endif
