# tools: glcuda-demo, the main job (GL scene -> CUDA filter -> GL composite,
# through the frame ring), and its CUDA filters (a convenience library). It
# links the shared library and uses the public headers only; its own CUDA
# calls go through the tools' table (tools/common/cuda-table.h).

noinst_LTLIBRARIES += %reldir%/libfilters.la
%canon_reldir%_libfilters_la_SOURCES = %reldir%/filters.c %reldir%/filters.h
%canon_reldir%_libfilters_la_CPPFLAGS = $(tools_cppflags)
EXTRA_DIST += %reldir%/filters.cu %reldir%/pixel.cuh

# The kernels: nvcc builds tools/filters.fatbin (the .cu.fatbin rule in
# Makefile.am), embedded with .incbin as glcuda_filters_fatbin. Without
# nvcc, filters.c builds without kernels and only the "none" filter exists.
if HAVE_NVCC
nodist_%canon_reldir%_libfilters_la_SOURCES = %reldir%/filters-fatbin.S
%reldir%/filters-fatbin.S: %reldir%/filters.fatbin $(top_srcdir)/scripts/embed-fatbin.sh
	$(AM_V_GEN)$(embed_fatbin) glcuda_filters_fatbin %reldir%/filters.fatbin > $@
CLEANFILES += %reldir%/filters-fatbin.S %reldir%/filters.fatbin \
	%reldir%/filters.fatbin.d
# The headers nvcc read (the .cu.fatbin rule in Makefile.am).
-include %reldir%/filters.fatbin.d
endif

# glcuda-demo writes its frames as PNG (the last one by default): without
# libpng it is not built (configure says so), rather than built without
# its output.
if HAVE_LIBPNG
bin_PROGRAMS += %reldir%/glcuda-demo
%canon_reldir%_glcuda_demo_SOURCES = %reldir%/glcuda-demo.c %reldir%/demo.h \
	%reldir%/demo-options.c %reldir%/demo-gl.c %reldir%/demo-png.c \
	%reldir%/demo-run.c $(sanitizer_sources)
%canon_reldir%_glcuda_demo_CPPFLAGS = $(tools_cppflags)
%canon_reldir%_glcuda_demo_CFLAGS = $(AM_CFLAGS) $(LIBPNG_CFLAGS)
%canon_reldir%_glcuda_demo_LDADD = %reldir%/libfilters.la %reldir%/libinforeport.la \
	tools/common/libtools-common.la lib/libglcuda.la $(LIBPNG_LIBS) \
	$(EGL_LIBS) $(EPOXY_LIBS) $(LIBM)

# Without a CUDA driver: a clear message and the diagnosis, exit 1. With
# one: every filter for 30 frames, a PNG and a timing summary each.
TESTS += tests/test-demo.sh
dist_check_SCRIPTS += tests/test-demo.sh
endif
