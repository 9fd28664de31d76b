"""Op-table rows for the ``cygrad.ops.elementwise`` package: one row per name in its ``__all__``
(``test_elementwise_rows_cover_all`` in tests/test_ops.py checks that).

References follow PyTorch's semantics where they differ from NumPy's (sign(NaN) == 0,
relu keeps -0.0, integer ops promote to the default float, ...)."""
import math

import ml_dtypes
import numpy as np

import cygrad

from .core import (ALL, ALL_FLOATS, FLOATS, ALL_NUMERIC, BOOL, INTS, INTS_AND_BOOL, ErrorInput,
                   OpInfo, SampleInput, binary_samples, is_float, make_array, np_dtype,
                   special_array, unary_samples)


# ---------------------------------------------------------------------------
# reference helpers
# ---------------------------------------------------------------------------
def _as_float(x):
    """Integers/bools -> float64 (torch computes them in the default float; NumPy would
    pick float16 for int8 inputs and lose precision)."""
    if isinstance(x, np.ndarray) and x.dtype.kind in "biu":
        return x.astype(np.float64)
    if isinstance(x, (bool, int)) and not isinstance(x, float):
        return float(x)
    return x


def _quiet(f):
    """``f`` with NumPy's floating-point warnings silenced (inf/NaN are expected)."""
    def ref(*args, **kwargs):
        with np.errstate(all="ignore"):
            return f(*args, **kwargs)
    ref.__name__ = getattr(f, "__name__", "ref")
    return ref


def _float_ref(f):
    return _quiet(lambda *args, **kw: f(*(_as_float(a) for a in args), **kw))


def _int_pow(a, b):
    return np.power(a, b)


def _sign(a):
    # torch.sign(NaN) is 0 and sign(-0.0) is +0.0; NumPy keeps NaN.
    if a.dtype == np.bool_:
        return a.copy()
    s = np.sign(a)
    if a.dtype.kind == "f":
        s = np.where(np.isnan(a), 0, s) + 0.0
    return s


def _relu(a):
    # keeps NaN and -0.0, as torch does
    return np.where(a < 0, np.zeros((), a.dtype), a)


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _frac(a):
    return a - np.trunc(a)


def _bitwise_not(a):
    return np.invert(a)


def _div_trunc(a, b, rounding_mode="trunc"):
    if np.asarray(a).dtype.kind in "iu" and not isinstance(b, float) and np.asarray(b).dtype.kind in "iu":
        # exact integer truncation (a float round trip loses int64 bits)
        q = np.floor_divide(a, b)
        return q + ((np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0)))
    return np.trunc(np.true_divide(_as_float(a), _as_float(b)))


def _div_trunc_samples(op_info, dtype, rng):
    out = binary_samples(op_info, dtype, rng, nonzero_rhs=True, kwargs={"rounding_mode": "trunc"})
    if dtype == cygrad.int64:
        big = np.array([2**40 + 1, -(2**62) - 3, 2**53 + 1, -7, 7], dtype=np.int64)
        out.append(SampleInput(big, (np.array([3, 7, 2, 2, -2], dtype=np.int64),),
                               {"rounding_mode": "trunc"}, "int64_exact"))
    return out


def _add(a, b, alpha=1):
    return a + alpha * b if alpha != 1 else a + b


def _sub(a, b, alpha=1):
    return a - alpha * b if alpha != 1 else a - b


def _clamp(a, min=None, max=None):
    res = a
    if min is not None:
        res = np.maximum(res, min)
    if max is not None:
        res = np.minimum(res, max)
    return res


def _lerp(a, b, w):
    return a + w * (b - a)


def _round(a, decimals=0):
    return np.round(a, decimals)


def _float_power(a, b):
    return np.power(np.asarray(a, np.float64), np.asarray(b, np.float64))


def _equal(a, b):
    return a.shape == np.shape(b) and bool(np.all(a == b))


