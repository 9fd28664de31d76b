"""Fast paths for calls on small operands (the hot calls of ``cygrad.numpy``).

On a 100-element array a NumPy call costs a few hundred nanoseconds, so the
argument parsing and dtype promotion around an op, or a trip through BLAS or
NumPy's Python wrappers, cost more than the arithmetic. Each entry here does one
common case in C: a plain ``cygrad.Tensor`` (not a subclass) on the CPU that
autograd need not see (no ``requires_grad`` with grad mode on, no tangent),
C-contiguous, of the dtypes it names. For anything else it returns ``None`` and
the caller takes its general route, which does the checks, raises the errors and
records autograd. An entry never raises for arguments it does not take.

The kernels are in ``cpu/fastpath.c``. :func:`binary_entry` and
:func:`unary_entry` build the elementwise functions of ``cygrad.numpy`` with their
type checks in C.

Examples
--------
>>> import cygrad
>>> from cygrad._core import fastpath
>>> a = cygrad.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> fastpath.matmul(a, a).tolist()
[[7.0, 10.0], [15.0, 22.0]]
>>> fastpath.matmul(a, a.t()) is None          # not contiguous: the caller's route
True
>>> fastpath.matmul(a.requires_grad_(), a) is None
True
"""
from libc.stdint cimport uint8_t
from libc.string cimport memcpy

from .dtype cimport (dtype as DType, dtype_from_code, DT_BOOL, DT_FLOAT32, DT_FLOAT64,
                     DT_COMPLEX64, DT_COMPLEX128, KIND_FLOAT, KIND_COMPLEX)
from .tensor cimport TensorBase, new_empty, grad_enabled, as_ndarray, MAX_DIMS

from .._device import CPU as _CPU_DEVICE
from .tensor import binary_op as _binary_op, unary_op as _unary_op

cdef extern from "fastpath.h" nogil:
    ctypedef Py_ssize_t cgf_index
    int cgf_matmul(int dtype, cgf_index m, cgf_index k, cgf_index n, const char* a,
                   const char* b, char* out)
    int cgf_where(int itemsize, cgf_index n, const uint8_t* cond, const char* x, const char* y,
                  char* out)
    int cgf_select(int itemsize, int ndim, const cgf_index* shape, char* out, const cgf_index* so,
                   const uint8_t* cond, const cgf_index* sc, const char* x, const cgf_index* sx,
                   const char* y, const cgf_index* sy)
    int cgf_reduce_mid(int op, int dtype, cgf_index outer, cgf_index n, cgf_index inner,
                       double correction, const char* a, char* out)
    int cgf_solve(int dtype, cgf_index n, cgf_index k, const char* a, const char* b, char* out)
    int cgf_complex_binary(int op, int dtype, cgf_index n, const char* a, const char* b,
                           char* out)
    int cgf_complex_abs(int dtype, cgf_index n, const char* a, char* out)
    enum:
        CGF_SUM
        CGF_MEAN
        CGF_VAR
        CGF_STD
        CGF_CADD
        CGF_CSUB
        CGF_CMUL

try:
    # NumPy's pocketfft ufuncs, without np.fft's Python wrappers around them
    from numpy.fft import _pocketfft_umath as _pfu
    _PFU_FFT, _PFU_IFFT = _pfu.fft, _pfu.ifft
    _PFU_RFFT_EVEN, _PFU_RFFT_ODD = _pfu.rfft_n_even, _pfu.rfft_n_odd
except (ImportError, AttributeError):
    _pfu = None

#: Reduction codes for :func:`reduce`.
SUM, MEAN, VAR, STD = CGF_SUM, CGF_MEAN, CGF_VAR, CGF_STD
#: Complex operation codes for :func:`binary_entry`.
CADD, CSUB, CMUL = CGF_CADD, CGF_CSUB, CGF_CMUL
#: FFT kinds for :func:`fft`.
FFT, IFFT, RFFT = 0, 1, 2

# Small operands only: above these sizes the general routes (BLAS, the threaded
# kernels, NumPy's loops without the GIL) are as fast or faster, and the kernels
# here hold the GIL.
cdef enum:
    MAX_NUMEL = 1 << 16              # elements of an operand
    MATMUL_MAX_WORK = 32 * 32 * 32   # m * k * n
    SOLVE_MAX_N = 64
    CAT_MAX_INPUTS = 64

