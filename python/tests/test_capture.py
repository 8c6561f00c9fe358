"""Image.capture() and Device.capture(): frames of framebuffers the test
makes with raw GL (colour textures and renderbuffers of RGBA8, RGB8 and
SRGB8_ALPHA8; depth of every format; single-sampled and with 4 samples),
through the fake CUDA driver, compared with glReadPixels of the source
(of a blit-resolved copy for a multisampled one), in both row orders."""
import ctypes
import struct

import pytest

import glcuda
from glcuda import gl as glmod

from conftest import Source
from fakecuda import FakeTensor

W, H = 23, 13  # the source; images of its size, or smaller at (X, Y)
X, Y, SW, SH = 4, 3, 11, 7
ORIGINS = ("bottom-left", "top-left")
# Depth of every format exactly as glReadPixels reads it: on desktop GL the
# capture reads it back the same way, into a buffer on the GPU.


def image_plane(cuda, dev, img, layer, plane, origin):
    """One layer of a plane through copy_to, as bytes."""
    channels, dtype = (1, "float32") if plane == 1 else (4, "uint8")
    t = FakeTensor(cuda, dev.cuda_context, (img.height, img.width, channels),
                   dtype)
    img.copy_to(t, layer=layer, plane=plane, origin=origin)
    data = t.read()
    t.free()
    return data


def depth_equal(got, want, fmt):
    got = struct.unpack(f"<{len(got) // 4}f", got)
    want = struct.unpack(f"<{len(want) // 4}f", want)
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert len(got) == len(want) and not bad, \
        f"depth {fmt}: {len(bad)} values differ, first at {bad[:1]}: " \
        f"{[got[i] for i in bad[:3]]} != {[want[i] for i in bad[:3]]}"
    assert len(set(want)) > 8


def check_capture(cuda, dev, img, layer, src, capture_origin, color=True,
                  depth=False, x=0, y=0):
    """The layer holds the rectangle at (x, y) of src as captured with
    capture_origin: through copy_to in either order, the source's
    glReadPixels rows in the order expected of each."""
    w, h = img.width, img.height
    for origin in ORIGINS:
        # Bottom-left captures keep GL's order: a bottom-left copy gives
        # glReadPixels' rows. A top-left capture flips them once, a
        # top-left copy once more.
        same = (origin == capture_origin)
        order = "bottom-left" if same else "top-left"
        if color:
            want = src.reference("rgba8", w, h, x, y, order)
            assert len(set(want)) > 8
            got = image_plane(cuda, dev, img, layer, 0, origin)
            assert got == want, (capture_origin, origin, "colour")
        if depth:
            want = src.reference("depth32f", w, h, x, y, order)
            got = image_plane(cuda, dev, img, layer, 1, origin)
            depth_equal(got, want, src.depth)


@pytest.mark.parametrize("samples", [0, 4])
@pytest.mark.parametrize("kind", ["texture", "renderbuffer"])
@pytest.mark.parametrize("color", ["rgba8", "rgb8", "srgb8_a8"])
def test_capture_color(dev, gl, cuda, color, kind, samples):
    src = Source(gl, W, H, color, "depth24", samples, kind)
    src.draw()
    img = dev.image(W, H, 3)
    for layer, origin in ((1, "bottom-left"), (2, "top-left")):
        img.capture(src.fbo, layer=layer, origin=origin)
        check_capture(cuda, dev, img, layer, src, origin)
    # The default: GL's order kept; layer 0.
    img.capture(src.fbo)
    check_capture(cuda, dev, img, 0, src, "bottom-left")
    src.close()
    img.close()


@pytest.mark.parametrize("samples", [0, 4])
@pytest.mark.parametrize("depth", ["depth16", "depth24", "depth24_stencil8",
                                   "depth32f", "depth32f_stencil8"])
