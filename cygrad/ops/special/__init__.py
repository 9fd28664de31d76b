"""The special functions (``cygrad.special``) and the elementwise math functions
of ``torch`` that go with them (``lgamma``, ``xlogy``, ``gcd``, ``copysign``...).

Each elementwise function is one row of the dispatcher's op table
(``cygrad/_core/special_table.py``) plus PyTorch's signature around it, and its
derivative is a ``Function`` in ``functions.py``. Top-level names (``cygrad.lgamma``)
are in ``__all__``; names PyTorch has only under ``torch.special`` are in
``SPECIAL_ONLY`` and reach users through :mod:`cygrad.special`.

Examples
--------
>>> import cygrad
>>> cygrad.lgamma(cygrad.tensor([1.0, 3.0])).tolist()
[0.0, 0.6931471824645996]
>>> cygrad.gcd(cygrad.tensor([4, 6]), cygrad.tensor([6, 9])).tolist()
[2, 3]
"""
import math as _math

from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ...autograd.inplace import apply_inplace
from .._argcheck import not_tensor, int_arg
from . import functions as _fn
from .functions import ROWS

_unary, _binary = _C.unary_op, _C.binary_op


def _doc(name, call, torch_name):
    return (f"Elementwise ``{name}``, as ``torch.{torch_name}``.\n\n"
            f"Examples\n--------\n>>> import cygrad\n>>> y = cygrad.{call}\n")


def _make_unary(name, row_name=None, torch_name=None, example="[0.5, 1.0]", where="special."):
    row = ROWS[row_name or name]

    def fn(input, *, out=None):
        if not isinstance(input, TensorBase):
            raise not_tensor(input, name)
        return _unary(row, input, out)

    def fn_(self):
        return _C.unary_op_(row, self)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _doc(name, f"{where}{name}(cygrad.tensor({example}))", torch_name or name)
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn_.__doc__ = f"In-place :func:`{name}`.\n\nExamples\n--------\n>>> import cygrad\n" \
                  f">>> y = cygrad.tensor({example}).{name}_()\n"
    return fn, fn_


def _make_binary(name, row_name=None, torch_name=None, example="[0.5, 1.0]", where="special.",
                 tensor_first=False, tensor_other=False):
    """The function and in-place method of a binary row; PyTorch's parser refuses a
    number for ``input`` (``tensor_first``) or ``other`` (``tensor_other``) in some."""
    row = ROWS[row_name or name]

    def fn(input, other, *, out=None):
        if not isinstance(input, TensorBase) and (tensor_first or tensor_other
                                                  or not isinstance(other, TensorBase)):
            raise not_tensor(input, name)
        if tensor_other and not isinstance(other, TensorBase):
            raise not_tensor(other, name, "other", 2)
        return _binary(row, input, other, out)

    def fn_(self, other):
        if tensor_other and not isinstance(other, TensorBase):
            raise not_tensor(other, name + "_", "other", 1)
        return _C.binary_op_(row, self, other)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _doc(name, f"{where}{name}(cygrad.tensor({example}), cygrad.tensor({example}))",
                      torch_name or name)
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn_.__doc__ = f"In-place :func:`{name}`.\n\nExamples\n--------\n>>> import cygrad\n" \
                  f">>> y = cygrad.tensor({example}).{name}_(cygrad.tensor({example}))\n"
    return fn, fn_


# ------------------------------------------------- torch-level names (also methods)

_TOP_UNARY = {"lgamma": "[0.5, 3.0]", "digamma": "[0.5, 3.0]", "erfinv": "[0.0, 0.5]",
              "i0": "[0.0, 1.0]", "sinc": "[0.0, 0.5]"}
_TOP_BINARY = {"xlogy": "[0.5, 1.0]", "igamma": "[0.5, 1.0]", "igammac": "[0.5, 1.0]",
               "logaddexp": "[0.5, 1.0]", "logaddexp2": "[0.5, 1.0]", "copysign": "[0.5, -1.0]",
               "nextafter": "[0.5, 1.0]"}
_NO_INPLACE = {"logaddexp", "logaddexp2"}           # (PyTorch has no in-place form)
# both operands must be tensors (PyTorch has no Scalar overload for these)
_TENSORS_ONLY = {"igamma", "igammac", "gammainc", "gammaincc", "logaddexp", "logaddexp2",
                 "nextafter"}
