"""Batch normalization layers: ``BatchNorm1d``, ``BatchNorm2d``, ``BatchNorm3d``."""
from ...ops.creation import empty, ones, zeros, tensor
from ..._core.dtype import int64
from ...autograd.grad_mode import no_grad
from .. import init
from .._ops.normalization import batch_norm
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]


class _BatchNorm(Module):
    """Shared by the BatchNorm layers; subclasses only say which ranks they accept."""
    _expected = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(empty(num_features, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        if affine and bias:
            self.bias = Parameter(empty(num_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        """Running mean 0, running variance 1, no batches seen."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self):
        """Reset the running statistics, ``weight`` to 1 and ``bias`` to 0."""
        self.reset_running_stats()
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def _check_input_dim(self, input):
        if input.dim() not in self._expected:
            ranks = " or ".join(f"{d}D" for d in self._expected)
            raise ValueError(f"expected {ranks} input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:      # a cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        # Running stats are updated only when they are tracked and we are training;
        # in eval mode they are used when present.
        track = not self.training or self.track_running_stats
        return batch_norm(input, self.running_mean if track else None,
                          self.running_var if track else None, self.weight, self.bias,
                          use_batch, factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalization of ``(N, C)`` or ``(N, C, L)`` inputs, as ``torch.nn.BatchNorm1d``.

    Training normalises with the batch's statistics and updates ``running_mean`` /
    ``running_var`` (``momentum=None``: a cumulative average over
    ``num_batches_tracked`` batches); eval mode uses the running statistics.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> bn = nn.BatchNorm1d(3)
    >>> y = bn(cygrad.randn(8, 3))
    >>> bn.num_batches_tracked.item(), list(bn.state_dict())
    (1, ['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked'])
    """
    _expected = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization of ``(N, C, H, W)`` inputs, as ``torch.nn.BatchNorm2d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> bn = nn.BatchNorm2d(4).eval()
    >>> bn(cygrad.ones(2, 4, 3, 3)).shape
    cygrad.Size([2, 4, 3, 3])
    """
    _expected = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalization of ``(N, C, D, H, W)`` inputs, as ``torch.nn.BatchNorm3d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.BatchNorm3d(2)(cygrad.randn(2, 2, 2, 2, 2)).shape
    cygrad.Size([2, 2, 2, 2, 2])
    """
    _expected = (5,)
