# tests: the Vulkan exporter (lib/vk). Runs on any Vulkan driver, lavapipe
# included; exits 77 (skip) where there is none.
if HAVE_CHECK
check_PROGRAMS += %reldir%/test-vk
TESTS += %reldir%/test-vk
%canon_reldir%_test_vk_SOURCES = %reldir%/test-vk.c $(sanitizer_sources)
%canon_reldir%_test_vk_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_test_vk_LDADD = lib/libglcuda-test.la $(CHECK_LIBS) $(VULKAN_LIBS) \
	$(EPOXY_LIBS) $(EGL_LIBS)
endif

# Every call site of lib/ through a fault-injection seam (CU_CALL, VK),
# listed from the sources at build time for the fault-injection tests to
# count their coverage against (tests/fault-coverage.h).
fault_sites_script = $(top_srcdir)/scripts/fault-sites.sh
%reldir%/fault-sites.h: $(lib_sources) $(fault_sites_script)
	$(AM_V_GEN)$(SHELL) $(fault_sites_script) $(top_srcdir) > $@.tmp && mv $@.tmp $@
BUILT_SOURCES += %reldir%/fault-sites.h
CLEANFILES += %reldir%/fault-sites.h %reldir%/fault-sites.h.tmp
EXTRA_DIST += scripts/fault-sites.sh
fault_coverage_sources = %reldir%/fault-coverage.c %reldir%/fault-coverage.h

# Vulkan fault injection through the public API, on Mesa and the fake CUDA
# driver (tests/fake-cuda): every Vulkan call site of lib/ failed once.
if HAVE_CHECK
check_PROGRAMS += %reldir%/test-faults-vk
TESTS += %reldir%/test-faults-vk
# CI's, not the GPU machine's (print-gpu-tests): it needs the fake.
fake_cuda_scripts += %reldir%/test-faults-vk
%canon_reldir%_test_faults_vk_SOURCES = %reldir%/test-faults-vk.c $(fault_coverage_sources) \
	%reldir%/fake-cuda/fake-cuda-test.c %reldir%/fake-cuda/fake-cuda-test.h $(sanitizer_sources)
nodist_%canon_reldir%_test_faults_vk_SOURCES = %reldir%/fault-sites.h
%canon_reldir%_test_faults_vk_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_test_faults_vk_LDADD = $(test_ldadd) $(DLOPEN_LIBS)
endif
