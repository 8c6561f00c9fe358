/*
 * The formats glcuda shares, and what each is called in GL, Vulkan and CUDA.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "export.h"
#include "array-length.h"
#include "format.h"

#include <vulkan/vulkan.h>

/* CUDA sees every format as plain integers or floats of the same size per
 * channel: surface reads and writes are bit-exact, and the texture object
 * adds normalised reads (see cuda-importer.c). RGB10_A2 has no CUDA array
 * format of its own: it is one 32-bit word (R in bits 0-9, A in 30-31), as
 * in GL's and Vulkan's A2B10G10R10 packing. */
static const struct format_info formats[] = {
	{ GLCUDA_FORMAT_RGBA8, "RGBA8", GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE,
	  VK_FORMAT_R8G8B8A8_UNORM, CU_AD_FORMAT_UNSIGNED_INT8, 4, 4, false,
	  false },
	{ GLCUDA_FORMAT_SRGB8_A8, "SRGB8_A8", GL_SRGB8_ALPHA8, GL_RGBA,
	  GL_UNSIGNED_BYTE, VK_FORMAT_R8G8B8A8_SRGB, CU_AD_FORMAT_UNSIGNED_INT8,
	  4, 4, false, true },
	{ GLCUDA_FORMAT_RGB10_A2, "RGB10_A2", GL_RGB10_A2, GL_RGBA,
	  GL_UNSIGNED_INT_2_10_10_10_REV, VK_FORMAT_A2B10G10R10_UNORM_PACK32,
	  CU_AD_FORMAT_UNSIGNED_INT32, 1, 4, false, false },
	{ GLCUDA_FORMAT_RGBA16F, "RGBA16F", GL_RGBA16F, GL_RGBA, GL_HALF_FLOAT,
	  VK_FORMAT_R16G16B16A16_SFLOAT, CU_AD_FORMAT_HALF, 4, 8, true, false },
	{ GLCUDA_FORMAT_RGBA32F, "RGBA32F", GL_RGBA32F, GL_RGBA, GL_FLOAT,
	  VK_FORMAT_R32G32B32A32_SFLOAT, CU_AD_FORMAT_FLOAT, 4, 16, true,
	  false },
	{ GLCUDA_FORMAT_R8, "R8", GL_R8, GL_RED, GL_UNSIGNED_BYTE,
	  VK_FORMAT_R8_UNORM, CU_AD_FORMAT_UNSIGNED_INT8, 1, 1, false, false },
	{ GLCUDA_FORMAT_RG8, "RG8", GL_RG8, GL_RG, GL_UNSIGNED_BYTE,
	  VK_FORMAT_R8G8_UNORM, CU_AD_FORMAT_UNSIGNED_INT8, 2, 2, false,
	  false },
	{ GLCUDA_FORMAT_R16, "R16", GL_R16, GL_RED, GL_UNSIGNED_SHORT,
	  VK_FORMAT_R16_UNORM, CU_AD_FORMAT_UNSIGNED_INT16, 1, 2, false,
	  false },
	{ GLCUDA_FORMAT_RG16, "RG16", GL_RG16, GL_RG, GL_UNSIGNED_SHORT,
	  VK_FORMAT_R16G16_UNORM, CU_AD_FORMAT_UNSIGNED_INT16, 2, 4, false,
	  false },
	{ GLCUDA_FORMAT_R32F, "R32F", GL_R32F, GL_RED, GL_FLOAT,
	  VK_FORMAT_R32_SFLOAT, CU_AD_FORMAT_FLOAT, 1, 4, true, false },
	/* Depth as GL wrote it: CUDA imports D32_SFLOAT as a one-channel
	 * float array (CUDA_ARRAY3D_DEPTH_TEXTURE is refused for external
	 * memory), and reads the same values glReadPixels(GL_DEPTH_COMPONENT,
	 * GL_FLOAT) returns. */
	{ GLCUDA_FORMAT_DEPTH32F, "DEPTH32F", GL_DEPTH_COMPONENT32F,
	  GL_DEPTH_COMPONENT, GL_FLOAT, VK_FORMAT_D32_SFLOAT,
	  CU_AD_FORMAT_FLOAT, 1, 4, true, false, true },
};

const struct format_info *
format_info(enum glcuda_format format)
{
	for (size_t i = 0; i < ARRAY_LENGTH(formats); i++)
		if (formats[i].format == format)
			return &formats[i];
	return NULL;
}

GLCUDA_EXPORT const char *
glcuda_format_get_name(enum glcuda_format format)
{
	const struct format_info *f = format_info(format);
	return f ? f->name : "INVALID";
}

GLCUDA_EXPORT unsigned int
glcuda_format_get_bytes_per_pixel(enum glcuda_format format)
{
	const struct format_info *f = format_info(format);
	return f ? f->bytes_per_pixel : 0;
}

GLCUDA_EXPORT unsigned int
glcuda_format_get_gl_internal_format(enum glcuda_format format)
{
	const struct format_info *f = format_info(format);
	return f ? f->gl_internal_format : 0;
}

const struct format_info *
format_info_from_gl(GLenum internal_format)
{
	for (size_t i = 0; i < ARRAY_LENGTH(formats); i++)
		if (formats[i].gl_internal_format == internal_format)
			return &formats[i];
	return NULL;
}

const struct format_info *
format_info_from_cuda(CUarray_format format, unsigned int channels)
{
	/* The first match is the plain UNORM or float format: a CUDA array
	 * does not say whether its bytes are sRGB-encoded, and one 32-bit
	 * channel need not be RGB10_A2. */
	for (size_t i = 0; i < ARRAY_LENGTH(formats); i++)
		if (formats[i].cu_format == format &&
		    formats[i].cu_channels == channels && !formats[i].is_srgb &&
		    !formats[i].is_depth &&
		    formats[i].format != GLCUDA_FORMAT_RGB10_A2)
			return &formats[i];
	return NULL;
}
