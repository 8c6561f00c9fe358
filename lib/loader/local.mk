# lib/loader/libglcuda-shared.la: the pieces of libglcuda that the programs
# built on its public API (common/libglcuda-common.la: the tools,
# glcuda-compositor, the GStreamer plugin, the benchmarks) use too, written
# once: the opening of the CUDA driver (dlopen, and cuGetProcAddress for
# the ABI of the caller's declarations: cuda-driver.c) and the base layer's
# small helpers (lib/uuid.c: UUID text; lib/extensions.c: extension lists;
# lib/egl-binding.c: the thread's EGL binding). A convenience library: linked into libglcuda, which exports
# none of it (lib/glcuda.sym), and into the programs, which thus need no
# private symbol of the library; a static libglcuda carries the same
# objects, which the linker takes once.
noinst_LTLIBRARIES += %reldir%/libglcuda-shared.la
%canon_reldir%_libglcuda_shared_la_SOURCES = %reldir%/cuda-driver.c \
	%reldir%/cuda-driver.h lib/uuid.c lib/uuid.h \
	lib/extensions.c lib/extensions.h lib/egl-binding.c lib/egl-binding.h
%canon_reldir%_libglcuda_shared_la_LIBADD = $(EPOXY_LIBS) $(DLOPEN_LIBS)
