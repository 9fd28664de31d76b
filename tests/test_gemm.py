"""Matrix products straight into BLAS (cygrad/_core/gemm.pyx): every layout the
kernel takes (transposed views, row strides, broadcast batch dims, folded
batches, vectors, zero sizes) against NumPy's matmul, which path each took
(``gemm.counters()``), and the cases it leaves to NumPy."""
import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad import _threading
from cygrad._core import gemm
from cygrad._core import tensor as core

pytestmark = pytest.mark.skipif(not gemm.available(),
                                reason="NumPy's BLAS is not an ILP64 OpenBLAS: products use NumPy")

DTYPES = [np.float32, np.float64]


def _tol(dt):
    return dict(rtol=1e-4, atol=1e-4) if dt == np.float32 else dict(rtol=1e-11, atol=1e-11)


def _t(x):
    return cygrad.from_numpy(np.ascontiguousarray(x))


def _delta(before):
    after = gemm.counters()
    return {k: after[k] - before[k] for k in after}


def _check(a, b, dt, products=1, copies=0, calls=None):
    """a @ b equals NumPy's matmul of the same views, computed here with the
    expected number of products, operand copies and BLAS calls."""
    ref = np.matmul(a.numpy(), b.numpy())
    before = gemm.counters()
    got = (a @ b).numpy()
    d = _delta(before)
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, **_tol(dt))
    assert d["products"] == products and d["copies"] == copies, d
    if calls is not None:
        assert d["blas_calls"] == calls, d
    return d


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.mark.parametrize("dt", DTYPES)
def test_transposed_operands_need_no_copy(dt, rng):
    # (big enough that the plain pair is not left to the core's small-matrix loop)
    a = _t(rng.standard_normal((40, 30)).astype(dt))
    b = _t(rng.standard_normal((30, 50)).astype(dt))
    at = _t(a.numpy().T.copy()).t()          # values of a, column-major
    bt = _t(b.numpy().T.copy()).t()
    for x, y in [(a, b), (at, b), (a, bt), (at, bt)]:
        _check(x, y, dt)
    # batched, transposed in the last two dims
    a3 = _t(rng.standard_normal((3, 5, 6)).astype(dt)).transpose(-2, -1)
    b3 = _t(rng.standard_normal((3, 7, 5)).astype(dt)).transpose(-2, -1)
    _check(a3, b3, dt, calls=3)


@pytest.mark.parametrize("dt", DTYPES)
def test_row_strides_are_leading_dimensions(dt, rng):
    wide = _t(rng.standard_normal((6, 20)).astype(dt))
    b = _t(rng.standard_normal((20, 9)).astype(dt))
    _check(wide[:, 3:8], b[:5, 2:6], dt)              # column blocks of wider matrices
    _check(wide[:, :5].t(), wide[:, 10:13], dt)        # a transposed block


@pytest.mark.parametrize("dt", DTYPES)
def test_attention_views(dt, rng):
    # q, k, v of shape (B, H, T, D) are views of one (B, T, 3C) projection
    B, T, H, D = 2, 8, 3, 4
    C = H * D
    qkv = _t(rng.standard_normal((B, T, 3 * C)).astype(dt))
    q, k, v = (x.view(B, T, H, D).transpose(1, 2) for x in qkv.split(C, dim=2))
    _check(q, k.transpose(-2, -1), dt, calls=B * H)
    p = _t(rng.standard_normal((B, H, T, T)).astype(dt))
    _check(p, v, dt, calls=B * H)
    _check(p.transpose(-2, -1), q, dt, calls=B * H)   # backward's form: p^T @ g
    _check(q[:, :, 1:6], k.transpose(-2, -1)[..., 2:7], dt)


@pytest.mark.parametrize("dt", DTYPES)
def test_broadcast_batch_dims(dt, rng):
    a = _t(rng.standard_normal((3, 1, 5, 7)).astype(dt))
    b = _t(rng.standard_normal((4, 7, 2)).astype(dt))
    _check(a, b, dt, calls=12)
    _check(b.transpose(-2, -1), a.transpose(-2, -1), dt, calls=12)
    _check(a[0, 0], b, dt, calls=4)                     # (5, 7) @ (4, 7, 2)
    e = _t(rng.standard_normal((1, 5, 7)).astype(dt)).expand(4, 5, 7)   # stride 0
    _check(e, b, dt, calls=4)


