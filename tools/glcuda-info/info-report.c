/*
 * The glcuda-info report (see info-report.h). Facts are gathered first into
 * struct report, then printed as text or JSON, so both forms say the same.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdlib.h>

#include "info-facts.h"
#include "info-report.h"

const struct ext_info egl_client_exts[N_EGL_CLIENT_EXTS] = {
	{ "EGL_EXT_platform_base", "displays without a window system" },
	{ "EGL_EXT_platform_device", "headless display on a GPU" },
	{ "EGL_EXT_device_base", "list and query EGL devices" },
	{ "EGL_EXT_device_enumeration", "list EGL devices" },
	{ "EGL_EXT_device_query", "query EGL devices" },
	{ "EGL_MESA_platform_surfaceless", "Mesa headless display" },
};

const struct ext_info egl_display_exts[N_EGL_DISPLAY_EXTS] = {
	{ "EGL_KHR_no_config_context", "context without a config" },
	{ "EGL_KHR_surfaceless_context", "context without a surface" },
	{ "EGL_KHR_create_context", "GL version and profile (EGL < 1.5)" },
	{ "EGL_KHR_image_base", "EGLImages (wrap path)" },
	{ "EGL_KHR_gl_texture_2D_image", "EGLImage from a GL texture" },
	{ "EGL_EXT_image_dma_buf_import", "dma-buf import" },
	{ "EGL_MESA_image_dma_buf_export", "dma-buf export" },
	{ "EGL_KHR_fence_sync", "EGL fences" },
};

const struct ext_info gl_exts[GL_EXT_COUNT] = {
	{ "GL_EXT_memory_object", "required: shared memory" },
	{ "GL_EXT_memory_object_fd", "required: import Vulkan memory" },
	{ "GL_EXT_semaphore", "GPU-side sync" },
	{ "GL_EXT_semaphore_fd", "GPU-side sync (binary); without it, CPU "
				 "waits" },
	{ "GL_NV_timeline_semaphore", "GPU-side sync (timeline)" },
};

static const struct context_facts *
verdict_context(const struct report *r)
{
	return r->gles ? &r->gles_ctx : &r->gl;
}

const struct context_facts *
uuid_context(const struct report *r)
{
	/* The UUIDs of the context the verdict uses, else of the other. */
	const struct context_facts *f = verdict_context(r);

	if (f->error == 0 && f->has_uuids)
		return f;
	f = r->gles ? &r->gl : &r->gles_ctx;
	return f->error == 0 && f->has_uuids ? f : NULL;
}

bool
egl_device_hidden_from_cuda(const struct glcuda_diag_egl_device *e)
{
	return e->cuda_device < 0 &&
	       extension_list_has(e->extensions, "EGL_NV_device_cuda");
}

int
first_working_egl_device(const struct report *r)
{
	for (int i = 0; i < r->egl_device_count; i++)
		if (r->egl_verdicts[i].tried && r->egl_verdicts[i].error == 0)
			return i;
	return -1;
}

/* ---------------------------------------------------------------------- */

int
glcuda_info_report(FILE *out, bool json, bool gles, int cuda_ordinal)
{
	struct report *r = calloc(1, sizeof(*r));
	int ret;

	if (!r) {
		fprintf(out, json ? "{\"verdict\": {\"ok\": false, "
				    "\"sync_mode\": null, \"error\": "
				    "\"ENOMEM\", \"message\": \"out of "
				    "memory\"}}\n"
				  : "glcuda-info: out of memory\n");
		return 1;
	}
	r->gles = gles;
	r->cuda_ordinal = cuda_ordinal;

	collect_egl(r);
	collect_context(&r->gl, 0, cuda_ordinal);
	collect_context(&r->gles_ctx, GLCUDA_HEADLESS_FLAG_GLES, cuda_ordinal);
	collect_context(&r->compat, GLCUDA_HEADLESS_FLAG_COMPATIBILITY,
			cuda_ordinal);
	collect_vulkan(r);
	collect_cuda(r);
	collect_verdict(r);
	collect_device_verdicts(r);

	if (json)
		print_json(out, r);
	else
		print_text(out, r);
	fflush(out);
	ret = r->verdict.ok ? 0 : 1;
	free(r);
	return ret;
}
