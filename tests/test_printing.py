"""``repr(tensor)`` against PyTorch's own output for the same values.

Each cygrad tensor is built from the same NumPy array as its PyTorch twin, so the
test checks printing alone. PyTorch names dtypes ``torch.X``; we expect ``cygrad.X``.
"""
import math
import re

import numpy as np
import pytest

import cygrad

torch = pytest.importorskip("torch", reason="PyTorch reference not installed")


@pytest.fixture(autouse=True)
def _default_options():
    yield
    torch.set_printoptions(profile="default")
    cygrad.set_printoptions(profile="default")


def _pair(values, dtype="float32"):
    """(torch tensor, cygrad tensor) holding the same values."""
    if dtype in ("float16", "bfloat16"):
        arr = np.asarray(values, dtype=np.float32)
        return (torch.from_numpy(arr.copy()).to(getattr(torch, dtype)),
                cygrad.from_numpy(arr.copy()).to(getattr(cygrad, dtype)))
    arr = np.asarray(values, dtype=dtype)
    return torch.from_numpy(arr.copy()), cygrad.from_numpy(arr.copy())


def _expected(t):
    return repr(t).replace("torch.", "cygrad.")


def _unwrap_suffixes(s):
    # "cygrad." is one character longer than "torch.", so a dtype suffix right at the
    # line-width limit may wrap in one and not the other; compare those modulo the break.
    return re.sub(r",\s*\n\s*(dtype|requires_grad|grad_fn|size)=", r", \1=", s)


def _set_options(**opts):
    torch.set_printoptions(**opts)
    cygrad.set_printoptions(**opts)


CASES = [
    ("floats", [1.5, 2.0], "float32"),
    ("int-valued floats", [1.0, 2.0, -3.0], "float32"),
    ("ints", [[1, 2], [3, 4]], "int64"),
    ("negative ints", [-10, 5, 123456], "int64"),
    ("bools", [True, False, True], "bool"),
    ("0-dim float", 3.0, "float32"),
    ("0-dim float frac", 3.25, "float32"),
    ("0-dim int", 7, "int64"),
    ("0-dim nan", math.nan, "float32"),
    ("0-dim bool", True, "bool"),
    ("sci big", [1e10, 1.0], "float32"),
    ("sci small", [1e-5, 1.0], "float32"),
    ("sci wide", [0.001, 2.0, 1e3], "float32"),
    ("int-valued large", [1e9, 1.0], "float64"),
    ("int-valued wide range", [1.0, 5000.0], "float32"),
    ("nan inf", [math.nan, math.inf, -math.inf, 1.5], "float32"),
    ("only nan", [math.nan], "float32"),
    ("only inf int-valued", [math.inf, 2.0], "float32"),
    ("zeros", [0.0, 0.0], "float32"),
    ("signed zero", [-0.0, 0.5], "float32"),
    ("rounding up to more digits", [9.99999, 1.0], "float32"),
    ("float64", [1.25, 2.0], "float64"),
    ("float16", [0.1, 0.2, 65504.0], "float16"),
    ("float16 tiny", [1e-5, 1.0], "float16"),
    ("bfloat16", [1.0, 2.5, -3.0], "bfloat16"),
    ("bfloat16 sci", [1e-5, 1.0], "bfloat16"),
    ("int8", [1, -2, 3], "int8"),
    ("uint8", [0, 255], "uint8"),
    ("int16", [300, -300], "int16"),
    ("int32", [[1, 22], [333, 4]], "int32"),
    ("3-d", np.arange(24.0).reshape(2, 3, 4) / 7, "float32"),
    ("4-d int", np.arange(16).reshape(2, 2, 2, 2), "int64"),
    ("wraps rows", np.linspace(-1, 1, 30), "float32"),
    ("wraps long ints", np.arange(40) * 1234567, "int64"),
    ("summarised vector", np.arange(2000.0), "float32"),
    ("summarised matrix", np.arange(5000.0).reshape(50, 100) / 3, "float64"),
    ("summarised 3-d", np.arange(3000).reshape(10, 15, 20), "int32"),
    ("summary hides big values", np.concatenate([np.ones(3), np.full(1000, 1e12), np.ones(3)]), "float32"),
    ("empty 1-d", np.zeros(0), "float32"),
    ("empty 1-d int", np.zeros(0), "int64"),
    ("empty 2-d", np.zeros((0, 3)), "float32"),
    ("empty 3-d float64", np.zeros((2, 0, 1)), "float64"),
    ("empty bool", np.zeros((0,)), "bool"),
    ("size-1 dims", [[[1.5]]], "float32"),
]


