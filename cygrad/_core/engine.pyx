"""The autograd engine: graph nodes, saved tensors, and the backward pass.

Reading guide (the story of one ``loss.backward()``):

1. While the forward pass runs, every differentiable op that sees an input requiring
   grad calls ``function_apply``: it runs the op's ``forward`` with recording off,
   then creates a **node** (the op's ``ctx``) whose ``next_functions`` point at the
   nodes that produced its inputs. Leaves get an ``AccumulateGrad`` node.
2. Tensors the backward will need are wrapped in ``SavedTensor``, which remembers the
   tensor's version counter so that a later in-place change is caught.
3. ``run_backward`` counts, for each node reachable from the root, how many edges
   point at it (its *dependencies*). A node is ready when all the gradients flowing
   into it have arrived; gradients for the same input are summed in a buffer.
4. Ready nodes run their ``backward``; ``AccumulateGrad`` adds into ``leaf.grad``.
   Saved tensors are released after use unless ``retain_graph=True``.

The graph has no reference cycles: tensors point at their ``grad_fn``, nodes point at
the nodes before them and at saved tensors — never back at their outputs (a saved
output is kept as a detached alias). Reference counting frees a graph as soon as the
last tensor using it goes.
"""
cimport cython
import traceback
import warnings
import weakref
from _thread import allocate_lock as _Lock

import numpy as np

from .tensor cimport (TensorBase, grad_enabled, set_grad_enabled, set_fw_enabled, new_view,
                      set_apply_hook)
from . import tensor as _T

cdef extern from *:
    """
    /* Run a base type's tp_new for a subtype directly (no __init__, no lookups). */
    static PyObject* cg_engine_tp_new(PyObject* base, PyObject* sub, PyObject* args) {
        return ((PyTypeObject*)base)->tp_new((PyTypeObject*)sub, args, NULL);
    }
    """
    object cg_engine_tp_new(object base, object sub, object args)

cdef tuple _EMPTY = ()

cdef extern from "Python.h":
    void PyObject_GC_Track(void* op)
    int PyObject_GC_IsTracked(object op)


cdef inline void _gc_track(TensorBase t) noexcept:
    """Let the cyclic GC see ``t``. Tensors start untracked (see tensor._alloc_tensor)
    and stay so on the hot path (tracking every op's output costs 10-18% per op), but
    an attribute of a custom Function's ctx can refer back to the node's output
    (``out -> grad_fn -> ctx.out -> out``): a cycle only the GC frees, and only if it
    can see the tensor. (``Tensor.grad_fn`` tracks the tensor it is read from, which
    covers hooks added to a node.)"""
    if not PyObject_GC_IsTracked(t):
        PyObject_GC_Track(<void*>t)

from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.ref cimport Py_INCREF, Py_REFCNT


cdef tuple shape_of(TensorBase t):
    """t's shape as a plain tuple, built in C (node metadata is made on every op, and a
    fresh output has no cached ``Size`` yet)."""
    cdef tuple shape
    cdef object v     # must be an object: a C integer here makes the INCREF and the
                      # SET_ITEM act on two different temporaries (issue 6)
    cdef int i
    if t._shape_obj is not None:
        return <tuple>t._shape_obj
    shape = PyTuple_New(t._ndim)
    for i in range(t._ndim):
        v = t._shape[i]
        # PyTuple_SET_ITEM steals a reference; v keeps its own, released by Cython.
        Py_INCREF(v)
        PyTuple_SET_ITEM(shape, i, v)
    return shape


cdef inline TensorBase detach(TensorBase t):
    """An alias of t (same memory and version counter) with no autograd history."""
    cdef TensorBase d = new_view(t, t._ndim, t._shape, t._strides, t._offset)
    d._base = None
    return d

# ------------------------------------------------------------------ grad mode & anomaly

cdef bint _anomaly_enabled = False
cdef bint _anomaly_check_nan = True


def set_detect_anomaly(bint mode, bint check_nan=True):
    """Turn anomaly detection on or off (see ``detect_anomaly``)."""
    global _anomaly_enabled, _anomaly_check_nan
    _anomaly_enabled = mode
    _anomaly_check_nan = check_nan


def is_anomaly_enabled():
    return _anomaly_enabled


def is_anomaly_check_nan_enabled():
    return _anomaly_check_nan


# ------------------------------------------------------------------------- saved tensors

_FREED_MSG = ("Trying to backward through the graph a second time (or directly access saved "
              "tensors after they have already been freed). Saved intermediate values of the "
              "graph are freed when you call .backward() or autograd.grad(). Specify "
              "retain_graph=True if you need to backward through the graph a second time or if "
              "you need to access saved tensors after calling backward.")


cdef str _describe(TensorBase t):
    return f"[cygrad.{t.dtype.name} {list(t.shape)}]"


