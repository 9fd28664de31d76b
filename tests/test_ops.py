"""Tests generated from the op table (``tests/opinfo``): every row is checked
against its NumPy reference for values, against PyTorch for result dtypes (and
values), and for method form, non-contiguous and zero-size inputs, ``out=`` and
the in-place variant.  See ``tests/opinfo/README.md``."""
import zlib

import numpy as np
import pytest

import cygrad
from cygrad._core.tensor import TensorBase
from opinfo import op_db
from opinfo.core import GENERATED_TESTS, HALFS, np_dtype

try:
    import torch
except ImportError:       # the torch comparisons skip themselves with a reason
    torch = None



# ---------------------------------------------------------------------------
# conversions
# ---------------------------------------------------------------------------
def to_cygrad(x):
    """ndarray -> a fresh cygrad tensor of the same dtype; anything else unchanged."""
    if isinstance(x, np.ndarray):
        return cygrad.from_numpy(np.array(x, copy=True))
    return x


def to_ref(x, half_to_float32):
    """ndarray -> the array handed to the NumPy reference (half types upcast)."""
    if isinstance(x, np.ndarray) and half_to_float32 and x.dtype in (np.float16, np_dtype(cygrad.bfloat16)):
        return x.astype(np.float32)
    return x


def to_torch(x):
    if isinstance(x, np.ndarray):
        if x.dtype == np_dtype(cygrad.bfloat16):
            return torch.from_numpy(x.astype(np.float32)).to(torch.bfloat16)
        return torch.from_numpy(np.array(x, copy=True))
    if isinstance(x, cygrad.dtype):
        return getattr(torch, x.name)
    return x


def cy_call(op_info, sample, convert=to_cygrad):
    inp = convert(sample.input)
    args = tuple(convert(a) for a in sample.args)
    kwargs = {k: convert(v) for k, v in sample.kwargs.items()}
    return inp, args, kwargs


def ref_result(op_info, sample, dtype):
    half = dtype in HALFS
    return op_info.ref(to_ref(sample.input, half), *(to_ref(a, half) for a in sample.args),
                       **{k: to_ref(v, half) for k, v in sample.kwargs.items()})


def as_numpy(t):
    return t.numpy() if isinstance(t, TensorBase) else t


