"""The Cython Tensor core: view semantics and version counters, view/reshape,
contiguous/clone/copy_/to, NumPy interop (memory sharing both ways), conversions to
Python (tolist/item/bool/len/iter), indexing errors, expand errors, and the caching
host allocator.  Error types are checked against PyTorch where it is installed."""
import gc

import ml_dtypes
import numpy as np
import pytest

import cygrad

try:
    import torch
except ImportError:
    torch = None


def arange_f(*shape):
    n = int(np.prod(shape)) if shape else 1
    return cygrad.arange(n, dtype=cygrad.float32).reshape(*shape) if shape else cygrad.tensor(0.0)


def raises_like_torch(expected, cy_fn, torch_fn):
    """cygrad raises ``expected`` (the type PyTorch raises, written down so the check
    runs without torch); with torch installed, torch is run too: it must raise
    ``expected`` and cygrad an instance of torch's exact type."""
    want = expected
    if torch is not None:
        with pytest.raises(expected) as t_info:
            torch_fn()
        want = t_info.type
    with pytest.raises(want) as c_info:
        cy_fn()
    return c_info.value


# ---------------------------------------------------------------------------
# views share storage and the version counter
# ---------------------------------------------------------------------------
# name: (cygrad view, the same view through NumPy)
VIEWS = {
    "view": (lambda t: t.view(12), lambda a: a.reshape(12)),
    "view_infer": (lambda t: t.view(-1, 2), lambda a: a.reshape(-1, 2)),
    "reshape_viewable": (lambda t: t.reshape(2, 6), lambda a: a.reshape(2, 6)),
    "transpose": (lambda t: t.transpose(0, 1), lambda a: a.swapaxes(0, 1)),
    "t": (lambda t: t.t(), lambda a: a.T),
    "T": (lambda t: t.T, lambda a: a.T),
    "mT": (lambda t: t.mT, lambda a: a.swapaxes(-1, -2)),
    "permute": (lambda t: t.permute(1, 0), lambda a: a.transpose(1, 0)),
    "slice": (lambda t: t[1:, ::2], lambda a: a[1:, ::2]),
    "negative_step": (lambda t: t[::-1, ::-2], lambda a: a[::-1, ::-2]),
    "int_index": (lambda t: t[1], lambda a: a[1]),
    "ellipsis_none": (lambda t: t[..., None, 1], lambda a: a[..., None, 1]),
    "select": (lambda t: t.select(1, 2), lambda a: a[:, 2]),
    "narrow": (lambda t: t.narrow(0, 1, 2), lambda a: a[1:3]),
    "unsqueeze": (lambda t: t.unsqueeze(0), lambda a: a[None]),
    "squeeze": (lambda t: t.unsqueeze(1).squeeze(1), lambda a: a),
    "diagonal": (lambda t: t.diagonal(), lambda a: a.diagonal()),
    "as_strided": (lambda t: t.as_strided((2, 2), (1, 4), 1),
                   lambda a: np.lib.stride_tricks.as_strided(a[0, 1:], (2, 2), (4, 16))),
    "flatten": (lambda t: t.flatten(), lambda a: a.reshape(-1)),
    "unflatten": (lambda t: t.unflatten(1, (2, 2)), lambda a: a.reshape(3, 2, 2)),
    "movedim": (lambda t: t.movedim(0, 1), lambda a: np.moveaxis(a, 0, 1)),
    "split_part": (lambda t: t.split(2, dim=1)[1], lambda a: a[:, 2:4]),
    "chunk_part": (lambda t: t.chunk(3, dim=0)[2], lambda a: a[2:3]),
    "unbind_part": (lambda t: t.unbind(0)[1], lambda a: a[1]),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_share_storage_and_version(name):
    cy_view, np_view = VIEWS[name]
    base = arange_f(3, 4)
    base_np = base.numpy().copy()
    v = cy_view(base)
    np.testing.assert_array_equal(v.numpy(), np_view(base_np))
    assert v.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    v0 = base._version
    assert v._version == v0
    v.add_(100)
    assert base._version == v0 + 1 and v._version == v0 + 1
    # every element of the view changed in the base, nothing else did
    changed = base.numpy() != base_np
    assert changed.sum() == v.numel()
    np.testing.assert_array_equal(base.numpy()[changed] - base_np[changed], 100)


def test_inplace_on_base_bumps_view_version():
    base = arange_f(4)
    v = base[1:3]
    base.mul_(2)
    assert v._version == base._version == 1
    assert v.tolist() == [2.0, 4.0]
    base[0] = 5.0                       # __setitem__ is in-place too
    assert v._version == 2


def test_view_errors_where_reshape_copies():
    t = arange_f(3, 4).t()              # (4, 3), strides (1, 4): not viewable as (12,)
    raises_like_torch(RuntimeError, lambda: t.view(12), lambda: torch.arange(12.0).reshape(3, 4).t().view(12))
    r = t.reshape(12)
    assert r.tolist() == t.numpy().reshape(12).tolist()
    assert r.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()
    r.fill_(0)
    assert t.numpy().sum() == 66        # the copy is independent
    with pytest.raises(RuntimeError):
        arange_f(3, 4).view(5, 3)       # wrong number of elements
    with pytest.raises(RuntimeError):
        arange_f(3, 4).view(-1, -1)     # two inferred dims


def test_view_through_split_contiguous_groups():
    """view may merge only dims that are contiguous with each other."""
    t = arange_f(2, 3, 4)[:, :, :2]     # (2, 3, 2) strides (12, 4, 1)
    v = t.view(6, 2)                    # merges dims 0 and 1 (12 == 3 * 4): allowed
    np.testing.assert_array_equal(v.numpy(), t.numpy().reshape(6, 2))
    with pytest.raises(RuntimeError):
        t.view(2, 6)                    # would merge dims 1 and 2 (4 != 2 * 1)


def test_contiguous_and_clone():
    t = arange_f(3, 4)
    assert t.contiguous() is t
    nc = t.t()
    c = nc.contiguous()
    assert c is not nc and c.is_contiguous()
    np.testing.assert_array_equal(c.numpy(), nc.numpy())
    k = nc.clone()
    np.testing.assert_array_equal(k.numpy(), nc.numpy())
    assert k.dtype == nc.dtype and k._version == 0
    k.fill_(-1)
    assert t.numpy().min() == 0          # clone owns its memory


def test_copy_broadcasts_and_converts():
    dst = cygrad.zeros(3, 4, dtype=cygrad.int32)
    v = dst._version
    src = cygrad.tensor([1.9, -1.9, 2.5, 0.1], dtype=cygrad.float64)
    assert dst.copy_(src) is dst
    assert dst._version == v + 1
    assert dst.tolist() == [[1, -1, 2, 0]] * 3           # float -> int truncates, as torch
    b = cygrad.zeros(3, dtype=cygrad.bool)
    b.copy_(cygrad.tensor([0.0, 0.5, -2.0]))
    assert b.tolist() == [False, True, True]
    h = cygrad.zeros(2, dtype=cygrad.bfloat16)
    h.copy_(cygrad.tensor([1.0, 3.14159]))
    assert h.tolist() == [1.0, float(ml_dtypes.bfloat16(3.14159))]
    raises_like_torch(RuntimeError, lambda: cygrad.zeros(3, 4).copy_(cygrad.zeros(3)),
                        lambda: torch.zeros(3, 4).copy_(torch.zeros(3)))


def test_copy_into_view_and_overlapping():
    base = arange_f(3, 4)
    base[:, 1].copy_(cygrad.tensor([-1.0, -2.0, -3.0]))
    assert base[:, 1].tolist() == [-1.0, -2.0, -3.0]
    t = cygrad.arange(6)
    t[1:].copy_(t[:-1])                 # overlapping source and destination
    assert t.tolist() == [0, 0, 1, 2, 3, 4]


def test_to_and_dtype_shortcuts():
    t = arange_f(2, 3)
    assert t.to(cygrad.float32) is t
    assert t.to("cpu") is t
    d = t.to(cygrad.float64)
    assert d.dtype == cygrad.float64 and d.tolist() == t.tolist()
    assert t.to(cygrad.int64).dtype == cygrad.int64
    assert t.to(cygrad.ones(1, dtype=cygrad.int8)).dtype == cygrad.int8
    assert t.double().dtype == cygrad.float64 and t.half().dtype == cygrad.float16
    assert t.bfloat16().dtype == cygrad.bfloat16 and t.long().dtype == cygrad.int64
    assert t.int().dtype == cygrad.int32 and t.bool().dtype == cygrad.bool
    assert t.to(dtype=cygrad.float32, copy=True) is not t


# ---------------------------------------------------------------------------
# NumPy interop
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: np.arange(12.0).reshape(3, 4),
    lambda: np.arange(12.0).reshape(3, 4)[::-1],
    lambda: np.arange(24, dtype=np.int32).reshape(4, 6)[1::2, ::-3],
    lambda: np.arange(12, dtype=np.int16).reshape(3, 4).T,
    lambda: np.ones((2, 2), dtype=ml_dtypes.bfloat16),
    lambda: np.array(3.5),
], ids=["contig", "neg_stride", "neg_step_slice", "transposed", "bfloat16", "0d"])
def test_from_numpy_shares_memory_both_ways(make):
    a = make()
    t = cygrad.from_numpy(a)
    assert tuple(t.shape) == a.shape
    np.testing.assert_array_equal(t.numpy().astype(np.float64), a.astype(np.float64))
    back = t.numpy()
    assert np.shares_memory(back, a)
    idx = (0,) * a.ndim
    a[idx] = 42
    assert t[idx].item() == 42 if a.ndim else t.item() == 42
    t.fill_(7)
    assert (a.astype(np.float64) == 7).all()


