#!/usr/bin/env python3
"""The Python benchmark of doc/performance.md: batch_render.py's paths at
the sizes users run, and the CPU cost of one torch.from_dlpack(img).

    python3 bench_sizes.py [--seconds 2]

Prints a Markdown table: steps per second, camera frames per second and
CPU time per step for each path (glcuda's copy_to and from_dlpack, the
readback through glReadPixels, the legacy registration), and glcuda's
ratio to the readback and to the legacy path. Then the CPU time of
torch.from_dlpack(img) alone (the image not redrawn), whose Python part
is the module's conversion and capsule.
"""
import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import batch_render  # noqa: E402

import glcuda  # noqa: E402
from glcuda import gl as glmod  # noqa: E402

SIZES = [(256, 128, 128), (64, 512, 512), (1, 1920, 1080), (2048, 64, 64)]
PATHS = ["glcuda", "dlpack", "readback", "legacy"]


def from_dlpack_cost(dev, n=5000):
    # GL's row order: the same export as the tables before.
    img = dev.image(64, 64, 16, origin="bottom-left")
    for _ in range(100):
        torch.from_dlpack(img)
    torch.cuda.synchronize()
    cpu = time.process_time()
    for _ in range(n):
        torch.from_dlpack(img)
    cpu = (time.process_time() - cpu) / n * 1e6
    start = time.process_time()
    for _ in range(n):
        img.__dlpack__(stream=1, max_version=(1, 0))
    capsule = (time.process_time() - start) / n * 1e6
    torch.cuda.synchronize()
    img.close()
    return cpu, capsule


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    with glcuda.Headless() as dev:
        gl = glmod.GL()
        scene = glmod.LayeredScene(gl)
        print(f"{dev.caps['gl_renderer']}, sync mode "
              f"{dev.caps['sync_mode']}, torch {torch.__version__}\n")
        print("| size | path | steps/s | frames/s | CPU µs/step | pixels |")
        print("|---|---|--:|--:|--:|---|")
        ratios = []
        for envs, w, h in SIZES:
            rate = {}
            for path in PATHS:
                r, cpu, exact = batch_render.run_path(
                    path, dev, gl, scene, envs, w, h, args.seconds)
                rate[path] = r
                print(f"| {envs} x {w}x{h} | {path} | {r:.1f} | "
                      f"{r * envs:.0f} | {cpu:.1f} | "
                      f"{'exact' if exact else 'WRONG'} |", flush=True)
            ratios.append((envs, w, h, rate["glcuda"] / rate["readback"],
                           rate["glcuda"] / rate["legacy"]))
        print("\n| size | glcuda / readback | glcuda / legacy |")
        print("|---|--:|--:|")
        for envs, w, h, to_readback, to_legacy in ratios:
            print(f"| {envs} x {w}x{h} | {to_readback:.1f}x | "
                  f"{to_legacy:.2f}x |")
        cpu, capsule = from_dlpack_cost(dev)
        print(f"\ntorch.from_dlpack(img): {cpu:.1f} µs of CPU a call; "
              f"img.__dlpack__() alone {capsule:.1f} µs")
        scene.close()


if __name__ == "__main__":
    main()
