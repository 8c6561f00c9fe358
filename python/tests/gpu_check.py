"""glcuda's Python package on an NVIDIA GPU, with PyTorch, CuPy and JAX:
the checks scripts/python-gpu-test.sh runs on the GPU machine.

    python3 gpu_check.py consumers [--only torch]
    python3 gpu_check.py stream
    python3 gpu_check.py copy_from
    python3 gpu_check.py threads [--threads 8] [--seconds 60]
    python3 gpu_check.py pyopengl

pyopengl needs PyOpenGL importable (pure Python: a copy of Debian's
/usr/lib/python3/dist-packages/OpenGL on PYTHONPATH; doc/gpu-testing.md).

Each prints one "PASS: ..." or "FAIL: ..." line per check, with what it
measured, and exits non-zero when a check failed. Every pixel of every
tensor is compared with glReadPixels of the same layer: the images are
made in GL's row order (origin="bottom-left"), as glReadPixels and
LayeredScene.expected() are, except where a check is about the order.
"""
import argparse
import faulthandler
import sys
import threading
import time

import numpy as np

import glcuda
from glcuda import gl as glmod

failures = 0
# Row 0 of the tensors compared with glReadPixels: GL's bottom row.
GL_ORDER = "bottom-left"


def verdict(ok, what):
    global failures
    print(f"{'PASS' if ok else 'FAIL'}: {what}", flush=True)
    if not ok:
        failures += 1


def readback(gl, img, fmt="rgba8"):
    """glReadPixels of every layer, as a (layers, h, w, c) array."""
    how = {"rgba8": (glmod.GL_RGBA, glmod.GL_UNSIGNED_BYTE, 4, np.uint8, 4),
           "depth32f": (glmod.GL_DEPTH_COMPONENT, glmod.GL_FLOAT, 4,
                        np.float32, 1)}[fmt]
    layers = [np.frombuffer(gl.read_pixels(img.framebuffer(layer),
                                           img.width, img.height, how[0],
                                           how[1], how[2]), how[3])
              for layer in range(img.layers)]
    return np.stack(layers).reshape(img.layers, img.height, img.width,
                                    how[4])


expected = glmod.LayeredScene.expected


def as_layers(array, layers):
    return array.reshape((layers,) + array.shape[-3:])


SIZES = [(1, 1920, 1080), (256, 128, 128), (64, 512, 512)]


def consumers(args):
    libs = {}
    for name in args.only or ("torch", "cupy", "jax"):
        try:
            libs[name] = __import__(name)
        except ImportError as e:
            verdict(False, f"import {name}: {e}")
    if "jax" in libs:
        import jax.dlpack  # noqa: F401
    with glcuda.Headless() as dev:
        gl = glmod.GL()
        scene = glmod.LayeredScene(gl)
        verdict(True, f"Headless: {dev.description}; sync mode "
                      f"{dev.caps['sync_mode']}; {dev.caps['gl_renderer']}")
        for layers, w, h in SIZES:
            img = dev.image(w, h, layers, depth="depth32f",
                            origin=GL_ORDER)
            for step in range(2):
                scene.draw(img.layered_framebuffer, w, h, layers, step)
                for layer in range(layers):
                    gl.clear(img.framebuffer(layer), w, h,
                             depth=(layer + 1) / (layers + 1))
                want = readback(gl, img)
                depth = readback(gl, img, "depth32f")
                if step == 0:
                    verdict(np.array_equal(want,
                                           expected(layers, w, h, step)),
                            f"{layers}x{w}x{h}: glReadPixels shows the "
                            "layered draw")
                for name, lib in libs.items():
                    if name == "torch":
                        got = lib.from_dlpack(img).cpu().numpy()
                        gotd = lib.from_dlpack(glcuda.Plane(img, 1))
                        gotd = gotd.cpu().numpy()
                    elif name == "cupy":
                        got = lib.asnumpy(lib.from_dlpack(img))
                        gotd = lib.asnumpy(lib.asarray(glcuda.Plane(img, 1)))
                        cai = lib.asnumpy(lib.asarray(img))
                        verdict(np.array_equal(as_layers(cai, layers), want),
                                f"cupy.asarray (__cuda_array_interface__) "
                                f"{layers}x{w}x{h} step {step}: every pixel")
                    else:
                        got = np.asarray(lib.dlpack.from_dlpack(img))
                        gotd = np.asarray(lib.dlpack.from_dlpack(
                            glcuda.Plane(img, 1)))
                    verdict(np.array_equal(as_layers(got, layers), want),
                            f"{name}.from_dlpack {layers}x{w}x{h} step "
                            f"{step}: every pixel equals glReadPixels")
                    verdict(np.array_equal(as_layers(gotd, layers), depth),
                            f"{name} depth {layers}x{w}x{h} step {step}: "
                            "every value equals glReadPixels(DEPTH)")
            img.close()
        scene.close()


