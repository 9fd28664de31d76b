"""``FractionalMaxPool2d`` and ``FractionalMaxPool3d``: see ``nn/_ops/fractional_pool.py``."""
from .. import functional as F
from .module import Module

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


class _FractionalMaxPoolNd(Module):
    _k = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        k = self._k

        def ntuple(v):
            return None if v is None else (tuple(v) if isinstance(v, (tuple, list)) else (v,) * k)
        self.kernel_size = ntuple(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = ntuple(output_size)
        self.output_ratio = ntuple(output_ratio)
        if output_size is None and output_ratio is None:
            raise ValueError(f"{type(self).__name__} requires specifying either an output size, "
                             "or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        fn = F.fractional_max_pool2d if self._k == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio,
                  self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """See :func:`cygrad.nn.functional.fractional_max_pool2d`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))(cygrad.randn(1, 2, 10, 10)).shape
    cygrad.Size([1, 2, 5, 5])
    """
    _k = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """See :func:`cygrad.nn.functional.fractional_max_pool3d`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.FractionalMaxPool3d(2, output_size=2)(cygrad.randn(1, 1, 5, 5, 5)).shape
    cygrad.Size([1, 1, 2, 2, 2])
    """
    _k = 3
