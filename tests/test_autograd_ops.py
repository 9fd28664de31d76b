"""Gradients of every op in the OpInfo table, driven by the rows' declared flags.

Each row declares ``supports_autograd``, ``supports_forward_ad``, ``supports_gradgrad``
and ``supports_inplace`` (defaults per family: ``AUTOGRAD_DEFAULTS`` in its
``tests/opinfo`` module). Nothing is probed at collection; every claim is checked
both ways at test time:

* ``supports_autograd``: ``test_gradcheck`` (float64, contiguous and non-contiguous
  inputs) vs finite differences; rows without it get ``test_autograd_refused`` (no
  ``grad_fn``, or a backward that raises "not implemented", as PyTorch);
  ``test_declared_autograd_matches_torch`` asks PyTorch (when installed) which rows it
  can differentiate.
* ``supports_gradgrad``: ``test_gradgradcheck``; without it, it must raise.
* ``supports_inplace``: ``test_inplace_autograd``: the in-place variant's gradients,
  and the version-counter error when it modifies a tensor saved for backward.
* ``supports_forward_ad``: ``test_forward_ad`` in tests/test_forward_ad.py.
* ``test_function_class``: the op's node comes from a ``Function`` subclass with
  ``forward``/``backward`` (and ``jvp``) defined in the op's family module (issue 8).

A row or sample that leaves a test with nothing to check fails it.
"""
import numpy as np
import pytest

import cygrad
from cygrad.autograd import Function, gradcheck, gradgradcheck
from opinfo import op_db
from opinfo._autograd import (F64, call, function_of, get, graph_outputs, leaves, outputs,
                              params, samples, slots, strided, transposed, usable_samples,
                              arguments)

AUTOGRAD_ROWS = [op for op in op_db if op.supports_autograd]
REFUSED_ROWS = [op for op in op_db if F64 in op.dtypes and not op.supports_autograd]
INPLACE_ROWS = [op for op in AUTOGRAD_ROWS if op.inplace]

# Where each family's Function classes live (issue 8: "in the module of its family").
FAMILY_MODULES = {
    "elementwise": ("cygrad.ops.elementwise",),
    "indexing": ("cygrad.ops.indexing",),
    "linalg": ("cygrad.ops.linalg",),
    "linalg_api": ("cygrad.ops.linalg",),
    "reduction": ("cygrad.ops.reduction",),
    "shape": ("cygrad.ops.shape", "cygrad.ops.view_functions"),
    "creation": ("cygrad.ops.creation",),
    "nn": ("cygrad.nn._ops",),
    # composed helpers record the elementwise family's nodes
    "distributions": ("cygrad.distributions", "cygrad.ops"),
    # (its aliases' nodes: ldexp is a Mul, fix a Trunc, sgn_ a Sgn, Tensor.hardshrink F.'s)
    "special": ("cygrad.ops.special", "cygrad.ops.elementwise", "cygrad.ops.complex",
                "cygrad.nn._ops"),
    "tensorops": ("cygrad.ops", "cygrad.nn._ops", "cygrad.fft"),
    "nnextra": ("cygrad.ops", "cygrad.nn._ops"),   # (grid_sample, affine_grid: composed)
    "plumbing": ("cygrad.ops.shape", "cygrad.ops.view_functions", "cygrad.ops.elementwise",
                 "cygrad.autograd"),   # (composed: view, clone, sub and fill_ Functions)
    # the embedding's Function, and index_put's (a clone's node first)
    "scatter": ("cygrad.nn._ops", "cygrad.ops.indexing", "cygrad.ops.shape"),
    "fused": ("cygrad.ops.reduction", "cygrad.nn._ops"),
    # the layers' Functions (cygrad.nn._ops.rnn); the cells are composed (last node Mul/Tanh/Add)
    "rnn": ("cygrad.nn._ops", "cygrad.ops"),
    "conv": ("cygrad.nn._ops",),
}


def _ones_backward(outs):
    for o in outs:
        o.backward(cygrad.ones_like(o), retain_graph=True)


# --------------------------------------------------------------- gradcheck

@pytest.mark.parametrize("op_info", params(AUTOGRAD_ROWS, "test_gradcheck"))
def test_gradcheck(op_info):
    for sample in usable_samples(op_info):
        where = slots(sample)
        inputs = leaves(sample, where)
        graph_outputs(op_info, sample, inputs)
        assert gradcheck(function_of(op_info, sample, where), tuple(inputs)), \
            f"{op_info.id}[{sample.name}]"


@pytest.mark.parametrize("op_info", params([op for op in AUTOGRAD_ROWS if op.check_noncontiguous],
                                           "test_gradcheck_noncontiguous"))
