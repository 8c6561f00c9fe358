# examples: small programs a compositor author would copy from. Built (not
# installed) with `make`; see examples/README.md.
EXTRA_DIST += %reldir%/README.md

# handoff: one image, GL -> CUDA kernel -> GL, timeline semaphores. The
# kernel is PTX text loaded through glcuda's run-time CUDA loader, so it
# needs neither nvcc nor libcuda at build time.
noinst_PROGRAMS += %reldir%/handoff
%canon_reldir%_handoff_SOURCES = %reldir%/handoff.c
%canon_reldir%_handoff_LDADD = lib/libglcuda-internal.la $(EGL_LIBS) $(EPOXY_LIBS) \
	$(VULKAN_LIBS)

# compositor-loop: the frame ring driven from a wl_event_loop, a timerfd as
# the vblank, the ring's fd for finished frames, an invert filter in CUDA.
if HAVE_WAYLAND_SERVER
noinst_PROGRAMS += %reldir%/compositor-loop
%canon_reldir%_compositor_loop_SOURCES = %reldir%/compositor-loop.c
%canon_reldir%_compositor_loop_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
%canon_reldir%_compositor_loop_CFLAGS = $(AM_CFLAGS) $(WAYLAND_SERVER_CFLAGS)
%canon_reldir%_compositor_loop_LDADD = tools/libfilters.la lib/libglcuda-internal.la \
	$(WAYLAND_SERVER_LIBS) $(EGL_LIBS) $(EPOXY_LIBS) $(VULKAN_LIBS) $(LIBM)
endif
