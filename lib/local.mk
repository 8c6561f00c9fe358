# libglcuda: every layer is built into a convenience library that the tests
# link directly (they reach internals); the shared library adds the symbol
# version script on top of it.
noinst_LTLIBRARIES += %reldir%/libglcuda-internal.la
%canon_reldir%_libglcuda_internal_la_SOURCES = \
	%reldir%/private.h \
	%reldir%/error.c \
	%reldir%/driver-lock.c \
	%reldir%/log.c \
	%reldir%/format.c \
	%reldir%/loader/cuda-loader.c \
	%reldir%/loader/cuda-loader.h \
	%reldir%/loader/cuda-types.h \
	%reldir%/vk/vk-exporter.c \
	%reldir%/vk/vk-exporter.h \
	%reldir%/gl/gl-importer.c \
	%reldir%/gl/gl-importer.h \
	%reldir%/cuda/cuda-importer.c \
	%reldir%/cuda/cuda-importer.h \
	%reldir%/cuda/cuda-interop.c \
	%reldir%/cuda/cuda-interop.h \
	%reldir%/device.c \
	%reldir%/image.c \
	%reldir%/image.h \
	%reldir%/sync.c \
	%reldir%/sync.h \
	%reldir%/ring.c \
	%reldir%/wrap.c \
	%reldir%/headless.c \
	%reldir%/diag.c \
	%reldir%/struct-size.c
%canon_reldir%_libglcuda_internal_la_LIBADD = $(EGL_LIBS) $(EPOXY_LIBS) $(VULKAN_LIBS) \
	$(DLOPEN_LIBS) $(PTHREAD_LIBS)

%canon_reldir%_LTLIBRARIES += %reldir%/libglcuda.la
%canon_reldir%_libglcuda_la_SOURCES =
%canon_reldir%_libglcuda_la_LIBADD = %reldir%/libglcuda-internal.la
%canon_reldir%_libglcuda_la_LDFLAGS = $(SANITIZER_LDFLAGS) -version-info $(LIBGLCUDA_LT_VERSION) \
	-Wl,--version-script=$(top_srcdir)/%reldir%/glcuda.sym -no-undefined
EXTRA_%canon_reldir%_libglcuda_la_DEPENDENCIES = %reldir%/glcuda.sym
EXTRA_DIST += %reldir%/glcuda.sym

glcudaincludedir = $(includedir)/glcuda
glcudainclude_HEADERS = include/glcuda/glcuda.h include/glcuda/glcuda-cuda.h \
	include/glcuda/glcuda-diag.h
nodist_glcudainclude_HEADERS = include/glcuda/glcuda-version.h