# the in-place forms torch also has at top level (torch.i0_, torch.xlogy_...)
_TORCH_INPLACE = {"i0", "sinc", "xlogy"}

__all__ = []

for _name, _ex in _TOP_UNARY.items():
    _f, _f_ = _make_unary(_name, example=_ex, where="")
    globals()[_name] = tensor_method(_f)
    globals()[_name + "_"] = tensor_method(_f_)
    __all__ += [_name] + ([_name + "_"] if _name in _TORCH_INPLACE else [])
for _name, _ex in _TOP_BINARY.items():
    _f, _f_ = _make_binary(_name, example=_ex, where="", tensor_first=_name == "copysign",
                           tensor_other=_name in _TENSORS_ONLY)
    globals()[_name] = tensor_method(_f)
    __all__.append(_name)
    if _name not in _NO_INPLACE:
        globals()[_name + "_"] = tensor_method(_f_)
        if _name in _TORCH_INPLACE:
            __all__.append(_name + "_")


@tensor_method
def heaviside(input, values, *, out=None):
    """The Heaviside step: 0 where ``input < 0``, ``values`` where it is 0, 1 where > 0.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.heaviside(cygrad.tensor([-1.0, 0.0, 2.0]), cygrad.tensor([0.5])).tolist()
    [0.0, 0.5, 1.0]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "heaviside")
    if not isinstance(values, TensorBase):
        raise not_tensor(values, "heaviside", "values", 2)
    if input.dtype is not values.dtype or (isinstance(out, TensorBase) and out.dtype is not input.dtype):
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return _binary(ROWS["heaviside"], input, values, out)


@tensor_method
def heaviside_(self, values):
    """In-place :func:`heaviside`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([-1.0, 0.0]).heaviside_(cygrad.tensor([0.5])).tolist()
    [0.0, 0.5]
    """
    if not isinstance(values, TensorBase):
        raise not_tensor(values, "heaviside_", "values", 1)
    if self.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return _C.binary_op_(ROWS["heaviside"], self, values)


def _tensors(input, other, name):
    if not isinstance(input, TensorBase):
        raise not_tensor(input, name)
    if not isinstance(other, TensorBase):
        raise not_tensor(other, name, "other", 2)


def _refuse_bool(name, *args):
    if any(isinstance(a, TensorBase) and a.dtype is _dt.bool_ for a in args):
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Bool'")


@tensor_method
def gcd(input, other, *, out=None):
    """Greatest common divisor of integer tensors (non-negative; gcd(0, 0) = 0).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.gcd(cygrad.tensor([4, -6, 0]), cygrad.tensor([6, 9, 0])).tolist()
    [2, 3, 0]
    """
    _tensors(input, other, "gcd")
    _refuse_bool("gcd", input, other)
    return _binary(ROWS["gcd"], input, other, out)


@tensor_method
def lcm(input, other, *, out=None):
    """Least common multiple of integer tensors (non-negative).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.lcm(cygrad.tensor([4, 6]), cygrad.tensor([6, 9])).tolist()
    [12, 18]
    """
    _tensors(input, other, "lcm")
    _refuse_bool("lcm", input, other)
    return _binary(ROWS["lcm"], input, other, out)


@tensor_method
def gcd_(self, other):
    """In-place :func:`gcd`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([4, 6]).gcd_(cygrad.tensor([6, 4])).tolist()
    [2, 2]
    """
    _tensors(self, other, "gcd_")
    _refuse_bool("gcd", self, other)
    return _C.binary_op_(ROWS["gcd"], self, other)


@tensor_method
def lcm_(self, other):
    """In-place :func:`lcm`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([4, 6]).lcm_(cygrad.tensor([6, 4])).tolist()
    [12, 12]
    """
    _tensors(self, other, "lcm_")
    _refuse_bool("lcm", self, other)
    return _C.binary_op_(ROWS["lcm"], self, other)


@tensor_method
def polygamma(n, input, *, out=None):
    """The n-th derivative of digamma: ``polygamma(0, x) = digamma(x)``.

    As ``torch.polygamma(n, input)``; the method is ``input.polygamma(n)``.

    Examples
    --------
    >>> import cygrad
    >>> round(cygrad.polygamma(1, cygrad.tensor([1.0])).item(), 6)    # pi^2 / 6
    1.644934
    """
    if isinstance(n, TensorBase) and not isinstance(input, TensorBase):
        n, input = input, n                 # the method form: x.polygamma(n)
    n = int_arg(n, "polygamma", "n", 1)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "polygamma", "input", 2)
    return _binary(ROWS["polygamma"], n, input, out)


@tensor_method
def polygamma_(self, n):
    """In-place :func:`polygamma` (``x.polygamma_(n)``).

    Examples
    --------
    >>> import cygrad
    >>> round(cygrad.tensor([1.0]).polygamma_(1).item(), 6)
    1.644934
    """
    n = int_arg(n, "polygamma_", "n", 1)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if not self.is_floating_point():
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_C._torch_type_name(self.dtype)}")
    if _C.needs_autograd(self):
        return apply_inplace(_fn.PolygammaOf, self, n)
    return _binary(ROWS["polygamma"], n, self, self)


@tensor_method
def mvlgamma(input, p, *, out=None):
    """Multivariate log-gamma of dimension ``p``:
    ``sum_{i<p} lgamma(x - i/2) + p (p - 1) / 4 * log(pi)`` (defined for
    ``x > (p - 1) / 2``; as in PyTorch, other values give lgamma's results, not an
    error).

    Examples
    --------
    >>> import cygrad
    >>> round(cygrad.mvlgamma(cygrad.tensor([2.5], dtype=cygrad.float64), 2).item(), 4)
    0.857
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "mvlgamma")
    p = int_arg(p, "mvlgamma", "p", 2)
    if input.dtype is _dt.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if input.dtype.is_complex:      # (PyTorch fails in its arange of the shifts)
        raise NotImplementedError(f"\"arange_{input.device.type}\" not implemented for "
                                  f"'{_C._torch_type_name(input.dtype)}'")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = input if input.is_floating_point() else input.to(_dt.get_default_dtype())
    from ..creation import arange
    shifts = arange(p, dtype=x.dtype, device=x.device) * -0.5
    res = lgamma(x.unsqueeze(-1) + shifts).sum(-1) + p * (p - 1) / 4 * _math.log(_math.pi)
    if out is not None:
        from ..elementwise import _write_out
        return _write_out(out, res, "mvlgamma")
    return res


