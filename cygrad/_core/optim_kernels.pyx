"""Fused optimizer updates: Cython front of ``cpu/optim.c``.

Each function updates a list of parameters and their buffers in place with one
C call and the GIL released. Everything is checked here first (CPU, float32 or
float64, C-contiguous, one dtype and shape per parameter and its gradient and
buffers), so the C loop never meets a bad pointer; :func:`fusable` answers
the same question without raising, and the optimizers (``cygrad/optim``) send
a parameter here only when it does. Every tensor written has its storage's
version counter bumped, as an in-place op does, so a graph that saved one of
them refuses to run backward.

Examples
--------
>>> import cygrad
>>> from cygrad._core import optim_kernels
>>> p = cygrad.tensor([1.0, 2.0]); g = cygrad.tensor([0.5, 0.5])
>>> optim_kernels.sgd_([p], [g], [None], [False], 0.1, 0.0, 0.0, 0.0, False, False)
>>> p.tolist()
[0.949999988079071, 1.9500000476837158]
>>> optim_kernels.fusable(p, g), optim_kernels.fusable(p, g.double())
(True, False)
"""
from libc.math cimport pow as c_pow
from libc.stdlib cimport malloc, free

from .dtype cimport DT_FLOAT32, DT_FLOAT64
from .tensor cimport TensorBase, pool_run, cg_chunk_fn

from .._device import CPU as _CPU_DEVICE

cdef extern from "optim.h" nogil:
    ctypedef Py_ssize_t cg_index
    ctypedef void (*cg_optim_pool_fn)(int nchunks, cg_chunk_fn fn, void* ctx) noexcept nogil
    enum:
        CG_OPTIM_SGD
        CG_OPTIM_ADAM
        CG_OPTIM_F32
        CG_OPTIM_F64
    ctypedef struct cg_optim_hyper:
        int kind
        double lr, weight_decay, momentum, dampening, beta1, beta2, eps
        int nesterov, maximize, amsgrad, decoupled
    ctypedef struct cg_optim_item:
        char* param
        const char* grad
        char* buf[3]
        cg_index n
        int dtype
        int first
        double step_size, bc2_sqrt
    int cg_optim_step(const cg_optim_hyper* h, const cg_optim_item* items, cg_index nitems)
    void cg_optim_set_pool(cg_optim_pool_fn run)
    cg_index cg_optim_parallel_min

cg_optim_set_pool(<cg_optim_pool_fn>pool_run)

cdef object _CPU = _CPU_DEVICE

# Releasing the GIL costs a mutex round trip: only worth it for real work.
cdef enum:
    GIL_RELEASE_MIN = 16384


cdef bint _ok(object t, TensorBase like) noexcept:
    """``t`` is a CPU tensor, C-contiguous, of ``like``'s dtype and shape, and
    ``like`` itself is float32 or float64."""
    if not isinstance(t, TensorBase):
        return False
    cdef TensorBase x = <TensorBase>t
    cdef int d
    if x._storage.device is not _CPU or not x._is_contig or x._dtype is not like._dtype:
        return False
    if like._dtype.code != DT_FLOAT32 and like._dtype.code != DT_FLOAT64:
        return False
    if x._ndim != like._ndim:
        return False
    for d in range(x._ndim):
        if x._shape[d] != like._shape[d]:
            return False
    return True


def fusable(param, *others):
    """Whether :func:`sgd_` / :func:`adam_` can update ``param`` with ``others``
    (its gradient and buffers): all CPU, C-contiguous, float32 or float64, of
    one dtype and shape.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.optim_kernels import fusable
    >>> p = cygrad.zeros(2, 3)
    >>> fusable(p, cygrad.ones(2, 3)), fusable(p, cygrad.ones(3, 2).t())
    (True, False)
    """
    if not isinstance(param, TensorBase):
        return False
    cdef TensorBase p = <TensorBase>param
    if not _ok(p, p):
        return False
    for t in others:
        if not _ok(t, p):
            return False
    return True


