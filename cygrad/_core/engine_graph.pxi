# The engine's bookkeeping: root edges, dependency counts, what autograd.grad
# captures, which nodes are needed, the gradient buffers; included by engine.pyx.

# ------------------------------------------------------------- the engine's helpers

cdef list _root_edges(tuple roots):
    """(node, output number) where each root's gradient enters the graph."""
    cdef list edges = []
    cdef int i
    for i in range(len(roots)):
        edge = gradient_edge(roots[i])
        if edge[0] is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn")
        edges.append(edge)
    return edges


cdef dict _count_dependencies(list root_edges, _Capture capture):
    """For each node reachable from the roots (and needed, if capturing), the number of
    edges that lead into it: how many gradients it waits for. Iterative, so a graph
    of any depth fits."""
    cdef dict deps = {}
    cdef list stack = []
    cdef Node node, child
    for edge in root_edges:
        if edge[0] not in deps:
            deps[edge[0]] = 0
            stack.append(edge[0])
    while stack:
        node = stack.pop()
        if capture is not None and not capture.needs(node):
            continue
        for edge in node.next_functions:
            child = edge[0]
            if child is None or (capture is not None and not capture.needs(child)):
                continue
            if child in deps:
                deps[child] += 1
            else:
                deps[child] = 1
                stack.append(child)
    return deps


cdef list _incoming(Node node, dict buffers, _Capture capture):
    """The summed gradients of ``node``'s outputs, after tensor hooks; captured if an
    input of ``autograd.grad`` sits there."""
    cdef int nr
    grads = buffers.pop(node, None) or [None]
    for nr in range(len(grads)):
        if grads[nr] is not None:
            grads[nr] = _run_tensor_hooks(node, nr, grads[nr])
    if capture is not None:
        capture.take(node, grads)
    return grads


cdef class _Capture:
    """``inputs=``: which tensors' gradients to keep, and the part of the graph
    (nodes on a path from a root to one of them) that has to run for them."""
    cdef dict slots        # (node, nr) -> indices into grads
    cdef list grads
    cdef set needed

    def __init__(self, tuple inputs, list root_edges):
        cdef int i
        self.slots = {}
        self.grads = [None] * len(inputs)
        for i in range(len(inputs)):
            inp = inputs[i]
            if not isinstance(inp, TensorBase) or not (<TensorBase>inp)._requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            self.slots.setdefault(gradient_edge(inp), []).append(i)
        self.needed = _needed_nodes([e[0] for e in root_edges], {k[0] for k in self.slots})

    cdef bint needs(self, Node node):
        return node in self.needed

    cdef bint wants(self, Node node):
        return (node, 0) in self.slots

    cdef bint ends_at(self, Node node):
        return not _has_needed_child(node, self.needed)

    cdef void take(self, Node node, list grads) except *:
        cdef int nr
        for nr in range(len(grads)):
            key = (node, nr)
            if key in self.slots:
                for i in self.slots[key]:
                    self.grads[i] = grads[nr]

    cdef list result(self, bint allow_unused):
        if not allow_unused and any([g is None for g in self.grads]):
            raise RuntimeError("One of the differentiated Tensors appears to not have been "
                               "used in the graph. Set allow_unused=True if this is the "
                               "desired behavior.")
        return self.grads


cdef bint _has_needed_child(Node node, set needed):
    for edge in node.next_functions:
        if edge[0] is not None and edge[0] in needed:
            return True
    return False


cdef set _needed_nodes(list roots, set targets):
    """Nodes on some path from a root to a target (post-order walk, no recursion)."""
    cdef dict state = {}      # node -> True (needed) / False
    cdef list stack = [(r, False) for r in roots]
    while stack:
        node, expanded = stack.pop()
        if node is None:
            continue
        if expanded:
            state[node] = node in targets or any(
                [state.get(e[0], False) for e in (<Node>node).next_functions if e[0] is not None])
            continue
        if node in state:
            continue
        state[node] = False    # placeholder while visiting
        stack.append((node, True))
        for e in (<Node>node).next_functions:
            if e[0] is not None and e[0] not in state:
                stack.append((e[0], False))
    return {n for n, ok in state.items() if ok}


cdef void _add_to_buffer(dict buffers, Node node, int nr, object grad) except *:
    cdef list buf = buffers.get(node)
    cdef int size
    if buf is None:
        size = len(node._output_meta) if node._output_meta is not None else 1
        if nr >= size:
            size = nr + 1
        buf = [None] * size
        buffers[node] = buf
    if buf[nr] is None:
        buf[nr] = grad
    elif not (_sum_in_place and not grad_enabled() and _add_in_place(buf[nr], grad)):
        buf[nr] = buf[nr] + grad     # several uses of one output: sum the contributions
