"""Op-table rows for ``cygrad.special`` and the elementwise math functions of
``cygrad.ops.special`` (lgamma, xlogy, gcd, copysign ...).

Values are checked against SciPy's ``scipy.special`` (a test-only reference: the
rows skip their value tests, with that reason, where SciPy is missing) or NumPy,
and against PyTorch by the generated ``test_dtype_vs_torch``. Where SciPy and
PyTorch disagree at a special value (``i0(inf)``: SciPy inf, PyTorch NaN) the
reference follows PyTorch and says so."""

import numpy as np
import pytest

import cygrad
from cygrad import special as S

from .core import (FLOATS, HALFS, ALL_FLOATS, INTS, ErrorInput, OpInfo, SampleInput,
                   binary_samples, is_float, make_array, np_dtype, special_array, unary_samples)

try:
    import scipy.special as sps
except ImportError:          # the value rows skip (see _scipy)
    sps = None

AUTOGRAD_DEFAULTS = {"supports_autograd": True}

F_I = FLOATS + (cygrad.int64,)           # floats, and an integer dtype that promotes
F_H = ALL_FLOATS + (cygrad.int64,)


def _scipy(name, transform=None):
    """scipy.special.<name> as a reference (inputs in float64), optionally transformed."""
    def ref(*arrays, **kwargs):
        if sps is None:
            pytest.skip("SciPy is the reference for the special functions and is not installed")
        args = [np.asarray(a, dtype=np.float64) if isinstance(a, np.ndarray) else a for a in arrays]
        with np.errstate(all="ignore"):
            out = getattr(sps, name)(*args, **kwargs)
            return transform(out, *args) if transform else out
    return ref


def _nan_at_inf(out, x):
    """PyTorch gives NaN at +-inf where SciPy gives a limit (i0, i1, Bessel J/Y, Airy)."""
    return np.where(np.isinf(x), np.nan, out)


def _torch_lgamma(out, x):
    """SciPy's gammaln(-inf) is -inf; PyTorch's (and C's lgamma) is +inf."""
    return np.where(x == -np.inf, np.inf, out)


def _domain(low, high, special=True):
    def samples(op_info, dtype, rng):
        if is_float(dtype):
            return unary_samples(op_info, dtype, rng, low=low, high=high, special=special)
        return unary_samples(op_info, dtype, rng, low=max(int(low), -3), high=max(int(high), 2))
    return samples


def _half_refused(op_info, rng):
    """PyTorch has no half or complex kernel for these: NotImplementedError."""
    errs = []
    for dtype in HALFS + (cygrad.complex64,):
        arrays = [make_array((3,), dtype, rng) for _ in range(getattr(op_info, "arity", 1))]
        errs.append(ErrorInput(SampleInput(arrays[0], tuple(arrays[1:]), name=f"dtype_{dtype.name}"),
                               NotImplementedError))
    return errs


def _complex_refused(op_info, rng):
    a = make_array((3,), cygrad.complex64, rng)
    args = (make_array((3,), cygrad.complex64, rng),) * (getattr(op_info, "arity", 1) - 1)
    return [ErrorInput(SampleInput(a, args, name="complex"), NotImplementedError)]


def _quiet(ref):
    """The reference without NumPy's warnings (inf - inf, sin(inf): PyTorch says nothing)."""
    def quiet(*args, **kwargs):
        with np.errstate(all="ignore"):
            return ref(*args, **kwargs)
    return quiet


def unary(name, ref, dtypes, samples, *, special_only=False, tol=None, **kw):
    """A row for a unary function: special-only names have no method or in-place form."""
    ref = _quiet(ref)
    op = getattr(S, name) if special_only else getattr(cygrad, name)
    row = OpInfo(name, op, ref, dtypes, samples,
                 method=None if special_only else name,
                 inplace=None if special_only else kw.pop("inplace", name + "_"),
                 supports_out=True, torch_name=("special." + name) if special_only else None,
                 **({"atol": tol[0], "rtol": tol[1]} if tol else {}), **kw)
    row.arity = 1
    return row


