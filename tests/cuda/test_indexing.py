"""The indexing family's CUDA kernels (cuda_src/indexing.cu, cygrad/cuda/ops/indexing.py)
on the emulated GPU in strict mode, against the CPU kernels of the same primitives and
NumPy: gathers, scatters and their reductions, index_* ops, take/put, advanced indexing,
bounds checks, nonzero/masked_select, cat, the index builders, searchsorted, isin, and
gradients through the ops that use them (the CPU run as reference).
"""
import os
import sys

import numpy as np
import pytest

import cygrad
import cygrad.nn as nn
from cygrad._core import dispatch
from cygrad.cuda._driver import signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import installed  # noqa: E402

pytestmark = pytest.mark.skipif(signature.find_cxx() is None,
                                reason="the emulated CUDA driver needs a host C++ compiler")

RNG = np.random.default_rng(0)
ALL_DTYPES = [cygrad.float32, cygrad.float64, cygrad.int64, cygrad.int32, cygrad.int16,
              cygrad.uint8, cygrad.bool, cygrad.float16, cygrad.complex64, cygrad.complex128]


@pytest.fixture(scope="module", autouse=True)
def emulated():
    from cygrad.cuda._driver.emulated import EmulatedDriver
    with installed(EmulatedDriver(memory=256 << 20, strict=True)) as d:
        cygrad.zeros(1, device="cuda")           # installs the CUDA entries
        yield d


def host(t):
    return t.detach().cpu().numpy()


def cu(a, dtype=None):
    return cygrad.tensor(a, dtype=dtype).cuda()


def values(shape, dtype):
    if dtype is cygrad.bool:
        return cygrad.tensor(RNG.integers(0, 2, shape).astype(bool))
    if dtype.is_floating_point or dtype.is_complex:
        v = RNG.standard_normal(shape)
        if dtype.is_complex:
            v = v + 1j * RNG.standard_normal(shape)
        return cygrad.tensor(v).to(dtype)
    return cygrad.tensor(RNG.integers(0, 100, shape)).to(dtype)


def same(a, b):
    assert a.device.type == "cuda" and a.dtype is b.dtype and tuple(a.shape) == tuple(b.shape)
    np.testing.assert_array_equal(host(a), b.numpy())


# ---------------------------------------------------------------- data movement, every dtype

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_gathers_every_dtype(dtype):
    x = values((4, 5), dtype)
    xc = x.cuda()
    idx = cygrad.tensor([3, 0, -1, 3])
    same(xc[idx.cuda()], x[idx])
    same(xc.t()[1:, idx.cuda()], x.t()[1:, idx])                 # a strided view
    same(xc.index_select(1, idx.abs().cuda()), x.index_select(1, idx.abs()))
    g = cygrad.tensor(RNG.integers(0, 5, (4, 3)))
    same(xc.gather(1, g.cuda()), x.gather(1, g))
    same(cygrad.take(xc.t(), idx.cuda()), cygrad.take(x.t(), idx))
    same(cygrad.cat([xc, xc[:2]], 0), cygrad.cat([x, x[:2]], 0))
    m = values((4, 5), cygrad.bool)
    same(cygrad.masked_select(xc, m.cuda()), cygrad.masked_select(x, m))
    same(xc.nonzero(), x.nonzero())


@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.int64, cygrad.bool, cygrad.complex128],
                         ids=str)
def test_writes_every_dtype(dtype):
    x, src = values((4, 5), dtype), values((4, 5), dtype)
    idx = cygrad.tensor([2, 0])
    for fn in (lambda t, s: t.index_copy_(0, idx.to(t.device), s[:2]),
               lambda t, s: t.index_fill_(1, idx.to(t.device), True),
               lambda t, s: t.put_(idx.to(t.device), s[0, :2]),
               lambda t, s: t.scatter_(1, idx.reshape(1, 2).to(t.device), s),
               lambda t, s: t.__setitem__((idx.to(t.device), 1), s[0, 3])):
        a, b = x.clone(), x.cuda()
        fn(a, src)
        fn(b, src.cuda())
        same(b, a)


# ---------------------------------------------------------------- advanced indexing

