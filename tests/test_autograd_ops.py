"""Gradients of every op in the OpInfo table, checked with ``gradcheck`` in float64.

Which rows are tested:

* A row is **differentiable in cygrad** when calling it on its first float64 sample,
  with the float inputs requiring grad, gives a float output with a ``grad_fn``
  (probed once, at collection). Those rows get ``test_gradcheck`` (every sample,
  contiguous and non-contiguous inputs) and, for the smooth ops in ``GRADGRAD_OPS``,
  ``test_gradgradcheck``.
* A row is **expected to be differentiable** when PyTorch says so: the same sample run
  through the row's torch function gives an output with a ``grad_fn`` — minus the ops
  whose torch backward raises "not implemented" (``NOT_DIFFERENTIABLE_IN_TORCH``). Rows
  without a torch function are expected differentiable when they return a float
  tensor (PyTorch's rule for almost every op), unless listed in that set.
  ``test_differentiable_coverage`` fails, listing them, for rows expected to be
  differentiable that are not (yet).

Samples whose output is not finite (NaN/inf: outside the op's domain) or whose name
starts with ``special`` are left out: a derivative is only defined on the smooth part.
Which samples sit on a kink (ties of max, |x| at 0...) is listed in ``SAMPLE_SKIPS``.
"""
import warnings
import zlib

import numpy as np
import pytest

import cygrad
from cygrad._core.tensor import TensorBase
from cygrad.autograd import gradcheck, gradgradcheck
from opinfo import op_db

F64 = cygrad.float64

# torch has a grad_fn for these but its backward raises "not implemented"
# (or they are non-differentiable by definition: integer-valued steps of a float).
NOT_DIFFERENTIABLE_IN_TORCH = {
    "floor_divide": "torch: derivative for aten::floor_divide is not implemented",
    "scatter.reduce_add": "torch: derivative for aten::scatter (reduce=) is not implemented",
    "scatter.reduce_multiply": "torch: derivative for aten::scatter (reduce=) is not implemented",
    "unique": "torch: the derivative for '_unique2' is not implemented",
    "tensor": "creation: cygrad.tensor(t) copies into a new leaf, as torch.tensor",
    "as_tensor": "creation: returns a leaf (or the input itself)",
    "zeros_like": "creation", "ones_like": "creation", "full_like": "creation",
}

# Smooth ops (on their samples) whose second derivative is checked too.
GRADGRAD_OPS = {
    "neg", "abs", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
    "reciprocal", "square", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
    "tanh", "sigmoid", "erf", "erfc", "add", "sub", "mul", "div", "pow", "atan2", "hypot",
    "lerp", "matmul", "mm", "mv", "dot", "outer", "addmm", "sum", "mean", "prod", "var",
    "std", "norm", "logsumexp", "softmax", "log_softmax", "cumsum", "cumprod", "cat",
    "stack", "getitem", "index_select", "gather", "where", "flip", "tril", "pad",
}

# (row id, sample name) -> why a sample is not checked.
SAMPLE_SKIPS = {}

# Known bugs in an op's backward: strict xfail, so the mark flips when fixed.
OP_XFAILS = {}

# Keep the suite fast: inputs larger than this many elements are not gradchecked.
MAX_NUMEL = 100


def _rng(*parts):
    return np.random.default_rng(zlib.crc32("-".join(parts).encode()))


def _samples(op_info):
    samples = op_info.sample_inputs(op_info, F64, _rng("autograd", op_info.id))
    return [s for s in samples if not s.name.startswith("special")]


# --------------------------------------------------------------- building calls

def _is_float_array(x):
    return isinstance(x, np.ndarray) and x.dtype.kind == "f"


def _slots(sample):
    """Where the float arrays of a sample sit: ("input",), ("args", i), ("kwargs", k)."""
    slots = []
    if _is_float_array(sample.input):
        slots.append(("input", None))
    slots += [("args", i) for i, a in enumerate(sample.args) if _is_float_array(a)]
    slots += [("kwargs", k) for k, v in sample.kwargs.items() if _is_float_array(v)]
    return slots