@cython.final
cdef class SavedTensor:
    """A tensor saved for backward, with the version it had when it was saved.

    A saved *output* of the node is stored as a detached alias (no ``grad_fn``), which
    is what keeps nodes from referencing their own outputs (a cycle); on unpacking it
    is re-attached to the node so double backward still sees the graph.
    """
    cdef object data
    cdef Py_ssize_t version
    cdef bint is_output
    cdef int output_nr
    cdef bint requires_grad
    cdef object producer      # node that produced a saved input (for error messages)
    cdef object tangent       # a saved output's forward-mode tangent (forward-over-reverse)

    @staticmethod
    cdef SavedTensor make(TensorBase t, int output_nr):
        cdef SavedTensor s = SavedTensor.__new__(SavedTensor)
        s.version = t._storage.version
        s.requires_grad = t._requires_grad
        s.output_nr = output_nr
        if output_nr >= 0:
            s.is_output = True
            s.data = detach(t)
            s.tangent = t._fw_grad
        else:
            s.data = t
            s.producer = t._grad_fn
        return s

    cdef object unpack(self, Node owner):
        cdef TensorBase t, alias
        if self.data is None:
            raise RuntimeError(_FREED_MSG)
        t = <TensorBase>self.data
        if t._storage.version != self.version:
            producer = owner if self.is_output else self.producer
            where = (f", which is output {self.output_nr if self.is_output else t._output_nr} of "
                     f"{producer.name()},") if producer is not None else ","
            raise RuntimeError(
                f"one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: {_describe(t)}{where} is at version {t._storage.version}; "
                f"expected version {self.version} instead (the tensor was saved by "
                f"{owner.name()}). Hint: enable anomaly detection to find the operation that "
                f"failed to compute its gradient, with cygrad.autograd.set_detect_anomaly(True).")
        if self.is_output and self.requires_grad:
            alias = detach(t)
            alias._grad_fn = owner
            alias._output_nr = self.output_nr
            alias._requires_grad = True
            if self.tangent is not None and _tangent_restorer is not None:
                _tangent_restorer(alias, self.tangent)
            return alias
        return t


cdef object _tangent_restorer = None

def _set_tangent_restorer(fn):
    """cygrad.autograd.forward_ad: ``fn(alias, tangent)`` gives an unpacked saved output
    its tangent back while the dual level that made it is still open."""
    global _tangent_restorer
    _tangent_restorer = fn


# ---------------------------------------------------------------------------------- nodes

class RemovableHandle:
    """Returned by ``register_hook``; ``handle.remove()`` unregisters the hook."""

    def __init__(self, hooks_list, hook):
        self._list = hooks_list
        self._hook = hook

    def remove(self):
        try:
            self._list.remove(self._hook)
        except ValueError:
            pass


