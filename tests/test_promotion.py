"""Type promotion: ``cygrad.result_type``, ``promote_types``, ``can_cast`` and the dtype
elementwise ops actually produce, for every pair of the 10 dtypes and for
tensor/0-dim/Python-scalar operands, against ``torch.result_type`` (when torch is
installed) and against hand-written expectations from PyTorch's documented rules."""
import itertools

import pytest

import cygrad

DTYPE_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
               "float32", "float64"]
SCALARS = [True, 3, 2.5, -1]


def cy_dtype(name):
    return getattr(cygrad, name)


def cy_operand(kind, name):
    """A cygrad operand: "tensor" (shape (2,)), "0d" tensor, or a Python scalar."""
    if kind == "tensor":
        return cygrad.ones(2, dtype=cy_dtype(name))
    return cygrad.ones((), dtype=cy_dtype(name))


def _torch():
    return pytest.importorskip("torch", reason="PyTorch reference not installed")


def torch_operand(torch, kind, name):
    dt = getattr(torch, name)
    return torch.ones(2, dtype=dt) if kind == "tensor" else torch.ones((), dtype=dt)


def _result_op(a, b):
    """An op defined for every dtype pair whose result dtype is the promoted dtype."""
    return a * b


# ---------------------------------------------------------------------------
# against torch, every pair
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("kinds", [("tensor", "tensor"), ("tensor", "0d"), ("0d", "tensor"), ("0d", "0d")],
                         ids=lambda k: "-".join(k))
