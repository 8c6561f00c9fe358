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
#include <cuda.h>

struct error_sink;
struct format_info;

struct cuda_image {
	CUexternalMemory memory;
	CUmipmappedArray mipmapped;
	CUarray array;      /* level 0, owned by the mipmapped array */
	CUsurfObject surface;
	CUtexObject texture;
};

/* Import an OPAQUE_FD of `size` bytes holding an optimal-tiling image. The
 * fd is consumed in every case (CUDA owns it on success, it is closed on
 * failure). with_texture: also make a texture object (linear filtering if
 * linear). On failure nothing is left. */
int cuda_import_image(struct error_sink *errors, int fd, uint64_t size,
		      bool dedicated, const struct format_info *fmt,
		      uint32_t width, uint32_t height, bool with_texture,
		      bool linear, struct cuda_image *out);
void cuda_destroy_image(struct cuda_image *img);

/* A surface object (with_surface) and a texture object (with_texture) on an
 * array. The texture object reads normalised floats for UNORM layouts
 * (normalized), floats for float layouts, integers otherwise; srgb decodes;
 * linear filters where the layout allows. On failure neither is left. */
int cuda_array_objects(struct error_sink *errors, CUarray array, bool is_float,
		       bool normalized, bool srgb, bool with_surface, bool with_texture,
		       bool linear, CUsurfObject *surface, CUtexObject *texture);

/* Import a semaphore fd (binary: OPAQUE_FD, timeline: TIMELINE_SEMAPHORE_FD).
 * The fd is consumed in every case. */
int cuda_import_semaphore(struct error_sink *errors, int fd, bool timeline,
			  CUexternalSemaphore *out);
void cuda_destroy_semaphore(CUexternalSemaphore *sem);

#endif
