"""Tensor ops added for issue 18: running extremes and log-sum-exp scans
(``scans``), differences and integrals (``calculus``), quantiles (``quantiles``),
searching, counting and histograms (``counting``), index generators and products
(``combinatorics``) and window functions (``windows``).

Each op is one public function with PyTorch's signature; differentiable ones have
their ``Function`` beside them or are compositions of differentiable ops.  The
primitive kernels are in ``cygrad/_core/backend_cpu/tensorops.py``.
"""
from .scans import *  # noqa: F401,F403
from .calculus import *  # noqa: F401,F403
from .quantiles import *  # noqa: F401,F403
from .counting import *  # noqa: F401,F403
from .combinatorics import *  # noqa: F401,F403
from .windows import *  # noqa: F401,F403
from . import scans as _s, calculus as _c, quantiles as _q, counting as _k
from . import combinatorics as _cb, windows as _w

__all__ = _s.__all__ + _c.__all__ + _q.__all__ + _k.__all__ + _cb.__all__ + _w.__all__
from .scatters import *  # noqa: F401,F403,E402
from . import scatters as _sc  # noqa: E402

__all__ = __all__ + _sc.__all__
from .positions import *  # noqa: F401,F403,E402
from . import positions as _pos  # noqa: E402

__all__ = __all__ + _pos.__all__
