# glcuda-compositor: a small headless Wayland compositor that hands every
# frame it composites to CUDA through glcuda's frame ring. Like any
# compositor that uses glcuda, it links the shared library and the public
# headers only (and the tools' filters and common code, as glcuda-demo).
# The protocol code is generated from wayland-protocols' XML at build time.
EXTRA_DIST += doc/compositor.md tests/test-compositor.sh tests/compositor-bad-client.c \
	tests/compositor-check-png.c tests/compositor-pixel-client.c

if HAVE_COMPOSITOR
bin_PROGRAMS += %reldir%/glcuda-compositor
%canon_reldir%_glcuda_compositor_SOURCES = %reldir%/compositor.h \
	%reldir%/main.c %reldir%/options.c %reldir%/display.c %reldir%/shell.c \
	%reldir%/surface.c %reldir%/dmabuf.c %reldir%/render.c %reldir%/output.c \
	%reldir%/launch.c $(sanitizer_sources)
compositor_protocols = %reldir%/xdg-shell-protocol.c %reldir%/xdg-shell-server-protocol.h \
	%reldir%/presentation-time-protocol.c %reldir%/presentation-time-server-protocol.h \
	%reldir%/linux-dmabuf-unstable-v1-protocol.c \
	%reldir%/linux-dmabuf-unstable-v1-server-protocol.h
nodist_%canon_reldir%_glcuda_compositor_SOURCES = $(compositor_protocols)
BUILT_SOURCES += $(compositor_protocols)
CLEANFILES += $(compositor_protocols)
%canon_reldir%_glcuda_compositor_CPPFLAGS = $(tools_cppflags) -I%reldir% \
	-I$(top_srcdir)/tools $(WAYLAND_SERVER_CFLAGS)
%canon_reldir%_glcuda_compositor_CFLAGS = $(AM_CFLAGS) $(LIBPNG_CFLAGS)
%canon_reldir%_glcuda_compositor_LDADD = common/libfilters.la \
	common/libpng-file.la common/libglcuda-common.la lib/libglcuda.la $(WAYLAND_SERVER_LIBS) \
	$(LIBPNG_LIBS) $(EGL_LIBS) $(EPOXY_LIBS) $(PTHREAD_LIBS) $(LIBM)

%reldir%/xdg-shell-protocol.c: $(WAYLAND_PROTOCOLS_DATADIR)/stable/xdg-shell/xdg-shell.xml
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(WAYLAND_SCANNER) private-code $< $@
%reldir%/xdg-shell-server-protocol.h: $(WAYLAND_PROTOCOLS_DATADIR)/stable/xdg-shell/xdg-shell.xml
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(WAYLAND_SCANNER) server-header $< $@
%reldir%/presentation-time-protocol.c: $(WAYLAND_PROTOCOLS_DATADIR)/stable/presentation-time/presentation-time.xml
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(WAYLAND_SCANNER) private-code $< $@
%reldir%/presentation-time-server-protocol.h: $(WAYLAND_PROTOCOLS_DATADIR)/stable/presentation-time/presentation-time.xml
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(WAYLAND_SCANNER) server-header $< $@
%reldir%/linux-dmabuf-unstable-v1-protocol.c: $(WAYLAND_PROTOCOLS_DATADIR)/unstable/linux-dmabuf/linux-dmabuf-unstable-v1.xml
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(WAYLAND_SCANNER) private-code $< $@
%reldir%/linux-dmabuf-unstable-v1-server-protocol.h: $(WAYLAND_PROTOCOLS_DATADIR)/unstable/linux-dmabuf/linux-dmabuf-unstable-v1.xml
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(WAYLAND_SCANNER) server-header $< $@

# A client that breaks the protocol on purpose, a checker of the frames
# and a client whose frames are compared with a CPU reference, for the
# test.
check_PROGRAMS += tests/compositor-bad-client tests/compositor-check-png \
	tests/compositor-pixel-client
tests_compositor_check_png_SOURCES = tests/compositor-check-png.c
tests_compositor_check_png_CFLAGS = $(AM_CFLAGS) $(LIBPNG_CFLAGS)
tests_compositor_check_png_LDADD = $(LIBPNG_LIBS)
tests_compositor_bad_client_SOURCES = tests/compositor-bad-client.c
tests_compositor_bad_client_CFLAGS = $(AM_CFLAGS) $(WAYLAND_CLIENT_CFLAGS)
tests_compositor_bad_client_LDADD = $(WAYLAND_CLIENT_LIBS)
nodist_tests_compositor_bad_client_SOURCES = %reldir%/xdg-shell-client-protocol.h \
	%reldir%/xdg-shell-protocol.c
tests_compositor_bad_client_CPPFLAGS = -I%reldir%
tests_compositor_pixel_client_SOURCES = tests/compositor-pixel-client.c
compositor_client_protocols = %reldir%/xdg-shell-client-protocol.h \
	%reldir%/presentation-time-client-protocol.h
nodist_tests_compositor_pixel_client_SOURCES = $(compositor_client_protocols) \
	%reldir%/xdg-shell-protocol.c %reldir%/presentation-time-protocol.c
BUILT_SOURCES += $(compositor_client_protocols)
CLEANFILES += $(compositor_client_protocols)
tests_compositor_pixel_client_CPPFLAGS = -I%reldir%
tests_compositor_pixel_client_CFLAGS = $(AM_CFLAGS) $(WAYLAND_CLIENT_CFLAGS) $(LIBPNG_CFLAGS)
tests_compositor_pixel_client_LDADD = $(WAYLAND_CLIENT_LIBS) $(LIBPNG_LIBS)
%reldir%/xdg-shell-client-protocol.h: $(WAYLAND_PROTOCOLS_DATADIR)/stable/xdg-shell/xdg-shell.xml
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(WAYLAND_SCANNER) client-header $< $@
%reldir%/presentation-time-client-protocol.h: $(WAYLAND_PROTOCOLS_DATADIR)/stable/presentation-time/presentation-time.xml
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(WAYLAND_SCANNER) client-header $< $@

TESTS += tests/test-compositor.sh
fake_cuda_scripts += tests/test-compositor.sh
endif
