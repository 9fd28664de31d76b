"""NumPy's override protocols on cygrad tensors (``__array_ufunc__``, ``__array_function__``).

Values are checked against NumPy on the same data; result dtypes against calling the
cygrad op directly (NumPy calls must follow cygrad's PyTorch-style promotion).
"""
import numpy as np
import pytest

import cygrad


def _t(arr):
    return cygrad.from_numpy(np.array(arr))


def _close(t, expected, **kw):
    assert isinstance(t, cygrad.Tensor), type(t)
    np.testing.assert_allclose(t.numpy(), expected, **kw)


RNG = np.random.RandomState(0)
X = RNG.uniform(0.1, 0.9, (3, 4)).astype(np.float32)
Y = RNG.uniform(0.1, 0.9, (3, 4)).astype(np.float32)

UNARY = [("exp", "exp"), ("log", "log"), ("sqrt", "sqrt"), ("sin", "sin"), ("tanh", "tanh"),
         ("negative", "neg"), ("absolute", "abs"), ("arcsin", "asin"), ("floor", "floor"),
         ("square", "square"), ("reciprocal", "reciprocal"), ("isnan", "isnan"),
         ("expm1", "expm1"), ("log1p", "log1p"), ("rint", "round")]


@pytest.mark.parametrize("np_name,cg_name", UNARY, ids=[u[0] for u in UNARY])
def test_unary_ufunc_uses_cygrad_op(np_name, cg_name):
    t = _t(X)
    got = getattr(np, np_name)(t)
    want = getattr(cygrad, cg_name)(t)
    assert isinstance(got, cygrad.Tensor)
    assert got.dtype == want.dtype
    _close(got, getattr(np, np_name)(X), rtol=1e-6)


BINARY = [("add", "add"), ("subtract", "sub"), ("multiply", "mul"), ("divide", "div"),
          ("power", "pow"), ("maximum", "maximum"), ("minimum", "minimum"), ("less", "lt"),
          ("greater_equal", "ge"), ("equal", "eq"), ("arctan2", "atan2"), ("hypot", "hypot"),
          ("fmod", "fmod"), ("logical_and", "logical_and")]


@pytest.mark.parametrize("np_name,cg_name", BINARY, ids=[b[0] for b in BINARY])
def test_binary_ufunc_with_ndarray(np_name, cg_name):
    t = _t(X)
    ufunc = getattr(np, np_name)
    for a, b, na, nb in [(t, Y, X, Y), (Y, t, Y, X), (t, _t(Y), X, Y)]:
        got = ufunc(a, b)
        want = getattr(cygrad, cg_name)(_t(na), _t(nb))
        assert isinstance(got, cygrad.Tensor)
        assert got.dtype == want.dtype
        _close(got, ufunc(na, nb), rtol=1e-6)


def test_operators_with_ndarray_on_the_left():
    t = _t(X)
    for got, want in [(Y + t, Y + X), (Y - t, Y - X), (Y * t, Y * X), (Y / t, Y / X),
                      (Y ** t, Y ** X)]:
        _close(got, want, rtol=1e-6)
    cmp = Y < t
    assert isinstance(cmp, cygrad.Tensor) and cmp.dtype == cygrad.bool
    np.testing.assert_array_equal(cmp.numpy(), Y < X)
    assert (np.float64(2.0) * t).dtype == cygrad.float32    # NumPy scalars act like Python's


def test_promotion_follows_cygrad():
    i = _t(np.arange(4))
    # NumPy would give float64 for both; cygrad (PyTorch) gives the default float dtype.
    assert np.exp(i).dtype == cygrad.exp(i).dtype == cygrad.float32
    assert np.true_divide(i, 2).dtype == cygrad.float32
    f64 = np.ones(4) + _t(np.ones(4, np.float32))
    assert f64.dtype == cygrad.float64      # a float64 array has dimensions: it counts


def test_maximum_with_python_scalar():
    t = _t(np.array([-1.0, 0.5, 3.0], np.float32))
    got = np.maximum(t, 1)
    _close(got, [1.0, 1.0, 3.0])
    assert got.dtype == cygrad.float32


def test_out_tensor_is_written_and_returned():
    t = _t(X)
    out = cygrad.zeros(3, 4)
    version = out._version
    r = np.add(t, 1, out=out)
    assert r is out
    _close(out, X + 1)
    assert out._version > version
    # A wrongly shaped out= is NumPy's business: it broadcasts, never reallocates.
    out2 = cygrad.zeros(2, 3, 4)
    assert np.multiply(t, 2, out=out2) is out2
    _close(out2, np.broadcast_to(X * 2, (2, 3, 4)))


def test_out_ndarray_inplace_operator():
    a = Y.copy()
    ptr = a.ctypes.data
    a += _t(X)
    assert isinstance(a, np.ndarray) and a.ctypes.data == ptr
    np.testing.assert_allclose(a, Y + X)


