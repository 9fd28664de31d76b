"""``cygrad.linalg`` and the ``torch``-level linear algebra beyond the op table
(``tests/opinfo/linalg_api.py``): PyTorch's errors and ``info`` codes for singular and
non positive-definite inputs, result tuples, sign-independent comparisons of the
decompositions whose vector signs differ between LAPACK builds, gradients against
PyTorch's (complex, singular ``det``, ``eig``), and ``cygrad.numpy.linalg`` sharing
the same Functions."""
import numpy as np
import pytest

import cygrad
from cygrad.autograd import gradcheck

torch = pytest.importorskip("torch", reason="PyTorch is the reference of these tests")

L = cygrad.linalg


def pair(a, requires_grad=False):
    a = np.array(a, copy=True)
    c = cygrad.from_numpy(a.copy())
    t = torch.from_numpy(a.copy())
    if requires_grad:
        c.requires_grad_()
        t.requires_grad_()
    return c, t


def close(c, t, atol=1e-10):
    np.testing.assert_allclose(np.asarray(c.detach().numpy()), t.detach().numpy(), atol=atol,
                               rtol=1e-7)


@pytest.fixture
def rng():
    return np.random.default_rng(18)


SINGULAR = np.array([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]])
NOT_PD = np.array([[[2.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, -1.0]]])


@pytest.mark.parametrize("call", [
    lambda lib, a: lib.linalg.inv(a),
    lambda lib, a: lib.linalg.solve(a, a),
    lambda lib, a: lib.linalg.cholesky(lib.from_numpy(NOT_PD.copy())),
    lambda lib, a: lib.linalg.inv(a[1]),
], ids=["inv_batch", "solve_batch", "cholesky_batch", "inv_matrix"])
def test_singular_and_not_pd_raise_pytorchs_linalgerror(call):
    c, t = pair(SINGULAR)
    with pytest.raises(torch.linalg.LinAlgError) as t_err:
        call(torch, t)
    with pytest.raises(cygrad.linalg.LinAlgError) as c_err:
        call(cygrad, c)
    assert isinstance(c_err.value, RuntimeError)
    assert str(c_err.value) == str(t_err.value)


def test_linalgerror_is_numpys_too():
    # cygrad.numpy.linalg raised NumPy's error before the namespaces shared their kernels
    import cygrad.numpy as cnp
    with pytest.raises(np.linalg.LinAlgError):
        cnp.linalg.inv(cnp.zeros((2, 2)))


@pytest.mark.parametrize("name", ["inv_ex", "cholesky_ex", "lu_factor_ex", "solve_ex"])
def test_ex_variants_report_lapacks_info(name):
    a = np.concatenate([SINGULAR, NOT_PD, np.eye(3)[None, :2, :2] * 2])
    c, t = pair(a)
    args = (lambda x: (x, x)) if name == "solve_ex" else (lambda x: (x,))
    res_c, res_t = getattr(L, name)(*args(c)), getattr(torch.linalg, name)(*args(t))
    assert res_c.info.tolist() == res_t.info.tolist()
    assert res_c.info.dtype == cygrad.int32


def test_check_errors_raises():
    c, t = pair(SINGULAR)
    with pytest.raises(cygrad.linalg.LinAlgError):
        L.inv_ex(c, check_errors=True)
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.inv_ex(t, check_errors=True)


def test_result_tuples_have_pytorchs_names_and_fields(rng):
    c, t = pair(rng.standard_normal((3, 3)) + 3 * np.eye(3))
    spd_c, spd_t = pair(np.eye(3) * 2)
    calls = {
        "slogdet": lambda lib, a, s: lib.linalg.slogdet(a),
        "eigh": lambda lib, a, s: lib.linalg.eigh(s),
        "qr": lambda lib, a, s: lib.linalg.qr(a),
        "svd": lambda lib, a, s: lib.linalg.svd(a),
        "lstsq": lambda lib, a, s: lib.linalg.lstsq(a, a),
        "lu_factor": lambda lib, a, s: lib.linalg.lu_factor(a),
        "lu": lambda lib, a, s: lib.linalg.lu(a),
        "inv_ex": lambda lib, a, s: lib.linalg.inv_ex(a),
        "torch.svd": lambda lib, a, s: lib.svd(a),
        "torch.qr": lambda lib, a, s: lib.qr(a),
        "torch.slogdet": lambda lib, a, s: lib.slogdet(a),
        "geqrf": lambda lib, a, s: lib.geqrf(a),
        "triangular_solve": lambda lib, a, s: lib.triangular_solve(a, a),
        "lu_unpack": lambda lib, a, s: lib.lu_unpack(*lib.linalg.lu_factor(a)),
    }
    for name, f in calls.items():
        rc, rt = f(cygrad, c, spd_c), f(torch, t, spd_t)
        assert type(rc).__name__ == type(rt).__name__, name
        assert rc._fields == type(rt).__match_args__, name       # (torch's field names)


