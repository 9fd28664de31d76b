# Gradient sums in place and region views added into their base's gradient;
# included by engine.pyx.

# ------------------------------------------------- gradients summed into their buffer
#
# When an output feeds several ops, its gradients are summed in the engine's
# buffer. A sum the engine made itself, which nothing else can reach, may take the
# next contribution in place instead of a new tensor each time (the same values:
# ``a + b`` and ``a += b`` round alike). And the gradient of a region view
# (``narrow``, slicing, ``select``, ``diagonal``) is its base's shape, zero outside
# the region: when the base already has a gradient in its buffer, the region's
# gradient is added into that part of it, so ``q, k, v = qkv.split(C, -1)`` costs
# one zero-filled gradient and three slice adds, not three zero-filled gradients
# summed. Only without ``create_graph`` (a graph of the backward must see the ops),
# and only where no hook, observer or anomaly check expects the node to run.

cdef bint _sum_in_place = True
cdef Py_ssize_t _n_in_place = 0, _n_regions = 0     # what _sum_counters reports
cdef set _region_nodes = set()         # backward node classes of the region views
cdef object _region_adder = None       # (buffer, grad, view geometry) -> bool


def _set_sum_in_place(bint on):
    """Sum gradients in the engine's buffers in place (the default) or always out of
    place (tests compare the two). Returns the previous setting."""
    global _sum_in_place
    was = _sum_in_place
    _sum_in_place = on
    return was


def _sum_counters():
    """``{"in_place", "regions"}``: gradients the engine has summed in place, and
    region views' gradients it added into their base's buffer (tests read them)."""
    return {"in_place": _n_in_place, "regions": _n_regions}


def _register_region_view(cls, adder):
    """Let the engine add the gradient of view Function ``cls`` (a region of its
    base) into its base's buffer with ``adder(buffer, grad, geometry)``, which
    returns False when it cannot (cygrad/autograd/view_nodes.py)."""
    global _region_adder
    _region_nodes.add(cls._backward_cls)
    _region_adder = adder


# References to a buffered gradient that nothing else holds, as _owned sees it: its
# slot in the buffer list and the caller's ``buf[nr]``
# (tests/test_engine_sums.py checks both directions, as for _UNSHARED_GRAD_REFS:
# the engine's own sums are written in place, a gradient the user, a hook or
# another buffer also holds never is).
DEF _UNSHARED_BUFFER_REFS = 2


cdef bint _owned(object grad):
    """Whether the engine may write into ``grad``: a plain tensor in cygrad's own
    memory that no other object (a hook, another buffer, a view) can reach."""
    return Py_REFCNT(grad) == _UNSHARED_BUFFER_REFS and _whole_own_memory(grad)


cdef bint _add_in_place(object cur, object grad) except *:
    cdef TensorBase c, g
    if not _owned(cur) or not isinstance(grad, TensorBase):
        return False
    c, g = <TensorBase>cur, <TensorBase>grad
    if (c._dtype is not g._dtype or c._storage.device != g._storage.device
            or not _has_shape(g, shape_of(c))):
        return False
    c.add_(g)
    global _n_in_place
    _n_in_place += 1
    return True


cdef bint _add_region(FunctionCtx node, list grads, dict buffers) except *:
    """A region view's gradient added into its base's buffered gradient; False when
    the base has none yet (or one the engine may not write to)."""
    if grads[0] is None or node.next_functions[0][0] is None:
        return False
    child, nr = node.next_functions[0]
    cdef list buf = buffers.get(child)
    if buf is None or buf[nr] is None or not _owned(buf[nr]):
        return False
    if not _region_adder(buf[nr], grads[0], node._view_geometry):
        return False
    global _n_regions
    _n_regions += 1
    return True


cdef object _UNSET = object()


cdef tuple _call_node(Node node, list grads, bint create_graph):
    cdef int i
    if node._pre_hooks is not None and -1 in node._pre_hooks:
        for h in node._pre_hooks[-1]:
            r = h(tuple(grads))
            if r is not None:
                grads = list(r)
    if node._materialize_grads and node._output_meta is not None:
        device = _UNSET
        for i in range(len(grads)):
            if grads[i] is None and i < len(node._output_meta) and node._output_meta[i] is not None:
                if device is _UNSET:
                    # the outputs of one node share a device: the missing gradients'
                    # zeros go on the device of a gradient that arrived (the meta
                    # records no device); looked up only when one is missing, since
                    # this runs for every node of every backward pass
                    device = next((g.device for g in grads if isinstance(g, TensorBase)), None)
                shape, dtype = node._output_meta[i]
                grads[i] = _T.zeros(shape, dtype=dtype, device=device)
    _notify("run", node, tuple(grads))
    if _anomaly_enabled and node._forward_stack:
        try:
            result = node.backward_apply(tuple(grads))
        except Exception as e:
            # as PyTorch's anomaly mode: say which forward op the failing backward belongs to
            raise type(e)(f"{e}\n(in {node.name()}){_forward_where(node)}") from e
    else:
        result = node.backward_apply(tuple(grads))
    in_grads = _validate(node, result)
    if _anomaly_enabled and _anomaly_check_nan:
        _check_anomaly(node, in_grads)
    if node._hooks:
        for h in node._hooks:
            r = h(in_grads, tuple(grads))
            if r is not None:
                in_grads = tuple(r)
    _notify("done", node, in_grads)
    return in_grads