def test_gradcheck_noncontiguous(op_info):
    """Inputs are strided / transposed views: the backward must not assume contiguous
    memory, and gradients come back in the input's shape."""
    checked = 0
    for sample in usable_samples(op_info):
        where = slots(sample)
        for make in (strided, transposed):
            inputs = leaves(sample, where, make)
            if all(t.is_contiguous() for t in inputs):
                continue
            assert gradcheck(function_of(op_info, sample, where), tuple(inputs)), \
                f"{op_info.id}[{sample.name}, {make.__name__}]"
            checked += 1
        if checked >= 2:
            break       # two samples are enough: test_gradcheck covers the rest
    if not checked:
        pytest.skip(f"{op_info.id}: every operand of every sample has at most one element "
                    "(nothing to lay out non-contiguously)")


@pytest.mark.parametrize("op_info", params(AUTOGRAD_ROWS, "test_gradgradcheck"))
def test_gradgradcheck(op_info):
    """supports_gradgrad: second derivatives vs finite differences of the first;
    otherwise differentiating the backward must raise (as PyTorch's ops without a
    double backward do)."""
    for sample in usable_samples(op_info, limit=3):
        where = slots(sample)
        fn, inputs = function_of(op_info, sample, where), tuple(leaves(sample, where))
        if op_info.supports_gradgrad:
            assert gradgradcheck(fn, inputs), f"{op_info.id}[{sample.name}]"
        else:
            with pytest.raises(RuntimeError):
                gradgradcheck(fn, inputs)


# --------------------------------------------------------------- in-place variants

def _inplace_samples(op_info):
    """Samples whose in-place form is legal: the float input is the first slot and the
    out-of-place result keeps its shape and dtype."""
    found = []
    for sample in usable_samples(op_info):
        if slots(sample)[0] != ("input", None):
            continue
        with cygrad.no_grad():
            result = call(op_info.op, sample, [], [])
        if (isinstance(result, cygrad.Tensor) and result.dtype == F64
                and tuple(result.shape) == np.shape(sample.input)):
            found.append(sample)
    assert found, f"{op_info.id}: no sample can run in place ({op_info.inplace})"
    return found


def _run_inplace(op_info, sample, target, rest):
    _, args, kwargs = arguments(sample, slots(sample), [target] + list(rest))
    return getattr(target, op_info.inplace)(*args, **kwargs)


@pytest.mark.parametrize("op_info", params(INPLACE_ROWS, "test_inplace_autograd"))
def test_inplace_autograd(op_info):
    """supports_inplace: ``x.clone().op_(...)`` has the out-of-place op's gradients
    (vs finite differences), and modifying a tensor saved for backward with ``op_``
    makes that backward raise PyTorch's version error. Without the flag, ``op_`` on
    a tensor that requires grad must raise."""
    for sample in _inplace_samples(op_info)[:2]:
        where = slots(sample)
        what = f"{op_info.id}[{sample.name}] {op_info.inplace}"
        if not op_info.supports_inplace:
            first, *rest = leaves(sample, where)
            with pytest.raises(RuntimeError):
                _run_inplace(op_info, sample, first.clone(), rest)
            continue

        def fn(first, *rest):
            return _run_inplace(op_info, sample, first.clone(), rest)
        inputs = leaves(sample, where)
        assert gradcheck(fn, tuple(inputs)), what

        first, *rest = leaves(sample, where)
        h = first.clone()
        saver = h * h                   # saves h at version 0
        result = _run_inplace(op_info, sample, h, rest)
        assert result is h and h.grad_fn is not None and h._version >= 1, what
        with pytest.raises(RuntimeError, match=r"modified by an inplace operation(.|\n)*"
                                               r"is at version \d+; expected version 0"):
            saver.backward(cygrad.ones_like(saver))


# --------------------------------------------------------------- rows without autograd

@pytest.mark.parametrize("op_info", params(REFUSED_ROWS, "test_autograd_refused"))
def test_autograd_refused(op_info):
    """A row without supports_autograd really is not differentiable: with float64 inputs
    requiring grad it raises, gives no float output with a grad_fn, or (as PyTorch for
    floor_divide, scatter(reduce=)...) has a node whose backward raises "not implemented"."""
    checked = 0
    for sample in samples(op_info):
        where = slots(sample)
        if not where:
            continue
        checked += 1
        try:
            result = call(op_info.op, sample, where, leaves(sample, where))
        except Exception:     # noqa: BLE001  (refusing inputs that require grad is fine)
            continue
        outs = [o for o in outputs(result) if o.dtype.is_floating_point and o.grad_fn is not None]
        if outs:
            with pytest.raises(RuntimeError, match="not implemented|not differentiable"):
                _ones_backward(outs)
    assert checked, f"{op_info.id}: no float64 sample with a float input to try"


def _torch_differentiates(op_info, torch):
    """PyTorch's verdict on the row's first usable sample: it gives a float output with
    a grad_fn whose backward runs. None when torch has no such function or refuses
    the sample."""
    fn = op_info.torch_callable(torch)
    if fn is None:
        return None
    for sample in samples(op_info):
        where = slots(sample)
        if not where:
            continue
        tensors = [torch.from_numpy(np.array(get(sample, s), dtype=np.float64)).requires_grad_()
                   for s in where]
        try:
            result = call(fn, sample, where, tensors, lib=torch)
        except Exception:      # noqa: BLE001  (torch refuses this sample: try the next)
            continue
        flat = result if isinstance(result, (tuple, list)) else [result]
        outs = [o for o in flat if isinstance(o, torch.Tensor) and o.is_floating_point()
                and o.grad_fn is not None]
        if not outs:
            return False
        try:
            for o in outs:
                o.backward(torch.ones_like(o), retain_graph=True)
        except RuntimeError as e:
            # any other error (torch's scatter backward trips over a src larger than
            # its index) still means torch has a derivative for the op
            return "not implemented" not in str(e)
        return True
    return None


