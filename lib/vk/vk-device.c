/*
 * The Vulkan exporter (vk-exporter.h): the logical device on the GL
 * context's GPU, and the exporter's life.
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

/* Device ------------------------------------------------------------------- */

static int
no_matching_device(struct vk_exporter *vk, const uint8_t device_uuid[16],
		   const struct vk_physical_info *infos, uint32_t count)
{
	/* Room for the advice after the list in a 1024-byte last error. */
	char msg[540], uuid[UUID_STRING_SIZE];
	size_t len;

	uuid_format(device_uuid, uuid);
	len = (size_t)snprintf(msg, sizeof(msg),
			       "no Vulkan device has the GL context's device "
			       "UUID %s; Vulkan devices:",
			       uuid);
	for (uint32_t i = 0; i < count && len < sizeof(msg); i++) {
		uuid_format(infos[i].device_uuid, uuid);
		len += (size_t)snprintf(msg + len, sizeof(msg) - len,
					" [%u] %s (%s) deviceUUID %s;", i,
					infos[i].name,
					infos[i].driver_name[0]
						? infos[i].driver_name
						: "driver unknown",
					uuid);
	}
	return vk_fail(
		vk, GLCUDA_ERROR_NO_MATCHING_VULKAN_DEVICE,
		"%s GL renders on a GPU that has no Vulkan driver here. On a "
		"PRIME (hybrid) laptop run GL on the NVIDIA GPU "
		"(__NV_PRIME_RENDER_OFFLOAD=1 "
		"__GLX_VENDOR_LIBRARY_NAME=nvidia, or pick the NVIDIA EGL "
		"device); otherwise install that GPU's Vulkan driver and check "
		"vulkaninfo lists it (VK_DRIVER_FILES selects the ICD, e.g. "
		"/usr/share/vulkan/icd.d/nvidia_icd.json)",
		msg);
}

/* One queue for the test copies: any family can copy, but only
 * graphics/compute/transfer ones must say so. */
static int
pick_queue_family(struct vk_exporter *vk)
{
	VkQueueFamilyProperties *families;
	uint32_t nfamilies = 0;
	bool found = false;

	vk->fn.GetPhysicalDeviceQueueFamilyProperties(vk->physical, &nfamilies,
						      NULL);
	families = calloc(nfamilies ? nfamilies : 1, sizeof(*families));
	if (!families)
		return vk_fail(vk, -ENOMEM,
			       "out of memory listing Vulkan queue families");
	vk->fn.GetPhysicalDeviceQueueFamilyProperties(vk->physical, &nfamilies,
						      families);
	for (uint32_t i = 0; i < nfamilies && !found; i++) {
		if (families[i].queueCount &&
		    (families[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT |
					       VK_QUEUE_COMPUTE_BIT |
					       VK_QUEUE_TRANSFER_BIT))) {
			vk->queue_family = i;
			found = true;
		}
	}
	free(families);
	if (!found)
		return vk_fail(vk, GLCUDA_ERROR_VULKAN,
			       "Vulkan device %s has no queue that can copy; "
			       "update the GPU driver", vk->info.name);
	return 0;
}

/* The device extensions glcuda enables, into exts (room for
 * DEVICE_EXTENSIONS_MAX); returns how many. */
