# tools: glcuda-info, the doctor. The report itself is a convenience library
# so that glcuda-demo can print the same diagnosis when it fails. Like every
# installed program it links the shared library and uses the public headers
# only: what it needs beyond the API is in <glcuda/glcuda-diag.h>.
noinst_LTLIBRARIES += tools/libinforeport.la
tools_libinforeport_la_SOURCES = tools/info-report.c tools/info-report.h \
	tools/info-facts.h tools/info-collect.c tools/info-text.c tools/info-json.c
tools_libinforeport_la_CPPFLAGS = $(tools_cppflags)

bin_PROGRAMS += tools/glcuda-info
tools_glcuda_info_SOURCES = tools/glcuda-info.c $(sanitizer_sources)
tools_glcuda_info_CPPFLAGS = $(tools_cppflags)
tools_glcuda_info_LDADD = tools/libinforeport.la tools/common/libtools-common.la \
	lib/libglcuda.la $(EGL_LIBS) $(EPOXY_LIBS)
