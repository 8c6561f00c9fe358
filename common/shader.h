/*
 * GLSL programs for the tools: compile and link, with the driver's log on
 * failure. Needs a current GL context (libepoxy resolves the calls).
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TOOLS_SHADER_H
#define GLCUDA_TOOLS_SHADER_H

#include <stddef.h>
#include <epoxy/gl.h>

/* Compile a shader from count source strings, concatenated (a version
 * header and a body, say). Returns the shader, or 0 with the info log in
 * log. */
GLuint shader_compile(GLenum type, const char *const *src, int count,
		      char *log, size_t log_size);

/* Link vs and fs into a program; both shaders are deleted either way.
 * Returns the program, or 0 with the info log in log. */
GLuint shader_link(GLuint vs, GLuint fs, char *log, size_t log_size);

#endif
