/*
 * glcuda-demo: the GL side: shaders, the scene, the composite.
 * SPDX-License-Identifier: MIT
 */
#include "demo.h"

/* Shaders ---------------------------------------------------------------- */

const char vertex_body[] =
	"out vec2 v_uv;\n"
	"void main()\n"
	"{\n"
	"	/* One triangle that covers the viewport. */\n"
	"	vec2 p = vec2(float((gl_VertexID << 1) & 2),\n"
	"		      float(gl_VertexID & 2));\n"
	"	v_uv = p;\n"
	"	gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);\n"
	"}\n";

const char scene_body[] =
	"uniform float u_time;\n"
	"uniform vec2 u_resolution;\n"
	"uniform int u_frame;\n"
	"in vec2 v_uv;\n"
	"layout(location = 0) out vec4 o_color;\n"
	"\n"
	"const float PI = 3.14159265;\n"
	"/* Segments a..g as bits 0..6 for the digits 0..9. */\n"
	"const int SEGMENTS[10] =\n"
	"	int[10](63, 6, 91, 79, 102, 109, 125, 7, 127, 111);\n"
	"\n"
	"float box(vec2 p, vec2 lo, vec2 hi)\n"
	"{\n"
	"	return step(lo.x, p.x) * step(p.x, hi.x) *\n"
	"	       step(lo.y, p.y) * step(p.y, hi.y);\n"
	"}\n"
	"\n"
	"float digit(vec2 p, int d)\n"
	"{\n"
	"	int s = SEGMENTS[d];\n"
	"	float t = 0.14, on = 0.0;\n"
	"	if ((s & 1) != 0)\n"
	"		on += box(p, vec2(t, 1.0 - t), vec2(1.0 - t, 1.0));\n"
	"	if ((s & 2) != 0)\n"
	"		on += box(p, vec2(1.0 - t, 0.5), vec2(1.0, 1.0 - t));\n"
	"	if ((s & 4) != 0)\n"
	"		on += box(p, vec2(1.0 - t, t), vec2(1.0, 0.5));\n"
	"	if ((s & 8) != 0)\n"
	"		on += box(p, vec2(t, 0.0), vec2(1.0 - t, t));\n"
	"	if ((s & 16) != 0)\n"
	"		on += box(p, vec2(0.0, t), vec2(t, 0.5));\n"
	"	if ((s & 32) != 0)\n"
	"		on += box(p, vec2(0.0, 0.5), vec2(t, 1.0 - t));\n"
	"	if ((s & 64) != 0)\n"
	"		on += box(p, vec2(t, 0.5 - t * 0.5),\n"
	"			  vec2(1.0 - t, 0.5 + t * 0.5));\n"
	"	return min(on, 1.0);\n"
	"}\n"
	"\n"
	"vec3 hue(float h)\n"
	"{\n"
	"	vec3 k = abs(mod(h * 6.0 + vec3(0.0, 4.0, 2.0), 6.0) - 3.0);\n"
	"	return clamp(k - 1.0, 0.0, 1.0);\n"
	"}\n"
	"\n"
	"void main()\n"
	"{\n"
	"	vec2 frag = v_uv * u_resolution;\n"
	"	/* Aspect-correct coordinates, origin at the centre, y up,\n"
	"	 * height 1. */\n"
	"	vec2 p = (frag - 0.5 * u_resolution) / u_resolution.y;\n"
	"	float t = u_time;\n"
	"\n"
	"	vec3 col = mix(hue(0.08 * t + 0.25 * v_uv.x),\n"
	"		       hue(0.08 * t + 0.5 + 0.25 * v_uv.y),\n"
	"		       0.5 * v_uv.y) * 0.55 + 0.1;\n"
	"\n"
	"	/* Fine grid, scrolling. */\n"
	"	vec2 g = abs(fract((p + vec2(0.03 * t, 0.0)) * 24.0) - 0.5);\n"
	"	float grid = 1.0 - smoothstep(0.0, 0.06, min(g.x, g.y));\n"
	"	col = mix(col, vec3(0.95), 0.35 * grid);\n"
	"\n"
	"	/* Rotating striped disc. */\n"
	"	float r = length(p);\n"
	"	float a = atan(p.y, p.x) + 0.7 * t;\n"
	"	float stripes =\n"
	"		step(0.5, fract(a * 8.0 / (2.0 * PI) + r * 3.0));\n"
	"	float disc = 1.0 - smoothstep(0.33, 0.335, r);\n"
	"	vec3 dark = vec3(0.05, 0.05, 0.12);\n"
	"	vec3 gold = vec3(1.0, 0.85, 0.2);\n"
	"	col = mix(col, mix(dark, gold, stripes), disc);\n"
	"\n"
	"	/* Second hand. */\n"
	"	float ha = -2.0 * PI * fract(t / 4.0);\n"
	"	vec2 hd = vec2(sin(ha), cos(ha));\n"
	"	float along = dot(p, hd);\n"
	"	float across = abs(dot(p, vec2(hd.y, -hd.x)));\n"
	"	col = mix(col, vec3(0.9, 0.1, 0.1),\n"
	"		  step(0.0, along) * step(along, 0.31) *\n"
	"			  step(across, 0.006));\n"
	"\n"
	"	/* Circles on Lissajous paths. */\n"
	"	for (int i = 0; i < 3; i++) {\n"
	"		float fi = float(i);\n"
	"		float cx = t * (0.7 + 0.23 * fi) + fi * 2.1;\n"
	"		float cy = t * (1.1 + 0.17 * fi) + fi * 1.3;\n"
	"		vec2 c = vec2(0.62 * sin(cx), 0.36 * sin(cy));\n"
	"		float d = length(p - c);\n"
	"		col = mix(col, hue(fi / 3.0 + 0.05 * t) * 0.9 + 0.1,\n"
	"			  1.0 - smoothstep(0.075, 0.08, d));\n"
	"		float ring = smoothstep(0.0, 0.004, abs(d - 0.08));\n"
	"		col = mix(col, vec3(1.0), 1.0 - ring);\n"
	"	}\n"
	"\n"
	"	/* Frame number: six seven-segment digits at the top left. */\n"
	"	float dh = 0.07;\n"
	"	vec2 q = frag / u_resolution.y - vec2(0.03, 1.0 - 0.03 - dh);\n"
	"	q /= vec2(dh * 0.55, dh);\n"
	"	if (q.y >= 0.0 && q.y <= 1.0 && q.x >= 0.0 &&\n"
	"	    q.x < 6.0 * 1.3) {\n"
	"		int cell = int(q.x / 1.3);\n"
	"		vec2 cp = vec2(fract(q.x / 1.3) * 1.3, q.y);\n"
	"		int n = u_frame;\n"
	"		for (int k = 0; k < 5 - cell; k++)\n"
	"			n /= 10;\n"
	"		if (cp.x <= 1.0)\n"
	"			col = mix(col * 0.35, vec3(0.3, 1.0, 0.4),\n"
	"				  digit(cp, n - (n / 10) * 10));\n"
	"		else\n"
	"			col *= 0.35;\n"
	"	}\n"
	"	o_color = vec4(col, 1.0);\n"
	"}\n";

