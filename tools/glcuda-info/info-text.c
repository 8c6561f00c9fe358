/*
 * glcuda-info: the report as readable text.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include "info-facts.h"
#include "uuid.h"

static const char *
image_kind_name(int kind)
{
	switch (kind) {
	case GLCUDA_IMAGE_KIND_SHARED: return "shared images";
	case GLCUDA_IMAGE_KIND_GL_TEXTURE: return "wrapped GL textures";
	case GLCUDA_IMAGE_KIND_EGL_IMAGE: return "wrapped EGLImages";
	}
	return "?";
}

static const char *
yes_no(bool b)
{
	return b ? "yes" : "no";
}

static void
print_exts(FILE *out, int indent, const struct ext_info *exts,
	   const bool *present, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%*s%-32s %-7s  %s\n", indent, "", exts[i].name,
			present[i] ? "present" : "MISSING", exts[i].why);
}

/* One line per EGL device: whether interop works on it. */
static void
print_device_verdict(FILE *out, const struct device_verdict *v)
{
	if (!v->tried)
		fprintf(out, "        verdict: not judged\n");
	else if (v->error == 0)
		fprintf(out,
			"        verdict: interop works, CUDA device %d, sync "
			"mode %s (%s)\n",
			v->cuda_ordinal,
			glcuda_sync_mode_get_name(v->sync_mode), v->renderer);
	else
		fprintf(out,
			"        verdict: interop cannot work: %s: %s%s%s%s\n",
			strcmp(v->stage, "context") == 0
				? "no context"
				: glcuda_error_get_name(v->error),
			v->message, v->renderer[0] ? " (GL: " : "", v->renderer,
			v->renderer[0] ? ")" : "");
}

static void
print_context_text(FILE *out, const struct report *r,
		   const struct context_facts *f, const char *api,
		   bool with_egl)
{
	char u[UUID_STRING_SIZE];

	fprintf(out, "\n%s context", api);
	if (f->error) {
		fprintf(out, ": cannot be made\n    %s: %s\n",
			glcuda_error_get_name(f->error), f->message);
		return;
	}
	fprintf(out, ": %d.%d\n", f->major, f->minor);
	/* The contexts are usually on one display: name it once. */
	if (f != &r->gl && r->gl.error == 0 &&
	    strcmp(f->description, r->gl.description) == 0)
		fprintf(out, "    display   the OpenGL context's\n");
	else
		fprintf(out, "    display   %s\n", f->description);
	fprintf(out, "    version   %s\n", f->gl_version);
	if (f->profile[0])
		fprintf(out, "    profile   %s\n", f->profile);
	fprintf(out, "    renderer  %s (%s)\n", f->gl_renderer, f->gl_vendor);
	if (with_egl) {
		fprintf(out, "    EGL %s, vendor %s; display extensions:\n",
			f->egl_version, f->egl_vendor);
		print_exts(out, 8, egl_display_exts, f->egl_ext,
			   ARRAY_LENGTH(egl_display_exts));
	}
	fprintf(out, "    interop extensions:\n");
	print_exts(out, 8, gl_exts, f->ext, GL_EXT_COUNT);
	if (f->has_uuids) {
		uuid_format(f->device_uuid, u);
		fprintf(out, "    device UUID  %s\n", u);
		uuid_format(f->driver_uuid, u);
		fprintf(out, "    driver UUID  %s\n", u);
	} else {
		fprintf(out, "    device UUID  unknown (no "
			     "GL_EXT_memory_object or GL_EXT_semaphore)\n");
	}
}

static void
print_matches_text(FILE *out, const struct report *r)
{
	const struct context_facts *f = uuid_context(r);
	bool any_vk = false, any_cuda = false;

	fprintf(out, "\nDevice matching (by device UUID)\n");
	if (!f) {
		fprintf(out, "    no GL context reports a device UUID: nothing "
			     "to match\n");
		return;
	}
	fprintf(out, "    GL (%s):\n", f->gl_renderer);
	for (int i = 0; i < r->vk_count; i++) {
		if (memcmp(r->vk[i].device_uuid, f->device_uuid, 16) != 0)
			continue;
		any_vk = true;
		fprintf(out, "      = Vulkan device %d (%s), driver UUID %s\n",
			i, r->vk[i].name,
			memcmp(r->vk[i].driver_uuid, f->driver_uuid, 16) == 0
				? "matches too"
				: "DIFFERS (different drivers: no sharing)");
	}
	if (!any_vk)
		fprintf(out, "      no Vulkan device has this UUID\n");
	for (int i = 0; i < r->cuda_count; i++) {
		if (!r->cuda[i].has_uuid ||
		    memcmp(r->cuda[i].uuid, f->device_uuid, 16) != 0)
			continue;
		any_cuda = true;
		fprintf(out, "      = CUDA device %d (%s)\n", i,
			r->cuda[i].name);
	}
	if (!any_cuda)
		fprintf(out, "      no CUDA device has this UUID%s\n",
			r->cuda_error ? " (no CUDA driver)" : "");
}