def test_svd_and_eigh_agree_with_pytorch_up_to_signs(rng):
    a = rng.standard_normal((2, 5, 3))
    c, t = pair(a)
    uc, sc, vhc = L.svd(c, full_matrices=False)
    ut, st, vht = torch.linalg.svd(t, full_matrices=False)
    close(sc, st)
    close(uc.abs(), ut.abs(), 1e-8)
    close(vhc.abs(), vht.abs(), 1e-8)
    close((uc * sc.unsqueeze(-2)) @ vhc, torch.from_numpy(a))
    s = np.swapaxes(a, -1, -2) @ a          # 3 x 3, distinct eigenvalues
    c, t = pair(s)
    wc, vc = L.eigh(c)
    wt, vt = torch.linalg.eigh(t)
    close(wc, wt, 1e-8)
    close(vc.abs(), vt.abs(), 1e-7)


def test_torch_svd_returns_v(rng):
    c, t = pair(rng.standard_normal((4, 3)))
    u, s, v = cygrad.svd(c, some=False)
    assert tuple(u.shape) == (4, 4) and tuple(v.shape) == (3, 3)
    close((u[:, :3] * s) @ v.mT, t)


def test_gauge_invariant_gradients_match_pytorch(rng):
    a = rng.standard_normal((4, 3))
    c, t = pair(a, requires_grad=True)
    for lib, x in ((cygrad, c), (torch, t)):
        u, s, vh = lib.linalg.svd(x, full_matrices=False)
        # a projector onto the first two left singular vectors: sign-independent
        (s.sum() + (u[:, :2] @ u[:, :2].mT)[0, 1] + (vh.mT[:, :1] @ vh[:1]).sum()).backward()
    close(c.grad, t.grad, 1e-9)
    sym = a[:3] + a[:3].T
    c, t = pair(sym, requires_grad=True)
    for lib, x in ((cygrad, c), (torch, t)):
        w, v = lib.linalg.eigh(x)
        (w[-1] + (v[:, :1] @ v[:, :1].mT)[0, 2]).backward()
    close(c.grad, t.grad, 1e-9)


def test_eig_gradients_match_pytorch(rng):
    a = rng.standard_normal((3, 3)) + np.diag([0.0, 3.0, 6.0])
    c, t = pair(a, requires_grad=True)
    for lib, x in ((cygrad, c), (torch, t)):
        w, v = lib.linalg.eig(x)
        (w.abs().sum() + v.abs().sum()).backward()
    close(c.grad, t.grad, 1e-9)
    close(L.eigvals(c.detach()), torch.linalg.eigvals(t.detach()), 1e-10)


def test_complex_gradients_match_pytorch(rng):
    a = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    for f in (lambda lib, x, y: lib.linalg.inv(x).abs().sum(),
              lambda lib, x, y: lib.linalg.det(x).abs(),
              lambda lib, x, y: lib.linalg.solve(x, y).real.sum(),
              lambda lib, x, y: lib.linalg.matrix_exp(x * 0.2).imag.sum(),
              lambda lib, x, y: lib.linalg.svdvals(x).sum()):
        (ca, ta), (cb, tb) = pair(a, True), pair(b, True)
        f(cygrad, ca, cb).backward()
        f(torch, ta, tb).backward()
        close(ca.grad, ta.grad, 1e-9)
        if cb.grad is not None or tb.grad is not None:
            close(cb.grad, tb.grad, 1e-9)


def _adjugate(a):
    n = a.shape[0]
    cof = np.empty_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, 0), j, 1)
            cof[i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return cof.T


@pytest.mark.parametrize("a", [
    np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, 1.0, 2.0]]),     # rank 2
    np.array([[1.0, 2.0], [2.0, 4.0]]),                                  # rank 1
], ids=["rank2", "rank1"])
def test_det_of_singular_matrix_has_the_adjugate_as_gradient(a):
    # d det(A) / dA = adj(A)^T.  (PyTorch 2.13 returns 0 for the rank-2 case, which its
    # own gradcheck rejects; finite differences and the cofactors agree with cygrad.)
    c = cygrad.from_numpy(a.copy()).requires_grad_()
    L.det(c).backward()
    np.testing.assert_allclose(c.grad.numpy(), _adjugate(a).T, atol=1e-12)
    assert gradcheck(L.det, [c.detach().clone().requires_grad_()], check_forward_ad=True)


