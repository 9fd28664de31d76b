"""The user-facing doors into the engine: ``backward``, ``grad``, hooks."""
import weakref

from .._core import engine as _E
from .._core import tensor as _C
from .._core.tensor import TensorBase
from .._tensor import Tensor, tensor_method

__all__ = ["backward", "grad"]


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, TensorBase):
        return (x,)
    return tuple(x)


def _make_grads(outputs, grad_outputs):
    grads = []
    for i, out in enumerate(outputs):
        g = grad_outputs[i] if grad_outputs is not None else None
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not out.is_floating_point():
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs "
                                   f"but got {out.dtype}")
            g = _C.ones(tuple(out.shape), dtype=out.dtype, device=out.device)
        elif not isinstance(g, TensorBase):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        elif tuple(g.shape) != tuple(out.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                               f"{list(g.shape)} and output[{i}] has a shape of {list(out.shape)}.")
        grads.append(g)
    return tuple(grads)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(tensors)/d(leaf) into every leaf's ``.grad``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    >>> cygrad.autograd.backward((x * x).sum())
    >>> x.grad.tolist()
    [2.0, 4.0]
    """
    tensors = _as_tuple(tensors)
    grads = _make_grads(tensors, _as_tuple(grad_tensors))
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _as_tuple(inputs)
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    captured = _E.run_backward(tensors, grads, bool(retain_graph), bool(create_graph),
                               inputs, True, True)
    if inputs is not None:
        # Non-leaf inputs get their .grad set here (leaves accumulate in the engine).
        for t, g in zip(inputs, captured):
            if t.grad_fn is not None and g is not None:
                t._grad = g if t._grad is None else t._grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of ``outputs`` with respect to ``inputs``, returned (not accumulated).

    With ``create_graph=True`` the result is itself differentiable (for Hessian-vector
    products or gradient penalties).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor(3.0, requires_grad=True)
    >>> (dx,) = cygrad.autograd.grad(x ** 3, x, create_graph=True)
    >>> dx.item(), cygrad.autograd.grad(dx, x)[0].item()
    (27.0, 18.0)
    """
    outputs = _as_tuple(outputs)
    single_input = isinstance(inputs, TensorBase)
    inputs = _as_tuple(inputs)
    grads = _make_grads(outputs, _as_tuple(grad_outputs))
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    result = _E.run_backward(outputs, grads, bool(retain_graph), bool(create_graph), inputs,
                             False, bool(allow_unused))
    if materialize_grads:
        result = [r if r is not None else _C.zeros(tuple(i.shape), dtype=i.dtype)
                  for r, i in zip(result, inputs)]
    return tuple(result)


# ------------------------------------------------------------------- Tensor methods

@tensor_method(name="backward")
def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Compute the gradient of this tensor w.r.t. graph leaves (see ``autograd.backward``).

    Examples
    --------
    >>> import cygrad
    >>> w = cygrad.tensor([2.0], requires_grad=True)
    >>> (w * 3).sum().backward()
    >>> w.grad.tolist()
    [3.0]
    """
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


@tensor_method
def register_hook(self, hook):
    """Call ``hook(grad)`` whenever this tensor's gradient is computed; a returned
    tensor replaces the gradient. Returns a handle with ``.remove()``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.ones(2, requires_grad=True)
    >>> h = x.register_hook(lambda g: g * 10)
    >>> (x * 1).sum().backward()
    >>> x.grad.tolist()
    [10.0, 10.0]
    """
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is None:
        if self._backward_hooks is None:
            self._backward_hooks = []
        hooks = self._backward_hooks
    else:
        node = self.grad_fn
        if node._pre_hooks is None:
            node._pre_hooks = {}
        hooks = node._pre_hooks.setdefault(self.output_nr, [])
    hooks.append(hook)
    _C._gc_track(self)     # the hook may refer back to this tensor: a cycle only the GC frees
    return _E.RemovableHandle(hooks, hook)


@tensor_method
def retain_grad(self):
    """Keep ``.grad`` for this non-leaf tensor after backward (no-op on leaves)."""
    if not self.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self.grad_fn is None or self._retains_grad:
        return
    node = self.grad_fn
    if node._retain_grad is None:
        node._retain_grad = {}
    node._retain_grad[self.output_nr] = weakref.ref(self)
    self._retains_grad = True


Tensor.retains_grad = property(lambda self: bool(self._retains_grad),
                               doc="True if ``retain_grad()`` was called on this non-leaf.")


@tensor_method
def register_post_accumulate_grad_hook(self, hook):
    """Call ``hook(tensor)`` after a gradient is accumulated into this leaf's ``.grad``."""
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if self._post_acc_hooks is None:
        self._post_acc_hooks = []
    self._post_acc_hooks.append(hook)
    _C._gc_track(self)     # as in register_hook: the hook may close a cycle
    return _E.RemovableHandle(self._post_acc_hooks, hook)


@tensor_method
def detach_(self):
    """Detach this tensor from the graph in place (it becomes a leaf)."""
    if self._base is not None and self.grad_fn is not None:
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
    self._grad_fn = None
    self.requires_grad = False
    return self
