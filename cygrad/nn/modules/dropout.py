"""Dropout layers: ``Dropout``, ``Dropout1d``, ``Dropout2d``, ``Dropout3d``,
``AlphaDropout``, ``FeatureAlphaDropout``; active only in training mode."""
from .._ops import dropout as _D
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    _fn = None

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zeros elements with probability ``p`` in training and scales the rest by
    ``1/(1-p)``; the identity in eval mode.  As ``torch.nn.Dropout``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> m = nn.Dropout(0.25)
    >>> sorted(set(m(cygrad.ones(1000)).tolist()))
    [0.0, 1.3333333730697632]
    >>> m.eval()(cygrad.ones(2)).tolist()
    [1.0, 1.0]
    """
    _fn = staticmethod(_D.dropout)


class Dropout1d(_DropoutNd):
    """Zeros whole channels of ``(N, C, L)``/``(C, L)`` inputs, as ``torch.nn.Dropout1d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Dropout1d(0.2)(cygrad.ones(2, 3, 4)).shape
    cygrad.Size([2, 3, 4])
    """
    _fn = staticmethod(_D.dropout1d)


class Dropout2d(_DropoutNd):
    """Zeros whole channels of ``(N, C, H, W)``/``(C, H, W)`` inputs, as ``torch.nn.Dropout2d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Dropout2d(0.2)(cygrad.ones(2, 3, 4, 4)).shape
    cygrad.Size([2, 3, 4, 4])
    """
    _fn = staticmethod(_D.dropout2d)


class Dropout3d(_DropoutNd):
    """Zeros whole channels of ``(N, C, D, H, W)`` inputs, as ``torch.nn.Dropout3d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.Dropout3d(0.2)(cygrad.ones(2, 3, 2, 2, 2)).shape
    cygrad.Size([2, 3, 2, 2, 2])
    """
    _fn = staticmethod(_D.dropout3d)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps SELU's self-normalising statistics, as ``torch.nn.AlphaDropout``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.AlphaDropout(0.2)(cygrad.randn(5)).shape
    cygrad.Size([5])
    """
    _fn = staticmethod(_D.alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    """Channel-wise ``AlphaDropout``, as ``torch.nn.FeatureAlphaDropout``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.FeatureAlphaDropout(0.2)(cygrad.randn(2, 3, 4)).shape
    cygrad.Size([2, 3, 4])
    """
    _fn = staticmethod(_D.feature_alpha_dropout)
