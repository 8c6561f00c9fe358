/*
 * glcudafilter in GStreamer's own way: GstHarness pushes buffers through
 * the element and pulls them back, pipelines run to EOS, on Mesa and the
 * fake CUDA driver (tests/fake-cuda). Pixels, per plane and row, on GL
 * and GLES, at even and odd sizes: every format the element takes (RGBA,
 * RGB10A2_LE, BGRA, BGRx, RGBx, and NV12, I420, P010_10LE as one texture
 * per plane) through filter=none, the built-in invert (CPU versions of
 * the element's kernels in the fake), a kernel of the user's run once per
 * plane (invert_planes) and two inverts in a row (the first into the
 * second's pool), against GstGL's own round trip of the same frame;
 * glcolorconvert rendering into the element's pool (NV12, RGBA); the
 * fake's ring_transform (a CPU invert) on RGBA against the inverse; BGRA,
 * BGRx and RGBx through every filter against RGBA through the same
 * filter. The route property: the counters of an input that is not the
 * element's pool's (glupload's) with route=auto, copy and wrap (the fake
 * registers no GL texture: wrap copies, and says so once), each frame's
 * pixels checked. The glcuda device shared through GstContext (one made,
 * both elements answer with it), and one of another GL context refused;
 * caps with CUDA memory on either pad; CUDA memory through the element
 * both ways on the fake (GStreamer's CUDA library loads it as
 * libcuda.so.1): every format's pixels, and the stream and order of the
 * element's copies in the fake's log of work.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <gst/check/gstharness.h>
#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include "fake-cuda/fake-cuda-test.h"

#ifdef HAVE_GST_CUDA
#include <EGL/egl.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "fake-cuda/fake-cuda.h"
#endif

static char ptx_path[PATH_MAX];

/* The formats of the element's pad templates. */
static const char *const formats[] = {
	"RGBA", "RGB10A2_LE", "BGRA", "BGRx", "RGBx", "NV12", "I420",
	"P010_10LE",
};

/* Sizes: even; odd in both sides (chroma planes half covered); odd
 * height, whose chroma GstGL 1.22 reads from its own offsets
 * (doc/gstreamer.md: the pixels are compared with GstGL's own round
 * trip); a thin one. */
static const struct {
	int w, h;
} sizes[] = {
	{ 34, 18 }, { 33, 17 }, { 64, 47 }, { 36, 7 },
};

static const char *const apis[] = { "opengl3", "gles2" };

/* The GL display every GL element of the tests uses. */
static GstGLDisplay *display;

/* A frame of @info, every byte of the buffer (the padding between planes
 * too: GstGL reads odd-height chroma from its own offsets) a function of
 * its position. P010_10LE keeps the 6 low bits of each word clear (GL
 * drops them); @alpha_255 makes byte 3 of each 4-byte pixel 255 (the
 * uniform alpha and x the filter order checks keep). */
static GstBuffer *
pattern_buffer(const GstVideoInfo *info, gboolean alpha_255)
{
	GstBuffer *buf = gst_buffer_new_allocate(NULL, info->size, NULL);
	gboolean ten =
		GST_VIDEO_INFO_FORMAT(info) == GST_VIDEO_FORMAT_P010_10LE;
	GstMapInfo map;

	ck_assert(gst_buffer_map(buf, &map, GST_MAP_WRITE));
	for (gsize i = 0; i < map.size; i++) {
		guint v = (guint)(i * 7 + (i / 97) * 13 + 5) & 0xff;

		map.data[i] = (guint8)(ten && !(i & 1) ? v & 0xc0 : v);
		if (alpha_255 && i % 4 == 3)
			map.data[i] = 255;
	}
	gst_buffer_unmap(buf, &map);
	return buf;
}

/* What @b's word at @x (bytes) of a row of plane @p must be, given @a's,
 * for the element's invert of @format (tests/gst-invert-words.sh): 8-bit
 * planes every byte, P010_10LE the 10 high bits of each word (the low 6
 * zero), RGB10A2_LE bits 0-29 of each word (alpha kept), 8-bit RGB bytes
 * 0-2 of each pixel (alpha or x kept). Words of 1, 2 or 4 bytes:
 * *size. */
static guint32
inverse_word(GstVideoFormat format, const guint8 *a, guint *size)
{
	guint32 w;

	switch (format) {
	case GST_VIDEO_FORMAT_NV12:
	case GST_VIDEO_FORMAT_I420:
		*size = 1;
		return 255u - a[0];
	case GST_VIDEO_FORMAT_P010_10LE:
		*size = 2;
		w = (guint32)GST_READ_UINT16_LE(a);
		return ~w & 0xffc0u;
	case GST_VIDEO_FORMAT_RGB10A2_LE:
		*size = 4;
		w = GST_READ_UINT32_LE(a);
		return (w & 0xc0000000u) | (~w & 0x3fffffffu);
	default:
		*size = 4;
		w = GST_READ_UINT32_LE(a);
		return (w & 0xff000000u) | (~w & 0x00ffffffu);
	}
}

static guint32
read_word(const guint8 *b, guint size)
{
	return size == 1 ? b[0] :
	       size == 2 ? (guint32)GST_READ_UINT16_LE(b) :
			   GST_READ_UINT32_LE(b);
}

/* The bytes of each row of each plane of @a and @b that the image holds
 * (strides and plane offsets as each buffer's video meta says): equal,
 * or with @invert, @b the element's invert of @a. */
static void
compare_frames(const GstVideoInfo *info, GstBuffer *a, GstBuffer *b,
	       gboolean invert, const char *what)
{
	GstVideoFormat format = GST_VIDEO_INFO_FORMAT(info);
	GstVideoFrame fa, fb;

	ck_assert(gst_video_frame_map(&fa, info, a, GST_MAP_READ));
	ck_assert(gst_video_frame_map(&fb, info, b, GST_MAP_READ));
	for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&fa); p++) {
		gint rows = GST_VIDEO_FRAME_COMP_HEIGHT(&fa, p);
		gint bytes = GST_VIDEO_FRAME_COMP_WIDTH(&fa, p) *
			     GST_VIDEO_FRAME_COMP_PSTRIDE(&fa, p);

		for (gint y = 0; y < rows; y++) {
			const guint8 *ra = (const guint8 *)
				GST_VIDEO_FRAME_PLANE_DATA(&fa, p) +
				y * GST_VIDEO_FRAME_PLANE_STRIDE(&fa, p);
			const guint8 *rb = (const guint8 *)
				GST_VIDEO_FRAME_PLANE_DATA(&fb, p) +
				y * GST_VIDEO_FRAME_PLANE_STRIDE(&fb, p);
			guint size = 1;

			for (gint x = 0; x < bytes; x += (gint)size) {
				guint32 want = invert ?
					inverse_word(format, ra + x, &size) :
					ra[x];
				guint32 got = invert ? read_word(rb + x, size) :
					      rb[x];

				ck_assert_msg(got == want, "%s: plane %u "
					      "row %d of %d byte %d is 0x%x, "
					      "not 0x%x", what, p, y, rows, x,
					      got, want);
			}
		}
	}
	gst_video_frame_unmap(&fb);
	gst_video_frame_unmap(&fa);
}

/* GstGL's elements of @element (a bin) on @disp. */
static void
set_display_on(GstElement *element, GstGLDisplay *disp)
{
	GstContext *context = gst_context_new(GST_GL_DISPLAY_CONTEXT_TYPE,
					      TRUE);

	gst_context_set_gl_display(context, disp);
	gst_element_set_context(element, context);
	gst_context_unref(context);
}

/* Contexts every harness's elements are given before the first frame
 * (harness_frame), or NULL. */
