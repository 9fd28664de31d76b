"""The op table's building blocks: ``SampleInput``, ``OpInfo``, dtype groups and
sample generators.

Every family module in ``tests/opinfo/`` defines ``OPS = [OpInfo(...), ...]``;
``tests/opinfo/__init__.py`` concatenates them into ``op_db`` and
``tests/test_ops.py`` turns each row into generated tests (values vs NumPy,
result dtype vs PyTorch, method form, non-contiguous and zero-size inputs,
``out=``, in-place variant).  See ``tests/opinfo/README.md``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Callable

import ml_dtypes
import numpy as np

import cygrad

# ---------------------------------------------------------------------------
# dtype groups
# ---------------------------------------------------------------------------
FLOATS = (cygrad.float32, cygrad.float64)
HALFS = (cygrad.float16, cygrad.bfloat16)
ALL_FLOATS = FLOATS + HALFS
SIGNED_INTS = (cygrad.int8, cygrad.int16, cygrad.int32, cygrad.int64)
INTS = (cygrad.uint8,) + SIGNED_INTS
BOOL = (cygrad.bool,)
INTS_AND_BOOL = BOOL + INTS
ALL_NUMERIC = INTS + ALL_FLOATS          # everything but bool
ALL = BOOL + ALL_NUMERIC                  # the 10 real dtypes
COMPLEX = (cygrad.complex64, cygrad.complex128)   # rows in tests/opinfo/complex.py


def is_float(dtype) -> bool:
    return dtype in ALL_FLOATS


def is_half(dtype) -> bool:
    return dtype in HALFS


def np_dtype(dtype) -> np.dtype:
    """NumPy dtype of a cygrad dtype (bfloat16 is ml_dtypes.bfloat16)."""
    return np.dtype(dtype.np_dtype)


# ---------------------------------------------------------------------------
# value generation
# ---------------------------------------------------------------------------
_DEFAULT_RANGE = {"float": (-3.0, 3.0), "int": (-9, 10), "uint": (0, 10)}


def make_array(shape, dtype, rng, low=None, high=None) -> np.ndarray:
    """A random C-contiguous array of ``shape`` whose values are valid for the
    cygrad ``dtype`` (rounded to it, so the NumPy reference sees exactly the
    values cygrad sees).  Floats are uniform in ``[low, high)``, integers in
    ``[low, high)`` clipped to the dtype's range, bools are fair coin flips."""
    shape = tuple(shape)
    npdt = np_dtype(dtype)
    if dtype == cygrad.bool:
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in COMPLEX:     # real and imaginary parts each drawn as a float
        parts = make_array(shape + (2,), dtype.to_real(), rng, low, high)
        return np.asarray(parts[..., 0] + 1j * parts[..., 1]).astype(npdt)
    if is_float(dtype):
        lo, hi = _DEFAULT_RANGE["float"]
        lo = lo if low is None else low
        hi = hi if high is None else high
        return np.asarray(rng.uniform(lo, hi, size=shape)).astype(npdt)
    info = np.iinfo(npdt)
    lo, hi = _DEFAULT_RANGE["uint" if info.min == 0 else "int"]
    lo = max(int(lo if low is None else low), int(info.min))
    hi = min(int(hi if high is None else high), int(info.max) + 1)
    hi = max(hi, lo + 1)      # a range wholly below 0 becomes {0} for unsigned dtypes
    return np.asarray(rng.integers(lo, hi, size=shape)).astype(npdt)


SPECIAL_FLOATS = (np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 0.5, -2.5, 2.5)


def special_array(dtype) -> np.ndarray:
    """NaN, +-inf, -0.0 and friends (floats only)."""
    return np.array(SPECIAL_FLOATS, dtype=np.float64).astype(np_dtype(dtype))


def python_scalar_for(dtype):
    """A Python scalar of the same category as ``dtype`` (bool/int/float)."""
    if dtype == cygrad.bool:
        return True
    if dtype in COMPLEX:
        return 1.5 - 0.5j
    if is_float(dtype):
        return 2.5
    return 3


# The generated tests, by name: the keys ``skips``/``xfails`` may use.
# tests/test_ops.py: values, dtypes, layouts, out=, in-place, errors.
VALUE_TESTS = frozenset({"test_values", "test_dtype_vs_torch", "test_method", "test_noncontiguous",
                         "test_zero_size", "test_out", "test_inplace", "test_errors"})
