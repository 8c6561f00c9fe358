# bench: glcuda against the legacy CUDA-GL registration and a PBO readback,
# on the GPU machine (bench/run.sh), and the soak run of the ring
# (bench/soak.sh). Built by `make` (and `make bench`); `make check` runs the
# soak only briefly, on the fake CUDA driver (tests/test-soak-fake.sh). The
# kernels need nvcc.
if HAVE_NVCC
noinst_PROGRAMS += bench/glcuda-bench bench/glcuda-soak
# The benchmarks include the toolkit's <cuda.h> (built only with nvcc).
bench_glcuda_bench_SOURCES = bench/glcuda-bench.c
bench_glcuda_bench_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
nodist_bench_glcuda_bench_SOURCES = bench/bench-kernels.S
bench_glcuda_bench_LDADD = lib/libglcuda-internal.la \
	$(EGL_LIBS) $(EPOXY_LIBS) $(VULKAN_LIBS) -lm
bench_glcuda_soak_SOURCES = bench/glcuda-soak.c
bench_glcuda_soak_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
nodist_bench_glcuda_soak_SOURCES = bench/bench-kernels.S
bench_glcuda_soak_LDADD = lib/libglcuda-internal.la \
	$(EGL_LIBS) $(EPOXY_LIBS) $(VULKAN_LIBS)

# nvcc writes into bench/ before any object file has made it.
bench/bench-kernels.fatbin: bench/$(am__dirstamp) $(top_srcdir)/tools/pixel.cuh
bench/bench-kernels.S: bench/bench-kernels.fatbin $(top_srcdir)/scripts/embed-fatbin.sh
	$(AM_V_GEN)$(embed_fatbin) glcuda_bench_fatbin bench/bench-kernels.fatbin > $@
CLEANFILES += bench/bench-kernels.S bench/bench-kernels.fatbin

bench: bench/glcuda-bench bench/glcuda-soak

# The soak, briefly, on the fake CUDA driver (built with the Check suites;
# CI's, not the GPU machine's: see print-gpu-tests).
if HAVE_CHECK
fake_cuda_scripts = tests/test-soak-fake.sh
TESTS += tests/test-soak-fake.sh
dist_check_SCRIPTS += tests/test-soak-fake.sh
endif
else
bench:
	@echo "bench: nvcc was not found at configure time; the benchmark needs it (--with-cuda=DIR)"
endif
.PHONY: bench

EXTRA_DIST += bench/bench-kernels.cu bench/run.sh bench/plot.sh bench/soak.sh bench/README.md
