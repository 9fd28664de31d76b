"""addcmul/addcdiv (+ in-place), cdist and Tensor.sum_to_size: values against
PyTorch (or NumPy), gradients by finite differences in float64."""
import math

import numpy as np
import pytest

import cygrad
from cygrad.autograd import gradcheck, gradgradcheck


def _torch():
    return pytest.importorskip("torch", reason="PyTorch reference not installed")


def _pair(*shapes, dtype=np.float32, seed=0, positive=False):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    if positive:
        arrays = [np.abs(a) + 0.5 for a in arrays]
    return arrays


def _rg(arr):
    return cygrad.from_numpy(arr.copy()).requires_grad_(True)


# ----------------------------------------------------------------------- addcmul / addcdiv

@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("value", [1, 0.5, -2.25])
def test_values_match_torch(op, value):
    torch = _torch()
    x, a, b = _pair((3, 4), (4,), (3, 1), seed=1)
    b = np.abs(b) + 0.5
    ours = getattr(cygrad, op)(*(cygrad.from_numpy(v) for v in (x, a, b)), value=value)
    ref = getattr(torch, op)(*(torch.from_numpy(v) for v in (x, a, b)), value=value)
    assert ours.dtype is cygrad.float32
    # PyTorch's scalar loops may fuse the multiply-add: allow the last bit.
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=2e-7, atol=1e-7)


def test_mixed_dtypes_promote_and_integer_value_truncates_like_torch():
    torch = _torch()
    i = np.array([1, 2, 3], np.int64)
    f = np.array([0.5, 1.5, 2.5], np.float64)
    ours = cygrad.addcmul(cygrad.from_numpy(f), cygrad.from_numpy(i), cygrad.from_numpy(i),
                          value=0.5)
    ref = torch.addcmul(torch.from_numpy(f), torch.from_numpy(i), torch.from_numpy(i), value=0.5)
    assert ours.dtype is cygrad.float64 and np.array_equal(ours.numpy(), ref.numpy())
    ours = cygrad.addcmul(*(cygrad.from_numpy(i) for _ in range(3)), value=1.5)
    ref = torch.addcmul(*(torch.from_numpy(i) for _ in range(3)), value=1.5)
    assert ours.dtype is cygrad.int64 and ours.tolist() == ref.tolist()


def test_addcdiv_refuses_integer_division():
    t = cygrad.tensor([1, 2])
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        cygrad.addcdiv(cygrad.ones(2), t, t)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        cygrad.ones(2).addcdiv_(t, t)


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_methods_inplace_and_out(op):
    x, a, b = _pair((2, 3), (2, 3), (3,), positive=True)
    expected = getattr(cygrad, op)(*(cygrad.from_numpy(v) for v in (x, a, b)), value=3)
    t = cygrad.from_numpy(x.copy())
    method = getattr(t, op)(cygrad.from_numpy(a), cygrad.from_numpy(b), value=3)
    assert method.tolist() == expected.tolist()
    version = t._version
    same = getattr(t, op + "_")(cygrad.from_numpy(a), cygrad.from_numpy(b), value=3)
    assert same is t and t.tolist() == expected.tolist() and t._version > version
    out = cygrad.empty(0)
    res = getattr(cygrad, op)(*(cygrad.from_numpy(v) for v in (x, a, b)), value=3, out=out)
    assert res is out and out.tolist() == expected.tolist()


def test_inplace_cannot_broadcast_self():
    with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match the broadcast "
                                           r"shape \[3, 2\]"):
        cygrad.ones(2).addcmul_(cygrad.ones(3, 2), cygrad.ones(2))


def test_grad_fn_names():
    x = cygrad.ones(2, requires_grad=True)
    assert type(cygrad.addcmul(x, x, x).grad_fn).__name__ == "AddcmulBackward0"
    assert type(cygrad.addcdiv(x, x, x).grad_fn).__name__ == "AddcdivBackward0"


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_gradcheck_with_broadcasting(op):
    x, a, b = (_rg(v) for v in _pair((3, 4), (4,), (3, 1), dtype=np.float64, positive=True))
    fn = lambda x, a, b: getattr(cygrad, op)(x, a, b, value=-0.75)  # noqa: E731
    assert gradcheck(fn, (x, a, b), check_forward_ad=True)
    assert gradgradcheck(fn, (x, a, b))


def test_inplace_is_differentiable():
    x, a, b = (_rg(v) for v in _pair((3,), (3,), (3,), dtype=np.float64, positive=True))
    assert gradcheck(lambda x, a, b: (x * 1).addcdiv_(a, b, value=2.0), (x, a, b))


# ----------------------------------------------------------------------- sum_to_size

