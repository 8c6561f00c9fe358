# glcuda-compositor: a small headless Wayland compositor that hands every
# frame it composites to CUDA through glcuda's frame ring. Like any
# compositor that uses glcuda, it links the shared library and the public
# headers only (and the tools' filters and common code, as glcuda-demo).
# The protocol code is generated from wayland-protocols' XML at build time.
EXTRA_DIST += doc/compositor.md tests/test-compositor.sh \
	tests/compositor-bad-client.c tests/compositor-check-png.c \
	tests/compositor-pixel-client.c tests/compositor-client.c \
	tests/compositor-client.h tests/compositor-diff-png.c \
	tests/compositor-test-env.sh tests/compositor-test-run.sh \
	tests/compositor-protocol-client.c

if HAVE_COMPOSITOR
bin_PROGRAMS += %reldir%/glcuda-compositor
%canon_reldir%_glcuda_compositor_SOURCES = %reldir%/comp.h \
	%reldir%/main.c %reldir%/options.c %reldir%/display.c \
	%reldir%/launch.c %reldir%/resource.h %reldir%/resource.c \
	%reldir%/surface/surface.h %reldir%/surface/surface.c \
	%reldir%/surface/surface-state.c %reldir%/surface/subsurface.c \
	%reldir%/surface/region.c %reldir%/surface/tree.c \
	%reldir%/surface/viewporter.c %reldir%/surface/presentation.c \
	%reldir%/buffer/buffer.h %reldir%/buffer/texture.c \
	%reldir%/buffer/dmabuf.c \
	%reldir%/render/render.h %reldir%/render/render.c \
	%reldir%/output/output.h %reldir%/output/output.c \
	%reldir%/output/capture.c %reldir%/output/xdg-output.c \
	%reldir%/seat/seat.h %reldir%/seat/seat.c %reldir%/seat/keymap.c \
	%reldir%/seat/data-device.c \
	%reldir%/shell/shell.h %reldir%/shell/shell.c %reldir%/shell/popup.c \
	%reldir%/shell/positioner.c %reldir%/shell/decoration.c \
	%reldir%/control/control.h %reldir%/control/control.c \
	$(sanitizer_sources)
compositor_protocols = %reldir%/viewporter-protocol.c \
	%reldir%/viewporter-server-protocol.h \
	%reldir%/xdg-decoration-unstable-v1-protocol.c \
	%reldir%/xdg-decoration-unstable-v1-server-protocol.h \
	%reldir%/xdg-output-unstable-v1-protocol.c \
	%reldir%/xdg-output-unstable-v1-server-protocol.h \
	%reldir%/xdg-shell-protocol.c %reldir%/xdg-shell-server-protocol.h \
	%reldir%/presentation-time-protocol.c \
	%reldir%/presentation-time-server-protocol.h \
	%reldir%/linux-dmabuf-unstable-v1-protocol.c \
	%reldir%/linux-dmabuf-unstable-v1-server-protocol.h
nodist_%canon_reldir%_glcuda_compositor_SOURCES = $(compositor_protocols)
BUILT_SOURCES += $(compositor_protocols)
CLEANFILES += $(compositor_protocols)
%canon_reldir%_glcuda_compositor_CPPFLAGS = $(tools_cppflags) -I%reldir% \
	-I$(srcdir)/%reldir% \
	-I$(top_srcdir)/tools $(WAYLAND_SERVER_CFLAGS) $(PIXMAN_CFLAGS)
%canon_reldir%_glcuda_compositor_CFLAGS = $(AM_CFLAGS) $(LIBPNG_CFLAGS) \
	$(XKBCOMMON_CFLAGS)
%canon_reldir%_glcuda_compositor_LDADD = common/libfilters.la \
	common/libpng-file.la common/libglcuda-common.la lib/libglcuda.la \
	$(WAYLAND_SERVER_LIBS) $(LIBPNG_LIBS) $(XKBCOMMON_LIBS) $(PIXMAN_LIBS) \
	$(EGL_LIBS) $(EPOXY_LIBS) $(PTHREAD_LIBS) $(LIBM)
# Its companion: one command to the control socket (control/control.c), for
# scripts that drive the seat and wait for frames.
bin_PROGRAMS += %reldir%/glcuda-compositor-ctl
%canon_reldir%_glcuda_compositor_ctl_SOURCES = %reldir%/control/ctl.c

# The protocols' XML in wayland-protocols' data directory. wayland-scanner
# makes from NAME.xml the code (NAME-protocol.c, the compositor's and the
# test clients') and the headers (NAME-server-protocol.h,
# NAME-client-protocol.h), each kind by one pattern rule; the lists above
# and below say which of them are built. make finds NAME.xml through vpath.
compositor_protocol_xml = stable/xdg-shell/xdg-shell.xml \
	stable/presentation-time/presentation-time.xml \
	stable/viewporter/viewporter.xml \
	unstable/xdg-decoration/xdg-decoration-unstable-v1.xml \
	unstable/xdg-output/xdg-output-unstable-v1.xml \
	unstable/linux-dmabuf/linux-dmabuf-unstable-v1.xml
