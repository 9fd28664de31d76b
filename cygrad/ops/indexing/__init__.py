"""Indexing ops, as a package (its single module moved to :mod:`.advanced`, to be split
into one module per family).

Examples
--------
>>> import cygrad
>>> from cygrad.ops import indexing
>>> indexing.where(cygrad.tensor([True, False]), 1.0, 0.0).tolist()
[1.0, 0.0]
"""
from .advanced import *  # noqa: F401,F403
from .advanced import (__all__, Gather, Index, IndexAdd, IndexCopy, IndexFill,  # noqa: F401
                       IndexFillTensor, IndexPut, IndexScatter, IndexSelect, MaskedFill,
                       MaskedFillTensor, MaskedSelect, Put, Scatter, ScatterAdd, ScatterReduce,
                       ScatterValue, ScatterWithReduce, Take, Where, _IndexPlan, _Pad,
                       _getitem_hook, _plan_index, _setitem_hook, _warned, index_add_,
                       index_copy_, index_fill_, index_put_, masked_fill_, put_, scatter_,
                       scatter_add_, scatter_reduce_)
