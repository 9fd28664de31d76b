"""cygrad.numpy.fft and cygrad.fft: values against NumPy (every function, norm,
n/s padding and cropping, axes), dtypes, second derivatives, torch's namespace
against torch. (gradcheck of the transforms: the fft rows of tests/numpy_cases.py.)"""
import numpy as np
import pytest

import cygrad
import cygrad.numpy as cnp

NORMS = ["backward", "ortho", "forward"]
ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"]
REAL_INPUT = {"rfft", "ihfft", "rfftn", "rfft2"}

_rng = np.random.default_rng(7)
REAL = _rng.standard_normal((3, 4, 6))
CPLX = _rng.standard_normal((3, 4, 6)) + 1j * _rng.standard_normal((3, 4, 6))


def _src(name):
    return REAL if name in REAL_INPUT else CPLX


def _close(got, want):
    got = got.numpy()
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("n", [None, 3, 6, 9])
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_d_values(name, norm, n, axis):
    a = _src(name)
    want = getattr(np.fft, name)(a, n=n, axis=axis, norm=norm)
    _close(getattr(cnp.fft, name)(cnp.asarray(a), n=n, axis=axis, norm=norm), want)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", N_D)
@pytest.mark.parametrize("s,axes", [(None, None), ((2, 5), None), ((4, 7), (0, 2)),
                                    (None, (2, 0)), ((5, -1), (1, 2))])
def test_n_d_values(name, norm, s, axes):
    a = _src(name)
    if name.endswith("2") and axes is None:
        axes = (-2, -1)
    if name.endswith("2") and len(axes) != 2:
        pytest.skip(reason="fft2 family transforms exactly two axes")
    np_s, np_axes = s, axes
    if s is not None and axes is None:
        np_axes = tuple(range(a.ndim - len(s), a.ndim))   # NumPy 2 wants them explicit
    if s is not None and -1 in s:
        # NumPy 2 deprecates -1 in s; the standard keeps the axis' size
        np_s = tuple(a.shape[ax] if v == -1 else v for v, ax in zip(s, axes))
    want = getattr(np.fft, name)(a, s=np_s, axes=np_axes, norm=norm)
    _close(getattr(cnp.fft, name)(cnp.asarray(a), s=s, axes=axes, norm=norm), want)


def test_positional_numpy_forms_and_default_norm():
    a = CPLX[0]
    _close(cnp.fft.fft(cnp.asarray(a), 5, 0), np.fft.fft(a, 5, 0))
    _close(cnp.fft.fftn(cnp.asarray(a), (3, 3), (0, 1), None), np.fft.fftn(a, (3, 3), (0, 1)))


@pytest.mark.parametrize("dt,want", [(np.float32, np.complex64), (np.float64, np.complex128),
                                     (np.complex64, np.complex64), (np.int32, np.complex128)])
def test_result_dtypes_match_numpy(dt, want):
    a = (REAL[0] * 4).astype(dt)
    out = cnp.fft.fft(cnp.asarray(a))
    assert out.numpy().dtype == np.fft.fft(a).dtype == want
    np.testing.assert_allclose(out.numpy(), np.fft.fft(a), rtol=1e-5, atol=1e-4)
    if dt is not np.complex64:
        assert cnp.fft.rfft(cnp.asarray(a)).numpy().dtype == np.fft.rfft(a).dtype
        assert cnp.fft.irfft(cnp.fft.rfft(cnp.asarray(a))).numpy().dtype == np.fft.irfft(np.fft.rfft(a)).dtype


def test_errors():
    x = cnp.asarray(CPLX[0])
    with pytest.raises(TypeError):
        cnp.fft.rfft(x)
    with pytest.raises(ValueError):
        cnp.fft.fft(x, norm="unitary")
    with pytest.raises(ValueError):
        cnp.fft.fft(x, n=0)
    with pytest.raises(IndexError):
        cnp.fft.fft(x, axis=2)


