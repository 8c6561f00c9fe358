#!/usr/bin/env python3
"""One renderer per GPU under torch.distributed: each rank renders its
environments on its own GPU and trains on them with DistributedDataParallel.

    torchrun --nproc-per-node=N examples/python/multi_gpu.py
             [--envs 256] [--size 64x64] [--seconds 10 | --steps S]

Each process reads LOCAL_RANK (0 when unset), WORLD_SIZE and RANK, opens
glcuda.Headless(cuda_device=LOCAL_RANK) (the EGL device of that CUDA
device), checks that GL renders on that CUDA device (the device UUID of the
GL context against CUDA's for the ordinal, and torch's for cuda:LOCAL_RANK)
and refuses to go on otherwise. Each step it draws its environments' cameras
into the layers of one image in one layered draw (glcuda.gl.LayeredScene,
as batch_render.py), takes them as a (N, H, W, 4) uint8 tensor
(torch.from_dlpack) and trains a small convolutional network on them to
tell the environments apart, its gradients averaged over the ranks (NCCL;
gloo and glReadPixels where torch has no CUDA).

It prints per rank the EGL device, the CUDA device and its UUID, then the
frames per second of each rank and of all of them: on N GPUs the total is
to be at least 0.95 x N x one GPU's (scripts/python-gpu-multi.sh measures
it).

The binding (rank_device, CUDADriver, open_renderer, check_renderer,
describe) needs neither torch nor torch.distributed: the tests import it.
"""
import argparse
import ctypes
import importlib.util
import os
import sys
import time

import glcuda

# glcuda's error codes (enum glcuda_error) of the errors raised here.
ERROR_CODES = {glcuda.NoMatchingCUDADeviceError:
               ("GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE", -1001),
               glcuda.NoDisplayError: ("GLCUDA_ERROR_NO_DISPLAY", -1019)}


def refuse(cls, message):
    """glcuda's error `cls`, with its code, name and message set as
    glcuda's own errors have them."""
    name, code = ERROR_CODES[cls]
    error = cls(f"{name}: {message}")
    error.code, error.name, error.message = code, name, message
    return error


def rank_device(environ=os.environ):
    """The CUDA device ordinal of this process: LOCAL_RANK (the rank on
    this machine, which torchrun sets), 0 when it is unset. Not RANK: on
    several machines RANK counts them all."""
    text = environ.get("LOCAL_RANK", "").strip()
    if not text:
        return 0
    try:
        rank = int(text)
    except ValueError:
        rank = -1
    if rank < 0:
        raise ValueError(f"LOCAL_RANK={text!r}: expected an integer >= 0")
    return rank


def uuid_text(value):
    """A device UUID as uuid.UUID writes it: from 16 bytes (CUDA's, torch's
    uuid.bytes) or text ("GPU-..." as nvidia-smi writes it, or torch's)."""
    import uuid
    if isinstance(value, (bytes, bytearray, list, tuple)):
        return str(uuid.UUID(bytes=bytes(value)))
    text = str(value)
    if text.startswith("GPU-"):
        text = text[4:]
    return str(uuid.UUID(text))


