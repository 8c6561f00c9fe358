# doc: guides, shipped in the tarball.
EXTRA_DIST += %reldir%/README.md %reldir%/design.md %reldir%/guide.md %reldir%/nvidia-notes.md %reldir%/gpu-testing.md \
	%reldir%/which-path.md %reldir%/performance.md %reldir%/versioning.md \
	%reldir%/testing.md %reldir%/python.md %reldir%/renderers.md
# The frames of glcuda-demo shown in README.md.
EXTRA_DIST += %reldir%/images/demo-none.png %reldir%/images/demo-blur.png \
	%reldir%/images/demo-unsharp.png %reldir%/images/demo-grade.png \
	%reldir%/images/demo-invert.png %reldir%/images/compositor-invert.png \
	%reldir%/images/compositor-blur-4-clients.png %reldir%/images/mujoco-bench.png

# The API reference: `make doc` runs Doxygen on the public headers
# (%reldir%/Doxyfile, configured from %reldir%/Doxyfile.in) into
# %reldir%/api/html in the build tree. A public symbol without
# documentation fails it; tests/test-doc.sh runs the same check in
# `make check`.
EXTRA_DIST += %reldir%/Doxyfile.in
if HAVE_DOXYGEN
doc: %reldir%/Doxyfile $(glcudainclude_HEADERS) $(nodist_glcudainclude_HEADERS)
	$(AM_V_at)rm -rf %reldir%/api && $(MKDIR_P) %reldir%/api
	$(AM_V_GEN)$(DOXYGEN) %reldir%/Doxyfile
	@echo "doc: the API reference is in %reldir%/api/html/index.html"
else
doc:
	@echo "doc: doxygen was not found when configure ran (apt-get install doxygen)" >&2; exit 1
endif
clean-local: clean-doc
clean-doc:
	rm -rf %reldir%/api
.PHONY: doc clean-doc
