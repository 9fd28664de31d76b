"""Gradient clipping: ``clip_grad_norm_``, ``clip_grad_value_`` and their parts."""
import types
import warnings

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops.creation import tensor as _tensor
from ...ops.reduction import norm as _norm
from ...ops.shape import stack
from ...ops.elementwise import clamp

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _as_list(parameters):
    if isinstance(parameters, Tensor):
        return [parameters]
    is_generator = isinstance(parameters, types.GeneratorType)
    parameters = list(parameters)
    if is_generator and not parameters:
        warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                      stacklevel=3)
    return parameters


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of all ``tensors`` together (as if concatenated).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.nn.utils import get_total_norm
    >>> get_total_norm([cygrad.tensor([3.0]), cygrad.tensor([4.0])]).item()
    5.0
    """
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    tensors = list(tensors)
    if not tensors:
        return _tensor(0.0)
    norm_type = float(norm_type)
    norms = [_norm(t, norm_type) for t in tensors]
    total = _norm(stack(norms), norm_type)
    if error_if_nonfinite and bool(total.isnan() | total.isinf()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` "
                           f"is non-finite, so it cannot be clipped. To disable this error and "
                           f"scale the gradients by the non-finite norm anyway, set "
                           f"`error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients of ``parameters`` by ``max_norm / (total_norm + 1e-6)``
    when that is below 1.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.nn.utils import clip_grads_with_norm_
    >>> p = cygrad.nn.Parameter(cygrad.zeros(2))
    >>> p.grad = cygrad.tensor([3.0, 4.0])
    >>> clip_grads_with_norm_([p], 1.0, cygrad.tensor(5.0))
    >>> [round(g, 4) for g in p.grad.tolist()]
    [0.6, 0.8]
    """
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    coef = clamp(max_norm / (total_norm + 1e-6), max=1.0)
    with no_grad():
        for g in grads:
            g.mul_(coef.to(g.device))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Rescale gradients in place so that their total norm is at most ``max_norm``.

    The norm is taken over all gradients together, as if concatenated into one
    vector; ``norm_type`` may be ``inf``. Returns that total norm (before clipping).
    ``foreach`` is accepted for PyTorch compatibility; cygrad has one (looping)
    implementation, so every value gives the same result.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> p = nn.Parameter(cygrad.zeros(2))
    >>> p.grad = cygrad.tensor([3.0, 4.0])
    >>> nn.utils.clip_grad_norm_([p], max_norm=1.0).item()
    5.0
    >>> round(p.grad.norm().item(), 4)
    1.0
    """
    parameters = _as_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element into ``[-clip_value, clip_value]`` in place.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> p = nn.Parameter(cygrad.zeros(3))
    >>> p.grad = cygrad.tensor([-5.0, 0.5, 5.0])
    >>> nn.utils.clip_grad_value_([p], 1.0)
    >>> p.grad.tolist()
    [-1.0, 0.5, 1.0]
    """
    clip_value = float(clip_value)
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    with no_grad():
        for g in grads:
            g.clamp_(min=-clip_value, max=clip_value)
