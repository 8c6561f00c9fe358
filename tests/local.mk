# Check suites. test-device and test-image run everywhere (Mesa on CI, the
# NVIDIA driver on the GPU machine); test-cuda and test-ring need CUDA and
# exit 77 (skip) without it.
if HAVE_CHECK
check_LTLIBRARIES += %reldir%/libtestcommon.la
# With the programs' table of CUDA functions, which the suites call CUDA
# through, built against glcuda's own declarations of the driver API as
# the library and the suites are.
%canon_reldir%_libtestcommon_la_SOURCES = %reldir%/test-common.c %reldir%/test-common.h \
	common/cuda-table.c common/cuda-table.h
%canon_reldir%_libtestcommon_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/lib/loader \
	-DGLCUDA_TOOLS_OWN_CUDA_DECLS
%canon_reldir%_libtestcommon_la_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_libtestcommon_la_LIBADD = lib/libglcuda-test.la $(CHECK_LIBS)

test_ldadd = %reldir%/libtestcommon.la lib/libglcuda-test.la $(CHECK_LIBS) \
	$(EGL_LIBS) $(EPOXY_LIBS) $(VULKAN_LIBS) $(PTHREAD_LIBS)

check_PROGRAMS += %reldir%/test-device %reldir%/test-image %reldir%/test-capture
TESTS += %reldir%/test-device %reldir%/test-image %reldir%/test-capture
%canon_reldir%_test_device_SOURCES = %reldir%/test-device.c $(sanitizer_sources)
%canon_reldir%_test_device_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_test_device_LDADD = $(test_ldadd)
%canon_reldir%_test_image_SOURCES = %reldir%/test-image.c $(sanitizer_sources)
%canon_reldir%_test_image_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_test_image_LDADD = $(test_ldadd)
%canon_reldir%_test_capture_SOURCES = %reldir%/test-capture.c $(sanitizer_sources)
%canon_reldir%_test_capture_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_test_capture_LDADD = $(test_ldadd)

# GPU suites: kernels from nvcc, embedded in the test programs.
if HAVE_NVCC
check_PROGRAMS += %reldir%/test-cuda %reldir%/test-ring %reldir%/test-faults %reldir%/test-wrap \
	%reldir%/test-threads %reldir%/test-tensor
TESTS += %reldir%/test-cuda %reldir%/test-ring %reldir%/test-faults %reldir%/test-wrap \
	%reldir%/test-threads %reldir%/test-tensor
gpu_test_sources = %reldir%/test-gpu.c %reldir%/test-gpu.h
%canon_reldir%_test_cuda_SOURCES = %reldir%/test-cuda.c $(gpu_test_sources) $(sanitizer_sources)
nodist_%canon_reldir%_test_cuda_SOURCES = %reldir%/test-kernels.S
%canon_reldir%_test_tensor_SOURCES = %reldir%/test-tensor.c $(gpu_test_sources) $(sanitizer_sources)
%canon_reldir%_test_tensor_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_test_tensor_LDADD = $(test_ldadd)
nodist_%canon_reldir%_test_tensor_SOURCES = %reldir%/test-kernels.S
%canon_reldir%_test_ring_SOURCES = %reldir%/test-ring.c $(gpu_test_sources) $(sanitizer_sources)
%canon_reldir%_test_ring_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_test_ring_LDADD = $(test_ldadd)
nodist_%canon_reldir%_test_ring_SOURCES = %reldir%/test-kernels.S
%canon_reldir%_test_faults_SOURCES = %reldir%/test-faults.c $(gpu_test_sources) $(sanitizer_sources) \
	$(fault_coverage_sources)
%canon_reldir%_test_faults_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_test_faults_LDADD = $(test_ldadd)
nodist_%canon_reldir%_test_faults_SOURCES = %reldir%/test-kernels.S %reldir%/fault-sites.h
%canon_reldir%_test_wrap_SOURCES = %reldir%/test-wrap.c $(gpu_test_sources) $(sanitizer_sources)
%canon_reldir%_test_wrap_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_test_wrap_LDADD = $(test_ldadd)
nodist_%canon_reldir%_test_wrap_SOURCES = %reldir%/test-kernels.S
# Two devices on two threads (on two GPUs when there are two); the same
# source runs on the fake CUDA driver as tests/test-threads-cpu.
%canon_reldir%_test_threads_SOURCES = %reldir%/test-threads.c $(gpu_test_sources) $(sanitizer_sources)
%canon_reldir%_test_threads_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_test_threads_LDADD = $(test_ldadd)
nodist_%canon_reldir%_test_threads_SOURCES = %reldir%/test-kernels.S
%canon_reldir%_test_cuda_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_test_cuda_LDADD = $(test_ldadd)
%reldir%/test-kernels.S: %reldir%/test-kernels.fatbin $(top_srcdir)/scripts/embed-fatbin.sh
	$(AM_V_GEN)$(embed_fatbin) glcuda_test_fatbin %reldir%/test-kernels.fatbin > $@
CLEANFILES += %reldir%/test-kernels.S %reldir%/test-kernels.fatbin \
	%reldir%/test-kernels.fatbin.d
# The headers nvcc read (the .cu.fatbin rule in Makefile.am).
-include %reldir%/test-kernels.fatbin.d
endif
EXTRA_DIST += %reldir%/test-kernels.cu
# The ring cases test-ring and test-ring-cpu both include; the fake CUDA
# driver's controls as the suites on it call them.
EXTRA_DIST += %reldir%/ring-cases.c %reldir%/fake-controls.h
else
check-local:
	@echo "make check: the tests were disabled at configure time (--disable-tests)" >&2; exit 1
endif
# Sourced by the shell tests: the fake CUDA driver bound to GL's device, a
# staged make install, one program's test preamble, third-party flags as
# system includes, and what the GStreamer element's invert does to each
# format (also sourced by scripts/gst-gpu-test.sh).
EXTRA_DIST += %reldir%/fake-cuda-env.sh %reldir%/install-stage.sh %reldir%/program-test.sh \
	%reldir%/gst-invert-words.sh %reldir%/system-includes.sh
# The GPU machine's multi-GPU checks and the verdicts its check scripts
# share.
EXTRA_DIST += scripts/gpu-multi-test.sh scripts/gpu-verdicts.sh
