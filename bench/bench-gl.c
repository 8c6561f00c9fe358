/*
 * glcuda-bench: the GL side: the scene, the composite, the pacing.
 * SPDX-License-Identifier: MIT
 */
#include "bench.h"

/* GL: the render, the composite, the pacing                                */

struct bench_gl gl;

const char scene_vs[] =
	"#version 330 core\n"
	"void main() {\n"
	"  vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0,\n"
	"                gl_VertexID == 2 ? 3.0 : -1.0);\n"
	"  gl_Position = vec4(p, 0.0, 1.0);\n"
	"}\n";

const char scene_fs[] =
	"#version 330 core\n"
	"uniform float t;\n"
	"uniform vec2 size;\n"
	"out vec4 color;\n"
	"void main() {\n"
	"  vec2 uv = gl_FragCoord.xy / size;\n"
	"  color = vec4(uv.x, uv.y, fract(t + uv.x * uv.y), 1.0);\n"
	"}\n";

const char composite_fs[] =
	"#version 330 core\n"
	"uniform sampler2D tex;\n"
	"out vec4 color;\n"
	"void main() {\n"
	"  color = texelFetch(tex, ivec2(gl_FragCoord.xy), 0);\n"
	"}\n";

GLuint
link_program(const char *vs_src, const char *fs_src)
{
	char log[1024];
	GLuint vs =
		shader_compile(GL_VERTEX_SHADER, &vs_src, 1, log, sizeof(log));
	GLuint fs = vs ? shader_compile(GL_FRAGMENT_SHADER, &fs_src, 1, log,
					sizeof(log))
		       : 0;
	GLuint prog;

	if (!fs) {
		if (vs)
			glDeleteShader(vs);
		fail("compiling a shader: %s", log);
		return 0;
	}
	prog = shader_link(vs, fs, log, sizeof(log));
	if (!prog)
		fail("linking a program: %s", log);
	return prog;
}

int
gl_init(void)
{
	gl.scene_prog = link_program(scene_vs, scene_fs);
	if (!gl.scene_prog)
		return -1;
	gl.composite_prog = link_program(scene_vs, composite_fs);
	if (!gl.composite_prog)
		return -1;
	gl.scene_t_loc = glGetUniformLocation(gl.scene_prog, "t");
	gl.scene_size_loc = glGetUniformLocation(gl.scene_prog, "size");
	glUseProgram(gl.composite_prog);
	glUniform1i(glGetUniformLocation(gl.composite_prog, "tex"), 0);
	glUseProgram(0);
	glGenVertexArrays(1, &gl.vao);
	/* The sampler overrides whatever filtering the textures carry
	 * (glcuda's are not ours to change). */
	glGenSamplers(1, &gl.sampler);
	glSamplerParameteri(gl.sampler, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
	glSamplerParameteri(gl.sampler, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
	glDisable(GL_DEPTH_TEST);
	glDisable(GL_BLEND);
	return gl_check("creating the shaders");
}

void
gl_fini(void)
{
	if (gl.scene_prog)
		glDeleteProgram(gl.scene_prog);
	if (gl.composite_prog)
		glDeleteProgram(gl.composite_prog);
	if (gl.vao)
		glDeleteVertexArrays(1, &gl.vao);
	if (gl.sampler)
		glDeleteSamplers(1, &gl.sampler);
}

/* A texture of the group's format with immutable storage (one level, so it
 * is complete) and, if fbo is not NULL, a framebuffer around it. */
int
gl_make_target(const struct group *g, GLenum internal_format, GLuint *tex,
	       GLuint *fbo)
{
	GLenum status;

	glGenTextures(1, tex);
	glBindTexture(GL_TEXTURE_2D, *tex);
	glTexStorage2D(GL_TEXTURE_2D, 1, internal_format, (GLsizei)g->width,
		       (GLsizei)g->height);
	glBindTexture(GL_TEXTURE_2D, 0);
	if (!fbo)
		return gl_check("creating a texture");
	glGenFramebuffers(1, fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, *tex, 0);
	status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	if (status != GL_FRAMEBUFFER_COMPLETE)
		return fail("a %ux%u framebuffer is incomplete (0x%04x)",
			    g->width, g->height, status);
	return gl_check("creating a render target");
}

void
gl_delete_target(GLuint *tex, GLuint *fbo)
{
	if (fbo && *fbo)
		glDeleteFramebuffers(1, fbo);
	if (tex && *tex)
		glDeleteTextures(1, tex);
	if (fbo)
		*fbo = 0;
	if (tex)
		*tex = 0;
}

/* The frame's GL work, part 1: render into the input. */
void
gl_render(GLuint fbo, const struct group *g, uint64_t frame)
{
	float t = (float)(frame % 240) / 240.0f;

	glBindFramebuffer(GL_FRAMEBUFFER, fbo);
	glViewport(0, 0, (GLsizei)g->width, (GLsizei)g->height);
	glClearColor(t, 0.5f, 1.0f - t, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glUseProgram(gl.scene_prog);
	glUniform1f(gl.scene_t_loc, t);
	glUniform2f(gl.scene_size_loc, (float)g->width, (float)g->height);
	glBindVertexArray(gl.vao);
	glDrawArrays(GL_TRIANGLES, 0, 3);
}

/* Part 2: draw the output into the screen texture. */
void
gl_composite(GLuint tex, const struct group *g)
{
	glBindFramebuffer(GL_FRAMEBUFFER, g->screen_fbo);
	glViewport(0, 0, (GLsizei)g->width, (GLsizei)g->height);
	glUseProgram(gl.composite_prog);
	glActiveTexture(GL_TEXTURE0);
	glBindTexture(GL_TEXTURE_2D, tex);
	glBindSampler(0, gl.sampler);
	glBindVertexArray(gl.vao);
	glDrawArrays(GL_TRIANGLES, 0, 3);
	glBindTexture(GL_TEXTURE_2D, 0);
}

/* Frame pacing: before a frame starts, wait until GL has finished the frame
 * --queue frames back (a swap chain's throttle); measured apart from the
 * interop calls. */
int
pace_wait(void)
{
	GLsync f;
	GLenum r;

	if (opt.queue == 0 || gl.fence_count < opt.queue)
		return 0;
	f = gl.fences[gl.fence_head];
	METER(pacing_meter, r = glClientWaitSync(f, GL_SYNC_FLUSH_COMMANDS_BIT,
						 10000000000ull));
	glDeleteSync(f);
	gl.fences[gl.fence_head] = NULL;
	gl.fence_head = (gl.fence_head + 1) % MAX_QUEUE;
	gl.fence_count--;
	if (r == GL_TIMEOUT_EXPIRED)
		return fail("GL did not finish a frame within 10 s (GPU "
			    "hang?)");
	if (r == GL_WAIT_FAILED)
		return gl_check("in glClientWaitSync") < 0
			       ? -1
			       : fail("glClientWaitSync failed");
	return 0;
}

void
pace_push(void)
{
	if (opt.queue == 0)
		return;
	gl.fences[(gl.fence_head + gl.fence_count) % MAX_QUEUE] =
		glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
	gl.fence_count++;
}

void
pace_reset(void)
{
	while (gl.fence_count) {
		glDeleteSync(gl.fences[gl.fence_head]);
		gl.fences[gl.fence_head] = NULL;
		gl.fence_head = (gl.fence_head + 1) % MAX_QUEUE;
		gl.fence_count--;
	}
	gl.fence_head = 0;
}

/* ---------------------------------------------------------------------- */
