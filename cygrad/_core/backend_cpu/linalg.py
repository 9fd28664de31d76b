"""CPU kernels of the matrix products (``cygrad/ops/linalg/products.py``) and of the matrix
decompositions (``linalg_*``, used by ``cygrad/ops/linalg/decompositions.py``).

Products: ``matmul_into`` writes ``a @ b`` straight into the output tensor:
float32/float64 by ``cblas_?gemm`` calls on the operands' own memory
(``cygrad/_core/gemm.pyx``: transpose flags and leading dimensions instead of
copies, one GEMM or a C loop over the batch), anything else through NumPy's
``matmul`` of zero-copy views (NumPy's loop for integers, complex in its BLAS,
float32 for float16/bfloat16, rounded once); ``einsum`` contracts with NumPy's
einsum.  Decompositions call ``np.linalg`` on a detached view and wrap the
results.  No kernel records autograd: the ops do.

Examples
--------
>>> import cygrad
>>> from cygrad._core.dispatch import kernel
>>> a = cygrad.tensor([[2.0, 0.0], [0.0, 4.0]], dtype=cygrad.float64)
>>> kernel("linalg_inv", "cpu")(a).tolist()
[[0.5, 0.0], [0.0, 0.25]]
>>> out = cygrad.empty(2, 2, dtype=cygrad.float64)
>>> kernel("matmul_into", "cpu")(a, a, out).tolist()
[[4.0, 0.0], [0.0, 16.0]]
"""
import numpy as np

from ... import _threading
from .. import fastpath as _fastpath
from .. import gemm as _gemm
from .. import tensor as _C
from ..dispatch import register
from ..linalg_error import LinAlgError

_HALF_TYPES = ("float16", "bfloat16")

# OpenBLAS runs a product of at most 65536 * 4 multiply-adds on one thread whatever
# its thread count (interface/gemm.c: SMP_THRESHOLD_MIN * GEMM_MULTITHREAD_THRESHOLD),
# so below that the thread policy has nothing to decide and its two calls into the
# BLAS (set the count, restore it) would cost more than a small product itself.
_BLAS_ONE_THREAD_MAX = 1 << 18


@register("mm_small", "cpu")
def mm_small(a, b):
    """``a @ b`` of two small contiguous 2-D CPU tensors of one float or complex dtype,
    by the core's C loop (BLAS's call costs more than the work there); None where
    that does not apply (the caller then uses ``matmul_into``).

    Examples
    --------
    >>> import cygrad
    >>> mm_small(cygrad.ones(2, 3), cygrad.ones(3, 1)).tolist()
    [[3.0], [3.0]]
    """
    return _fastpath.matmul(a, b)


@register("matmul_into", "cpu")
def matmul_into(a, b, result):
    """``result[...] = a @ b`` with NumPy's matmul rules, on views (float32/float64
    straight into BLAS, copying only an operand BLAS cannot read as it is);
    ``result`` (non-empty, of ``a``'s dtype) already has the right shape."""
    # BLAS first: it checks dtypes and sizes itself and takes nearly every call, so
    # the other cases' checks cost it nothing (an RNN makes one call per step)
    if _gemm.matmul_into(a, b, result, _threading._blas_threads):
        return result
    rv = _C._ndarray(result)
    if a.dtype.name in _HALF_TYPES:
        av = _C._ndarray(a).astype(np.float32)
        bv = _C._ndarray(b).astype(np.float32)
        rv[...] = np.matmul(av, bv)
    elif a.numel() == 0 or b.numel() == 0:
        rv[...] = 0          # an empty sum
    else:
        av = _C._ndarray(a)
        work = rv.size * av.shape[-1]
        if work <= _BLAS_ONE_THREAD_MAX:
            np.matmul(av, _C._ndarray(b), out=rv)
        else:
            _threading.matmul_into(av, _C._ndarray(b), rv, work)
    return result


