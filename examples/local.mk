# examples: small programs a compositor author would copy from. Built (not
# installed) with `make`; see examples/README.md. They use what a program
# outside this tree has: the installed headers (no -I lib, no -I tools),
# libglcuda.so, and their own CUDA calls through example-cuda.h;
# tests/test-examples.sh builds them against an installed glcuda.
EXTRA_DIST += examples/README.md examples/example-cuda.h

examples_cppflags = -I$(top_srcdir)/include -I$(top_builddir)/include \
	$(EGL_CFLAGS) $(EPOXY_CFLAGS) $(CUDA_CFLAGS)

# handoff: one image, GL -> CUDA kernel -> GL, timeline semaphores. The
# kernel is PTX text, so it needs neither nvcc nor libcuda at build time.
noinst_PROGRAMS += examples/handoff
examples_handoff_SOURCES = examples/handoff.c examples/example-cuda.h $(sanitizer_sources)
examples_handoff_CPPFLAGS = $(examples_cppflags)
examples_handoff_LDADD = lib/libglcuda.la $(EGL_LIBS) $(EPOXY_LIBS) -ldl

# compositor-loop: the frame ring driven from a wl_event_loop, a timerfd as
# the vblank, the ring's fd for finished frames, an invert kernel in CUDA.
if HAVE_WAYLAND_SERVER
noinst_PROGRAMS += examples/compositor-loop
examples_compositor_loop_SOURCES = examples/compositor-loop.c examples/example-cuda.h \
	$(sanitizer_sources)
examples_compositor_loop_CPPFLAGS = $(examples_cppflags)
examples_compositor_loop_CFLAGS = $(AM_CFLAGS) $(WAYLAND_SERVER_CFLAGS)
examples_compositor_loop_LDADD = lib/libglcuda.la $(WAYLAND_SERVER_LIBS) $(EGL_LIBS) \
	$(EPOXY_LIBS) -ldl
endif