# tests/test_autograd_ops.py and tests/test_forward_ad.py: the autograd flags' claims.
AUTOGRAD_TESTS = frozenset({"test_gradcheck", "test_gradcheck_noncontiguous", "test_gradgradcheck",
                            "test_forward_ad", "test_inplace_autograd", "test_autograd_refused",
                            "test_function_class", "test_reference_engine"})
GENERATED_TESTS = VALUE_TESTS | AUTOGRAD_TESTS


# ---------------------------------------------------------------------------
# the table's row types
# ---------------------------------------------------------------------------
@dataclass
class SampleInput:
    input: np.ndarray            # first positional argument (converted to a cygrad tensor by the harness)
    args: tuple = ()             # further positional args: np.ndarray -> converted to tensors; anything else passed as is
    kwargs: dict = field(default_factory=dict)   # passed as is (np.ndarray values converted to tensors too)
    name: str = ""               # short label shown in test ids, e.g. "broadcast_row"


@dataclass
class ErrorInput:
    """A sample that must raise ``error_type`` (whose message matches ``match``)."""
    sample: SampleInput
    error_type: type = RuntimeError
    match: str | None = None


@dataclass
class OpInfo:
    name: str                     # "exp"
    op: Callable                  # cygrad function, e.g. cygrad.exp
    ref: Callable                 # NumPy reference: ref(np_input, *np_args, **kwargs) -> ndarray (or tuple of ndarrays / python value)
    dtypes: tuple                 # cygrad dtypes to test, e.g. FLOATS, ALL_NUMERIC
    sample_inputs: Callable       # sample_inputs(op_info, dtype: cygrad dtype, rng: np.random.Generator) -> list[SampleInput]
    method: str | None = None     # Tensor method name ("exp") if t.exp(...) exists
    inplace: str | None = None    # in-place method name ("exp_") if it exists
    supports_out: bool = False    # op(..., out=t) supported
    torch_name: str | None = None # name under torch (default: name) used to compare dtype/values with PyTorch when installed; None = same name; "" = no torch comparison
    atol: float = 1e-5
    rtol: float = 1e-4            # the harness loosens these automatically for float16/bfloat16
    check_noncontiguous: bool = True
    check_zero_size: bool = True
    skips: dict = field(default_factory=dict)   # {"test_name": "reason"} for honest, explained skips
    # --- optional extras (defaults keep rows short) ---
    error_inputs: Callable | None = None  # error_inputs(op_info, rng) -> list[ErrorInput]
    xfails: dict = field(default_factory=dict)  # {"test_values:float16": "core bug: ..."} -> strict xfail
    variant: str = ""             # distinguishes two rows of one op in test ids ("exp.special")
    # --- autograd support, declared (never probed): None = the family module's
    # AUTOGRAD_DEFAULTS (see resolve_autograd_flags); tests/test_autograd_ops.py checks
    # each claim both ways (a claimed support must work, a denied one must be refused)
    supports_autograd: bool | None = None     # float64 inputs requiring grad give a graph; gradcheck
    supports_forward_ad: bool | None = None   # forward mode (jvp) vs finite differences
    supports_gradgrad: bool | None = None     # gradgradcheck (backward is differentiable)
    supports_inplace: bool | None = None      # the in-place variant records a graph: gradcheck + version errors
    family: str = ""              # set by the collector: the tests/opinfo module the row came from

    @property
    def id(self) -> str:
        return f"{self.name}.{self.variant}" if self.variant else self.name

    def tolerances(self, dtype):
        """(atol, rtol) for ``dtype``: half types round every result to 8 or 11 bits."""
        if dtype == cygrad.bfloat16:
            return max(self.atol, 2e-2), max(self.rtol, 2e-2)
        if dtype == cygrad.float16:
            return max(self.atol, 2e-3), max(self.rtol, 2e-3)
        return self.atol, self.rtol

    def resolve_autograd_flags(self, defaults):
        """Fill the flags left ``None`` from the family's ``defaults`` (a dict with any
        of the four flag names), then check they are consistent.

        Unset, ``supports_autograd`` is the family default for rows tested in float64
        (gradcheck needs it) and False otherwise; the other three follow
        ``supports_autograd`` (``supports_inplace`` also needs an ``inplace`` name)
        unless the family says otherwise."""
        if self.supports_autograd is None:
            self.supports_autograd = (cygrad.float64 in self.dtypes
                                      and defaults.get("supports_autograd", False))
        for flag in ("supports_forward_ad", "supports_gradgrad", "supports_inplace"):
            if getattr(self, flag) is None:
                value = self.supports_autograd and defaults.get(flag, True)
                if flag == "supports_inplace":
                    value = value and self.inplace is not None
                setattr(self, flag, bool(value))
        self.supports_autograd = bool(self.supports_autograd)
        if self.supports_autograd and cygrad.float64 not in self.dtypes:
            raise ValueError(f"OpInfo {self.id}: supports_autograd needs float64 in dtypes "
                             "(gradients are checked in float64)")
        for flag in ("supports_forward_ad", "supports_gradgrad", "supports_inplace"):
            if getattr(self, flag) and not self.supports_autograd:
                raise ValueError(f"OpInfo {self.id}: {flag}=True without supports_autograd")
        if self.supports_inplace and self.inplace is None:
            raise ValueError(f"OpInfo {self.id}: supports_inplace=True without an inplace name")

    def torch_callable(self, torch):
        """The torch function to compare with, or None."""
        if self.torch_name == "":
            return None
        obj = torch
        for part in (self.torch_name or self.name).split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                return None
        return obj


