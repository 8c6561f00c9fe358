"""The DLPack capsules and __cuda_array_interface__: fields, deleters,
names, streams, references and leaks."""
import ctypes
import gc
import json
import os
import subprocess
import sys

import pytest

import glcuda

from conftest import draw_layers, read_layer
from fakecuda import KDLCUDA, capsule_name, capsule_tensor, consume


def test_capsule_fields(dev, gl, cuda):
    img = dev.image(6, 5, 3)
    draw_layers(gl, img)
    capsule = img.__dlpack__(max_version=(1, 2))
    assert capsule_name(capsule) == "dltensor_versioned"
    t = capsule_tensor(capsule)
    assert (t.major, t.minor) == (1, 0)
    assert t.flags & 2  # DLPACK_FLAG_BITMASK_IS_COPIED
    assert not t.flags & 1  # not read-only
    dl = t.dl_tensor
    assert (dl.device_type, dl.device_id) == (KDLCUDA, 0)
    assert (dl.code, dl.bits, dl.lanes) == (1, 8, 1)  # kDLUInt 8
    assert [dl.shape[i] for i in range(dl.ndim)] == [3, 5, 6, 4]
    if dl.strides:
        assert [dl.strides[i] for i in range(4)] == [120, 24, 4, 1]
    assert img.__dlpack_device__() == (KDLCUDA, 0)
    cuda.settle()
    assert ctypes.string_at(dl.data + dl.byte_offset, 360)[-120:] == \
        read_layer(gl, img, 2, "rgba8")
    # Older consumers: no max_version, or one before 1.0.
    for max_version in (None, (0, 8)):
        old = img.__dlpack__(max_version=max_version)
        assert capsule_name(old) == "dltensor"
        assert capsule_tensor(old).dl_tensor.ndim == 4
    img.close()


def test_deleter_once(dev, cuda):
    img = dev.image(8, 8)
    base = cuda.live_objects()
    # Unconsumed: dropping the capsule runs the deleter; the block goes
    # back to the image's pool, so the next export allocates nothing.
    img.__dlpack__(max_version=(1, 0))
    after_first = cuda.live_objects()
    assert after_first >= base
    for _ in range(5):
        img.__dlpack__(max_version=(1, 0))
    assert cuda.live_objects() == after_first
    # Consumed: the consumer renamed it and owns the tensor; dropping the
    # capsule must not run the deleter again.
    capsule = img.__dlpack__(max_version=(1, 0))
    t = consume(capsule)
    assert capsule_name(capsule) == "used_dltensor_versioned"
    del capsule
    t.deleter(ctypes.pointer(t))
    capsule = img.__dlpack__()
    t = consume(capsule)
    assert capsule_name(capsule) == "used_dltensor"
    del capsule
    t.deleter(ctypes.pointer(t))
    assert cuda.live_objects() == after_first
    img.close()
    assert cuda.live_objects() < after_first


@pytest.mark.parametrize("consumed", [False, True])
def test_deleter_after_device_closed(cuda, consumed):
    base = cuda.live_objects()
    dev = glcuda.Headless()
    img = dev.image(8, 4, 2)
    capsule = img.__dlpack__(max_version=(1, 0))
    t = consume(capsule) if consumed else None
    dev.close()
    assert img.closed
    if consumed:
        assert capsule_name(capsule) == "used_dltensor_versioned"
        t.deleter(ctypes.pointer(t))
    del capsule
    gc.collect()
    # The tensor's memory went with its deleter, the rest with the device.
    assert cuda.live_objects() == base


def test_no_growth_over_10000_exports(dev, cuda):
    img = dev.image(8, 8, 2)
    refs = sys.getrefcount(img)
    for _ in range(10):
        img.__dlpack__(max_version=(1, 0))
        img.__dlpack__()
        img.__cuda_array_interface__
    objects = cuda.live_objects()
    for _ in range(10000):
        img.__dlpack__(max_version=(1, 0))
    for _ in range(100):
        img.__dlpack__()
        img.__cuda_array_interface__
    assert cuda.live_objects() == objects
    assert sys.getrefcount(img) == refs
    img.close()


def test_streams(dev, cuda):
    img = dev.image(4, 4)
    stream = cuda.stream(dev.cuda_context)
    for s in (None, 0, 1, 2, -1, stream):
        capsule = img.__dlpack__(stream=s, max_version=(1, 0))
        assert capsule_tensor(capsule).dl_tensor.ndim == 3
    with pytest.raises(TypeError, match="stream"):
        img.__dlpack__(stream="default")
    with pytest.raises(ValueError, match="stream"):
        img.__dlpack__(stream=-2)
    cuda.settle()
    cuda.stream_destroy(dev.cuda_context, stream)
    img.close()


def test_device_and_copy_requests(dev):
    img = dev.image(4, 4)
    assert img.__dlpack__(dl_device=(KDLCUDA, 0), copy=True)
    with pytest.raises(BufferError, match="own device"):
        img.__dlpack__(dl_device=(1, 0))
    with pytest.raises(BufferError, match="always a copy"):
        img.__dlpack__(copy=False)
    with pytest.raises(TypeError, match="max_version"):
        img.__dlpack__(max_version=1)
    with pytest.raises(ValueError, match="plane 1"):
        img.__dlpack__(plane=1)
    img.close()


def test_cuda_array_interface(dev, gl, cuda):
    img = dev.image(5, 3, 2, format="rg16")
    draw_layers(gl, img)
    cai = img.__cuda_array_interface__
    assert cai["version"] == 3 and cai["stream"] == 1
    assert cai["shape"] == (2, 3, 5, 2) and cai["typestr"] == "<u2"
    assert cai["strides"] is None
    ptr, readonly = cai["data"]
    assert ptr and readonly is False
    cuda.settle()
    assert ctypes.string_at(ptr, 2 * 3 * 5 * 4) == \
        read_layer(gl, img, 0, "rg16") + read_layer(gl, img, 1, "rg16")
    # A new access makes a new export; the image keeps the latest.
    again = img.__cuda_array_interface__
    assert again["shape"] == cai["shape"]
    assert img.cuda_array_interface(plane=0)["shape"] == cai["shape"]
    img.close()


# What each failure of failed_export.py raises: the class, a part of its
# message, and what the next call on its image does.
FAILED_EXPORTS = {
    "bad plane": ("InvalidArgumentError", "plane 5 of an image with 1 plane",
                  "exported"),
    "out of memory": ("CUDAError", "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY",
                      "exported"),
    "device lost": ("DeviceLostError", "CUDA_ERROR_LAUNCH_FAILED",
                    "DeviceLostError"),
}


@pytest.mark.parametrize("way", ["unversioned", "versioned",
                                 "cuda_array_interface"])
@pytest.mark.parametrize("kind", sorted(FAILED_EXPORTS))
def test_failed_export(kind, way):
    """An export that fails raises glcuda's error with the GIL taken back
    and the device's lock released: the interpreter goes on (another
    thread runs Python meanwhile and after), the next call on the image
    runs. In a process of its own, so that a fatal error or a hang fails
    this test alone (the timeout only ends a hung process)."""
    child = os.path.join(os.path.dirname(__file__), "failed_export.py")
    run = subprocess.run([sys.executable, "-X", "faulthandler", child, kind,
                          way], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout.splitlines()[-1])
    name, message, after = FAILED_EXPORTS[kind]
    for raised in result["raised"]:
        assert raised is not None, "the export did not fail"
        assert raised[0] == name
    assert message in result["raised"][0][1]
    assert result["after"] == [after] * len(result["raised"])
    assert result["spun"] and result["later"] == [45]
