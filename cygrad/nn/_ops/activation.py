"""Activation functions with PyTorch's ``torch.nn.functional`` signatures.

Each pointwise activation is a ``Function`` subclass of ``_Pointwise`` with two
static methods: ``value(x, *params)`` (the activation, written with cygrad ops) and
``chain(x, g, *params)`` (``g * f'(x)``).  ``backward`` and ``jvp`` both call
``chain`` (one derivative formula, applied to a gradient or to a tangent), and since
``chain`` is written with differentiable ops, double backward works.  Public
functions check their arguments and call ``Function.apply``; the engine records a
node only when autograd needs one.

``inplace=True`` overwrites the input with ``copy_`` (autograd records the copy;
the op itself runs on a clone so that its saved input is not the tensor being
overwritten).  As in PyTorch, a leaf that requires grad refuses in-place updates.
"""
import math

from ..._core import tensor as _C
from ...autograd.function import Function
from ...autograd.inplace import apply_inplace
from ...autograd.grad_mode import no_grad
from ...ops import elementwise as _ew
from ...ops import reduction as _red
from ...ops.reduction.softmax import implicit_dim
from ...ops.creation import zeros_like
from ...ops.indexing import where
from ._fused import fused_kernel

__all__ = ["relu", "relu_", "relu6", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_",
           "elu", "elu_", "selu", "selu_", "celu", "celu_", "gelu", "silu", "mish", "softplus",
           "softsign", "hardsigmoid", "hardswish", "threshold", "threshold_", "logsigmoid",
           "tanhshrink", "softshrink", "hardshrink", "prelu", "glu", "softmax", "log_softmax",
           "softmin", "normalize", "cosine_similarity", "pairwise_distance", "one_hot",
           "gumbel_softmax", "sigmoid", "tanh"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_CUBIC = 0.044715

sigmoid = _ew.sigmoid
tanh = _ew.tanh


class _Pointwise(Function):
    """``y = value(x, *params)`` elementwise; the gradient is ``chain(x, g, *params)``.

    ``value``, ``chain`` and ``params`` (the numbers the activation takes, none by
    default) are visible on ``ctx`` too (``_ctx_attributes``)."""
    _ctx_attributes = ("value", "chain", "params")
    params = ()

    @staticmethod
    def value(x, *params):
        raise NotImplementedError

    @staticmethod
    def chain(x, g, *params):
        raise NotImplementedError

    @staticmethod
    def forward(ctx, x, *params):
        if params:                  # (most take none: the class default serves them)
            ctx.params = params
        ctx.save_for_backward(x)
        return ctx.value(x, *params)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return (ctx.chain(x, grad, *ctx.params),) + (None,) * len(ctx.params)

    @staticmethod
    def jvp(ctx, t, *unused):
        x, = ctx.saved_tensors
        return ctx.chain(x, t, *ctx.params)


def _overwrite(input, cls, *args):
    """The in-place form of an activation: its Function ``cls`` applied in place
    (marked dirty, ``cygrad.autograd.inplace``)."""
    return apply_inplace(cls, input, *args)


def _require_float(input, kernel):
    if not input.is_floating_point():
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_C._torch_type_name(input.dtype)}'")


def _softplus_of(z):
    """``log(1 + exp(z))`` without overflow: ``max(z, 0) + log1p(exp(-|z|))``."""
    return z.clamp(min=0) + (-z.abs()).exp().log1p()


