"""Activation layers: thin ``Module`` wrappers around ``cygrad.nn.functional``.

Each stores its hyper-parameters under PyTorch's attribute names and prints them
the way PyTorch's ``repr`` does.  Only ``PReLU`` has a parameter.
"""
from ...ops.creation import empty
from .. import functional as F
from .._ops.activation import _check_hardtanh
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish",
           "Softplus", "Softsign", "Tanh", "Sigmoid", "Hardtanh", "Hardsigmoid", "Hardswish",
           "PReLU", "Softmax", "LogSoftmax", "Softmin", "Softmax2d", "Threshold", "LogSigmoid",
           "Tanhshrink", "Softshrink", "Hardshrink", "GLU"]


def _inplace_repr(inplace):
    return "inplace=True" if inplace else ""


class ReLU(Module):
    """``max(x, 0)``; see :func:`cygrad.nn.functional.relu`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ReLU()(cygrad.tensor([-1.0, 1.0])).tolist()
    [0.0, 1.0]
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Hardtanh(Module):
    """``clamp(x, min_val, max_val)``; see :func:`cygrad.nn.functional.hardtanh`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Hardtanh(-2.0, 2.0)(cygrad.tensor([-3.0, 3.0])).tolist()
    [-2.0, 2.0]
    """

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        _check_hardtanh(min_val, max_val)

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        extra = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{extra}"


class ReLU6(Hardtanh):
    """``min(max(x, 0), 6)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ReLU6()(cygrad.tensor([-1.0, 7.0])).tolist()
    [0.0, 6.0]
    """

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class LeakyReLU(Module):
    """``x`` where positive, ``negative_slope * x`` elsewhere.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.LeakyReLU(0.5)(cygrad.tensor([-2.0, 2.0])).tolist()
    [-1.0, 2.0]
    """

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        extra = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{extra}"


class ELU(Module):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ELU()(cygrad.tensor([0.0, 2.0])).tolist()
    [0.0, 2.0]
    """

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        extra = ", inplace=True" if self.inplace else ""
        return f"alpha={self.alpha}{extra}"


class CELU(ELU):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.CELU(2.0)(cygrad.tensor([0.0, 2.0])).tolist()
    [0.0, 2.0]
    """

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class SELU(Module):
    """Scaled ELU with fixed self-normalising constants.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.SELU()(cygrad.tensor([0.0])).tolist()
    [0.0]
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.selu(input, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class GELU(Module):
    """``x * Phi(x)``; ``approximate='tanh'`` for the tanh approximation.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.GELU(approximate="tanh")
    GELU(approximate='tanh')
    """

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class _InplaceOnly(Module):
    """An activation whose only option is ``inplace`` (``fn`` is the functional form)."""
    fn = None
    show_inplace = True

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self).fn(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace) if self.show_inplace else ""


class SiLU(_InplaceOnly):
    """``x * sigmoid(x)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.SiLU()(cygrad.tensor([0.0])).tolist()
    [0.0]
    """
    fn = staticmethod(F.silu)


class Mish(_InplaceOnly):
    """``x * tanh(softplus(x))``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Mish()(cygrad.tensor([0.0])).tolist()
    [0.0]
    """
    fn = staticmethod(F.mish)


class Hardsigmoid(_InplaceOnly):
    """``relu6(x + 3) / 6``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Hardsigmoid()(cygrad.tensor([0.0])).tolist()
    [0.5]
    """
    fn = staticmethod(F.hardsigmoid)
    show_inplace = False    # PyTorch's repr leaves it out


class Hardswish(_InplaceOnly):
    """``x * relu6(x + 3) / 6``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Hardswish()(cygrad.tensor([4.0])).tolist()
    [4.0]
    """
    fn = staticmethod(F.hardswish)
    show_inplace = False


class _Stateless(Module):
    """An activation without options (``fn`` is the functional form)."""
    fn = None

    def forward(self, input):
        return type(self).fn(input)


