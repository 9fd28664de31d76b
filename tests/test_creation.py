"""Factories (tensor, as_tensor, zeros, ones, full, empty, *_like, arange, linspace,
logspace, eye, scalar_tensor, the legacy ``Tensor(...)`` constructor): dtype
inference, shapes and values against NumPy, and against PyTorch (the same call
through ``torch``) when it is installed."""
import numpy as np
import pytest

import cygrad

try:
    import torch
except ImportError:
    torch = None


# ---------------------------------------------------------------------------
# the same call through cygrad and torch: dtype, shape, values or error type
# ---------------------------------------------------------------------------
SAME_CALL = {
    "zeros_args": lambda m: m.zeros(2, 3),
    "zeros_tuple": lambda m: m.zeros((2, 3)),
    "zeros_list": lambda m: m.zeros([2, 3]),
    "zeros_0d": lambda m: m.zeros(()),
    "zeros_zero_dim": lambda m: m.zeros(0, 3),
    "zeros_dtype": lambda m: m.zeros(2, dtype=m.int16),
    "zeros_negative": lambda m: m.zeros(-1),
    "zeros_size_kw": lambda m: m.zeros(size=(2,)),
    "ones_size_kw": lambda m: m.ones(size=(2, 3)),
    "empty_size_kw": lambda m: m.empty(size=(2,)).zero_(),
    "full_size_kw": lambda m: m.full(size=(2,), fill_value=3),
    "ones_int8_empty": lambda m: m.ones(0, 3, dtype=m.int8),
    "ones_bf16": lambda m: m.ones(2, 2, dtype=m.bfloat16),
    "full_int": lambda m: m.full((2,), 3),
    "full_bool": lambda m: m.full((2,), True),
    "full_float": lambda m: m.full((2,), 2.5),
    "full_dtype_trunc": lambda m: m.full((2,), 2.7, dtype=m.int32),
    "full_0d": lambda m: m.full((), -1.5),
    "empty_shape": lambda m: m.empty(2, 3, dtype=m.int16).zero_(),
    "tensor_int_list": lambda m: m.tensor([1, 2, 3]),
    "tensor_float_list": lambda m: m.tensor([1.0, 2.5]),
    "tensor_mixed": lambda m: m.tensor([1, 2.5]),
    "tensor_bool_list": lambda m: m.tensor([True, False]),
    "tensor_bool_int": lambda m: m.tensor([True, 1]),
    "tensor_nested": lambda m: m.tensor([[1, 2], [3, 4], [5, 6]]),
    "tensor_empty": lambda m: m.tensor([]),
    "tensor_nested_empty": lambda m: m.tensor([[], []]),
    "tensor_int_scalar": lambda m: m.tensor(3),
    "tensor_float_scalar": lambda m: m.tensor(3.5),
    "tensor_bool_scalar": lambda m: m.tensor(False),
    "tensor_np_float64_scalar": lambda m: m.tensor(np.float64(1.5)),
    "tensor_np_int32": lambda m: m.tensor(np.arange(3, dtype=np.int32)),
    "tensor_np_f16_2d": lambda m: m.tensor(np.ones((2, 2), dtype=np.float16)),
    "tensor_np_noncontig": lambda m: m.tensor(np.arange(12).reshape(3, 4)[::2, 1:]),
    "tensor_dtype_trunc": lambda m: m.tensor([1.7, -1.7], dtype=m.int64),
    "tensor_dtype_bf16": lambda m: m.tensor([1.0, 2.0], dtype=m.bfloat16),
    "tensor_of_0d_tensors": lambda m: m.tensor([m.tensor(1.5), m.tensor(2.0)]),
    "tensor_ragged": lambda m: m.tensor([[1, 2], [3]]),
    "tensor_too_big": lambda m: m.tensor([2 ** 63]),
    "tensor_of_tensor": lambda m: m.tensor(m.arange(4).reshape(2, 2)),
    "scalar_tensor": lambda m: m.scalar_tensor(3),
    "legacy_Tensor_data": lambda m: m.Tensor([1, 2]),
    "legacy_Tensor_shape": lambda m: m.Tensor(2, 3).zero_(),
    "as_tensor_list": lambda m: m.as_tensor([1, 2]),
    "as_tensor_dtype": lambda m: m.as_tensor(np.arange(3), dtype=m.float32),
    "arange_end": lambda m: m.arange(5),
    "arange_float_step": lambda m: m.arange(0, 1, 0.25),
    "arange_negative_step": lambda m: m.arange(5, 0, -2),
    "arange_float_end": lambda m: m.arange(2.5),
    "arange_dtype": lambda m: m.arange(5, dtype=m.float64),
    "arange_empty": lambda m: m.arange(3, 3),
    "arange_int_dtype_float_bounds": lambda m: m.arange(0.5, 5.7, 1.5, dtype=m.int64),
    "arange_half": lambda m: m.arange(1, 6, 2, dtype=m.float16),
    "arange_bad_sign": lambda m: m.arange(0, 5, -1),
    "arange_zero_step": lambda m: m.arange(0, 5, 0),
    "arange_fp_rounding": lambda m: m.arange(1, 2.5, 0.3),
    "linspace": lambda m: m.linspace(0, 1, 5),
    "linspace_one": lambda m: m.linspace(0, 1, 1),
    "linspace_zero": lambda m: m.linspace(0, 1, 0),
    "linspace_int_dtype": lambda m: m.linspace(0, 10, 4, dtype=m.int64),
    "linspace_reverse": lambda m: m.linspace(3, -3, 7),
    "linspace_negative_steps": lambda m: m.linspace(0, 10, -1),
    "logspace": lambda m: m.logspace(0, 2, 3),
    "logspace_base2": lambda m: m.logspace(0, 3, 4, base=2),
    "logspace_float64": lambda m: m.logspace(-2, 2, 5, dtype=m.float64),
    "eye": lambda m: m.eye(3),
    "eye_rect": lambda m: m.eye(2, 4),
    "eye_tall": lambda m: m.eye(4, 2),
    "eye_dtype": lambda m: m.eye(2, dtype=m.int32),
    "eye_zero": lambda m: m.eye(0),
    "eye_negative": lambda m: m.eye(-1),
    "zeros_like_noncontig": lambda m: m.zeros_like(m.ones(3, 4).t()),
    "full_like_trunc": lambda m: m.full_like(m.ones(2, dtype=m.int32), 2.7),
    "ones_like_dtype": lambda m: m.ones_like(m.ones(2), dtype=m.bool),
    "empty_like_dtype": lambda m: m.empty_like(m.ones(2, 3), dtype=m.int8).zero_(),
    "full_like_uint8_overflow": lambda m: m.full_like(m.ones(2, dtype=m.uint8), -3),
    "full_like_uint8_out_of_range": lambda m: m.full_like(m.ones(2, dtype=m.uint8), 300),
    "fill_int16_out_of_range": lambda m: m.ones(2, dtype=m.int16).fill_(40000),
    "full_int8_out_of_range": lambda m: m.full((2,), 1000, dtype=m.int8),
}

