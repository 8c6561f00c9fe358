/*
 * The sizes of the structs callers allocate (struct glcuda_device_options,
 * struct glcuda_ring_desc, struct glcuda_image_desc, struct
 * glcuda_cuda_plane, struct glcuda_frame_timings): each starts with a
 * size member the caller sets to sizeof the struct it was compiled with.
 * The tables of their members are here, but for the ring's description,
 * which ring.c checks through struct_size_copy_in.
 * SPDX-License-Identifier: MIT
 *
 * Members are only ever appended, so a program built against an older
 * glcuda passes a smaller size whose members this glcuda also has: the
 * members past it take their defaults (zero) going in, and are left
 * untouched coming out. A size is accepted if it covers at least the first
 * member after `size`, does not exceed the struct glcuda knows, and does
 * not end inside a member: any sizeof of an older version of the struct
 * (tail padding included) passes, while zero (a caller that did not set
 * it), garbage and the size of a newer struct fail with -EINVAL.
 */
#include "device.h"
#include <glcuda/glcuda-cuda.h>
#include <glcuda/glcuda-diag.h>

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* Every member but `size`, in order. A member appended to a struct must be
 * added here too (the assertions below remind). */
static const struct member_span device_options_members[] = {
	MEMBER_SPAN(struct glcuda_device_options, sync_mode),
	MEMBER_SPAN(struct glcuda_device_options, cuda_context),
	MEMBER_SPAN(struct glcuda_device_options, log_func),
	MEMBER_SPAN(struct glcuda_device_options, log_user_data),
	MEMBER_SPAN(struct glcuda_device_options, log_priority),
	MEMBER_SPAN(struct glcuda_device_options, flags),
};

static const struct member_span image_desc_members[] = {
	MEMBER_SPAN(struct glcuda_image_desc, width),
	MEMBER_SPAN(struct glcuda_image_desc, height),
	MEMBER_SPAN(struct glcuda_image_desc, format),
	MEMBER_SPAN(struct glcuda_image_desc, flags),
	MEMBER_SPAN(struct glcuda_image_desc, layers),
	MEMBER_SPAN(struct glcuda_image_desc, depth_format),
};

static const struct member_span cuda_plane_members[] = {
	MEMBER_SPAN(struct glcuda_cuda_plane, array),
	MEMBER_SPAN(struct glcuda_cuda_plane, surface),
	MEMBER_SPAN(struct glcuda_cuda_plane, texture),
	MEMBER_SPAN(struct glcuda_cuda_plane, pointer),
	MEMBER_SPAN(struct glcuda_cuda_plane, pitch),
	MEMBER_SPAN(struct glcuda_cuda_plane, width),
	MEMBER_SPAN(struct glcuda_cuda_plane, height),
	MEMBER_SPAN(struct glcuda_cuda_plane, format),
	MEMBER_SPAN(struct glcuda_cuda_plane, channels),
	MEMBER_SPAN(struct glcuda_cuda_plane, layers),
	MEMBER_SPAN(struct glcuda_cuda_plane, bytes_per_pixel),
};

static const struct member_span frame_timings_members[] = {
	MEMBER_SPAN(struct glcuda_frame_timings, frame_number),
	MEMBER_SPAN(struct glcuda_frame_timings, gl_render_ns),
	MEMBER_SPAN(struct glcuda_frame_timings, handoff_to_cuda_ns),
	MEMBER_SPAN(struct glcuda_frame_timings, cuda_ns),
	MEMBER_SPAN(struct glcuda_frame_timings, handoff_to_gl_ns),
	MEMBER_SPAN(struct glcuda_frame_timings, total_ns),
};

/* The diagnosis lists' elements. glcuda only writes these, so they may end
 * in tail padding: a member a later glcuda places there lands in memory an
 * older caller's size already gives it, and is ignored there. */
