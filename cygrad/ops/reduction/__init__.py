"""Reductions, scans, sorting and softmax, with PyTorch's signatures and semantics.

Each op is one function and, where it is differentiable, one ``Function``.  The
function checks its arguments once, as PyTorch's parser does, works out the result
dtype the way PyTorch does, and calls ``Xxx.apply`` with the checked arguments (dims
wrapped, dtype resolved); the Function's ``forward`` calls the primitive kernel of
the input's device from the kernel table (``cygrad._core.dispatch``; the CPU kernels
are in ``cygrad/_core/backend_cpu/reduction.py``).  The engine records a node only
when an input requires grad; ``out=`` is filled from the result afterwards, and
refused up front when the op would have to be recorded.  Ops whose results are only
indices, counts or booleans (argmax, argsort, all, count_nonzero, unique...) have no
gradient and call their kernel directly.  ``Tensor.sum``/``amax``/``amin``/``max``/
``min`` try the core's C row reduction first (a full reduction, or one over the last
dim, of a contiguous float tensor without grad) and come back to these functions
otherwise (see ``register``).
Rules shared by the family:

* ``dim`` may be an int (negative counts from the end), a tuple/list of ints, or
  ``None`` (every dim); ``axis=``/``keepdims=`` are accepted as NumPy aliases.
  A 0-d tensor accepts ``dim=0`` and ``dim=-1``.  ``keepdim`` must be a bool.
* ``sum``/``prod``/``cumsum``/``cumprod`` of bool or integer tensors give int64.
* float16/bfloat16 accumulate in float32 and are rounded back at the end.
* max/min/argmax/argmin/sort propagate NaN: NaN counts as larger than everything.

Ops returning two tensors return a named tuple from ``cygrad.return_types``
(``values``, ``indices``), like ``torch.return_types``.

Autograd: every differentiable op has its ``Function`` right below it (forward runs
the kernel, backward is written with cygrad ops so that it is itself
differentiable, jvp pushes a tangent forward).  Most backward formulas share one
idea: put the reduced dims back as size-1 dims (``_Reduced.unreduce``) and broadcast
the output's gradient over the elements that were reduced.  ``max(input, other)``
is PyTorch's elementwise ``maximum``: it goes through the core's elementwise
dispatcher like every binary op, and its Function, ``MaxOther``, is ``Maximum``
under this family's roof.

Layout, one family per module: ``sums`` (sum, nansum, mean, nanmean, prod),
``extrema`` (max, min, amax, amin, aminmax, argmax, argmin), ``statistics`` (var,
std, var_mean, std_mean), ``norms`` (norm), ``logical`` (all, any,
count_nonzero), ``scans`` (cumsum, cumprod), ``softmax`` (softmax, log_softmax,
logsumexp), ``sorting`` (sort, argsort, msort, topk, median, kthvalue, mode,
unique); ``_common`` and ``_autograd`` hold what they share.
"""
from ..._core import engine as _E
from ..._core import tensor as _C
from ._common import return_types
from .sums import (Mean, MeanDim, Nanmean, Nansum, Prod, ProdDim, Sum, SumAll, SumDim, _sum_entry,
                   mean, nanmean, nansum, prod, sum)
from .extrema import (Amax, Amin, Aminmax, MaxAll, MaxDim, MaxOther, MinAll, MinDim, MinOther,
                      _amax_entry, _amin_entry, amax, amin, aminmax, argmax, argmin, max, min)
from .statistics import Std, StdMean, Var, VarMean, std, std_mean, var, var_mean
from .norms import Norm, NuclearNorm, norm
from .logical import all, any, count_nonzero
from .scans import Cumprod, Cumsum, cumprod, cumsum
from .softmax import LogSoftmax, Logsumexp, Softmax, log_softmax, logsumexp, softmax
from .sorting import (Kthvalue, MedianAll, MedianDim, Mode, Sort, Topk, argsort, kthvalue, median,
                      mode, msort, sort, topk, unique)

__all__ = ["return_types", "sum", "mean", "prod", "max", "min", "amax", "amin", "aminmax",
           "argmax", "argmin", "var", "std", "var_mean", "std_mean", "norm", "logsumexp",
           "all", "any", "cumsum", "cumprod", "softmax", "log_softmax", "sort", "argsort",
           "msort", "topk", "unique", "count_nonzero", "median", "kthvalue", "mode",
           "nansum", "nanmean"]


def register():
    """Tensor.sum/amax/amin/max/min have C fast paths in the core; every other case
    comes back to these functions, and ``x.sum()`` of a tensor that requires grad to
    ``SumAll``.  ``max(input, other)``'s forward is exactly ``maximum``'s, which the
    engine may run itself (see ``_register_fast_forward``).  Called once, from
    ``cygrad/_wiring.py``."""
    _C._register_reduction("sum", _sum_entry)
    _C._register_reduction("amax", _amax_entry)
    _C._register_reduction("amin", _amin_entry)
    _C._register_reduction("max", max)
    _C._register_reduction("min", min)
    _C._set_sum_all_function(SumAll)
    for cls in (MaxOther, MinOther):
        _E._register_fast_forward(cls, 2, cls.op, False)