#define DEVICE_EXTENSIONS_MAX 8
static uint32_t
device_extensions(const struct vk_exporter *vk,
		  const char *exts[DEVICE_EXTENSIONS_MAX])
{
	uint32_t next = 0;

	exts[next++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
	if (vk->caps.ext_semaphore_fd)
		exts[next++] = VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;
	if (vk->caps.api < VK_API_VERSION_1_1) {
		exts[next++] = VK_KHR_EXTERNAL_MEMORY_EXTENSION_NAME;
		exts[next++] = VK_KHR_DEDICATED_ALLOCATION_EXTENSION_NAME;
		exts[next++] = VK_KHR_GET_MEMORY_REQUIREMENTS_2_EXTENSION_NAME;
		if (vk->caps.ext_semaphore_fd)
			exts[next++] = VK_KHR_EXTERNAL_SEMAPHORE_EXTENSION_NAME;
	}
	if (vk->caps.timeline_feature && vk->caps.api < VK_API_VERSION_1_2)
		exts[next++] = VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME;
	return next;
}

/* The device's entry points, after vkDestroyDevice (which the caller
 * loads first, so that the device can always be destroyed). Where those
 * of the semaphores are missing, the capabilities say so instead of a
 * failure later. */
static int
load_device_functions(struct vk_exporter *vk)
{
#define LOAD(name) LOAD_DEVICE(vk, name);
	VK_DEVICE_FUNCTIONS(LOAD)
#undef LOAD
	if (!vk->fn.GetImageMemoryRequirements2)
		LOAD_DEVICE_KHR(vk, GetImageMemoryRequirements2);
	if (vk->caps.ext_semaphore_fd)
		LOAD_DEVICE(vk, GetSemaphoreFdKHR);
	if (vk->caps.timeline_feature) {
		LOAD_DEVICE(vk, GetSemaphoreCounterValue);
		if (!vk->fn.GetSemaphoreCounterValue)
			LOAD_DEVICE_KHR(vk, GetSemaphoreCounterValue);
	}

#define MISSING(name) !vk->fn.name ||
	if (VK_DEVICE_FUNCTIONS(MISSING) false)
#undef MISSING
		return vk_fail(
			vk, GLCUDA_ERROR_VULKAN,
			"vkGetDeviceProcAddr returned NULL for a Vulkan 1.1 or "
			"external-memory function on %s; update the GPU driver",
			vk->info.name);

	if (!vk->fn.GetSemaphoreFdKHR) {
		vk->info.binary_exportable = false;
		vk->info.timeline_exportable = false;
	}
	if (!vk->fn.GetSemaphoreCounterValue) {
		vk->info.has_timeline_semaphore = false;
		vk->info.timeline_exportable = false;
	}
	return 0;
}

/* The logical device and its queue. On failure vk->device is the device
 * if one was made (vk_exporter_destroy destroys it), else VK_NULL_HANDLE. */
static int
device_create(struct vk_exporter *vk)
{
	const char *exts[DEVICE_EXTENSIONS_MAX];
	VkResult res;
	int ret;

	ret = pick_queue_family(vk);
	if (ret)
		return ret;

	const float priority = 1.0f;
	VkDeviceQueueCreateInfo queue = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = vk->queue_family,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	VkPhysicalDeviceTimelineSemaphoreFeatures timeline = {
		.sType = STYPE_TIMELINE_SEMAPHORE_FEATURES,
		.timelineSemaphore = VK_TRUE,
	};
	VkDeviceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = vk->caps.timeline_feature ? &timeline : NULL,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &queue,
		.enabledExtensionCount = device_extensions(vk, exts),
		.ppEnabledExtensionNames = exts,
	};

	driver_lifecycle_lock();
	res = VK(vk, CreateDevice, vk->physical, &info, NULL, &vk->device);
	driver_lifecycle_unlock();
	if (res != VK_SUCCESS) {
		vk->device = VK_NULL_HANDLE;
		if (res == VK_ERROR_EXTENSION_NOT_PRESENT ||
		    res == VK_ERROR_FEATURE_NOT_PRESENT)
			return vk_fail(
				vk, GLCUDA_ERROR_MISSING_VULKAN_EXTENSION,
				"vkCreateDevice on %s failed: %s although the "
				"device lists the extensions and features "
				"glcuda enables; update the GPU driver",
				vk->info.name, vk_result_name(res));
		return vk_call_fail(vk, res, "vkCreateDevice", vk->info.name);
	}

	LOAD_DEVICE(vk, DestroyDevice);
	if (!vk->fn.DestroyDevice) {
		vk->device = VK_NULL_HANDLE; /* cannot be destroyed: leak it */
		return vk_fail(vk, GLCUDA_ERROR_VULKAN,
			       "vkGetDeviceProcAddr returned no "
			       "vkDestroyDevice; update the GPU driver");
	}
	ret = load_device_functions(vk);
	if (ret)
		return ret;

	vk->fn.GetDeviceQueue(vk->device, vk->queue_family, 0, &vk->queue);
	return 0;
}

/* The physical device whose device UUID is GL's (memcmp: a UUID may hold
 * zero bytes, doc/design.md §1), into vk->physical, info, caps and
 * max_image_size. */
static int
choose_physical(struct vk_exporter *vk, const uint8_t device_uuid[16])
{
	struct vk_physical_info *infos = NULL;
	struct physical_caps *caps = NULL;
	VkPhysicalDeviceProperties *props = NULL;
	VkPhysicalDevice *list = NULL;
	uint32_t count = 0, match = UINT32_MAX;
	int ret;

	ret = vk_enumerate_physical(vk, &list, &count);
	if (ret)
		return ret;
	if (count == 0) {
		ret = vk_fail(
			vk, GLCUDA_ERROR_NO_VULKAN,
			"vkEnumeratePhysicalDevices found no Vulkan device; "
			"install the GPU's Vulkan driver (ICD) and check that "
			"vulkaninfo lists it (VK_DRIVER_FILES selects ICD "
			"files)");
		goto out;
	}

	infos = calloc(count, sizeof(*infos));
	caps = calloc(count, sizeof(*caps));
	props = calloc(count, sizeof(*props));
	if (!infos || !caps || !props) {
		ret = vk_fail(vk, -ENOMEM,
			      "out of memory listing Vulkan devices");
		goto out;
	}
	for (uint32_t i = 0; i < count; i++) {
		ret = vk_query_physical(vk, list[i], &infos[i], &caps[i],
					&props[i]);
		if (ret)
			goto out;
		if (match == UINT32_MAX &&
		    !memcmp(infos[i].device_uuid, device_uuid, VK_UUID_SIZE))
			match = i;
	}
	if (match == UINT32_MAX) {
		ret = no_matching_device(vk, device_uuid, infos, count);
		goto out;
	}

	vk->physical = list[match];
	vk->info = infos[match];
	vk->caps = caps[match];
	vk->max_image_size = props[match].limits.maxImageDimension2D;
	vk->max_image_layers = props[match].limits.maxImageArrayLayers;
out:
	free(infos);
	free(caps);
	free(props);
	free(list);
	return ret;
}