@pytest.mark.parametrize("dt", DTYPES)
def test_batch_folds_into_rows(dt, rng):
    x = _t(rng.standard_normal((4, 6, 8)).astype(dt))
    w = _t(rng.standard_normal((5, 8)).astype(dt))
    _check(x, w.t(), dt, calls=1)              # one (24, 8) @ (8, 5) GEMM
    _check(x, w.t()[:, :3], dt, calls=1)
    _check(x[:, :1], w.t(), dt, calls=1)       # rows of one: the batch stride is the leading dim
    _check(x[:, :, :5], w.t()[:5], dt, calls=1)
    _check(x.transpose(0, 1), w.t(), dt, calls=6)     # batch not in row order: a loop


@pytest.mark.parametrize("dt", DTYPES)
def test_batch_of_one_and_vectors(dt, rng):
    a = _t(rng.standard_normal((1, 5, 7)).astype(dt))
    b = _t(rng.standard_normal((1, 7, 3)).astype(dt))
    _check(a, b, dt, calls=1)
    _check(a[:, :1], b, dt, calls=1)
    v = _t(rng.standard_normal(7).astype(dt))
    b3 = _t(rng.standard_normal((4, 7, 3)).astype(dt))
    _check(v, b3, dt, calls=4)                 # 1-D @ 3-D: a row per batch
    a3 = _t(rng.standard_normal((4, 3, 7)).astype(dt))
    _check(a3, v, dt, calls=1)                 # 3-D @ 1-D: the batch folds
    _check(a3.transpose(-2, -1)[..., :1, :], v[:3], dt)
    _check(_t(rng.standard_normal(14).astype(dt))[::2], b3, dt)   # a strided vector


@pytest.mark.parametrize("dt", DTYPES)
def test_zero_sizes(dt, rng):
    for sa, sb in [((0, 3), (3, 4)), ((2, 3), (3, 0)), ((2, 0), (0, 4)),
                   ((0, 2, 3), (3, 4)), ((2, 3, 0), (2, 0, 5)), ((2, 0, 3), (2, 3, 5))]:
        a = _t(rng.standard_normal(sa).astype(dt))
        b = _t(rng.standard_normal(sb).astype(dt))
        ref = np.matmul(a.numpy(), b.numpy())
        got = (a @ b).numpy()
        assert got.shape == ref.shape
        np.testing.assert_array_equal(got, ref)       # k = 0: zeros


@pytest.mark.parametrize("dt", DTYPES)
def test_unreadable_operand_copied_once(dt, rng):
    a = _t(rng.standard_normal((5, 6, 14)).astype(dt))
    b = _t(rng.standard_normal((5, 7, 4)).astype(dt))
    _check(a[..., ::2], b, dt, copies=1, calls=5)          # a column step: copied once, whole
    wide_b = _t(rng.standard_normal((5, 7, 8)).astype(dt))
    _check(a[..., :7], wide_b[..., ::2], dt, copies=1, calls=5)
    _check(a[..., ::2], wide_b[..., ::2], dt, copies=2, calls=5)
    row0 = _t(rng.standard_normal((1, 7)).astype(dt)).expand(6, 7)   # row stride 0
    _check(row0, b, dt, copies=1, calls=5)


@pytest.mark.parametrize("dt", DTYPES)
def test_result_layouts(dt, rng):
    a = _t(rng.standard_normal((3, 5, 7)).astype(dt))
    b = _t(rng.standard_normal((3, 7, 4)).astype(dt))
    ref = np.matmul(a.numpy(), b.numpy())
    out = cygrad.empty(3, 4, 5, dtype=a.dtype).transpose(-2, -1)    # column-major result
    assert gemm.matmul_into(a, b, out, 1)
    np.testing.assert_allclose(out.numpy(), ref, **_tol(dt))
    wide = cygrad.zeros(3, 5, 9, dtype=a.dtype)
    assert gemm.matmul_into(a, b, wide[..., 2:6], 1)                 # row stride 9
    np.testing.assert_allclose(wide.numpy()[..., 2:6], ref, **_tol(dt))
    assert (wide.numpy()[..., :2] == 0).all() and (wide.numpy()[..., 6:] == 0).all()
    # declined, nothing written: a result neither row- nor column-major, one that
    # overlaps an operand, a shape that is not the product's
    spaced = cygrad.zeros(3, 5, 8, dtype=a.dtype)[..., ::2]
    assert not gemm.matmul_into(a, b, spaced, 1)
    assert not gemm.matmul_into(a, b, cygrad.zeros(3, 5, 5, dtype=a.dtype), 1)
    square = _t(rng.standard_normal((4, 4)).astype(dt))
    assert not gemm.matmul_into(square, square, square, 1)
    expanded = cygrad.zeros(1, 5, 4, dtype=a.dtype).expand(3, 5, 4)
    assert not gemm.matmul_into(a, b, expanded, 1)
    # the kernel entry (what every product op calls) still writes those through NumPy
    from cygrad._core.dispatch import kernel
    kernel("matmul_into", "cpu")(a, b, spaced)
    np.testing.assert_allclose(spaced.numpy(), ref, **_tol(dt))