const char composite_body[] =
	"uniform sampler2D u_tex;\n"
	"in vec2 v_uv;\n"
	"layout(location = 0) out vec4 o_color;\n"
	"void main()\n"
	"{\n"
	"	o_color = vec4(texture(u_tex, v_uv).rgb, 1.0);\n"
	"}\n";

const char header_gl[] = "#version 450 core\n";
const char header_gles[] =
	"#version 300 es\n"
	"precision highp float;\n"
	"precision highp int;\n";

/* Demo state ------------------------------------------------------------- */

/* GL setup --------------------------------------------------------------- */

GLuint
compile(GLenum type, const char *header, const char *body, const char *name)
{
	const char *src[2] = { header, body };
	char log[4096];
	GLuint sh = shader_compile(type, src, 2, log, sizeof(log));

	if (!sh)
		fprintf(stderr,
			"glcuda-demo: the %s shader does not compile:\n%s\n",
			name, log);
	return sh;
}

GLuint
link_program(const char *header, const char *fragment_body, const char *name)
{
	GLuint vs = compile(GL_VERTEX_SHADER, header, vertex_body, "vertex");
	GLuint fs =
		vs ? compile(GL_FRAGMENT_SHADER, header, fragment_body, name)
		   : 0;
	char log[4096];
	GLuint prog;

	if (!fs) {
		if (vs)
			glDeleteShader(vs);
		return 0;
	}
	prog = shader_link(vs, fs, log, sizeof(log));
	if (!prog)
		fprintf(stderr,
			"glcuda-demo: the %s program does not link:\n%s\n",
			name, log);
	return prog;
}

