"""DLPack exchange with NumPy and PyTorch: zero-copy both ways, lifetimes, dtypes, errors."""
import gc
import sys
import warnings
import weakref

import numpy as np
import pytest

import cygrad

torch = pytest.importorskip("torch", reason="PyTorch reference not installed")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def _values(dtype, shape=(2, 3)):
    a = np.arange(int(np.prod(shape))).reshape(shape) - 2
    return (a % 2 == 0) if dtype == "bool" else a.astype(dtype)


# -------------------------------------------------------------------------- NumPy

@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_consumes_cygrad_zero_copy(dtype):
    t = cygrad.from_numpy(_values(dtype))
    a = np.from_dlpack(t)
    assert a.dtype == np.dtype(dtype)
    assert a.ctypes.data == t.data_ptr()
    np.testing.assert_array_equal(a, _values(dtype))
    a[0, 0] = 1
    assert t[0, 0].item() == 1
    t[1, 2] = 0
    assert a[1, 2] == 0


@pytest.mark.parametrize("dtype", DTYPES)
def test_cygrad_consumes_numpy_zero_copy(dtype):
    a = _values(dtype)
    t = cygrad.from_dlpack(a)
    assert isinstance(t, cygrad.Tensor)
    assert t.dtype == getattr(cygrad, dtype)
    assert t.data_ptr() == a.ctypes.data
    assert t.tolist() == a.tolist()
    t[0, 1] = 1
    assert a[0, 1] == 1
    a[1, 0] = 0
    assert t[1, 0].item() == 0


@pytest.mark.parametrize("view", [
    lambda a: a.T, lambda a: a[:, ::2], lambda a: a[1:, 1:3], lambda a: a[::-1],
    lambda a: a[:, ::-2], lambda a: np.broadcast_to(a[0], (3, 4)), lambda a: a[0, 0, ...],
], ids=["transpose", "step", "offset", "negative-row", "negative-step", "broadcast", "0-dim"])
def test_numpy_strided_views_import(view):
    base = np.arange(12.0).reshape(3, 4)
    a = view(base)
    with pytest.warns(UserWarning, match="read-only") if not a.flags.writeable else _no_warning():
        t = cygrad.from_dlpack(a)
    assert tuple(t.shape) == a.shape
    assert t.stride() == tuple(s // 8 for s in a.strides) or t.numel() <= 1
    np.testing.assert_array_equal(t.numpy(), a)
    assert t.is_contiguous() == a.flags.c_contiguous
    if a.flags.writeable and a.size:
        idx = (0,) * a.ndim
        t[idx] = -7.0
        assert a[idx] == -7.0       # the write landed in the producer's memory


class _no_warning:
    def __enter__(self):
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        self._w.__exit__(*exc)


def test_cygrad_noncontiguous_export_to_numpy():
    t = cygrad.from_numpy(np.arange(24.0).reshape(4, 6))
    for v in (t.t(), t[1:3, ::2], t.select(1, 2), t.unsqueeze(1), t.expand(2, 4, 6)):
        a = np.from_dlpack(v)
        np.testing.assert_array_equal(a, v.numpy())
        assert a.ctypes.data == v.data_ptr()


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (1,), (1, 1)])
def test_zero_dim_and_zero_size(shape):
    a = np.full(shape, 2.5, np.float32)
    t = cygrad.from_dlpack(a)
    assert tuple(t.shape) == shape and t.dtype == cygrad.float32
    back = np.from_dlpack(t)
    assert back.shape == shape
    np.testing.assert_array_equal(back, a)
    tt = torch.from_dlpack(t)
    assert tuple(tt.shape) == shape


def test_negative_strides_are_not_exported_without_copy():
    t = cygrad.from_numpy(np.arange(5.0)[::-1])
    assert t.stride() == (-1,)
    # PyTorch cannot take negative strides (it may even abort the process), so cygrad
    # refuses before any consumer sees them.
    with pytest.raises(BufferError, match="negative strides"):
        t.__dlpack__()
    with pytest.raises(BufferError, match="negative strides"):
        torch.from_dlpack(t)
    with pytest.raises(BufferError, match="negative strides"):
        np.from_dlpack(t)
    copied = np.from_dlpack(t, copy=True)
    np.testing.assert_array_equal(copied, [4.0, 3.0, 2.0, 1.0, 0.0])
    assert copied.ctypes.data != t.data_ptr()
    # A size-1 dim's stride never matters, whatever its sign.
    one = cygrad.from_numpy(np.arange(3.0)[::-1][:1])
    assert torch.from_dlpack(one).tolist() == [2.0]


def test_numpy_memory_outlives_producer():
    a = np.arange(1000.0)
    alive = weakref.ref(a)
    t = cygrad.from_dlpack(a)
    view = t[10:20]
    del a, t
    gc.collect()
    assert alive() is not None
    assert view.tolist() == [float(i) for i in range(10, 20)]
    del view
    gc.collect()
    assert alive() is None          # the deleter ran once the last cygrad view died


def test_cygrad_memory_outlives_producer():
    t = cygrad.from_numpy(np.arange(100.0)).clone()
    storage = t.untyped_storage()
    refs = sys.getrefcount(storage)
    a = np.from_dlpack(t)
    tt = torch.from_dlpack(t)
    assert sys.getrefcount(storage) == refs + 2
    del t
    gc.collect()
    junk = [cygrad.ones(100) for _ in range(10)]     # reuse freed memory, if any was freed
    assert a[99] == 99.0 and tt[42].item() == 42.0
    del a, tt, junk
    gc.collect()
    assert sys.getrefcount(storage) == refs - 1      # only our local reference remains