def test_other_dtypes_keep_numpys_path(rng):
    a = rng.standard_normal((2, 3, 4))
    b = rng.standard_normal((2, 4, 5))
    for dtype in (cygrad.float16, cygrad.bfloat16, cygrad.complex64, cygrad.int32, cygrad.int64):
        x = cygrad.from_numpy(a).to(dtype)
        y = cygrad.from_numpy(b).to(dtype)
        out = cygrad.empty(2, 3, 5, dtype=dtype)
        assert not gemm.matmul_into(x, y, out, 1)
        wide = cygrad.complex128 if dtype.is_complex else cygrad.float64
        before = gemm.counters()
        got = (x @ y).to(wide).numpy()
        assert _delta(before)["products"] == 0
        ref = np.matmul(x.to(wide).numpy(), y.to(wide).numpy())
        np.testing.assert_allclose(got, ref, rtol=2e-2, atol=5e-2)
    x = cygrad.from_numpy(a.astype(np.float32))
    assert not gemm.matmul_into(x, cygrad.from_numpy(b), cygrad.empty(2, 3, 5), 1)  # mixed


def test_disconnected_falls_back_to_numpy(rng):
    a = _t(rng.standard_normal((3, 4, 5)))
    b = _t(rng.standard_normal((5, 2)))
    gemm.set_blas(0, 0, 0, 1, 1)
    try:
        assert not gemm.available()
        np.testing.assert_allclose((a @ b).numpy(), a.numpy() @ b.numpy(), rtol=1e-12)
    finally:
        assert gemm.connect()


@pytest.mark.parametrize("shapes", [((64, 64, 64), (64, 64, 64)),     # small slices: the pool
                                    ((8, 128, 128), (8, 128, 128)),    # the pool, BLAS lowered
                                    ((3, 100, 100), (100, 100)),       # mid size: BLAS on 1 thread
                                    ((260, 260), (260, 260))])         # large: cut into blocks
def test_thread_policy_paths(shapes, rng):
    a = _t(rng.standard_normal(shapes[0]).astype(np.float32))
    b = _t(rng.standard_normal(shapes[1]).astype(np.float32))
    ref = np.matmul(a.numpy().astype(np.float64), b.numpy().astype(np.float64))
    old = cygrad.get_num_threads()
    try:
        for n in (1, 2):
            cygrad.set_num_threads(n)
            got = (a.transpose(-2, -1) @ b).numpy() if len(shapes[0]) == 2 else (a @ b).numpy()
            want = np.matmul(a.numpy().T.astype(np.float64), b.numpy()) if len(shapes[0]) == 2 else ref
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
            if _threading._blas is not None:      # the BLAS is back at the budget
                assert _threading._blas.get() == n
    finally:
        cygrad.set_num_threads(old)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("m,k,n", [(32, 128, 512),      # wide: blocks of columns
                                   (1000, 64, 192),     # tall: blocks of rows
                                   (40, 300, 100)])     # ragged blocks (not multiples of 16)
@pytest.mark.parametrize("layout", ["nn", "tn", "nt", "tt", "out_t"])
def test_mid_size_product_split_across_the_pool(dt, m, k, n, layout, rng):
    # from 2^20 multiply-adds one product is cut into blocks that cygrad's pool
    # computes (two threads), with every operand layout
    def operand(r, c, transposed):
        x = rng.standard_normal((c, r) if transposed else (r, c)).astype(dt)
        return _t(x).t() if transposed else _t(x)
    a = operand(m, k, layout[0] == "t")
    b = operand(k, n, layout[1] == "t" if layout != "out_t" else False)
    ref = a.numpy().astype(np.float64) @ b.numpy().astype(np.float64)
    old = cygrad.get_num_threads()
    try:
        cygrad.set_num_threads(2)
        # a stall seen earlier (a loaded machine: tests running beside this one) would
        # keep mid-sized products on one thread for a quarter second; this test is
        # about the quiet policy
        core._set_pool_contended(False)
        before = gemm.counters()
        if layout == "out_t":      # a column-major result: C^T = B^T A^T is what is split
            out = cygrad.empty(n, m, dtype=a.dtype).t()
            cygrad.matmul(a, b, out=out)
            got = out.numpy()
        else:
            got = (a @ b).numpy()
        d = _delta(before)
        assert d["products"] == 1 and d["split"] == 1 and d["copies"] == 0, d
        np.testing.assert_allclose(got, ref, **_tol(dt))
        cygrad.set_num_threads(1)          # one thread: the same product, not split
        before = gemm.counters()
        np.testing.assert_allclose((a @ b).numpy(), ref, **_tol(dt))
        assert _delta(before)["split"] == 0
    finally:
        cygrad.set_num_threads(old)


