"""A reference backward engine in plain Python, for reading and teaching.

It walks the same graph as the real engine (``cygrad/_core/engine.pyx``): every node
has ``next_functions`` (where each input's gradient goes next) and can be called on the
gradients of its outputs. The algorithm fits on one page:

1. **Count dependencies.** Walk the graph from the root; for each node count how many
   edges point at it. A node may run only once *all* the gradients flowing into it
   have arrived, so this count is the number of contributions still to come.
2. **Run ready nodes.** Start with the root and the gradient it was seeded with. Pop a
   ready node, call it on the gradients of its outputs (a missing one counts as zero),
   and hand each input gradient to the next node along the edge, *adding* it to
   whatever already arrived there. Each hand-over lowers that node's count; at zero it
   is ready.
3. **Leaves accumulate.** An ``AccumulateGrad`` node adds its gradient into the leaf's
   ``.grad`` instead of passing it on.

The real engine adds what a library needs around that core (hooks, ``retain_graph``,
``autograd.grad``'s capture, anomaly mode, input pruning) but computes the same
gradients; ``test_reference_engine_gives_the_real_engines_gradients`` in
``tests/test_autograd_ops.py`` checks that on every op of the op table.

Examples
--------
>>> import cygrad
>>> from cygrad.autograd.reference import backward
>>> x = cygrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> y = (x * x).sum()
>>> backward(y)
>>> x.grad.tolist()
[2.0, 4.0, 6.0]
"""
from .._core.engine import AccumulateGrad, FunctionCtx
from ..ops.creation import ones_like, zeros

__all__ = ["backward"]


def backward(root, grad=None):
    """Backpropagate from tensor ``root`` (seeded with ``grad``, default ones) into
    the ``.grad`` of the leaves it depends on. The graph is kept (no saved tensors are
    freed), so the real engine can run on it afterwards."""
    start = root.grad_fn if root.grad_fn is not None else root._grad_acc
    if start is None:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")

    # 1. dependencies: how many edges point at each node
    # course: begin count-dependencies
    dependencies = {start: 0}
    stack = [start]
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is None:
                continue
            if child not in dependencies:
                dependencies[child] = 0
                stack.append(child)
            dependencies[child] += 1
    # course: end count-dependencies

    # 2. the ready queue; buffers[node][k] is the gradient of node's output k so far
    # course: begin ready-queue
    buffers = {start: {root.output_nr: ones_like(root) if grad is None else grad}}
    ready = [start]
    while ready:
        node = ready.pop()
        arrived = buffers.pop(node, {})      # empty if every gradient sent was None
        if isinstance(node, AccumulateGrad):                     # 3. a leaf
            leaf = node.variable
            if leaf is not None and arrived:
                g = arrived[0].detach()
                leaf.grad = g.clone() if leaf.grad is None else leaf.grad + g
            continue
        input_grads = _call(node, arrived)
        for (child, k), g in zip(node.next_functions, input_grads):
            if child is None:
                continue
            if g is not None:
                slot = buffers.setdefault(child, {})
                slot[k] = g if k not in slot else slot[k] + g    # contributions add up
            dependencies[child] -= 1
            if dependencies[child] == 0:
                ready.append(child)
    # course: end ready-queue


def _call(node, arrived):
    """Call ``node`` on its outputs' gradients; one gradient per ``next_functions`` edge."""
    grads = []
    for k, (shape, dtype) in enumerate(node._output_meta):
        grads.append(arrived[k] if k in arrived else zeros(shape, dtype=dtype))
    result = node.apply(*grads)
    result = result if isinstance(result, tuple) else (result,)
    if isinstance(node, FunctionCtx):
        # a Function's backward returns one gradient per forward argument; the edges
        # belong to the tensor arguments only
        result = tuple(result[i] for i in node._tensor_positions)
    fitted = []
    for g, meta in zip(result, node._input_meta):
        if g is not None and meta is not None and tuple(g.shape) != tuple(meta[0]):
            g = _sum_to(g, tuple(meta[0]))
        fitted.append(g)
    return fitted


def _sum_to(g, shape):
    """A gradient for an input that was broadcast to ``g``'s shape: sum over the dims
    the broadcast added (leading) or stretched (size 1 in ``shape``)."""
    # course: begin sum-to-shape
    lead = g.dim() - len(shape)
    if lead:
        g = g.sum(tuple(range(lead)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    return g.sum(stretched, keepdim=True) if stretched else g
    # course: end sum-to-shape
