/*
 * glcudafilter's video formats and the wraps of GstGLMemory textures
 * (gstglcudaformat.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "gstglcudaformat.h"

/* In the order of the pad templates' list (GLCUDA_FILTER_FORMATS). */
const struct gcf_format gcf_formats[GCF_N_FORMATS] = {
	{ GST_VIDEO_FORMAT_RGBA, 1, { GLCUDA_FORMAT_RGBA8 }, { NULL }, FALSE },
	{ GST_VIDEO_FORMAT_RGB10A2_LE,
	  1,
	  { GLCUDA_FORMAT_RGB10_A2 },
	  { "glcudafilter_invert_rgb10a2" },
	  FALSE },
	{ GST_VIDEO_FORMAT_NV12,
	  2,
	  { GLCUDA_FORMAT_R8, GLCUDA_FORMAT_RG8 },
	  { "glcudafilter_invert_r8", "glcudafilter_invert_rg8" },
	  FALSE },
	{ GST_VIDEO_FORMAT_P010_10LE,
	  2,
	  { GLCUDA_FORMAT_R16, GLCUDA_FORMAT_RG16 },
	  { "glcudafilter_invert_p010_r16", "glcudafilter_invert_p010_rg16" },
	  FALSE },
	{ GST_VIDEO_FORMAT_BGRA, 1, { GLCUDA_FORMAT_RGBA8 }, { NULL }, TRUE },
	{ GST_VIDEO_FORMAT_BGRx, 1, { GLCUDA_FORMAT_RGBA8 }, { NULL }, TRUE },
	{ GST_VIDEO_FORMAT_RGBx, 1, { GLCUDA_FORMAT_RGBA8 }, { NULL }, FALSE },
	{ GST_VIDEO_FORMAT_I420,
	  3,
	  { GLCUDA_FORMAT_R8, GLCUDA_FORMAT_R8, GLCUDA_FORMAT_R8 },
	  { "glcudafilter_invert_r8", "glcudafilter_invert_r8",
	    "glcudafilter_invert_r8" },
	  FALSE },
};
G_STATIC_ASSERT(G_N_ELEMENTS(gcf_formats) == GCF_N_FORMATS);

const struct gcf_format *
gcf_format_find(GstVideoFormat video)
{
	for (guint i = 0; i < GCF_N_FORMATS; i++)
		if (gcf_formats[i].video == video)
			return &gcf_formats[i];
	return NULL;
}

guint
gcf_plane_width(const GstVideoInfo *info, guint plane)
{
	gint comp[GST_VIDEO_MAX_COMPONENTS];

	gst_video_format_info_component(info->finfo, plane, comp);
	return (guint)GST_VIDEO_INFO_COMP_WIDTH(info, comp[0]);
}

guint
gcf_plane_height(const GstVideoInfo *info, guint plane)
{
	gint comp[GST_VIDEO_MAX_COMPONENTS];

	gst_video_format_info_component(info->finfo, plane, comp);
	return (guint)GST_VIDEO_INFO_COMP_HEIGHT(info, comp[0]);
}

/* Wraps of GstGLMemory textures, cached on the memory. */
struct gcf_wrap {
	struct gcf_device *device;
	struct glcuda_image *image;
	uint32_t flags;
};

static GQuark
wrap_quark(void)
{
	static gsize quark;

	if (g_once_init_enter(&quark))
		g_once_init_leave(&quark,
				  g_quark_from_static_string("glcuda-wrap"));
	return (GQuark)quark;
}

/* The memory's qdata notify: it runs before the memory's free function
 * deletes the texture, so the registration goes first, as glcuda asks. */
static void
wrap_free(gpointer data)
{
	struct gcf_wrap *w = data;

	gcf_device_release_image(w->device, w->image);
	g_free(w);
}

int
gcf_wrap_get(struct gcf_device *d, GstGLMemory *mem, uint32_t flags,
	     struct glcuda_image **out)
{
	struct gcf_wrap *w =
		gst_mini_object_get_qdata(GST_MINI_OBJECT(mem), wrap_quark());
	struct glcuda_image *img;
	int ret;

	if (w && w->device == d && w->flags == flags) {
		*out = w->image;
		return 0;
	}
	ret = glcuda_image_wrap_gl_texture(
		d->dev, gst_gl_memory_get_texture_id(mem),
		0x0DE1 /* GL_TEXTURE_2D */, flags, &img);
	if (ret < 0)
		return ret;
	w = g_new0(struct gcf_wrap, 1);
	w->device = gcf_device_ref(d);
	w->image = img;
	w->flags = flags;
	/* Replaces (and frees) a wrap of another device or other flags. */
	gst_mini_object_set_qdata(GST_MINI_OBJECT(mem), wrap_quark(), w,
				  wrap_free);
	*out = img;
	return 0;
}
