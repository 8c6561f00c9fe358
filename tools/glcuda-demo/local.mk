# tools: glcuda-demo, the main job (GL scene -> CUDA filter -> GL composite,
# through the frame ring). It links the shared library and uses the public
# headers only; its CUDA filters (common/libfilters.la) and its own CUDA
# calls go through the shared table (common/cuda-table.h).

# glcuda-demo writes its frames as PNG (the last one by default): without
# libpng it is not built (configure says so), rather than built without
# its output.
if HAVE_LIBPNG
bin_PROGRAMS += %reldir%/glcuda-demo
%canon_reldir%_glcuda_demo_SOURCES = %reldir%/glcuda-demo.c %reldir%/demo.h \
	%reldir%/demo-options.c %reldir%/demo-gl.c %reldir%/demo-png.c \
	%reldir%/demo-run.c $(sanitizer_sources)
%canon_reldir%_glcuda_demo_CPPFLAGS = $(tools_cppflags) \
	-I$(top_srcdir)/tools/glcuda-info
%canon_reldir%_glcuda_demo_CFLAGS = $(AM_CFLAGS) $(LIBPNG_CFLAGS)
%canon_reldir%_glcuda_demo_LDADD = common/libfilters.la \
	tools/glcuda-info/libinforeport.la common/libpng-file.la \
	common/libglcuda-common.la lib/libglcuda.la $(LIBPNG_LIBS) \
	$(EGL_LIBS) $(EPOXY_LIBS) $(LIBM)

# Without a CUDA driver: a clear message and the diagnosis, exit 1. With
# one: every filter for 30 frames, a PNG and a timing summary each.
TESTS += tests/test-demo.sh
dist_check_SCRIPTS += tests/test-demo.sh
endif
