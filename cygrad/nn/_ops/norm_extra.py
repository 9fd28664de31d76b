"""``instance_norm``, ``rms_norm`` and ``local_response_norm``.

``instance_norm`` is batch normalization of the input viewed as ``(1, N * C, *)``,
so it shares batch norm's Function; ``rms_norm`` and ``local_response_norm`` are
short compositions of differentiable ops.
"""
import math

from ...autograd.grad_mode import no_grad
from ...ops.shape import pad
from .normalization import batch_norm

__all__ = ["instance_norm", "rms_norm", "local_response_norm"]

# machine epsilon per floating dtype name: rms_norm's default eps is the input's
_EPS = {"float64": 2.220446049250313e-16, "float32": 1.1920928955078125e-07,
        "float16": 0.0009765625, "bfloat16": 0.0078125}


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalize each channel of each sample of ``(N, C, *)`` over its positions, as
    ``torch.nn.functional.instance_norm``; running statistics (per channel, averaged
    over the batch) are updated when given and ``use_input_stats``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> [round(v, 4) for v in F.instance_norm(cygrad.tensor([[[1.0, 3.0], [0.0, 10.0]]])).flatten().tolist()]
    [-1.0, 1.0, -1.0, 1.0]
    """
    if input.dim() < 3 and use_input_stats:
        raise ValueError(f"Expected 3D or higher input (got {input.dim()}D input)")
    n, c = input.size(0), input.size(1)
    if use_input_stats and math.prod(input.shape[2:]) == 1:
        raise ValueError("Expected more than 1 spatial element when training, got input size "
                         f"{list(input.shape)}")
    rest = tuple(input.shape[2:])
    x = input.reshape((1, n * c) + rest)
    rm = None if running_mean is None else running_mean.repeat(n)
    rv = None if running_var is None else running_var.repeat(n)
    w = None if weight is None else weight.repeat(n)
    b = None if bias is None else bias.repeat(n)
    out = batch_norm(x, rm, rv, w, b, use_input_stats, momentum, eps)
    if use_input_stats:
        with no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.reshape(n, c).mean(0))
            if running_var is not None:
                running_var.copy_(rv.reshape(n, c).mean(0))
    return out.reshape(tuple(input.shape))


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``x / sqrt(mean(x**2) + eps) * weight`` over the last ``len(normalized_shape)``
    dims, as ``torch.nn.functional.rms_norm`` (``eps=None``: the dtype's machine
    epsilon).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> [round(v, 4) for v in F.rms_norm(cygrad.tensor([[3.0, 4.0]]), (2,), eps=0.0).flatten().tolist()]
    [0.8485, 1.1314]
    """
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    for size in normalized_shape:
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"rms_norm(): argument 'normalized_shape' must be a tuple of ints, "
                            f"but found element of type {type(size).__name__}")
    if not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(f"rms_norm: not implemented for '{input.dtype}'")
    k = len(normalized_shape)
    if k == 0 or input.dim() < k or tuple(input.shape[input.dim() - k:]) != normalized_shape:
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(str(s) for s in normalized_shape)}], but got input of size"
            f"{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != normalized_shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{list(normalized_shape)}")
    if eps is None:
        eps = _EPS.get(str(input.dtype).replace("cygrad.", ""), _EPS["float32"])
    dims = tuple(range(input.dim() - k, input.dim()))
    out = input * (input * input).mean(dims, keepdim=True).add(eps).rsqrt()
    return out if weight is None else out * weight


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Divide each value by ``(k + alpha * mean of x**2 over size neighbouring
    channels) ** beta``, as ``torch.nn.functional.local_response_norm`` (the window
    is zero-padded at the ends of the channel dim).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.local_response_norm(cygrad.ones(1, 3, 1), 2, alpha=1.0, beta=1.0, k=0.0).flatten().tolist()
    [2.0, 1.0, 1.0]
    """
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.dim()} "
                         "dimensions)")
    if input.numel() == 0:
        return input
    c = input.size(1)
    sq = (input * input).movedim(1, -1)
    # channel i averages channels i - size//2 .. i + (size-1)//2, zeros outside
    padded = pad(sq, (size // 2, (size - 1) // 2))
    total = padded[..., 0:c]
    for s in range(1, size):
        total = total + padded[..., s:s + c]
    div = (total / size).movedim(-1, 1).mul(alpha).add(k).pow(beta)
    return input / div
