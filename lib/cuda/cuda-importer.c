/*
 * The CUDA importer.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "error.h"
#include "format.h"
#include "loader/cuda-loader.h"
#include "cuda/cuda-importer.h"

#include <string.h>
#include <unistd.h>

int
cuda_import_image(struct error_sink *errors, int fd, uint64_t size,
		  bool dedicated, const struct format_info *fmt, uint32_t width,
		  uint32_t height, uint32_t layers, bool with_texture,
		  bool linear, struct cuda_import *out,
		  struct cuda_plane *plane)
{
	CUDA_EXTERNAL_MEMORY_HANDLE_DESC mem_desc;
	CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC array_desc;
	struct cuda_import img;
	CUarray array;
	CUsurfObject surface;
	CUtexObject texture;
	CUresult res;
	int ret;

	memset(&img, 0, sizeof(img));
	memset(&mem_desc, 0, sizeof(mem_desc));
	mem_desc.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
	mem_desc.handle.fd = fd;
	mem_desc.size = size;
	/* Must match how Vulkan allocated (VkMemoryDedicatedRequirements). */
	mem_desc.flags = dedicated ? CUDA_EXTERNAL_MEMORY_DEDICATED : 0;
	res = CU_CALL(cuImportExternalMemory, &img.memory, &mem_desc);
	if (res != CUDA_SUCCESS) {
		close(fd); /* CUDA owns the fd only on success */
		return cuda_call_fail(
			errors, res, "cuImportExternalMemory (OPAQUE_FD)",
			"The memory was exported by a Vulkan device that is "
			"not this CUDA device, or the "
			"driver cannot import it.");
	}

	/* The array must describe the Vulkan image exactly: format, channel
	 * count, size, layers, one level. SURFACE_LDST for kernels that
	 * write; COLOR_ATTACHMENT because the memory is also a render target
	 * (for depth too: CUDA refuses DEPTH_TEXTURE on external memory, and
	 * reads GL's depth exactly as one float channel). LAYERED with the
	 * layer count as the depth for 2D arrays. */
	memset(&array_desc, 0, sizeof(array_desc));
	array_desc.offset = 0;
	array_desc.numLevels = 1;
	array_desc.arrayDesc.Width = width;
	array_desc.arrayDesc.Height = height;
	array_desc.arrayDesc.Depth = layers > 1 ? layers : 0;
	array_desc.arrayDesc.Format = fmt->cu_format;
	array_desc.arrayDesc.NumChannels = fmt->cu_channels;
	array_desc.arrayDesc.Flags = CUDA_ARRAY3D_SURFACE_LDST |
				     CUDA_ARRAY3D_COLOR_ATTACHMENT |
				     (layers > 1 ? CUDA_ARRAY3D_LAYERED : 0);
	res = CU_CALL(cuExternalMemoryGetMappedMipmappedArray, &img.mipmapped,
		      img.memory, &array_desc);
	if (res != CUDA_SUCCESS) {
		ret = cuda_call_fail(errors, res,
				     "cuExternalMemoryGetMappedMipmappedArray",
				     fmt->name);
		goto fail;
	}
	res = CU_CALL(cuMipmappedArrayGetLevel, &array, img.mipmapped, 0);
	if (res != CUDA_SUCCESS) {
		ret = cuda_call_fail(errors, res, "cuMipmappedArrayGetLevel",
				     NULL);
		goto fail;
	}

	ret = cuda_array_objects(errors, array, fmt->is_float,
				 !fmt->is_float &&
					 fmt->format != GLCUDA_FORMAT_RGB10_A2,
				 fmt->is_srgb, true, with_texture, linear,
				 &surface, &texture);
	if (ret < 0)
		goto fail;

	*out = img;
	plane->array = array;
	plane->surface = surface;
	plane->texture = texture;
	return 0;

fail:
	cuda_destroy_import(&img);
	return ret;
}

int
cuda_array_objects(struct error_sink *errors, CUarray array, bool is_float,
		   bool normalized, bool srgb, bool with_surface,
		   bool with_texture, bool linear, CUsurfObject *surface,
		   CUtexObject *texture)
{
	CUDA_RESOURCE_DESC res_desc;
	CUresult res;

	*surface = 0;
	*texture = 0;
	memset(&res_desc, 0, sizeof(res_desc));
	res_desc.resType = CU_RESOURCE_TYPE_ARRAY;
	res_desc.res.array.hArray = array;
	if (with_surface) {
		res = CU_CALL(cuSurfObjectCreate, surface, &res_desc);
		if (res != CUDA_SUCCESS) {
			*surface = 0;
			return cuda_call_fail(errors, res, "cuSurfObjectCreate",
					      NULL);
		}
	}
	if (with_texture) {
		CUDA_TEXTURE_DESC tex_desc;

		memset(&tex_desc, 0, sizeof(tex_desc));
		tex_desc.addressMode[0] = CU_TR_ADDRESS_MODE_CLAMP;
		tex_desc.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
		/* UNORM formats read as normalised floats, like GL samples
		 * them; packed and integer formats read as integers. */
		tex_desc.filterMode = linear && (normalized || is_float)
					      ? CU_TR_FILTER_MODE_LINEAR
					      : CU_TR_FILTER_MODE_POINT;
		tex_desc.flags =
			normalized || is_float ? 0 : CU_TRSF_READ_AS_INTEGER;
		if (srgb)
			tex_desc.flags |= CU_TRSF_SRGB;
		res = CU_CALL(cuTexObjectCreate, texture, &res_desc, &tex_desc,
			      NULL);
		if (res != CUDA_SUCCESS) {
			*texture = 0;
			if (*surface)
				CU_CALL(cuSurfObjectDestroy, *surface);
			*surface = 0;
			return cuda_call_fail(errors, res, "cuTexObjectCreate",
					      NULL);
		}
	}
	return 0;
}

void
cuda_plane_destroy_objects(struct cuda_plane *plane)
{
	if (plane->texture)
		CU_CALL(cuTexObjectDestroy, plane->texture);
	if (plane->surface)
		CU_CALL(cuSurfObjectDestroy, plane->surface);
	plane->texture = 0;
	plane->surface = 0;
}

void
cuda_destroy_import(struct cuda_import *img)
{
	/* The array (the mipmapped array's) before the memory; the plane's
	 * objects on it went first (cuda_plane_destroy_objects). */
	if (img->mipmapped)
		CU_CALL(cuMipmappedArrayDestroy, img->mipmapped);
	if (img->memory)
		CU_CALL(cuDestroyExternalMemory, img->memory);
	memset(img, 0, sizeof(*img));
}

int
cuda_import_semaphore(struct error_sink *errors, int fd, bool timeline,
		      CUexternalSemaphore *out)
{
	CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
	CUresult res;

	memset(&desc, 0, sizeof(desc));
	desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
	if (timeline)
		desc.type =
			CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
	desc.handle.fd = fd;
	res = CU_CALL(cuImportExternalSemaphore, out, &desc);
	if (res != CUDA_SUCCESS) {
		close(fd);
		return cuda_call_fail(
			errors, res,
			timeline ? "cuImportExternalSemaphore "
				   "(TIMELINE_SEMAPHORE_FD)"
				 : "cuImportExternalSemaphore (OPAQUE_FD)",
			timeline ? "Force binary semaphores with "
				   "options.sync_mode = GLCUDA_SYNC_BINARY."
				 : NULL);
	}
	return 0;
}

void
cuda_destroy_semaphore(CUexternalSemaphore *sem)
{
	if (*sem)
		CU_CALL(cuDestroyExternalSemaphore, *sem);
	*sem = NULL;
}
