# glcuda-compositor's rules that the protocols' text and doc/compositor.md
# promise, each checked where a plausible bug would break it: popups
# flipped on x, a viewport's source on the buffer's edge, the depth of a
# joined subsurface tree, the upload budget at 240 Hz, click to focus and
# the control socket's topmost window (tests/compositor-rules-client.c).
EXTRA_DIST += tests/compositor-rules-client.c
dist_check_SCRIPTS += tests/test-compositor-rules.sh
if HAVE_COMPOSITOR
check_PROGRAMS += tests/compositor-rules-client
tests_compositor_rules_client_SOURCES = tests/compositor-rules-client.c \
	$(compositor_client_sources)
nodist_tests_compositor_rules_client_SOURCES = $(compositor_client_protocols) \
	$(compositor_client_code)
tests_compositor_rules_client_CPPFLAGS = -Itools/glcuda-compositor
tests_compositor_rules_client_CFLAGS = $(AM_CFLAGS) $(WAYLAND_CLIENT_CFLAGS)
tests_compositor_rules_client_LDADD = $(WAYLAND_CLIENT_LIBS)
TESTS += tests/test-compositor-rules.sh
fake_cuda_scripts += tests/test-compositor-rules.sh
endif
