"""``cygrad.nn.functional``: functional forms of ops, under PyTorch's names.

Each name here is the same function as elsewhere in cygrad (nothing is
reimplemented), so ``import cygrad.nn.functional as F`` ports PyTorch code that
uses these.

Examples
--------
>>> import cygrad
>>> import cygrad.nn.functional as F
>>> F.pad(cygrad.ones(2), (1, 1)).tolist()
[0.0, 1.0, 1.0, 0.0]
"""
from ..ops.elementwise import relu, sigmoid, tanh
from ..ops.reduction import softmax, log_softmax
from ..ops.shape import pad

__all__ = ["pad", "relu", "sigmoid", "tanh", "softmax", "log_softmax"]
