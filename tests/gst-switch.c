/*
 * glcudafilter's properties changed while PLAYING, frame by frame: an
 * appsrc pushes NV12 frames one at a time into
 *
 *     appsrc ! glupload ! glcolorconvert ! glcudafilter ! gldownload ! appsink
 *
 * and each output is pulled from the appsink before the properties are
 * changed again, so every frame meets the filter that was set when it
 * entered. Each output is checked against that filter: filter=none is
 * the frame as GstGL uploads and downloads it (the same frame through
 * the pipeline without glcudafilter), filter=invert every byte of it
 * inverted (the fake CUDA driver runs CPU versions of the element's
 * kernels), kernel-name=invert_planes
 * (examples/gstreamer/invert-planes.cu, which the fake runs by name)
 * every byte of the NV12 frame inverted too, the kernel run once per
 * plane, and filter=grade, which runs on 8-bit RGB
 * only, the RGBx frame glcolorconvert makes once the caps were
 * renegotiated (it prefers RGBx for a frame without alpha), graded: the
 * same frame through a pipeline that converts to RGBx and grades it.
 * Then the errors of changes that cannot run: a kernel the module does
 * not have, ptx-file without kernel-name, and blur (8-bit RGB only) on NV12
 * from a source of fixed caps with no converter in front, each an
 * element error naming the reason.
 *
 * Usage: gst-switch KERNEL-FILE (any file: the fake loads any module).
 * Prints one line per frame; exit 0 when every frame and every error
 * was as expected, 1 at the first that was not.
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>

#define W 64
#define H 48
#define NV12_CAPS "video/x-raw,format=NV12,width=64,height=48,framerate=30/1"
/* A guard against a pipeline that hangs, not a synchronisation: each
 * output is waited for, and comes long before. */
#define HANG_GUARD (60 * GST_SECOND)

struct pipe {
	GstElement *pipeline, *src, *sink, *filter;
};

static int
pipe_new(struct pipe *p, const char *middle)
{
	gchar *desc =
		g_strdup_printf("appsrc name=src format=time caps=" NV12_CAPS
				" ! glupload ! %s ! gldownload ! appsink "
				"name=sink sync=false",
				middle);
	GError *err = NULL;

	memset(p, 0, sizeof(*p));
	/* Strict: a link that failed would leave a pad unlinked. */
	p->pipeline = gst_parse_launch_full(desc, NULL,
					    GST_PARSE_FLAG_FATAL_ERRORS, &err);
	g_free(desc);
	if (!p->pipeline || err) {
		fprintf(stderr, "gst-switch: %s\n",
			err ? err->message : "no pipeline");
		g_clear_error(&err);
		if (p->pipeline)
			gst_object_unref(p->pipeline);
		p->pipeline = NULL;
		return -1;
	}
	p->src = gst_bin_get_by_name(GST_BIN(p->pipeline), "src");
	p->sink = gst_bin_get_by_name(GST_BIN(p->pipeline), "sink");
	p->filter = gst_bin_get_by_name(GST_BIN(p->pipeline), "f");
	if (gst_element_set_state(p->pipeline, GST_STATE_PLAYING) ==
	    GST_STATE_CHANGE_FAILURE) {
		fprintf(stderr, "gst-switch: PLAYING failed\n");
		return -1;
	}
	return 0;
}

static void
pipe_free(struct pipe *p)
{
	if (!p->pipeline)
		return;
	gst_element_set_state(p->pipeline, GST_STATE_NULL);
	gst_clear_object(&p->src);
	gst_clear_object(&p->sink);
	gst_clear_object(&p->filter);
	gst_object_unref(p->pipeline);
}

/* Frame @n: a pattern of its own in luma and chroma. */
static GstBuffer *
frame_new(int n)
{
	const gsize size = W * H * 3 / 2;
	guint8 *data = g_malloc(size);
	GstBuffer *buf;

	for (gsize i = 0; i < W * H; i++)
		data[i] = (guint8)((i % W) * 3 + (i / W) * 5 + n * 17);
	for (gsize i = W * H; i < size; i++)
		data[i] = (guint8)(i * 7 + n * 29 + 64);
	buf = gst_buffer_new_wrapped(data, size);
	GST_BUFFER_PTS(buf) = (GstClockTime)n * GST_SECOND / 30;
	GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
	return buf;
}

/* Pushes frame @n into @p and waits for its output. NULL (printed) if
 * none came. */
