/*
 * The GL importer.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "error.h"
#include "format.h"
#include "gl/gl-importer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

GLenum
gl_take_error(void)
{
	GLenum first = GL_NO_ERROR, err;
	int guard = 0;

	/* glGetError returns one flag per call; drain them all (bounded: a
	 * lost context may return GL_CONTEXT_LOST forever). */
	while ((err = glGetError()) != GL_NO_ERROR && guard++ < 16)
		if (first == GL_NO_ERROR)
			first = err;
	return first;
}

int
gl_check_error(struct error_sink *errors, const char *what)
{
	GLenum err = gl_take_error();

	if (err == GL_NO_ERROR)
		return 0;
	if (err == GL_CONTEXT_LOST)
		return error_fail(
			errors, GLCUDA_ERROR_DEVICE_LOST,
			"%s: GL_CONTEXT_LOST (0x%04x): the GL context was lost "
			"(GPU reset). Destroy every glcuda object and the "
			"context, then create them again.",
			what, err);
	return error_fail(errors, GLCUDA_ERROR_GL, "%s failed: %s (0x%04x)%s",
			  what, gl_error_name(err), err,
			  err == GL_OUT_OF_MEMORY
				  ? ". The GPU is out of memory: free images "
				    "or use smaller ones."
				  : "");
}

#ifdef GLCUDA_FAULT_INJECTION
static GLenum
gl_reset_status_default(void)
{
	return glGetGraphicsResetStatus();
}

GLenum (*gl_reset_status_hook)(void) = gl_reset_status_default;
#define GET_RESET_STATUS() gl_reset_status_hook()
#else
#define GET_RESET_STATUS() glGetGraphicsResetStatus()
#endif

GLenum
gl_reset_status(const struct gl_state *gl)
{
	return gl->reset_notification ? GET_RESET_STATUS() : GL_NO_ERROR;
}

const char *
gl_reset_status_name(GLenum status)
{
	switch (status) {
	case GL_NO_ERROR: return "GL_NO_ERROR";
	case GL_GUILTY_CONTEXT_RESET: return "GL_GUILTY_CONTEXT_RESET";
	case GL_INNOCENT_CONTEXT_RESET: return "GL_INNOCENT_CONTEXT_RESET";
	case GL_UNKNOWN_CONTEXT_RESET: return "GL_UNKNOWN_CONTEXT_RESET";
	default: return "an unknown reset status";
	}
}

static bool
has_ext(const char *name)
{
	return epoxy_has_gl_extension(name);
}