# ---------------------------------------------------------------------------
# piecewise-linear activations
# ---------------------------------------------------------------------------
def relu(input, inplace=False):
    """``max(x, 0)`` elementwise.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.relu(cygrad.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    return input.relu_() if inplace else _ew.relu(input)


def relu_(input):
    """In-place :func:`relu`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.relu_(cygrad.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    return input.relu_()


class Hardtanh(_Pointwise):
    """``clamp(x, min_val, max_val)``; the gradient passes strictly inside the range."""
    _node_name = "HardtanhBackward0"

    @staticmethod
    def value(x, lo, hi):
        if not x.is_floating_point():
            lo, hi = int(lo), int(hi)     # integer inputs stay integer, as in PyTorch
        return x.clamp(lo, hi)

    @staticmethod
    def chain(x, g, lo, hi):
        return g * ((x > lo) & (x < hi))


def _check_hardtanh(min_val, max_val):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``clamp(x, min_val, max_val)``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.hardtanh(cygrad.tensor([-3.0, 0.5, 3.0])).tolist()
    [-1.0, 0.5, 1.0]
    """
    _check_hardtanh(min_val, max_val)
    if inplace:
        return _overwrite(input, Hardtanh, min_val, max_val)
    return Hardtanh.apply(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place :func:`hardtanh`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.hardtanh_(cygrad.tensor([-3.0, 3.0])).tolist()
    [-1.0, 1.0]
    """
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    """``min(max(x, 0), 6)``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.relu6(cygrad.tensor([-1.0, 3.0, 9.0])).tolist()
    [0.0, 3.0, 6.0]
    """
    return hardtanh(input, 0.0, 6.0, inplace)


class LeakyRelu(_Pointwise):
    """``x`` for ``x > 0``, ``negative_slope * x`` otherwise."""
    _node_name = "LeakyReluBackward0"

    @staticmethod
    def value(x, slope):
        return where(x > 0, x, x * slope)

    @staticmethod
    def chain(x, g, slope):
        return where(x > 0, g, g * slope)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``x`` where positive, ``negative_slope * x`` elsewhere.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.leaky_relu(cygrad.tensor([-2.0, 2.0]), 0.5).tolist()
    [-1.0, 2.0]
    """
    _require_float(input, "leaky_relu_cpu")
    if inplace:
        return _overwrite(input, LeakyRelu, negative_slope)
    return LeakyRelu.apply(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """In-place :func:`leaky_relu`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.leaky_relu_(cygrad.tensor([-2.0, 2.0]), 0.5).tolist()
    [-1.0, 2.0]
    """
    return leaky_relu(input, negative_slope, inplace=True)


class Threshold(_Pointwise):
    """``x`` where ``x > threshold``, ``value`` elsewhere."""
    _node_name = "ThresholdBackward0"

    @staticmethod
    def value(x, thr, val):
        return where(x > thr, x, val)

    @staticmethod
    def chain(x, g, thr, val):
        return g * (x > thr)


def threshold(input, threshold, value, inplace=False):
    """``x`` where ``x > threshold``, else ``value``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.threshold(cygrad.tensor([0.5, 2.0]), 1.0, -7.0).tolist()
    [-7.0, 2.0]
    """
    if inplace:
        return _overwrite(input, Threshold, threshold, value)
    return Threshold.apply(input, threshold, value)


def threshold_(input, threshold, value):
    """In-place :func:`threshold`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.threshold_(cygrad.tensor([0.5, 2.0]), 1.0, 0.0).tolist()
    [0.0, 2.0]
    """
    return globals()["threshold"](input, threshold, value, inplace=True)


class Softshrink(_Pointwise):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between."""
    _node_name = "SoftshrinkBackward0"

    @staticmethod
    def value(x, lambd):
        return x - x.clamp(-lambd, lambd)

    @staticmethod
    def chain(x, g, lambd):
        return g * (x.abs() > lambd)


def softshrink(input, lambd=0.5):
    """Shrink towards zero by ``lambd`` (``lambd >= 0``).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.softshrink(cygrad.tensor([-2.0, 0.25, 2.0]), 1.0).tolist()
    [-1.0, 0.0, 1.0]
    """
    _require_float(input, "softshrink_check")
    if lambd < 0:
        raise RuntimeError(f"lambda must be in range [0, {_dtype_max(input)}] for input dtype "
                           f"{_C._torch_type_name(input.dtype)}, but found {lambd:g}")
    return Softshrink.apply(input, lambd)


def _dtype_max(input):
    """The largest finite value of ``input``'s dtype, printed as C++ streams print it."""
    import numpy as np   # only to format an error message
    return f"{float(np.finfo(np.dtype(input.dtype.np_dtype)).max):g}"


class Hardshrink(_Pointwise):
    """``x`` where ``|x| > lambd``, 0 elsewhere."""
    _node_name = "HardshrinkBackward0"

    @staticmethod
    def value(x, lambd):
        # PyTorch's test: 0 inside [-lambd, lambd]; NaN (in x or lambd) keeps x
        return where((x >= -lambd) & (x <= lambd), 0.0, x)

    @staticmethod
    def chain(x, g, lambd):
        return g * ~((x >= -lambd) & (x <= lambd))


def hardshrink(input, lambd=0.5):
    """``x`` where ``|x| > lambd``, 0 elsewhere.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.hardshrink(cygrad.tensor([-2.0, 0.25, 2.0]), 1.0).tolist()
    [-2.0, 0.0, 2.0]
    """
    if isinstance(input, _C.TensorBase) and not input.is_floating_point():
        raise NotImplementedError(f"\"hardshrink_cpu\" not implemented for "
                                  f"'{_C._torch_type_name(input.dtype)}'")
    return Hardshrink.apply(input, lambd)


# ---------------------------------------------------------------------------
# exponential-linear family
# ---------------------------------------------------------------------------
class Elu(_Pointwise):
    """``scale * x`` for ``x > 0``, ``scale * alpha * (exp(input_scale * x) - 1)``
    otherwise: ELU, SELU and CELU are all this op (as in PyTorch)."""
    _node_name = "EluBackward0"

    @staticmethod
    def value(x, alpha, scale, input_scale):
        # exp only sees x <= 0, so large inputs cannot overflow into the unused branch.
        neg = (x.clamp(max=0) * input_scale).expm1() * (alpha * scale)
        return where(x > 0, x * scale, neg)

    @staticmethod
    def chain(x, g, alpha, scale, input_scale):
        neg = (x.clamp(max=0) * input_scale).exp() * (alpha * scale * input_scale)
        return where(x > 0, g * scale, g * neg)


class Celu(Elu):
    """CELU is ELU with ``input_scale = 1 / alpha``; PyTorch names its node apart."""
    _node_name = "CeluBackward0"


def _elu(input, alpha, scale, input_scale, inplace, cls=Elu):
    _require_float(input, "elu_cpu")
    if inplace:
        return _overwrite(input, cls, alpha, scale, input_scale)
    return cls.apply(input, alpha, scale, input_scale)


def elu(input, alpha=1.0, inplace=False):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> [round(v, 4) for v in F.elu(cygrad.tensor([-1.0, 2.0])).tolist()]
    [-0.6321, 2.0]
    """
    return _elu(input, alpha, 1.0, 1.0, inplace)


def elu_(input, alpha=1.0):
    """In-place :func:`elu`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.elu_(cygrad.tensor([0.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    return _elu(input, alpha, 1.0, 1.0, True)


def selu(input, inplace=False):
    """Scaled ELU with the self-normalising constants of Klambauer et al. (2017).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> [round(v, 4) for v in F.selu(cygrad.tensor([-1.0, 1.0])).tolist()]
    [-1.1113, 1.0507]
    """
    return _elu(input, _SELU_ALPHA, _SELU_SCALE, 1.0, inplace)


def selu_(input):
    """In-place :func:`selu`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.selu_(cygrad.tensor([0.0])).tolist()
    [0.0]
    """
    return _elu(input, _SELU_ALPHA, _SELU_SCALE, 1.0, True)


def celu(input, alpha=1.0, inplace=False):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> [round(v, 4) for v in F.celu(cygrad.tensor([-1.0, 1.0]), alpha=2.0).tolist()]
    [-0.7869, 1.0]
    """
    return _elu(input, alpha, 1.0, 1.0 / alpha, inplace, Celu)


def celu_(input, alpha=1.0):
    """In-place :func:`celu`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.celu_(cygrad.tensor([0.0])).tolist()
    [0.0]
    """
    return _elu(input, alpha, 1.0, 1.0 / alpha, True, Celu)


# ---------------------------------------------------------------------------
# smooth activations
# ---------------------------------------------------------------------------
class Gelu(_Pointwise):
    """``x * Phi(x)`` (Phi: the standard normal CDF), or its tanh approximation.

    float32/float64 run one fused kernel each way (``gelu``, ``gelu_backward``);
    the composed formulas serve other dtypes and ``create_graph=True``."""
    _node_name = "GeluBackward0"

    @staticmethod
    def value(x, approximate):
        k = fused_kernel("gelu", x)
        if k is not None:
            return k(x, approximate == "tanh")
        if approximate == "tanh":
            inner = (x + x * x * x * _GELU_CUBIC) * _SQRT_2_OVER_PI
            return x * 0.5 * (inner.tanh() + 1)
        return x * 0.5 * ((x * _SQRT_HALF).erf() + 1)

    @staticmethod
    def chain(x, g, approximate):
        if not _C.is_grad_enabled():
            k = fused_kernel("gelu_backward", x, g)
            if k is not None and tuple(g.shape) == tuple(x.shape):
                return k(g, x, approximate == "tanh")
        if approximate == "tanh":
            x2 = x * x
            t = ((x + x2 * x * _GELU_CUBIC) * _SQRT_2_OVER_PI).tanh()
            d_inner = (x2 * (3 * _GELU_CUBIC) + 1) * _SQRT_2_OVER_PI
            return g * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * d_inner)
        cdf = ((x * _SQRT_HALF).erf() + 1) * 0.5
        pdf = (x * x * -0.5).exp() * _INV_SQRT_2PI
        return g * (cdf + x * pdf)


def gelu(input, approximate="none"):
    """Gaussian error linear unit ``x * Phi(x)``; ``approximate='tanh'`` uses
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> [round(v, 4) for v in F.gelu(cygrad.tensor([-1.0, 1.0])).tolist()]
    [-0.1587, 0.8413]
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _require_float(input, "GeluKernelImpl")
    return Gelu.apply(input, approximate)


class Silu(_Pointwise):
    """``x * sigmoid(x)``."""
    _node_name = "SiluBackward0"

    @staticmethod
    def value(x):
        return x * x.sigmoid()

    @staticmethod
    def chain(x, g):
        s = x.sigmoid()
        return g * s * (x * (1 - s) + 1)


def silu(input, inplace=False):
    """``x * sigmoid(x)`` (a.k.a. swish).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> [round(v, 4) for v in F.silu(cygrad.tensor([-1.0, 1.0])).tolist()]
    [-0.2689, 0.7311]
    """
    _require_float(input, "silu_cpu")
    if inplace:
        return _overwrite(input, Silu)
    return Silu.apply(input)


class Mish(_Pointwise):
    """``x * tanh(softplus(x))``."""
    _node_name = "MishBackward0"

    @staticmethod
    def value(x):
        return x * _softplus_of(x).tanh()

    @staticmethod
    def chain(x, g):
        t = _softplus_of(x).tanh()
        return g * (t + x * x.sigmoid() * (1 - t * t))


def mish(input, inplace=False):
    """``x * tanh(softplus(x))``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> [round(v, 4) for v in F.mish(cygrad.tensor([-1.0, 1.0])).tolist()]
    [-0.3034, 0.8651]
    """
    _require_float(input, "mish_cpu")
    if inplace:
        return _overwrite(input, Mish)
    return Mish.apply(input)


class Softplus(_Pointwise):
    """``log(1 + exp(beta x)) / beta``, linear where ``beta x > threshold``."""
    _node_name = "SoftplusBackward0"

    @staticmethod
    def value(x, beta, threshold):
        z = x * beta
        return where(z > threshold, x, _softplus_of(z) / beta)

    @staticmethod
    def chain(x, g, beta, threshold):
        z = x * beta
        return where(z > threshold, g, g * z.sigmoid())


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * x)) / beta``, and ``x`` itself where ``beta * x > threshold``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> [round(v, 4) for v in F.softplus(cygrad.tensor([0.0, 30.0])).tolist()]
    [0.6931, 30.0]
    """
    _require_float(input, "softplus_cpu")
    return Softplus.apply(input, beta, threshold)


class LogSigmoid(_Pointwise):
    """``log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|))``, stable for any ``x``."""
    _node_name = "LogSigmoidBackward0"

    @staticmethod
    def value(x):
        return x.clamp(max=0) - (-x.abs()).exp().log1p()

    @staticmethod
    def chain(x, g):
        return g * (-x).sigmoid()


def logsigmoid(input):
    """``log(sigmoid(x))``, without overflow or underflow for large ``|x|``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> [round(v, 4) for v in F.logsigmoid(cygrad.tensor([-200.0, 0.0])).tolist()]
    [-200.0, -0.6931]
    """
    _require_float(input, "log_sigmoid_cpu")
    return LogSigmoid.apply(input)


class Hardsigmoid(_Pointwise):
    """``relu6(x + 3) / 6``."""
    _node_name = "HardsigmoidBackward0"

    @staticmethod
    def value(x):
        return (x + 3).clamp(0, 6) / 6

    @staticmethod
    def chain(x, g):
        return g * ((x > -3) & (x < 3)) / 6


def hardsigmoid(input, inplace=False):
    """``relu6(x + 3) / 6``: a piecewise-linear sigmoid.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.hardsigmoid(cygrad.tensor([-4.0, 0.0, 4.0])).tolist()
    [0.0, 0.5, 1.0]
    """
    _require_float(input, "hardsigmoid_cpu")
    if inplace:
        return _overwrite(input, Hardsigmoid)
    return Hardsigmoid.apply(input)


class Hardswish(_Pointwise):
    """``x * relu6(x + 3) / 6``."""
    _node_name = "HardswishBackward0"

    @staticmethod
    def value(x):
        return x * (x + 3).clamp(0, 6) / 6

    @staticmethod
    def chain(x, g):
        # At the kinks PyTorch takes the outer slopes: 0 at x = -3, 1 at x = 3.
        return where((x > -3) & (x < 3), g * (x / 3 + 0.5), where(x >= 3, g, g * 0))


def hardswish(input, inplace=False):
    """``x * relu6(x + 3) / 6`` (Howard et al., MobileNetV3).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.hardswish(cygrad.tensor([-4.0, 0.0, 4.0])).tolist()
    [-0.0, 0.0, 4.0]
    """
    _require_float(input, "hardswish_cpu")
    if inplace:
        return _overwrite(input, Hardswish)
    return Hardswish.apply(input)


def softsign(input):
    """``x / (1 + |x|)``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.softsign(cygrad.tensor([-1.0, 3.0])).tolist()
    [-0.5, 0.75]
    """
    return input / (input.abs() + 1)


def tanhshrink(input):
    """``x - tanh(x)``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.tanhshrink(cygrad.tensor([0.0])).tolist()
    [0.0]
    """
    return input - input.tanh()


def prelu(input, weight):
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` has one element or
    one per channel (dim 1 of ``input``).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.prelu(cygrad.tensor([[-2.0, -2.0], [1.0, 1.0]]), cygrad.tensor([0.5, 0.25])).tolist()
    [[-1.0, -0.5], [1.0, 1.0]]
    """
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    n = weight.numel()
    if n != 1:
        channels = input.size(1) if input.dim() >= 2 else 1
        if n != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {n} and channel size = {channels}.")
        weight = weight.reshape((n,) + (1,) * (input.dim() - 2))
    elif input.dim() == 0:
        weight = weight.reshape(())
    # Composed of differentiable ops: the engine sums weight's gradient over the
    # broadcast dims, which is exactly PReLU's per-channel reduction.
    return where(input > 0, input, weight * input)