def _get(sample, slot):
    kind, key = slot
    if kind == "input":
        return sample.input
    return sample.args[key] if kind == "args" else sample.kwargs[key]


def _convert(x, lib=cygrad):
    """ndarray -> tensor of that library; cygrad dtypes -> torch dtypes for torch."""
    if isinstance(x, np.ndarray):
        if lib is cygrad:
            return cygrad.from_numpy(np.array(x, copy=True))
        return lib.from_numpy(np.array(x, copy=True))
    if lib is not cygrad and isinstance(x, cygrad.dtype):
        return getattr(lib, x.name)
    return x


def _call(op, sample, slots, tensors, lib=cygrad):
    """op(sample) with the float slots replaced by ``tensors``."""
    replaced = dict(zip(slots, tensors))
    inp = replaced.get(("input", None), _convert(sample.input, lib))
    args = tuple(replaced.get(("args", i), _convert(a, lib)) for i, a in enumerate(sample.args))
    kwargs = {k: replaced.get(("kwargs", k), _convert(v, lib)) for k, v in sample.kwargs.items()}
    return op(inp, *args, **kwargs)


def _outputs(result):
    if isinstance(result, (tuple, list)):
        return [r for r in result if isinstance(r, TensorBase)] + \
               [x for r in result if isinstance(r, (tuple, list)) for x in _outputs(r)]
    return [result] if hasattr(result, "grad_fn") else []


def _leaves(sample, slots, make=None):
    """Fresh float64 leaves requiring grad, one per slot (``make`` builds the tensor)."""
    out = []
    for slot in slots:
        arr = np.asarray(_get(sample, slot), dtype=np.float64)
        t = make(arr) if make is not None else None
        if t is None:
            t = cygrad.from_numpy(np.array(arr, copy=True))
        out.append(t.requires_grad_(True))
    return out


# --------------------------------------------------------------- non-contiguous

def _strided(a):
    """The values of ``a`` as a non-contiguous view (every other element of a bigger
    buffer), or None for 0-d and single-element arrays."""
    if a.ndim == 0 or a.size <= 1:
        return None
    big = np.zeros(tuple(2 * n for n in a.shape))
    sl = tuple(slice(None, None, 2) for _ in a.shape)
    big[sl] = a
    return cygrad.from_numpy(big)[sl]


def _transposed(a):
    if a.ndim < 2:
        return None
    return cygrad.from_numpy(np.ascontiguousarray(a.T)).permute(*reversed(range(a.ndim)))


# --------------------------------------------------------------- classification

def _probe_cygrad(op_info):
    """True if the op records a graph on float64 inputs requiring grad."""
    samples = _samples(op_info)
    for sample in samples[:1]:
        slots = _slots(sample)
        if not slots:
            return False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # deprecation notes of some rows
                result = _call(op_info.op, sample, slots, _leaves(sample, slots))
        except Exception:    # noqa: BLE001  (then it is not differentiable)
            return False
        return any(o.grad_fn is not None for o in _outputs(result))
    return False


def _probe_torch(op_info, torch):
    """PyTorch's verdict on the same sample; None if it cannot be asked."""
    fn = op_info.torch_callable(torch)
    samples = _samples(op_info)
    if fn is None or not samples:
        return None
    sample = samples[0]
    slots = _slots(sample)
    tensors = [torch.from_numpy(np.array(_get(sample, s), dtype=np.float64)).requires_grad_()
               for s in slots]
    try:
        result = _call(fn, sample, slots, tensors, lib=torch)
    except Exception:
        return None
    outs = result if isinstance(result, (tuple, list)) else [result]
    return any(getattr(o, "grad_fn", None) is not None for o in outs)


def _float_output(op_info):
    samples = _samples(op_info)
    if not samples:
        return False
    sample = samples[0]
    try:
        result = _call(op_info.op, sample, [], [])
    except Exception:
        return False
    return any(o.dtype.is_floating_point for o in _outputs(result))


