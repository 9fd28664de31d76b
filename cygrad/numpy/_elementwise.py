"""Elementwise functions of the array API standard, with NumPy's aliases.

Each function promotes its operands by the standard's rules (``_dtypes``), then
calls the cygrad op, so results are differentiable. Integer inputs of functions
with float results (``sqrt``, ``exp``, ``divide``...) are computed in the float
dtype NumPy picks. The places where cygrad's (PyTorch's) answer differs from the
standard's special cases are fixed here: ``sign(nan)`` is NaN, integer division
and remainder by zero give 0 (NumPy) instead of raising.

Examples
--------
>>> import cygrad.numpy as cnp
>>> cnp.add(cnp.asarray([1, 2], dtype=cnp.uint8), cnp.asarray([1, 2], dtype=cnp.int8)).dtype
cygrad.int16
>>> cnp.sqrt(cnp.asarray([4, 9])).tolist()
[2.0, 3.0]
"""
import builtins
import math

import cygrad
from cygrad._core import fastpath as _fast
from cygrad._core.tensor import ELEMENTWISE_OPS as _OPS
from . import _dtypes as D
from . import _special
from ._helpers import Tensor, tensor, floating, operands, operands_scalar_ok, _scalar_fits

__all__ = []

# cygrad functions that are exactly their op-table row on tensor arguments (no
# argument rewriting for tensors), by row name: the functions built on them get
# their type checks in C (``_core/fastpath.pyx``), the rest of the call stays here.
_TABLE_ROWS = {cygrad.add: "add", cygrad.subtract: "sub", cygrad.multiply: "mul",
               cygrad.maximum: "maximum", cygrad.minimum: "minimum", cygrad.fmax: "fmax",
               cygrad.fmin: "fmin", cygrad.eq: "eq", cygrad.ne: "ne", cygrad.gt: "gt",
               cygrad.ge: "ge", cygrad.lt: "lt", cygrad.le: "le", cygrad.abs: "abs",
               cygrad.negative: "neg", cygrad.square: "square", cygrad.isfinite: "isfinite",
               cygrad.isinf: "isinf", cygrad.isnan: "isnan", cygrad.logical_not: "logical_not"}
_TABLE_ROWS.update({getattr(cygrad, name): name for name in (
    "acos", "asin", "atan", "cos", "cosh", "exp", "exp2", "expm1", "log", "log1p", "log2",
    "log10", "sin", "sinh", "sqrt", "tan", "tanh", "reciprocal")})
_COMPLEX_KERNELS = {"add": _fast.CADD, "sub": _fast.CSUB, "mul": _fast.CMUL}


def _common(arrays):
    return D.result_type(*arrays)


def _doc(name, summary, example, expected):
    return (f"{summary}\n\n    Examples\n    --------\n    >>> import cygrad.numpy as cnp\n"
            f"    >>> cnp.{name}({example}).tolist()\n    {expected}\n    ")


def _export(name, fn, summary, example, expected, aliases=()):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _doc(name, summary, example, expected)
    fn.__module__ = "cygrad.numpy"
    globals()[name] = fn
    __all__.append(name)
    for alias in aliases:
        globals()[alias] = fn
        __all__.append(alias)
    return fn


# ---- unary ---------------------------------------------------------------------

def _float_unary(op):
    def fn(x, /):
        if type(x) is Tensor and x.dtype.is_floating_point:
            return op(x)
        return op(floating(x))
    row = _TABLE_ROWS.get(op)
    return fn if row is None else _fast.unary_entry(_OPS[row], fn, float_only=True)


def _same_unary(op):
    def fn(x, /):
        return op(tensor(x))
    row = _TABLE_ROWS.get(op)
    return fn if row is None else _fast.unary_entry(_OPS[row], fn, complex_abs_kernel=row == "abs")


def _rounding(op):
    def fn(x, /):
        x = tensor(x)
        # integers are already integral: the standard returns them unchanged
        return op(x) if x.dtype.is_floating_point else x.clone()
    return fn


