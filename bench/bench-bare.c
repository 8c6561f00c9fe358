/*
 * glcuda-bench: the bare path, the driver calls that glcuda's ring makes
 * per frame in the timeline sync mode, made by hand: the floor under
 * glcuda's in-call CPU, measured the same way in the same run.
 * SPDX-License-Identifier: MIT
 *
 * Per frame, as glcuda_frame_submit, glcuda_frame_complete and
 * glcuda_frame_wait_gl make them: GL signals the slot's GL->CUDA timeline
 * naming its input and output textures (glSemaphoreParameterui64vEXT,
 * glSignalSemaphoreEXT) and flushes; one cuCtxPushCurrent; the slot's
 * stream waits (cuWaitExternalSemaphoresAsync); the kernel, not counted,
 * as on every path; CUDA signals the CUDA->GL timeline
 * (cuSignalExternalSemaphoresAsync), records an event (cuEventRecord) and
 * launches a host function that writes an eventfd (cuLaunchHostFunc); one
 * cuCtxPopCurrent. Once `depth` frames are in flight, GL waits for the
 * oldest (glSemaphoreParameterui64vEXT, glWaitSemaphoreEXT), which is then
 * composited. Nothing else: no state checks, no error queries.
 *
 * The memory is a pair of glcuda shared images per slot, made once and
 * never handed off through glcuda; the semaphores are the bench's own:
 * Vulkan timeline semaphores exported as OPAQUE_FD and imported into GL
 * (GL_NV_timeline_semaphore) and CUDA, as glcuda imports its own.
 */
#include "bench.h"

#include <sys/eventfd.h>
#include <vulkan/vulkan.h>

/* GL_NV_timeline_semaphore, which epoxy does not know. */
#define BARE_GL_TIMELINE_SEMAPHORE_VALUE_NV 0x9595
#define BARE_GL_SEMAPHORE_TYPE_NV 0x95B3
#define BARE_GL_SEMAPHORE_TYPE_TIMELINE_NV 0x95B5

typedef void (*bare_PFNGLCREATESEMAPHORESNV)(GLsizei n, GLuint *semaphores);
typedef void (*bare_PFNGLSEMAPHOREPARAMETERIVNV)(GLuint semaphore,
						GLenum pname,
						const GLint *params);

/* One direction of a slot's hand-off: a Vulkan timeline imported into GL
 * and CUDA, and the last value signalled on it. */
struct bare_semaphore {
	VkSemaphore vk;
	GLuint gl;
	CUexternalSemaphore cu;
	uint64_t value;
};

struct bare_slot {
	struct glcuda_image *in, *out;
	GLuint textures[2];
	struct bare_semaphore to_cuda, to_gl;
	CUstream stream;
	CUevent done;
	uint64_t frame;
};

struct bare {
	VkInstance instance;
	VkDevice device;
	PFN_vkGetSemaphoreFdKHR get_fd;
	struct bare_slot slots[MAX_DEPTH];
	unsigned int slot_count;
	/* Frames in flight, oldest first, by slot. */
	unsigned int fifo[MAX_DEPTH], fifo_len;
	int efd;
};

/* The Vulkan device with the GL context's UUID, with exportable timeline
 * semaphores. */
static int
bare_vulkan_new(struct bare *b, const uint8_t *uuid)
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
		.enabledExtensionCount = ARRAY_LENGTH(extensions),
		.ppEnabledExtensionNames = extensions,
	};
	VkPhysicalDevice devices[16], chosen = VK_NULL_HANDLE;
	uint32_t count = ARRAY_LENGTH(devices);
	VkResult res;

	res = vkCreateInstance(&instance_info, NULL, &b->instance);
	if (res != VK_SUCCESS) {
		b->instance = VK_NULL_HANDLE;
		return fail("bare: vkCreateInstance (Vulkan 1.2): %d", res);
	}
	res = vkEnumeratePhysicalDevices(b->instance, &count, devices);
	if (res != VK_SUCCESS && res != VK_INCOMPLETE)
		return fail("bare: vkEnumeratePhysicalDevices: %d", res);
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
		return fail("bare: no Vulkan device has the GL context's UUID");
	res = vkCreateDevice(chosen, &device_info, NULL, &b->device);
	if (res != VK_SUCCESS) {
		b->device = VK_NULL_HANDLE;
		return fail("bare: vkCreateDevice (timeline semaphores, "
			    "VK_KHR_external_semaphore_fd): %d",
			    res);
	}
	b->get_fd = (PFN_vkGetSemaphoreFdKHR)vkGetDeviceProcAddr(
		b->device, "vkGetSemaphoreFdKHR");
	if (!b->get_fd)
		return fail("bare: no vkGetSemaphoreFdKHR");
	return 0;
}

/* A timeline semaphore, one exported fd imported into GL and another
 * into CUDA. */