compositor_protocol_dirs = $(addprefix $(WAYLAND_PROTOCOLS_DATADIR)/, \
	$(dir $(compositor_protocol_xml)))
vpath %.xml $(compositor_protocol_dirs)
%reldir%/%-protocol.c: %.xml
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(WAYLAND_SCANNER) private-code $< $@
%reldir%/%-server-protocol.h: %.xml
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(WAYLAND_SCANNER) server-header $< $@
%reldir%/%-client-protocol.h: %.xml
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(WAYLAND_SCANNER) client-header $< $@

# A client that breaks the protocol on purpose, a checker of the frames
# and a client whose frames are compared with a CPU reference, for the
# test.
check_PROGRAMS += tests/compositor-bad-client tests/compositor-check-png \
	tests/compositor-pixel-client tests/compositor-diff-png \
	tests/compositor-protocol-client
tests_compositor_diff_png_SOURCES = tests/compositor-diff-png.c
tests_compositor_diff_png_CFLAGS = $(AM_CFLAGS) $(LIBPNG_CFLAGS)
tests_compositor_diff_png_LDADD = $(LIBPNG_LIBS)
# What the clients share: connection, globals, pools, errors.
compositor_client_sources = tests/compositor-client.c tests/compositor-client.h
tests_compositor_check_png_SOURCES = tests/compositor-check-png.c
tests_compositor_check_png_CFLAGS = $(AM_CFLAGS) $(LIBPNG_CFLAGS)
tests_compositor_check_png_LDADD = $(LIBPNG_LIBS)
tests_compositor_bad_client_SOURCES = tests/compositor-bad-client.c \
	$(compositor_client_sources)
tests_compositor_bad_client_CFLAGS = $(AM_CFLAGS) $(WAYLAND_CLIENT_CFLAGS)
tests_compositor_bad_client_LDADD = $(WAYLAND_CLIENT_LIBS)
nodist_tests_compositor_bad_client_SOURCES = $(compositor_client_protocols) \
	$(compositor_client_code)
tests_compositor_bad_client_CPPFLAGS = -I%reldir%
tests_compositor_protocol_client_SOURCES = tests/compositor-protocol-client.c \
	$(compositor_client_sources)
nodist_tests_compositor_protocol_client_SOURCES = \
	$(compositor_client_protocols) $(compositor_client_code)
tests_compositor_protocol_client_CPPFLAGS = -I%reldir%
tests_compositor_protocol_client_CFLAGS = $(AM_CFLAGS) $(WAYLAND_CLIENT_CFLAGS)
tests_compositor_protocol_client_LDADD = $(WAYLAND_CLIENT_LIBS)
tests_compositor_pixel_client_SOURCES = tests/compositor-pixel-client.c \
	$(compositor_client_sources)
compositor_client_protocols = %reldir%/xdg-shell-client-protocol.h \
	%reldir%/presentation-time-client-protocol.h \
	%reldir%/viewporter-client-protocol.h \
	%reldir%/xdg-decoration-unstable-v1-client-protocol.h \
	%reldir%/xdg-output-unstable-v1-client-protocol.h
# The protocols' code (the same for clients and the compositor).
compositor_client_code = %reldir%/xdg-shell-protocol.c \
	%reldir%/presentation-time-protocol.c %reldir%/viewporter-protocol.c \
	%reldir%/xdg-decoration-unstable-v1-protocol.c \
	%reldir%/xdg-output-unstable-v1-protocol.c
nodist_tests_compositor_pixel_client_SOURCES = $(compositor_client_protocols) \
	$(compositor_client_code)
BUILT_SOURCES += $(compositor_client_protocols)
CLEANFILES += $(compositor_client_protocols)
tests_compositor_pixel_client_CPPFLAGS = -I%reldir%
tests_compositor_pixel_client_CFLAGS = $(AM_CFLAGS) $(WAYLAND_CLIENT_CFLAGS) \
	$(LIBPNG_CFLAGS)
tests_compositor_pixel_client_LDADD = $(WAYLAND_CLIENT_LIBS) $(LIBPNG_LIBS)

TESTS += tests/test-compositor.sh tests/test-compositor-input.sh \
	tests/test-compositor-protocols.sh tests/test-compositor-calls.sh
fake_cuda_scripts += tests/test-compositor.sh tests/test-compositor-input.sh \
	tests/test-compositor-protocols.sh
endif
# The seat, the control socket, screenshots and the output's rate, with
# weston's clients (Debian's weston): terminal, clickdot, eventdemo, flower.
dist_check_SCRIPTS += tests/test-compositor-input.sh
# The protocols beyond the core and xdg-shell's toplevels, with
# weston-scaler and the test clients.
dist_check_SCRIPTS += tests/test-compositor-protocols.sh
# No circle of calls among the compositor's files (nm on its objects).
dist_check_SCRIPTS += tests/test-compositor-calls.sh
EXTRA_DIST += scripts/compositor-calls.sh
