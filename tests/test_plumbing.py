"""The plumbing names of PyTorch's API against PyTorch itself: dtype limits, tensor
predicates and flags, strided factories, ``frombuffer``, ``range``, the process
switches, in-place view changes with autograd, ``Tensor.new`` and the generated
top-level in-place functions."""
import array
import math
import warnings

import numpy as np
import pytest

import cygrad

torch = pytest.importorskip("torch", reason="these tests compare with PyTorch")

FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("name", FLOAT_DTYPES)
def test_finfo_matches_torch(name):
    ours, theirs = cygrad.finfo(getattr(cygrad, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", INT_DTYPES)
def test_iinfo_matches_torch(name):
    ours, theirs = cygrad.iinfo(getattr(cygrad, name)), torch.iinfo(getattr(torch, name))
    assert (ours.bits, ours.min, ours.max, ours.dtype) == (theirs.bits, theirs.min, theirs.max,
                                                           theirs.dtype)
    assert repr(ours) == repr(theirs)


def test_finfo_iinfo_errors_and_default(default_dtype_guard):
    for bad_ours, bad_theirs in ((lambda: cygrad.finfo(cygrad.int32), lambda: torch.finfo(torch.int32)),
                                 (lambda: cygrad.iinfo(cygrad.float32), lambda: torch.iinfo(torch.float32)),
                                 (lambda: cygrad.iinfo(cygrad.bool), lambda: torch.iinfo(torch.bool))):
        with pytest.raises(TypeError):
            bad_theirs()
        with pytest.raises(TypeError):
            bad_ours()
    cygrad.set_default_dtype(cygrad.float64)
    assert cygrad.finfo().eps == torch.finfo(torch.float64).eps


def test_predicates_match_torch():
    cases = [np.zeros((2, 3), np.float32), np.array([0.0]), np.array(3, np.int64),
             np.array([True]), np.zeros((0,), np.uint8), np.array([-1], np.int8)]
    for a in cases:
        c, t = cygrad.from_numpy(a.copy()), torch.from_numpy(a.copy())
        assert cygrad.is_tensor(c) and not cygrad.is_tensor(a)
        assert cygrad.is_floating_point(c) == torch.is_floating_point(t)
        assert cygrad.is_signed(c) == torch.is_signed(t) == c.is_signed()
        assert cygrad.numel(c) == torch.numel(t)
        assert cygrad.is_same_size(c, c) and c.is_same_size(c)
        assert not cygrad.is_same_size(c, cygrad.zeros(7))
        assert c.get_device() == t.get_device() == cygrad.get_device(c)
        for flag in ("is_inference", "is_neg", "is_distributed", "is_pinned"):
            assert getattr(c, flag)() == getattr(t, flag)() is False
        for prop in ("is_sparse", "is_quantized", "is_nested", "is_meta", "is_mkldnn"):
            assert getattr(c, prop) == getattr(t, prop) is False
        if a.size == 1:
            assert cygrad.is_nonzero(c) == torch.is_nonzero(t)
        else:
            with pytest.raises(RuntimeError, match="ambiguous"):
                torch.is_nonzero(t)
            with pytest.raises(RuntimeError, match="ambiguous"):
                cygrad.is_nonzero(c)
    assert cygrad.is_nonzero(cygrad.tensor(math.nan)) == torch.is_nonzero(torch.tensor(math.nan))
    for fn in ("is_floating_point", "numel", "is_nonzero"):
        with pytest.raises(TypeError):
            getattr(torch, fn)(3)
        with pytest.raises(TypeError):
            getattr(cygrad, fn)(3)


def test_storage_typename_layout_constants():
    x = cygrad.zeros(2)
    assert cygrad.is_storage(x.untyped_storage()) and not cygrad.is_storage(x)
    assert torch.is_storage(torch.zeros(2).untyped_storage())
    assert cygrad.typename(x) == torch.typename(torch.zeros(2)).replace("torch", "cygrad")
    assert cygrad.typename(3) == torch.typename(3) == "int"
    assert x.layout is cygrad.strided and repr(cygrad.strided) == repr(torch.strided).replace("torch", "cygrad")
    for name in ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d"):
        assert repr(getattr(cygrad, name)) == repr(getattr(torch, name)).replace("torch", "cygrad")
    assert isinstance(cygrad.contiguous_format, cygrad.memory_format)
    assert (cygrad.e, cygrad.pi, cygrad.inf, cygrad.newaxis) == (torch.e, torch.pi, torch.inf, torch.newaxis)
    assert math.isnan(cygrad.nan)
    with pytest.raises(RuntimeError, match="accelerator"):
        torch.zeros(2).pin_memory()
    with pytest.raises(RuntimeError, match="accelerator"):
        x.pin_memory()


@pytest.mark.parametrize("size,stride", [((2, 3), (1, 2)), ((2, 3, 4), (12, 1, 3)), ((2, 0), (1, 2)),
                                         ((3,), (2,)), ((), ())])
def test_empty_strided_matches_torch(size, stride):
    c, t = cygrad.empty_strided(size, stride), torch.empty_strided(size, stride)
    assert tuple(c.shape) == tuple(t.shape) and c.stride() == t.stride()
    assert c._base is None and c.dtype is cygrad.float32
    c.fill_(1.0)         # every element is writable memory of its own storage
    assert c.sum().item() == c.numel()
    n = cygrad.zeros(1, dtype=cygrad.int32).new_empty_strided(size, stride)
    assert n.dtype is cygrad.int32 and n.stride() == t.stride()


def test_strided_factory_errors_match_torch():
    for args in [((2, 3), (1,)), ((2, -3), (1, 2))]:
        with pytest.raises(RuntimeError):
            torch.empty_strided(*args)
        with pytest.raises(RuntimeError):
            cygrad.empty_strided(*args)
    with pytest.raises(RuntimeError, match="Duplicate"):
        torch.empty_permuted((2, 3), (0, 0))
    with pytest.raises(RuntimeError, match="Duplicate"):
        cygrad.empty_permuted((2, 3), (0, 0))


@pytest.mark.parametrize("size,layout", [((2, 3, 4), (2, 0, 1)), ((2, 3, 4, 5), (0, 2, 3, 1)),
                                         ((3, 1, 2), (1, 0, 2)), ((4,), (0,))])
def test_empty_permuted_matches_torch(size, layout):
    c, t = cygrad.empty_permuted(size, layout), torch.empty_permuted(size, layout)
    assert tuple(c.shape) == tuple(t.shape) and c.stride() == t.stride()


def test_frombuffer_shares_memory_as_torch():
    for dt, code in (("float32", "f"), ("int16", "h"), ("float64", "d")):
        for count, offset in ((-1, 0), (2, 0), (-1, array.array(code).itemsize), (1, 2 * array.array(code).itemsize)):
            buf_c, buf_t = array.array(code, [1, 2, 3, 4]), array.array(code, [1, 2, 3, 4])
            c = cygrad.frombuffer(buf_c, dtype=getattr(cygrad, dt), count=count, offset=offset)
            t = torch.frombuffer(buf_t, dtype=getattr(torch, dt), count=count, offset=offset)
            np.testing.assert_array_equal(c.numpy(), t.numpy())
            c[0] = 9
            t[0] = 9
            assert buf_c.tolist() == buf_t.tolist()
    for buf, kw in ((bytearray(3), {}), (bytearray(0), {}), (bytearray(8), {"count": 3}),
                    (bytearray(8), {"offset": 8})):
        with pytest.raises(ValueError):
            torch.frombuffer(buf, dtype=torch.float32, **kw)
        with pytest.raises(ValueError):
            cygrad.frombuffer(buf, dtype=cygrad.float32, **kw)
    with pytest.warns(UserWarning, match="not writable"):
        assert cygrad.frombuffer(b"\x01\x02", dtype=cygrad.uint8).tolist() == [1, 2]


@pytest.mark.parametrize("args,kwargs", [((0, 1, 0.25), {}), ((5, 1, -2), {}), ((0, 1, 0.3), {}),
                                         ((0, 3), {"dtype": "int64"}),
                                         ((-1.5, 2.5, 1), {"dtype": "float64"})])
def test_range_matches_torch(args, kwargs):
    ck = {k: getattr(cygrad, v) for k, v in kwargs.items()}
    tk = {k: getattr(torch, v) for k, v in kwargs.items()}
    with pytest.warns(UserWarning, match="deprecated"):
        c = cygrad.range(*args, **ck)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.range(*args, **tk)
    assert str(c.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    np.testing.assert_allclose(c.numpy(), t.numpy(), rtol=1e-6)


def test_range_errors_match_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in ((0, 1, 0), (0, 1, -1)):
            with pytest.raises(RuntimeError):
                torch.range(*args)
            with pytest.raises(RuntimeError):
                cygrad.range(*args)


def test_fill_zero_rsub_detach_functions():
    x = cygrad.tensor([1.0, 2.0])
    assert cygrad.fill(x, 3).tolist() == torch.fill(torch.tensor([1.0, 2.0]), 3).tolist()
    assert x.tolist() == [1.0, 2.0]
    assert cygrad.rsub(x, 3, alpha=2).tolist() == torch.rsub(torch.tensor([1.0, 2.0]), 3, alpha=2).tolist()
    assert cygrad.zero_(x) is x and x.tolist() == [0.0, 0.0]
    assert cygrad.fill_(x, 5) is x and x.tolist() == [5.0, 5.0]
    y = cygrad.ones(2, requires_grad=True) * 2
    assert not cygrad.detach(y).requires_grad and y.requires_grad
    assert cygrad.detach_(y) is y and y.is_leaf
    v = cygrad.tensor(2.0, requires_grad=True)       # fill's gradient flows to the value
    cygrad.fill(cygrad.zeros(3), v).sum().backward()
    assert v.grad.item() == 3.0


def test_tensor_new_matches_torch():
    c, t = cygrad.zeros(1, dtype=cygrad.float64), torch.zeros(1, dtype=torch.float64)
    assert c.new([1, 2]).tolist() == t.new([1, 2]).tolist() and c.new([1, 2]).dtype is cygrad.float64
    assert tuple(c.new(2, 3).shape) == tuple(t.new(2, 3).shape)
    assert tuple(c.new().shape) == tuple(t.new().shape) == (0,)
    assert tuple(c.new(cygrad.Size([2])).shape) == (2,)
    with pytest.raises(TypeError):
        t.new(torch.ones(2))
    with pytest.raises(TypeError):
        c.new(cygrad.ones(2))


VIEW_CHANGES = [("t_", ()), ("transpose_", (0, 1)), ("swapaxes_", (1, 0)), ("swapdims_", (0, 1)),
                ("unsqueeze_", (1,)), ("squeeze_", ()), ("as_strided_", ((3, 2), (1, 3)))]


@pytest.mark.parametrize("name,args", VIEW_CHANGES)
def test_inplace_view_changes_match_torch(name, args):
    a = np.arange(6.0).reshape(2, 3)
    w = np.random.default_rng(0).standard_normal(6)
    xc = cygrad.from_numpy(a.copy()).requires_grad_()
    xt = torch.from_numpy(a.copy()).requires_grad_()
    yc, yt = xc * 2, xt * 2
    assert getattr(yc, name)(*args) is yc
    getattr(yt, name)(*args)
    assert tuple(yc.shape) == tuple(yt.shape) and yc.stride() == yt.stride()
    assert yc._version == yt._version
    np.testing.assert_array_equal(yc.detach().numpy(), yt.detach().numpy())
    (yc * cygrad.from_numpy(w.reshape(yc.shape))).sum().backward()
    (yt * torch.from_numpy(w.reshape(tuple(yt.shape)))).sum().backward()
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy())
    with pytest.raises(RuntimeError, match="leaf Variable"):
        getattr(xt, name)(*args)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        getattr(xc, name)(*args)
    with cygrad.no_grad():
        getattr(xc, name)(*args)          # allowed without grad mode, as in PyTorch
    assert tuple(xc.shape) == tuple(yt.shape)


def test_inplace_view_change_gradcheck_and_version_error():
    x = cygrad.randn(2, 3, dtype=cygrad.float64, requires_grad=True)

    def f(a):
        b = a * 1
        b.transpose_(0, 1)
        b.unsqueeze_(0)
        return b.squeeze_(0).as_strided_((2, 2), (1, 2), 1)
    assert cygrad.autograd.gradcheck(f, (x,), check_forward_ad=True)
    assert cygrad.autograd.gradgradcheck(f, (x,))
    h = x * 1
    y = h * h                 # saves h
    h.t_()
    with pytest.raises(RuntimeError, match="version"):
        y.sum().backward()


def test_view_of_a_view_changed_in_place_keeps_its_base():
    z = cygrad.zeros(4)
    v = z[1:3]
    v.unsqueeze_(0)
    assert v._base is z and tuple(v.shape) == (1, 2)
    v.fill_(1.0)
    assert z.tolist() == [0.0, 1.0, 1.0, 0.0]


def test_generated_inplace_functions_match_torch():
    from cygrad.ops import inplace_functions
    assert len(inplace_functions.__all__) >= 40
    a = np.array([0.25, 0.5, 0.75])
    for name in inplace_functions.__all__:
        assert hasattr(torch, name), name
        if name in ("index_put_", "addmv_", "gcd_", "lcm_"):  # (operands of their own,
            continue                                          # or integer-only)
        kwargs = {"min": 0.5} if name in ("clamp_", "clip_") else {}
        args = (0.5,) if name in ("clamp_min_", "clamp_max_", "xlogy_") else ()
        c, t = cygrad.from_numpy(a.copy()), torch.from_numpy(a.copy())
        if name == "ldexp_":
            args = (cygrad.tensor([1, 2, 3]),)
            assert getattr(cygrad, name)(c, *args) is c
            getattr(torch, name)(t, torch.tensor([1, 2, 3]))
        else:
            assert getattr(cygrad, name)(c, *args, **kwargs) is c
            getattr(torch, name)(t, *args, **kwargs)
        np.testing.assert_allclose(c.numpy(), t.numpy(), rtol=1e-12, equal_nan=True, err_msg=name)
    with pytest.raises(TypeError):
        cygrad.exp_(1.0)


def test_switches_match_torch(monkeypatch):
    for fn in ("are_deterministic_algorithms_enabled", "get_deterministic_debug_mode",
               "get_float32_matmul_precision", "is_warn_always_enabled", "is_anomaly_enabled",
               "is_anomaly_check_nan_enabled"):
        assert getattr(cygrad, fn)() == getattr(torch, fn)(), fn
    try:
        for mode in ("warn", "error", 0, 1, 2, "default"):
            cygrad.set_deterministic_debug_mode(mode)
            torch.set_deterministic_debug_mode(mode)
            assert (cygrad.get_deterministic_debug_mode(), cygrad.are_deterministic_algorithms_enabled(),
                    cygrad.is_deterministic_algorithms_warn_only_enabled()) == (
                torch.get_deterministic_debug_mode(), torch.are_deterministic_algorithms_enabled(),
                torch.is_deterministic_algorithms_warn_only_enabled())
        for bad, exc in (("x", RuntimeError), (3, RuntimeError), (1.0, TypeError)):
            with pytest.raises(exc):
                torch.set_deterministic_debug_mode(bad)
            with pytest.raises(exc):
                cygrad.set_deterministic_debug_mode(bad)
        with pytest.raises(TypeError):      # (torch's message, "must be bool, not int")
            cygrad.use_deterministic_algorithms(1)
    finally:
        # (set_deterministic_debug_mode: torch.use_deterministic_algorithms takes 5 s to import)
        torch.set_deterministic_debug_mode(0)
        cygrad.use_deterministic_algorithms(False)
    cygrad.set_float32_matmul_precision("medium")
    assert cygrad.get_float32_matmul_precision() == "medium"
    with pytest.warns(UserWarning):
        cygrad.set_float32_matmul_precision("low")
    assert cygrad.get_float32_matmul_precision() == "medium"
    cygrad.set_float32_matmul_precision("highest")
    cygrad.set_warn_always(True)
    assert cygrad.is_warn_always_enabled()
    cygrad.set_warn_always(False)
    with pytest.raises(RuntimeError):
        cygrad.set_warn_always(1)
    assert cygrad.set_flush_denormal(False) is True


def test_anomaly_switch_drives_anomaly_mode():
    x = cygrad.tensor([0.0], requires_grad=True)
    cygrad.set_anomaly_enabled(True)
    try:
        assert cygrad.is_anomaly_enabled() and cygrad.autograd.is_anomaly_enabled()
        with pytest.raises(RuntimeError, match="nan"):
            (x.sqrt() * 0).sum().backward()
    finally:
        cygrad.set_anomaly_enabled(False)
    assert not cygrad.is_anomaly_enabled()


def test_set_default_tensor_type_warns_as_torch(default_dtype_guard):
    with pytest.warns(UserWarning, match="deprecated"):
        cygrad.set_default_tensor_type(cygrad.DoubleTensor)
    assert cygrad.get_default_dtype() is cygrad.float64
    with pytest.warns(UserWarning):
        cygrad.set_default_tensor_type("torch.FloatTensor")
    assert cygrad.get_default_dtype() is cygrad.float32
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError):
            torch.set_default_tensor_type(torch.LongTensor)
        with pytest.raises(TypeError):
            cygrad.set_default_tensor_type(cygrad.LongTensor)


DEPRECATED_INIT = ["uniform", "normal", "constant", "xavier_uniform", "xavier_normal",
                   "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse", "dirac"]


@pytest.mark.parametrize("name", DEPRECATED_INIT)
def test_deprecated_init_names_warn_as_torch(name):
    shape = (2, 2, 3) if name == "dirac" else (3, 4)
    args = (0.5,) if name in ("constant", "sparse") else ()
    with pytest.warns(FutureWarning) as theirs:
        torch.nn.init.__dict__[name](torch.empty(shape), *args)
    with pytest.warns(FutureWarning) as ours:
        cygrad.manual_seed(0)
        w = getattr(cygrad.nn.init, name)(cygrad.empty(shape), *args)
    assert str(ours[0].message) == str(theirs[0].message)
    cygrad.manual_seed(0)
    expected = getattr(cygrad.nn.init, name + "_")(cygrad.empty(shape), *args)
    np.testing.assert_array_equal(w.numpy(), expected.numpy())


FFT_CASES = [(None, None), ((4, 6), None), (None, (0,)), ((5,), (1,))]


@pytest.mark.parametrize("name", ["hfftn", "ihfftn", "hfft2", "ihfft2"])
def test_hermitian_nd_ffts_match_torch(name):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4)) if name[0] == "h"
         else rng.standard_normal((3, 5)))
    checked = 0
    for norm in (None, "ortho", "forward"):
        for s, dim in FFT_CASES:
            if name.endswith("2") and (dim is not None or s is not None and len(s) != 2):
                continue
            kw = {"s": s, "norm": norm, **({} if dim is None else {"dim": dim})}
            c = getattr(cygrad.fft, name)(cygrad.from_numpy(a.copy()), **kw).numpy()
            t = getattr(torch.fft, name)(torch.from_numpy(a.copy()), **kw).resolve_conj().numpy()
            assert c.shape == t.shape and c.dtype == t.dtype
            np.testing.assert_allclose(c, t, atol=1e-10)
            checked += 1
    assert checked >= 6
    x = cygrad.from_numpy(a.copy()).requires_grad_()
    fn = getattr(cygrad.fft, name)
    assert cygrad.autograd.gradcheck(fn, (x,))
    assert cygrad.autograd.gradgradcheck(fn, (x,))


