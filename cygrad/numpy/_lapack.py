"""CPU kernels for the matrix decompositions, registered in cygrad's kernel table
(``cygrad._core.dispatch``) under ``linalg_*`` primitive names.

cygrad's core has no LAPACK primitives yet. DESIGN.md puts a NumPy call that is
the best CPU implementation *inside the CPU backend*, behind the kernel table;
these kernels are written that way (tensors in, tensors out, zero-copy views
through ``.numpy()``/``from_numpy``, no autograd), so moving this file into
``cygrad/_core/backend_cpu.py`` later changes no caller. The differentiable
functions are in ``cygrad.numpy.linalg``.

Examples
--------
>>> import cygrad
>>> from cygrad._core import dispatch
>>> from cygrad.numpy import _lapack  # noqa: F401  (registers the kernels)
>>> a = cygrad.tensor([[2.0, 0.0], [0.0, 4.0]], dtype=cygrad.float64)
>>> dispatch.kernel("linalg_inv", "cpu")(a).tolist()
[[0.5, 0.0], [0.0, 0.25]]
"""
import numpy as np

import cygrad
from cygrad._core.dispatch import register


def _np(t):
    return t.detach().numpy()


def _t(a):
    a = np.asarray(a)
    # (np.ascontiguousarray would turn a 0-d result into 1-d)
    return cygrad.from_numpy(a if a.flags.c_contiguous else a.copy())


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
