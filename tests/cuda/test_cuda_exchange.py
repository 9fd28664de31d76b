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