def test_tensor_methods_match_torch():
    a = np.arange(6.0).reshape(2, 3)
    c, t = cygrad.from_numpy(a.copy()), torch.from_numpy(a.copy())
    ci, ti = cygrad.zeros(1, dtype=cygrad.int32), torch.zeros(1, dtype=torch.int32)
    assert c.type_as(ci).tolist() == t.type_as(ti).tolist() and c.type_as(ci).dtype is cygrad.int32
    assert c.type_as(c) is c
    r = cygrad.zeros(1)
    assert cygrad.resize_as_(r, c) is r and tuple(r.shape) == tuple(torch.zeros(1).resize_as_(t).shape)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        assert c.resize(3, 2).tolist() == t.resize(3, 2).tolist()
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        assert tuple(c.resize_as(cygrad.zeros(6)).shape) == (6,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError):
            t.resize(4)
        with pytest.raises(RuntimeError):
            c.resize(4)
    assert c.const_data_ptr() == c.data_ptr()
    for fn, args in (("apply_", (lambda v: v * 2 + 1,)), ("map_", (None, lambda x, y: x - y)),
                     ("map2_", (None, None, lambda x, y, z: x * y + z))):
        cc, tt = cygrad.from_numpy(a.copy()), torch.from_numpy(a.copy())
        c_args = tuple(cygrad.tensor([1.0, 2.0, 3.0], dtype=cygrad.float64) if v is None else v
                       for v in args)
        t_args = tuple(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64) if v is None else v
                       for v in args)
        assert getattr(cc, fn)(*c_args) is cc
        getattr(tt, fn)(*t_args)
        np.testing.assert_array_equal(cc.numpy(), tt.numpy())
    with pytest.raises(TypeError):
        torch.from_numpy(a.copy()).map_(torch.ones(3), lambda x, y: x)
    with pytest.raises(TypeError):
        cygrad.from_numpy(a.copy()).map_(cygrad.ones(3), lambda x, y: x)