SAME_CALL_XFAILS = {}


def _describe(fn, module):
    """(dtype name, shape, values as float64 list) or ("error", type)."""
    try:
        t = fn(module)
    except Exception as e:        # noqa: BLE001 - the type is what we compare
        return ("error", type(e))
    dtype = str(t.dtype).split(".")[-1]
    if module is torch:
        values = t.to(torch.float64).numpy() if t.dtype == torch.bfloat16 else t.numpy()
    else:
        values = t.numpy()
    return (dtype, tuple(t.shape), np.asarray(values, dtype=np.float64))


@pytest.mark.parametrize("case", [
    pytest.param(c, marks=[pytest.mark.xfail(reason=SAME_CALL_XFAILS[c], strict=True)] if c in SAME_CALL_XFAILS else [])
    for c in SAME_CALL])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_same_call_as_torch(case):
    if torch is None:
        pytest.skip("PyTorch reference not installed")
    got = _describe(SAME_CALL[case], cygrad)
    want = _describe(SAME_CALL[case], torch)
    if want[0] == "error":
        assert got[0] == "error", f"{case}: torch raises {want[1].__name__}, cygrad returned {got[:2]}"
        assert issubclass(got[1], want[1]), f"{case}: cygrad raised {got[1].__name__}, torch {want[1].__name__}"
        return
    assert got[0] != "error", f"{case}: cygrad raised {got[1].__name__}, torch returned {want[:2]}"
    assert got[:2] == want[:2], f"{case}: cygrad {got[:2]}, torch {want[:2]}"
    np.testing.assert_allclose(got[2], want[2], rtol=1e-6, atol=0, err_msg=case)


