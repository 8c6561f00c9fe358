/*
 * Inside the Vulkan exporter (the files of lib/vk, and the tests' image
 * copies): the function table, the exporter's state and the helpers its files
 * share. Everyone else uses vk-exporter.h. SPDX-License-Identifier: MIT
 *
 * Only vkGetInstanceProcAddr is linked; every other entry point comes from
 * the loader at run time into struct vk_funcs, and every call that returns a
 * VkResult goes through VK() so that the tests can make any one of them fail
 * (fault_inject(FAULT_VULKAN, ...)) and check that each error path unwinds.
 */
#ifndef GLCUDA_VK_PRIVATE_H
#define GLCUDA_VK_PRIVATE_H

#include "config.h"

#include "array-length.h"
#include "error.h"
#include "driver-lock.h"
#include "format.h"
#include "uuid.h"
#include "fault.h"
#include "vk/vk-exporter.h"

/* The instance API version glcuda asks for at most, and needs at least:
 * 1.1 makes external memory/semaphore capabilities, device IDs,
 * get_memory_requirements2 and dedicated allocation core. */
#define VK_EXPORTER_MAX_API VK_API_VERSION_1_3
#define VK_EXPORTER_MIN_API VK_API_VERSION_1_1

/* The entry points glcuda calls, each named once: the table's members, the
 * code that loads them and the check that they resolved all come from
 * these lists. */
/* Through vkGetInstanceProcAddr(NULL): before there is an instance. */
#define VK_GLOBAL_FUNCTIONS(X) \
	X(EnumerateInstanceVersion) \
	X(EnumerateInstanceLayerProperties) \
	X(CreateInstance)
/* Of the instance: all needed (Vulkan 1.1 core). */
#define VK_INSTANCE_FUNCTIONS(X) \
	X(DestroyInstance) \
	X(EnumeratePhysicalDevices) \
	X(GetPhysicalDeviceProperties2) \
	X(GetPhysicalDeviceFeatures2) \
	X(GetPhysicalDeviceQueueFamilyProperties) \
	X(GetPhysicalDeviceMemoryProperties) \
	X(GetPhysicalDeviceFormatProperties) \
	X(GetPhysicalDeviceImageFormatProperties2) \
	X(GetPhysicalDeviceExternalSemaphoreProperties) \
	X(EnumerateDeviceExtensionProperties) \
	X(CreateDevice) \
	X(GetDeviceProcAddr)
/* Of the device: all needed. The buffer, command and fence functions serve
 * the tests' image copies (tests/vk-copy.c), which use this table. */
#define VK_DEVICE_FUNCTIONS(X) \
	X(GetDeviceQueue) \
	X(CreateImage) \
	X(DestroyImage) \
	X(GetImageMemoryRequirements2) \
	X(AllocateMemory) \
	X(FreeMemory) \
	X(BindImageMemory) \
	X(GetMemoryFdKHR) \
	X(CreateSemaphore) \
	X(DestroySemaphore) \
	X(CreateBuffer) \
	X(DestroyBuffer) \
	X(GetBufferMemoryRequirements) \
	X(BindBufferMemory) \
	X(MapMemory) \
	X(UnmapMemory) \
	X(FlushMappedMemoryRanges) \
	X(InvalidateMappedMemoryRanges) \
	X(CreateCommandPool) \
	X(DestroyCommandPool) \
	X(AllocateCommandBuffers) \
	X(BeginCommandBuffer) \
	X(EndCommandBuffer) \
	X(CmdPipelineBarrier) \
	X(CmdCopyImageToBuffer) \
	X(CmdCopyBufferToImage) \
	X(CreateFence) \
	X(DestroyFence) \
	X(QueueSubmit) \
	X(QueueWaitIdle) \
	X(WaitForFences)
/* Of the device, loaded one by one: vkDestroyDevice first (without it the
 * device could not even be destroyed), and the optional ones. */
#define VK_DEVICE_OTHER_FUNCTIONS(X) \
	X(DestroyDevice) \
	X(GetSemaphoreFdKHR) \
	X(GetSemaphoreCounterValue)

/* The sTypes whose names do not fit in an initialiser's line. */
#define STYPE_TIMELINE_SEMAPHORE_FEATURES \
	VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES
#define STYPE_EXTERNAL_IMAGE_FORMAT_INFO \
	VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO
#define STYPE_EXTERNAL_SEMAPHORE_INFO \
	VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO

struct vk_funcs {
#define VK_MEMBER(name) PFN_vk##name name;
	VK_GLOBAL_FUNCTIONS(VK_MEMBER)
	VK_INSTANCE_FUNCTIONS(VK_MEMBER)
	VK_DEVICE_FUNCTIONS(VK_MEMBER)
	VK_DEVICE_OTHER_FUNCTIONS(VK_MEMBER)
#undef VK_MEMBER
};