@pytest.mark.parametrize("row,col,offset", [(3, 3, 0), (3, 4, 1), (4, 3, -1), (2, 3, -5), (0, 3, 0),
                                            (3, 5, 2)])
def test_triangle_indices_match_torch(row, col, offset):
    for name in ("tril_indices", "triu_indices"):
        c, t = getattr(cygrad, name)(row, col, offset), getattr(torch, name)(row, col, offset)
        assert c.dtype is cygrad.int64 and tuple(c.shape) == tuple(t.shape)
        assert c.tolist() == t.tolist()
    assert cygrad.tril_indices(3, 3, dtype=cygrad.int32).dtype is cygrad.int32
    with pytest.raises(NotImplementedError):
        cygrad.tril_indices(3, 3, dtype=cygrad.float32)
    with pytest.raises(RuntimeError):
        torch.tril_indices(-1, 3)
    with pytest.raises(RuntimeError):
        cygrad.tril_indices(-1, 3)


def test_compile_cond_while_loop_and_dlpack():
    net = cygrad.nn.Linear(2, 1)
    assert cygrad.compile(net) is net
    assert cygrad.compile(mode="max-autotune")(net) is net
    # (torch.cond / torch.while_loop run the same branches in eager mode, after importing
    # torch's compiler stack for 4 s: the expected values are written out instead)
    x = cygrad.tensor([1.0, -2.0])
    for pred, expected in ((True, [2.0, -1.0]), (False, [3.0, -6.0]), (cygrad.tensor(True), [2.0, -1.0]),
                           (cygrad.tensor([False]), [3.0, -6.0])):
        assert cygrad.cond(pred, lambda a: a + 1, lambda a: a * 3, (x,)).tolist() == expected
    with pytest.raises(RuntimeError):
        cygrad.cond(cygrad.tensor([True, False]), lambda a: a, lambda a: a, (x,))
    ci, cx = cygrad.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, v * 2), (cygrad.tensor(0), x))
    assert (ci.item(), cx.tolist()) == (4, [16.0, -32.0])
    y = cygrad.arange(3)
    back = cygrad.from_dlpack(cygrad.to_dlpack(y))
    assert back.data_ptr() == y.data_ptr() and back.tolist() == [0, 1, 2]
    np.testing.assert_array_equal(torch.from_dlpack(cygrad.to_dlpack(y)).numpy(), [0, 1, 2])