# ---------------------------------------------------------------------------
# sample generators beyond the standard ones
# ---------------------------------------------------------------------------
def _with(generator, **options):
    def samples(op_info, dtype, rng):
        return generator(op_info, dtype, rng, **options)
    return samples


def _float_domain(generator, low, high, **options):
    """Domain restriction for floats only (integer inputs keep the default range:
    out-of-domain results are NaN/inf there, as in torch)."""
    def samples(op_info, dtype, rng):
        if is_float(dtype):
            return generator(op_info, dtype, rng, low=low, high=high, **options)
        return generator(op_info, dtype, rng, **options)
    return samples


def _add_samples(op_info, dtype, rng):
    out = binary_samples(op_info, dtype, rng)
    if dtype != cygrad.bool:
        a, b = make_array((3, 4), dtype, rng), make_array((4,), dtype, rng)
        out.append(SampleInput(a, (b,), {"alpha": 2}, "alpha"))
    return out


def _shift_samples(op_info, dtype, rng):
    return binary_samples(op_info, dtype, rng, rhs_low=0, rhs_high=4)


def _pow_samples(op_info, dtype, rng):
    if is_float(dtype):
        out = binary_samples(op_info, dtype, rng, low=0.1, high=3, rhs_low=-2, rhs_high=2)
        out.append(SampleInput(special_array(dtype), (2.0,), name="special_sq"))
        out.append(SampleInput(make_array((3, 4), dtype, rng, -3, 3), (2,), name="neg_base_int_exp"))
        return out
    return binary_samples(op_info, dtype, rng, low=-3, high=4, rhs_low=0, rhs_high=4)


def _int_neg_exponent_samples(op_info, dtype, rng):
    # torch: an integer *tensor* exponent may be negative (1 ** -n = 1, (-1) ** -n = +-1, else 0)
    base = np.array([1, -1, 2, 3, -2, 1], dtype=np_dtype(dtype))
    exp = np.array([-1, -3, -1, -2, -2, -4], dtype=np_dtype(dtype))
    return [SampleInput(base, (exp,), name="neg_tensor_exp")]


def _int_pow_torch(a, b):
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    pos = np.power(a64, np.maximum(b64, 0))
    neg = np.where(a64 == 1, 1, np.where(a64 == -1, np.where(b64 % 2 == 0, 1, -1), 0))
    return np.where(b64 < 0, neg, pos)


def _clamp_samples(op_info, dtype, rng):
    a = make_array((3, 4), dtype, rng)
    lo, hi = (-1.5, 1.5) if is_float(dtype) else (-2, 5)
    if dtype == cygrad.uint8:
        lo = 2
    out = [SampleInput(a, kwargs={"min": lo, "max": hi}, name="both"),
           SampleInput(a, kwargs={"min": lo}, name="min_only"),
           SampleInput(a, kwargs={"max": hi}, name="max_only"),
           SampleInput(make_array((), dtype, rng), kwargs={"min": lo, "max": hi}, name="0d"),
           SampleInput(a, (make_array((4,), dtype, rng, -3, 0), make_array((3, 1), dtype, rng, 0, 3)),
                       name="tensor_bounds")]
    if is_float(dtype):
        out.append(SampleInput(special_array(dtype), kwargs={"min": -1.0, "max": 1.0}, name="special"))
    return out


def _lerp_samples(op_info, dtype, rng):
    a, b = make_array((3, 4), dtype, rng), make_array((3, 4), dtype, rng)
    return [SampleInput(a, (b, 0.25), name="scalar_weight"),
            SampleInput(a, (b, 0.75), name="scalar_weight_hi"),
            SampleInput(a, (make_array((4,), dtype, rng), make_array((3, 1), dtype, rng, 0, 1)),
                        name="tensor_weight_broadcast"),
            SampleInput(make_array((), dtype, rng), (make_array((), dtype, rng), 0.5), name="0d")]


