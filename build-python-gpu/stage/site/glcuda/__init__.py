"""glcuda: OpenGL frames as PyTorch, CuPy and JAX tensors, on the GPU.

A thin layer over libglcuda. Render with GL into an image, then hand it to
any DLPack consumer::

    import glcuda, torch

    with glcuda.Headless() as dev:               # EGL + GL 4.5, current
        img = dev.image(128, 128, layers=64)     # a GL_TEXTURE_2D_ARRAY
        # ... draw into img.layered_framebuffer (one draw, gl_Layer) ...
        frames = torch.from_dlpack(img)          # (64, 128, 128, 4) uint8

The copy into the tensor (GL images are tiled: one GPU copy) and the
hand-offs between GL and CUDA are ordered on the consumer's stream: the CPU
never waits for the GPU. ``img.copy_to(tensor)`` fills a tensor of your own,
``img.copy_from(tensor)`` puts one into the image for GL to draw.

Errors are :class:`Error` subclasses with glcuda's error name and message;
wrong shapes, dtypes and devices are :class:`ValueError`.
"""
from . import _glcuda
from ._glcuda import (FORMATS, ClosedError, Device, Error, Headless, Image,
                      library_version)

__version__ = library_version

# The error classes, one per glcuda error code (NoCUDADriverError, ...).
globals().update({name: getattr(_glcuda, name) for name in dir(_glcuda)
                  if name.endswith("Error")})


class Plane:
    """One plane of an image as a tensor: Plane(img, 1) is the depth
    buffer of an image made with depth='depth32f' (float32, one channel).
    It has the image's tensor interfaces for that plane."""

    def __init__(self, image, plane):
        self.image = image
        self.plane = plane

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None,
                   copy=None):
        return self.image.__dlpack__(stream=stream, max_version=max_version,
                                     dl_device=dl_device, copy=copy,
                                     plane=self.plane)

    def __dlpack_device__(self):
        return self.image.__dlpack_device__()

    @property
    def __cuda_array_interface__(self):
        return self.image.cuda_array_interface(plane=self.plane)

    def copy_to(self, tensor, *, layer=None, stream=None):
        self.image.copy_to(tensor, layer=layer, plane=self.plane,
                           stream=stream)

    def copy_from(self, tensor, *, layer=None, stream=None):
        self.image.copy_from(tensor, layer=layer, plane=self.plane,
                             stream=stream)


__all__ = ["Device", "Headless", "Image", "Plane", "Error", "ClosedError",
           "FORMATS", "library_version"] + sorted(
               name for name in dir(_glcuda) if name.endswith("Error")
               and name not in ("Error", "ClosedError"))
