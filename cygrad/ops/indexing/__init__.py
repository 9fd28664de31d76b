"""Indexing: advanced ``t[idx]`` / ``t[idx] = v`` and the gather/scatter family.

One module per family; this package re-exports them all (``cygrad.ops.indexing.X``
keeps working for every name it had as a single module):

- :mod:`.advanced`: ``t[idx]``, ``t[idx] = v`` (the core's indexing hooks) and
  ``index_put``;
- :mod:`.gather_scatter`: ``gather``, ``scatter``, ``scatter_add``, ``take_along_dim``;
- :mod:`.scatter_reductions`: ``scatter_reduce`` and its gradients;
- :mod:`.index_ops`: ``index_select``, ``index_fill``, ``index_copy``, ``index_add``;
- :mod:`.take_put`: ``take``, ``put``;
- :mod:`.masked`: ``masked_fill``, ``masked_select``;
- :mod:`.where_nonzero`: ``where``, ``nonzero``, ``argwhere``;
- :mod:`._common` and :mod:`._autograd`: the helpers they share.

Every differentiable op has its ``Function`` right next to it; an in-place op
(``index_add_``...) has the in-place form of that Function (``IndexAddInplace``: the
same node, its forward writing into the input and marking it dirty).

Examples
--------
>>> import cygrad
>>> from cygrad.ops import indexing
>>> indexing.where(cygrad.tensor([True, False]), 1.0, 0.0).tolist()
[1.0, 0.0]
"""
from ._autograd import _Pad
from .advanced import (Index, IndexPut, IndexPutInplace, IndexScatter, _IndexPlan, _getitem_hook,
                       _plan_index, _setitem_hook, index_put, index_put_)
from .gather_scatter import (Gather, Scatter, ScatterAdd, ScatterAddInplace, ScatterInplace,
                             ScatterValue, ScatterValueInplace, ScatterWithReduce,
                             ScatterWithReduceInplace, TakeAlongDim, _warned, gather, scatter,
                             scatter_, scatter_add, scatter_add_, take_along_dim)
from .index_ops import (IndexAdd, IndexAddInplace, IndexCopy, IndexCopyInplace, IndexFill,
                        IndexFillInplace, IndexFillTensor, IndexFillTensorInplace, IndexSelect,
                        index_add, index_add_, index_copy, index_copy_, index_fill, index_fill_,
                        index_select)
from .take_put import Put, PutInplace, Take, put, put_, take
from .masked import (MaskedFill, MaskedFillInplace, MaskedFillTensor, MaskedFillTensorInplace,
                     MaskedSelect, masked_fill, masked_fill_, masked_select)
from .where_nonzero import Where, argwhere, nonzero, where
from .scatter_reductions import ScatterReduce, ScatterReduceInplace, scatter_reduce, scatter_reduce_

__all__ = ["index_select", "gather", "scatter", "scatter_add", "scatter_reduce", "masked_fill",
           "masked_select", "where", "nonzero", "argwhere", "take", "take_along_dim",
           "index_fill", "index_copy", "index_add", "index_put", "put"]
