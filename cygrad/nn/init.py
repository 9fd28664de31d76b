"""``cygrad.nn.init``: in-place weight initialisations, as ``torch.nn.init``.

Each function fills its tensor under ``no_grad`` (so it works on parameters that
require grad), returns it, and accepts ``generator=`` where it samples. The
variance-scaling schemes use PyTorch's fan computation: for a weight of shape
``(out, in, *kernel)``, ``fan_in = in * prod(kernel)`` and
``fan_out = out * prod(kernel)``.

Examples
--------
>>> import cygrad
>>> from cygrad import nn
>>> w = cygrad.empty(3, 5)
>>> nn.init.constant_(w, 0.5).sum().item()
7.5
"""
import math
import numbers
import warnings

import numpy as np

from ..autograd.grad_mode import no_grad
from ..ops.creation import empty_like, eye, from_numpy, full, zeros
from ..ops.indexing import where
from ..random import randperm

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "sparse_"]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d")


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (the factor that keeps activations'
    variance steady through layers).

    ============  ==========================
    nonlinearity  gain
    ============  ==========================
    linear/conv   1
    sigmoid       1
    tanh          5/3
    relu          sqrt(2)
    leaky_relu    sqrt(2 / (1 + slope**2))
    selu          3/4
    ============  ==========================

    Examples
    --------
    >>> from cygrad import nn
    >>> nn.init.calculate_gain("relu")
    1.4142135623730951
    >>> nn.init.calculate_gain("leaky_relu", 0.2)
    1.3867504905630728
    """
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (numbers.Integral, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """``(fan_in, fan_out)`` of a weight shaped ``(out, in, *receptive_field)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.nn.init import _calculate_fan_in_and_fan_out
    >>> _calculate_fan_in_and_fan_out(cygrad.empty(8, 3, 5, 5))
    (75, 200)
    """
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with samples from U(a, b).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> w = nn.init.uniform_(cygrad.empty(1000), -2.0, 2.0)
    >>> bool((w >= -2).all() and (w < 2).all())
    True
    """
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with samples from N(mean, std**2).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.init.normal_(cygrad.empty(3), 2.0, 0.0).tolist()
    [2.0, 2.0, 2.0]
    """
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with samples from N(mean, std**2) truncated to [a, b].

    Sampled as PyTorch samples it, so the values match ``torch.nn.init.trunc_normal_``
    after the same seed: when [a, b] holds more than 30% of the mass, normal draws
    outside it are redrawn (a whole tensor of fresh draws per round, taken where
    needed); otherwise uniform proposals on [a, b] are accepted with probability
    ``pdf(x) / pdf(mode)``, rejected ones proposed again.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> w = nn.init.trunc_normal_(cygrad.empty(1000), std=3.0, a=-1.0, b=1.0)
    >>> bool((w >= -1).all() and (w <= 1).all())
    True
    """
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            _redraw_outside(tensor, mean, std, a, b, generator)
        else:
            _accept_reject(tensor, mean, std, a, b, generator)
    return tensor


def _redraw_outside(tensor, mean, std, a, b, generator):
    # The bounds rounded to the tensor's dtype, so the test agrees with its values.
    lo = full((), a, dtype=tensor.dtype).item()
    hi = full((), b, dtype=tensor.dtype).item()
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        outside = (result < lo) | (result > hi)
        if not outside.any():
            break
        result = where(outside, empty_like(result).normal_(mean, std, generator=generator),
                       result)
    if result is not tensor:
        tensor.copy_(result)


def _neg_half_sq(x, mean, std, log_peak):
    """``-((x - mean) / std)**2 / 2 - log_peak`` in x's dtype, step by step."""
    return x.sub(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)


def _accept_reject(tensor, mean, std, a, b, generator):
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2
    result = tensor.uniform_(a, b, generator=generator)
    log_ratio = _neg_half_sq(result, mean, std, log_peak)
    pending = empty_like(tensor).uniform_(generator=generator).log_() > log_ratio
    if not pending.any():
        return
    candidates = empty_like(tensor)
    while True:
        candidates.uniform_(a, b, generator=generator)
        result = where(pending, candidates, result)
        log_ratio = _neg_half_sq(candidates, mean, std, log_peak)
        u = empty_like(tensor).uniform_(generator=generator).log_()
        pending = where(pending, u > log_ratio, pending)
        if not pending.any():
            break
    tensor.copy_(result)