@cython.trashcan(True)    # freeing a 100 000-node chain must not recurse 100 000 deep in C
cdef class Node:
    """A node of the backward graph: the ``grad_fn`` of the tensors an op produced.

    ``next_functions`` holds one ``(node, output_nr)`` pair per differentiable input of
    the op: where that input's gradient goes next (``(None, 0)`` for inputs that
    need no gradient).
    """
    cdef public tuple next_functions
    cdef public list _saved            # SavedTensor, or None once released
    cdef public bint _saved_released
    cdef public list _input_meta       # per next_functions slot: (shape, dtype) or None
    cdef public list _output_meta      # per forward output: (shape, dtype)
    cdef public dict _pre_hooks        # output_nr -> [hook]  (tensor hooks of non-leaf outputs)
    cdef public dict _retain_grad      # output_nr -> weakref of the tensor that retains grad
    cdef public list _hooks            # node hooks: fn(grad_inputs, grad_outputs)
    cdef public object _forward_stack  # anomaly mode: where the forward op was called
    cdef public bint _materialize_grads
    cdef public object metadata
    cdef object __weakref__

    def name(self):
        """The node's class name, PyTorch's (``MulBackward0``, ``AccumulateGrad`` ...).

        Examples
        --------
        >>> import cygrad
        >>> x = cygrad.ones(2, requires_grad=True)
        >>> (x * 2).grad_fn.name()
        'MulBackward0'
        """
        return type(self).__name__

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self))}>"

    def backward_apply(self, tuple grads):
        """Compute the gradients of the inputs from those of the outputs."""
        raise NotImplementedError(f"{self.name()} does not implement backward")

    def apply(self, *grads):
        """Call the node on output gradients, as the engine does (public, for teaching)."""
        return self.backward_apply(grads)

    def register_hook(self, fn):
        """Run ``fn(grad_inputs, grad_outputs)`` after this node computes its gradients."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        return RemovableHandle(self._hooks, fn)

    def register_prehook(self, fn):
        """Run ``fn(grad_outputs)`` before this node runs; it may return replacements."""
        hooks = self._pre_hooks.setdefault(-1, []) if self._pre_hooks is not None else None
        if hooks is None:
            self._pre_hooks = {-1: []}
            hooks = self._pre_hooks[-1]
        hooks.append(fn)
        return RemovableHandle(hooks, fn)

    cpdef release_saved(self):
        """Drop saved tensors (done after backward unless ``retain_graph=True``)."""
        if self._saved is not None:
            self._saved = None
            self._saved_released = True

    @property
    def saved_tensors(self):
        if isinstance(self, FunctionCtx) and (<FunctionCtx>self)._in_jvp:
            return (<FunctionCtx>self)._saved_for_jvp()
        if self._saved_released:
            raise RuntimeError(_FREED_MSG)
        if self._saved is None:
            return ()
        return tuple([(<SavedTensor>s).unpack(self) if s is not None else None
                      for s in self._saved])

    @property
    def _saved_tensors_info(self):
        """(shape, dtype, version) of each saved tensor, for graph drawing and traces."""
        cdef SavedTensor st
        if self._saved is None:
            return ()
        info = []
        for s in self._saved:
            if s is None:
                info.append(None)
            else:
                st = <SavedTensor>s
                info.append((tuple(st.data.shape), st.data.dtype, st.version))
        return tuple(info)


@cython.final
cdef class AccumulateGrad(Node):
    """The node of a leaf tensor: adds the incoming gradient into ``variable.grad``.

    The leaf owns its AccumulateGrad (created once, on first use) and the node only
    points back at the leaf weakly: no reference cycle, and no new node per op."""
    cdef object _variable_ref
    # Serialises updates of the leaf's .grad: adding into a large grad releases the GIL,
    # so two threads' backward passes would otherwise lose each other's sums (issue 6).
    cdef object _lock

    @property
    def variable(self):
        """The leaf tensor (None once it has been freed)."""
        return self._variable_ref()

    def name(self):
        return "AccumulateGrad"


cdef AccumulateGrad _grad_accumulator(TensorBase leaf):
    """The leaf's AccumulateGrad node, created on first use and kept by the leaf."""
    cdef AccumulateGrad acc = <AccumulateGrad>leaf._grad_acc
    if acc is None:
        acc = AccumulateGrad.__new__(AccumulateGrad)
        acc._variable_ref = weakref.ref(leaf)
        acc._lock = _Lock()
        acc.next_functions = ()
        leaf._grad_acc = acc
    return acc


cdef tuple gradient_edge(object x):
    """Where the gradient of tensor ``x`` must go: ``(node, output_nr)``."""
    cdef TensorBase t
    if not isinstance(x, TensorBase):
        return (None, 0)
    t = <TensorBase>x
    if not t._requires_grad:
        return (None, 0)
    if t._base is not None and t._view_version != t._storage.version and t._grad_fn is not None:
        _refresh_view(t)
    if t._grad_fn is None:
        return (_grad_accumulator(t), 0)
    return (t._grad_fn, t._output_nr)


def _gradient_edge(x):
    return gradient_edge(x)


cdef object _view_refresher = None

def _set_view_refresher(fn):
    """cygrad.autograd.view_nodes regenerates a view's grad_fn after its base changed in place."""
    global _view_refresher
    _view_refresher = fn

cdef void _refresh_view(TensorBase t) except *:
    if _view_refresher is not None:
        _view_refresher(t)
    t._view_version = t._storage.version


# --------------------------------------------------------------------- Function support