# The fast paths take exact instances of the class users hold (a subclass may
# override what an op means); importing it here is safe: cygrad/_tensor.py needs
# only the tensor extension.
from .._tensor import Tensor as _TensorClass
cdef type _Tensor = _TensorClass
cdef object _CPU = _CPU_DEVICE


cdef inline bint _plain(object x):
    """Is x a cygrad.Tensor on the CPU that autograd need not see?"""
    cdef TensorBase t
    if type(x) is not _Tensor:
        return False
    t = <TensorBase>x
    if t._fw_grad is not None or (t._requires_grad and grad_enabled()):
        return False
    return t._storage.device is _CPU


cdef inline bint _plain_contig(object x):
    return _plain(x) and (<TensorBase>x)._is_contig


cdef inline bint _same_shape(TensorBase a, TensorBase b):
    cdef int i
    if a._ndim != b._ndim:
        return False
    for i in range(a._ndim):
        if a._shape[i] != b._shape[i]:
            return False
    return True


cdef inline bint _is_float(TensorBase t):
    return t._dtype.code == DT_FLOAT32 or t._dtype.code == DT_FLOAT64


cdef inline bint _is_complex(TensorBase t):
    return t._dtype.code == DT_COMPLEX64 or t._dtype.code == DT_COMPLEX128


# ----------------------------------------------------------------------- entries

def matmul(x1, x2):
    """``x1 @ x2`` of two contiguous 2-D tensors of one float or complex dtype whose
    product is small (``m * k * n <= 32768``); None otherwise.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core import fastpath
    >>> fastpath.matmul(cygrad.ones(2, 3), cygrad.ones(3, 1)).tolist()
    [[3.0], [3.0]]
    >>> fastpath.matmul(cygrad.ones(2, 3), cygrad.ones(2, 3)) is None     # shapes refused
    True
    """
    cdef TensorBase a, b, out
    cdef Py_ssize_t shape[2]
    cdef Py_ssize_t m, k, n
    if not (_plain_contig(x1) and _plain_contig(x2)):
        return None
    a, b = <TensorBase>x1, <TensorBase>x2
    if a._dtype is not b._dtype or a._ndim != 2 or b._ndim != 2 or not (_is_float(a) or _is_complex(a)):
        return None
    m, k, n = a._shape[0], a._shape[1], b._shape[1]
    if b._shape[0] != k or m == 0 or k == 0 or n == 0 or m * k * n > MATMUL_MAX_WORK:
        return None
    shape[0], shape[1] = m, n
    out = new_empty(a._dtype, 2, shape, _CPU)
    return out if cgf_matmul(a._dtype.code, m, k, n, a.ptr(), b.ptr(), out.ptr()) == 0 else None


def cat(arrays, axis):
    """The tensors of the list or tuple ``arrays`` (1 to 64 contiguous tensors of one
    dtype and rank, sizes equal but along ``axis``, an int; at most 512 KiB in all)
    joined along ``axis``; None otherwise.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core import fastpath
    >>> x = cygrad.tensor([[1, 2]])
    >>> fastpath.cat([x, x], 0).tolist(), fastpath.cat((x, x), -1).tolist()
    ([[1, 2], [1, 2]], [[1, 2, 1, 2]])
    >>> fastpath.cat([x, x.to(cygrad.float32)], 0) is None
    True
    """
    cdef Py_ssize_t count, i, d, ax, outer = 1, inner, total = 0, o
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef Py_ssize_t chunk[CAT_MAX_INPUTS]
    cdef char* src[CAT_MAX_INPUTS]
    cdef TensorBase first, t, out
    cdef char* dst
    cdef int nd
    if (type(arrays) is not list and type(arrays) is not tuple) or type(axis) is not int:
        return None
    count = len(arrays)
    if count == 0 or count > CAT_MAX_INPUTS or not _plain_contig(arrays[0]):
        return None
    first = <TensorBase>arrays[0]
    nd = first._ndim
    if nd == 0 or not (-nd <= axis < nd):
        return None
    ax = axis % nd
    inner = first._dtype.itemsize
    for d in range(nd - 1, ax, -1):
        inner *= first._shape[d]
    for d in range(ax):
        outer *= first._shape[d]
    for i in range(count):
        if not _plain_contig(arrays[i]):
            return None
        t = <TensorBase>arrays[i]
        if t._dtype is not first._dtype or t._ndim != nd:
            return None
        for d in range(nd):
            if d != ax and t._shape[d] != first._shape[d]:
                return None
        total += t._shape[ax]
        chunk[i] = t._shape[ax] * inner
        src[i] = t.ptr()
    for d in range(nd):
        shape[d] = first._shape[d]
    shape[ax] = total
    if total == 0 or outer == 0 or inner == 0 or outer * total * inner > MAX_NUMEL * 8:
        return None
    out = new_empty(first._dtype, nd, shape, _CPU)
    dst = out.ptr()
    for o in range(outer):
        for i in range(count):
            memcpy(dst, src[i] + o * chunk[i], chunk[i])
            dst += chunk[i]
    return out