@pytest.mark.parametrize("dt", DTYPES)
def test_a_few_large_products_are_each_cut_into_blocks(dt, rng):
    # fewer products than threads (3 < 4): each product is cut across the pool,
    # batch element by batch element, also when the batch dims do not merge
    base = rng.standard_normal((3, 2, 110, 100)).astype(dt)
    a = _t(base).permute(1, 0, 2, 3)[:, :2]                  # (2, 2, 110, 100), dims unmerged
    b = _t(rng.standard_normal((2, 2, 100, 150)).astype(dt))
    ref = np.matmul(a.numpy().astype(np.float64), b.numpy().astype(np.float64))
    old = cygrad.get_num_threads()
    try:
        cygrad.set_num_threads(8)
        before = gemm.counters()
        got = (a @ b).numpy()
        d = _delta(before)
        assert d["products"] == 1 and d["split"] == 4 and d["copies"] == 0, d
        np.testing.assert_allclose(got, ref, **_tol(dt))
    finally:
        cygrad.set_num_threads(old)


def test_random_layouts_against_numpy():
    """Random shapes, slices, transposes and broadcasts, all through the kernel."""
    rng = np.random.default_rng(7)
    taken = 0
    for _ in range(150):
        dt = DTYPES[rng.integers(2)]
        m, k, n = (int(x) for x in rng.integers(1, 6, size=3))
        batch = tuple(int(x) for x in rng.integers(1, 4, size=rng.integers(0, 3)))
        a_batch = tuple(1 if rng.random() < 0.3 else s for s in batch)
        b_batch = tuple(1 if rng.random() < 0.3 else s for s in batch)[rng.integers(0, len(batch) + 1):]

        def operand(lead, r, c):
            how = rng.integers(4)
            if how == 0:       # plain
                return _t(rng.standard_normal(lead + (r, c)).astype(dt))
            if how == 1:       # stored transposed
                return _t(rng.standard_normal(lead + (c, r)).astype(dt)).transpose(-2, -1)
            if how == 2:       # a block of a wider, taller matrix
                return _t(rng.standard_normal(lead + (r + 2, c + 3)).astype(dt))[..., 1:r + 1, 2:c + 2]
            return _t(rng.standard_normal(lead + (r, 2 * c)).astype(dt))[..., ::2]   # step

        a, b = operand(a_batch, m, k), operand(b_batch, k, n)
        if a.dim() == 2 and rng.random() < 0.3:
            a = a[0]                  # a vector
        if b.dim() == 2 and rng.random() < 0.3:
            b = b[:, 0]
        ref = np.matmul(a.numpy(), b.numpy())
        before = gemm.counters()
        got = (a @ b).numpy()
        taken += _delta(before)["products"]
        assert got.shape == ref.shape
        np.testing.assert_allclose(got, ref, **_tol(dt))
    assert taken > 100      # (dot and small mm take the core's C loops instead)


def test_linear_and_matmul_backward_copy_nothing(rng):
    """F.linear's forward and backward and matmul's backward (which transposes)
    reach BLAS without copying an operand; gradients match PyTorch's."""
    torch = pytest.importorskip("torch", reason="PyTorch is the gradient reference")
    x = rng.standard_normal((4, 16, 32)).astype(np.float32)
    w = rng.standard_normal((48, 32)).astype(np.float32)
    bias = rng.standard_normal(48).astype(np.float32)
    qkv = rng.standard_normal((2, 16, 3 * 32)).astype(np.float32)

    def run(lib, x, w, bias, qkv):
        x, w, bias, qkv = (lib.tensor(v, requires_grad=True) for v in (x, w, bias, qkv))
        y = F.linear(x, w, bias) if lib is cygrad else torch.nn.functional.linear(x, w, bias)
        q, k, v = (t.view(2, 16, 4, 8).transpose(1, 2) for t in qkv.split(32, dim=2))
        att = (q @ k.transpose(-2, -1)) @ v
        ((y * y).sum() + (att * att).sum()).backward()
        return [t.grad.numpy() for t in (x, w, bias, qkv)]

    before = gemm.counters()
    got = run(cygrad, x, w, bias, qkv)
    d = _delta(before)
    # forward: 1 linear + 2 attention; backward: 2 linear + 4 attention (+ the bias's mv)
    assert d["products"] >= 9 and d["copies"] == 0, d
    want = run(torch, x, w, bias, qkv)
    for g, r in zip(got, want):
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-3)


