/*
 * The Vulkan exporter: allocates every image and semaphore that GL and CUDA
 * share, on the physical device whose UUID is the GL context's, and exports
 * them as OPAQUE_FD (DESIGN.md §1, §3).
 * SPDX-License-Identifier: MIT
 *
 * Only vkGetInstanceProcAddr is linked; every other entry point comes from
 * the loader at run time into struct vk_funcs, and every call that returns a
 * VkResult goes through VK() so that the tests can make any one of them fail
 * (fault_inject(FAULT_VULKAN, ...)) and check that each error path unwinds.
 */
#include "private.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vk/vk-exporter.h"
#include "fault.h"

/* The instance API version glcuda asks for at most, and needs at least:
 * 1.1 makes external memory/semaphore capabilities, device IDs,
 * get_memory_requirements2 and dedicated allocation core. */
#define VK_EXPORTER_MAX_API VK_API_VERSION_1_3
#define VK_EXPORTER_MIN_API VK_API_VERSION_1_1

/* vk_image_read/write wait at most this long for the copy. */
#define VK_EXPORTER_COPY_TIMEOUT_NS (10ull * 1000 * 1000 * 1000)

struct vk_funcs {
	/* global */
	PFN_vkEnumerateInstanceVersion EnumerateInstanceVersion;
	PFN_vkEnumerateInstanceLayerProperties EnumerateInstanceLayerProperties;
	PFN_vkCreateInstance CreateInstance;
	/* instance */
	PFN_vkDestroyInstance DestroyInstance;
	PFN_vkEnumeratePhysicalDevices EnumeratePhysicalDevices;
	PFN_vkGetPhysicalDeviceProperties2 GetPhysicalDeviceProperties2;
	PFN_vkGetPhysicalDeviceFeatures2 GetPhysicalDeviceFeatures2;
	PFN_vkGetPhysicalDeviceQueueFamilyProperties GetPhysicalDeviceQueueFamilyProperties;
	PFN_vkGetPhysicalDeviceMemoryProperties GetPhysicalDeviceMemoryProperties;
	PFN_vkGetPhysicalDeviceFormatProperties GetPhysicalDeviceFormatProperties;
	PFN_vkGetPhysicalDeviceImageFormatProperties2 GetPhysicalDeviceImageFormatProperties2;
	PFN_vkGetPhysicalDeviceExternalSemaphoreProperties GetPhysicalDeviceExternalSemaphoreProperties;
	PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties;
	PFN_vkCreateDevice CreateDevice;
	PFN_vkGetDeviceProcAddr GetDeviceProcAddr;
	/* device */
	PFN_vkDestroyDevice DestroyDevice;
	PFN_vkGetDeviceQueue GetDeviceQueue;
	PFN_vkCreateImage CreateImage;
	PFN_vkDestroyImage DestroyImage;
	PFN_vkGetImageMemoryRequirements2 GetImageMemoryRequirements2;
	PFN_vkAllocateMemory AllocateMemory;
	PFN_vkFreeMemory FreeMemory;
	PFN_vkBindImageMemory BindImageMemory;
	PFN_vkGetMemoryFdKHR GetMemoryFdKHR;
	PFN_vkCreateSemaphore CreateSemaphore;
	PFN_vkDestroySemaphore DestroySemaphore;
	PFN_vkGetSemaphoreFdKHR GetSemaphoreFdKHR;               /* optional */
	PFN_vkGetSemaphoreCounterValue GetSemaphoreCounterValue; /* optional */
	PFN_vkCreateBuffer CreateBuffer;
	PFN_vkDestroyBuffer DestroyBuffer;
	PFN_vkGetBufferMemoryRequirements GetBufferMemoryRequirements;
	PFN_vkBindBufferMemory BindBufferMemory;
	PFN_vkMapMemory MapMemory;
	PFN_vkUnmapMemory UnmapMemory;
	PFN_vkFlushMappedMemoryRanges FlushMappedMemoryRanges;
	PFN_vkInvalidateMappedMemoryRanges InvalidateMappedMemoryRanges;
	PFN_vkCreateCommandPool CreateCommandPool;
	PFN_vkDestroyCommandPool DestroyCommandPool;
	PFN_vkAllocateCommandBuffers AllocateCommandBuffers;
	PFN_vkBeginCommandBuffer BeginCommandBuffer;
	PFN_vkEndCommandBuffer EndCommandBuffer;
	PFN_vkCmdPipelineBarrier CmdPipelineBarrier;
	PFN_vkCmdCopyImageToBuffer CmdCopyImageToBuffer;
	PFN_vkCmdCopyBufferToImage CmdCopyBufferToImage;
	PFN_vkCreateFence CreateFence;
	PFN_vkDestroyFence DestroyFence;
	PFN_vkQueueSubmit QueueSubmit;
	PFN_vkQueueWaitIdle QueueWaitIdle;
	PFN_vkWaitForFences WaitForFences;
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
};

/* Call a VkResult-returning entry point through the table; in the tests'
 * build, the seam of fault injection (fault.h). Void entry points
 * (destroy/free/get) are called directly as vk->fn.Name(...): they cannot
 * fail, and an error path must never be skipped by a fake failure. */
