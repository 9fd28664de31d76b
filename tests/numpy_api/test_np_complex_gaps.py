"""Complex numbers in the corners the first pass left out: ``angle`` in
``cygrad.numpy``, complex ``var``/``std`` in both namespaces, the inverse hyperbolic
functions as core ops, NumPy's repeated FFT axes, and the linalg decompositions on
complex64/complex128 (values against NumPy, gradients against PyTorch and gradcheck)."""
import math

import numpy as np
import pytest

import cygrad
import cygrad.numpy as cnp
from cygrad.autograd import gradcheck, gradgradcheck

COMPLEX = ["complex64", "complex128"]
SPECIAL = [0.0, -0.0, 1.5, -2.0, math.inf, -math.inf, math.nan]
GRID = np.array([complex(a, b) for a in SPECIAL for b in SPECIAL + [0.7, -3.0]])


def _rand(shape, dtype="complex128", seed=0):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return z.astype(dtype)


def _leaf(a):
    return cygrad.from_numpy(np.array(a)).requires_grad_()


def _tol(dtype):
    return 2e-5 if str(dtype) in ("complex64", "float32") else 1e-11


# ------------------------------------------------------------------------ angle

@pytest.mark.parametrize("deg", [False, True])
def test_angle_matches_numpy_on_special_values(deg):
    for dt in COMPLEX:
        z = GRID.astype(dt)
        got = cnp.angle(cnp.asarray(z), deg=deg).numpy()
        want = np.angle(z, deg=deg)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=_tol(dt), atol=0)
        assert (np.signbit(got) == np.signbit(want)).all()


def test_angle_gradients():
    z = _leaf(_rand(5))
    assert gradcheck(cnp.angle, (z,))
    assert gradcheck(lambda t: cnp.angle(t, deg=True), (z,))
    x = _leaf(np.array([-1.5, 2.0, -0.0, 3.0]))
    cnp.angle(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(4))     # PyTorch: 0 for real inputs


def test_angle_gradient_matches_torch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    z = _rand(5)
    w = np.random.default_rng(1).standard_normal(5)
    ours = _leaf(z)
    (cnp.angle(ours) * cnp.asarray(w)).sum().backward()
    theirs = torch.tensor(z, requires_grad=True)
    (torch.angle(theirs) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)


# ------------------------------------------------------------------------ var / std

@pytest.mark.parametrize("dt", COMPLEX)
@pytest.mark.parametrize("kw", [{}, {"axis": 0}, {"axis": 1, "ddof": 1, "keepdims": True},
                                {"axis": (0, 1), "correction": 2}, {"ddof": 12}, {"ddof": 13}])
def test_numpy_var_std_of_complex(dt, kw):
    z = _rand((3, 4), dt)
    np_kw = dict(kw)
    if "correction" in np_kw:
        np_kw["ddof"] = np_kw.pop("correction")
    for name in ("var", "std"):
        with np.errstate(all="ignore"), pytest.warns(RuntimeWarning) if kw.get("ddof", 0) >= 12 \
                else _no_warning():
            want = getattr(np, name)(z, **np_kw)
        got = getattr(cnp, name)(cnp.asarray(z), **kw).numpy()
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=_tol(dt))


class _no_warning:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_numpy_var_of_a_real_input_without_degrees_of_freedom():
    x = np.random.default_rng(2).standard_normal((2, 3))
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = np.var(x, axis=1, ddof=4)
    np.testing.assert_array_equal(cnp.var(cnp.asarray(x), axis=1, ddof=4).numpy(), want)
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = np.std(np.ones(3), ddof=3)
    np.testing.assert_array_equal(cnp.std(cnp.ones(3), ddof=3).numpy(), want)


@pytest.mark.parametrize("fn", ["var", "std", "var_mean", "std_mean"])
def test_torch_var_std_of_complex_match_torch(fn):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    for dt in COMPLEX:
        z = _rand((3, 4), dt, seed=3)
        for args, kw in [((), {}), ((1,), {}), ((0,), {"keepdim": True, "correction": 0})]:
            ours = getattr(cygrad, fn)(cygrad.tensor(z), *args, **kw)
            theirs = getattr(torch, fn)(torch.tensor(z), *args, **kw)
            ours = ours if isinstance(ours, tuple) else (ours,)
            theirs = theirs if isinstance(theirs, tuple) else (theirs,)
            for o, t in zip(ours, theirs):
                assert o.dtype.name == str(t.dtype).split(".")[1]
                np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=_tol(dt))


