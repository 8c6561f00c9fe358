/*
 * The format table (format.c): each format of glcuda with its GL, Vulkan
 * and CUDA names and its layout.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_FORMAT_H
#define GLCUDA_FORMAT_H

#include <stdbool.h>
#include <epoxy/gl.h>
/* glcuda's own declarations of the CUDA driver API (no toolkit needed). */
#include "loader/cuda-driver-api.h"

#include <glcuda/glcuda.h>

struct format_info {
	enum glcuda_format format;
	const char *name;
	GLenum gl_internal_format;
	/* GL format/type for glReadPixels/glTexSubImage2D of this format. */
	GLenum gl_format, gl_type;
	int vk_format; /* VkFormat */
	CUarray_format cu_format;
	unsigned int cu_channels;
	unsigned int bytes_per_pixel;
	bool is_float, is_srgb;
	/* A depth format: a depth attachment in GL and Vulkan, one float
	 * channel in CUDA. */
	bool is_depth;
};

const struct format_info *format_info(enum glcuda_format format);
/* The format of a GL sized internal format, or of a CUDA array layout
 * (never sRGB or RGB10_A2, which CUDA arrays cannot tell apart); NULL if
 * glcuda has no name for it. */
const struct format_info *format_info_from_gl(GLenum internal_format);
const struct format_info *format_info_from_cuda(CUarray_format format,
						unsigned int channels);

#endif
