# tools: glcuda-info, the doctor. The report itself is a convenience library
# so that glcuda-demo can print the same diagnosis when it fails. Like every
# installed program it links the shared library and uses the public headers
# only: what it needs beyond the API is in <glcuda/glcuda-diag.h>.
noinst_LTLIBRARIES += %reldir%/libinforeport.la
%canon_reldir%_libinforeport_la_SOURCES = %reldir%/info-report.c \
	%reldir%/info-report.h %reldir%/info-facts.h %reldir%/info-collect.c \
	%reldir%/info-text.c %reldir%/info-json.c
%canon_reldir%_libinforeport_la_CPPFLAGS = $(tools_cppflags)

bin_PROGRAMS += %reldir%/glcuda-info
%canon_reldir%_glcuda_info_SOURCES = %reldir%/glcuda-info.c $(sanitizer_sources)
%canon_reldir%_glcuda_info_CPPFLAGS = $(tools_cppflags)
%canon_reldir%_glcuda_info_LDADD = %reldir%/libinforeport.la \
	common/libglcuda-common.la lib/libglcuda.la $(EGL_LIBS) $(EPOXY_LIBS)
