/*
 * glcuda-info --json: the report as one JSON object.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include "info-facts.h"
#include "uuid.h"

struct json {
	FILE *out;
	int depth;
	bool first[16];
};

static void
json_string_value(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		default:
			if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

static void
json_key(struct json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->out);
		j->first[j->depth] = false;
		fprintf(j->out, "\n%*s", 2 * j->depth, "");
	}
	if (key) {
		json_string_value(j->out, key);
		fputs(": ", j->out);
	}
}

static void
json_open(struct json *j, const char *key, char bracket)
{
	json_key(j, key);
	fputc(bracket, j->out);
	j->depth++;
	j->first[j->depth] = true;
}

static void
json_close(struct json *j, char bracket)
{
	bool empty = j->first[j->depth];

	j->depth--;
	if (!empty)
		fprintf(j->out, "\n%*s", 2 * j->depth, "");
	fputc(bracket, j->out);
}

static void
json_str(struct json *j, const char *key, const char *value)
{
	json_key(j, key);
	json_string_value(j->out, value);
}

static void
json_bool(struct json *j, const char *key, bool value)
{
	json_key(j, key);
	fputs(value ? "true" : "false", j->out);
}

static void
json_int(struct json *j, const char *key, long value)
{
	json_key(j, key);
	fprintf(j->out, "%ld", value);
}

static void
json_null(struct json *j, const char *key)
{
	json_key(j, key);
	fputs("null", j->out);
}

static void
json_uuid(struct json *j, const char *key, const uint8_t uuid[16])
{
	char u[UUID_STRING_SIZE];

	uuid_format(uuid, u);
	json_str(j, key, u);
}

static void
json_exts(struct json *j, const char *key, const struct ext_info *exts,
	  const bool *present, size_t n)
{
	json_open(j, key, '{');
	for (size_t i = 0; i < n; i++)
		json_bool(j, exts[i].name, present[i]);
	json_close(j, '}');
}

static void
json_error(struct json *j, int error, const char *message)
{
	json_str(j, "error", glcuda_error_get_name(error));
	json_str(j, "message", message);
}

static void
json_context(struct json *j, const char *key, const struct context_facts *f)
{
	json_open(j, key, '{');
	json_bool(j, "ok", f->error == 0);
	if (f->error) {
		json_error(j, f->error, f->message);
		json_close(j, '}');
		return;
	}
	json_str(j, "display", f->description);
	json_str(j, "egl_version", f->egl_version);
	json_str(j, "egl_vendor", f->egl_vendor);
	json_exts(j, "egl_extensions", egl_display_exts, f->egl_ext,
		  ARRAY_LENGTH(egl_display_exts));
	json_int(j, "major", f->major);
	json_int(j, "minor", f->minor);
	json_str(j, "profile", f->profile[0] ? f->profile : NULL);
	json_str(j, "version", f->gl_version);
	json_str(j, "renderer", f->gl_renderer);
	json_str(j, "vendor", f->gl_vendor);
	json_exts(j, "extensions", gl_exts, f->ext, GL_EXT_COUNT);
	if (f->has_uuids) {
		json_uuid(j, "device_uuid", f->device_uuid);
		json_uuid(j, "driver_uuid", f->driver_uuid);
	} else {
		json_null(j, "device_uuid");
		json_null(j, "driver_uuid");
	}
	json_close(j, '}');
}

/* Like the report's "verdict", for one EGL device. */
static void
json_device_verdict(struct json *j, const struct device_verdict *v)
{
	json_open(j, "verdict", '{');
	json_bool(j, "ok", v->tried && v->error == 0);
	if (v->tried && v->error == 0) {
		json_int(j, "cuda_device", v->cuda_ordinal);
		json_str(j, "sync_mode",
			 glcuda_sync_mode_get_name(v->sync_mode));
		json_str(j, "renderer", v->renderer);
		json_null(j, "stage");
		json_null(j, "error");
		json_null(j, "message");
	} else {
		json_null(j, "cuda_device");
		json_null(j, "sync_mode");
		json_str(j, "renderer", v->renderer[0] ? v->renderer : NULL);
		json_str(j, "stage", v->tried ? v->stage : NULL);
		json_str(j, "error",
			 v->tried ? glcuda_error_get_name(v->error) : NULL);
		json_str(j, "message", v->tried ? v->message : "not judged");
	}
	json_close(j, '}');
}