static GstSample *
push_pull(struct pipe *p, int n)
{
	GstSample *sample;

	if (gst_app_src_push_buffer(GST_APP_SRC(p->src), frame_new(n)) !=
	    GST_FLOW_OK) {
		fprintf(stderr, "gst-switch: frame %d: push failed\n", n);
		return NULL;
	}
	sample =
		gst_app_sink_try_pull_sample(GST_APP_SINK(p->sink), HANG_GUARD);
	if (!sample) {
		/* Which pipeline, and why, if its bus says. */
		GstBus *bus = gst_element_get_bus(p->pipeline);
		GstMessage *msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
		GError *err = NULL;
		gchar *debug = NULL;

		if (msg)
			gst_message_parse_error(msg, &err, &debug);
		fprintf(stderr,
			"gst-switch: frame %d: no output from %s: %s (%s)\n",
			n, GST_OBJECT_NAME(p->pipeline),
			err ? err->message : "no error on its bus",
			debug ? debug : "-");
		g_clear_error(&err);
		g_free(debug);
		if (msg)
			gst_message_unref(msg);
		gst_object_unref(bus);
	}
	return sample;
}

static const char *
sample_format(GstSample *sample)
{
	GstCaps *caps = gst_sample_get_caps(sample);

	return caps ? gst_structure_get_string(gst_caps_get_structure(caps, 0),
					       "format")
		    : NULL;
}

/* The error on @p's bus, NULL if none came; its message is printed. */
static gchar *
wait_error(struct pipe *p)
{
	GstBus *bus = gst_element_get_bus(p->pipeline);
	GstMessage *msg =
		gst_bus_timed_pop_filtered(bus, HANG_GUARD, GST_MESSAGE_ERROR);
	GError *err = NULL;
	gchar *text = NULL;

	gst_object_unref(bus);
	if (!msg)
		return NULL;
	gst_message_parse_error(msg, &err, NULL);
	printf("error from %s: %s\n", GST_OBJECT_NAME(GST_MESSAGE_SRC(msg)),
	       err->message);
	text = g_strdup(err->message);
	g_error_free(err);
	gst_message_unref(msg);
	return text;
}

enum expect { EXPECT_SAME, EXPECT_INVERT_ALL, EXPECT_KERNEL, EXPECT_GRADE };

static const char *const expect_names[] = { "none", "invert", "invert_planes",
					    "grade" };

/* Whether @out is @ref as @expect says, in format @format. */
static gboolean
check_frame(int n, enum expect expect, const char *format, GstSample *ref,
	    GstSample *out)
{
	GstMapInfo rm, om;
	gsize bad = 0;
	gboolean ok;

	if (g_strcmp0(sample_format(out), format) != 0) {
		printf("frame %d (%s): output in %s, expected %s\n", n,
		       expect_names[expect], sample_format(out), format);
		return FALSE;
	}
	gst_buffer_map(gst_sample_get_buffer(ref), &rm, GST_MAP_READ);
	gst_buffer_map(gst_sample_get_buffer(out), &om, GST_MAP_READ);
	ok = rm.size == om.size && rm.size > 0;
	for (gsize i = 0; ok && i < rm.size; i++) {
		guint8 want = rm.data[i];

		if (expect == EXPECT_INVERT_ALL || expect == EXPECT_KERNEL)
			want = (guint8)(255 - want);
		bad += om.data[i] != want;
	}
	printf("frame %d (%s, %s): %zu of %zu bytes differ\n", n,
	       expect_names[expect], format, bad, rm.size);
	ok = ok && bad == 0;
	gst_buffer_unmap(gst_sample_get_buffer(out), &om);
	gst_buffer_unmap(gst_sample_get_buffer(ref), &rm);
	return ok;
}