class Softsign(_Stateless):
    """``x / (1 + |x|)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Softsign()(cygrad.tensor([1.0])).tolist()
    [0.5]
    """
    fn = staticmethod(F.softsign)


class Tanh(_Stateless):
    """``tanh(x)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Tanh()(cygrad.tensor([0.0])).tolist()
    [0.0]
    """
    fn = staticmethod(F.tanh)


class Sigmoid(_Stateless):
    """``1 / (1 + exp(-x))``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Sigmoid()(cygrad.tensor([0.0])).tolist()
    [0.5]
    """
    fn = staticmethod(F.sigmoid)


class LogSigmoid(_Stateless):
    """``log(sigmoid(x))``, computed stably.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.LogSigmoid()(cygrad.tensor([-100.0])).tolist()
    [-100.0]
    """
    fn = staticmethod(F.logsigmoid)


class Tanhshrink(_Stateless):
    """``x - tanh(x)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Tanhshrink()(cygrad.tensor([0.0])).tolist()
    [0.0]
    """
    fn = staticmethod(F.tanhshrink)


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear above ``threshold``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Softplus(beta=2.0)(cygrad.tensor([30.0])).tolist()
    [30.0]
    """

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Threshold(1.0, 5.0)(cygrad.tensor([0.0, 2.0])).tolist()
    [5.0, 2.0]
    """

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        extra = ", inplace=True" if self.inplace else ""
        return f"threshold={self.threshold}, value={self.value}{extra}"


class _Shrink(Module):
    fn = None

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return type(self).fn(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Softshrink(_Shrink):
    """Shrink towards zero by ``lambd``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Softshrink(1.0)(cygrad.tensor([2.0])).tolist()
    [1.0]
    """
    fn = staticmethod(F.softshrink)


class Hardshrink(_Shrink):
    """Zero where ``|x| <= lambd``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Hardshrink(1.0)(cygrad.tensor([0.5, 2.0])).tolist()
    [0.0, 2.0]
    """
    fn = staticmethod(F.hardshrink)


class PReLU(Module):
    """``x`` where positive, ``weight * x`` elsewhere, with a learnt ``weight``: one
    value shared by all channels (``num_parameters=1``) or one per channel (dim 1).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> m = nn.PReLU()
    >>> m.weight.tolist()
    [0.25]
    >>> m(cygrad.tensor([-4.0, 4.0])).tolist()
    [-1.0, 4.0]
    """

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        """Set every slope back to ``init``."""
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class _SoftmaxLike(Module):
    fn = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):    # modules pickled before ``dim`` existed
            self.dim = None

    def forward(self, input):
        return type(self).fn(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(_SoftmaxLike):
    """``exp(x) / sum(exp(x))`` along ``dim``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Softmax(dim=0)(cygrad.tensor([1.0, 1.0])).tolist()
    [0.5, 0.5]
    """
    fn = staticmethod(F.softmax)


class LogSoftmax(_SoftmaxLike):
    """``log(softmax(x))`` along ``dim``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> [round(v, 4) for v in nn.LogSoftmax(dim=0)(cygrad.tensor([1.0, 1.0])).tolist()]
    [-0.6931, -0.6931]
    """
    fn = staticmethod(F.log_softmax)


class Softmin(_SoftmaxLike):
    """``softmax(-x)`` along ``dim``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Softmin(dim=0)(cygrad.tensor([1.0, 1.0])).tolist()
    [0.5, 0.5]
    """
    fn = staticmethod(F.softmin)


class Softmax2d(Module):
    """Softmax over the channel dim of a ``(N, C, H, W)`` or ``(C, H, W)`` input.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Softmax2d()(cygrad.zeros(2, 1, 1)).flatten().tolist()
    [0.5, 0.5]
    """

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             f"instead")
        return F.softmax(input, -3, _stacklevel=5)


class GLU(Module):
    """Gated linear unit along ``dim``: ``a * sigmoid(b)`` for the two halves ``a, b``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.GLU()(cygrad.tensor([2.0, 0.0])).tolist()
    [1.0]
    """

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"
