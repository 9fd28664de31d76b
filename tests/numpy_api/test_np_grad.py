"""Gradients of cygrad.numpy functions: gradcheck (float64 finite differences) for
elementwise, statistical, manipulation and linalg functions, decompositions included."""
import numpy as np
import pytest

import cygrad
import cygrad.numpy as cnp
from cygrad.autograd import gradcheck

R = np.random.default_rng(3)


def leaf(a):
    return cygrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


SQ = R.standard_normal((3, 3)) + 3 * np.eye(3)
RECT = R.standard_normal((4, 3))
F = R.standard_normal((3, 4))

CASES = [
    ("asinh", lambda x: cnp.asinh(x), (F * 3,)),
    ("acosh", lambda x: cnp.acosh(x), (np.abs(F) + 1.5,)),
    ("atanh", lambda x: cnp.atanh(x), (np.tanh(F),)),
    ("cbrt", lambda x: cnp.cbrt(x), (F + np.sign(F),)),
    ("logaddexp", lambda x, y: cnp.logaddexp(x, y), (F, F.T.copy().T * 2)),
    ("hypot", lambda x, y: cnp.hypot(x, y), (F, F + 1)),
    ("copysign", lambda x, y: cnp.copysign(x, y), (F, -F)),
    ("sqrt", lambda x: cnp.sqrt(x), (np.abs(F) + 0.1,)),
    ("clip", lambda x: cnp.clip(x, -0.5, 0.5), (F,)),
    ("where", lambda x, y: cnp.where(x > 0, x * 2, y), (F, F * 3)),
    ("std correction", lambda x: cnp.std(x, axis=1, correction=1), (F,)),
    ("var", lambda x: cnp.var(x, axis=(0, 1)), (F,)),
    ("prod axis", lambda x: cnp.prod(x, axis=0), (F,)),
    ("cumulative_sum", lambda x: cnp.cumulative_sum(x, axis=1, include_initial=True), (F,)),
    ("median", lambda x: cnp.median(x, axis=1), (F,)),
    ("max axis", lambda x: cnp.max(x, axis=1), (F,)),
    ("pad reflect", lambda x: cnp.pad(x, ((1, 1), (2, 0)), mode="reflect"), (F,)),
    ("pad constant", lambda x: cnp.pad(x, 1, constant_values=3.0), (F,)),
    ("diff", lambda x: cnp.diff(x, n=2, axis=1), (F,)),
    ("take", lambda x: cnp.take(x, cnp.asarray([0, 2, 2]), axis=1), (F,)),
    ("take_along_axis", lambda x: cnp.take_along_axis(x, cnp.argsort(x, axis=0), axis=0), (F,)),
    ("sort", lambda x: cnp.sort(x, axis=1, descending=True), (F,)),
    ("concat stack", lambda x, y: cnp.stack([cnp.concat([x, y]), cnp.concat([y, x])]), (F, F * 2)),
    ("tile repeat", lambda x: cnp.repeat(cnp.tile(x, (2, 1)), 2, axis=1), (F,)),
    ("einsum", lambda x, y: cnp.einsum("ij,kj->ik", x, y), (F, F * 0.5)),
    ("vecdot", lambda x, y: cnp.vecdot(x, y), (F, F + 1)),
    ("linalg.solve", lambda a, b: cnp.linalg.solve(a, b), (SQ, F)),
    ("linalg.solve vector", lambda a, b: cnp.linalg.solve(a, b), (SQ, F[:, 0])),
    ("linalg.inv", lambda a: cnp.linalg.inv(a), (SQ,)),
    ("linalg.det", lambda a: cnp.linalg.det(a), (SQ,)),
    ("linalg.slogdet", lambda a: cnp.linalg.slogdet(a).logabsdet, (SQ,)),
    ("linalg.cholesky", lambda x: cnp.linalg.cholesky(x @ x.mT + 3 * cnp.eye(3)), (SQ,)),
    ("linalg.eigh values", lambda x: cnp.linalg.eigh(x + x.mT).eigenvalues, (SQ,)),
    # eigenvectors are fixed only up to sign: check a sign-free function of them
    ("linalg.eigh vectors", lambda x: cnp.abs(cnp.linalg.eigh(x + x.mT).eigenvectors), (SQ,)),
    ("linalg.svd S", lambda a: cnp.linalg.svd(a, full_matrices=False).S, (RECT,)),
    ("linalg.svd U Vh", lambda a: tuple(cnp.abs(t) for t in cnp.linalg.svd(a, full_matrices=False)[::2]),
     (RECT,)),
    ("linalg.svd wide", lambda a: cnp.abs(cnp.linalg.svd(a, full_matrices=False).U), (F,)),
    ("linalg.qr", lambda a: tuple(cnp.linalg.qr(a)), (RECT,)),
    ("linalg.pinv", lambda a: cnp.linalg.pinv(a), (RECT,)),
    ("linalg.lstsq", lambda a, b: cnp.linalg.lstsq(a, b)[0], (RECT, RECT[:, 0] + 1)),
    ("linalg.matrix_power", lambda a: cnp.linalg.matrix_power(a, -2), (SQ,)),
    ("linalg.norm nuc", lambda a: cnp.linalg.norm(a, ord="nuc"), (RECT,)),
    ("linalg.norm 2", lambda a: cnp.linalg.matrix_norm(a, ord=2), (RECT,)),
    ("linalg.vector_norm 3", lambda a: cnp.linalg.vector_norm(a, ord=3, axis=0), (RECT,)),
]


@pytest.mark.parametrize("name,fn,inputs", CASES, ids=[c[0] for c in CASES])
def test_gradcheck(name, fn, inputs):
    assert gradcheck(fn, tuple(leaf(a) for a in inputs), eps=1e-6, atol=1e-5, rtol=1e-4)


def test_decompositions_double_backward():
    """The backward formulas are cygrad ops, so a second derivative exists and is right."""
    a = leaf(SQ)
    (g,) = cygrad.autograd.grad(cnp.linalg.det(a), a, create_graph=True)
    (h,) = cygrad.autograd.grad(g.sum(), a)
    eps = 1e-6
    num = np.zeros_like(SQ)
    for i in range(3):
        for j in range(3):
            d = np.zeros_like(SQ)
            d[i, j] = eps
            up = np.linalg.det(SQ + d) * np.linalg.inv(SQ + d).T
            dn = np.linalg.det(SQ - d) * np.linalg.inv(SQ - d).T
            num[i, j] = (up.sum() - dn.sum()) / (2 * eps)
    np.testing.assert_allclose(h.numpy(), num, rtol=1e-5, atol=1e-6)


def test_undefined_gradients_are_refused():
    a = leaf(RECT)
    with pytest.raises(NotImplementedError):
        cnp.linalg.svd(a, full_matrices=True).U.sum().backward()
    w = leaf(F)
    with pytest.raises(NotImplementedError):
        cnp.linalg.qr(w).Q.sum().backward()
