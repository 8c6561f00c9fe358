"""Row order (Image.origin, origin= on every copy) and depth in metres
(Image.depth_in_metres(), depth=): every path to and from a tensor, one
layer and all, colour and depth planes, against glReadPixels rows (GL's
order, reversed for top-left) and the depth formulas in double."""
import ctypes
import math
import os
import struct

import pytest

import glcuda

from conftest import colour, draw_scene, flip_rows, read_layer
from fakecuda import FakeTensor, consume, tensor_bytes

W, H, LAYERS = 13, 7, 3
ORIGINS = ("top-left", "bottom-left")
PATHS = ("copy_to", "versioned", "unversioned", "cuda_array_interface")


def drawn(dev, gl, layers=LAYERS, **kwargs):
    """An image with depth, each layer drawn (two triangles crossing in
    depth, a background and corners of their own)."""
    img = dev.image(W, H, layers, depth="depth32f", **kwargs)
    for layer in range(layers):
        fbo = img.framebuffer(layer)
        draw_scene(gl, fbo, W, H, background=colour(layer))
        gl.clear(fbo, W, H, depth=0.1 + layer / 16,
                 scissor=(W - 3, H - 2, 3, 2))
    return img


def glread(gl, img, plane, layer, origin):
    """glReadPixels of one layer or all (layer None), rows in the order of
    origin."""
    fmt = "depth32f" if plane == 1 else img.format
    layers = range(img.layers) if layer is None else [layer]
    return b"".join(read_layer(gl, img, i, fmt, origin) for i in layers)


def shape_of(img, plane, layer):
    depth = plane == 1 or img.format == "depth32f"
    channels, dtype = (1, "float32") if depth else (4, "uint8")
    shape = (img.height, img.width, channels)
    if layer is None and img.layers > 1:
        shape = (img.layers,) + shape
    return shape, dtype


def through(path, cuda, dev, obj, plane=0, layer=None, **kwargs):
    """The tensor's bytes through one path: copy_to into a tensor of ours,
    a DLPack capsule (versioned or not) consumed, or the array interface.
    obj: an Image (plane and kwargs passed) or a glcuda.Plane."""
    img = obj.image if isinstance(obj, glcuda.Plane) else obj
    if isinstance(obj, glcuda.Plane):
        plane = obj.plane
    shape, dtype = shape_of(img, plane, layer)
    extra = {} if isinstance(obj, glcuda.Plane) else {"plane": plane}
    if path == "copy_to":
        t = FakeTensor(cuda, dev.cuda_context, shape, dtype)
        obj.copy_to(t, layer=layer, **extra, **kwargs)
        data = t.read()
        t.free()
        return data
    assert layer is None or img.layers == 1
    if path == "cuda_array_interface":
        if isinstance(obj, glcuda.Plane):
            assert not kwargs
            cai = obj.__cuda_array_interface__
        else:
            cai = obj.cuda_array_interface(**extra, **kwargs)
        assert cai["shape"] == shape
        cuda.settle()
        return ctypes.string_at(cai["data"][0], math.prod(shape) * 4 //
                                (4 if dtype == "uint8" else 1))
    max_version = (1, 0) if path == "versioned" else None
    capsule = obj.__dlpack__(max_version=max_version, **extra, **kwargs)
    t = consume(capsule)
    data = tensor_bytes(cuda, t.dl_tensor)
    t.deleter(ctypes.pointer(t))
    return data


