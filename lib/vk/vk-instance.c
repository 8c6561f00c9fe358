/*
 * The Vulkan exporter (vk-exporter.h): its errors, the instance, and the
 * physical devices (finding glcuda's, listing them for glcuda-info).
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

int
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
const char *
vk_result_hint(VkResult res)
{
	switch (res) {
	case VK_ERROR_OUT_OF_HOST_MEMORY:
		return "the process ran out of memory: free memory or raise "
		       "its limits";
	case VK_ERROR_OUT_OF_DEVICE_MEMORY:
		return "the GPU ran out of memory: use fewer or smaller images";
	case VK_ERROR_TOO_MANY_OBJECTS:
		return "the process may be out of file descriptors: close "
		       "unused ones or raise the limit (ulimit -n)";
	case VK_ERROR_DEVICE_LOST:
		return "the GPU was reset or hung: destroy and recreate the "
		       "glcuda device";
	case VK_ERROR_INITIALIZATION_FAILED:
	case VK_ERROR_INCOMPATIBLE_DRIVER:
		return "check that a Vulkan driver (ICD) for this GPU is "
		       "installed and found (vulkaninfo; VK_DRIVER_FILES)";
	default:
		return "update the GPU driver, or report a bug with this "
		       "message";
	}
}

/* Record a failed Vulkan call: names the call and the result, says what to
 * do. A lost device is its own error: every later call on it fails too. */
int
vk_call_fail(struct vk_exporter *vk, VkResult res, const char *call,
	     const char *what)
{
	int code = res == VK_ERROR_DEVICE_LOST ? GLCUDA_ERROR_DEVICE_LOST
					       : GLCUDA_ERROR_VULKAN;

	return vk_fail(vk, code, "%s failed%s%s: %s; %s", call,
		       what ? " " : "", what ? what : "",
		       vk_result_name(res), vk_result_hint(res));
}

/* Instance ----------------------------------------------------------------- */

