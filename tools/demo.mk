# tools: glcuda-demo, the main job (GL scene -> CUDA filter -> GL composite,
# through the frame ring), and its CUDA filters (a convenience library). It
# links the shared library and uses the public headers only; its own CUDA
# calls go through the tools' table (tools/common/cuda-table.h).

noinst_LTLIBRARIES += tools/libfilters.la
tools_libfilters_la_SOURCES = tools/filters.c tools/filters.h
tools_libfilters_la_CPPFLAGS = $(tools_cppflags)
EXTRA_DIST += tools/filters.cu tools/pixel.cuh
# The kernels' shared device code (the .cu.fatbin rule tracks no headers).
tools/filters.fatbin: $(top_srcdir)/tools/pixel.cuh

# The kernels: nvcc builds tools/filters.fatbin (the .cu.fatbin rule in
# Makefile.am), embedded with .incbin as glcuda_filters_fatbin. Without
# nvcc, filters.c builds without kernels and only the "none" filter exists.
if HAVE_NVCC
nodist_tools_libfilters_la_SOURCES = tools/filters-fatbin.S
tools/filters-fatbin.S: tools/filters.fatbin $(top_srcdir)/scripts/embed-fatbin.sh
	$(AM_V_GEN)$(embed_fatbin) glcuda_filters_fatbin tools/filters.fatbin > $@
CLEANFILES += tools/filters-fatbin.S tools/filters.fatbin
endif

bin_PROGRAMS += tools/glcuda-demo
tools_glcuda_demo_SOURCES = tools/glcuda-demo.c tools/demo.h tools/demo-options.c \
	tools/demo-gl.c tools/demo-png.c tools/demo-run.c $(sanitizer_sources)
tools_glcuda_demo_CPPFLAGS = $(tools_cppflags)
tools_glcuda_demo_CFLAGS = $(AM_CFLAGS) $(LIBPNG_CFLAGS)
tools_glcuda_demo_LDADD = tools/libfilters.la tools/libinforeport.la \
	tools/common/libtools-common.la lib/libglcuda.la $(LIBPNG_LIBS) \
	$(EGL_LIBS) $(EPOXY_LIBS) -lm

# Without a CUDA driver: a clear message and the diagnosis, exit 1. With
# one: every filter for 30 frames, a PNG and a timing summary each.
TESTS += tests/test-demo.sh
dist_check_SCRIPTS += tests/test-demo.sh
