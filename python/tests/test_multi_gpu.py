"""One renderer per GPU (examples/python/multi_gpu.py): the binding of a
rank to its CUDA device, without torch or torch.distributed. The fake CUDA
driver has one device, 0, whose UUID is GL's (GLCUDA_FAKE_CUDA_UUID, read
at each call: changing it after a device is open makes CUDA's device 0
another GPU than GL's)."""
import importlib.util
import os
import pathlib
import sys
import uuid

import pytest

import glcuda

EXAMPLE = (pathlib.Path(__file__).resolve().parents[2] / "examples" /
           "python" / "multi_gpu.py")
OTHER_UUID = "0123abcd-0000-4000-8000-0123456789ab"


@pytest.fixture(scope="module")
def mg():
    had_torch = "torch" in sys.modules
    spec = importlib.util.spec_from_file_location("multi_gpu", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # The binding is importable where torch is not installed.
    assert had_torch or "torch" not in sys.modules
    return module


def fake_uuid():
    return str(uuid.UUID(os.environ["GLCUDA_FAKE_CUDA_UUID"]))


class Devices:
    """CUDA as the binding asks it: `count` devices, device 0 the fake's,
    the others UUIDs of their own (or every one `uuid`)."""

    def __init__(self, count, uuid=None):
        self.count, self.fixed = count, uuid

    def device_count(self):
        return self.count

    def uuid(self, ordinal):
        if self.fixed:
            return self.fixed
        if ordinal == 0:
            return fake_uuid()
        return f"{ordinal:08x}-0000-4000-8000-000000000000"


def test_rank_device_is_local_rank(mg):
    assert mg.rank_device({"LOCAL_RANK": "3", "RANK": "11",
                           "WORLD_SIZE": "16"}) == 3
    assert mg.rank_device({"LOCAL_RANK": "1", "RANK": "0"}) == 1
    for bad in ("-1", "one"):
        with pytest.raises(ValueError, match="LOCAL_RANK"):
            mg.rank_device({"LOCAL_RANK": bad})


def test_rank_device_defaults_to_0(mg):
    assert mg.rank_device({}) == 0
    assert mg.rank_device({"RANK": "5", "WORLD_SIZE": "8"}) == 0
    assert mg.rank_device({"LOCAL_RANK": ""}) == 0


def test_open_renderer_on_local_rank(mg, monkeypatch):
    monkeypatch.delenv("LOCAL_RANK", raising=False)
    rank = mg.rank_device()
    with mg.open_renderer(rank, mg.CUDADriver()) as dev:
        assert rank == 0 == dev.cuda_device
        assert dev.device_uuid == fake_uuid()


def test_open_renderer_asks_for_rank_device(mg):
    # CUDA said to have two devices: rank 1's Headless is CUDA device 1's,
    # which glcuda does not find on the fake (rather than device 0's).
    with pytest.raises(glcuda.NoDisplayError) as info:
        mg.open_renderer(1, Devices(2))
    assert "CUDA device 1" in info.value.message


def test_uuid_shown(mg):
    with mg.open_renderer(0, mg.CUDADriver()) as dev:
        assert dev.device_uuid == fake_uuid() == mg.CUDADriver().uuid(0)
        line = mg.describe(dev, 0, 2, 4)
        description = dev.description
    assert line.startswith(f"rank 2/4 LOCAL_RANK 0: {description}; ")
    assert f"UUID {fake_uuid()}" in line
    assert "CUDA device 0 (glcuda fake CUDA device)" in line
    assert "EGL device" in line or "surfaceless" in line


def test_uuid_text_forms(mg):
    u = fake_uuid()
    assert mg.uuid_text(uuid.UUID(u).bytes) == u
    assert mg.uuid_text(list(uuid.UUID(u).bytes)) == u
    assert mg.uuid_text("GPU-" + u.upper()) == u


def test_mismatch_refused(mg, monkeypatch, dev):
    # CUDA's device 0 is now another GPU than the one GL renders on.
    monkeypatch.setenv("GLCUDA_FAKE_CUDA_UUID", OTHER_UUID)
    with pytest.raises(glcuda.NoMatchingCUDADeviceError) as info:
        mg.check_renderer(dev, 0, mg.CUDADriver().uuid(0))
    error = info.value
    assert isinstance(error, glcuda.Error)
    assert error.name == "GLCUDA_ERROR_NO_MATCHING_CUDA_DEVICE"
    assert error.code == -1001
    assert OTHER_UUID in error.message and dev.device_uuid in error.message
    assert str(error) == f"{error.name}: {error.message}"


def test_mismatch_of_ordinal_refused(mg, dev):
    # The right UUID, but GL renders on CUDA device 0, not the rank's 1.
    with pytest.raises(glcuda.NoMatchingCUDADeviceError,
                       match="LOCAL_RANK 1: GL renders on"):
        mg.check_renderer(dev, 1, dev.device_uuid)


def test_open_renderer_mismatch_closes(mg, monkeypatch):
    opened, headless = [], glcuda.Headless

    def record(*args, **kwargs):
        opened.append(headless(*args, **kwargs))
        return opened[-1]

    monkeypatch.setattr(glcuda, "Headless", record)
    with pytest.raises(glcuda.NoMatchingCUDADeviceError, match=OTHER_UUID):
        mg.open_renderer(0, Devices(1, OTHER_UUID))
    assert len(opened) == 1 and opened[0].closed


def test_rank_beyond_device_count_refused(mg, monkeypatch):
    monkeypatch.setenv("LOCAL_RANK", "1")
    with pytest.raises(glcuda.NoDisplayError) as info:
        mg.open_renderer(mg.rank_device(), mg.CUDADriver())
    error = info.value
    assert error.name == "GLCUDA_ERROR_NO_DISPLAY"
    assert error.message.startswith("LOCAL_RANK 1: CUDA sees 1 device ")
    assert "--nproc-per-node=1" in error.message
