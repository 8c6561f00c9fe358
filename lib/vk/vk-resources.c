/*
 * The Vulkan exporter (vk-exporter.h): the resources it exports — images
 * with their memory, and semaphores.
 * SPDX-License-Identifier: MIT
 */
#include "vk/vk-private.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Images ------------------------------------------------------------------- */

static int
check_format(struct vk_exporter *vk, const struct format_info *fmt,
	     uint32_t width, uint32_t height, bool record,
	     VkImageUsageFlags *usage_out, bool *dedicated_only)
{
	VkFormat format = (VkFormat)fmt->vk_format;
	VkImageUsageFlags usage = vk_image_usage(vk, vk->physical, format);
	VkImageFormatProperties limits;
	VkExternalMemoryProperties external;
	VkResult res;

#define CHECK_FAIL(code, ...) \
	(record ? vk_fail(vk, (code), __VA_ARGS__) : (code))
	if (width == 0 || height == 0)
		return CHECK_FAIL(-EINVAL, "a %ux%u %s image has no pixels",
				  width, height, fmt->name);

	res = vk_query_image_format(vk, vk->physical, format, usage, &limits,
				    &external);
	if (res == VK_ERROR_FORMAT_NOT_SUPPORTED)
		return CHECK_FAIL(
			GLCUDA_ERROR_UNSUPPORTED_FORMAT,
			"vkGetPhysicalDeviceImageFormatProperties2 says %s "
			"(VkFormat %d) with optimal tiling, usage 0x%x and "
			"OPAQUE_FD export is not supported on %s (%s); use "
			"another format",
			fmt->name, (int)format, (unsigned int)usage,
			vk->info.name, vk_result_name(res));
	if (res != VK_SUCCESS) {
		int code = res == VK_ERROR_DEVICE_LOST
				   ? GLCUDA_ERROR_DEVICE_LOST
				   : GLCUDA_ERROR_VULKAN;
		return CHECK_FAIL(
			code,
			"vkGetPhysicalDeviceImageFormatProperties2 failed for "
			"%s (VkFormat %d): %s; %s",
			fmt->name, (int)format, vk_result_name(res),
			vk_result_hint(res));
	}
	if (!(external.externalMemoryFeatures &
	      VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT))
		return CHECK_FAIL(
			GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE,
			"vkGetPhysicalDeviceImageFormatProperties2: %s "
			"(VkFormat %d) images cannot be exported as OPAQUE_FD "
			"on %s (external memory features 0x%x); use another "
			"format or update the driver",
			fmt->name, (int)format, vk->info.name,
			(unsigned int)external.externalMemoryFeatures);
	if (width > limits.maxExtent.width || height > limits.maxExtent.height)
		return CHECK_FAIL(
			GLCUDA_ERROR_UNSUPPORTED_FORMAT,
			"vkGetPhysicalDeviceImageFormatProperties2: a %ux%u %s "
			"(VkFormat %d) image exceeds the device's limit of "
			"%ux%u; use a smaller image",
			width, height, fmt->name, (int)format,
			limits.maxExtent.width, limits.maxExtent.height);
#undef CHECK_FAIL

	if (usage_out)
		*usage_out = usage;
	if (dedicated_only)
		*dedicated_only = external.externalMemoryFeatures &
				  VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT;
	return 0;
}

int
vk_exporter_check_format(struct vk_exporter *vk, const struct format_info *fmt,
			 uint32_t width, uint32_t height, bool record)
{
	return check_format(vk, fmt, width, height, record, NULL, NULL);
}

/* A memory type allowed by type_bits that has all of flags, or -1. */
int
vk_find_memory_type(const struct vk_exporter *vk, uint32_t type_bits,
		    VkMemoryPropertyFlags flags)
{
	for (uint32_t i = 0; i < vk->memory.memoryTypeCount; i++)
		if ((type_bits & (1u << i)) &&
		    (vk->memory.memoryTypes[i].propertyFlags & flags) == flags)
			return (int)i;
	return -1;
}

int
vk_image_create(struct vk_exporter *vk, const struct format_info *fmt,
		uint32_t width, uint32_t height, uint32_t layers,
		struct vk_image *out)
{
	struct vk_image img = {
		.format = (VkFormat)fmt->vk_format,
		.width = width,
		.height = height,
		.layers = layers,
	};
	VkImageUsageFlags usage;
	bool dedicated_only;
	VkResult res;
	int ret, type;

