# tests: the Vulkan exporter (lib/vk). Runs on any Vulkan driver, lavapipe
# included; exits 77 (skip) where there is none.
if HAVE_CHECK
check_PROGRAMS += tests/test-vk
TESTS += tests/test-vk
tests_test_vk_SOURCES = tests/test-vk.c $(sanitizer_sources)
tests_test_vk_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_vk_LDADD = lib/libglcuda-test.la $(CHECK_LIBS) $(VULKAN_LIBS) \
	$(EPOXY_LIBS) $(EGL_LIBS)
endif