int
gl_setup(struct demo *d)
{
	const char *header = d->opt.gles ? header_gles : header_gl;
	GLenum status;

	d->scene_prog = link_program(header, scene_body, "scene");
	d->composite_prog = link_program(header, composite_body, "composite");
	if (!d->scene_prog || !d->composite_prog)
		return 1;
	d->u_time = glGetUniformLocation(d->scene_prog, "u_time");
	d->u_resolution = glGetUniformLocation(d->scene_prog, "u_resolution");
	d->u_frame = glGetUniformLocation(d->scene_prog, "u_frame");
	d->u_tex = glGetUniformLocation(d->composite_prog, "u_tex");

	/* Core profiles draw only with a vertex array bound, even one
	 * without attributes. */
	glGenVertexArrays(1, &d->vao);

	/* A sampler object: the shared textures keep their own parameters. */
	glGenSamplers(1, &d->sampler);
	glSamplerParameteri(d->sampler, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
	glSamplerParameteri(d->sampler, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
	glSamplerParameteri(d->sampler, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
	glSamplerParameteri(d->sampler, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);

	/* The "screen": what a compositor would scan out. */
	glGenTextures(1, &d->screen_tex);
	glBindTexture(GL_TEXTURE_2D, d->screen_tex);
	glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, (GLsizei)d->opt.width,
		       (GLsizei)d->opt.height);
	glBindTexture(GL_TEXTURE_2D, 0);
	glGenFramebuffers(1, &d->screen_fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, d->screen_fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
			       GL_TEXTURE_2D, d->screen_tex, 0);
	status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	if (status != GL_FRAMEBUFFER_COMPLETE) {
		fprintf(stderr,
			"glcuda-demo: the screen framebuffer is incomplete "
			"(0x%04x)\n",
			status);
		return 1;
	}
	return gl_failed_check("while creating the shaders and the screen "
			       "framebuffer");
}

void
gl_teardown(struct demo *d)
{
	if (d->screen_fbo)
		glDeleteFramebuffers(1, &d->screen_fbo);
	if (d->screen_tex)
		glDeleteTextures(1, &d->screen_tex);
	if (d->sampler)
		glDeleteSamplers(1, &d->sampler);
	if (d->vao)
		glDeleteVertexArrays(1, &d->vao);
	if (d->scene_prog)
		glDeleteProgram(d->scene_prog);
	if (d->composite_prog)
		glDeleteProgram(d->composite_prog);
}

/* Per frame -------------------------------------------------------------- */

void
render_scene(struct demo *d, struct glcuda_frame *f)
{
	uint64_t n = glcuda_frame_get_number(f);

	glBindFramebuffer(GL_FRAMEBUFFER, glcuda_frame_get_input_fbo(f));
	glViewport(0, 0, (GLsizei)d->opt.width, (GLsizei)d->opt.height);
	glDisable(GL_SCISSOR_TEST);
	glDisable(GL_BLEND);
	glDisable(GL_DEPTH_TEST);
	glUseProgram(d->scene_prog);
	glUniform1f(d->u_time, (float)((double)n / 60.0));
	glUniform2f(d->u_resolution, (float)d->opt.width, (float)d->opt.height);
	glUniform1i(d->u_frame, (GLint)(n % 1000000));
	glBindVertexArray(d->vao);
	glDrawArrays(GL_TRIANGLES, 0, 3);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

void
fill_rect(int x, int y, int w, int h, float r, float g, float b)
{
	glScissor(x, y, w, h);
	glClearColor(r, g, b, 1.f);
	glClear(GL_COLOR_BUFFER_BIT);
}

void
draw_texture(GLuint tex, int x, int y, int w, int h)
{
	glViewport(x, y, w, h);
	glBindTexture(GL_TEXTURE_2D, tex);
	glDrawArrays(GL_TRIANGLES, 0, 3);
}

/* Composite the frame's output onto the screen: the filtered frame full
 * size, the unfiltered input as a picture-in-picture at the top right, and
 * a progress bar along the bottom. */
void
composite(struct demo *d, struct glcuda_frame *f)
{
	int w = (int)d->opt.width, h = (int)d->opt.height;
	int pw = w / 4, ph = h / 4, border = w >= 640 ? 3 : 1;
	int px = w - pw - w / 40, py = h - ph - h / 40;
	int bar = h / 90 > 3 ? h / 90 : 3;
	double progress = (double)(glcuda_frame_get_number(f) + 1) /
			  (double)d->opt.frames;

	glBindFramebuffer(GL_FRAMEBUFFER, d->screen_fbo);
	glDisable(GL_SCISSOR_TEST);
	glDisable(GL_BLEND);
	glUseProgram(d->composite_prog);
	glUniform1i(d->u_tex, 0);
	glActiveTexture(GL_TEXTURE0);
	glBindSampler(0, d->sampler);
	glBindVertexArray(d->vao);
	draw_texture(glcuda_frame_get_output_texture(f), 0, 0, w, h);

	if (pw >= 16 && ph >= 16) {
		glEnable(GL_SCISSOR_TEST);
		fill_rect(px - border, py - border, pw + 2 * border,
			  ph + 2 * border, 1.f, 1.f, 1.f);
		glDisable(GL_SCISSOR_TEST);
		draw_texture(glcuda_image_get_gl_texture(
				     glcuda_frame_get_input(f)),
			     px, py, pw, ph);
	}

	glEnable(GL_SCISSOR_TEST);
	fill_rect(0, 0, w, bar, 0.1f, 0.1f, 0.1f);
	fill_rect(0, 0, (int)(progress > 1.0 ? w : progress * w), bar, 0.2f,
		  0.8f, 0.3f);
	glDisable(GL_SCISSOR_TEST);

	glBindTexture(GL_TEXTURE_2D, 0);
	glBindSampler(0, 0);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	glViewport(0, 0, w, h);
}
