"""A frame drawn with PyOpenGL into a framebuffer of its own (colour and
depth renderbuffers, optionally multisampled), as a PyOpenGL renderer
draws: shaders, a vertex buffer, glDrawArrays with the depth test. Shared
by test_renderers.py (Mesa, the fake CUDA driver) and gpu_check.py
(pyopengl, on the GPU). PyOpenGL must find EGL: PYOPENGL_PLATFORM=egl
before OpenGL is first imported; a context must be current."""
import ctypes
import os

os.environ.setdefault("PYOPENGL_PLATFORM", "egl")

from OpenGL import GL  # noqa: E402
from OpenGL.GL import shaders  # noqa: E402

VERTEX = """#version 330 core
in vec3 position;
in vec3 colour;
out vec3 v_colour;
void main()
{
	gl_Position = vec4(position, 1.0);
	v_colour = colour;
}
"""
FRAGMENT = """#version 330 core
in vec3 v_colour;
out vec4 out_colour;
void main()
{
	out_colour = vec4(v_colour, 1.0);
}
"""
# Two triangles crossing in depth: x, y, z, r, g, b.
VERTICES = [-0.9, -0.8, -0.6, 1.0, 0.0, 0.0,
            0.8, -0.5, 0.7, 0.0, 1.0, 0.0,
            -0.2, 0.9, 0.1, 0.0, 0.0, 1.0,
            0.9, 0.9, -0.9, 1.0, 1.0, 0.0,
            -0.7, 0.3, 0.9, 0.0, 1.0, 1.0,
            0.3, -0.9, 0.0, 1.0, 0.0, 1.0]


class PyOpenGLFrame:
    """draw() fills framebuffer `fbo` (width x height, RGBA8 and
    GL_DEPTH24_STENCIL8, `samples` samples); read_color() and read_depth()
    are PyOpenGL's glReadPixels of it (of a blit-resolved copy when
    multisampled), bytes in GL's order."""

    def __init__(self, width, height, samples=0):
        self.width, self.height, self.samples = width, height, samples
        self.renderbuffers = []
        self.fbo = self._framebuffer(samples)
        self.resolved = self._framebuffer(0) if samples else self.fbo
        self.program = shaders.compileProgram(
            shaders.compileShader(VERTEX, GL.GL_VERTEX_SHADER),
            shaders.compileShader(FRAGMENT, GL.GL_FRAGMENT_SHADER))
        self.vao = GL.glGenVertexArrays(1)
        self.vbo = GL.glGenBuffers(1)
        GL.glBindVertexArray(self.vao)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self.vbo)
        data = (ctypes.c_float * len(VERTICES))(*VERTICES)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, ctypes.sizeof(data), data,
                        GL.GL_STATIC_DRAW)
        for name, offset in (("position", 0), ("colour", 12)):
            location = GL.glGetAttribLocation(self.program, name)
            GL.glEnableVertexAttribArray(location)
            GL.glVertexAttribPointer(location, 3, GL.GL_FLOAT, GL.GL_FALSE,
                                     24, ctypes.c_void_p(offset))
        GL.glBindVertexArray(0)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)

    def _framebuffer(self, samples):
        fbo = GL.glGenFramebuffers(1)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, fbo)
        for internal, attachment in (
                (GL.GL_RGBA8, GL.GL_COLOR_ATTACHMENT0),
                (GL.GL_DEPTH24_STENCIL8, GL.GL_DEPTH_STENCIL_ATTACHMENT)):
            rb = GL.glGenRenderbuffers(1)
            GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, rb)
            GL.glRenderbufferStorageMultisample(GL.GL_RENDERBUFFER, samples,
                                                internal, self.width,
                                                self.height)
            GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, attachment,
                                         GL.GL_RENDERBUFFER, rb)
            self.renderbuffers.append(rb)
        status = GL.glCheckFramebufferStatus(GL.GL_FRAMEBUFFER)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
        if status != GL.GL_FRAMEBUFFER_COMPLETE:
            raise RuntimeError(f"PyOpenGL framebuffer: status {status:#x}")
        return fbo

    def draw(self):
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, self.fbo)
        GL.glViewport(0, 0, self.width, self.height)
        GL.glClearColor(0.1, 0.2, 0.3, 1.0)
        GL.glClearDepth(1.0)
        GL.glClear(GL.GL_COLOR_BUFFER_BIT | GL.GL_DEPTH_BUFFER_BIT)
        GL.glEnable(GL.GL_DEPTH_TEST)
        GL.glUseProgram(self.program)
        GL.glBindVertexArray(self.vao)
        GL.glDrawArrays(GL.GL_TRIANGLES, 0, 6)
        GL.glBindVertexArray(0)
        GL.glUseProgram(0)
        GL.glDisable(GL.GL_DEPTH_TEST)
        if self.samples:
            GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, self.fbo)
            GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, self.resolved)
            GL.glBlitFramebuffer(
                0, 0, self.width, self.height, 0, 0, self.width,
                self.height, GL.GL_COLOR_BUFFER_BIT | GL.GL_DEPTH_BUFFER_BIT,
                GL.GL_NEAREST)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)

    def _read(self, fmt, typ, size):
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, self.resolved)
        GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 1)
        data = GL.glReadPixels(0, 0, self.width, self.height, fmt, typ)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
        # bytes, or a numpy array where numpy is installed.
        data = data if isinstance(data, bytes) else data.tobytes()
        assert len(data) == self.width * self.height * size
        return data

    def read_color(self):
        return self._read(GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, 4)

    def read_depth(self):
        return self._read(GL.GL_DEPTH_COMPONENT, GL.GL_FLOAT, 4)

    def close(self):
        GL.glDeleteFramebuffers(2 if self.samples else 1,
                                [self.fbo, self.resolved][:2 if
                                                          self.samples else 1])
        GL.glDeleteRenderbuffers(len(self.renderbuffers), self.renderbuffers)
        GL.glDeleteBuffers(1, [self.vbo])
        GL.glDeleteVertexArrays(1, [self.vao])
        GL.glDeleteProgram(self.program)