@tensor_method
def mvlgamma_(self, p):
    """In-place :func:`mvlgamma`.

    Examples
    --------
    >>> import cygrad
    >>> round(cygrad.tensor([2.5]).mvlgamma_(1).item(), 4)     # lgamma(2.5)
    0.2847
    """
    res = mvlgamma(self, p)
    if not self.is_floating_point():
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_C._torch_type_name(self.dtype)}")
    return self.copy_(res)


def _bound(self, value, name, argname):
    """clamp_min_/clamp_max_ take a tensor or a number, as PyTorch's two overloads."""
    if not isinstance(value, (TensorBase, int, float)):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({type(value).__name__}), but expected one of: (Tensor {argname}), "
                        f"(Number {argname})")


def _check_logit(input, eps, name):
    if not isinstance(input, TensorBase):
        raise not_tensor(input, name)
    if input.dtype.is_complex:
        raise NotImplementedError(f"\"logit_cpu\" not implemented for "
                                  f"'{_C._torch_type_name(input.dtype)}'")
    if eps is not None:
        if isinstance(eps, bool) or not isinstance(eps, (int, float)):
            raise TypeError(f"{name}(): argument 'eps' (position 1) must be float, not "
                            f"{type(eps).__name__}")
        eps = float(eps)
    return eps


@tensor_method
def logit(input, eps=None, *, out=None):
    """``log(x / (1 - x))``; with ``eps``, x is first clamped to ``[eps, 1 - eps]``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.logit(cygrad.tensor([0.5, 0.0]), eps=1e-6).tolist()[0]
    0.0
    """
    eps = _check_logit(input, eps, "logit")
    x = input if input.is_floating_point() else input.to(_dt.get_default_dtype())
    res = _fn.Logit.apply(x, eps)
    if out is not None:
        from ..elementwise import _write_out
        return _write_out(out, res, "logit")
    return res


@tensor_method
def logit_(self, eps=None):
    """In-place :func:`logit`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([0.5]).logit_().tolist()
    [0.0]
    """
    eps = _check_logit(self, eps, "logit_")
    if not self.is_floating_point():
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_C._torch_type_name(self.dtype)}")
    if _C.needs_autograd(self):
        return apply_inplace(_fn.Logit, self, eps)
    return self.copy_(_fn.Logit.apply(self, eps))


