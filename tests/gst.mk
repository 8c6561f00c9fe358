# tests: the GStreamer plugin (gst/, element glcudafilter) on Mesa and the
# fake CUDA driver. test-gst-element checks the element in GStreamer's own
# way (GstHarness and pipelines run in the test's process: the pixels of
# every format and size, the pool, the routes); the scripts run whole
# gst-launch-1.0 processes, where the process is the point (state changes
# under valgrind and the leaks tracer, gst-inspect-1.0, the errors users
# read, property changes while PLAYING).
if HAVE_GSTREAMER
if HAVE_CHECK
check_PROGRAMS += %reldir%/test-gst-element
TESTS += %reldir%/test-gst-element
fake_cuda_scripts += %reldir%/test-gst-element
%canon_reldir%_test_gst_element_SOURCES = %reldir%/test-gst-element.c \
	$(fake_cuda_test_sources) $(sanitizer_sources)
%canon_reldir%_test_gst_element_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests \
	$(GST_CFLAGS) $(GST_CHECK_CFLAGS) $(GST_CUDA_CFLAGS)
%canon_reldir%_test_gst_element_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_test_gst_element_LDADD = $(test_ldadd) $(GST_CHECK_LIBS) $(GST_CUDA_LIBS) \
	$(GST_LIBS) $(DLOPEN_LIBS)
endif

# The state-change test's driver (tests/test-gst.sh).
check_PROGRAMS += %reldir%/gst-states
%canon_reldir%_gst_states_SOURCES = %reldir%/gst-states.c
%canon_reldir%_gst_states_CPPFLAGS = $(GST_CFLAGS)
%canon_reldir%_gst_states_LDADD = $(GST_LIBS)
# Property changes while PLAYING, frame by frame (tests/test-gst-props.sh).
check_PROGRAMS += %reldir%/gst-switch
%canon_reldir%_gst_switch_SOURCES = %reldir%/gst-switch.c
%canon_reldir%_gst_switch_CPPFLAGS = $(GST_CFLAGS) $(GST_APP_CFLAGS)
%canon_reldir%_gst_switch_LDADD = $(GST_APP_LIBS) $(GST_LIBS)

# Only where the plugin is built (a SKIP where it is not would fail CI's
# check of skips: tests/expected-skips).
TESTS += %reldir%/test-gst.sh
fake_cuda_scripts += %reldir%/test-gst.sh
# Changes while PLAYING, the errors users read, the documented defaults.
TESTS += %reldir%/test-gst-props.sh
fake_cuda_scripts += %reldir%/test-gst-props.sh
endif
dist_check_SCRIPTS += %reldir%/test-gst.sh
EXTRA_DIST += %reldir%/gst-test-env.sh
dist_check_SCRIPTS += %reldir%/test-gst-props.sh
