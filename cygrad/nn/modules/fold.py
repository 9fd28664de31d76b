"""``Unfold`` (im2col) and ``Fold`` (col2im) layers."""
from .. import functional as F
from .module import Module

__all__ = ["Unfold", "Fold"]


class Unfold(Module):
    """Sliding-window columns of ``(N, C, H, W)``: ``(N, C * prod(kernel_size), L)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Unfold(kernel_size=(2, 3))(cygrad.randn(2, 5, 3, 4)).shape
    cygrad.Size([2, 30, 4])
    """

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Module):
    """Sums sliding-window columns back into ``(N, C, *output_size)`` (inverse layout of
    :class:`Unfold`; overlaps add up).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Fold(output_size=(4, 5), kernel_size=(2, 2))(cygrad.randn(1, 12, 12)).shape
    cygrad.Size([1, 3, 4, 5])
    """

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")