def test_fallback_ufuncs_wrap_numpy_results():
    t = _t(X)
    for name in ("cbrt", "spacing", "fabs"):
        _close(getattr(np, name)(t), getattr(np, name)(X), rtol=1e-6)
    zero_d = np.cbrt(_t(np.array(8.0)))
    assert isinstance(zero_d, cygrad.Tensor) and zero_d.dim() == 0 and zero_d.item() == 2.0
    mant, expo = np.frexp(t)
    _close(mant, np.frexp(X)[0])
    _close(expo, np.frexp(X)[1])


def test_ufunc_methods():
    t = _t(X)
    np.testing.assert_allclose(np.add.reduce(t, axis=0).numpy(), np.add.reduce(X, axis=0), rtol=1e-6)
    _close(np.add.accumulate(t, axis=1), np.add.accumulate(X, axis=1), rtol=1e-6)
    _close(np.multiply.outer(t[0], t[1]), np.multiply.outer(X[0], X[1]), rtol=1e-6)
    full = np.add.reduce(t, axis=None)
    assert isinstance(full, np.floating)            # a scalar, as NumPy gives it
    np.testing.assert_allclose(full, X.sum(), rtol=1e-6)
    u = cygrad.zeros(4)
    version = u._version
    assert np.add.at(u, _t(np.array([0, 0, 2])), 1.0) is None
    np.testing.assert_array_equal(u.numpy(), [2.0, 0.0, 1.0, 0.0])
    assert u._version > version


def test_numpy_fallback_refuses_tensors_requiring_grad():
    t = _t(X)
    t.requires_grad = True
    with pytest.raises(RuntimeError, match="requires grad"):
        np.cbrt(t)
    with pytest.raises(RuntimeError, match="requires grad"):
        np.median(t)


def test_other_array_types_take_precedence():
    class Other:
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return "other"

    assert np.add(_t(X), Other()) == "other"

    class Declines:
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return NotImplemented

    with pytest.raises(TypeError):
        np.add(_t(X), Declines())


# ---------------------------------------------------------------- array functions

FUNCS = [
    ("sum", lambda m, a: m.sum(a)),
    ("sum axis", lambda m, a: m.sum(a, axis=1)),
    ("sum axis keepdims", lambda m, a: m.sum(a, axis=0, keepdims=True)),
    ("sum tuple axis", lambda m, a: m.sum(a, axis=(0, 1))),
    ("mean", lambda m, a: m.mean(a, axis=0)),
    ("prod", lambda m, a: m.prod(a, axis=1)),
    ("max", lambda m, a: m.max(a)),
    ("max axis", lambda m, a: m.max(a, axis=1)),
    ("amin axis", lambda m, a: m.amin(a, axis=0)),
    ("argmax", lambda m, a: m.argmax(a)),
    ("argmin axis", lambda m, a: m.argmin(a, axis=1)),
    ("std", lambda m, a: m.std(a)),
    ("var ddof", lambda m, a: m.var(a, axis=0, ddof=1)),
    ("cumsum", lambda m, a: m.cumsum(a, axis=1)),
    ("cumsum flat", lambda m, a: m.cumsum(a)),
    ("reshape", lambda m, a: m.reshape(a, (4, 3))),
    ("reshape -1", lambda m, a: m.reshape(a, -1)),
    ("transpose", lambda m, a: m.transpose(a)),
    ("transpose axes", lambda m, a: m.transpose(a[None], (2, 0, 1))),
    ("swapaxes", lambda m, a: m.swapaxes(a, 0, 1)),
    ("moveaxis", lambda m, a: m.moveaxis(a[None], 0, 2)),
    ("squeeze", lambda m, a: m.squeeze(a[None])),
    ("expand_dims", lambda m, a: m.expand_dims(a, 1)),
    ("ravel", lambda m, a: m.ravel(a)),
    ("broadcast_to", lambda m, a: m.broadcast_to(a, (2, 3, 4))),
    ("clip", lambda m, a: m.clip(a, 0.3, 0.6)),
    ("clip min only", lambda m, a: m.clip(a, 0.3, None)),
    ("sort", lambda m, a: m.sort(a)),
    ("sort axis 0", lambda m, a: m.sort(a, axis=0)),
    ("sort flat", lambda m, a: m.sort(a, axis=None)),
    ("argsort", lambda m, a: m.argsort(a, kind="stable")),
    ("flip", lambda m, a: m.flip(a, 1)),
    ("roll", lambda m, a: m.roll(a, 1, 0)),
    ("round", lambda m, a: m.round(a, 2)),
    ("dot 2d", lambda m, a: m.dot(a, a.T)),
    ("dot 1d", lambda m, a: m.dot(a[0], a[1])),
    ("matmul", lambda m, a: m.matmul(a, a.T)),
    ("outer", lambda m, a: m.outer(a[0], a[1])),
    ("tensordot", lambda m, a: m.tensordot(a, a, axes=([1], [1]))),
    ("einsum", lambda m, a: m.einsum("ij,kj->ik", a, a)),
    ("isclose", lambda m, a: m.isclose(a, a + 1e-9)),
    ("copy", lambda m, a: m.copy(a)),
    ("zeros_like", lambda m, a: m.zeros_like(a)),
    ("full_like", lambda m, a: m.full_like(a, 7.0)),
    ("ones_like dtype", lambda m, a: m.ones_like(a, dtype=np.int32)),
    # no cygrad twin: computed by NumPy and wrapped
    ("diagonal (numpy)", lambda m, a: m.diagonal(a)),
    ("tril (numpy)", lambda m, a: m.tril(a)),
    ("diff (numpy)", lambda m, a: m.diff(a, axis=1)),
    ("percentile axis (numpy)", lambda m, a: m.percentile(a, 50, axis=0)),
    ("linalg.pinv (numpy)", lambda m, a: m.linalg.pinv(a)),
]


