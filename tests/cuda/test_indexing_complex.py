"""The indexing family's complex accumulation kernels (cuda_src/indexing.cu:
cg_scatter_add_c64/c128, cg_scatter_mul_c64, cg_scatter_mul_lines_c128,
cg_mean_finish_c64/c128) on the emulated GPU in strict mode, against the CPU kernels
of the same ops and NumPy's ufunc.at: scatter_add, scatter(reduce=add/multiply),
scatter_reduce(sum/prod/mean), index_add (complex alpha), put and index_put with
accumulate; repeated indices (many updates to one element), strided inputs; the
reductions PyTorch refuses for complex (amax/amin, index_reduce) refused on the
device as on the CPU; gradients through scatter_add and index_add.
"""
import os
import sys

import numpy as np
import pytest

import cygrad
from cygrad._core import dispatch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emulated_gpu import emulated, needs_cxx  # noqa: E402,F401  (the fixture)

pytestmark = needs_cxx

RNG = np.random.default_rng(15)
COMPLEX = [cygrad.complex64, cygrad.complex128]
# sums in another order than the CPU's round differently: relative to the values' size
TOL = {cygrad.complex64: 1e-5, cygrad.complex128: 1e-12}


def host(t):
    return t.detach().cpu().numpy()


def cvalues(shape, dtype, unit=False):
    """Random complex values; ``unit``: on the unit circle (long products stay finite)."""
    if unit:
        v = np.exp(1j * RNG.uniform(-np.pi, np.pi, shape))
    else:
        v = RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)
    return cygrad.tensor(v).to(dtype)


def close(got, want, dtype):
    assert got.device.type == "cuda" and got.dtype is want.dtype is dtype
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(host(got), want.numpy(), rtol=TOL[dtype], atol=TOL[dtype])


def strided(t):
    """``t``'s values through a non-contiguous view (every other column of a wider
    tensor), on the device."""
    wide = cygrad.zeros(tuple(t.shape[:-1]) + (2 * t.shape[-1],), dtype=t.dtype)
    wide[..., ::2] = t
    view = wide.cuda()[..., ::2]
    assert not view.is_contiguous()
    return view


# ---------------------------------------------------------------- scatter family

@pytest.mark.parametrize("dtype", COMPLEX, ids=str)
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_complex_matches_cpu(dtype, reduce, include_self):
    x = cvalues((4, 6), dtype)
    src = cvalues((4, 8), dtype, unit=reduce == "prod")
    index = cygrad.tensor(RNG.integers(0, 3, (3, 8)))        # 8 updates into 3 places a row
    want = x.scatter_reduce(1, index, src, reduce, include_self=include_self)
    got = x.cuda().scatter_reduce(1, index.cuda(), src.cuda(), reduce,
                                  include_self=include_self)
    close(got, want, dtype)
    # a strided self and src: the same values
    got = strided(x).scatter_reduce(1, index.cuda(), strided(src), reduce,
                                    include_self=include_self)
    close(got, want, dtype)