cdef TensorBase _checked(object t, TensorBase like, str what):
    if not _ok(t, like):
        raise RuntimeError(f"fused optimizer step: {what} must be a C-contiguous float32 or "
                           f"float64 CPU tensor of the parameter's dtype and shape")
    return <TensorBase>t


cdef TensorBase _param(object t):
    if not isinstance(t, TensorBase):
        raise RuntimeError("fused optimizer step: a parameter must be a Tensor")
    return _checked(t, <TensorBase>t, "a parameter")


cdef void _fill(cg_optim_item* it, TensorBase p, TensorBase g) noexcept:
    it.param = p.ptr()
    it.grad = g.ptr()
    it.buf[0] = it.buf[1] = it.buf[2] = NULL
    it.n = p._numel
    it.dtype = CG_OPTIM_F32 if p._dtype.code == DT_FLOAT32 else CG_OPTIM_F64
    it.first = 0
    it.step_size = 0.0
    it.bc2_sqrt = 1.0


cdef _run(cg_optim_hyper* h, cg_optim_item* items, Py_ssize_t n, Py_ssize_t total):
    cdef int rc
    if total >= GIL_RELEASE_MIN:
        with nogil:
            rc = cg_optim_step(h, items, n)
    else:
        rc = cg_optim_step(h, items, n)
    if rc != 0:
        raise MemoryError("fused optimizer step: out of memory")


def sgd_(list params, list grads, list momentum_buffers, list first, double lr,
         double weight_decay, double momentum, double dampening, bint nesterov,
         bint maximize):
    """One SGD step of every parameter in ``params``, in place.

    ``momentum_buffers[i]`` is parameter i's buffer (ignored when ``momentum``
    is 0); ``first[i]`` says it is new: it is then set to the gradient, as
    PyTorch's first step clones the gradient into it.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.optim_kernels import sgd_
    >>> p, g, b = cygrad.tensor([1.0]), cygrad.tensor([2.0]), cygrad.empty(1)
    >>> sgd_([p], [g], [b], [True], 0.5, 0.0, 0.9, 0.0, False, False)
    >>> p.tolist(), b.tolist()
    ([0.0], [2.0])
    """
    cdef Py_ssize_t n = len(params), i, total = 0
    if len(grads) != n or len(momentum_buffers) != n or len(first) != n:
        raise ValueError("sgd_: params, grads, momentum_buffers and first differ in length")
    cdef cg_optim_hyper h
    h.kind = CG_OPTIM_SGD
    h.lr, h.weight_decay, h.momentum, h.dampening = lr, weight_decay, momentum, dampening
    h.beta1 = h.beta2 = h.eps = 0.0
    h.nesterov, h.maximize, h.amsgrad, h.decoupled = nesterov, maximize, 0, 0
    cdef TensorBase p, g, b
    cdef cg_optim_item* items = <cg_optim_item*>malloc((n + 1) * sizeof(cg_optim_item))
    if items == NULL:
        raise MemoryError("sgd_: out of memory")
    try:
        for i in range(n):
            p = _param(params[i])
            g = _checked(grads[i], p, "a gradient")
            _fill(&items[i], p, g)
            if momentum != 0:
                b = _checked(momentum_buffers[i], p, "a momentum buffer")
                items[i].buf[0] = b.ptr()
                items[i].first = 1 if first[i] else 0
            total += p._numel
        _run(&h, items, n, total)
    finally:
        free(items)
    for i in range(n):
        (<TensorBase>params[i])._storage.version += 1
        if momentum != 0:
            (<TensorBase>momentum_buffers[i])._storage.version += 1


cdef double _advance(TensorBase s) noexcept:
    """Add one to a 0-d float32/float64 step counter (checked by the caller); the
    new count."""
    cdef double value
    if s._dtype.code == DT_FLOAT32:
        (<float*>s.ptr())[0] += 1.0
        value = (<float*>s.ptr())[0]
    else:
        (<double*>s.ptr())[0] += 1.0
        value = (<double*>s.ptr())[0]
    s._storage.version += 1
    return value


