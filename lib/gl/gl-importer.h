/*
 * The GL importer: context checks, extension checks, memory objects,
 * textures on imported memory, semaphores (EXT binary and NV timeline), and
 * saving/restoring the GL state glcuda touches. GL and GLES alike; entry
 * points through libepoxy, GL_NV_timeline_semaphore through
 * eglGetProcAddress (epoxy lacks it).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_GL_IMPORTER_H
#define GLCUDA_GL_IMPORTER_H

#include <stdbool.h>
#include <stdint.h>
#include <epoxy/gl.h>

struct error_sink;
struct format_info;

#define GLCUDA_GL_TIMELINE_SEMAPHORE_VALUE_NV 0x9595
#define GLCUDA_GL_SEMAPHORE_TYPE_NV 0x95B3
#define GLCUDA_GL_SEMAPHORE_TYPE_BINARY_NV 0x95B4
#define GLCUDA_GL_SEMAPHORE_TYPE_TIMELINE_NV 0x95B5

typedef void (*gl_PFNGLCREATESEMAPHORESNV)(GLsizei n, GLuint *semaphores);
typedef void (*gl_PFNGLSEMAPHOREPARAMETERIVNV)(GLuint semaphore, GLenum pname,
					       const GLint *params);

struct gl_state {
	/* Where the calls on this state report failures. */
	struct error_sink *errors;
	char vendor[128], renderer[128], version[128];
	/* GL_DEVICE_UUID_EXT / GL_DRIVER_UUID_EXT of the context. */
	uint8_t device_uuid[16], driver_uuid[16];
	bool is_gles;
	int major, minor;
	bool core_profile;
	bool has_memory_object_fd;  /* GL_EXT_memory_object(_fd) */
	bool has_semaphore_fd;      /* GL_EXT_semaphore(_fd) */
	bool has_timeline_nv;       /* GL_NV_timeline_semaphore */
	bool has_timer_query;       /* GL 3.3 / GL_EXT_disjoint_timer_query */
	bool has_robustness;        /* glGetGraphicsResetStatus available */
	/* The context reports resets: made with reset notification
	 * (GL_RESET_NOTIFICATION_STRATEGY is GL_LOSE_CONTEXT_ON_RESET). Without
	 * it glGetGraphicsResetStatus always returns GL_NO_ERROR. */
	bool reset_notification;
	GLint max_texture_size;
	GLint max_array_layers; /* GL_MAX_ARRAY_TEXTURE_LAYERS */
	gl_PFNGLCREATESEMAPHORESNV CreateSemaphoresNV;
	gl_PFNGLSEMAPHOREPARAMETERIVNV SemaphoreParameterivNV;
};

/* Query the current context into *gl: version, profile, extensions,
 * limits, vendor strings and UUIDs; the caller turns them into whatever it
 * reports. Later calls on gl report failures to errors.
 * Errors: GLCUDA_ERROR_GL_TOO_OLD, GLCUDA_ERROR_MISSING_GL_EXTENSION. */
int gl_state_init(struct gl_state *gl, struct error_sink *errors);

/* glGetGraphicsResetStatus where the context reports resets, else
 * GL_NO_ERROR. In the tests' build (fault.h) it calls through
 * gl_reset_status_hook: the seam the device-loss tests use, since no driver
 * resets a context on demand. */
GLenum gl_reset_status(const struct gl_state *gl);
/* Defined only in the tests' build. */
extern GLenum (*gl_reset_status_hook)(void);
const char *gl_reset_status_name(GLenum status);

/* Drain glGetError; if anything was pending, record GLCUDA_ERROR_GL naming
 * `what` (and GLCUDA_ERROR_DEVICE_LOST on GL_CONTEXT_LOST). */
int gl_check_error(struct error_sink *errors, const char *what);
/* Discard pending GL errors (the caller's) before glcuda's own calls. */
GLenum gl_take_error(void);

/* Import an image's memory (fd from Vulkan, OPAQUE_FD) and make a
 * GL_TEXTURE_2D with glTexStorageMem2DEXT (layers 1) or a
 * GL_TEXTURE_2D_ARRAY with glTexStorageMem3DEXT (layers > 1), optimal
 * tiling, dedicated as Vulkan allocated. The fd is consumed in every case
 * (GL owns it on success; it is closed on failure). Texture bindings are
 * restored. */
