"""The package's tests run on Mesa and the fake CUDA driver, through
tests/test-python.sh (make check), which sets GLCUDA_LIBCUDA to the fake
and GLCUDA_FAKE_CUDA_UUID to GL's device."""
import ctypes
import os

import pytest

import glcuda
from glcuda import gl as glmod

from fakecuda import FakeCUDA

# How glReadPixels reads each colour format: format, type, bytes a pixel
# (the same bytes as the format's tensor).
READ = {
    "rgba8": (glmod.GL_RGBA, glmod.GL_UNSIGNED_BYTE, 4),
    "srgb8_a8": (glmod.GL_RGBA, glmod.GL_UNSIGNED_BYTE, 4),
    "rgb10_a2": (glmod.GL_RGBA, glmod.GL_UNSIGNED_INT_2_10_10_10_REV, 4),
    "rgba16f": (glmod.GL_RGBA, glmod.GL_HALF_FLOAT, 8),
    "rgba32f": (glmod.GL_RGBA, glmod.GL_FLOAT, 16),
    "r8": (glmod.GL_RED, glmod.GL_UNSIGNED_BYTE, 1),
    "rg8": (glmod.GL_RG, glmod.GL_UNSIGNED_BYTE, 2),
    "r16": (glmod.GL_RED, glmod.GL_UNSIGNED_SHORT, 2),
    "rg16": (glmod.GL_RG, glmod.GL_UNSIGNED_SHORT, 4),
    "r32f": (glmod.GL_RED, glmod.GL_FLOAT, 4),
}
DEPTH_READ = (glmod.GL_DEPTH_COMPONENT, glmod.GL_FLOAT, 4)


def pytest_configure(config):
    lib = os.environ.get("GLCUDA_LIBCUDA", "")
    if "fakecuda" not in os.path.basename(lib):
        pytest.exit("these tests run on the fake CUDA driver: run them "
                    "with tests/test-python.sh (make check)", returncode=77)


@pytest.fixture
def cuda():
    return FakeCUDA()


@pytest.fixture
def dev():
    device = glcuda.Headless()
    yield device
    device.close()


@pytest.fixture
def gl(dev):
    return glmod.GL()


def colour(layer):
    """A clear colour per layer, every channel different."""
    return ((layer + 1) / 7.0, 0.5, 1.0 - (layer + 1) / 9.0, 0.75)


