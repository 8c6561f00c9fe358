# examples: small programs a compositor author would copy from. Built (not
# installed) with `make`; see examples/README.md. They use what a program
# outside this tree has: the installed headers (no -I lib, no -I tools),
# libglcuda.so, and their own CUDA calls through example-cuda.h, which
# needs the toolkit's <cuda.h> (without the toolkit they are not built);
# tests/test-examples.sh builds them against an installed glcuda.
EXTRA_DIST += %reldir%/README.md %reldir%/example-cuda.h

# gstreamer/: the example of a kernel of the user's for glcudafilter, run
# once per plane (doc/gstreamer.md), which scripts/gst-gpu-build.sh builds
# with `make examples/gstreamer/invert-planes.fatbin` for
# scripts/gst-gpu-test.sh (through the .cu.fatbin rule of Makefile.am; the
# folder is made first in a build tree of its own).
EXTRA_DIST += %reldir%/gstreamer/invert-planes.cu
%reldir%/gstreamer/invert-planes.fatbin: %reldir%/gstreamer/.dirstamp
%reldir%/gstreamer/.dirstamp:
	@$(MKDIR_P) %reldir%/gstreamer
	@: > $@
CLEANFILES += %reldir%/gstreamer/invert-planes.fatbin \
	%reldir%/gstreamer/invert-planes.fatbin.d
DISTCLEANFILES = %reldir%/gstreamer/.dirstamp

if HAVE_CUDA_TOOLKIT
examples_cppflags = -I$(top_srcdir)/include -I$(top_builddir)/include \
	$(EGL_CFLAGS) $(EPOXY_CFLAGS) $(CUDA_CFLAGS)

# handoff: one image, GL -> CUDA kernel -> GL, timeline semaphores. The
# kernel is PTX text, so it needs neither nvcc nor libcuda at build time.
noinst_PROGRAMS += %reldir%/handoff
%canon_reldir%_handoff_SOURCES = %reldir%/handoff.c %reldir%/example-cuda.h \
	$(sanitizer_sources)
%canon_reldir%_handoff_CPPFLAGS = $(examples_cppflags)
%canon_reldir%_handoff_LDADD = lib/libglcuda.la $(EGL_LIBS) $(EPOXY_LIBS) \
	$(DLOPEN_LIBS)

# compositor-loop: the frame ring driven from a wl_event_loop, a timerfd as
# the vblank, the ring's fd for finished frames, an invert kernel in CUDA.
if HAVE_WAYLAND_SERVER
noinst_PROGRAMS += %reldir%/compositor-loop
%canon_reldir%_compositor_loop_SOURCES = %reldir%/compositor-loop.c \
	%reldir%/example-cuda.h $(sanitizer_sources)
%canon_reldir%_compositor_loop_CPPFLAGS = $(examples_cppflags)
%canon_reldir%_compositor_loop_CFLAGS = $(AM_CFLAGS) $(WAYLAND_SERVER_CFLAGS)
%canon_reldir%_compositor_loop_LDADD = lib/libglcuda.la $(WAYLAND_SERVER_LIBS) \
	$(EGL_LIBS) $(EPOXY_LIBS) $(DLOPEN_LIBS)
endif
endif

include %reldir%/mujoco/local.mk
