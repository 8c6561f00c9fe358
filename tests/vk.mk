# tests: the Vulkan exporter (lib/vk). Runs on any Vulkan driver, lavapipe
# included; exits 77 (skip) where there is none.
if HAVE_CHECK
check_PROGRAMS += %reldir%/test-vk
TESTS += %reldir%/test-vk
%canon_reldir%_test_vk_SOURCES = %reldir%/test-vk.c $(sanitizer_sources)
%canon_reldir%_test_vk_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_test_vk_LDADD = tests/libtestcommon.la lib/libglcuda-test.la $(CHECK_LIBS) $(VULKAN_LIBS) \
	$(EPOXY_LIBS) $(EGL_LIBS)
endif