def test_advanced_index_get_and_put():
    x = values((3, 4, 5), cygrad.float64)
    xc = x.cuda()
    i = cygrad.tensor([[0, 2], [1, 1]])
    j, k = cygrad.tensor([4, -5]), cygrad.tensor([3, -4])
    for index in ((i,), (i, k), (slice(None), i), (i, slice(1, 3), j), (1, i, j),
                  (Ellipsis, j), (None, i, slice(None), j), (True,)):
        dev = tuple(t.cuda() if isinstance(t, cygrad.Tensor) else t for t in index)
        same(xc[dev], x[index])
    same(xc[[0, 2], :, [1, 3]], x[[0, 2], :, [1, 3]])             # Python lists
    same(xc[i], x[i])                                             # a host index for a CUDA tensor
    mask = x[:, :, 0] > 0
    same(xc[mask.cuda(), 1:], x[mask, 1:])                        # a mask among other items
    a, b = x.clone(), x.cuda()
    a[i, :, j] = 7.0
    b[i.cuda(), :, j.cuda()] = 7.0
    same(b, a)
    v = values((2, 2, 5, 1), cygrad.float64)
    a.index_put_((i, k), v[..., 0], accumulate=True)
    b.index_put_((i.cuda(), k.cuda()), v[..., 0].cuda(), accumulate=True)
    np.testing.assert_allclose(host(b), a.numpy(), rtol=1e-12)


def test_index_put_accumulate_with_repeats_uses_atomics():
    for dtype in (cygrad.float32, cygrad.float64, cygrad.int32, cygrad.int64):
        x = cygrad.zeros(6, dtype=dtype)
        idx = cygrad.tensor(RNG.integers(0, 6, 1000))
        v = values((1000,), dtype)
        want = x.index_put((idx,), v, accumulate=True)
        got = x.cuda().index_put((idx.cuda(),), v.cuda(), accumulate=True)
        np.testing.assert_allclose(host(got), want.numpy(), rtol=1e-5)


def test_index_kernels_with_a_mask_item():
    # what x[mask] and x[mask] = v hand the kernels once the result is sized
    x = values((3, 4, 2), cygrad.float32)
    mask = values((3, 4), cygrad.bool)
    shape = (int(mask.sum().item()), 2)
    same(dispatch.kernel("index_get", "cuda")(x.cuda(), (), (mask.cuda(),), shape),
         dispatch.kernel("index_get", "cpu")(x, (), (mask,), shape))
    v = values((2,), cygrad.float32)
    for accumulate in (False, True):
        a, b = x.clone(), x.cuda()
        dispatch.kernel("index_put", "cpu")(a, (), (mask,), v, accumulate)
        dispatch.kernel("index_put", "cuda")(b, (), (mask.cuda(),), v.cuda(), accumulate)
        same(b, a)


def test_mask_alone_sizes_its_result_with_count_true():
    x = values((4, 3), cygrad.float32)
    m = x > 0
    same(x.cuda()[m.cuda()], x[m])


# ---------------------------------------------------------------- bounds checks

def test_bad_indices_raise_the_cpu_errors_and_write_nothing():
    x = cygrad.tensor(np.arange(12.0).reshape(3, 4))
    cases = [
        lambda t, d: t[cygrad.tensor([0, 5], device=d)],
        lambda t, d: t.__setitem__(cygrad.tensor([-4], device=d), 1.0),
        lambda t, d: t[cygrad.tensor([0, 1], device=d), cygrad.tensor([1, 4], device=d)],
        lambda t, d: t.gather(1, cygrad.tensor([[7]], device=d)),
        lambda t, d: t.scatter_(1, cygrad.tensor([[-1]], device=d), 0.0),
        lambda t, d: t.index_select(0, cygrad.tensor([3], device=d)),
        lambda t, d: t.index_add_(0, cygrad.tensor([3], device=d), t[:1]),
        lambda t, d: t.index_copy_(1, cygrad.tensor([-5], device=d), t[:, :1]),
        lambda t, d: t.take(cygrad.tensor([12], device=d)),
        lambda t, d: t.put_(cygrad.tensor([-13], device=d), cygrad.tensor([1.0], device=d)),
    ]
    for fn in cases:
        errors = []
        for device in ("cpu", "cuda"):
            t = x.to(device)
            with pytest.raises((IndexError, RuntimeError)) as e:
                fn(t, device)
            errors.append((type(e.value), str(e.value)))
            np.testing.assert_array_equal(host(t), x.numpy())      # nothing was written
        assert errors[0] == errors[1]


