/*
 * The bare paths' own semaphores: see bare-sync.h.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "bare-sync.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* GL_NV_timeline_semaphore, which epoxy does not know. */
#define BARE_GL_TIMELINE_SEMAPHORE_VALUE_NV 0x9595
#define BARE_GL_SEMAPHORE_TYPE_NV 0x95B3
#define BARE_GL_SEMAPHORE_TYPE_TIMELINE_NV 0x95B5

typedef void (*bare_PFNGLCREATESEMAPHORESNV)(GLsizei n, GLuint *semaphores);
typedef void (*bare_PFNGLSEMAPHOREPARAMETERIVNV)(GLuint semaphore,
						GLenum pname,
						const GLint *params);

static int __attribute__((format(printf, 3, 4)))
bare_fail(char *msg, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, size, fmt, ap);
	va_end(ap);
	return -1;
}

int
bare_gl_check_extensions(char *msg, size_t size)
{
	if (!epoxy_has_gl_extension("GL_EXT_semaphore_fd") ||
	    !epoxy_has_gl_extension("GL_NV_timeline_semaphore"))
		return bare_fail(msg, size,
				 "bare: GL has no GL_EXT_semaphore_fd with "
				 "GL_NV_timeline_semaphore");
	return 0;
}

int
bare_vulkan_new(struct bare_vulkan *v, const uint8_t *uuid, char *msg,
		size_t size)
{
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "glcuda-bench",
		.apiVersion = VK_API_VERSION_1_2,
	};
	VkInstanceCreateInfo instance_info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
	};
	VkPhysicalDeviceVulkan12Features features12 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
		.timelineSemaphore = VK_TRUE,
	};
	static const char *const extensions[] = {
		VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME,
	};
	const float priority = 1.0f;
	VkDeviceQueueCreateInfo queue = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = 0,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	VkDeviceCreateInfo device_info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = &features12,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &queue,
		.enabledExtensionCount = 1,
		.ppEnabledExtensionNames = extensions,
	};
	VkPhysicalDevice devices[16], chosen = VK_NULL_HANDLE;
	uint32_t count = 16;
	VkResult res;

	memset(v, 0, sizeof(*v));
	res = vkCreateInstance(&instance_info, NULL, &v->instance);
	if (res != VK_SUCCESS) {
		v->instance = VK_NULL_HANDLE;
		return bare_fail(msg, size,
				 "bare: vkCreateInstance (Vulkan 1.2): %d",
				 res);
	}
	res = vkEnumeratePhysicalDevices(v->instance, &count, devices);
	if (res != VK_SUCCESS && res != VK_INCOMPLETE)
		return bare_fail(msg, size,
				 "bare: vkEnumeratePhysicalDevices: %d", res);
	for (uint32_t i = 0; i < count && !chosen; i++) {
		VkPhysicalDeviceIDProperties id = {
			.sType =
				VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
		};
		VkPhysicalDeviceProperties2 props = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
			.pNext = &id,
		};

		vkGetPhysicalDeviceProperties2(devices[i], &props);
		if (!memcmp(id.deviceUUID, uuid, VK_UUID_SIZE))
			chosen = devices[i];
	}
	if (!chosen)
		return bare_fail(msg, size,
				 "bare: no Vulkan device has the GL "
				 "context's UUID");
	res = vkCreateDevice(chosen, &device_info, NULL, &v->device);
	if (res != VK_SUCCESS) {
		v->device = VK_NULL_HANDLE;
		return bare_fail(msg, size,
				 "bare: vkCreateDevice (timeline semaphores, "
				 "VK_KHR_external_semaphore_fd): %d",
				 res);
	}
	v->get_fd = (PFN_vkGetSemaphoreFdKHR)vkGetDeviceProcAddr(
		v->device, "vkGetSemaphoreFdKHR");
	if (!v->get_fd)
		return bare_fail(msg, size, "bare: no vkGetSemaphoreFdKHR");
	return 0;
}

void
bare_vulkan_free(struct bare_vulkan *v)
{
	if (v->device)
		vkDestroyDevice(v->device, NULL);
	if (v->instance)
		vkDestroyInstance(v->instance, NULL);
	memset(v, 0, sizeof(*v));
}

/* The first GL error, all drained: 0 for none. */
static GLenum
bare_gl_error(void)
{
	GLenum err = glGetError(), first = err;

	while (err != GL_NO_ERROR)
		err = glGetError();
	return first;
}