static const struct member_span diag_egl_device_members[] = {
	MEMBER_SPAN(struct glcuda_diag_egl_device, extensions),
	MEMBER_SPAN(struct glcuda_diag_egl_device, cuda_device),
	MEMBER_SPAN(struct glcuda_diag_egl_device, drm_device),
	MEMBER_SPAN(struct glcuda_diag_egl_device, drm_render_node),
};

static const struct member_span diag_vk_device_members[] = {
	MEMBER_SPAN(struct glcuda_diag_vk_device, name),
	MEMBER_SPAN(struct glcuda_diag_vk_device, api_major),
	MEMBER_SPAN(struct glcuda_diag_vk_device, api_minor),
	MEMBER_SPAN(struct glcuda_diag_vk_device, api_patch),
	MEMBER_SPAN(struct glcuda_diag_vk_device, driver_version),
	MEMBER_SPAN(struct glcuda_diag_vk_device, vendor_id),
	MEMBER_SPAN(struct glcuda_diag_vk_device, device_uuid),
	MEMBER_SPAN(struct glcuda_diag_vk_device, driver_uuid),
	MEMBER_SPAN(struct glcuda_diag_vk_device, driver_name),
	MEMBER_SPAN(struct glcuda_diag_vk_device, driver_info),
	MEMBER_SPAN(struct glcuda_diag_vk_device, external_memory_fd),
	MEMBER_SPAN(struct glcuda_diag_vk_device, rgba8_exportable),
	MEMBER_SPAN(struct glcuda_diag_vk_device, external_semaphore_fd),
	MEMBER_SPAN(struct glcuda_diag_vk_device, binary_exportable),
	MEMBER_SPAN(struct glcuda_diag_vk_device, timeline_semaphore),
	MEMBER_SPAN(struct glcuda_diag_vk_device, timeline_exportable),
};

static const struct member_span diag_cuda_device_members[] = {
	MEMBER_SPAN(struct glcuda_diag_cuda_device, name),
	MEMBER_SPAN(struct glcuda_diag_cuda_device, has_uuid),
	MEMBER_SPAN(struct glcuda_diag_cuda_device, uuid),
};

/* size is the first member of each (device.h). */
STRUCT_SIZE_FIRST(struct glcuda_device_options);
STRUCT_SIZE_FIRST(struct glcuda_image_desc);
STRUCT_SIZE_FIRST(struct glcuda_cuda_plane);
STRUCT_SIZE_FIRST(struct glcuda_frame_timings);
STRUCT_SIZE_FIRST(struct glcuda_diag_egl_device);
STRUCT_SIZE_FIRST(struct glcuda_diag_vk_device);
STRUCT_SIZE_FIRST(struct glcuda_diag_cuda_device);

/* The last member ends the struct (device.h). A member appended fails
 * these until the tables above and the member named here are updated. */
_Static_assert(STRUCT_SIZE_ENDS(struct glcuda_device_options, flags),
	       "struct glcuda_device_options: tail padding, or a new member");
_Static_assert(STRUCT_SIZE_ENDS(struct glcuda_image_desc, depth_format),
	       "struct glcuda_image_desc: tail padding, or a new member");
_Static_assert(STRUCT_SIZE_ENDS(struct glcuda_cuda_plane, bytes_per_pixel),
	       "struct glcuda_cuda_plane: tail padding, or a new member");
_Static_assert(STRUCT_SIZE_ENDS(struct glcuda_frame_timings, total_ns),
	       "struct glcuda_frame_timings: tail padding, or a new member");