def binary(name, ref, dtypes, samples, *, special_only=False, tol=None, **kw):
    ref = _quiet(ref)
    op = getattr(S, name) if special_only else getattr(cygrad, name)
    row = OpInfo(name, op, ref, dtypes, samples,
                 method=None if special_only else name,
                 inplace=None if special_only else kw.pop("inplace", name + "_"),
                 supports_out=True, torch_name=("special." + name) if special_only else None,
                 **({"atol": tol[0], "rtol": tol[1]} if tol else {}), **kw)
    row.arity = 2
    return row


# ---------------------------------------------------------------- sample generators

def _pair(low, high, rhs_low=None, rhs_high=None, special=False, scalars=True):
    def samples(op_info, dtype, rng):
        if is_float(dtype):
            return binary_samples(op_info, dtype, rng, low=low, high=high, rhs_low=rhs_low,
                                  rhs_high=rhs_high, special=special, scalars=scalars)
        return binary_samples(op_info, dtype, rng, low=0, high=5, scalars=scalars)
    return samples


def _polynomial_samples(low, high):
    def samples(op_info, dtype, rng):
        npdt = np_dtype(dtype)
        x = make_array((3, 8), dtype, rng, low, high) if is_float(dtype) else \
            make_array((3, 8), dtype, rng, -2, 3)
        n = np.arange(8).astype(npdt)                    # degrees 0..7, one per column
        out = [SampleInput(x, (n,), name="degrees"),
               SampleInput(x, (5,), name="int_degree"),
               SampleInput(x[:, :1], (np.array([-1, 9]).astype(npdt),), name="neg_and_high")]
        if is_float(dtype):
            # (no NaN x: PyTorch's value there depends on the branch its code takes)
            edges = np.array([-1.0, 1.0, 0.0, 0.5]).astype(npdt)
            out.append(SampleInput(edges, (np.array(3).astype(npdt),), name="edges"))
        return out
    return samples


def _poly_ref(fn):
    def ref(x, n):
        if sps is None:
            pytest.skip("SciPy is the reference for the special functions and is not installed")
        x, n = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(n))
        n_int = n.astype(np.int64)
        with np.errstate(all="ignore"):
            out = np.where(n_int < 0, 0.0, fn(np.maximum(n_int, 0), x))
        return out
    return ref


def _cheb_v(n, x):   # V_n = U_n - U_{n-1}
    return sps.eval_chebyu(n, x) - np.where(n > 0, sps.eval_chebyu(np.maximum(n - 1, 0), x), 0)


def _cheb_w(n, x):   # W_n = U_n + U_{n-1}
    return sps.eval_chebyu(n, x) + np.where(n > 0, sps.eval_chebyu(np.maximum(n - 1, 0), x), 0)


def _xlog_samples(op_info, dtype, rng):
    out = _pair(-2, 2, 0.1, 4)(op_info, dtype, rng)
    if is_float(dtype):
        npdt = np_dtype(dtype)
        out.append(SampleInput(np.array([0.0, 0.0, 1.0, 0.0]).astype(npdt),
                               (np.array([0.0, np.nan, 0.0, np.inf]).astype(npdt),), name="zeros"))
    return out


def _xlogy_ref(log):
    def ref(x, y):
        x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
        with np.errstate(all="ignore"):
            return np.where(np.isnan(y), np.nan, np.where(x == 0, 0.0, x * log(y)))
    return ref


def _gamma_samples(op_info, dtype, rng):
    npdt = np_dtype(dtype)
    a = np.array([0.5, 1.0, 2.5, 10.0, 40.0, 3.0]).astype(npdt)
    x = np.array([0.1, 1.0, 3.0, 9.0, 45.0, 0.0]).astype(npdt)
    out = [SampleInput(a, (x,), name="grid"),
           SampleInput(make_array((3, 4), dtype, rng, 0.2, 6), (make_array((4,), dtype, rng, 0.1, 8),),
                       name="broadcast")]
    if is_float(dtype):
        out.append(SampleInput(np.array([-1.0, 0.0, 0.0, 2.0, np.inf, np.nan]).astype(npdt),
                               (np.array([1.0, 1.0, 0.0, np.inf, 1.0, 1.0]).astype(npdt),),
                               name="edges"))
    return out


