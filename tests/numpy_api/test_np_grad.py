"""Gradients of cygrad.numpy functions: gradcheck (float64 and complex128 finite
differences) for every row of the table in ``tests/numpy_cases.py`` (the forward-mode
tests use the same rows), and second derivatives of the decompositions."""
import numpy as np
import pytest

import cygrad
import cygrad.numpy as cnp
from cygrad.autograd import gradcheck

from numpy_cases import F, RECT, SQ, params


def leaf(a):
    return cygrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


@pytest.mark.parametrize("case", params("grad_bug"))
def test_gradcheck(case):
    leaves = tuple(cygrad.from_numpy(np.array(a)).requires_grad_() for a in case.inputs)
    outs = case.fn(*leaves)
    # a differentiable function has a floating result (gradcheck skips the others)
    assert any(o.dtype.is_floating_point or o.dtype.is_complex
               for o in (outs if isinstance(outs, (tuple, list)) else (outs,)))
    assert gradcheck(case.fn, leaves, eps=1e-6, atol=1e-5, rtol=1e-4)


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