# ---------------------------------------------------------------------------
# values against NumPy (no torch needed)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("args,kwargs", [
    ((5,), {}), ((2, 11, 3), {}), ((-3, 3), {}), ((10, 0, -3), {}),
    ((0.0, 1.0, 0.1), {"dtype": cygrad.float64}), ((-1.5, 2.0, 0.5), {}),
])
def test_arange_vs_numpy(args, kwargs):
    got = cygrad.arange(*args, **kwargs)
    want = np.arange(*args)
    assert tuple(got.shape) == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("start,end,steps", [(0, 1, 5), (-2, 7, 10), (3, 3, 4), (1, -1, 2), (0, 1, 1)])
def test_linspace_logspace_vs_numpy(start, end, steps):
    np.testing.assert_allclose(cygrad.linspace(start, end, steps, dtype=cygrad.float64).numpy(),
                               np.linspace(start, end, steps))
    np.testing.assert_allclose(cygrad.logspace(start, end, steps, dtype=cygrad.float64).numpy(),
                               np.logspace(start, end, steps))
    np.testing.assert_allclose(cygrad.logspace(start, end, steps, base=2.0, dtype=cygrad.float64).numpy(),
                               np.logspace(start, end, steps, base=2.0))


@pytest.mark.parametrize("n,m", [(1, None), (3, None), (2, 5), (5, 2), (0, 3)])
def test_eye_vs_numpy(n, m):
    np.testing.assert_array_equal(cygrad.eye(n, m).numpy(), np.eye(n, m))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16",
                                   "bfloat16", "float32", "float64"])
def test_filled_factories_every_dtype(dtype):
    dt = getattr(cygrad, dtype)
    npdt = np.dtype(dt.np_dtype)
    for fn, want in ((cygrad.zeros, np.zeros((2, 3), npdt)), (cygrad.ones, np.ones((2, 3), npdt))):
        t = fn(2, 3, dtype=dt)
        assert t.dtype == dt and tuple(t.shape) == (2, 3) and t.is_contiguous()
        np.testing.assert_array_equal(t.numpy(), want)
    t = cygrad.full((4,), 1, dtype=dt)
    assert t.dtype == dt and t.tolist() == np.full(4, 1, npdt).tolist()
    e = cygrad.empty(3, 0, dtype=dt)
    assert e.dtype == dt and tuple(e.shape) == (3, 0) and e.numel() == 0
    src = cygrad.ones(2, 3, dtype=dt)
    for like in (cygrad.zeros_like(src), cygrad.ones_like(src), cygrad.empty_like(src)):
        assert like.dtype == dt and tuple(like.shape) == (2, 3)


# ---------------------------------------------------------------------------
# dtype inference and the default dtype
# ---------------------------------------------------------------------------
def test_dtype_inference():
    assert cygrad.tensor([1, 2]).dtype == cygrad.int64
    assert cygrad.tensor([1.0, 2]).dtype == cygrad.float32
    assert cygrad.tensor([True]).dtype == cygrad.bool
    assert cygrad.tensor(np.array([1, 2], dtype=np.int16)).dtype == cygrad.int16
    assert cygrad.tensor(np.array([1.0], dtype=np.float64)).dtype == cygrad.float64
    assert cygrad.arange(3).dtype == cygrad.int64
    assert cygrad.arange(3.0).dtype == cygrad.float32
    assert cygrad.zeros(2).dtype == cygrad.float32
    assert cygrad.linspace(0, 1, 3).dtype == cygrad.float32
    assert cygrad.full((1,), 7).dtype == cygrad.int64


def test_set_default_dtype_changes_inference(default_dtype_guard):
    cygrad.set_default_dtype(cygrad.float64)
    assert cygrad.get_default_dtype() == cygrad.float64
    assert cygrad.tensor([1.5]).dtype == cygrad.float64
    assert cygrad.zeros(2).dtype == cygrad.float64
    assert cygrad.arange(0.0, 1.0, 0.5).dtype == cygrad.float64
    assert cygrad.linspace(0, 1, 3).dtype == cygrad.float64
    assert cygrad.full((1,), 2.5).dtype == cygrad.float64
    assert cygrad.tensor([1, 2]).dtype == cygrad.int64        # ints are not affected
    with pytest.raises(TypeError):
        cygrad.set_default_dtype(cygrad.int32)                  # torch: only floating types


def test_tensor_copies_and_as_tensor_shares():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    copied = cygrad.tensor(a)
    shared = cygrad.as_tensor(a)
    a[0, 0] = 100.0
    assert copied[0, 0].item() == 0.0
    assert shared[0, 0].item() == 100.0
    shared[1, 2] = -1.0
    assert a[1, 2] == -1.0
    # a dtype change can't share
    converted = cygrad.as_tensor(a, dtype=cygrad.float64)
    a[0, 1] = 55.0
    assert converted[0, 1].item() == 1.0
    # as_tensor of a tensor is the tensor itself
    t = cygrad.ones(2)
    assert cygrad.as_tensor(t) is t
    # a non-contiguous ndarray is shared too (any strides)
    b = np.arange(12.0).reshape(3, 4)[::2, ::-1]
    v = cygrad.as_tensor(b)
    b[0, 0] = -9.0
    assert v[0, 0].item() == -9.0