#define VK(vk, name, ...) \
	(FAULT_HIT(FAULT_VULKAN, #name) ? (VkResult)fault_result() : (vk)->fn.name(__VA_ARGS__))

/* Errors ------------------------------------------------------------------- */

const char *
vk_result_name(VkResult res)
{
	/* A few buffers so that two names fit in one message. */
	static __thread char bufs[4][64];
	static __thread unsigned int next;
	char *buf = bufs[next++ % ARRAY_LENGTH(bufs)];
	const char *name;

	switch (res) {
#define R(x) case x: name = #x; break
	R(VK_SUCCESS);
	R(VK_NOT_READY);
	R(VK_TIMEOUT);
	R(VK_EVENT_SET);
	R(VK_EVENT_RESET);
	R(VK_INCOMPLETE);
	R(VK_ERROR_OUT_OF_HOST_MEMORY);
	R(VK_ERROR_OUT_OF_DEVICE_MEMORY);
	R(VK_ERROR_INITIALIZATION_FAILED);
	R(VK_ERROR_DEVICE_LOST);
	R(VK_ERROR_MEMORY_MAP_FAILED);
	R(VK_ERROR_LAYER_NOT_PRESENT);
	R(VK_ERROR_EXTENSION_NOT_PRESENT);
	R(VK_ERROR_FEATURE_NOT_PRESENT);
	R(VK_ERROR_INCOMPATIBLE_DRIVER);
	R(VK_ERROR_TOO_MANY_OBJECTS);
	R(VK_ERROR_FORMAT_NOT_SUPPORTED);
	R(VK_ERROR_FRAGMENTED_POOL);
	R(VK_ERROR_UNKNOWN);
	R(VK_ERROR_OUT_OF_POOL_MEMORY);
	R(VK_ERROR_INVALID_EXTERNAL_HANDLE);
	R(VK_ERROR_FRAGMENTATION);
	R(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS);
	R(VK_PIPELINE_COMPILE_REQUIRED);
	R(VK_ERROR_SURFACE_LOST_KHR);
	R(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR);
	R(VK_SUBOPTIMAL_KHR);
	R(VK_ERROR_OUT_OF_DATE_KHR);
	R(VK_ERROR_VALIDATION_FAILED_EXT);
	R(VK_ERROR_NOT_PERMITTED_KHR);
#undef R
	default: name = "VkResult"; break;
	}
	snprintf(buf, sizeof(bufs[0]), "%s (%d)", name, (int)res);
	return buf;
}

static int
vk_fail(struct vk_exporter *vk, int code, const char *fmt, ...)
	GLCUDA_PRINTF(3, 4);

static int
vk_fail(struct vk_exporter *vk, int code, const char *fmt, ...)
{
	char msg[1024];
	va_list args;

	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);
	return error_fail(vk->errors, code, "%s", msg);
}

/* What to do about a failed call, by result. */
static const char *
result_hint(VkResult res)
{
	switch (res) {
	case VK_ERROR_OUT_OF_HOST_MEMORY:
		return "the process ran out of memory: free memory or raise its limits";
	case VK_ERROR_OUT_OF_DEVICE_MEMORY:
		return "the GPU ran out of memory: use fewer or smaller images";
	case VK_ERROR_TOO_MANY_OBJECTS:
		return "the process may be out of file descriptors: close unused "
		       "ones or raise the limit (ulimit -n)";
	case VK_ERROR_DEVICE_LOST:
		return "the GPU was reset or hung: destroy and recreate the glcuda device";
	case VK_ERROR_INITIALIZATION_FAILED:
	case VK_ERROR_INCOMPATIBLE_DRIVER:
		return "check that a Vulkan driver (ICD) for this GPU is installed "
		       "and found (vulkaninfo; VK_DRIVER_FILES)";
	default:
		return "update the GPU driver, or report a bug with this message";
	}
}

/* Record a failed Vulkan call: names the call and the result, says what to
 * do. A lost device is its own error: every later call on it fails too. */
static int
vk_call_fail(struct vk_exporter *vk, VkResult res, const char *call,
	     const char *what)
{
	int code = res == VK_ERROR_DEVICE_LOST ? GLCUDA_ERROR_DEVICE_LOST
					       : GLCUDA_ERROR_VULKAN;

	return vk_fail(vk, code, "%s failed%s%s: %s; %s", call,
		       what ? " " : "", what ? what : "",
		       vk_result_name(res), result_hint(res));
}

/* Instance ----------------------------------------------------------------- */

#define LOAD_GLOBAL(vk, name) \
	((vk)->fn.name = (PFN_vk##name)vkGetInstanceProcAddr(NULL, "vk" #name))
#define LOAD_INSTANCE(vk, name) \
	((vk)->fn.name = (PFN_vk##name)vkGetInstanceProcAddr((vk)->instance, "vk" #name))
#define LOAD_DEVICE(vk, name) \
	((vk)->fn.name = (PFN_vk##name)(vk)->fn.GetDeviceProcAddr((vk)->device, "vk" #name))

static bool
have_layer(struct vk_exporter *vk, const char *name)
{
	VkLayerProperties *layers = NULL;
	uint32_t count = 0;
	bool found = false;

	if (!vk->fn.EnumerateInstanceLayerProperties ||
	    VK(vk, EnumerateInstanceLayerProperties, &count, NULL) != VK_SUCCESS ||
	    count == 0)
		return false;
	layers = calloc(count, sizeof(*layers));
	if (!layers)
		return false;
	/* Best effort: without the list, validation is simply not enabled. */
	if (VK(vk, EnumerateInstanceLayerProperties, &count, layers) >= 0) {
		for (uint32_t i = 0; i < count; i++)
			if (!strcmp(layers[i].layerName, name))
				found = true;
	}
	free(layers);
	return found;
}

/* Instance-level entry points of vk->instance into vk->fn. */
static int
instance_load_functions(struct vk_exporter *vk)
{
	LOAD_INSTANCE(vk, DestroyInstance);
	LOAD_INSTANCE(vk, EnumeratePhysicalDevices);
	LOAD_INSTANCE(vk, GetPhysicalDeviceProperties2);
	LOAD_INSTANCE(vk, GetPhysicalDeviceFeatures2);
	LOAD_INSTANCE(vk, GetPhysicalDeviceQueueFamilyProperties);
	LOAD_INSTANCE(vk, GetPhysicalDeviceMemoryProperties);
	LOAD_INSTANCE(vk, GetPhysicalDeviceFormatProperties);
	LOAD_INSTANCE(vk, GetPhysicalDeviceImageFormatProperties2);
	LOAD_INSTANCE(vk, GetPhysicalDeviceExternalSemaphoreProperties);
	LOAD_INSTANCE(vk, EnumerateDeviceExtensionProperties);
	LOAD_INSTANCE(vk, CreateDevice);
	LOAD_INSTANCE(vk, GetDeviceProcAddr);

	if (!vk->fn.DestroyInstance) {
		/* Nothing can destroy the instance: leak it rather than crash. */
		vk->instance = VK_NULL_HANDLE;
		return vk_fail(vk, GLCUDA_ERROR_NO_VULKAN,
			       "the Vulkan loader returned no vkDestroyInstance; "
			       "reinstall the Vulkan loader");
	}
	if (!vk->fn.EnumeratePhysicalDevices || !vk->fn.GetPhysicalDeviceProperties2 ||
	    !vk->fn.GetPhysicalDeviceFeatures2 ||
	    !vk->fn.GetPhysicalDeviceQueueFamilyProperties ||
	    !vk->fn.GetPhysicalDeviceMemoryProperties ||
	    !vk->fn.GetPhysicalDeviceFormatProperties ||
	    !vk->fn.GetPhysicalDeviceImageFormatProperties2 ||
	    !vk->fn.GetPhysicalDeviceExternalSemaphoreProperties ||
	    !vk->fn.EnumerateDeviceExtensionProperties || !vk->fn.CreateDevice ||
	    !vk->fn.GetDeviceProcAddr)
		return vk_fail(vk, GLCUDA_ERROR_NO_VULKAN,
			       "the Vulkan loader lacks Vulkan 1.1 instance functions; "
			       "update the Vulkan loader (libvulkan.so.1)");
	return 0;
}

static int
instance_create_new(struct vk_exporter *vk, bool validation)
{
	static const char validation_layer[] = "VK_LAYER_KHRONOS_validation";
	const char *layers[1];
	uint32_t loader_api = VK_API_VERSION_1_0;
	VkResult res;

	LOAD_GLOBAL(vk, EnumerateInstanceVersion);
	LOAD_GLOBAL(vk, EnumerateInstanceLayerProperties);
	LOAD_GLOBAL(vk, CreateInstance);
	if (!vk->fn.CreateInstance)
		return vk_fail(vk, GLCUDA_ERROR_NO_VULKAN,
			       "the Vulkan loader returned no vkCreateInstance; "
			       "reinstall the Vulkan loader (libvulkan.so.1)");

	/* No vkEnumerateInstanceVersion means a 1.0 loader. */
	if (vk->fn.EnumerateInstanceVersion) {
		res = VK(vk, EnumerateInstanceVersion, &loader_api);
		if (res != VK_SUCCESS)
			return vk_call_fail(vk, res, "vkEnumerateInstanceVersion", NULL);
	}
	if (VK_API_VERSION_MAJOR(loader_api) == 1 &&
	    VK_API_VERSION_MINOR(loader_api) < 1)
		return vk_fail(vk, GLCUDA_ERROR_NO_VULKAN,
			       "the Vulkan loader supports Vulkan %u.%u, glcuda needs 1.1; "
			       "update the Vulkan loader (libvulkan.so.1)",
			       VK_API_VERSION_MAJOR(loader_api),
			       VK_API_VERSION_MINOR(loader_api));
	vk->instance_api = VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(loader_api),
					       VK_API_VERSION_MINOR(loader_api), 0);
	if (vk->instance_api > VK_EXPORTER_MAX_API)
		vk->instance_api = VK_EXPORTER_MAX_API;

	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "glcuda",
		.pEngineName = "glcuda",
		.engineVersion = VK_MAKE_API_VERSION(0, GLCUDA_VERSION_MAJOR,
						     GLCUDA_VERSION_MINOR,
						     GLCUDA_VERSION_MICRO),
		.apiVersion = vk->instance_api,
	};
	VkInstanceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
	};
	if (validation && have_layer(vk, validation_layer)) {
		layers[0] = validation_layer;
		info.enabledLayerCount = 1;
		info.ppEnabledLayerNames = layers;
	}

	res = VK(vk, CreateInstance, &info, NULL, &vk->instance);
	if (res == VK_ERROR_INITIALIZATION_FAILED || res == VK_ERROR_INCOMPATIBLE_DRIVER)
		return vk_fail(vk, GLCUDA_ERROR_NO_VULKAN,
			       "vkCreateInstance (Vulkan %u.%u) failed: %s; no usable "
			       "Vulkan driver: install the GPU's Vulkan driver (ICD) "
			       "and check that vulkaninfo lists the GPU (VK_DRIVER_FILES "
			       "selects ICD files)",
			       VK_API_VERSION_MAJOR(vk->instance_api),
			       VK_API_VERSION_MINOR(vk->instance_api),
			       vk_result_name(res));
	if (res != VK_SUCCESS) {
		vk->instance = VK_NULL_HANDLE;
		return vk_call_fail(vk, res, "vkCreateInstance", NULL);
	}

	return instance_load_functions(vk);
}

/*
 * One Vulkan instance per process, shared by every exporter and never
 * destroyed. The loader dlclose()s an ICD when the last instance goes away,
 * and NVIDIA's ICD is its GL driver library: unloading it released the
 * caller's current EGL context (seen with driver 580: eglGetCurrentContext()
 * returned EGL_NO_CONTEXT after glcuda_device_destroy), and after a few
 * dozen load/unload cycles vkCreateInstance failed with
 * VK_ERROR_INCOMPATIBLE_DRIVER. A second, concurrent instance failed the
 * same way in a process without a GL context. Each exporter still has its
 * own VkDevice. The first caller's validation choice holds for the process.
 */
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static VkInstance shared_instance;
static uint32_t shared_api;
/* Driver state does not survive fork(): a child never uses its parent's
 * instance (seen: vkCreateDevice failed with VK_ERROR_INITIALIZATION_FAILED
 * on an instance inherited across fork). */
static pid_t shared_pid;

static int
instance_create(struct vk_exporter *vk, bool validation)
{
	int ret;

	pthread_mutex_lock(&shared_lock);
	if (shared_instance && shared_pid != getpid())
		shared_instance = VK_NULL_HANDLE; /* the parent's; leave it be */
	if (shared_instance) {
		LOAD_GLOBAL(vk, CreateInstance);
		vk->instance = shared_instance;
		vk->instance_api = shared_api;
		ret = instance_load_functions(vk);
	} else {
		ret = instance_create_new(vk, validation);
		if (ret == 0) {
			shared_instance = vk->instance;
			shared_api = vk->instance_api;
			shared_pid = getpid();
		}
	}
	pthread_mutex_unlock(&shared_lock);
	return ret;
}

static void
instance_release(struct vk_exporter *vk)
{
	bool shared;

	/* The shared instance stays; one that never became shared (its
	 * set-up failed half-way) is destroyed. */
	pthread_mutex_lock(&shared_lock);
	shared = vk->instance == shared_instance;
	pthread_mutex_unlock(&shared_lock);
	if (vk->instance && !shared && vk->fn.DestroyInstance)
		vk->fn.DestroyInstance(vk->instance, NULL);
	vk->instance = VK_NULL_HANDLE;
}

/* The physical devices; *out is malloc'ed, *count may be 0. */
static int
enumerate_physical(struct vk_exporter *vk, VkPhysicalDevice **out, uint32_t *count)
{
	VkPhysicalDevice *list = NULL;
	VkResult res;

	*out = NULL;
	*count = 0;
	for (;;) {
		uint32_t n = 0;

		res = VK(vk, EnumeratePhysicalDevices, vk->instance, &n, NULL);
		if (res != VK_SUCCESS)
			break;
		if (n == 0)
			return 0;
		list = calloc(n, sizeof(*list));
		if (!list)
			return vk_fail(vk, -ENOMEM, "out of memory listing Vulkan devices");
		res = VK(vk, EnumeratePhysicalDevices, vk->instance, &n, list);
		if (res == VK_SUCCESS) {
			*out = list;
			*count = n;
			return 0;
		}
		free(list);
		list = NULL;
		/* A device appeared between the two calls: ask again. */
		if (res != VK_INCOMPLETE)
			break;
	}
	if (res == VK_ERROR_INITIALIZATION_FAILED)
		return vk_fail(vk, GLCUDA_ERROR_NO_VULKAN,
			       "vkEnumeratePhysicalDevices failed: %s; %s",
			       vk_result_name(res), result_hint(res));
	return vk_call_fail(vk, res, "vkEnumeratePhysicalDevices", NULL);
}

static int
query_extensions(struct vk_exporter *vk, VkPhysicalDevice pd,
		 struct physical_caps *caps)
{
	VkExtensionProperties *exts = NULL;
	uint32_t count = 0;
	VkResult res;

	for (;;) {
		res = VK(vk, EnumerateDeviceExtensionProperties, pd, NULL, &count, NULL);
		if (res != VK_SUCCESS)
			return vk_call_fail(vk, res, "vkEnumerateDeviceExtensionProperties", NULL);
		exts = calloc(count ? count : 1, sizeof(*exts));
		if (!exts)
			return vk_fail(vk, -ENOMEM, "out of memory listing Vulkan extensions");
		res = VK(vk, EnumerateDeviceExtensionProperties, pd, NULL, &count, exts);
		if (res == VK_SUCCESS)
			break;
		free(exts);
		if (res != VK_INCOMPLETE)
			return vk_call_fail(vk, res, "vkEnumerateDeviceExtensionProperties", NULL);
	}

	for (uint32_t i = 0; i < count; i++) {
		const char *e = exts[i].extensionName;

		if (!strcmp(e, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
			caps->ext_memory_fd = true;
		else if (!strcmp(e, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME))
			caps->ext_semaphore_fd = true;
		else if (!strcmp(e, VK_KHR_EXTERNAL_MEMORY_EXTENSION_NAME))
			caps->ext_external_memory = true;
		else if (!strcmp(e, VK_KHR_EXTERNAL_SEMAPHORE_EXTENSION_NAME))
			caps->ext_external_semaphore = true;
		else if (!strcmp(e, VK_KHR_DEDICATED_ALLOCATION_EXTENSION_NAME))
			caps->ext_dedicated = true;
		else if (!strcmp(e, VK_KHR_GET_MEMORY_REQUIREMENTS_2_EXTENSION_NAME))
			caps->ext_memreq2 = true;
		else if (!strcmp(e, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME))
			caps->ext_timeline = true;
		else if (!strcmp(e, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME))
			caps->ext_driver_properties = true;
	}
	free(exts);
	return 0;
}

/* The usage glcuda gives an image of this format: storage only where the
 * format allows it (sRGB formats usually don't). */
static VkImageUsageFlags
image_usage(struct vk_exporter *vk, VkPhysicalDevice pd, VkFormat format)
{
	VkImageUsageFlags usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
				  VK_IMAGE_USAGE_SAMPLED_BIT |
				  VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
				  VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	VkFormatProperties props;

	vk->fn.GetPhysicalDeviceFormatProperties(pd, format, &props);
	if (props.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)
		usage |= VK_IMAGE_USAGE_STORAGE_BIT;
	return usage;
}

static VkResult
query_image_format(struct vk_exporter *vk, VkPhysicalDevice pd, VkFormat format,
		   VkImageUsageFlags usage, VkImageFormatProperties *limits,
		   VkExternalMemoryProperties *external)
{
	VkPhysicalDeviceExternalImageFormatInfo ext_info = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	VkPhysicalDeviceImageFormatInfo2 info = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
		.pNext = &ext_info,
		.format = format,
		.type = VK_IMAGE_TYPE_2D,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = usage,
	};
	VkExternalImageFormatProperties ext_props = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES,
	};
	VkImageFormatProperties2 props = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2,
		.pNext = &ext_props,
	};
	VkResult res;

	res = VK(vk, GetPhysicalDeviceImageFormatProperties2, pd, &info, &props);
	if (res == VK_SUCCESS) {
		*limits = props.imageFormatProperties;
		*external = ext_props.externalMemoryProperties;
	}
	return res;
}

static bool
semaphore_exportable(struct vk_exporter *vk, VkPhysicalDevice pd, bool timeline)
{
	VkSemaphoreTypeCreateInfo type = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
		.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
	};
	VkPhysicalDeviceExternalSemaphoreInfo info = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO,
		.pNext = timeline ? &type : NULL,
		.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	VkExternalSemaphoreProperties props = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES,
	};

	vk->fn.GetPhysicalDeviceExternalSemaphoreProperties(pd, &info, &props);
	return props.externalSemaphoreFeatures &
	       VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT;
}

/* Fill info (and caps, props when not NULL) for one physical device. */
static int
query_physical(struct vk_exporter *vk, VkPhysicalDevice pd,
	       struct vk_physical_info *info, struct physical_caps *caps,
	       VkPhysicalDeviceProperties *props_out)
{
	struct physical_caps local_caps;
	int ret;

	if (!caps)
		caps = &local_caps;
	memset(caps, 0, sizeof(*caps));
	memset(info, 0, sizeof(*info));

	ret = query_extensions(vk, pd, caps);
	if (ret)
		return ret;

	/* The device's own version first: it decides what may be chained. */
	VkPhysicalDeviceProperties2 props = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
	};
	vk->fn.GetPhysicalDeviceProperties2(pd, &props);
	caps->api = props.properties.apiVersion < vk->instance_api
			    ? props.properties.apiVersion : vk->instance_api;

	VkPhysicalDeviceDriverProperties driver = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
	};
	VkPhysicalDeviceIDProperties id = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
	};
	if (caps->api >= VK_API_VERSION_1_2 || caps->ext_driver_properties)
		id.pNext = &driver;
	props.pNext = &id;
	vk->fn.GetPhysicalDeviceProperties2(pd, &props);
	if (props_out)
		*props_out = props.properties;

	snprintf(info->name, sizeof(info->name), "%s", props.properties.deviceName);
	info->api_version = props.properties.apiVersion;
	info->driver_version = props.properties.driverVersion;
	info->vendor_id = props.properties.vendorID;
	memcpy(info->device_uuid, id.deviceUUID, VK_UUID_SIZE);
	memcpy(info->driver_uuid, id.driverUUID, VK_UUID_SIZE);
	if (id.pNext) {
		snprintf(info->driver_name, sizeof(info->driver_name), "%s",
			 driver.driverName);
		snprintf(info->driver_info, sizeof(info->driver_info), "%s",
			 driver.driverInfo);
	}
	info->has_external_memory_fd = caps->ext_memory_fd;
	info->has_external_semaphore_fd = caps->ext_semaphore_fd;

	if (caps->api >= VK_API_VERSION_1_2 || caps->ext_timeline) {
		VkPhysicalDeviceTimelineSemaphoreFeatures timeline = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
		};
		VkPhysicalDeviceFeatures2 features = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
			.pNext = &timeline,
		};
		vk->fn.GetPhysicalDeviceFeatures2(pd, &features);
		caps->timeline_feature = timeline.timelineSemaphore;
	}
	info->has_timeline_semaphore = caps->timeline_feature;

	/* Exporting as OPAQUE_FD needs the fd extension on top of what the
	 * capability query says. */
	if (caps->ext_semaphore_fd) {
		info->binary_exportable = semaphore_exportable(vk, pd, false);
		if (caps->timeline_feature)
			info->timeline_exportable = semaphore_exportable(vk, pd, true);
	}

	if (caps->ext_memory_fd) {
		VkImageFormatProperties limits;
		VkExternalMemoryProperties external;
		VkResult res;

		res = query_image_format(vk, pd, VK_FORMAT_R8G8B8A8_UNORM,
					 image_usage(vk, pd, VK_FORMAT_R8G8B8A8_UNORM),
					 &limits, &external);
		if (res == VK_SUCCESS)
			info->rgba8_exportable = external.externalMemoryFeatures &
				VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT;
		else if (res != VK_ERROR_FORMAT_NOT_SUPPORTED)
			return vk_call_fail(vk, res,
					    "vkGetPhysicalDeviceImageFormatProperties2",
					    "(RGBA8, OPAQUE_FD export)");
	}
	return 0;
}

