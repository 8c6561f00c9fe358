/*
 * The CUDA importer: external memory -> mipmapped array -> level-0 array,
 * surface and texture objects; external semaphores. All calls need the
 * device's CUDA context current (device_push_cuda).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_CUDA_IMPORTER_H
#define GLCUDA_CUDA_IMPORTER_H

#include <stdbool.h>
#include <stdint.h>
#include "loader/cuda-driver-api.h"

struct error_sink;
struct format_info;

#define CUDA_MAX_PLANES 3

/* One plane of an image as CUDA sees it, with the objects glcuda made for
 * it: the one representation of every kind of image. Arrays for
 * block-linear memory; pointer and pitch for pitch-linear EGLImages. */
struct cuda_plane {
	CUarray array;
	CUdeviceptr pointer;
	size_t pitch;
	uint32_t width, height;
	uint32_t layers; /* 1, or the layers of a layered array */
	CUarray_format format;
	unsigned int channels;
	CUsurfObject surface;
	CUtexObject texture;
};

/* Destroy the plane's surface and texture objects (not its array, which
 * belongs to what the plane was made from). */
void cuda_plane_destroy_objects(struct cuda_plane *plane);

/* What an imported image owns besides its plane. */
struct cuda_import {
	CUexternalMemory memory;
	CUmipmappedArray mipmapped; /* owns the plane's array (level 0) */
};

/* Import an OPAQUE_FD of `size` bytes holding an optimal-tiling image. The
 * fd is consumed in every case (CUDA owns it on success, it is closed on
 * failure). layers > 1: a layered array. On success *plane gets the
 * level-0 array and its objects (a
 * surface, and a texture when with_texture, filtering linearly if linear).
 * On failure nothing is left. Teardown: cuda_plane_destroy_objects, then
 * cuda_destroy_import. */
int cuda_import_image(struct error_sink *errors, int fd, uint64_t size,
		      bool dedicated, const struct format_info *fmt,
		      uint32_t width, uint32_t height, uint32_t layers,
		      bool with_texture, bool linear, struct cuda_import *out,
		      struct cuda_plane *plane);
void cuda_destroy_import(struct cuda_import *imp);

/* A surface object (with_surface) and a texture object (with_texture) on an
 * array. The texture object reads normalised floats for UNORM layouts
 * (normalized), floats for float layouts, integers otherwise; srgb decodes;
 * linear filters where the layout allows. On failure neither is left. */
int cuda_array_objects(struct error_sink *errors, CUarray array, bool is_float,
		       bool normalized, bool srgb, bool with_surface,
		       bool with_texture, bool linear, CUsurfObject *surface,
		       CUtexObject *texture);

/* Import a semaphore fd (binary: OPAQUE_FD, timeline: TIMELINE_SEMAPHORE_FD).
 * The fd is consumed in every case. */
int cuda_import_semaphore(struct error_sink *errors, int fd, bool timeline,
			  CUexternalSemaphore *out);
void cuda_destroy_semaphore(CUexternalSemaphore *sem);

#endif