# ---------------------------------------------------------------------------
# comparison
# ---------------------------------------------------------------------------
def _flat(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def assert_close(actual, expected, atol, rtol, what=""):
    """cygrad result(s) vs reference result(s): same structure, shapes, values."""
    acts, exps = _flat(actual), _flat(expected)
    assert len(acts) == len(exps), f"{what}: {len(acts)} results, reference gave {len(exps)}"
    for i, (a, e) in enumerate(zip(acts, exps)):
        label = f"{what} result {i}" if len(acts) > 1 else what
        if not isinstance(a, TensorBase):
            assert not isinstance(e, np.ndarray) or e.ndim == 0, f"{label}: got {a!r}, expected array"
            if isinstance(e, (bool, np.bool_)):
                assert a == bool(e) and isinstance(a, bool), f"{label}: {a!r} != {e!r}"
            else:
                np.testing.assert_allclose(a, e, atol=atol, rtol=rtol, err_msg=label)
            continue
        got = a.numpy()
        exp = np.asarray(e)
        assert got.shape == exp.shape, f"{label}: shape {got.shape} != reference {exp.shape}"
        if got.dtype.kind in "biu":
            # integer/bool results are exact (wrap-around included)
            np.testing.assert_array_equal(got.astype(np.int64), exp.astype(np.float64).astype(np.int64)
                                          if exp.dtype.kind == "f" else exp.astype(np.int64),
                                          err_msg=label)
        else:
            # complex results compare both parts (a float64 cast would drop the imaginary)
            wide = np.complex128 if "c" in (got.dtype.kind, exp.dtype.kind) else np.float64
            np.testing.assert_allclose(got.astype(wide), exp.astype(wide),
                                       atol=atol, rtol=rtol, equal_nan=True, err_msg=label)


def _np_f32(a):
    """bfloat16 arrays as float32 (NumPy's testing helpers don't see bf16 NaNs as NaN)."""
    return a.astype(np.float32) if a.dtype == np_dtype(cygrad.bfloat16) else a


def assert_identical(a, b, what):
    """Two cygrad results of the same computation: same dtype, shape, values (NaN == NaN)."""
    for x, y in zip(_flat(a), _flat(b)):
        if isinstance(x, TensorBase):
            assert isinstance(y, TensorBase), what
            assert x.dtype == y.dtype, f"{what}: dtype {x.dtype} != {y.dtype}"
            np.testing.assert_array_equal(_np_f32(x.numpy()), _np_f32(y.numpy()), err_msg=what)
        else:
            assert x == y, what


# ---------------------------------------------------------------------------
# parametrization
# ---------------------------------------------------------------------------
def _rng(*parts):
    return np.random.default_rng(zlib.crc32("-".join(parts).encode()))


def samples_for(op_info, dtype):
    return op_info.sample_inputs(op_info, dtype, _rng(op_info.id, dtype.name))


def _marks(op_info, test, dtype=None, sample=None):
    """skip/xfail marks from the row's ``skips``/``xfails``: keys ``test``,
    ``test:dtype`` or ``test:dtype:sample``."""
    marks = []
    for table, make in ((op_info.skips, lambda r: pytest.mark.skip(reason=r)),
                        (getattr(op_info, "xfails", {}), lambda r: pytest.mark.xfail(reason=r, strict=True))):
        for key, reason in table.items():
            parts = key.split(":")
            if parts[0] not in GENERATED_TESTS:
                raise ValueError(f"OpInfo {op_info.id}: unknown test name {parts[0]!r} in skips/xfails")
            if parts[0] != test:
                continue
            if test == "test_errors":
                if len(parts) > 1 and parts[1] != sample:
                    continue
            elif len(parts) > 1 and (dtype is None or parts[1] != dtype.name):
                continue
            if len(parts) > 2 and (sample is None or parts[2] != sample):
                continue
            marks.append(make(reason))
    return marks


def _sample_params():
    params = []
    for op_info in op_db:
        for dtype in op_info.dtypes:
            seen = {}
            for i, s in enumerate(samples_for(op_info, dtype)):
                label = s.name or str(i)
                if label in seen:
                    label = f"{label}{i}"
                seen[label] = True
                params.append(pytest.param(op_info, dtype, i, id=f"{op_info.id}-{dtype.name}-{label}",
                                           marks=_marks(op_info, "test_values", dtype, s.name)))
    return params


def _dtype_params(test, predicate=lambda op: True):
    return [pytest.param(op_info, dtype, id=f"{op_info.id}-{dtype.name}",
                         marks=_marks(op_info, test, dtype))
            for op_info in op_db if predicate(op_info) for dtype in op_info.dtypes]


def _op_params(test, predicate):
    """One test per row (cheap checks loop over the row's dtypes, see _per_dtype)."""
    return [pytest.param(op_info, id=op_info.id, marks=_marks(op_info, test))
            for op_info in op_db if predicate(op_info)]


def _dtype_mode(op_info, test, dtype):
    """("skip"|"xfail"|"run", reason) for ``test:dtype`` keys of skips/xfails."""
    key = f"{test}:{dtype.name}"
    if key in op_info.skips:
        return "skip", op_info.skips[key]
    if key in op_info.xfails:
        return "xfail", op_info.xfails[key]
    return "run", ""


def _per_dtype(op_info, test, check):
    """``check(op_info, dtype)`` for every dtype of the row.  ``test:dtype`` skip keys
    leave a dtype out; ``test:dtype`` xfail keys are strict: that dtype must fail, and
    its passing fails the test (so a fixed bug is noticed).  All dtypes run before
    the failures are reported together."""
    problems = []
    first = None
    for dtype in op_info.dtypes:
        mode, reason = _dtype_mode(op_info, test, dtype)
        if mode == "skip":
            continue
        try:
            check(op_info, dtype)
        except (Exception, pytest.fail.Exception) as e:    # noqa: BLE001 - reported below
            if mode != "xfail":
                problems.append(f"[{dtype.name}] {type(e).__name__}: {e}")
                first = first or e
        else:
            if mode == "xfail":
                problems.append(f"[{dtype.name}] XPASS(strict): {reason} -- now passes, remove the xfail")
    if problems:
        raise AssertionError(f"{op_info.id} {test}:\n" + "\n".join(problems)) from first


def _named_samples(op_info, dtype):
    return [(s.name or str(i), s) for i, s in enumerate(samples_for(op_info, dtype))]


# ---------------------------------------------------------------------------
# the generated tests
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("op_info,dtype,index", _sample_params())
def test_values(op_info, dtype, index):
    sample = samples_for(op_info, dtype)[index]
    inp, args, kwargs = cy_call(op_info, sample)
    actual = op_info.op(inp, *args, **kwargs)
    expected = ref_result(op_info, sample, dtype)
    atol, rtol = op_info.tolerances(dtype)
    assert_close(actual, expected, atol, rtol, f"{op_info.id}[{dtype.name}, {sample.name}]")


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:          # noqa: BLE001 - the type is what we compare
        return None, e


@pytest.mark.parametrize("op_info,dtype", _dtype_params("test_dtype_vs_torch"))
def test_dtype_vs_torch(op_info, dtype):
    """Same sample through torch: same result dtype(s) and shape(s), values close,
    or the same exception type when torch rejects the sample."""
    if torch is None:
        pytest.skip("PyTorch reference not installed")
    torch_fn = op_info.torch_callable(torch)
    if torch_fn is None:
        pytest.skip(f"{op_info.name}: no torch counterpart (torch_name={op_info.torch_name!r})")
    atol, rtol = op_info.tolerances(dtype)
    for name, sample in _named_samples(op_info, dtype):
        what = f"{op_info.id}[{dtype.name}, {name}]"
        t_inp, t_args, t_kwargs = cy_call(op_info, sample, to_torch)
        expected, t_err = _outcome(lambda: torch_fn(t_inp, *t_args, **t_kwargs))
        inp, args, kwargs = cy_call(op_info, sample)
        actual, c_err = _outcome(lambda: op_info.op(inp, *args, **kwargs))
        if isinstance(t_err, TypeError) and c_err is None:
            # torch's signature refuses this argument kind (e.g. a Python scalar for
            # torch.maximum); accepting more than torch is not an incompatibility
            continue
        if t_err is not None:
            assert c_err is not None, f"{what}: torch raised {t_err!r}, cygrad returned a result"
            assert isinstance(c_err, type(t_err)), f"{what}: torch raised {t_err!r}, cygrad {c_err!r}"
            continue
        assert c_err is None, f"{what}: cygrad raised {c_err!r}, torch returned a result"
        for a, e in zip(_flat(actual), _flat(expected)):
            if isinstance(e, torch.Tensor):
                assert isinstance(a, TensorBase), f"{what}: torch gives a tensor, cygrad {type(a)}"
                assert a.dtype.name == str(e.dtype).replace("torch.", ""), \
                    f"{what}: dtype {a.dtype.name} != torch {e.dtype}"
                assert tuple(a.shape) == tuple(e.shape), f"{what}: shape {tuple(a.shape)} != torch {tuple(e.shape)}"
                e_np = e.to(torch.float64).numpy() if e.dtype == torch.bfloat16 else e.numpy()
                assert_close(a, e_np, atol, rtol, f"{what} vs torch")
            else:
                assert_close(a, e, atol, rtol, f"{what} vs torch")


@pytest.mark.parametrize("op_info", _op_params("test_method", lambda op: op.method))
def test_method(op_info):
    _per_dtype(op_info, "test_method", _check_method)


def _check_method(op_info, dtype):
    for name, sample in _named_samples(op_info, dtype):
        inp, args, kwargs = cy_call(op_info, sample)
        method = getattr(inp, op_info.method, None)
        assert method is not None, f"Tensor has no method {op_info.method}"
        assert_identical(method(*args, **kwargs), op_info.op(inp, *args, **kwargs),
                         f"{op_info.id}[{dtype.name}, {name}] method vs function")


# non-contiguous views holding the same values as a given array
def _noncontig_transposed(a):
    if a.ndim < 2:
        return None
    base = cygrad.from_numpy(np.ascontiguousarray(a.T))
    return base.permute(*reversed(range(a.ndim)))


def _noncontig_strided(a):
    big = np.zeros(tuple(2 * n for n in a.shape), dtype=a.dtype)
    sl = tuple(slice(None, None, 2) for _ in a.shape)
    big[sl] = a
    return cygrad.from_numpy(big)[sl]


def _noncontig_flipped(a):
    if a.shape[0] < 2:
        return None
    return cygrad.from_numpy(np.ascontiguousarray(a[::-1]))[::-1]


NONCONTIG_MAKERS = {"transposed": _noncontig_transposed, "strided": _noncontig_strided,
                    "flipped": _noncontig_flipped}


@pytest.mark.parametrize("op_info,dtype", _dtype_params("test_noncontiguous", lambda op: op.check_noncontiguous))
def test_noncontiguous(op_info, dtype):
    atol, rtol = op_info.tolerances(dtype)
    checked = 0
    for name, sample in _named_samples(op_info, dtype):
        expected = ref_result(op_info, sample, dtype)
        for kind, make in NONCONTIG_MAKERS.items():
            made = []

            def convert(x):
                if isinstance(x, np.ndarray) and x.ndim >= 1 and x.size > 1:
                    v = make(x)
                    if v is not None and not v.is_contiguous():   # (3,1).T is still contiguous
                        np.testing.assert_array_equal(_np_f32(v.numpy()), _np_f32(x))
                        made.append(v)
                        return v
                return to_cygrad(x)

            inp, args, kwargs = cy_call(op_info, sample, convert)
            if not made:
                continue
            checked += 1
            actual = op_info.op(inp, *args, **kwargs)
            assert_close(actual, expected, atol, rtol, f"{op_info.id}[{dtype.name}, {name}, {kind}]")
    if not checked:
        pytest.skip(f"{op_info.id}: no sample has an operand with more than one element")


def _zero_size(sample):
    """The sample with dim 0 of its input (and the operand dims aligned with it) cut to 0."""
    inp = sample.input
    if not isinstance(inp, np.ndarray) or inp.ndim == 0:
        return None
    n0 = inp.shape[0]

    def cut(x):
        if not isinstance(x, np.ndarray):
            return x
        axis = x.ndim - inp.ndim
        if 0 <= axis < x.ndim and x.shape[axis] == n0 and n0 != 1:
            return np.take(x, [], axis=axis)
        if x.ndim < inp.ndim or (0 <= axis < x.ndim and x.shape[axis] == 1):
            return x            # broadcasts against the empty dim
        return None

    args = tuple(cut(a) for a in sample.args)
    if any(a is None for a in args):
        return None
    return type(sample)(inp[:0], args, dict(sample.kwargs), sample.name)


@pytest.mark.parametrize("op_info", _op_params("test_zero_size", lambda op: op.check_zero_size))
def test_zero_size(op_info):
    _per_dtype(op_info, "test_zero_size", _check_zero_size)


def _check_zero_size(op_info, dtype):
    atol, rtol = op_info.tolerances(dtype)
    checked = 0
    for name, sample in _named_samples(op_info, dtype):
        zs = _zero_size(sample)
        if zs is None:
            continue
        checked += 1
        what = f"{op_info.id}[{dtype.name}, {name}, zero-size]"
        expected, ref_err = _outcome(lambda: ref_result(op_info, zs, dtype))
        inp, args, kwargs = cy_call(op_info, zs)
        if ref_err is not None:
            with pytest.raises((RuntimeError, IndexError, ValueError)):
                op_info.op(inp, *args, **kwargs)
            continue
        assert_close(op_info.op(inp, *args, **kwargs), expected, atol, rtol, what)
    assert checked, (f"{op_info.id}[{dtype.name}]: no sample has a dim to cut to zero; "
                     "give the row one, or set check_zero_size=False")


@pytest.mark.parametrize("op_info", _op_params("test_out", lambda op: op.supports_out))
def test_out(op_info):
    _per_dtype(op_info, "test_out", _check_out)


def _check_out(op_info, dtype):
    for name, sample in _named_samples(op_info, dtype):
        what = f"{op_info.id}[{dtype.name}, {name}] out="
        inp, args, kwargs = cy_call(op_info, sample)
        expected = op_info.op(inp, *args, **kwargs)
        assert isinstance(expected, TensorBase), f"{what}: supports_out needs a single tensor result"
        out = cygrad.empty(tuple(expected.shape), dtype=expected.dtype)
        v0 = out._version
        result = op_info.op(inp, *args, out=out, **kwargs)
        assert result is out, f"{what}: did not return the out tensor"
        assert out._version > v0, f"{what}: version not bumped"
        assert_identical(out, expected, what)
        if expected.dtype.is_floating_point:
            # a float result can't go into an integer out tensor (torch: RuntimeError)
            bad = cygrad.empty(tuple(expected.shape), dtype=cygrad.int64)
            with pytest.raises(RuntimeError):
                op_info.op(inp, *args, out=bad, **kwargs)


@pytest.mark.parametrize("op_info", _op_params("test_inplace", lambda op: op.inplace))
def test_inplace(op_info):
    _per_dtype(op_info, "test_inplace", _check_inplace)


def _check_inplace(op_info, dtype):
    for name, sample in _named_samples(op_info, dtype):
        what = f"{op_info.id}[{dtype.name}, {name}] {op_info.inplace}"
        inp, args, kwargs = cy_call(op_info, sample)
        expected = op_info.op(inp, *args, **kwargs)
        target, args, kwargs = cy_call(op_info, sample)
        v0 = target._version
        if (not cygrad.can_cast(expected.dtype, target.dtype)
                or tuple(expected.shape) != tuple(target.shape)):
            with pytest.raises(RuntimeError):
                getattr(target, op_info.inplace)(*args, **kwargs)
            np.testing.assert_array_equal(_np_f32(target.numpy()), _np_f32(sample.input),
                                          err_msg=f"{what}: input changed")
            continue
        result = getattr(target, op_info.inplace)(*args, **kwargs)
        assert result is target, f"{what}: did not return self"
        assert target._version == v0 + 1, f"{what}: version {v0} -> {target._version}, expected +1"
        assert target.dtype == inp.dtype
        assert_identical(target, expected.to(target.dtype), what)


def _error_params():
    params = []
    for op_info in op_db:
        if op_info.error_inputs is None:
            continue
        for i, err in enumerate(op_info.error_inputs(op_info, _rng(op_info.id, "errors"))):
            name = err.sample.name or str(i)
            params.append(pytest.param(op_info, i, id=f"{op_info.id}-{name}",
                                       marks=_marks(op_info, "test_errors", sample=name)))
    return params


@pytest.mark.parametrize("op_info,index", _error_params())
def test_errors(op_info, index):
    """cygrad raises the row's error; torch (when installed) raises it too, and cygrad's
    exception is an instance of torch's (torch's NotImplementedError is a RuntimeError)."""
    err = op_info.error_inputs(op_info, _rng(op_info.id, "errors"))[index]
    inp, args, kwargs = cy_call(op_info, err.sample)
    with pytest.raises(err.error_type, match=err.match) as c_info:
        op_info.op(inp, *args, **kwargs)
    torch_fn = op_info.torch_callable(torch) if torch is not None else None
    if torch_fn is not None:
        t_inp, t_args, t_kwargs = cy_call(op_info, err.sample, to_torch)
        with pytest.raises(err.error_type) as t_info:
            torch_fn(t_inp, *t_args, **t_kwargs)
        assert isinstance(c_info.value, t_info.type), \
            f"torch raises {t_info.type.__name__}, cygrad {c_info.type.__name__}: {c_info.value}"


def test_op_db_is_well_formed():
    """Every row's skips/xfails name real tests, and it has samples for every dtype."""
    for op_info in op_db:
        _marks(op_info, "test_values")
        for dtype in op_info.dtypes:
            assert samples_for(op_info, dtype), f"{op_info.id}: no samples for {dtype.name}"


# ---------------------------------------------------------------------------
# hand-written elementwise semantics the table can't express
# ---------------------------------------------------------------------------
def test_elementwise_rows_cover_all():
    """Every public name of the cygrad.ops.elementwise package has a row in the table."""
    import cygrad.ops.elementwise as ew
    from opinfo import elementwise as ew_rows
    covered = {op.name for op in ew_rows.OPS}
    missing = sorted(set(ew.__all__) - covered)
    assert not missing, f"no OpInfo row for {missing}"


SPECIALS = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1.0, -1.0, 0.5, -2.5]
_FLOAT_NAMES = ["float32", "float64", "float16", "bfloat16"]


