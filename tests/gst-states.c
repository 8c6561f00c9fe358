/*
 * Runs a pipeline (gst-launch syntax) to EOS several times, setting it back
 * to NULL in between, as an application that stops and restarts a stream
 * does: every run starts and stops glcudafilter's GL and CUDA state anew.
 * Usage: gst-states RUNS PIPELINE. Exit 0 when every run reached EOS, 1
 * at the first error (printed).
 *
 * For tests/test-gst.sh it also prints what each glcudafilter answered
 * upstream's allocation queries ("NAME: offers POOL-TYPE", from a probe on
 * its sink pad, after the element answered) and, after each run, its
 * stats property ("NAME: glcudafilter-stats, frames=...") and the buffers
 * it dropped for QoS (qos=true: "NAME: qos-dropped=N", from the QoS
 * messages GstBaseTransform posts for each late buffer it drops).
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>

#include <gst/gst.h>

/* The sink pad's answer to an allocation query: the first pool's type. */
static GstPadProbeReturn
allocation_answered(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
	GstBufferPool *pool = NULL;

	if (GST_QUERY_TYPE(query) != GST_QUERY_ALLOCATION)
		return GST_PAD_PROBE_OK;
	if (gst_query_get_n_allocation_pools(query) > 0)
		gst_query_parse_nth_allocation_pool(query, 0, &pool, NULL, NULL,
						    NULL);
	printf("%s: offers %s\n", (const char *)data,
	       pool ? G_OBJECT_TYPE_NAME(pool) : "no pool");
	fflush(stdout);
	if (pool)
		gst_object_unref(pool);
	return GST_PAD_PROBE_OK;
}

static gboolean
is_glcudafilter(GstElement *element)
{
	GstElementFactory *factory = gst_element_get_factory(element);

	return factory &&
	       g_strcmp0(GST_OBJECT_NAME(factory), "glcudafilter") == 0;
}

/* Calls @func on every glcudafilter of @pipeline. */
static void
foreach_glcudafilter(GstElement *pipeline, void (*func)(GstElement *element))
{
	GstIterator *it = gst_bin_iterate_recurse(GST_BIN(pipeline));
	GValue item = G_VALUE_INIT;

	while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
		GstElement *element = g_value_get_object(&item);

		if (is_glcudafilter(element))
			func(element);
		g_value_reset(&item);
	}
	g_value_unset(&item);
	gst_iterator_free(it);
}

static void
add_probe(GstElement *element)
{
	GstPad *pad = gst_element_get_static_pad(element, "sink");

	gst_pad_add_probe(pad,
			  GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM |
				  GST_PAD_PROBE_TYPE_PULL,
			  allocation_answered,
			  g_strdup(GST_ELEMENT_NAME(element)), g_free);
	gst_object_unref(pad);
}

static void
print_stats(GstElement *element)
{
	GstStructure *stats = NULL;
	gchar *text;

	g_object_get(element, "stats", &stats, NULL);
	text = stats ? gst_structure_to_string(stats) : g_strdup("no stats");
	printf("%s: %s\n", GST_ELEMENT_NAME(element), text);
	printf("%s: qos-dropped=%u\n", GST_ELEMENT_NAME(element),
	       GPOINTER_TO_UINT(
		       g_object_get_data(G_OBJECT(element), "qos-dropped")));
	g_object_set_data(G_OBJECT(element), "qos-dropped", NULL);
	g_free(text);
	if (stats)
		gst_structure_free(stats);
}

/* A QoS message of a glcudafilter: the buffers it dropped so far (the
 * count is cumulative), kept on the element until its stats are printed. */
static void
count_qos(GstMessage *msg)
{
	GstFormat format;
	guint64 processed, dropped;

	if (!GST_IS_ELEMENT(GST_MESSAGE_SRC(msg)) ||
	    !is_glcudafilter(GST_ELEMENT(GST_MESSAGE_SRC(msg))))
		return;
	gst_message_parse_qos_stats(msg, &format, &processed, &dropped);
	if (format == GST_FORMAT_BUFFERS)
		g_object_set_data(G_OBJECT(GST_MESSAGE_SRC(msg)), "qos-dropped",
				  GUINT_TO_POINTER((guint)dropped));
}

int
main(int argc, char **argv)
{
	GstElement *pipeline;
	GError *err = NULL;
	int runs, ret = 0;

	gst_init(&argc, &argv);
	if (argc != 3 || (runs = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: %s RUNS PIPELINE\n", argv[0]);
		return 2;
	}
	/* Strict: a pipeline with a link that failed (gst_parse_launch's
	 * recoverable errors) would run with an unlinked pad. */
	pipeline = gst_parse_launch_full(argv[2], NULL,
					 GST_PARSE_FLAG_FATAL_ERRORS, &err);
	if (!pipeline || err) {
		fprintf(stderr, "gst-states: %s\n",
			err ? err->message : "no pipeline");
		g_clear_error(&err);
		if (pipeline)
			gst_object_unref(pipeline);
		return 1;
	}
	foreach_glcudafilter(pipeline, add_probe);
	for (int i = 0; i < runs && ret == 0; i++) {
		GstBus *bus = gst_element_get_bus(pipeline);
		GstMessage *msg;

		if (gst_element_set_state(pipeline, GST_STATE_PLAYING) ==
		    GST_STATE_CHANGE_FAILURE) {
			fprintf(stderr, "gst-states: run %d: PLAYING failed\n",
				i);
			ret = 1;
		}
		/* No timeout: the test harness bounds the whole test. */
		while ((msg = gst_bus_timed_pop_filtered(
				bus, GST_CLOCK_TIME_NONE,
				GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
					GST_MESSAGE_QOS)) &&
		       GST_MESSAGE_TYPE(msg) == GST_MESSAGE_QOS) {
			count_qos(msg);
			gst_message_unref(msg);
		}
		if (msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
			gchar *dbg = NULL;

			gst_message_parse_error(msg, &err, &dbg);
			fprintf(stderr, "gst-states: run %d: %s (%s)\n", i,
				err->message, dbg ? dbg : "");
			g_error_free(err);
			g_free(dbg);
			ret = 1;
		}
		if (msg)
			gst_message_unref(msg);
		if (ret == 0)
			foreach_glcudafilter(pipeline, print_stats);
		gst_object_unref(bus);
		gst_element_set_state(pipeline, GST_STATE_NULL);
		if (ret == 0)
			printf("run %d: EOS\n", i);
	}
	gst_object_unref(pipeline);
	gst_deinit();
	return ret;
}