@tensor_method
def frexp(input, *, out=None):
    """Mantissa and exponent: ``input = mantissa * 2 ** exponent`` with
    ``|mantissa|`` in ``[0.5, 1)`` (0 for 0); the exponent is int32.

    Examples
    --------
    >>> import cygrad
    >>> m, e = cygrad.frexp(cygrad.tensor([8.0, 0.75]))
    >>> m.tolist(), e.tolist()
    ([0.5, 0.75], [4, 0])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "frexp")
    if not input.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = _fn.Frexp.apply(input)
    if out is not None:
        mo, eo = out
        if mo.dtype is not m.dtype:
            raise RuntimeError("torch.frexp() expects mantissa to have dtype "
                               f"{_C._torch_type_name(m.dtype)} but got "
                               f"{_C._torch_type_name(mo.dtype)}")
        if eo.dtype is not _dt.int32:
            raise RuntimeError("torch.frexp() expects exponent to have int dtype but got "
                               f"{_C._torch_type_name(eo.dtype)}")
        from ..elementwise import _resize_out
        for o, r in ((mo, m), (eo, e)):
            _resize_out(o, r.shape)
            o.copy_(r)
        return mo, eo
    return m, e


@tensor_method
def ldexp(input, other, *, out=None):
    """``input * 2 ** other``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.ldexp(cygrad.tensor([1.0, 3.0]), cygrad.tensor([2, 1])).tolist()
    [4.0, 6.0]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "ldexp")
    if not isinstance(other, TensorBase):
        raise not_tensor(other, "ldexp", "other", 2)
    return _C.binary_op(_C.ELEMENTWISE_OPS["mul"], input, other.exp2(), out)


@tensor_method
def ldexp_(self, other):
    """In-place :func:`ldexp`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([1.0]).ldexp_(cygrad.tensor([3])).tolist()
    [8.0]
    """
    if not isinstance(other, TensorBase):
        raise not_tensor(other, "ldexp_", "other", 1)
    return self.mul_(other.exp2())


_RAD_PER_DEG = _math.pi / 180


def _angle_convert(input, factor, name, out):
    if not isinstance(input, TensorBase):
        raise not_tensor(input, name)
    if input.dtype.is_complex:
        raise RuntimeError(f"{name} is not supported for complex tensors.")
    x = input if input.is_floating_point() else input.to(_dt.get_default_dtype())
    return _C.binary_op(_C.ELEMENTWISE_OPS["mul"], x, factor, out)


@tensor_method
def deg2rad(input, *, out=None):
    """Degrees to radians (integers become the default float dtype).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.deg2rad(cygrad.tensor([180.0])).tolist()
    [3.1415927410125732]
    """
    return _angle_convert(input, _RAD_PER_DEG, "deg2rad", out)


@tensor_method
def rad2deg(input, *, out=None):
    """Radians to degrees (integers become the default float dtype).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.rad2deg(cygrad.tensor([3.141592653589793], dtype=cygrad.float64)).tolist()
    [180.0]
    """
    return _angle_convert(input, 1 / _RAD_PER_DEG, "rad2deg", out)


def _angle_convert_(self, factor, name):
    if self.dtype.is_complex:
        raise RuntimeError(f"{name} is not supported for complex tensors.")
    if not self.is_floating_point():
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_C._torch_type_name(self.dtype)}")
    return self.mul_(factor)


@tensor_method
def deg2rad_(self):
    """In-place :func:`deg2rad`.

    Examples
    --------
    >>> import cygrad
    >>> y = cygrad.tensor([90.0]).deg2rad_()
    """
    return _angle_convert_(self, _RAD_PER_DEG, "deg2rad")


@tensor_method
def rad2deg_(self):
    """In-place :func:`rad2deg`.

    Examples
    --------
    >>> import cygrad
    >>> y = cygrad.tensor([1.0]).rad2deg_()
    """
    return _angle_convert_(self, 1 / _RAD_PER_DEG, "rad2deg")