@pytest.mark.parametrize("lhs", DTYPE_NAMES)
def test_result_type_pairs_vs_torch(lhs, kinds):
    torch = _torch()
    bad = []
    for rhs in DTYPE_NAMES:
        a, b = cy_operand(kinds[0], lhs), cy_operand(kinds[1], rhs)
        ta, tb = torch_operand(torch, kinds[0], lhs), torch_operand(torch, kinds[1], rhs)
        want = str(torch.result_type(ta, tb)).replace("torch.", "")
        got = cygrad.result_type(a, b).name
        op_got = _result_op(a, b).dtype.name
        op_want = str(_result_op(ta, tb).dtype).replace("torch.", "")
        if (got, op_got) != (want, op_want):
            bad.append(f"{lhs}({kinds[0]}) * {rhs}({kinds[1]}): result_type {got} / op {op_got}, "
                       f"torch {want} / {op_want}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("scalar", SCALARS, ids=lambda s: f"{type(s).__name__}{s}")
@pytest.mark.parametrize("kind", ["tensor", "0d"])
def test_result_type_with_python_scalar_vs_torch(kind, scalar):
    torch = _torch()
    bad = []
    for name in DTYPE_NAMES:
        a, ta = cy_operand(kind, name), torch_operand(torch, kind, name)
        for order in ("tensor_first", "scalar_first"):
            args, targs = ((a, scalar), (ta, scalar)) if order == "tensor_first" else ((scalar, a), (scalar, ta))
            want = str(torch.result_type(*targs)).replace("torch.", "")
            got = cygrad.result_type(*args).name
            op_want = str(_result_op(*targs).dtype).replace("torch.", "")
            op_got = _result_op(*args).dtype.name
            if (got, op_got) != (want, op_want):
                bad.append(f"{name}({kind}) {order} {scalar!r}: {got}/{op_got}, torch {want}/{op_want}")
    assert not bad, "\n".join(bad)


def test_promote_types_and_can_cast_vs_torch():
    torch = _torch()
    bad = []
    for x, y in itertools.product(DTYPE_NAMES, repeat=2):
        want = str(torch.promote_types(getattr(torch, x), getattr(torch, y))).replace("torch.", "")
        got = cygrad.promote_types(cy_dtype(x), cy_dtype(y)).name
        if got != want:
            bad.append(f"promote_types({x}, {y}) = {got}, torch {want}")
        if cygrad.can_cast(cy_dtype(x), cy_dtype(y)) != torch.can_cast(getattr(torch, x), getattr(torch, y)):
            bad.append(f"can_cast({x}, {y}) differs from torch")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("op", ["add", "sub", "div", "maximum", "eq", "pow", "atan2", "floor_divide"])
def test_op_result_dtype_table_vs_torch(op):
    """Ops with their own result rules (div/atan2 -> float, eq -> bool) over every pair;
    where torch rejects a pair, cygrad must raise too."""
    torch = _torch()
    bad = []
    for x, y in itertools.product(DTYPE_NAMES, repeat=2):
        ta, tb = torch.ones(2, dtype=getattr(torch, x)), torch.full((2,), 2, dtype=getattr(torch, y))
        try:
            want = str(getattr(torch, op)(ta, tb).dtype).replace("torch.", "")
        except RuntimeError:
            want = "error"
        a, b = cygrad.ones(2, dtype=cy_dtype(x)), cygrad.full((2,), 2, dtype=cy_dtype(y))
        try:
            got = getattr(cygrad, op)(a, b).dtype.name
        except RuntimeError:
            got = "error"
        if got != want:
            bad.append(f"{op}({x}, {y}): {got}, torch {want}")
    assert not bad, "\n".join(bad)


def test_default_dtype_changes_promotion_vs_torch(default_dtype_guard):
    torch = _torch()
    saved = torch.get_default_dtype()
    try:
        for name in ("float64", "float32"):
            cygrad.set_default_dtype(cy_dtype(name))
            torch.set_default_dtype(getattr(torch, name))
            for x in DTYPE_NAMES:
                t, tt = cygrad.ones(2, dtype=cy_dtype(x)), torch.ones(2, dtype=getattr(torch, x))
                assert cygrad.result_type(t, 2.5).name == str(torch.result_type(tt, 2.5))[6:], (name, x)
                assert (t / t).dtype.name == str((tt / tt).dtype)[6:], (name, x)
                assert cygrad.exp(t).dtype.name == str(torch.exp(tt).dtype)[6:], (name, x)
    finally:
        torch.set_default_dtype(saved)


# ---------------------------------------------------------------------------
# hand-written expectations (PyTorch's documented rules; run without torch)
# ---------------------------------------------------------------------------
def t(dtype, shape=(2,)):
    return cygrad.ones(shape, dtype=dtype)


def z(dtype):
    return cygrad.ones((), dtype=dtype)


HAND_CASES = [
    # (description, operands, expected)
    ("uint8 + int8 -> int16 (no unsigned type holds both)", (t(cygrad.uint8), t(cygrad.int8)), cygrad.int16),
    ("int32 tensor + 2.5 -> default float", (t(cygrad.int32), 2.5), cygrad.float32),
    ("float16 tensor + float64 0-dim -> float16 (same category: tensor wins)",
     (t(cygrad.float16), z(cygrad.float64)), cygrad.float16),
    ("int tensor + float64 0-dim -> float64 (higher category 0-dim keeps its dtype)",
     (t(cygrad.int64), z(cygrad.float64)), cygrad.float64),
    ("bool + True -> bool", (t(cygrad.bool), True), cygrad.bool),
    ("bfloat16 + float16 -> float32", (t(cygrad.bfloat16), t(cygrad.float16)), cygrad.float32),
    ("int8 tensor + 1000 -> int8 (scalars never widen within a category)", (t(cygrad.int8), 1000), cygrad.int8),
    ("uint8 tensor + True -> uint8", (t(cygrad.uint8), True), cygrad.uint8),
    ("bool tensor + 1 -> int64", (t(cygrad.bool), 1), cygrad.int64),
    ("float16 tensor + 2.5 -> float16", (t(cygrad.float16), 2.5), cygrad.float16),
    ("int16 0-dim + int8 tensor -> int8 (dimensioned wins in one category)",
     (z(cygrad.int16), t(cygrad.int8)), cygrad.int8),
    ("int16 0-dim + int8 0-dim -> int16 (all 0-dim: plain promotion)", (z(cygrad.int16), z(cygrad.int8)), cygrad.int16),
    ("int32 0-dim + 2.5 -> default float", (z(cygrad.int32), 2.5), cygrad.float32),
    ("bool 0-dim + 2 -> int64", (z(cygrad.bool), 2), cygrad.int64),
    ("float32 + float64 -> float64", (t(cygrad.float32), t(cygrad.float64)), cygrad.float64),
    ("int64 + float16 -> float16", (t(cygrad.int64), t(cygrad.float16)), cygrad.float16),
]


@pytest.mark.parametrize("description,operands,expected", HAND_CASES, ids=[c[0].split(" (")[0] for c in HAND_CASES])
def test_hand_written_promotion(description, operands, expected):
    assert cygrad.result_type(*operands) == expected, description
    if isinstance(operands[0], cygrad.Tensor) or isinstance(operands[1], cygrad.Tensor):
        assert (operands[0] + operands[1]).dtype == expected, description


def test_default_dtype_hand_written(default_dtype_guard):
    ints = cygrad.tensor([1, 2])
    assert (ints / ints).dtype == cygrad.float32
    assert cygrad.result_type(ints, 2.5) == cygrad.float32
    cygrad.set_default_dtype(cygrad.float64)
    assert (ints / ints).dtype == cygrad.float64
    assert cygrad.result_type(ints, 2.5) == cygrad.float64
    assert cygrad.sqrt(ints).dtype == cygrad.float64
    # a float32 tensor is not affected by the default
    assert (cygrad.ones(2, dtype=cygrad.float32) + 2.5).dtype == cygrad.float32


def test_result_type_errors():
    with pytest.raises(TypeError):
        cygrad.result_type()
    with pytest.raises(TypeError):
        cygrad.result_type(cygrad.ones(2), "x")


def test_promotion_values_not_just_dtype():
    """uint8 + int8 really computes in int16 (no wrap-around), and int8 + 1000 wraps
    like a C cast, as torch does."""
    a = cygrad.tensor([200], dtype=cygrad.uint8)
    b = cygrad.tensor([100], dtype=cygrad.int8)
    assert (a + b).tolist() == [300]
    assert (cygrad.tensor([1], dtype=cygrad.int8) + 1000).tolist() == [(1 + 1000 + 128) % 256 - 128]
    assert (cygrad.tensor([3], dtype=cygrad.int32) * 2.5).tolist() == [7.5]