def test_capture_depth(dev, gl, cuda, depth, samples):
    src = Source(gl, W, H, "rgba8", depth, samples,
                 "renderbuffer" if samples else "texture")
    src.draw()
    img = dev.image(W, H, 2, depth="depth32f")
    for origin in ORIGINS:
        img.capture(src.fbo, layer=1, depth=True, origin=origin)
        check_capture(cuda, dev, img, 1, src, origin, depth=True)
        # Depth alone leaves the colour plane as it was.
        gl.clear(img.framebuffer(0), W, H, color=(0.0, 0.0, 0.0, 0.0))
        img.capture(src.fbo, depth=True, color=False, origin=origin)
        check_capture(cuda, dev, img, 0, src, origin, color=False,
                      depth=True)
        assert set(image_plane(cuda, dev, img, 0, 0, origin)) == {0}
    src.close()
    img.close()


def test_capture_depth_image(dev, gl, cuda):
    """An image of format depth32f: the depth is its plane 0."""
    src = Source(gl, W, H, None, "depth32f")
    src.draw()
    img = dev.image(W, H, format="depth32f")
    img.capture(src.fbo, color=False, depth=True)
    t = FakeTensor(cuda, dev.cuda_context, (H, W, 1), "float32")
    img.copy_to(t, origin="bottom-left")
    assert t.read() == src.reference("depth32f")
    img.copy_to(t)
    assert t.read() == src.reference("depth32f", origin="top-left")
    t.free()
    src.close()
    img.close()


@pytest.mark.parametrize("samples", [0, 4])
def test_capture_rectangle(dev, gl, cuda, samples):
    """x and y: the rectangle's lower left corner in the source."""
    src = Source(gl, W, H, "rgba8", "depth32f", samples)
    src.draw()
    img = dev.image(SW, SH, 2, depth="depth32f")
    for layer, origin in enumerate(ORIGINS):
        img.capture(src.fbo, layer=layer, x=X, y=Y, depth=True,
                    origin=origin)
        check_capture(cuda, dev, img, layer, src, origin, depth=True, x=X,
                      y=Y)
    # The far corner, exactly inside.
    img.capture(src.fbo, x=W - SW, y=H - SH)
    check_capture(cuda, dev, img, 0, src, "bottom-left", x=W - SW,
                  y=H - SH)
    src.close()
    img.close()


@pytest.mark.parametrize("origin", ORIGINS)
def test_device_capture(dev, gl, cuda, origin):
    """One call, many cameras: items of three and of five, two images,
    different sources and layers."""
    a = Source(gl, W, H, "rgba8", "depth24")
    b = Source(gl, W, H, "srgb8_a8", "depth32f", samples=4,
               kind="renderbuffer")
    a.draw()
    b.draw(background=(0.7, 0.1, 0.9, 0.5))
    full = dev.image(W, H, 2, depth="depth32f")
    part = dev.image(SW, SH, 3, depth="depth32f")
    dev.capture([(a.fbo, full, 1), (b.fbo, full, 0),
                 (b.fbo, part, 2, X, Y), (a.fbo, part, 0, W - SW, 1)],
                depth=True, origin=origin)
    check_capture(cuda, dev, full, 1, a, origin, depth=True)
    check_capture(cuda, dev, full, 0, b, origin, depth=True)
    check_capture(cuda, dev, part, 2, b, origin, depth=True, x=X, y=Y)
    check_capture(cuda, dev, part, 0, a, origin, depth=True, x=W - SW, y=1)
    # Colour only, GL's order by default; a tuple of items too.
    dev.capture(((b.fbo, part, 1, 2, 5),))
    check_capture(cuda, dev, part, 1, b, "bottom-left", x=2, y=5)
    for s in (a, b):
        s.close()
    full.close()
    part.close()