def _nan_to_num_samples(op_info, dtype, rng):
    out = [SampleInput(make_array((3, 4), dtype, rng), name="plain")]
    if is_float(dtype):
        sp = special_array(dtype)
        out.append(SampleInput(sp, kwargs={"nan": 1.0, "posinf": 100.0, "neginf": -100.0},
                               name="special_explicit"))
        if dtype in FLOATS:
            # default posinf/neginf are the dtype's extremes: a float32 reference for
            # half dtypes would use float32's (tests/test_ops.py checks halfs by hand)
            out.append(SampleInput(sp, (2.0,), name="special_nan_pos"))
    return out


def _nan_to_num_ref(a, nan=0.0, posinf=None, neginf=None):
    if a.dtype.kind != "f":
        return a.copy()
    return np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)


def _round_decimals_samples(op_info, dtype, rng):
    a = make_array((3, 4), dtype, rng, -30, 30)
    return [SampleInput(a, kwargs={"decimals": 1}, name="decimals1"),
            SampleInput(a, kwargs={"decimals": -1}, name="decimals_neg")]


def _isclose_samples(op_info, dtype, rng):
    a = make_array((3, 4), dtype, rng)
    mask = rng.random((3, 4)) < 0.5
    b = np.where(mask, a, a + np.ones((), a.dtype)).astype(a.dtype)
    out = [SampleInput(a, (b,), name="mixed"),
           SampleInput(a, (b[0],), name="broadcast"),
           SampleInput(a, (b,), {"rtol": 0.0, "atol": 1.5}, name="atol")]
    if is_float(dtype):
        sp = special_array(dtype)
        out.append(SampleInput(sp, (sp.copy(),), name="special"))
        out.append(SampleInput(sp, (sp.copy(),), {"equal_nan": True}, name="special_equal_nan"))
    return out


def _equal_samples(op_info, dtype, rng):
    a = make_array((3, 4), dtype, rng)
    b = a.copy()
    b.flat[5] = make_array((), dtype, rng, 20, 40) if dtype != cygrad.bool else not b.flat[5]
    return [SampleInput(a, (a.copy(),), name="same"),
            SampleInput(a, (b,), name="one_differs"),
            SampleInput(a, (a[:2].copy(),), name="other_shape"),
            SampleInput(make_array((), dtype, rng), (make_array((), dtype, rng),), name="0d")]


def _special_only(op_info, dtype, rng):
    return [SampleInput(special_array(dtype), name="special")]


def _special_unary(**kw):
    return _with(unary_samples, special=True, **kw)


# ---------------------------------------------------------------------------
# error inputs: dtypes torch rejects for an op, and op-specific errors
# ---------------------------------------------------------------------------
# ops whose dtype refusal is a plain RuntimeError in torch (a hand-written check,
# e.g. "Negation, the `-` operator, on a bool tensor is not supported"); every other
# refusal is NotImplementedError ("\"abs_cpu\" not implemented for 'Bool'")
_PLAIN_RUNTIME_ERROR = {"neg", "negative", "sub", "subtract", "relu", "positive"}


def _unsupported_dtype_errors(op_info, rng):
    """One sample for each dtype outside the row's dtypes: torch raises there
    (NotImplementedError, a RuntimeError subclass, or RuntimeError), so must cygrad."""
    error_type = RuntimeError if op_info.name in _PLAIN_RUNTIME_ERROR else NotImplementedError
    errs = []
    for dtype in ALL:
        if dtype in op_info.dtypes:
            continue
        a = make_array((3,), dtype, rng)
        args = (make_array((3,), dtype, rng),) * (getattr(op_info, "_arity", 1) - 1)
        errs.append(ErrorInput(SampleInput(a, args, name=f"dtype_{dtype.name}"), error_type))
    return errs


def _errors(*extra):
    def error_inputs(op_info, rng):
        out = _unsupported_dtype_errors(op_info, rng)
        for make in extra:
            out.extend(make(rng))
        return out
    return error_inputs