def where(condition, x, y):
    """``x`` where the bool tensor ``condition`` is true, else ``y``: three contiguous
    tensors of one shape (at most 65536 elements), ``x`` and ``y`` of one dtype; None
    otherwise.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core import fastpath
    >>> x = cygrad.tensor([1.0, -2.0])
    >>> fastpath.where(x > 0, x, -x).tolist()
    [1.0, 2.0]
    >>> fastpath.where(x > 0, x, 0.0) is None
    True
    """
    cdef TensorBase c, a, b, out
    cdef int rc
    if not (_plain_contig(condition) and _plain_contig(x) and _plain_contig(y)):
        return None
    c, a, b = <TensorBase>condition, <TensorBase>x, <TensorBase>y
    if (c._dtype.code != DT_BOOL or a._dtype is not b._dtype or not _same_shape(a, b)
            or not _same_shape(a, c) or a._numel == 0 or a._numel > MAX_NUMEL):
        return None
    out = new_empty(a._dtype, a._ndim, a._shape, _CPU)
    rc = cgf_where(a._dtype.itemsize, a._numel, <const uint8_t*>c.ptr(), a.ptr(), b.ptr(),
                   out.ptr())
    return out if rc == 0 else None


cdef bint _broadcast_strides(TensorBase t, TensorBase out, cgf_index* strides) noexcept:
    """``t``'s strides in bytes (elements for bool) seen at ``out``'s shape, 0 along
    broadcast dims; False when ``t`` does not broadcast to it."""
    cdef int d, k, lead = out._ndim - t._ndim
    cdef Py_ssize_t unit = 1 if t._dtype.code == DT_BOOL else t._dtype.itemsize
    if lead < 0:
        return False
    for d in range(out._ndim):
        k = d - lead
        if k < 0 or t._shape[k] == 1:
            strides[d] = 0
        elif t._shape[k] == out._shape[d]:
            strides[d] = t._strides[k] * unit
        else:
            return False
    return True


cdef bint _aliases_differently(TensorBase t, TensorBase out) noexcept:
    """Does ``t`` share memory with ``out`` other than element for element?"""
    cdef int d
    if t._storage is not out._storage:
        return False
    if t.ptr() != out.ptr() or t._ndim != out._ndim:
        return True
    for d in range(t._ndim):
        if t._shape[d] != out._shape[d] or t._strides[d] != out._strides[d]:
            return True
    return False


cdef bint _select_operand(object v, TensorBase o, cgf_index* strides, const char** p):
    """Strides and data of one value operand of :func:`select_into` (None: ``o``
    itself); False when the loop cannot take it."""
    cdef TensorBase t
    cdef int d
    if v is None:
        v = o
    if isinstance(v, bytes):
        if len(<bytes>v) != o._dtype.itemsize:
            return False
        for d in range(o._ndim):
            strides[d] = 0
        p[0] = <const char*>(<bytes>v)
        return True
    if not isinstance(v, TensorBase):
        return False
    t = <TensorBase>v
    if (t._dtype is not o._dtype or t._storage.device is not _CPU
            or (t is not o and _aliases_differently(t, o))
            or not _broadcast_strides(t, o, strides)):
        return False
    p[0] = t.ptr()
    return True