int
vk_list_physical_devices(struct vk_physical_info *out, unsigned int max,
			 char *err, size_t errsize)
{
	char scratch[1];
	/* Errors go to err only: glcuda-info prints them its own way. */
	struct error_sink sink = {
		.buf = err ? err : scratch,
		.bufsize = err ? errsize : sizeof(scratch),
	};
	struct vk_exporter vk = { .errors = &sink };
	VkPhysicalDevice *list = NULL;
	uint32_t count = 0;
	int ret;

	if (sink.bufsize)
		sink.buf[0] = '\0';
	/* Reuse the process's instance if glcuda made one; otherwise a
	 * temporary one, so that listing devices (glcuda-info, before a
	 * fork) leaves no driver state behind. */
	pthread_mutex_lock(&shared_lock);
	if (shared_instance && shared_pid == getpid()) {
		pthread_mutex_unlock(&shared_lock);
		ret = instance_create(&vk, false);
	} else {
		ret = instance_create_new(&vk, false);
		pthread_mutex_unlock(&shared_lock);
	}
	if (ret)
		goto out;
	ret = enumerate_physical(&vk, &list, &count);
	if (ret)
		goto out;
	if (count == 0) {
		ret = vk_fail(&vk, GLCUDA_ERROR_NO_VULKAN,
			      "vkEnumeratePhysicalDevices found no Vulkan device; "
			      "install the GPU's Vulkan driver (ICD) and check that "
			      "vulkaninfo lists it (VK_DRIVER_FILES selects ICD files)");
		goto out;
	}
	for (uint32_t i = 0; i < count && i < max; i++) {
		ret = query_physical(&vk, list[i], &out[i], NULL, NULL);
		if (ret)
			goto out;
	}
	ret = (int)count;
out:
	free(list);
	instance_release(&vk);
	return ret;
}

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
			       "no Vulkan device has the GL context's device UUID %s; "
			       "Vulkan devices:", uuid);
	for (uint32_t i = 0; i < count && len < sizeof(msg); i++) {
		uuid_format(infos[i].device_uuid, uuid);
		len += (size_t)snprintf(msg + len, sizeof(msg) - len,
					" [%u] %s (%s) deviceUUID %s;", i,
					infos[i].name,
					infos[i].driver_name[0] ? infos[i].driver_name
								: "driver unknown",
					uuid);
	}
	return vk_fail(vk, GLCUDA_ERROR_NO_MATCHING_VULKAN_DEVICE,
		       "%s GL renders on a GPU that has no Vulkan driver here. "
		       "On a PRIME (hybrid) laptop run GL on the NVIDIA GPU "
		       "(__NV_PRIME_RENDER_OFFLOAD=1 __GLX_VENDOR_LIBRARY_NAME=nvidia, "
		       "or pick the NVIDIA EGL device); otherwise install that GPU's "
		       "Vulkan driver and check vulkaninfo lists it (VK_DRIVER_FILES "
		       "selects the ICD, e.g. /usr/share/vulkan/icd.d/nvidia_icd.json)",
		       msg);
}