cdef class FunctionCtx(Node):
    """Base of the ``ctx`` objects given to ``Function.forward``/``backward``.

    Every ``Function`` subclass gets its own subclass of this (``MulBackward0``...),
    so a ctx *is* the graph node, as in PyTorch.
    """
    cdef public tuple needs_input_grad
    cdef public tuple _to_save
    cdef public object _dirty
    cdef public object _non_differentiable
    cdef public tuple _tensor_positions   # which forward args were tensors
    cdef public tuple _view_geometry      # views: (base shape, strides, offset, view shape, strides, offset)
    cdef public tuple _to_save_fw         # ctx.save_for_forward(...)
    cdef public bint _in_jvp              # jvp is running: saved_tensors serves it

    cdef tuple _saved_for_jvp(self):
        """What ``ctx.saved_tensors`` gives a ``jvp``: the tensors of
        ``save_for_forward`` if forward called it, else those of ``save_for_backward``
        (jvp runs before the node is recorded, so they are not wrapped yet)."""
        if self._to_save_fw is not None:
            return self._to_save_fw
        return self._to_save if self._to_save is not None else ()

    def save_for_backward(self, *tensors):
        """Save tensors (or None) for ``backward``; read them back via ``ctx.saved_tensors``.

        Saving through this method (not ``ctx.x = x``) is what lets cygrad detect
        in-place changes to them and free them after backward."""
        for t in tensors:
            if t is not None and not isinstance(t, TensorBase):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"is of type {type(t).__name__}")
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        """Save tensors (or None) for ``jvp`` (forward-mode AD), which reads them back
        through ``ctx.saved_tensors``; as ``torch.autograd.function`` ctx.

        Examples
        --------
        >>> import cygrad
        >>> import cygrad.autograd.forward_ad as fwAD
        >>> class Square(cygrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_forward(x)
        ...         return x * x
        ...     @staticmethod
        ...     def jvp(ctx, t):
        ...         x, = ctx.saved_tensors
        ...         return 2 * x * t
        >>> with fwAD.dual_level():
        ...     y = Square.apply(fwAD.make_dual(cygrad.tensor([3.0]), cygrad.tensor([1.0])))
        ...     fwAD.unpack_dual(y).tangent.tolist()
        [6.0]
        """
        for t in tensors:
            if t is not None and not isinstance(t, TensorBase):
                raise TypeError("save_for_forward expects all arguments to be tensors; but "
                                f"got an argument of type {type(t).__name__}")
        self._to_save_fw = tensors

    def mark_dirty(self, *tensors):
        """Declare inputs that ``forward`` modified in place."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that are not differentiable (e.g. indices)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, bint value):
        """If False, ``backward`` may receive None for outputs that got no gradient."""
        self._materialize_grads = value

    def backward_apply(self, tuple grads):
        cls = type(self)._forward_cls
        return cls.backward(self, *grads)


def function_apply(cls, *args, **kwargs):
    """``cls.apply(*args)``: run ``cls.forward`` and, if any input requires grad while
    grad mode is on, record a node for it."""
    return apply_function(cls, args, kwargs)


# Small tuples reused by every call (allocation shows up at this call rate).
cdef tuple _NEEDS = ((), (False,), (True,), (False, False), (True, False), (False, True),
                     (True, True))
cdef tuple _POSITIONS = ((), (0,), (0, 1), (0, 1, 2))


cdef FunctionCtx _new_ctx(object cls, tuple args, int* flags):
    """The node ``cls.apply(*args)`` would record, with ``needs_input_grad`` and the
    tensor positions filled in; ``flags``: bit 0 record, bit 1 forward-mode tangents."""
    cdef FunctionCtx ctx = <FunctionCtx>cg_engine_tp_new(FunctionCtx, cls._backward_cls, _EMPTY)
    cdef Py_ssize_t i, n = len(args), ntensors = 0
    cdef bint dual = False, in_order = True
    cdef int mask = 0
    for i in range(n):
        a = args[i]
        if isinstance(a, TensorBase):
            if ntensors != i:
                in_order = False
            ntensors += 1
            if (<TensorBase>a)._requires_grad:
                mask |= 1 << i
            if (<TensorBase>a)._fw_grad is not None:
                dual = True
    flags[0] = (mask != 0 and grad_enabled()) | ((dual and _T._is_fw_grad_enabled()) << 1)
    if n <= 2:
        ctx.needs_input_grad = <tuple>_NEEDS[(1 << n) - 1 + mask]
    else:
        ctx.needs_input_grad = tuple([bool(mask & (1 << i)) for i in range(n)])
    if in_order and ntensors <= 3:
        ctx._tensor_positions = <tuple>_POSITIONS[ntensors]
    else:
        ctx._tensor_positions = tuple([i for i in range(n) if isinstance(args[i], TensorBase)])
    ctx._materialize_grads = True
    return ctx


cdef object _run_forward(FunctionCtx ctx, object cls, tuple args, dict kwargs):
    """``cls.forward(ctx, *args)``, computing plain values: no recording and no tangents
    for the ops it calls (the node being built records them all)."""
    cdef Py_ssize_t n = len(args)
    cdef bint was_enabled = grad_enabled()
    cdef bint fw_was = set_fw_enabled(False)
    set_grad_enabled(False)
    try:
        if kwargs:
            return cls.forward(ctx, *args, **kwargs)
        fast = _fast_forwards.get(cls) if n <= 2 else None
        if fast is not None and len(ctx._tensor_positions) == n:
            return _fast_forward(ctx, <tuple>fast, args)
        return cls.forward(ctx, *args)
    finally:
        set_grad_enabled(was_enabled)
        set_fw_enabled(fw_was)


cdef object apply_function(object cls, tuple args, dict kwargs):
    cdef int flags = 0
    cdef FunctionCtx ctx = _new_ctx(cls, args, &flags)
    outputs = _run_forward(ctx, cls, args, kwargs)
    if flags & 2 and _forward_ad_hook is not None:
        outputs = _forward_ad_hook(cls, ctx, args, outputs)
    if flags & 1:
        outputs = _record(ctx, args, ctx._tensor_positions, outputs)
    if flags and ctx._dirty is not None and _dirty_view_hook is not None:
        # a view written in place: its base records the write (and takes its tangent)
        for t in ctx._dirty:
            if isinstance(t, TensorBase) and (<TensorBase>t)._base is not None and (
                    (<TensorBase>t)._requires_grad or (<TensorBase>t)._fw_grad is not None):
                _dirty_view_hook(t)
    return outputs


cdef object _dirty_view_hook = None

def _set_dirty_view_hook(fn):
    """cygrad.autograd.inplace: ``fn(view)`` after a Function marked a view dirty, so
    that the view's base records the write too (``CopySlices``, as PyTorch)."""
    global _dirty_view_hook
    _dirty_view_hook = fn


