"""Running op-table rows with float64 inputs that require grad (shared by the generated
autograd tests: tests/test_autograd_ops.py and tests/test_forward_ad.py).

A sample's *slots* are the places its float arrays sit (the input, positional or
keyword arguments); the harness replaces each by a float64 leaf requiring grad.
Samples named ``special*`` (NaN/inf/-0.0) are left out: a derivative is only
defined on the smooth part of an op.
"""
import warnings
import zlib

import numpy as np
import pytest

import cygrad
from cygrad._core.tensor import TensorBase

from .core import GENERATED_TESTS

F64 = cygrad.float64

# Keep the suite fast: samples whose float operands hold more elements are not checked.
MAX_NUMEL = 100


def rng_for(*parts):
    return np.random.default_rng(zlib.crc32("-".join(parts).encode()))


def samples(op_info):
    """The row's float64 samples, special values left out."""
    found = op_info.sample_inputs(op_info, F64, rng_for("autograd", op_info.id))
    return [s for s in found if not s.name.startswith("special")]


def params(rows, test):
    """pytest params for one test per row; the row's ``skips``/``xfails`` keyed by
    ``test`` (or ``test:float64``) become skip / strict xfail marks."""
    assert test in GENERATED_TESTS, test
    out = []
    for op_info in rows:
        marks = []
        for key in (test, f"{test}:float64"):
            if key in op_info.skips:
                marks.append(pytest.mark.skip(reason=op_info.skips[key]))
            if key in op_info.xfails:
                marks.append(pytest.mark.xfail(strict=True, reason=op_info.xfails[key]))
        out.append(pytest.param(op_info, id=op_info.id, marks=marks))
    return out


# ---------------------------------------------------------------- building calls

def _is_float_array(x):
    return isinstance(x, np.ndarray) and x.dtype.kind == "f"


def slots(sample):
    """Where the float arrays of a sample sit: ("input", None), ("args", i), ("kwargs", k)."""
    found = []
    if _is_float_array(sample.input):
        found.append(("input", None))
    found += [("args", i) for i, a in enumerate(sample.args) if _is_float_array(a)]
    found += [("kwargs", k) for k, v in sample.kwargs.items() if _is_float_array(v)]
    return found


def get(sample, slot):
    kind, key = slot
    if kind == "input":
        return sample.input
    return sample.args[key] if kind == "args" else sample.kwargs[key]


def convert(x, lib=cygrad):
    """ndarray -> tensor of that library; cygrad dtypes -> torch dtypes for torch."""
    if isinstance(x, np.ndarray):
        return lib.from_numpy(np.array(x, copy=True))
    if lib is not cygrad and isinstance(x, cygrad.dtype):
        return getattr(lib, x.name)
    return x


def call(op, sample, where, tensors, lib=cygrad):
    """op(sample) with the arrays at ``where`` (slots) replaced by ``tensors``."""
    inp, args, kwargs = arguments(sample, where, tensors, lib)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # deprecation notes of some rows
        return op(inp, *args, **kwargs)


def arguments(sample, where, tensors, lib=cygrad):
    replaced = dict(zip(where, tensors))
    inp = replaced.get(("input", None), convert(sample.input, lib))
    args = tuple(replaced.get(("args", i), convert(a, lib)) for i, a in enumerate(sample.args))
    kwargs = {k: replaced.get(("kwargs", k), convert(v, lib)) for k, v in sample.kwargs.items()}
    return inp, args, kwargs


def outputs(result):
    """The tensors of a result (nested tuples/lists flattened)."""
    if isinstance(result, (tuple, list)):
        return [t for r in result for t in outputs(r)]
    return [result] if isinstance(result, TensorBase) else []


def leaves(sample, where, make=None):
    """Fresh float64 leaves requiring grad, one per slot (``make`` builds a
    non-contiguous tensor, or returns None to keep the contiguous one)."""
    out = []
    for slot in where:
        arr = np.asarray(get(sample, slot), dtype=np.float64)
        t = make(arr) if make is not None else None
        if t is None:
            t = cygrad.from_numpy(np.array(arr, copy=True))
        out.append(t.requires_grad_(True))
    return out


def function_of(op_info, sample, where):
    """The sample as a function of its float tensors (what gradcheck differentiates)."""
    def fn(*tensors):
        return call(op_info.op, sample, where, tensors)
    return fn


# ---------------------------------------------------------------- which samples are checked

def usable_samples(op_info, limit=None):
    """The samples gradients are checked on: float inputs, small, finite results.

    Fails (never returns an empty list): a row declared differentiable must have
    something to check; and a sample the op accepts without grad but refuses when
    its inputs require grad is a bug, reported here."""
    found, refused = [], []
    for sample in samples(op_info):
        where = slots(sample)
        if not where or sum(np.size(get(sample, s)) for s in where) > MAX_NUMEL:
            continue
        try:
            with cygrad.no_grad():
                result = call(op_info.op, sample, [], [])
        except Exception:      # noqa: BLE001  (an invalid sample: the value tests judge it)
            continue
        outs = [o for o in outputs(result) if o.dtype.is_floating_point]
        if not outs or not all(np.isfinite(o.numpy()).all() for o in outs):
            continue
        try:
            call(op_info.op, sample, where, leaves(sample, where))
        except Exception as e:   # noqa: BLE001
            refused.append(f"{sample.name}: {type(e).__name__}: {e}")
            continue
        found.append(sample)
    assert not refused, (f"{op_info.id}: samples that work without grad raise when their "
                         "inputs require grad:\n" + "\n".join(refused))
    assert found, (f"{op_info.id}: no sample is small, finite and has float inputs: give the "
                   "row such a sample, or declare supports_autograd=False")
    return found[:limit]


def graph_outputs(op_info, sample, tensors):
    """The float outputs of the op that carry a grad_fn (or are an input itself, as
    ``atleast_1d`` returns a 1-d input, like PyTorch); fails if there are none."""
    result = call(op_info.op, sample, slots(sample), tensors)
    outs = [o for o in outputs(result) if o.dtype.is_floating_point
            and (o.grad_fn is not None or any(o is t for t in tensors))]
    assert outs, (f"{op_info.id}[{sample.name}]: declared supports_autograd, but no float "
                  "output has a grad_fn")
    return outs


# ---------------------------------------------------------------- non-contiguous leaves

def strided(a):
    """The values of ``a`` as every other element of a bigger buffer (None for 0-d and
    single-element arrays)."""
    if a.ndim == 0 or a.size <= 1:
        return None
    big = np.zeros(tuple(2 * n for n in a.shape))
    sl = tuple(slice(None, None, 2) for _ in a.shape)
    big[sl] = a
    return cygrad.from_numpy(big)[sl]


def transposed(a):
    if a.ndim < 2:
        return None
    return cygrad.from_numpy(np.ascontiguousarray(a.T)).permute(*reversed(range(a.ndim)))