@pytest.mark.parametrize("name", ["sign", "relu", "abs", "neg"])
@pytest.mark.parametrize("dtype_name", _FLOAT_NAMES)
def test_signed_zero_and_nan_like_torch(name, dtype_name):
    """NaN-ness, sign bit (of non-NaN results) and values of sign/relu/abs/neg on
    NaN, +-inf, +-0.0 equal torch's."""
    if torch is None:
        pytest.skip("PyTorch reference not installed")
    got = getattr(cygrad, name)(cygrad.tensor(SPECIALS, dtype=getattr(cygrad, dtype_name)))
    got = got.numpy().astype(np.float64)
    exp = getattr(torch, name)(torch.tensor(SPECIALS, dtype=getattr(torch, dtype_name))).double().numpy()
    assert np.isnan(got).tolist() == np.isnan(exp).tolist(), (got.tolist(), exp.tolist())
    real = ~np.isnan(exp)
    assert np.signbit(got[real]).tolist() == np.signbit(exp[real]).tolist(), (got.tolist(), exp.tolist())
    np.testing.assert_array_equal(got[real], exp[real])


def test_signed_zero_hand_expectations():
    """PyTorch's documented/observed behaviour, checked without torch."""
    x = cygrad.tensor([-0.0, 0.0, float("nan")])
    neg = cygrad.neg(x).numpy()
    assert np.signbit(neg).tolist()[:2] == [False, True]
    assert not np.signbit(cygrad.abs(x).numpy()[:2]).any()
    relu = cygrad.relu(x).numpy()
    assert np.signbit(relu[0]) and not np.signbit(relu[1]) and np.isnan(relu[2])
    m = cygrad.maximum(x, cygrad.tensor([1.0, 1.0, 1.0])).numpy()
    assert np.isnan(m[2]) and m[:2].tolist() == [1.0, 1.0]
    f = cygrad.fmax(x, cygrad.tensor([1.0, 1.0, 1.0])).numpy()
    assert f.tolist() == [1.0, 1.0, 1.0]


