# How a view op records its backward node (the view itself is already made, so no
# Function forward runs): the view Functions by node name; included by engine.pyx.

# ------------------------------------------------------------------------ views

cdef object _view_function = None      # the generic view Function (AsStrided)
cdef dict _view_functions = {}         # node name -> the view Function with that name
cdef tuple _NEEDS_VIEW = (True, False, False, False)    # (base, shape, strides, offset)
cdef tuple _NEEDS_VIEW_1 = (True, False)                # (base, permutation)
cdef tuple _POS_VIEW = (0,)


def _set_view_function(cls):
    """The Function recording a view whose node name has no Function of its own."""
    global _view_function
    _view_function = cls


def _register_view_function(cls):
    """Record views named ``cls._node_name`` (``TransposeBackward0``...) as ``cls``."""
    _view_functions[cls._node_name] = cls


cdef object _view_function_for(str kind):
    cls = _view_functions.get(kind)
    return _view_function if cls is None else cls


cdef tuple _geometry(TensorBase t):
    return (shape_of(t), tuple([t._strides[i] for i in range(t._ndim)]), t._offset)


def record_view(TensorBase base, TensorBase view, str kind, object args=None):
    """The core made ``view`` of ``base``; record it as the view Function named
    ``kind`` (``SliceBackward0``...) would have, without re-creating the view.

    What the Function's ``forward(ctx, base, *args)`` stores on ``ctx`` this sets
    directly: ``ctx._view_geometry`` (base and view shape/strides/offset) and, for the
    views that need more (a permutation), ``ctx.view_args``. Without ``args`` the
    Function's arguments are the view's geometry ``(shape, strides, offset)``."""
    cdef FunctionCtx ctx
    cls = _view_function_for(kind)
    if not (base._requires_grad and grad_enabled()):
        # only a forward-mode tangent to carry: the general path
        if args is None:
            args = (view.shape, view.stride(), view._offset)
        return apply_function(cls, (base,) + args, None)
    ctx = <FunctionCtx>cg_engine_tp_new(FunctionCtx, cls._backward_cls, _EMPTY)
    ctx.needs_input_grad = _NEEDS_VIEW if args is None else _NEEDS_VIEW_1
    ctx._tensor_positions = _POS_VIEW
    ctx._materialize_grads = True
    ctx._view_geometry = _geometry(base) + _geometry(view)
    if args is not None:        # (the region and reshape views read _view_geometry alone)
        ctx.view_args = args
    ctx.next_functions = (gradient_edge(base),)
    ctx._input_meta = [(shape_of(base), base._dtype)]
    ctx._output_meta = [(shape_of(view), view._dtype)]
    view._grad_fn = ctx
    view._output_nr = 0
    view._requires_grad = True
    view._view_version = view._storage.version
    if _anomaly_enabled:
        ctx._forward_stack = _user_stack()
    if base._fw_grad is not None and _forward_ad_hook is not None and _T._is_fw_grad_enabled():
        if args is None:
            args = (view.shape, view.stride(), view._offset)
        return _forward_ad_hook(cls, ctx, (base,) + args, view)
    return view