	ret = check_format(vk, fmt, width, height, true, &usage,
			   &dedicated_only);
	if (ret)
		return ret;
	if (layers == 0 || layers > vk->max_image_layers)
		return vk_fail(vk, -EINVAL,
			       "a %s image of %u layers: %s has 1 to %u "
			       "(maxImageArrayLayers)",
			       fmt->name, layers, vk->info.name,
			       vk->max_image_layers);

	VkExternalMemoryImageCreateInfo external = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
		.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	VkImageCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.pNext = &external,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = img.format,
		.extent = { width, height, 1 },
		.mipLevels = 1,
		.arrayLayers = layers,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	res = VK(vk, CreateImage, vk->device, &info, NULL, &img.image);
	if (res != VK_SUCCESS) {
		char what[128];

		snprintf(what, sizeof(what), "for a %ux%u %s image", width,
			 height, fmt->name);
		return vk_call_fail(vk, res, "vkCreateImage", what);
	}

	VkMemoryDedicatedRequirements dedicated_reqs = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS,
	};
	VkMemoryRequirements2 reqs = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2,
		.pNext = &dedicated_reqs,
	};
	VkImageMemoryRequirementsInfo2 reqs_info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2,
		.image = img.image,
	};
	vk->fn.GetImageMemoryRequirements2(vk->device, &reqs_info, &reqs);

	type = vk_find_memory_type(vk, reqs.memoryRequirements.memoryTypeBits,
				   VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
	if (type < 0) {
		ret = vk_fail(
			vk, GLCUDA_ERROR_VULKAN,
			"no device-local Vulkan memory type fits a %s image "
			"(vkGetImageMemoryRequirements2 memoryTypeBits 0x%x) "
			"on %s; update the GPU driver",
			fmt->name, reqs.memoryRequirements.memoryTypeBits,
			vk->info.name);
		goto fail;
	}

	/* GL (GL_DEDICATED_MEMORY_OBJECT_EXT) and CUDA
	 * (CUDA_EXTERNAL_MEMORY_DEDICATED) must be told the same (§6). */
	img.dedicated = dedicated_reqs.prefersDedicatedAllocation ||
			dedicated_reqs.requiresDedicatedAllocation ||
			dedicated_only;
	img.size = reqs.memoryRequirements.size;

	VkMemoryDedicatedAllocateInfo dedicated = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
		.image = img.image,
	};
	VkExportMemoryAllocateInfo export = {
		.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
		.pNext = img.dedicated ? &dedicated : NULL,
		.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	VkMemoryAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = &export,
		.allocationSize = img.size,
		.memoryTypeIndex = (uint32_t)type,
	};
	res = VK(vk, AllocateMemory, vk->device, &alloc, NULL, &img.memory);
	if (res != VK_SUCCESS) {
		char what[128];

		img.memory = VK_NULL_HANDLE;
		snprintf(what, sizeof(what),
			 "allocating %llu bytes for a %ux%u %s image",
			 (unsigned long long)img.size, width, height,
			 fmt->name);
		ret = vk_call_fail(vk, res, "vkAllocateMemory", what);
		goto fail;
	}

	res = VK(vk, BindImageMemory, vk->device, img.image, img.memory, 0);
	if (res != VK_SUCCESS) {
		ret = vk_call_fail(vk, res, "vkBindImageMemory", NULL);
		goto fail;
	}

	*out = img;
	return 0;

fail:
	vk_image_destroy(vk, &img);
	return ret;
}

int
vk_image_export_fd(struct vk_exporter *vk, const struct vk_image *img, int *fd)
{
	VkMemoryGetFdInfoKHR info = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
		.memory = img->memory,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	int new_fd = -1;
	VkResult res;

	res = VK(vk, GetMemoryFdKHR, vk->device, &info, &new_fd);
	if (res != VK_SUCCESS)
		return vk_call_fail(vk, res, "vkGetMemoryFdKHR",
				    "exporting an image");
	*fd = new_fd;
	return 0;
}

void
vk_image_destroy(struct vk_exporter *vk, struct vk_image *img)
{
	if (!img)
		return;
	/* The image before its memory: it is bound to it. */
	if (img->image) {
		vk->fn.DestroyImage(vk->device, img->image, NULL);
		FAULT_VK_RELEASED("DestroyImage");
	}
	if (img->memory) {
		vk->fn.FreeMemory(vk->device, img->memory, NULL);
		FAULT_VK_RELEASED("FreeMemory");
	}
	memset(img, 0, sizeof(*img));
}