def draw_layers(gl, img, depth=None):
    """Clear each layer to colour(layer), its lower-left quarter to
    another colour (so that rows and columns show), and the depth buffer
    (if any) to depth + layer / 16."""
    w, h = img.width, img.height
    for layer in range(img.layers):
        fbo = img.framebuffer(layer)
        d = None if depth is None else depth + layer / 16
        if img.format != "depth32f":
            gl.clear(fbo, w, h, color=colour(layer), depth=d)
            gl.clear(fbo, w, h, color=(0.0, 1.0, 0.25, 1.0),
                     scissor=(0, 0, w // 2, h // 2))
        else:
            gl.clear(fbo, w, h, depth=d)
            gl.clear(fbo, w, h, depth=0.125, scissor=(0, 0, w // 2, h // 2))


def flip_rows(data, height):
    """The rows of an image's bytes in the other order."""
    row = len(data) // height
    return b"".join(data[y * row:(y + 1) * row]
                    for y in reversed(range(height)))


def read_layer(gl, img, layer, fmt, origin="top-left"):
    """glReadPixels of one layer (fmt: the image's format, or 'depth32f'
    for its depth buffer), as bytes, rows in the order of origin: the
    top row first, as glcuda's tensors are by default, or GL's."""
    how = DEPTH_READ if fmt == "depth32f" else READ[fmt]
    data = gl.read_pixels(img.framebuffer(layer), img.width, img.height,
                          how[0], how[1], how[2])
    return flip_rows(data, img.height) if origin == "top-left" else data


# A renderer's own framebuffer, as moderngl, PyOpenGL or MuJoCo make one:
# colour and depth attachments of the formats glcuda captures from, drawn
# with two triangles that cross in depth over a cleared background, so
# that every row, column and depth value differs.
SOURCE_VERTEX = """#version 450 core
out vec4 v_colour;
const vec3 p[6] = vec3[6](
	vec3(-0.9, -0.8, -0.6), vec3(0.8, -0.5, 0.7), vec3(-0.2, 0.9, 0.1),
	vec3(0.9, 0.9, -0.9), vec3(-0.7, 0.3, 0.9), vec3(0.3, -0.9, 0.0));
void main()
{
	gl_Position = vec4(p[gl_VertexID], 1.0);
	v_colour = vec4(float(gl_VertexID % 3 == 0), float(gl_VertexID % 3 == 1),
			float(gl_VertexID >= 3), 0.5 + 0.1 * float(gl_VertexID));
}
"""
SOURCE_FRAGMENT = """#version 450 core
in vec4 v_colour;
out vec4 colour;
void main()
{
	colour = v_colour;
}
"""
COLOR_FORMATS = {"rgba8": glmod.GL_RGBA8, "rgb8": glmod.GL_RGB8,
                 "srgb8_a8": glmod.GL_SRGB8_ALPHA8}
DEPTH_FORMATS = {"depth16": glmod.GL_DEPTH_COMPONENT16,
                 "depth24": glmod.GL_DEPTH_COMPONENT24,
                 "depth24_stencil8": glmod.GL_DEPTH24_STENCIL8,
                 "depth32f": glmod.GL_DEPTH_COMPONENT32F,
                 "depth32f_stencil8": glmod.GL_DEPTH32F_STENCIL8}


def draw_scene(gl, fbo, w, h, color=True, depth=True,
               background=(0.2, 0.4, 0.6, 1.0)):
    """Into a framebuffer: clear, a scissored corner, and the two
    triangles (the depth test on where there is depth)."""
    gl.clear(fbo, w, h, color=background if color else None,
             depth=1.0 if depth else None)
    gl.clear(fbo, w, h, color=(0.9, 0.1, 0.3, 0.8) if color else None,
             depth=0.3 if depth else None, scissor=(0, 0, w // 3, h // 4))
    program = gl.program({glmod.GL_VERTEX_SHADER: SOURCE_VERTEX,
                          glmod.GL_FRAGMENT_SHADER: SOURCE_FRAGMENT})
    vao = ctypes.c_uint(0)
    gl.glGenVertexArrays(1, ctypes.byref(vao))
    gl.glBindFramebuffer(glmod.GL_FRAMEBUFFER, fbo)
    gl.glViewport(0, 0, w, h)
    if depth:
        gl.glEnable(glmod.GL_DEPTH_TEST)
    gl.glUseProgram(program)
    gl.glBindVertexArray(vao.value)
    gl.glDrawArrays(glmod.GL_TRIANGLES, 0, 6)
    gl.glBindVertexArray(0)
    gl.glUseProgram(0)
    gl.glDisable(glmod.GL_DEPTH_TEST)
    gl.glBindFramebuffer(glmod.GL_FRAMEBUFFER, 0)
    gl.glDeleteVertexArrays(1, ctypes.byref(vao))
    gl.glDeleteProgram(program)
    gl.check("scene")


class Source:
    """A framebuffer of the test's own (raw GL): colour (a texture or a
    renderbuffer) and/or depth, single-sampled or with samples, width x
    height. draw() fills it; reference() is what glReadPixels reads of a
    rectangle (of the blit-resolved copy for a multisampled one)."""

    def __init__(self, gl, width, height, color="rgba8", depth="depth24",
                 samples=0, kind="texture"):
        self.gl, self.width, self.height = gl, width, height
        self.color, self.depth, self.samples = color, depth, samples
        self.kind = kind
        self.textures, self.renderbuffers, self.framebuffers = [], [], []
        self.fbo = self._framebuffer(samples, kind)
        self.resolved = self._framebuffer(0, "renderbuffer") \
            if samples else self.fbo

    def _attach(self, attachment, internal, samples, kind):
        gl = self.gl
        name = ctypes.c_uint(0)
        if kind == "texture":
            gl.glGenTextures(1, ctypes.byref(name))
            target = (glmod.GL_TEXTURE_2D_MULTISAMPLE if samples
                      else glmod.GL_TEXTURE_2D)
            gl.glBindTexture(target, name.value)
            if samples:
                gl.glTexStorage2DMultisample(target, samples, internal,
                                             self.width, self.height,
                                             glmod.GL_TRUE)
            else:
                gl.glTexStorage2D(target, 1, internal, self.width,
                                  self.height)
            gl.glBindTexture(target, 0)
            gl.glFramebufferTexture2D(glmod.GL_FRAMEBUFFER, attachment,
                                      target, name.value, 0)
            self.textures.append(name.value)
        else:
            gl.glGenRenderbuffers(1, ctypes.byref(name))
            gl.glBindRenderbuffer(glmod.GL_RENDERBUFFER, name.value)
            gl.glRenderbufferStorageMultisample(
                glmod.GL_RENDERBUFFER, samples, internal, self.width,
                self.height)
            gl.glBindRenderbuffer(glmod.GL_RENDERBUFFER, 0)
            gl.glFramebufferRenderbuffer(glmod.GL_FRAMEBUFFER, attachment,
                                         glmod.GL_RENDERBUFFER, name.value)
            self.renderbuffers.append(name.value)

    def _framebuffer(self, samples, kind):
        gl = self.gl
        fbo = ctypes.c_uint(0)
        gl.glGenFramebuffers(1, ctypes.byref(fbo))
        gl.glBindFramebuffer(glmod.GL_FRAMEBUFFER, fbo.value)
        if self.color:
            self._attach(glmod.GL_COLOR_ATTACHMENT0,
                         COLOR_FORMATS[self.color], samples, kind)
        if self.depth:
            attachment = (glmod.GL_DEPTH_STENCIL_ATTACHMENT
                          if "stencil" in self.depth
                          else glmod.GL_DEPTH_ATTACHMENT)
            self._attach(attachment, DEPTH_FORMATS[self.depth], samples,
                         kind)
        status = gl.glCheckFramebufferStatus(glmod.GL_FRAMEBUFFER)
        gl.glBindFramebuffer(glmod.GL_FRAMEBUFFER, 0)
        gl.check("source framebuffer")
        self.framebuffers.append(fbo.value)
        assert status == glmod.GL_FRAMEBUFFER_COMPLETE, hex(status)
        return fbo.value

    def draw(self, background=(0.2, 0.4, 0.6, 1.0)):
        gl = self.gl
        w, h = self.width, self.height
        draw_scene(gl, self.fbo, w, h, bool(self.color), bool(self.depth),
                   background)
        if self.samples:
            bits = ((glmod.GL_COLOR_BUFFER_BIT if self.color else 0) |
                    (glmod.GL_DEPTH_BUFFER_BIT if self.depth else 0))
            gl.glBindFramebuffer(glmod.GL_READ_FRAMEBUFFER, self.fbo)
            gl.glBindFramebuffer(glmod.GL_DRAW_FRAMEBUFFER, self.resolved)
            gl.glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, bits,
                                 glmod.GL_NEAREST)
            gl.glBindFramebuffer(glmod.GL_FRAMEBUFFER, 0)
            gl.check("resolve")

    def reference(self, what, width=None, height=None, x=0, y=0,
                  origin="bottom-left"):
        """glReadPixels of the colour ('rgba8': GL_RGBA, GL_UNSIGNED_BYTE)
        or depth ('depth32f': GL_FLOAT) of the rectangle, rows in the
        order of origin."""
        width = width or self.width
        height = height or self.height
        how = DEPTH_READ if what == "depth32f" else READ["rgba8"]
        data = self.gl.read_pixels(self.resolved, width, height, how[0],
                                   how[1], how[2], x, y)
        return flip_rows(data, height) if origin == "top-left" else data

    def close(self):
        gl = self.gl
        for names, delete in ((self.framebuffers, gl.glDeleteFramebuffers),
                              (self.textures, gl.glDeleteTextures),
                              (self.renderbuffers,
                               gl.glDeleteRenderbuffers)):
            for name in names:
                delete(1, ctypes.byref(ctypes.c_uint(name)))
        self.framebuffers, self.textures, self.renderbuffers = [], [], []
