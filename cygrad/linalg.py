"""``cygrad.linalg``: ``torch.linalg``'s functions (every name of PyTorch 2.13's
namespace), differentiable in reverse and forward mode, batched over leading dims.

The code lives in ``cygrad/ops/linalg`` (``linalg_api.py``: factorizations,
inverses, solvers; ``matrix_functions.py``: norms, matrix functions, vector helpers;
``decompositions.py``: the Functions they share with ``cygrad.numpy.linalg``).

Examples
--------
>>> import cygrad
>>> a = cygrad.tensor([[4.0, 1.0], [1.0, 3.0]], dtype=cygrad.float64, requires_grad=True)
>>> cygrad.linalg.det(a).backward()
>>> [[round(v, 12) for v in row] for row in a.grad.tolist()]
[[3.0, -1.0], [-1.0, 4.0]]
"""
from .ops.linalg.linalg_api import *           # noqa: F401,F403
from .ops.linalg.linalg_api import __all__ as _api
from .ops.linalg.matrix_functions import *     # noqa: F401,F403
from .ops.linalg.matrix_functions import __all__ as _functions

__all__ = _api + _functions
