# tests: the headless EGL helper and the glcuda-info doctor.
if HAVE_CHECK
check_PROGRAMS += tests/test-headless
TESTS += tests/test-headless
tests_test_headless_SOURCES = tests/test-headless.c $(sanitizer_sources)
tests_test_headless_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_headless_LDADD = lib/libglcuda-internal.la $(CHECK_LIBS) \
	$(EGL_LIBS) $(EPOXY_LIBS) $(VULKAN_LIBS)
endif

# Runs tools/glcuda-info from the build directory.
TESTS += tests/test-info.sh
dist_check_SCRIPTS += tests/test-info.sh