static GstContext *harness_contexts[2];

/* One frame through @launch (a bin of GL elements from @in_caps to
 * @out_caps) in a GstHarness on @disp whose GL contexts are of @api
 * (GST_GL_API, read as each context is made): *out the frame pulled.
 * The harness, to tear down; its elements keep their stats. */
static GstHarness *
harness_frame_on(GstGLDisplay *disp, const char *launch, const char *api,
		 const char *in_caps, const char *out_caps, GstBuffer *in,
		 GstBuffer **out)
{
	GstHarness *h;

	g_setenv("GST_GL_API", api, TRUE);
	h = gst_harness_new_parse(launch);
	ck_assert_msg(h != NULL, "%s", launch);
	set_display_on(h->element, disp);
	for (guint i = 0; i < G_N_ELEMENTS(harness_contexts); i++)
		if (harness_contexts[i])
			gst_element_set_context(h->element,
						harness_contexts[i]);
	gst_harness_set_src_caps_str(h, in_caps);
	gst_harness_set_sink_caps_str(h, out_caps);
	/* GL's rows are padded (a 4-byte alignment): the layout of the
	 * frames pulled is in their video meta. */
	gst_harness_add_propose_allocation_meta(h, GST_VIDEO_META_API_TYPE,
						NULL);
	ck_assert_int_eq(gst_harness_push(h, gst_buffer_ref(in)), GST_FLOW_OK);
	*out = gst_harness_pull(h);
	ck_assert_msg(*out != NULL, "%s: no frame", launch);
	/* The contexts are made: the other tests' pipelines on GL. */
	g_setenv("GST_GL_API", "opengl3", TRUE);
	return h;
}

/* harness_frame_on the tests' display. */
static GstHarness *
harness_frame(const char *launch, const char *api, const char *in_caps,
	      const char *out_caps, GstBuffer *in, GstBuffer **out)
{
	return harness_frame_on(display, launch, api, in_caps, out_caps, in,
				out);
}

static GstElement *
harness_element(GstHarness *h, const char *name)
{
	GstElement *e = gst_bin_get_by_name(GST_BIN(h->element), name);

	ck_assert_msg(e != NULL, "no element %s", name);
	return e;
}

static guint64
element_stats(GstElement *e, const char *field)
{
	GstStructure *stats = NULL;
	guint64 v = G_MAXUINT64;

	g_object_get(e, "stats", &stats, NULL);
	ck_assert(gst_structure_get_uint64(stats, field, &v));
	gst_structure_free(stats);
	return v;
}

/* @name's stats in @h have each "FIELD=VALUE" of the NULL-terminated
 * list; and its GL context is of @api. */
static void
check_element(GstHarness *h, const char *name, const char *api,
	      const char *what, ...)
{
	GstElement *e = harness_element(h, name);
	GstGLContext *context = NULL;
	const char *field;
	va_list args;

	g_object_get(e, "context", &context, NULL);
	ck_assert_ptr_nonnull(context);
	ck_assert_msg(!!(gst_gl_context_get_gl_api(context) &
			 GST_GL_API_GLES2) == !strcmp(api, "gles2"),
		      "%s: %s's GL context is not %s", what, name, api);
	gst_object_unref(context);
	va_start(args, what);
	while ((field = va_arg(args, const char *))) {
		const char *eq = strchr(field, '=');
		gchar *key = g_strndup(field, (gsize)(eq - field));

		ck_assert_msg(element_stats(e, key) ==
				      g_ascii_strtoull(eq + 1, NULL, 10),
			      "%s: %s: %s is %" G_GUINT64_FORMAT ", not %s",
			      what, name, key, element_stats(e, key), eq + 1);
		g_free(key);
	}
	va_end(args);
	gst_object_unref(e);
}

/* The caps of @format at @w x @h, in system memory or (@gl) GL memory. */
static gchar *
frame_caps(const char *format, int w, int h, gboolean gl)
{
	return g_strdup_printf("video/x-raw%s,format=%s,width=%d,height=%d,"
			       "framerate=30/1",
			       gl ? "(memory:GLMemory)" : "", format, w, h);
}

/* A frame of @format (@w x @h) through glupload ! TAIL ! gldownload on
 * @api; *out the frame pulled. The harness, to tear down. */
static GstHarness *
through(const char *tail, const char *api, const char *format, int w,
	int h, GstBuffer *in, GstBuffer **out)
{
	gchar *caps = frame_caps(format, w, h, FALSE);
	gchar *launch = g_strdup_printf("glupload ! %s%sgldownload", tail,
					*tail ? " ! " : "");
	GstHarness *harness = harness_frame(launch, api, caps, caps, in, out);

	g_free(launch);
	g_free(caps);
	return harness;
}

/* Every format, size and GL API: the pixels of filter=none, the built-in
 * invert, a kernel of the user's once per plane (invert_planes) and two
 * inverts in a row, against GstGL's own round trip (glupload !
 * gldownload) of the same frame. */
START_TEST(test_planes)
{
	const char *format = formats[_i % G_N_ELEMENTS(formats)];
	guint size = (guint)_i / G_N_ELEMENTS(formats) % G_N_ELEMENTS(sizes);
	const char *api = apis[(guint)_i / G_N_ELEMENTS(formats) /
			       G_N_ELEMENTS(sizes)];
	int w = sizes[size].w, h = sizes[size].h;
	gchar *caps = frame_caps(format, w, h, FALSE);
	gchar *what = g_strdup_printf("%s %s %dx%d", api, format, w, h);
	gchar *kernel = g_strdup_printf("glcudafilter name=f "
					"kernel-name=invert_planes "
					"ptx-file=%s", ptx_path);
	GstCaps *parsed = gst_caps_from_string(caps);
	GstBuffer *in, *ref, *out;
	GstVideoInfo info;
	GstHarness *harness;

	ck_assert(gst_video_info_from_caps(&info, parsed));
	gst_caps_unref(parsed);
	in = pattern_buffer(&info, FALSE);
	if (!strcmp(api, "gles2") && !strcmp(format, "P010_10LE")) {
		gchar *gl_caps = frame_caps(format, w, h, TRUE);
		/* The user's kernel: the built-in invert needs nvcc. */
		gchar *two = g_strdup_printf(
			"glupload ! glcudafilter name=a "
			"kernel-name=invert_planes ptx-file=%s ! %s",
			ptx_path, kernel);

		/* GstGL on GLES reads back no 16-bit texture but RGBA16
		 * (gldownload fails): the frames, without pixels. */
		harness = harness_frame(two, api, caps, gl_caps, in, &out);
		g_free(two);
		check_element(harness, "f", api, what, "frames=1",
			      "input-pooled=1", NULL);
		gst_buffer_unref(out);
		gst_harness_teardown(harness);
		g_free(gl_caps);
		goto done;
	}
	harness = through("", api, format, w, h, in, &ref);
	gst_harness_teardown(harness);
	/* An even frame: GstGL's round trip is the frame itself (the
	 * comparisons below are not with an empty plane). */
	if (h % 2 == 0)
		compare_frames(&info, in, ref, FALSE, what);

	harness = through("glcudafilter name=f filter=none", api, format, w,
			  h, in, &out);
	check_element(harness, "f", api, what, "frames=1", "input-copied=1",
		      NULL);
	compare_frames(&info, ref, out, FALSE, what);
	gst_buffer_unref(out);
	gst_harness_teardown(harness);
#ifdef HAVE_NVCC
	harness = through("glcudafilter name=f filter=invert", api, format, w,
			  h, in, &out);
	compare_frames(&info, ref, out, TRUE, what);
	gst_buffer_unref(out);
	gst_harness_teardown(harness);
	/* Twice inverted is the input; the first into the second's pool. */
	harness = through("glcudafilter name=a filter=invert ! glcudafilter "
			  "name=f filter=invert", api, format, w, h, in,
			  &out);
	check_element(harness, "a", api, what, "input-copied=1",
		      "output-pooled=1", NULL);
	check_element(harness, "f", api, what, "input-pooled=1",
		      "output-pooled=1", NULL);
	compare_frames(&info, ref, out, FALSE, what);
	gst_buffer_unref(out);
	gst_harness_teardown(harness);
	/* none into the pool, then the invert: the inverse. */
	harness = through("glcudafilter name=a filter=none ! glcudafilter "
			  "name=f filter=invert", api, format, w, h, in,
			  &out);
	check_element(harness, "f", api, what, "input-pooled=1", NULL);
	compare_frames(&info, ref, out, TRUE, what);
	gst_buffer_unref(out);
	gst_harness_teardown(harness);
#endif
	harness = through(kernel, api, format, w, h, in, &out);
	compare_frames(&info, ref, out, TRUE, what);
	gst_buffer_unref(out);
	gst_harness_teardown(harness);
	gst_buffer_unref(ref);
done:
	gst_buffer_unref(in);
	g_free(kernel);
	g_free(what);
	g_free(caps);
}
END_TEST

