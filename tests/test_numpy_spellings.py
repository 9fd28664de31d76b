"""NumPy's keyword and method spellings on Tensor (issue 17): each checked side by side
with PyTorch's spelling, and against NumPy's (or PyTorch's) own result."""
import numpy as np
import pytest
import torch

import cygrad
import cygrad.numpy as cnp

A = np.array([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]])


@pytest.fixture
def x():
    return cygrad.tensor(A)


def test_std_var_ddof_axis_keepdims(x):
    for ddof in (0, 1):
        got = x.std(axis=0, ddof=ddof)
        assert got.tolist() == pytest.approx(A.std(axis=0, ddof=ddof).tolist())
        assert got.tolist() == x.std(dim=0, correction=ddof).tolist()
        got = x.var(axis=1, ddof=ddof, keepdims=True)
        assert got.shape == (2, 1)
        np.testing.assert_allclose(got.numpy(), A.var(axis=1, ddof=ddof, keepdims=True))
    # the default stays PyTorch's (Bessel-corrected), as in torch.std
    assert x.std(axis=0).tolist() == pytest.approx(torch.tensor(A).std(dim=0).tolist())
    # NumPy's dtype= on std/var: computed in (and returned as) that dtype
    got = x.var(axis=0, dtype=cygrad.float32)
    assert got.dtype is cygrad.float32
    np.testing.assert_allclose(got.numpy(), A.var(axis=0, ddof=1, dtype=np.float32), rtol=1e-6)
    assert cygrad.std_mean(x, axis=1, ddof=0)[0].tolist() == pytest.approx(A.std(1).tolist())


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "amax", "amin", "max", "min",
                                  "argmax", "argmin", "all", "any", "nansum", "nanmean",
                                  "logsumexp", "median", "var", "std"])
def test_axis_keepdims_match_dim_keepdim(x, name):
    """axis=/keepdims= mean dim=/keepdim= (PyTorch accepts them too: same results)."""
    t = torch.tensor(A)
    got = getattr(x, name)(axis=1, keepdims=True)
    ref = getattr(t, name)(axis=1, keepdims=True)
    same = getattr(x, name)(dim=1, keepdim=True)
    got, ref, same = (r[0] if isinstance(r, tuple) else r for r in (got, ref, same))
    assert got.shape == tuple(ref.shape) == same.shape
    np.testing.assert_allclose(got.double().numpy(), ref.double().numpy(), rtol=1e-12)
    f = getattr(cygrad, name)(x, axis=0)
    f = f[0] if isinstance(f, tuple) else f
    tf = getattr(torch, name)(t, axis=0)
    tf = tf[0] if isinstance(tf, tuple) else tf
    np.testing.assert_allclose(f.double().numpy(), tf.double().numpy(), rtol=1e-12)


def test_axis_none_means_every_dim(x):
    assert x.max(axis=None).item() == A.max()
    assert x.sum(axis=None).item() == A.sum()
    assert x.std(axis=None, ddof=0).item() == pytest.approx(A.std())


def test_both_spellings_is_a_type_error(x):
    for call in (lambda: x.sum(dim=0, axis=1), lambda: x.std(dim=0, axis=1),
                 lambda: x.amax(dim=0, axis=1), lambda: x.std(correction=0, ddof=1)):
        with pytest.raises(TypeError):
            call()
    with pytest.raises(TypeError):
        torch.tensor(A).sum(dim=0, axis=1)


def test_out_on_reduction_methods(x):
    for name, ref in (("sum", A.sum(0)), ("amax", A.max(0)), ("amin", A.min(0)),
                      ("mean", A.mean(0))):
        out = cygrad.empty(3, dtype=cygrad.float64)
        res = getattr(x, name)(axis=0, out=out)
        assert res is out
        np.testing.assert_allclose(out.numpy(), ref)
    out = cygrad.empty(3, dtype=cygrad.int64)
    x.argmax(axis=0, out=out)
    assert out.tolist() == A.argmax(0).tolist()


def test_dtype_on_sum_mean(x):
    assert x.sum(axis=0, dtype=cygrad.float32).dtype is cygrad.float32
    assert x.mean(axis=1, dtype=cygrad.float32).tolist() == pytest.approx(A.mean(1).tolist())


def test_astype(x):
    got = x.astype(cnp.int32)
    assert got.dtype is cygrad.int32 and got.tolist() == A.astype(np.int32).tolist()
    assert x.astype("float32").dtype is cygrad.float32
    assert x.astype(np.float16).dtype is cygrad.float16
    assert x.astype(cygrad.float64, copy=False) is x
    assert x.astype(cygrad.float64) is not x
    with pytest.raises(TypeError):
        x.astype(cygrad.int32, casting="same_kind")       # NumPy: TypeError too
    with pytest.raises(TypeError):
        np.ones(2).astype(np.int32, casting="same_kind")
    assert x.astype(cygrad.float32, casting="same_kind").dtype is cygrad.float32
    assert cygrad.tensor([1, 2]).astype(cygrad.float64, casting="safe").dtype is cygrad.float64
    with pytest.raises(TypeError):
        cygrad.tensor([1, 2]).astype(cygrad.int8, casting="safe")
    w = cygrad.tensor([1.5, 2.0], requires_grad=True)
    w.astype(cygrad.float64).sum().backward()
    assert w.grad.tolist() == [1.0, 1.0]


def test_copy_is_independent(x):
    y = x.t().copy()
    assert y.is_contiguous() and y.tolist() == A.T.tolist()
    y[0, 0] = -1.0
    assert x[0, 0].item() == 1.0


@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
def test_flatten_ravel_order(x, order):
    for view, arr in ((x, A), (x.t(), A.T)):
        assert view.flatten(order).tolist() == arr.flatten(order).tolist()
        assert view.ravel(order).tolist() == arr.ravel(order).tolist()
        assert view.ravel(order=order).tolist() == arr.ravel(order=order).tolist()
    # PyTorch's spellings still mean PyTorch's
    assert x.flatten(0, 1).tolist() == torch.tensor(A).flatten(0, 1).tolist()
    with pytest.raises(ValueError):
        x.flatten("Z")


def test_item_with_indices(x):
    assert x.item(4) == A.item(4)
    assert x.item(1, 2) == A.item(1, 2)
    assert x.item((0, 1)) == A.item((0, 1))
    assert cygrad.tensor(3.5).item() == 3.5
    with pytest.raises(IndexError):
        x.item(6)
    with pytest.raises(ValueError):
        x.item(0, 1, 2)
    assert x.tolist() == A.tolist()