static int
device_create(struct vk_exporter *vk)
{
	const char *exts[8];
	uint32_t next = 0;
	VkQueueFamilyProperties *families;
	uint32_t nfamilies = 0;
	bool found = false;
	VkResult res;

	/* One queue for the test copies: any family can copy, but only
	 * graphics/compute/transfer ones must say so. */
	vk->fn.GetPhysicalDeviceQueueFamilyProperties(vk->physical, &nfamilies, NULL);
	families = calloc(nfamilies ? nfamilies : 1, sizeof(*families));
	if (!families)
		return vk_fail(vk, -ENOMEM, "out of memory listing Vulkan queue families");
	vk->fn.GetPhysicalDeviceQueueFamilyProperties(vk->physical, &nfamilies, families);
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

	const float priority = 1.0f;
	VkDeviceQueueCreateInfo queue = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = vk->queue_family,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	VkPhysicalDeviceTimelineSemaphoreFeatures timeline = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
		.timelineSemaphore = VK_TRUE,
	};
	VkDeviceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = vk->caps.timeline_feature ? &timeline : NULL,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &queue,
		.enabledExtensionCount = next,
		.ppEnabledExtensionNames = exts,
	};

	driver_lifecycle_lock();
	res = VK(vk, CreateDevice, vk->physical, &info, NULL, &vk->device);
	driver_lifecycle_unlock();
	if (res != VK_SUCCESS) {
		vk->device = VK_NULL_HANDLE;
		if (res == VK_ERROR_EXTENSION_NOT_PRESENT ||
		    res == VK_ERROR_FEATURE_NOT_PRESENT)
			return vk_fail(vk, GLCUDA_ERROR_MISSING_VULKAN_EXTENSION,
				       "vkCreateDevice on %s failed: %s although the "
				       "device lists the extensions and features glcuda "
				       "enables; update the GPU driver",
				       vk->info.name, vk_result_name(res));
		return vk_call_fail(vk, res, "vkCreateDevice", vk->info.name);
	}

	LOAD_DEVICE(vk, DestroyDevice);
	if (!vk->fn.DestroyDevice) {
		vk->device = VK_NULL_HANDLE; /* cannot be destroyed: leak it */
		return vk_fail(vk, GLCUDA_ERROR_VULKAN,
			       "vkGetDeviceProcAddr returned no vkDestroyDevice; "
			       "update the GPU driver");
	}
	LOAD_DEVICE(vk, GetDeviceQueue);
	LOAD_DEVICE(vk, CreateImage);
	LOAD_DEVICE(vk, DestroyImage);
	LOAD_DEVICE(vk, GetImageMemoryRequirements2);
	if (!vk->fn.GetImageMemoryRequirements2)
		vk->fn.GetImageMemoryRequirements2 = (PFN_vkGetImageMemoryRequirements2)
			vk->fn.GetDeviceProcAddr(vk->device, "vkGetImageMemoryRequirements2KHR");
	LOAD_DEVICE(vk, AllocateMemory);
	LOAD_DEVICE(vk, FreeMemory);
	LOAD_DEVICE(vk, BindImageMemory);
	LOAD_DEVICE(vk, GetMemoryFdKHR);
	LOAD_DEVICE(vk, CreateSemaphore);
	LOAD_DEVICE(vk, DestroySemaphore);
	if (vk->caps.ext_semaphore_fd)
		LOAD_DEVICE(vk, GetSemaphoreFdKHR);
	if (vk->caps.timeline_feature) {
		LOAD_DEVICE(vk, GetSemaphoreCounterValue);
		if (!vk->fn.GetSemaphoreCounterValue)
			vk->fn.GetSemaphoreCounterValue = (PFN_vkGetSemaphoreCounterValue)
				vk->fn.GetDeviceProcAddr(vk->device,
							 "vkGetSemaphoreCounterValueKHR");
	}
	LOAD_DEVICE(vk, CreateBuffer);
	LOAD_DEVICE(vk, DestroyBuffer);
	LOAD_DEVICE(vk, GetBufferMemoryRequirements);
	LOAD_DEVICE(vk, BindBufferMemory);
	LOAD_DEVICE(vk, MapMemory);
	LOAD_DEVICE(vk, UnmapMemory);
	LOAD_DEVICE(vk, FlushMappedMemoryRanges);
	LOAD_DEVICE(vk, InvalidateMappedMemoryRanges);
	LOAD_DEVICE(vk, CreateCommandPool);
	LOAD_DEVICE(vk, DestroyCommandPool);
	LOAD_DEVICE(vk, AllocateCommandBuffers);
	LOAD_DEVICE(vk, BeginCommandBuffer);
	LOAD_DEVICE(vk, EndCommandBuffer);
	LOAD_DEVICE(vk, CmdPipelineBarrier);
	LOAD_DEVICE(vk, CmdCopyImageToBuffer);
	LOAD_DEVICE(vk, CmdCopyBufferToImage);
	LOAD_DEVICE(vk, CreateFence);
	LOAD_DEVICE(vk, DestroyFence);
	LOAD_DEVICE(vk, QueueSubmit);
	LOAD_DEVICE(vk, QueueWaitIdle);
	LOAD_DEVICE(vk, WaitForFences);

	if (!vk->fn.GetDeviceQueue || !vk->fn.CreateImage || !vk->fn.DestroyImage ||
	    !vk->fn.GetImageMemoryRequirements2 || !vk->fn.AllocateMemory ||
	    !vk->fn.FreeMemory || !vk->fn.BindImageMemory || !vk->fn.GetMemoryFdKHR ||
	    !vk->fn.CreateSemaphore || !vk->fn.DestroySemaphore ||
	    !vk->fn.CreateBuffer || !vk->fn.DestroyBuffer ||
	    !vk->fn.GetBufferMemoryRequirements || !vk->fn.BindBufferMemory ||
	    !vk->fn.MapMemory || !vk->fn.UnmapMemory ||
	    !vk->fn.FlushMappedMemoryRanges || !vk->fn.InvalidateMappedMemoryRanges ||
	    !vk->fn.CreateCommandPool || !vk->fn.DestroyCommandPool ||
	    !vk->fn.AllocateCommandBuffers || !vk->fn.BeginCommandBuffer ||
	    !vk->fn.EndCommandBuffer || !vk->fn.CmdPipelineBarrier ||
	    !vk->fn.CmdCopyImageToBuffer || !vk->fn.CmdCopyBufferToImage ||
	    !vk->fn.CreateFence || !vk->fn.DestroyFence || !vk->fn.QueueSubmit ||
	    !vk->fn.QueueWaitIdle || !vk->fn.WaitForFences)
		return vk_fail(vk, GLCUDA_ERROR_VULKAN,
			       "vkGetDeviceProcAddr returned NULL for a Vulkan 1.1 or "
			       "external-memory function on %s; update the GPU driver",
			       vk->info.name);

	/* Without the entry points the semaphores cannot be exported or read:
	 * say so through the capabilities instead of failing later. */
	if (!vk->fn.GetSemaphoreFdKHR) {
		vk->info.binary_exportable = false;
		vk->info.timeline_exportable = false;
	}
	if (!vk->fn.GetSemaphoreCounterValue) {
		vk->info.has_timeline_semaphore = false;
		vk->info.timeline_exportable = false;
	}

	vk->fn.GetDeviceQueue(vk->device, vk->queue_family, 0, &vk->queue);
	return 0;
}

