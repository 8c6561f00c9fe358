# lib/loader/libcuda-driver.la: opening the CUDA driver (dlopen, and
# cuGetProcAddress for the ABI of the caller's declarations), the one piece
# that libglcuda's loader and the programs' CUDA table
# (common/cuda-table.c) share. A convenience library: linked into
# libglcuda, which exports none of it (lib/glcuda.sym), and into
# common/libglcuda-common.la, so that the programs built on the public API
# need no private symbol of the library.
noinst_LTLIBRARIES += %reldir%/libcuda-driver.la
%canon_reldir%_libcuda_driver_la_SOURCES = %reldir%/cuda-driver.c %reldir%/cuda-driver.h
%canon_reldir%_libcuda_driver_la_LIBADD = $(DLOPEN_LIBS)
