"""Derivatives of whole functions, as ``torch.autograd.functional``.

Each function here takes a Python function ``func`` and a point ``inputs`` (a tensor
or a tuple of tensors) and differentiates ``func`` there:

* ``vjp``: ``v^T J`` (one reverse pass),
* ``jvp``: ``J v``, by the *double-backward trick*: the vjp ``u -> J^T u`` is linear in
  ``u``, so differentiating it (reverse mode again) with respect to ``u`` along ``v``
  gives ``J v``. This needs only backward formulas, which every differentiable op has
  (forward mode needs a ``jvp`` per op, see ``forward_ad``); PyTorch does the same.
* ``jacobian``: the full ``J``, one vjp per output element (``"reverse-mode"``) or one
  forward-mode jvp per input element (``"forward-mode"``),
* ``hessian``: the Jacobian of the gradient, ``hvp`` / ``vhp``: Hessian-vector products.

Results have the structure PyTorch gives them: a tensor where ``inputs`` (or the
output) was a tensor, a tuple where it was a tuple, and for ``jacobian`` a tuple over
outputs of tuples over inputs. With ``create_graph=False`` results are detached.
``strict=True`` raises when an output does not depend on an input (instead of
returning zeros, the mathematically right answer).
"""
from .._core import tensor as _C
from .._core.tensor import TensorBase
from . import forward_ad as fwAD
from .engine_api import grad as _grad
from .function import Function
from .grad_mode import enable_grad, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# ---------------------------------------------------------------------------- helpers

def _as_tuple(x, arg_name, fn_name):
    """``(was_tuple, tuple_of_tensors)``; TypeError for anything but tensors."""
    was_tuple = isinstance(x, tuple)
    items = x if was_tuple else (x,)
    for i, el in enumerate(items):
        if not isinstance(el, TensorBase):
            where = f"value at index {i}" if was_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple "
                            f"of Tensors but the {where} has type {type(el)}.")
    return was_tuple, items


def _unpack(res, was_tuple):
    """Undo ``_as_tuple``: ``was_tuple`` is a bool, or a pair for nested results."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            res = tuple(el[0] for el in res)
        return res if outer else res[0]
    return res if was_tuple else res[0]


def _alias(t):
    """A new tensor object for ``t`` (a differentiable view of it)."""
    return t._as_strided_any(tuple(t.shape), t.stride(), t.storage_offset())


def _prepare(inputs, create_graph, need_graph):
    """Fresh tensor objects for the inputs, so that ``func`` capturing the user's own
    tensors is told apart from its arguments: differentiable aliases when the caller
    wants the graph to reach the inputs, else detached copies requiring grad as asked."""
    res = []
    for t in inputs:
        if create_graph and t.requires_grad:
            res.append(_alias(t))
        else:
            res.append(t.detach().requires_grad_(need_graph))
    return tuple(res)


def _finish(results, create_graph):
    """Detach (possibly nested tuples of) results unless the caller wants a graph."""
    if create_graph:
        return results
    return tuple(_finish(r, False) if isinstance(r, tuple) else r.detach() for r in results)


def _check_v(v, like, like_is_tuple):
    if len(v) != len(like):
        if like_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(like)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, like)):
        if a.shape != b.shape:
            prefix = f"Entry {i} in " if like_is_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {b.shape} but got "
                               f"{a.shape}.")


def _strict_check(tensors, kind, strict):
    """strict mode: every tensor must exist and depend on the inputs."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if t.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is thrice differentiable and that the hessian depends on the "
                "inputs.")
        if kind == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).")
        if kind == "grad_inputs":
            raise RuntimeError(
                f"The gradient with respect to input {i} is independent of the inputs of the "
                "user-provided function. This is not allowed in strict mode.")
        raise RuntimeError(
            f"Output {i} of the user-provided function does not require gradients. The outputs "
            "must be computed in a differentiable manner from the input when running in strict "
            "mode.")