def select_into(out, condition, x, y):
    """``out[...] = where(condition, x, y)`` by one strided C loop, broadcasting every
    operand to ``out``'s shape: ``condition`` a bool tensor, ``x`` and ``y`` tensors of
    ``out``'s dtype or ``bytes`` holding one element of it (a scalar), ``y=None``
    keeps ``out``'s values (in place). Returns True when done, None when this loop
    does not apply (another device, 16-byte elements, shapes that do not broadcast,
    an operand overlapping ``out`` at other elements): the caller then falls back.

    Examples
    --------
    >>> import cygrad, struct
    >>> from cygrad._core import fastpath
    >>> out = cygrad.zeros(2, 3)
    >>> x = cygrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> fastpath.select_into(out, cygrad.tensor([True, False, True]), x, struct.pack("f", -1.0))
    True
    >>> out.tolist()
    [[1.0, -1.0, 3.0], [4.0, -1.0, 6.0]]
    """
    cdef TensorBase o, c
    cdef cgf_index shape[64]
    cdef cgf_index so[64]
    cdef cgf_index sc[64]
    cdef cgf_index sx[64]
    cdef cgf_index sy[64]
    cdef const char* px
    cdef const char* py
    cdef int d, k, nd, itemsize, rc
    if not isinstance(out, TensorBase) or not isinstance(condition, TensorBase):
        return None
    o, c = <TensorBase>out, <TensorBase>condition
    itemsize = o._dtype.itemsize
    if (o._storage.device is not _CPU or c._storage.device is not _CPU or c._dtype.code != DT_BOOL
            or itemsize not in (1, 2, 4, 8) or o._ndim == 0 or o._numel == 0):
        return None
    if not _broadcast_strides(c, o, sc) or (c is not o and _aliases_differently(c, o)):
        return None
    if not _select_operand(x, o, sx, &px) or not _select_operand(y, o, sy, &py):
        return None
    nd = o._ndim
    for d in range(nd):
        shape[d] = o._shape[d]
        so[d] = o._strides[d] * itemsize
    # merge dims every operand walks as one (fewer, longer rows)
    d = nd - 1
    while d > 0:
        if (so[d - 1] == so[d] * shape[d] and sc[d - 1] == sc[d] * shape[d]
                and sx[d - 1] == sx[d] * shape[d] and sy[d - 1] == sy[d] * shape[d]):
            shape[d - 1] *= shape[d]
            so[d - 1], sc[d - 1], sx[d - 1], sy[d - 1] = so[d], sc[d], sx[d], sy[d]
            for k in range(d, nd - 1):
                shape[k], so[k], sc[k], sx[k], sy[k] = (shape[k + 1], so[k + 1], sc[k + 1],
                                                        sx[k + 1], sy[k + 1])
            nd -= 1
        d -= 1
    with nogil:
        rc = cgf_select(itemsize, nd, shape, o.ptr(), so, <const uint8_t*>c.ptr(), sc,
                        px, sx, py, sy)
    return True if rc == 0 else None


def reduce(x, int op, axis, keepdims, double correction=0.0):
    """``op`` (:data:`SUM`, :data:`MEAN`, :data:`VAR` or :data:`STD`, the last two with
    ``correction`` subtracted from the count) of a contiguous float32/float64 tensor
    of 1 to 65536 elements over ``axis`` (an int, or None for all), ``keepdims`` a
    bool, accumulated in double; None otherwise, also when no degree of freedom is
    left or a float32 value is beyond 1e15 (NumPy's float32 sums could overflow).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core import fastpath
    >>> x = cygrad.tensor([[1.0, 2.0], [3.0, 5.0]])
    >>> fastpath.reduce(x, fastpath.MEAN, 0, False).tolist()
    [2.0, 3.5]
    >>> fastpath.reduce(x, fastpath.VAR, None, True, 1.0).tolist()
    [[2.9166667461395264]]
    """
    cdef TensorBase t, out
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef Py_ssize_t outer = 1, n, inner = 1
    cdef int nd, ax, d, rnd = 0
    cdef int rc
    if not _plain_contig(x) or (keepdims is not True and keepdims is not False):
        return None
    t = <TensorBase>x
    nd = t._ndim
    if not _is_float(t) or nd == 0 or t._numel == 0 or t._numel > MAX_NUMEL:
        return None
    if axis is None:
        n = t._numel
        if keepdims:
            for d in range(nd):
                shape[d] = 1
            rnd = nd
    else:
        if type(axis) is not int or not (-nd <= axis < nd):
            return None
        ax = axis % nd
        n = t._shape[ax]
        for d in range(nd):
            if d < ax:
                outer *= t._shape[d]
            elif d > ax:
                inner *= t._shape[d]
            if d != ax:
                shape[rnd] = t._shape[d]
                rnd += 1
            elif keepdims:
                shape[rnd] = 1
                rnd += 1
    if (op == CGF_VAR or op == CGF_STD) and not (n - correction > 0):
        return None
    out = new_empty(t._dtype, rnd, shape, _CPU)
    rc = cgf_reduce_mid(op, t._dtype.code, outer, n, inner, correction, t.ptr(), out.ptr())
    return out if rc == 0 else None