@register("linear_bias", "cpu")
def linear_bias(x, weight, bias):
    """``x @ weight.T + bias`` of a 2-D ``x``, a 2-D ``weight`` and a 1-D ``bias`` of
    one float dtype (checked by the caller, ``nn.Linear``) in a new tensor, the bias
    added inside the product's BLAS blocks (``gemm.matmul_into``); None where that
    does not apply (the caller then adds the bias to the product).

    Examples
    --------
    >>> import cygrad
    >>> linear_bias(cygrad.ones(2, 3), cygrad.ones(4, 3), cygrad.arange(4.0)).tolist()
    [[3.0, 4.0, 5.0, 6.0], [3.0, 4.0, 5.0, 6.0]]
    """
    out = _C._empty((x.shape[0], weight.shape[0]), x.dtype, x.device)
    if out.numel() == 0 or x.shape[1] == 0:
        return None
    if _gemm.matmul_into(x, weight.t(), out, _threading._blas_threads, bias):
        return out
    return None


def _broadcast_labels(view, labels, sizes):
    """Expand size-1 dims to their label's size (a stride-0 view): NumPy's einsum
    does not broadcast named labels, PyTorch's does."""
    target = tuple(sizes[x] if n == 1 else n for x, n in zip(labels, view.shape))
    return view if target == view.shape else np.broadcast_to(view, target)


@register("einsum", "cpu")
def einsum(terms, out_labels, operands, sizes, result_dtype, compute_dtype):
    """The contraction ``terms -> out_labels`` (lists of one-letter labels) of CPU
    ``operands``, size-1 dims broadcast to ``sizes[label]``; computed in
    ``compute_dtype`` (a cygrad dtype, None: the operands') and returned as a new
    tensor of ``result_dtype``.

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> einsum([["i", "j"]], ["j", "i"], [a], {"i": 2, "j": 2}, a.dtype, None).tolist()
    [[1.0, 3.0], [2.0, 4.0]]
    """
    views = [_broadcast_labels(_C._ndarray(op), labels, sizes)
             for op, labels in zip(operands, terms)]
    if compute_dtype is not None:
        views = [v.astype(compute_dtype.np_dtype) for v in views]
    spec = ",".join("".join(t) for t in terms) + "->" + "".join(out_labels)
    # optimize=True lets NumPy contract pairwise through BLAS (tensordot) when it helps.
    res = np.asarray(np.einsum(spec, *views, optimize=len(views) > 1))
    if any(np.may_share_memory(res, v) for v in views) or res.dtype != result_dtype.np_dtype:
        # A pure relabelling ("ij->ji") gives a view of the input; return new memory.
        res = res.astype(result_dtype.np_dtype)
    # (not np.ascontiguousarray: it turns a 0-dim result into shape (1,))
    return _C.from_numpy(res if res.flags.c_contiguous else res.copy())


# ----------------------------------------------------------------------- decompositions

def _np(t):
    return t.detach().numpy()


def _t(a):
    a = np.asarray(a)
    # (np.ascontiguousarray would turn a 0-d result into 1-d)
    return _C.from_numpy(a if a.flags.c_contiguous else a.copy())


@register("linalg_solve", "cpu")
def _solve(a, b):
    return _t(np.linalg.solve(_np(a), _np(b)))


@register("linalg_inv", "cpu")
def _inv(a):
    return _t(np.linalg.inv(_np(a)))


@register("linalg_cholesky", "cpu")
def _cholesky(a):
    return _t(np.linalg.cholesky(_np(a)))


@register("linalg_slogdet", "cpu")
def _slogdet(a):
    sign, logabs = np.linalg.slogdet(_np(a))
    return _t(np.asarray(sign)), _t(np.asarray(logabs))


@register("linalg_eigh", "cpu")
def _eigh(a):
    w, v = np.linalg.eigh(_np(a))
    return _t(w), _t(v)


@register("linalg_svd", "cpu")
def _svd(a, full_matrices):
    u, s, vh = np.linalg.svd(_np(a), full_matrices=full_matrices)
    return _t(u), _t(s), _t(vh)


@register("linalg_qr", "cpu")
def _qr(a, mode):
    q, r = np.linalg.qr(_np(a), mode=mode)
    return _t(q), _t(r)


# --------------------------------------------- decompositions with PyTorch's errors
# LAPACK's info codes, computed again on the error path only: NumPy raises for the
# whole batch without saying which element or which pivot failed, PyTorch's message
# names both.

def _batches(a):
    """The matrices of a (..., m, n) array, one at a time, with their batch index."""
    flat = a.reshape((int(np.prod(a.shape[:-2], dtype=np.int64)),) + a.shape[-2:])
    return flat, a.shape[:-2]