@tensor_method
def fix(input, *, out=None):
    """Round toward zero: the same function as :func:`cygrad.trunc`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fix(cygrad.tensor([-1.5, 2.7])).tolist()
    [-1.0, 2.0]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "fix")
    return _C.unary_op(_C.ELEMENTWISE_OPS["trunc"], input, out)


@tensor_method
def fix_(self):
    """In-place :func:`fix` (``trunc_``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([-1.5]).fix_().tolist()
    [-1.0]
    """
    return self.trunc_()


def _bool_test(name):
    row = ROWS[name]

    def fn(input, *, out=None):
        if not isinstance(input, TensorBase):
            raise not_tensor(input, name)
        if isinstance(out, TensorBase) and out.dtype is not _dt.bool_:
            raise RuntimeError(f"{name} does not support non-boolean outputs.")
        return _unary(row, input, out)
    fn.__name__ = fn.__qualname__ = name
    return fn


signbit = tensor_method(_bool_test("signbit"))
signbit.__doc__ = """True where the sign bit is set (negative numbers, -0.0, NaNs with the bit).

Examples
--------
>>> import cygrad
>>> cygrad.signbit(cygrad.tensor([-0.0, 1.0, -2.0])).tolist()
[True, False, True]
"""
isposinf = tensor_method(_bool_test("isposinf"))
isposinf.__doc__ = """True where the value is +inf.

Examples
--------
>>> import cygrad
>>> cygrad.isposinf(cygrad.tensor([float("inf"), float("-inf"), 1.0])).tolist()
[True, False, False]
"""
isneginf = tensor_method(_bool_test("isneginf"))
isneginf.__doc__ = """True where the value is -inf.

Examples
--------
>>> import cygrad
>>> cygrad.isneginf(cygrad.tensor([float("inf"), float("-inf"), 1.0])).tolist()
[False, True, False]
"""


@tensor_method
def sgn_(self):
    """In-place :func:`cygrad.sgn` (``x / |x|``; the sign for real tensors).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([-2.0, 0.0, 3.0]).sgn_().tolist()
    [-1.0, 0.0, 1.0]
    """
    return _C.unary_op_(_C.ELEMENTWISE_OPS["sgn"], self)


@tensor_method
def clamp_min(input, min, *, out=None):
    """``clamp(input, min=min)``: ``min`` is a number or a tensor.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.clamp_min(cygrad.tensor([-1.0, 2.0]), 0.0).tolist()
    [0.0, 2.0]
    """
    from ..elementwise import clamp
    return clamp(input, min=min, out=out)


@tensor_method
def clamp_max(input, max, *, out=None):
    """``clamp(input, max=max)``: ``max`` is a number or a tensor.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.clamp_max(cygrad.tensor([-1.0, 2.0]), 0.0).tolist()
    [-1.0, 0.0]
    """
    from ..elementwise import clamp
    return clamp(input, max=max, out=out)


@tensor_method
def clamp_min_(self, min):
    """In-place :func:`clamp_min`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([-1.0, 2.0]).clamp_min_(0.0).tolist()
    [0.0, 2.0]
    """
    _bound(self, min, "clamp_min_", "min")
    return self.clamp_(min=min)


@tensor_method
def clamp_max_(self, max):
    """In-place :func:`clamp_max`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([-1.0, 2.0]).clamp_max_(0.0).tolist()
    [-1.0, 0.0]
    """
    _bound(self, max, "clamp_max_", "max")
    return self.clamp_(max=max)


__all__ += ["heaviside", "gcd", "lcm", "polygamma", "mvlgamma", "logit", "logit_", "frexp",
            "ldexp", "ldexp_", "deg2rad", "deg2rad_", "rad2deg", "rad2deg_", "fix", "fix_",
            "signbit", "isposinf", "isneginf", "clamp_min", "clamp_min_", "clamp_max",
            "clamp_max_", "gcd_", "lcm_"]


# ------------------------------------------------ names only under torch.special

_SPECIAL_UNARY = ["i0e", "i1", "i1e", "ndtr", "entr", "ndtri", "log_ndtr", "erfcx",
                  "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
                  "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
                  "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai",
                  "spherical_bessel_j0"]
SPECIAL_ONLY = {}
for _name in _SPECIAL_UNARY:
    SPECIAL_ONLY[_name] = _make_unary(_name, torch_name="special." + _name)[0]
for _name in ["xlog1py", "zeta"] + list(_C.ELEMENTWISE_OPS.keys() & set(_fn._table.POLYNOMIALS)):
    SPECIAL_ONLY[_name] = _make_binary(_name, torch_name="special." + _name,
                                       example="[0.5, 2.0]")[0]
for _name, _row in (("gammainc", "igamma"), ("gammaincc", "igammac")):
    SPECIAL_ONLY[_name] = _make_binary(_name, row_name=_row, torch_name="special." + _name,
                                       tensor_other=True)[0]
