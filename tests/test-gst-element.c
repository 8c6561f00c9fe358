/*
 * glcudafilter in GStreamer's own way: GstHarness pushes buffers through
 * the element and pulls them back, pipelines run to EOS, on Mesa and the
 * fake CUDA driver (tests/fake-cuda). Pixels: filter=none byte for byte
 * on every format the element takes, and the fake's ring_transform (a CPU
 * invert) on RGBA against the inverse; the routes' counters for an input
 * that is not the element's pool's (gltestsrc); the glcuda device shared
 * through GstContext (one made, both elements answer with it); caps with
 * CUDA memory on either pad, and the element's refusal where GStreamer's
 * CUDA library cannot load a CUDA driver.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <gst/check/gstharness.h>
#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include "fake-cuda/fake-cuda-test.h"

#define W 34
#define H 17

static char ptx_path[PATH_MAX];

/* The single-plane formats of the element's pad templates. (NV12, I420
 * and P010_10LE stay with tests/test-gst.sh and tests/test-gst-odd.sh:
 * glupload and gldownload in a GstHarness give back empty chroma planes
 * for them, with or without the element.) */
static const char *const formats[] = {
	"RGBA", "RGB10A2_LE", "BGRA", "BGRx", "RGBx",
};

/* The GL display every GL element of the tests uses. */
static GstGLDisplay *display;

/* A frame of @format, W x H, every byte of every plane a function of its
 * position (10-bit formats keep their padding bits clear: GL drops them). */
static GstBuffer *
pattern_buffer(const GstVideoInfo *info)
{
	GstBuffer *buf = gst_buffer_new_allocate(NULL, info->size, NULL);
	GstVideoFrame frame;
	gboolean ten = GST_VIDEO_INFO_FORMAT(info) ==
		       GST_VIDEO_FORMAT_P010_10LE;

	ck_assert(gst_video_frame_map(&frame, info, buf, GST_MAP_WRITE));
	for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); p++) {
		guint8 *d = GST_VIDEO_FRAME_PLANE_DATA(&frame, p);
		gint stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
		gint rows = GST_VIDEO_FRAME_COMP_HEIGHT(&frame, p);

		for (gint y = 0; y < rows; y++)
			for (gint x = 0; x < stride; x++)
				d[y * stride + x] = (guint8)(ten && !(x & 1) ?
					(x * 7 + y * 13 + p * 31) & 0xc0 :
					(x * 7 + y * 13 + p * 31) & 0xff);
	}
	gst_video_frame_unmap(&frame);
	return buf;
}

/* The bytes of each row of each plane of @a and @b that the image holds
 * (strides may differ): equal, or with @invert_rgba, RGB inverted and
 * alpha kept. */
static void
compare_frames(const GstVideoInfo *info, GstBuffer *a, GstBuffer *b,
	       gboolean invert_rgba, const char *what)
{
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

			for (gint x = 0; x < bytes; x++) {
				guint8 want = invert_rgba && x % 4 != 3 ?
					      (guint8)(255 - ra[x]) : ra[x];

				ck_assert_msg(rb[x] == want, "%s: plane %u "
					      "row %d byte %d is %u, not %u",
					      what, p, y, x, rb[x], want);
			}
		}
	}
	gst_video_frame_unmap(&fb);
	gst_video_frame_unmap(&fa);
}

/* GstGL's elements of @element (a bin) on the tests' display. */
static void
set_display(GstElement *element)
{
	GstContext *context = gst_context_new(GST_GL_DISPLAY_CONTEXT_TYPE,
					      TRUE);

	gst_context_set_gl_display(context, display);
	gst_element_set_context(element, context);
	gst_context_unref(context);
}

/* One frame of @format through glupload ! glcudafilter PROPS ! gldownload
 * in a GstHarness, checked against the frame pushed. */
static void
harness_frame(const char *format, const char *props, gboolean invert)
{
	gchar *launch = g_strdup_printf("glupload ! glcudafilter %s ! "
					"gldownload", props);
	gchar *caps = g_strdup_printf("video/x-raw,format=%s,width=%d,"
				      "height=%d,framerate=30/1", format, W, H);
	GstHarness *h = gst_harness_new_parse(launch);
	GstCaps *parsed = gst_caps_from_string(caps);
	GstVideoInfo info;
	GstBuffer *in, *out;

	ck_assert_ptr_nonnull(h);
	set_display(h->element);
	ck_assert(gst_video_info_from_caps(&info, parsed));
	gst_caps_unref(parsed);
	gst_harness_set_src_caps_str(h, caps);
	gst_harness_set_sink_caps_str(h, caps);
	/* GL's rows are padded (a 4-byte alignment): the layout of the
	 * frames pulled is in their video meta. */
	gst_harness_add_propose_allocation_meta(h, GST_VIDEO_META_API_TYPE,
						NULL);
	in = pattern_buffer(&info);
	ck_assert_int_eq(gst_harness_push(h, gst_buffer_ref(in)), GST_FLOW_OK);
	out = gst_harness_pull(h);
	ck_assert_ptr_nonnull(out);
	compare_frames(&info, in, out, invert, format);
	gst_buffer_unref(out);
	gst_buffer_unref(in);
	gst_harness_teardown(h);
	g_free(caps);
	g_free(launch);
}