def adam_(list params, list grads, list exp_avgs, list exp_avg_sqs, list max_exp_avg_sqs,
          list steps, double lr, double beta1, double beta2, double eps, double weight_decay,
          bint amsgrad, bint maximize, bint decoupled):
    """One Adam (``decoupled=True``: AdamW) step of every parameter, in place.

    Each ``steps[i]`` (a 0-d float32/float64 tensor) is incremented first; the
    bias corrections use the new count as PyTorch does: ``lr / (1 - beta1**t)``
    and ``(1 - beta2**t) ** 0.5`` in double precision. ``max_exp_avg_sqs`` is
    read only with ``amsgrad``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.optim_kernels import adam_
    >>> p, g = cygrad.tensor([1.0]), cygrad.tensor([4.0])
    >>> m, v, t = cygrad.zeros(1), cygrad.zeros(1), cygrad.tensor(0.0)
    >>> adam_([p], [g], [m], [v], [None], [t], 0.1, 0.9, 0.999, 1e-8, 0.0, False, False, False)
    >>> round(p.item(), 4), t.item()
    (0.9, 1.0)
    """
    cdef Py_ssize_t n = len(params), i, total = 0
    if (len(grads) != n or len(exp_avgs) != n or len(exp_avg_sqs) != n or len(steps) != n
            or (amsgrad and len(max_exp_avg_sqs) != n)):
        raise ValueError("adam_: the lists of parameters, gradients and state differ in length")
    cdef cg_optim_hyper h
    h.kind = CG_OPTIM_ADAM
    h.lr, h.weight_decay, h.momentum, h.dampening = lr, weight_decay, 0.0, 0.0
    h.beta1, h.beta2, h.eps = beta1, beta2, eps
    h.nesterov, h.maximize, h.amsgrad, h.decoupled = 0, maximize, amsgrad, decoupled
    cdef TensorBase p, g, m, v, x
    cdef double t
    cdef cg_optim_item* items = <cg_optim_item*>malloc((n + 1) * sizeof(cg_optim_item))
    if items == NULL:
        raise MemoryError("adam_: out of memory")
    try:
        for i in range(n):
            p = _param(params[i])
            g = _checked(grads[i], p, "a gradient")
            m = _checked(exp_avgs[i], p, "exp_avg")
            v = _checked(exp_avg_sqs[i], p, "exp_avg_sq")
            _fill(&items[i], p, g)
            items[i].buf[0] = m.ptr()
            items[i].buf[1] = v.ptr()
            if amsgrad:
                x = _checked(max_exp_avg_sqs[i], p, "max_exp_avg_sq")
                items[i].buf[2] = x.ptr()
            total += p._numel
        for i in range(n):
            s = steps[i]
            if (not isinstance(s, TensorBase) or (<TensorBase>s)._numel != 1
                    or (<TensorBase>s)._storage.device is not _CPU
                    or ((<TensorBase>s)._dtype.code != DT_FLOAT32
                        and (<TensorBase>s)._dtype.code != DT_FLOAT64)):
                raise RuntimeError("fused optimizer step: 'step' must be a one-element float32 "
                                   "or float64 CPU tensor")
        for i in range(n):
            t = _advance(<TensorBase>steps[i])
            items[i].step_size = lr / (1.0 - c_pow(beta1, t))
            items[i].bc2_sqrt = c_pow(1.0 - c_pow(beta2, t), 0.5)
        _run(&h, items, n, total)
    finally:
        free(items)
    for i in range(n):
        (<TensorBase>params[i])._storage.version += 1
        (<TensorBase>exp_avgs[i])._storage.version += 1
        (<TensorBase>exp_avg_sqs[i])._storage.version += 1
        if amsgrad:
            (<TensorBase>max_exp_avg_sqs[i])._storage.version += 1


def _set_parallel_min(Py_ssize_t n):
    """Set the total element count from which a step uses the thread pool (tests and
    benchmarks); returns the previous value.

    Examples
    --------
    >>> from cygrad._core import optim_kernels
    >>> old = optim_kernels._set_parallel_min(1)
    >>> optim_kernels._set_parallel_min(old) == 1
    True
    """
    global cg_optim_parallel_min
    cdef Py_ssize_t old = cg_optim_parallel_min
    cg_optim_parallel_min = n
    return old


