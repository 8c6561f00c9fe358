/*
 * glcudafilter's video formats, as GL textures of glcuda formats (one
 * texture per plane), and the glcuda images that wrap GstGLMemory
 * textures, cached on the memory.
 * SPDX-License-Identifier: MIT
 */
#ifndef GST_GLCUDA_FORMAT_H
#define GST_GLCUDA_FORMAT_H

#include <stdint.h>

#include <glcuda/glcuda.h>
#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include "gstglcudadevice.h"

G_BEGIN_DECLS

#define GCF_MAX_PLANES 3

/* What GstGL makes of each format the element takes (one texture per
 * plane, in the GL format of the glcuda format named here, its bytes in
 * the order of the video format's: BGRA's texture holds B in red) and the
 * built-in invert's kernel of each plane (gst/glcudafilter-kernels.cu;
 * NULL for the 8-bit RGB formats, which run the tools' filters, in the
 * colour order @bgr says). */
struct gcf_format {
	GstVideoFormat video;
	guint n_planes;
	enum glcuda_format planes[GCF_MAX_PLANES];
	const char *invert[GCF_MAX_PLANES];
	gboolean bgr;
};

/* Whether @fmt runs the tools' filters (blur, unsharp, grade, invert):
 * RGBA, BGRA, RGBx and BGRx. */
#define GCF_FORMAT_IS_RGB8(fmt) ((fmt)->invert[0] == NULL)

#define GCF_N_FORMATS 8
extern const struct gcf_format gcf_formats[GCF_N_FORMATS];

/* The entry of @video in gcf_formats; NULL if the element does not take it. */
const struct gcf_format *gcf_format_find(GstVideoFormat video);

/* A plane's size, as GstGL sizes its texture (the chroma plane of NV12
 * I420 and P010 is half the frame's size, rounded up). */
guint gcf_plane_width(const GstVideoInfo *info, guint plane);
guint gcf_plane_height(const GstVideoInfo *info, guint plane);

/* GL thread. The wrap of @mem's texture with glcuda_image_wrap_gl_texture()
 * (@flags), made on first use and kept on the memory (the wrap is dropped
 * just before the memory deletes its texture), in *out. 0 or a glcuda
 * error (glcuda_device_get_last_error() says more). */
int gcf_wrap_get(struct gcf_device *d, GstGLMemory *mem, uint32_t flags,
		 struct glcuda_image **out);

G_END_DECLS

#endif
