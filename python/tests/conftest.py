"""The package's tests run on Mesa and the fake CUDA driver, through
tests/test-python.sh (make check), which sets GLCUDA_LIBCUDA to the fake
and GLCUDA_FAKE_CUDA_UUID to GL's device."""
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
