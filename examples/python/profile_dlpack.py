#!/usr/bin/env python3
"""Where the CPU of img.__dlpack__(), torch.from_dlpack(img) and
img.copy_to(t) goes: per-call CPU time and the module's own stages.

    python3 profile_dlpack.py [--calls 2000] [--only dlpack,from_dlpack,copy_to]
                              [--no-profile] [--dry-run]

For each size (1 x 1920x1080, 256 x 128x128, 2048 x 64x64 RGBA8) and
each call: the CPU time a call (time.thread_time, the image not redrawn),
then, from glcuda._profile() (GLCUDA_PY_PROFILE=1, which this script sets
unless --no-profile), each stage's CPU and wall time a call: the
arguments, the stream, the checks, the GIL released and the device's lock
taken, the C library's export or copy, the GIL taken back, the capsule;
for torch.from_dlpack, what remains outside glcuda's module (torch's
current stream, its __dlpack_device__ call and its capsule import).

The profile reads two clocks at each stage (CLOCK_THREAD_CPUTIME_ID is a
system call): run with --no-profile too, and compare the per-call times,
to see its own cost.

--dry-run: __dlpack__ alone, small images, without torch (the fake CUDA
driver of make check runs it).

Under perf (the C library's and the drivers' symbols; Python 3.12's
-X perf names the Python frames too):

    perf record -g -o perf.data -- python3 -X perf profile_dlpack.py --only dlpack
    perf report -i perf.data --no-children --sort dso,sym
"""
import argparse
import os
import shutil
import sys
import time

SIZES = [(1, 1920, 1080), (256, 128, 128), (2048, 64, 64)]
DRY_SIZES = [(1, 64, 32), (4, 16, 16)]
CALLS = ["dlpack", "from_dlpack", "copy_to"]


def per_call_cpu(fn, n):
    """CPU seconds of this thread a call, in µs, after a warm-up."""
    for _ in range(min(n, 50)):
        fn()
    start = time.thread_time()
    for _ in range(n):
        fn()
    return (time.thread_time() - start) / n * 1e6


def stages(glcuda, prefixes):
    """The profile's stages of these paths, per call, in order."""
    table = glcuda._profile() or {}
    rows = []
    for name, v in table.items():
        if name.split(".")[0] in prefixes and v["count"]:
            rows.append((name, v["count"], v["cpu_us"] / v["count"],
                         v["wall_us"] / v["count"]))
    return rows


def report(label, cpu, rows, calls):
    print(f"{label}: {cpu:.1f} µs of CPU a call")
    if not rows:
        return
    print("| stage | calls | CPU µs/call | wall µs/call |")
    print("|---|--:|--:|--:|")
    for name, count, c, w in rows:
        # Per call of the timed function: a stage that ran once a call
        # (every one but the capsules' frees, which follow the consumer).
        scale = count / calls
        print(f"| {name} | {count} | {c * scale:.2f} | {w * scale:.2f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--only", default=",".join(CALLS))
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args()
    only = args.only.split(",")
    if not args.no_profile:
        # Read when the module is imported: before the import.
        os.environ["GLCUDA_PY_PROFILE"] = "1"
    import glcuda
    torch = None
    if not args.dry_run:
        import torch

    with glcuda.Headless() as dev:
        print(f"{dev.caps['gl_renderer']}, sync mode "
              f"{dev.caps['sync_mode']}, profile "
              f"{'off' if glcuda._profile() is None else 'on'}"
              + (f", torch {torch.__version__}" if torch else ""))
        if shutil.which("perf"):
            print("perf is installed: perf record -g -o perf.data -- "
                  f"{sys.executable} -X perf {' '.join(sys.argv)}; "
                  "perf report -i perf.data --no-children --sort dso,sym")
        else:
            print("perf is not installed here")
        n = args.calls
        for layers, w, h in DRY_SIZES if args.dry_run else SIZES:
            print(f"\n## {layers} x {w}x{h}\n")
            img = dev.image(w, h, layers)
            if "dlpack" in only:
                glcuda._profile()
                cpu = per_call_cpu(lambda: img.__dlpack__(
                    stream=1, max_version=(1, 0)), n)
                glcuda._profile()
                # Again without the warm-up, for the stages alone.
                for _ in range(n):
                    img.__dlpack__(stream=1, max_version=(1, 0))
                report("img.__dlpack__()", cpu,
                       stages(glcuda, {"dlpack"}), n)
            if torch is not None and "from_dlpack" in only:
                cpu = per_call_cpu(lambda: torch.from_dlpack(img), n)
                glcuda._profile()
                start = time.thread_time()
                for _ in range(n):
                    torch.from_dlpack(img)
                whole = (time.thread_time() - start) / n * 1e6
                rows = stages(glcuda, {"dlpack", "dlpack_device"})
                report("torch.from_dlpack(img)", cpu, rows, n)
                ours = sum(c * count / n for name, count, c, _ in rows
                           if name.endswith(".total"))
                if rows:
                    print(f"outside glcuda's module (torch): "
                          f"{whole - ours:.1f} µs of CPU a call")
            if torch is not None and "copy_to" in only:
                t = torch.empty_like(torch.from_dlpack(img))
                cpu = per_call_cpu(lambda: img.copy_to(t), n)
                glcuda._profile()
                for _ in range(n):
                    img.copy_to(t)
                report("img.copy_to(t)", cpu,
                       stages(glcuda, {"copy_to"}), n)
            if torch is not None:
                torch.cuda.synchronize()
            img.close()


if __name__ == "__main__":
    main()
