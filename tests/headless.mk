# tests: the headless EGL helper and the glcuda-info doctor.
if HAVE_CHECK
check_PROGRAMS += %reldir%/test-headless
TESTS += %reldir%/test-headless
%canon_reldir%_test_headless_SOURCES = %reldir%/test-headless.c $(sanitizer_sources)
%canon_reldir%_test_headless_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
%canon_reldir%_test_headless_LDADD = $(test_ldadd)
endif

# Runs tools/glcuda-info/glcuda-info from the build directory.
TESTS += %reldir%/test-info.sh
dist_check_SCRIPTS += %reldir%/test-info.sh
