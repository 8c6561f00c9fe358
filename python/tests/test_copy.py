"""Image.copy_to() and copy_from() with a caller's tensor: pitches,
streams, both interfaces, and the errors users see."""
import ctypes
import struct

import pytest

import glcuda

from conftest import draw_layers, read_layer
from fakecuda import DLPackTensor, FakeTensor, VersionedDLPackTensor

W, H = 7, 5


def test_copy_to_padded(dev, gl, cuda):
    img = dev.image(W, H, 3)
    draw_layers(gl, img)
    # Rows of 40 bytes (28 used), layers of 256 bytes (200 used).
    t = FakeTensor(cuda, dev.cuda_context, (3, H, W, 4), "uint8",
                   strides=(256, 40, 4, 1))
    img.copy_to(t)
    data = t.read()
    for layer in range(3):
        want = read_layer(gl, img, layer, "rgba8")
        for y in range(H):
            row = data[layer * 256 + y * 40:][:W * 4]
            assert row == want[y * W * 4:][:W * 4]
        # The padding was not written.
        assert data[layer * 256 + 28:][:12] == b"\xa5" * 12
    t.free()
    img.close()


def test_copy_to_dlpack_tensor(dev, gl, cuda):
    img = dev.image(W, H)
    draw_layers(gl, img)
    stream = cuda.stream(dev.cuda_context)
    t = DLPackTensor(cuda, dev.cuda_context, (H, W, 4), "uint8")
    img.copy_to(t, stream=stream)
    # The producer was asked for its tensor on our stream (DLPack's rule).
    assert t.streams == [stream]
    assert t.read() == read_layer(gl, img, 0, "rgba8")
    img.copy_to(t)
    assert t.streams[-1] == 1
    t.free()
    cuda.settle()
    cuda.stream_destroy(dev.cuda_context, stream)
    img.close()


def test_copy_from_then_gl(dev, gl, cuda):
    img = dev.image(W, H, 2, format="r32f")
    pixels = struct.pack(f"<{H * W}f", *[i / 8 for i in range(H * W)])
    t = FakeTensor(cuda, dev.cuda_context, (H, W, 1), "float32")
    t.write(pixels)
    img.copy_from(t, layer=1)
    # GL's next command waits for the copy: glReadPixels sees it.
    assert read_layer(gl, img, 1, "r32f") == pixels
    # The CAI's stream orders the copy after the tensor's producer.
    t2 = FakeTensor(cuda, dev.cuda_context, (2, H, W, 1), "float32",
                    stream=2)
    t2.write(pixels[::-1] + pixels)
    img.copy_from(t2)
    assert read_layer(gl, img, 0, "r32f") == pixels[::-1]
    t.free()
    t2.free()
    img.close()


