"""Images of every format and layer count: drawn by GL, copied by the fake
CUDA driver into memory the test reads, compared with glReadPixels pixel by
pixel."""
import ctypes

import pytest

import glcuda
from glcuda import gl as glmod

from conftest import READ, draw_layers, read_layer
from fakecuda import FakeTensor, capsule_tensor, consume, tensor_bytes

W, H = 17, 9  # odd: rows are not a multiple of anything
DTYPES = {"rgba8": ("uint8", 4), "srgb8_a8": ("uint8", 4),
          "rgb10_a2": ("uint32", 1), "rgba16f": ("float16", 4),
          "rgba32f": ("float32", 4), "r8": ("uint8", 1),
          "rg8": ("uint8", 2), "r16": ("uint16", 1), "rg16": ("uint16", 2),
          "r32f": ("float32", 1), "depth32f": ("float32", 1)}


def test_formats_known():
    assert set(glcuda.FORMATS) == set(DTYPES)


def export_layers(cuda, img, plane=0):
    """Every layer of the plane, exported through DLPack, as bytes."""
    capsule = img.__dlpack__(max_version=(1, 0), plane=plane)
    t = consume(capsule)
    data = tensor_bytes(cuda, t.dl_tensor)
    t.deleter(ctypes.pointer(t))
    return data


@pytest.mark.parametrize("layers", [1, 3])
@pytest.mark.parametrize("fmt", sorted(DTYPES))
def test_pixels(dev, gl, cuda, fmt, layers):
    if not dev.has_format(fmt):
        assert fmt != "rgba8", "every device shares RGBA8"
        pytest.skip(f"{fmt} is not shared on {dev.caps['gl_renderer']}")
    img = dev.image(W, H, layers, format=fmt)
    dtype, channels = DTYPES[fmt]
    assert img.dtype == dtype
    shape = (H, W, channels)
    assert img.shape == (shape if layers == 1 else (layers,) + shape)
    assert img.layers == layers and img.format == fmt
    assert img.target == (glmod.GL_TEXTURE_2D if layers == 1
                          else glmod.GL_TEXTURE_2D_ARRAY)
    assert img.layered_framebuffer != 0
    draw_layers(gl, img, depth=0.5 if fmt == "depth32f" else None)
    expected = [read_layer(gl, img, layer, fmt) for layer in range(layers)]
    for layer in range(layers):
        assert expected[layer] != expected[layer - 1] or layers == 1
        assert len(set(expected[layer])) > 1
    # The whole image through DLPack, and each layer through copy_to.
    assert export_layers(cuda, img) == b"".join(expected)
    for layer in range(layers):
        t = FakeTensor(cuda, dev.cuda_context, shape, dtype)
        img.copy_to(t, layer=layer)
        assert t.read() == expected[layer]
        t.free()
    img.close()


# Each format's tensor: DLPack's dtype (code: 1 kDLUInt, 2 kDLFloat; bits;
# lanes) and __cuda_array_interface__'s typestr.
TENSOR_TYPES = {"uint8": ((1, 8, 1), "|u1"), "uint16": ((1, 16, 1), "<u2"),
                "uint32": ((1, 32, 1), "<u4"),
                "float16": ((2, 16, 1), "<f2"),
                "float32": ((2, 32, 1), "<f4")}


def check_tensor_type(img, plane, dtype, shape):
    """The image's plane through __dlpack__ (versioned and not) and
    __cuda_array_interface__: dtype, shape, tight strides."""
    want_dl, want_typestr = TENSOR_TYPES[dtype]
    tight = [1]
    for n in reversed(shape[1:]):
        tight.insert(0, tight[0] * n)
    for max_version in ((1, 0), None):
        capsule = img.__dlpack__(max_version=max_version, plane=plane)
        dl = capsule_tensor(capsule).dl_tensor
        assert (dl.code, dl.bits, dl.lanes) == want_dl, (dtype, max_version)
        assert [dl.shape[i] for i in range(dl.ndim)] == list(shape)
        assert dl.byte_offset == 0
        if dl.strides:
            assert [dl.strides[i] for i in range(dl.ndim)] == tight
        del capsule
    cai = img.cuda_array_interface(plane=plane)
    assert cai["typestr"] == want_typestr, dtype
    assert cai["shape"] == shape and cai["strides"] is None


@pytest.mark.parametrize("layers", [1, 3])
@pytest.mark.parametrize("fmt", sorted(DTYPES))
def test_tensor_types(dev, fmt, layers):
    if not dev.has_format(fmt):
        assert fmt != "rgba8", "every device shares RGBA8"
        pytest.skip(f"{fmt} is not shared on {dev.caps['gl_renderer']}")
    dtype, channels = DTYPES[fmt]
    shape = (H, W, channels) if layers == 1 else (layers, H, W, channels)
    img = dev.image(W, H, layers, format=fmt)
    check_tensor_type(img, 0, dtype, shape)
    assert img.__cuda_array_interface__["typestr"] == \
        TENSOR_TYPES[dtype][1]
    img.close()