def test_tensor_from_negative_stride_ndarray():
    """torch.tensor refuses negative NumPy strides; cygrad supports them (copying)."""
    a = np.arange(12).reshape(3, 4)[::-1, ::-2]
    t = cygrad.tensor(a)
    np.testing.assert_array_equal(t.numpy(), a)
    assert t.is_contiguous()


def test_tensor_of_tensor_is_a_copy():
    t = cygrad.arange(4)
    c = cygrad.tensor(t)
    t[0] = 7
    assert c.tolist() == [0, 1, 2, 3]


def test_requires_grad_flag():
    assert cygrad.zeros(2, requires_grad=True).requires_grad
    assert cygrad.tensor([1.0], requires_grad=True).requires_grad
    assert not cygrad.ones(2).requires_grad


def test_factory_out_argument():
    out = cygrad.empty(5, dtype=cygrad.float64)
    v = out._version
    assert cygrad.arange(5, out=out) is out
    assert out.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0] and out.dtype == cygrad.float64
    assert out._version > v
    out3 = cygrad.empty(3)
    assert cygrad.linspace(0, 1, 3, out=out3) is out3
    np.testing.assert_allclose(out3.numpy(), [0.0, 0.5, 1.0])
    e = cygrad.empty(2, 2, dtype=cygrad.int64)
    assert cygrad.eye(2, out=e) is e and e.tolist() == [[1, 0], [0, 1]]
    small = cygrad.empty(2)
    assert cygrad.arange(4, out=small) is small        # resized, as torch does
    assert small.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_empty_and_shape_errors():
    with pytest.raises(RuntimeError):
        cygrad.empty(-2)
    with pytest.raises(TypeError):
        cygrad.zeros(2.5)
    with pytest.raises(RuntimeError):
        cygrad.linspace(0, 1, -1)


@pytest.mark.parametrize("data", [
    [np.int32(1), np.int32(2)], [np.int8(1)], [np.int8(1), np.uint8(2)], [np.float16(1), 2.5],
    [np.int64(1), 2.5], [np.int32(1), True], [[np.int16(1)], [np.int16(3)]],
    [np.float64(1.5), 2.0], [1.5, 2.0], [1, 2]])
def test_tensor_keeps_numpy_scalar_dtypes_as_pytorch(data):
    torch = pytest.importorskip("torch")
    expected = str(torch.tensor(data).dtype).replace("torch.", "")
    assert str(cygrad.tensor(data).dtype).replace("cygrad.", "") == expected
    assert str(cygrad.as_tensor(data).dtype).replace("cygrad.", "") == expected
    np.testing.assert_array_equal(cygrad.tensor(data).numpy(), np.asarray(data, dtype=expected))


@pytest.mark.parametrize("method,args", [("new_zeros", ((2, 3),)), ("new_zeros", (2, 3)),
                                         ("new_ones", ((4,),)), ("new_full", ((2,), 7)),
                                         ("new_tensor", ([1, 2],)), ("new_empty", (3,))])
def test_new_factories_follow_self_dtype(method, args):
    x = cygrad.ones(1, dtype=cygrad.float64)
    y = getattr(x, method)(*args)
    assert y.dtype == cygrad.float64 and y.device == x.device and not y.requires_grad
    if method != "new_empty":
        expected = {"new_zeros": np.zeros((2, 3)), "new_ones": np.ones(4),
                    "new_full": np.full(2, 7.0), "new_tensor": np.array([1.0, 2.0])}[method]
        np.testing.assert_array_equal(y.numpy(), expected)
    else:
        assert tuple(y.shape) == (3,)
    z = getattr(x, method)(*args, dtype=cygrad.int32, requires_grad=False)
    assert z.dtype == cygrad.int32


def test_piecewise_constant_ops_save_nothing():
    # floor/sign/frac need nothing from their input: changing it afterwards is fine (as torch)
    leaf = cygrad.tensor([1.5, -2.5], requires_grad=True)
    h = leaf.clone()
    y = h.floor() + h.sign() + h.frac()
    h.add_(1)
    y.sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), [1.0, 1.0])
