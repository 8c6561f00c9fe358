/*
 * Tests only: Vulkan image copies, built into the tests' library.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TESTS_VK_COPY_H
#define GLCUDA_TESTS_VK_COPY_H

#include <stddef.h>

#include "vk/vk-exporter.h"

/* They block: copy the whole image to dst, tightly
 * packed rows of width * bytes_per_pixel, via a buffer and a one-off
 * command buffer; or upload src into it. The image is treated as being in
 * VK_IMAGE_LAYOUT_GENERAL (what GL leaves it in with GL_LAYOUT_GENERAL_EXT)
 * and left in GENERAL. vk_image_write replaces every pixel, so it discards
 * the old contents (barrier from UNDEFINED): it is valid on a new image too.
 * vk_image_read needs the image written before (by GL, CUDA or a write).
 * Both check that fmt is the image's format and that size is at least
 * width * height * bytes_per_pixel (-EINVAL otherwise). */
int vk_image_read(struct vk_exporter *vk, const struct vk_image *img,
		  const struct format_info *fmt, void *dst, size_t size);
int vk_image_write(struct vk_exporter *vk, const struct vk_image *img,
		   const struct format_info *fmt, const void *src, size_t size);

#endif