def test_dim_order_and_module_load_match_torch():
    views = [lambda x: x, lambda x: x.transpose(0, 2), lambda x: x[:, :1], lambda x: x.permute(1, 2, 0),
             lambda x: x[..., ::2]]
    for view in views:
        c, t = view(cygrad.zeros(2, 3, 4)), view(torch.zeros(2, 3, 4))
        assert c.dim_order() == t.dim_order()
    c, t = cygrad.empty_permuted((2, 3, 4), (1, 2, 0)), torch.empty_permuted((2, 3, 4), (1, 2, 0))
    assert c.dim_order() == t.dim_order()
    assert cygrad.zeros(1, 1).dim_order() == torch.zeros(1, 1).dim_order()
    with pytest.raises(RuntimeError):
        torch.zeros(2, 1).dim_order(ambiguity_check=True)
    with pytest.raises(RuntimeError):
        cygrad.zeros(2, 1).dim_order(ambiguity_check=True)
    for assign in (False, True):
        wc, wt = cygrad.zeros(2), torch.zeros(2)
        oc, ot = cygrad.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
        rc, rt = wc.module_load(oc, assign=assign), wt.module_load(ot, assign=assign)
        assert rc.tolist() == rt.tolist() and wc.tolist() == wt.tolist()
        assert rc.requires_grad == rt.requires_grad and (rc.data_ptr() == oc.data_ptr()) == (
            rt.data_ptr() == ot.data_ptr())


