"""Convolution layers: ``Conv1d/2d/3d`` and ``ConvTranspose1d/2d/3d``."""
import math

from ...ops.creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(value, n):
    if isinstance(value, (tuple, list)):
        return tuple(value) if len(value) != 1 else tuple(value) * n
    return (value,) * n


class _ConvNd(Module):
    """What every convolution layer shares: arguments, parameters, init, repr."""

    _n = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", output_padding=0, device=None,
                 dtype=None):
        super().__init__()
        n = self._n
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{ {'same', 'valid'} }")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {set(_PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.transposed = self._transposed
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's order: last dim first, (before, after) each.
        if isinstance(self.padding, str):
            pads = []
            if self.padding == "same":
                for d, k in zip(reversed(self.dilation), reversed(self.kernel_size)):
                    total = d * (k - 1)
                    pads += [total // 2, total - total // 2]
            else:
                pads = [0, 0] * n
            self._reversed_padding_repeated_twice = pads
        else:
            self._reversed_padding_repeated_twice = tuple(
                p for p in reversed(self.padding) for _ in range(2))
        shape = ((in_channels, out_channels // groups) if self._transposed
                 else (out_channels, in_channels // groups)) + self.kernel_size
        self.weight = Parameter(empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Draw fresh initial values: ``kaiming_uniform_(a=sqrt(5))`` for the weight, so
        U(-1/sqrt(fan_in), 1/sqrt(fan_in)) as for the bias."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        n = self._n
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _Conv(_ConvNd):
    _conv = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         bias, padding_mode, 0, device, dtype)

    def _conv_forward(self, input, weight, bias):
        conv = type(self)._conv
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-D convolution layer over ``(N, C_in, L)``, as ``torch.nn.Conv1d``.

    ``padding`` is an int, ``'valid'`` or ``'same'``; ``padding_mode`` is ``'zeros'``,
    ``'reflect'``, ``'replicate'`` or ``'circular'``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> m = nn.Conv1d(16, 33, 3, stride=2)
    >>> m(cygrad.randn(20, 16, 50)).shape
    cygrad.Size([20, 33, 24])
    """
    _n = 1
    _conv = staticmethod(F.conv1d)


class Conv2d(_Conv):
    """2-D convolution layer over ``(N, C_in, H, W)``, as ``torch.nn.Conv2d``.

    ``weight`` is ``(out_channels, in_channels / groups, kH, kW)`` and starts from
    ``kaiming_uniform_(a=sqrt(5))``; ``bias`` from U(-1/sqrt(fan_in), 1/sqrt(fan_in)).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> m = nn.Conv2d(16, 33, (3, 5), stride=(2, 1), padding=(4, 2), dilation=(3, 1))
    >>> m(cygrad.randn(2, 16, 50, 100)).shape
    cygrad.Size([2, 33, 26, 100])
    >>> m
    Conv2d(16, 33, kernel_size=(3, 5), stride=(2, 1), padding=(4, 2), dilation=(3, 1))
    """
    _n = 2
    _conv = staticmethod(F.conv2d)


class Conv3d(_Conv):
    """3-D convolution layer over ``(N, C_in, D, H, W)``, as ``torch.nn.Conv3d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Conv3d(2, 4, 3, padding=1)(cygrad.randn(1, 2, 4, 4, 4)).shape
    cygrad.Size([1, 4, 4, 4, 4])
    """
    _n = 3
    _conv = staticmethod(F.conv3d)


class _ConvTranspose(_ConvNd):
    _transposed = True
    _conv = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         bias, padding_mode, output_padding, device, dtype)

    def _output_padding(self, input, output_size):
        """The ``output_padding`` that makes the output ``output_size`` (PyTorch's rule:
        any size in ``[smallest, smallest + stride)``)."""
        if output_size is None:
            return self.output_padding
        n = self._n
        requested = output_size
        output_size = list(output_size)
        if len(output_size) == input.dim():
            output_size = output_size[2:] if input.dim() == n + 2 else output_size[1:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have "
                             f"{n} or {n + 2} elements (got {len(output_size)})")
        spatial = list(input.shape[input.dim() - n:])
        lo, hi = self._sizes(spatial)
        if any(not a <= o <= b for a, o, b in zip(lo, output_size, hi)):
            raise ValueError(f"requested an output size of {requested}, but valid sizes range "
                             f"from {lo} to {hi} (for an input of {input.shape[input.dim() - n:]})")
        return tuple(o - a for o, a in zip(output_size, lo))

    def _sizes(self, spatial):
        lo = [(s - 1) * t - 2 * p + d * (k - 1) + 1 for s, t, p, d, k
              in zip(spatial, self.stride, self.padding, self.dilation, self.kernel_size)]
        return lo, [v + t - 1 for v, t in zip(lo, self.stride)]

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return type(self)._conv(input, self.weight, self.bias, self.stride, self.padding,
                                output_padding, self.groups, self.dilation)


class ConvTranspose1d(_ConvTranspose):
    """Transposed 1-D convolution layer, as ``torch.nn.ConvTranspose1d``; ``weight`` is
    ``(in_channels, out_channels / groups, kW)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ConvTranspose1d(4, 2, 3, stride=2)(cygrad.randn(1, 4, 5)).shape
    cygrad.Size([1, 2, 11])
    """
    _n = 1
    _conv = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTranspose):
    """Transposed 2-D convolution layer, as ``torch.nn.ConvTranspose2d``. ``forward``
    takes an optional ``output_size`` that picks the ``output_padding``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> up = nn.ConvTranspose2d(16, 16, 3, stride=2, padding=1)
    >>> up(cygrad.randn(1, 16, 6, 6), output_size=(12, 12)).shape
    cygrad.Size([1, 16, 12, 12])
    """
    _n = 2
    _conv = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTranspose):
    """Transposed 3-D convolution layer, as ``torch.nn.ConvTranspose3d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ConvTranspose3d(2, 3, 2, stride=2)(cygrad.randn(1, 2, 2, 2, 2)).shape
    cygrad.Size([1, 3, 4, 4, 4])
    """
    _n = 3
    _conv = staticmethod(F.conv_transpose3d)