_FLOAT_UNARY = [
    ("acos", cygrad.acos, "Inverse cosine.", "[1.0, 0.0]", "[0.0, 1.5707963267948966]", ("arccos",)),
    ("acosh", cygrad.acosh, "Inverse hyperbolic cosine.", "[1.0, 2.0]", "[0.0, 1.3169578969248166]",
     ("arccosh",)),
    ("asin", cygrad.asin, "Inverse sine.", "[0.0, 1.0]", "[0.0, 1.5707963267948966]", ("arcsin",)),
    ("asinh", cygrad.asinh, "Inverse hyperbolic sine.", "[0.0, 1.0]", "[0.0, 0.881373587019543]",
     ("arcsinh",)),
    ("atan", cygrad.atan, "Inverse tangent.", "[0.0, 1.0]", "[0.0, 0.7853981633974483]", ("arctan",)),
    ("atanh", cygrad.atanh, "Inverse hyperbolic tangent.", "[0.0, -0.0, 1.0]", "[0.0, -0.0, inf]",
     ("arctanh",)),
    ("cbrt", _special.cbrt, "Real cube root.", "[-8.0, 27.0]", "[-2.0, 3.0]", ()),
    ("cos", cygrad.cos, "Cosine.", "[0.0]", "[1.0]", ()),
    ("cosh", cygrad.cosh, "Hyperbolic cosine.", "[0.0]", "[1.0]", ()),
    ("exp", cygrad.exp, "Exponential.", "[0.0, 1.0]", "[1.0, 2.718281828459045]", ()),
    ("exp2", cygrad.exp2, "``2 ** x``.", "[3.0]", "[8.0]", ()),
    ("log", cygrad.log, "Natural logarithm (``log(0) == -inf``).", "[1.0, 0.0]", "[0.0, -inf]", ()),
    ("log1p", cygrad.log1p, "``log(1 + x)``, accurate near 0.", "[0.0]", "[0.0]", ()),
    ("log2", cygrad.log2, "Base-2 logarithm.", "[8.0]", "[3.0]", ()),
    ("log10", cygrad.log10, "Base-10 logarithm.", "[100.0]", "[2.0]", ()),
    ("sin", cygrad.sin, "Sine.", "[0.0]", "[0.0]", ()),
    ("sinh", cygrad.sinh, "Hyperbolic sine.", "[0.0]", "[0.0]", ()),
    ("sqrt", cygrad.sqrt, "Square root (``sqrt(-0.0) == -0.0``).", "[4.0, -0.0]", "[2.0, -0.0]", ()),
    ("tan", cygrad.tan, "Tangent.", "[0.0]", "[0.0]", ()),
    ("tanh", cygrad.tanh, "Hyperbolic tangent.", "[0.0]", "[0.0]", ()),
    ("reciprocal", cygrad.reciprocal, "``1 / x``.", "[2.0, 0.0]", "[0.5, inf]", ()),
    ("deg2rad", lambda x: x * (3.141592653589793 / 180.0), "Degrees to radians.", "[180.0]",
     "[3.141592653589793]", ("radians",)),
    ("rad2deg", lambda x: x * (180.0 / 3.141592653589793), "Radians to degrees.",
     "[3.141592653589793]", "[180.0]", ("degrees",)),
]
for _name, _op, _summary, _ex, _exp, _aliases in _FLOAT_UNARY:
    _export(_name, _float_unary(_op), _summary, _ex, _exp, _aliases)


def _complex_expm1(fast):
    def fn(x, /):
        if type(x) is not Tensor or x.dtype.is_complex:
            x = floating(x)
            if x.dtype.is_complex:
                # cygrad's expm1 (PyTorch's, NumPy's) gives NaN + NaN j wherever a part
                # is infinite or NaN, and -0 + 0j at -0 + 0j; there expm1(z) is
                # exp(z) - 1, C99's complex exp having the standard's special cases
                # (exp(-inf + inf j) = 0 + 0j, ...)
                exact = x.isfinite() & (x != 0)
                return cygrad.where(exact, cygrad.expm1(x), cygrad.exp(x) - 1)
        return fast(x)
    return fn


_export("expm1", _complex_expm1(_float_unary(cygrad.expm1)),
        "``exp(x) - 1``, accurate near 0; the standard's special cases for complex ``x``"
        " with an infinite or NaN part.", "[0.0]", "[0.0]")


def _sign(x):
    if x.dtype.is_complex:
        # the standard's complex sign, z / |z| (0 at 0); NaN parts give NaN
        s = cygrad.sgn(x)
        nan = x.isnan()
        return cygrad.where(nan, cygrad.full((), complex("nan+nanj"), dtype=x.dtype), s)
    s = cygrad.sign(x)
    # cygrad (as PyTorch) gives sign(nan) == 0; NumPy and the standard give NaN
    return cygrad.where(x.isnan(), x, s) if x.dtype.is_floating_point else s