F64_ROWS = [op for op in op_db if F64 in op.dtypes]
_RECORDS_GRAPH = [op for op in F64_ROWS if _probe_cygrad(op)]
_DIFF_IDS = {op.id for op in _RECORDS_GRAPH}
DIFFERENTIABLE = [op for op in _RECORDS_GRAPH if op.id not in NOT_DIFFERENTIABLE_IN_TORCH]


def _params(rows):
    return [pytest.param(op, id=op.id, marks=pytest.mark.xfail(strict=True, reason=OP_XFAILS[op.id]))
            if op.id in OP_XFAILS else pytest.param(op, id=op.id) for op in rows]


def _grad_forward_error(op_info, sample):
    """The exception the op raises when its float inputs require grad, or None."""
    slots = _slots(sample)
    try:
        _call(op_info.op, sample, slots, _leaves(sample, slots))
    except Exception as e:     # noqa: BLE001  (reported by test_differentiable_coverage)
        return e
    return None


# --------------------------------------------------------------- gradcheck

def _checkable(op_info, sample):
    """Small, finite, float inputs, and the op accepts inputs requiring grad (samples
    where it does not are listed by test_differentiable_coverage)."""
    if (op_info.id, sample.name) in SAMPLE_SKIPS:
        return False
    slots = _slots(sample)
    if not slots:
        return False
    if sum(np.size(_get(sample, s)) for s in slots) > MAX_NUMEL:
        return False
    try:
        with cygrad.no_grad():
            result = _call(op_info.op, sample, [], [])
    except Exception:
        return False
    outs = [o for o in _outputs(result) if o.dtype.is_floating_point]
    if not outs or not all(np.isfinite(o.numpy()).all() for o in outs):
        return False
    return _grad_forward_error(op_info, sample) is None


def _check(op_info, sample, make=None):
    slots = _slots(sample)
    leaves = _leaves(sample, slots, make)

    def fn(*tensors):
        return _call(op_info.op, sample, slots, tensors)

    assert gradcheck(fn, tuple(leaves)), f"{op_info.id}[{sample.name}]"
    return leaves


@pytest.mark.parametrize("op_info", _params(DIFFERENTIABLE))
def test_gradcheck(op_info):
    checked = 0
    for sample in _samples(op_info):
        if not _checkable(op_info, sample):
            continue
        _check(op_info, sample)
        checked += 1
    if not checked:
        pytest.skip(f"{op_info.id}: no sample is small, finite and has float inputs")


@pytest.mark.parametrize("op_info", _params(DIFFERENTIABLE))
def test_gradcheck_noncontiguous(op_info):
    """Inputs are strided / transposed views: the backward must not assume
    contiguous memory, and gradients come back in the input's shape."""
    checked = 0
    for sample in _samples(op_info):
        if not _checkable(op_info, sample):
            continue
        for make in (_strided, _transposed):
            leaves_made = [make(np.asarray(_get(sample, s), dtype=np.float64))
                           for s in _slots(sample)]
            if all(t is None or t.is_contiguous() for t in leaves_made):
                continue
            leaves = _check(op_info, sample, make)
            assert any(not t.is_contiguous() for t in leaves)
            checked += 1
        if checked >= 2:
            break       # two samples are enough: the contiguous test covers the rest
    if not checked:
        pytest.skip(f"{op_info.id}: no sample with an operand of more than one element")


GRADGRAD_ROWS = [op for op in DIFFERENTIABLE if op.name in GRADGRAD_OPS]


@pytest.mark.parametrize("op_info", _params(GRADGRAD_ROWS))
def test_gradgradcheck(op_info):
    checked = 0
    for sample in _samples(op_info):
        if not _checkable(op_info, sample):
            continue
        slots = _slots(sample)
        leaves = _leaves(sample, slots)

        def fn(*tensors):
            return _call(op_info.op, sample, slots, tensors)

        assert gradgradcheck(fn, tuple(leaves)), f"{op_info.id}[{sample.name}]"
        checked += 1
        if checked >= 3:
            break
    if not checked:
        pytest.skip(f"{op_info.id}: no sample is small, finite and has float inputs")


# --------------------------------------------------------------- coverage