int
main(int argc, char **argv)
{
	/* The frames as GstGL uploads and downloads them, in NV12, and in
	 * glcolorconvert's RGBx graded. */
	struct pipe ref_nv12 = { 0 }, ref_rgbx = { 0 }, p = { 0 }, e = { 0 };
	static const struct {
		enum expect expect;
		int frames;
	} steps[] = {
		{ EXPECT_SAME, 2 },  { EXPECT_INVERT_ALL, 2 },
		{ EXPECT_SAME, 1 },  { EXPECT_GRADE, 2 },
		{ EXPECT_SAME, 1 },  { EXPECT_INVERT_ALL, 2 },
		{ EXPECT_GRADE, 1 }, { EXPECT_KERNEL, 2 },
		{ EXPECT_GRADE, 1 }, { EXPECT_INVERT_ALL, 1 },
	};
	const char *kernel;
	gchar *error;
	int n = 0, ret = 0;

	gst_init(&argc, &argv);
	if (argc != 2) {
		fprintf(stderr, "usage: %s KERNEL-FILE\n", argv[0]);
		return 2;
	}
	kernel = argv[1];
	if (pipe_new(&ref_nv12, "glcolorconvert") < 0 ||
	    pipe_new(&ref_rgbx, "glcolorconvert ! "
				"video/x-raw(memory:GLMemory),format=RGBx ! "
				"glcudafilter filter=grade") < 0 ||
	    pipe_new(&p, "glcolorconvert ! glcudafilter name=f") < 0)
		return 1;

	for (guint s = 0; s < G_N_ELEMENTS(steps) && ret == 0; s++) {
		enum expect expect = steps[s].expect;
		const char *format = expect == EXPECT_GRADE ? "RGBx" : "NV12";

		/* Between frames: the last output was pulled, the next frame
		 * is not pushed yet. */
		if (expect == EXPECT_KERNEL)
			g_object_set(p.filter, "ptx-file", kernel,
				     "kernel-name", "invert_planes", NULL);
		else
			g_object_set(p.filter, "kernel-name", NULL, "ptx-file",
				     NULL, "filter",
				     expect == EXPECT_SAME ? 0 /* none */
				     : expect == EXPECT_INVERT_ALL
					     ? 1 /* invert */
					     : 4 /* grade */,
				     NULL);
		for (int i = 0; i < steps[s].frames && ret == 0; i++, n++) {
			GstSample *ref = push_pull(expect == EXPECT_GRADE
							   ? &ref_rgbx
							   : &ref_nv12,
						   n);
			GstSample *out = ref ? push_pull(&p, n) : NULL;

			if (!out || !check_frame(n, expect, format, ref, out))
				ret = 1;
			if (out)
				gst_sample_unref(out);
			if (ref)
				gst_sample_unref(ref);
		}
	}
	if (ret != 0) {
		/* Why the pipeline stopped, if it did. */
		error = wait_error(&p);
		g_free(error);
	}
	pipe_free(&p);

	/* A kernel the module does not have, set while PLAYING: an element
	 * error naming it, at the next frame. */
	if (ret == 0 &&
	    pipe_new(&e, "glcolorconvert ! glcudafilter name=f") == 0) {
		GstSample *out = push_pull(&e, 0);

		if (out)
			gst_sample_unref(out);
		g_object_set(e.filter, "ptx-file", kernel, "kernel-name",
			     "no_such_kernel", NULL);
		gst_app_src_push_buffer(GST_APP_SRC(e.src), frame_new(1));
		error = wait_error(&e);
		if (!out || !error || !strstr(error, "no_such_kernel")) {
			printf("kernel-name=no_such_kernel: no element error "
			       "naming the kernel\n");
			ret = 1;
		}
		g_free(error);
	} else {
		ret = 1;
	}
	pipe_free(&e);

	/* ptx-file without kernel-name, set while PLAYING. */
	if (ret == 0 &&
	    pipe_new(&e, "glcolorconvert ! glcudafilter name=f") == 0) {
		GstSample *out = push_pull(&e, 0);

		if (out)
			gst_sample_unref(out);
		g_object_set(e.filter, "ptx-file", kernel, NULL);
		gst_app_src_push_buffer(GST_APP_SRC(e.src), frame_new(1));
		error = wait_error(&e);
		if (!out || !error || !strstr(error, "without kernel-name")) {
			printf("ptx-file without kernel-name: no element error "
			       "saying so\n");
			ret = 1;
		}
		g_free(error);
	} else {
		ret = 1;
	}
	pipe_free(&e);

	/* blur (8-bit RGB only) on NV12 from a source of fixed caps, with no
	 * converter in front: upstream cannot renegotiate, and the next
	 * frame is an element error saying so. */
	if (ret == 0 &&
	    pipe_new(&e, "glcudafilter name=f filter=invert") == 0) {
		GstSample *out = push_pull(&e, 0);

		if (out)
			gst_sample_unref(out);
		g_object_set(e.filter, "filter", 2 /* blur */, NULL);
		gst_app_src_push_buffer(GST_APP_SRC(e.src), frame_new(1));
		error = wait_error(&e);
		if (!out || !error ||
		    !strstr(error, "blur does not run on NV12")) {
			printf("filter=blur on NV12 without a converter: no "
			       "element error saying so\n");
			ret = 1;
		}
		g_free(error);
	} else {
		ret = 1;
	}
	pipe_free(&e);

	pipe_free(&ref_rgbx);
	pipe_free(&ref_nv12);
	gst_deinit();
	if (ret == 0)
		printf("every frame and error as expected\n");
	return ret;
}