def _conj(x):
    return cygrad.conj(x) if x.dtype.is_complex else x.clone()


def _real(x):
    # a copy, not cygrad's view: NumPy's np.real is a view, but the standard asks
    # for a new array and writes through a view would surprise ported code
    return cygrad.real(x).clone() if x.dtype.is_complex else x.clone()


def _imag(x):
    return cygrad.imag(x).clone() if x.dtype.is_complex else cygrad.zeros_like(x)


_SAME_UNARY = [
    ("abs", cygrad.abs, "Absolute value.", "[-1.5, 2.0]", "[1.5, 2.0]", ("absolute", "fabs")),
    ("negative", cygrad.negative, "``-x``.", "[1, -2]", "[-1, 2]", ()),
    ("positive", lambda x: x.clone(), "``+x`` (a copy).", "[1, -2]", "[1, -2]", ()),
    ("square", cygrad.square, "``x * x``.", "[3, -2]", "[9, 4]", ()),
    ("sign", _sign, "Sign: -1, 0 or 1 (NaN for NaN); ``z / |z|`` for complex ``z``.", "[-2.0, 0.0, float('nan')]",
     "[-1.0, 0.0, nan]", ()),
    ("conj", _conj, "Complex conjugate (a copy of a real array).", "[1.5 + 2j]",
     "[(1.5-2j)]", ("conjugate",)),
    ("real", _real, "Real part, of the component dtype (a copy of a real array).", "[1.5 + 2j]",
     "[1.5]", ()),
    ("imag", _imag, "Imaginary part, of the component dtype (zeros for a real array).",
     "[1.5 + 2j]", "[2.0]", ()),
    ("isfinite", cygrad.isfinite, "Whether finite.", "[1.0, float('inf')]", "[True, False]", ()),
    ("isinf", cygrad.isinf, "Whether infinite.", "[1.0, float('-inf')]", "[False, True]", ()),
    ("isnan", cygrad.isnan, "Whether NaN.", "[1.0, float('nan')]", "[False, True]", ()),
    ("logical_not", cygrad.logical_not, "Logical not (any dtype; a bool result).", "[0, 3]",
     "[True, False]", ()),
    ("signbit", _special.signbit, "Whether the sign bit is set (``-0.0`` included).",
     "[-0.0, 1.0]", "[True, False]", ()),
]
for _name, _op, _summary, _ex, _exp, _aliases in _SAME_UNARY:
    _export(_name, _same_unary(_op), _summary, _ex, _exp, _aliases)


def angle(z, deg=False):
    """The argument of complex ``z`` (``atan2(imag, real)``), in radians or, with
    ``deg``, degrees; a real array gives ``pi`` where the sign bit is set (``-0.0``
    included, as NumPy's ``arctan2(0, x)``) and 0 elsewhere. The result is real and
    differentiable, with PyTorch's gradient (zero for real inputs).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.angle(cnp.asarray([1j, -1 + 0j, 1 + 1j]), deg=True).tolist()
    [90.0, 180.0, 45.0]
    >>> cnp.angle(cnp.asarray([-2.0, -0.0, 3.0])).tolist()
    [3.141592653589793, 3.141592653589793, 0.0]
    """
    z = tensor(z)
    if z.dtype.is_complex:
        result = cygrad.angle(z)
    else:
        # NumPy's arctan2(0, x) sees a bool array as integers: float64 (int8 gives float16)
        x = z.to(D.float64) if z.dtype is D.bool else floating(z)
        result = cygrad.angle(x)
        # cygrad (as PyTorch) gives 0 for -0.0; NumPy gives pi
        negative_zero = _special.signbit(x) & (x == 0)
        result = cygrad.where(negative_zero, cygrad.full_like(result, 3.141592653589793), result)
    return result * (180.0 / 3.141592653589793) if deg else result


__all__.append("angle")


def _bitwise_invert(x):
    if x.dtype.is_floating_point:
        raise TypeError("bitwise_invert is only defined for integer and boolean arrays")
    return cygrad.bitwise_not(x)