/* glcolorconvert renders into the element's pool (BGRA to @format):
 * input and output pooled, the invert (or ring_transform) against the
 * same conversion without the element. */
static void
pooled_frame(const char *api, const char *format, int w, int h,
	     const char *filter)
{
	gchar *in_caps = frame_caps("BGRA", w, h, FALSE);
	gchar *caps = frame_caps(format, w, h, FALSE);
	gchar *convert = g_strdup_printf("glupload ! glcolorconvert ! "
					 "video/x-raw(memory:GLMemory),"
					 "format=%s", format);
	gchar *launch = g_strdup_printf("%s ! glcudafilter name=f %s ! "
					"gldownload", convert, filter);
	gchar *ref_launch = g_strdup_printf("%s ! gldownload", convert);
	gchar *what = g_strdup_printf("%s %s %dx%d from glcolorconvert, %s",
				      api, format, w, h, filter);
	GstCaps *parsed = gst_caps_from_string(in_caps);
	GstBuffer *in, *ref, *out;
	GstVideoInfo info;
	GstHarness *harness;

	ck_assert(gst_video_info_from_caps(&info, parsed));
	gst_caps_unref(parsed);
	in = pattern_buffer(&info, FALSE);
	harness = harness_frame(ref_launch, api, in_caps, caps, in, &ref);
	gst_harness_teardown(harness);
	harness = harness_frame(launch, api, in_caps, caps, in, &out);
	/* filter=none on a driver without GL interop: GL copies the
	 * input's image into the output (gstglcudaframe.c). */
	check_element(harness, "f", api, what, "frames=1", "input-pooled=1",
		      "input-copied=0",
		      strcmp(filter, "filter=none") ? "output-pooled=1" : NULL,
		      NULL);
	parsed = gst_caps_from_string(caps);
	ck_assert(gst_video_info_from_caps(&info, parsed));
	gst_caps_unref(parsed);
	compare_frames(&info, ref, out, strcmp(filter, "filter=none") != 0,
		       what);
	gst_buffer_unref(out);
	gst_harness_teardown(harness);
	gst_buffer_unref(ref);
	gst_buffer_unref(in);
	g_free(what);
	g_free(ref_launch);
	g_free(launch);
	g_free(convert);
	g_free(caps);
	g_free(in_caps);
}

START_TEST(test_pooled)
{
	const char *api = apis[_i];
	gchar *kernel = g_strdup_printf("kernel-name=ring_transform "
					"ptx-file=%s", ptx_path);

	pooled_frame(api, "RGBA", 64, 48, "filter=none");
	pooled_frame(api, "RGBA", 64, 48, kernel);
#ifdef HAVE_NVCC
	pooled_frame(api, "NV12", 64, 48, "filter=invert");
	pooled_frame(api, "NV12", 64, 47, "filter=invert");
	pooled_frame(api, "NV12", 36, 7, "filter=invert");
#endif
	g_free(kernel);
}
END_TEST

START_TEST(test_kernel_inverts_rgba)
{
	gchar *tail = g_strdup_printf("glcudafilter kernel-name=ring_transform "
				      "ptx-file=%s", ptx_path);
	gchar *caps = frame_caps("RGBA", 34, 17, FALSE);
	GstCaps *parsed = gst_caps_from_string(caps);
	GstVideoInfo info;
	GstBuffer *in, *out;
	GstHarness *harness;

	ck_assert(gst_video_info_from_caps(&info, parsed));
	gst_caps_unref(parsed);
	in = pattern_buffer(&info, FALSE);
	harness = through(tail, "opengl3", "RGBA", 34, 17, in, &out);
	compare_frames(&info, in, out, TRUE, "ring_transform");
	gst_buffer_unref(out);
	gst_buffer_unref(in);
	gst_harness_teardown(harness);
	g_free(caps);
	g_free(tail);
}
END_TEST

#ifdef HAVE_NVCC
/* BGRA, BGRx and RGBx through every filter at an odd size, pixel for
 * pixel against RGBA through the same filter: bytes 0 and 2 swapped for
 * BGR (grade grades the same colours), byte 3 (alpha or x, a uniform 255
 * the blur keeps) the input's. */
START_TEST(test_filter_order)
{
	static const char *const filters[] = {
		"none", "invert", "grade", "blur", "unsharp",
	};
	static const char *const orders[] = { "BGRA", "BGRx", "RGBx" };
	const char *filter = filters[_i];
	gchar *tail = g_strdup_printf("glcudafilter filter=%s", filter);
	gchar *caps = frame_caps("RGBA", 33, 17, FALSE);
	GstCaps *parsed = gst_caps_from_string(caps);
	GstBuffer *rgba_in, *rgba_out;
	GstVideoInfo info;
	GstHarness *harness;

	ck_assert(gst_video_info_from_caps(&info, parsed));
	gst_caps_unref(parsed);
	rgba_in = pattern_buffer(&info, TRUE);
	harness = through(tail, "opengl3", "RGBA", 33, 17, rgba_in,
			  &rgba_out);
	gst_harness_teardown(harness);
	for (guint o = 0; o < G_N_ELEMENTS(orders); o++) {
		gboolean swap = orders[o][0] == 'B';
		GstBuffer *in = gst_buffer_copy_deep(rgba_in), *out;
		gchar *order_caps = frame_caps(orders[o], 33, 17, FALSE);
		GstVideoFrame fin, fout;
		GstVideoInfo order;
		GstMapInfo map;

		/* The same picture in the format's order. */
		ck_assert(gst_buffer_map(in, &map, GST_MAP_WRITE));
		for (gsize i = 0; swap && i + 3 < map.size; i += 4) {
			guint8 r = map.data[i];

			map.data[i] = map.data[i + 2];
			map.data[i + 2] = r;
		}
		gst_buffer_unmap(in, &map);
		parsed = gst_caps_from_string(order_caps);
		ck_assert(gst_video_info_from_caps(&order, parsed));
		gst_caps_unref(parsed);
		g_free(order_caps);
		harness = through(tail, "opengl3", orders[o], 33, 17, in, &out);
		gst_harness_teardown(harness);
		ck_assert(gst_video_frame_map(&fin, &info, rgba_out,
					      GST_MAP_READ));
		ck_assert(gst_video_frame_map(&fout, &order, out,
					      GST_MAP_READ));
		for (gint y = 0; y < 17; y++) {
			const guint8 *a = (const guint8 *)
				GST_VIDEO_FRAME_PLANE_DATA(&fin, 0) +
				y * GST_VIDEO_FRAME_PLANE_STRIDE(&fin, 0);
			const guint8 *b = (const guint8 *)
				GST_VIDEO_FRAME_PLANE_DATA(&fout, 0) +
				y * GST_VIDEO_FRAME_PLANE_STRIDE(&fout, 0);

			for (gint x = 0; x < 33 * 4; x++) {
				gint c = x % 4;
				guint8 want = c == 3 ? 255 :
					      swap ? a[x - c + 2 - c] : a[x];

				ck_assert_msg(b[x] == want, "%s filter=%s: "
					      "row %d byte %d is %u, not %u "
					      "(RGBA's)", orders[o], filter,
					      y, x, b[x], want);
			}
		}
		gst_video_frame_unmap(&fout);
		gst_video_frame_unmap(&fin);
		gst_buffer_unref(out);
		gst_buffer_unref(in);
	}
	gst_buffer_unref(rgba_out);
	gst_buffer_unref(rgba_in);
	g_free(caps);
	g_free(tail);
}
END_TEST
#endif

