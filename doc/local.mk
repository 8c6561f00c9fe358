# doc: guides, shipped in the tarball.
EXTRA_DIST += %reldir%/README.md %reldir%/guide.md %reldir%/nvidia-notes.md %reldir%/gpu-testing.md \
	%reldir%/which-path.md
# The frames of glcuda-demo shown in README.md.
EXTRA_DIST += %reldir%/images/demo-none.png %reldir%/images/demo-blur.png \
	%reldir%/images/demo-unsharp.png %reldir%/images/demo-grade.png \
	%reldir%/images/demo-invert.png
