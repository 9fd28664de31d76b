"""CUDA tensors leaving and entering cygrad: save/load with map_location,
Tensor.record_stream and __cuda_array_interface__ (emulated GPU)."""
import io
import os
import subprocess
import sys

import numpy as np
import pytest

import cygrad
from cygrad import nn
from cygrad.cuda import _runtime
from cygrad.cuda._driver import signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import installed  # noqa: E402

pytestmark = pytest.mark.skipif(signature.find_cxx() is None,
                                reason="the emulated CUDA driver needs a host C++ compiler")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module", autouse=True)
def emulated():
    from cygrad.cuda._driver.emulated import EmulatedDriver
    with installed(EmulatedDriver(memory=256 << 20, strict=True)) as d:
        yield d


def saved(obj):
    buf = io.BytesIO()
    cygrad.save(obj, buf)
    return buf.getvalue()


def test_save_load_restores_the_device_and_shared_storage():
    base = cygrad.tensor(np.arange(12.0).reshape(3, 4)).cuda()
    view = base.t()[1:]                               # a strided view of the same storage
    cpu = cygrad.tensor([1, 2, 3])
    out = cygrad.load(io.BytesIO(saved({"base": base, "view": view, "cpu": cpu})))
    assert str(out["base"].device) == "cuda:0" and str(out["view"].device) == "cuda:0"
    assert out["cpu"].device.type == "cpu"
    np.testing.assert_array_equal(out["base"].cpu().numpy(), np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(out["view"].cpu().numpy(), np.arange(12.0).reshape(3, 4).T[1:])
    assert out["view"].untyped_storage().data_ptr() == out["base"].untyped_storage().data_ptr()
    out["base"].fill_(7.0)                            # one storage on the device: the view sees it
    assert out["view"].cpu().numpy().tolist() == [[7.0] * 3] * 3


@pytest.mark.parametrize("where", ["cpu", cygrad.device("cpu"), {"cuda:0": "cpu"}])
def test_map_location_moves_cuda_tensors_to_the_cpu(where):
    data = saved([cygrad.tensor([1.5, 2.5]).cuda()])
    (t,) = cygrad.load(io.BytesIO(data), map_location=where)
    assert t.device.type == "cpu" and t.tolist() == [1.5, 2.5]


def test_map_location_to_cuda_and_callable_sees_the_location():
    seen = []

    def where(storage, location):
        seen.append((location, storage.device.type))
        return None
    out = cygrad.load(io.BytesIO(saved([cygrad.ones(2).cuda(), cygrad.zeros(2)])), map_location=where)
    assert sorted(seen) == [("cpu", "cpu"), ("cuda:0", "cpu")]
    assert [str(t.device) for t in out] == ["cuda:0", "cpu"]
    out = cygrad.load(io.BytesIO(saved([cygrad.zeros(2)])), map_location="cuda")
    assert str(out[0].device) == "cuda:0"


def test_module_state_dict_from_cuda_loads_into_a_cpu_module():
    cygrad.manual_seed(0)
    gpu = nn.Linear(5, 3).to("cuda")
    state = cygrad.load(io.BytesIO(saved(gpu.state_dict())), map_location="cpu")
    cpu = nn.Linear(5, 3)
    cpu.load_state_dict(state)
    np.testing.assert_array_equal(cpu.weight.detach().numpy(), gpu.weight.detach().cpu().numpy())


def test_loading_cuda_tensors_without_cuda_names_map_location(tmp_path):
    path = tmp_path / "gpu.pt"
    path.write_bytes(saved({"w": cygrad.ones(3).cuda()}))
    code = ("import cygrad\ntry:\n    cygrad.load(%r)\nexcept RuntimeError as e:\n    print(e)\n"
            "print(cygrad.load(%r, map_location='cpu')['w'].tolist())" % (str(path), str(path)))
    env = {k: v for k, v in os.environ.items() if k != "CYGRAD_CUDA"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.strip().splitlines()
    assert "saved on cuda:0" in first and "map_location='cpu'" in first
    assert second == "[1.0, 1.0, 1.0]"


def test_record_stream_holds_memory_until_the_other_stream_is_done():
    side = cygrad.cuda.Stream()
    x = cygrad.empty(1000, device="cuda")
    x.record_stream(side)
    alloc = _runtime.allocator(0)
    del x                                              # freed, but an event on `side` guards it
    assert len(alloc._pending) == 1
    side.synchronize()
    cygrad.empty(1000, device="cuda")                  # the next allocation collects it
    assert alloc._pending == []
    with pytest.raises(RuntimeError, match="expected a CUDA tensor"):
        cygrad.ones(2).record_stream(side)
    with pytest.raises(TypeError, match="must be a cygrad.cuda.Stream"):
        cygrad.ones(2, device="cuda").record_stream("default")


def test_cuda_array_interface(monkeypatch, emulated):
    t = cygrad.tensor(np.arange(6, dtype=np.float32).reshape(2, 3)).cuda()
    assert not hasattr(cygrad.ones(2), "__cuda_array_interface__")
    assert not hasattr(t, "__cuda_array_interface__")      # emulated memory is not CUDA memory
    # the dict a real GPU's driver gives (the emulator posing as PyCUDA)
    monkeypatch.setattr(type(emulated), "name", "pycuda")
    cai = t.__cuda_array_interface__
    assert cai == {"typestr": "<f4", "shape": (2, 3), "strides": None, "data": (t.data_ptr(), False),
                   "version": 3, "stream": 1}
    tt = t.t()
    assert tt.__cuda_array_interface__["strides"] == (4, 12)
    with pytest.raises(RuntimeError, match="requires grad"):
        t.clone().requires_grad_().__cuda_array_interface__


def test_from_dlpack_of_a_cuda_tensor_shares_its_memory():
    x = cygrad.tensor([1.0, 2.0, 3.0]).cuda()
    y = cygrad.from_dlpack(x)
    assert str(y.device) == "cuda:0"
    y.fill_(5.0)
    assert x.cpu().tolist() == [5.0, 5.0, 5.0]
    assert cygrad.from_dlpack(x, copy=True).data_ptr() != x.data_ptr()


def test_dlpack_export_from_the_emulator_only_as_a_host_copy():
    x = cygrad.tensor([1.0, 2.0]).cuda()
    assert x.__dlpack_device__()[0] == 2                      # kDLCUDA
    with pytest.raises(BufferError, match="emulated GPU"):
        x.__dlpack__()
    with pytest.raises(BufferError, match="emulated GPU"):
        np.from_dlpack(x)
    host = cygrad.from_dlpack(x.__dlpack__(dl_device=(1, 0)))
    assert host.device.type == "cpu" and host.tolist() == [1.0, 2.0]


def test_a_cuda_capsule_of_device_memory_imports_without_a_copy(monkeypatch, emulated):
    x = cygrad.tensor(np.arange(6.0).reshape(2, 3)).cuda()
    monkeypatch.setattr(type(emulated), "name", "pycuda")     # export as a real GPU would
    capsule = x.t().__dlpack__(max_version=(1, 0))
    monkeypatch.undo()
    y = cygrad.from_dlpack(capsule)                            # the range is the emulator's own
    assert str(y.device) == "cuda:0" and y.shape == (3, 2) and y.stride() == (1, 3)
    np.testing.assert_array_equal(y.cpu().numpy(), np.arange(6.0).reshape(2, 3).T)
    y.fill_(1.0)
    assert x.cpu().numpy().tolist() == [[1.0] * 3] * 2


def test_pycuda_driver_accepts_registered_external_memory(monkeypatch):
    import fake_pycuda
    from cygrad.cuda._driver.pycuda_driver import PyCudaDriver
    fake_pycuda.install(monkeypatch)
    d = PyCudaDriver()
    foreign = 0x5555_0000_0000
    assert d._device_pointer(foreign + 8) is None
    d.register_external(foreign, 64)
    d.register_external(foreign, 64)                           # two imports of one buffer
    assert d._device_pointer(foreign + 8) == foreign + 8
    assert d._device_pointer(foreign + 65) is None
    d.unregister_external(foreign)
    assert d._device_pointer(foreign) == foreign               # one import still holds it
    d.unregister_external(foreign)
    assert d._device_pointer(foreign) is None