def apply_inplace(cls, TensorBase target, tuple args, bint write=True):
    """``target.op_(...)`` recorded as the same Function ``cls`` as ``op(...)``: what a
    user's Function does when its forward writes into an input and calls
    ``ctx.mark_dirty`` on it (``args[0]`` is ``target``).

    The forward computes the result from the inputs as they are. Before the result
    is written into ``target``, a saved ``target`` is swapped for a copy of its old
    value (backward needs the old value, and the write would make the saved tensor
    stale) and a saved result for ``target`` itself. Then ``target`` is marked dirty,
    so the node becomes its ``grad_fn``, as for any dirty output.

    With ``write=False`` the result is returned as a new output instead (the saved
    ``target`` is still an old copy): for a view, whose base records the write
    itself (``CopySlices``).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([1.0, 2.0], requires_grad=True).clone()
    >>> x.mul_(3).grad_fn.name()
    'MulBackward0'
    """
    cdef int flags = 0
    cdef FunctionCtx ctx = _new_ctx(cls, args, &flags)
    cdef TensorBase result = <TensorBase?>_run_forward(ctx, cls, args, None)
    cdef list saved
    cdef Py_ssize_t i
    if ctx._to_save is not None:
        saved = list(ctx._to_save)
        for i in range(len(saved)):
            if saved[i] is target:
                saved[i] = detach(target).clone()
            elif saved[i] is result and write:
                saved[i] = target
        ctx._to_save = tuple(saved)
    if ctx._to_save_fw is not None:
        ctx._to_save_fw = tuple([detach(target).clone() if x is target else x
                                 for x in ctx._to_save_fw])
    if not write:
        if flags & 2 and _forward_ad_hook is not None:
            result = _forward_ad_hook(cls, ctx, args, result)
        return _record(ctx, args, ctx._tensor_positions, result) if flags & 1 else result
    if result is not target:        # (a forward may write into target itself: a fill)
        was_enabled = grad_enabled()
        set_grad_enabled(False)
        try:
            _T._copy_into(target, result)
        finally:
            set_grad_enabled(was_enabled)
    target._storage.version += 1
    ctx._dirty = (target,)
    if flags & 2 and _forward_ad_hook is not None:
        _forward_ad_hook(cls, ctx, args, target)
    if not flags & 1:
        return target
    return _record(ctx, args, ctx._tensor_positions, target)


set_apply_hook(apply_function)


# Built-in elementwise Functions whose forward is exactly "run the op's kernel, save
# the input (or output)": the engine does that itself, in C, instead of calling
# the Python ``forward`` (about a microsecond per call). Their Python classes stay
# what users see and what backward/jvp run; the result is the same.
cdef dict _fast_forwards = {}      # Function class -> (arity, ElementwiseOp, saves output)
cdef object _unary_op = _T.unary_op
cdef object _binary_op = _T.binary_op

def _register_fast_forward(cls, int arity, op, bint saves_output):
    """Let the engine run ``cls``'s forward itself (see above); ``cls.forward`` must be
    exactly: compute ``op`` on the tensor inputs, save them (or the output)."""
    _fast_forwards[cls] = (arity, op, saves_output)


cdef object _fast_forward(FunctionCtx ctx, tuple fast, tuple args):
    cdef int arity = fast[0]
    if arity == 1:
        y = _unary_op(fast[1], args[0])
        ctx._to_save = (y,) if fast[2] else args
        return y
    ctx._to_save = args
    return _binary_op(fast[1], args[0], args[1])


cdef object _forward_ad_hook = None

def _set_forward_ad_hook(fn):
    """cygrad.autograd.forward_ad installs ``fn(cls, ctx, args, outputs)``: it computes
    the outputs' tangents (via ``cls.jvp``) when an input carries one."""
    global _forward_ad_hook
    _forward_ad_hook = fn


cdef inline bint _contains(object seq, object x):
    """Identity membership (``x in seq`` would call Tensor.__eq__)."""
    if seq is None:
        return False
    for y in seq:
        if y is x:
            return True
    return False