int
gl_state_init(struct gl_state *gl, struct error_sink *errors)
{
	const char *s;
	int version;

	memset(gl, 0, sizeof(*gl));
	gl->errors = errors;
	gl_take_error();

	gl->is_gles = !epoxy_is_desktop_gl();
	version = epoxy_gl_version();
	gl->major = version / 10;
	gl->minor = version % 10;
	s = (const char *)glGetString(GL_VENDOR);
	snprintf(gl->vendor, sizeof(gl->vendor), "%s", s ? s : "?");
	s = (const char *)glGetString(GL_RENDERER);
	snprintf(gl->renderer, sizeof(gl->renderer), "%s", s ? s : "?");
	s = (const char *)glGetString(GL_VERSION);
	snprintf(gl->version, sizeof(gl->version), "%s", s ? s : "?");

	if (gl->is_gles ? version < 30 : version < 45)
		return error_fail(
			gl->errors, GLCUDA_ERROR_GL_TOO_OLD,
			"the context is %s %d.%d (\"%s\"); glcuda needs OpenGL "
			"4.5 core or OpenGL ES 3.0. Create the context with "
			"EGL_CONTEXT_MAJOR_VERSION 4 / MINOR 5 (or ES 3).",
			gl->is_gles ? "OpenGL ES" : "OpenGL", gl->major,
			gl->minor, gl->version);
	if (!gl->is_gles) {
		GLint mask = 0;
		glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &mask);
		gl->core_profile = mask & GL_CONTEXT_CORE_PROFILE_BIT;
	}

	gl->has_memory_object_fd = has_ext("GL_EXT_memory_object") &&
				   has_ext("GL_EXT_memory_object_fd");
	gl->has_semaphore_fd = has_ext("GL_EXT_semaphore") &&
			       has_ext("GL_EXT_semaphore_fd");
	gl->has_timeline_nv = gl->has_semaphore_fd &&
			      has_ext("GL_NV_timeline_semaphore");
	gl->has_timer_query = gl->is_gles
				      ? has_ext("GL_EXT_disjoint_timer_query")
				      : true; /* core since 3.3 */
	gl->has_robustness =
		gl->is_gles ? version >= 32 || has_ext("GL_EXT_robustness") ||
				      has_ext("GL_KHR_robustness")
			    : true; /* core since 4.5 */
	if (gl->has_robustness) {
		GLint strategy = GL_NO_RESET_NOTIFICATION;
		glGetIntegerv(GL_RESET_NOTIFICATION_STRATEGY, &strategy);
		gl->reset_notification = strategy == GL_LOSE_CONTEXT_ON_RESET;
	}
	if (!gl->reset_notification)
		err_info(gl->errors,
			 "the GL context was made without reset notification: "
			 "a GPU reset that only GL sees is not detected. "
			 "Create it with "
			 "EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY "
			 "(GLES: "
			 "EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT) "
			 "= EGL_LOSE_CONTEXT_ON_RESET to have glcuda report "
			 "it.\n");

	if (!gl->has_memory_object_fd)
		return error_fail(
			gl->errors, GLCUDA_ERROR_MISSING_GL_EXTENSION,
			"%s lacks GL_EXT_memory_object_fd%s: GL cannot import "
			"shared memory. Use a driver that has it (NVIDIA 418+, "
			"Mesa 20+ radeonsi/iris/llvmpipe).",
			gl->renderer,
			has_ext("GL_EXT_memory_object")
				? ""
				: " and GL_EXT_memory_object");

	if (gl->has_timeline_nv) {
		gl->CreateSemaphoresNV = (gl_PFNGLCREATESEMAPHORESNV)
			eglGetProcAddress("glCreateSemaphoresNV");
		gl->SemaphoreParameterivNV = (gl_PFNGLSEMAPHOREPARAMETERIVNV)
			eglGetProcAddress("glSemaphoreParameterivNV");
		if (!gl->CreateSemaphoresNV || !gl->SemaphoreParameterivNV) {
			err_info(gl->errors,
				 "GL_NV_timeline_semaphore is listed but "
				 "glCreateSemaphoresNV is not exported; "
				 "timelines off\n");
			gl->has_timeline_nv = false;
		}
	}

	glGetIntegerv(GL_MAX_TEXTURE_SIZE, &gl->max_texture_size);
	glGetIntegerv(GL_MAX_ARRAY_TEXTURE_LAYERS, &gl->max_array_layers);

	/* GL_EXT_memory_object: the UUIDs of the device and driver the context
	 * runs on. memcmp'd against Vulkan's and CUDA's (a UUID may hold a
	 * zero byte). */
	{
		GLint n = 0;
		glGetIntegerv(GL_NUM_DEVICE_UUIDS_EXT, &n);
		glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, gl->device_uuid);
		glGetUnsignedBytevEXT(GL_DRIVER_UUID_EXT, gl->driver_uuid);
		if (n > 1)
			err_info(gl->errors,
				 "the GL context spans %d devices; using the "
				 "first\n",
				 n);
	}
	return gl_check_error(gl->errors, "querying the GL context "
					  "(glGetUnsignedBytei_vEXT "
					  "GL_DEVICE_UUID_EXT)");
}

