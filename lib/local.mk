# libglcuda: every layer is built into a convenience library that the tools
# link directly; the shared library adds the symbol version script on top of
# it. The tests link a second build of the same sources with the
# fault-injection hooks (lib/fault.h), which the installed library never
# contains (tests/test-symbols.sh checks).
# By layer, bottom up (lib/private.h says what each may call).
lib_sources = \
	lib/base.h \
	lib/error.h \
	lib/error.c \
	lib/log.c \
	lib/util.h \
	lib/util.c \
	lib/driver-lock.c \
	lib/format.c \
	lib/loader/cuda-loader.h \
	lib/loader/cuda-loader.c \
	lib/cuda/cuda-importer.h \
	lib/cuda/cuda-importer.c \
	lib/cuda/cuda-interop.h \
	lib/cuda/cuda-interop.c \
	lib/gl/gl-importer.h \
	lib/gl/gl-importer.c \
	lib/vk/vk-exporter.h \
	lib/vk/vk-private.h \
	lib/vk/vk-instance.c \
	lib/vk/vk-device.c \
	lib/vk/vk-resources.c \
	lib/headless.c \
	lib/private.h \
	lib/device.c \
	lib/sync.h \
	lib/sync.c \
	lib/image.h \
	lib/image.c \
	lib/wrap.c \
	lib/handoff.c \
	lib/ring.h \
	lib/ring-timing.c \
	lib/ring.c
noinst_LTLIBRARIES += lib/libglcuda-internal.la
lib_libglcuda_internal_la_SOURCES = $(lib_sources) lib/fault.h
lib_libglcuda_internal_la_LIBADD = $(EGL_LIBS) $(EPOXY_LIBS) $(VULKAN_LIBS)

check_LTLIBRARIES += lib/libglcuda-test.la
# The image copies of tests/vk-copy.c use the exporter's internals and go
# through its fault-injection seam, so they are built here.
lib_libglcuda_test_la_SOURCES = $(lib_sources) lib/fault.h lib/fault.c \
	tests/vk-copy.c tests/vk-copy.h
lib_libglcuda_test_la_CPPFLAGS = $(AM_CPPFLAGS) -DGLCUDA_FAULT_INJECTION
lib_libglcuda_test_la_LIBADD = $(lib_libglcuda_internal_la_LIBADD)

lib_LTLIBRARIES += lib/libglcuda.la
lib_libglcuda_la_SOURCES =
lib_libglcuda_la_LIBADD = lib/libglcuda-internal.la
lib_libglcuda_la_LDFLAGS = -version-info $(LIBGLCUDA_LT_VERSION) \
	-Wl,--version-script=$(top_srcdir)/lib/glcuda.sym -no-undefined
EXTRA_lib_libglcuda_la_DEPENDENCIES = lib/glcuda.sym
EXTRA_DIST += lib/glcuda.sym

glcudaincludedir = $(includedir)/glcuda
glcudainclude_HEADERS = include/glcuda/glcuda.h include/glcuda/glcuda-cuda.h
nodist_glcudainclude_HEADERS = include/glcuda/glcuda-version.h
