"""cygrad.autograd: reverse-mode automatic differentiation.

The engine (graph nodes, saved tensors, the backward pass) is Cython in
``cygrad/_core/engine.pyx``; this package holds the Python API around it:
``Function`` for custom ops, ``backward``/``grad``, grad modes, anomaly detection,
gradient checking and the teaching tools (``graph``, ``trace``).
"""
from .._core import engine as _E
from .._core import tensor as _C
from .._tensor import Tensor
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode,
                        is_grad_enabled, is_inference_mode_enabled)
from .engine_api import backward, grad
from .anomaly import detect_anomaly, set_detect_anomaly, is_anomaly_enabled
from . import view_nodes as _view_nodes

Node = _E.Node
AccumulateGrad = _E.AccumulateGrad

# The core's hooks into this package are connected in cygrad/_wiring.py.


def _grad_fn(self):
    """The node that produced this tensor (None for leaves)."""
    if self._base is not None and self._grad_fn is not None and self._view_version != self._version:
        _view_nodes.refresh_view(self)
        self._view_version = self._version
    if self._grad_fn is not None:
        # A hook added to this node may refer back to this tensor; the cyclic GC can
        # free such a cycle only if it sees the tensor (they start untracked).
        _C._gc_track(self)
    return self._grad_fn


Tensor.grad_fn = property(_grad_fn)

__all__ = ["Function", "FunctionCtx", "once_differentiable", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "backward", "grad", "detect_anomaly",
           "set_detect_anomaly", "Node"]
from . import graph  # noqa: E402
from .trace import trace  # noqa: E402
from .gradcheck import gradcheck, gradgradcheck  # noqa: E402
from . import forward_ad, functional  # noqa: E402,F401
