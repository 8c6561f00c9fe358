"""A plane or a layer out of range is refused the same way on every path:
glcuda.InvalidArgumentError (a glcuda.Error and a ValueError), code -EINVAL
and name "EINVAL", in glcuda's words ("copy_to: plane 2 of an image with 2
planes"), the image going on working."""
import errno

import pytest

import glcuda

from fakecuda import FakeTensor

W, H = 6, 4


def colour_tensor(cuda, img, layers=True):
    shape = ((img.layers,) if layers else ()) + (H, W, 4)
    return FakeTensor(cuda, img.device.cuda_context, shape, "uint8")


def depth_tensor(cuda, img):
    return FakeTensor(cuda, img.device.cuda_context, (H, W, 1), "float32")


# Each refusal: what it calls on an image of 2 layers and 2 planes (colour
# and depth32f, `img`), another image's framebuffer (`fbo`) and a tensor
# maker; and the message it gives.
REFUSALS = {
    "copy_to plane past the last": (
        lambda img, fbo, t: img.copy_to(t(img), plane=2),
        "copy_to: plane 2 of an image with 2 planes"),
    "copy_to plane -1": (
        lambda img, fbo, t: img.copy_to(t(img), plane=-1),
        "copy_to: plane -1 of an image with 2 planes"),
    "copy_to layer past the last": (
        lambda img, fbo, t: img.copy_to(t(img, False), layer=2),
        r"copy_to: layer 2 of an image with 2 layers \(or None for all\)"),
    "copy_to layer -1": (
        lambda img, fbo, t: img.copy_to(t(img, False), layer=-1),
        r"copy_to: layer -1 of an image with 2 layers \(or None for all\)"),
    "copy_from plane past the last": (
        lambda img, fbo, t: img.copy_from(t(img), plane=2),
        "copy_from: plane 2 of an image with 2 planes"),
    "copy_from layer -1": (
        lambda img, fbo, t: img.copy_from(t(img, False), layer=-1),
        r"copy_from: layer -1 of an image with 2 layers"),
    "copy_from layer past the last": (
        lambda img, fbo, t: img.copy_from(t(img, False), layer=7),
        r"copy_from: layer 7 of an image with 2 layers"),
    "__dlpack__ plane past the last": (
        lambda img, fbo, t: img.__dlpack__(plane=2),
        "plane 2 of an image with 2 planes"),
    "__dlpack__ plane -1": (
        lambda img, fbo, t: img.__dlpack__(plane=-1),
        "__dlpack__: plane -1 of an image with 2 planes"),
    "cuda_array_interface plane past the last": (
        lambda img, fbo, t: img.cuda_array_interface(plane=2),
        "plane 2 of an image with 2 planes"),
    "cuda_array_interface plane -1": (
        lambda img, fbo, t: img.cuda_array_interface(plane=-1),
        "cuda_array_interface: plane -1 of an image with 2 planes"),
    "Plane __dlpack__": (
        lambda img, fbo, t: glcuda.Plane(img, 3).__dlpack__(),
        "plane 3 of an image with 2 planes"),
    "Plane __cuda_array_interface__": (
        lambda img, fbo, t: glcuda.Plane(img, -1).__cuda_array_interface__,
        "cuda_array_interface: plane -1 of an image with 2 planes"),
    "Plane copy_to plane": (
        lambda img, fbo, t: glcuda.Plane(img, 2).copy_to(t(img)),
        "copy_to: plane 2 of an image with 2 planes"),
    "Plane copy_to layer": (
        lambda img, fbo, t: glcuda.Plane(img, 1).copy_to(t(img, False),
                                                         layer=2),
        "copy_to: layer 2 of an image with 2 layers"),
    "Plane copy_from layer": (
        lambda img, fbo, t: glcuda.Plane(img, 1).copy_from(t(img, False),
                                                           layer=-1),
        "copy_from: layer -1 of an image with 2 layers"),
    "capture layer past the last": (
        lambda img, fbo, t: img.capture(fbo, layer=2),
        "capture: layer 2 of an image with 2 layers"),
    "capture layer -1": (
        lambda img, fbo, t: img.capture(fbo, layer=-1),
        "capture: layer -1 of an image with 2 layers"),
    "Device.capture layer past the last": (
        lambda img, fbo, t: img.device.capture([(fbo, img, 0),
                                                (fbo, img, 2)]),
        "capture: item 1: layer 2 of an image with 2 layers"),
    "Device.capture layer -1": (
        lambda img, fbo, t: img.device.capture([(fbo, img, -1)]),
        "capture: item 0: layer -1 of an image with 2 layers"),
    "framebuffer layer past the last": (
        lambda img, fbo, t: img.framebuffer(2),
        "framebuffer: layer 2 of an image with 2 layers"),
    "framebuffer layer -1": (
        lambda img, fbo, t: img.framebuffer(-1),
        "framebuffer: layer -1 of an image with 2 layers"),
    "depth_in_metres without a depth plane": (
        lambda img, fbo, t: img.device.image(W, H).depth_in_metres(0.1, 10),
        "depth_in_metres: the image has no depth plane"),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_plane_and_layer_refusals(dev, cuda, name):
    call, message = REFUSALS[name]
    img = dev.image(W, H, 2, depth="depth32f")
    src = dev.image(W, H)

    def tensor(image, layers=True):
        return colour_tensor(cuda, image, layers)

    with pytest.raises(glcuda.InvalidArgumentError, match=message) as info:
        call(img, src.framebuffer(), tensor)
    assert isinstance(info.value, glcuda.Error)
    assert isinstance(info.value, ValueError)
    assert info.value.code == -errno.EINVAL and info.value.name == "EINVAL"
    assert str(info.value) == "EINVAL: " + info.value.message
    # Refused before anything was done: the image goes on working.
    img.copy_to(colour_tensor(cuda, img))
    img.copy_to(depth_tensor(cuda, img), layer=1, plane=1)
    img.close()
    src.close()