/* Runs @launch to EOS or an error; the error's text (to free) or NULL.
 * *contexts: the glcuda.device contexts posted (have-context). */
static gchar *
run_pipeline(const char *launch, GstElement **out, guint *contexts)
{
	GError *err = NULL;
	/* Strict: a link that failed would leave a pad unlinked. */
	GstElement *pipeline = gst_parse_launch_full(
		launch, NULL, GST_PARSE_FLAG_FATAL_ERRORS, &err);
	GstBus *bus;
	GstMessage *msg;
	gchar *text = NULL;

	ck_assert_msg(pipeline != NULL && err == NULL, "%s: %s", launch,
		      err ? err->message : "");
	bus = gst_element_get_bus(pipeline);
	*contexts = 0;
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	for (;;) {
		msg = gst_bus_timed_pop_filtered(bus, GST_CLOCK_TIME_NONE,
			GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
			GST_MESSAGE_HAVE_CONTEXT);
		if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_HAVE_CONTEXT) {
			GstContext *c;

			gst_message_parse_have_context(msg, &c);
			*contexts += g_strcmp0(gst_context_get_context_type(c),
					       "glcuda.device") == 0;
			gst_context_unref(c);
			gst_message_unref(msg);
			continue;
		}
		if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
			gst_message_parse_error(msg, &err, NULL);
			text = g_strdup(err->message);
			g_error_free(err);
		}
		gst_message_unref(msg);
		break;
	}
	gst_object_unref(bus);
	*out = pipeline;
	return text;
}

static void
stop_pipeline(GstElement *pipeline)
{
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
}

static guint64
stats_field(GstElement *pipeline, const char *element, const char *field)
{
	GstElement *e = gst_bin_get_by_name(GST_BIN(pipeline), element);
	GstStructure *stats = NULL;
	guint64 v = G_MAXUINT64;

	ck_assert_ptr_nonnull(e);
	g_object_get(e, "stats", &stats, NULL);
	ck_assert(gst_structure_get_uint64(stats, field, &v));
	gst_structure_free(stats);
	gst_object_unref(e);
	return v;
}

/* The element's warnings that route=wrap copies. */
static gint wrap_warnings;

static void
count_wrap_warnings(GstDebugCategory *category, GstDebugLevel level,
		    const gchar *file, const gchar *function, gint line,
		    GObject *object, GstDebugMessage *message,
		    gpointer user_data)
{
	if (level == GST_LEVEL_WARNING &&
	    !strcmp(gst_debug_category_get_name(category), "glcudafilter") &&
	    strstr(gst_debug_message_get(message), "route=wrap"))
		g_atomic_int_inc(&wrap_warnings);
}

/* glupload uploads into textures of its own, not the element's pool:
 * with route=auto and route=copy each frame's input is copied into a
 * shared image, never pooled nor wrapped; route=wrap wraps it where the
 * driver registers GL textures, and the fake registers none: copied
 * too, said once. The output is the element's pool's. Three frames of
 * RGBA (ring_transform) and of NV12 (invert_planes, once per plane),
 * each against the inverse of the frame pushed. */
START_TEST(test_routes)
{
	static const char *const routes[] = { "auto", "copy", "wrap" };
	const char *route = routes[_i % G_N_ELEMENTS(routes)];
	const char *format = _i < (int)G_N_ELEMENTS(routes) ? "RGBA" : "NV12";
	gchar *tail = g_strdup_printf(
		"glcudafilter name=f route=%s kernel-name=%s ptx-file=%s",
		route, format[0] == 'R' ? "ring_transform" : "invert_planes",
		ptx_path);
	gchar *caps = frame_caps(format, 34, 18, FALSE);
	gchar *what = g_strdup_printf("%s route=%s", format, route);
	GstCaps *parsed = gst_caps_from_string(caps);
	GstHarness *harness = NULL;
	GstVideoInfo info;
	GstElement *f;
	GParamSpec *spec;
	GEnumValue *value;
	gint route_value;

	ck_assert(gst_video_info_from_caps(&info, parsed));
	gst_caps_unref(parsed);
	g_atomic_int_set(&wrap_warnings, 0);
	gst_debug_set_threshold_for_name("glcudafilter", GST_LEVEL_WARNING);
	gst_debug_add_log_function(count_wrap_warnings, NULL, NULL);
	for (int n = 0; n < 3; n++) {
		GstBuffer *in = pattern_buffer(&info, FALSE), *out;
		GstMapInfo map;

		/* Another picture each frame. */
		ck_assert(gst_buffer_map(in, &map, GST_MAP_WRITE));
		map.data[0] = (guint8)(n * 40);
		map.data[map.size - 1] = (guint8)(n * 50);
		gst_buffer_unmap(in, &map);
		if (!harness) {
			harness = through(tail, "opengl3", format, 34, 18, in,
					  &out);
		} else {
			ck_assert_int_eq(gst_harness_push(harness,
							  gst_buffer_ref(in)),
					 GST_FLOW_OK);
			out = gst_harness_pull(harness);
			ck_assert_ptr_nonnull(out);
		}
		compare_frames(&info, in, out, TRUE, what);
		gst_buffer_unref(out);
		gst_buffer_unref(in);
	}
	gst_debug_remove_log_function(count_wrap_warnings);
	gst_debug_set_threshold_for_name("glcudafilter", GST_LEVEL_NONE);
	check_element(harness, "f", "opengl3", what, "frames=3",
		      "input-copied=3", "input-wrapped=0", "input-pooled=0",
		      "output-pooled=3", "output-wrapped=0", NULL);
	ck_assert_int_eq(g_atomic_int_get(&wrap_warnings),
			 !strcmp(route, "wrap"));
	f = harness_element(harness, "f");
	g_object_get(f, "route", &route_value, NULL);
	spec = g_object_class_find_property(G_OBJECT_GET_CLASS(f), "route");
	value = g_enum_get_value(g_type_class_peek(spec->value_type),
				 route_value);
	ck_assert_ptr_nonnull(value);
	ck_assert_str_eq(value->value_nick, route);
	gst_object_unref(f);
	gst_harness_teardown(harness);
	g_free(what);
	g_free(caps);
	g_free(tail);
}
END_TEST

/* The device an element answers a glcuda.device context query with. */
static gpointer
queried_device(GstPad *pad)
{
	GstQuery *q = gst_query_new_context("glcuda.device");
	GstContext *c = NULL;
	const GValue *v;
	gpointer d = NULL;

	ck_assert(gst_pad_peer_query(pad, q));
	gst_query_parse_context(q, &c);
	ck_assert_ptr_nonnull(c);
	v = gst_structure_get_value(gst_context_get_structure(c), "device");
	ck_assert_ptr_nonnull(v);
	d = g_value_get_boxed(v);
	gst_query_unref(q);
	return d;
}

