"""CPU scatter reductions (cpu/scatter.c): the accumulating writes of the indexing
ops, on NumPy views of tensors (``backend_cpu/indexing.py`` calls them).

:func:`scatter_` checks everything with the GIL held (dtypes, shapes, that the
target is writable, and every index value against the target's size along
``dim``, raising ``IndexError`` naming the op, the value and the size), then runs
the C loop without the GIL, on cygrad's thread pool for large sizes. Each target
element receives its updates in index order on one thread, so the result is the
same for any thread count.

Examples
--------
>>> import numpy as np
>>> from cygrad._core.scatter_kernels import scatter_
>>> t = np.zeros(3)
>>> scatter_("add", t, 0, np.array([0, 2, 0]), np.array([1.0, 2.0, 3.0]))
>>> t.tolist()
[4.0, 0.0, 2.0]
"""
cimport numpy as cnp
from libc.stdint cimport int64_t

from .tensor cimport pool_run, MAX_DIMS, cg_chunk_fn

cnp.import_array()

cdef extern from "scatter.h" nogil:
    ctypedef Py_ssize_t cg_index
    enum:
        CG_SCATTER_ADD, CG_SCATTER_MUL, CG_SCATTER_MAX, CG_SCATTER_MIN
        CG_UINT8, CG_INT8, CG_INT16, CG_INT32, CG_INT64, CG_FLOAT32, CG_FLOAT64
    ctypedef struct cg_scatter_geom:
        int ndim, dim
        cg_index shape[MAX_DIMS]
        cg_index tstride[MAX_DIMS]
        cg_index sstride[MAX_DIMS]
        cg_index istride[MAX_DIMS]
        cg_index wrap
        int index64
    ctypedef void (*cg_scatter_pool_fn)(int nchunks, cg_chunk_fn fn, void* ctx) noexcept nogil
    void cg_scatter_set_pool(cg_scatter_pool_fn run)
    cg_index cg_scatter_parallel_min
    int cg_has_scatter(int op, int dtype)
    int cg_scatter(int op, int dtype, const cg_scatter_geom* g, char* target, const char* src,
                   const char* index)
    int cg_index_first_bad(int ndim, const cg_index* shape, const cg_index* strides,
                           int index64, const char* index, int64_t low, int64_t high,
                           int64_t* bad)

cg_scatter_set_pool(pool_run)

# Releasing the GIL costs a mutex round trip: only worth it for real work.
cdef enum:
    GIL_RELEASE_MIN = 16384

_OPS = {"add": CG_SCATTER_ADD, "sum": CG_SCATTER_ADD, "mean": CG_SCATTER_ADD,
        "multiply": CG_SCATTER_MUL, "prod": CG_SCATTER_MUL,
        "amax": CG_SCATTER_MAX, "amin": CG_SCATTER_MIN}

# (kind, itemsize) of a NumPy dtype -> the C kernels' dtype code
_CODES = {("u", 1): CG_UINT8, ("i", 1): CG_INT8, ("i", 2): CG_INT16, ("i", 4): CG_INT32,
          ("i", 8): CG_INT64, ("f", 4): CG_FLOAT32, ("f", 8): CG_FLOAT64}


cdef int _code(object npdt):
    return _CODES.get((npdt.kind, npdt.itemsize), -1)


def supports(str op, object npdt):
    """Is there a C loop for reduction ``op`` on arrays of NumPy dtype ``npdt``?
    (float32/float64 and the integer dtypes; not bool, float16, complex.)

    Examples
    --------
    >>> import numpy as np
    >>> from cygrad._core.scatter_kernels import supports
    >>> supports("add", np.dtype(np.float32)), supports("add", np.dtype(np.float16))
    (True, False)
    """
    op_code = _OPS.get(op)
    cdef int code = _code(npdt)
    return op_code is not None and code >= 0 and cg_has_scatter(op_code, code) == 1


cdef int _elements(cnp.ndarray a, int k, str what) except -1:
    """``a``'s stride along ``k`` in elements."""
    cdef Py_ssize_t step = cnp.PyArray_STRIDES(a)[k], size = cnp.PyArray_ITEMSIZE(a)
    if step % size:
        raise ValueError(f"scatter_: the {what}'s strides are not whole elements")
    return 0


cdef bint _overlap(cnp.ndarray a, cnp.ndarray b):
    """Can the memory of ``a`` and ``b`` overlap? (Their byte ranges meet.)"""
    cdef Py_ssize_t alo, ahi, blo, bhi
    alo, ahi = _extent(a)
    blo, bhi = _extent(b)
    return alo < bhi and blo < ahi


cdef tuple _extent(cnp.ndarray a):
    cdef Py_ssize_t lo = <Py_ssize_t>cnp.PyArray_BYTES(a), hi = lo, step
    cdef int k
    for k in range(cnp.PyArray_NDIM(a)):
        if cnp.PyArray_DIMS(a)[k] == 0:
            return (lo, lo)
        step = cnp.PyArray_STRIDES(a)[k] * (cnp.PyArray_DIMS(a)[k] - 1)
        if step < 0:
            lo += step
        else:
            hi += step
    return (lo, hi + cnp.PyArray_ITEMSIZE(a))


