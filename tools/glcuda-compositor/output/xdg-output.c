/*
 * glcuda-compositor: zxdg_output_manager_v1, the output in the
 * compositor's logical space. One output at 0,0, scale 1 and no
 * transform: its logical size is its mode's size. Name and description
 * are wl_output's.
 * SPDX-License-Identifier: MIT
 */
#include "output/output.h"
#include "comp.h"
#include "resource.h"

#include "xdg-output-unstable-v1-server-protocol.h"

static const struct zxdg_output_v1_interface xdg_output_impl = {
	.destroy = resource_destroy_request,
};

static void
manager_get_xdg_output(struct wl_client *client, struct wl_resource *resource,
		       uint32_t id, struct wl_resource *output)
{
	struct comp *c = wl_resource_get_user_data(resource);
	uint32_t version = (uint32_t)wl_resource_get_version(resource);
	struct wl_resource *r =
		resource_new(client, &zxdg_output_v1_interface, (int)version,
			     id, &xdg_output_impl, c, NULL);

	if (!r)
		return;
	zxdg_output_v1_send_logical_position(r, 0, 0);
	zxdg_output_v1_send_logical_size(r, (int32_t)c->opt.width,
					 (int32_t)c->opt.height);
	if (version >= ZXDG_OUTPUT_V1_NAME_SINCE_VERSION)
		zxdg_output_v1_send_name(r, OUTPUT_NAME);
	if (version >= ZXDG_OUTPUT_V1_DESCRIPTION_SINCE_VERSION)
		zxdg_output_v1_send_description(r, OUTPUT_DESCRIPTION);
	/* From version 3 the atomic group ends with wl_output.done (version
	 * 2 of wl_output has it) instead of zxdg_output_v1.done. */
	if (version >= 3) {
		if (wl_resource_get_version(output) >=
		    WL_OUTPUT_DONE_SINCE_VERSION)
			wl_output_send_done(output);
	} else {
		zxdg_output_v1_send_done(r);
	}
}

static const struct zxdg_output_manager_v1_interface manager_impl = {
	.destroy = resource_destroy_request,
	.get_xdg_output = manager_get_xdg_output,
};

bool
xdg_output_init(struct comp *c)
{
	return resource_add_plain_global(c, &zxdg_output_manager_v1_interface,
					 3, &manager_impl);
}