def test_bounds_check_kernels_against_cpu():
    idx = cygrad.tensor(RNG.integers(-3, 10, (7, 9)))
    for low, high in ((0, 10), (-3, 9), (0, 5), (-1, 1)):
        assert dispatch.kernel("first_out_of_bounds", "cuda")(idx.cuda().t(), low, high) == \
            dispatch.kernel("first_out_of_bounds", "cpu")(idx.t(), low, high)
    a, b = cygrad.tensor([[1], [-4], [2]]), cygrad.tensor([0, 3, -6, 1])
    for sizes in ((3, 4), (4, 7), (5, 3)):
        got = dispatch.kernel("first_bad_index", "cuda")([a.cuda(), b.cuda()], sizes, (3, 4))
        assert got == dispatch.kernel("first_bad_index", "cpu")([a, b], sizes, (3, 4))


# ---------------------------------------------------------------- scatter reductions

@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64, cygrad.int32, cygrad.int64,
                                   cygrad.float16, cygrad.bfloat16, cygrad.int16, cygrad.int8,
                                   cygrad.uint8], ids=str)
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(dtype, reduce, include_self):
    x = values((4, 6), dtype)
    src = values((4, 8), dtype)
    if reduce == "prod" and dtype.is_floating_point:
        src = src * 0.5 + 1.0
    index = cygrad.tensor(RNG.integers(0, 6, (3, 8)))
    want = x.scatter_reduce(1, index, src, reduce, include_self=include_self)
    got = x.cuda().scatter_reduce(1, index.cuda(), src.cuda(), reduce, include_self=include_self)
    # (half types: sums in another order round differently)
    tol = 2e-2 if dtype in (cygrad.float16, cygrad.bfloat16) else 1e-5
    np.testing.assert_allclose(host(got).astype(np.float64), want.float().numpy(), rtol=tol,
                               atol=tol)


def test_scatter_reduce_bool():
    x, src = values((3, 5), cygrad.bool), values((3, 6), cygrad.bool)
    index = cygrad.tensor(RNG.integers(0, 5, (3, 6)))
    for reduce in ("sum", "prod", "amax", "amin"):
        for include_self in (True, False):
            same(x.cuda().scatter_reduce(1, index.cuda(), src.cuda(), reduce,
                                         include_self=include_self),
                 x.scatter_reduce(1, index, src, reduce, include_self=include_self))


def test_scatter_add_and_amax_nan():
    x = cygrad.zeros(2, 3)
    index = cygrad.tensor([[0, 0, 2], [1, 1, 1]])
    src = cygrad.tensor([[1.0, float("nan"), 2.0], [3.0, 4.0, 5.0]])
    for reduce in ("amax", "amin"):
        same(x.cuda().scatter_reduce(1, index.cuda(), src.cuda(), reduce),
             x.scatter_reduce(1, index, src, reduce))
    same(x.cuda().scatter_add(1, index.cuda(), src.cuda()), x.scatter_add(1, index, src))
    same(x.cuda().scatter(1, index.cuda(), 2.5, reduce="multiply"),
         x.scatter(1, index, 2.5, reduce="multiply"))


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin", "prod"])
def test_scatter_reduce_weights_kernel(reduce):
    x = cygrad.tensor([[1.0, 0.0, 3.0, 2.0], [5.0, 5.0, 0.0, 1.0]], dtype=cygrad.float64)
    src = cygrad.tensor([[3.0, 0.0, 2.0], [5.0, 0.0, 0.0]], dtype=cygrad.float64)
    index = cygrad.tensor([[0, 1, 0], [1, 1, 3]])
    for include_self in (True, False):
        result = x.scatter_reduce(1, index, src, reduce, include_self=include_self)
        args = (1, index, src, result, reduce, include_self)
        want = dispatch.kernel("scatter_reduce_weights", "cpu")(x, *args)
        got = dispatch.kernel("scatter_reduce_weights", "cuda")(
            x.cuda(), 1, index.cuda(), src.cuda(), result.cuda(), reduce, include_self)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)


