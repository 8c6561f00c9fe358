"""glcuda._profile(): the stages of the export and copy paths, timed
with GLCUDA_PY_PROFILE=1 (read when the module is imported, so each case
runs in a process of its own), and nothing recorded without it."""
import json
import os
import subprocess
import sys

# The child: exports left unconsumed (their capsules' deleters run when
# they drop), exports taken by a consumer the way torch.from_dlpack takes
# them (__dlpack_device__, then __dlpack__ on a stream, the capsule
# renamed, the deleter called), copies to and from a DLPack tensor. It
# prints _profile() after them and again right after (reset).
CHILD = r"""
import ctypes, gc, json, sys
sys.path.insert(0, sys.argv[1])
import glcuda
from fakecuda import DLPackTensor, FakeCUDA, consume

cuda = FakeCUDA()
with glcuda.Headless() as dev:
    img = dev.image(8, 4, 2)
    t = DLPackTensor(cuda, dev.cuda_context, (2, 4, 8, 4), "uint8")
    before = glcuda._profile()
    for _ in range(UNCONSUMED):
        img.__dlpack__(max_version=(1, 0))
    gc.collect()
    for _ in range(CONSUMED):
        assert img.__dlpack_device__() == (2, 0)
        capsule = img.__dlpack__(stream=1, max_version=(1, 0))
        tensor = consume(capsule)
        del capsule
        tensor.deleter(ctypes.pointer(tensor))
    for _ in range(COPIES_TO):
        img.copy_to(t)
    for _ in range(COPIES_FROM):
        img.copy_from(t)
    after = glcuda._profile()
    again = glcuda._profile()
    t.free()
    cuda.settle()
    img.close()
print(json.dumps({"before": before, "after": after, "again": again}))
"""
COUNTS = {"UNCONSUMED": 3, "CONSUMED": 2, "COPIES_TO": 4, "COPIES_FROM": 1}

DLPACK = ["args", "stream", "checks", "lock", "export", "unlock", "capsule",
          "total"]
COPY = ["args", "stream", "checks", "tensor", "layout", "lock", "library",
        "unlock", "release", "total"]


def run(profile):
    env = dict(os.environ)
    env.pop("GLCUDA_PY_PROFILE", None)
    if profile is not None:
        env["GLCUDA_PY_PROFILE"] = profile
    code = CHILD
    for name, n in COUNTS.items():
        code = code.replace(name, str(n))
    tests = os.path.dirname(os.path.abspath(__file__))
    run = subprocess.run([sys.executable, "-c", code, tests], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.splitlines()[-1])


def test_stages_counted():
    result = run("1")
    assert result["before"] == {}
    stages = result["after"]
    exports = COUNTS["UNCONSUMED"] + COUNTS["CONSUMED"]
    expected = {"dlpack." + s: exports for s in DLPACK}
    expected["dlpack_device.total"] = COUNTS["CONSUMED"]
    # Only the capsules no consumer took free their tensor themselves.
    expected["dlpack.capsule_free"] = COUNTS["UNCONSUMED"]
    for s in COPY:
        expected["copy_to." + s] = COUNTS["COPIES_TO"]
        expected["copy_from." + s] = COUNTS["COPIES_FROM"]
    assert {k: v["count"] for k, v in stages.items()} == expected
    for name, v in stages.items():
        assert v["wall_us"] >= 0 and v["cpu_us"] >= 0, name
    # The stages follow one another: together no longer than the call.
    for path, names in (("dlpack", DLPACK), ("copy_to", COPY),
                        ("copy_from", COPY)):
        total = stages[path + ".total"]["wall_us"]
        parts = sum(stages[path + "." + s]["wall_us"] for s in names
                    if s != "total")
        assert 0 < parts <= total + 1e-3, path
    # Taken, the table starts again.
    assert result["again"] == {}


def test_off_without_the_variable():
    for value in (None, "0"):
        result = run(value)
        assert result == {"before": None, "after": None, "again": None}