int
gl_import_texture(struct gl_state *gl, int fd, uint64_t size, bool dedicated,
		  const struct format_info *fmt, uint32_t width,
		  uint32_t height, uint32_t layers, GLuint *texture,
		  GLuint *memory_object)
{
	const GLenum target = layers > 1 ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D;
	GLuint mem = 0, tex = 0;
	GLint dedicated_flag = dedicated ? GL_TRUE : GL_FALSE;
	GLint prev_tex = 0;
	GLboolean is_mem;
	int ret;

	gl_take_error();
	glCreateMemoryObjectsEXT(1, &mem);
	/* Must match Vulkan's allocation, and be set before the import. */
	glMemoryObjectParameterivEXT(mem, GL_DEDICATED_MEMORY_OBJECT_EXT,
				     &dedicated_flag);
	glImportMemoryFdEXT(mem, size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
	is_mem = glIsMemoryObjectEXT(mem);
	ret = gl_check_error(
		gl->errors,
		"glImportMemoryFdEXT (GL_HANDLE_TYPE_OPAQUE_FD_EXT)");
	if (ret < 0 || !is_mem) {
		/* GL owns the fd only once the import succeeded. */
		close(fd);
		glDeleteMemoryObjectsEXT(1, &mem);
		if (ret == 0)
			ret = error_fail(gl->errors,
					 GLCUDA_ERROR_UNSUPPORTED_HANDLE_TYPE,
					 "glImportMemoryFdEXT did not create a "
					 "memory object for an OPAQUE_FD of "
					 "%llu bytes",
					 (unsigned long long)size);
		return ret;
	}

	glGetIntegerv(layers > 1 ? GL_TEXTURE_BINDING_2D_ARRAY
				 : GL_TEXTURE_BINDING_2D,
		      &prev_tex);
	glGenTextures(1, &tex);
	glBindTexture(target, tex);
	glTexParameteri(target, GL_TEXTURE_TILING_EXT, GL_OPTIMAL_TILING_EXT);
	if (layers > 1)
		glTexStorageMem3DEXT(target, 1, fmt->gl_internal_format,
				     (GLsizei)width, (GLsizei)height,
				     (GLsizei)layers, mem, 0);
	else
		glTexStorageMem2DEXT(target, 1, fmt->gl_internal_format,
				     (GLsizei)width, (GLsizei)height, mem, 0);
	/* Sampling defaults that work for every format (integer-like float
	 * formats cannot be linearly filtered on every driver). */
	glTexParameteri(target, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
	glTexParameteri(target, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
	glTexParameteri(target, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
	glTexParameteri(target, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
	glBindTexture(target, (GLuint)prev_tex);
	{
		GLenum err = gl_take_error();
		if (err != GL_NO_ERROR) {
			glDeleteTextures(1, &tex);
			glDeleteMemoryObjectsEXT(1, &mem);
			if (err == GL_CONTEXT_LOST)
				return error_fail(gl->errors,
						  GLCUDA_ERROR_DEVICE_LOST,
						  "glTexStorageMem2DEXT: "
						  "GL_CONTEXT_LOST");
			return error_fail(
				gl->errors,
				err == GL_INVALID_ENUM ||
						err == GL_INVALID_OPERATION
					? GLCUDA_ERROR_UNSUPPORTED_FORMAT
					: GLCUDA_ERROR_GL,
				"glTexStorageMem%cDEXT(%s 0x%04x, %ux%ux%u) on "
				"imported memory failed: %s (0x%04x). The GL "
				"driver cannot use shared memory for this "
				"format and layer count; pick another format "
				"(glcuda_device_has_format()).",
				layers > 1 ? '3' : '2', fmt->name,
				fmt->gl_internal_format, width, height, layers,
				gl_error_name(err), err);
		}
	}
	*texture = tex;
	*memory_object = mem;
	return 0;
}

void
gl_delete_texture(GLuint *texture, GLuint *memory_object)
{
	if (*texture)
		glDeleteTextures(1, texture);
	if (*memory_object)
		glDeleteMemoryObjectsEXT(1, memory_object);
	*texture = 0;
	*memory_object = 0;
}

int
gl_import_semaphore(struct gl_state *gl, int fd, bool timeline,
		    GLuint *semaphore)
{
	GLuint sem = 0;
	int ret;

	gl_take_error();
	if (timeline) {
		/* GL_NV_timeline_semaphore: the type is fixed at creation and
		 * must be set before the import. */
		GLint type = GLCUDA_GL_SEMAPHORE_TYPE_TIMELINE_NV;
		gl->CreateSemaphoresNV(1, &sem);
		gl->SemaphoreParameterivNV(sem, GLCUDA_GL_SEMAPHORE_TYPE_NV,
					   &type);
	} else {
		glGenSemaphoresEXT(1, &sem);
	}
	glImportSemaphoreFdEXT(sem, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
	ret = gl_check_error(
		gl->errors,
		timeline ? "glImportSemaphoreFdEXT (timeline, OPAQUE_FD)"
			 : "glImportSemaphoreFdEXT (binary, OPAQUE_FD)");
	if (ret < 0) {
		close(fd);
		glDeleteSemaphoresEXT(1, &sem);
		return ret;
	}
	*semaphore = sem;
	return 0;
}

void
gl_delete_semaphore(GLuint *semaphore)
{
	if (*semaphore)
		glDeleteSemaphoresEXT(1, semaphore);
	*semaphore = 0;
}

#define GLCUDA_MAX_LAYOUTS 64

static void
fill_layouts(GLenum *layouts, unsigned int count)
{
	/* GENERAL on both sides, always: CUDA does not know layouts and the
	 * image is never used by Vulkan itself. */
	for (unsigned int i = 0; i < count; i++)
		layouts[i] = GL_LAYOUT_GENERAL_EXT;
}

/* GL's semaphore call with the layouts and, for a timeline, the value:
 * signal (glSignalSemaphoreEXT) or wait (glWaitSemaphoreEXT). */
static void
semaphore_op(bool signal, GLuint semaphore, bool timeline, uint64_t value,
	     const GLuint *textures, unsigned int count)
{
	GLenum layouts[GLCUDA_MAX_LAYOUTS];

	if (count > GLCUDA_MAX_LAYOUTS)
		count = GLCUDA_MAX_LAYOUTS;
	fill_layouts(layouts, count);
	if (timeline)
		glSemaphoreParameterui64vEXT(
			semaphore, GLCUDA_GL_TIMELINE_SEMAPHORE_VALUE_NV,
			&value);
	if (signal)
		glSignalSemaphoreEXT(semaphore, 0, NULL, count, textures,
				     layouts);
	else
		glWaitSemaphoreEXT(semaphore, 0, NULL, count, textures,
				   layouts);
}

void
gl_signal_semaphore(GLuint semaphore, bool timeline, uint64_t value,
		    const GLuint *textures, unsigned int count)
{
	semaphore_op(true, semaphore, timeline, value, textures, count);
}

void
gl_wait_semaphore(GLuint semaphore, bool timeline, uint64_t value,
		  const GLuint *textures, unsigned int count)
{
	semaphore_op(false, semaphore, timeline, value, textures, count);
}

void
gl_save_state(struct gl_saved_state *s)
{
	glGetIntegerv(GL_ACTIVE_TEXTURE, &s->active_texture);
	glGetIntegerv(GL_TEXTURE_BINDING_2D, &s->texture_2d);
	glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &s->draw_fbo);
	glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &s->read_fbo);
	glGetIntegerv(GL_PACK_ALIGNMENT, &s->pack_alignment);
	glGetIntegerv(GL_UNPACK_ALIGNMENT, &s->unpack_alignment);
	glGetIntegerv(GL_PACK_ROW_LENGTH, &s->pack_row_length);
	glGetIntegerv(GL_UNPACK_ROW_LENGTH, &s->unpack_row_length);
	glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &s->pixel_pack_buffer);
	glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &s->pixel_unpack_buffer);
}

void
gl_restore_state(const struct gl_saved_state *s)
{
	glActiveTexture((GLenum)s->active_texture);
	glBindTexture(GL_TEXTURE_2D, (GLuint)s->texture_2d);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)s->draw_fbo);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)s->read_fbo);
	glPixelStorei(GL_PACK_ALIGNMENT, s->pack_alignment);
	glPixelStorei(GL_UNPACK_ALIGNMENT, s->unpack_alignment);
	glPixelStorei(GL_PACK_ROW_LENGTH, s->pack_row_length);
	glPixelStorei(GL_UNPACK_ROW_LENGTH, s->unpack_row_length);
	glBindBuffer(GL_PIXEL_PACK_BUFFER, (GLuint)s->pixel_pack_buffer);
	glBindBuffer(GL_PIXEL_UNPACK_BUFFER, (GLuint)s->pixel_unpack_buffer);
}