cdef object _record(FunctionCtx ctx, tuple args, tuple positions, object outputs):
    cdef bint single = not isinstance(outputs, tuple)
    cdef tuple outs = (outputs,) if single else outputs
    cdef Py_ssize_t i, j, nout = len(outs), nin = len(positions)
    cdef list edges = [None] * nin
    cdef list in_meta = [None] * nin
    cdef list out_meta = [None] * nout
    cdef list result = [None] * nout
    cdef TensorBase t
    cdef object dirty = ctx._dirty
    cdef object nondiff = ctx._non_differentiable
    for i in range(nin):
        t = <TensorBase>args[<Py_ssize_t>positions[i]]
        edges[i] = gradient_edge(t)
        if t._requires_grad:
            in_meta[i] = (shape_of(t), t._dtype)
    ctx.next_functions = tuple(edges)
    ctx._input_meta = in_meta
    for i in range(nout):
        o = outs[i]
        if not isinstance(o, TensorBase):
            result[i] = o
            continue
        t = <TensorBase>o
        if _contains(dirty, o):
            if t._grad_fn is None and t._requires_grad and t._base is None:
                raise RuntimeError("a leaf Variable that requires grad is being used in an "
                                   "in-place operation.")
        else:
            for j in range(nin):
                if args[<Py_ssize_t>positions[j]] is o:
                    # an input returned unchanged gets its own identity, as in PyTorch
                    t = detach(t)
                    break
        out_meta[i] = (shape_of(t), t._dtype)
        if t._dtype._category < 2 or _contains(nondiff, o):     # 2, 3: floating point, complex
            t._requires_grad = False
        else:
            t._grad_fn = ctx
            t._output_nr = <int>i
            t._requires_grad = True
            if t._base is not None:
                t._view_version = t._storage.version
        result[i] = t
    ctx._output_meta = out_meta
    if ctx._to_save is not None:
        saved = []
        for s in ctx._to_save:
            if s is None:
                saved.append(None)
                continue
            nr = -1
            for i in range(nout):
                if result[i] is s or outs[i] is s:
                    nr = i
                    break
            saved.append(SavedTensor.make(<TensorBase>s, nr))
        ctx._saved = saved
        ctx._to_save = None
    if _anomaly_enabled:
        ctx._forward_stack = _user_stack()
    if type(ctx)._check_ctx_attrs:
        _warn_tensor_attributes(ctx, result)
    return result[0] if single else tuple(result)


cdef void _warn_tensor_attributes(FunctionCtx ctx, list outputs) except *:
    """A user's forward that stored a tensor as ``ctx.x = x`` gets told why not to,
    and the outputs join the cyclic GC, which can then free the cycle it may make."""
    for name, value in vars(ctx).items():
        if isinstance(value, TensorBase):
            for o in outputs:
                if isinstance(o, TensorBase):
                    _gc_track(<TensorBase>o)
            warnings.warn(
                f"{type(ctx)._forward_cls.__name__}.forward stored a tensor as ctx.{name}. "
                "Use ctx.save_for_backward(...) for tensors that backward needs: saved tensors "
                "are checked for in-place modification (an attribute would silently give a "
                "wrong gradient) and are freed after backward (an attribute holding an output "
                "keeps the whole graph alive through a reference cycle).",
                UserWarning, stacklevel=4)


include "engine_views.pxi"


# ----------------------------------------------------------------------------- the engine

cdef object _engine_observer = None

def _set_observer(fn):
    """cygrad.autograd.trace installs a callback seeing every engine event."""
    global _engine_observer
    _engine_observer = fn


def _get_observer():
    return _engine_observer


cdef inline void _notify(str event, object node, object data) except *:
    if _engine_observer is not None:
        _engine_observer(event, node, data)


# cygrad.profiler times every backward node. Off, the engine pays one C flag test per
# node; on, ``_profile_enter(node)`` opens a span and ``_profile_exit(token)`` closes it.
cdef bint _profiling = False
cdef object _profile_enter = None
cdef object _profile_exit = None

def _set_profiler_hooks(enter, exit):
    """cygrad.profiler installs ``enter(node) -> token`` and ``exit(token)`` around
    each backward node (``None, None`` removes them)."""
    global _profiling, _profile_enter, _profile_exit
    _profile_enter = enter
    _profile_exit = exit
    _profiling = enter is not None


cdef tuple _profiled_call(Node node, list grads, bint create_graph):
    token = _profile_enter(node)
    try:
        return _call_node(node, grads, create_graph)
    finally:
        _profile_exit(token)


cdef void _profiled_accumulate(AccumulateGrad node, object grad, bint create_graph) except *:
    token = _profile_enter(node)
    try:
        _accumulate(node, grad, create_graph)
    finally:
        _profile_exit(token)


cdef object _sum_to(object grad, tuple shape):
    """Reduce a broadcast gradient back to an input's shape."""
    cdef int lead = len(grad.shape) - len(shape)
    dims = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and grad.shape[lead + i] != 1:
            dims.append(lead + i)
    if dims:
        grad = grad.sum(tuple(dims), keepdim=True)
    if lead:
        grad = grad.reshape(shape)
    return grad


cdef bint _expandable(tuple shape, tuple to):
    if len(shape) > len(to):
        return False
    for a, b in zip(reversed(shape), reversed(to)):
        if a != b and a != 1:
            return False
    return True


