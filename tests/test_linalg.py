"""Matrix products (``cygrad/ops/linalg/products.py``) beyond the op table: every matmul rank
rule on strided inputs, errors (type *and* message) against PyTorch, ``out=``,
einsum's equation forms and tensordot's ``dims`` forms."""
import numpy as np
import pytest

import cygrad

torch = pytest.importorskip("torch", reason="PyTorch reference not installed")


def t(a):
    """A cygrad tensor with its own copy of ``a``."""
    return cygrad.from_numpy(np.array(a, copy=True))


def tt(a):
    return torch.from_numpy(np.array(a, copy=True))


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def randn(rng, *shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------------------
# matmul: shapes, strides, dtypes
# ---------------------------------------------------------------------------
SHAPE_PAIRS = [
    ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)),
    ((2, 3, 4), (4,)), ((4,), (2, 4, 5)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
    ((2, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((1, 3, 4), (6, 4, 2)),
    ((0, 4), (4, 3)), ((3, 0), (0, 2)), ((2, 0, 3), (3, 4)), ((0,), (0,)),
]


@pytest.mark.parametrize("sa,sb", SHAPE_PAIRS, ids=[f"{a}@{b}" for a, b in SHAPE_PAIRS])
def test_matmul_shapes_match_numpy_and_torch(rng, sa, sb):
    a, b = randn(rng, *sa), randn(rng, *sb)
    res = cygrad.matmul(t(a), t(b))
    np.testing.assert_allclose(res.numpy(), np.matmul(a, b), rtol=1e-12, atol=1e-12)
    assert tuple(res.shape) == tuple(torch.matmul(tt(a), tt(b)).shape)
    assert res.dtype == cygrad.float64


def test_matmul_transposed_and_strided_inputs(rng):
    a, b = randn(rng, 5, 4), randn(rng, 3, 5)
    ta, tb = t(a), t(b)
    # a.T @ b.T: both operands are transposed views (BLAS handles them without copies)
    np.testing.assert_allclose((ta.t() @ tb.t()).numpy(), a.T @ b.T, rtol=1e-12)
    # step-2 slices and negative strides
    big = randn(rng, 8, 10)
    view = t(big)[::2, 1::2]
    assert not view.is_contiguous()
    np.testing.assert_allclose((view @ view.t()).numpy(), big[::2, 1::2] @ big[::2, 1::2].T,
                               rtol=1e-12)
    flipped = t(a.copy())[::-1]
    right = randn(rng, 4, 3)
    np.testing.assert_allclose((flipped @ t(right)).numpy(), a[::-1] @ right, rtol=1e-12)
    # batched transposes (mT) and stride-0 (expanded) batch dims
    c = randn(rng, 2, 4, 3)
    np.testing.assert_allclose((t(c).mT @ t(c)).numpy(), np.swapaxes(c, -1, -2) @ c, rtol=1e-12)
    row = randn(rng, 3, 4)
    expanded = t(row).expand(6, 3, 4)
    np.testing.assert_allclose((expanded @ t(c[0])).numpy(), np.broadcast_to(row, (6, 3, 4)) @ c[0],
                               rtol=1e-12)


def test_matmul_float32_large_uses_float32_precision(rng):
    a, b = randn(rng, 128, 96, dtype=np.float32), randn(rng, 96, 64, dtype=np.float32)
    res = t(a) @ t(b)
    assert res.dtype == cygrad.float32
    np.testing.assert_allclose(res.numpy(), a.astype(np.float64) @ b.astype(np.float64),
                               rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_integer_matmul_wraps_like_torch(dtype):
    r = np.random.default_rng(3)
    info = np.iinfo(dtype)
    a = r.integers(info.min, int(info.max) + 1, (4, 6)).astype(dtype)
    b = r.integers(info.min, int(info.max) + 1, (6, 3)).astype(dtype)
    res = t(a) @ t(b)
    assert res.dtype == getattr(cygrad, dtype)
    np.testing.assert_array_equal(res.numpy(), (tt(a) @ tt(b)).numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_matmul_close_to_torch(dtype, rng):
    a = randn(rng, 3, 16, dtype=np.float32)
    b = randn(rng, 16, 5, dtype=np.float32)
    ca, cb = t(a).to(getattr(cygrad, dtype)), t(b).to(getattr(cygrad, dtype))
    ta, tb = tt(a).to(getattr(torch, dtype)), tt(b).to(getattr(torch, dtype))
    res = ca @ cb
    assert res.dtype == getattr(cygrad, dtype)
    tol = 2e-2 if dtype == "bfloat16" else 2e-3
    np.testing.assert_allclose(res.float().numpy(), (ta @ tb).float().numpy(), rtol=tol, atol=tol * 4)


def test_matmul_empty_inner_dim_gives_zeros():
    res = cygrad.matmul(cygrad.ones(2, 0), cygrad.ones(0, 3))
    assert res.shape == (2, 3) and res.numpy().tolist() == [[0.0] * 3] * 2
    assert cygrad.dot(cygrad.ones(0), cygrad.ones(0)).item() == 0.0


def test_matmul_operator_and_method():
    a, b = cygrad.ones(2, 3), cygrad.ones(3, 4)
    assert (a @ b).numpy().tolist() == [[3.0] * 4] * 2
    assert a.matmul(b).shape == (2, 4)
    assert b.__rmatmul__(a).shape == (2, 4)
    with pytest.raises(TypeError):
        a @ [[1.0], [2.0], [3.0]]


def test_matmul_result_is_a_new_tensor():
    a = cygrad.eye(3)
    res = a @ a
    res.fill_(5.0)
    assert a.numpy().tolist() == np.eye(3).tolist()


# ---------------------------------------------------------------------------
# errors: same type and message as PyTorch
# ---------------------------------------------------------------------------
def _f32(*shape):
    return np.ones(shape, np.float32)


def _f64(*shape):
    return np.ones(shape, np.float64)


ERROR_CASES = {
    "mm_shapes": ("mm", (_f32(2, 3), _f32(4, 5))),
    "matmul_shapes": ("matmul", (_f32(2, 3), _f32(4, 5))),
    "matmul_vec_mat": ("matmul", (_f32(3), _f32(4, 5))),
    "matmul_mat_vec": ("matmul", (_f32(2, 3), _f32(4))),
    "matmul_dot": ("matmul", (_f32(3), _f32(4))),
    "matmul_batch_bcast": ("matmul", (_f32(2, 2, 3), _f32(3, 4, 5))),
    "matmul_batch_inner": ("matmul", (_f32(2, 2, 3), _f32(2, 4, 5))),
    "matmul_batch_mat": ("matmul", (_f32(2, 2, 3), _f32(4, 5))),
    "matmul_batch_vec": ("matmul", (_f32(2, 2, 3), _f32(4))),
    "matmul_vec_batch": ("matmul", (_f32(4), _f32(2, 3, 5))),
    "matmul_0d": ("matmul", (_f32(), _f32(3))),
    "matmul_dtype_mm": ("matmul", (_f32(2, 3), _f64(3, 2))),
    "matmul_dtype_mv": ("matmul", (_f32(2, 3), _f64(3))),
    "matmul_dtype_dot": ("matmul", (_f32(3), _f64(3))),
    "matmul_dtype_bmm": ("matmul", (_f32(2, 2, 3), _f64(2, 3, 4))),
    "mm_vector": ("mm", (_f32(3), _f32(3, 2))),
    "mm_vector2": ("mm", (_f32(2, 3), _f32(3))),
    "bmm_rank": ("bmm", (_f32(2, 3), _f32(2, 3, 4))),
    "bmm_batch": ("bmm", (_f32(2, 2, 3), _f32(3, 3, 4))),
    "bmm_inner": ("bmm", (_f32(2, 2, 3), _f32(2, 4, 4))),
    "bmm_dtype": ("bmm", (_f32(2, 2, 3), _f64(2, 3, 4))),
    "mv_size": ("mv", (_f32(2, 3), _f32(4))),
    "mv_rank": ("mv", (_f32(2, 3), _f32(3, 1))),
    "mv_dtype": ("mv", (_f32(2, 3), _f64(3))),
    "dot_size": ("dot", (_f32(3), _f32(4))),
    "dot_rank": ("dot", (_f32(3, 1), _f32(3))),
    "vdot_dtype": ("vdot", (_f32(3), _f64(3))),
    "outer_rank": ("outer", (_f32(3, 1), _f32(4))),
    "outer_0d": ("outer", (_f32(), _f32(4))),
    "matmul_bool": ("matmul", (np.ones((2, 3), bool), np.ones((3, 2), bool))),
    "dot_bool": ("dot", (np.ones(3, bool), np.ones(3, bool))),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_errors_match_torch(case):
    name, arrays = ERROR_CASES[case]
    with pytest.raises(Exception) as t_err:
        getattr(torch, name)(*[tt(a) for a in arrays])
    with pytest.raises(type(t_err.value)) as c_err:
        getattr(cygrad, name)(*[t(a) for a in arrays])
    assert str(c_err.value) == str(t_err.value)


EINSUM_ERRORS = [
    ("ij,jk->ik", [(2, 3), (4, 4)]),
    ("ij,jk->ik", [(2, 3)]),
    ("ij->j", [(2, 3), (2, 3)]),
    ("ijk->", [(2, 3)]),
    ("ii->i", [(2, 3)]),
    ("ij->jj", [(2, 3)]),
    ("ij->k", [(2, 3)]),
    ("i1->", [(2, 3)]),
    ("i,i->i", [(2,), (3,)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM_ERRORS, ids=[e for e, _ in EINSUM_ERRORS])
def test_einsum_errors_match_torch(eq, shapes):
    with pytest.raises(Exception) as t_err:
        torch.einsum(eq, *[torch.ones(s) for s in shapes])
    with pytest.raises(type(t_err.value)) as c_err:
        cygrad.einsum(eq, *[cygrad.ones(*s) for s in shapes])
    assert str(c_err.value) == str(t_err.value)


def test_einsum_dtype_mismatch_matches_torch():
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        cygrad.einsum("ij,jk", cygrad.ones(2, 3), cygrad.ones(3, 4, dtype=cygrad.float64))


@pytest.mark.parametrize("dims", [-1, 4, ([1], [0, 1]), ([1, 1], [0, 0])], ids=str)
def test_tensordot_errors_match_torch(dims):
    with pytest.raises(Exception) as t_err:
        torch.tensordot(torch.ones(2, 3, 4), torch.ones(4, 4, 5), dims=dims)
    with pytest.raises(type(t_err.value)) as c_err:
        cygrad.tensordot(cygrad.ones(2, 3, 4), cygrad.ones(4, 4, 5), dims=dims)
    assert str(c_err.value) == str(t_err.value)


def test_non_tensor_arguments_raise_type_error():
    with pytest.raises(TypeError):
        cygrad.matmul([[1.0]], cygrad.ones(1, 1))
    with pytest.raises(TypeError):
        cygrad.mm(cygrad.ones(1, 1), 2.0)


# ---------------------------------------------------------------------------
# out=
# ---------------------------------------------------------------------------
def test_out_is_written_and_returned(rng):
    a, b = randn(rng, 2, 3), randn(rng, 3, 4)
    out = cygrad.empty(2, 4, dtype=cygrad.float64)
    v0 = out._version
    res = cygrad.matmul(t(a), t(b), out=out)
    assert res is out and out._version > v0
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-12)


def test_out_may_be_a_transposed_view(rng):
    a, b = randn(rng, 2, 3), randn(rng, 3, 4)
    base = cygrad.zeros(4, 2, dtype=cygrad.float64)
    cygrad.mm(t(a), t(b), out=base.t())
    np.testing.assert_allclose(base.numpy(), (a @ b).T, rtol=1e-12)


def test_out_dtype_must_match_like_torch():
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got double"):
        cygrad.mm(cygrad.ones(2, 3), cygrad.ones(3, 4), out=cygrad.empty(2, 4, dtype=cygrad.float64))


def test_tensordot_out(rng):
    a, b = randn(rng, 2, 3, 4), randn(rng, 3, 4, 5)
    out = cygrad.empty(2, 5, dtype=cygrad.float64)
    assert cygrad.tensordot(t(a), t(b), dims=2, out=out) is out
    np.testing.assert_allclose(out.numpy(), np.tensordot(a, b, 2), rtol=1e-12)


# ---------------------------------------------------------------------------
# einsum
# ---------------------------------------------------------------------------
EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("ij->", [(2, 3)]),
    ("i,j->ij", [(2,), (3,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("...ij->ij", [(5, 2, 3)]),           # ellipsis dims summed away (NumPy refuses this)
    ("i...->", [(2, 3)]),
    ("...ij,...jk", [(2, 1, 2, 3), (4, 3, 2)]),
    ("i,i->i", [(1,), (3,)]),             # size-1 label broadcasts (PyTorch semantics)
    ("bij,bjk->bik", [(1, 2, 3), (4, 3, 2)]),
    ("Ab,bC", [(2, 3), (3, 4)]),
    ("ba", [(2, 3)]),
    ("ij,ij->ij", [(0, 3), (0, 3)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM_CASES, ids=[e for e, _ in EINSUM_CASES])
def test_einsum_matches_torch(eq, shapes, rng):
    arrays = [randn(rng, *s) for s in shapes]
    expected = torch.einsum(eq, *[tt(a) for a in arrays])
    res = cygrad.einsum(eq, *[t(a) for a in arrays])
    assert tuple(res.shape) == tuple(expected.shape)
    np.testing.assert_allclose(res.numpy(), expected.numpy(), rtol=1e-12, atol=1e-12)


def test_einsum_operand_list_and_sublist_forms(rng):
    a, b = randn(rng, 2, 3), randn(rng, 3, 4)
    ref = a @ b
    np.testing.assert_allclose(cygrad.einsum("ij,jk->ik", [t(a), t(b)]).numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(cygrad.einsum(t(a), [0, 1], t(b), [1, 2], [0, 2]).numpy(), ref,
                               rtol=1e-12)
    np.testing.assert_allclose(cygrad.einsum(t(a), [0, 1], t(b), [1, 2]).numpy(), ref, rtol=1e-12)
    batch = randn(rng, 5, 2, 3)
    np.testing.assert_allclose(cygrad.einsum(t(batch), [Ellipsis, 0, 1], [Ellipsis, 1, 0]).numpy(),
                               np.swapaxes(batch, -1, -2), rtol=1e-12)


@pytest.mark.parametrize("eq,dtype,shapes", [
    ("ij->", "bool", [(2, 3)]), ("ij->j", "int8", [(2, 3)]), ("ij->ji", "bool", [(2, 3)]),
    ("i,i->i", "bool", [(3,), (3,)]), ("i,i", "int32", [(3,), (3,)]),
    ("ij,jk", "int64", [(2, 3), (3, 2)]), ("ij,jk", "float16", [(2, 3), (3, 2)]),
])
def test_einsum_result_dtype_matches_torch(eq, dtype, shapes):
    r = np.random.default_rng(0)
    arrays = [(r.integers(0, 3, s)).astype(np.float32).astype(dtype if dtype != "bool" else bool)
              for s in shapes]
    expected = torch.einsum(eq, *[tt(a) for a in arrays])
    res = cygrad.einsum(eq, *[t(a) for a in arrays])
    assert res.dtype.name == str(expected.dtype).replace("torch.", "")
    np.testing.assert_allclose(res.numpy().astype(np.float64),
                               expected.to(torch.float64).numpy(), rtol=1e-3)


def test_einsum_bool_contraction_not_implemented_like_torch():
    with pytest.raises(NotImplementedError):
        torch.einsum("ij,jk", torch.ones(2, 3, dtype=torch.bool), torch.ones(3, 2, dtype=torch.bool))
    with pytest.raises(NotImplementedError):
        cygrad.einsum("ij,jk", cygrad.ones(2, 3, dtype=cygrad.bool), cygrad.ones(3, 2, dtype=cygrad.bool))


def test_einsum_returns_new_memory():
    a = cygrad.zeros(2, 3)
    b = cygrad.einsum("ij->ji", a)
    b.fill_(1.0)
    assert a.numpy().sum() == 0


# ---------------------------------------------------------------------------
# tensordot / outer / addmm family
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("sa,sb,dims", [
    ((2, 3, 4), (3, 4, 5), 2), ((2, 3), (4, 5), 0), ((3, 2, 4), (4, 3), ([0, 2], [1, 0])),
    ((2, 3, 4), (4, 5), ([-1], [0])), ((2, 0), (0, 3), 1), ((2, 1, 4), (3, 4), ([1, 2], [0, 1])),
], ids=str)
def test_tensordot_matches_torch(sa, sb, dims, rng):
    a, b = randn(rng, *sa), randn(rng, *sb)
    expected = torch.tensordot(tt(a), tt(b), dims=dims)
    res = cygrad.tensordot(t(a), t(b), dims=dims)
    assert tuple(res.shape) == tuple(expected.shape)
    np.testing.assert_allclose(res.numpy(), expected.numpy(), rtol=1e-12, atol=1e-12)


def test_tensordot_dims_as_tensor(rng):
    a, b = randn(rng, 2, 3, 4), randn(rng, 3, 4, 5)
    res = cygrad.tensordot(t(a), t(b), dims=cygrad.tensor([[1, 2], [0, 1]]))
    np.testing.assert_allclose(res.numpy(), np.tensordot(a, b, ([1, 2], [0, 1])), rtol=1e-12)


def test_outer_promotes_like_torch():
    a, b = cygrad.tensor([1, 2]), cygrad.tensor([0.5, 1.5])
    res = cygrad.outer(a, b)
    assert res.dtype == cygrad.float32
    assert res.numpy().tolist() == torch.outer(torch.tensor([1, 2]), torch.tensor([0.5, 1.5])).tolist()
    assert cygrad.ger(a, b).numpy().tolist() == res.numpy().tolist()


def test_addmm_beta_zero_ignores_nan_input():
    inp = cygrad.full((2, 2), float("nan"))
    res = cygrad.addmm(inp, cygrad.ones(2, 3), cygrad.ones(3, 2), beta=0)
    assert res.numpy().tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_add_family_matches_torch(rng):
    m, a, b = randn(rng, 3, 4), randn(rng, 3, 2), randn(rng, 2, 4)
    np.testing.assert_allclose(cygrad.addmm(t(m), t(a), t(b), beta=0.5, alpha=2).numpy(),
                               torch.addmm(tt(m), tt(a), tt(b), beta=0.5, alpha=2).numpy(), rtol=1e-12)
    v = randn(rng, 2)
    np.testing.assert_allclose(cygrad.addmv(t(m[:, 0]), t(a), t(v)).numpy(),
                               torch.addmv(tt(m[:, 0]), tt(a), tt(v)).numpy(), rtol=1e-12)
    b1, b2 = randn(rng, 3, 2, 5), randn(rng, 3, 5, 4)
    inp = randn(rng, 2, 4)
    np.testing.assert_allclose(cygrad.addbmm(t(inp), t(b1), t(b2)).numpy(),
                               torch.addbmm(tt(inp), tt(b1), tt(b2)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(cygrad.baddbmm(t(inp), t(b1), t(b2), alpha=3).numpy(),
                               torch.baddbmm(tt(inp), tt(b1), tt(b2), alpha=3).numpy(), rtol=1e-12)