void
gl_save_draw_state(const struct gl_state *gl, struct gl_saved_draw_state *s)
{
	GLint active = GL_TEXTURE0;

	s->scissor_test = glIsEnabled(GL_SCISSOR_TEST);
	s->rasterizer_discard = glIsEnabled(GL_RASTERIZER_DISCARD);
	s->depth_test = glIsEnabled(GL_DEPTH_TEST);
	s->stencil_test = glIsEnabled(GL_STENCIL_TEST);
	s->blend = glIsEnabled(GL_BLEND);
	s->cull_face = glIsEnabled(GL_CULL_FACE);
	s->framebuffer_srgb =
		!gl->is_gles && glIsEnabled(GL_FRAMEBUFFER_SRGB);
	glGetBooleanv(GL_DEPTH_WRITEMASK, &s->depth_mask);
	glGetBooleanv(GL_COLOR_WRITEMASK, s->color_mask);
	glGetIntegerv(GL_DEPTH_FUNC, &s->depth_func);
	glGetIntegerv(GL_CURRENT_PROGRAM, &s->program);
	glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &s->vertex_array);
	glGetIntegerv(GL_VIEWPORT, s->viewport);
	s->polygon_mode = GL_FILL;
	if (!gl->is_gles) {
		/* Front and back: one value in a core profile. */
		GLint modes[2] = { GL_FILL, GL_FILL };

		glGetIntegerv(GL_POLYGON_MODE, modes);
		s->polygon_mode = modes[0];
	}
	glGetIntegerv(GL_PACK_SKIP_ROWS, &s->pack_skip_rows);
	glGetIntegerv(GL_PACK_SKIP_PIXELS, &s->pack_skip_pixels);
	glGetIntegerv(GL_UNPACK_SKIP_ROWS, &s->unpack_skip_rows);
	glGetIntegerv(GL_UNPACK_SKIP_PIXELS, &s->unpack_skip_pixels);
	glGetIntegerv(GL_ACTIVE_TEXTURE, &active);
	glActiveTexture(GL_TEXTURE0);
	glGetIntegerv(GL_TEXTURE_BINDING_2D, &s->unit0_texture_2d);
	glGetIntegerv(GL_SAMPLER_BINDING, &s->unit0_sampler);
	glActiveTexture((GLenum)active);
}

