"""glcuda with the renderers Python users have, as they are: moderngl
(a standalone EGL context; drawing into a glcuda image's framebuffer;
captures of moderngl's own framebuffers, single-sampled and with 4
samples) and PyOpenGL (a framebuffer of its own, drawn with shaders and
captured), against each renderer's own readback (fbo.read(),
glReadPixels), in both row orders."""
import importlib
import os
import struct

import pytest

import glcuda

from conftest import flip_rows
from fakecuda import FakeTensor

W, H = 29, 17
# The two triangles of pyopengl_scene.py (x, y, z, r, g, b), without
# importing PyOpenGL.
PYOPENGL_VERTICES = [-0.9, -0.8, -0.6, 1.0, 0.0, 0.0,
                     0.8, -0.5, 0.7, 0.0, 1.0, 0.0,
                     -0.2, 0.9, 0.1, 0.0, 0.0, 1.0,
                     0.9, 0.9, -0.9, 1.0, 1.0, 0.0,
                     -0.7, 0.3, 0.9, 0.0, 1.0, 1.0,
                     0.3, -0.9, 0.0, 1.0, 0.0, 1.0]
ORIGINS = ("bottom-left", "top-left")


def import_or_skip(name):
    try:
        return importlib.import_module(name)
    except ImportError as e:
        pytest.skip(f"{name} is not importable: {e}")


@pytest.fixture
def moderngl_ctx():
    moderngl = import_or_skip("moderngl")
    ctx = moderngl.create_standalone_context(backend="egl")
    yield ctx
    ctx.release()


def tensor(cuda, dev, img, plane, layer, origin):
    depth = plane == 1
    t = FakeTensor(cuda, dev.cuda_context,
                   (img.height, img.width, 1 if depth else 4),
                   "float32" if depth else "uint8")
    img.copy_to(t, layer=layer, plane=plane, origin=origin)
    data = t.read()
    t.free()
    return data


def depth_close(got, want):
    """24-bit depth (moderngl's and PyOpenGL's depth buffers): value for
    value, as the renderer's glReadPixels reads it."""
    got = struct.unpack(f"<{len(got) // 4}f", got)
    want = struct.unpack(f"<{len(want) // 4}f", want)
    assert len(got) == len(want) and len(set(want)) > 8
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, f"{len(bad)} depth values differ, first at {bad[0]}"


def check(cuda, dev, img, layer, colour, depth, capture_origin):
    """The layer against a renderer's readback in GL's order (colour, and
    depth if not None), through copy_to in both orders."""
    for origin in ORIGINS:
        flipped = origin != capture_origin
        want = flip_rows(colour, H) if flipped else colour
        assert tensor(cuda, dev, img, 0, layer, origin) == want, \
            (capture_origin, origin)
        if depth is not None:
            want = flip_rows(depth, H) if flipped else depth
            depth_close(tensor(cuda, dev, img, 1, layer, origin), want)


MGL_VERTEX = """#version 330
in vec3 in_position;
in vec3 in_colour;
out vec3 v_colour;
void main() {
    gl_Position = vec4(in_position, 1.0);
    v_colour = in_colour;
}
"""
MGL_FRAGMENT = """#version 330
in vec3 v_colour;
out vec4 f_colour;
void main() {
    f_colour = vec4(v_colour, 1.0);
}
"""


def moderngl_draw(ctx, fbo):
    """A real moderngl frame: a program, a vertex buffer of two triangles
    crossing in depth, three colours each, the depth test."""
    prog = ctx.program(vertex_shader=MGL_VERTEX,
                       fragment_shader=MGL_FRAGMENT)
    vbo = ctx.buffer(struct.pack(f"{len(PYOPENGL_VERTICES)}f",
                                  *PYOPENGL_VERTICES))
    vao = ctx.vertex_array(prog, [(vbo, "3f 3f", "in_position",
                                   "in_colour")])
    fbo.use()
    ctx.viewport = (0, 0, W, H)
    ctx.enable(ctx.DEPTH_TEST)
    fbo.clear(0.1, 0.2, 0.3, 1.0, depth=1.0)
    vao.render()
    ctx.disable(ctx.DEPTH_TEST)
    ctx.finish()
    for obj in (vao, vbo, prog):
        obj.release()