def _zeta_samples(op_info, dtype, rng):
    npdt = np_dtype(dtype)
    s = np.array([1.5, 2.0, 3.0, 4.5, 10.0, 2.0, 3.0, 1.0, 0.5]).astype(npdt)
    q = np.array([0.5, 1.0, 2.0, 0.1, 3.0, -1.5, -2.0, 1.0, 1.0]).astype(npdt)
    return [SampleInput(s, (q,), name="grid"),
            SampleInput(make_array((3, 4), dtype, rng, 1.5, 5), (make_array((4,), dtype, rng, 0.5, 4),),
                        name="broadcast"),
            SampleInput(np.array([2.0, 3.0]).astype(npdt), (1.0,), name="number_q")]


def _polygamma_samples(op_info, dtype, rng):
    out = []
    for n in (0, 1, 3):
        for s in unary_samples(op_info, dtype, rng, low=0.3, high=5) if is_float(dtype) else \
                unary_samples(op_info, dtype, rng, low=1, high=6):
            out.append(SampleInput(s.input, (n,), name=f"n{n}_{s.name}"))
    if is_float(dtype):
        out.append(SampleInput(np.array([-2.5, -0.5, 0.0, -1.0]).astype(np_dtype(dtype)), (1,),
                               name="negative"))
    return out


def _polygamma_ref(x, n):
    if sps is None:
        pytest.skip("SciPy is the reference for the special functions and is not installed")
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        out = sps.polygamma(n, x)
    # at the poles (0, -1, ...) PyTorch gives +inf for odd n (via zeta) and digamma's rule for n = 0
    pole = (x <= 0) & (x == np.floor(x))
    if n == 0:
        return np.where(x == 0, -np.inf * np.sign(1 / np.where(x == 0, x, 1)), np.where(pole, np.nan, out))
    return np.where(pole, np.inf if n % 2 else np.nan, out)


def _mvlgamma_samples(op_info, dtype, rng):
    out = []
    for p in (1, 3):
        lo = (p - 1) / 2 + 0.1 if is_float(dtype) else (p - 1) // 2 + 1
        out.append(SampleInput(make_array((3, 4), dtype, rng, lo, lo + 5), (), {"p": p}, f"p{p}"))
    return out


def _mvlgamma_ref(x, p):
    return _scipy("multigammaln")(x, p) if np.ndim(x) == 0 else \
        np.vectorize(lambda v: _scipy("multigammaln")(v, p), otypes=[np.float64])(np.asarray(x, np.float64))


def _logit_samples(op_info, dtype, rng):
    out = unary_samples(op_info, dtype, rng, low=0.05, high=0.95)
    out.append(SampleInput(make_array((3, 4), dtype, rng, 0.0, 1.0), (), {"eps": 0.2}, "eps"))
    if is_float(dtype):
        out.append(SampleInput(np.array([0.0, 1.0, 0.5, -0.5, np.nan]).astype(np_dtype(dtype)),
                               name="edges"))
    return out


def _logit_ref(x, eps=None):
    x = np.asarray(x, np.float64)
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    with np.errstate(all="ignore"):
        return np.log(x / (1 - x))


def _frexp_samples(op_info, dtype, rng):
    out = unary_samples(op_info, dtype, rng, low=-50, high=50)
    # powers of two, where the mantissa jumps (the inf keeps the sample out of gradcheck)
    out.append(SampleInput(np.array([0.0, -0.0, 1.0, 0.75, -8.0, 1e-3, np.inf]).astype(np_dtype(dtype)),
                           name="exact"))
    return out


def _frexp_ref(x):
    m, e = np.frexp(np.asarray(x, np.float32 if x.dtype != np.float64 else np.float64))
    return m, e.astype(np.int32)


def _ldexp_samples(op_info, dtype, rng):
    x = make_array((3, 4), dtype, rng, -3, 3)
    e = make_array((4,), cygrad.int64, rng, -4, 5)
    return [SampleInput(x, (e,), name="int_exponent"),
            SampleInput(x, (make_array((3, 4), dtype, rng, -2, 2),), name="float_exponent")]


def _ldexp_ref(x, e):
    return np.asarray(x, np.float64) * np.exp2(np.asarray(e, np.float64))


