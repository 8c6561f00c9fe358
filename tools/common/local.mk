# tools/common: what glcuda-info, glcuda-demo, glcuda-bench and glcuda-soak
# share (clocks, statistics, option parsing, shaders, UUIDs, extension
# strings) and their own table of CUDA driver functions: they use more of CUDA than libglcuda and
# link only its public API. A convenience library, never installed.
noinst_LTLIBRARIES += tools/common/libtools-common.la
tools_common_libtools_common_la_SOURCES = \
	tools/common/clock.c tools/common/clock.h \
	tools/common/cuda-table.c tools/common/cuda-table.h \
	tools/common/extensions.c tools/common/extensions.h \
	tools/common/parse.c tools/common/parse.h \
	tools/common/shader.c tools/common/shader.h \
	tools/common/stats.c tools/common/stats.h \
	tools/common/uuid.c tools/common/uuid.h
tools_common_libtools_common_la_CPPFLAGS = $(tools_cppflags)
tools_common_libtools_common_la_LIBADD = $(EPOXY_LIBS) $(DLOPEN_LIBS) $(LIBM)

# The tools build the way a user's program does: the public headers, not
# lib/ (AM_CPPFLAGS has -I lib for the library and its tests).
tools_cppflags = -I$(top_srcdir)/include -I$(top_builddir)/include \
	-I$(top_srcdir)/tools/common -I$(top_builddir) \
	$(EGL_CFLAGS) $(EPOXY_CFLAGS) $(tools_cuda_cppflags)
if HAVE_CUDA_TOOLKIT
tools_cuda_cppflags = $(CUDA_CFLAGS)
else
# No toolkit: tools/common/cuda-table.h takes glcuda's own declarations of
# the CUDA driver API instead of <cuda.h>.
tools_cuda_cppflags = -I$(top_srcdir)/lib/loader -DGLCUDA_TOOLS_OWN_CUDA_DECLS
endif