# ---------------------------------------------------------------- index_* ops, take/put

def test_index_ops_with_repeats_and_alpha():
    for dtype in (cygrad.float32, cygrad.float64, cygrad.int32, cygrad.int64, cygrad.float16,
                  cygrad.int8):
        x, src = values((5, 3), dtype), values((4, 3), dtype)
        idx = cygrad.tensor([4, 0, 4, 4])
        alpha = 2 if not dtype.is_floating_point else 0.5
        want = x.index_add(0, idx, src, alpha=alpha)
        tol = 1e-2 if dtype is cygrad.float16 else 1e-6
        got = x.cuda().index_add(0, idx.cuda(), src.cuda(), alpha=alpha)
        np.testing.assert_allclose(host(got).astype(np.float64), want.float().numpy(), rtol=tol)
        want = x.put(idx, src[:, 0], accumulate=True)
        got = x.cuda().put(idx.cuda(), src[:, 0].cuda(), accumulate=True)
        np.testing.assert_allclose(host(got).astype(np.float64), want.float().numpy(), rtol=tol)


def test_take_along_put_along_and_gather_broadcast():
    x = values((3, 5), cygrad.float32)
    idx = cygrad.tensor(RNG.integers(0, 5, (3, 2)))
    same(cygrad.take_along_dim(x.cuda(), idx.cuda(), 1), cygrad.take_along_dim(x, idx, 1))
    same(cygrad.take_along_dim(x.cuda(), idx[:1].cuda(), 1), cygrad.take_along_dim(x, idx[:1], 1))
    src = values((3, 2), cygrad.float32)
    perm = cygrad.tensor([[4, 1], [0, 2], [3, 4]])
    for device in ("cpu", "cuda"):
        got = dispatch.kernel("put_along_dim", device)(src.to(device), perm.to(device), 1, (3, 5))
        if device == "cpu":
            want = got
    same(got, want)
    out_c, out = cygrad.empty(3, 4).cuda(), cygrad.empty(3, 4)
    ind = cygrad.tensor([[-1], [2], [0]])
    dispatch.kernel("gather_broadcast", "cuda")(x[:1].cuda(), 1, ind.cuda(), out_c[:, :1])
    dispatch.kernel("gather_broadcast", "cpu")(x[:1], 1, ind, out[:, :1])
    same(out_c[:, :1], out[:, :1])


def test_gather_slices_repeat_index_pad_source():
    x = values((3, 4), cygrad.int64)
    idx = cygrad.tensor([3, 3, 0])
    same(dispatch.kernel("gather_slices", "cuda")(x.cuda(), 1, idx.cuda()),
         dispatch.kernel("gather_slices", "cpu")(x, 1, idx))
    counts = cygrad.tensor(RNG.integers(0, 4, 700))
    same(dispatch.kernel("repeat_index", "cuda")(counts.cuda()),
         dispatch.kernel("repeat_index", "cpu")(counts))
    for mode in ("reflect", "replicate", "circular"):
        for size, before, after in ((5, 2, 3), (4, -1, 2), (6, 3, -2)):
            same(dispatch.kernel("pad_source", "cuda")(mode, size, before, after),
                 dispatch.kernel("pad_source", "cpu")(mode, size, before, after))
    x = values((2, 3, 5), cygrad.float32)
    same(cygrad.repeat_interleave(x.cuda(), cygrad.tensor([1, 0, 2]), dim=1),
         cygrad.repeat_interleave(x, cygrad.tensor([1, 0, 2]), dim=1))
    same(nn.functional.pad(x.cuda(), (2, 1), mode="reflect"), nn.functional.pad(x, (2, 1), mode="reflect"))


def test_index_from_sequence_gives_a_device_index():
    kind, t = dispatch.kernel("index_from_sequence", "cuda")([[1, 0], [2, 1]])
    assert kind == "int" and t.is_cuda and t.dtype is cygrad.int64
    assert host(t).tolist() == [[1, 0], [2, 1]]


