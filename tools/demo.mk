# tools: glcuda-demo, the main job (GL scene -> CUDA filter -> GL composite,
# through the frame ring), and the CUDA filters it shares with the examples
# and the benchmarks (a convenience library).

noinst_LTLIBRARIES += %reldir%/libfilters.la
%canon_reldir%_libfilters_la_SOURCES = %reldir%/filters.c %reldir%/filters.h
%canon_reldir%_libfilters_la_CFLAGS = $(AM_CFLAGS)
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
%canon_reldir%_glcuda_demo_SOURCES = %reldir%/glcuda-demo.c
%canon_reldir%_glcuda_demo_CFLAGS = $(AM_CFLAGS) $(LIBPNG_CFLAGS)
%canon_reldir%_glcuda_demo_LDADD = %reldir%/libfilters.la %reldir%/libinforeport.la \
	lib/libglcuda-internal.la $(LIBPNG_LIBS) $(EGL_LIBS) $(EPOXY_LIBS) \
	$(VULKAN_LIBS) $(LIBM)

# Without a CUDA driver: a clear message and the diagnosis, exit 1. With
# one: every filter for 30 frames, a PNG and a timing summary each.
TESTS += tests/test-demo.sh
dist_check_SCRIPTS += tests/test-demo.sh
endif