int
vk_exporter_new(struct error_sink *errors, const uint8_t device_uuid[16],
		const uint8_t driver_uuid[16], bool validation,
		struct vk_exporter **out)
{
	struct vk_exporter *vk;
	struct vk_physical_info *infos = NULL;
	struct physical_caps *caps = NULL;
	VkPhysicalDeviceProperties *props = NULL;
	VkPhysicalDevice *list = NULL;
	uint32_t count = 0, match = UINT32_MAX;
	int ret;

	vk = calloc(1, sizeof(*vk));
	if (!vk)
		return error_fail(errors, -ENOMEM, "out of memory creating the Vulkan exporter");
	vk->errors = errors;

	ret = instance_create(vk, validation);
	if (ret)
		goto fail;
	ret = enumerate_physical(vk, &list, &count);
	if (ret)
		goto fail;
	if (count == 0) {
		ret = vk_fail(vk, GLCUDA_ERROR_NO_VULKAN,
			      "vkEnumeratePhysicalDevices found no Vulkan device; "
			      "install the GPU's Vulkan driver (ICD) and check that "
			      "vulkaninfo lists it (VK_DRIVER_FILES selects ICD files)");
		goto fail;
	}

	infos = calloc(count, sizeof(*infos));
	caps = calloc(count, sizeof(*caps));
	props = calloc(count, sizeof(*props));
	if (!infos || !caps || !props) {
		ret = vk_fail(vk, -ENOMEM, "out of memory listing Vulkan devices");
		goto fail;
	}
	for (uint32_t i = 0; i < count; i++) {
		ret = query_physical(vk, list[i], &infos[i], &caps[i], &props[i]);
		if (ret)
			goto fail;
		/* memcmp: a UUID may hold zero bytes (DESIGN.md §6). */
		if (match == UINT32_MAX &&
		    !memcmp(infos[i].device_uuid, device_uuid, VK_UUID_SIZE))
			match = i;
	}
	if (match == UINT32_MAX) {
		ret = no_matching_device(vk, device_uuid, infos, count);
		goto fail;
	}