START_TEST(test_none_every_format)
{
	harness_frame(formats[_i], "filter=none", FALSE);
}
END_TEST

START_TEST(test_kernel_inverts_rgba)
{
	gchar *props = g_strdup_printf("kernel-name=ring_transform "
				       "ptx-file=%s", ptx_path);

	harness_frame("RGBA", props, TRUE);
	g_free(props);
}
END_TEST

/* Runs @launch to EOS or an error; the error's text (to free) or NULL.
 * *contexts: the glcuda.device contexts posted (have-context). */
static gchar *
run_pipeline(const char *launch, GstElement **out, guint *contexts)
{
	GError *err = NULL;
	GstElement *pipeline = gst_parse_launch(launch, &err);
	GstBus *bus;
	GstMessage *msg;
	gchar *text = NULL;

	ck_assert_msg(pipeline != NULL, "%s: %s", launch,
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

/* glupload uploads into textures of its own, not the element's pool:
 * each frame's input is wrapped or (the fake cannot register textures)
 * copied, never pooled. */
START_TEST(test_routes_not_pooled)
{
	GstElement *pipeline;
	guint contexts;
	gchar *err = run_pipeline("videotestsrc num-buffers=3 ! "
		"video/x-raw,format=RGBA,width=64,height=48 ! glupload ! "
		"glcudafilter name=f ! gldownload ! fakesink", &pipeline,
		&contexts);

	ck_assert_msg(err == NULL, "%s", err);
	ck_assert_uint_eq(stats_field(pipeline, "f", "frames"), 3);
	ck_assert_uint_eq(stats_field(pipeline, "f", "input-pooled"), 0);
	ck_assert_uint_eq(stats_field(pipeline, "f", "input-wrapped") +
			  stats_field(pipeline, "f", "input-copied"), 3);
	ck_assert_uint_eq(stats_field(pipeline, "f", "input-cuda"), 0);
	stop_pipeline(pipeline);
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

#ifdef HAVE_GST_CUDA
/* CUDA memory negotiated on the src pad: where GStreamer's CUDA library
 * finds no driver (it opens libcuda.so.1 itself, never the fake), the
 * element says so as it starts; where it finds one, the frames flow. */
START_TEST(test_cuda_memory_out)
{
	void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	GstElement *pipeline;
	guint contexts;
	gchar *err = run_pipeline("videotestsrc num-buffers=2 ! "
		"video/x-raw,format=NV12,width=64,height=48 ! glupload ! "
		"glcolorconvert ! glcudafilter name=f ! "
		"video/x-raw(memory:CUDAMemory) ! fakesink", &pipeline,
		&contexts);

	if (!libcuda) {
		ck_assert_ptr_nonnull(err);
		ck_assert_msg(strstr(err, "Cannot use CUDA memory") &&
			      strstr(err, "libcuda.so.1"), "%s", err);
	} else {
		ck_assert_msg(err == NULL, "%s", err);
		ck_assert_uint_eq(stats_field(pipeline, "f", "output-cuda"), 2);
		dlclose(libcuda);
	}
	g_free(err);
	stop_pipeline(pipeline);
}
END_TEST
#endif

static Suite *
element_suite(void)
{
	Suite *s = suite_create("glcudafilter");
	TCase *tc = tcase_create("harness");

	tcase_add_loop_test(tc, test_none_every_format, 0,
			    (int)G_N_ELEMENTS(formats));
	tcase_add_test(tc, test_kernel_inverts_rgba);
	tcase_add_test(tc, test_routes_not_pooled);
	tcase_add_test(tc, test_device_shared);
	tcase_add_test(tc, test_caps_cuda_memory);
#ifdef HAVE_GST_CUDA
	tcase_add_test(tc, test_cuda_memory_out);
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

int
main(void)
{
	const char *top = getenv("abs_top_builddir");
	gchar *plugins, *lock, *dir;
	SRunner *sr;
	int failed, fd;

	fake_cuda_test_setup();
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
	gst_object_unref(display);
	unlink(ptx_path);
	remove(g_getenv("GST_REGISTRY"));
	rmdir(dir);
	return failed ? 1 : 0;
}