def stream(args):
    import torch
    layers, w, h = 64, 256, 256
    with glcuda.Headless() as dev:
        gl = glmod.GL()
        scene = glmod.LayeredScene(gl)
        img = dev.image(w, h, layers, origin=GL_ORDER)
        side = torch.cuda.Stream()
        cycles = 200_000_000  # ~0.1 s of GPU time
        # 1. A long kernel on torch's default stream; the export on the
        # current (side) stream, read there at once. Step 1 comes from a
        # pool block step 0 used, so a copy not ordered on the side
        # stream shows as step 0's pixels.
        for step in range(2):
            scene.draw(img.layered_framebuffer, w, h, layers, step)
            torch.cuda._sleep(cycles)
            with torch.cuda.stream(side):
                t = torch.from_dlpack(img)
                copy = t.clone()
            del t
        side.synchronize()
        verdict(np.array_equal(copy.cpu().numpy(),
                               expected(layers, w, h, 1)),
                "a long kernel on the default stream, from_dlpack and a "
                "read on torch's current stream: step 1's pixels")
        torch.cuda.synchronize()
        # 2. A long kernel on the current stream before the export, GL's
        # next draw right after it: the copy waits for the kernel, and GL
        # for the copy, on the GPU.
        with torch.cuda.stream(side):
            torch.cuda._sleep(cycles)
            start = time.perf_counter()
            t = torch.from_dlpack(img)
            cpu = time.perf_counter() - start
        scene.draw(img.layered_framebuffer, w, h, layers, 2)
        gl.glFlush()
        side.synchronize()
        verdict(np.array_equal(t.cpu().numpy(), expected(layers, w, h, 1)),
                "GL's next draw after from_dlpack on a busy stream: the "
                f"tensor holds the earlier frame (export {cpu * 1e6:.0f} µs "
                "of CPU while the stream was busy)")
        verdict(cpu < 0.05, f"from_dlpack did not wait for the busy stream "
                            f"({cpu * 1e3:.2f} ms < 50 ms)")
        verdict(np.array_equal(readback(gl, img), expected(layers, w, h, 2)),
                "GL drew step 2 after the copy")
        img.close()
        scene.close()


def copy_from(args):
    import torch
    with glcuda.Headless() as dev:
        gl = glmod.GL()
        for layers, w, h in SIZES:
            img = dev.image(w, h, layers, origin=GL_ORDER)
            src = torch.randint(0, 256, (layers, h, w, 4), dtype=torch.uint8,
                                device="cuda")
            img.copy_from(src.squeeze(0) if layers == 1 else src,
                          stream=torch.cuda.current_stream().cuda_stream)
            verdict(np.array_equal(readback(gl, img), src.cpu().numpy()),
                    f"copy_from a torch tensor {layers}x{w}x{h}, then "
                    "glReadPixels: every pixel")
            out = torch.empty_like(src)
            img.copy_to(out.squeeze(0) if layers == 1 else out,
                        stream=torch.cuda.current_stream().cuda_stream)
            verdict(torch.equal(out, src),
                    f"copy_to a torch tensor {layers}x{w}x{h}: the same")
            img.close()
        # A texture of the caller's (a moderngl texture's glo), wrapped.
        import ctypes
        tex = ctypes.c_uint(0)
        gl.glGenTextures(1, ctypes.byref(tex))
        gl.glBindTexture(glmod.GL_TEXTURE_2D, tex.value)
        gl.glTexStorage2D(glmod.GL_TEXTURE_2D, 1, glmod.GL_RGBA8, 640, 360)
        gl.glBindTexture(glmod.GL_TEXTURE_2D, 0)
        img = dev.wrap_texture(tex.value)
        img.origin = GL_ORDER
        src = torch.randint(0, 256, (360, 640, 4), dtype=torch.uint8,
                            device="cuda")
        img.copy_from(src)
        out = torch.empty_like(src)
        img.copy_to(out)
        fbo = ctypes.c_uint(0)
        gl.glGenFramebuffers(1, ctypes.byref(fbo))
        gl.glBindFramebuffer(glmod.GL_FRAMEBUFFER, fbo.value)
        gl.glFramebufferTexture(glmod.GL_FRAMEBUFFER,
                                glmod.GL_COLOR_ATTACHMENT0, tex.value, 0)
        got = np.frombuffer(gl.read_pixels(fbo.value, 640, 360, glmod.GL_RGBA,
                                           glmod.GL_UNSIGNED_BYTE, 4),
                            np.uint8).reshape(360, 640, 4)
        verdict(np.array_equal(got, src.cpu().numpy()) and
                torch.equal(out, src),
                "a wrapped GL texture: copy_from, glReadPixels and copy_to "
                "agree on every pixel")
        img.close()
        gl.glDeleteFramebuffers(1, ctypes.byref(fbo))
        gl.glDeleteTextures(1, ctypes.byref(tex))
        img = dev.image(64, 32, 3, format="r32f", origin=GL_ORDER)
        src = torch.rand((3, 32, 64, 1), device="cuda")
        img.copy_from(src)
        got = np.stack([np.frombuffer(gl.read_pixels(
            img.framebuffer(i), 64, 32, glmod.GL_RED, glmod.GL_FLOAT, 4),
            np.float32) for i in range(3)]).reshape(3, 32, 64, 1)
        verdict(np.array_equal(got, src.cpu().numpy()),
                "copy_from float32 into r32f, then glReadPixels: exact")
        img.close()