# ---------------------------------------------------------------- compaction

def test_nonzero_and_masked_select():
    x = values((6, 7, 5), cygrad.float32)
    x[x.abs() < 0.7] = 0.0
    x[0, 0, 0] = -0.0                                             # -0.0 is zero
    xc = x.cuda()
    same(xc.nonzero(), x.nonzero())
    for a, b in zip(cygrad.nonzero(xc, as_tuple=True), cygrad.nonzero(x, as_tuple=True)):
        same(a, b)
    same(cygrad.tensor(0.0).cuda().nonzero(), cygrad.tensor(0.0).nonzero())
    same(cygrad.nonzero(cygrad.tensor(3).cuda(), as_tuple=True)[0],
         cygrad.nonzero(cygrad.tensor(3), as_tuple=True)[0])
    same(cygrad.tensor([float("nan"), 0.0]).cuda().nonzero(), cygrad.tensor([1]).reshape(1, 1) * 0)
    m = values((6, 1), cygrad.bool)
    same(cygrad.masked_select(xc.transpose(0, 1), m.cuda()),
         cygrad.masked_select(x.transpose(0, 1), m))           # broadcast mask, strided input


def test_realistic_sizes():
    # 2^18 elements: many blocks of the compaction, and atomics from many threads
    x = values((512, 512), cygrad.float32)
    m = x > 0.5
    xc, mc = x.cuda(), m.cuda()
    same(cygrad.masked_select(xc, mc), cygrad.masked_select(x, m))
    same(mc.nonzero(), m.nonzero())
    idx = cygrad.tensor(RNG.integers(0, 1000, 4096))
    w = values((1000, 64), cygrad.float32)
    same(w.cuda()[idx.cuda()], w[idx])
    g = values((4096, 64), cygrad.float32)
    want = cygrad.zeros(1000, 64).index_add_(0, idx, g)
    got = cygrad.zeros(1000, 64).cuda().index_add_(0, idx.cuda(), g.cuda())
    np.testing.assert_allclose(host(got), want.numpy(), rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------- search, membership

@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64, cygrad.int32, cygrad.int64,
                                   cygrad.float16, cygrad.int16, cygrad.uint8], ids=str)
def test_searchsorted_and_isin(dtype):
    s = cygrad.tensor(np.sort(RNG.integers(0, 20, (3, 9)), axis=1)).to(dtype)
    v = cygrad.tensor(RNG.integers(-2, 22, (3, 5))).to(dtype)
    for right in (False, True):
        same(cygrad.searchsorted(s.cuda(), v.cuda(), right=right),
             cygrad.searchsorted(s, v, right=right))
        same(cygrad.searchsorted(s[0].cuda(), v.cuda(), right=right, out_int32=True),
             cygrad.searchsorted(s[0], v, right=right, out_int32=True))
    order = cygrad.tensor(np.argsort(RNG.standard_normal((3, 9)), axis=1))
    shuffled = cygrad.take_along_dim(s, order, 1)
    sorter = cygrad.tensor(np.argsort(shuffled.numpy(), axis=1, kind="stable"))
    same(cygrad.searchsorted(shuffled.cuda(), v.cuda(), sorter=sorter.cuda()),
         cygrad.searchsorted(shuffled, v, sorter=sorter))
    for invert in (False, True):
        same(cygrad.isin(v.cuda(), s[1].cuda(), invert=invert), cygrad.isin(v, s[1], invert=invert))
    same(cygrad.bucketize(v.cuda(), s[2].cuda()), cygrad.bucketize(v, s[2]))


def test_searchsorted_nan_goes_last():
    s = cygrad.tensor([1.0, 2.0, float("nan")])
    v = cygrad.tensor([float("nan"), 2.0, 5.0])
    for right in (False, True):
        same(cygrad.searchsorted(s.cuda(), v.cuda(), right=right),
             cygrad.searchsorted(s, v, right=right))


def test_unsupported_dtype_names_primitive_dtype_and_device():
    # (complex accumulation has kernels: tests/cuda/test_indexing_complex.py; a
    # membership test of complex values has none)
    x = cygrad.zeros(3, dtype=cygrad.complex64).cuda()
    with pytest.raises(NotImplementedError, match="'cuda' kernel for primitive 'isin' for "
                                                  "dtype cygrad.complex64"):
        dispatch.kernel("isin", "cuda")(x, x, False)