def glu(input, dim=-1):
    """Gated linear unit: split ``input`` in halves ``a, b`` along ``dim``; ``a * sigmoid(b)``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.glu(cygrad.tensor([2.0, 0.0])).tolist()
    [1.0]
    """
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim + input.dim() if dim < 0 else dim
    if input.size(d) % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{input.size(d)}")
    a, b = input.chunk(2, d)
    return a * b.sigmoid()


# ---------------------------------------------------------------------------
# softmax family (``_stacklevel`` sits where PyTorch has it, before ``dtype``)
# ---------------------------------------------------------------------------
def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim`` (``dtype`` casts the input first).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.softmax(cygrad.tensor([0.0, 0.0]), dim=0).tolist()
    [0.5, 0.5]
    """
    _check_softmax_input(input, dim, dtype, "softmax")
    if dim is None:        # F.softmax(x) still picks a dim, with PyTorch's warning
        dim = implicit_dim(input, "softmax", _stacklevel)
    return _red.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``log(softmax(x))`` along ``dim``, computed stably.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> [round(v, 4) for v in F.log_softmax(cygrad.tensor([0.0, 0.0]), dim=0).tolist()]
    [-0.6931, -0.6931]
    """
    _check_softmax_input(input, dim, dtype, "log_softmax")
    if dim is None:
        dim = implicit_dim(input, "log_softmax", _stacklevel)
    return _red.log_softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-x)`` along ``dim``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> [round(v, 4) for v in F.softmin(cygrad.tensor([0.0, 1.0]), dim=0).tolist()]
    [0.7311, 0.2689]
    """
    _check_softmax_input(input, dim, dtype, "softmax")
    if dim is None:
        dim = implicit_dim(input, "softmin", _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return _red.softmax(-input, dim)


def _check_softmax_input(input, dim, dtype, opname):
    """PyTorch's refusal of integer inputs, naming the kernel it would have run."""
    if dtype is None and not input.is_floating_point() and dim is not None:
        last = dim in (-1, input.dim() - 1) or input.dim() == 0
        kernel = f"{opname}_lastdim_kernel_impl" if last else f"{opname}_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_C._torch_type_name(input.dtype)}'")


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """A sample from the Gumbel-softmax distribution: ``softmax((logits + g) / tau)``
    with ``g ~ Gumbel(0, 1)``.  ``hard=True`` returns one-hot vectors whose gradient
    is the soft sample's (the straight-through estimator).  ``eps`` is unused, as
    in PyTorch.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> y = F.gumbel_softmax(cygrad.zeros(4, 3), hard=True)
    >>> y.sum(1).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    with no_grad():
        gumbels = -_ew.log(zeros_like(logits).exponential_())
    y = _red.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y
    index = y.detach().argmax(dim, keepdim=True)
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y.detach() + y


# ---------------------------------------------------------------------------
# distances and encodings
# ---------------------------------------------------------------------------
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``x / max(||x||_p, eps)`` along ``dim``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.normalize(cygrad.tensor([[3.0, 4.0]])).tolist()
    [[0.6000000238418579, 0.800000011920929]]
    """
    if not input.is_floating_point():
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {_C._torch_type_name(input.dtype)}")
    denom = _red.norm(input, p, dim, keepdim=True).clamp(min=eps)
    result = input / denom
    if out is not None:
        return out.copy_(result)
    return result


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``x1 . x2 / (max(||x1||, eps) * max(||x2||, eps))`` along ``dim`` (inputs broadcast).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.cosine_similarity(cygrad.tensor([[1.0, 0.0]]), cygrad.tensor([[2.0, 0.0]])).tolist()
    [1.0]
    """
    from ...ops.shape import broadcast_tensors
    x1, x2 = broadcast_tensors(x1, x2)
    # Each input is divided by its own norm, clamped at eps, before the dot product
    # (so large inputs cannot overflow a product of norms).  PyTorch clamps under
    # no_grad, so the gradient flows as if through the unclamped norm; adding the
    # clamp's change as a constant does the same.
    n1 = _red.norm(x1, 2, dim, keepdim=True)
    n2 = _red.norm(x2, 2, dim, keepdim=True)
    n1 = n1 + (n1.clamp(min=eps) - n1).detach()
    n2 = n2 + (n2.clamp(min=eps) - n2).detach()
    return _red.sum((x1 / n1) * (x2 / n2), dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` over the last dim.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> [round(v, 4) for v in F.pairwise_distance(cygrad.tensor([[0.0, 0.0]]),
    ...                                           cygrad.tensor([[3.0, 4.0]])).tolist()]
    [5.0]
    """
    last = max(x1.dim(), x2.dim()) - 1
    return _red.norm(x1 - x2 + eps, p, last, keepdim=keepdim)


def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding: ``out[..., tensor[...]] = 1``, shape ``(*, num_classes)``.

    ``num_classes=-1`` takes ``tensor.max() + 1``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.one_hot(cygrad.tensor([0, 2])).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    from ..._core import dtype as _dt
    if tensor.dtype != _dt.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0:
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        from ...ops.creation import zeros
        return zeros(tuple(tensor.shape) + (num_classes,), dtype=_dt.int64)
    lo, hi = int(tensor.min()), int(tensor.max())
    if lo < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = hi + 1
    elif hi >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    from ...ops.creation import zeros
    out = zeros(tuple(tensor.shape) + (num_classes,), dtype=_dt.int64)
    return out.scatter_(-1, tensor.unsqueeze(-1), 1)
