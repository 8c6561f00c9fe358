# bench: glcuda against the legacy CUDA-GL registration and a PBO readback,
# on the GPU machine (bench/run.sh), and the soak run of the ring
# (bench/soak.sh). Built by `make` (and `make bench`); `make check` runs the
# soak only briefly, on the fake CUDA driver (tests/test-soak-fake.sh), and
# the trace briefly (tests/test-trace.sh). The kernels need nvcc.
if HAVE_NVCC
noinst_PROGRAMS += %reldir%/glcuda-bench %reldir%/glcuda-soak %reldir%/glcuda-trace \
	%reldir%/glcuda-tensor-bench
%canon_reldir%_glcuda_tensor_bench_SOURCES = %reldir%/glcuda-tensor-bench.c \
	%reldir%/bare-sync.c %reldir%/bare-sync.h $(sanitizer_sources)
# Vulkan for the bare path's own semaphores (bare-sync.c).
%canon_reldir%_glcuda_tensor_bench_CPPFLAGS = $(tools_cppflags) $(VULKAN_CFLAGS)
%canon_reldir%_glcuda_tensor_bench_LDADD = common/libglcuda-common.la lib/libglcuda.la \
	$(EGL_LIBS) $(EPOXY_LIBS) $(VULKAN_LIBS) $(LIBM)
%canon_reldir%_glcuda_bench_SOURCES = %reldir%/glcuda-bench.c %reldir%/bench.h \
	%reldir%/bench-options.c %reldir%/bench-gl.c %reldir%/bench-cuda.c \
	%reldir%/bench-paths.c %reldir%/bench-bare.c %reldir%/bare-sync.c \
	%reldir%/bare-sync.h %reldir%/bench-harness.c %reldir%/bench-report.c \
	$(sanitizer_sources)
nodist_%canon_reldir%_glcuda_bench_SOURCES = %reldir%/bench-kernels.S
# Vulkan for the bare path's own semaphores (bare-sync.c).
%canon_reldir%_glcuda_bench_CPPFLAGS = $(tools_cppflags) $(VULKAN_CFLAGS)
%canon_reldir%_glcuda_bench_LDADD = common/libglcuda-common.la \
	lib/libglcuda.la $(EGL_LIBS) $(EPOXY_LIBS) $(VULKAN_LIBS) $(LIBM)
%canon_reldir%_glcuda_soak_SOURCES = %reldir%/glcuda-soak.c $(sanitizer_sources)
nodist_%canon_reldir%_glcuda_soak_SOURCES = %reldir%/bench-kernels.S
%canon_reldir%_glcuda_soak_CPPFLAGS = $(tools_cppflags)
%canon_reldir%_glcuda_soak_LDADD = common/libglcuda-common.la lib/libglcuda.la \
	$(EGL_LIBS) $(EPOXY_LIBS) $(LIBM)

%canon_reldir%_glcuda_trace_SOURCES = %reldir%/trace/trace.h \
	%reldir%/trace/trace-main.c %reldir%/trace/scenarios.c \
	%reldir%/trace/trace-run.c %reldir%/trace/scenario-legacy.c \
	%reldir%/trace/scenario-ring.c %reldir%/trace/scenario-gl-prio.c \
	%reldir%/trace/scenario-gl-switch.c \
	%reldir%/trace/scenario-eglstream.c %reldir%/trace/driver-calls.c \
	$(sanitizer_sources)
nodist_%canon_reldir%_glcuda_trace_SOURCES = %reldir%/trace-kernels.S
%canon_reldir%_glcuda_trace_CPPFLAGS = $(tools_cppflags)
%canon_reldir%_glcuda_trace_LDADD = common/libglcuda-common.la \
	lib/libglcuda.la $(EGL_LIBS) $(EPOXY_LIBS) $(LIBM)

# nvcc writes into bench/ before any object file has made it.
%reldir%/bench-kernels.fatbin: %reldir%/$(am__dirstamp)
%reldir%/bench-kernels.S: %reldir%/bench-kernels.fatbin \
	$(top_srcdir)/scripts/embed-fatbin.sh
	$(AM_V_GEN)$(embed_fatbin) glcuda_bench_fatbin \
		%reldir%/bench-kernels.fatbin > $@
%reldir%/trace-kernels.fatbin: %reldir%/$(am__dirstamp)
%reldir%/trace-kernels.S: %reldir%/trace-kernels.fatbin \
	$(top_srcdir)/scripts/embed-fatbin.sh
	$(AM_V_GEN)$(embed_fatbin) glcuda_trace_fatbin \
		%reldir%/trace-kernels.fatbin > $@
CLEANFILES += %reldir%/bench-kernels.S %reldir%/bench-kernels.fatbin \
	%reldir%/bench-kernels.fatbin.d %reldir%/trace-kernels.S \
	%reldir%/trace-kernels.fatbin %reldir%/trace-kernels.fatbin.d
# The headers nvcc read (the .cu.fatbin rule in Makefile.am).
-include %reldir%/bench-kernels.fatbin.d
-include %reldir%/trace-kernels.fatbin.d

bench: %reldir%/glcuda-bench %reldir%/glcuda-soak %reldir%/glcuda-trace

# The trace, briefly: its failure path everywhere, one scenario and the
# EGLStreams row where a CUDA driver is (the GPU machine).
TESTS += tests/test-trace.sh
dist_check_SCRIPTS += tests/test-trace.sh

# The soak, briefly, on the fake CUDA driver (built with the Check suites;
# CI's, not the GPU machine's: see print-gpu-tests).
if HAVE_CHECK
fake_cuda_scripts += tests/test-soak-fake.sh
TESTS += tests/test-soak-fake.sh
dist_check_SCRIPTS += tests/test-soak-fake.sh
endif
else
bench:
	@echo "bench: nvcc was not found at configure time;" \
		"the benchmark needs it (--with-cuda=DIR)"
endif
.PHONY: bench

EXTRA_DIST += %reldir%/bench-kernels.cu %reldir%/trace-kernels.cu \
	%reldir%/run.sh %reldir%/plot.sh %reldir%/plot-mujoco.sh %reldir%/soak.sh %reldir%/README.md
