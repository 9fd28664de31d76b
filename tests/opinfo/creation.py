"""Op-table rows for the factories that take a tensor (``*_like``, ``tensor``,
``as_tensor``); shape-taking factories (zeros, arange, eye...) are compared with
NumPy and PyTorch in tests/test_creation.py."""
import numpy as np

import cygrad

from .core import ALL, OpInfo, SampleInput, make_array, python_scalar_for, unary_samples


def _like_samples(op_info, dtype, rng):
    out = unary_samples(op_info, dtype, rng)
    out.append(SampleInput(make_array((3, 0), dtype, rng), name="empty"))
    out.append(SampleInput(make_array((2, 3), dtype, rng), kwargs={"dtype": cygrad.float64}, name="dtype_f64"))
    out.append(SampleInput(make_array((2, 3), dtype, rng), kwargs={"dtype": cygrad.int32}, name="dtype_i32"))
    return out


def _full_like_samples(op_info, dtype, rng):
    fill = python_scalar_for(dtype)
    out = [SampleInput(s.input, (fill,), s.kwargs, s.name) for s in _like_samples(op_info, dtype, rng)]
    a = make_array((2, 3), dtype, rng)
    if dtype != cygrad.bool:
        # a float fill into an integer tensor is truncated toward zero, as torch does
        out.append(SampleInput(a, (2.7 if dtype == cygrad.uint8 else -2.7,), name="float_fill"))
    return out


def _full_like_ref(a, fill, dtype=None):
    target = np.dtype(dtype.np_dtype) if dtype is not None else a.dtype
    if target.kind in "iu":
        fill = int(fill)      # C cast: toward zero
    return np.full(a.shape, fill).astype(target)


def _tensor_samples(op_info, dtype, rng):
    out = unary_samples(op_info, dtype, rng)
    out.append(SampleInput(make_array((2, 3), dtype, rng), kwargs={"dtype": cygrad.float64}, name="dtype_f64"))
    return out


# Factories make new leaves (torch.tensor(t) and *_like copy or ignore t's values).
AUTOGRAD_DEFAULTS = {"supports_autograd": False}

OPS = [
    OpInfo("zeros_like", cygrad.zeros_like, lambda a, dtype=None: np.zeros(a.shape), ALL, _like_samples),
    OpInfo("ones_like", cygrad.ones_like, lambda a, dtype=None: np.ones(a.shape), ALL, _like_samples),
    OpInfo("full_like", cygrad.full_like, _full_like_ref, ALL, _full_like_samples),
    OpInfo("tensor", cygrad.tensor, lambda a, dtype=None: np.array(a), ALL, _tensor_samples),
    OpInfo("as_tensor", cygrad.as_tensor, lambda a, dtype=None: np.array(a), ALL, _tensor_samples),
]