def test_capture_errors(dev, gl, cuda):
    """Each refused capture raises glcuda's error, enqueues nothing, and
    the image goes on working."""
    src = Source(gl, W, H, "rgba8", None)
    src.draw()
    img = dev.image(W, H, 2, depth="depth32f")
    gl.clear(img.framebuffer(1), W, H, color=(0.0, 0.0, 0.0, 0.0))
    before = image_plane(cuda, dev, img, 1, 0, "bottom-left")
    with pytest.raises(glcuda.InvalidArgumentError, match="nothing to"):
        img.capture(src.fbo, layer=1, color=False, depth=False)
    with pytest.raises(glcuda.InvalidArgumentError, match="nothing to"):
        dev.capture([(src.fbo, img, 1)], color=False)
    with pytest.raises(glcuda.InvalidArgumentError, match="origin"):
        img.capture(src.fbo, layer=1, origin="top")
    with pytest.raises(glcuda.InvalidArgumentError, match="origin"):
        dev.capture([(src.fbo, img, 1)], origin="upside-down")
    with pytest.raises(glcuda.InvalidArgumentError, match="layer"):
        img.capture(src.fbo, layer=2)
    with pytest.raises(glcuda.InvalidArgumentError, match="layer"):
        dev.capture([(src.fbo, img, 1), (src.fbo, img, 2)])
    for x, y in ((1, 0), (0, 1), (-1, 0), (0, -1)):
        with pytest.raises(glcuda.InvalidArgumentError):
            img.capture(src.fbo, layer=1, x=x, y=y)
        with pytest.raises(glcuda.InvalidArgumentError):
            dev.capture([(src.fbo, img, 1, x, y)])
    with pytest.raises(glcuda.InvalidArgumentError, match="each item"):
        dev.capture([(src.fbo, img)])
    with pytest.raises(glcuda.InvalidArgumentError, match="no items"):
        dev.capture([])
    with pytest.raises(TypeError, match="glcuda.Image"):
        dev.capture([(src.fbo, "img", 1)])
    # Depth of a framebuffer without depth (glcuda's error for a source
    # it cannot read).
    with pytest.raises(glcuda.UnsupportedFormatError,
                       match="no depth attachment"):
        img.capture(src.fbo, layer=1, depth=True)
    with pytest.raises(glcuda.UnsupportedFormatError):
        dev.capture([(src.fbo, img, 1)], depth=True)
    # An incomplete framebuffer (no attachment at all): GLCUDA_ERROR_GL
    # with its status.
    empty = ctypes_framebuffer(gl)
    with pytest.raises(glcuda.GLError,
                       match="GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT"):
        img.capture(empty, layer=1)
    gl.glDeleteFramebuffers(1, ctypes_uint(empty))
    # Colour into a depth32f image.
    dimg = dev.image(W, H, format="depth32f")
    with pytest.raises(glcuda.InvalidArgumentError, match="colour"):
        dimg.capture(src.fbo)
    dimg.close()
    # An image of another device.
    with glcuda.Headless() as other:
        alien = other.image(W, H)
        dev.make_current()
        with pytest.raises(glcuda.WrongDeviceError):
            dev.capture([(src.fbo, alien, 0)])
        other.make_current()
    dev.make_current()
    # Nothing was enqueued: layer 1 as it was; then a capture works.
    assert image_plane(cuda, dev, img, 1, 0, "bottom-left") == before
    img.capture(src.fbo, layer=1)
    check_capture(cuda, dev, img, 1, src, "bottom-left")
    src.close()
    img.close()


def ctypes_uint(name):
    return ctypes.byref(ctypes.c_uint(name))


def ctypes_framebuffer(gl):
    """A framebuffer object without attachments (incomplete)."""
    fbo = ctypes.c_uint(0)
    gl.glGenFramebuffers(1, ctypes.byref(fbo))
    gl.glBindFramebuffer(glmod.GL_FRAMEBUFFER, fbo.value)
    gl.glBindFramebuffer(glmod.GL_FRAMEBUFFER, 0)
    return fbo.value