def test_as_subclass_matches_torch():
    class Ours(cygrad.Tensor):
        pass

    class Theirs(torch.Tensor):
        pass
    xc, xt = cygrad.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    sc, st = xc.as_subclass(Ours), xt.as_subclass(Theirs)
    assert type(sc) is Ours and sc.data_ptr() == xc.data_ptr()
    assert (sc.requires_grad, sc.is_leaf, sc.grad_fn.name()) == (st.requires_grad, st.is_leaf,
                                                                 st.grad_fn.name())
    (sc * 3).sum().backward()
    (st * 3).sum().backward()
    assert xc.grad.tolist() == xt.grad.tolist()
    plain = cygrad.ones(2).as_subclass(Ours)
    assert plain.grad_fn is None and not plain.requires_grad
    plain[0] = 5.0
    with pytest.raises(TypeError):
        torch.ones(2).as_subclass(int)
    with pytest.raises(TypeError):
        cygrad.ones(2).as_subclass(int)


PRODUCT_CASES = {"addmm": ((3, 4), [(3, 2), (2, 4)]), "addbmm": ((3, 4), [(5, 3, 2), (5, 2, 4)]),
                 "baddbmm": ((5, 3, 4), [(5, 3, 2), (5, 2, 4)]), "addmv": ((3,), [(3, 2), (2,)]),
                 "addr": ((3, 4), [(3,), (4,)])}


@pytest.mark.parametrize("name", sorted(PRODUCT_CASES))
def test_inplace_products_match_torch(name):
    rng = np.random.default_rng(0)
    shape, shapes = PRODUCT_CASES[name]
    x, ops = rng.standard_normal(shape), [rng.standard_normal(s) for s in shapes]
    c, t = cygrad.from_numpy(x.copy()), torch.from_numpy(x.copy())
    assert getattr(c, name + "_")(*map(cygrad.from_numpy, ops), beta=0.5, alpha=2) is c
    getattr(t, name + "_")(*map(torch.from_numpy, ops), beta=0.5, alpha=2)
    np.testing.assert_allclose(c.numpy(), t.numpy(), rtol=1e-10)
    leaves = [cygrad.from_numpy(a.copy()).requires_grad_() for a in [x] + ops]

    def fn(a, *b):
        return getattr(a.clone(), name + "_")(*b, beta=0.5)
    assert cygrad.autograd.gradcheck(fn, tuple(leaves))
    with pytest.raises(RuntimeError, match="leaf Variable"):
        getattr(leaves[0], name + "_")(*leaves[1:])
