# examples: small programs a compositor author would copy from. Built (not
# installed) with `make`; see examples/README.md.
EXTRA_DIST += examples/README.md

# handoff: one image, GL -> CUDA kernel -> GL, timeline semaphores. The
# kernel is PTX text loaded through glcuda's run-time CUDA loader, so it
# needs neither nvcc nor libcuda at build time.
noinst_PROGRAMS += examples/handoff
examples_handoff_SOURCES = examples/handoff.c $(sanitizer_sources)
examples_handoff_LDADD = lib/libglcuda-internal.la $(EGL_LIBS) $(EPOXY_LIBS) \
	$(VULKAN_LIBS)

# compositor-loop: the frame ring driven from a wl_event_loop, a timerfd as
# the vblank, the ring's fd for finished frames, an invert filter in CUDA.
if HAVE_WAYLAND_SERVER
noinst_PROGRAMS += examples/compositor-loop
examples_compositor_loop_SOURCES = examples/compositor-loop.c $(sanitizer_sources)
examples_compositor_loop_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
examples_compositor_loop_CFLAGS = $(AM_CFLAGS) $(WAYLAND_SERVER_CFLAGS)
examples_compositor_loop_LDADD = tools/libfilters.la lib/libglcuda-internal.la \
	$(WAYLAND_SERVER_LIBS) $(EGL_LIBS) $(EPOXY_LIBS) $(VULKAN_LIBS) -lm
endif
