# doc: guides, shipped in the tarball.
EXTRA_DIST += doc/README.md doc/guide.md doc/nvidia-notes.md doc/gpu-testing.md \
	doc/which-path.md
# The frames of glcuda-demo shown in README.md.
EXTRA_DIST += doc/images/demo-none.png doc/images/demo-blur.png \
	doc/images/demo-unsharp.png doc/images/demo-grade.png \
	doc/images/demo-invert.png