_export("bitwise_invert", _same_unary(_bitwise_invert), "Bitwise NOT (logical NOT for bool).",
        "[0, -1]", "[-1, 0]", ("invert", "bitwise_not"))

_ROUNDING = [
    ("floor", cygrad.floor, "Round down.", "[1.5, -1.5]", "[1.0, -2.0]"),
    ("ceil", cygrad.ceil, "Round up.", "[1.5, -1.5]", "[2.0, -1.0]"),
    ("trunc", cygrad.trunc, "Round towards zero.", "[1.5, -1.5]", "[1.0, -1.0]"),
]
for _name, _op, _summary, _ex, _exp in _ROUNDING:
    _export(_name, _rounding(_op), _summary, _ex, _exp, ("fix",) if _name == "trunc" else ())


def round(x, /, decimals=0):
    """Round half to even, to ``decimals`` decimal places (NumPy's ``round``).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.round(cnp.asarray([0.5, 1.5, 2.675]), decimals=0).tolist()
    [0.0, 2.0, 3.0]
    """
    x = tensor(x)
    if x.dtype.is_complex:
        # the standard rounds both components
        return cygrad.complex(round(cygrad.real(x), decimals=decimals),
                              round(cygrad.imag(x), decimals=decimals))
    if not x.dtype.is_floating_point:
        return x.clone()
    if decimals == 0:
        return cygrad.round(x)
    scale = 10.0 ** decimals
    return cygrad.round(x * scale) / scale


around = round
__all__ += ["round", "around"]


# ---- binary --------------------------------------------------------------------

def _arith(op):
    def fn(x1, x2, /):
        if type(x1) is Tensor and type(x2) is Tensor and x1.dtype is x2.dtype:
            return op(x1, x2)
        a, b = operands_scalar_ok(x1, x2)
        return op(a, b)
    row = _TABLE_ROWS.get(op)
    if row is None:
        return fn
    # a float beside a float/complex tensor stays a Python number (operands_scalar_ok)
    return _fast.binary_entry(_OPS[row], fn, scalars=True,
                              complex_op=_COMPLEX_KERNELS.get(row, -1))


def _float_binary(op):
    def fn(x1, x2, /):
        a, b = operands(x1, x2)
        if not (a.dtype.is_floating_point or a.dtype.is_complex):
            dt = D.DEFAULT_FLOAT if op is cygrad.divide else D.float_for(a.dtype)
            a, b = a.to(dt), b.to(dt)
        return op(a, b)
    return fn


def _int_binary(name, op):
    def fn(x1, x2, /):
        a, b = operands(x1, x2)
        if a.dtype.is_floating_point:
            raise TypeError(f"{name} is only defined for integer and boolean arrays")
        return op(a, b)
    return fn


def _logical(op):
    def fn(x1, x2, /):
        return op(tensor(x1), tensor(x2))
    return fn


def _int_safe_div(op):
    """Integer division or remainder with NumPy's answer 0 for a zero divisor
    (cygrad raises, as PyTorch does)."""
    def fn(a, b):
        if a.dtype.is_floating_point:
            return op(a, b)
        if not isinstance(b, Tensor):
            b = cygrad.full((), b, dtype=a.dtype)
        zero = b == 0
        if not bool(zero.any()):
            return op(a, b)
        safe = cygrad.where(zero, cygrad.ones_like(b), b)
        return cygrad.where(zero, cygrad.zeros((), dtype=a.dtype), op(a, safe))
    return fn


def _floor_divide(a, b):
    if a.dtype.is_floating_point:
        # An infinite operand: the standard's floor(x1 / x2) (inf // 2 == inf,
        # -1 // inf == -0.0) where cygrad (PyTorch, Python) gives NaN and -1.
        q = cygrad.floor_divide(a, b)
        inf = a.isinf() | (b.isinf() if isinstance(b, Tensor) else math.isinf(b))
        if isinstance(inf, builtins.bool):
            return cygrad.floor(a / b) if inf else q
        return cygrad.where(inf, cygrad.floor(a / b), q) if bool(inf.any()) else q
    return _int_safe_div(cygrad.floor_divide)(a, b)


def _pow(a, b):
    if a.dtype.is_floating_point or a.dtype.is_complex:
        return cygrad.pow(a, b)
    if isinstance(b, Tensor) and bool((b < 0).any()):
        raise ValueError("Integers to negative integer powers are not allowed.")
    if not isinstance(b, Tensor) and b < 0:
        raise ValueError("Integers to negative integer powers are not allowed.")
    return cygrad.pow(a, b)