def _grads(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` that skips outputs not requiring grad and allows unused inputs
    (their gradient is None)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    keep = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not keep:
        return (None,) * len(inputs)
    outs, gouts = zip(*keep)
    return _grad(outs, inputs, gouts, retain_graph=retain_graph, create_graph=create_graph,
                 allow_unused=True)


_ZERO_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This "
                   "is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
                         "in the grad_jacobian. This is not allowed in strict mode as it prevents "
                         "from using the double backward trick to replace forward mode AD.",
}


def _zeros_for_missing(grads, refs, strict, create_graph, stage):
    """Replace None gradients by zeros shaped like ``refs`` (strict mode: raise)."""
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_MESSAGES[stage].format(i=i))
            g = _C.zeros(tuple(refs[i].shape), dtype=refs[i].dtype)
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        res.append(g)
    return tuple(res)


def _default_v_check(v, tensors, msg):
    if v is None and (len(tensors) != 1 or tensors[0].numel() != 1):
        raise RuntimeError(msg)


# --------------------------------------------------------------------------- vjp, jvp

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """The vector-Jacobian product ``v^T J`` of ``func`` at ``inputs``.

    Parameters
    ----------
    func : callable
        Takes the input tensors, returns a tensor or a tuple of tensors.
    inputs : Tensor or tuple of Tensor
    v : Tensor or tuple of Tensor, optional
        Shaped like ``func``'s outputs; may be omitted when the output is a single
        one-element tensor.
    create_graph : bool
        Make the results differentiable.
    strict : bool
        Raise when an output does not depend on an input, instead of returning zeros.

    Returns
    -------
    (func_output, vjp)
        ``vjp`` is shaped like ``inputs``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.autograd.functional import vjp
    >>> out, g = vjp(lambda x: x * x, cygrad.tensor([1.0, 2.0]), cygrad.tensor([1.0, 1.0]))
    >>> g.tolist()
    [2.0, 4.0]
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                           "vjp")
        _strict_check(outputs, "outputs", strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _prepare(v, create_graph, False)
            _check_v(v, outputs, outputs_tuple)
        _default_v_check(v, outputs, "The vector v can only be None if the user-provided function "
                                     "returns a single Tensor with a single element.")
    with set_grad_enabled(True if create_graph else _C.is_grad_enabled()):
        grads = _grads(outputs, inputs, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, inputs, strict, create_graph, "back")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(result, create_graph), inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Jacobian-vector product ``J v`` of ``func`` at ``inputs``.

    Computed by the double-backward trick (see the module docstring), so every op
    with a backward works, whether or not it has a forward-mode ``jvp``.

    Parameters
    ----------
    func : callable
    inputs : Tensor or tuple of Tensor
    v : Tensor or tuple of Tensor, optional
        Shaped like ``inputs``; may be omitted for a single one-element input.
    create_graph, strict : bool
        As in ``vjp``.

    Returns
    -------
    (func_output, jvp)
        ``jvp`` is shaped like the outputs.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.autograd.functional import jvp
    >>> out, t = jvp(lambda x: x * x, cygrad.tensor([1.0, 2.0]), cygrad.tensor([1.0, 0.0]))
    >>> t.tolist()
    [2.0, 0.0]
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _prepare(v, create_graph, False)
            _check_v(v, inputs, inputs_tuple)
        _default_v_check(v, inputs, "The vector v can only be None if the input to the "
                                    "user-provided function is a single Tensor with a single "
                                    "element.")
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                           "jvp")
        _strict_check(outputs, "outputs", strict)
        # u -> J^T u is linear, so the value of u does not matter: zeros are safe.
        u = tuple(_C.zeros(tuple(o.shape), dtype=o.dtype, requires_grad=True) for o in outputs)
        grad_inputs = _grads(outputs, inputs, u, create_graph=True)
        _strict_check(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else _C.is_grad_enabled()):
        grads = _grads(grad_inputs, u, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, outputs, strict, create_graph, "back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(result, create_graph), outputs_tuple))


# ---------------------------------------------------------------------------- jacobian

class _Stack(Function):
    """Stack equally shaped rows along a new first dimension, differentiably (jacobians
    with ``create_graph=True`` are differentiated again, by ``hessian``)."""
    _node_name = "StackBackward0"

    @staticmethod
    def forward(ctx, *rows):
        from ..ops.shape import stack
        ctx.row_meta = (tuple(rows[0].shape), rows[0].dtype)
        return stack(rows)

    @staticmethod
    def backward(ctx, grad):
        return grad.unbind(0)

    @staticmethod
    def jvp(ctx, *tangents):
        from ..ops.shape import stack
        shape, dtype = ctx.row_meta
        return stack([t if t is not None else _C.zeros(shape, dtype=dtype) for t in tangents])


def _stack_into(rows, shape, like):
    """Rows stacked and reshaped to ``shape`` (zeros when there are no rows)."""
    if not rows:
        return _C.zeros(shape, dtype=like.dtype)
    return _Stack.apply(*rows).reshape(shape)


def _one_hot(like, j):
    e = _C.zeros(tuple(like.shape), dtype=like.dtype)
    _C._ndarray(e).reshape(-1)[j] = 1
    return e


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``.

    Parameters
    ----------
    func : callable
        Takes the input tensors, returns a tensor or a tuple of tensors.
    inputs : Tensor or tuple of Tensor
    create_graph : bool
        Make the Jacobian differentiable (reverse mode only).
    strict : bool
        Raise when an output does not depend on an input (not with ``vectorize``).
    vectorize : bool
        Accepted for compatibility; cygrad computes the same rows/columns one by one
        (``"forward-mode"`` requires it, as in PyTorch).
    strategy : {"reverse-mode", "forward-mode"}
        One vjp per output element, or one forward-mode jvp per input element (every
        op in ``func`` must then have a ``jvp``; see ``forward_ad``).

    Returns
    -------
    Tensor, or tuple of Tensor, or tuple of tuple of Tensor
        ``J[i][j]`` has shape ``output_i.shape + input_j.shape``; the tuple levels
        exist only where outputs / inputs were given as tuples.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.autograd.functional import jacobian
    >>> jacobian(lambda x: x * x, cygrad.tensor([1.0, 2.0])).tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             "Hint: If your function has more outputs than inputs, "
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        return _jacobian_forward(func, inputs, strict, vectorize)

    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                           "jacobian")
        _strict_check(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either set "
                               "`strict=False` or `vectorize=False`.")
        result = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]       # rows[k][j] = d out.flat[j] / d inputs[k]
            for j in range(out.numel()):
                row = _grads((out,), inputs, (_one_hot(out, j),), retain_graph=True,
                             create_graph=create_graph)
                for k, g in enumerate(row):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {k}. This is not allowed "
                                               "in strict mode.")
                        g = _C.zeros(tuple(inputs[k].shape), dtype=inputs[k].dtype)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(f"The jacobian of the user-provided function is "
                                           f"independent of input {i}. This is not allowed in "
                                           "strict mode when create_graph=True.")
                    rows[k].append(g)
            result.append(tuple(_stack_into(rows[k], tuple(out.shape) + tuple(inp.shape), inp)
                                for k, inp in enumerate(inputs)))
        result = _finish(tuple(result), create_graph)
        return _unpack(result, (outputs_tuple, inputs_tuple))


def _dual_column(func, inputs, k, e):
    """Outputs of ``func`` and their derivatives along element ``e`` of input ``k``,
    by forward-mode AD (dual numbers)."""
    with fwAD.dual_level():
        duals = tuple(fwAD.make_dual(x, _one_hot(x, e)) if m == k else x
                      for m, x in enumerate(inputs))
        outputs_tuple, outputs = _as_tuple(func(*duals), "outputs", "jacobian")
        cols = []
        for out in outputs:
            primal, tangent = fwAD.unpack_dual(out)
            if tangent is None:
                tangent = _C.zeros(tuple(primal.shape), dtype=primal.dtype)
            cols.append(tangent.detach())
    return outputs_tuple, tuple(cols)


def _trick_column(func, inputs, k, e):
    """Same as ``_dual_column``, by the double-backward trick (``jvp`` above)."""
    v = tuple(_one_hot(x, e) if m == k else _C.zeros(tuple(x.shape), dtype=x.dtype)
              for m, x in enumerate(inputs))
    out, cols = jvp(func, inputs, v)
    outputs_tuple = isinstance(out, tuple)
    return outputs_tuple, (cols if outputs_tuple else (cols,))


def _jacobian_forward(func, inputs, strict, vectorize, column=_dual_column):
    """Forward-mode Jacobian: one Jacobian-vector product per input element."""
    if strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           '`strategy="forward-mode"` are not supported together (yet). Please '
                           'either set `strict=False` or `strategy="reverse-mode"`.')
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian is only implemented for `vectorize=True`.")
    from ..ops.shape import stack
    columns = None          # columns[i][k]: d output_i along each element of input k
    outputs_tuple = False
    for k, inp in enumerate(inputs):
        for e in range(inp.numel()):
            outputs_tuple, cols = column(func, inputs, k, e)
            if columns is None:
                columns = [[[] for _ in inputs] for _ in cols]
            for i, c in enumerate(cols):
                columns[i][k].append(c)
    if columns is None:         # every input is empty: one plain call gives the outputs
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs", "jacobian")
        columns = [[[] for _ in inputs] for _ in outputs]
        shapes = [tuple(o.shape) for o in outputs]
    else:
        shapes = [tuple(next(c for c in per_out if c)[0].shape) for per_out in columns]
    result = []
    for i, shape in enumerate(shapes):
        per_input = []
        for k, inp in enumerate(inputs):
            full = shape + tuple(inp.shape)
            if columns[i][k]:
                # output dims first, then one entry per input element
                per_input.append(stack(columns[i][k], dim=len(shape)).reshape(full))
            else:
                per_input.append(_C.zeros(full, dtype=inp.dtype))
        result.append(tuple(per_input))
    return _unpack(tuple(result), (outputs_tuple, inputs_tuple))


# ----------------------------------------------------------------- second derivatives

def _single_output(fn_name, out, strict):
    outputs_tuple, outputs = _as_tuple(out, "outputs of the user-provided function", fn_name)
    _strict_check(outputs, "outputs", strict)
    if outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if out.numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")
    return outputs


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function ``func`` at ``inputs``.

    Computed as the Jacobian (``outer_jacobian_strategy``) of the gradient (reverse
    mode, with ``create_graph=True``).

    Returns
    -------
    Tensor or tuple of tuple of Tensor
        ``H[i][j]`` has shape ``inputs[i].shape + inputs[j].shape``; a single tensor
        when ``inputs`` is a tensor.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.autograd.functional import hessian
    >>> f = lambda x: x[0] * x[0] * x[1]
    >>> hessian(f, cygrad.tensor([1.0, 3.0])).tolist()
    [[6.0, 2.0], [2.0, 0.0]]
    """
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*inp):
        out = func(*inp)
        _single_output("hessian", out, strict)
        return out.squeeze()

    def gradient(*inp):
        jac = jacobian(scalar_func, inp, create_graph=True)
        _strict_check(jac if isinstance(jac, tuple) else (jac,), "jacobian", strict)
        return jac

    if outer_jacobian_strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        # Jacobian-vector products of the gradient, by the double-backward trick: true
        # forward-over-reverse would need tangents on the outputs saved by backward
        # formulas, which the engine's saved tensors do not keep yet.
        res = _jacobian_forward(gradient, inputs, strict, vectorize, column=_trick_column)
    else:
        res = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                       vectorize=vectorize)
    return _unpack(res, (inputs_tuple, inputs_tuple))


def _hessian_products(fn_name, func, inputs, v, create_graph, strict, trick):
    """Shared by vhp (``v^T H``: one more backward of the gradient) and hvp (``H v``:
    the double-backward trick applied to the gradient)."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
        inputs = _prepare(inputs, create_graph, True)
        if v is not None:
            _, v = _as_tuple(v, "v", fn_name)
            v = _prepare(v, create_graph, False)
            _check_v(v, inputs, inputs_tuple)
        _default_v_check(v, inputs, "The vector v can only be None if the input to the "
                                    "user-provided function is a single Tensor with a single "
                                    "element.")
        outputs = _single_output(fn_name, func(*inputs), strict)
        jac = _grads(outputs, inputs, create_graph=True)
        _strict_check(jac, "jacobian", strict)
        if trick:
            u = tuple(_C.zeros(tuple(t.shape), dtype=t.dtype, requires_grad=True) for t in inputs)
            double_back = _grads(jac, inputs, u, create_graph=True)
            _strict_check(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else _C.is_grad_enabled()):
        if trick:
            grads = _grads(double_back, u, v, create_graph=create_graph)
            result = _zeros_for_missing(grads, inputs, strict, create_graph, "double_back_trick")
        else:
            grads = _grads(jac, inputs, v, create_graph=create_graph)
            result = _zeros_for_missing(grads, inputs, strict, create_graph, "double_back")
    return (_finish(outputs, create_graph)[0],
            _unpack(_finish(result, create_graph), inputs_tuple))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """The vector-Hessian product ``v^T H`` of a scalar function at ``inputs``.

    Returns
    -------
    (func_output, vhp)
        ``vhp`` is shaped like ``inputs``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.autograd.functional import vhp
    >>> f = lambda x: x[0] * x[0] * x[1]
    >>> out, r = vhp(f, cygrad.tensor([1.0, 3.0]), cygrad.tensor([1.0, 0.0]))
    >>> r.tolist()
    [6.0, 2.0]
    """
    return _hessian_products("vhp", func, inputs, v, create_graph, strict, trick=False)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Hessian-vector product ``H v`` of a scalar function at ``inputs``.

    Equal to ``vhp`` for twice continuously differentiable functions (the Hessian is
    symmetric), and slower: it needs the double-backward trick.

    Returns
    -------
    (func_output, hvp)
        ``hvp`` is shaped like ``inputs``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.autograd.functional import hvp
    >>> f = lambda x: x[0] * x[0] * x[1]
    >>> out, r = hvp(f, cygrad.tensor([1.0, 3.0]), cygrad.tensor([1.0, 0.0]))
    >>> r.tolist()
    [6.0, 2.0]
    """
    return _hessian_products("hvp", func, inputs, v, create_graph, strict, trick=True)
