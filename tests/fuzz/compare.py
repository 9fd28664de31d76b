"""Judging one case: cygrad's outcome against the reference's.

An outcome is ``("ok", value)`` or ``("raise", exception)``.  Results are first
normalised to plain data (:func:`normalise`: tensors become dtype name, shape
and a flat float64/int64 array), then :func:`classify` names the verdict:

``ok``             same result (or both raised compatible exception types)
``wrong_value``    values differ beyond the dtype's tolerance (NaN == NaN)
``wrong_dtype``    result dtypes differ
``wrong_shape``    result shapes differ
``wrong_type``     different kinds of result (tuple vs tensor, int vs float ...)
``wrong_exception`` both raised, cygrad's type is not an instance of the reference's
``cy_raised``      cygrad raised where the reference returned a result
``cy_accepted``    cygrad returned a result where the reference raised
``limit``          cygrad refused more than 16 dims (a documented cygrad limit,
                   counted but not a failure, whatever the reference did)
``unchecked``      the reference has no such method (cygrad's extras)

Crashes and hangs are judged by the parent process (``runner.py``).
"""
from __future__ import annotations

import builtins
import math

import numpy as np

FAILURE_KINDS = ("wrong_value", "wrong_dtype", "wrong_shape", "wrong_type", "wrong_exception",
                 "cy_raised", "cy_accepted", "crash", "hang")
_TOL = {"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2), "float32": (1e-4, 1e-5),
        "float64": (1e-7, 1e-10)}
_DIM_LIMIT_MESSAGE = "at most 64 dimensions"
_MAX_COMPARED = 1 << 22
_ALLOC_WORDS = ("can't allocate memory", "could not allocate")


def _dtype_name(dtype) -> str:
    return str(dtype).rsplit(".", 1)[-1]


def _is_tensor(x) -> bool:
    return hasattr(x, "dtype") and hasattr(x, "shape") and hasattr(x, "stride") and \
        not isinstance(x, np.ndarray)


def _flat_values(t, lib):
    if lib == "th":
        t = t.detach()
        if t.dtype.is_floating_point:
            return t.reshape(-1).double().numpy()
        if str(t.dtype) == "torch.bool":
            return t.reshape(-1).numpy().astype(np.int64)
        return t.reshape(-1).long().numpy()
    if isinstance(t, np.ndarray):
        a = t
    else:
        a = t.numpy()
    a = np.asarray(a).reshape(-1)
    return a.astype(np.float64) if a.dtype.kind in "fV" or str(a.dtype) == "bfloat16" \
        else a.astype(np.int64)


def normalise(x, lib):
    """Plain-data form of a result (``lib``: 'cy', 'th' or 'np')."""
    if _is_tensor(x):
        shape = tuple(int(s) for s in x.shape)
        # values of a huge (expanded) view are not materialised: shape and dtype only
        n = math.prod(shape)
        if n == 0:      # NumPy refuses some empty shapes ((0, 2**62)): nothing to compare anyway
            values = np.zeros(0, np.float64 if x.is_floating_point() else np.int64)
        else:
            values = _flat_values(x, lib) if n <= _MAX_COMPARED else None
        return ("tensor", _dtype_name(x.dtype), shape, values)
    if isinstance(x, np.ndarray):
        return ("tensor", str(x.dtype), tuple(x.shape), _flat_values(x, "np"))
    if isinstance(x, (np.generic,)):
        return normalise(x.item(), lib)
    if type(x).__name__ in ("Size", "_Size"):
        return ("size", tuple(int(s) for s in x))
    if isinstance(x, (tuple, list)):
        return ("seq", [normalise(e, lib) for e in x])
    if isinstance(x, bool):
        return ("bool", x)
    if isinstance(x, int):
        return ("int", x)
    if isinstance(x, float):
        return ("float", x)
    if x is None:
        return ("none",)
    if hasattr(x, "is_floating_point"):         # a dtype object
        return ("dtype", _dtype_name(x))
    return ("other", type(x).__name__)


_PRECISION = ("bfloat16", "float16", "float32", "float64")


def _values_close(a, b, dtype, tol_dtype=None):
    if a.shape != b.shape:
        return False
    if dtype not in _TOL:
        return bool(np.array_equal(a, b))
    if tol_dtype in _TOL and _PRECISION.index(tol_dtype) < _PRECISION.index(dtype):
        dtype = tol_dtype       # computed in a lower precision, then cast up (out=, dtype=)
    rtol, atol = _TOL[dtype]
    scale = max(1.0, float(np.max(np.abs(b[np.isfinite(b)]), initial=0.0)))
    return bool(np.all(np.isclose(a, b, rtol=rtol, atol=atol * scale, equal_nan=True)))