@pytest.mark.parametrize("dtype", COMPLEX, ids=str)
def test_scatter_add_and_multiply_against_numpy(dtype):
    x = cvalues((3, 5), dtype)
    src = cvalues((3, 7), dtype)
    index = RNG.integers(0, 5, (3, 7))
    rows = np.broadcast_to(np.arange(3)[:, None], index.shape)
    want = x.numpy().copy()
    np.add.at(want, (rows, index), src.numpy())
    got = x.cuda().scatter_add(1, cygrad.tensor(index).cuda(), src.cuda())
    np.testing.assert_allclose(host(got), want, rtol=TOL[dtype], atol=TOL[dtype])
    got = x.cuda().scatter_(1, cygrad.tensor(index).cuda(), src.cuda(), reduce="add")
    np.testing.assert_allclose(host(got), want, rtol=TOL[dtype], atol=TOL[dtype])
    want = x.numpy().copy()
    np.multiply.at(want, (rows, index), src.numpy())
    got = x.cuda().scatter_(1, cygrad.tensor(index).cuda(), src.cuda(), reduce="multiply")
    np.testing.assert_allclose(host(got), want, rtol=TOL[dtype], atol=TOL[dtype])
    # a complex number as the value
    want = x.numpy().copy()
    np.multiply.at(want, (rows, index), np.asarray(2 - 0.5j, dtype=want.dtype))
    got = x.cuda().scatter_(1, cygrad.tensor(index).cuda(), 2 - 0.5j, reduce="multiply")
    np.testing.assert_allclose(host(got), want, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype", COMPLEX, ids=str)
def test_scatter_along_dim0_of_a_transposed_self(dtype):
    # dim 0 of a transposed (column-major) self: the line kernel of complex128
    # multiply walks the updates with the destination's strides
    x = cvalues((6, 4), dtype)
    src = cvalues((5, 4), dtype, unit=True)
    index = cygrad.tensor(RNG.integers(0, 6, (5, 4)))
    for reduce in ("sum", "prod", "mean"):
        want = x.scatter_reduce(0, index, src, reduce)
        xt = x.t().contiguous().cuda().t()
        assert not xt.is_contiguous()
        close(xt.scatter_reduce(0, index.cuda(), src.cuda(), reduce), want, dtype)


@pytest.mark.parametrize("dtype", COMPLEX, ids=str)
def test_many_updates_to_one_element(dtype):
    n = 3000
    x = cvalues((2,), dtype, unit=True)
    src = cvalues((n,), dtype, unit=True)
    index = cygrad.zeros(n, dtype=cygrad.int64)
    s = src.numpy().astype(np.complex128)
    x0 = complex(x.numpy()[0])
    got = host(x.cuda().scatter_add(0, index.cuda(), src.cuda()))
    tol = 1e-4 if dtype is cygrad.complex64 else 1e-11
    np.testing.assert_allclose(got[0], x0 + s.sum(), rtol=tol, atol=tol)
    assert got[1] == x.numpy()[1]
    got = host(x.cuda().scatter_reduce(0, index.cuda(), src.cuda(), "prod"))
    np.testing.assert_allclose(got[0], x0 * np.prod(s), rtol=tol, atol=tol)
    want = x.scatter_reduce(0, index, src, "prod")
    if dtype is cygrad.complex128:
        # no atomics: one thread multiplies the line in index order, as the CPU
        np.testing.assert_array_equal(got, want.numpy())
    got = host(x.cuda().scatter_reduce(0, index.cuda(), src.cuda(), "mean"))
    np.testing.assert_allclose(got[0], (x0 + s.sum()) / (n + 1), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", COMPLEX, ids=str)
def test_scatter_mean_divides_as_the_cpu(dtype):
    # exact values: the count's reciprocal times each part, as the CPU (and PyTorch)
    x = cvalues((1, 400), dtype)
    src = cygrad.zeros((1, 800), dtype=dtype)
    index = cygrad.tensor(np.tile(np.arange(400), 2)[None, :])
    want = x.scatter_reduce(1, index, src, "mean")
    got = x.cuda().scatter_reduce(1, index.cuda(), src.cuda(), "mean")
    np.testing.assert_array_equal(host(got), want.numpy())


# ---------------------------------------------------------------- index_add, put, index_put

@pytest.mark.parametrize("dtype", COMPLEX, ids=str)
@pytest.mark.parametrize("alpha", [1, 0.5, 2 - 1j])
def test_index_add_complex_alpha(dtype, alpha):
    x, src = cvalues((5, 3), dtype), cvalues((6, 3), dtype)
    idx = cygrad.tensor([4, 0, 4, 4, 2, 4])
    want = x.index_add(0, idx, src, alpha=alpha)
    close(x.cuda().index_add(0, idx.cuda(), src.cuda(), alpha=alpha), want, dtype)
    ref = x.numpy().copy()
    np.add.at(ref, idx.numpy(), (src.numpy() * np.asarray(alpha, dtype=ref.dtype)))
    np.testing.assert_allclose(want.numpy(), ref, rtol=TOL[dtype], atol=TOL[dtype])
    # along dim 1 of strided tensors
    xs, ss = strided(x.t().contiguous()), strided(src.t().contiguous())
    got = xs.index_add(1, idx.cuda(), ss, alpha=alpha)
    close(got, want.t().contiguous(), dtype)


@pytest.mark.parametrize("dtype", COMPLEX, ids=str)
def test_put_and_index_put_accumulate(dtype):
    x = cvalues((4, 5), dtype)
    vals = cvalues((9,), dtype)
    flat = cygrad.tensor([3, -1, 3, 7, 3, 0, 19, 3, 7])
    want = x.put(flat, vals, accumulate=True)
    close(x.cuda().put(flat.cuda(), vals.cuda(), accumulate=True), want, dtype)
    ref = x.numpy().copy().reshape(-1)
    np.add.at(ref, flat.numpy() % 20, vals.numpy())
    np.testing.assert_allclose(want.numpy().reshape(-1), ref, rtol=TOL[dtype], atol=TOL[dtype])
    # a transposed self: positions are row-major in its own shape
    xt = x.t().contiguous().cuda().t()
    close(xt.put(flat.cuda(), vals.cuda(), accumulate=True), want, dtype)
    rows, cols = cygrad.tensor([1, 3, 1, 1, 0]), cygrad.tensor([2, 2, 2, 2, 4])
    v = cvalues((5,), dtype)
    want = x.index_put((rows, cols), v, accumulate=True)
    got = x.cuda().index_put((rows.cuda(), cols.cuda()), v.cuda(), accumulate=True)
    close(got, want, dtype)
    ref = x.numpy().copy()
    np.add.at(ref, (rows.numpy(), cols.numpy()), v.numpy())
    np.testing.assert_allclose(want.numpy(), ref, rtol=TOL[dtype], atol=TOL[dtype])
    # a number as the value, in place with a[idx] += through index_put_
    got = x.cuda().index_put_((rows.cuda(),), cygrad.tensor(1 + 2j, dtype=dtype).cuda(),
                              accumulate=True)
    close(got, x.index_put((rows,), cygrad.tensor(1 + 2j, dtype=dtype), accumulate=True), dtype)


@pytest.mark.parametrize("dtype", COMPLEX, ids=str)
@pytest.mark.parametrize("reduce", ["prod", "mean"])
def test_index_reduce_of_a_multi_dim_input(dtype, reduce):
    # PyTorch reduces a 2-D complex input slice by slice (include_self=True only)
    x = cvalues((3, 5), dtype)
    src = cvalues((3, 6), dtype, unit=True)
    idx = cygrad.tensor([4, 0, 4, 4, 2, 4])
    want = x.index_reduce(1, idx, src, reduce)
    close(x.cuda().index_reduce(1, idx.cuda(), src.cuda(), reduce), want, dtype)
    ref = x.numpy().copy()
    if reduce == "prod":
        np.multiply.at(ref, (slice(None), idx.numpy()), src.numpy())
    else:
        count = np.bincount(idx.numpy(), minlength=5) + 1
        np.add.at(ref, (slice(None), idx.numpy()), src.numpy())
        ref = ref / count
    np.testing.assert_allclose(want.numpy(), ref, rtol=TOL[dtype], atol=TOL[dtype])


# ---------------------------------------------------------------- what PyTorch refuses

REFUSED = [
    ("amax", lambda x, i, s: x.scatter_reduce(1, i, s, "amax"),
     '"scatter_gather_tensor_{dev}_reduce_amax" not implemented for \'{name}\''),
    ("amin_", lambda x, i, s: x.clone().scatter_reduce_(1, i, s, "amin", include_self=False),
     '"scatter_gather_tensor_{dev}_reduce_amin" not implemented for \'{name}\''),
    ("index_reduce_1d", lambda x, i, s: x[0].index_reduce(0, i[0], s[0], "prod"),
     '"index_func_" not implemented for \'{name}\''),
    ("index_reduce_exclude", lambda x, i, s: x.index_reduce(1, i[0], s, "mean",
                                                            include_self=False),
     '"index_reduce_func_exclude_input_init" not implemented for \'{name}\''),
    ("index_reduce_amax", lambda x, i, s: x.index_reduce(1, i[0], s, "amax"),
     '"maximum_{dev}" not implemented for \'{name}\''),
]


@pytest.mark.parametrize("dtype", COMPLEX, ids=str)
@pytest.mark.parametrize("case", REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_reductions_raise_on_both_devices(dtype, case):
    _, call, message = case
    name = {cygrad.complex64: "ComplexFloat", cygrad.complex128: "ComplexDouble"}[dtype]
    x, s = cvalues((2, 4), dtype), cvalues((2, 3), dtype)
    i = cygrad.tensor([[0, 0, 3], [1, 1, 1]])
    for dev in ("cpu", "cuda"):
        xd = x.to(dev)
        before = host(xd) if dev == "cuda" else xd.numpy().copy()
        with pytest.raises(NotImplementedError) as info:
            call(xd, i.to(dev), s.to(dev))
        assert str(info.value) == message.format(dev=dev, name=name)
        np.testing.assert_array_equal(xd.detach().cpu().numpy(), before)   # nothing written


def test_the_refusals_are_pytorchs():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for the refusals")
    x = torch.tensor([[1 + 1j, 2 - 1j, 0.5j, 1.0]])
    i, s = torch.tensor([[0, 0, 3]]), torch.tensor([[1j, 2.0, 3 - 1j]])
    for _, call, message in REFUSED:
        with pytest.raises(NotImplementedError) as info:
            call(x, i, s)
        assert str(info.value) == message.format(dev="cpu", name="ComplexFloat")
    # and what it computes for complex, cygrad computes on the device
    xc, ic, sc = (cygrad.tensor(t.numpy()).cuda() for t in (x, i, s))
    for reduce in ("sum", "prod", "mean"):
        want = x.scatter_reduce(1, i, s, reduce).numpy()
        got = xc.scatter_reduce(1, ic, sc, reduce)
        np.testing.assert_allclose(host(got), want, rtol=1e-6, atol=1e-6)
    for reduce in ("prod", "mean"):
        want = x.index_reduce(1, i[0], s, reduce).numpy()
        got = xc.index_reduce(1, ic[0], sc, reduce)
        np.testing.assert_allclose(host(got), want, rtol=1e-6, atol=1e-6)


def test_the_kernel_refuses_an_order_on_complex():
    x = cygrad.zeros((1, 3), dtype=cygrad.complex64).cuda()
    i = cygrad.tensor([[0, 2]]).cuda()
    s = cygrad.ones((1, 2), dtype=cygrad.complex64).cuda()
    for reduce in ("amax", "amin"):
        with pytest.raises(NotImplementedError, match="'cuda' kernel for primitive 'scatter' "
                                                      "for dtype cygrad.complex64 with the "
                                                      "reduction"):
            dispatch.kernel("scatter", "cuda")(x, 1, i, s, None, reduce)


# ---------------------------------------------------------------- gradients

def _grads(device, fn, *arrays):
    leaves = [cygrad.tensor(a, device=device, requires_grad=True) for a in arrays]
    fn(*leaves, device).backward()
    return [leaf.grad for leaf in leaves]


@pytest.mark.parametrize("name", ["scatter_add", "index_add"])
def test_complex_gradients_match_cpu(name):
    x = RNG.standard_normal((5, 4)) + 1j * RNG.standard_normal((5, 4))
    y = RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))
    w = RNG.standard_normal((5, 4)) + 1j * RNG.standard_normal((5, 4))
    fns = {
        # a real loss of the complex result: |w * out|^2 summed
        "scatter_add": lambda a, b, d: (a.scatter_add(0, cygrad.tensor([[1, 0, 4, 4]] * 3,
                                                                        device=d), b)
                                        * cygrad.tensor(w, device=d)).abs().pow(2).sum(),
        "index_add": lambda a, b, d: (a.index_add(0, cygrad.tensor([4, 0, 4], device=d), b,
                                                  alpha=2 - 1j)
                                      * cygrad.tensor(w, device=d)).abs().pow(2).sum(),
    }
    got = _grads("cuda", fns[name], x, y)
    want = _grads("cpu", fns[name], x, y)
    for g, wnt in zip(got, want):
        assert g.is_cuda and g.dtype is cygrad.complex128
        np.testing.assert_allclose(host(g), wnt.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["scatter_add", "index_add"])
def test_complex_gradients_by_finite_differences(name):
    from cygrad.autograd import gradcheck
    idx = cygrad.tensor([[1, 0, 1]], device="cuda")
    # gradcheck perturbs host tensors: the op itself runs on the device
    fns = {
        "scatter_add": lambda a, b: a.cuda().scatter_add(1, idx, b.cuda()).cpu(),
        # a complex alpha: source's gradient is conj(alpha) times the output's
        # (PyTorch 2.13 multiplies by alpha and fails this check)
        "index_add": lambda a, b: a.cuda().index_add(1, idx[0], b.cuda(), alpha=-1.5 + 2j).cpu(),
    }
    a = cvalues((2, 3), cygrad.complex128).requires_grad_()
    b = cvalues((2, 3), cygrad.complex128).requires_grad_()
    assert gradcheck(fns[name], (a, b), eps=1e-6, atol=1e-8)