def _shape_mismatch(rng):
    a, b = make_array((3, 4), cygrad.float32, rng), make_array((3,), cygrad.float32, rng)
    return [ErrorInput(SampleInput(a, (b,), name="shape_mismatch"), RuntimeError,
                       "must match the size")]


def _int_div_by_zero(rng):
    a = np.array([1, -2, 3], dtype=np.int64)
    b = np.array([1, 0, 2], dtype=np.int64)
    return [ErrorInput(SampleInput(a, (b,), name="int_zero_divisor"), RuntimeError, "ZeroDivisionError"),
            ErrorInput(SampleInput(a.astype(np.int32), (0,), name="int_zero_scalar"), RuntimeError,
                       "ZeroDivisionError")]


def _int_negative_power(rng):
    a = np.array([1, 2, 3], dtype=np.int64)
    return [ErrorInput(SampleInput(a, (-1,), name="int_neg_scalar_exp"), RuntimeError,
                       "negative integer powers"),
            ErrorInput(SampleInput(a.astype(np.int8), (-2,), name="int8_neg_scalar_exp"), RuntimeError,
                       "negative integer powers")]


def _bad_rounding_mode(rng):
    a = make_array((3,), cygrad.float32, rng)
    return [ErrorInput(SampleInput(a, (a.copy(),), {"rounding_mode": "ceil"}, name="bad_mode"),
                       RuntimeError, "rounding_mode")]


def _clamp_errors(op_info, rng):
    a = make_array((3,), cygrad.bool, rng)
    return ([ErrorInput(SampleInput(a, kwargs={"min": False, "max": True}, name="dtype_bool"),
                        NotImplementedError)] + _clamp_no_bounds(rng))


def _clamp_no_bounds(rng):
    a = make_array((3,), cygrad.float32, rng)
    return [ErrorInput(SampleInput(a, name="no_bounds"), RuntimeError, "At least one")]


# ---------------------------------------------------------------------------
# the rows
# ---------------------------------------------------------------------------
def _has_method(name):
    return name if name and hasattr(cygrad.Tensor, name) else None


def _first(generator, names):
    def samples(op_info, dtype, rng):
        return [s for s in generator(op_info, dtype, rng) if s.name in names]
    return samples


def alias(name, ref, dtypes, samples, **kw):
    """A row for an alias (``negative`` of ``neg``...): it is the same code path, so
    values (every dtype, two samples) and the method form are checked; the layout,
    out= and in-place checks run on the canonical row."""
    row = OpInfo(name, getattr(cygrad, name), ref, dtypes,
                 _first(samples, ("3d", "0d", "broadcast_row", "py_scalar", "both", "special")),
                 method=_has_method(name), check_noncontiguous=False, check_zero_size=False, **kw)
    return row


def unary(name, ref, dtypes, samples=None, *, op_name=None, out=True, torch_name=None, **kw):
    """A unary row; the method/in-place names are used when cygrad.Tensor has them."""
    row = OpInfo(name, getattr(cygrad, op_name or name), ref, dtypes,
                 samples or unary_samples, method=_has_method(name),
                 inplace=_has_method(name + "_"), supports_out=out, torch_name=torch_name, **kw)
    row._arity = 1
    if row.error_inputs is None and set(ALL) - set(dtypes):
        row.error_inputs = _errors()
    return row


def binary(name, ref, dtypes, samples=None, *, errors=(), out=True, torch_name=None, **kw):
    row = OpInfo(name, getattr(cygrad, name), ref, dtypes, samples or binary_samples,
                 method=_has_method(name), inplace=_has_method(name + "_"), supports_out=out,
                 torch_name=torch_name, **kw)
    row._arity = 2
    if row.error_inputs is None and (set(ALL) - set(dtypes) or errors):
        row.error_inputs = _errors(*errors)
    return row