def test_moderngl_draws_into_image(moderngl_ctx, cuda):
    """moderngl's context made current by moderngl; the device from it;
    moderngl draws into the image's framebuffer (detect_framebuffer)."""
    ctx = moderngl_ctx
    dev = glcuda.Device.from_current()
    img = dev.image(W, H, 2, depth="depth32f")
    for layer in range(2):
        fbo = ctx.detect_framebuffer(img.framebuffer(layer))
        moderngl_draw(ctx, fbo)
        viewport = (0, 0, W, H)  # a layer's size is not detected
        colour = fbo.read(viewport, components=4)
        depth = fbo.read(viewport, attachment=-1, dtype="f4")
        assert len(set(colour)) > 8
        for origin in ORIGINS:
            want = colour if origin == "bottom-left" else \
                flip_rows(colour, H)
            assert tensor(cuda, dev, img, 0, layer, origin) == want
            want = depth if origin == "bottom-left" else flip_rows(depth, H)
            assert tensor(cuda, dev, img, 1, layer, origin) == want
    img.close()
    dev.close()


@pytest.mark.parametrize("samples", [0, 4])
@pytest.mark.parametrize("attachment", ["texture", "renderbuffer"])
def test_moderngl_capture(moderngl_ctx, cuda, attachment, samples):
    """Captures of moderngl's own framebuffer (ctx.texture or
    ctx.renderbuffer colour, ctx.depth_renderbuffer), against fbo.read()
    (of ctx.copy_framebuffer's single-sampled copy when multisampled)."""
    ctx = moderngl_ctx
    if attachment == "texture" and samples:
        color = ctx.texture((W, H), 4, samples=samples)
    elif attachment == "texture":
        color = ctx.texture((W, H), 4)
    else:
        color = ctx.renderbuffer((W, H), 4, samples=samples)
    depth = ctx.depth_renderbuffer((W, H), samples=samples)
    fbo = ctx.framebuffer(color_attachments=[color], depth_attachment=depth)
    moderngl_draw(ctx, fbo)
    read = fbo
    if samples:
        read = ctx.framebuffer(
            color_attachments=[ctx.renderbuffer((W, H), 4)],
            depth_attachment=ctx.depth_renderbuffer((W, H)))
        ctx.copy_framebuffer(read, fbo)
    # moderngl's depth read sets the framebuffer's read buffer to
    # GL_NONE, and a capture reads colour from the read buffer (as
    # glReadPixels): the colour read last sets it back.
    want_depth = read.read(attachment=-1, dtype="f4")
    want = read.read(components=4)
    dev = glcuda.Device.from_current()
    img = dev.image(W, H, 3, depth="depth32f")
    img.capture(fbo.glo, layer=1, depth=True)
    check(cuda, dev, img, 1, want, want_depth, "bottom-left")
    dev.capture([(fbo.glo, img, 2)], depth=True, origin="top-left")
    check(cuda, dev, img, 2, want, want_depth, "top-left")
    img.close()
    dev.close()
    for obj in (fbo, color, depth) + ((read,) if samples else ()):
        obj.release()


@pytest.mark.parametrize("samples", [0, 4])
def test_pyopengl_capture(dev, cuda, samples):
    """PyOpenGL in glcuda.Headless()'s context: its own framebuffer drawn
    with shaders and a vertex buffer, captured, against PyOpenGL's
    glReadPixels."""
    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    import_or_skip("OpenGL.GL")
    from pyopengl_scene import PyOpenGLFrame
    frame = PyOpenGLFrame(W, H, samples)
    frame.draw()
    colour, depth = frame.read_color(), frame.read_depth()
    assert len(set(colour)) > 8
    img = dev.image(W, H, 2, depth="depth32f")
    for layer, origin in enumerate(ORIGINS):
        img.capture(frame.fbo, layer=layer, depth=True, origin=origin)
        check(cuda, dev, img, layer, colour, depth, origin)
    frame.close()
    img.close()
