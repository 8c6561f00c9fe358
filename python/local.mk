# The Python package (python/, module glcuda): the extension module
# _glcuda over libglcuda, and the package's Python files. pip builds the
# same sources against an installed glcuda (python/setup.py); here they
# are built against the tree's library, installed into the configured
# Python's site-packages under the prefix, and tested on Mesa and the fake
# CUDA driver (tests/test-python.sh; the GPU machine's checks are in
# scripts/python-gpu-test.sh).
glcuda_py_sources = %reldir%/src/module.h %reldir%/src/cuda-types.h \
	%reldir%/src/module.c %reldir%/src/errors.c %reldir%/src/device.c \
	%reldir%/src/image.c %reldir%/src/dlpack.c %reldir%/src/copy.c \
	%reldir%/src/stream.c %reldir%/src/options.c %reldir%/src/capture.c \
	%reldir%/src/profile.c %reldir%/src/log.c
glcuda_py_files = %reldir%/glcuda/__init__.py %reldir%/glcuda/gl.py
glcuda_py_data = %reldir%/glcuda/__init__.pyi %reldir%/glcuda/_glcuda.pyi \
	%reldir%/glcuda/gl.pyi %reldir%/glcuda/py.typed
glcuda_py_tests = %reldir%/tests/conftest.py %reldir%/tests/fakecuda.py \
	%reldir%/tests/test_device.py %reldir%/tests/test_image.py \
	%reldir%/tests/test_dlpack.py %reldir%/tests/test_copy.py \
	%reldir%/tests/test_multi_gpu.py %reldir%/tests/failed_export.py \
	%reldir%/tests/gpu_check.py %reldir%/tests/test_origin.py \
	%reldir%/tests/test_capture.py %reldir%/tests/test_renderers.py \
	%reldir%/tests/pyopengl_scene.py %reldir%/tests/test_profile.py \
	%reldir%/tests/test_refusals.py %reldir%/tests/test_log.py

if HAVE_PYTHON
glcudapyexecdir = $(pyexecdir)/glcuda
glcudapyexec_LTLIBRARIES = %reldir%/glcuda/_glcuda.la
%canon_reldir%_glcuda__glcuda_la_SOURCES = $(glcuda_py_sources)
# Not AM_CPPFLAGS: the module sees only the public headers, as pip's
# build does.
%canon_reldir%_glcuda__glcuda_la_CPPFLAGS = -I$(top_srcdir)/include \
	-I$(top_builddir)/include $(PYTHON_CFLAGS) $(EGL_CFLAGS)
%canon_reldir%_glcuda__glcuda_la_LDFLAGS = $(SANITIZER_LDFLAGS) -module \
	-avoid-version -shared
%canon_reldir%_glcuda__glcuda_la_LIBADD = lib/libglcuda.la $(EGL_LIBS)

glcudapythondir = $(pythondir)/glcuda
glcudapython_PYTHON = $(glcuda_py_files)
glcudapython_DATA = $(glcuda_py_data)

# On Mesa and the fake CUDA driver (only where the module is built: a
# SKIP where it is not would fail CI's check of skips).
TESTS += tests/test-python.sh
fake_cuda_scripts += tests/test-python.sh
# pip install --no-build-isolation ./python against a staged install.
packaging_tests += tests/test-python-install.sh
AM_TESTS_ENVIRONMENT += PYTHON="$(PYTHON)"; export PYTHON;
# Whether the library has its copy kernels (built by nvcc): without them
# depth to distance is refused, and the tests check the refusal instead.
if HAVE_NVCC
python_copy_kernels = yes
else
python_copy_kernels = no
endif
AM_TESTS_ENVIRONMENT += GLCUDA_TEST_COPY_KERNELS=$(python_copy_kernels); \
	export GLCUDA_TEST_COPY_KERNELS;
# make distcheck builds and tests with the same Python.
distcheck_python = PYTHON=$(PYTHON)
else
distcheck_python =
endif
dist_check_SCRIPTS += tests/test-python.sh
EXTRA_DIST += $(glcuda_py_sources) $(glcuda_py_files) $(glcuda_py_data) \
	$(glcuda_py_tests) %reldir%/README.md %reldir%/pyproject.toml \
	%reldir%/setup.py
EXTRA_DIST += tests/python-env.sh examples/python/batch_render.py \
	examples/python/bench_sizes.py examples/python/multi_gpu.py \
	examples/python/profile_dlpack.py \
	scripts/python-gpu-build.sh scripts/python-gpu-test.sh \
	scripts/python-gpu-multi.sh scripts/python-gpu-stage.sh
