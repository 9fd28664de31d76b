"""Affine layers: ``Identity``, ``Linear``, ``Bilinear``."""
import math

from ...ops.creation import empty
from .. import functional as F
from .._ops.linear import linear
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear"]


class Identity(Module):
    """Returns its input unchanged; any constructor arguments are ignored.

    Handy as a placeholder where a layer is optional.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> x = cygrad.ones(2)
    >>> nn.Identity(54, unused="argument")(x) is x
    True
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x @ weight.T + bias``, as ``torch.nn.Linear``.

    ``weight`` has shape ``(out_features, in_features)`` and starts from
    ``kaiming_uniform_(a=sqrt(5))``, i.e. U(-1/sqrt(in), 1/sqrt(in)); so does
    ``bias`` (shape ``(out_features,)``) unless ``bias=False``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> lin = nn.Linear(20, 30)
    >>> lin(cygrad.randn(128, 20)).shape
    cygrad.Size([128, 30])
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Draw fresh initial values (the constructor's initialisation)."""
        # a=sqrt(5) gives gain sqrt(1/3), so the bound is 1/sqrt(fan_in).
        # course: begin linear-init
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)
        # course: end linear-init

    def forward(self, input):
        return linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """``y[..., o] = x1[..., i] * weight[o, i, j] * x2[..., j] + bias[o]``, as
    ``torch.nn.Bilinear``.

    ``weight`` (``(out, in1, in2)``) and ``bias`` (``(out,)``) start from
    U(-1/sqrt(in1), 1/sqrt(in1)).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> m = nn.Bilinear(20, 30, 40)
    >>> m(cygrad.randn(128, 20), cygrad.randn(128, 30)).shape
    cygrad.Size([128, 40])
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features),
                                      device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Draw fresh initial values (the constructor's initialisation)."""
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