/* What glcuda needs to know about a physical device beyond
 * struct vk_physical_info: which optional extensions it has, so that the
 * device is created with exactly those. */
struct physical_caps {
	uint32_t api;   /* min(device apiVersion, instance API) */
	bool ext_memory_fd, ext_semaphore_fd;
	bool ext_external_memory, ext_external_semaphore;
	bool ext_dedicated, ext_memreq2;
	bool ext_timeline, ext_driver_properties;
	bool timeline_feature;
};

struct vk_exporter {
	/* Every failure is reported here: the device's sink, or a buffer
	 * sink for vk_list_physical_devices, which has no device and whose
	 * caller prints the message itself. */
	struct error_sink *errors;

	struct vk_funcs fn;
	uint32_t instance_api;
	VkInstance instance;
	VkPhysicalDevice physical;
	VkDevice device;
	VkQueue queue;
	uint32_t queue_family;

	struct physical_caps caps;
	struct vk_physical_info info;
	VkPhysicalDeviceMemoryProperties memory;
	uint32_t max_image_size;
	uint32_t max_image_layers;
};

/* Call a VkResult-returning entry point through the table; in the tests'
 * build, the seam of fault injection (fault.h), which also counts the
 * objects a create or allocate made. Void entry points (destroy/free/get)
 * are called directly as vk->fn.Name(...): they cannot fail, and an error
 * path must never be skipped by a fake failure. A release is followed by
 * FAULT_VK_RELEASED("DestroyImage") (nothing in the installed library), so
 * that the tests' count of live objects sees it. */
#define VK(vk, name, ...) \
	((VkResult)FAULT_VK_CREATED(#name, FAULT_HIT(FAULT_VULKAN, #name) \
					   ? (VkResult)FAULT_RESULT() \
					   : (vk)->fn.name(__VA_ARGS__)))

#define LOAD_GLOBAL(vk, name) \
	((vk)->fn.name = (PFN_vk##name)vkGetInstanceProcAddr(NULL, "vk" #name))
#define LOAD_INSTANCE(vk, name)                                              \
	((vk)->fn.name = (PFN_vk##name)vkGetInstanceProcAddr((vk)->instance, \
							     "vk" #name))
#define LOAD_DEVICE(vk, name)                                           \
	((vk)->fn.name =                                                \
		 (PFN_vk##name)(vk)->fn.GetDeviceProcAddr((vk)->device, \
							  "vk" #name))
/* The KHR name of a device function that a later Vulkan made core. */
#define LOAD_DEVICE_KHR(vk, name)                                       \
	((vk)->fn.name =                                                \
		 (PFN_vk##name)(vk)->fn.GetDeviceProcAddr((vk)->device, \
							  "vk" #name "KHR"))

/* vk-instance.c: errors ---------------------------------------------------- */

/* Report a failure on the exporter's sink. */
int vk_fail(struct vk_exporter *vk, int code, const char *fmt, ...)
	GLCUDA_PRINTF(3, 4);
/* Report a failed Vulkan call (what: the object, or NULL); a lost device
 * is GLCUDA_ERROR_DEVICE_LOST. */
int vk_call_fail(struct vk_exporter *vk, VkResult res, const char *call,
		 const char *what);
/* What to do about a failed call, by result. */
const char *vk_result_hint(VkResult res);

/* vk-instance.c: the instance and physical devices ------------------------- */

/* The process's instance (shared by every exporter of the process), or a
 * new one with validation; loads the instance functions. */
int vk_instance_create(struct vk_exporter *vk, bool validation);
void vk_instance_release(struct vk_exporter *vk);
int vk_enumerate_physical(struct vk_exporter *vk, VkPhysicalDevice **out,
			  uint32_t *count);
/* What glcuda needs to know of one physical device. */
int vk_query_physical(struct vk_exporter *vk, VkPhysicalDevice pd,
		      struct vk_physical_info *info, struct physical_caps *caps,
		      VkPhysicalDeviceProperties *props_out);
/* The usage glcuda creates images of this format with. */
VkImageUsageFlags vk_image_usage(struct vk_exporter *vk, VkPhysicalDevice pd,
				 VkFormat format);
/* vkGetPhysicalDeviceImageFormatProperties2 for an exportable
 * (OPAQUE_FD) optimal-tiling 2D image. */
VkResult vk_query_image_format(struct vk_exporter *vk, VkPhysicalDevice pd,
			       VkFormat format, VkImageUsageFlags usage,
			       VkImageFormatProperties *limits,
			       VkExternalMemoryProperties *external);

/* vk-resources.c
 * ------------------------------------------------------------ */

/* A memory type among type_bits with all of flags, or -1. */
int vk_find_memory_type(const struct vk_exporter *vk, uint32_t type_bits,
			VkMemoryPropertyFlags flags);

#endif