def threads(args):
    import torch
    layers, w, h = 64, 128, 128
    steps = [0] * args.threads
    errors = []
    deadline = time.monotonic() + args.seconds

    def run(index):
        try:
            with glcuda.Headless() as dev:
                gl = glmod.GL()
                scene = glmod.LayeredScene(gl)
                img = dev.image(w, h, layers, origin=GL_ORDER)
                step = 0
                while time.monotonic() < deadline:
                    scene.draw(img.layered_framebuffer, w, h, layers, step)
                    t = torch.from_dlpack(img)
                    if step % 200 == 0:
                        ok = np.array_equal(t.cpu().numpy(),
                                            expected(layers, w, h, step))
                        if not ok:
                            errors.append(f"thread {index} step {step}: "
                                          "wrong pixels")
                    step += 1
                    steps[index] = step
                torch.cuda.synchronize()
                img.close()
                scene.close()
        except Exception as e:  # reported below
            errors.append(f"thread {index}: {type(e).__name__}: {e}")

    pool = [threading.Thread(target=run, args=(i,), daemon=True)
            for i in range(args.threads)]
    # A hang shows where every thread is waiting: the stacks go to
    # stderr (the check's log) before the threads are given up.
    faulthandler.dump_traceback_later(args.seconds + 100)
    for t in pool:
        t.start()
    give_up = time.monotonic() + args.seconds + 120
    for t in pool:
        t.join(max(0.0, give_up - time.monotonic()))
    faulthandler.cancel_dump_traceback_later()
    hung = [i for i, t in enumerate(pool) if t.is_alive()]
    if hung:
        faulthandler.dump_traceback(all_threads=True)
    verdict(not hung, f"{args.threads} Headless devices on {args.threads} "
                      f"threads for {args.seconds} s: "
                      f"{'hung: threads %s' % hung if hung else 'no hang'}")
    verdict(not errors, "no error" if not errors else "; ".join(errors[:8]))
    verdict(min(steps) > 0, f"steps per thread: {steps}")


def pyopengl(args):
    """A PyOpenGL renderer's own framebuffer (RGBA8 and depth 24/stencil
    8, single-sampled and with 4 samples), drawn with shaders and
    captured on real CUDA, against PyOpenGL's glReadPixels; both capture
    orders and both tensor orders."""
    import torch
    try:
        from pyopengl_scene import PyOpenGLFrame
    except ImportError as e:
        verdict(False, f"import OpenGL (PyOpenGL): {e}")
        return
    w, h = 640, 360
    with glcuda.Headless() as dev:
        for samples in (0, 4):
            frame = PyOpenGLFrame(w, h, samples)
            frame.draw()
            colour = np.frombuffer(frame.read_color(),
                                   np.uint8).reshape(h, w, 4)
            depth = np.frombuffer(frame.read_depth(),
                                  np.float32).reshape(h, w, 1)
            img = dev.image(w, h, 2, depth="depth32f")
            for layer, captured in enumerate(("bottom-left", "top-left")):
                img.capture(frame.fbo, layer=layer, depth=True,
                            origin=captured)
                for origin in ("bottom-left", "top-left"):
                    flip = origin != captured
                    want_c = colour[::-1] if flip else colour
                    want_d = depth[::-1] if flip else depth
                    got_c = torch.empty((h, w, 4), dtype=torch.uint8,
                                        device="cuda")
                    got_d = torch.empty((h, w, 1), dtype=torch.float32,
                                        device="cuda")
                    img.copy_to(got_c, layer=layer, origin=origin)
                    img.copy_to(got_d, layer=layer, plane=1, origin=origin)
                    diff = np.abs(got_d.cpu().numpy() - want_d).max()
                    verdict(np.array_equal(got_c.cpu().numpy(), want_c) and
                            diff <= 2 / 16777215,
                            f"PyOpenGL {w}x{h} samples {samples}, captured "
                            f"{captured}, copied {origin}: every pixel "
                            f"equals glReadPixels; depth within "
                            f"{diff * 16777215:.2f} steps of 2^-24")
            img.close()
            frame.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check", choices=["consumers", "stream",
                                          "copy_from", "threads",
                                          "pyopengl"])
    parser.add_argument("--only", action="append")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    globals()[args.check](args)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