@pytest.mark.parametrize("size", [(3,), (1, 3), (2, 1), (1, 1), (), (2, 3)])
def test_sum_to_size_matches_numpy(size):
    arr = np.arange(6, dtype=np.float64).reshape(2, 3)
    ours = cygrad.from_numpy(arr).sum_to_size(*size)
    lead = 2 - len(size)
    ref = arr.sum(axis=tuple(range(lead))) if lead else arr
    axes = tuple(i for i, s in enumerate(size) if s == 1 and ref.shape[i] != 1)
    ref = ref.sum(axis=axes, keepdims=True) if axes else ref
    assert tuple(ours.shape) == size and np.array_equal(ours.numpy(), ref)
    assert tuple(cygrad.from_numpy(arr).sum_to_size(size).shape) == size


@pytest.mark.parametrize("size", [(2, 3, 1), (4, 3), (3, 3)])
def test_sum_to_size_not_expandable(size):
    with pytest.raises(RuntimeError, match=r"is not expandable to size \{\[2, 3\]\}"):
        cygrad.ones(2, 3).sum_to_size(*size)


def test_sum_to_size_gradient():
    x = _rg(np.random.default_rng(0).standard_normal((2, 3, 4)))
    assert gradcheck(lambda t: t.sum_to_size(3, 1), (x,))


# ----------------------------------------------------------------------- cdist

P_VALUES = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, math.inf]


@pytest.mark.parametrize("p", P_VALUES)
def test_cdist_values_vs_torch_with_batch_broadcast(p):
    torch = _torch()
    a, b = _pair((2, 1, 3, 4), (5, 6, 4), dtype=np.float64, seed=2)
    ours = cygrad.cdist(cygrad.from_numpy(a), cygrad.from_numpy(b), p=p)
    ref = torch.cdist(torch.from_numpy(a), torch.from_numpy(b), p=p)
    assert tuple(ours.shape) == tuple(ref.shape) == (2, 5, 3, 6)
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                                  "donot_use_mm_for_euclid_dist"])
def test_cdist_compute_modes_on_large_inputs(mode):
    torch = _torch()
    a, b = _pair((40, 8), (30, 8), seed=3)
    ours = cygrad.cdist(cygrad.from_numpy(a), cygrad.from_numpy(b), compute_mode=mode)
    ref = torch.cdist(torch.from_numpy(a), torch.from_numpy(b), compute_mode=mode)
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("p", P_VALUES)
def test_cdist_gradcheck(p):
    a, b = (_rg(v) for v in _pair((2, 3, 4), (5, 4), dtype=np.float64, seed=4))
    assert gradcheck(lambda a, b: cygrad.cdist(a, b, p=p), (a, b), check_forward_ad=True)


def test_cdist_gradgradcheck_and_mm_path_gradient():
    a, b = (_rg(v) for v in _pair((3, 4), (2, 4), dtype=np.float64, seed=5))
    assert gradgradcheck(lambda a, b: cygrad.cdist(a, b, p=3.0), (a, b))
    big_a, big_b = (_rg(v) for v in _pair((27, 3), (4, 3), dtype=np.float64, seed=6))
    assert gradcheck(lambda a, b: cygrad.cdist(a, b), (big_a, big_b))


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, math.inf])
def test_cdist_zero_distance_gradient_is_torchs(p):
    torch = _torch()
    pts = np.array([[0.0, 1.0], [2.0, -1.0]])
    ours_x = _rg(pts)
    cygrad.cdist(ours_x, cygrad.from_numpy(pts), p=p).sum().backward()
    ref_x = torch.from_numpy(pts.copy()).requires_grad_(True)
    torch.cdist(ref_x, torch.from_numpy(pts), p=p).sum().backward()
    np.testing.assert_allclose(ours_x.grad.numpy(), ref_x.grad.numpy(), atol=1e-12)
    assert np.isfinite(ours_x.grad.numpy()).all()


@pytest.mark.parametrize("args, kwargs, exc, msg", [
    ((cygrad.ones(3), cygrad.ones(3)), {}, RuntimeError, "at least 2D tensors, X1 got: 1D"),
    ((cygrad.ones(2, 3), cygrad.ones(4, 2)), {}, RuntimeError,
     "same number of columns. X1: 3 X2: 2"),
    ((cygrad.ones(2, 3), cygrad.ones(4, 3)), {"p": -1}, RuntimeError, "non-negative p"),
    ((cygrad.ones(2, 3, dtype=cygrad.int64), cygrad.ones(4, 3, dtype=cygrad.int64)), {},
     RuntimeError, "floating-point dtypes, X1 got: Long"),
    ((cygrad.ones(2, 3), cygrad.ones(4, 3, dtype=cygrad.float64)), {}, RuntimeError,
     "expected scalar type Float but found Double"),
    ((cygrad.ones(2, 3), cygrad.ones(4, 3)), {"compute_mode": "bad"}, ValueError,
     "bad is not a valid value for compute_mode"),
])
def test_cdist_errors(args, kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        cygrad.cdist(*args, **kwargs)