_ARITH = [
    ("add", cygrad.add, "``x1 + x2``.", "[1, 2], 3", "[4, 5]", ()),
    ("subtract", cygrad.subtract, "``x1 - x2``.", "[1, 2], 3", "[-2, -1]", ()),
    ("multiply", cygrad.multiply, "``x1 * x2``.", "[1, 2], 3", "[3, 6]", ()),
    ("floor_divide", _floor_divide,
     "Floor division (an integer divisor of 0 gives 0, as NumPy; an infinite operand "
     "gives ``floor(x1 / x2)``, the standard's values).", "[7, -7], [2, 0]", "[3, 0]", ()),
    ("remainder", _int_safe_div(cygrad.remainder),
     "Remainder with the divisor's sign (an integer divisor of 0 gives 0, as NumPy).",
     "[7, -7], [2, 2]", "[1, 1]", ("mod",)),
    ("pow", _pow, "``x1 ** x2`` (negative integer powers of integers raise ``ValueError``).",
     "[2, 3], 2", "[4, 9]", ("power",)),
    ("maximum", cygrad.maximum, "Elementwise maximum (NaN propagates).",
     "[1.0, float('nan')], [2.0, 0.0]", "[2.0, nan]", ()),
    ("minimum", cygrad.minimum, "Elementwise minimum (NaN propagates).",
     "[1.0, float('nan')], [2.0, 0.0]", "[1.0, nan]", ()),
    ("fmax", cygrad.fmax, "Elementwise maximum ignoring NaN.", "[1.0, float('nan')], [2.0, 0.0]",
     "[2.0, 0.0]", ()),
    ("fmin", cygrad.fmin, "Elementwise minimum ignoring NaN.", "[1.0, float('nan')], [2.0, 0.0]",
     "[1.0, 0.0]", ()),
    ("fmod", _int_safe_div(cygrad.fmod), "C's remainder (the dividend's sign).", "[-7, 7], [2, 2]",
     "[-1, 1]", ()),
    ("equal", cygrad.eq, "``x1 == x2``.", "[1, 2], 2", "[False, True]", ()),
    ("not_equal", cygrad.ne, "``x1 != x2``.", "[1, 2], 2", "[True, False]", ()),
    ("greater", cygrad.gt, "``x1 > x2``.", "[1, 3], 2", "[False, True]", ()),
    ("greater_equal", cygrad.ge, "``x1 >= x2``.", "[1, 2], 2", "[False, True]", ()),
    ("less", cygrad.lt, "``x1 < x2``.", "[1, 3], 2", "[True, False]", ()),
    ("less_equal", cygrad.le, "``x1 <= x2``.", "[1, 3], 2", "[True, False]", ()),
]
def _tensor_pair(op):
    # cygrad's maximum/minimum/fmax/fmin take a tensor 'other' only (as PyTorch)
    def fn(x1, x2, /):
        a, b = operands(x1, x2)
        return op(a, b)
    return _fast.binary_entry(_OPS[_TABLE_ROWS[op]], fn)


_TENSOR_ONLY = (cygrad.maximum, cygrad.minimum, cygrad.fmax, cygrad.fmin)
for _name, _op, _summary, _ex, _exp, _aliases in _ARITH:
    _wrap = _tensor_pair if _op in _TENSOR_ONLY else _arith
    _export(_name, _wrap(_op), _summary, _ex, _exp, _aliases)

_FLOAT_BINARY = [
    ("divide", cygrad.divide, "True division (integers give float64, as NumPy).", "[1, 3], 2",
     "[0.5, 1.5]", ("true_divide",)),
    ("atan2", cygrad.atan2, "Quadrant-aware ``atan(x1 / x2)``.", "[1.0], [1.0]",
     "[0.7853981633974483]", ("arctan2",)),
    ("hypot", cygrad.hypot, "``sqrt(x1**2 + x2**2)`` without overflow.", "[3.0], [4.0]", "[5.0]", ()),
    ("logaddexp", _special.logaddexp, "``log(exp(x1) + exp(x2))`` without overflow.",
     "[0.0], [0.0]", "[0.6931471805599453]", ()),
    ("copysign", _special.copysign, "``|x1|`` with the sign of ``x2``.", "[1.0, 2.0], [-0.0, 1.0]",
     "[-1.0, 2.0]", ()),
    ("nextafter", _special.nextafter, "The next float after ``x1`` towards ``x2``.",
     "[0.0], [1.0]", "[5e-324]", ()),
]
for _name, _op, _summary, _ex, _exp, _aliases in _FLOAT_BINARY:
    _export(_name, _float_binary(_op), _summary, _ex, _exp, _aliases)

