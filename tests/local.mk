# Check suites. test-device and test-image run everywhere (Mesa on CI, the
# NVIDIA driver on the GPU machine); test-cuda and test-ring need CUDA and
# exit 77 (skip) without it.
if HAVE_CHECK
check_LTLIBRARIES += tests/libtestcommon.la
tests_libtestcommon_la_SOURCES = tests/test-common.c tests/test-common.h
tests_libtestcommon_la_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_libtestcommon_la_LIBADD = lib/libglcuda-test.la $(CHECK_LIBS)

test_ldadd = tests/libtestcommon.la lib/libglcuda-test.la $(CHECK_LIBS) \
	$(EGL_LIBS) $(EPOXY_LIBS) $(VULKAN_LIBS)

check_PROGRAMS += tests/test-device tests/test-image
TESTS += tests/test-device tests/test-image
tests_test_device_SOURCES = tests/test-device.c $(sanitizer_sources)
tests_test_device_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_device_LDADD = $(test_ldadd)
tests_test_image_SOURCES = tests/test-image.c $(sanitizer_sources)
tests_test_image_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_image_LDADD = $(test_ldadd)

# GPU suites: kernels from nvcc, embedded in the test programs.
if HAVE_NVCC
check_PROGRAMS += tests/test-cuda tests/test-ring tests/test-faults tests/test-wrap \
	tests/test-threads
TESTS += tests/test-cuda tests/test-ring tests/test-faults tests/test-wrap \
	tests/test-threads
gpu_test_sources = tests/test-gpu.c tests/test-gpu.h
tests_test_cuda_SOURCES = tests/test-cuda.c $(gpu_test_sources) $(sanitizer_sources)
nodist_tests_test_cuda_SOURCES = tests/test-kernels.S
tests_test_ring_SOURCES = tests/test-ring.c $(gpu_test_sources) $(sanitizer_sources)
tests_test_ring_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_ring_LDADD = $(test_ldadd)
nodist_tests_test_ring_SOURCES = tests/test-kernels.S
tests_test_faults_SOURCES = tests/test-faults.c $(gpu_test_sources) $(sanitizer_sources)
tests_test_faults_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_faults_LDADD = $(test_ldadd)
nodist_tests_test_faults_SOURCES = tests/test-kernels.S
tests_test_wrap_SOURCES = tests/test-wrap.c $(gpu_test_sources) $(sanitizer_sources)
tests_test_wrap_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_wrap_LDADD = $(test_ldadd)
nodist_tests_test_wrap_SOURCES = tests/test-kernels.S
# Two devices on two threads (on two GPUs when there are two); the same
# source runs on the fake CUDA driver as tests/test-threads-cpu.
tests_test_threads_SOURCES = tests/test-threads.c $(gpu_test_sources) $(sanitizer_sources)
tests_test_threads_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_threads_LDADD = $(test_ldadd)
nodist_tests_test_threads_SOURCES = tests/test-kernels.S
tests_test_cuda_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_cuda_LDADD = $(test_ldadd)
tests/test-kernels.S: tests/test-kernels.fatbin $(top_srcdir)/scripts/embed-fatbin.sh
	$(AM_V_GEN)$(embed_fatbin) glcuda_test_fatbin tests/test-kernels.fatbin > $@
CLEANFILES += tests/test-kernels.S tests/test-kernels.fatbin
endif
EXTRA_DIST += tests/test-kernels.cu
else
check-local:
	@echo "make check: the tests were disabled at configure time (--disable-tests)" >&2; exit 1
endif
