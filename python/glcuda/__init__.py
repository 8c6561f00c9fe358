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

Row 0 of every tensor is the picture's top row (``img.origin ==
"top-left"``), as PIL, torchvision and networks trained on images expect;
``origin="bottom-left"`` gives GL's order, glReadPixels'. The flip is part
of the one copy. ``img.depth_in_metres(znear, zfar)`` gives the depth
buffer as distances, and ``img.capture(fbo)`` takes a frame from a
renderer's own framebuffer (moderngl's, PyOpenGL's, MuJoCo's).

Errors are :class:`Error` subclasses with glcuda's error name and message;
wrong shapes, dtypes and devices are :class:`ValueError`.
"""
from . import _glcuda
from ._glcuda import (FORMATS, ClosedError, Device, Error, Headless, Image,
                      _profile, library_version)

__version__ = library_version

# The error classes, one per glcuda error code (NoCUDADriverError, ...).
globals().update({name: getattr(_glcuda, name) for name in dir(_glcuda)
                  if name.endswith("Error")})


class Plane:
    """One plane of an image as a tensor: Plane(img, 1) is the depth
    buffer of an image made with depth='depth32f' (float32, one channel).
    It has the image's tensor interfaces for that plane.

    origin: its row 0, 'top-left' or 'bottom-left' (None: the image's
    origin). depth: for a depth plane, ('perspective' or 'orthographic',
    znear, zfar): distances along the view axis instead of depth values
    (Image.depth_in_metres() makes one)."""

    def __init__(self, image, plane, *, origin=None, depth=None):
        self.image = image
        self.plane = plane
        self.origin = origin
        self.depth = depth

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None,
                   copy=None):
        return self.image.__dlpack__(stream=stream, max_version=max_version,
                                     dl_device=dl_device, copy=copy,
                                     plane=self.plane, origin=self.origin,
                                     depth=self.depth)

    def __dlpack_device__(self):
        return self.image.__dlpack_device__()

    @property
    def __cuda_array_interface__(self):
        return self.image.cuda_array_interface(plane=self.plane,
                                               origin=self.origin,
                                               depth=self.depth)

    def copy_to(self, tensor, *, layer=None, stream=None, origin=None):
        self.image.copy_to(tensor, layer=layer, plane=self.plane,
                           stream=stream,
                           origin=origin if origin else self.origin,
                           depth=self.depth)

    def copy_from(self, tensor, *, layer=None, stream=None, origin=None):
        if self.depth is not None:
            raise _glcuda.InvalidArgumentError(
                "copy_from: distances are not converted back to depth; "
                "use Plane(image, plane) without depth")
        self.image.copy_from(tensor, layer=layer, plane=self.plane,
                             stream=stream,
                             origin=origin if origin else self.origin)


__all__ = ["Device", "Headless", "Image", "Plane", "Error", "ClosedError",
           "FORMATS", "library_version"] + sorted(
               name for name in dir(_glcuda) if name.endswith("Error")
               and name not in ("Error", "ClosedError"))
