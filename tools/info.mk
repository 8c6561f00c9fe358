# tools: glcuda-info, the doctor. The report itself is a convenience library
# so that glcuda-demo can print the same diagnosis when it fails.
noinst_LTLIBRARIES += %reldir%/libinforeport.la
%canon_reldir%_libinforeport_la_SOURCES = %reldir%/info-report.c %reldir%/info-report.h

bin_PROGRAMS += %reldir%/glcuda-info
%canon_reldir%_glcuda_info_SOURCES = %reldir%/glcuda-info.c
%canon_reldir%_glcuda_info_LDADD = %reldir%/libinforeport.la lib/libglcuda-internal.la \
	$(EGL_LIBS) $(EPOXY_LIBS) $(VULKAN_LIBS)
