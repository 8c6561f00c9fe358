# tools: glcuda-info, the doctor. The report itself is a convenience library
# so that glcuda-demo can print the same diagnosis when it fails.
noinst_LTLIBRARIES += tools/libinforeport.la
tools_libinforeport_la_SOURCES = tools/info-report.c tools/info-report.h

bin_PROGRAMS += tools/glcuda-info
tools_glcuda_info_SOURCES = tools/glcuda-info.c $(sanitizer_sources)
tools_glcuda_info_LDADD = tools/libinforeport.la lib/libglcuda-internal.la \
	$(EGL_LIBS) $(EPOXY_LIBS) $(VULKAN_LIBS)
