"""The special functions' rows of the elementwise op table.

Each row is an :class:`~cygrad._core.tensor.ElementwiseOp` like those of
``tensor_dispatch.pxi``, so broadcasting, type promotion (integers become the
default float), ``out=``, in-place forms and the autograd hand-off are the
dispatcher's. A row's kernel is its array function from
``backend_cpu/special.py`` (the C loops of ``cpu/special.c``, or a NumPy ufunc).
Importing this module adds the rows to ``ELEMENTWISE_OPS`` by name.

Examples
--------
>>> import cygrad
>>> from cygrad._core.special_table import ROWS
>>> from cygrad._core.tensor import unary_op
>>> unary_op(ROWS["digamma"], cygrad.tensor([1.0])).tolist()
[-0.5772156715393066]
"""
from . import tensor as _C
from .backend_cpu import special as _cpu

# ElementwiseOp's rules (the enums of tensor_dispatch.pxi)
_SAME, _FLOAT, _BOOL = 0, 1, 2               # result dtype
_ANY, _INTEGRAL, _FLOATS = 0, 2, 3           # accepted inputs (after promotion)


def _row(name, arity, fn, result=_FLOAT, inputs=_FLOATS):
    return _C.ElementwiseOp(name, arity, -1, fn, result=result, inputs=inputs)


_UNARY_HALF = ["lgamma", "digamma", "erfinv", "i0", "i0e", "i1", "i1e", "ndtr", "entr", "sinc"]
_UNARY_NO_HALF = ["ndtri", "log_ndtr", "erfcx", "modified_bessel_k0", "modified_bessel_k1",
                  "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "bessel_j0",
                  "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai", "spherical_bessel_j0"]
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p"]

ROWS = {}
for _n in _UNARY_HALF:
    ROWS[_n] = _row(_n, 1, _cpu.unary_loop(_n), inputs=_ANY if _n == "sinc" else _FLOATS)
for _n in _UNARY_NO_HALF:
    ROWS[_n] = _row(_n, 1, _cpu.unary_loop(_n, half=False))
# the same functions as i0/i1, without their half kernels or derivatives (as in PyTorch)
for _n, _c in (("modified_bessel_i0", "i0"), ("modified_bessel_i1", "i1")):
    ROWS[_n] = _row(_n, 1, _cpu.unary_loop(_c, half=False, torch_name=_n))
for _n in POLYNOMIALS + ["zeta"]:
    ROWS[_n] = _row(_n, 2, _cpu.binary_loop(_n, half=False))
for _n in ("xlogy", "xlog1py", "polygamma"):
    ROWS[_n] = _row(_n, 2, _cpu.binary_loop(_n))
# PyTorch's names for the regularized incomplete gamma functions; no integer kernels
ROWS["igamma"] = _row("igamma", 2, _cpu.binary_loop("gammainc"), result=_SAME)
ROWS["igammac"] = _row("igammac", 2, _cpu.binary_loop("gammaincc"), result=_SAME)
for _n in ("logaddexp", "logaddexp2", "nextafter"):
    ROWS[_n] = _row(_n, 2, getattr(_cpu, _n), result=_SAME)
ROWS["copysign"] = _row("copysign", 2, _cpu.copysign)
ROWS["heaviside"] = _row("heaviside", 2, _cpu.heaviside, result=_SAME, inputs=_ANY)
ROWS["gcd"] = _row("gcd", 2, _cpu.gcd, result=_SAME, inputs=_INTEGRAL)
ROWS["lcm"] = _row("lcm", 2, _cpu.lcm, result=_SAME, inputs=_INTEGRAL)
for _n in ("signbit", "isposinf", "isneginf"):
    ROWS[_n] = _row(_n, 1, getattr(_cpu, _n), result=_BOOL, inputs=_ANY)

# PyTorch's errors for complex inputs, and its kernels' names in "not implemented" ones
_C._COMPLEX_REFUSED.update({
    "signbit": (NotImplementedError, "signbit is not implemented for complex tensors."),
    "isposinf": (RuntimeError, "isposinf does not support complex inputs."),
    "isneginf": (RuntimeError, "isneginf does not support complex inputs."),
    "heaviside": (RuntimeError, "heaviside is not yet implemented for complex tensors."),
})
_C._CPU_KERNEL_NAMES.update({"lgamma": "lgamma_vml_cpu", "erfinv": "erfinv_vml_cpu",
                             "i0": "i0_vml_cpu", "digamma": "digamma", "ndtr": "erf_vml_cpu"})

_C.ELEMENTWISE_OPS.update(ROWS)