static void
set_enabled(GLenum cap, GLboolean on)
{
	if (on)
		glEnable(cap);
	else
		glDisable(cap);
}

void
gl_restore_draw_state(const struct gl_state *gl,
		      const struct gl_saved_draw_state *s)
{
	GLint active = GL_TEXTURE0;

	set_enabled(GL_SCISSOR_TEST, s->scissor_test);
	set_enabled(GL_RASTERIZER_DISCARD, s->rasterizer_discard);
	set_enabled(GL_DEPTH_TEST, s->depth_test);
	set_enabled(GL_STENCIL_TEST, s->stencil_test);
	set_enabled(GL_BLEND, s->blend);
	set_enabled(GL_CULL_FACE, s->cull_face);
	if (!gl->is_gles) {
		set_enabled(GL_FRAMEBUFFER_SRGB, s->framebuffer_srgb);
		glPolygonMode(GL_FRONT_AND_BACK, (GLenum)s->polygon_mode);
	}
	glDepthMask(s->depth_mask);
	glColorMask(s->color_mask[0], s->color_mask[1], s->color_mask[2],
		    s->color_mask[3]);
	glDepthFunc((GLenum)s->depth_func);
	glUseProgram((GLuint)s->program);
	glBindVertexArray((GLuint)s->vertex_array);
	glViewport(s->viewport[0], s->viewport[1], s->viewport[2],
		   s->viewport[3]);
	glPixelStorei(GL_PACK_SKIP_ROWS, s->pack_skip_rows);
	glPixelStorei(GL_PACK_SKIP_PIXELS, s->pack_skip_pixels);
	glPixelStorei(GL_UNPACK_SKIP_ROWS, s->unpack_skip_rows);
	glPixelStorei(GL_UNPACK_SKIP_PIXELS, s->unpack_skip_pixels);
	glGetIntegerv(GL_ACTIVE_TEXTURE, &active);
	glActiveTexture(GL_TEXTURE0);
	glBindTexture(GL_TEXTURE_2D, (GLuint)s->unit0_texture_2d);
	glBindSampler(0, (GLuint)s->unit0_sampler);
	glActiveTexture((GLenum)active);
}