def test_torch_var_of_complex_out_and_node_names():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    z = _rand((3, 4), "complex64")
    for out_dtype in ("float32", "float64", "complex64"):
        ours = cygrad.empty(0, dtype=getattr(cygrad, out_dtype))
        theirs = torch.empty(0, dtype=getattr(torch, out_dtype))
        cygrad.var(cygrad.tensor(z), 1, out=ours)
        torch.var(torch.tensor(z), 1, out=theirs)
        assert ours.dtype.name == out_dtype
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5)
    leaf = _leaf(_rand((3, 4)))
    tleaf = torch.tensor(_rand((3, 4)), requires_grad=True)
    for fn in ("var", "std"):
        assert getattr(cygrad, fn)(leaf).grad_fn.name() == type(getattr(torch, fn)(tleaf).grad_fn).__name__


@pytest.mark.parametrize("f", [lambda z: cygrad.var(z, 1), lambda z: cygrad.std(z, 0),
                               lambda z: cygrad.var_mean(z, 1, correction=0),
                               lambda z: cygrad.std_mean(z, (0, 1)),
                               lambda z: cnp.std(z, axis=1, ddof=1), lambda z: cnp.var(z)],
                         ids=["var", "std", "var_mean", "std_mean", "np.std", "np.var"])
def test_var_std_of_complex_gradcheck(f):
    z = _leaf(_rand((3, 4), seed=4))
    assert gradcheck(f, (z,), check_forward_ad=True)
    assert gradgradcheck(f, (z,))


def test_complex_std_gradient_is_zero_where_std_is_zero_as_torch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    z = np.full(3, 1 - 2j)
    ours, theirs = _leaf(z), torch.tensor(z, requires_grad=True)
    cygrad.std(ours).backward()
    torch.std(theirs).backward()
    np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())


# ------------------------------------------------- asinh / acosh / atanh (core ops)

@pytest.mark.parametrize("name,np_name", [("asinh", "arcsinh"), ("acosh", "arccosh"),
                                          ("atanh", "arctanh")])
def test_inverse_hyperbolic_core_ops_on_complex(name, np_name):
    for dt in COMPLEX:
        z = GRID.astype(dt)
        with np.errstate(all="ignore"):
            want = getattr(np, np_name)(z)
        for f in (getattr(cygrad, name), getattr(cygrad, np_name),
                  lambda t: getattr(t, name)(), lambda t: getattr(t.clone(), name + "_")(),
                  lambda t: getattr(t.clone(), np_name + "_")()):
            got = f(cygrad.tensor(z)).numpy()
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=_tol(dt), atol=0, equal_nan=True)


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh"])
def test_inverse_hyperbolic_complex_gradients(name):
    z = _leaf(np.array([0.3 + 0.4j, -1.2 + 0.7j, 0.8 - 0.5j, 2.0 - 1.0j]))
    f = getattr(cygrad, name)
    assert gradcheck(f, (z,), check_forward_ad=True)
    assert gradgradcheck(f, (z,))
    assert f(z).grad_fn.name() == name.capitalize() + "Backward0"


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh"])
def test_inverse_hyperbolic_gradients_match_torch(name):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    z = _rand(6, seed=5)
    z[0] = -1.5 + 0j                        # on acosh's and atanh's branch cuts
    w = _rand(6, seed=6)
    ours = _leaf(z)
    getattr(cygrad, name)(ours).backward(cygrad.tensor(w))
    theirs = torch.tensor(z, requires_grad=True)
    getattr(torch, name)(theirs).backward(torch.tensor(w))
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10)


# ------------------------------------------------------------ FFT: repeated axes

@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
@pytest.mark.parametrize("kw", [{"axes": (1, 1)}, {"axes": (0, 1, 0)}, {"s": (3, 5), "axes": (1, 1)},
                                {"s": (2, 5, 6), "axes": (1, 0, -1), "norm": "ortho"},
                                {"axes": (0, 0), "norm": "forward"}])
def test_numpy_fft_repeated_axes_match_numpy(name, kw):
    z = _rand((3, 4), seed=7)
    x = z.real.copy() if name == "rfftn" else z
    want = getattr(np.fft, name)(x, **kw)
    got = getattr(cnp.fft, name)(cnp.asarray(x), **kw).numpy()
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_numpy_fft_repeated_axes_gradcheck():
    z = _leaf(_rand((3, 4), seed=8))
    x = _leaf(_rand((3, 4), seed=9).real)
    assert gradcheck(lambda t: cnp.fft.fftn(t, s=(3, 5), axes=(1, 1)), (z,))
    assert gradcheck(lambda t: cnp.fft.rfftn(t, axes=(1, 0, 1)), (x,))
    assert gradcheck(lambda t: cnp.fft.irfftn(t, axes=(0, 1, 1)), (z,))