# Ops that return their input itself (no new node), as PyTorch's do: a graph node is
# not expected, whether or not torch is installed to tell.
RETURNS_INPUT = {"positive": "torch.positive(x) returns x itself for non-bool tensors"}


def _expected_differentiable(op_info, torch):
    if op_info.id in NOT_DIFFERENTIABLE_IN_TORCH or op_info.name in NOT_DIFFERENTIABLE_IN_TORCH:
        return False
    if op_info.name in RETURNS_INPUT:
        return False
    verdict = _probe_torch(op_info, torch) if torch is not None else None
    if verdict is not None:
        return verdict
    return _float_output(op_info)


def test_differentiable_coverage():
    """Every op PyTorch can differentiate must record a graph in cygrad too."""
    try:
        import torch
    except ImportError:      # the float-output rule still decides
        torch = None
    missing = sorted(op.id for op in F64_ROWS
                     if op.id not in _DIFF_IDS and _expected_differentiable(op, torch))
    # rows that are differentiable, but refuse inputs requiring grad for some samples
    refused = []
    for op in DIFFERENTIABLE:
        for sample in _samples(op):
            try:
                with cygrad.no_grad():
                    _call(op.op, sample, [], [])
            except Exception:    # noqa: BLE001  (invalid sample: the value tests judge it)
                continue
            if _slots(sample) and _grad_forward_error(op, sample) is not None:
                refused.append(f"{op.id}[{sample.name}]: {_grad_forward_error(op, sample)}")
    assert not missing and not refused, (
        f"{len(missing)} ops are differentiable in PyTorch but produce no grad_fn in "
        f"cygrad: {', '.join(missing)}\n{len(refused)} samples of differentiable ops raise "
        f"when their inputs require grad:\n" + "\n".join(refused))


@pytest.mark.parametrize("op_info", [op for op in _RECORDS_GRAPH
                                     if op.id in NOT_DIFFERENTIABLE_IN_TORCH],
                         ids=lambda op: op.id)
def test_unimplemented_backward_raises(op_info):
    """Ops with a graph node but no derivative (as in PyTorch) raise on backward."""
    sample = _samples(op_info)[0]
    slots = _slots(sample)
    out = _outputs(_call(op_info.op, sample, slots, _leaves(sample, slots)))[0]
    with pytest.raises(RuntimeError, match="not implemented"):
        out.backward(cygrad.ones_like(out))


def test_differentiable_rows_found():
    # the probe itself works: plain elementwise ops are differentiable
    assert {"exp", "mul", "add"} <= _DIFF_IDS
    assert "eq" not in _DIFF_IDS and "isnan" not in _DIFF_IDS


# --------------------------------------------------------------- reference engine

@pytest.mark.parametrize("op_info", _params(DIFFERENTIABLE))
def test_reference_engine_gives_the_real_engines_gradients(op_info):
    """``cygrad.autograd.reference.backward`` (the one-page engine for teaching) and
    the real engine must agree on every sample: same graph, same algorithm."""
    from cygrad.autograd.reference import backward as reference_backward
    checked = 0
    for sample in _samples(op_info):
        if not _checkable(op_info, sample):
            continue
        slots = _slots(sample)
        leaves = _leaves(sample, slots)
        outs = [o for o in _outputs(_call(op_info.op, sample, slots, leaves))
                if o.dtype.is_floating_point and o.grad_fn is not None]
        rng = np.random.default_rng(checked)
        loss = sum((o * cygrad.from_numpy(rng.uniform(-1, 1, tuple(o.shape)))).sum()
                   for o in outs)
        reference_backward(loss)
        ref = [None if t.grad is None else t.grad.clone() for t in leaves]
        for t in leaves:
            t.grad = None
        loss.backward()
        for r, t in zip(ref, leaves):
            assert (r is None) == (t.grad is None), f"{op_info.id}[{sample.name}]"
            if r is not None:
                np.testing.assert_allclose(r.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12,
                                           err_msg=f"{op_info.id}[{sample.name}]")
        checked += 1
    if not checked:
        pytest.skip(reason=f"{op_info.id}: no sample is small, finite and has float inputs")