# ---- the bias inside the product's blocks (nn.Linear's forward)

@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("m,k,n,threads", [(5, 7, 3, 1),           # one block
                                           (1000, 64, 192, 2),     # blocks of rows
                                           (32, 128, 512, 2),      # blocks of columns
                                           (40, 300, 100, 2),      # ragged blocks
                                           (300, 260, 270, 1)])    # dims above 256, one thread
def test_bias_is_added_inside_the_blocks(dt, m, k, n, threads, rng):
    x = rng.standard_normal((m, k)).astype(dt)
    w = rng.standard_normal((n, k)).astype(dt)
    bias = rng.standard_normal(n).astype(dt)
    ref = x.astype(np.float64) @ w.T.astype(np.float64) + bias
    out = cygrad.empty(m, n, dtype=_t(x).dtype)
    out.fill_(float("nan"))                 # whatever was there is overwritten
    old = cygrad.get_num_threads()
    try:
        cygrad.set_num_threads(threads)
        before = gemm.counters()
        assert gemm.matmul_into(_t(x), _t(w).t(), out, threads, _t(bias))
        assert _delta(before)["split"] == (1 if threads > 1 else 0)
    finally:
        cygrad.set_num_threads(old)
    np.testing.assert_allclose(out.numpy(), ref, **_tol(dt))


def test_bias_declined_where_it_is_not_one_row_major_gemm(rng):
    """A batch that does not fold, a column-major result, a strided, wrongly sized,
    other-dtype or overlapping bias: False, and nothing written."""
    a = _t(rng.standard_normal((3, 4, 5)).astype(np.float32))
    b = _t(rng.standard_normal((3, 5, 6)).astype(np.float32))
    bias = _t(rng.standard_normal(12).astype(np.float32))
    cases = [(a, b, cygrad.zeros(3, 4, 6), bias[:6]),                     # a real batch
             (a[0], b[0], cygrad.zeros(6, 4).t(), bias[:6]),               # column-major result
             (a[0], b[0], cygrad.zeros(4, 6), bias[::2]),                  # strided bias
             (a[0], b[0], cygrad.zeros(4, 6), bias[:5]),                   # wrong size
             (a[0], b[0], cygrad.zeros(4, 6), bias[:6].double())]          # another dtype
    for x, y, out, bb in cases:
        assert not gemm.matmul_into(x, y, out, 1, bb)
        assert not out.numpy().any()
    out = cygrad.zeros(4, 6)
    assert not gemm.matmul_into(a[0], b[0], out, 1, out[0])               # overlaps the result
    assert not out.numpy().any()


@pytest.mark.parametrize("dt", DTYPES)
def test_linear_forward_matches_pytorch_with_the_fused_bias(dt, rng):
    """F.linear on 2-D and 3-D inputs (the batch folds into one GEMM) against
    PyTorch, values and gradients; the forward makes one product and no copy."""
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    x = rng.standard_normal((4, 300, 64)).astype(dt)
    w = rng.standard_normal((257, 64)).astype(dt)
    bias = rng.standard_normal(257).astype(dt)
    for xs in (x, x[0]):
        cx, cw, cb = (cygrad.tensor(v, requires_grad=True) for v in (xs, w, bias))
        tx, tw, tb = (torch.tensor(v, requires_grad=True) for v in (xs, w, bias))
        before = gemm.counters()
        y = F.linear(cx, cw, cb)
        d = _delta(before)
        assert d["products"] == 1 and d["copies"] == 0, d
        ty = torch.nn.functional.linear(tx, tw, tb)
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), **_tol(dt))
        (y * y).sum().backward()
        (ty * ty).sum().backward()
        for g, r in ((cx, tx), (cw, tw), (cb, tb)):
            np.testing.assert_allclose(g.grad.numpy(), r.grad.numpy(), rtol=1e-4,
                                       atol=1e-2 if dt == np.float32 else 1e-9)
