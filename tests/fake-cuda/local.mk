# A fake CUDA driver (libfakecuda.so, loaded through GLCUDA_LIBCUDA) and the
# suites that drive glcuda's public API with it in the "cpu" sync mode: the
# ring, images and hand-offs (test-ring-cpu), their pixels and the order of
# their work (test-pixels-cpu), the cpu sync mode's two waits
# (test-sync-cpu), device loss and teardown on failure (test-loss) run on
# CI without a GPU. Never installed.
if HAVE_CHECK
check_LTLIBRARIES += %reldir%/libfakecuda.la
%canon_reldir%_libfakecuda_la_SOURCES = %reldir%/fake-cuda.c \
	%reldir%/fake-cuda.h %reldir%/fake-filters.c %reldir%/fake-filters.h \
	%reldir%/fake-cuda-gst.c %reldir%/fake-cuda-gst.h
%canon_reldir%_libfakecuda_la_LDFLAGS = $(SANITIZER_LDFLAGS) -module -avoid-version -shared -rpath /nowhere
# The fake under the name GStreamer's CUDA library opens (libcuda.so.1,
# fake-cuda-gst.c), in a directory of its own that the GStreamer tests
# put on LD_LIBRARY_PATH: a link, so that the dynamic loader knows it for
# the file glcuda loads.
check_DATA = %reldir%/libcuda/libcuda.so.1
%reldir%/libcuda/libcuda.so.1: %reldir%/libfakecuda.la
	$(AM_V_GEN)$(MKDIR_P) %reldir%/libcuda && \
		ln -sf ../.libs/libfakecuda.so $@
CLEANFILES += %reldir%/libcuda/libcuda.so.1

# Suites that run on the fake: CI's, not the GPU machine's (print-gpu-tests).
fake_cuda_tests = tests/test-ring-cpu tests/test-threads-cpu tests/test-loss \
	tests/test-pixels-cpu tests/test-sync-cpu tests/test-tensor-cpu
check_PROGRAMS += $(fake_cuda_tests)
TESTS += $(fake_cuda_tests)
fake_cuda_test_sources = %reldir%/fake-cuda-test.c %reldir%/fake-cuda-test.h
# The pixel suites' context, device, kernels and stream.
fake_cuda_env_sources = %reldir%/fake-cuda-env.c %reldir%/fake-cuda-env.h
tests_test_ring_cpu_SOURCES = tests/test-ring-cpu.c $(fake_cuda_test_sources) $(sanitizer_sources)
tests_test_ring_cpu_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_ring_cpu_LDADD = $(test_ldadd) $(DLOPEN_LIBS)

# tests/test-threads.c on the fake: two devices on two threads, cpu mode.
tests_test_threads_cpu_SOURCES = tests/test-threads.c $(fake_cuda_test_sources) $(sanitizer_sources)
tests_test_threads_cpu_CPPFLAGS = $(AM_CPPFLAGS) -DTHREADS_FAKE_CUDA
tests_test_threads_cpu_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_threads_cpu_LDADD = $(test_ldadd) $(DLOPEN_LIBS)

# Pixels through images, hand-offs and the ring, and the order of the work
# around them (the fake's kernels run on the memory GL renders into).
tests_test_pixels_cpu_SOURCES = tests/test-pixels-cpu.c $(fake_cuda_test_sources) \
	$(fake_cuda_env_sources) $(sanitizer_sources)
tests_test_pixels_cpu_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_pixels_cpu_LDADD = $(test_ldadd) $(DLOPEN_LIBS)

# The cpu sync mode's waits: GL's fence flushed before the CPU waits on
# it (GL's calls recorded through libepoxy's entry points), CUDA's event
# on the hand-off's stream (the stream's work held until waited for).
tests_test_sync_cpu_SOURCES = tests/test-sync-cpu.c $(fake_cuda_test_sources) \
	$(fake_cuda_env_sources) $(sanitizer_sources)
tests_test_sync_cpu_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_sync_cpu_LDADD = $(test_ldadd) $(DLOPEN_LIBS)

# Layered images, copies between images and linear memory, DLPack.
tests_test_tensor_cpu_SOURCES = tests/test-tensor-cpu.c $(fake_cuda_test_sources) \
	$(fake_cuda_env_sources) $(sanitizer_sources)
tests_test_tensor_cpu_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_tensor_cpu_LDADD = $(test_ldadd) $(DLOPEN_LIBS)

tests_test_loss_SOURCES = tests/test-loss.c $(fake_cuda_test_sources) $(sanitizer_sources)
tests_test_loss_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_loss_LDADD = $(test_ldadd) $(DLOPEN_LIBS)
endif
