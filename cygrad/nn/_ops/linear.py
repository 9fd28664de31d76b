"""The affine map of ``nn.Linear`` as one Function: ``y = x @ W.T + b``.

Composed of ``addmm`` it costs two graph nodes' worth of argument checking per
call, and its bias gradient comes back at the output's shape for the engine to
sum down.  :class:`Linear` is one node whose backward calls the products
directly: ``grad_x = g @ W``, ``grad_W = g.T @ x`` (BLAS reads the transposed
operands in place, nothing is copied) and ``grad_b = g.T @ 1`` (a matrix-vector
product, faster than a column sum).  Everything in ``backward`` is a
differentiable cygrad op, so double backward works.
"""
from ..._core import tensor as _C
from ..._core.dispatch import kernel
from ...autograd.function import Function
from ...ops.creation import ones
from ...ops.linalg import addmm

__all__ = ["Linear", "linear"]


class Linear(Function):
    """``input @ weight.T + bias`` for a 2-D ``input``; ``bias`` may be None."""
    _node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, input, weight, bias):
        ctx.save_for_backward(input, weight)
        if bias is not None:
            # one kernel where the device has it (on the CPU the bias goes into
            # BLAS's blocks, no separate pass); None: the product, then the bias
            out = kernel("linear_bias", input.device.type)(input, weight, bias)
            if out is not None:
                return out
        out = input.mm(weight.t())
        if bias is not None:
            out.add_(bias)
        return out

    @staticmethod
    def backward(ctx, grad):
        # course: begin linear-backward
        input, weight = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        return (grad.mm(weight) if need_x else None,
                grad.t().mm(input) if need_w else None,
                _column_sums(grad) if need_b else None)
        # course: end linear-backward

    @staticmethod
    def jvp(ctx, t_input, t_weight, t_bias):
        input, weight = ctx.saved_tensors
        out = None
        for term in (t_input.mm(weight.t()) if t_input is not None else None,
                     input.mm(t_weight.t()) if t_weight is not None else None,
                     t_bias):
            if term is not None:
                out = term if out is None else out + term
        return out


def _column_sums(g):
    """``g.sum(0)``: on the CPU as one BLAS matrix-vector product; elsewhere as
    the sum itself, one reduction kernel where the vector of ones would cost a
    fill kernel more."""
    if g.device.type != "cpu":
        return g.sum(0)
    return g.t().mv(ones(g.shape[0], dtype=g.dtype, device=g.device))


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``: the affine map of ``nn.Linear``.

    ``input`` has shape ``(*, in_features)``, ``weight`` ``(out_features,
    in_features)`` and ``bias`` ``(out_features,)``; the result is ``(*, out_features)``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.tensor([[1.0, 2.0]])
    >>> w = cygrad.tensor([[1.0, 0.0], [1.0, 1.0], [0.0, -1.0]])
    >>> F.linear(x, w, cygrad.tensor([0.5, 0.5, 0.5])).tolist()
    [[1.5, 3.5, -1.5]]
    """
    if weight.dim() == 2 and input.dim() >= 2:
        x = input if input.dim() == 2 else input.reshape(-1, input.shape[-1])
        if bias is None or (bias.dim() == 1 and bias.shape[0] != 1):
            _check(x, weight, bias)
            out = Linear.apply(x, weight, bias)
        else:
            out = addmm(bias, x, weight.t())      # a broadcast bias: addmm's rules
        return out if input.dim() == 2 else out.reshape(tuple(input.shape[:-1])
                                                          + (weight.shape[0],))
    out = input.matmul(weight.t())
    return out if bias is None else out + bias


def _check(x, weight, bias):
    """PyTorch's checks of addmm(bias, x, weight.T), in its order (a mismatch of
    ``x`` and ``weight`` alone is left to ``mm``, whose message it is)."""
    if bias is None:
        return
    name = _C._torch_type_name
    if bias.dtype is not weight.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{name(bias.dtype)} and {name(weight.dtype)}")
    if x.dtype is not weight.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                           f"{name(x.dtype)} and {name(weight.dtype)}")
    if bias.shape[0] != weight.shape[0] and x.shape[1] == weight.shape[1]:
        raise RuntimeError(f"The expanded size of the tensor ({weight.shape[0]}) must match the "
                           f"existing size ({bias.shape[0]}) at non-singleton dimension 1.  "
                           f"Target sizes: [{x.shape[0]}, {weight.shape[0]}].  Tensor sizes: "
                           f"[{bias.shape[0]}]")