/* Semaphores --------------------------------------------------------------- */

/* What the semaphore checks found (vk-instance.c) when the extension is
 * there but the handle type is not. */
static const char not_exportable[] =
	"vkGetPhysicalDeviceExternalSemaphoreProperties: not exportable";

int
vk_semaphore_create(struct vk_exporter *vk, bool timeline,
		    struct vk_semaphore *out)
{
	VkSemaphore semaphore = VK_NULL_HANDLE;
	VkResult res;

	if (timeline && !vk_exporter_has_timeline(vk))
		return vk_fail(
			vk,
			vk->info.has_timeline_semaphore
				? GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE
				: GLCUDA_ERROR_MISSING_VULKAN_EXTENSION,
			"Vulkan device %s cannot export timeline semaphores as "
			"OPAQUE_FD (%s%s); use binary semaphores or the CPU "
			"fallback, or update the driver",
			vk->info.name,
			vk->info.has_external_semaphore_fd
				? ""
				: VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME
				" missing, ",
			vk->info.has_timeline_semaphore
				? not_exportable
				: "no timelineSemaphore feature");
	if (!timeline && !vk_exporter_has_binary(vk))
		return vk_fail(
			vk,
			vk->info.has_external_semaphore_fd
				? GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE
				: GLCUDA_ERROR_MISSING_VULKAN_EXTENSION,
			"Vulkan device %s cannot export binary semaphores as "
			"OPAQUE_FD (%s); use the CPU fallback, or update the "
			"driver",
			vk->info.name,
			vk->info.has_external_semaphore_fd
				? not_exportable
				: VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME
				" missing");

	VkSemaphoreTypeCreateInfo type = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
		.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
		.initialValue = 0,
	};
	VkExportSemaphoreCreateInfo export = {
		.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
		.pNext = timeline ? &type : NULL,
		.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	VkSemaphoreCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
		.pNext = &export,
	};
	res = VK(vk, CreateSemaphore, vk->device, &info, NULL, &semaphore);
	if (res != VK_SUCCESS)
		return vk_call_fail(vk, res, "vkCreateSemaphore",
				    timeline ? "(exportable timeline)"
					     : "(exportable binary)");
	out->semaphore = semaphore;
	out->timeline = timeline;
	return 0;
}

int
vk_semaphore_export_fd(struct vk_exporter *vk, const struct vk_semaphore *sem,
		       int *fd)
{
	VkSemaphoreGetFdInfoKHR info = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
		.semaphore = sem->semaphore,
		.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	int new_fd = -1;
	VkResult res;

	if (!vk->fn.GetSemaphoreFdKHR)
		return vk_fail(vk, GLCUDA_ERROR_MISSING_VULKAN_EXTENSION,
			       "Vulkan device %s lacks %s; update the driver",
			       vk->info.name,
			       VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
	res = VK(vk, GetSemaphoreFdKHR, vk->device, &info, &new_fd);
	if (res != VK_SUCCESS)
		return vk_call_fail(vk, res, "vkGetSemaphoreFdKHR",
				    sem->timeline
					    ? "exporting a timeline semaphore"
					    : "exporting a binary semaphore");
	*fd = new_fd;
	return 0;
}

void
vk_semaphore_destroy(struct vk_exporter *vk, struct vk_semaphore *sem)
{
	if (!sem)
		return;
	if (sem->semaphore) {
		vk->fn.DestroySemaphore(vk->device, sem->semaphore, NULL);
		FAULT_VK_RELEASED("DestroySemaphore");
	}
	memset(sem, 0, sizeof(*sem));
}

int
vk_semaphore_get_value(struct vk_exporter *vk, const struct vk_semaphore *sem,
		       uint64_t *value)
{
	VkResult res;

	if (!sem->timeline || !vk->fn.GetSemaphoreCounterValue)
		return vk_fail(
			vk, -EINVAL,
			"vk_semaphore_get_value on a binary semaphore: only "
			"timelines have a value");
	res = VK(vk, GetSemaphoreCounterValue, vk->device, sem->semaphore,
		 value);
	if (res != VK_SUCCESS)
		return vk_call_fail(vk, res, "vkGetSemaphoreCounterValue",
				    NULL);
	return 0;
}