def test_numpy_of_views_shares_and_array_protocol():
    t = arange_f(3, 4)
    v = t[::-1, 1::2]
    arr = v.numpy()
    assert np.shares_memory(arr, t.numpy())
    np.testing.assert_array_equal(arr, np.arange(12.0).reshape(3, 4)[::-1, 1::2])
    assert np.shares_memory(np.asarray(t), t.numpy())
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert np.array(t).tolist() == t.tolist()


def test_numpy_on_requires_grad_errors():
    t = cygrad.ones(2, requires_grad=True)
    raises_like_torch(RuntimeError, lambda: t.numpy(), lambda: torch.ones(2, requires_grad=True).numpy())
    assert t.numpy(force=True).tolist() == [1.0, 1.0]


def test_tolist_and_item():
    assert cygrad.tensor(2.5).tolist() == 2.5
    assert cygrad.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert isinstance(cygrad.tensor([1]).tolist()[0], int)
    assert isinstance(cygrad.tensor([1.0], dtype=cygrad.bfloat16).tolist()[0], float)
    assert cygrad.tensor([True]).tolist() == [True]
    assert cygrad.tensor([[7]]).item() == 7
    assert isinstance(cygrad.tensor([[7]]).item(), int)
    raises_like_torch(RuntimeError, lambda: cygrad.tensor([1, 2]).item(), lambda: torch.tensor([1, 2]).item())
    raises_like_torch(RuntimeError, lambda: cygrad.zeros(0).item(), lambda: torch.zeros(0).item())


