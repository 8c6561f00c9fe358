#!/usr/bin/env python3
"""N environments' cameras drawn into the layers of one image, in one
layered draw, and taken as one (N, H, W, 4) uint8 torch tensor per step.

    python3 batch_render.py [--envs 256] [--size 128x128] [--seconds 3]
                            [--paths glcuda,dlpack,readback,legacy]

Prints steps per second, camera frames per second and the CPU time per
step of each path, all producing the same tensor on the GPU:

  glcuda    img.copy_to(batch): a tensor made once, filled each step
            (hand-off, one GPU copy, hand-back, on torch's stream);
  dlpack    torch.from_dlpack(img): a new tensor each step (from the
            image's pool: nothing is allocated after the first steps);
  readback  glReadPixels of every layer into host memory, then
            torch.from_numpy(...).cuda();
  legacy    CUDA's GL registration (cuGraphicsGLRegisterImage once; each
            step map, cuMemcpy3DAsync from the array into the tensor,
            unmap), through ctypes on libcuda, into a plain GL texture of
            its own: the way habitat-sim and iGibson take frames today.

The scene is glcuda.gl.LayeredScene: one triangle per layer that gl_Layer
sends there, colours that depend on the layer, the step and the pixel, so
that the first step of each path is checked against the expected pixels.
Needs an NVIDIA GPU, torch with CUDA, and glcuda's Python package.
"""
import argparse
import ctypes
import sys
import time

import numpy as np
import torch

import glcuda
from glcuda import gl as glmod

CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY = 1
CU_MEMORYTYPE_DEVICE = 2
CU_MEMORYTYPE_ARRAY = 3


class CUDA_MEMCPY3D(ctypes.Structure):
    _fields_ = [(name, kind) for side in ("src", "dst") for name, kind in (
        (side + "XInBytes", ctypes.c_size_t), (side + "Y", ctypes.c_size_t),
        (side + "Z", ctypes.c_size_t), (side + "LOD", ctypes.c_size_t),
        (side + "MemoryType", ctypes.c_int), (side + "Host", ctypes.c_void_p),
        (side + "Device", ctypes.c_uint64), (side + "Array", ctypes.c_void_p),
        ("reserved0" if side == "src" else "reserved1", ctypes.c_void_p),
        (side + "Pitch", ctypes.c_size_t),
        (side + "Height", ctypes.c_size_t))] + [
        ("WidthInBytes", ctypes.c_size_t), ("Height", ctypes.c_size_t),
        ("Depth", ctypes.c_size_t)]


class Legacy:
    """The legacy registration of a GL_TEXTURE_2D_ARRAY with its own
    layered framebuffer, copied into a torch tensor each step."""

    def __init__(self, gl, envs, width, height):
        self.gl = gl
        self.cuda = ctypes.CDLL("libcuda.so.1")
        tex, fbo = ctypes.c_uint(0), ctypes.c_uint(0)
        gl.glGenTextures(1, ctypes.byref(tex))
        gl.glBindTexture(glmod.GL_TEXTURE_2D_ARRAY, tex.value)
        gl.glTexStorage3D(glmod.GL_TEXTURE_2D_ARRAY, 1, glmod.GL_RGBA8,
                          width, height, envs)
        gl.glBindTexture(glmod.GL_TEXTURE_2D_ARRAY, 0)
        gl.glGenFramebuffers(1, ctypes.byref(fbo))
        gl.glBindFramebuffer(glmod.GL_FRAMEBUFFER, fbo.value)
        gl.glFramebufferTexture(glmod.GL_FRAMEBUFFER,
                                glmod.GL_COLOR_ATTACHMENT0, tex.value, 0)
        status = gl.glCheckFramebufferStatus(glmod.GL_FRAMEBUFFER)
        gl.glBindFramebuffer(glmod.GL_FRAMEBUFFER, 0)
        if status != glmod.GL_FRAMEBUFFER_COMPLETE:
            raise RuntimeError(f"legacy framebuffer: status 0x{status:x}")
        self.texture, self.framebuffer = tex.value, fbo.value
        self.resource = ctypes.c_void_p()
        self.call("cuGraphicsGLRegisterImage", ctypes.byref(self.resource),
                  ctypes.c_uint(self.texture),
                  ctypes.c_uint(glmod.GL_TEXTURE_2D_ARRAY),
                  ctypes.c_uint(CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY))
        self.copy = CUDA_MEMCPY3D()
        self.copy.srcMemoryType = CU_MEMORYTYPE_ARRAY
        self.copy.dstMemoryType = CU_MEMORYTYPE_DEVICE
        self.copy.dstPitch = self.copy.WidthInBytes = width * 4
        self.copy.dstHeight = self.copy.Height = height
        self.copy.Depth = envs

    def call(self, name, *args):
        res = getattr(self.cuda, name)(*args)
        if res != 0:
            raise RuntimeError(f"{name}: CUresult {res}")

    def to_tensor(self, out, stream):
        s = ctypes.c_void_p(stream)
        mip, array = ctypes.c_void_p(), ctypes.c_void_p()
        self.call("cuGraphicsMapResources", 1, ctypes.byref(self.resource), s)
        self.call("cuGraphicsResourceGetMappedMipmappedArray",
                  ctypes.byref(mip), self.resource)
        self.call("cuMipmappedArrayGetLevel", ctypes.byref(array), mip, 0)
        self.copy.srcArray = array
        self.copy.dstDevice = out.data_ptr()
        self.call("cuMemcpy3DAsync_v2", ctypes.byref(self.copy), s)
        self.call("cuGraphicsUnmapResources", 1, ctypes.byref(self.resource),
                  s)

    def close(self):
        self.call("cuGraphicsUnregisterResource", self.resource)
        fbo, tex = ctypes.c_uint(self.framebuffer), ctypes.c_uint(self.texture)
        self.gl.glDeleteFramebuffers(1, ctypes.byref(fbo))
        self.gl.glDeleteTextures(1, ctypes.byref(tex))