cdef bint _has_shape(TensorBase t, tuple shape):
    cdef int i
    if t._ndim != len(shape):
        return False
    for i in range(t._ndim):
        if t._shape[i] != <Py_ssize_t>shape[i]:
            return False
    return True


cdef tuple _validate(Node node, object grads):
    """Check a node's returned gradients: count, shapes (reducing broadcasts), dtypes."""
    cdef int n = len(node.next_functions)
    if not isinstance(grads, tuple):
        grads = (grads,)
    cdef tuple g = grads
    if isinstance(node, FunctionCtx):
        positions = (<FunctionCtx>node)._tensor_positions
        nargs = len((<FunctionCtx>node).needs_input_grad)
        if len(g) != nargs:
            if len(g) > nargs and all(x is None for x in g[nargs:]):
                g = g[:nargs]
            else:
                raise RuntimeError(f"function {node.name()} returned an incorrect number of "
                                   f"gradients (expected {nargs}, got {len(g)})")
        g = tuple([g[i] for i in positions])
    elif len(g) != n:
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {n}, got {len(g)})")
    out = []
    for i in range(n):
        gi = g[i]
        meta = node._input_meta[i] if node._input_meta is not None else None
        if gi is None or meta is None:
            out.append(gi if meta is not None else None)
            continue
        if not isinstance(gi, TensorBase):
            raise TypeError(f"function {node.name()} returned a gradient of type "
                            f"{type(gi).__name__} at index {i}; expected a Tensor or None")
        shape, dtype = meta
        if not _has_shape(<TensorBase>gi, <tuple>shape):
            if _expandable(tuple(shape), tuple(gi.shape)):
                gi = _sum_to(gi, tuple(shape))
            else:
                raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index "
                                   f"{i} - got {list(gi.shape)} but expected shape compatible "
                                   f"with {list(shape)}")
        if gi.dtype is not dtype:
            if gi.dtype.is_complex and not dtype.is_complex:
                gi = gi.real            # a real input's gradient is real (PyTorch)
            gi = gi.to(dtype)
        out.append(gi)
    return tuple(out)


cdef str _CYGRAD_DIR = __file__.rsplit("/_core/", 1)[0]

cdef list _user_stack():
    """The Python stack of the current forward call, without cygrad's own frames."""
    return [f for f in traceback.format_stack() if _CYGRAD_DIR not in f]


cdef str _forward_where(Node node):
    if not node._forward_stack:
        return ""
    return ("\nThe forward call that created this node was (most recent call last):\n" +
            "".join(node._forward_stack[-8:]))


cdef void _check_anomaly(Node node, tuple grads) except *:
    for i, g in enumerate(grads):
        if g is not None and g.is_floating_point() and bool(g.isnan().any()):
            where = _forward_where(node)
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               f"output.{where}")


cdef object _run_tensor_hooks(Node node, int nr, object grad):
    cdef list hooks
    if node._pre_hooks is not None and nr in node._pre_hooks:
        hooks = node._pre_hooks[nr]
        for h in list(hooks):
            r = h(grad)
            if r is not None:
                grad = r
    if node._retain_grad is not None and nr in node._retain_grad:
        t = node._retain_grad[nr]()
        if t is not None and grad is not None:
            # retain_grad runs last, after the user's hooks, as in PyTorch
            if t._grad is None:
                t._grad = detach(grad).clone()
            else:
                t._grad = t._grad + detach(grad)
    return grad


# References to a gradient that nothing else holds, as _can_steal sees it: the list
# _incoming returned, the item taken from it for _accumulate, and the reference
# the call holds (run_backward drops each node's returned tuple before the next
# node runs, so the count does not depend on the order nodes ran in).
# tests/test_autograd_engine.py checks both directions: a plain leaf's first
# gradient is kept without a copy, and one a hook or a second leaf also holds is copied.
DEF _UNSHARED_GRAD_REFS = 3


cdef bint _can_steal(object grad):
    """Whether a leaf's first gradient may be ``grad`` itself instead of a copy.

    PyTorch's AccumulateGrad does the same: a gradient that no other object can
    reach (no hook kept it, no other leaf got the same tensor, it is not a view
    of memory something else uses) becomes ``.grad`` as it is, saving a copy per
    parameter per step.
    """
    return Py_REFCNT(grad) == _UNSHARED_GRAD_REFS and _whole_own_memory(grad)


cdef bint _whole_own_memory(object grad):
    """A plain tensor, no view, over all of a storage in cygrad's own memory that
    no other tensor shares, with no autograd state of its own."""
    cdef TensorBase g
    if type(grad) is not _T._tensor_class():
        return False
    g = <TensorBase>grad
    return (Py_REFCNT(g._storage) == 2                 # this tensor + the argument
            and (g._storage.alloc_bytes > 0            # cygrad's own memory, not an ndarray's,
                 # or a block of cygrad's caching device allocator (cygrad/cuda/tensors.py)
                 or getattr(g._storage.owner, "exclusive_device_memory", False))
            and g._is_contig and g._offset == 0
            and g._numel * g._dtype.itemsize == g._storage.nbytes
            and g._base is None and g._grad_fn is None and not g._requires_grad
            and g._fw_grad is None)