def test_bool_len_iter_errors():
    raises_like_torch(RuntimeError, lambda: bool(cygrad.tensor([1, 2])), lambda: bool(torch.tensor([1, 2])))
    raises_like_torch(RuntimeError, lambda: bool(cygrad.zeros(0)), lambda: bool(torch.zeros(0)))
    raises_like_torch(TypeError, lambda: len(cygrad.tensor(1)), lambda: len(torch.tensor(1)))
    raises_like_torch(TypeError, lambda: iter(cygrad.tensor(1)), lambda: iter(torch.tensor(1)))
    assert bool(cygrad.tensor([3])) and not bool(cygrad.tensor(0.0))
    assert len(cygrad.zeros(4, 2)) == 4
    assert [r.tolist() for r in cygrad.tensor([[1, 2], [3, 4]])] == [[1, 2], [3, 4]]


def test_indexing_errors():
    t = arange_f(3, 4)
    raises_like_torch(IndexError, lambda: t[0, 0, 0], lambda: torch.zeros(3, 4)[0, 0, 0])
    raises_like_torch(IndexError, lambda: t[3], lambda: torch.zeros(3, 4)[3])
    raises_like_torch(IndexError, lambda: t[-4], lambda: torch.zeros(3, 4)[-4])
    raises_like_torch(IndexError, lambda: t[:, 4], lambda: torch.zeros(3, 4)[:, 4])
    raises_like_torch(IndexError, lambda: cygrad.tensor(1.0)[0], lambda: torch.tensor(1.0)[0])
    # slices past the end clamp, as in Python/NumPy/torch
    assert tuple(t[1:100, -100:2].shape) == (2, 2)
    assert t[-1, -1].item() == 11.0


def test_expand_errors_and_semantics():
    t = cygrad.tensor([[1.0], [2.0]])
    e = t.expand(2, 3)
    assert e.stride() == (1, 0) and e.tolist() == [[1.0] * 3, [2.0] * 3]
    assert t.expand(-1, 4).shape == (2, 4)
    assert t.expand(5, 2, 3).shape == (5, 2, 3)
    raises_like_torch(RuntimeError, lambda: t.expand(3, 3), lambda: torch.zeros(2, 1).expand(3, 3))
    raises_like_torch(RuntimeError, lambda: t.expand(3), lambda: torch.zeros(2, 1).expand(3))
    raises_like_torch(RuntimeError, lambda: t.expand(-1, 3, 3), lambda: torch.zeros(2, 1).expand(-1, 3, 3))


