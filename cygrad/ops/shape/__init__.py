"""Joining, copying-reshaping and view functions, one family per module:

- :mod:`.joining`: ``cat``/``concat``/``concatenate``, ``stack``, ``hstack``,
  ``vstack``/``row_stack``, ``dstack``, ``column_stack``;
- :mod:`.splitting`: ``unbind``, ``split``, ``chunk``, ``tensor_split``,
  ``hsplit``/``vsplit``/``dsplit``;
- :mod:`.reordering`: ``flip``/``fliplr``/``flipud``, ``roll``, ``rot90``;
- :mod:`.repeating`: ``Tensor.repeat``, ``tile``, ``repeat_interleave``;
- :mod:`.triangular`: ``tril``/``triu`` and their in-place forms;
- :mod:`.padding`: ``pad`` (``cygrad.nn.functional.pad``);
- :mod:`.broadcasting`: ``broadcast_shapes``/``broadcast_tensors``/``broadcast_to``,
  ``atleast_1d/2d/3d``, ``meshgrid``;
- :mod:`.functional_views`: function forms of the core's view methods (``transpose``,
  ``permute``, ``squeeze``, ``narrow``, ``movedim``...), ``ravel``, ``t``, ``clone``;
- :mod:`._common`: the argument, ``out=`` and autograd helpers they share.

Ops that build a new tensor allocate the output once and copy each input into a
view of it (``_C._copy_into(out.narrow(...), src)``); the copy kernel converts
dtypes and follows any strides, so inputs are never copied first.

Autograd: an op that copies elements around has a ``Function`` next to it; the
public function checks its arguments and calls the Function's ``apply`` (the
engine records a node only when autograd needs one; ``out=`` gets the result
copied in).  Its backward moves the gradient back the opposite way: ``cat``'s
gradient is split (narrow views of it), ``flip``'s is flipped, ``roll``'s rolled
back, ``repeat``'s tiles are summed, ``repeat_interleave``'s slices added back, a
padded border is cropped (constant) or added back onto the elements it copied
(reflect/replicate/circular).  Each backward is written with
cygrad ops, so it is differentiable again.  Views (``transpose``, ``expand``,
``broadcast_to``, ``meshgrid``...) need nothing here: the core records every view
of a tensor that requires grad, and the ops built from views and the ops above
(``hstack``, ``tile``, ``atleast_2d``...) are differentiable through them.

Importing this package also registers the Tensor methods the modules define
(``flip``, ``roll``, ``repeat``, ``tile``, ``tril_``...).
"""
# Besides the public functions: the Functions (their node names are tested), the
# methods-only ops (repeat, tril_, triu_), pad (cygrad.nn.functional's) and the
# private helpers other modules import from here (elementwise's _broadcast_pair_error).
from .broadcasting import (_broadcast_pair_error, atleast_1d, atleast_2d, atleast_3d,
                           broadcast_shapes, broadcast_tensors, broadcast_to, meshgrid)
from .joining import (Cat, Stack, cat, column_stack, concat, concatenate, dstack, hstack,
                      row_stack, stack, vstack)
from .padding import ConstantPadNd, _pad_function, _pad_source, pad
from .reordering import Flip, Roll, Rot90, flip, fliplr, flipud, roll, rot90
from .repeating import Repeat, RepeatInterleave, repeat, repeat_interleave, tile
from .splitting import chunk, dsplit, hsplit, split, tensor_split, unbind, vsplit
from .triangular import Tril, TrilInplace, Triu, TriuInplace, tril, tril_, triu, triu_
from .functional_views import (as_strided, clone, diagonal, flatten, movedim, moveaxis, narrow, permute,
                    ravel, reshape, select, squeeze, swapaxes, swapdims, t, transpose,
                    unflatten, unsqueeze)

__all__ = ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "dstack",
           "column_stack", "flip", "fliplr", "flipud", "roll", "rot90", "repeat_interleave",
           "tile", "tril", "triu", "broadcast_tensors", "broadcast_shapes",
           "broadcast_to", "atleast_1d", "atleast_2d", "atleast_3d", "meshgrid", "reshape",
           "transpose", "swapaxes", "swapdims", "permute", "squeeze", "unsqueeze", "flatten",
           "unflatten", "ravel", "movedim", "moveaxis", "narrow", "select", "diagonal",
           "as_strided", "unbind", "split", "tensor_split", "hsplit", "vsplit", "dsplit",
           "chunk", "t", "clone"]