def compare(cy, ref, check_values=True, ref_lib="th", tol_dtype=None):
    """None when equal, else (kind, detail); ``tol_dtype``: the least precise float
    dtype among the operands, whose tolerance applies if it is looser."""
    if cy[0] != ref[0]:
        if {cy[0], ref[0]} == {"size", "seq"} or {cy[0], ref[0]} <= {"int", "bool"} and ref_lib == "np":
            return None
        return ("wrong_type", f"{cy[0]} vs {ref[0]}")
    kind = cy[0]
    if kind == "tensor":
        _, cdt, cshape, cvals = cy
        _, rdt, rshape, rvals = ref
        if cshape != rshape:
            return ("wrong_shape", f"{cshape} vs {rshape}")
        if ref_lib != "np" and cdt != rdt:
            return ("wrong_dtype", f"{cdt} vs {rdt}")
        if check_values and cvals is not None and rvals is not None and not _values_close(
                cvals, rvals.astype(cvals.dtype) if ref_lib != "np" else rvals, cdt, tol_dtype):
            return ("wrong_value", cdt)
        return None
    if kind == "seq":
        if len(cy[1]) != len(ref[1]):
            return ("wrong_type", f"{len(cy[1])} results vs {len(ref[1])}")
        for c, r in zip(cy[1], ref[1]):
            verdict = compare(c, r, check_values, ref_lib, tol_dtype)
            if verdict:
                return verdict
        return None
    if kind == "float" and check_values:
        a, b = cy[1], ref[1]
        if not (a == b or (math.isnan(a) and math.isnan(b)) or
                math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6)):
            return ("wrong_value", "float")
        return None
    if kind in ("int", "bool", "size", "dtype", "other") and (check_values or kind != "int"):
        if cy[1:] != ref[1:]:
            return ("wrong_value", kind)
    return None


def builtin_base(exc_type):
    """The nearest builtin exception class of ``exc_type`` (torch's own classes
    subclass RuntimeError, ValueError...)."""
    for klass in exc_type.__mro__:
        if getattr(builtins, klass.__name__, None) is klass:
            return klass
    return Exception


def _is_alloc_failure(exc):
    return isinstance(exc, MemoryError) or any(w in str(exc) for w in _ALLOC_WORDS)


def exceptions_compatible(cy_exc, ref_exc) -> bool:
    """cygrad's exception is an instance of the builtin class of the reference's.
    A failed allocation is a MemoryError in cygrad and a RuntimeError in PyTorch:
    both are accepted as the same outcome."""
    if _is_alloc_failure(cy_exc) and _is_alloc_failure(ref_exc):
        return True
    return isinstance(cy_exc, builtin_base(type(ref_exc)))


def classify(cy_outcome, ref_outcome, check_values=True, ref_lib="th", tol_dtype=None):
    """(kind, detail, exception types) for one case."""
    cstat, cval = cy_outcome
    rstat, rval = ref_outcome
    if cstat == "raise" and _DIM_LIMIT_MESSAGE in str(cval):
        return "limit", "", f"{type(cval).__name__}/" + (
            builtin_base(type(rval)).__name__ if rstat == "raise" else "-")
    if rstat == "raise" and isinstance(rval, AttributeError) and "object has no attribute" in str(rval):
        # a method PyTorch lacks (cygrad's extra ``minimum_``...): nothing to compare with
        return "unchecked", "", ""
    if cstat == "raise" and rstat == "raise":
        types = f"{type(cval).__name__}/{builtin_base(type(rval)).__name__}"
        if ref_lib == "np" or exceptions_compatible(cval, rval):
            return "ok", "", types
        return "wrong_exception", "", types
    if cstat == "raise":
        types = f"{type(cval).__name__}/-"
        if ref_lib != "th" and _is_alloc_failure(cval):
            return "ok", "", types
        return "cy_raised", "", types
    if rstat == "raise":
        types = f"-/{builtin_base(type(rval)).__name__}"
        if ref_lib == "np" or _is_alloc_failure(rval):
            # PyTorch touches what it allocates and hit the child's memory cap;
            # cygrad's untouched pages did not: an environment limit, not a defect.
            return "ok", "", types
        return "cy_accepted", "", types
    verdict = compare(normalise(cval, "cy"), normalise(rval, ref_lib), check_values, ref_lib,
                      tol_dtype)
    if verdict is None:
        return "ok", "", ""
    return verdict[0], verdict[1], ""