class CUDADriver:
    """The few CUDA driver calls the binding makes, through ctypes on the
    library glcuda loads ($GLCUDA_LIBCUDA, else libcuda.so.1): the device
    count and a device's UUID, as CUDA numbers devices (after
    CUDA_VISIBLE_DEVICES, as torch does)."""

    API_VERSION = 12000

    def __init__(self, path=None):
        path = path or os.environ.get("GLCUDA_LIBCUDA") or "libcuda.so.1"
        try:
            self.lib = ctypes.CDLL(path)
            get = self.lib.cuGetProcAddress_v2
        except (OSError, AttributeError) as e:
            raise refuse(glcuda.NoDisplayError,
                         f"{path}: {e}; no CUDA driver, so no CUDA device "
                         f"for this rank") from None
        get.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                        ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p]
        self._get = get
        self.call("cuInit", ctypes.c_uint(0))

    def call(self, name, *args):
        fn = ctypes.c_void_p()
        if self._get(name.encode(), ctypes.byref(fn), self.API_VERSION, 0,
                     None) != 0 or not fn.value:
            raise RuntimeError(f"the CUDA driver has no {name}")
        res = ctypes.CFUNCTYPE(ctypes.c_int)(fn.value)(*args)
        if res != 0:
            raise RuntimeError(f"{name}: CUresult {res}")

    def device_count(self):
        count = ctypes.c_int(0)
        self.call("cuDeviceGetCount", ctypes.byref(count))
        return count.value

    def uuid(self, ordinal):
        device, raw = ctypes.c_int(0), (ctypes.c_ubyte * 16)()
        self.call("cuDeviceGet", ctypes.byref(device), ctypes.c_int(ordinal))
        self.call("cuDeviceGetUuid", raw, device)
        return uuid_text(bytes(raw))


def check_renderer(dev, rank, cuda_uuid, whose="CUDA"):
    """Refuse a renderer whose GL does not render on CUDA device `rank`
    (UUID `cuda_uuid`, as `whose` sees it) with
    glcuda.NoMatchingCUDADeviceError: the frames would land on another
    GPU than the rank's model."""
    cuda_uuid = uuid_text(cuda_uuid)
    if dev.cuda_device != rank or dev.device_uuid != cuda_uuid:
        raise refuse(glcuda.NoMatchingCUDADeviceError,
                     f"LOCAL_RANK {rank}: GL renders on {dev.description}, "
                     f"UUID {dev.device_uuid}, CUDA device "
                     f"{dev.cuda_device}; {whose} device {rank} is UUID "
                     f"{cuda_uuid}. Each rank must render on its own CUDA "
                     f"device: give every process the same "
                     f"CUDA_VISIBLE_DEVICES.")


def open_renderer(rank, cuda=None):
    """glcuda.Headless on CUDA device `rank`, checked (check_renderer);
    glcuda.NoDisplayError when CUDA has no device `rank`. `cuda`: what
    answers device_count() and uuid(ordinal) (CUDADriver())."""
    cuda = cuda or CUDADriver()
    count = cuda.device_count()
    if rank >= count:
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        raise refuse(glcuda.NoDisplayError,
                     f"LOCAL_RANK {rank}: CUDA sees {count} device"
                     f"{'' if count == 1 else 's'} (ordinals 0 to "
                     f"{count - 1}"
                     f"{'' if visible is None else ', CUDA_VISIBLE_DEVICES=' + visible}"
                     f"): start at most {count} process"
                     f"{'' if count == 1 else 'es'} per machine "
                     f"(torchrun --nproc-per-node={count}).")
    dev = glcuda.Headless(cuda_device=rank)
    try:
        check_renderer(dev, rank, cuda.uuid(rank))
    except BaseException:
        dev.close()
        raise
    return dev


def describe(dev, rank, global_rank=None, world_size=1):
    """The line a rank prints about its renderer."""
    who = f"rank {rank if global_rank is None else global_rank}/{world_size}"
    return (f"{who} LOCAL_RANK {rank}: {dev.description}; CUDA device "
            f"{dev.cuda_device} ({dev.caps['cuda_device_name']}) UUID "
            f"{dev.device_uuid}")


def parse_size(text):
    w, _, h = text.partition("x")
    return int(w), int(h or w)


def torch_uuid(torch, rank):
    """The UUID of torch's cuda:rank, in uuid.UUID's form."""
    uuid = torch.cuda.get_device_properties(rank).uuid
    raw = getattr(uuid, "bytes", None)
    return uuid_text(raw if raw is not None else uuid)