def solve(x1, x2):
    """``x`` with ``x1 @ x = x2`` for a contiguous square float32/float64 ``x1`` of at
    most 64 rows and a contiguous ``x2`` of its dtype, a vector or a matrix; None
    otherwise, and also when a pivot is exactly zero or an input is not finite (the
    caller's LAPACK route then decides what to raise or return).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core import fastpath
    >>> a = cygrad.tensor([[2.0, 0.0], [0.0, 4.0]])
    >>> fastpath.solve(a, cygrad.tensor([2.0, 2.0])).tolist()
    [1.0, 0.5]
    >>> fastpath.solve(cygrad.zeros(2, 2), cygrad.ones(2)) is None     # singular
    True
    """
    cdef TensorBase a, b, out
    cdef Py_ssize_t n, k
    cdef int rc
    if not (_plain_contig(x1) and _plain_contig(x2)):
        return None
    a, b = <TensorBase>x1, <TensorBase>x2
    if a._dtype is not b._dtype or not _is_float(a) or a._ndim != 2 or b._ndim not in (1, 2):
        return None
    n = a._shape[0]
    if a._shape[1] != n or b._shape[0] != n or n == 0 or n > SOLVE_MAX_N:
        return None
    k = b._shape[1] if b._ndim == 2 else 1
    if k == 0:
        return None
    out = new_empty(a._dtype, b._ndim, b._shape, _CPU)
    rc = cgf_solve(a._dtype.code, n, k, a.ptr(), b.ptr(), out.ptr())
    return out if rc == 0 else None


def complex_binary(int op, x1, x2):
    """``x1 op x2`` (:data:`CADD`, :data:`CSUB`, :data:`CMUL`) of two contiguous complex
    tensors of one dtype and shape (at most 65536 elements); None otherwise.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core import fastpath
    >>> z = cygrad.tensor([1 + 2j], dtype=cygrad.complex64)
    >>> fastpath.complex_binary(fastpath.CMUL, z, z).tolist()
    [(-3+4j)]
    """
    cdef TensorBase a, b, out
    cdef int rc
    if not (_plain_contig(x1) and _plain_contig(x2)):
        return None
    a, b = <TensorBase>x1, <TensorBase>x2
    if (a._dtype is not b._dtype or not _is_complex(a) or not _same_shape(a, b)
            or a._numel > MAX_NUMEL):
        return None
    out = new_empty(a._dtype, a._ndim, a._shape, _CPU)
    rc = cgf_complex_binary(op, a._dtype.code, a._numel, a.ptr(), b.ptr(), out.ptr())
    return out if rc == 0 else None


def complex_abs(x):
    """``|x|`` (of the component dtype, NumPy's values to the bit) of a contiguous
    complex tensor of at most 65536 elements; None otherwise.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core import fastpath
    >>> fastpath.complex_abs(cygrad.tensor([3 + 4j])).tolist()
    [5.0]
    """
    cdef TensorBase a, out
    if not _plain_contig(x):
        return None
    a = <TensorBase>x
    if not _is_complex(a) or a._numel > MAX_NUMEL:
        return None
    out = new_empty(dtype_from_code(DT_FLOAT32 if a._dtype.code == DT_COMPLEX64 else DT_FLOAT64),
                    a._ndim, a._shape, _CPU)
    cgf_complex_abs(a._dtype.code, a._numel, a.ptr(), out.ptr())
    return out