cdef void _accumulate(AccumulateGrad node, object grad, bint create_graph) except *:
    var_obj = node._variable_ref()
    if var_obj is None:
        return              # the leaf is gone: there is no .grad to accumulate into
    cdef TensorBase var = <TensorBase>var_obj
    if var._backward_hooks:
        for h in list(var._backward_hooks):
            r = h(grad)
            if r is not None:
                grad = r
    _notify("accumulate", node, grad)
    with node._lock:      # hooks run outside it: a hook may itself call backward
        if var._grad is None:
            if create_graph:
                var._grad = grad
            elif _can_steal(grad):
                var._grad = grad
            else:
                var._grad = detach(grad).clone()    # own, contiguous memory
        elif create_graph:
            var._grad = var._grad + grad
        else:
            was = grad_enabled()
            set_grad_enabled(False)
            try:
                var._grad.add_(grad)
            finally:
                set_grad_enabled(was)
    if var._post_acc_hooks:
        for h in list(var._post_acc_hooks):
            h(var)


def run_backward(tuple roots, tuple root_grads, bint retain_graph, bint create_graph,
                 tuple inputs=None, bint accumulate=True, bint allow_unused=True):
    """Backpropagate from ``roots`` (tensors) seeded with ``root_grads``.

    The algorithm: count, for every node reachable from the roots, how many edges
    lead into it; then run a *ready queue*: a node runs once every gradient flowing
    into it has arrived (its count reached zero), its output gradients summed. Leaves
    end in ``AccumulateGrad``, which adds into ``.grad``.

    With ``inputs`` given (``autograd.grad`` / ``backward(inputs=...)``), only the part
    of the graph that reaches them runs (:class:`_Capture`); their gradients are
    returned, or, if ``accumulate``, added to their ``.grad``. Tensor hooks run as a
    gradient leaves its buffer (:func:`_incoming`); node hooks, anomaly checks and
    the trace observer wrap each node's backward (:func:`_call_node`).
    """
    cdef list root_edges = _root_edges(roots)
    cdef _Capture capture = None if inputs is None else _Capture(inputs, root_edges)
    cdef dict deps = _count_dependencies(root_edges, capture)
    cdef dict buffers = {}
    cdef list ready = []
    cdef Node node, child
    cdef int i, nr
    for i in range(len(root_edges)):
        node, nr = root_edges[i]
        _add_to_buffer(buffers, node, nr, root_grads[i])
    for node in {e[0] for e in root_edges}:
        if deps[node] == 0:
            ready.append(node)

    cdef bint was_enabled = grad_enabled()
    set_grad_enabled(create_graph)          # backward builds a graph only if asked to
    try:
        while ready:
            node = ready.pop()
            grads = _incoming(node, buffers, capture)
            if isinstance(node, AccumulateGrad):
                if grads[0] is not None and accumulate and (capture is None or capture.wants(node)):
                    if _profiling:
                        _profiled_accumulate(<AccumulateGrad>node, grads[0], create_graph)
                    else:
                        _accumulate(<AccumulateGrad>node, grads[0], create_graph)
                continue
            if capture is not None and capture.ends_at(node):
                in_grads = None             # a captured output with nothing needed beyond it
            elif (_sum_in_place and not create_graph and type(node) in _region_nodes
                  and capture is None and not _profiling and _engine_observer is None
                  and not _anomaly_enabled and not node._hooks and node._pre_hooks is None
                  and _add_region(<FunctionCtx>node, grads, buffers)):
                # added into the base's gradient: the node's work is done
                if not retain_graph:
                    node.release_saved()
                child, nr = node.next_functions[0]
                deps[child] -= 1
                if deps[child] == 0:
                    ready.append(child)
                continue
            else:
                in_grads = (_profiled_call(node, grads, create_graph) if _profiling
                            else _call_node(node, grads, create_graph))
            if not retain_graph:
                node.release_saved()
                _notify("release", node, None)
            if in_grads is None:
                continue
            for i in range(len(node.next_functions)):
                child, nr = node.next_functions[i]
                if child is None or (capture is not None and not capture.needs(child)):
                    continue
                if in_grads[i] is not None:
                    _add_to_buffer(buffers, child, nr, in_grads[i])
                deps[child] -= 1
                if deps[child] == 0:
                    ready.append(child)
            # Drop the tuple now: a gradient's only owners are then the buffers, which
            # is what AccumulateGrad's reference count test relies on (_can_steal).
            in_grads = None
    finally:
        set_grad_enabled(was_enabled)
    return None if capture is None else capture.result(allow_unused)


include "engine_graph.pxi"

include "engine_sums.pxi"