/* Two elements on one GL context: one device made and posted, the other
 * element found it; each answers a context query with it. */
START_TEST(test_device_shared)
{
	GstElement *pipeline, *a, *b, *sink;
	GstPad *a_sink, *b_src;
	guint contexts;
	gchar *err = run_pipeline("videotestsrc num-buffers=2 ! "
		"video/x-raw,format=RGBA,width=64,height=48 ! glupload ! "
		"glcudafilter name=a ! glcudafilter name=b ! gldownload "
		"name=sink ! fakesink", &pipeline, &contexts);

	ck_assert_msg(err == NULL, "%s", err);
	ck_assert_uint_eq(contexts, 1);
	a = gst_bin_get_by_name(GST_BIN(pipeline), "a");
	b = gst_bin_get_by_name(GST_BIN(pipeline), "b");
	sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
	/* b's sink pad's peer is a; gldownload's sink pad's peer is b. */
	b_src = gst_element_get_static_pad(sink, "sink");
	a_sink = gst_element_get_static_pad(b, "sink");
	ck_assert_ptr_eq(queried_device(a_sink), queried_device(b_src));
	ck_assert_uint_eq(stats_field(pipeline, "a", "frames"), 2);
	ck_assert_uint_eq(stats_field(pipeline, "b", "frames"), 2);
	gst_object_unref(a_sink);
	gst_object_unref(b_src);
	gst_object_unref(sink);
	gst_object_unref(b);
	gst_object_unref(a);
	stop_pipeline(pipeline);
}
END_TEST

/* The glcuda.device context @name in @h answers a context query with
 * (on its src pad), a new reference. */
static GstContext *
device_context_of(GstHarness *h, const char *name)
{
	GstElement *e = harness_element(h, name);
	GstPad *src = gst_element_get_static_pad(e, "src");
	GstQuery *q = gst_query_new_context("glcuda.device");
	GstContext *c = NULL;

	ck_assert(gst_pad_query(src, q));
	gst_query_parse_context(q, &c);
	ck_assert_ptr_nonnull(c);
	gst_context_ref(c);
	gst_query_unref(q);
	gst_object_unref(src);
	gst_object_unref(e);
	return c;
}

static gpointer
context_device_of(GstContext *c)
{
	const GValue *v = gst_structure_get_value(gst_context_get_structure(c),
						  "device");

	ck_assert_ptr_nonnull(v);
	return g_value_get_boxed(v);
}

static GstGLContext *
context_gl_of(GstContext *c)
{
	GstGLContext *gl = NULL;

	ck_assert(gst_structure_get(gst_context_get_structure(c), "gl-context",
				    GST_TYPE_GL_CONTEXT, &gl, NULL));
	return gl;
}

/* A second GL display (another GL context): made once, kept to the end
 * (its EGL display is the tests' display's). */
static GstGLDisplay *other_display;

/* The device of the element named f in @h (its answer to a context
 * query) is not @foreign's, but one of the element's own GL context. */
static void
check_own_device(GstElement *f, GstContext *foreign, const char *what)
{
	GstPad *src = gst_element_get_static_pad(f, "src");
	GstQuery *q = gst_query_new_context("glcuda.device");
	GstGLContext *foreign_gl = context_gl_of(foreign), *own_gl;
	GstGLContext *element_gl = NULL;
	GstContext *own = NULL;

	ck_assert(gst_pad_query(src, q));
	gst_query_parse_context(q, &own);
	ck_assert_ptr_nonnull(own);
	g_object_get(f, "context", &element_gl, NULL);
	ck_assert_ptr_nonnull(element_gl);
	ck_assert_msg(element_gl != foreign_gl, "%s: both elements are on "
		      "GL context %p", what, (void *)element_gl);
	own_gl = context_gl_of(own);
	ck_assert_msg(context_device_of(own) != context_device_of(foreign),
		      "%s: the element uses the device of GL context %p on "
		      "its GL context %p", what, (void *)foreign_gl,
		      (void *)element_gl);
	ck_assert_msg(own_gl == element_gl, "%s: the element's device is of "
		      "GL context %p, not its own %p", what, (void *)own_gl,
		      (void *)element_gl);
	gst_object_unref(own_gl);
	gst_object_unref(element_gl);
	gst_object_unref(foreign_gl);
	gst_query_unref(q);
	gst_object_unref(src);
}

/* A device made on another GL context, handed to the element through
 * GstContext (set_context, as an application or a bin answering
 * need-context does), before the element has its GL context and once it
 * has: the element does not use it as its own (its images and hand-offs
 * belong to the other context) but makes a device on its own GL context,
 * and answers context queries with that one; the frames are right. */
START_TEST(test_device_foreign_context)
{
	gchar *caps = frame_caps("NV12", 34, 18, FALSE);
	const char *launch = "glupload ! glcudafilter name=f filter=none ! "
			     "gldownload";
	GstCaps *parsed = gst_caps_from_string(caps);
	GstElement *pipeline, *f;
	GstContext *foreign;
	GstHarness *a, *b;
	GstBuffer *in, *out;
	GstVideoInfo info;
	GError *err = NULL;
	GstBus *bus;
	GstMessage *msg;

	ck_assert(gst_video_info_from_caps(&info, parsed));
	gst_caps_unref(parsed);
	in = pattern_buffer(&info, FALSE);
	if (!other_display)
		other_display = gst_gl_display_new();
	a = harness_frame_on(other_display, launch, "opengl3", caps, caps, in,
			     &out);
	gst_buffer_unref(out);
	foreign = device_context_of(a, "f");

	/* Before: set on the pipeline before it starts. */
	pipeline = gst_parse_launch_full("videotestsrc num-buffers=2 ! "
		"video/x-raw,format=NV12,width=34,height=18 ! glupload ! "
		"glcudafilter name=f ! gldownload ! fakesink", NULL,
		GST_PARSE_FLAG_FATAL_ERRORS, &err);
	ck_assert_msg(pipeline && !err, "%s", err ? err->message : "");
	gst_element_set_context(pipeline, foreign);
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	bus = gst_element_get_bus(pipeline);
	msg = gst_bus_timed_pop_filtered(bus, GST_CLOCK_TIME_NONE,
					 GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
	if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR)
		gst_message_parse_error(msg, &err, NULL);
	ck_assert_msg(!err, "set before the start: the pipeline failed: %s",
		      err ? err->message : "");
	gst_message_unref(msg);
	gst_object_unref(bus);
	f = gst_bin_get_by_name(GST_BIN(pipeline), "f");
	check_own_device(f, foreign, "set before the start");
	ck_assert_uint_eq(stats_field(pipeline, "f", "frames"), 2);
	gst_object_unref(f);
	stop_pipeline(pipeline);

	/* Once the element has its GL context and device. */
	harness_contexts[1] = foreign;
	b = harness_frame(launch, "opengl3", caps, caps, in, &out);
	harness_contexts[1] = NULL;
	compare_frames(&info, in, out, FALSE, "foreign device");
	gst_buffer_unref(out);
	f = harness_element(b, "f");
	check_own_device(f, foreign, "set once started");
	/* The next frame, on the element's device. */
	ck_assert_int_eq(gst_harness_push(b, gst_buffer_ref(in)), GST_FLOW_OK);
	out = gst_harness_pull(b);
	ck_assert_ptr_nonnull(out);
	compare_frames(&info, in, out, FALSE, "foreign device, frame 2");
	check_element(b, "f", "opengl3", "foreign device", "frames=2", NULL);
	gst_buffer_unref(out);
	gst_object_unref(f);
	gst_harness_teardown(b);
	gst_context_unref(foreign);
	gst_harness_teardown(a);
	gst_buffer_unref(in);
	g_free(caps);
}
END_TEST