def _gcd_samples(op_info, dtype, rng):
    out = binary_samples(op_info, dtype, rng, low=0, high=30, scalars=False)
    if dtype != cygrad.uint8:
        npdt = np_dtype(dtype)
        out.append(SampleInput(np.array([-12, 0, 0, 7]).astype(npdt),
                               (np.array([18, 0, -5, 0]).astype(npdt),), name="signs_zeros"))
    return out


def _heaviside_samples(op_info, dtype, rng):
    npdt = np_dtype(dtype)
    x = np.array([-2, 0, 3, 0, 1, -1]).astype(npdt) if dtype != cygrad.uint8 else \
        np.array([0, 0, 3, 1, 0, 2]).astype(npdt)
    vals = np.array([5, 7, 1, 0, 2, 3]).astype(npdt)
    out = [SampleInput(x, (vals,), name="mixed"),
           SampleInput(x, (vals[:1],), name="broadcast_values")]
    if is_float(dtype):
        out.append(SampleInput(special_array(dtype), (np.array([0.5]).astype(npdt),), name="special"))
    return out


def _heaviside_ref(x, v):
    x = np.asarray(x)          # PyTorch's rule: NaN > 0 is false, so heaviside(NaN) = 0
    return np.where(x == 0, v, x > 0).astype(x.dtype)


def _copysign_samples(op_info, dtype, rng):
    out = _pair(-3, 3, -3, 3)(op_info, dtype, rng)
    if is_float(dtype):
        npdt = np_dtype(dtype)
        # (the inf keeps this sample out of gradcheck: the sign jumps at -0.0/0.0)
        out.append(SampleInput(np.array([1.0, 2.0, -3.0, 0.0, np.inf]).astype(npdt),
                               (np.array([-0.0, 0.0, np.inf, -1.0, -0.0]).astype(npdt),),
                               name="zeros"))
    return out


def _copysign_ref(a, b):
    return np.copysign(np.asarray(a, np.float64), np.asarray(b, np.float64))


def _nextafter_ref(a, b):
    return np.nextafter(a, b)


def _clamp_samples(op_info, dtype, rng):
    x = make_array((3, 4), dtype, rng, -5, 5)
    return [SampleInput(x, (0,), name="number"),
            SampleInput(x, (make_array((4,), dtype, rng, -2, 2),), name="tensor_bound")]


def _hardshrink_samples(op_info, dtype, rng):
    x = make_array((3, 4), dtype, rng, -2, 2)
    return [SampleInput(x, name="default"), SampleInput(x, (1.0,), name="lambd")]


def _hardshrink_ref(x, lambd=0.5):
    return np.where(np.abs(x) > lambd, x, 0)


def _bool_ref(fn):
    def ref(x):
        x = np.asarray(x)
        if x.dtype == np.bool_:
            return np.zeros(x.shape, bool)
        return fn(x.astype(np.float64))
    return ref


# ----------------------------------------------------------------------- the rows

_NO_AUTOGRAD = {"supports_autograd": False}
# the first argument of these has no derivative in PyTorch ("not implemented"): the
# rows declare no autograd; tests/test_special.py gradchecks the second argument
_SECOND_ONLY = {"supports_autograd": False}

