# tests: fault injection (lib/fault.h) counted against every call site of
# lib/. scripts/fault-sites.sh lists the sites (CU_CALL, VK) from the
# sources at build time; tests/fault-coverage.c compares the sites a test
# made fail with that list. tests/test-faults (the GPU machine) is in
# tests/local.mk.
fault_sites_script = $(top_srcdir)/scripts/fault-sites.sh
%reldir%/fault-sites.h: $(lib_sources) $(fault_sites_script)
	$(AM_V_GEN)$(SHELL) $(fault_sites_script) $(top_srcdir) > $@.tmp && mv $@.tmp $@
BUILT_SOURCES += %reldir%/fault-sites.h
CLEANFILES += %reldir%/fault-sites.h %reldir%/fault-sites.h.tmp
EXTRA_DIST += scripts/fault-sites.sh
fault_coverage_sources = %reldir%/fault-coverage.c %reldir%/fault-coverage.h

if HAVE_CHECK
# On Mesa (llvmpipe, lavapipe) and the fake CUDA driver (tests/fake-cuda):
# every Vulkan call site failed once through the public API
# (test-faults-vk), and the CUDA call sites the fake reaches
# (test-faults-cpu: tests/test-faults.c on the fake).
fault_fake_tests = %reldir%/test-faults-vk %reldir%/test-faults-cpu
check_PROGRAMS += $(fault_fake_tests)
TESTS += $(fault_fake_tests)
# CI's, not the GPU machine's (print-gpu-tests): they need the fake.
fake_cuda_scripts += $(fault_fake_tests)
fault_fake_sources = $(fault_coverage_sources) %reldir%/fake-cuda/fake-cuda-test.c \
	%reldir%/fake-cuda/fake-cuda-test.h $(sanitizer_sources)

%canon_reldir%_test_faults_vk_SOURCES = %reldir%/test-faults-vk.c $(fault_fake_sources)
nodist_%canon_reldir%_test_faults_vk_SOURCES = %reldir%/fault-sites.h
%canon_reldir%_test_faults_vk_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_test_faults_vk_LDADD = $(test_ldadd) $(DLOPEN_LIBS)

%canon_reldir%_test_faults_cpu_SOURCES = %reldir%/test-faults.c $(fault_fake_sources)
nodist_%canon_reldir%_test_faults_cpu_SOURCES = %reldir%/fault-sites.h
%canon_reldir%_test_faults_cpu_CPPFLAGS = $(AM_CPPFLAGS) -DFAULTS_FAKE_CUDA
%canon_reldir%_test_faults_cpu_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_test_faults_cpu_LDADD = $(test_ldadd) $(DLOPEN_LIBS)
endif