def test_unconsumed_capsules_release_storage():
    t = cygrad.arange(5.0)
    storage = t.untyped_storage()
    refs = sys.getrefcount(storage)
    caps = [t.__dlpack__(), t.__dlpack__(max_version=(1, 0))]
    assert sys.getrefcount(storage) == refs + 2
    del caps
    gc.collect()
    assert sys.getrefcount(storage) == refs


def test_capsule_names_and_versions():
    t = cygrad.arange(3)
    assert "dltensor" in repr(t.__dlpack__()) and "versioned" not in repr(t.__dlpack__())
    assert '"dltensor_versioned"' in repr(t.__dlpack__(max_version=(1, 0)))
    assert '"dltensor_versioned"' in repr(t.__dlpack__(max_version=(1, 3)))
    assert "versioned" not in repr(t.__dlpack__(max_version=(0, 8)))
    assert t.__dlpack_device__() == (1, 0)


def test_raw_capsule_consumed_once():
    cap = np.arange(4.0).__dlpack__()
    t = cygrad.from_dlpack(cap)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert "used_dltensor" in repr(cap)
    with pytest.raises(RuntimeError, match="consumed only once"):
        cygrad.from_dlpack(cap)
    # and the same for a versioned capsule from our own export
    vcap = cygrad.arange(3).__dlpack__(max_version=(1, 0))
    assert cygrad.from_dlpack(vcap).tolist() == [0, 1, 2]
    with pytest.raises(RuntimeError, match="consumed only once"):
        cygrad.from_dlpack(vcap)


def test_round_trip_through_cygrad():
    t = cygrad.arange(6.0).reshape(2, 3)
    u = cygrad.from_dlpack(t)
    assert u.data_ptr() == t.data_ptr()
    u[0, 0] = 9.0
    assert t[0, 0].item() == 9.0
    del t
    gc.collect()
    assert u.tolist() == [[9.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_copy_argument():
    a = np.arange(3.0)
    t = cygrad.from_dlpack(a, copy=True)
    assert t.data_ptr() != a.ctypes.data
    t[0] = 5.0
    assert a[0] == 0.0
    shared = cygrad.from_dlpack(a, copy=False)
    assert shared.data_ptr() == a.ctypes.data
    c = cygrad.arange(3.0)
    copied = np.from_dlpack(c, copy=True)
    copied[0] = 7.0
    assert c[0].item() == 0.0


def test_readonly_numpy_array_warns():
    a = np.arange(3.0)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="read-only"):
        t = cygrad.from_dlpack(a)
    assert t.tolist() == [0.0, 1.0, 2.0]


def test_errors():
    x = cygrad.ones(2)
    x.requires_grad = True
    with pytest.raises(BufferError, match="require gradient"):
        np.from_dlpack(x)
    with pytest.raises(BufferError, match="require gradient"):
        torch.from_dlpack(x)
    with pytest.raises(TypeError):
        cygrad.from_dlpack([1, 2, 3])
    with pytest.raises(BufferError, match="dtype"):
        cygrad.from_dlpack(np.ones(2, np.uint16))
    with pytest.raises(BufferError):
        cygrad.ones(2).__dlpack__(dl_device=(2, 0))
    with pytest.raises(AssertionError, match="stream"):
        cygrad.ones(2).__dlpack__(stream=5)


def test_rejected_capsule_is_still_freed():
    a = np.ones(3, np.uint16)             # a dtype cygrad does not have
    alive = weakref.ref(a)
    cap = a.__dlpack__()
    del a
    with pytest.raises(BufferError):
        cygrad.from_dlpack(cap)
    assert "used" not in repr(cap)      # not taken: the capsule still owns the memory
    del cap
    gc.collect()
    assert alive() is None


# ------------------------------------------------------------------------ PyTorch

TORCH_DTYPES = DTYPES + ["bfloat16"]


def _torch_values(dtype, shape=(2, 3)):
    v = torch.arange(int(np.prod(shape))).reshape(shape) - 2
    return (v % 2 == 0) if dtype == "bool" else v.to(getattr(torch, dtype))


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_torch_consumes_cygrad(dtype):
    src = _torch_values(dtype)
    t = cygrad.from_numpy(src.float().numpy()).to(getattr(cygrad, dtype)) if dtype == "bfloat16" \
        else cygrad.from_numpy(src.numpy().copy())
    tt = torch.from_dlpack(t)
    assert tt.dtype == src.dtype
    assert tt.data_ptr() == t.data_ptr()
    assert torch.equal(tt, src)
    tt[0, 0] = 1
    assert t[0, 0].item() == 1
    t[1, 1] = 0
    assert tt[1, 1].item() == 0


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_cygrad_consumes_torch(dtype):
    src = _torch_values(dtype)
    t = cygrad.from_dlpack(src)
    assert t.dtype == getattr(cygrad, dtype)
    assert t.data_ptr() == src.data_ptr()
    assert t.tolist() == src.tolist()
    t[1, 2] = 1
    assert src[1, 2].item() == 1


def test_torch_noncontiguous_both_ways():
    src = torch.arange(24.0).reshape(4, 6)
    for v in (src.t(), src[1:3, ::2], src[:, 3], src.unsqueeze(0).expand(2, 4, 6)):
        t = cygrad.from_dlpack(v)
        assert tuple(t.shape) == tuple(v.shape)
        assert t.data_ptr() == v.data_ptr()
        assert t.tolist() == v.tolist()
        back = torch.from_dlpack(t)
        assert back.data_ptr() == v.data_ptr() and torch.equal(back, v)


def test_torch_memory_outlives_producer():
    src = torch.arange(1000.0)
    t = cygrad.from_dlpack(src)
    del src
    gc.collect()
    junk = [torch.ones(1000) for _ in range(10)]
    assert t[999].item() == 999.0 and t[0].item() == 0.0
    del junk