@pytest.mark.parametrize("producer", [DLPackTensor, VersionedDLPackTensor])
def test_copy_at_byte_offset(dev, gl, cuda, producer):
    """A producer's tensor that starts byte_offset bytes into its memory
    (a slice, layer 1 of three): copy_to writes there and copy_from reads
    there, and neither touches the bytes before it."""
    img = dev.image(W, H, format="rgba16f")
    draw_layers(gl, img)
    want = read_layer(gl, img, 0, "rgba16f")
    offset = H * W * 8
    t = producer(cuda, dev.cuda_context, (H, W, 4), "float16",
                 byte_offset=offset)
    img.copy_to(t)
    assert t.read_before() == b"\xa5" * offset
    assert t.read() == want
    # The other way: pixels at the offset, others before it.
    pixels = bytes(range(256)) * (len(want) // 256) + \
        bytes(range(len(want) % 256))
    assert pixels != want
    t.write(pixels)
    ctypes.memset(t.base, 0x3C, offset)
    img.copy_from(t)
    assert read_layer(gl, img, 0, "rgba16f") == pixels
    assert t.read_before() == b"\x3c" * offset
    t.free()
    img.close()


def test_copy_to_read_only_versioned(dev, gl, cuda):
    """A DLPack 1.x capsule flagged DLPACK_FLAG_BITMASK_READ_ONLY: copy_to
    refuses it, saying why, writes nothing, and gives the tensor back (its
    deleter, once); copy_from reads it."""
    img = dev.image(W, H)
    draw_layers(gl, img)
    t = VersionedDLPackTensor(cuda, dev.cuda_context, (H, W, 4), "uint8",
                              readonly=True)
    with pytest.raises(ValueError,
                       match="expected a writable tensor, got a read-only"):
        img.copy_to(t)
    assert t.deleted == 1
    assert t.read() == b"\xa5" * (H * W * 4)
    pixels = bytes(range(H * W * 4))
    t.write(pixels)
    img.copy_from(t)
    assert t.deleted == 2
    assert read_layer(gl, img, 0, "rgba8") == pixels
    # Writable, the same producer is written.
    w = VersionedDLPackTensor(cuda, dev.cuda_context, (H, W, 4), "uint8")
    img.copy_to(w)
    assert w.deleted == 1 and w.read() == pixels
    t.free()
    w.free()
    img.close()


def test_copy_other_dlpack_major(dev, cuda):
    """A capsule of another DLPack major version (its struct laid out
    otherwise) is refused without reading it, and given back (its
    deleter, which stays where it is)."""
    img = dev.image(W, H)
    for version in ((2, 0), (0, 8)):
        t = VersionedDLPackTensor(cuda, dev.cuda_context, (H, W, 4),
                                  "uint8", version=version)
        with pytest.raises(BufferError, match=r"expected a DLPack 1\.x "
                           rf"tensor, got .* of DLPack {version[0]}\."):
            img.copy_to(t)
        assert t.deleted == 1
        assert t.read() == b"\xa5" * (H * W * 4)
        t.free()
    img.close()


def test_copy_errors(dev, cuda):
    img = dev.image(W, H, 2)
    ctx = dev.cuda_context
    with pytest.raises(ValueError,
                       match=r"copy_to: expected a uint8 tensor of shape "
                             r"\(2, 5, 7, 4\), got uint8 \(5, 7, 4\)"):
        img.copy_to(FakeTensor(cuda, ctx, (H, W, 4), "uint8"))
    with pytest.raises(ValueError, match="got float32"):
        img.copy_from(FakeTensor(cuda, ctx, (2, H, W, 4), "float32"))
    with pytest.raises(ValueError, match=r"shape \(5, 7, 4\)"):
        img.copy_to(FakeTensor(cuda, ctx, (2, H, W, 4), "uint8"), layer=0)
    with pytest.raises(glcuda.InvalidArgumentError,
                       match="copy_to: layer 2 of an image with 2 layers"):
        img.copy_to(FakeTensor(cuda, ctx, (H, W, 4), "uint8"), layer=2)
    with pytest.raises(ValueError, match="pixels packed"):
        img.copy_to(FakeTensor(cuda, ctx, (2, H, W, 4), "uint8",
                               strides=(H * W * 8, W * 8, 8, 1)))
    with pytest.raises(ValueError, match="writable"):
        img.copy_to(FakeTensor(cuda, ctx, (2, H, W, 4), "uint8",
                               readonly=True))
    with pytest.raises(ValueError, match=r"CUDA device 0 .*\(1, 0\)"):
        img.copy_to(DLPackTensor(cuda, ctx, (2, H, W, 4), "uint8",
                                 device=(1, 0)))
    with pytest.raises(TypeError, match="__dlpack__ or __cuda_array"):
        img.copy_to(bytearray(10))
    # A row pitch below the row's bytes: glcuda's own check, its message.
    with pytest.raises(glcuda.InvalidArgumentError, match="pitch"):
        img.copy_to(FakeTensor(cuda, ctx, (2, H, W, 4), "uint8",
                               strides=(H * 16, 16, 4, 1)))
    img.close()


def test_copy_from_numpy_is_refused(dev):
    numpy = pytest.importorskip("numpy")
    img = dev.image(W, H)
    with pytest.raises(ValueError, match=r"CUDA device 0.*device \(1, 0\)"):
        img.copy_from(numpy.zeros((H, W, 4), numpy.uint8))
    img.close()