# Every row tested in float64 is differentiable (with forward mode, double backward and
# its in-place variant) unless it says supports_autograd=False: predicates, comparisons
# and logical ops, whose results are bool, and the few torch cannot differentiate.
AUTOGRAD_DEFAULTS = {"supports_autograd": True}

OPS = [
    # --- sign-like and rounding ------------------------------------------------
    unary("neg", np.negative, ALL_NUMERIC, _special_unary()),
    alias("negative", np.negative, ALL_NUMERIC, _special_unary()),
    unary("abs", np.abs, ALL_NUMERIC, _special_unary()),
    alias("absolute", np.abs, ALL_NUMERIC, _special_unary()),
    unary("sign", _sign, ALL, unary_samples),
    OpInfo("sign", cygrad.sign, _sign, ALL_FLOATS, _special_only, method="sign", inplace="sign_",
           supports_out=True, variant="special", check_zero_size=False,
           # NaN/inf/+-0 only: no derivative to check there (the sign row checks it)
           supports_autograd=False,
           skips={"test_autograd_refused": "only NaN/inf/+-0 samples, where sign has no "
                  "derivative to check; the sign row checks its autograd"}),
    unary("floor", np.floor, ALL_NUMERIC, _special_unary()),
    unary("ceil", np.ceil, ALL_NUMERIC, _special_unary()),
    unary("trunc", np.trunc, ALL_NUMERIC, _special_unary()),
    unary("frac", _quiet(_frac), ALL_FLOATS, _special_unary()),
    unary("round", _round, ALL_NUMERIC, _special_unary()),
    OpInfo("round", cygrad.round, _round, ALL_FLOATS, _round_decimals_samples, method="round",
           inplace="round_", supports_out=True, variant="decimals", atol=1e-4),
    unary("relu", _relu, ALL_NUMERIC, _special_unary(), out=False),
    # returns its input itself (no node), as torch.positive does
    unary("positive", lambda a: a.copy(), ALL_NUMERIC, out=False, supports_autograd=False),
    # --- exponentials and logarithms -----------------------------------------
    unary("exp", _float_ref(np.exp), ALL, _special_unary()),
    unary("exp2", _float_ref(np.exp2), ALL, _special_unary()),
    unary("expm1", _float_ref(np.expm1), ALL, _special_unary()),
    unary("log", _float_ref(np.log), ALL, _float_domain(unary_samples, 0.1, 5, special=True)),
    unary("log2", _float_ref(np.log2), ALL, _float_domain(unary_samples, 0.1, 5, special=True)),
    unary("log10", _float_ref(np.log10), ALL, _float_domain(unary_samples, 0.1, 5, special=True)),
    unary("log1p", _float_ref(np.log1p), ALL, _float_domain(unary_samples, -0.9, 5, special=True)),
    unary("sqrt", _float_ref(np.sqrt), ALL, _float_domain(unary_samples, 0.0, 5, special=True)),
    unary("rsqrt", _float_ref(lambda a: 1.0 / np.sqrt(a)), ALL,
          _float_domain(unary_samples, 0.1, 5, special=True)),
    unary("reciprocal", _float_ref(np.reciprocal), ALL, _float_domain(unary_samples, 0.2, 3, special=True)),
    unary("square", lambda a: np.square(a.astype(np.int64) if a.dtype == np.bool_ else a), ALL,
          _special_unary()),
    # --- trigonometric / hyperbolic ------------------------------------------
    unary("sin", _float_ref(np.sin), ALL, _special_unary()),
    unary("cos", _float_ref(np.cos), ALL, _special_unary()),
    unary("tan", _float_ref(np.tan), ALL, _float_domain(unary_samples, -1.2, 1.2, special=True)),
    unary("asin", _float_ref(np.arcsin), ALL, _float_domain(unary_samples, -0.95, 0.95, special=True)),
    alias("arcsin", _float_ref(np.arcsin), ALL, _float_domain(unary_samples, -0.95, 0.95)),
    unary("acos", _float_ref(np.arccos), ALL, _float_domain(unary_samples, -0.95, 0.95, special=True)),
    alias("arccos", _float_ref(np.arccos), ALL, _float_domain(unary_samples, -0.95, 0.95)),
    unary("atan", _float_ref(np.arctan), ALL, _special_unary()),
    alias("arctan", _float_ref(np.arctan), ALL, _special_unary()),
    unary("sinh", _float_ref(np.sinh), ALL, _special_unary()),
    unary("cosh", _float_ref(np.cosh), ALL, _special_unary()),
    unary("tanh", _float_ref(np.tanh), ALL, _special_unary()),
    unary("asinh", _float_ref(np.arcsinh), ALL, _special_unary()),
    alias("arcsinh", _float_ref(np.arcsinh), ALL, _special_unary()),
    unary("acosh", _float_ref(np.arccosh), ALL, _float_domain(unary_samples, 1.1, 5, special=True)),
    alias("arccosh", _float_ref(np.arccosh), ALL, _float_domain(unary_samples, 1.1, 5)),
    unary("atanh", _float_ref(np.arctanh), ALL, _float_domain(unary_samples, -0.95, 0.95, special=True)),
    alias("arctanh", _float_ref(np.arctanh), ALL, _float_domain(unary_samples, -0.95, 0.95)),
    unary("sigmoid", _float_ref(_sigmoid), ALL, _special_unary()),
    unary("erf", _float_ref(_erf), ALL, _special_unary()),
    unary("erfc", _float_ref(_erfc), ALL, _special_unary()),
    # --- predicates and logical/bitwise not -----------------------------------
    unary("logical_not", np.logical_not, ALL, _special_unary(), supports_autograd=False),
    unary("bitwise_not", _bitwise_not, INTS_AND_BOOL),
    unary("isnan", np.isnan, ALL, _special_unary(), out=False, supports_autograd=False),
    unary("isinf", np.isinf, ALL, _special_unary(), out=False, supports_autograd=False),
    unary("isfinite", np.isfinite, ALL, _special_unary(), out=False, supports_autograd=False),
    unary("nan_to_num", _nan_to_num_ref, ALL, _nan_to_num_samples),
    # --- arithmetic -------------------------------------------------------------
    binary("add", _add, ALL, _add_samples, errors=(_shape_mismatch,)),
    binary("sub", _sub, ALL_NUMERIC, _add_samples, errors=(_shape_mismatch,)),
    alias("subtract", _sub, ALL_NUMERIC, _add_samples),
    binary("mul", np.multiply, ALL, errors=(_shape_mismatch,)),
    alias("multiply", np.multiply, ALL, binary_samples),
    binary("div", _float_ref(np.true_divide), ALL, errors=(_bad_rounding_mode,)),
    alias("divide", _float_ref(np.true_divide), ALL, binary_samples),
    alias("true_divide", _float_ref(np.true_divide), ALL, binary_samples),
    OpInfo("div", cygrad.div, _quiet(_div_trunc), ALL_NUMERIC, _div_trunc_samples,
           method="div", inplace="div_", supports_out=True, variant="trunc"),
    OpInfo("div", cygrad.div, _quiet(lambda a, b, rounding_mode: np.floor_divide(a, b)), ALL_NUMERIC,
           _with(binary_samples, nonzero_rhs=True, kwargs={"rounding_mode": "floor"}),
           method="div", inplace="div_", supports_out=True, variant="floor"),
    binary("floor_divide", _quiet(np.floor_divide), ALL_NUMERIC,
           _with(binary_samples, nonzero_rhs=True), errors=(_int_div_by_zero,),
           supports_autograd=False),      # torch: derivative not implemented
    binary("remainder", _quiet(np.remainder), ALL_NUMERIC, _with(binary_samples, nonzero_rhs=True),
           errors=(_int_div_by_zero,)),
    binary("fmod", _quiet(np.fmod), ALL_NUMERIC, _with(binary_samples, nonzero_rhs=True),
           errors=(_int_div_by_zero,)),
    binary("pow", _quiet(_int_pow), ALL_NUMERIC, _pow_samples, errors=(_int_negative_power,)),
    OpInfo("pow", cygrad.pow, _int_pow_torch, (cygrad.int8, cygrad.int32, cygrad.int64),
           _int_neg_exponent_samples, method="pow", variant="int_neg_tensor_exp"),
    binary("float_power", _quiet(_float_power), ALL, _pow_samples, out=True,
           skips={f"test_inplace:{d.name}": "float_power_ needs a float64 self, unlike the can_cast "
                  "rule (test_float_power_inplace_needs_float64)" for d in ALL if d != cygrad.float64}),
    binary("atan2", _float_ref(np.arctan2), ALL, _with(binary_samples, special=True, scalars=False)),
    alias("arctan2", _float_ref(np.arctan2), ALL, _with(binary_samples, scalars=False)),
    binary("hypot", _quiet(np.hypot), ALL_FLOATS, _with(binary_samples, special=True, scalars=False)),
    # --- min/max (NaN propagation) ------------------------------------------------
    binary("maximum", np.maximum, ALL, _with(binary_samples, special=True, scalars=False)),
    binary("minimum", np.minimum, ALL, _with(binary_samples, special=True, scalars=False)),
    binary("fmax", np.fmax, ALL, _with(binary_samples, special=True, scalars=False)),
    binary("fmin", np.fmin, ALL, _with(binary_samples, special=True, scalars=False)),
    OpInfo("clamp", cygrad.clamp, _clamp, ALL_NUMERIC, _clamp_samples, method="clamp",
           inplace="clamp_", supports_out=True, error_inputs=_clamp_errors),
    alias("clip", _clamp, ALL_NUMERIC, _clamp_samples),
    # --- comparisons ----------------------------------------------------------------
    *[binary(n, f, ALL, _with(binary_samples, special=True), supports_autograd=False) for n, f in (
        ("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
        ("gt", np.greater), ("ge", np.greater_equal))],
    *[alias(n, f, ALL, _with(binary_samples, special=True), supports_autograd=False) for n, f in (
        ("greater", np.greater), ("greater_equal", np.greater_equal), ("less", np.less),
        ("less_equal", np.less_equal), ("not_equal", np.not_equal))],
    # --- logical / bitwise --------------------------------------------------------
    binary("logical_and", np.logical_and, ALL, _with(binary_samples, special=True, scalars=False),
           supports_autograd=False),
    binary("logical_or", np.logical_or, ALL, _with(binary_samples, special=True, scalars=False),
           supports_autograd=False),
    binary("logical_xor", np.logical_xor, ALL, _with(binary_samples, special=True, scalars=False),
           supports_autograd=False),
    *[binary(n, f, INTS_AND_BOOL) for n, f in (
        ("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor))],
    binary("bitwise_left_shift", np.left_shift, INTS, _shift_samples),
    binary("bitwise_right_shift", np.right_shift, INTS, _shift_samples),
    # --- interpolation, cleanup, closeness ------------------------------------------
    OpInfo("lerp", cygrad.lerp, _lerp, ALL_FLOATS, _lerp_samples, method="lerp", inplace="lerp_",
           supports_out=True, atol=1e-5, rtol=1e-4),
    OpInfo("isclose", cygrad.isclose, np.isclose, ALL_NUMERIC, _isclose_samples, method="isclose",
           supports_autograd=False),
    OpInfo("allclose", cygrad.allclose, lambda *a, **k: bool(np.allclose(*a, **k)), ALL_NUMERIC,
           _isclose_samples, method="allclose", check_zero_size=False, check_noncontiguous=True,
           supports_autograd=False),
    OpInfo("equal", cygrad.equal, _equal, ALL, _equal_samples, method="equal",
           check_zero_size=False, supports_autograd=False),
]