def test_origin_attribute(dev):
    img = dev.image(W, H)
    assert img.origin == "top-left"
    img.origin = "bottom-left"
    assert img.origin == "bottom-left"
    with pytest.raises(glcuda.InvalidArgumentError, match="origin"):
        img.origin = "bottom-right"
    with pytest.raises(glcuda.InvalidArgumentError, match="origin"):
        img.origin = None
    with pytest.raises(AttributeError):
        del img.origin
    assert img.origin == "bottom-left"
    img.origin = "top-left"
    assert img.origin == "top-left"
    gl_order = dev.image(W, H, origin="bottom-left")
    assert gl_order.origin == "bottom-left"
    with pytest.raises(glcuda.InvalidArgumentError, match="origin"):
        dev.image(W, H, origin="top")
    img.close()
    gl_order.close()


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("plane", [0, 1])
@pytest.mark.parametrize("layers", [1, LAYERS])
def test_export_origins(dev, gl, cuda, path, plane, layers):
    """Each image origin, each origin= (None: the image's)."""
    img = drawn(dev, gl, layers)
    for image_origin in ORIGINS:
        img.origin = image_origin
        for asked in (None,) + ORIGINS:
            kwargs = {} if asked is None else {"origin": asked}
            want = glread(gl, img, plane, None, asked or image_origin)
            got = through(path, cuda, dev, img, plane, **kwargs)
            assert got == want, (image_origin, asked)
    # The two orders differ: the test would see a flip missed.
    assert glread(gl, img, plane, None, "top-left") != \
        glread(gl, img, plane, None, "bottom-left")
    img.close()


@pytest.mark.parametrize("plane", [0, 1])
def test_copy_to_one_layer(dev, gl, cuda, plane):
    img = drawn(dev, gl)
    for layer in range(LAYERS):
        for asked in (None,) + ORIGINS:
            kwargs = {} if asked is None else {"origin": asked}
            assert through("copy_to", cuda, dev, img, plane, layer,
                           **kwargs) == \
                glread(gl, img, plane, layer, asked or "top-left")
    img.close()