def test_lstsq_fields_per_driver_match_pytorch(rng):
    a, b = rng.standard_normal((6, 3)), rng.standard_normal((6, 2))
    (ca, ta), (cb, tb) = pair(a), pair(b)
    for driver in (None, "gels", "gelsd", "gelss", "gelsy"):
        rc = L.lstsq(ca, cb, driver=driver)
        rt = torch.linalg.lstsq(ta, tb, driver=driver)
        for x, y in zip(rc, rt):
            assert tuple(x.shape) == tuple(y.shape), driver
            close(x, y, 1e-9)


def test_batched_broadcast_noncontiguous_solve(rng):
    a = rng.standard_normal((3, 1, 4, 4)) + 4 * np.eye(4)
    b = rng.standard_normal((2, 6, 4))
    (ca, ta), (cb, tb) = pair(a), pair(b)
    x = L.solve(ca.mT, cb[:, ::2].mT)          # transposed and strided views
    close(x, torch.linalg.solve(ta.mT, tb[:, ::2].mT))
    assert tuple(x.shape) == (3, 2, 4, 3)


def test_removed_functions_raise_like_pytorch():
    c, t = pair(np.eye(2))
    for name in ("solve", "lstsq", "eig", "symeig", "matrix_rank"):
        with pytest.raises(RuntimeError, match="deprecated since version 1.9"):
            getattr(torch, name)(t, t) if name in ("solve", "lstsq") else getattr(torch, name)(t)
        with pytest.raises(RuntimeError, match="deprecated since version 1.9"):
            getattr(cygrad, name)(c, c) if name in ("solve", "lstsq") else getattr(cygrad, name)(c)
    for name in ("solve", "lstsq", "eig", "symeig"):
        with pytest.raises(RuntimeError):
            getattr(c, name)(c)


def test_tensor_methods_exist_like_pytorchs():
    names = ["det", "inverse", "slogdet", "logdet", "cholesky", "cholesky_inverse",
             "cholesky_solve", "lu", "lu_solve", "qr", "svd", "pinverse", "matrix_power",
             "matrix_exp", "triangular_solve", "geqrf", "orgqr", "ormqr", "kron", "cross",
             "trace", "diag", "diag_embed", "diagflat", "cov", "corrcoef", "dist", "renorm",
             "renorm_", "addbmm_", "addmm_", "addmv_", "addr_", "baddbmm_"]
    assert [n for n in names if hasattr(torch.Tensor, n) and not hasattr(cygrad.Tensor, n)] == []
    missing = [n for n in dir(torch.linalg) if not n.startswith("_") and n != "common_notes"
               and not hasattr(cygrad.linalg, n)]
    assert missing == []


def test_numpy_linalg_shares_the_functions(rng):
    import cygrad.numpy as cnp
    from cygrad.ops.linalg import decompositions as D
    a = cnp.asarray(rng.standard_normal((3, 3)) + 3 * np.eye(3))
    a.requires_grad_()
    assert type(cnp.linalg.inv(a).grad_fn)._forward_cls is D.Inv
    assert type(L.inv(a).grad_fn)._forward_cls is D.Inv
    assert type(cnp.linalg.eigh(a + a.mT).eigenvalues.grad_fn)._forward_cls is D.Eigh


def test_lowrank_svd_and_pca_match_pytorchs_values(rng):
    x = rng.standard_normal((30, 3)) @ rng.standard_normal((3, 12))
    c, t = pair(x)
    cygrad.manual_seed(0)
    u, s, v = cygrad.svd_lowrank(c, q=5)
    close(s[:3], torch.linalg.svdvals(t)[:3], 1e-8)
    close((u[:, :3] * s[:3]) @ v[:, :3].mT, t, 1e-8)
    u, s, v = cygrad.pca_lowrank(c, q=4)
    _, st, _ = torch.pca_lowrank(t, q=4)
    close(s[:3], st[:3], 1e-8)


def test_inplace_products_refuse_a_broadcast_input():
    with pytest.raises(RuntimeError):
        torch.ones(3).addmm_(torch.ones(2, 4), torch.ones(4, 3))
    with pytest.raises(RuntimeError):
        cygrad.ones(3).addmm_(cygrad.ones(2, 4), cygrad.ones(4, 3))


def test_ldl_factor_matches_pytorch_without_pivoting(rng):
    a = rng.standard_normal((4, 4))
    spd = a @ a.T + 4 * np.eye(4)
    c, t = pair(spd)
    ld_c, piv_c = L.ldl_factor(c)
    ld_t, piv_t = torch.linalg.ldl_factor(t)
    assert piv_c.tolist() == piv_t.tolist()
    close(ld_c, ld_t)
    b = rng.standard_normal((4, 2))
    close(L.ldl_solve(ld_c, piv_c, cygrad.from_numpy(b.copy())),
          torch.linalg.ldl_solve(ld_t, piv_t, torch.from_numpy(b.copy())))
