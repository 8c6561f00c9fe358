/*
 * The Vulkan exporter on whatever Vulkan device the machine has (lavapipe in
 * CI, the NVIDIA GPU on the GPU machine): device matching and its errors,
 * exportable images of every glcuda format with exact pixel round trips,
 * exportable semaphores, fd accounting, and every error path through fault
 * injection.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "test-common.h"
#include "vk/vk-exporter.h"
#include "vk-copy.h"

#define MAX_DEVICES 16

static struct vk_physical_info devices[MAX_DEVICES];
static unsigned int ndevices;
/* The device the tests export from: the first that can export RGBA8. */
static const struct vk_physical_info *chosen;

static struct glcuda_device *
quiet_device(void)
{
	struct glcuda_device *dev = calloc(1, sizeof(*dev));

	ck_assert_ptr_nonnull(dev);
	/* Above every priority: the errors the tests provoke stay quiet. */
	dev->errors.log_priority = GLCUDA_LOG_PRIORITY_ERROR + 1;
	/* glcuda keeps one Vulkan instance for the process (it holds driver
	 * fds of its own): make it before a test counts fds. */
	if (chosen) {
		struct vk_exporter *warm = NULL;
		if (vk_exporter_new(&dev->errors, chosen->device_uuid,
				    chosen->driver_uuid, false, &warm) == 0)
			vk_exporter_destroy(warm);
		error_clear();
		dev->errors.last_error[0] = '\0';
	}
	return dev;
}

/* Does msg name a Vulkan entry point ("vkCreateImage")? */
static bool
names_vk_call(const char *msg)
{
	for (const char *p = strstr(msg, "vk"); p; p = strstr(p + 1, "vk"))
		if (isupper((unsigned char)p[2]))
			return true;
	return false;
}

static struct vk_exporter *
exporter_new(struct glcuda_device *dev)
{
	struct vk_exporter *vk = NULL;
	int ret = vk_exporter_new(&dev->errors, chosen->device_uuid,
				  chosen->driver_uuid, false, &vk);

	ck_assert_msg(ret == 0, "vk_exporter_new: %s: %s",
		      glcuda_error_get_name(ret), glcuda_get_last_error());
	ck_assert_ptr_nonnull(vk);
	return vk;
}

/* A pattern that differs per byte, per row and per format, so that a wrong
 * row pitch, a swapped channel or a stale image shows. Every bit pattern is
 * fine, NaNs included: copies between buffers and images are bit-exact. */