_INT_BINARY = [
    ("bitwise_and", cygrad.bitwise_and, "Bitwise AND.", "[12, 10], 6", "[4, 2]", ()),
    ("bitwise_or", cygrad.bitwise_or, "Bitwise OR.", "[12, 10], 6", "[14, 14]", ()),
    ("bitwise_xor", cygrad.bitwise_xor, "Bitwise XOR.", "[12, 10], 6", "[10, 12]", ()),
    ("bitwise_left_shift", cygrad.bitwise_left_shift, "``x1 << x2``.", "[1, 3], 2", "[4, 12]",
     ("left_shift",)),
    ("bitwise_right_shift", cygrad.bitwise_right_shift, "``x1 >> x2``.", "[8, -8], 2", "[2, -2]",
     ("right_shift",)),
]
for _name, _op, _summary, _ex, _exp, _aliases in _INT_BINARY:
    _export(_name, _int_binary(_name, _op), _summary, _ex, _exp, _aliases)

_LOGICAL = [
    ("logical_and", cygrad.logical_and, "Logical AND (any dtypes; a bool result).",
     "[True, False], [True, True]", "[True, False]"),
    ("logical_or", cygrad.logical_or, "Logical OR.", "[True, False], [False, False]", "[True, False]"),
    ("logical_xor", cygrad.logical_xor, "Logical XOR.", "[True, False], [True, True]", "[False, True]"),
]
for _name, _op, _summary, _ex, _exp in _LOGICAL:
    _export(_name, _logical(_op), _summary, _ex, _exp)


def heaviside(x1, x2, /):
    """Heaviside step: 0 below zero, ``x2`` at zero, 1 above.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.heaviside(cnp.asarray([-1.0, 0.0, 2.0]), 0.5).tolist()
    [0.0, 0.5, 1.0]
    """
    a, b = operands(x1, x2)
    pos = (a > 0).to(a.dtype)
    out = cygrad.where(a == 0, b.expand_as(a) if b.dim() <= a.dim() else b, pos)
    return cygrad.where(a.isnan(), a, out) if a.dtype.is_floating_point else out


def clip(x, /, min=None, max=None):
    """Limit values to ``[min, max]``; bounds may be scalars or arrays; the result keeps
    ``x``'s dtype (the standard's rule). The gradient passes where ``x`` is inside.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.clip(cnp.asarray([-2.0, 0.5, 3.0]), 0, 1).tolist()
    [0.0, 0.5, 1.0]
    >>> cnp.clip(cnp.asarray([1, 5]), max=3).tolist()
    [1, 3]
    """
    x = tensor(x)
    if min is None and max is None:
        return x.clone()
    lo = None if min is None else _bound(min, x)
    hi = None if max is None else _bound(max, x)
    if lo is not None and hi is not None and _is_array(lo) != _is_array(hi):
        # cygrad.clamp (as PyTorch's) takes two numbers (a 0-d tensor counts as one) or
        # two tensors; the standard broadcasts a number beside an array: make it (1,)
        lo, hi = [b if _is_array(b) else cygrad.full((1,), b, dtype=x.dtype) if not
                  isinstance(b, Tensor) else b.reshape(1) for b in (lo, hi)]
    out = cygrad.clamp(x, min=lo, max=hi)
    return out if out.dtype is x.dtype else out.to(x.dtype)


def _is_array(b):
    return isinstance(b, Tensor) and b.ndim > 0


def _bound(b, x):
    if isinstance(b, Tensor):
        return b.to(x.dtype)
    if isinstance(b, (builtins.int, builtins.float)) and _scalar_fits(b, x.dtype):
        return b        # clamp takes numbers; a 0-d tensor per bound costs more than the op
    if isinstance(b, (builtins.int, builtins.float)):
        return cygrad.full((), b, dtype=x.dtype)
    return tensor(b).to(x.dtype)


__all__ += ["heaviside", "clip"]
