"""Op-table rows for complex64/complex128 (variant ``complex``): elementwise ops,
promotion of real with complex operands, reductions and matmul.

References are NumPy's complex functions; the generated tests also compare result
dtypes and values with PyTorch, run non-contiguous and zero-size inputs, ``out=``
and in-place forms. Gradients of complex inputs are checked in tests/test_complex.py
(gradcheck perturbs real and imaginary parts).
"""
import numpy as np

import cygrad

from .core import COMPLEX, FLOATS, OpInfo, SampleInput, binary_samples, make_array, \
    samples_with, unary_samples
from .linalg import MATMUL_SHAPES, _pairs
from .reduction import _reduction_ref


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def _rsqrt(a):
    return 1 / np.sqrt(a)


# name -> (NumPy reference, in-place method or None)
_UNARY = {
    "neg": (np.negative, "neg_"), "exp": (np.exp, "exp_"), "log": (np.log, None),
    "sqrt": (np.sqrt, "sqrt_"), "sin": (np.sin, None), "cos": (np.cos, None),
    "tanh": (np.tanh, "tanh_"), "sigmoid": (_sigmoid, None), "rsqrt": (_rsqrt, None),
    "reciprocal": (np.reciprocal, None), "square": (np.square, None),
    "expm1": (np.expm1, None), "log1p": (np.log1p, None), "asin": (np.arcsin, None),
    "atan": (np.arctan, None), "cosh": (np.cosh, None),
    "abs": (np.abs, None), "angle": (np.angle, None), "sgn": (np.sign, None),
    "conj_physical": (np.conjugate, None),
}


def _unary_row(name, ref, inplace):
    return OpInfo(name, getattr(cygrad, name), ref, COMPLEX, unary_samples, method=name,
                  inplace=inplace, supports_out=name != "conj_physical", variant="complex",
                  atol=1e-5, rtol=1e-4)


def _reduction_samples(op_info, dtype, rng):
    return [SampleInput(make_array((3, 4), dtype, rng), kwargs=kw, name=n)
            for n, kw in (("all", {}), ("dim0", {"dim": 0}), ("dim1_keep", {"dim": 1, "keepdim": True}),
                          ("dims", {"dim": (0, 1)}))]


def _prod_samples(op_info, dtype, rng):
    # prod takes one dim; small magnitudes keep the products moderate
    return [SampleInput(make_array((3, 4), dtype, rng, -1.5, 1.5), kwargs=kw, name=n)
            for n, kw in (("all", {}), ("dim0", {"dim": 0}), ("dim1_keep", {"dim": 1, "keepdim": True}))]


OPS = [_unary_row(name, ref, inplace) for name, (ref, inplace) in _UNARY.items()] + [
    OpInfo(name, getattr(cygrad, name), ref, COMPLEX, binary_samples, method=name,
           inplace=name + "_", supports_out=True, variant="complex")
    for name, ref in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                      ("div", np.divide))
] + [
    OpInfo("pow", cygrad.pow, np.power, COMPLEX, samples_with(binary_samples, low=0.5, high=2.0),
           method="pow", supports_out=True, variant="complex", rtol=1e-4, atol=1e-4),
    OpInfo("eq", cygrad.eq, np.equal, COMPLEX, binary_samples, method="eq", variant="complex"),
    # real lhs, complex rhs: float32 with complex64 is complex64, float64 with it complex128
    OpInfo("mul", cygrad.mul, np.multiply, FLOATS,
           samples_with(binary_samples, rhs_dtype=cygrad.complex64), method="mul",
           variant="real_complex"),
    OpInfo("add", cygrad.add, np.add, FLOATS,
           samples_with(binary_samples, rhs_dtype=cygrad.complex128), method="add",
           variant="real_complex"),
    OpInfo("sum", cygrad.sum, _reduction_ref(np.sum), COMPLEX, _reduction_samples, method="sum",
           variant="complex"),
    OpInfo("mean", cygrad.mean, _reduction_ref(np.mean), COMPLEX, _reduction_samples,
           method="mean", variant="complex"),
    OpInfo("prod", cygrad.prod, _reduction_ref(np.prod), COMPLEX, _prod_samples, method="prod",
           variant="complex"),
    OpInfo("matmul", cygrad.matmul, np.matmul, COMPLEX, _pairs(MATMUL_SHAPES), method="matmul",
           supports_out=True, variant="complex"),
]