static void
fill_pattern(uint8_t *p, size_t n, unsigned int seed)
{
	uint32_t x = 0x9e3779b9u * (seed + 1);

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

START_TEST(test_list_devices)
{
	struct vk_physical_info again[MAX_DEVICES];
	char err[256];
	int n;

	ck_assert_uint_gt(ndevices, 0);
	n = vk_list_physical_devices(NULL, 0, err, sizeof(err));
	ck_assert_int_eq(n, (int)ndevices);
	n = vk_list_physical_devices(again, MAX_DEVICES, err, sizeof(err));
	ck_assert_int_eq(n, (int)ndevices);
	for (unsigned int i = 0; i < ndevices && i < MAX_DEVICES; i++) {
		static const uint8_t zero[VK_UUID_SIZE];
		char uuid[37];

		ck_assert_str_ne(devices[i].name, "");
		ck_assert_uint_ge(VK_API_VERSION_MINOR(devices[i].api_version) +
					  10 * VK_API_VERSION_MAJOR(
						       devices[i].api_version),
				  10);
		ck_assert(memcmp(devices[i].device_uuid, zero, VK_UUID_SIZE) !=
			  0);
		ck_assert_mem_eq(again[i].device_uuid, devices[i].device_uuid,
				 VK_UUID_SIZE);
		ck_assert_mem_eq(again[i].driver_uuid, devices[i].driver_uuid,
				 VK_UUID_SIZE);
		uuid_format(devices[i].device_uuid, uuid);
		printf("vulkan device %u: %s (%s, %s) deviceUUID %s api %u.%u "
		       "mem_fd %d sem_fd %d timeline "
		       "%d/%d binary %d rgba8 %d\n",
		       i, devices[i].name, devices[i].driver_name,
		       devices[i].driver_info, uuid,
		       VK_API_VERSION_MAJOR(devices[i].api_version),
		       VK_API_VERSION_MINOR(devices[i].api_version),
		       devices[i].has_external_memory_fd,
		       devices[i].has_external_semaphore_fd,
		       devices[i].has_timeline_semaphore,
		       devices[i].timeline_exportable,
		       devices[i].binary_exportable,
		       devices[i].rgba8_exportable);
	}
}
END_TEST

START_TEST(test_new_matching)
{
	/* quiet_device first: it makes the process's kept Vulkan instance,
	 * whose driver fds are not this test's. */
	struct glcuda_device *dev = quiet_device();
	int fds = test_count_fds();
	struct vk_exporter *vk = exporter_new(dev);
	const struct vk_physical_info *info = vk_exporter_info(vk);

	ck_assert_mem_eq(info->device_uuid, chosen->device_uuid, VK_UUID_SIZE);
	ck_assert_mem_eq(info->driver_uuid, chosen->driver_uuid, VK_UUID_SIZE);
	ck_assert_str_eq(info->name, chosen->name);
	ck_assert(info->has_external_memory_fd);
	ck_assert(info->rgba8_exportable);
	ck_assert_uint_ge(vk_exporter_max_image_size(vk), 4096);
	ck_assert_int_eq(vk_exporter_has_binary(vk), info->binary_exportable);
	ck_assert_int_eq(vk_exporter_has_timeline(vk),
			 info->has_timeline_semaphore &&
				 info->timeline_exportable);
	ck_assert_str_eq(dev->errors.last_error, "");
	vk_exporter_destroy(vk);
	vk_exporter_destroy(NULL);
	free(dev);
	ck_assert_int_eq(test_count_fds(), fds);
}
END_TEST

START_TEST(test_wrong_device)
{
	struct glcuda_device *dev = quiet_device();
	struct vk_exporter *vk = (struct vk_exporter *)&dev; /* must stay */
	uint8_t uuid[VK_UUID_SIZE];
	char text[37];
	int fds = test_count_fds();
	int ret;

	/* A UUID no device has; byte 5 zero to prove memcmp is used. */
	memcpy(uuid, chosen->device_uuid, sizeof(uuid));
	for (unsigned int i = 0; i < sizeof(uuid); i++)
		uuid[i] ^= 0xa5;
	uuid[5] = 0;
	ret = vk_exporter_new(&dev->errors, uuid, chosen->driver_uuid, false,
			      &vk);
	ck_assert_int_eq(ret, GLCUDA_ERROR_NO_MATCHING_VULKAN_DEVICE);
	ck_assert_ptr_eq(vk, (struct vk_exporter *)&dev);
	ck_assert_str_eq(dev->errors.last_error, glcuda_get_last_error());

	uuid_format(uuid, text);
	ck_assert_msg(strstr(dev->errors.last_error, text),
		      "GL's UUID %s missing: %s", text, dev->errors.last_error);
	for (unsigned int i = 0; i < ndevices && i < MAX_DEVICES; i++) {
		uuid_format(devices[i].device_uuid, text);
		ck_assert_msg(strstr(dev->errors.last_error, devices[i].name),
			      "device %s missing: %s", devices[i].name,
			      dev->errors.last_error);
		ck_assert_msg(strstr(dev->errors.last_error, text),
			      "UUID %s missing: %s", text,
			      dev->errors.last_error);
	}
	ck_assert_ptr_nonnull(
		strstr(dev->errors.last_error, "__NV_PRIME_RENDER_OFFLOAD"));
	ck_assert_ptr_nonnull(
		strstr(dev->errors.last_error, "VK_DRIVER_FILES"));
	ck_assert_int_eq(test_count_fds(), fds);
	free(dev);
}
END_TEST

START_TEST(test_driver_mismatch)
{
	struct glcuda_device *dev = quiet_device();
	struct vk_exporter *vk = NULL;
	uint8_t driver[VK_UUID_SIZE];
	char text[37];
	int fds = test_count_fds();
	int ret;

	memcpy(driver, chosen->driver_uuid, sizeof(driver));
	driver[15] ^= 0x01;
	ret = vk_exporter_new(&dev->errors, chosen->device_uuid, driver, false,
			      &vk);
	ck_assert_int_eq(ret, GLCUDA_ERROR_DRIVER_MISMATCH);
	ck_assert_ptr_null(vk);
	uuid_format(driver, text);
	ck_assert_msg(strstr(dev->errors.last_error, text),
		      "GL driver UUID missing: %s", dev->errors.last_error);
	uuid_format(chosen->driver_uuid, text);
	ck_assert_msg(strstr(dev->errors.last_error, text),
		      "Vulkan driver UUID missing: %s", dev->errors.last_error);
	ck_assert_int_eq(test_count_fds(), fds);

	/* No driver UUID to compare with: the device alone decides. */
	ret = vk_exporter_new(&dev->errors, chosen->device_uuid, NULL, false,
			      &vk);
	ck_assert_int_eq(ret, 0);
	vk_exporter_destroy(vk);
	free(dev);
	ck_assert_int_eq(test_count_fds(), fds);
}
END_TEST

START_TEST(test_formats)
{
	enum glcuda_format format = (enum glcuda_format)_i;
	const struct format_info *fmt = format_info(format);
	/* Odd sizes: rows whose pitch is no power of two. */
	const uint32_t w = 67, h = 33;
	struct glcuda_device *dev = quiet_device();
	struct vk_exporter *vk;
	struct vk_image img = { 0 };
	size_t size;
	uint8_t *src, *dst;
	int fds = test_count_fds();
	int fd[2], ret;

	ck_assert_ptr_nonnull(fmt);
	size = (size_t)w * h * fmt->bytes_per_pixel;
	vk = exporter_new(dev);

	ret = vk_exporter_check_format(vk, fmt, w, h, true);
	ck_assert_msg(ret == 0, "%s: %s", fmt->name, glcuda_get_last_error());
	ret = vk_image_create(vk, fmt, w, h, 1, &img);
	ck_assert_msg(ret == 0, "%s: %s", fmt->name, glcuda_get_last_error());
	ck_assert(img.image != VK_NULL_HANDLE);
	ck_assert(img.memory != VK_NULL_HANDLE);
	ck_assert_uint_ge(img.size, size);
	ck_assert_int_eq(img.format, fmt->vk_format);
	ck_assert_uint_eq(img.width, w);
	ck_assert_uint_eq(img.height, h);

	/* One fd per importer, each a new one. */
	int before = test_count_fds();
	ck_assert_int_eq(vk_image_export_fd(vk, &img, &fd[0]), 0);
	ck_assert_int_eq(vk_image_export_fd(vk, &img, &fd[1]), 0);
	ck_assert_int_ge(fd[0], 0);
	ck_assert_int_ge(fd[1], 0);
	ck_assert_int_ne(fd[0], fd[1]);
	ck_assert_int_eq(test_count_fds(), before + 2);
	close(fd[0]);
	close(fd[1]);
	ck_assert_int_eq(test_count_fds(), before);

	src = malloc(size);
	dst = malloc(size);
	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(dst);
	fill_pattern(src, size, (unsigned int)format);
	memset(dst, 0xcd, size);
	ck_assert_msg(vk_image_write(vk, &img, fmt, src, size) == 0, "%s",
		      glcuda_get_last_error());
	ck_assert_msg(vk_image_read(vk, &img, fmt, dst, size) == 0, "%s",
		      glcuda_get_last_error());
	ck_assert_msg(memcmp(src, dst, size) == 0, "%s: pixels differ",
		      fmt->name);

	/* A second upload replaces every pixel. */
	fill_pattern(src, size, (unsigned int)format + 100);
	ck_assert_int_eq(vk_image_write(vk, &img, fmt, src, size), 0);
	ck_assert_int_eq(vk_image_read(vk, &img, fmt, dst, size), 0);
	ck_assert_msg(memcmp(src, dst, size) == 0, "%s: pixels differ",
		      fmt->name);

	/* Too small a buffer is refused before any copy. */
	ret = vk_image_read(vk, &img, fmt, dst, size - 1);
	ck_assert_int_eq(ret, -EINVAL);

	vk_image_destroy(vk, &img);
	ck_assert(img.image == VK_NULL_HANDLE && img.memory == VK_NULL_HANDLE);
	vk_image_destroy(vk, &img); /* zeroed: harmless */
	vk_exporter_destroy(vk);
	free(src);
	free(dst);
	free(dev);
	ck_assert_int_eq(test_count_fds(), fds);
}
END_TEST

START_TEST(test_format_errors)
{
	/* A compressed format cannot be a colour attachment anywhere. */
	static const struct format_info depth = {
		.format = GLCUDA_FORMAT_INVALID,
		.name = "TEST_BC1",
		.vk_format = VK_FORMAT_BC1_RGBA_UNORM_BLOCK,
		.bytes_per_pixel = 8,
	};
	const struct format_info *rgba8 = format_info(GLCUDA_FORMAT_RGBA8);
	struct glcuda_device *dev = quiet_device();
	struct vk_exporter *vk = exporter_new(dev);
	struct vk_image img = { 0 };
	uint32_t big;
	char number[32];
	int ret;

	ret = vk_exporter_check_format(vk, &depth, 16, 16, true);
	ck_assert_int_eq(ret, GLCUDA_ERROR_UNSUPPORTED_FORMAT);
	snprintf(number, sizeof(number), "VkFormat %d",
		 VK_FORMAT_BC1_RGBA_UNORM_BLOCK);
	ck_assert_ptr_nonnull(strstr(dev->errors.last_error, "TEST_BC1"));
	ck_assert_ptr_nonnull(strstr(dev->errors.last_error, number));
	ck_assert_ptr_nonnull(
		strstr(dev->errors.last_error,
		       "vkGetPhysicalDeviceImageFormatProperties2"));

	ret = vk_image_create(vk, &depth, 16, 16, 1, &img);
	ck_assert_int_eq(ret, GLCUDA_ERROR_UNSUPPORTED_FORMAT);
	ck_assert(img.image == VK_NULL_HANDLE);

	/* Without record, nothing is written. */
	error_clear();
	dev->errors.last_error[0] = '\0';
	ret = vk_exporter_check_format(vk, &depth, 16, 16, false);
	ck_assert_int_eq(ret, GLCUDA_ERROR_UNSUPPORTED_FORMAT);
	ck_assert_str_eq(glcuda_get_last_error(), "");
	ck_assert_str_eq(dev->errors.last_error, "");

	/* Larger than the device allows. */
	big = vk_exporter_max_image_size(vk);
	ck_assert_uint_gt(big, 0);
	if (big < UINT32_MAX / 2) {
		ret = vk_exporter_check_format(vk, rgba8, big * 2 + 1, 1, true);
		ck_assert_int_eq(ret, GLCUDA_ERROR_UNSUPPORTED_FORMAT);
		ck_assert_ptr_nonnull(strstr(dev->errors.last_error, "RGBA8"));
	}
	ck_assert_int_eq(vk_exporter_check_format(vk, rgba8, 0, 16, true),
			 -EINVAL);

	/* Copies check the format and size they are given. */
	ck_assert_int_eq(vk_image_create(vk, rgba8, 8, 8, 1, &img), 0);
	uint8_t buf[8 * 8 * 4];
	ck_assert_int_eq(vk_image_write(vk, &img, format_info(GLCUDA_FORMAT_R8),
					buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(vk_image_write(vk, &img, rgba8, buf, sizeof(buf) - 4),
			 -EINVAL);
	vk_image_destroy(vk, &img);
	vk_exporter_destroy(vk);
	free(dev);
}
END_TEST

START_TEST(test_semaphores)
{
	struct glcuda_device *dev = quiet_device();
	int fds = test_count_fds();
	struct vk_exporter *vk = exporter_new(dev);
	struct vk_semaphore sem = { 0 };
	uint64_t value = 1234;
	int fd[2], ret;

	if (vk_exporter_has_binary(vk)) {
		ck_assert_int_eq(vk_semaphore_create(vk, false, &sem), 0);
		ck_assert(sem.semaphore != VK_NULL_HANDLE);
		ck_assert(!sem.timeline);
		int before = test_count_fds();
		ck_assert_int_eq(vk_semaphore_export_fd(vk, &sem, &fd[0]), 0);
		ck_assert_int_eq(test_count_fds(), before + 1);
		close(fd[0]);
		/* Only timelines have a value. */
		ck_assert_int_eq(vk_semaphore_get_value(vk, &sem, &value),
				 -EINVAL);
		vk_semaphore_destroy(vk, &sem);
		ck_assert(sem.semaphore == VK_NULL_HANDLE);
	} else {
		ret = vk_semaphore_create(vk, false, &sem);
		ck_assert(ret == GLCUDA_ERROR_MISSING_VULKAN_EXTENSION ||
			  ret == GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE);
		ck_assert_ptr_nonnull(
			strstr(dev->errors.last_error, "OPAQUE_FD"));
		ck_assert(sem.semaphore == VK_NULL_HANDLE);
		printf("%s: binary semaphores not exportable: %s\n",
		       vk_exporter_info(vk)->name, dev->errors.last_error);
	}

	if (vk_exporter_has_timeline(vk)) {
		ck_assert_int_eq(vk_semaphore_create(vk, true, &sem), 0);
		ck_assert(sem.timeline);
		ck_assert_int_eq(vk_semaphore_get_value(vk, &sem, &value), 0);
		ck_assert_uint_eq(value, 0);
		int before = test_count_fds();
		ck_assert_int_eq(vk_semaphore_export_fd(vk, &sem, &fd[0]), 0);
		ck_assert_int_eq(vk_semaphore_export_fd(vk, &sem, &fd[1]), 0);
		ck_assert_int_ne(fd[0], fd[1]);
		ck_assert_int_eq(test_count_fds(), before + 2);
		close(fd[0]);
		close(fd[1]);
		vk_semaphore_destroy(vk, &sem);
	} else {
		ret = vk_semaphore_create(vk, true, &sem);
		ck_assert(ret == GLCUDA_ERROR_MISSING_VULKAN_EXTENSION ||
			  ret == GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE);
		ck_assert_ptr_nonnull(
			strstr(dev->errors.last_error, "timeline"));
		printf("%s: timeline semaphores not exportable: %s\n",
		       vk_exporter_info(vk)->name, dev->errors.last_error);
	}
	vk_semaphore_destroy(vk, &sem); /* zeroed: harmless */
	vk_exporter_destroy(vk);
	free(dev);
	ck_assert_int_eq(test_count_fds(), fds);
}
END_TEST

START_TEST(test_result_names)
{
	ck_assert_str_eq(vk_result_name(VK_ERROR_OUT_OF_DEVICE_MEMORY),
			 "VK_ERROR_OUT_OF_DEVICE_MEMORY (-2)");
	ck_assert_str_eq(vk_result_name(VK_SUCCESS), "VK_SUCCESS (0)");
	ck_assert_str_eq(vk_result_name((VkResult)-424242),
			 "VkResult (-424242)");
}
END_TEST

/* Specific mappings of results to glcuda errors, found by counting the
 * calls of a clean run first. */
START_TEST(test_error_mapping)
{
	struct glcuda_device *dev = quiet_device();
	struct vk_exporter *vk = NULL;
	const struct format_info *rgba8 = format_info(GLCUDA_FORMAT_RGBA8);
	struct vk_image img = { 0 };
	int ret;

	/* The process's instance exists already (quiet_device made it), so
	 * vkEnumeratePhysicalDevices is the first call. */
	fault_inject(FAULT_VULKAN, 1, VK_ERROR_INITIALIZATION_FAILED);
	ret = vk_exporter_new(&dev->errors, chosen->device_uuid,
			      chosen->driver_uuid, false, &vk);
	fault_disarm(FAULT_VULKAN);
	ck_assert_int_eq(ret, GLCUDA_ERROR_NO_VULKAN);
	ck_assert_ptr_nonnull(
		strstr(dev->errors.last_error, "vkEnumeratePhysicalDevices"));
	ck_assert_ptr_nonnull(strstr(dev->errors.last_error,
				     "VK_ERROR_INITIALIZATION_FAILED (-3)"));

	vk = exporter_new(dev);
	/* vk_image_create: the format query, then vkCreateImage. */
	fault_inject(FAULT_VULKAN, 0, VK_SUCCESS);
	ck_assert_int_eq(vk_image_create(vk, rgba8, 8, 8, 1, &img), 0);
	/* query, create, allocate, bind */
	ck_assert_uint_eq(fault_calls(FAULT_VULKAN), 4);
	vk_image_destroy(vk, &img);

	fault_inject(FAULT_VULKAN, 2, VK_ERROR_OUT_OF_DEVICE_MEMORY);
	ret = vk_image_create(vk, rgba8, 8, 8, 1, &img);
	ck_assert_int_eq(ret, GLCUDA_ERROR_VULKAN);
	ck_assert_ptr_nonnull(strstr(dev->errors.last_error, "vkCreateImage"));
	ck_assert_ptr_nonnull(strstr(dev->errors.last_error,
				     "VK_ERROR_OUT_OF_DEVICE_MEMORY (-2)"));
	ck_assert(!dev->errors.lost);

	fault_inject(FAULT_VULKAN, 3, VK_ERROR_DEVICE_LOST);
	ret = vk_image_create(vk, rgba8, 8, 8, 1, &img);
	ck_assert_int_eq(ret, GLCUDA_ERROR_DEVICE_LOST);
	ck_assert_ptr_nonnull(
		strstr(dev->errors.last_error, "vkAllocateMemory"));
	ck_assert(dev->errors.lost);
	ck_assert(img.image == VK_NULL_HANDLE);
	fault_disarm(FAULT_VULKAN);

	vk_exporter_destroy(vk);
	free(dev);
}
END_TEST

/* Everything the exporter does, in order; the first failure stops it and
 * what was made is destroyed. Returns 0 or the first error. */
static int
run_everything(struct glcuda_device *dev, bool semaphores)
{
	const struct format_info *fmt = format_info(GLCUDA_FORMAT_RGBA8);
	struct vk_exporter *vk = NULL;
	struct vk_image img = { 0 };
	struct vk_semaphore bin = { 0 }, tl = { 0 };
	uint8_t pixels[16 * 8 * 4], back[sizeof(pixels)];
	uint64_t value;
	int ret, fd = -1;

	ret = vk_exporter_new(&dev->errors, chosen->device_uuid,
			      chosen->driver_uuid, false, &vk);
	if (ret)
		return ret;
	ret = vk_image_create(vk, fmt, 16, 8, 1, &img);
	if (!ret)
		ret = vk_image_export_fd(vk, &img, &fd);
	if (!ret) {
		close(fd);
		fill_pattern(pixels, sizeof(pixels), 7);
		ret = vk_image_write(vk, &img, fmt, pixels, sizeof(pixels));
	}
	if (!ret)
		ret = vk_image_read(vk, &img, fmt, back, sizeof(back));
	if (!ret)
		ck_assert_mem_eq(pixels, back, sizeof(pixels));
	if (!ret && semaphores && vk_exporter_has_binary(vk)) {
		ret = vk_semaphore_create(vk, false, &bin);
		if (!ret)
			ret = vk_semaphore_export_fd(vk, &bin, &fd);
		if (!ret)
			close(fd);
	}
	if (!ret && semaphores && vk_exporter_has_timeline(vk)) {
		ret = vk_semaphore_create(vk, true, &tl);
		if (!ret)
			ret = vk_semaphore_export_fd(vk, &tl, &fd);
		if (!ret) {
			close(fd);
			ret = vk_semaphore_get_value(vk, &tl, &value);
		}
	}
	vk_semaphore_destroy(vk, &tl);
	vk_semaphore_destroy(vk, &bin);
	vk_image_destroy(vk, &img);
	vk_exporter_destroy(vk);
	return ret;
}

START_TEST(test_fd_balance)
{
	struct glcuda_device *dev = quiet_device();
	int fds;

	/* The kept instance's own fds are not a leak: make it first. */
	ck_assert_int_eq(run_everything(dev, true), 0);
	fds = test_count_fds();
	for (int i = 0; i < 3; i++) {
		int ret = run_everything(dev, true);
		ck_assert_msg(ret == 0, "%s", glcuda_get_last_error());
		ck_assert_int_eq(test_count_fds(), fds);
	}
	free(dev);
}
END_TEST

START_TEST(test_fault_injection)
{
	static const char injected[] = "VK_ERROR_OUT_OF_HOST_MEMORY (-1)";
	struct glcuda_device *dev = quiet_device();
	int fds = test_count_fds();
	unsigned long n, clean_calls;
	int ret;

	/* The process's Vulkan instance is made once and kept (see
	 * instance_create): make it before counting. */
	ck_assert_int_eq(run_everything(dev, true), 0);
	fds = test_count_fds();

	/* How many calls a clean run makes: every one of them must fail
	 * cleanly when it is made to fail. */
	fault_inject(FAULT_VULKAN, 0, VK_SUCCESS);
	ret = run_everything(dev, true);
	ck_assert_msg(ret == 0, "%s", glcuda_get_last_error());
	clean_calls = fault_calls(FAULT_VULKAN);
	ck_assert_uint_gt(clean_calls, 5);

	for (n = 1;; n++) {
		error_clear();
		dev->errors.last_error[0] = '\0';
		fault_inject(FAULT_VULKAN, n, VK_ERROR_OUT_OF_HOST_MEMORY);
		ret = run_everything(dev, true);
		bool fired = fault_calls(FAULT_VULKAN) >= n;
		fault_disarm(FAULT_VULKAN);

		if (!fired) {
			ck_assert_msg(ret == 0,
				      "run without injection failed: %s",
				      glcuda_get_last_error());
			break;
		}
		ck_assert_msg(ret == GLCUDA_ERROR_VULKAN,
			      "call %lu failed but the run "
			      "returned %d (%s): %s",
			      n, ret, glcuda_error_get_name(ret),
			      glcuda_get_last_error());
		ck_assert_msg(strstr(glcuda_get_last_error(), injected),
			      "call %lu: message lacks the result: %s", n,
			      glcuda_get_last_error());
		ck_assert_msg(names_vk_call(glcuda_get_last_error()),
			      "call %lu: message names no Vulkan call: %s", n,
			      glcuda_get_last_error());
		ck_assert_str_eq(dev->errors.last_error,
				 glcuda_get_last_error());
		ck_assert_msg(test_count_fds() == fds,
			      "call %lu: fds leaked (%d, was %d)", n,
			      test_count_fds(), fds);
	}
	ck_assert_uint_eq(n - 1, clean_calls);
	printf("vk fault injection: %lu "
	       "injection points, each failed cleanly\n",
	       n - 1);
	free(dev);
}
END_TEST

int
main(void)
{
	const struct test_case cases[] = {
		TEST_TCASE("devices", 60),
		TEST_ONCE(test_list_devices),
		TEST_ONCE(test_new_matching),
		TEST_ONCE(test_wrong_device),
		TEST_ONCE(test_driver_mismatch),
		TEST_TCASE("images", 60),
		TEST_RANGE(test_formats, GLCUDA_FORMAT_RGBA8,
			   GLCUDA_FORMAT_COUNT),
		TEST_ONCE(test_format_errors),
		TEST_TCASE("semaphores", 60),
		TEST_ONCE(test_semaphores),
		TEST_TCASE("errors", 300),
		TEST_ONCE(test_result_names),
		TEST_ONCE(test_error_mapping),
		TEST_ONCE(test_fd_balance),
		TEST_ONCE(test_fault_injection),
	};
	char err[512];
	int n;

	n = vk_list_physical_devices(devices, MAX_DEVICES, err, sizeof(err));
	if (n <= 0) {
		printf("test-vk: SKIP: no Vulkan device: %s\n", err);
		return 77;
	}
	ndevices = (unsigned int)n;
	for (unsigned int i = 0; i < ndevices && i < MAX_DEVICES && !chosen;
	     i++)
		if (devices[i].has_external_memory_fd &&
		    devices[i].rgba8_exportable)
			chosen = &devices[i];
	if (!chosen) {
		printf("test-vk: SKIP: no Vulkan device exports images as "
		       "OPAQUE_FD (%s)\n",
		       devices[0].name);
		return 77;
	}

	return test_run_cases("vk", cases);
}