def test_torch_fft_refuses_repeated_dims_as_torch():
    for f in (lambda m, t: m.fft.fftn(t, dim=(0, 0)), lambda m, t: m.fft.rfftn(t, dim=(1, -1)),
              lambda m, t: m.fft.irfftn(t, dim=(0, 0)), lambda m, t: m.fft.ifft2(t, dim=(1, 1))):
        with pytest.raises(RuntimeError, match="FFT dims must be unique"):
            f(cygrad, cygrad.randn(3, 4))


def test_torch_fft_repeated_dims_error_type_matches_torch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    with pytest.raises(RuntimeError, match="FFT dims must be unique"):
        torch.fft.fftn(torch.randn(3, 4), dim=(0, 0))


# ------------------------------------------------------------------ complex linalg

def _herm(n, dt, seed):
    a = _rand((n, n), "complex128", seed)
    return (a @ a.conj().T + n * np.eye(n)).astype(dt)


def _values_cases(dt):
    a, tall, b = _rand((4, 4), dt, 10), _rand((5, 3), dt, 11), _rand((4, 2), dt, 12)
    h = _herm(4, dt, 13)
    L = cnp.linalg
    return [
        ("inv", lambda m: m.inv(a)), ("solve", lambda m: m.solve(a, b)),
        ("solve vector", lambda m: m.solve(a, b[:, 0])), ("det", lambda m: m.det(a)),
        ("slogdet", lambda m: tuple(m.slogdet(a))), ("cholesky", lambda m: m.cholesky(h)),
        ("cholesky upper", lambda m: m.cholesky(h, upper=True)),
        ("eigvalsh", lambda m: m.eigvalsh(h)), ("svdvals", lambda m: m.svdvals(tall)),
        ("pinv", lambda m: m.pinv(tall)), ("matrix_rank", lambda m: m.matrix_rank(tall)),
        ("lstsq", lambda m: m.lstsq(tall, _rand((5, 2), dt, 14))[:2]),
        # decompositions with free phases: compare phase-free quantities
        ("eigh", lambda m: (lambda w, v: (w, np.abs(np.asarray(v)),
                                          v @ np.diag(w) @ np.conj(np.asarray(v)).T))(
            *[np.asarray(t) for t in m.eigh(h)])),
        ("svd", lambda m: (lambda u, s, vh: (s, np.abs(np.asarray(u)), np.abs(np.asarray(vh)),
                                             (u * s) @ vh))(
            *[np.asarray(t) for t in m.svd(tall, full_matrices=False)])),
        ("qr", lambda m: tuple(m.qr(tall))), ("qr complete", lambda m: tuple(m.qr(tall, mode="complete"))),
    ], L


def _as_np(x):
    return x.detach().numpy() if isinstance(x, cygrad.Tensor) else np.asarray(x)


@pytest.mark.parametrize("dt", COMPLEX)
def test_complex_linalg_values_match_numpy(dt):
    cases, _ = _values_cases(dt)

    class CnpWithArrays:        # feeds cygrad tensors to cnp.linalg, as NumPy gets arrays
        def __getattr__(self, name):
            f = getattr(cnp.linalg, name)
            return lambda *a, **k: f(*[cnp.asarray(x) if isinstance(x, np.ndarray) else x
                                       for x in a], **k)

    class NumpyDetached:
        def __getattr__(self, name):
            return getattr(np.linalg, name)

    for name, f in cases:
        ours, want = f(CnpWithArrays()), f(NumpyDetached())
        ours = ours if isinstance(ours, tuple) else (ours,)
        want = want if isinstance(want, tuple) else (want,)
        for o, w in zip(ours, want):
            o, w = _as_np(o), np.asarray(w)
            assert o.dtype == w.dtype, (name, o.dtype, w.dtype)
            np.testing.assert_allclose(o, w, rtol=1e-4 if dt == "complex64" else 1e-10,
                                       atol=1e-4 if dt == "complex64" else 1e-10, err_msg=name)


# functions of A whose value does not depend on the free phases of eigen/singular
# vectors; ``M`` is cygrad or torch, ``L`` its linalg namespace
def _hpd(M, a):
    return a @ a.mT.conj() + 3 * M.eye(a.shape[-1], dtype=a.dtype)


