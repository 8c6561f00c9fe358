# common: code shared by the programs built on glcuda's public API (the
# tools, glcuda-compositor, the GStreamer plugin and the benchmarks): clocks,
# statistics, option parsing, shaders, UUIDs, extension strings, users'
# own kernels (loaded from a file, launched on a plane), their
# table of CUDA driver functions (they use more of CUDA than libglcuda),
# and the CUDA filters. Convenience libraries, never installed; of lib/,
# only lib/loader/libglcuda-shared.la (the opening of the CUDA driver,
# UUID text, extension lists), which libglcuda links too, is used here.
noinst_LTLIBRARIES += %reldir%/libglcuda-common.la
%canon_reldir%_libglcuda_common_la_SOURCES = \
	%reldir%/array-length.h \
	%reldir%/clock.c %reldir%/clock.h \
	%reldir%/cuda-table.c %reldir%/cuda-table.h \
	%reldir%/extensions.h \
	%reldir%/parse.c %reldir%/parse.h \
	%reldir%/shader.c %reldir%/shader.h \
	%reldir%/stats.c %reldir%/stats.h \
	%reldir%/user-kernel.c %reldir%/user-kernel.h \
	%reldir%/uuid.h
%canon_reldir%_libglcuda_common_la_CPPFLAGS = $(tools_cppflags) \
	-I$(top_srcdir)/lib/loader
%canon_reldir%_libglcuda_common_la_LIBADD = lib/loader/libglcuda-shared.la \
	$(EPOXY_LIBS) $(DLOPEN_LIBS) $(LIBM)

# PNG files of frames (glcuda-demo, glcuda-compositor): only with libpng,
# which both of them need.
if HAVE_LIBPNG
noinst_LTLIBRARIES += %reldir%/libpng-file.la
%canon_reldir%_libpng_file_la_SOURCES = %reldir%/png-file.c %reldir%/png-file.h
%canon_reldir%_libpng_file_la_CPPFLAGS = $(tools_cppflags)
%canon_reldir%_libpng_file_la_CFLAGS = $(AM_CFLAGS) $(LIBPNG_CFLAGS)
%canon_reldir%_libpng_file_la_LIBADD = $(LIBPNG_LIBS)
endif

# The programs build the way a user's program does: the public headers,
# not lib/ (AM_CPPFLAGS has -I lib for the library and its tests).
tools_cppflags = -I$(top_srcdir)/include -I$(top_builddir)/include \
	-I$(top_srcdir)/%reldir% -I$(top_builddir) \
	$(EGL_CFLAGS) $(EPOXY_CFLAGS) $(tools_cuda_cppflags)
if HAVE_CUDA_TOOLKIT
tools_cuda_cppflags = $(CUDA_CFLAGS)
else
# No toolkit: cuda-table.h takes glcuda's own declarations of the CUDA
# driver API instead of <cuda.h>.
tools_cuda_cppflags = -I$(top_srcdir)/lib/loader -DGLCUDA_TOOLS_OWN_CUDA_DECLS
endif

# The CUDA filters of glcuda-demo, glcuda-compositor and glcudafilter
# (blur, unsharp, grade, invert, none). All their driver calls go through
# cuda-table.h.
noinst_LTLIBRARIES += %reldir%/libfilters.la
%canon_reldir%_libfilters_la_SOURCES = %reldir%/filters.c %reldir%/filters.h
%canon_reldir%_libfilters_la_CPPFLAGS = $(tools_cppflags)
EXTRA_DIST += %reldir%/filters.cu %reldir%/pixel.cuh

# The kernels: nvcc builds common/filters.fatbin (the .cu.fatbin rule in
# Makefile.am), embedded with .incbin as glcuda_filters_fatbin. Without
# nvcc, filters.c builds without kernels and only the "none" filter exists.
if HAVE_NVCC
nodist_%canon_reldir%_libfilters_la_SOURCES = %reldir%/filters-fatbin.S
%reldir%/filters-fatbin.S: %reldir%/filters.fatbin \
	$(top_srcdir)/scripts/embed-fatbin.sh
	$(AM_V_GEN)$(embed_fatbin) glcuda_filters_fatbin \
		%reldir%/filters.fatbin > $@
CLEANFILES += %reldir%/filters-fatbin.S %reldir%/filters.fatbin \
	%reldir%/filters.fatbin.d
# The headers nvcc read (the .cu.fatbin rule in Makefile.am).
-include %reldir%/filters.fatbin.d
endif
