# examples/mujoco: MuJoCo's renderer, many cameras, captured by glcuda into
# tensors (README.md). Built (not installed) when configure finds MuJoCo
# (<mujoco/mujoco.h>, -lmujoco) and the CUDA toolkit's <cuda.h>; run by
# tests/test-mujoco.sh on the fake CUDA driver.
EXTRA_DIST += %reldir%/README.md %reldir%/scene.xml
if HAVE_MUJOCO
noinst_PROGRAMS += %reldir%/mujoco-cameras
%canon_reldir%_mujoco_cameras_SOURCES = %reldir%/mujoco-cameras.c \
	examples/example-cuda.h $(sanitizer_sources)
%canon_reldir%_mujoco_cameras_CPPFLAGS = $(examples_cppflags) \
	-DMUJOCO_CAMERAS_MODEL='"$(abs_top_srcdir)/%reldir%/scene.xml"'
%canon_reldir%_mujoco_cameras_LDADD = lib/libglcuda.la $(MUJOCO_LIBS) \
	$(EGL_LIBS) $(EPOXY_LIBS) $(DLOPEN_LIBS) $(LIBM)
endif

# Without MuJoCo it says so and skips (77).
TESTS += tests/test-mujoco.sh
dist_check_SCRIPTS += tests/test-mujoco.sh
fake_cuda_scripts += tests/test-mujoco.sh