void
print_text(FILE *out, const struct report *r)
{
	const struct verdict *v = &r->verdict;
	char u[UUID_STRING_SIZE], d[UUID_STRING_SIZE];

	fprintf(out, "glcuda %s\n", glcuda_get_version());

	fprintf(out, "\nEGL client extensions\n");
	print_exts(out, 4, egl_client_exts, r->client_ext,
		   ARRAY_LENGTH(egl_client_exts));

	if (r->egl_device_error)
		fprintf(out, "\nEGL devices: cannot be listed: %s\n",
			r->egl_device_message);
	else
		fprintf(out, "\nEGL devices: %d\n", r->egl_device_count);
	for (int i = 0; i < r->egl_device_count; i++) {
		const struct glcuda_diag_egl_device *e = &r->egl_devices[i];

		fprintf(out, "    device %d: %s\n", i,
			e->extensions[0] ? e->extensions : "(no extensions)");
		if (e->cuda_device >= 0)
			fprintf(out,
				"        CUDA device %d (EGL_NV_device_cuda)\n",
				e->cuda_device);
		else if (egl_device_hidden_from_cuda(e))
			fprintf(out, "        CUDA device: none CUDA can see "
				     "(EGL_NV_device_cuda names none: "
				     "CUDA_VISIBLE_DEVICES leaves this GPU "
				     "out)\n");
		else
			fprintf(out, "        CUDA device: not said (no "
				     "EGL_NV_device_cuda)\n");
		if (e->drm_device[0] || e->drm_render_node[0])
			fprintf(out, "        DRM: %s%s%s\n", e->drm_device,
				e->drm_device[0] && e->drm_render_node[0] ? ", "
									  : "",
				e->drm_render_node);
		print_device_verdict(out, &r->egl_verdicts[i]);
	}

	print_context_text(out, r, &r->gl, "OpenGL (core)", true);
	print_context_text(out, r, &r->gles_ctx, "OpenGL ES", r->gl.error != 0);
	print_context_text(out, r, &r->compat, "OpenGL (compatibility)",
			   r->gl.error != 0 && r->gles_ctx.error != 0);

	if (r->vk_error)
		fprintf(out, "\nVulkan: %s: %s\n",
			glcuda_error_get_name(r->vk_error), r->vk_message);
	else
		fprintf(out, "\nVulkan physical devices: %d\n", r->vk_count);
	for (int i = 0; i < r->vk_count; i++) {
		const struct glcuda_diag_vk_device *p = &r->vk[i];

		uuid_format(p->device_uuid, u);
		uuid_format(p->driver_uuid, d);
		fprintf(out,
			"    device %d: %s (Vulkan %u.%u.%u, driver %s%s%s)\n",
			i, p->name, p->api_major, p->api_minor, p->api_patch,
			p->driver_name[0] ? p->driver_name : "?",
			p->driver_info[0] ? " " : "", p->driver_info);
		fprintf(out,
			"        device UUID  %s\n        driver UUID  %s\n", u,
			d);
		fprintf(out,
			"        external memory fd %s, image export (RGBA8) "
			"%s; external semaphore fd %s, binary export %s, "
			"timeline %s, timeline export %s\n",
			yes_no(p->external_memory_fd),
			yes_no(p->rgba8_exportable),
			yes_no(p->external_semaphore_fd),
			yes_no(p->binary_exportable),
			yes_no(p->timeline_semaphore),
			yes_no(p->timeline_exportable));
	}

	if (r->cuda_error) {
		fprintf(out, "\nCUDA: %s\n    %s\n",
			r->cuda_error == GLCUDA_ERROR_NO_CUDA_DRIVER
				? "no CUDA driver found"
				: glcuda_error_get_name(r->cuda_error),
			r->cuda_message);
	} else {
		fprintf(out, "\nCUDA driver %d.%d: %d device%s\n",
			r->cuda_driver_version / 1000,
			r->cuda_driver_version % 1000 / 10, r->cuda_count,
			r->cuda_count == 1 ? "" : "s");
		for (int i = 0; i < r->cuda_count; i++) {
			if (r->cuda[i].has_uuid)
				uuid_format(r->cuda[i].uuid, u);
			else
				copy_string(u, sizeof(u), "unknown");
			fprintf(out, "    device %d: %s, UUID %s\n", i,
				r->cuda[i].name, u);
		}
	}

	print_matches_text(out, r);

	fprintf(out,
		"\nVerdict (%s context%s): ", r->gles ? "OpenGL ES" : "OpenGL",
		r->cuda_ordinal >= 0 ? ", requested CUDA device" : "");
	if (v->ok) {
		fprintf(out, "interop works, sync mode %s",
			glcuda_sync_mode_get_name(v->sync_mode));
		if (v->sync_mode == GLCUDA_SYNC_CPU)
			fprintf(out, " (GL has no semaphores: hand-offs wait "
				     "on the CPU; a driver with "
				     "GL_EXT_semaphore_fd avoids that)");
		else
			fprintf(out, " (GPU-side waits, no CPU blocking)");
		fprintf(out, "\n");
		for (int k = GLCUDA_IMAGE_KIND_SHARED;
		     k <= GLCUDA_IMAGE_KIND_EGL_IMAGE; k++)
			fprintf(out, "    %s: %s\n", image_kind_name(k),
				!(v->image_kinds_supported & (1u << k))
					? "not available (the CUDA driver "
					  "lacks the interop)"
				: v->image_kinds_cpu_wait & (1u << k)
					? "no copy; hand-offs wait on the CPU"
					: "no copy, no CPU wait");
		if (r->cuda_ordinal >= 0)
			fprintf(out, "    CUDA device %d\n", r->cuda_ordinal);
	} else {
		int works = first_working_egl_device(r);

		fprintf(out, "interop cannot work\n");
		fprintf(out, "    %s: %s\n", v->stage,
			glcuda_error_get_name(v->error));
		fprintf(out, "    %s\n",
			v->message[0] ? v->message : glcuda_strerror(v->error));
		fprintf(out, "    What to do: %s\n", v->advice);
		if (works >= 0)
			fprintf(out,
				"    EGL device %d works with CUDA device %d: "
				"pass --cuda-device %d\n",
				works, r->egl_verdicts[works].cuda_ordinal,
				r->egl_verdicts[works].cuda_ordinal);
	}
}
