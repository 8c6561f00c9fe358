# libglcuda: every layer is built into a convenience library that the tools
# link directly; the shared library adds the symbol version script on top of
# it. The tests link a second build of the same sources with the
# fault-injection hooks (lib/fault.h) and the seams (lib/seam.h), which the
# installed library never contains (tests/test-symbols.sh checks).
# By layer, bottom up, in the order of lib/layers.txt (which says what each
# file may call; tests/test-layers.sh checks).
%canon_reldir%_sources = \
	%reldir%/export.h \
	%reldir%/array-length.h \
	%reldir%/log.h \
	%reldir%/log.c \
	%reldir%/error.h \
	%reldir%/error.c \
	%reldir%/driver-lock.h \
	%reldir%/driver-lock.c \
	%reldir%/format.h \
	%reldir%/format.c \
	%reldir%/loader/cuda-driver-api.h \
	%reldir%/loader/cuda-loader.h \
	%reldir%/loader/cuda-loader.c \
	%reldir%/cuda/cuda-importer.h \
	%reldir%/cuda/cuda-importer.c \
	%reldir%/cuda/cuda-interop.h \
	%reldir%/cuda/cuda-interop.c \
	%reldir%/cuda/tensor-pool.h \
	%reldir%/cuda/tensor-pool.c \
	%reldir%/cuda/copy-kernels.h \
	%reldir%/cuda/copy-kernels.c \
	%reldir%/gl/gl-importer.h \
	%reldir%/gl/gl-importer.c \
	%reldir%/vk/vk-exporter.h \
	%reldir%/vk/vk-private.h \
	%reldir%/vk/vk-instance.c \
	%reldir%/vk/vk-device.c \
	%reldir%/vk/vk-resources.c \
	%reldir%/headless/headless.h \
	%reldir%/headless/headless-display.c \
	%reldir%/headless/headless-context.c \
	%reldir%/headless/headless-devices.c \
	%reldir%/headless/headless.c \
	%reldir%/device.h \
	%reldir%/struct-size.c \
	%reldir%/device.c \
	%reldir%/sync.h \
	%reldir%/sync.c \
	%reldir%/image.h \
	%reldir%/image.c \
	%reldir%/capture.c \
	%reldir%/wrap.h \
	%reldir%/wrap.c \
	%reldir%/copy.h \
	%reldir%/copy.c \
	%reldir%/handoff.h \
	%reldir%/handoff.c \
	%reldir%/copy-batch.c \
	%reldir%/ring/ring.h \
	%reldir%/ring/ring-timing.c \
	%reldir%/ring/ring-done.c \
	%reldir%/ring/ring.c \
	%reldir%/diag.c \
	%reldir%/dlpack.c
noinst_LTLIBRARIES += %reldir%/libglcuda-internal.la
%canon_reldir%_libglcuda_internal_la_SOURCES = $(lib_sources) %reldir%/fault.h %reldir%/seam.h
%canon_reldir%_libglcuda_internal_la_LIBADD = %reldir%/loader/libglcuda-shared.la \
	$(EGL_LIBS) $(EPOXY_LIBS) $(VULKAN_LIBS) $(DLOPEN_LIBS) $(PTHREAD_LIBS)

check_LTLIBRARIES += %reldir%/libglcuda-test.la
# The image copies of tests/vk-copy.c use the exporter's internals and go
# through its fault-injection seam, so they are built here.
%canon_reldir%_libglcuda_test_la_SOURCES = $(lib_sources) %reldir%/fault.h %reldir%/fault.c \
	%reldir%/seam.h %reldir%/seam.c \
	tests/vk-copy.c tests/vk-copy.h
%canon_reldir%_libglcuda_test_la_CPPFLAGS = $(AM_CPPFLAGS) -DGLCUDA_FAULT_INJECTION -DGLCUDA_TEST_BUILD
%canon_reldir%_libglcuda_test_la_LIBADD = $(%canon_reldir%_libglcuda_internal_la_LIBADD)

lib_LTLIBRARIES += %reldir%/libglcuda.la
%canon_reldir%_libglcuda_la_SOURCES =
%canon_reldir%_libglcuda_la_LIBADD = %reldir%/libglcuda-internal.la
%canon_reldir%_libglcuda_la_LDFLAGS = $(SANITIZER_LDFLAGS) -version-info $(LIBGLCUDA_LT_VERSION) \
	-Wl,--version-script=$(top_srcdir)/%reldir%/glcuda.sym -no-undefined
EXTRA_%canon_reldir%_libglcuda_la_DEPENDENCIES = %reldir%/glcuda.sym
EXTRA_DIST += %reldir%/glcuda.sym %reldir%/layers.txt %reldir%/cuda/copy-kernels.cu

# The copy kernels (cuda/copy-kernels.cu), where nvcc is: the fatbin as a
# C array that cuda/copy-kernels.c includes. Without nvcc, copies between
# images and linear memory go through the copy engine.
if HAVE_NVCC
%reldir%/cuda/copy-kernels.fatbin: %reldir%/cuda/$(am__dirstamp)
%reldir%/cuda/copy-kernels-fatbin.h: %reldir%/cuda/copy-kernels.fatbin
	$(AM_V_GEN){ echo 'static const unsigned char copy_kernels_fatbin[]' \
		'__attribute__((aligned(8))) = {'; \
		od -An -v -tx1 $< | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
		echo '};'; } > $@
BUILT_SOURCES += %reldir%/cuda/copy-kernels-fatbin.h
# Also for builds of single targets, which BUILT_SOURCES does not reach.
%reldir%/cuda/copy-kernels.lo %reldir%/cuda/libglcuda_test_la-copy-kernels.lo: \
	%reldir%/cuda/copy-kernels-fatbin.h
CLEANFILES += %reldir%/cuda/copy-kernels.fatbin %reldir%/cuda/copy-kernels.fatbin.d \
	%reldir%/cuda/copy-kernels-fatbin.h
-include %reldir%/cuda/copy-kernels.fatbin.d
endif

glcudaincludedir = $(includedir)/glcuda
glcudainclude_HEADERS = include/glcuda/glcuda.h include/glcuda/glcuda-cuda.h \
	include/glcuda/glcuda-dlpack.h \
	include/glcuda/glcuda-diag.h
nodist_glcudainclude_HEADERS = include/glcuda/glcuda-version.h