static bool
have_layer(struct vk_exporter *vk, const char *name)
{
	VkLayerProperties *layers = NULL;
	uint32_t count = 0;
	bool found = false;

	if (!vk->fn.EnumerateInstanceLayerProperties ||
	    VK(vk, EnumerateInstanceLayerProperties, &count, NULL) !=
		    VK_SUCCESS ||
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
#define LOAD(name) LOAD_INSTANCE(vk, name);
	VK_INSTANCE_FUNCTIONS(LOAD)
#undef LOAD

	if (!vk->fn.DestroyInstance) {
		/* Nothing can destroy the instance: leak it rather than
		 * crash. */
		vk->instance = VK_NULL_HANDLE;
		return vk_fail(vk, GLCUDA_ERROR_NO_VULKAN,
			       "the Vulkan loader returned no "
			       "vkDestroyInstance; "
			       "reinstall the Vulkan loader");
	}
#define MISSING(name) !vk->fn.name ||
	if (VK_INSTANCE_FUNCTIONS(MISSING) false)
#undef MISSING
		return vk_fail(vk, GLCUDA_ERROR_NO_VULKAN,
			       "the Vulkan loader lacks Vulkan 1.1 instance "
			       "functions; update the Vulkan loader "
			       "(libvulkan.so.1)");
	return 0;
}

static int
instance_create_new(struct vk_exporter *vk, bool validation)
{
	static const char validation_layer[] = "VK_LAYER_KHRONOS_validation";
	const char *layers[1];
	uint32_t loader_api = VK_API_VERSION_1_0;
	VkResult res;

#define LOAD(name) LOAD_GLOBAL(vk, name);
	VK_GLOBAL_FUNCTIONS(LOAD)
#undef LOAD
	if (!vk->fn.CreateInstance)
		return vk_fail(vk, GLCUDA_ERROR_NO_VULKAN,
			       "the Vulkan loader returned no "
			       "vkCreateInstance; reinstall the Vulkan loader "
			       "(libvulkan.so.1)");

	/* No vkEnumerateInstanceVersion means a 1.0 loader. */
	if (vk->fn.EnumerateInstanceVersion) {
		res = VK(vk, EnumerateInstanceVersion, &loader_api);
		if (res != VK_SUCCESS)
			return vk_call_fail(vk, res,
					    "vkEnumerateInstanceVersion", NULL);
	}
	if (VK_API_VERSION_MAJOR(loader_api) == 1 &&
	    VK_API_VERSION_MINOR(loader_api) < 1)
		return vk_fail(vk, GLCUDA_ERROR_NO_VULKAN,
			       "the Vulkan loader supports Vulkan %u.%u, "
			       "glcuda needs 1.1; update the Vulkan loader "
			       "(libvulkan.so.1)",
			       VK_API_VERSION_MAJOR(loader_api),
			       VK_API_VERSION_MINOR(loader_api));
	vk->instance_api =
		VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(loader_api),
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
	if (res == VK_ERROR_INITIALIZATION_FAILED ||
	    res == VK_ERROR_INCOMPATIBLE_DRIVER)
		return vk_fail(
			vk, GLCUDA_ERROR_NO_VULKAN,
			"vkCreateInstance (Vulkan %u.%u) failed: %s; no usable "
			"Vulkan driver: install the GPU's Vulkan driver (ICD) "
			"and check that vulkaninfo lists the GPU "
			"(VK_DRIVER_FILES selects ICD files)",
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

int
vk_instance_create(struct vk_exporter *vk, bool validation)
{
	int ret;

	pthread_mutex_lock(&shared_lock);
	if (shared_instance && shared_pid != getpid())
		/* the parent's; leave it be */
		shared_instance = VK_NULL_HANDLE;
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

void
vk_instance_release(struct vk_exporter *vk)
{
	bool shared;

	/* The shared instance stays; one that never became shared (its
	 * set-up failed half-way) is destroyed. */
	pthread_mutex_lock(&shared_lock);
	shared = vk->instance == shared_instance;
	pthread_mutex_unlock(&shared_lock);
	if (vk->instance && !shared && vk->fn.DestroyInstance) {
		vk->fn.DestroyInstance(vk->instance, NULL);
		FAULT_VK_RELEASED("DestroyInstance");
	}
	vk->instance = VK_NULL_HANDLE;
}

/* The physical devices; *out is malloc'ed, *count may be 0. */
int
vk_enumerate_physical(struct vk_exporter *vk, VkPhysicalDevice **out,
		      uint32_t *count)
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
			return vk_fail(vk, -ENOMEM,
				       "out of memory listing Vulkan devices");
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
			       vk_result_name(res), vk_result_hint(res));
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
		res = VK(vk, EnumerateDeviceExtensionProperties, pd, NULL,
			 &count, NULL);
		if (res != VK_SUCCESS)
			return vk_call_fail(
				vk, res, "vkEnumerateDeviceExtensionProperties",
				NULL);
		exts = calloc(count ? count : 1, sizeof(*exts));
		if (!exts)
			return vk_fail(
				vk, -ENOMEM,
				"out of memory listing Vulkan extensions");
		res = VK(vk, EnumerateDeviceExtensionProperties, pd, NULL,
			 &count, exts);
		if (res == VK_SUCCESS)
			break;
		free(exts);
		if (res != VK_INCOMPLETE)
			return vk_call_fail(
				vk, res, "vkEnumerateDeviceExtensionProperties",
				NULL);
	}

	for (uint32_t i = 0; i < count; i++) {
		const char *e = exts[i].extensionName;

		if (!strcmp(e, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
			caps->ext_memory_fd = true;
		else if (!strcmp(e,
				 VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME))
			caps->ext_semaphore_fd = true;
		else if (!strcmp(e, VK_KHR_EXTERNAL_MEMORY_EXTENSION_NAME))
			caps->ext_external_memory = true;
		else if (!strcmp(e, VK_KHR_EXTERNAL_SEMAPHORE_EXTENSION_NAME))
			caps->ext_external_semaphore = true;
		else if (!strcmp(e, VK_KHR_DEDICATED_ALLOCATION_EXTENSION_NAME))
			caps->ext_dedicated = true;
		else if (!strcmp(e, "VK_KHR_get_memory_requirements2"))
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
VkImageUsageFlags
vk_image_usage(struct vk_exporter *vk, VkPhysicalDevice pd, VkFormat format)
{
	VkImageUsageFlags usage = VK_IMAGE_USAGE_SAMPLED_BIT |
				  VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
				  VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	VkFormatProperties props;

	/* Depth formats are depth attachments (never colour ones, nor
	 * storage images). */
	if (format == VK_FORMAT_D32_SFLOAT)
		return usage | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
	usage |= VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;

	vk->fn.GetPhysicalDeviceFormatProperties(pd, format, &props);
	if (props.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)
		usage |= VK_IMAGE_USAGE_STORAGE_BIT;
	return usage;
}

VkResult
vk_query_image_format(struct vk_exporter *vk, VkPhysicalDevice pd,
		      VkFormat format, VkImageUsageFlags usage,
		      VkImageFormatProperties *limits,
		      VkExternalMemoryProperties *external)
{
	VkPhysicalDeviceExternalImageFormatInfo ext_info = {
		.sType = STYPE_EXTERNAL_IMAGE_FORMAT_INFO,
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

	res = VK(vk, GetPhysicalDeviceImageFormatProperties2, pd, &info,
		 &props);
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
		.sType = STYPE_EXTERNAL_SEMAPHORE_INFO,
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
int
vk_query_physical(struct vk_exporter *vk, VkPhysicalDevice pd,
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

	snprintf(info->name, sizeof(info->name), "%s",
		 props.properties.deviceName);
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
			.sType = STYPE_TIMELINE_SEMAPHORE_FEATURES,
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
			info->timeline_exportable =
				semaphore_exportable(vk, pd, true);
	}

	if (caps->ext_memory_fd) {
		VkImageFormatProperties limits;
		VkExternalMemoryProperties external;
		VkResult res;

		res = vk_query_image_format(
			vk, pd, VK_FORMAT_R8G8B8A8_UNORM,
			vk_image_usage(vk, pd, VK_FORMAT_R8G8B8A8_UNORM),
			&limits, &external);
		if (res == VK_SUCCESS)
			info->rgba8_exportable =
				external.externalMemoryFeatures &
				VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT;
		else if (res != VK_ERROR_FORMAT_NOT_SUPPORTED)
			return vk_call_fail(
				vk, res,
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
		ret = vk_instance_create(&vk, false);
	} else {
		ret = instance_create_new(&vk, false);
		pthread_mutex_unlock(&shared_lock);
	}
	if (ret)
		goto out;
	ret = vk_enumerate_physical(&vk, &list, &count);
	if (ret)
		goto out;
	if (count == 0) {
		ret = vk_fail(
			&vk, GLCUDA_ERROR_NO_VULKAN,
			"vkEnumeratePhysicalDevices found no Vulkan device; "
			"install the GPU's Vulkan driver (ICD) and check that "
			"vulkaninfo lists it (VK_DRIVER_FILES selects ICD "
			"files)");
		goto out;
	}
	for (uint32_t i = 0; i < count && i < max; i++) {
		ret = vk_query_physical(&vk, list[i], &out[i], NULL, NULL);
		if (ret)
			goto out;
	}
	ret = (int)count;
out:
	free(list);
	vk_instance_release(&vk);
	return ret;
}