OPS = [
    # --- gamma family ----------------------------------------------------------
    unary("lgamma", _scipy("gammaln", _torch_lgamma), F_H, _domain(0.1, 6)),
    unary("digamma", _scipy("psi"), F_H, _domain(0.1, 6), tol=(1e-5, 1e-4)),
    OpInfo("polygamma", lambda x, n, **kw: cygrad.polygamma(n, x, **kw), _quiet(_polygamma_ref), F_I,
           _polygamma_samples, method="polygamma", inplace="polygamma_", supports_out=True,
           torch_name="",   # torch.polygamma takes (n, input): tests/test_special.py compares
           rtol=1e-4, atol=1e-4),
    OpInfo("mvlgamma", cygrad.mvlgamma, _mvlgamma_ref, F_I, _mvlgamma_samples, method="mvlgamma",
           inplace="mvlgamma_", supports_out=True,
           skips={"test_inplace": "int64 inputs give a float result that cannot go back "
                                  "in place; tests/test_special.py covers mvlgamma_"}),
    binary("igamma", _scipy("gammainc"), ALL_FLOATS, _gamma_samples, **_SECOND_ONLY,
           error_inputs=lambda op, rng: [ErrorInput(SampleInput(
               make_array((3,), cygrad.int64, rng, 1, 4), (make_array((3,), cygrad.int64, rng, 1, 4),),
               name="int"), NotImplementedError)]),
    binary("igammac", _scipy("gammaincc"), ALL_FLOATS, _gamma_samples, **_SECOND_ONLY),
    binary("gammainc", _scipy("gammainc"), FLOATS, _gamma_samples, special_only=True, **_SECOND_ONLY),
    binary("gammaincc", _scipy("gammaincc"), FLOATS, _gamma_samples, special_only=True,
           **_SECOND_ONLY),
    binary("zeta", _scipy("zeta"), F_I, _zeta_samples, special_only=True, **_SECOND_ONLY,
           error_inputs=_half_refused),
    # --- error-function family ---------------------------------------------------
    unary("erfinv", _scipy("erfinv"), F_H, _domain(-0.99, 0.99)),
    unary("ndtr", _scipy("ndtr"), F_H, _domain(-6, 6), special_only=True),
    unary("ndtri", _scipy("ndtri"), F_I, _domain(0.01, 0.99), special_only=True,
          error_inputs=_half_refused),
    unary("log_ndtr", _scipy("log_ndtr"), F_I, _domain(-20, 6), special_only=True,
          error_inputs=_half_refused),
    unary("erfcx", _scipy("erfcx"), F_I, _domain(-3, 30), special_only=True,
          error_inputs=_half_refused),
    unary("entr", _scipy("entr"), F_H, _domain(0.01, 5), special_only=True),
    unary("sinc", np.sinc, F_H + (cygrad.complex64, cygrad.complex128), _domain(-4, 4)),
    # --- Bessel and Airy -----------------------------------------------------------
    unary("i0", _scipy("i0", _nan_at_inf), F_H, _domain(-8, 8), error_inputs=_complex_refused),
    unary("i0e", _scipy("i0e"), F_H, _domain(-40, 40), special_only=True),
    unary("i1", _scipy("i1", _nan_at_inf), F_H, _domain(-8, 8), special_only=True),
    unary("i1e", _scipy("i1e"), F_H, _domain(-40, 40), special_only=True),
    unary("modified_bessel_i0", _scipy("i0", _nan_at_inf), F_I, _domain(-8, 8), special_only=True,
          error_inputs=_half_refused, **_NO_AUTOGRAD),
    unary("modified_bessel_i1", _scipy("i1", _nan_at_inf), FLOATS, _domain(-8, 8), special_only=True,
          error_inputs=_half_refused, **_NO_AUTOGRAD),
    unary("modified_bessel_k0", _scipy("k0"), FLOATS, _domain(0.01, 30), special_only=True,
          error_inputs=_half_refused, **_NO_AUTOGRAD),
    unary("modified_bessel_k1", _scipy("k1"), FLOATS, _domain(0.01, 30), special_only=True,
          **_NO_AUTOGRAD),
    unary("scaled_modified_bessel_k0", _scipy("k0e"), FLOATS, _domain(0.01, 300), special_only=True,
          **_NO_AUTOGRAD),
    unary("scaled_modified_bessel_k1", _scipy("k1e"), FLOATS, _domain(0.01, 300), special_only=True,
          **_NO_AUTOGRAD),
    unary("bessel_j0", _scipy("j0", _nan_at_inf), F_I, _domain(-30, 30), special_only=True,
          error_inputs=_half_refused, tol=(1e-6, 1e-5), **_NO_AUTOGRAD),
    unary("bessel_j1", _scipy("j1", _nan_at_inf), FLOATS, _domain(-30, 30), special_only=True,
          tol=(1e-6, 1e-5), **_NO_AUTOGRAD),
    unary("bessel_y0", _scipy("y0", _nan_at_inf), FLOATS, _domain(0.01, 30), special_only=True,
          tol=(1e-6, 1e-5), **_NO_AUTOGRAD),
    unary("bessel_y1", _scipy("y1", _nan_at_inf), FLOATS, _domain(0.01, 30), special_only=True,
          tol=(1e-6, 1e-5), **_NO_AUTOGRAD),
    unary("airy_ai", _scipy("airy", lambda out, x: _nan_at_inf(out[0], x)), FLOATS, _domain(-10, 10),
          special_only=True, error_inputs=_half_refused, tol=(1e-5, 1e-4), **_NO_AUTOGRAD),
    unary("spherical_bessel_j0", lambda x: np.where(np.isinf(x), 0.0, _scipy("spherical_jn")(0, x)),
          F_I, _domain(-20, 20), special_only=True, **_NO_AUTOGRAD),
    # --- x log y ----------------------------------------------------------------
    binary("xlogy", _xlogy_ref(np.log), F_H, _xlog_samples),
    binary("xlog1py", _xlogy_ref(np.log1p), F_H, _xlog_samples, special_only=True),
    # --- two-argument math --------------------------------------------------------
    binary("logaddexp", np.logaddexp, ALL_FLOATS, _pair(-5, 5, special=True, scalars=False),
           inplace=None, error_inputs=lambda op, rng: [ErrorInput(SampleInput(
               make_array((3,), cygrad.int64, rng), (make_array((3,), cygrad.int64, rng),),
               name="int"), NotImplementedError)]),
    binary("logaddexp2", np.logaddexp2, ALL_FLOATS, _pair(-5, 5, special=True, scalars=False),
           inplace=None),
    binary("copysign", _copysign_ref, F_H, _copysign_samples),
    binary("nextafter", _nextafter_ref, FLOATS, _pair(-3, 3, -3, 3, special=True, scalars=False)),
    binary("heaviside", _heaviside_ref, FLOATS + (cygrad.int64, cygrad.uint8, cygrad.bool),
           _heaviside_samples, **_NO_AUTOGRAD,
           error_inputs=lambda op, rng: [ErrorInput(SampleInput(
               make_array((3,), cygrad.float32, rng), (make_array((3,), cygrad.float64, rng),),
               name="mixed_dtypes"), RuntimeError, "different dtypes")]),
    binary("gcd", np.gcd, INTS, _gcd_samples, error_inputs=lambda op, rng: [
        ErrorInput(SampleInput(make_array((3,), d, rng), (make_array((3,), d, rng),),
                               name=d.name), NotImplementedError)
        for d in (cygrad.bool, cygrad.float32)]),
    binary("lcm", np.lcm, INTS, _gcd_samples),
    OpInfo("ldexp", cygrad.ldexp, _quiet(_ldexp_ref), FLOATS, _ldexp_samples, method="ldexp",
           inplace="ldexp_", supports_out=True),
    OpInfo("frexp", cygrad.frexp, _quiet(_frexp_ref), ALL_FLOATS, _frexp_samples, method="frexp",
           supports_out=False, supports_forward_ad=True, supports_gradgrad=True,
           error_inputs=lambda op, rng: [ErrorInput(SampleInput(
               make_array((3,), cygrad.int64, rng), name="int"), RuntimeError)]),
    # --- logit, angles, rounding, sign tests -----------------------------------------
    OpInfo("logit", cygrad.logit, _quiet(_logit_ref), F_H, _logit_samples, method="logit",
           inplace="logit_", supports_out=True),
    unary("deg2rad", lambda x: np.deg2rad(np.asarray(x, np.float64)), F_H, _domain(-360, 360),
          error_inputs=lambda op, rng: [ErrorInput(SampleInput(
              make_array((3,), cygrad.complex64, rng), name="complex"), RuntimeError)]),
    unary("rad2deg", lambda x: np.rad2deg(np.asarray(x, np.float64)), F_H, _domain(-7, 7)),
    unary("fix", np.trunc, ALL_FLOATS + INTS, _domain(-5, 5), tol=(0, 0)),
    unary("signbit", _bool_ref(np.signbit), ALL_FLOATS + (cygrad.int64, cygrad.uint8, cygrad.bool),
          _domain(-3, 3), inplace=None, **_NO_AUTOGRAD,
          skips={"test_dtype_vs_torch:bfloat16": "the NaN's sign bit: the harness's conversion "
                 "to a torch bfloat16 gives a NaN with the bit set, ml_dtypes one without"},
          error_inputs=lambda op, rng: [ErrorInput(SampleInput(
              make_array((3,), cygrad.complex64, rng), name="complex"), NotImplementedError)]),
    unary("isposinf", _bool_ref(np.isposinf), ALL_FLOATS + (cygrad.int64, cygrad.bool),
          _domain(-3, 3), inplace=None, **_NO_AUTOGRAD,
          error_inputs=lambda op, rng: [ErrorInput(SampleInput(
              make_array((3,), cygrad.complex64, rng), name="complex"), RuntimeError)]),
    unary("isneginf", _bool_ref(np.isneginf), ALL_FLOATS + (cygrad.int64, cygrad.bool),
          _domain(-3, 3), inplace=None, **_NO_AUTOGRAD),
    OpInfo("clamp_min", cygrad.clamp_min, lambda x, m: np.maximum(x, m), F_I, _clamp_samples,
           method="clamp_min", inplace="clamp_min_", supports_out=True),
    OpInfo("clamp_max", cygrad.clamp_max, lambda x, m: np.minimum(x, m), F_I, _clamp_samples,
           method="clamp_max", inplace="clamp_max_", supports_out=True),
    OpInfo("hardshrink", cygrad.hardshrink, _hardshrink_ref, FLOATS, _hardshrink_samples,
           method="hardshrink", supports_out=False),
    OpInfo("sgn", cygrad.sgn, np.sign, FLOATS + (cygrad.int64,), _domain(-3, 3, special=False),
           method="sgn", inplace="sgn_", supports_out=True, variant="inplace"),
    # --- orthogonal polynomials (no derivatives in PyTorch) ----------------------------
    binary("chebyshev_polynomial_t", _poly_ref(lambda n, x: sps.eval_chebyt(n, x)), F_I,
           _polynomial_samples(-1.2, 1.2), special_only=True, **_NO_AUTOGRAD,
           error_inputs=_half_refused),
    binary("chebyshev_polynomial_u", _poly_ref(lambda n, x: sps.eval_chebyu(n, x)), FLOATS,
           _polynomial_samples(-1.2, 1.2), special_only=True, **_NO_AUTOGRAD),
    binary("chebyshev_polynomial_v", _poly_ref(_cheb_v), FLOATS, _polynomial_samples(-1.2, 1.2),
           special_only=True, **_NO_AUTOGRAD),
    binary("chebyshev_polynomial_w", _poly_ref(_cheb_w), FLOATS, _polynomial_samples(-1.2, 1.2),
           special_only=True, **_NO_AUTOGRAD),
    binary("shifted_chebyshev_polynomial_t", _poly_ref(lambda n, x: sps.eval_sh_chebyt(n, x)), FLOATS,
           _polynomial_samples(-0.2, 1.2), special_only=True, **_NO_AUTOGRAD),
    binary("shifted_chebyshev_polynomial_u", _poly_ref(lambda n, x: sps.eval_sh_chebyu(n, x)), FLOATS,
           _polynomial_samples(-0.2, 1.2), special_only=True, **_NO_AUTOGRAD),
    binary("shifted_chebyshev_polynomial_v", _poly_ref(lambda n, x: _cheb_v(n, 2 * x - 1)), FLOATS,
           _polynomial_samples(-0.2, 1.2), special_only=True, **_NO_AUTOGRAD),
    binary("shifted_chebyshev_polynomial_w", _poly_ref(lambda n, x: _cheb_w(n, 2 * x - 1)), FLOATS,
           _polynomial_samples(-0.2, 1.2), special_only=True, **_NO_AUTOGRAD),
    binary("hermite_polynomial_h", _poly_ref(lambda n, x: sps.eval_hermite(n, x)), FLOATS,
           _polynomial_samples(-3, 3), special_only=True, **_NO_AUTOGRAD),
    binary("hermite_polynomial_he", _poly_ref(lambda n, x: sps.eval_hermitenorm(n, x)), FLOATS,
           _polynomial_samples(-3, 3), special_only=True, **_NO_AUTOGRAD),
    binary("laguerre_polynomial_l", _poly_ref(lambda n, x: sps.eval_laguerre(n, x)), FLOATS,
           _polynomial_samples(-2, 8), special_only=True, **_NO_AUTOGRAD),
    binary("legendre_polynomial_p", _poly_ref(lambda n, x: sps.eval_legendre(n, x)), FLOATS,
           _polynomial_samples(-1.2, 1.2), special_only=True, **_NO_AUTOGRAD),
]
