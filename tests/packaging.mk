# tests: packaging checks — the layers of lib/ (no call up them, from the
# built objects; lib/layers.txt), exported symbols, the ABI against
# abi/libglcuda.abi (skipped without abidiff), no link-time CUDA dependency,
# make install writing under the prefix only (the GStreamer plugin in
# LIBDIR/gstreamer-1.0), the installed pkg-config file, headers and
# programs, the examples built against the installed tree, glcuda's
# declarations of the CUDA driver API against the toolkit's (skipped
# without the toolkit), the API reference with every public symbol
# documented (skipped without Doxygen), and CODING_STYLE.md's checkable
# rules in every C source (scripts/check-style.sh).

# The environment of every test (the one definition in the build: fragments
# that need more add to it with +=, after this file is included, or use
# TESTS_ENVIRONMENT on the command line). Scripts find the source and build
# trees and the configured tools here, so they work in VPATH builds and
# under `make distcheck`; CFLAGS and LDFLAGS are the user's with the
# sanitizers' (the programs they build link the instrumented library). The
# sanitizer build (--enable-sanitizers) adds ASAN_OPTIONS, LSAN_OPTIONS
# (with the suppressions of tests/lsan.supp) and UBSAN_OPTIONS; other
# builds add nothing.
AM_TESTS_ENVIRONMENT = \
	top_srcdir="$(top_srcdir)" top_builddir="$(top_builddir)" \
	abs_top_srcdir="$(abs_top_srcdir)" abs_top_builddir="$(abs_top_builddir)" \
	CC="$(CC)" CXX="$(CXX)" CFLAGS="$(SANITIZER_CFLAGS) $(CFLAGS)" \
	CXXFLAGS="$(CXXFLAGS)" LDFLAGS="$(SANITIZER_LDFLAGS) $(LDFLAGS)" \
	NM="$(NM)" PKG_CONFIG="$(PKG_CONFIG)" MAKE="$(MAKE)" \
	CUDA_CFLAGS="$(CUDA_CFLAGS)" HAVE_CUDA_TOOLKIT="$(HAVE_CUDA_TOOLKIT)" \
	DOXYGEN="$(DOXYGEN)" EGL_CFLAGS="$(EGL_CFLAGS)" \
	PACKAGE_VERSION="$(PACKAGE_VERSION)" \
	glcuda_prefix="$(prefix)" glcuda_libdir="$(libdir)" \
	glcuda_includedir="$(includedir)"; \
	export top_srcdir top_builddir abs_top_srcdir abs_top_builddir \
	CC CXX CFLAGS CXXFLAGS LDFLAGS NM PKG_CONFIG MAKE CUDA_CFLAGS \
	HAVE_CUDA_TOOLKIT DOXYGEN EGL_CFLAGS \
	PACKAGE_VERSION glcuda_prefix glcuda_libdir glcuda_includedir; \
	$(SANITIZER_TESTS_ENVIRONMENT)

packaging_tests = \
	%reldir%/test-layers.sh \
	%reldir%/test-symbols.sh \
	%reldir%/test-abi.sh \
	%reldir%/test-no-libcuda.sh \
	%reldir%/test-pkgconfig.sh \
	%reldir%/test-install-prefix.sh \
	%reldir%/test-examples.sh \
	%reldir%/test-headers.sh \
	%reldir%/test-cuda-abi.sh \
	%reldir%/test-doc.sh \
	%reldir%/test-style.sh
TESTS += $(packaging_tests)
# The lock the install tests and tests/test-gst.sh share.
CLEANFILES += %reldir%/.install.lock
dist_check_SCRIPTS += $(packaging_tests)
EXTRA_DIST += .ci/packages %reldir%/lsan.supp %reldir%/expected-skips \
	%reldir%/cuda-abi.c %reldir%/cuda-abi.def abi/libglcuda.abi

# abi/libglcuda.abi, the ABI tests/test-abi.sh holds the library to: the
# description abidw makes of the built library, restricted to the types of
# the public headers (the library's own types are kept as declarations
# only), without the build's paths. The header locations stay: abidiff
# needs them to tell public types from private ones. Run after a change
# that adds to the ABI, and commit the file with the change.
abi-update: lib/libglcuda.la
	$(AM_V_GEN)abidw --no-corpus-path --no-comp-dir-path \
		--type-id-style hash --drop-private-types \
		--headers-dir $(top_srcdir)/include/glcuda \
		--headers-dir $(top_builddir)/include/glcuda \
		--out-file $(top_srcdir)/abi/libglcuda.abi \
		$(top_builddir)/lib/.libs/libglcuda.so
.PHONY: abi-update

# The tests that mean something on the GPU machine: every test but the
# packaging checks above, which need the build tools, and the suites on the
# fake CUDA driver (tests/fake-cuda/local.mk; fake_cuda_scripts: the
# scripts that use it), which a static build cannot make. scripts/gpu-build.sh records this list for scripts/gpu-test.sh.
print-gpu-tests:
	@for t in $(TESTS); do \
		case " $(packaging_tests) $(fake_cuda_tests) $(fake_cuda_scripts) " in \
		*" $$t "*) ;; *) echo "$$t" ;; esac; \
	done
.PHONY: print-gpu-tests