	vk->physical = list[match];
	vk->info = infos[match];
	vk->caps = caps[match];
	vk->max_image_size = props[match].limits.maxImageDimension2D;

	if (driver_uuid && memcmp(vk->info.driver_uuid, driver_uuid, VK_UUID_SIZE)) {
		char gl_uuid[UUID_STRING_SIZE], vk_uuid[UUID_STRING_SIZE];

		uuid_format(driver_uuid, gl_uuid);
		uuid_format(vk->info.driver_uuid, vk_uuid);
		ret = vk_fail(vk, GLCUDA_ERROR_DRIVER_MISMATCH,
			      "Vulkan device %s is GL's GPU but its driver UUID %s "
			      "differs from GL's driver UUID %s: GL and Vulkan come "
			      "from different driver builds, and memory and semaphores "
			      "cannot be shared between them. Install one driver "
			      "version for both (a half-finished driver update, or a "
			      "container whose driver libraries differ from the host's, "
			      "does this)", vk->info.name, vk_uuid, gl_uuid);
		goto fail;
	}

	if (!vk->caps.ext_memory_fd) {
		ret = vk_fail(vk, GLCUDA_ERROR_MISSING_VULKAN_EXTENSION,
			      "Vulkan device %s lacks %s, needed to share images with "
			      "GL and CUDA; update the GPU driver", vk->info.name,
			      VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
		goto fail;
	}
	if (vk->caps.api < VK_API_VERSION_1_1) {
		const struct { bool has; const char *name; } need[] = {
			{ vk->caps.ext_external_memory, VK_KHR_EXTERNAL_MEMORY_EXTENSION_NAME },
			{ vk->caps.ext_dedicated, VK_KHR_DEDICATED_ALLOCATION_EXTENSION_NAME },
			{ vk->caps.ext_memreq2, VK_KHR_GET_MEMORY_REQUIREMENTS_2_EXTENSION_NAME },
		};

		for (size_t i = 0; i < ARRAY_LENGTH(need); i++) {
			if (!need[i].has) {
				ret = vk_fail(vk, GLCUDA_ERROR_MISSING_VULKAN_EXTENSION,
					      "Vulkan device %s (Vulkan 1.0) lacks %s; "
					      "update the GPU driver", vk->info.name,
					      need[i].name);
				goto fail;
			}
		}
		/* Semaphores need VK_KHR_external_semaphore on 1.0 too. */
		if (!vk->caps.ext_external_semaphore) {
			vk->caps.ext_semaphore_fd = false;
			vk->info.binary_exportable = false;
			vk->info.timeline_exportable = false;
		}
	}

	vk->fn.GetPhysicalDeviceMemoryProperties(vk->physical, &vk->memory);
	ret = device_create(vk);
	if (ret)
		goto fail;

	free(infos);
	free(caps);
	free(props);
	free(list);
	*out = vk;
	return 0;

fail:
	free(infos);
	free(caps);
	free(props);
	free(list);
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
		driver_lifecycle_unlock();
	}
	instance_release(vk);
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

/* Images ------------------------------------------------------------------- */

static int
check_format(struct vk_exporter *vk, const struct format_info *fmt,
	     uint32_t width, uint32_t height, bool record,
	     VkImageUsageFlags *usage_out, bool *dedicated_only)
{
	VkFormat format = (VkFormat)fmt->vk_format;
	VkImageUsageFlags usage = image_usage(vk, vk->physical, format);
	VkImageFormatProperties limits;
	VkExternalMemoryProperties external;
	VkResult res;

#define CHECK_FAIL(code, ...) (record ? vk_fail(vk, (code), __VA_ARGS__) : (code))
	if (width == 0 || height == 0)
		return CHECK_FAIL(-EINVAL, "a %ux%u %s image has no pixels",
				  width, height, fmt->name);

	res = query_image_format(vk, vk->physical, format, usage, &limits, &external);
	if (res == VK_ERROR_FORMAT_NOT_SUPPORTED)
		return CHECK_FAIL(GLCUDA_ERROR_UNSUPPORTED_FORMAT,
				  "vkGetPhysicalDeviceImageFormatProperties2 says %s "
				  "(VkFormat %d) with optimal tiling, usage 0x%x and "
				  "OPAQUE_FD export is not supported on %s (%s); use "
				  "another format", fmt->name, (int)format,
				  (unsigned int)usage, vk->info.name,
				  vk_result_name(res));
	if (res != VK_SUCCESS) {
		int code = res == VK_ERROR_DEVICE_LOST ? GLCUDA_ERROR_DEVICE_LOST
						       : GLCUDA_ERROR_VULKAN;
		return CHECK_FAIL(code,
				  "vkGetPhysicalDeviceImageFormatProperties2 failed "
				  "for %s (VkFormat %d): %s; %s", fmt->name,
				  (int)format, vk_result_name(res), result_hint(res));
	}
	if (!(external.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT))
		return CHECK_FAIL(GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE,
				  "vkGetPhysicalDeviceImageFormatProperties2: %s "
				  "(VkFormat %d) images cannot be exported as OPAQUE_FD "
				  "on %s (external memory features 0x%x); use another "
				  "format or update the driver", fmt->name, (int)format,
				  vk->info.name,
				  (unsigned int)external.externalMemoryFeatures);
	if (width > limits.maxExtent.width || height > limits.maxExtent.height)
		return CHECK_FAIL(GLCUDA_ERROR_UNSUPPORTED_FORMAT,
				  "vkGetPhysicalDeviceImageFormatProperties2: a %ux%u "
				  "%s (VkFormat %d) image exceeds the device's limit "
				  "of %ux%u; use a smaller image", width, height,
				  fmt->name, (int)format, limits.maxExtent.width,
				  limits.maxExtent.height);
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
static int
find_memory_type(const struct vk_exporter *vk, uint32_t type_bits,
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
		uint32_t width, uint32_t height, struct vk_image *out)
{
	struct vk_image img = {
		.format = (VkFormat)fmt->vk_format,
		.width = width,
		.height = height,
	};
	VkImageUsageFlags usage;
	bool dedicated_only;
	VkResult res;
	int ret, type;

	ret = check_format(vk, fmt, width, height, true, &usage, &dedicated_only);
	if (ret)
		return ret;

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
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	res = VK(vk, CreateImage, vk->device, &info, NULL, &img.image);
	if (res != VK_SUCCESS) {
		char what[128];

		snprintf(what, sizeof(what), "for a %ux%u %s image", width, height,
			 fmt->name);
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

	type = find_memory_type(vk, reqs.memoryRequirements.memoryTypeBits,
				VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
	if (type < 0) {
		ret = vk_fail(vk, GLCUDA_ERROR_VULKAN,
			      "no device-local Vulkan memory type fits a %s image "
			      "(vkGetImageMemoryRequirements2 memoryTypeBits 0x%x) on %s; "
			      "update the GPU driver", fmt->name,
			      reqs.memoryRequirements.memoryTypeBits, vk->info.name);
		goto fail;
	}

	/* GL (GL_DEDICATED_MEMORY_OBJECT_EXT) and CUDA
	 * (CUDA_EXTERNAL_MEMORY_DEDICATED) must be told the same (§6). */
	img.dedicated = dedicated_reqs.prefersDedicatedAllocation ||
			dedicated_reqs.requiresDedicatedAllocation || dedicated_only;
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
		snprintf(what, sizeof(what), "allocating %llu bytes for a %ux%u %s image",
			 (unsigned long long)img.size, width, height, fmt->name);
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
		return vk_call_fail(vk, res, "vkGetMemoryFdKHR", "exporting an image");
	*fd = new_fd;
	return 0;
}

void
vk_image_destroy(struct vk_exporter *vk, struct vk_image *img)
{
	if (!img)
		return;
	/* The image before its memory: it is bound to it. */
	if (img->image)
		vk->fn.DestroyImage(vk->device, img->image, NULL);
	if (img->memory)
		vk->fn.FreeMemory(vk->device, img->memory, NULL);
	memset(img, 0, sizeof(*img));
}

/* Semaphores --------------------------------------------------------------- */

int
vk_semaphore_create(struct vk_exporter *vk, bool timeline, struct vk_semaphore *out)
{
	VkSemaphore semaphore = VK_NULL_HANDLE;
	VkResult res;

	if (timeline && !vk_exporter_has_timeline(vk))
		return vk_fail(vk, vk->info.has_timeline_semaphore
				       ? GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE
				       : GLCUDA_ERROR_MISSING_VULKAN_EXTENSION,
			       "Vulkan device %s cannot export timeline semaphores "
			       "as OPAQUE_FD (%s%s); use binary semaphores or the "
			       "CPU fallback, or update the driver", vk->info.name,
			       vk->info.has_external_semaphore_fd ? ""
				       : VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME " missing, ",
			       vk->info.has_timeline_semaphore
				       ? "vkGetPhysicalDeviceExternalSemaphoreProperties: not exportable"
				       : "no timelineSemaphore feature");
	if (!timeline && !vk_exporter_has_binary(vk))
		return vk_fail(vk, vk->info.has_external_semaphore_fd
				       ? GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE
				       : GLCUDA_ERROR_MISSING_VULKAN_EXTENSION,
			       "Vulkan device %s cannot export binary semaphores as "
			       "OPAQUE_FD (%s); use the CPU fallback, or update the "
			       "driver", vk->info.name,
			       vk->info.has_external_semaphore_fd
				       ? "vkGetPhysicalDeviceExternalSemaphoreProperties: not exportable"
				       : VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME " missing");

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
vk_semaphore_export_fd(struct vk_exporter *vk, const struct vk_semaphore *sem, int *fd)
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
			       vk->info.name, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
	res = VK(vk, GetSemaphoreFdKHR, vk->device, &info, &new_fd);
	if (res != VK_SUCCESS)
		return vk_call_fail(vk, res, "vkGetSemaphoreFdKHR",
				    sem->timeline ? "exporting a timeline semaphore"
						  : "exporting a binary semaphore");
	*fd = new_fd;
	return 0;
}

void
vk_semaphore_destroy(struct vk_exporter *vk, struct vk_semaphore *sem)
{
	if (!sem)
		return;
	if (sem->semaphore)
		vk->fn.DestroySemaphore(vk->device, sem->semaphore, NULL);
	memset(sem, 0, sizeof(*sem));
}

int
vk_semaphore_get_value(struct vk_exporter *vk, const struct vk_semaphore *sem,
		       uint64_t *value)
{
	VkResult res;

	if (!sem->timeline || !vk->fn.GetSemaphoreCounterValue)
		return vk_fail(vk, -EINVAL,
			       "vk_semaphore_get_value on a binary semaphore: only "
			       "timelines have a value");
	res = VK(vk, GetSemaphoreCounterValue, vk->device, sem->semaphore, value);
	if (res != VK_SUCCESS)
		return vk_call_fail(vk, res, "vkGetSemaphoreCounterValue", NULL);
	return 0;
}

/* Test copies -------------------------------------------------------------- */

struct staging {
	VkBuffer buffer;
	VkDeviceMemory memory;
	bool coherent;
	void *map;
	VkCommandPool pool;
	VkFence fence;
};

static void
staging_destroy(struct vk_exporter *vk, struct staging *s)
{
	if (s->fence)
		vk->fn.DestroyFence(vk->device, s->fence, NULL);
	/* Destroying the pool frees its command buffer. */
	if (s->pool)
		vk->fn.DestroyCommandPool(vk->device, s->pool, NULL);
	if (s->map)
		vk->fn.UnmapMemory(vk->device, s->memory);
	if (s->buffer)
		vk->fn.DestroyBuffer(vk->device, s->buffer, NULL);
	if (s->memory)
		vk->fn.FreeMemory(vk->device, s->memory, NULL);
}

static int
staging_create(struct vk_exporter *vk, VkDeviceSize size, struct staging *s)
{
	VkMemoryRequirements reqs;
	VkResult res;
	int type;

	VkBufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = size,
		.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	res = VK(vk, CreateBuffer, vk->device, &info, NULL, &s->buffer);
	if (res != VK_SUCCESS) {
		s->buffer = VK_NULL_HANDLE;
		return vk_call_fail(vk, res, "vkCreateBuffer", "(staging)");
	}
	vk->fn.GetBufferMemoryRequirements(vk->device, s->buffer, &reqs);
	type = find_memory_type(vk, reqs.memoryTypeBits,
				VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
				VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
	s->coherent = type >= 0;
	if (type < 0)
		type = find_memory_type(vk, reqs.memoryTypeBits,
					VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
	if (type < 0)
		return vk_fail(vk, GLCUDA_ERROR_VULKAN,
			       "no host-visible Vulkan memory type for a staging "
			       "buffer on %s", vk->info.name);

	VkMemoryAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = reqs.size,
		.memoryTypeIndex = (uint32_t)type,
	};
	res = VK(vk, AllocateMemory, vk->device, &alloc, NULL, &s->memory);
	if (res != VK_SUCCESS) {
		s->memory = VK_NULL_HANDLE;
		return vk_call_fail(vk, res, "vkAllocateMemory", "(staging)");
	}
	res = VK(vk, BindBufferMemory, vk->device, s->buffer, s->memory, 0);
	if (res != VK_SUCCESS)
		return vk_call_fail(vk, res, "vkBindBufferMemory", "(staging)");
	res = VK(vk, MapMemory, vk->device, s->memory, 0, VK_WHOLE_SIZE, 0, &s->map);
	if (res != VK_SUCCESS) {
		s->map = NULL;
		return vk_call_fail(vk, res, "vkMapMemory", "(staging)");
	}

	VkCommandPoolCreateInfo pool = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
		.queueFamilyIndex = vk->queue_family,
	};
	res = VK(vk, CreateCommandPool, vk->device, &pool, NULL, &s->pool);
	if (res != VK_SUCCESS) {
		s->pool = VK_NULL_HANDLE;
		return vk_call_fail(vk, res, "vkCreateCommandPool", NULL);
	}
	VkFenceCreateInfo fence = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	res = VK(vk, CreateFence, vk->device, &fence, NULL, &s->fence);
	if (res != VK_SUCCESS) {
		s->fence = VK_NULL_HANDLE;
		return vk_call_fail(vk, res, "vkCreateFence", NULL);
	}
	return 0;
}

static int
copy_check_args(struct vk_exporter *vk, const struct vk_image *img,
		const struct format_info *fmt, size_t size, const char *call)
{
	size_t need = (size_t)img->width * img->height * fmt->bytes_per_pixel;

	if (!img->image || (VkFormat)fmt->vk_format != img->format)
		return vk_fail(vk, -EINVAL, "%s: the image is not a %s image",
			       call, fmt->name);
	if (size < need)
		return vk_fail(vk, -EINVAL, "%s: %zu bytes given, a %ux%u %s image "
			       "needs %zu", call, size, img->width, img->height,
			       fmt->name, need);
	return 0;
}

/* Record and run one copy between img and the staging buffer, and wait. */
static int
copy_run(struct vk_exporter *vk, const struct vk_image *img, struct staging *s,
	 bool to_image)
{
	VkCommandBuffer cmd;
	VkResult res;

	VkCommandBufferAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = s->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	res = VK(vk, AllocateCommandBuffers, vk->device, &alloc, &cmd);
	if (res != VK_SUCCESS)
		return vk_call_fail(vk, res, "vkAllocateCommandBuffers", NULL);
	VkCommandBufferBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	res = VK(vk, BeginCommandBuffer, cmd, &begin);
	if (res != VK_SUCCESS)
		return vk_call_fail(vk, res, "vkBeginCommandBuffer", NULL);

	/* Whatever GL or CUDA did to the image before must be complete and
	 * visible to the copy. An upload overwrites every pixel, so it may
	 * discard the old contents (UNDEFINED), which is valid whatever
	 * layout the image was in; a read keeps them and needs GENERAL. */
	VkImageMemoryBarrier before = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
		.dstAccessMask = to_image ? VK_ACCESS_TRANSFER_WRITE_BIT
					  : VK_ACCESS_TRANSFER_READ_BIT,
		.oldLayout = to_image ? VK_IMAGE_LAYOUT_UNDEFINED : VK_IMAGE_LAYOUT_GENERAL,
		.newLayout = VK_IMAGE_LAYOUT_GENERAL,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = img->image,
		.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
	};
	vk->fn.CmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
				  VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL,
				  0, NULL, 1, &before);

	VkBufferImageCopy region = {
		.bufferOffset = 0,
		.bufferRowLength = 0,   /* tightly packed */
		.bufferImageHeight = 0,
		.imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
		.imageExtent = { img->width, img->height, 1 },
	};
	if (to_image)
		vk->fn.CmdCopyBufferToImage(cmd, s->buffer, img->image,
					    VK_IMAGE_LAYOUT_GENERAL, 1, &region);
	else
		vk->fn.CmdCopyImageToBuffer(cmd, img->image, VK_IMAGE_LAYOUT_GENERAL,
					    s->buffer, 1, &region);

	/* The copy complete and visible to whatever uses the image next,
	 * and (for a read) the buffer visible to the host. */
	VkImageMemoryBarrier after = before;
	after.srcAccessMask = to_image ? VK_ACCESS_TRANSFER_WRITE_BIT
				       : VK_ACCESS_TRANSFER_READ_BIT;
	after.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
	after.oldLayout = VK_IMAGE_LAYOUT_GENERAL;
	VkBufferMemoryBarrier host = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.buffer = s->buffer,
		.offset = 0,
		.size = VK_WHOLE_SIZE,
	};
	vk->fn.CmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
				  VK_PIPELINE_STAGE_ALL_COMMANDS_BIT |
				  (to_image ? 0 : VK_PIPELINE_STAGE_HOST_BIT),
				  0, 0, NULL, to_image ? 0 : 1, &host, 1, &after);

