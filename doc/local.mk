# doc: guides, shipped in the tarball.
EXTRA_DIST += doc/README.md doc/gpu-testing.md
