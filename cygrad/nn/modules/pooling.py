"""Pooling layers: max, average and adaptive pooling, max unpooling."""
from .. import functional as F
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
           "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "MaxUnpool1d", "MaxUnpool2d"]


def _ntuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _MaxPoolNd(Module):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                              ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling layer, as ``torch.nn.MaxPool1d`` (see ``F.max_pool1d``).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.MaxPool1d(3, stride=2)(cygrad.randn(20, 16, 50)).shape
    cygrad.Size([20, 16, 24])
    """
    _fn = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """2-D max pooling layer, as ``torch.nn.MaxPool2d`` (see ``F.max_pool2d``).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.MaxPool2d((3, 2), stride=(2, 1))(cygrad.randn(2, 16, 50, 32)).shape
    cygrad.Size([2, 16, 24, 31])
    >>> nn.MaxPool2d(2)
    MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """
    _fn = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """3-D max pooling layer, as ``torch.nn.MaxPool3d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.MaxPool3d(2)(cygrad.randn(1, 2, 4, 4, 4)).shape
    cygrad.Size([1, 2, 2, 2, 2])
    """
    _fn = staticmethod(F.max_pool3d)


class AvgPool1d(Module):
    """1-D average pooling layer, as ``torch.nn.AvgPool1d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.AvgPool1d(3, stride=2)(cygrad.ones(1, 1, 7)).tolist()
    [[[1.0, 1.0, 1.0]]]
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolNd(Module):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """2-D average pooling layer, as ``torch.nn.AvgPool2d`` (see ``F.avg_pool2d``).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.AvgPool2d(2)(cygrad.ones(1, 1, 4, 4)).shape
    cygrad.Size([1, 1, 2, 2])
    """
    _fn = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    """3-D average pooling layer, as ``torch.nn.AvgPool3d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.AvgPool3d(2)(cygrad.ones(1, 1, 4, 4, 4)).shape
    cygrad.Size([1, 1, 2, 2, 2])
    """
    _fn = staticmethod(F.avg_pool3d)


class _AdaptiveAvgPoolNd(Module):
    _fn = None

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return type(self)._fn(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed length, as ``torch.nn.AdaptiveAvgPool1d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.AdaptiveAvgPool1d(5)(cygrad.randn(1, 64, 8)).shape
    cygrad.Size([1, 64, 5])
    """
    _fn = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed size, as ``torch.nn.AdaptiveAvgPool2d`` (``None`` keeps
    that dim's size).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.AdaptiveAvgPool2d((5, None))(cygrad.randn(1, 64, 10, 9)).shape
    cygrad.Size([1, 64, 5, 9])
    """
    _fn = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed size, as ``torch.nn.AdaptiveAvgPool3d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.AdaptiveAvgPool3d(1)(cygrad.randn(1, 2, 3, 4, 5)).shape
    cygrad.Size([1, 2, 1, 1, 1])
    """
    _fn = staticmethod(F.adaptive_avg_pool3d)


class _AdaptiveMaxPoolNd(Module):
    _fn = None

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        return type(self)._fn(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed length, as ``torch.nn.AdaptiveMaxPool1d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.AdaptiveMaxPool1d(5)(cygrad.randn(1, 64, 8)).shape
    cygrad.Size([1, 64, 5])
    """
    _fn = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed size, as ``torch.nn.AdaptiveMaxPool2d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.AdaptiveMaxPool2d((5, 7))(cygrad.randn(1, 64, 8, 9)).shape
    cygrad.Size([1, 64, 5, 7])
    """
    _fn = staticmethod(F.adaptive_max_pool2d)


class _MaxUnpoolNd(Module):
    _n = 2
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        n = self._n
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride if stride is not None else kernel_size, n)
        self.padding = _ntuple(padding, n)

    def forward(self, input, indices, output_size=None):
        return type(self)._fn(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool1d``, as ``torch.nn.MaxUnpool1d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> v, i = nn.MaxPool1d(2, return_indices=True)(cygrad.tensor([[[1.0, 2.0, 4.0, 3.0]]]))
    >>> nn.MaxUnpool1d(2)(v, i).tolist()
    [[[0.0, 2.0, 4.0, 0.0]]]
    """
    _n = 1
    _fn = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool2d``, as ``torch.nn.MaxUnpool2d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> v, i = nn.MaxPool2d(2, return_indices=True)(cygrad.randn(1, 1, 4, 4))
    >>> nn.MaxUnpool2d(2)(v, i).shape
    cygrad.Size([1, 1, 4, 4])
    """
    _n = 2
    _fn = staticmethod(F.max_unpool2d)