def test_integer_division_semantics():
    """floor division rounds toward -inf, remainder takes the divisor's sign (Python),
    fmod the dividend's (C), div(trunc) rounds toward 0."""
    a = cygrad.tensor([-7, 7, -7, 7, 0])
    b = cygrad.tensor([2, -2, -2, 2, 3])
    assert cygrad.floor_divide(a, b).tolist() == [-4, -4, 3, 3, 0]
    assert cygrad.remainder(a, b).tolist() == [1, -1, -1, 1, 0]
    assert (a % b).tolist() == [1, -1, -1, 1, 0]
    assert (a // b).tolist() == [-4, -4, 3, 3, 0]
    assert cygrad.fmod(a, b).tolist() == [-1, 1, -1, 1, 0]
    assert cygrad.div(a, b, rounding_mode="trunc").tolist() == [-3, -3, 3, 3, 0]
    assert cygrad.div(a, b, rounding_mode="floor").tolist() == [-4, -4, 3, 3, 0]
    assert cygrad.div(a, b, rounding_mode="trunc").dtype == cygrad.int64
    assert cygrad.remainder(cygrad.tensor([-7.5]), 2).tolist() == [0.5]


def _torch_error_type(fn):
    try:
        fn()
    except Exception as e:          # noqa: BLE001
        return type(e)
    return None


ERROR_CASES = {
    # name: (cygrad thunk, torch thunk)
    "shape_mismatch": (lambda: cygrad.ones(3, 4) + cygrad.ones(3),
                       lambda: torch.ones(3, 4) + torch.ones(3)),
    "inplace_dtype": (lambda: cygrad.ones(3, dtype=cygrad.int64).add_(1.5),
                      lambda: torch.ones(3, dtype=torch.int64).add_(1.5)),
    "inplace_unary_float_result": (lambda: cygrad.ones(3, dtype=cygrad.int32).exp_(),
                                   lambda: torch.ones(3, dtype=torch.int32).exp_()),
    "inplace_broadcast": (lambda: cygrad.ones(3).mul_(cygrad.ones(2, 3)),
                          lambda: torch.ones(3).mul_(torch.ones(2, 3))),
    "int_div_by_zero": (lambda: cygrad.tensor([1, 2]) // cygrad.tensor([1, 0]),
                        lambda: torch.tensor([1, 2]) // torch.tensor([1, 0])),
    "int_remainder_by_zero": (lambda: cygrad.tensor([1, 2]) % 0, lambda: torch.tensor([1, 2]) % 0),
    "int_neg_power": (lambda: cygrad.tensor([1, 2]) ** -1, lambda: torch.tensor([1, 2]) ** -1),
    "bool_sub": (lambda: cygrad.tensor([True]) - cygrad.tensor([False]),
                 lambda: torch.tensor([True]) - torch.tensor([False])),
    "bool_neg": (lambda: -cygrad.tensor([True]), lambda: -torch.tensor([True])),
    "bitwise_float": (lambda: cygrad.tensor([1.0]) & cygrad.tensor([1.0]),
                      lambda: torch.tensor([1.0]) & torch.tensor([1.0])),
    "bitwise_not_float": (lambda: ~cygrad.tensor([1.0]), lambda: ~torch.tensor([1.0])),
    "out_float_into_int": (lambda: cygrad.exp(cygrad.ones(2), out=cygrad.empty(2, dtype=cygrad.int64)),
                           lambda: torch.exp(torch.ones(2), out=torch.empty(2, dtype=torch.int64))),
    "float_power_inplace_float32": (lambda: cygrad.ones(2).float_power_(2),
                                    lambda: torch.ones(2).float_power_(2)),
    "clamp_no_bounds": (lambda: cygrad.clamp(cygrad.ones(2)), lambda: torch.clamp(torch.ones(2))),
    "div_bad_rounding_mode": (lambda: cygrad.div(cygrad.ones(2), 2, rounding_mode="up"),
                              lambda: torch.div(torch.ones(2), 2, rounding_mode="up")),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_error_types_match_torch(case):
    """cygrad raises an exception of (a subclass of) the type torch raises on the
    same call (NotImplementedError included)."""
    if torch is None:
        pytest.skip("PyTorch reference not installed")
    cy_fn, torch_fn = ERROR_CASES[case]
    expected = _torch_error_type(torch_fn)
    assert expected is not None, f"torch does not raise for {case}"
    got = _torch_error_type(cy_fn)
    assert got is not None, f"cygrad does not raise for {case} (torch raises {expected.__name__})"
    assert issubclass(got, expected), f"{case}: cygrad raised {got.__name__}, torch {expected.__name__}"


def test_unsupported_dtype_raises_not_implemented_error():
    with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
        cygrad.bitwise_and(cygrad.ones(2), cygrad.ones(2))


def test_nan_to_num_half_defaults():
    """posinf/neginf default to the dtype's own largest finite values."""
    import ml_dtypes
    for dt, info in ((cygrad.float16, np.finfo(np.float16)),
                     (cygrad.bfloat16, ml_dtypes.finfo(ml_dtypes.bfloat16))):
        x = cygrad.tensor([float("inf"), -float("inf"), float("nan")], dtype=dt)
        assert cygrad.nan_to_num(x).tolist() == [float(info.max), float(info.min), 0.0]


def test_inplace_through_alias_methods():
    """The aliases' in-place spellings exist and act on self (torch has them all)."""
    for alias, plain, arg in (("absolute_", "abs", ()), ("negative_", "neg", ()),
                              ("multiply_", "mul", (3.0,)), ("subtract_", "sub", (1.0,)),
                              ("divide_", "div", (2.0,)), ("greater_", "gt", (0.0,)),
                              ("arctan2_", "atan2", (cygrad.tensor(2.0),))):
        x = cygrad.tensor([-1.5, 2.0])
        v = x._version
        assert getattr(x, alias)(*arg) is x
        assert x._version == v + 1
        assert x.tolist() == getattr(cygrad, plain)(cygrad.tensor([-1.5, 2.0]), *arg).tolist()


def test_special_values_emit_no_numpy_warnings():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for dt in (cygrad.float16, cygrad.bfloat16, cygrad.float32, cygrad.float64):
            x = cygrad.tensor([float("nan"), 0.0, -1.0, 1.0], dtype=dt)
            cygrad.log(x)
            cygrad.log(x[::-1])
            cygrad.lt(x, 1.0)
            x.clone().lt_(1.0)
            cygrad.maximum(x, x[::-1])
