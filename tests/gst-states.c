/*
 * Runs a pipeline (gst-launch syntax) to EOS several times, setting it back
 * to NULL in between, as an application that stops and restarts a stream
 * does: every run starts and stops glcudafilter's GL and CUDA state anew.
 * Usage: gst-states RUNS PIPELINE. Exit 0 when every run reached EOS, 1
 * at the first error (printed).
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>

#include <gst/gst.h>

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
	pipeline = gst_parse_launch(argv[2], &err);
	if (!pipeline) {
		fprintf(stderr, "gst-states: %s\n", err->message);
		g_error_free(err);
		return 1;
	}
	for (int i = 0; i < runs && ret == 0; i++) {
		GstBus *bus = gst_element_get_bus(pipeline);
		GstMessage *msg;

		if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
			fprintf(stderr, "gst-states: run %d: PLAYING failed\n", i);
			ret = 1;
		}
		/* No timeout: the test harness bounds the whole test. */
		msg = gst_bus_timed_pop_filtered(bus, GST_CLOCK_TIME_NONE,
						 GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
		if (msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
			gchar *dbg = NULL;

			gst_message_parse_error(msg, &err, &dbg);
			fprintf(stderr, "gst-states: run %d: %s (%s)\n", i, err->message,
				dbg ? dbg : "");
			g_error_free(err);
			g_free(dbg);
			ret = 1;
		}
		if (msg)
			gst_message_unref(msg);
		gst_object_unref(bus);
		gst_element_set_state(pipeline, GST_STATE_NULL);
		if (ret == 0)
			printf("run %d: EOS\n", i);
	}
	gst_object_unref(pipeline);
	gst_deinit();
	return ret;
}
