/*
 * CUDA's graphics interop: GL textures and EGLImages the caller owns,
 * registered with CUDA (cuGraphicsGLRegisterImage,
 * cuGraphicsEGLRegisterImage), and the arrays CUDA sees them as. All calls
 * need the device's CUDA context current (device_push_cuda); the GL ones
 * also need the device's GL context current.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_CUDA_INTEROP_H
#define GLCUDA_CUDA_INTEROP_H

#include <stdbool.h>
#include <stdint.h>
#include "loader/cuda-driver-api.h"

#include "cuda/cuda-importer.h"

struct error_sink;
struct format_info;

/* Register a GL texture (target GL_TEXTURE_2D or GL_TEXTURE_RECTANGLE) or an
 * EGLImage. read_only / write_discard are CUDA's usage hints; a resource
 * registered without read_only can be written through surfaces. */
int cuda_register_gl_texture(struct error_sink *errors, unsigned int texture,
			     unsigned int target, bool read_only,
			     bool write_discard, CUgraphicsResource *out);
int cuda_register_egl_image(struct error_sink *errors, void *egl_image,
			    bool read_only, bool write_discard,
			    CUgraphicsResource *out);
void cuda_unregister(CUgraphicsResource *res);

/* Map / unmap registered GL resources on a stream: CUDA orders the GL work
 * before the map ahead of the stream's later work, and the stream's earlier
 * work ahead of GL's later work. */
int cuda_map(struct error_sink *errors, CUgraphicsResource *res,
	     unsigned int count, CUstream stream);
int cuda_unmap(struct error_sink *errors, CUgraphicsResource *res,
	       unsigned int count, CUstream stream);

/* The array level 0 of a mapped GL resource is: fills array, width,
 * height, format and channels of *plane (objects untouched). */
int cuda_gl_resource_plane(struct error_sink *errors, CUgraphicsResource res,
			   struct cuda_plane *plane);
/* The planes of a registered EGL resource (no map needed: the driver
 * refuses to map EGL resources). */
int cuda_egl_resource_planes(struct error_sink *errors, CUgraphicsResource res,
			     struct cuda_plane planes[CUDA_MAX_PLANES],
			     unsigned int *count);

/* Surface and texture objects for a plane (array planes only): the layout
 * of fmt when known, else read from the array format. */
int cuda_plane_objects(struct error_sink *errors, struct cuda_plane *plane,
		       const struct format_info *fmt, bool with_surface,
		       bool with_texture, bool linear);

#endif
