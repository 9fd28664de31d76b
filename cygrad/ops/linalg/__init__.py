"""Linear algebra, one module per family (``docs/architecture.md`` has the map):

* ``products``: matmul and its special cases (mm, bmm, mv, dot, vdot), outer,
  inner, tensordot; ``einsum``; ``addmm`` (the ``add*`` family).  Every product
  ends in the ``matmul_into`` primitive (``_common._product_into``).
* ``decompositions``: the LAPACK-backed Functions (``Solve``, ``Inv``, ``Det``,
  ``Slogdet``, ``Cholesky``, ``Eigh``, ``Eig``, ``Svd``, ``Qr``, ``LuFactor``),
  shared by ``cygrad.linalg``, the ``torch``-level names and ``cygrad.numpy.linalg``.
* ``linalg_api``: the functions of ``cygrad.linalg`` (``torch.linalg``'s names).
* ``torch_api``: the ``torch``-level names (``det``, ``inverse``, ``svd`` with
  ``some=``, ``kron``, ``cov``...), also ``Tensor`` methods.

Examples
--------
>>> import cygrad
>>> a = cygrad.tensor([[2.0, 1.0], [1.0, 3.0]])
>>> cygrad.linalg.det(a).item()
5.0
>>> (a @ cygrad.linalg.inv(a)).round().tolist()
[[1.0, 0.0], [0.0, 1.0]]
"""
from .products import *      # noqa: F401,F403
from .products import (Bmm, Dot, Inner, Matmul, Mm, Mv, Outer, Tensordot, Vdot,  # noqa: F401
                       __all__ as _products)
from .einsum import einsum, Einsum  # noqa: F401
from .addmm import *         # noqa: F401,F403
from .addmm import Addbmm, Addmm, Addmv, Addr, Baddbmm, __all__ as _addmm  # noqa: F401
from .torch_api import *     # noqa: F401,F403
from .torch_api import __all__ as _torch_api

__all__ = _products + ["einsum"] + _addmm + _torch_api