static int
check_size(struct glcuda_device *dev, const char *call, const char *type,
	   size_t size, const struct member_span *members, size_t count,
	   size_t full)
{
	if (size == 0)
		return device_fail(dev, -EINVAL,
				   "%s: %s.size is 0. Set it to sizeof(struct "
				   "%s) (or use %s_init()).",
				   call, type, type, type);
	if (size > full)
		return device_fail(dev, -EINVAL,
				   "%s: %s.size is %zu, larger than the %zu "
				   "bytes this glcuda (%s) knows: the program "
				   "was built against a newer glcuda. Run it "
				   "with that version.",
				   call, type, size, full,
				   GLCUDA_VERSION_STRING);
	if (size < members[0].offset + members[0].size)
		return device_fail(dev, -EINVAL,
				   "%s: %s.size %zu is smaller than any "
				   "version of the struct. Set it to "
				   "sizeof(struct %s).",
				   call, type, size, type);
	for (size_t i = 0; i < count; i++)
		if (size > members[i].offset &&
		    size < members[i].offset + members[i].size)
			return device_fail(dev, -EINVAL,
					   "%s: %s.size %zu ends inside a "
					   "member, so it is no version of the "
					   "struct. Set it to sizeof(struct "
					   "%s).",
					   call, type, size, type);
	return 0;
}

/* Copy what the caller's struct has into a zeroed one of this glcuda's
 * size, whose size member says so: the members it lacks read as their
 * defaults. */
static void
copy_in(void *out, size_t full, const void *in, size_t size)
{
	memset(out, 0, full);
	memcpy(out, in, size);
	memcpy(out, &full, sizeof(full));
}

int
device_options_copy(const struct glcuda_device_options *in,
		    struct glcuda_device_options *out)
{
	int ret =
		check_size(NULL, "glcuda_device_new", "glcuda_device_options",
			   in->size, device_options_members,
			   ARRAY_LENGTH(device_options_members), sizeof(*out));
	if (ret < 0)
		return ret;
	copy_in(out, sizeof(*out), in, in->size);
	return 0;
}

int
struct_size_copy_in(struct glcuda_device *dev, const char *call,
		    const char *type, const void *in,
		    const struct member_span *members, size_t count,
		    void *out, size_t full)
{
	size_t size;
	int ret;

	memcpy(&size, in, sizeof(size));
	ret = check_size(dev, call, type, size, members, count, full);
	if (ret < 0)
		return ret;
	copy_in(out, full, in, size);
	return 0;
}

int
image_desc_copy(struct glcuda_device *dev, const struct glcuda_image_desc *in,
		struct glcuda_image_desc *out)
{
	int ret = check_size(dev, "glcuda_image_new", "glcuda_image_desc",
			     in->size, image_desc_members,
			     ARRAY_LENGTH(image_desc_members), sizeof(*out));
	if (ret < 0)
		return ret;
	copy_in(out, sizeof(*out), in, in->size);
	return 0;
}

int
cuda_plane_check(struct glcuda_device *dev, const struct glcuda_cuda_plane *out)
{
	return check_size(dev, "glcuda_image_get_cuda_plane",
			  "glcuda_cuda_plane", out->size, cuda_plane_members,
			  ARRAY_LENGTH(cuda_plane_members), sizeof(*out));
}

void
sized_copy_out(void *out, const void *full, size_t size)
{
	/* Only the caller's members: the rest of its memory is not ours. */
	memcpy(out, full, size);
	memcpy(out, &size, sizeof(size));
}

int
frame_timings_check(struct glcuda_device *dev,
		    const struct glcuda_frame_timings *out)
{
	return check_size(dev, "glcuda_ring_read_timings",
			  "glcuda_frame_timings", out->size,
			  frame_timings_members,
			  ARRAY_LENGTH(frame_timings_members), sizeof(*out));
}

/* The diagnosis lists take the first element's size as every element's:
 * it is the stride of the caller's array. */
#define DIAG_CHECK(name, call)                                                 \
	int diag_##name##_check(const struct glcuda_diag_##name *out)          \
	{                                                                      \
		return check_size(NULL, call, "glcuda_diag_" #name, out->size, \
				  diag_##name##_members,                       \
				  ARRAY_LENGTH(diag_##name##_members),         \
				  sizeof(*out));                               \
	}
DIAG_CHECK(egl_device, "glcuda_diag_list_egl_devices")
DIAG_CHECK(vk_device, "glcuda_diag_list_vk_devices")
DIAG_CHECK(cuda_device, "glcuda_diag_list_cuda_devices")
