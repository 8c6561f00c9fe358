# gst: the GStreamer plugin (libgstglcuda.so, element glcudafilter). It
# builds like a user's program: glcuda's public headers and the shared
# library, the shared CUDA table and filters
# (common/libfilters.la). Built when configure finds GStreamer's GL
# development files (--enable-gstreamer).
if HAVE_GSTREAMER
gstplugin_LTLIBRARIES = %reldir%/libgstglcuda.la
%canon_reldir%_libgstglcuda_la_SOURCES = %reldir%/gstglcudaplugin.c \
	%reldir%/gstglcudafilter.c %reldir%/gstglcudafilter.h \
	%reldir%/gstglcudafilterpriv.h %reldir%/gstglcudakernel.c \
	%reldir%/gstglcudaframe.c %reldir%/gstglcudanegotiation.c \
	%reldir%/gstglcudasharing.c \
	%reldir%/gstglcudadevice.c %reldir%/gstglcudadevice.h \
	%reldir%/gstglcudaformat.c %reldir%/gstglcudaformat.h \
	%reldir%/gstglcudabufferpool.c %reldir%/gstglcudabufferpool.h \
	%reldir%/gstglcudadisplay.c %reldir%/gstglcudadisplay.h \
	%reldir%/gstglcudacudamemory.c %reldir%/gstglcudacudamemory.h
%canon_reldir%_libgstglcuda_la_CPPFLAGS = $(tools_cppflags) $(GST_CFLAGS) $(GST_CUDA_CFLAGS)
%canon_reldir%_libgstglcuda_la_LIBADD = common/libfilters.la common/libglcuda-common.la \
	lib/libglcuda.la $(GST_CUDA_LIBS) $(GST_LIBS) $(EGL_LIBS) $(EPOXY_LIBS) $(DLOPEN_LIBS) \
	$(LIBM)
# A module: GStreamer loads it by its file name; only the plugin
# descriptor (GST_PLUGIN_DEFINE) is exported.
%canon_reldir%_libgstglcuda_la_LDFLAGS = -module -avoid-version -no-undefined \
	-export-symbols-regex '^gst_plugin_' $(SANITIZER_LDFLAGS)
# The element's own kernels (the built-in invert on the planes of the
# formats other than RGBA), a fat binary embedded as
# glcudafilter_kernels_fatbin. Without nvcc the plugin has none.
if HAVE_NVCC
nodist_%canon_reldir%_libgstglcuda_la_SOURCES = %reldir%/glcudafilter-kernels-fatbin.S
%reldir%/glcudafilter-kernels-fatbin.S: %reldir%/glcudafilter-kernels.fatbin \
		$(top_srcdir)/scripts/embed-fatbin.sh
	$(AM_V_GEN)$(embed_fatbin) glcudafilter_kernels_fatbin \
		%reldir%/glcudafilter-kernels.fatbin > $@
CLEANFILES += %reldir%/glcudafilter-kernels-fatbin.S %reldir%/glcudafilter-kernels.fatbin \
	%reldir%/glcudafilter-kernels.fatbin.d
-include %reldir%/glcudafilter-kernels.fatbin.d
endif
endif

# The GPU machine's build, test and benchmark of the plugin.
EXTRA_DIST += %reldir%/glcudafilter-kernels.cu doc/gstreamer.md scripts/gst-gpu-build.sh \
	scripts/gst-gpu-env.sh scripts/gst-gpu-test.sh bench/gst-bench.sh
# The element against a newer GStreamer's headers (doc/gstreamer.md).
EXTRA_DIST += scripts/gst-headers-check.sh scripts/gst-gpu-build-new.sh scripts/gst-build-lib.sh