def _lu_np(a):
    """Partial-pivot LU of a (..., m, n) array, batched, in one pass of Gaussian
    elimination over the columns (LAPACK's getrf2 without blocking): the packed
    factors (unit-diagonal L below, U on and above the diagonal), the 1-based row
    interchanges (int32) and getrf's info (0, or the 1-based index of the first
    exactly zero pivot)."""
    lu = np.array(a, dtype=a.dtype if a.dtype.kind in "fc" else np.float64, copy=True)
    m, n = lu.shape[-2:]
    k = min(m, n)
    nb = int(np.prod(lu.shape[:-2], dtype=np.int64))
    flat = lu.reshape((nb, m, n))
    piv = np.zeros((nb, k), dtype=np.int32)
    info = np.zeros(nb, dtype=np.int32)
    rows = np.arange(nb)
    for j in range(k):
        p = j + np.argmax(np.abs(flat[:, j:, j]), axis=1) if m > j else np.full(nb, j)
        piv[:, j] = p + 1
        swap = p != j
        if swap.any():
            r = rows[swap]
            tmp = flat[r, j, :].copy()
            flat[r, j, :] = flat[r, p[swap], :]
            flat[r, p[swap], :] = tmp
        pivot = flat[:, j, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        safe = np.where(zero, 1, pivot)
        if j + 1 < m:
            flat[:, j + 1:, j] = np.where(zero[:, None], flat[:, j + 1:, j],
                                          flat[:, j + 1:, j] / safe[:, None])
            flat[:, j + 1:, j + 1:] -= flat[:, j + 1:, j, None] * flat[:, j, None, j + 1:]
    return lu, piv.reshape(a.shape[:-2] + (k,)), info.reshape(a.shape[:-2])


def _chol_info(a, upper=False):
    """potrf's info for each matrix: 0, or the order of the first leading minor that is
    not positive-definite (minors of a positive-definite matrix are positive-definite,
    so a bisection finds it)."""
    flat, batch = _batches(a)
    info = np.zeros(flat.shape[0], dtype=np.int32)
    for i, m in enumerate(flat):
        if upper:
            m = m.conj().T
        try:
            np.linalg.cholesky(m)
            continue
        except np.linalg.LinAlgError:
            pass
        lo, hi = 0, m.shape[0]          # minor lo is PD (0: trivially), minor hi is not
        while hi - lo > 1:
            mid = (lo + hi) // 2
            try:
                np.linalg.cholesky(m[:mid, :mid])
                lo = mid
            except np.linalg.LinAlgError:
                hi = mid
        info[i] = hi
    return info.reshape(batch)


def _where(batch_index, batch_shape):
    return "" if not batch_shape else f"(Batch element {batch_index}): "


def _raise_singular(name, info, batch_shape, what):
    flat = info.reshape(-1)
    i = int(np.flatnonzero(flat)[0])
    raise LinAlgError(f"{name}: {_where(i, batch_shape)}The diagonal element {flat[i]} is zero, "
                      f"the {what} could not be completed because the input matrix is singular.")


def _raise_not_pd(name, info, batch_shape):
    flat = info.reshape(-1)
    i = int(np.flatnonzero(flat)[0])
    raise LinAlgError(f"{name}: {_where(i, batch_shape)}The factorization could not be completed "
                      f"because the input is not positive-definite (the leading minor of order "
                      f"{flat[i]} is not positive-definite).")


def _per_matrix(fn, a, *rest):
    """``fn`` applied matrix by matrix (the error path: a batch where some element is
    singular still gets its other results); a failing element gives NaNs."""
    out = []
    flat, batch = _batches(a)
    rest_flat = [np.broadcast_to(r, batch + r.shape[len(batch):]).reshape((-1,) + r.shape[len(batch):])
                 for r in rest]
    for i, m in enumerate(flat):
        try:
            out.append(fn(m, *(r[i] for r in rest_flat)))
        except np.linalg.LinAlgError:
            shape = fn(np.eye(m.shape[-1], dtype=m.dtype), *(r[i] for r in rest_flat)).shape
            out.append(np.full(shape, np.nan, dtype=m.dtype))
    res = np.stack(out) if out else np.zeros((0,) + a.shape[-2:], a.dtype)
    return res.reshape(batch + res.shape[1:])


@register("linalg_inv_ex", "cpu")
def _inv_ex(a, check_errors, name="linalg.inv"):
    """``inv(a)`` and getrf's info per matrix; raises PyTorch's LinAlgError (naming
    ``name``) where a matrix is singular and ``check_errors``."""
    x = _np(a)
    try:
        return _t(np.linalg.inv(x)), _t(np.zeros(x.shape[:-2], np.int32))
    except np.linalg.LinAlgError:
        info = _lu_np(x)[2]
        if check_errors:
            _raise_singular(name, info, x.shape[:-2], "inversion")
        return _t(_per_matrix(np.linalg.inv, x)), _t(info)


@register("linalg_solve_ex", "cpu")
def _solve_ex(a, b, check_errors, name="torch.linalg.solve"):
    """``solve(a, b)`` (``b`` a batch of matrices broadcast with ``a``) and getrf's info;
    PyTorch's LinAlgError (named ``name``) where a matrix is singular and
    ``check_errors``."""
    x, y = _np(a), _np(b)
    try:
        return _t(np.linalg.solve(x, y)), _t(np.zeros(x.shape[:-2], np.int32))
    except np.linalg.LinAlgError:
        info = _lu_np(x)[2]
        if check_errors:
            flat = info.reshape(-1)
            i = int(np.flatnonzero(flat)[0])
            raise LinAlgError(f"{name}: {_where(i, x.shape[:-2])}The solver failed because the "
                              f"input matrix is singular.")
        return _t(_per_matrix(np.linalg.solve, x, y)), _t(info)


@register("linalg_cholesky_ex", "cpu")
def _cholesky_ex(a, check_errors, name="linalg.cholesky"):
    """The lower Cholesky factor of each matrix (only its lower triangle is read) and
    potrf's info."""
    x = _np(a)
    try:
        return _t(np.linalg.cholesky(x)), _t(np.zeros(x.shape[:-2], np.int32))
    except np.linalg.LinAlgError:
        info = _chol_info(x)
        if check_errors:
            _raise_not_pd(name, info, x.shape[:-2])
        return _t(_per_matrix(np.linalg.cholesky, x)), _t(info)


@register("linalg_eigh_uplo", "cpu")
def _eigh_uplo(a, uplo):
    w, v = np.linalg.eigh(_np(a), UPLO=uplo)
    return _t(w), _t(v)


@register("linalg_eig", "cpu")
def _eig(a):
    """Eigenvalues and eigenvectors of general matrices, always complex (NumPy returns
    real arrays when every eigenvalue is real; PyTorch never does)."""
    x = _np(a)
    ctype = np.result_type(x.dtype, np.complex64)
    w, v = np.linalg.eig(x)
    return _t(w.astype(ctype)), _t(v.astype(ctype))


@register("linalg_lu_factor", "cpu")
def _lu_factor(a):
    """Packed LU factors, 1-based int32 pivots and info, as LAPACK's getrf."""
    lu, piv, info = _lu_np(_np(a))
    return _t(lu), _t(piv), _t(info)


@register("linalg_geqrf", "cpu")
def _geqrf(a):
    """LAPACK's geqrf: R on and above the diagonal, the Householder vectors below it,
    and their scales ``tau`` (NumPy's ``qr(mode="raw")``, whose result is transposed)."""
    h, tau = np.linalg.qr(_np(a), mode="raw")
    return _t(np.swapaxes(h, -1, -2)), _t(tau)


@register("linalg_det", "cpu")
def _det(a):
    return _t(np.linalg.det(_np(a)))


@register("linalg_solve_triangular", "cpu")
def _solve_triangular(a, b, upper, unitriangular):
    """``X`` with ``A X = B`` for triangular ``A`` (only its ``upper`` or lower triangle
    is read; ``unitriangular``: its diagonal is taken as ones), ``A`` and ``B`` batches
    of one shape: substitution row by row over the whole batch, as LAPACK's trsm, so a
    zero on the diagonal gives infinities and NaNs rather than an error."""
    x_a, x_b = _np(a), _np(b)
    dtype = np.result_type(x_a.dtype, x_b.dtype)
    x = np.array(x_b, dtype=dtype, copy=True)
    n = x_a.shape[-1]
    order = range(n - 1, -1, -1) if upper else range(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in order:
            rest = slice(i + 1, n) if upper else slice(0, i)
            if rest.start != rest.stop:
                x[..., i, :] -= np.einsum("...j,...jk->...k", x_a[..., i, rest], x[..., rest, :])
            if not unitriangular:
                x[..., i, :] /= x_a[..., i, i, None]
    return _t(x)