# -- the checks of the CUDA fused steps (cygrad/cuda/ops/optim.py) -------------------
#
# The same questions as _ok for tensors of another device: run for every parameter of
# every step, twice (the optimizer asks fusable before the step, the kernel checks its
# arguments), they cost about 3 us per parameter in Python and a few tenths compiled.

cdef int _fits(object t, TensorBase like) except -1:
    # t is a C-contiguous tensor of like's dtype, shape and device (the device
    # compared by identity first: the core keeps one Device object per device)
    if not isinstance(t, TensorBase):
        return 0
    cdef TensorBase x = <TensorBase>t
    cdef int d
    if not x._is_contig or x._dtype is not like._dtype or x._ndim != like._ndim:
        return 0
    for d in range(x._ndim):
        if x._shape[d] != like._shape[d]:
            return 0
    a, b = x._storage.device, like._storage.device
    return 1 if (a is b or a == b) else 0


cdef int _param_fits(object p, str device_type) except -1:
    # p is a C-contiguous float32/float64 tensor of a device of device_type
    if not isinstance(p, TensorBase):
        return 0
    cdef TensorBase x = <TensorBase>p
    if (x._dtype.code != DT_FLOAT32 and x._dtype.code != DT_FLOAT64) or not x._is_contig:
        return 0
    return 1 if x._storage.device.type == device_type else 0


cdef bint _step_fits(object s) noexcept:
    # a one-element float32/float64 step counter, on any device
    if not isinstance(s, TensorBase):
        return False
    cdef TensorBase x = <TensorBase>s
    return x._numel == 1 and (x._dtype.code == DT_FLOAT32 or x._dtype.code == DT_FLOAT64)


def fusable_on(str device_type, param, *others):
    """Whether the fused step of a ``device_type`` device (not the CPU's: see
    :func:`fusable`) takes ``param`` with ``others`` (its gradient and buffers):
    all C-contiguous, float32 or float64, of one dtype, shape and device.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.optim_kernels import fusable_on
    >>> fusable_on("cuda", cygrad.zeros(2), cygrad.zeros(2))   # CPU tensors
    False
    """
    if not _param_fits(param, device_type):
        return False
    for t in others:
        if not _fits(t, <TensorBase>param):
            return False
    return True


def first_misfit(str device_type, params, columns, steps=None):
    """``None`` when every ``params[i]`` passes :func:`fusable_on` with
    ``columns[k][i]`` for each k, and each ``steps[i]`` (when ``steps`` is given)
    is a one-element float32 or float64 tensor; else ``(i, k)``, the first that
    does not, parameter by parameter (k = 0: the parameter, 1..len(columns): a
    column, len(columns) + 1: its step).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.optim_kernels import first_misfit
    >>> first_misfit("cpu", [cygrad.zeros(2)], ([cygrad.zeros(3)],))
    (0, 1)
    """
    cdef Py_ssize_t i, k, n = len(params), ncol = len(columns)
    for i in range(n):
        p = params[i]
        if not _param_fits(p, device_type):
            return (i, 0)
        for k in range(ncol):
            if not _fits(columns[k][i], <TensorBase>p):
                return (i, k + 1)
        if steps is not None and not _step_fits(steps[i]):
            return (i, ncol + 1)
    return None


def advance_host_steps(steps):
    """Add one to each step counter of ``steps`` when all are one-element float32
    or float64 CPU tensors that do not require grad (bumping their version counters,
    as ``fill_`` does) and return the new counts; else change nothing and return
    ``None``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.optim_kernels import advance_host_steps
    >>> s = cygrad.tensor(2.0)
    >>> advance_host_steps([s]), s.item()
    ([3.0], 3.0)
    """
    cdef Py_ssize_t i, n = len(steps)
    cdef TensorBase x
    for i in range(n):
        s = steps[i]
        if not _step_fits(s):
            return None
        x = <TensorBase>s
        if x._storage.device is not _CPU or x._requires_grad:
            return None
    return [_advance(<TensorBase>steps[i]) for i in range(n)]
