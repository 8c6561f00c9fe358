/*
 * CUDA's graphics interop for textures and EGLImages the caller owns.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "error.h"
#include "format.h"
#include "loader/cuda-loader.h"
#include "cuda/cuda-importer.h"
#include "cuda/cuda-interop.h"

#include <string.h>

int
cuda_register_gl_texture(struct error_sink *errors, unsigned int texture,
			 unsigned int target, bool read_only,
			 bool write_discard, CUgraphicsResource *out)
{
	unsigned int flags = read_only
				     ? CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY
				     : CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST;
	CUresult res;

	if (write_discard)
		flags |= CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD;
	res = CU_CALL(cuGraphicsGLRegisterImage, out, texture, target, flags);
	if (res != CUDA_SUCCESS) {
		*out = NULL;
		return cuda_call_fail(errors, res, "cuGraphicsGLRegisterImage",
				      res == CUDA_ERROR_INVALID_VALUE
					      ? "CUDA cannot register textures "
						"of this internal format (see "
						"the formats table in "
						"doc/which-path.md)"
					      : "The texture must be complete, "
						"have storage, and live on the "
						"GPU of the device's CUDA "
						"context.");
	}
	return 0;
}

int
cuda_register_egl_image(struct error_sink *errors, void *egl_image,
			bool read_only, bool write_discard,
			CUgraphicsResource *out)
{
	unsigned int flags = CU_GRAPHICS_MAP_RESOURCE_FLAGS_NONE;
	CUresult res;

	*out = NULL;
	if (!cuda_loader_table.cuGraphicsEGLRegisterImage ||
	    !cuda_loader_table.cuGraphicsResourceGetMappedEglFrame)
		return error_fail(
			errors, GLCUDA_ERROR_CUDA,
			"the CUDA driver has no cuGraphicsEGLRegisterImage / "
			"cuGraphicsResourceGetMappedEglFrame: update the "
			"NVIDIA driver");
	if (read_only)
		flags = CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY;
	else if (write_discard)
		flags = CU_GRAPHICS_MAP_RESOURCE_FLAGS_WRITE_DISCARD;
	res = CU_CALL(cuGraphicsEGLRegisterImage, out, egl_image, flags);
	if (res != CUDA_SUCCESS) {
		*out = NULL;
		return cuda_call_fail(
			errors, res, "cuGraphicsEGLRegisterImage",
			res == CUDA_ERROR_INVALID_VALUE ||
					res == CUDA_ERROR_NOT_SUPPORTED
				? "CUDA cannot register EGLImages of this "
				  "format (see the formats table in "
				  "doc/which-path.md)"
				: "The EGLImage must be valid and live on the "
				  "GPU of the device's CUDA context.");
	}
	return 0;
}

void
cuda_unregister(CUgraphicsResource *res)
{
	if (*res)
		CU_CALL(cuGraphicsUnregisterResource, *res);
	*res = NULL;
}

int
cuda_map(struct error_sink *errors, CUgraphicsResource *res, unsigned int count,
	 CUstream stream)
{
	CUresult r = CU_CALL(cuGraphicsMapResources, count, res, stream);

	if (r != CUDA_SUCCESS)
		return cuda_call_fail(
			errors, r, "cuGraphicsMapResources",
			"Check that the stream belongs to the device's CUDA "
			"context and that GL has not deleted the texture.");
	return 0;
}

int
cuda_unmap(struct error_sink *errors, CUgraphicsResource *res,
	   unsigned int count, CUstream stream)
{
	CUresult r = CU_CALL(cuGraphicsUnmapResources, count, res, stream);

	if (r != CUDA_SUCCESS)
		return cuda_call_fail(
			errors, r, "cuGraphicsUnmapResources",
			"Check that the stream belongs to the device's CUDA "
			"context.");
	return 0;
}

static int
describe_array(struct error_sink *errors, struct cuda_plane *plane)
{
	CUDA_ARRAY3D_DESCRIPTOR desc;
	CUresult res;

	if (!cuda_loader_table.cuArray3DGetDescriptor)
		return error_fail(
			errors, GLCUDA_ERROR_CUDA,
			"the CUDA driver has no cuArray3DGetDescriptor: update "
			"the NVIDIA driver");
	memset(&desc, 0, sizeof(desc));
	res = CU_CALL(cuArray3DGetDescriptor, &desc, plane->array);
	if (res != CUDA_SUCCESS)
		return cuda_call_fail(errors, res, "cuArray3DGetDescriptor",
				      NULL);
	plane->width = (uint32_t)desc.Width;
	plane->height = (uint32_t)desc.Height;
	plane->format = desc.Format;
	plane->channels = desc.NumChannels;
	return 0;
}

int
cuda_gl_resource_plane(struct error_sink *errors, CUgraphicsResource res,
		       struct cuda_plane *plane)
{
	CUresult r = CU_CALL(cuGraphicsSubResourceGetMappedArray, &plane->array,
			     res, 0, 0);

	if (r != CUDA_SUCCESS) {
		plane->array = NULL;
		return cuda_call_fail(errors, r,
				      "cuGraphicsSubResourceGetMappedArray",
				      NULL);
	}
	return describe_array(errors, plane);
}

int
cuda_egl_resource_planes(struct error_sink *errors, CUgraphicsResource res,
			 struct cuda_plane planes[CUDA_MAX_PLANES],
			 unsigned int *count)
{
	CUeglFrame frame;
	CUresult r;
	int ret;

	memset(&frame, 0, sizeof(frame));
	r = CU_CALL(cuGraphicsResourceGetMappedEglFrame, &frame, res, 0, 0);
	if (r != CUDA_SUCCESS)
		return cuda_call_fail(errors, r,
				      "cuGraphicsResourceGetMappedEglFrame",
				      NULL);
	if (frame.planeCount == 0 || frame.planeCount > CUDA_MAX_PLANES)
		return error_fail(errors, GLCUDA_ERROR_UNSUPPORTED_FORMAT,
				  "cuGraphicsResourceGetMappedEglFrame: the "
				  "EGLImage has %u planes; glcuda handles 1 to "
				  "%d",
				  frame.planeCount, CUDA_MAX_PLANES);
	for (unsigned int i = 0; i < frame.planeCount; i++) {
		struct cuda_plane *p = &planes[i];

		memset(p, 0, sizeof(*p));
		if (frame.frameType == CU_EGL_FRAME_TYPE_ARRAY) {
			p->array = frame.frame.pArray[i];
			ret = describe_array(errors, p);
			if (ret < 0)
				return ret;
		} else {
			/* Pitch-linear: planes after the first of a YUV
			 * frame are subsampled as the colour format says;
			 * CUeglFrame gives the first plane's size only. */
			p->pointer =
				(CUdeviceptr)(uintptr_t)frame.frame.pPitch[i];
			p->pitch = frame.pitch;
			p->width = frame.width;
			p->height = frame.height;
			if (i > 0 && frame.planeCount > 1) {
				p->width = (frame.width + 1) / 2;
				p->height = (frame.height + 1) / 2;
			}
			p->format = frame.cuFormat;
			p->channels = i > 0 && frame.planeCount == 2
					      ? 2
					      : frame.numChannels;
		}
	}
	*count = frame.planeCount;
	return 0;
}

int
cuda_plane_objects(struct error_sink *errors, struct cuda_plane *plane,
		   const struct format_info *fmt, bool with_surface,
		   bool with_texture, bool linear)
{
	bool is_float, normalized, srgb;

	if (!plane->array)
		return 0; /* pitch-linear: kernels use the pointer */
	if (fmt) {
		is_float = fmt->is_float;
		normalized = !fmt->is_float &&
			     fmt->format != GLCUDA_FORMAT_RGB10_A2;
		srgb = fmt->is_srgb;
	} else {
		/* A layout glcuda has no name for: floats read as floats,
		 * anything else as the integers it stores. */
		is_float = plane->format == CU_AD_FORMAT_HALF ||
			   plane->format == CU_AD_FORMAT_FLOAT;
		normalized = false;
		srgb = false;
	}
	return cuda_array_objects(errors, plane->array, is_float, normalized,
				  srgb, with_surface, with_texture, linear,
				  &plane->surface, &plane->texture);
}