def run_path(path, dev, gl, scene, envs, width, height, seconds):
    """Run one path for about `seconds`: (steps/s, CPU µs a step, whether
    the first step's tensor held the expected pixels)."""
    stream = torch.cuda.current_stream().cuda_stream
    # GL's row order, as the readback and legacy paths (glReadPixels)
    # and LayeredScene.expected() give it: the same tensors, the
    # same copies (top-left flips rows within the one copy).
    img = dev.image(width, height, envs, origin="bottom-left")
    batch = torch.empty((envs, height, width, 4), dtype=torch.uint8,
                        device="cuda")
    host = np.empty((envs, height, width, 4), np.uint8)
    legacy = Legacy(gl, envs, width, height) if path == "legacy" else None
    target = legacy.framebuffer if legacy else img.layered_framebuffer

    def step(n):
        scene.draw(target, width, height, envs, n)
        if path == "glcuda":
            # One layer is an image of (height, width, 4).
            img.copy_to(batch if envs > 1 else batch[0], stream=stream)
            return batch
        if path == "dlpack":
            return torch.from_dlpack(img)
        if path == "legacy":
            legacy.to_tensor(batch, stream)
            return batch
        for layer in range(envs):
            host[layer] = np.frombuffer(gl.read_pixels(
                img.framebuffer(layer), width, height, glmod.GL_RGBA,
                glmod.GL_UNSIGNED_BYTE, 4), np.uint8).reshape(
                    height, width, 4)
        return torch.from_numpy(host).cuda()

    first = step(0).cpu().numpy()
    exact = np.array_equal(first.reshape(envs, height, width, 4),
                           glmod.LayeredScene.expected(envs, width, height, 0))
    torch.cuda.synchronize()
    n, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            n += 1
            step(n)
    torch.cuda.synchronize()
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu
    if legacy:
        legacy.close()
    img.close()
    return n / wall, cpu / n * 1e6, exact


def parse_size(text):
    w, _, h = text.partition("x")
    return int(w), int(h or w)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", type=int, default=256)
    parser.add_argument("--size", type=parse_size, default=(128, 128))
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--paths", default="glcuda,dlpack,readback,legacy")
    args = parser.parse_args()
    (width, height), envs = args.size, args.envs

    with glcuda.Headless() as dev:
        gl = glmod.GL()
        scene = glmod.LayeredScene(gl)
        print(f"{dev.caps['gl_renderer']}, sync mode {dev.caps['sync_mode']}"
              f"; {envs} environments of {width}x{height}")
        results = {}
        for path in args.paths.split(","):
            rate, cpu, exact = run_path(path, dev, gl, scene, envs, width,
                                        height, args.seconds)
            results[path] = rate
            print(f"{path:9s} {rate:10.1f} steps/s {rate * envs:13.0f} "
                  f"frames/s {cpu:9.1f} µs CPU/step  pixels "
                  f"{'exact' if exact else 'WRONG'}", flush=True)
            if not exact:
                return 1
        scene.close()
    if "glcuda" in results:
        for other in ("readback", "legacy"):
            if other in results:
                print(f"glcuda / {other}: "
                      f"{results['glcuda'] / results[other]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