def constant_(tensor, val):
    """Fill with the value ``val``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.init.constant_(cygrad.empty(2), 0.3).tolist()
    [0.30000001192092896, 0.30000001192092896]
    """
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fill with ones.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.init.ones_(cygrad.empty(2)).tolist()
    [1.0, 1.0]
    """
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fill with zeros.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.init.zeros_(cygrad.empty(2)).tolist()
    [0.0, 0.0]
    """
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fill a 2-D tensor with the identity matrix (ones on the main diagonal).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.init.eye_(cygrad.empty(2, 3)).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(eye(*tensor.shape, dtype=tensor.dtype))
    return tensor


def dirac_(tensor, groups=1):
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta, so the
    convolution passes its input channels through (per group).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> w = nn.init.dirac_(cygrad.empty(2, 2, 3))
    >>> w[:, :, 1].tolist(), w.sum().item()
    ([[1.0, 0.0], [0.0, 1.0]], 2.0)
    """
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    min_dim = min(out_per_group, sizes[1])
    centre = tuple(s // 2 for s in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                tensor[(g * out_per_group + d, d) + centre] = 1
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot initialisation: U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> w = nn.init.xavier_uniform_(cygrad.empty(4, 2))
    >>> bool(w.abs().max() <= 1.0)
    True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot initialisation: N(0, std**2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.init.xavier_normal_(cygrad.empty(3, 4)).shape
    cygrad.Size([3, 4])
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He initialisation: U(-bound, bound) with ``bound = gain * sqrt(3 / fan)``, where
    ``gain = calculate_gain(nonlinearity, a)`` and ``fan`` is chosen by ``mode``.

    Examples
    --------
    >>> import cygrad, math
    >>> from cygrad import nn
    >>> w = nn.init.kaiming_uniform_(cygrad.empty(50, 12), nonlinearity="relu")
    >>> bool(w.abs().max() <= math.sqrt(6 / 12))
    True
    """
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He initialisation: N(0, std**2) with ``std = gain / sqrt(fan)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.init.kaiming_normal_(cygrad.empty(3, 4), mode="fan_out").shape
    cygrad.Size([3, 4])
    """
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fill with a (semi-)orthogonal matrix: rows or columns orthonormal, times ``gain``.

    Dimensions after the first are flattened. The matrix is the Q factor of a
    Gaussian matrix's QR decomposition with the signs fixed by R's diagonal, which
    makes it uniformly distributed over orthogonal matrices.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> q = nn.init.orthogonal_(cygrad.empty(3, 3, dtype=cygrad.float64))
    >>> bool(((q.t() @ q) - cygrad.eye(3, dtype=cygrad.float64)).abs().max() < 1e-12)
    True
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    with no_grad():
        # Drawn in the tensor's dtype, as PyTorch draws them (same seed, same matrix).
        flat = zeros(rows, cols, dtype=tensor.dtype).normal_(0, 1, generator=generator)
        if rows < cols:
            flat = flat.t()
        # cygrad has no QR of its own yet: LAPACK's, through NumPy, on a copy.
        q, r = np.linalg.qr(np.ascontiguousarray(flat.numpy()))
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        tensor.copy_(from_numpy(np.ascontiguousarray(q)).view(tuple(tensor.shape)))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill a 2-D tensor from N(0, std**2) and zero a ``sparsity`` fraction of each
    column (at random rows).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> w = nn.init.sparse_(cygrad.empty(10, 3), sparsity=0.5)
    >>> (w == 0).sum(0).tolist()
    [5, 5, 5]
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            # PyTorch draws these permutations from the default generator even when
            # ``generator`` is given; so do we, to give its numbers.
            zero_rows = randperm(rows)[:num_zeros]
            tensor[zero_rows, col] = 0
    return tensor


_DEPRECATED_DOC = """Deprecated: ``{new}`` with a ``FutureWarning``, as ``torch.nn.init.{old}``.

    Examples
    --------
    >>> import warnings, cygrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     w = cygrad.nn.init.{old}(cygrad.empty({shape}){args})
    >>> tuple(w.shape)
    ({shape})
    """


def _deprecated(new_fn, example_args="", shape="2, 2"):
    new, old = new_fn.__name__, new_fn.__name__[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new}`.",
                      FutureWarning, stacklevel=2)
        return new_fn(*args, **kwargs)
    deprecated_init.__name__ = deprecated_init.__qualname__ = old
    deprecated_init.__doc__ = _DEPRECATED_DOC.format(new=new, old=old, args=example_args,
                                                    shape=shape)
    return deprecated_init


# PyTorch's pre-0.4 names without the trailing underscore, still exported by torch.nn.init
uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_, ", 0.5")
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_, ", 0.5")
dirac = _deprecated(dirac_, shape="2, 2, 3")
__all__ += ["uniform", "normal", "constant", "xavier_uniform", "xavier_normal", "kaiming_uniform",
            "kaiming_normal", "orthogonal", "sparse", "dirac"]
