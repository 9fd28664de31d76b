"""Op-table rows for the private numerical helpers of ``cygrad.distributions``:
``lgamma``/``digamma``/``erfinv`` (``_special.py``, composed or a Function) and the
Cholesky factor and triangular solve (``_linalg.py``), against SciPy/NumPy and
PyTorch.  They stand in for ``cygrad.lgamma``... until the special-function and
linear-algebra work lands; the rows keep checking whichever implementation
``cygrad.distributions`` uses.
"""
import math

import numpy as np
import pytest

import cygrad
from cygrad.distributions import _gamma, _linalg, _special

from .core import FLOATS, OpInfo, SampleInput, make_array


def _scipy_special():
    return pytest.importorskip("scipy.special", reason="SciPy is the reference for this row")


def _positive(op_info, dtype, rng):
    return [SampleInput(make_array(s, dtype, rng, low=0.1, high=6.0), name=n)
            for n, s in (("scalar", ()), ("vector", (5,)), ("matrix", (3, 4)))]


def _open_unit(op_info, dtype, rng):
    return [SampleInput(make_array(s, dtype, rng, low=-0.9, high=0.9), name=n)
            for n, s in (("scalar", ()), ("vector", (5,)), ("matrix", (3, 4)))]


def _gram_cholesky(a):
    """The Cholesky factor of ``a a^T + n I`` (a positive-definite input whatever
    ``a``, so gradcheck can perturb every entry of ``a`` freely)."""
    n = a.shape[-1]
    return _linalg.cholesky(a @ a.mT + n * cygrad.eye(n, dtype=a.dtype, device=a.device))


def _gram_cholesky_ref(a):
    n = a.shape[-1]
    return np.linalg.cholesky(a @ np.swapaxes(a, -1, -2) + n * np.eye(n))


def _square_samples(op_info, dtype, rng):
    return [SampleInput(make_array(s, dtype, rng), name=n)
            for n, s in (("single", (3, 3)), ("batch", (2, 4, 4)))]


def _triangular_samples(op_info, dtype, rng):
    def tri(shape):
        # a dominant diagonal keeps the solve well conditioned
        a = make_array(shape, dtype, rng)
        return (a + 4 * np.eye(shape[-1])).astype(a.dtype)
    out = []
    for upper in (False, True):
        out += [SampleInput(tri((3, 3)), (make_array((3, 2), dtype, rng),),
                            {"upper": upper}, name=f"single_upper{upper}"),
                SampleInput(tri((2, 3, 3)), (make_array((3, 1), dtype, rng),),
                            {"upper": upper}, name=f"broadcast_b_upper{upper}")]
    return out


def _solve_triangular_ref(a, b, upper):
    t = np.triu(a) if upper else np.tril(a)
    return np.linalg.solve(t, np.broadcast_to(b, t.shape[:-2] + b.shape[-2:]))


def _gammainc_samples(op_info, dtype, rng):
    # (x, a): x from near 0 to far in the upper tail, for small and large a
    return [SampleInput(make_array((6,), dtype, rng, low=0.05, high=12.0), (a,), name=f"a{a}")
            for a in (0.3, 2.5, 40.0)]


def _gammainc_in_x(x, a):
    """``P(a, x)`` as a function of ``x`` (PyTorch has no derivative in ``a``)."""
    return _gamma.gammainc(cygrad.full_like(x, a), x)


OPS = [
    OpInfo("distributions_lgamma", _special.lgamma,
           lambda a: np.vectorize(math.lgamma)(a.astype(np.float64)),
           dtypes=FLOATS, sample_inputs=_positive, method=None, supports_out=False,
           torch_name="lgamma", atol=1e-5, rtol=1e-5, check_zero_size=False),
    OpInfo("distributions_digamma", _special.digamma,
           lambda a: _scipy_special().digamma(a.astype(np.float64)),
           dtypes=FLOATS, sample_inputs=_positive, method=None, supports_out=False,
           torch_name="digamma", atol=1e-5, rtol=1e-5, check_zero_size=False),
    OpInfo("distributions_erfinv", _special.erfinv,
           lambda a: _scipy_special().erfinv(a.astype(np.float64)),
           dtypes=FLOATS, sample_inputs=_open_unit, method=None, supports_out=False,
           torch_name="erfinv", atol=1e-6, rtol=1e-5),
    OpInfo("distributions_cholesky", _gram_cholesky, _gram_cholesky_ref,
           dtypes=FLOATS, sample_inputs=_square_samples, method=None, supports_out=False,
           torch_name="", atol=1e-5, rtol=1e-5, check_zero_size=False),
    OpInfo("distributions_solve_triangular", _linalg.solve_triangular,
           _solve_triangular_ref, dtypes=FLOATS, sample_inputs=_triangular_samples,
           method=None, supports_out=False, torch_name="linalg.solve_triangular",
           atol=1e-5, rtol=1e-5, check_zero_size=False),
    OpInfo("distributions_gammainc", _gammainc_in_x,
           lambda x, a: _scipy_special().gammainc(a, x.astype(np.float64)),
           dtypes=FLOATS, sample_inputs=_gammainc_samples, method=None, supports_out=False,
           torch_name="", atol=1e-6, rtol=1e-6, check_zero_size=False),
]

AUTOGRAD_DEFAULTS = {"supports_autograd": True}