@pytest.mark.parametrize("values,dtype", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_repr_matches_torch(values, dtype):
    tt, ct = _pair(values, dtype)
    assert repr(ct) == _expected(tt)
    assert str(ct) == repr(ct)


@pytest.mark.parametrize("opts", [
    dict(precision=2), dict(precision=8), dict(threshold=5), dict(edgeitems=1, threshold=10),
    dict(linewidth=40), dict(linewidth=200), dict(sci_mode=True), dict(sci_mode=False),
    dict(profile="short"), dict(profile="full"), dict(edgeitems=0, threshold=3),
], ids=str)
@pytest.mark.parametrize("values,dtype", [
    (np.linspace(-3, 3, 50).reshape(5, 10), "float32"),
    (np.arange(1200).reshape(30, 40), "int64"),
    (np.array([1e-10, 1.0, 123.0]), "float64"),
    (np.array([1.0, 2.0, 3.0]), "float32"),
    (np.array([0.0, 0.0]), "float32"),
    (np.arange(2000.0), "float32"),
], ids=["grid", "int-matrix", "sci", "int-valued", "zeros", "long"])
def test_print_options_match_torch(opts, values, dtype):
    tt, ct = _pair(values, dtype)
    _set_options(**opts)
    assert _unwrap_suffixes(repr(ct)) == _unwrap_suffixes(_expected(tt))


# Large values cast to float16 overflow to inf on purpose (NumPy warns about the cast).
@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
def test_random_tensors_match_torch():
    rs = np.random.RandomState(1234)
    shapes = [(), (1,), (6,), (0,), (2, 0), (3, 4), (7, 9), (2, 3, 4), (1, 2, 1, 3), (1001,),
              (40, 30), (4, 300), (11, 11, 11)]
    kinds = {
        "normal": lambda n: rs.randn(n),
        "int": lambda n: rs.randint(-50, 50, n).astype(float),
        "big": lambda n: rs.randn(n) * 1e9,
        "tiny": lambda n: rs.randn(n) * 1e-6,
        "wide": lambda n: rs.randn(n) * 10.0 ** rs.randint(-8, 8, n),
        "special": lambda n: rs.choice([np.nan, np.inf, -np.inf, 0.0, 1.5, -2.25], n),
        "round": lambda n: np.round(rs.randn(n) * 100, 1),
    }
    dtypes = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "bool"]
    options = [{}, dict(precision=2), dict(threshold=5), dict(linewidth=50),
               dict(sci_mode=True), dict(sci_mode=False), dict(edgeitems=1, threshold=20)]
    failures = []
    for _ in range(300):
        shape = shapes[rs.randint(len(shapes))]
        kind = list(kinds)[rs.randint(len(kinds))]
        dtype = dtypes[rs.randint(len(dtypes))]
        opts = options[rs.randint(len(options))]
        v = kinds[kind](int(np.prod(shape))).reshape(shape)
        if dtype == "bool":
            v = np.nan_to_num(v) > 0
        elif not dtype.startswith(("float", "bfloat")):
            v = np.clip(np.nan_to_num(v, posinf=0, neginf=0), -100, 100)
        tt, ct = _pair(v, dtype)
        if len(shape) >= 2 and rs.rand() < 0.3:
            tt, ct = tt.transpose(0, 1), ct.transpose(0, 1)
        _set_options(**opts)
        want, got = _unwrap_suffixes(_expected(tt)), _unwrap_suffixes(repr(ct))
        _set_options(profile="default")
        if want != got:
            failures.append((shape, kind, dtype, opts, want, got))
    assert not failures, failures[:3]