# ---------------------------------------------------------------------------
# standard sample generators
# ---------------------------------------------------------------------------
UNARY_SHAPES = {"0d": (), "vec": (5,), "3d": (2, 3, 4)}
ZERO_SIZE_SHAPES = {"empty_vec": (0,), "empty_mat": (3, 0), "empty_3d": (2, 0, 4)}

# (lhs shape, rhs shape) pairs, the rhs being a shape or "scalar"
BINARY_SHAPES = {
    "same": ((3, 4), (3, 4)),
    "broadcast_row": ((3, 4), (4,)),
    "broadcast_outer": ((3, 1), (1, 4)),
    "broadcast_lhs": ((4,), (2, 3, 4)),
    "0d_rhs": ((3, 4), ()),
    "0d_lhs": ((), (3, 4)),
    "both_0d": ((), ()),
}


def unary_samples(op_info, dtype, rng, *, low=None, high=None, special=False,
                  kwargs=None):
    """Random inputs of several ranks (0-d included); ``special=True`` adds a
    sample with NaN/+-inf/-0.0 for float dtypes.  Restrict the domain with
    ``functools.partial(unary_samples, low=0.1)``."""
    kwargs = dict(kwargs or {})
    out = [SampleInput(make_array(shape, dtype, rng, low, high), kwargs=dict(kwargs), name=n)
           for n, shape in UNARY_SHAPES.items()]
    if special and is_float(dtype):
        out.append(SampleInput(special_array(dtype), kwargs=dict(kwargs), name="special"))
    return out


def _nonzero(a):
    """Replace zeros by one (divisors of integer division)."""
    a = np.array(a, copy=True)
    a[a == 0] = 1
    return a


def binary_samples(op_info, dtype, rng, *, low=None, high=None, rhs_low=None,
                   rhs_high=None, nonzero_rhs=False, scalars=True, special=False,
                   rhs_dtype=None, kwargs=None):
    """(input, other) pairs covering same shapes, broadcasting (3,4)+(4,),
    (3,1)+(1,4), (4,)+(2,3,4), 0-d on either side, and (``scalars=True``) a
    Python scalar ``other`` of the dtype's category.  ``special=True`` adds a
    NaN/inf/-0.0 pair for float dtypes (both orders of NaN).
    ``rhs_dtype`` gives ``other`` a different dtype (mixed-dtype rows)."""
    kwargs = dict(kwargs or {})
    rdt = rhs_dtype or dtype
    rlo = low if rhs_low is None else rhs_low
    rhi = high if rhs_high is None else rhs_high
    out = []
    for n, (ls, rs) in BINARY_SHAPES.items():
        lhs = make_array(ls, dtype, rng, low, high)
        rhs = make_array(rs, rdt, rng, rlo, rhi)
        if nonzero_rhs:
            rhs = _nonzero(rhs)
        out.append(SampleInput(lhs, (rhs,), dict(kwargs), n))
    if scalars:
        s = python_scalar_for(rdt)
        if nonzero_rhs and not s:
            s = 1
        out.append(SampleInput(make_array((3, 4), dtype, rng, low, high), (s,),
                               dict(kwargs), "py_scalar"))
    if special and is_float(dtype) and is_float(rdt):
        sp = special_array(dtype)
        rev = special_array(rdt)[::-1].copy()
        out.append(SampleInput(sp, (rev,), dict(kwargs), "special"))
        out.append(SampleInput(rev.astype(np_dtype(dtype)), (sp.astype(np_dtype(rdt)),),
                               dict(kwargs), "special_rev"))
    return out


def samples_with(generator, **options):
    """``generator`` with fixed keyword options, e.g.
    ``samples_with(binary_samples, nonzero_rhs=True)``."""
    return partial(generator, **options)