def test_declared_autograd_matches_torch():
    """Every row PyTorch can differentiate is declared supports_autograd, and no row
    PyTorch refuses to differentiate is."""
    torch = pytest.importorskip("torch", reason="PyTorch is the reference here")
    undeclared, overclaimed, asked = [], [], 0
    for op_info in op_db:
        if F64 not in op_info.dtypes:
            continue
        verdict = _torch_differentiates(op_info, torch)
        if verdict is None:
            continue
        asked += 1
        if verdict and not op_info.supports_autograd:
            undeclared.append(op_info.id)
        if not verdict and op_info.supports_autograd:
            overclaimed.append(op_info.id)
    assert asked > 100, f"torch answered for only {asked} rows"
    assert not undeclared and not overclaimed, (
        f"differentiable in torch but not declared supports_autograd: {undeclared}; "
        f"declared but torch cannot differentiate: {overclaimed}")


def test_flags_are_declared_per_family():
    """The flags are resolved to booleans when the table is collected (no probing), and
    the families' defaults leave the non-differentiable rows spelled out."""
    for op_info in op_db:
        for flag in ("supports_autograd", "supports_forward_ad", "supports_gradgrad",
                     "supports_inplace"):
            assert isinstance(getattr(op_info, flag), bool), (op_info.id, flag)
    ids = {op.id for op in AUTOGRAD_ROWS}
    assert {"exp", "mul", "sum", "matmul", "gather", "permute", "cat"} <= ids
    assert not {"eq", "isnan", "argmax", "nonzero", "zeros_like"} & ids


# --------------------------------------------------------------- one way to define an op

def _defines(cls, name):
    """cls (or a base of it below Function) defines the static method ``name``."""
    return any(name in klass.__dict__ for klass in cls.__mro__
               if klass is not Function and issubclass(klass, Function))


@pytest.mark.parametrize("op_info", params(AUTOGRAD_ROWS, "test_function_class"))
def test_function_class(op_info):
    """The node of every output comes from a ``cygrad.autograd.Function`` subclass that
    defines ``forward`` and ``backward`` (and ``jvp`` where supports_forward_ad), in
    the op's family module: a built-in op reads like the Function a user writes."""
    nodes = []
    for sample in usable_samples(op_info):
        nodes = [o.grad_fn for o in graph_outputs(op_info, sample, leaves(sample, slots(sample)))
                 if o.grad_fn is not None]
        if nodes:
            break
    assert nodes, f"{op_info.id}: every sample returns its input itself (no node to inspect)"
    for node in nodes:
        cls = getattr(type(node), "_forward_cls", None)
        where = f"{op_info.id}: node {node.name()}"
        assert isinstance(cls, type) and issubclass(cls, Function), \
            f"{where} does not come from a Function subclass"
        missing = [m for m in ("forward", "backward") + ("jvp",) * op_info.supports_forward_ad
                   if not _defines(cls, m)]
        assert not missing, f"{where}: {cls.__qualname__} does not define {missing}"
        allowed = FAMILY_MODULES[op_info.family]
        assert any(cls.__module__ == m or cls.__module__.startswith(m + ".") for m in allowed), \
            f"{where}: {cls.__module__}.{cls.__qualname__} is not in {' or '.join(allowed)}"


# --------------------------------------------------------------- reference engine

@pytest.mark.parametrize("op_info", params(AUTOGRAD_ROWS, "test_reference_engine"))
def test_reference_engine_gives_the_real_engines_gradients(op_info):
    """``cygrad.autograd.reference.backward`` (the one-page engine for teaching) and
    the real engine must agree on every sample: same graph, same algorithm."""
    from cygrad.autograd.reference import backward as reference_backward
    for i, sample in enumerate(usable_samples(op_info)):
        inputs = leaves(sample, slots(sample))
        outs = graph_outputs(op_info, sample, inputs)
        rng = np.random.default_rng(i)
        loss = sum((o * cygrad.from_numpy(rng.uniform(-1, 1, tuple(o.shape)))).sum()
                   for o in outs)
        reference_backward(loss)
        ref = [None if t.grad is None else t.grad.clone() for t in inputs]
        for t in inputs:
            t.grad = None
        loss.backward()
        for r, t in zip(ref, inputs):
            assert (r is None) == (t.grad is None), f"{op_info.id}[{sample.name}]"
            if r is not None:
                np.testing.assert_allclose(r.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12,
                                           err_msg=f"{op_info.id}[{sample.name}]")