@pytest.mark.parametrize("n", [1, 4, 7])
@pytest.mark.parametrize("d", [1.0, 0.25])
def test_frequencies_and_shifts(n, d):
    _close(cnp.fft.fftfreq(n, d=d), np.fft.fftfreq(n, d=d))
    _close(cnp.fft.rfftfreq(n, d=d), np.fft.rfftfreq(n, d=d))
    assert cnp.fft.fftfreq(n, dtype=cnp.float32).dtype is cnp.float32
    a = REAL[:, :n % 4 + 1, :]
    for axes in (None, 1, (0, 2)):
        _close(cnp.fft.fftshift(cnp.asarray(a), axes=axes), np.fft.fftshift(a, axes=axes))
        _close(cnp.fft.ifftshift(cnp.asarray(a), axes=axes), np.fft.ifftshift(a, axes=axes))


def test_kernels_are_in_the_table():
    from cygrad._core.dispatch import primitives
    assert {"fft_c2c", "fft_r2c", "fft_c2r"} <= set(primitives("cpu"))


# ------------------------------------------------------------------------ gradients

def _leaf(a):
    return cygrad.from_numpy(np.array(a)).requires_grad_()


# gradcheck of every transform and norm (real and complex inputs) runs from the table
# in tests/numpy_cases.py, in numpy_api/test_np_grad.py


def test_second_order_gradient():
    x = _leaf(REAL[0, 0, :5])

    def f(t):
        return cnp.sum(cnp.abs(cnp.fft.rfft(t * t)) ** 2)

    (g,) = cygrad.autograd.grad(f(x), x, create_graph=True)
    (h,) = cygrad.autograd.grad(g.sum(), x)
    eps, a = 1e-6, REAL[0, 0, :5]

    def grad_np(v):
        # d/dv sum |rfft(v^2)|^2 by central differences
        def f_np(u):
            return np.sum(np.abs(np.fft.rfft(u * u)) ** 2)
        return np.array([(f_np(v + eps * e) - f_np(v - eps * e)) / (2 * eps) for e in np.eye(5)])

    np.testing.assert_allclose(g.detach().numpy(), grad_np(a), rtol=1e-5, atol=1e-5)
    h_np = np.array([(grad_np(a + 1e-4 * e) - grad_np(a - 1e-4 * e)).sum() / 2e-4 for e in np.eye(5)])
    np.testing.assert_allclose(h.numpy(), h_np, rtol=1e-3, atol=1e-3)


# ------------------------------------------------------------------- cygrad.fft vs torch

@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn",
                                  "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_torch_namespace_values_and_grads(name, norm):
    torch = pytest.importorskip("torch")
    a = _src(name)[0]
    kw = {"dim": 0, "n": 5} if name in ONE_D else {"s": (3, 7)}
    want = getattr(torch.fft, name)(torch.from_numpy(a), norm=norm, **kw).resolve_conj()
    x = _leaf(a)
    got = getattr(cygrad.fft, name)(x, norm=norm, **kw)
    np.testing.assert_allclose(got.detach().numpy(), want.numpy(), rtol=1e-10, atol=1e-10)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    # the same real loss backpropagated through both
    tx = torch.from_numpy(a).requires_grad_()
    getattr(torch.fft, name)(tx, norm=norm, **kw).abs().sum().backward()
    got.abs().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_torch_namespace_real_float32_and_freqs():
    torch = pytest.importorskip("torch")
    a = REAL[0].astype(np.float32)
    got = cygrad.fft.fft(cygrad.from_numpy(a))
    assert got.dtype is cygrad.complex64
    np.testing.assert_allclose(got.numpy(), torch.fft.fft(torch.from_numpy(a)).numpy(), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(cygrad.fft.fftfreq(7, 0.5).numpy(), torch.fft.fftfreq(7, 0.5).numpy())
    np.testing.assert_allclose(cygrad.fft.rfftfreq(6).numpy(), torch.fft.rfftfreq(6).numpy())
    np.testing.assert_array_equal(cygrad.fft.fftshift(cygrad.arange(10).reshape(2, 5), dim=1).numpy(),
                                  torch.fft.fftshift(torch.arange(10).reshape(2, 5), dim=1).numpy())
