"""Contexts both ways, closing in any order, and closed objects."""
import ctypes
import threading

import pytest

import glcuda
from glcuda import gl as glmod

from conftest import read_layer
from fakecuda import capsule_tensor


def test_headless_caps(dev):
    caps = dev.caps
    assert caps["gl_api"] == "gl"
    assert caps["gl_version"] >= (4, 5)
    assert caps["cuda_device"] == 0 == dev.cuda_device
    assert caps["max_image_layers"] >= 2
    assert caps["sync_mode"] in ("timeline", "binary", "cpu")
    assert "EGL" in dev.description or "surfaceless" in dev.description
    assert dev.cuda_context != 0
    assert dev.has_format("rgba8")
    assert not dev.closed


def test_headless_gles():
    with glcuda.Headless(gles=True) as dev:
        assert dev.caps["gl_api"] == "gles"
        with dev.image(8, 8) as img:
            assert img.shape == (8, 8, 4)
    assert dev.closed


def test_device_constructors():
    with pytest.raises(TypeError):
        glcuda.Device()
    with pytest.raises(ValueError, match="sync_mode"):
        glcuda.Headless(sync_mode="fast")
    with pytest.raises(glcuda.InvalidArgumentError) as info:
        glcuda.Headless(cuda_device=-2)
    assert info.value.code < 0 and info.value.name == "EINVAL"


def test_from_current(dev):
    # A second device on the headless context, as a moderngl or PyOpenGL
    # user binds to theirs.
    other = glcuda.Device.from_current()
    assert type(other) is glcuda.Device
    img = other.image(4, 4)
    assert img.device is other
    other.close()
    assert other.closed and img.closed
    img.close()


def test_from_current_without_context():
    raised = []

    def thread():
        try:
            glcuda.Device.from_current()
        except glcuda.NoCurrentContextError as e:
            raised.append(e)

    t = threading.Thread(target=thread)
    t.start()
    t.join()
    assert len(raised) == 1
    assert raised[0].name == "GLCUDA_ERROR_NO_CURRENT_CONTEXT"
    assert "no EGL context is current" in raised[0].message


@pytest.mark.parametrize("order", ["images first", "device first",
                                   "headless context first"])
def test_close_in_any_order(order):
    dev = glcuda.Headless()
    img = dev.image(8, 8, layers=2)
    other = glcuda.Device.from_current()
    wrapped = other.image(8, 8)
    capsule = img.__dlpack__()
    if order == "images first":
        img.close()
        wrapped.close()
        other.close()
        dev.close()
    elif order == "device first":
        dev.close()
        other.close()
    else:
        # The headless context goes before a device bound to it:
        # glcuda then cannot reach its GL objects and says so, and
        # nothing crashes.
        dev.close()
        with pytest.raises(glcuda.Error):
            other.image(4, 4)
        other.close()
    for obj in (dev, other, img, wrapped):
        assert obj.closed
        obj.close()  # again: nothing
    del capsule  # its deleter after everything is gone


def test_closed_objects_raise(dev):
    img = dev.image(8, 8)
    dev.close()
    for call in (lambda: dev.image(4, 4), lambda: dev.caps,
                 lambda: dev.wrap_texture(1), lambda: dev.has_format("r8"),
                 lambda: dev.make_current(), lambda: img.width,
                 lambda: img.framebuffer(0), lambda: img.__dlpack__(),
                 lambda: img.__dlpack_device__(),
                 lambda: img.__cuda_array_interface__,
                 lambda: img.copy_to(None), lambda: img.copy_from(None)):
        with pytest.raises(glcuda.ClosedError):
            call()
    with pytest.raises(glcuda.ClosedError):
        with dev:
            pass
    with pytest.raises(ValueError):  # a ClosedError is a ValueError
        img.shape


def test_threads_each_with_a_device():
    errors = []

    def thread():
        try:
            with glcuda.Headless() as dev, dev.image(8, 8) as img:
                del img.__cuda_array_interface__["data"]
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=thread) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def capsule_bytes(cuda, capsule, size):
    """The first @size bytes of an unconsumed capsule's tensor, once the
    fake GPU ran what was queued."""
    dl = capsule_tensor(capsule).dl_tensor
    cuda.settle()
    return ctypes.string_at(dl.data + dl.byte_offset, size)


def test_threads_render_and_export_while_others_close(cuda):
    """Four devices on four threads draw (ctypes GL: without the GIL) and
    export (glcuda: without the GIL too) while a fifth thread makes and
    closes images: no deadlock, every export right."""
    errors = []
    steps = 20

    def render(index):
        try:
            with glcuda.Headless() as dev:
                gl = glmod.GL()
                scene = glmod.LayeredScene(gl)
                img = dev.image(16, 8, layers=3)
                for step in range(steps):
                    scene.draw(img.layered_framebuffer, 16, 8, 3, step)
                    want = b"".join(read_layer(gl, img, layer, "rgba8")
                                    for layer in range(3))
                    capsule = img.__dlpack__()
                    if capsule_bytes(cuda, capsule, len(want)) != want:
                        errors.append(f"thread {index} step {step}: "
                                      "pixels differ")
                    del capsule
                img.close()
                scene.close()
        except Exception as e:  # reported below
            errors.append(f"thread {index}: {type(e).__name__}: {e}")

    def churn():
        try:
            with glcuda.Headless() as dev:
                for _ in range(steps):
                    with dev.image(8, 8):
                        pass
        except Exception as e:  # reported below
            errors.append(f"churn: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=render, args=(i,)) for i in range(4)]
    threads.append(threading.Thread(target=churn))
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not [t for t in threads if t.is_alive()], "threads hung"
    assert errors == []
