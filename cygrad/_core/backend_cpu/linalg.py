"""CPU kernels of the matrix products (``cygrad/ops/linalg.py``) and of the matrix
decompositions (``linalg_*``, used by ``cygrad.numpy.linalg``).

Products: ``matmul_into`` writes NumPy's ``matmul`` of zero-copy views straight
into the output tensor (BLAS for float32/float64, NumPy's loop for integers,
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
from .. import tensor as _C
from ..dispatch import register

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
    """``result[...] = a @ b`` with NumPy's matmul rules, on views (no copies for
    float32/float64/integers); ``result`` (non-empty, of ``a``'s dtype) already has
    the right shape."""
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