	res = VK(vk, EndCommandBuffer, cmd);
	if (res != VK_SUCCESS)
		return vk_call_fail(vk, res, "vkEndCommandBuffer", NULL);

	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &cmd,
	};
	res = VK(vk, QueueSubmit, vk->queue, 1, &submit, s->fence);
	if (res != VK_SUCCESS)
		return vk_call_fail(vk, res, "vkQueueSubmit", NULL);
	res = VK(vk, WaitForFences, vk->device, 1, &s->fence, VK_TRUE,
		 VK_EXPORTER_COPY_TIMEOUT_NS);
	if (res != VK_SUCCESS) {
		/* The command buffer may still run: it must finish before its
		 * pool and the buffer go away. */
		if (res != VK_ERROR_DEVICE_LOST)
			vk->fn.QueueWaitIdle(vk->queue);
		return vk_call_fail(vk, res, "vkWaitForFences",
				    to_image ? "(image upload)" : "(image read-back)");
	}
	return 0;
}

int
vk_image_read(struct vk_exporter *vk, const struct vk_image *img,
	      const struct format_info *fmt, void *dst, size_t size)
{
	struct staging s = { 0 };
	size_t bytes = (size_t)img->width * img->height * fmt->bytes_per_pixel;
	int ret;

	ret = copy_check_args(vk, img, fmt, size, "vk_image_read");
	if (ret)
		return ret;
	ret = staging_create(vk, bytes, &s);
	if (!ret)
		ret = copy_run(vk, img, &s, false);
	if (!ret && !s.coherent) {
		VkMappedMemoryRange range = {
			.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
			.memory = s.memory,
			.size = VK_WHOLE_SIZE,
		};
		VkResult res = VK(vk, InvalidateMappedMemoryRanges, vk->device, 1, &range);
		if (res != VK_SUCCESS)
			ret = vk_call_fail(vk, res, "vkInvalidateMappedMemoryRanges", NULL);
	}
	if (!ret)
		memcpy(dst, s.map, bytes);
	staging_destroy(vk, &s);
	return ret;
}

int
vk_image_write(struct vk_exporter *vk, const struct vk_image *img,
	       const struct format_info *fmt, const void *src, size_t size)
{
	struct staging s = { 0 };
	size_t bytes = (size_t)img->width * img->height * fmt->bytes_per_pixel;
	int ret;

	ret = copy_check_args(vk, img, fmt, size, "vk_image_write");
	if (ret)
		return ret;
	ret = staging_create(vk, bytes, &s);
	if (!ret) {
		memcpy(s.map, src, bytes);
		if (!s.coherent) {
			VkMappedMemoryRange range = {
				.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
				.memory = s.memory,
				.size = VK_WHOLE_SIZE,
			};
			VkResult res = VK(vk, FlushMappedMemoryRanges, vk->device, 1, &range);
			if (res != VK_SUCCESS)
				ret = vk_call_fail(vk, res, "vkFlushMappedMemoryRanges", NULL);
		}
	}
	if (!ret)
		ret = copy_run(vk, img, &s, true);
	staging_destroy(vk, &s);
	return ret;
}
