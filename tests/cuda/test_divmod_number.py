"""``floor_divide``, ``remainder`` and ``fmod`` of a tensor by a Python number on the
emulated GPU in strict mode: the number is the kernel's argument
(``cg_<op>_<dtype>_number``), one launch where a 0-d tensor was filled first. An
integer divisor of 0 and a number divided by a tensor take the checked kernels as
before. Values and dtypes against PyTorch."""
import os
import sys

import numpy as np
import pytest

import cygrad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emulated_gpu import emulated, launched as _launched, needs_cxx  # noqa: E402,F401

torch = pytest.importorskip("torch", reason="PyTorch is the reference for the values")
pytestmark = needs_cxx

SFX = {"float32": "f32", "float64": "f64", "float16": "f16", "int64": "i64", "int32": "i32",
       "int8": "i8", "uint8": "u8"}
OPS = {"floor_divide": lambda x, v: x // v, "remainder": lambda x, v: x % v,
       "fmod": lambda x, v: x.fmod(v)}


@pytest.fixture
def launched(emulated, monkeypatch):
    return _launched(emulated, monkeypatch)


def _pair(name, rng):
    data = rng.standard_normal((5, 7)) * 20
    want = torch.tensor(data).to(getattr(torch, name))
    return cygrad.tensor(want.float().numpy() if name == "float16" else want.numpy(),
                         dtype=getattr(cygrad, name), device="cuda"), want


def _check(got, want):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    g = got.cpu()
    g = torch.from_numpy(g.float().numpy() if got.dtype is cygrad.float16 else g.numpy())
    torch.testing.assert_close(g, want.float() if want.dtype is torch.float16 else want,
                               rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("name", list(SFX))
def test_a_tensor_by_a_number_is_one_launch_equal_to_pytorch(launched, op, name):
    rng = np.random.default_rng(len(op) * 10 + list(SFX).index(name))
    x, want = _pair(name, rng)
    divisors = [3, -4, 7] if name in ("int8", "uint8") else [3, -4, 2.5, -0.75]
    if name.startswith("float"):
        divisors.append(0)                            # inf/NaN, no error
    for v in divisors:
        del launched[:]
        got = OPS[op](x, v)
        promoted = isinstance(v, float) and not name.startswith("float")
        ct = "float32" if promoted else name
        assert launched[-1] == f"cg_{op}_{SFX[ct]}_number", launched
        assert not [n for n in launched if n.startswith("cg_fill")], launched
        _check(got, OPS[op](want, v))
    # strided and in place: the same kernel through the operand's strides
    view = x.t()[::2]
    del launched[:]
    _check(OPS[op](view, 3), OPS[op](want.t()[::2], 3))
    assert launched == [f"cg_{op}_{SFX[name]}_number"]
    getattr(x, op + "_")(3)
    _check(x, OPS[op](want, 3))


@pytest.mark.parametrize("op", list(OPS))
def test_the_checked_kernels_stay_for_zero_and_a_number_dividend(launched, op):
    x = cygrad.tensor([[7, -8, 9], [1, 0, -3]], device="cuda")
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        OPS[op](x, 0)
    assert f"cg_{op}_i64_number" not in launched
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):     # 5 // 0 inside x
        {"floor_divide": lambda: 5 // x, "remainder": lambda: 5 % x,
         "fmod": lambda: cygrad.fmod(cygrad.tensor(5, device="cuda"), x)}[op]()
    nz = cygrad.tensor([[7, -8, 9], [1, 2, -3]], device="cuda")
    want = torch.tensor([[7, -8, 9], [1, 2, -3]])
    del launched[:]
    got = {"floor_divide": lambda t: 5 // t, "remainder": lambda t: 5 % t,
           "fmod": lambda t: torch.fmod(torch.tensor(5), t) if isinstance(t, torch.Tensor)
           else cygrad.fmod(cygrad.tensor(5, device="cuda"), t)}[op]
    _check(got(nz), got(want))
    assert not [n for n in launched if n.endswith("_number")], launched
