# The core's C reductions (cpu/reduce.c: contiguous float rows and columns) and the
# table of the reductions written in Python that TensorBase's methods call;
# included by tensor.pyx.

cdef object _reduce_fast(int op, TensorBase t, object dim, bint keepdim, bint mean=False):
    """C path for a full reduction, or one over a single dim, of a contiguous float
    tensor (``mean``: the sum divided by the count); None when it does not apply
    (the Python implementation then runs)."""
    cdef Py_ssize_t rows, n, inner = 1, shape[MAX_DIMS]
    cdef int d, i
    cdef TensorBase out
    if not (t._is_contig and t._numel > 0 and _on_cpu(t) and not _tracked(t)
            and cg_has_reduce(op, t._dtype.code)):
        return None
    if dim is None:
        if keepdim:
            return None
        rows, n = 1, t._numel
        out = new_empty(t._dtype, 0, NULL, CPU)
    elif type(dim) is int and t._ndim > 0:
        d = _wrap_dim(dim, t._ndim)
        n = t._shape[d]
        for i in range(d + 1, t._ndim):
            inner *= t._shape[i]
        rows = t._numel // (n * inner)
        for i in range(t._ndim):
            shape[i] = t._shape[i]
        if not keepdim:
            for i in range(d, t._ndim - 1):
                shape[i] = shape[i + 1]
        else:
            shape[d] = 1
        out = new_empty(t._dtype, t._ndim if keepdim else t._ndim - 1, shape, CPU)
    else:
        return None
    if inner == 1:
        run_reduce_rows(op, t._dtype.code, rows, n, t.ptr(), out.ptr(), t._storage, out._storage)
        if mean:
            _scale_by(out, n)
    elif run_reduce_cols(op, t._dtype.code, rows, n, inner, <double>n if mean else 0.0,
                         t.ptr(), out.ptr()) != 0:
        raise MemoryError(f"reduction over dim {dim} of a tensor of shape {tuple(t.shape)}: "
                          "out of memory for its partial results")
    return out


cdef int run_reduce_cols(int op, int dtype, cg_index outer, cg_index n, cg_index inner,
                         double divisor, const char* a, char* out) noexcept:
    # (the caller holds references to both tensors, so their memory outlives the call)
    cdef int rc
    if outer * n * inner >= GIL_RELEASE_MIN:
        with nogil:
            rc = cg_reduce_cols(op, dtype, outer, n, inner, divisor, a, out)
    else:
        rc = cg_reduce_cols(op, dtype, outer, n, inner, divisor, a, out)
    return rc


cdef void _scale_by(TensorBase out, Py_ssize_t n) noexcept:
    """out /= n in place (a mean from a row sum), in out's dtype, as NumPy divides."""
    cdef Py_ssize_t i, m = out._numel
    cdef float* f
    cdef double* g
    if out._dtype.code == DT_FLOAT32:
        f = <float*>out.ptr()
        for i in range(m):
            f[i] = f[i] / <float>n
    else:
        g = <double*>out.ptr()
        for i in range(m):
            g[i] = g[i] / <double>n


def _reduce_dim(str name, TensorBase x, dim, bint keepdim):
    """The core's C reduction (``name``: "sum", "mean", "amax" or "amin") of ``x``
    over ``dim`` (an int or None for all), without autograd; None where it does not
    apply (not a contiguous float32/float64 CPU tensor, or empty). The CPU kernels
    of the reduction ops call it before NumPy.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core import tensor
    >>> tensor._reduce_dim("mean", cygrad.tensor([[1.0, 2.0], [3.0, 5.0]]), 0, False).tolist()
    [2.0, 3.5]
    """
    cdef int op
    if name == "sum" or name == "mean":
        op = CG_RSUM
    elif name == "amax":
        op = CG_RMAX
    elif name == "amin":
        op = CG_RMIN
    else:
        raise ValueError(f"_reduce_dim: unknown reduction {name!r}")
    if not (x._is_contig and x._numel > 0 and _on_cpu(x) and cg_has_reduce(op, x._dtype.code)):
        return None
    # autograd is the caller's business (the op's Function): only the data is reduced
    return _reduce_fast(op, x.detach() if _tracked(x) else x, dim, keepdim, name == "mean")


cdef dict _py_reductions = {}
cdef object _sum_all_function = None

def _set_sum_all_function(cls):
    """cygrad.ops.reduction's ``SumAll`` Function: ``x.sum()`` of a tensor that needs
    autograd goes straight to it."""
    global _sum_all_function
    _sum_all_function = cls

def _register_reduction(name, fn):
    _py_reductions[name] = fn

cdef object _py_reduction(str name):
    try:
        return _py_reductions[name]
    except KeyError:
        raise RuntimeError(f"cygrad.ops is not loaded: no implementation of {name}") from None