/* Whether @caps have a structure with the CUDAMemory feature. */
static gboolean
has_cuda(GstCaps *caps)
{
	for (guint i = 0; i < gst_caps_get_size(caps); i++)
		if (gst_caps_features_contains(gst_caps_get_features(caps, i),
					       "memory:CUDAMemory"))
			return TRUE;
	return FALSE;
}

/* What the element's sink pad takes with @downstream on its src pad. */
static GstCaps *
sink_caps_for(const char *downstream)
{
	GstHarness *h = gst_harness_new("glcudafilter");
	GstPad *sinkpad = gst_element_get_static_pad(h->element, "sink");
	GstCaps *caps;

	gst_harness_set_sink_caps_str(h, downstream);
	caps = gst_pad_query_caps(sinkpad, NULL);
	gst_object_unref(sinkpad);
	gst_harness_teardown(h);
	return caps;
}

START_TEST(test_caps_cuda_memory)
{
#ifdef HAVE_GST_CUDA
	GstCaps *from_gl = sink_caps_for("video/x-raw(memory:GLMemory),"
					 "format=NV12");
	GstCaps *from_cuda = sink_caps_for("video/x-raw(memory:CUDAMemory),"
					   "format=NV12");
	GstCaps *cuda_in = gst_caps_from_string(
		"video/x-raw(memory:CUDAMemory),format=NV12,width=64,"
		"height=48,framerate=30/1");

	/* GL memory out: GL or CUDA memory in; CUDA memory out: GL in. */
	ck_assert(has_cuda(from_gl));
	ck_assert(gst_caps_can_intersect(from_gl, cuda_in));
	ck_assert(!gst_caps_is_empty(from_cuda));
	ck_assert(!has_cuda(from_cuda));
	gst_caps_unref(cuda_in);
	gst_caps_unref(from_cuda);
	gst_caps_unref(from_gl);
#else
	GstCaps *from_gl = sink_caps_for("video/x-raw(memory:GLMemory),"
					 "format=NV12");

	/* Built without gstreamer-cuda-1.0: GL memory only. */
	ck_assert(!gst_caps_is_empty(from_gl));
	ck_assert(!has_cuda(from_gl));
	gst_caps_unref(from_gl);
#endif
}
END_TEST

/* The same size on both pads, in GL and CUDA memory: a size downstream
 * that is not the input's leaves no caps upstream, so that negotiation
 * fails (a scaler belongs downstream), not the first frame. */
static void
check_keeps_size(const char *downstream)
{
	GstCaps *sink = sink_caps_for(downstream);
	GstCaps *same = gst_caps_from_string(
		"video/x-raw(memory:GLMemory),format=RGBA,width=640,"
		"height=360,framerate=30/1");
	GstCaps *other = gst_caps_from_string(
		"video/x-raw(memory:GLMemory),format=RGBA,width=1280,"
		"height=720,framerate=30/1");

	gchar *text = gst_caps_to_string(sink);

	ck_assert_msg(gst_caps_can_intersect(sink, same),
		      "downstream %s: the sink pad takes %s", downstream, text);
	ck_assert_msg(!gst_caps_can_intersect(sink, other),
		      "downstream %s: the sink pad takes %s", downstream, text);
	g_free(text);
	gst_caps_unref(other);
	gst_caps_unref(same);
	gst_caps_unref(sink);
}

START_TEST(test_caps_keep_size)
{
	check_keeps_size("video/x-raw(memory:GLMemory),format=RGBA,"
			 "width=640,height=360");
#ifdef HAVE_GST_CUDA
	check_keeps_size("video/x-raw(memory:CUDAMemory),format=RGBA,"
			 "width=640,height=360");
#endif
}
END_TEST

#ifdef HAVE_GST_CUDA
/* GStreamer's CUDA library on the fake: libcuda.so.1 on LD_LIBRARY_PATH
 * (main) is tests/fake-cuda/libcuda/libcuda.so.1, a link to the fake
 * glcuda loads, so both share its state and its log of work. */

/* A pipeline with CUDA memory on the src pad: the element shares its
 * device's CUDA context and the frames flow. */
START_TEST(test_cuda_memory_out)
{
	GstElement *pipeline;
	guint contexts;
	gchar *err = run_pipeline("videotestsrc num-buffers=2 ! "
		"video/x-raw,format=NV12,width=64,height=48 ! glupload ! "
		"glcolorconvert ! glcudafilter name=f ! "
		"video/x-raw(memory:CUDAMemory) ! fakesink", &pipeline,
		&contexts);

	ck_assert_msg(err == NULL, "%s", err);
	ck_assert_uint_eq(stats_field(pipeline, "f", "output-cuda"), 2);
	stop_pipeline(pipeline);
}
END_TEST

/* The application's CUDA context (nvcodec's elements share theirs the
 * same way): the fake's primary context, wrapped. */
static GstCudaContext *cuda_context;

