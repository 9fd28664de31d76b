"""Every place where the core calls back up into Python, connected in one place.

The Cython core (``cygrad/_core``, the array layer) is imported by the op and autograd
layers above it, so it cannot import them when it loads (that would be a cycle), yet a
few of its fast paths must reach them. Those connections are made here, once:

============================  ==================================================
the core needs                 connected to
============================  ==================================================
the class of new tensors       ``cygrad.Tensor`` (``_tensor.py``)
record a view for autograd     ``engine.record_view`` with the view Functions of
                               ``ops/view_functions.py`` (``Permute``, ``Slice`` ...)
an in-place op on a tensor     ``autograd.inplace.elementwise_inplace``: the op's
that requires grad             Function marked dirty (``CopySlices`` on a view)
re-derive a view's history     ``autograd.view_nodes.refresh_view``
a Function marked a view       ``autograd.inplace.rebase_dirty_view`` (its base
dirty                          records ``CopySlices``)
``clone()`` / ``to()`` nodes   ``ops/shape/copying.py``'s ``Clone`` / ``ToCopy``
each elementwise op's          the ``UnaryFunction``/``BinaryFunction`` classes
Function                       (``ops/elementwise/unary.py``, ``binary.py``)
forward-mode AD                ``autograd.forward_ad`` (tangent restorer, jvp hook)
``x[idx]`` with an index       ``ops/indexing/advanced.py`` (get and set hooks)
tensor or several ``...``
``x.sum(dim)`` etc. beyond     ``ops/reduction`` (``register()``)
the C fast path
============================  ==================================================

The core does import upward in a few places that cannot form a cycle: at load time
``tensor.pyx`` imports ``cygrad._device``, and ``dlpack.pyx`` and ``fastpath.pyx``
import ``cygrad._device`` and ``cygrad._tensor`` (which need only the tensor
extension); at call time, inside the methods that need them, ``tensor.pyx`` and
its included ``tensor_views.pxi`` and ``tensor_dispatch.pxi`` import argument parsers from ``cygrad.ops`` (``_argcheck``,
``shape.functional_views``, ``shape.splitting``), ``cygrad.cuda._lazy_init``, the
float16 rounding of a compared number (``ops.elementwise._narrowed``) and NumPy's
``flatten(order)`` (``cygrad._numpy_methods``).

Modules define these functions and classes and do nothing else at import;
``cygrad/__init__.py`` calls :func:`connect_tensor_class` as soon as the Tensor
class exists and :func:`connect` once every op module is imported.  Reading this
file tells a student every way control flows from the core back to Python.

Examples
--------
>>> import cygrad
>>> x = cygrad.ones(2, 3, requires_grad=True)
>>> x.t().grad_fn.name()          # recorded through the view hook
'TBackward0'
"""
from ._core import engine as _E
from ._core import tensor as _C

_connected = False


def connect_tensor_class():
    """New tensors made by the core are ``cygrad.Tensor``."""
    from ._tensor import Tensor
    _C._set_tensor_class(Tensor)


def connect():
    """Connect autograd to the core (idempotent)."""
    global _connected
    if _connected:
        return
    _connected = True
    from .autograd import forward_ad, inplace
    from .autograd import view_nodes
    from .ops import complex as complex_ops
    from .ops import elementwise, indexing, reduction
    from .ops import view_functions
    from .ops.shape import copying

    # views and in-place ops
    _C._set_view_hook(view_nodes.record_view)
    _C._set_inplace_hook(inplace.elementwise_inplace)
    _C._set_view_functions(copying.Clone, copying.ToCopy)
    _E._set_view_refresher(view_nodes.refresh_view)
    _E._set_dirty_view_hook(inplace.rebase_dirty_view)
    view_functions.register()
    complex_ops.register()

    # advanced indexing, and the reductions the core's fast paths hand back
    _C._set_indexing_hooks(indexing._getitem_hook, indexing._setitem_hook)
    reduction.register()

    # the dispatcher reaches each elementwise op's Function through its table row
    elementwise.register()

    # forward mode
    _E._set_tangent_restorer(forward_ad._restore_tangent)
    if forward_ad._set_fw_enabled is not None:
        _E._set_forward_ad_hook(forward_ad._jvp_hook)
