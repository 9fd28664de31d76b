"""The layer classes of ``cygrad.nn``, one family per module."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Identity, Linear, Bilinear
from .flatten import Flatten, Unflatten

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
           "Identity", "Linear", "Bilinear", "Flatten", "Unflatten"]
from .activation import *  # noqa: E402,F401,F403  (ReLU, GELU, Softmax, PReLU...)
from . import activation as _activation  # noqa: E402
__all__ += _activation.__all__
from .loss import *  # noqa: E402,F401,F403  (CrossEntropyLoss, MSELoss...)
from . import loss as _loss  # noqa: E402
__all__ += _loss.__all__