@pytest.mark.parametrize("fn", [f[1] for f in FUNCS], ids=[f[0] for f in FUNCS])
def test_array_function_returns_tensor(fn):
    got = fn(np, _t(X))
    want = fn(np, X)
    assert isinstance(got, cygrad.Tensor), type(got)
    assert tuple(got.shape) == np.shape(want)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-7)


def test_dispatch_looks_up_cygrad_ops_at_call_time(monkeypatch):
    calls = []

    def spy(name):
        real = getattr(cygrad, name)

        def fn(*args, **kwargs):
            calls.append(name)
            return real(*args, **kwargs)
        monkeypatch.setattr(cygrad, name, fn)

    for name in ("sum", "cat", "exp", "mul"):
        spy(name)
    t = _t(X)
    np.sum(t, axis=0)
    np.concatenate([t, t])
    np.exp(t)
    Y * t
    assert calls == ["sum", "cat", "exp", "mul"]
    # An op that no family defines yet goes to NumPy instead.
    monkeypatch.delattr(cygrad, "cat")
    got = np.concatenate([t, t])
    assert isinstance(got, cygrad.Tensor) and calls == ["sum", "cat", "exp", "mul"]
    np.testing.assert_array_equal(got.numpy(), np.concatenate([X, X]))


def test_mean_of_integers_is_float64_like_numpy():
    got = np.mean(_t(np.arange(4)))
    assert isinstance(got, cygrad.Tensor) and got.dtype == cygrad.float64
    assert got.item() == 1.5


def test_joining_mixes_tensors_and_arrays():
    t = _t(X)
    for fn in (np.concatenate, np.stack, np.vstack, np.hstack):
        got = fn([t, Y])
        assert isinstance(got, cygrad.Tensor)
        np.testing.assert_array_equal(got.numpy(), fn([X, Y]))
    got = np.concatenate([t, t], axis=None)
    np.testing.assert_array_equal(got.numpy(), np.concatenate([X, X], axis=None))


def test_where():
    t = _t(X)
    got = np.where(t > 0.5, t, 0.0)
    assert isinstance(got, cygrad.Tensor)
    np.testing.assert_array_equal(got.numpy(), np.where(X > 0.5, X, 0.0))
    idx = np.where(t > 0.5)
    assert isinstance(idx, tuple) and all(isinstance(i, cygrad.Tensor) for i in idx)
    for i, j in zip(idx, np.where(X > 0.5)):
        np.testing.assert_array_equal(i.numpy(), j)


def test_scalar_answers_stay_python_values():
    t = _t(X)
    assert np.shape(t) == (3, 4) and np.ndim(t) == 2 and np.size(t) == 12
    assert np.size(t, 1) == 4
    assert np.allclose(t, X) is True
    assert np.allclose(t, X + 1) is False
    assert np.array_equal(t, X) is True
    assert np.array_equal(t, X[:2]) is False
    assert np.array_equal(_t(np.array([1, 2])), np.array([1.0, 2.0])) is True


def test_numpy_fallback_results():
    t = _t(X)
    med = np.median(t)
    assert isinstance(med, np.floating)
    np.testing.assert_allclose(med, np.median(X))
    vals, counts = np.unique(_t(np.array([3, 1, 3])), return_counts=True)
    assert isinstance(vals, cygrad.Tensor) and isinstance(counts, cygrad.Tensor)
    assert vals.tolist() == [1, 3] and counts.tolist() == [1, 2]
    pieces = np.array_split(t, 2, axis=1)
    assert all(isinstance(p, cygrad.Tensor) for p in pieces)
    assert isinstance(np.linalg.norm(t), np.floating)


def test_fallback_views_share_memory():
    base = cygrad.zeros(3, 3)
    d = np.diagonal(base)
    assert isinstance(d, cygrad.Tensor)
    base[1, 1] = 5.0
    assert d.tolist() == [0.0, 5.0, 0.0]


def test_function_out_argument():
    t = _t(X)
    out = cygrad.zeros(4)
    r = np.sum(t, axis=0, out=out)
    assert r is out
    np.testing.assert_allclose(out.numpy(), X.sum(axis=0), rtol=1e-6)


def test_unknown_types_decline():
    class Duck:
        def __array_function__(self, func, types, args, kwargs):
            return "duck"

    assert np.concatenate([_t(X), Duck()]) == "duck"


def test_asarray_is_zero_copy():
    t = _t(X)
    a = np.asarray(t)
    assert isinstance(a, np.ndarray) and a.ctypes.data == t.data_ptr()
