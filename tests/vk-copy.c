/*
 * Tests only: copy a Vulkan image to and from the host (vk-copy.h). Built
 * into the tests' library, never into libglcuda.
 * SPDX-License-Identifier: MIT
 */
#include "vk/vk-private.h"
#include "vk-copy.h"

#include <errno.h>
#include <string.h>

/* vk_image_read/write wait at most this long for the copy. */
#define VK_EXPORTER_COPY_TIMEOUT_NS (10ull * 1000 * 1000 * 1000)

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
		.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
			 VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	res = VK(vk, CreateBuffer, vk->device, &info, NULL, &s->buffer);
	if (res != VK_SUCCESS) {
		s->buffer = VK_NULL_HANDLE;
		return vk_call_fail(vk, res, "vkCreateBuffer", "(staging)");
	}
	vk->fn.GetBufferMemoryRequirements(vk->device, s->buffer, &reqs);
	type = vk_find_memory_type(vk, reqs.memoryTypeBits,
				   VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
				   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
	s->coherent = type >= 0;
	if (type < 0)
		type = vk_find_memory_type(vk, reqs.memoryTypeBits,
					   VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
	if (type < 0)
		return vk_fail(vk, GLCUDA_ERROR_VULKAN,
			       "no host-visible Vulkan memory type for a "
			       "staging buffer on %s",
			       vk->info.name);

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
	res = VK(vk, MapMemory, vk->device, s->memory, 0, VK_WHOLE_SIZE, 0,
		 &s->map);
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
	VkFenceCreateInfo fence = {
		.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO
	};
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
		return vk_fail(vk, -EINVAL,
			       "%s: %zu bytes given, a %ux%u %s image "
			       "needs %zu",
			       call, size, img->width, img->height, fmt->name,
			       need);
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
	/* Depth images are copied through their depth aspect. */
	const VkImageAspectFlags aspect = img->format == VK_FORMAT_D32_SFLOAT
						  ? VK_IMAGE_ASPECT_DEPTH_BIT
						  : VK_IMAGE_ASPECT_COLOR_BIT;
	VkImageMemoryBarrier before = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_MEMORY_READ_BIT |
				 VK_ACCESS_MEMORY_WRITE_BIT,
		.dstAccessMask = to_image ? VK_ACCESS_TRANSFER_WRITE_BIT
					  : VK_ACCESS_TRANSFER_READ_BIT,
		.oldLayout = to_image ? VK_IMAGE_LAYOUT_UNDEFINED
				      : VK_IMAGE_LAYOUT_GENERAL,
		.newLayout = VK_IMAGE_LAYOUT_GENERAL,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = img->image,
		.subresourceRange = { aspect, 0, 1, 0, 1 },
	};
	vk->fn.CmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
				  VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL,
				  0, NULL, 1, &before);

	VkBufferImageCopy region = {
		.bufferOffset = 0,
		.bufferRowLength = 0,   /* tightly packed */
		.bufferImageHeight = 0,
		.imageSubresource = { aspect, 0, 0, 1 },
		.imageExtent = { img->width, img->height, 1 },
	};
	if (to_image)
		vk->fn.CmdCopyBufferToImage(cmd, s->buffer, img->image,
					    VK_IMAGE_LAYOUT_GENERAL, 1,
					    &region);
	else
		vk->fn.CmdCopyImageToBuffer(cmd, img->image,
					    VK_IMAGE_LAYOUT_GENERAL, s->buffer,
					    1, &region);

	/* The copy complete and visible to whatever uses the image next,
	 * and (for a read) the buffer visible to the host. */
	VkImageMemoryBarrier after = before;
	after.srcAccessMask = to_image ? VK_ACCESS_TRANSFER_WRITE_BIT
				       : VK_ACCESS_TRANSFER_READ_BIT;
	after.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT |
			      VK_ACCESS_MEMORY_WRITE_BIT;
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
	vk->fn.CmdPipelineBarrier(
		cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
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
				    to_image ? "(image upload)"
					     : "(image read-back)");
	}
	return 0;
}

/* A staging buffer whose memory is not host-coherent: the host's writes
 * made visible to the device (to_device: flushed), or the device's to the
 * host (invalidated). */
static int
staging_sync(struct vk_exporter *vk, const struct staging *s, bool to_device)
{
	VkMappedMemoryRange range = {
		.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
		.memory = s->memory,
		.size = VK_WHOLE_SIZE,
	};
	VkResult res;

	if (s->coherent)
		return 0;
	if (to_device)
		res = VK(vk, FlushMappedMemoryRanges, vk->device, 1, &range);
	else
		res = VK(vk, InvalidateMappedMemoryRanges, vk->device, 1,
			 &range);
	if (res != VK_SUCCESS)
		return vk_call_fail(vk, res,
				    to_device
					    ? "vkFlushMappedMemoryRanges"
					    : "vkInvalidateMappedMemoryRanges",
				    NULL);
	return 0;
}

/* The image's pixels through a staging buffer: src uploaded into it, or
 * (src NULL) read back into dst. */
static int
image_copy(struct vk_exporter *vk, const struct vk_image *img,
	   const struct format_info *fmt, const void *src, void *dst,
	   size_t size)
{
	const bool to_image = src != NULL;
	size_t bytes = (size_t)img->width * img->height * fmt->bytes_per_pixel;
	struct staging s = { 0 };
	int ret;

	ret = copy_check_args(vk, img, fmt, size,
			      to_image ? "vk_image_write" : "vk_image_read");
	if (ret)
		return ret;
	ret = staging_create(vk, bytes, &s);
	if (!ret && to_image) {
		memcpy(s.map, src, bytes);
		ret = staging_sync(vk, &s, true);
	}
	if (!ret)
		ret = copy_run(vk, img, &s, to_image);
	if (!ret && !to_image) {
		ret = staging_sync(vk, &s, false);
		if (!ret)
			memcpy(dst, s.map, bytes);
	}
	staging_destroy(vk, &s);
	return ret;
}

int
vk_image_read(struct vk_exporter *vk, const struct vk_image *img,
	      const struct format_info *fmt, void *dst, size_t size)
{
	return image_copy(vk, img, fmt, NULL, dst, size);
}

int
vk_image_write(struct vk_exporter *vk, const struct vk_image *img,
	       const struct format_info *fmt, const void *src, size_t size)
{
	return image_copy(vk, img, fmt, src, NULL, size);
}