int
gl_inspect_texture(struct gl_state *gl, GLuint texture, GLenum target,
		   uint32_t *width, uint32_t *height, GLenum *internal_format)
{
	GLenum binding = target == GL_TEXTURE_2D ? GL_TEXTURE_BINDING_2D
						 : GL_TEXTURE_BINDING_RECTANGLE;
	GLint prev = 0, w = 0, h = 0, ifmt = 0;
	bool can_query = !gl->is_gles || gl->major > 3 ||
			 (gl->major == 3 && gl->minor >= 1);
	GLenum err;

	*width = *height = 0;
	*internal_format = 0;
	gl_take_error();
	if (!glIsTexture(texture))
		return error_fail(gl->errors, -EINVAL,
				  "texture %u is not a texture of the current "
				  "GL context: deleted, never bound, or made "
				  "in a context that does not share objects "
				  "with this one",
				  texture);
	glGetIntegerv(binding, &prev);
	glBindTexture(target, texture);
	err = glGetError();
	if (err != GL_NO_ERROR) {
		gl_take_error();
		return error_fail(gl->errors, -EINVAL,
				  "texture %u is not a %s texture "
				  "(glBindTexture: %s); pass the target it was "
				  "created with",
				  texture,
				  target == GL_TEXTURE_2D
					  ? "GL_TEXTURE_2D"
					  : "GL_TEXTURE_RECTANGLE",
				  gl_error_name(err));
	}
	if (can_query) {
		glGetTexLevelParameteriv(target, 0, GL_TEXTURE_WIDTH, &w);
		glGetTexLevelParameteriv(target, 0, GL_TEXTURE_HEIGHT, &h);
		glGetTexLevelParameteriv(target, 0, GL_TEXTURE_INTERNAL_FORMAT,
					 &ifmt);
	}
	glBindTexture(target, (GLuint)prev);
	if (gl_check_error(gl->errors, "glGetTexLevelParameteriv") < 0)
		return GLCUDA_ERROR_GL;
	if (can_query && (w <= 0 || h <= 0))
		return error_fail(
			gl->errors, -EINVAL,
			"texture %u has no storage at level 0: allocate it "
			"(glTexStorage2D or glTexImage2D) before wrapping it",
			texture);
	*width = (uint32_t)w;
	*height = (uint32_t)h;
	*internal_format = (GLenum)ifmt;
	return 0;
}

/* Attach `layer` (-1: every layer, a layered attachment) of the colour and
 * depth textures to the bound draw framebuffer. */
static void
attach_layer(GLenum target, GLuint color, GLuint depth, int layer)
{
	const GLenum points[2] = { GL_COLOR_ATTACHMENT0, GL_DEPTH_ATTACHMENT };
	const GLuint textures[2] = { color, depth };

	for (int i = 0; i < 2; i++) {
		if (!textures[i])
			continue;
		if (layer < 0)
			glFramebufferTexture(GL_DRAW_FRAMEBUFFER, points[i],
					     textures[i], 0);
		else if (target == GL_TEXTURE_2D_ARRAY)
			glFramebufferTextureLayer(GL_DRAW_FRAMEBUFFER,
						  points[i], textures[i], 0,
						  layer);
		else
			glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, points[i],
					       GL_TEXTURE_2D, textures[i], 0);
	}
	if (!color) {
		/* Depth only: no colour buffer to draw to or read from. */
		const GLenum none = GL_NONE;

		glDrawBuffers(1, &none);
		glReadBuffer(GL_NONE);
	}
}

int
gl_create_framebuffers(struct gl_state *gl, GLenum target, GLuint color,
		       GLuint depth, uint32_t layers, GLuint *fbos,
		       GLuint *layered)
{
	/* glFramebufferTexture: GL 3.2, GLES 3.2. */
	const bool can_layer = !gl->is_gles || gl->major > 3 ||
			       (gl->major == 3 && gl->minor >= 2);
	const uint32_t count = layers + (layers > 1 && can_layer ? 1 : 0);
	GLint prev = 0;
	GLuint *names;
	int ret = 0;

	names = calloc(count, sizeof(*names));
	if (!names)
		return error_fail(gl->errors, -ENOMEM,
				  "out of memory for %u framebuffers", count);
	gl_take_error();
	glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &prev);
	glGenFramebuffers((GLsizei)count, names);
	for (uint32_t i = 0; i < count && ret == 0; i++) {
		/* The last one, past the layers, is the layered one. */
		const int layer = i < layers ? (int)i : -1;
		GLenum status;

		glBindFramebuffer(GL_DRAW_FRAMEBUFFER, names[i]);
		attach_layer(target, color, depth, layer);
		status = glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER);
		if (status != GL_FRAMEBUFFER_COMPLETE)
			ret = error_fail(gl->errors, GLCUDA_ERROR_GL,
					 "the framebuffer of %s %d of a shared "
					 "image is incomplete: "
					 "glCheckFramebufferStatus 0x%04x",
					 layer < 0 ? "all layers," : "layer",
					 layer, status);
	}
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)prev);
	if (ret == 0)
		ret = gl_check_error(gl->errors, "making the framebuffers of a "
				     "shared image");
	if (ret < 0) {
		glDeleteFramebuffers((GLsizei)count, names);
		free(names);
		return ret;
	}
	memcpy(fbos, names, layers * sizeof(*names));
	*layered = layers == 1 ? names[0] : count > layers ? names[layers] : 0;
	free(names);
	return 0;
}
