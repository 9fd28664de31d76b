"""Padding layers (``F.pad`` as a layer): zero, constant, reflection, replication and
circular padding for 1-d, 2-d and 3-d inputs."""
from .. import functional as F
from .module import Module

__all__ = ["ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
           "CircularPad2d", "CircularPad3d"]


def _amounts(padding, n):
    if isinstance(padding, int):
        return (padding,) * (2 * n)
    padding = tuple(padding)
    if len(padding) != 2 * n:
        raise ValueError(f"padding must be an int or a {2 * n}-tuple, got {padding}")
    return padding


class _PadNd(Module):
    _n = 1
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _amounts(padding, self._n)

    def forward(self, input):
        return F.pad(input, self.padding, type(self)._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``: ``padding`` is an int or ``(left, right)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ConstantPad1d((1, 2), 3.5)(cygrad.zeros(1, 2)).tolist()
    [[3.5, 0.0, 0.0, 3.5, 3.5]]
    """
    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with ``value``: ``(left, right, top, bottom)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ConstantPad2d(1, 2.0)(cygrad.zeros(1, 1, 1)).tolist()
    [[[2.0, 2.0, 2.0], [2.0, 0.0, 2.0], [2.0, 2.0, 2.0]]]
    """
    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims with ``value``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ConstantPad3d(1, 0.0)(cygrad.ones(1, 1, 1, 1)).shape
    cygrad.Size([1, 3, 3, 3])
    """
    _n = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Pad the last dim with zeros.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ZeroPad1d((1, 2))(cygrad.ones(1, 1)).tolist()
    [[0.0, 1.0, 0.0, 0.0]]
    """
    _n = 1


class ZeroPad2d(_ZeroPadNd):
    """Pad the last two dims with zeros.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ZeroPad2d(1)
    ZeroPad2d((1, 1, 1, 1))
    """
    _n = 2


class ZeroPad3d(_ZeroPadNd):
    """Pad the last three dims with zeros.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ZeroPad3d(1)(cygrad.ones(1, 1, 1, 1)).sum().item()
    1.0
    """
    _n = 3


class ReflectionPad1d(_PadNd):
    """Pad the last dim with its mirror image (the edge not repeated).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ReflectionPad1d(2)(cygrad.tensor([[[0.0, 1.0, 2.0, 3.0]]])).tolist()
    [[[2.0, 1.0, 0.0, 1.0, 2.0, 3.0, 2.0, 1.0]]]
    """
    _n, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Reflection padding of the last two dims.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ReflectionPad2d(1)(cygrad.ones(1, 1, 3, 3)).shape
    cygrad.Size([1, 1, 5, 5])
    """
    _n, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Reflection padding of the last three dims.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ReflectionPad3d(1)(cygrad.ones(1, 1, 2, 2, 2)).shape
    cygrad.Size([1, 1, 4, 4, 4])
    """
    _n, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Pad the last dim by repeating its edge values.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ReplicationPad1d((1, 2))(cygrad.tensor([[[1.0, 2.0]]])).tolist()
    [[[1.0, 1.0, 2.0, 2.0, 2.0]]]
    """
    _n, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Replication padding of the last two dims.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ReplicationPad2d(1)(cygrad.ones(1, 1, 2, 2)).shape
    cygrad.Size([1, 1, 4, 4])
    """
    _n, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Replication padding of the last three dims.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.ReplicationPad3d(1)(cygrad.ones(1, 1, 2, 2, 2)).shape
    cygrad.Size([1, 1, 4, 4, 4])
    """
    _n, _mode = 3, "replicate"


class CircularPad1d(_PadNd):
    """Pad the last dim by wrapping around.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.CircularPad1d(1)(cygrad.tensor([[[1.0, 2.0, 3.0]]])).tolist()
    [[[3.0, 1.0, 2.0, 3.0, 1.0]]]
    """
    _n, _mode = 1, "circular"


class CircularPad2d(_PadNd):
    """Circular padding of the last two dims.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.CircularPad2d(1)(cygrad.ones(1, 1, 2, 2)).shape
    cygrad.Size([1, 1, 4, 4])
    """
    _n, _mode = 2, "circular"


class CircularPad3d(_PadNd):
    """Circular padding of the last three dims.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.CircularPad3d(1)(cygrad.ones(1, 1, 2, 2, 2)).shape
    cygrad.Size([1, 1, 4, 4, 4])
    """
    _n, _mode = 3, "circular"