def fft(x, int kind):
    """The unnormalized :data:`FFT` / ``1/n``-scaled :data:`IFFT` of a contiguous
    complex tensor, or the :data:`RFFT` of a contiguous float32/float64 one, along its
    last axis at its own length (NumPy's pocketfft, called without ``np.fft``'s
    wrappers); None otherwise.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core import fastpath
    >>> fastpath.fft(cygrad.tensor([1.0, 2.0, 3.0, 4.0]), fastpath.RFFT).tolist()
    [(10+0j), (-2+2j), (-2+0j)]
    """
    cdef TensorBase a, out
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef Py_ssize_t n
    cdef int d
    if _pfu is None or not _plain_contig(x):
        return None
    a = <TensorBase>x
    if a._ndim == 0 or a._numel == 0:
        return None
    n = a._shape[a._ndim - 1]
    for d in range(a._ndim):
        shape[d] = a._shape[d]
    if kind == RFFT:
        if not _is_float(a):
            return None
        shape[a._ndim - 1] = n // 2 + 1
        out = new_empty(dtype_from_code(DT_COMPLEX64 if a._dtype.code == DT_FLOAT32 else DT_COMPLEX128),
                        a._ndim, shape, _CPU)
        (_PFU_RFFT_EVEN if n % 2 == 0 else _PFU_RFFT_ODD)(as_ndarray(a), 1, out=as_ndarray(out))
        return out
    if not _is_complex(a) or (kind != FFT and kind != IFFT):
        return None
    out = new_empty(a._dtype, a._ndim, shape, _CPU)
    if kind == FFT:
        _PFU_FFT(as_ndarray(a), 1, out=as_ndarray(out))
    else:
        # 1/n rounded to the component dtype, as np.fft.ifft scales
        real = dtype_from_code(DT_FLOAT32 if a._dtype.code == DT_COMPLEX64 else DT_FLOAT64)
        _PFU_IFFT(as_ndarray(a), real.np_dtype.type(1.0 / n), out=as_ndarray(out))
    return out


# ----------------------------------------------------------------------- function builders

def binary_entry(op, slow, bint scalars=False, int complex_op=-1):
    """A function ``f(x1, x2, /)`` that computes the elementwise op ``op`` (an entry of
    ``ELEMENTWISE_OPS``) straight away when ``x1`` and ``x2`` are cygrad.Tensors of
    one dtype (with ``scalars``, also a float32/float64/complex tensor and a Python
    float), with the complex kernel ``complex_op`` for contiguous complex operands
    of one shape, and calls ``slow(x1, x2)`` for anything else. ``slow`` must give
    what ``op`` gives on the arguments the fast route takes.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core import fastpath
    >>> from cygrad._core.tensor import ELEMENTWISE_OPS
    >>> add = fastpath.binary_entry(ELEMENTWISE_OPS["add"], lambda a, b: "slow", scalars=True)
    >>> add(cygrad.ones(2), 1.5).tolist(), add(cygrad.ones(2), 1)
    ([2.5, 2.5], 'slow')
    """
    def entry(x1, x2, /):
        cdef TensorBase a, b
        cdef int code
        if type(x1) is _Tensor:
            a = <TensorBase>x1
            if type(x2) is _Tensor:
                b = <TensorBase>x2
                if a._dtype is b._dtype:
                    if complex_op >= 0 and _is_complex(a):
                        res = complex_binary(complex_op, x1, x2)
                        if res is not None:
                            return res
                    return _binary_op(op, x1, x2)
            elif scalars and type(x2) is float:
                code = a._dtype.code
                if code == DT_FLOAT32 or code == DT_FLOAT64 or _is_complex(a):
                    return _binary_op(op, x1, x2)
        return slow(x1, x2)
    return entry


def unary_entry(op, slow, bint float_only=False, bint complex_abs_kernel=False):
    """A function ``f(x, /)`` that computes the elementwise op ``op`` straight away
    when ``x`` is a cygrad.Tensor (of a float dtype, with ``float_only``), with the
    complex ``abs`` kernel for contiguous complex tensors when
    ``complex_abs_kernel``, and calls ``slow(x)`` for anything else.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core import fastpath
    >>> from cygrad._core.tensor import ELEMENTWISE_OPS
    >>> exp = fastpath.unary_entry(ELEMENTWISE_OPS["exp"], lambda x: "slow", float_only=True)
    >>> exp(cygrad.zeros(1)).tolist(), exp(cygrad.zeros(1, dtype=cygrad.int64))
    ([1.0], 'slow')
    """
    def entry(x, /):
        cdef int category
        if type(x) is _Tensor:
            category = (<TensorBase>x)._dtype._category
            if complex_abs_kernel and category == KIND_COMPLEX:
                res = complex_abs(x)
                if res is not None:
                    return res
            if not float_only or category == KIND_FLOAT:
                return _unary_op(op, x)
        return slow(x)
    return entry