# ---------------------------------------------------------------- gradients

def _grads(device, fn, *arrays):
    leaves = [cygrad.tensor(a, device=device, requires_grad=True) for a in arrays]
    fn(*leaves, device).backward()
    return [leaf.grad for leaf in leaves]


@pytest.mark.parametrize("name", ["getitem", "gather", "index_select", "cat", "mask", "scatter",
                                  "take", "amax"])
def test_gradients_match_cpu(name):
    x = RNG.standard_normal((5, 4))
    y = RNG.standard_normal((3, 4))
    idx = [4, 0, 4, 2]
    fns = {
        "getitem": lambda a, b, d: (a[cygrad.tensor(idx, device=d)] * 2).sum() + b.sum(),
        "gather": lambda a, b, d: (a.gather(1, cygrad.tensor([[0, 3], [1, 1], [2, 0]],
                                                             device=d)) * 3).sum() + b.sum(),
        "index_select": lambda a, b, d: (a.index_select(0, cygrad.tensor(idx, device=d))
                                         * cygrad.arange(4.0, device="cpu").to(d)).sum()
        + b.sum(),
        "cat": lambda a, b, d: (cygrad.cat([a, b], 0) * cygrad.arange(8.0).reshape(8, 1).to(d)).sum(),
        "mask": lambda a, b, d: (a[cygrad.tensor(x > 0, device=d), ...] * 3).sum() + b.sum(),
        "scatter": lambda a, b, d: a.scatter_add(0, cygrad.tensor([[1, 0, 4, 4]] * 3, device=d),
                                                 b).sum(),
        "take": lambda a, b, d: cygrad.take(a, cygrad.tensor(idx, device=d)).sum() + b.sum(),
        "amax": lambda a, b, d: a.scatter_reduce(0, cygrad.tensor([[1, 0, 4, 4]] * 3, device=d),
                                                 b, "amax").sum(),
    }
    got = _grads("cuda", fns[name], x, y)
    want = _grads("cpu", fns[name], x, y)
    for g, w in zip(got, want):
        assert g.is_cuda
        np.testing.assert_allclose(host(g), w.numpy(), rtol=1e-12, atol=1e-12)


def test_embedding_forward_backward_on_cuda_matches_cpu():
    def run(device):
        cygrad.manual_seed(0)
        emb = nn.Embedding(50, 8)
        emb = emb.cuda() if device == "cuda" else emb
        tokens = cygrad.tensor(RNG_TOKENS, device=device)
        out = emb(tokens)
        (out * out).sum().backward()
        return out, emb.weight.grad

    (out_c, grad_c), (out, grad) = run("cuda"), run("cpu")
    assert out_c.is_cuda and grad_c.is_cuda
    np.testing.assert_allclose(host(out_c), host(out), rtol=1e-6)
    np.testing.assert_allclose(host(grad_c), grad.numpy(), rtol=1e-5, atol=1e-6)


RNG_TOKENS = np.random.default_rng(1).integers(0, 50, (4, 16))


def test_forward_mode_tangents_match_cpu():
    import cygrad.autograd.forward_ad as fwAD
    x, t = (cygrad.tensor(RNG.standard_normal((4, 5))) for _ in range(2))
    idx = cygrad.tensor([[0, 1], [4, 4], [2, 0], [1, 3]])

    def tangents(dev):
        with fwAD.dual_level():
            d = fwAD.make_dual(x.to(dev), t.to(dev))
            ones = cygrad.ones(4, 2, dtype=cygrad.float64, device=dev)
            outs = (d.gather(1, idx.to(dev)), d[:, idx.to(dev)],
                    cygrad.zeros(4, 5, dtype=cygrad.float64, device=dev).scatter_add(
                        1, idx.to(dev), fwAD.make_dual(ones, ones * 2.0)))
            return [fwAD.unpack_dual(o).tangent for o in outs]

    for got, want in zip(tangents("cuda"), tangents("cpu")):
        same(got, want)