int
bare_semaphore_new(struct bare_vulkan *v, struct bare_semaphore *s,
		   char *msg, size_t size)
{
	static bare_PFNGLCREATESEMAPHORESNV create;
	static bare_PFNGLSEMAPHOREPARAMETERIVNV parameter;
	VkSemaphoreTypeCreateInfo type = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
		.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
	};
	VkExportSemaphoreCreateInfo export = {
		.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
		.pNext = &type,
		.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	VkSemaphoreCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
		.pNext = &export,
	};
	VkSemaphoreGetFdInfoKHR fd_info = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
		.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
	const GLint timeline = BARE_GL_SEMAPHORE_TYPE_TIMELINE_NV;
	char buf[256];
	CUresult cres;
	GLenum err;
	int fd = -1;

	memset(s, 0, sizeof(*s));
	if (!create) {
		create = (bare_PFNGLCREATESEMAPHORESNV)eglGetProcAddress(
			"glCreateSemaphoresNV");
		parameter = (bare_PFNGLSEMAPHOREPARAMETERIVNV)eglGetProcAddress(
			"glSemaphoreParameterivNV");
	}
	if (!create || !parameter)
		return bare_fail(msg, size,
				 "bare: GL has no glCreateSemaphoresNV");
	if (vkCreateSemaphore(v->device, &info, NULL, &s->vk) != VK_SUCCESS) {
		s->vk = VK_NULL_HANDLE;
		return bare_fail(msg, size,
				 "bare: vkCreateSemaphore (timeline, "
				 "OPAQUE_FD)");
	}
	fd_info.semaphore = s->vk;
	if (v->get_fd(v->device, &fd_info, &fd) != VK_SUCCESS)
		return bare_fail(msg, size, "bare: vkGetSemaphoreFdKHR");
	/* The type before the import: it is fixed at creation. */
	create(1, &s->gl);
	parameter(s->gl, BARE_GL_SEMAPHORE_TYPE_NV, &timeline);
	glImportSemaphoreFdEXT(s->gl, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
	err = bare_gl_error();
	if (err != GL_NO_ERROR) {
		close(fd);
		return bare_fail(msg, size,
				 "GL error 0x%04x bare: glImportSemaphoreFdEXT "
				 "(timeline)",
				 err);
	}
	if (v->get_fd(v->device, &fd_info, &fd) != VK_SUCCESS)
		return bare_fail(msg, size, "bare: vkGetSemaphoreFdKHR");
	memset(&desc, 0, sizeof(desc));
	desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
	desc.handle.fd = fd;
	cres = CU(cuImportExternalSemaphore)(&s->cu, &desc);
	if (cres != CUDA_SUCCESS) {
		close(fd);
		s->cu = NULL;
		return bare_fail(msg, size,
				 "cuImportExternalSemaphore (timeline): %s",
				 tools_cuda_result(cres, buf, sizeof(buf)));
	}
	return 0;
}

void
bare_semaphore_free(struct bare_vulkan *v, struct bare_semaphore *s)
{
	if (s->cu)
		CU(cuDestroyExternalSemaphore)(s->cu);
	if (s->gl)
		glDeleteSemaphoresEXT(1, &s->gl);
	if (s->vk)
		vkDestroySemaphore(v->device, s->vk, NULL);
	memset(s, 0, sizeof(*s));
}

void
bare_gl_semaphore(bool signal, const struct bare_semaphore *s,
		  const GLuint *textures, unsigned int count)
{
	static const GLenum layouts[BARE_MAX_TEXTURES] = {
		GL_LAYOUT_GENERAL_EXT, GL_LAYOUT_GENERAL_EXT,
		GL_LAYOUT_GENERAL_EXT, GL_LAYOUT_GENERAL_EXT
	};
	GLuint64 value = s->value;

	if (count > BARE_MAX_TEXTURES)
		count = BARE_MAX_TEXTURES;
	glSemaphoreParameterui64vEXT(s->gl, BARE_GL_TIMELINE_SEMAPHORE_VALUE_NV,
				     &value);
	if (signal)
		glSignalSemaphoreEXT(s->gl, 0, NULL, count, textures, layouts);
	else
		glWaitSemaphoreEXT(s->gl, 0, NULL, count, textures, layouts);
}