# name: (PyTorch's exception type, the call on a (2, 3) tensor of either library)
DIM_ERRORS = {
    "transpose": (IndexError, lambda t: t.transpose(0, 2)),
    "permute_repeat": (RuntimeError, lambda t: t.permute(0, 0)),
    "permute_count": (RuntimeError, lambda t: t.permute(0)),
    "squeeze": (IndexError, lambda t: t.squeeze(5)),
    "unsqueeze": (IndexError, lambda t: t.unsqueeze(4)),
    "select": (IndexError, lambda t: t.select(1, 3)),
    "narrow": (RuntimeError, lambda t: t.narrow(1, 2, 5)),
    "diagonal": (RuntimeError, lambda t: t.diagonal(0, 0, 0)),
    "unflatten": (RuntimeError, lambda t: t.unflatten(1, (2, 2))),
}


@pytest.mark.parametrize("case", sorted(DIM_ERRORS))
def test_dim_errors(case):
    expected, fn = DIM_ERRORS[case]
    raises_like_torch(expected, lambda: fn(arange_f(2, 3)), lambda: fn(torch.zeros(2, 3)))


# name: a check that holds for torch; each was a core bug once
VIEW_EDGE_CASES = {
    "movedim_0d": lambda m: m.zeros(()).movedim(0, 0).shape == (),
    "unbind_0d": lambda m: _raises(IndexError, lambda: m.zeros(()).unbind(0)),
    "chunk_zero_size": lambda m: len(m.zeros(3, 0).chunk(2, 1)) == 2,
    "unflatten_empty_sizes": lambda m: _raises(RuntimeError, lambda: m.zeros(1).unflatten(-1, [])),
    "narrow_negative_length": lambda m: _raises(RuntimeError, lambda: m.zeros(3).narrow(0, 1, -1), exact=True),
    # PyTorch's order of checks: the error about length / 0-dim / sizes comes first
    "narrow_negative_length_first": lambda m: _raises(RuntimeError, lambda: m.zeros(3).narrow(0, 5, -1),
                                                      exact=True),
    "narrow_0d_any_dim": lambda m: _raises(RuntimeError, lambda: m.zeros(()).narrow(1, 0, 0), exact=True),
    "unflatten_empty_sizes_first": lambda m: _raises(RuntimeError, lambda: m.zeros(1).unflatten(1, []),
                                                     exact=True),
}



def _raises(exc, fn, exact=False):
    try:
        fn()
    except Exception as e:      # noqa: BLE001
        return type(e) is exc if exact else isinstance(e, exc)
    return False


@pytest.mark.parametrize("case", sorted(VIEW_EDGE_CASES))
def test_view_edge_cases_like_torch(case):
    """Each check holds for torch (asserted first, so the check can't be vacuous)
    and for cygrad."""
    check = VIEW_EDGE_CASES[case]
    if torch is not None:
        assert check(torch), f"{case}: the check does not hold for torch itself"
    assert check(cygrad)


# ---------------------------------------------------------------------------
# the caching host allocator
# ---------------------------------------------------------------------------
def test_caching_allocator_reuses_blocks_and_empty_cache():
    from cygrad import memory
    n = 2 * 1024 * 1024                  # 8 MB of float32
    gc.collect()
    t = cygrad.empty(n)
    del t
    before = memory.host_stats()
    assert before["cached_bytes"] >= 4 * n
    t2 = cygrad.empty(n)
    after = memory.host_stats()
    assert after["hits"] == before["hits"] + 1
    assert after["cached_bytes"] == before["cached_bytes"] - 4 * n
    assert after["allocated_bytes"] >= 4 * n
    del t2
    memory.empty_cache()
    assert memory.host_stats()["cached_bytes"] == 0


def test_storage_freed_when_last_view_dies():
    from cygrad import memory
    memory.empty_cache()
    base = cygrad.empty(1024 * 1024)
    allocated = memory.host_stats()["allocated_bytes"]
    view = base[10:20]
    del base
    assert memory.host_stats()["allocated_bytes"] == allocated      # the view keeps it alive
    view.fill_(1.0)
    del view
    assert memory.host_stats()["allocated_bytes"] == allocated - 4 * 1024 * 1024