static GstCudaContext *
app_cuda_context(void)
{
	CUresult (*get_proc)(const char *, void **, int, cuuint64_t,
			     CUdriverProcAddressQueryResult *);
	CUresult (*retain)(CUcontext *, CUdevice) = NULL;
	CUcontext ctx = NULL;

	if (cuda_context)
		return cuda_context;
	ck_assert_msg(gst_cuda_load_library(), "GStreamer's CUDA library "
		      "does not load the fake CUDA driver (LD_LIBRARY_PATH=%s)",
		      g_getenv("LD_LIBRARY_PATH"));
	ck_assert_int_eq(CuInit(0), CUDA_SUCCESS);
	gst_cuda_memory_init_once();
	get_proc = (__typeof__(get_proc))fake_cuda_control(
		"cuGetProcAddress_v2");
	ck_assert_msg(get_proc, "GStreamer's CUDA library loaded another "
		      "libcuda.so.1 than the fake %s", fake_cuda_path);
	ck_assert_int_eq(get_proc("cuDevicePrimaryCtxRetain",
				  (void **)&retain, 12000, 0, NULL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(retain(&ctx, 0), CUDA_SUCCESS);
	cuda_context = gst_cuda_context_new_wrapped(ctx, 0);
	ck_assert_ptr_nonnull(cuda_context);
	return cuda_context;
}

/* The fake's log of work, and a mark in it where the CPU found GL's work
 * finished: glcuda's hand-off to CUDA in the cpu sync mode (a fence
 * waited for through libepoxy's entry point, which the test points at a
 * wrapper). */
static fake_cuda_work_get_fn work_get;
static fake_cuda_work_mark_fn work_mark;
static __typeof__(epoxy_glClientWaitSync) real_client_wait, saved_client_wait;

#define GL_DONE_MARK "GL's work finished (glClientWaitSync)"

static GLenum
rec_client_wait(GLsync sync, GLbitfield flags, GLuint64 timeout)
{
	GLenum r = real_client_wait(sync, flags, timeout);

	if (r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED)
		work_mark(GL_DONE_MARK);
	return r;
}

static unsigned int
record_work_start(void)
{
	unsigned int (*count)(void) =
		(__typeof__(count))fake_cuda_control("fake_cuda_work_count");

	work_get = (fake_cuda_work_get_fn)fake_cuda_control(
		"fake_cuda_work_get");
	work_mark = (fake_cuda_work_mark_fn)fake_cuda_control(
		"fake_cuda_work_mark");
	ck_assert(count && work_get && work_mark);
	saved_client_wait = epoxy_glClientWaitSync;
	real_client_wait = (__typeof__(real_client_wait))eglGetProcAddress(
		"glClientWaitSync");
	ck_assert_ptr_nonnull(real_client_wait);
	epoxy_glClientWaitSync = rec_client_wait;
	return count();
}

static void
record_work_stop(void)
{
	epoxy_glClientWaitSync = saved_client_wait;
}

/* A copy of a plane between a glcuda image and linear memory: the copy
 * engine's 3D copy, or glcuda's copy kernels. */
static gboolean
is_plane_copy(const struct fake_cuda_work *w)
{
	return !w->mark && (!strcmp(w->call, "cuMemcpy3DAsync") ||
			    (w->kernel &&
			     g_str_has_prefix(w->kernel, "copy_kernels_")));
}

/* The CUDA work of one frame through the element on GStreamer 1.22,
 * logged from @from on: one copy per plane, each on the legacy default
 * stream (what 1.22's producers and consumers of CUDA memory order
 * with); after GL's work on the images (the CPU found GL's fence
 * signalled, or CUDA waited for GL's semaphore on that stream); before
 * the hand-back to GL (the event GL's later work waits for, on that
 * stream). */
static void
check_frame_work(unsigned int from, guint planes, const char *what)
{
	struct fake_cuda_work w;
	gint copies = 0, first = -1, last = -1, gl_done = -1, back = -1;

	for (unsigned int i = from; work_get(i, &w) == 0; i++) {
		gint at = (gint)(i - from);

		if (is_plane_copy(&w)) {
			ck_assert_msg(w.stream == NULL, "%s: the copy of "
				      "plane %d is on stream %p, not the "
				      "legacy default stream", what, copies,
				      (void *)w.stream);
			if (first < 0)
				first = at;
			last = at;
			copies++;
		} else if (first < 0 &&
			   ((w.mark && !strcmp(w.call, GL_DONE_MARK)) ||
			    (!strcmp(w.call,
				     "cuWaitExternalSemaphoresAsync") &&
			     w.stream == NULL))) {
			gl_done = at;
		} else if (last >= 0 && back < 0 && !w.mark &&
			   !strcmp(w.call, "cuEventRecord")) {
			ck_assert_msg(w.stream == NULL, "%s: the hand-back "
				      "to GL is on stream %p, not the "
				      "copies' stream", what,
				      (void *)w.stream);
			back = at;
		}
	}
	ck_assert_msg(copies == (gint)planes, "%s: %d plane copies, not %u",
		      what, copies, planes);
	ck_assert_msg(gl_done >= 0, "%s: the first plane copy (work item %d "
		      "of the frame) is not after GL's work", what, first);
	ck_assert_msg(back > last, "%s: no hand-back to GL after the last "
		      "plane copy", what);
}

/* The caps of @format at @w x @h in CUDA memory. */
static gchar *
cuda_caps(const char *format, int w, int h)
{
	return g_strdup_printf("video/x-raw(memory:CUDAMemory),format=%s,"
			       "width=%d,height=%d,framerate=30/1", format, w,
			       h);
}

static GstContext *
cuda_gst_context(void)
{
	return gst_context_new_cuda_context(app_cuda_context());
}

/* Sizes of the CUDA memory tests: rows whose bytes are no multiple of 4
 * (GL's alignment) nor of the memory's pitch, and an odd width. */
static const struct {
	int w, h;
} cuda_sizes[] = { { 34, 18 }, { 66, 10 } };

/* CUDA memory in (the application's CUDA context, as an upstream
 * nvcodec element's), GL memory out: every format, the frame's pixels
 * through filter=none against the frame written into the CUDA memory;
 * the element's copies out of the memory on the legacy default stream,
 * after GL's work and before the hand-back. */
START_TEST(test_cuda_memory_in_pixels)
{
	const char *format = formats[_i % G_N_ELEMENTS(formats)];
	int w = cuda_sizes[_i / G_N_ELEMENTS(formats)].w;
	int h = cuda_sizes[_i / G_N_ELEMENTS(formats)].h;
	gchar *in_caps = cuda_caps(format, w, h);
	gchar *out_caps = frame_caps(format, w, h, FALSE);
	gchar *what = g_strdup_printf("CUDA memory in, %s %dx%d", format, w,
				      h);
	GstCaps *caps = gst_caps_from_string(in_caps);
	GstBufferPool *pool;
	GstStructure *config;
	GstBuffer *sys, *in = NULL, *out;
	GstVideoFrame src, dst;
	GstVideoInfo info;
	GstHarness *harness;
	unsigned int from;

	ck_assert(gst_video_info_from_caps(&info, caps));
	sys = pattern_buffer(&info, FALSE);
	/* The frame in CUDA memory, written through a CPU map (1.22
	 * uploads it when the element maps it for CUDA). */
	pool = gst_cuda_buffer_pool_new(app_cuda_context());
	config = gst_buffer_pool_get_config(pool);
	gst_buffer_pool_config_set_params(config, caps, (guint)info.size, 1,
					  1);
	gst_buffer_pool_config_add_option(config,
					  GST_BUFFER_POOL_OPTION_VIDEO_META);
	ck_assert(gst_buffer_pool_set_config(pool, config));
	ck_assert(gst_buffer_pool_set_active(pool, TRUE));
	ck_assert_int_eq(gst_buffer_pool_acquire_buffer(pool, &in, NULL),
			 GST_FLOW_OK);
	ck_assert(gst_is_cuda_memory(gst_buffer_peek_memory(in, 0)));
	ck_assert(gst_video_frame_map(&src, &info, sys, GST_MAP_READ));
	ck_assert(gst_video_frame_map(&dst, &info, in, GST_MAP_WRITE));
	ck_assert(gst_video_frame_copy(&dst, &src));
	gst_video_frame_unmap(&dst);
	gst_video_frame_unmap(&src);

	harness_contexts[0] = cuda_gst_context();
	from = record_work_start();
	harness = harness_frame("glcudafilter name=f filter=none ! "
				"gldownload", "opengl3", in_caps, out_caps,
				in, &out);
	record_work_stop();
	gst_context_unref(harness_contexts[0]);
	harness_contexts[0] = NULL;
	check_element(harness, "f", "opengl3", what, "frames=1",
		      "input-cuda=1", NULL);
	check_frame_work(from, GST_VIDEO_INFO_N_PLANES(&info), what);
	compare_frames(&info, sys, out, FALSE, what);
	gst_buffer_unref(out);
	gst_harness_teardown(harness);
	gst_buffer_unref(in);
	gst_buffer_pool_set_active(pool, FALSE);
	gst_object_unref(pool);
	gst_buffer_unref(sys);
	gst_caps_unref(caps);
	g_free(what);
	g_free(out_caps);
	g_free(in_caps);
}
END_TEST

/* GL memory in, CUDA memory out (the element's pool on the application's
 * CUDA context): every format, the frame's pixels read back through
 * GStreamer's CPU map of the CUDA memory (a synchronous copy, ordered
 * after the legacy default stream's work only) against the frame pushed;
 * the element's copies into the memory on that stream, after GL's upload
 * and before the hand-back. */
START_TEST(test_cuda_memory_out_pixels)
{
	const char *format = formats[_i % G_N_ELEMENTS(formats)];
	int w = cuda_sizes[_i / G_N_ELEMENTS(formats)].w;
	int h = cuda_sizes[_i / G_N_ELEMENTS(formats)].h;
	gchar *in_caps = frame_caps(format, w, h, FALSE);
	gchar *out_caps = cuda_caps(format, w, h);
	gchar *what = g_strdup_printf("CUDA memory out, %s %dx%d", format, w,
				      h);
	GstCaps *caps = gst_caps_from_string(in_caps);
	GstBuffer *in, *out;
	GstVideoInfo info;
	GstHarness *harness;
	unsigned int from;

	ck_assert(gst_video_info_from_caps(&info, caps));
	in = pattern_buffer(&info, FALSE);
	harness_contexts[0] = cuda_gst_context();
	from = record_work_start();
	harness = harness_frame("glupload ! glcudafilter name=f filter=none",
				"opengl3", in_caps, out_caps, in, &out);
	record_work_stop();
	gst_context_unref(harness_contexts[0]);
	harness_contexts[0] = NULL;
	check_element(harness, "f", "opengl3", what, "frames=1",
		      "output-cuda=1", NULL);
	ck_assert(gst_buffer_n_memory(out) == 1 &&
		  gst_is_cuda_memory(gst_buffer_peek_memory(out, 0)));
	ck_assert(GST_CUDA_MEMORY_CAST(gst_buffer_peek_memory(out, 0))
			  ->context == app_cuda_context());
	check_frame_work(from, GST_VIDEO_INFO_N_PLANES(&info), what);
	compare_frames(&info, in, out, FALSE, what);
	gst_buffer_unref(out);
	gst_harness_teardown(harness);
	gst_buffer_unref(in);
	gst_caps_unref(caps);
	g_free(what);
	g_free(out_caps);
	g_free(in_caps);
}
END_TEST
#endif

static Suite *
element_suite(void)
{
	Suite *s = suite_create("glcudafilter");
	TCase *tc = tcase_create("harness");

	tcase_add_loop_test(tc, test_planes, 0,
			    (int)(G_N_ELEMENTS(formats) * G_N_ELEMENTS(sizes) *
				  G_N_ELEMENTS(apis)));
	tcase_add_loop_test(tc, test_pooled, 0, (int)G_N_ELEMENTS(apis));
	tcase_add_test(tc, test_kernel_inverts_rgba);
#ifdef HAVE_NVCC
	tcase_add_loop_test(tc, test_filter_order, 0, 5);
#endif
	tcase_add_loop_test(tc, test_routes, 0, 6);
	tcase_add_test(tc, test_device_shared);
	tcase_add_test(tc, test_device_foreign_context);
	tcase_add_test(tc, test_caps_cuda_memory);
	tcase_add_test(tc, test_caps_keep_size);
#ifdef HAVE_GST_CUDA
	tcase_add_test(tc, test_cuda_memory_out);
	tcase_add_loop_test(tc, test_cuda_memory_in_pixels, 0,
			    (int)(G_N_ELEMENTS(formats) *
				  G_N_ELEMENTS(cuda_sizes)));
	tcase_add_loop_test(tc, test_cuda_memory_out_pixels, 0,
			    (int)(G_N_ELEMENTS(formats) *
				  G_N_ELEMENTS(cuda_sizes)));
#endif
	suite_add_tcase(s, tc);
	return s;
}

/* GL's device UUID for the fake (GLCUDA_FAKE_CUDA_UUID), read on the GL
 * thread of a context of GstGL's display: the one the pipelines use. */
static void
set_uuid_gl(GstGLContext *context, gpointer data)
{
	*(GLenum *)data = fake_cuda_set_uuid_from_gl();
}

static void
bind_fake_to_gl(void)
{
	GstGLContext *context = NULL;
	GError *err = NULL;
	GLenum gl_err = 1;

	if (!gst_gl_display_create_context(display, NULL, &context, &err)) {
		printf("SKIP: GstGL makes no context: %s\n",
		       err ? err->message : "");
		exit(77);
	}
	gst_gl_context_thread_add(context, set_uuid_gl, &gl_err);
	gst_object_unref(context);
	if (gl_err != 0) {
		printf("SKIP: GL reports no device UUID "
		       "(no GL_EXT_memory_object)\n");
		exit(77);
	}
}

#ifdef HAVE_GST_CUDA
/* GStreamer's CUDA library opens libcuda.so.1 by name: the fake's link
 * of that name (tests/fake-cuda/libcuda, beside the fake's .libs) first
 * on LD_LIBRARY_PATH, which the dynamic loader reads as the program
 * starts: the program runs itself again with it. */
static void
use_fake_for_gstreamer(char **argv)
{
	gchar *dir = g_path_get_dirname(fake_cuda_path);
	gchar *libcuda = g_build_filename(dir, "..", "libcuda", NULL);
	gchar *link = g_build_filename(libcuda, "libcuda.so.1", NULL);
	const char *path = g_getenv("LD_LIBRARY_PATH");
	gchar *want;

	if (!g_file_test(link, G_FILE_TEST_EXISTS)) {
		fprintf(stderr, "FAIL: %s not found (make check makes it)\n",
			link);
		exit(99);
	}
	if (path && (g_str_has_prefix(path, libcuda) &&
		     (path[strlen(libcuda)] == ':' ||
		      !path[strlen(libcuda)]))) {
		g_free(link);
		g_free(libcuda);
		g_free(dir);
		return;
	}
	want = path && *path ? g_strconcat(libcuda, ":", path, NULL)
			     : g_strdup(libcuda);
	g_setenv("LD_LIBRARY_PATH", want, TRUE);
	execv("/proc/self/exe", argv);
	fprintf(stderr, "FAIL: cannot run /proc/self/exe again: %s\n",
		g_strerror(errno));
	exit(99);
}
#endif

int
main(int argc, char **argv)
{
	const char *top = getenv("abs_top_builddir");
	gchar *plugins, *lock, *dir;
	SRunner *sr;
	int failed, fd;

	fake_cuda_test_setup();
#ifdef HAVE_GST_CUDA
	use_fake_for_gstreamer(argv);
#endif
	if (!top)
		top = ".";
	plugins = g_build_filename(top, "gst", ".libs", NULL);
	if (!g_file_test(plugins, G_FILE_TEST_IS_DIR)) {
		printf("SKIP: the GStreamer plugin is not built\n");
		return 77;
	}
	/* make install relinks the plugin in the build tree meanwhile:
	 * its tests take this lock, exclusive (tests/gst-test-env.sh). */
	lock = g_build_filename(top, "tests", ".install.lock", NULL);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		flock(fd, LOCK_SH);
	dir = g_dir_make_tmp("glcuda-gst-XXXXXX", NULL);
	if (!dir) {
		fprintf(stderr, "FAIL: cannot make a temporary directory\n");
		return 99;
	}
	setenv("GST_PLUGIN_PATH", plugins, 1);
	setenv("GST_REGISTRY", g_build_filename(dir, "registry.bin", NULL), 1);
	setenv("GST_GL_PLATFORM", "egl", 1);
	setenv("GST_GL_WINDOW", "egl-device", 1);
	setenv("GST_GL_API", "opengl3", 1);
	/* The fake loads any file as a module; the name selects the
	 * kernel it runs on the CPU. */
	snprintf(ptx_path, sizeof(ptx_path), "%s/kernel.ptx", dir);
	if (!g_file_set_contents(ptx_path, "any module\n", -1, NULL)) {
		fprintf(stderr, "FAIL: cannot write %s\n", ptx_path);
		return 99;
	}
	gst_init(NULL, NULL);
	display = gst_gl_display_new();
	bind_fake_to_gl();

	sr = srunner_create(element_suite());
	/* GStreamer's threads and GL contexts do not survive fork(). */
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (other_display)
		gst_object_unref(other_display);
	gst_object_unref(display);
	unlink(ptx_path);
	remove(g_getenv("GST_REGISTRY"));
	rmdir(dir);
	return failed ? 1 : 0;
}