@pytest.mark.parametrize("plane", [0, 1])
@pytest.mark.parametrize("layer", [None, 1])
def test_copy_from_origins(dev, gl, cuda, plane, layer):
    """The tensor's row 0 goes to the top (top-left) or to GL's row 0."""
    img = drawn(dev, gl)
    shape, dtype = shape_of(img, plane, layer)
    n = math.prod(shape)
    if plane == 1:
        pixels = struct.pack(f"<{n}f", *[(i % 97) / 128 for i in range(n)])
    else:
        pixels = bytes((i * 7 + i // 5) & 255 for i in range(n))
    t = FakeTensor(cuda, dev.cuda_context, shape, dtype)
    t.write(pixels)
    for image_origin in ORIGINS:
        img.origin = image_origin
        for asked in (None,) + ORIGINS:
            kwargs = {} if asked is None else {"origin": asked}
            img.copy_from(t, layer=layer, plane=plane, **kwargs)
            assert glread(gl, img, plane, layer, asked or image_origin) \
                == pixels, (image_origin, asked)
            # Read back through copy_to in the same order: the same.
            assert through("copy_to", cuda, dev, img, plane, layer,
                           **kwargs) == pixels
    t.free()
    img.close()


@pytest.mark.parametrize("path", PATHS)
def test_plane_origin(dev, gl, cuda, path):
    """glcuda.Plane(img, plane, origin=): its own row order, else the
    image's at the time of the copy."""
    img = drawn(dev, gl)
    for plane in (0, 1):
        for origin in ORIGINS:
            p = glcuda.Plane(img, plane, origin=origin)
            assert through(path, cuda, dev, p) == \
                glread(gl, img, plane, None, origin)
        p = glcuda.Plane(img, plane)
        for origin in ORIGINS:
            img.origin = origin
            assert through(path, cuda, dev, p) == \
                glread(gl, img, plane, None, origin)
    img.close()


def test_plane_copy_origin(dev, gl, cuda):
    """Plane.copy_to(origin=) over the plane's; Plane.copy_from in the
    plane's order, or origin=."""
    img = drawn(dev, gl)
    p = glcuda.Plane(img, 1, origin="bottom-left")
    for origin in ORIGINS:
        assert through("copy_to", cuda, dev, p, layer=2, origin=origin) == \
            glread(gl, img, 1, 2, origin)
    assert through("copy_to", cuda, dev, p, layer=2) == \
        glread(gl, img, 1, 2, "bottom-left")
    n = W * H
    pixels = struct.pack(f"<{n}f", *[i / n for i in range(n)])
    t = FakeTensor(cuda, dev.cuda_context, (H, W, 1), "float32")
    t.write(pixels)
    p.copy_from(t, layer=0)
    assert glread(gl, img, 1, 0, "bottom-left") == pixels
    p.copy_from(t, layer=1, origin="top-left")
    assert glread(gl, img, 1, 1, "top-left") == pixels
    t.free()
    img.close()


def metres(depth, znear, zfar, projection):
    """The formula in double, stored as float32."""
    values = struct.unpack(f"<{len(depth) // 4}f", depth)
    if projection == "perspective":
        out = [znear * zfar / (zfar - d * (zfar - znear)) for d in values]
    else:
        out = [znear + d * (zfar - znear) for d in values]
    return out


def assert_close(got, want):
    got = struct.unpack(f"<{len(got) // 4}f", got)
    assert len(got) == len(want)
    bad = [i for i, (g, w) in enumerate(zip(got, want))
           if not abs(g - w) <= 1e-6 * abs(w)]
    assert not bad, f"{len(bad)} of {len(got)} differ, first at " \
        f"{bad[0]}: {got[bad[0]]} != {want[bad[0]]}"
    assert len(set(want)) > 8


PLANES = [("perspective", 0.1, 100.0), ("perspective", 100.0, 0.1),
          ("perspective", 0.5, 4.0), ("orthographic", 0.1, 100.0),
          ("orthographic", 20.0, -5.0), ("orthographic", -2.0, 3.0)]


# A library built without nvcc has no copy kernels, and refuses depth to
# distance with GLCUDA_ERROR_CUDA (glcuda-cuda.h): there the tests check
# that refusal. make check says which build this is.
COPY_KERNELS = os.environ.get("GLCUDA_TEST_COPY_KERNELS", "yes") != "no"
NO_KERNELS = "depth to distance runs in glcuda's copy kernels"


def refused_without_kernels(cuda, dev, p):
    """Without copy kernels, every path refuses the conversion."""
    for path in PATHS:
        with pytest.raises(glcuda.CUDAError, match=NO_KERNELS):
            through(path, cuda, dev, p)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("layers", [1, LAYERS])
@pytest.mark.parametrize("projection,znear,zfar", PLANES)
def test_depth_in_metres(dev, gl, cuda, path, layers, projection, znear,
                         zfar):
    """Perspective and orthographic, reversed planes (swapped), both
    orders; a Plane of depth_in_metres(), and depth= on the image."""
    img = drawn(dev, gl, layers)
    if projection == "perspective":
        p = img.depth_in_metres(znear, zfar)
    else:
        p = img.depth_in_metres(znear, zfar, projection=projection)
    assert isinstance(p, glcuda.Plane) and p.plane == 1
    assert p.depth == (projection, znear, zfar)
    if not COPY_KERNELS:
        refused_without_kernels(cuda, dev, p)
        img.close()
        return
    for origin in ORIGINS:
        img.origin = origin
        want = metres(glread(gl, img, 1, None, origin), znear, zfar,
                      projection)
        assert_close(through(path, cuda, dev, p), want)
        assert_close(through(path, cuda, dev, img, 1, origin=origin,
                             depth=(projection, znear, zfar)), want)
    # One layer, in the other order than the image's.
    want = metres(glread(gl, img, 1, layers - 1, "top-left"), znear, zfar,
                  projection)
    assert_close(through("copy_to", cuda, dev, p, layer=layers - 1,
                         origin="top-left"), want)
    img.close()


def test_depth_in_metres_depth_image(dev, gl, cuda):
    """A depth32f image: its plane 0."""
    img = dev.image(W, H, format="depth32f")
    draw_scene(gl, img.framebuffer(0), W, H, color=False)
    p = img.depth_in_metres(0.25, 50.0)
    assert p.plane == 0
    if not COPY_KERNELS:
        refused_without_kernels(cuda, dev, p)
        img.close()
        return
    for origin in ORIGINS:
        img.origin = origin
        want = metres(read_layer(gl, img, 0, "depth32f", origin), 0.25,
                      50.0, "perspective")
        for path in PATHS:
            assert_close(through(path, cuda, dev, p), want)
    img.close()


def test_errors(dev, gl, cuda):
    """Wrong origins, depth tuples, projections and planes raise
    InvalidArgumentError; the image goes on working."""
    img = drawn(dev, gl)
    plain = dev.image(W, H)
    t = FakeTensor(cuda, dev.cuda_context, (LAYERS, H, W, 4), "uint8")
    td = FakeTensor(cuda, dev.cuda_context, (LAYERS, H, W, 1), "float32")
    bad = glcuda.InvalidArgumentError
    for origin in ("top", "Top-Left", "bottom-right", 1, b"top-left"):
        with pytest.raises(bad, match="origin"):
            img.copy_to(t, origin=origin)
        with pytest.raises(bad, match="origin"):
            img.copy_from(t, origin=origin)
        with pytest.raises(bad, match="origin"):
            img.__dlpack__(origin=origin)
        with pytest.raises(bad, match="origin"):
            img.__dlpack__(max_version=(1, 0), origin=origin)
        with pytest.raises(bad, match="origin"):
            img.cuda_array_interface(origin=origin)
        with pytest.raises(bad, match="origin"):
            glcuda.Plane(img, 1, origin=origin).copy_to(td)
    for depth in (("perspective", 1.0), ("perspective", 1.0, 2.0, 3.0),
                  ["perspective", 1.0, 2.0], "perspective",
                  ("perspective", "near", 2.0), (1.0, 2.0, "perspective")):
        with pytest.raises(bad, match="depth"):
            img.copy_to(td, plane=1, depth=depth)
        with pytest.raises(bad, match="depth"):
            img.__dlpack__(plane=1, depth=depth)
        with pytest.raises(bad, match="depth"):
            img.cuda_array_interface(plane=1, depth=depth)
    with pytest.raises(bad, match="projection"):
        img.copy_to(td, plane=1, depth=("fisheye", 1.0, 2.0))
    with pytest.raises(bad, match="projection"):
        img.depth_in_metres(1.0, 2.0, projection="fisheye")
    # Perspective planes at or behind the eye, or equal; orthographic
    # planes equal.
    for depth in (("perspective", 0.0, 10.0), ("perspective", -1.0, 10.0),
                  ("perspective", 1.0, 0.0), ("perspective", 2.0, 2.0),
                  ("perspective", 1.0, math.inf),
                  ("orthographic", 3.0, 3.0)):
        with pytest.raises(bad, match="znear"):
            img.copy_to(td, plane=1, depth=depth)
        with pytest.raises(bad, match="znear"):
            img.__dlpack__(plane=1, depth=depth)
        with pytest.raises(bad, match="znear"):
            img.__dlpack__(max_version=(1, 0), plane=1, depth=depth)
        with pytest.raises(bad, match="znear"):
            img.cuda_array_interface(plane=1, depth=depth)
        with pytest.raises(bad, match="znear"):
            through("copy_to", cuda, dev,
                    img.depth_in_metres(depth[1], depth[2],
                                        projection=depth[0]))
    with pytest.raises(bad, match="no depth plane"):
        plain.depth_in_metres(0.1, 10.0)
    with pytest.raises(bad, match="copy_from"):
        img.depth_in_metres(0.1, 10.0).copy_from(td)
    with pytest.raises(bad, match="copy_from"):
        glcuda.Plane(img, 1, depth=("orthographic", 0, 1)).copy_from(td)
    # The image works as before, in both orders.
    for origin in ORIGINS:
        for plane in (0, 1):
            assert through("copy_to", cuda, dev, img, plane,
                           origin=origin) == \
                glread(gl, img, plane, None, origin)
    t.free()
    td.free()
    plain.close()
    img.close()


def test_flip_rows_reference(dev, gl):
    """The reference itself: top-left rows are GL's reversed."""
    img = drawn(dev, gl, 1)
    gl_rows = read_layer(gl, img, 0, "rgba8", "bottom-left")
    assert read_layer(gl, img, 0, "rgba8") == flip_rows(gl_rows, H)
    assert gl_rows[:W * 4] != gl_rows[-W * 4:]
    img.close()
