"""``masked_fill`` and ``where`` with a Python number on the emulated GPU in strict
mode: the number is the kernel's argument (``cg_masked_fill_<dtype>_strided`` in
cuda_src/elementwise_math.cu), one launch where a 0-d tensor was filled first.
Values and dtypes against PyTorch and the CPU run, every dtype family, broadcast
and strided operands, uint8 masks, in place and not, gradients."""
import os
import sys

import numpy as np
import pytest

import cygrad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emulated_gpu import emulated, launched as _launched, needs_cxx  # noqa: E402,F401

torch = pytest.importorskip("torch", reason="PyTorch is the reference for the values")
pytestmark = needs_cxx

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool", "complex64", "complex128"]
# (complex tensors take real numbers here: a complex number is refused before the device
# is reached, on the CPU too)
VALUES = {"f": [-np.inf, np.nan, 2.5, -0.0], "i": [3, -7, 2.9], "b": [True, False, 1],
          "c": [3.5, -1.0]}


@pytest.fixture
def launched(emulated, monkeypatch):
    return _launched(emulated, monkeypatch)


def _kind(name):
    return "b" if name == "bool" else "c" if name.startswith("complex") else \
        "f" if name.startswith(("float", "bfloat")) else "i"


def _data(name, shape, rng):
    t = torch.tensor(rng.standard_normal(shape) * 5).to(getattr(torch, name)) if _kind(name) != "b" \
        else torch.tensor(rng.standard_normal(shape) > 0)
    return t


def _same(got, want):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape)
    g = torch.from_numpy(got.cpu().float().numpy() if got.dtype in (cygrad.float16, cygrad.bfloat16)
                         else got.cpu().numpy())
    w = want.float() if want.dtype in (torch.float16, torch.bfloat16) else want
    assert torch.equal(g.isnan(), w.isnan()) if w.is_floating_point() or w.is_complex() else True
    torch.testing.assert_close(g, w, rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("name", DTYPES)
def test_masked_fill_with_a_number_is_one_launch_equal_to_pytorch(launched, name):
    rng = np.random.default_rng(DTYPES.index(name))
    base = _data(name, (4, 6), rng)
    mask = torch.tensor(rng.standard_normal((4, 1)) > 0) | torch.tensor(rng.standard_normal(6) > 1)
    for value in VALUES[_kind(name)]:
        x = cygrad.tensor(base.numpy() if name != "bfloat16" else base.float().numpy(),
                          dtype=getattr(cygrad, name), device="cuda")
        m = cygrad.tensor(mask.numpy(), device="cuda")
        del launched[:]
        got = x.masked_fill(m, value)
        # the input copied into the result, then the one masked launch (no fill of a 0-d tensor)
        assert launched[-1] == f"cg_masked_fill_{_sfx(name)}_strided", launched
        assert not [n for n in launched if n.startswith("cg_fill")], launched
        _same(got, base.masked_fill(mask, value))
        del launched[:]
        x.masked_fill_(m, value)                           # in place: the one launch
        assert launched == [f"cg_masked_fill_{_sfx(name)}_strided"]
        _same(x, base.masked_fill(mask, value))


def _sfx(name):
    return {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
            "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8",
            "bool": "b8", "complex64": "c64", "complex128": "c128"}[name]


def test_strided_out_uint8_mask_and_a_cpu_scalar_value(launched):
    rng = np.random.default_rng(7)
    base = torch.tensor(rng.standard_normal((6, 8)))
    mask = torch.tensor(rng.integers(0, 3, (8,)), dtype=torch.uint8)
    want = base.clone()
    want.t()[:, ::2][mask.bool()[:, None].expand(8, 3)] = -1.5
    x = cygrad.tensor(base.numpy(), device="cuda")
    view = x.t()[:, ::2]                                   # (8, 3), strided both ways
    assert not view.is_contiguous()
    m = cygrad.tensor(mask.numpy(), device="cuda")[:, None]
    del launched[:]
    view.masked_fill_(m.bool(), -1.5)
    assert launched[-1] == "cg_masked_fill_f64_strided"
    np.testing.assert_array_equal(x.cpu().numpy(), want.numpy())
    # a 0-d CPU tensor as the value: its number, the same one launch
    y = cygrad.tensor(base.numpy(), device="cuda")
    del launched[:]
    y.masked_fill_(cygrad.tensor(rng.standard_normal((6, 8)) > 0, device="cuda"), cygrad.tensor(4.0))
    assert launched == ["cg_masked_fill_f64_strided"]
    # a 0-d CUDA tensor as the value: assigned from the device, no read
    z = cygrad.tensor(base.numpy(), device="cuda")
    v = cygrad.tensor(4.0, dtype=cygrad.float64, device="cuda")
    del launched[:]
    z.masked_fill_(cygrad.tensor(rng.standard_normal((6, 8)) > 0, device="cuda"), v)
    assert launched == ["cg_masked_assign_i64_strided"]


@pytest.mark.parametrize("name", ["float32", "float64", "int64", "bool"])
def test_where_with_numbers_on_either_side(launched, name):
    rng = np.random.default_rng(11)
    base = _data(name, (5, 4), rng)
    cond = torch.tensor(rng.standard_normal((5, 4)) > 0)
    c = cygrad.tensor(cond.numpy(), device="cuda")
    x = cygrad.tensor(base.numpy(), device="cuda")
    number = {"f": -np.inf, "i": 3, "b": True}[_kind(name)]
    del launched[:]
    got = cygrad.where(c, number, x)
    assert "cg_masked_fill_" + _sfx(name) + "_strided" in launched
    assert not [n for n in launched if n.startswith("cg_fill")], launched     # no 0-d tensor
    _same(got, torch.where(cond, torch.tensor(number, dtype=base.dtype), base))
    _same(cygrad.where(c, x, number), torch.where(cond, base, torch.tensor(number, dtype=base.dtype)))


def test_gradients_through_masked_fill_match_the_cpu():
    rng = np.random.default_rng(3)
    data = rng.standard_normal((4, 5, 5))
    mask = np.triu(np.ones((5, 5), bool), 1)
    grads = []
    for device in ("cpu", "cuda"):
        x = cygrad.tensor(data, device=device, requires_grad=True)
        att = x.masked_fill(cygrad.tensor(mask, device=device), float("-inf")).softmax(-1)
        (att * att).sum().backward()
        grads.append((att.detach().cpu().numpy(), x.grad.cpu().numpy()))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-12, atol=1e-15)
    assert (grads[1][1][:, mask] == 0).all()