GAUGE_FREE = {
    "solve": (lambda M, L, a, b: L.solve(a, b), ((4, 4), (4, 2))),
    "inv": (lambda M, L, a: L.inv(a), ((3, 3),)),
    "det": (lambda M, L, a: L.det(a), ((3, 3),)),
    "slogdet": (lambda M, L, a: tuple(L.slogdet(a)), ((3, 3),)),
    "cholesky": (lambda M, L, a: L.cholesky(_hpd(M, a)), ((3, 3),)),
    "eigh": (lambda M, L, a: (lambda w, v: (w, (v * v.conj()).real))(*L.eigh(a + a.mT.conj())),
             ((3, 3),)),
    "svd": (lambda M, L, a: (lambda u, s, vh: (s, (u * u.conj()).real, (vh * vh.conj()).real))(
        *L.svd(a, full_matrices=False)), ((4, 3),)),
    "svd wide": (lambda M, L, a: (lambda u, s, vh: (s, (vh * vh.conj()).real))(
        *L.svd(a, full_matrices=False)), ((2, 4),)),
    "qr": (lambda M, L, a: tuple(L.qr(a)), ((4, 3),)),
    "pinv": (lambda M, L, a: L.pinv(a), ((4, 3),)),
}


@pytest.mark.parametrize("name", sorted(GAUGE_FREE))
def test_complex_linalg_gradcheck(name):
    f, shapes = GAUGE_FREE[name]
    leaves = [_leaf(_rand(s, seed=20 + i)) for i, s in enumerate(shapes)]
    assert gradcheck(lambda *xs: f(cygrad, cnp.linalg, *xs), leaves)


@pytest.mark.parametrize("name", sorted(GAUGE_FREE))
def test_complex_linalg_gradients_match_torch(name):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    f, shapes = GAUGE_FREE[name]
    arrays = [_rand(s, seed=30 + i) for i, s in enumerate(shapes)]
    ours = [_leaf(a) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out_ours, out_theirs = f(cygrad, cnp.linalg, *ours), f(torch, torch.linalg, *theirs)
    out_ours = out_ours if isinstance(out_ours, tuple) else (out_ours,)
    out_theirs = out_theirs if isinstance(out_theirs, tuple) else (out_theirs,)
    rng = np.random.default_rng(40)
    loss_ours = loss_theirs = 0
    for o, t in zip(out_ours, out_theirs):
        w = rng.standard_normal(tuple(t.shape))
        if t.is_complex():
            w = w + 1j * rng.standard_normal(tuple(t.shape))
            loss_ours = loss_ours + (o * cygrad.tensor(w)).real.sum()
            loss_theirs = loss_theirs + (t * torch.tensor(w)).real.sum()
        else:
            loss_ours = loss_ours + (o * cygrad.tensor(w)).sum()
            loss_theirs = loss_theirs + (t * torch.tensor(w)).sum()
    loss_ours.backward()
    loss_theirs.backward()
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_complex_linalg_direct_matrix_gradients_match_torch():
    """Gradients with respect to the matrix itself (no Hermitian wrapper), where
    PyTorch's formulas are not symmetric in A."""
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    h = _herm(4, "complex128", 50)
    w = _rand((4, 4), seed=51)
    for f_ours, f_theirs in [(cnp.linalg.cholesky, torch.linalg.cholesky),
                             (lambda a: cnp.linalg.cholesky(a, upper=True),
                              lambda a: torch.linalg.cholesky(a, upper=True)),
                             (cnp.linalg.eigvalsh, torch.linalg.eigvalsh)]:
        ours, theirs = _leaf(h), torch.tensor(h, requires_grad=True)
        out = f_ours(ours)
        weight = w if out.dim() == 2 else w[0]
        (out * cygrad.tensor(weight)).real.sum().backward()
        (f_theirs(theirs) * torch.tensor(weight)).real.sum().backward()
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("which", ["eigh", "svd"])
def test_phase_dependent_losses_are_refused_as_torch(which):
    a = _rand((3, 3), seed=60)
    a = a + a.conj().T

    def loss(L, t):
        if which == "eigh":
            return L.eigh(t)[1][1, 0].real     # (LAPACK makes row 0 real)
        return L.svd(t, full_matrices=False)[0][1, 0].real

    with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}"):
        loss(cnp.linalg, _leaf(a)).backward()
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}"):
        loss(torch.linalg, torch.tensor(a, requires_grad=True)).backward()
