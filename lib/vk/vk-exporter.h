/*
 * The Vulkan exporter: the only API that can export memory a GL texture can
 * use and semaphores both GL and CUDA import (doc/design.md §1). Users never
 * see a Vulkan type; everything here is internal. SPDX-License-Identifier: MIT
 *
 * Every Vulkan call goes through the function table in struct vk_exporter
 * (loaded with vkGetInstanceProcAddr / vkGetDeviceProcAddr) via VK(vk, name):
 * the seam for fault injection (fault.h).
 */
#ifndef GLCUDA_VK_EXPORTER_H
#define GLCUDA_VK_EXPORTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

struct error_sink;
struct format_info;
struct vk_exporter;

/* A physical device as seen by glcuda-info and the matching code. */
struct vk_physical_info {
	char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
	uint32_t api_version;
	uint32_t driver_version;
	uint32_t vendor_id;
	uint8_t device_uuid[VK_UUID_SIZE];
	uint8_t driver_uuid[VK_UUID_SIZE];
	char driver_name[VK_MAX_DRIVER_NAME_SIZE];
	char driver_info[VK_MAX_DRIVER_INFO_SIZE];
	bool has_external_memory_fd;     /* VK_KHR_external_memory_fd */
	bool has_external_semaphore_fd;  /* VK_KHR_external_semaphore_fd */
	bool has_timeline_semaphore;     /* feature timelineSemaphore */
	bool timeline_exportable;        /* OPAQUE_FD export of a timeline */
	bool binary_exportable;          /* OPAQUE_FD export of a binary */
	/* OPAQUE_FD export of an RGBA8 image */
	bool rgba8_exportable;
};

/* Enumerate the Vulkan physical devices (for glcuda-info). Fills up to max
 * entries, returns the number found (may be > max), or a negative glcuda
 * error (GLCUDA_ERROR_NO_VULKAN with a message in err). */
int vk_list_physical_devices(struct vk_physical_info *out, unsigned int max,
			     char *err, size_t errsize);

/*
 * Create an instance and a logical device on the physical device whose
 * deviceUUID equals device_uuid. Errors (recorded on errors, as are those
 * of every later call on the exporter):
 * GLCUDA_ERROR_NO_VULKAN (no loader / no instance / no devices),
 * GLCUDA_ERROR_NO_MATCHING_VULKAN_DEVICE (message lists every device and
 * its UUID next to GL's), GLCUDA_ERROR_DRIVER_MISMATCH (same deviceUUID,
 * different driverUUID), GLCUDA_ERROR_MISSING_VULKAN_EXTENSION (named),
 * GLCUDA_ERROR_VULKAN. validation: enable VK_LAYER_KHRONOS_validation when
 * present. driver_uuid may be NULL: then only the device UUID is compared.
 *
 * Only VK_KHR_external_memory_fd is required. VK_KHR_external_semaphore_fd
 * and timelines are used when present; without them (lavapipe in Mesa 22.3)
 * the exporter still shares images, vk_exporter_has_binary/_has_timeline
 * return false and vk_semaphore_create fails with
 * GLCUDA_ERROR_MISSING_VULKAN_EXTENSION: callers fall back to CPU sync.
 */
int vk_exporter_new(struct error_sink *errors, const uint8_t device_uuid[16],
		    const uint8_t driver_uuid[16], bool validation,
		    struct vk_exporter **out);
void vk_exporter_destroy(struct vk_exporter *vk);

const struct vk_physical_info *vk_exporter_info(const struct vk_exporter *vk);
/* Timeline semaphores enabled and exportable as OPAQUE_FD. */
bool vk_exporter_has_timeline(const struct vk_exporter *vk);
/* Binary semaphores exportable as OPAQUE_FD. */
bool vk_exporter_has_binary(const struct vk_exporter *vk);
/* maxImageDimension2D. */
uint32_t vk_exporter_max_image_size(const struct vk_exporter *vk);
/* maxImageArrayLayers of the physical device. */
uint32_t vk_exporter_max_image_layers(const struct vk_exporter *vk);

/* 0 if images of this format can be created with the usage glcuda needs
 * and exported as OPAQUE_FD (vkGetPhysicalDeviceImageFormatProperties2 with
 * VkPhysicalDeviceExternalImageFormatInfo), else
 * GLCUDA_ERROR_UNSUPPORTED_FORMAT / GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE
 * (recorded when record is true; the message names the format and the call). */
int vk_exporter_check_format(struct vk_exporter *vk,
			     const struct format_info *fmt, uint32_t width,
			     uint32_t height, bool record);

struct vk_image {
	VkImage image;
	VkDeviceMemory memory;
	VkDeviceSize size;      /* allocation size, for the importers */
	/* allocated with VkMemoryDedicatedAllocateInfo */
	bool dedicated;
	VkFormat format;
	uint32_t width, height, layers;
};

/* Create an optimal-tiling 2D image (1 level, `layers` layers: 1 for a 2D
 * image), usage colour attachment (depth attachment for depth formats) |
 * sampled | transfer src/dst (| storage where the format supports it),
 * exportable as OPAQUE_FD; allocate device-local memory for it, dedicated
 * when the driver prefers or requires it (VkMemoryDedicatedRequirements),
 * and bind it. On failure nothing is left. */
int vk_image_create(struct vk_exporter *vk, const struct format_info *fmt,
		    uint32_t width, uint32_t height, uint32_t layers,
		    struct vk_image *out);
/* A new fd for the image's memory (vkGetMemoryFdKHR). One per importer:
 * the caller owns it until an import takes it. */
int vk_image_export_fd(struct vk_exporter *vk, const struct vk_image *img,
		       int *fd);
/* Destroy the image and free its memory. Zeroes *img; safe on a zeroed one. */
void vk_image_destroy(struct vk_exporter *vk, struct vk_image *img);

struct vk_semaphore {
	VkSemaphore semaphore;
	bool timeline;
};

/* An exportable (OPAQUE_FD) semaphore, binary or timeline (initial 0).
 * GLCUDA_ERROR_MISSING_VULKAN_EXTENSION or GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE
 * when that kind cannot be exported (see vk_exporter_has_binary/_timeline). */
int vk_semaphore_create(struct vk_exporter *vk, bool timeline,
			struct vk_semaphore *out);
int vk_semaphore_export_fd(struct vk_exporter *vk,
			   const struct vk_semaphore *sem, int *fd);
void vk_semaphore_destroy(struct vk_exporter *vk, struct vk_semaphore *sem);
/* Current value of a timeline (vkGetSemaphoreCounterValue). */
int vk_semaphore_get_value(struct vk_exporter *vk,
			   const struct vk_semaphore *sem, uint64_t *value);

/* "VK_ERROR_OUT_OF_DEVICE_MEMORY (-2)" */
const char *vk_result_name(VkResult res);

#endif