def train(args, dev, rank, global_rank, world_size):
    import numpy as np
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    from glcuda import gl as glmod

    on_cuda = torch.cuda.is_available()
    if on_cuda:
        torch.cuda.set_device(rank)
        check_renderer(dev, rank, torch_uuid(torch, rank), whose="torch's")
        device = torch.device("cuda", rank)
        dist.init_process_group("nccl")
    else:
        device = torch.device("cpu")
        dist.init_process_group("gloo")
    try:
        (width, height), envs = args.size, args.envs
        gl = glmod.GL()
        scene = glmod.LayeredScene(gl)
        # GL's row order, as the CPU path (glReadPixels) and
        # LayeredScene.expected() give it: the same tensors on both
        # paths, and the same copies as before.
        img = dev.image(width, height, envs, origin="bottom-left")
        host = np.empty((envs, height, width, 4), np.uint8)

        def render(step):
            scene.draw(img.layered_framebuffer, width, height, envs, step)
            if on_cuda:
                # (H, W, 4) for one layer: as (1, H, W, 4).
                return torch.from_dlpack(img).view(envs, height, width, 4)
            for layer in range(envs):
                host[layer] = np.frombuffer(gl.read_pixels(
                    img.framebuffer(layer), width, height, glmod.GL_RGBA,
                    glmod.GL_UNSIGNED_BYTE, 4), np.uint8).reshape(
                        height, width, 4)
            return torch.from_numpy(host)

        classes = min(envs, 16)
        torch.manual_seed(0)
        model = torch.nn.Sequential(
            torch.nn.Conv2d(4, 16, 5, stride=4, padding=2), torch.nn.ReLU(),
            torch.nn.Conv2d(16, 32, 3, stride=2, padding=1), torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
            torch.nn.Linear(32, classes)).to(device)
        model = DistributedDataParallel(
            model, device_ids=[rank] if on_cuda else None)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        labels = (torch.arange(envs, device=device) % classes)

        def step(n):
            frames = render(n).to(device)
            x = frames.permute(0, 3, 1, 2).float().div_(255)
            loss = torch.nn.functional.cross_entropy(model(x), labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            return loss

        first = render(0).cpu().numpy()
        if not np.array_equal(first, glmod.LayeredScene.expected(
                envs, width, height, 0)):
            raise RuntimeError(f"rank {global_rank}: the first frames are "
                               f"not the scene's pixels")
        step(0)  # warm-up: cuDNN's choices, NCCL's first all-reduce
        if on_cuda:
            torch.cuda.synchronize()
        dist.barrier()
        n, start = 0, time.perf_counter()
        while (n < args.steps if args.steps else
               time.perf_counter() - start < args.seconds):
            n += 1
            loss = step(n)
        loss = float(loss) if n else float("nan")
        if on_cuda:
            torch.cuda.synchronize()
        wall = time.perf_counter() - start
        rate = n * envs / wall if wall > 0 else 0.0
        print(f"rank {global_rank}/{world_size} LOCAL_RANK {rank}: {n} steps "
              f"of {envs} frames of {width}x{height} in {wall:.2f} s: "
              f"{rate:.0f} frames/s, loss {loss:.3f}", flush=True)
        total = torch.tensor([rate], dtype=torch.float64, device=device)
        dist.all_reduce(total)
        if global_rank == 0:
            print(f"total: {world_size} ranks {total.item():.0f} frames/s "
                  f"({total.item() / world_size:.0f} a rank)", flush=True)
        img.close()
        scene.close()
    finally:
        dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", type=int, default=256)
    parser.add_argument("--size", type=parse_size, default=(64, 64))
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--steps", type=int, default=0,
                        help="run this many steps instead of --seconds")
    args = parser.parse_args()
    rank = rank_device()
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    global_rank = int(os.environ.get("RANK", str(rank)))
    try:
        dev = open_renderer(rank)
    except glcuda.Error as e:
        print(f"rank {global_rank}/{world_size}: {e}", file=sys.stderr)
        return 1
    with dev:
        print(describe(dev, rank, global_rank, world_size), flush=True)
        if importlib.util.find_spec("torch") is None:
            print("multi_gpu.py trains with torch: install it (with CUDA)",
                  file=sys.stderr)
            return 1
        train(args, dev, rank, global_rank, world_size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
