"""The CPU backend: fills the kernel table (:mod:`cygrad._core.dispatch`) with the
CPU's primitive kernels, one module per op family.

C kernels come from the compiled modules of ``cygrad/_core``; where NumPy is still
the best CPU implementation of a primitive, the NumPy call lives here and nowhere
above the array layer (``cygrad/ops`` asks the table, never NumPy). A kernel takes
and returns tensors plus plain Python values; the op that calls it has already
checked its arguments and records autograd itself.

Each family module registers its kernels when imported; importing this package
imports them all (``dispatch.kernel`` does so on first use).
"""
# (family modules are imported below, one line each)
from . import shape  # noqa: F401
from . import creation  # noqa: F401
from . import indexing  # noqa: F401
from . import reduction  # noqa: F401
from . import linalg  # noqa: F401
from . import conv  # noqa: F401
from . import elementwise  # noqa: F401
from . import fft  # noqa: F401
from . import random  # noqa: F401
from . import special  # noqa: F401
from . import tensorops  # noqa: F401
from . import optim  # noqa: F401
from . import rnn  # noqa: F401
from . import fused  # noqa: F401
