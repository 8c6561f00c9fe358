/*
 * GLSL programs for the tools (see shader.h).
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "shader.h"

GLuint
shader_compile(GLenum type, const char *const *src, int count, char *log,
	       size_t log_size)
{
	GLuint sh = glCreateShader(type);
	GLint ok = 0;

	glShaderSource(sh, count, (const GLchar *const *)src, NULL);
	glCompileShader(sh);
	glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		log[0] = '\0';
		glGetShaderInfoLog(sh, (GLsizei)log_size, NULL, log);
		glDeleteShader(sh);
		return 0;
	}
	return sh;
}

GLuint
shader_link(GLuint vs, GLuint fs, char *log, size_t log_size)
{
	GLuint prog = glCreateProgram();
	GLint ok = 0;

	glAttachShader(prog, vs);
	glAttachShader(prog, fs);
	glLinkProgram(prog);
	/* The program keeps what it needs of them. */
	glDeleteShader(vs);
	glDeleteShader(fs);
	glGetProgramiv(prog, GL_LINK_STATUS, &ok);
	if (!ok) {
		log[0] = '\0';
		glGetProgramInfoLog(prog, (GLsizei)log_size, NULL, log);
		glDeleteProgram(prog);
		return 0;
	}
	return prog;
}