int gl_import_texture(struct gl_state *gl, int fd, uint64_t size,
		      bool dedicated, const struct format_info *fmt,
		      uint32_t width, uint32_t height, uint32_t layers,
		      GLuint *texture, GLuint *memory_object);

/* One framebuffer per layer of `color` (GL_COLOR_ATTACHMENT0; 0: none, a
 * depth-only image) and `depth` (GL_DEPTH_ATTACHMENT; 0: none), into
 * fbos[0..layers-1], and the layered one (every layer attached) into
 * *layered: fbos[0] for one layer, 0 where GL cannot attach layers
 * (GLES before 3.2). Each is checked complete; the framebuffer binding is
 * restored. On failure none is left. */
int gl_create_framebuffers(struct gl_state *gl, GLenum target, GLuint color,
			   GLuint depth, uint32_t layers, GLuint *fbos,
			   GLuint *layered);
void gl_delete_texture(GLuint *texture, GLuint *memory_object);

/* Import a semaphore fd (binary with glGenSemaphoresEXT, timeline with
 * glCreateSemaphoresNV + GL_SEMAPHORE_TYPE_TIMELINE_NV set before the
 * import). The fd is consumed in every case. */
int gl_import_semaphore(struct gl_state *gl, int fd, bool timeline,
			GLuint *semaphore);
void gl_delete_semaphore(GLuint *semaphore);

/* Signal after all GL commands so far, with the textures in
 * GL_LAYOUT_GENERAL_EXT; value is the timeline value (ignored for binary).
 * Does not flush. */
void gl_signal_semaphore(GLuint semaphore, bool timeline, uint64_t value,
			 const GLuint *textures, unsigned int count);
/* Make GL's later commands wait for the semaphore (value for timelines). */
void gl_wait_semaphore(GLuint semaphore, bool timeline, uint64_t value,
		       const GLuint *textures, unsigned int count);

/* Check that `texture` names a texture of `target` (GL_TEXTURE_2D or
 * GL_TEXTURE_RECTANGLE) in the current context, with storage; its level-0
 * size and internal format (all 0 on GLES 3.0, which cannot say). The
 * binding it changes is restored. Errors: -EINVAL, GLCUDA_ERROR_GL. */
int gl_inspect_texture(struct gl_state *gl, GLuint texture, GLenum target,
		       uint32_t *width, uint32_t *height,
		       GLenum *internal_format);

/* GL state glcuda may change, saved and restored around its work. */
struct gl_saved_state {
	GLint active_texture;
	GLint texture_2d;
	GLint draw_fbo, read_fbo;
	GLint pack_alignment, unpack_alignment;
	GLint pack_row_length, unpack_row_length;
	GLint pixel_pack_buffer, pixel_unpack_buffer;
};
void gl_save_state(struct gl_saved_state *s);
void gl_restore_state(const struct gl_saved_state *s);

/* The state a blit and a full-screen pass of glcuda's own depend on, on
 * top of struct gl_saved_state: the tests and writes that apply to blits
 * (scissor, sRGB encoding, rasterizer discard) and those of drawing
 * (program, vertex array, viewport, depth, colour mask, stencil, blend,
 * culling, polygon mode, texture unit 0's 2D binding and sampler), and
 * the pixel-store skips. */
struct gl_saved_draw_state {
	GLboolean scissor_test, framebuffer_srgb, rasterizer_discard;
	GLboolean depth_test, depth_mask, stencil_test, blend, cull_face;
	GLboolean color_mask[4];
	GLint depth_func;
	GLint program, vertex_array;
	GLint viewport[4];
	GLint polygon_mode;
	GLint unit0_texture_2d, unit0_sampler;
	/* Beyond struct gl_saved_state's alignment and row lengths. */
	GLint pack_skip_rows, pack_skip_pixels;
	GLint unpack_skip_rows, unpack_skip_pixels;
};
/* Save, and restore, with the active texture unit left as it is (in
 * struct gl_saved_state). GL_FRAMEBUFFER_SRGB and glPolygonMode on
 * desktop GL only. */
void gl_save_draw_state(const struct gl_state *gl,
			struct gl_saved_draw_state *s);
void gl_restore_draw_state(const struct gl_state *gl,
			   const struct gl_saved_draw_state *s);

#endif