static int
bare_semaphore_new(struct bare *b, struct bare_semaphore *s)
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
	CUresult cres;
	int fd = -1;

	if (!create) {
		create = (bare_PFNGLCREATESEMAPHORESNV)eglGetProcAddress(
			"glCreateSemaphoresNV");
		parameter = (bare_PFNGLSEMAPHOREPARAMETERIVNV)eglGetProcAddress(
			"glSemaphoreParameterivNV");
	}
	if (!create || !parameter)
		return fail("bare: GL has no glCreateSemaphoresNV");
	if (vkCreateSemaphore(b->device, &info, NULL, &s->vk) != VK_SUCCESS) {
		s->vk = VK_NULL_HANDLE;
		return fail("bare: vkCreateSemaphore (timeline, OPAQUE_FD)");
	}
	fd_info.semaphore = s->vk;
	if (b->get_fd(b->device, &fd_info, &fd) != VK_SUCCESS)
		return fail("bare: vkGetSemaphoreFdKHR");
	/* The type before the import: it is fixed at creation. */
	create(1, &s->gl);
	parameter(s->gl, BARE_GL_SEMAPHORE_TYPE_NV, &timeline);
	glImportSemaphoreFdEXT(s->gl, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
	if (gl_check("bare: glImportSemaphoreFdEXT (timeline)") < 0) {
		close(fd);
		return -1;
	}
	if (b->get_fd(b->device, &fd_info, &fd) != VK_SUCCESS)
		return fail("bare: vkGetSemaphoreFdKHR");
	memset(&desc, 0, sizeof(desc));
	desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
	desc.handle.fd = fd;
	cres = CU(cuImportExternalSemaphore)(&s->cu, &desc);
	if (cres != CUDA_SUCCESS) {
		close(fd);
		s->cu = NULL;
		return cu_check(cres, "cuImportExternalSemaphore (timeline)");
	}
	return 0;
}

static void
bare_semaphore_free(struct bare *b, struct bare_semaphore *s)
{
	if (s->cu)
		CU(cuDestroyExternalSemaphore)(s->cu);
	if (s->gl)
		glDeleteSemaphoresEXT(1, &s->gl);
	if (s->vk)
		vkDestroySemaphore(b->device, s->vk, NULL);
	memset(s, 0, sizeof(*s));
}

static int
bare_image_new(const struct group *g, struct glcuda_image **out)
{
	struct glcuda_image_desc desc;

	glcuda_image_desc_init(&desc);
	desc.width = g->width;
	desc.height = g->height;
	desc.format = g->format;
	desc.flags = GLCUDA_IMAGE_FLAG_NO_CUDA_TEXTURE;
	return glcuda_check(glcuda_image_new(main_dev, &desc, out),
			    "glcuda_image_new");
}

int
bare_setup(struct run_ctx *c)
{
	const struct glcuda_caps *caps = glcuda_device_get_caps(main_dev);
	struct bare *b;

	c->dev = main_dev;
	if (!epoxy_has_gl_extension("GL_EXT_semaphore_fd") ||
	    !epoxy_has_gl_extension("GL_NV_timeline_semaphore"))
		return fail("bare: GL has no GL_EXT_semaphore_fd with "
			    "GL_NV_timeline_semaphore");
	if (!CU(cuLaunchHostFunc))
		return fail("bare: the CUDA driver has no cuLaunchHostFunc");
	b = calloc(1, sizeof(*b));
	if (!b)
		return fail("bare: out of memory");
	c->bare = b;
	b->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (b->efd < 0)
		return fail("bare: eventfd: %s", strerror(errno));
	if (bare_vulkan_new(b, caps->device_uuid) < 0)
		return -1;
	b->slot_count = c->cfg.depth ? c->cfg.depth : 1;
	for (unsigned int i = 0; i < b->slot_count; i++) {
		struct bare_slot *s = &b->slots[i];

		if (bare_image_new(c->g, &s->in) < 0 ||
		    bare_image_new(c->g, &s->out) < 0 ||
		    bare_semaphore_new(b, &s->to_cuda) < 0 ||
		    bare_semaphore_new(b, &s->to_gl) < 0)
			return -1;
		s->textures[0] = glcuda_image_get_gl_texture(s->in);
		s->textures[1] = glcuda_image_get_gl_texture(s->out);
		CU_TRY(cuStreamCreate, &s->stream, CU_STREAM_NON_BLOCKING);
		CU_TRY(cuEventCreate, &s->done, CU_EVENT_DISABLE_TIMING);
	}
	b->fifo_len = 0;
	return 0;
}

/* What glcuda's frame-done host function does on the driver's thread:
 * tell the application's event loop. */
static void CUDA_CB
bare_host_fn(void *data)
{
	uint64_t one = 1;

	if (write(*(int *)data, &one, sizeof(one)) < 0) {
		/* The counter cannot overflow in practice. */
	}
}

/* GL's semaphore call as glcuda makes it: the value, then the signal or
 * the wait naming both textures, in the GENERAL layout. */