def test_requires_grad_suffix():
    tt, ct = _pair([1.0, 2.0])
    tt.requires_grad_(True)
    ct.requires_grad = True
    assert repr(ct) == _expected(tt) == "tensor([1., 2.], requires_grad=True)"
    tt, ct = _pair([1.0, 2.0], "float64")
    tt.requires_grad_(True)
    ct.requires_grad = True
    assert repr(ct) == _expected(tt)


def test_grad_fn_suffix():
    class MulBackward0:
        pass

    class Node:
        def name(self):
            return "MulBackward0"

    x = torch.tensor([1.5, 2.0], requires_grad=True)
    want = _expected(x * 1)
    for node in (MulBackward0(), Node()):
        _, ct = _pair([1.5, 2.0])
        ct._grad_fn = node
        assert repr(ct) == want == "tensor([1.5000, 2.0000], grad_fn=<MulBackward0>)"


def test_grad_fn_suffix_from_autograd():
    x = cygrad.tensor([1.5, 2.0], requires_grad=True)
    tx = torch.tensor([1.5, 2.0], requires_grad=True)
    assert repr(x * 2) == _expected(tx * 2)
    assert repr(x.exp()) == _expected(tx.exp())
    assert repr(x.double()) == _expected(tx.double())


def test_suffix_wraps_past_linewidth():
    # Far from the limit in both libraries: the dtype goes on its own line.
    tt, ct = _pair(np.arange(24).reshape(2, 3, 4) * 10**8, "int32")
    assert "\n       dtype=cygrad.int32)" in repr(ct)
    assert repr(ct) == _expected(tt)


def test_default_dtype_decides_hidden_dtype():
    old = cygrad.get_default_dtype()
    told = torch.get_default_dtype()
    try:
        cygrad.set_default_dtype(cygrad.float64)
        torch.set_default_dtype(torch.float64)
        for dtype in ("float32", "float64"):
            tt, ct = _pair([1.5, 2.0], dtype)
            assert repr(ct) == _expected(tt)
        tt, ct = _pair(np.zeros((0, 2)), "float32")
        assert repr(ct) == _expected(tt)
    finally:
        cygrad.set_default_dtype(old)
        torch.set_default_dtype(told)


def test_get_and_set_printoptions():
    from torch._tensor_str import get_printoptions as torch_get

    assert cygrad.get_printoptions() == torch_get()
    _set_options(precision=3, threshold=50, edgeitems=2, linewidth=60, sci_mode=True)
    assert cygrad.get_printoptions() == torch_get()
    # Like torch, a call without sci_mode resets it to automatic.
    _set_options(precision=5)
    assert cygrad.get_printoptions() == torch_get()
    assert cygrad.get_printoptions()["sci_mode"] is None
    _set_options(profile="full")
    assert cygrad.get_printoptions() == torch_get()
    assert cygrad.get_printoptions()["threshold"] == math.inf


def test_printoptions_context_manager_restores():
    from cygrad._printing import printoptions

    _, ct = _pair([0.123456])
    with printoptions(precision=2):
        assert repr(ct) == "tensor([0.12])"
    assert repr(ct) == "tensor([0.1235])"
    assert cygrad.get_printoptions()["precision"] == 4


def test_views_print_their_own_elements():
    tt, ct = _pair(np.arange(20.0).reshape(4, 5))
    assert repr(ct[1:3, ::2]) == _expected(tt[1:3, ::2])
    assert repr(ct.t()) == _expected(tt.t())
    assert repr(ct[2, 3]) == _expected(tt[2, 3])