def scatter_(str op, cnp.ndarray target not None, int dim, cnp.ndarray index not None,
             cnp.ndarray src not None, *, bint wrap=False, bint check=True, bint offsets=False,
             str opname="scatter"):
    """In place: ``target[p with p[dim] := index[p]] = OP(that, src[p])`` for every
    position ``p`` of the index space, in index order along ``dim``.

    ``target``, ``index`` and ``src`` have one number of dims. The index space is
    ``target``'s shape with ``dim`` replaced by the size of ``index`` (or ``src``)
    along it; ``index`` (int32/int64) and ``src`` (``target``'s dtype) have that
    shape or size 1 along any dim (broadcast). ``op``: "add"/"sum"/"mean",
    "multiply"/"prod", "amax" or "amin" (NaN wins). ``wrap``: a negative index
    counts from the end. ``offsets``: the index values are element offsets from
    ``target``'s first element instead (computed by the caller: nothing checked).
    ``src`` must not share memory with ``target``; an ``index`` that does is copied
    first.

    Examples
    --------
    >>> import numpy as np
    >>> from cygrad._core.scatter_kernels import scatter_
    >>> t = np.ones((2, 2))
    >>> scatter_("amax", t, 1, np.array([[1], [1]]), np.array([[5.0], [-5.0]]))
    >>> t.tolist()
    [[1.0, 5.0], [1.0, 1.0]]
    """
    cdef cg_scatter_geom g
    cdef int k, nd = cnp.PyArray_NDIM(target)
    cdef int64_t bad = 0
    cdef cg_index ishape[MAX_DIMS]
    cdef cg_index istr[MAX_DIMS]
    op_code = _OPS.get(op)
    if op_code is None:
        raise ValueError(f"{opname}: unknown reduction {op!r}")
    cdef int code = _code(target.dtype)
    if code < 0 or cg_has_scatter(op_code, code) != 1:
        raise TypeError(f"{opname}: no C scatter loop for dtype {target.dtype}")
    if src.dtype != target.dtype:
        raise TypeError(f"{opname}: source dtype {src.dtype} differs from the target's "
                        f"{target.dtype}")
    if index.dtype.kind != "i" or index.dtype.itemsize not in (4, 8):
        raise TypeError(f"{opname}: index must be int32 or int64, got {index.dtype}")
    if cnp.PyArray_NDIM(index) != nd or cnp.PyArray_NDIM(src) != nd or nd == 0:
        raise ValueError(f"{opname}: target, index and source need one number of dims (at "
                         f"least 1), got {nd}, {cnp.PyArray_NDIM(index)} and "
                         f"{cnp.PyArray_NDIM(src)}")
    if not 0 <= dim < nd:
        raise IndexError(f"{opname}: dim {dim} out of range for {nd} dims")
    if not cnp.PyArray_ISWRITEABLE(target):
        raise ValueError(f"{opname}: the target is read-only")
    if _overlap(index, target):
        # the loop writes what it would read next: read the index from a copy
        index = index.copy()
    for what, arr in (("target", target), ("source", src), ("index", index)):
        for k in range(nd):
            _elements(arr, k, what)
    cdef Py_ssize_t tsz = target.itemsize, ssz = src.itemsize, isz = index.itemsize
    cdef cnp.npy_intp* tsh = cnp.PyArray_DIMS(target)
    cdef cnp.npy_intp* ish = cnp.PyArray_DIMS(index)
    cdef cnp.npy_intp* ssh = cnp.PyArray_DIMS(src)
    g.ndim = nd
    g.dim = dim
    g.index64 = isz == 8
    for k in range(nd):
        n = max(ish[k], ssh[k]) if k == dim else tsh[k]
        if (ish[k] != n and ish[k] != 1) or (ssh[k] != n and ssh[k] != 1):
            raise ValueError(f"{opname}: index {(<object>index).shape} and source "
                             f"{(<object>src).shape} do not fit the target "
                             f"{(<object>target).shape} along dim {dim}")
        g.shape[k] = n
        g.tstride[k] = cnp.PyArray_STRIDES(target)[k] // tsz
        g.sstride[k] = cnp.PyArray_STRIDES(src)[k] // ssz if ssh[k] != 1 else 0
        g.istride[k] = cnp.PyArray_STRIDES(index)[k] // isz if ish[k] != 1 else 0
        ishape[k] = ish[k]
        istr[k] = cnp.PyArray_STRIDES(index)[k] // isz
    cdef Py_ssize_t size = tsh[dim]
    if offsets:
        g.tstride[dim] = 1
        g.wrap = 0
    else:
        g.wrap = size if wrap else 0
        if check and cg_index_first_bad(nd, ishape, istr, g.index64, cnp.PyArray_BYTES(index),
                                        -size if wrap else 0, size, &bad):
            raise IndexError(f"{opname}: index {bad} is out of bounds for dimension {dim} "
                             f"with size {size}")
    cdef char* tp = cnp.PyArray_BYTES(target)
    cdef const char* sp = cnp.PyArray_BYTES(src)
    cdef const char* ip = cnp.PyArray_BYTES(index)
    cdef Py_ssize_t work = 1
    for k in range(nd):
        work *= g.shape[k]
    cdef int oc = op_code
    if work >= GIL_RELEASE_MIN:
        with nogil:
            cg_scatter(oc, code, &g, tp, sp, ip)
    else:
        cg_scatter(oc, code, &g, tp, sp, ip)


def _get_parallel_min():
    """Updates from which :func:`scatter_` uses the thread pool.

    Examples
    --------
    >>> from cygrad._core.scatter_kernels import _get_parallel_min
    >>> _get_parallel_min() > 0
    True
    """
    return cg_scatter_parallel_min


def _set_parallel_min(Py_ssize_t n):
    """Change :func:`_get_parallel_min` (tests of thread-count independence).

    Examples
    --------
    >>> from cygrad._core.scatter_kernels import _get_parallel_min, _set_parallel_min
    >>> old = _get_parallel_min(); _set_parallel_min(1); _set_parallel_min(old)
    """
    global cg_scatter_parallel_min
    cg_scatter_parallel_min = max(n, 1)