void
print_json(FILE *out, const struct report *r)
{
	const struct context_facts *uf = uuid_context(r);
	const struct verdict *v = &r->verdict;
	struct json j = { .out = out };

	json_open(&j, NULL, '{');
	json_str(&j, "glcuda_get_version", glcuda_get_version());
	json_str(&j, "api", r->gles ? "gles" : "gl");
	if (r->cuda_ordinal >= 0)
		json_int(&j, "requested_cuda_device", r->cuda_ordinal);
	else
		json_null(&j, "requested_cuda_device");

	json_open(&j, "egl", '{');
	json_exts(&j, "client_extensions", egl_client_exts, r->client_ext,
		  ARRAY_LENGTH(egl_client_exts));
	if (r->egl_device_error)
		json_str(&j, "devices_error", r->egl_device_message);
	json_open(&j, "devices", '[');
	for (int i = 0; i < r->egl_device_count; i++) {
		const struct glcuda_diag_egl_device *e = &r->egl_devices[i];

		json_open(&j, NULL, '{');
		json_int(&j, "index", i);
		json_str(&j, "extensions", e->extensions);
		if (e->cuda_device >= 0)
			json_int(&j, "cuda_device", e->cuda_device);
		else
			json_null(&j, "cuda_device");
		json_str(&j, "drm_device",
			 e->drm_device[0] ? e->drm_device : NULL);
		json_str(&j, "drm_render_node",
			 e->drm_render_node[0] ? e->drm_render_node : NULL);
		json_bool(&j, "hidden_from_cuda",
			  egl_device_hidden_from_cuda(e));
		json_device_verdict(&j, &r->egl_verdicts[i]);
		json_close(&j, '}');
	}
	json_close(&j, ']');
	json_close(&j, '}');

	json_context(&j, "gl", &r->gl);
	json_context(&j, "gles", &r->gles_ctx);
	json_context(&j, "compat", &r->compat);

	json_open(&j, "vulkan", '{');
	json_bool(&j, "ok", r->vk_error == 0);
	if (r->vk_error)
		json_error(&j, r->vk_error, r->vk_message);
	json_open(&j, "devices", '[');
	for (int i = 0; i < r->vk_count; i++) {
		const struct glcuda_diag_vk_device *p = &r->vk[i];
		char ver[32];

		snprintf(ver, sizeof(ver), "%u.%u.%u", p->api_major,
			 p->api_minor,
			 p->api_patch);
		json_open(&j, NULL, '{');
		json_int(&j, "index", i);
		json_str(&j, "name", p->name);
		json_str(&j, "api_version", ver);
		json_str(&j, "driver_name", p->driver_name);
		json_str(&j, "driver_info", p->driver_info);
		json_uuid(&j, "device_uuid", p->device_uuid);
		json_uuid(&j, "driver_uuid", p->driver_uuid);
		json_bool(&j, "external_memory_fd", p->external_memory_fd);
		json_bool(&j, "rgba8_exportable", p->rgba8_exportable);
		json_bool(&j, "external_semaphore_fd",
			  p->external_semaphore_fd);
		json_bool(&j, "binary_exportable", p->binary_exportable);
		json_bool(&j, "timeline_semaphore", p->timeline_semaphore);
		json_bool(&j, "timeline_exportable", p->timeline_exportable);
		json_close(&j, '}');
	}
	json_close(&j, ']');
	json_close(&j, '}');

	json_open(&j, "cuda", '{');
	json_bool(&j, "ok", r->cuda_error == 0);
	if (r->cuda_error) {
		json_error(&j, r->cuda_error, r->cuda_message);
	} else {
		json_int(&j, "driver_version", r->cuda_driver_version);
	}
	json_open(&j, "devices", '[');
	for (int i = 0; i < r->cuda_count; i++) {
		json_open(&j, NULL, '{');
		json_int(&j, "ordinal", i);
		json_str(&j, "name", r->cuda[i].name);
		if (r->cuda[i].has_uuid)
			json_uuid(&j, "uuid", r->cuda[i].uuid);
		else
			json_null(&j, "uuid");
		json_close(&j, '}');
	}
	json_close(&j, ']');
	json_close(&j, '}');

	json_open(&j, "matches", '{');
	if (uf) {
		json_uuid(&j, "gl_device_uuid", uf->device_uuid);
		json_open(&j, "vulkan", '[');
		for (int i = 0; i < r->vk_count; i++) {
			if (memcmp(r->vk[i].device_uuid, uf->device_uuid, 16) !=
			    0)
				continue;
			json_open(&j, NULL, '{');
			json_int(&j, "index", i);
			json_bool(&j, "driver_uuid_matches",
				  memcmp(r->vk[i].driver_uuid, uf->driver_uuid,
					 16) == 0);
			json_close(&j, '}');
		}
		json_close(&j, ']');
		json_open(&j, "cuda", '[');
		for (int i = 0; i < r->cuda_count; i++)
			if (r->cuda[i].has_uuid &&
			    memcmp(r->cuda[i].uuid, uf->device_uuid, 16) == 0)
				json_int(&j, NULL, i);
		json_close(&j, ']');
	} else {
		json_null(&j, "gl_device_uuid");
	}
	json_close(&j, '}');

	json_open(&j, "verdict", '{');
	json_bool(&j, "ok", v->ok);
	if (v->ok) {
		json_str(&j, "sync_mode",
			 glcuda_sync_mode_get_name(v->sync_mode));
		json_open(&j, "sync_modes_supported", '[');
		for (int m = GLCUDA_SYNC_TIMELINE; m <= GLCUDA_SYNC_CPU; m++)
			if (v->sync_modes_supported & (1u << m))
				json_str(&j, NULL,
					 glcuda_sync_mode_get_name(m));
		json_close(&j, ']');
		json_open(&j, "image_kinds", '{');
		for (int k = GLCUDA_IMAGE_KIND_SHARED;
		     k <= GLCUDA_IMAGE_KIND_EGL_IMAGE; k++) {
			const char *kind = k == GLCUDA_IMAGE_KIND_SHARED
						   ? "shared"
					   : k == GLCUDA_IMAGE_KIND_GL_TEXTURE
						   ? "gl_texture"
						   : "egl_image";
			const char *wait =
				!(v->image_kinds_supported & (1u << k))
					? "unavailable"
				: v->image_kinds_cpu_wait & (1u << k)
					? "cpu-wait"
					: "gpu";

			json_str(&j, kind, wait);
		}
		json_close(&j, '}');
		json_null(&j, "error");
		json_null(&j, "message");
		json_null(&j, "advice");
	} else {
		json_null(&j, "sync_mode");
		json_str(&j, "stage", v->stage);
		json_str(&j, "error", glcuda_error_get_name(v->error));
		json_str(&j, "message",
			 v->message[0] ? v->message
				       : glcuda_strerror(v->error));
		json_str(&j, "advice", v->advice);
	}
	json_close(&j, '}');
	json_close(&j, '}');
	fputc('\n', out);
}