static void
bare_gl_semaphore(bool signal, struct bare_semaphore *sem,
		  const GLuint *textures)
{
	static const GLenum layouts[2] = { GL_LAYOUT_GENERAL_EXT,
					   GL_LAYOUT_GENERAL_EXT };
	GLuint64 value = sem->value;

	glSemaphoreParameterui64vEXT(sem->gl,
				     BARE_GL_TIMELINE_SEMAPHORE_VALUE_NV,
				     &value);
	if (signal)
		glSignalSemaphoreEXT(sem->gl, 0, NULL, 2, textures, layouts);
	else
		glWaitSemaphoreEXT(sem->gl, 0, NULL, 2, textures, layouts);
}

/* GL waits for the oldest frame in flight, which is then composited. */
static int
bare_present_oldest(struct run_ctx *c)
{
	struct bare *b = c->bare;
	struct bare_slot *s = &b->slots[b->fifo[0]];

	memmove(&b->fifo[0], &b->fifo[1],
		(b->fifo_len - 1) * sizeof(b->fifo[0]));
	b->fifo_len--;
	METER(interop_meter, bare_gl_semaphore(false, &s->to_gl, s->textures));
	present_texture(c, s->textures[1], s->frame);
	return 0;
}

int
bare_frame_fn(struct run_ctx *c, uint64_t n)
{
	struct bare *b = c->bare;
	unsigned int slot = (unsigned int)(n % b->slot_count);
	struct bare_slot *s = &b->slots[slot];
	CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wait;
	CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS signal;
	CUresult res[4];
	CUcontext popped;

	if (pace_wait() < 0)
		return -1;
	/* The slot's previous frame was composited when `depth` frames were
	 * in flight: GL's signal below comes after that composite. */
	gl_render(glcuda_image_get_gl_framebuffer(s->in, 0), c->g, n);
	s->frame = n;
	memset(&wait, 0, sizeof(wait));
	memset(&signal, 0, sizeof(signal));
	s->to_cuda.value++;
	wait.params.fence.value = s->to_cuda.value;
	METER(interop_meter, {
		bare_gl_semaphore(true, &s->to_cuda, s->textures);
		glFlush();
		res[0] = CU(cuCtxPushCurrent)(cu.ctx);
		res[1] = CU(cuWaitExternalSemaphoresAsync)(&s->to_cuda.cu,
							   &wait, 1,
							   s->stream);
	});
	if (cu_check(res[0], "cuCtxPushCurrent") < 0 ||
	    cu_check(res[1], "cuWaitExternalSemaphoresAsync") < 0)
		return -1;
	if (run_kernel(c->g, c->kernel, glcuda_image_get_cuda_surface(s->in),
		       glcuda_image_get_cuda_surface(s->out), slot,
		       s->stream) < 0)
		return -1;
	s->to_gl.value++;
	signal.params.fence.value = s->to_gl.value;
	METER(interop_meter, {
		res[0] = CU(cuSignalExternalSemaphoresAsync)(&s->to_gl.cu,
							     &signal, 1,
							     s->stream);
		res[1] = CU(cuEventRecord)(s->done, s->stream);
		res[2] = CU(cuLaunchHostFunc)(s->stream, bare_host_fn,
					      &b->efd);
		res[3] = CU(cuCtxPopCurrent)(&popped);
	});
	if (cu_check(res[0], "cuSignalExternalSemaphoresAsync") < 0 ||
	    cu_check(res[1], "cuEventRecord") < 0 ||
	    cu_check(res[2], "cuLaunchHostFunc") < 0 ||
	    cu_check(res[3], "cuCtxPopCurrent") < 0)
		return -1;
	b->fifo[b->fifo_len++] = slot;
	if (b->fifo_len >= b->slot_count && bare_present_oldest(c) < 0)
		return -1;
	pace_push();
	return 0;
}

int
bare_drain(struct run_ctx *c)
{
	while (c->bare && c->bare->fifo_len)
		if (bare_present_oldest(c) < 0)
			return -1;
	return 0;
}

void
bare_teardown(struct run_ctx *c)
{
	struct bare *b = c->bare;

	if (!b)
		return;
	/* Nothing may still wait on or signal what goes. */
	glFinish();
	for (unsigned int i = 0; i < MAX_DEPTH; i++)
		if (b->slots[i].stream)
			CU(cuStreamSynchronize)(b->slots[i].stream);
	for (unsigned int i = 0; i < MAX_DEPTH; i++) {
		struct bare_slot *s = &b->slots[i];

		if (b->device) {
			bare_semaphore_free(b, &s->to_cuda);
			bare_semaphore_free(b, &s->to_gl);
		}
		if (s->done)
			CU(cuEventDestroy)(s->done);
		if (s->stream)
			CU(cuStreamDestroy)(s->stream);
		glcuda_image_destroy(s->in);
		glcuda_image_destroy(s->out);
	}
	if (b->device)
		vkDestroyDevice(b->device, NULL);
	if (b->instance)
		vkDestroyInstance(b->instance, NULL);
	if (b->efd >= 0)
		close(b->efd);
	free(b);
	c->bare = NULL;
}