/* GL and Vulkan come from the same driver build (driver_uuid NULL: not
 * checked). */
static int
check_driver_uuid(struct vk_exporter *vk, const uint8_t driver_uuid[16])
{
	char gl_uuid[UUID_STRING_SIZE], vk_uuid[UUID_STRING_SIZE];

	if (!driver_uuid ||
	    !memcmp(vk->info.driver_uuid, driver_uuid, VK_UUID_SIZE))
		return 0;
	uuid_format(driver_uuid, gl_uuid);
	uuid_format(vk->info.driver_uuid, vk_uuid);
	return vk_fail(
		vk, GLCUDA_ERROR_DRIVER_MISMATCH,
		"Vulkan device %s is GL's GPU but its driver UUID %s differs "
		"from GL's driver UUID %s: GL and Vulkan come from different "
		"driver builds, and memory and semaphores cannot be shared "
		"between them. Install one driver version for both (a "
		"half-finished driver update, or a container whose driver "
		"libraries differ from the host's, does this)",
		vk->info.name, vk_uuid, gl_uuid);
}

/* The extensions images need; on Vulkan 1.0 without
 * VK_KHR_external_semaphore, semaphores are reported as not exportable. */
static int
check_extensions(struct vk_exporter *vk)
{
	if (!vk->caps.ext_memory_fd)
		return vk_fail(vk, GLCUDA_ERROR_MISSING_VULKAN_EXTENSION,
			       "Vulkan device %s lacks %s, needed to share "
			       "images with GL and CUDA; update the GPU driver",
			       vk->info.name,
			       VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
	if (vk->caps.api >= VK_API_VERSION_1_1)
		return 0;

	const struct { bool has; const char *name;
	} need[] = {
		{ vk->caps.ext_external_memory,
		  VK_KHR_EXTERNAL_MEMORY_EXTENSION_NAME },
		{ vk->caps.ext_dedicated,
		  VK_KHR_DEDICATED_ALLOCATION_EXTENSION_NAME },
		{ vk->caps.ext_memreq2,
		  VK_KHR_GET_MEMORY_REQUIREMENTS_2_EXTENSION_NAME },
	};

	for (size_t i = 0; i < ARRAY_LENGTH(need); i++) {
		if (!need[i].has)
			return vk_fail(vk,
				       GLCUDA_ERROR_MISSING_VULKAN_EXTENSION,
				       "Vulkan device %s (Vulkan 1.0) lacks "
				       "%s; update the GPU driver",
				       vk->info.name, need[i].name);
	}
	if (!vk->caps.ext_external_semaphore) {
		vk->caps.ext_semaphore_fd = false;
		vk->info.binary_exportable = false;
		vk->info.timeline_exportable = false;
	}
	return 0;
}

int
vk_exporter_new(struct error_sink *errors, const uint8_t device_uuid[16],
		const uint8_t driver_uuid[16], bool validation,
		struct vk_exporter **out)
{
	struct vk_exporter *vk;
	int ret;

	vk = calloc(1, sizeof(*vk));
	if (!vk)
		return error_fail(errors, -ENOMEM,
				  "out of memory creating the Vulkan exporter");
	vk->errors = errors;

	ret = vk_instance_create(vk, validation);
	if (ret)
		goto fail;
	ret = choose_physical(vk, device_uuid);
	if (ret)
		goto fail;
	ret = check_driver_uuid(vk, driver_uuid);
	if (ret)
		goto fail;
	ret = check_extensions(vk);
	if (ret)
		goto fail;
	vk->fn.GetPhysicalDeviceMemoryProperties(vk->physical, &vk->memory);
	ret = device_create(vk);
	if (ret)
		goto fail;
	*out = vk;
	return 0;

fail:
	vk_exporter_destroy(vk);
	return ret;
}

void
vk_exporter_destroy(struct vk_exporter *vk)
{
	if (!vk)
		return;
	if (vk->device) {
		driver_lifecycle_lock();
		vk->fn.DestroyDevice(vk->device, NULL);
		FAULT_VK_RELEASED("DestroyDevice");
		driver_lifecycle_unlock();
	}
	vk_instance_release(vk);
	free(vk);
}

const struct vk_physical_info *
vk_exporter_info(const struct vk_exporter *vk)
{
	return &vk->info;
}

bool
vk_exporter_has_timeline(const struct vk_exporter *vk)
{
	return vk->info.has_timeline_semaphore && vk->info.timeline_exportable;
}

bool
vk_exporter_has_binary(const struct vk_exporter *vk)
{
	return vk->info.binary_exportable;
}

uint32_t
vk_exporter_max_image_size(const struct vk_exporter *vk)
{
	return vk->max_image_size;
}

uint32_t
vk_exporter_max_image_layers(const struct vk_exporter *vk)
{
	return vk->max_image_layers;
}