@pytest.mark.parametrize("layers", [1, 3])
def test_depth_plane_tensor_type(dev, layers):
    img = dev.image(W, H, layers, depth="depth32f")
    shape = (H, W, 1) if layers == 1 else (layers, H, W, 1)
    check_tensor_type(img, 0, "uint8", shape[:-1] + (4,))
    check_tensor_type(img, 1, "float32", shape)
    img.close()


def test_depth_plane(dev, gl, cuda):
    img = dev.image(W, H, 4, depth="depth32f")
    assert img.depth == "depth32f" and img.planes == 2
    assert img.depth_texture != 0
    draw_layers(gl, img, depth=0.25)
    depth = [read_layer(gl, img, layer, "depth32f") for layer in range(4)]
    colour = [read_layer(gl, img, layer, "rgba8") for layer in range(4)]
    assert export_layers(cuda, img, plane=1) == b"".join(depth)
    assert export_layers(cuda, img, plane=0) == b"".join(colour)
    plane = glcuda.Plane(img, 1)
    cai = plane.__cuda_array_interface__
    assert cai["shape"] == (4, H, W, 1) and cai["typestr"] == "<f4"
    cuda.settle()
    assert ctypes.string_at(cai["data"][0], 4 * H * W * 4) == b"".join(depth)
    t = FakeTensor(cuda, dev.cuda_context, (4, H, W, 1), "float32")
    plane.copy_to(t)
    assert t.read() == b"".join(depth)
    t.free()
    img.close()


def test_one_layered_draw(dev, gl, cuda):
    layers, w, h = 5, 16, 8
    img = dev.image(w, h, layers, origin="bottom-left")
    scene = glmod.LayeredScene(gl)
    scene.draw(img.layered_framebuffer, w, h, layers, step=3)
    want = glmod.LayeredScene.expected(layers, w, h, 3).tobytes()
    assert export_layers(cuda, img) == want
    assert b"".join(read_layer(gl, img, layer, "rgba8", "bottom-left")
                    for layer in range(layers)) == want
    scene.close()
    img.close()


def test_framebuffers(dev):
    img = dev.image(8, 8, 3)
    fbos = [img.framebuffer(layer) for layer in range(3)]
    assert len(set(fbos)) == 3 and 0 not in fbos
    assert img.layered_framebuffer not in fbos
    with pytest.raises(glcuda.InvalidArgumentError,
                       match="framebuffer: layer 3 of an image with 3 layers"):
        img.framebuffer(3)
    img.close()


def test_wrap_texture(dev, gl):
    """The fake registers no GL textures (CUDA_ERROR_NOT_SUPPORTED): the
    error reaches Python with glcuda's message. Wrapped textures' pixels
    are checked on the GPU (gpu_check.py copy_from)."""
    tex = ctypes.c_uint(0)
    gl.glGenTextures(1, ctypes.byref(tex))
    gl.glBindTexture(glmod.GL_TEXTURE_2D, tex.value)
    gl.glTexStorage2D(glmod.GL_TEXTURE_2D, 1, glmod.GL_RGBA8, 8, 4)
    gl.glBindTexture(glmod.GL_TEXTURE_2D, 0)
    with pytest.raises(glcuda.CUDAError) as info:
        dev.wrap_texture(tex.value)
    assert info.value.name == "GLCUDA_ERROR_CUDA"
    assert "cuGraphicsGLRegisterImage: CUDA_ERROR_NOT_SUPPORTED" in \
        info.value.message
    with pytest.raises(glcuda.InvalidArgumentError, match="EINVAL"):
        dev.wrap_texture(0)
    gl.glDeleteTextures(1, ctypes.byref(tex))


def test_image_errors(dev):
    with pytest.raises(glcuda.InvalidArgumentError) as info:
        dev.image(0, 8)
    assert info.value.name == "EINVAL" and info.value.message
    assert str(info.value).startswith("EINVAL: ")
    with pytest.raises(glcuda.InvalidArgumentError):
        dev.image(8, 8, dev.caps["max_image_layers"] + 1)
    with pytest.raises(ValueError, match="expected a format name"):
        dev.image(8, 8, format="rgba9")
    with pytest.raises(TypeError):
        glcuda.Image()


def test_unversioned_capsule(dev, cuda):
    img = dev.image(4, 2, 2)
    capsule = img.__dlpack__()
    t = capsule_tensor(capsule)
    assert t.dl_tensor.ndim == 4
    del capsule  # unconsumed: its destructor runs the deleter
    img.close()
