"""The device axis of the op table: running a row of ``tests/opinfo`` on the
emulated CUDA device and on the CPU, and comparing the two
(``tests/cuda/test_opinfo_cuda.py`` holds the tests).

Every sample's arrays become tensors on each device (the float ones of a row's
second sample as strided views of a bigger buffer, so the kernels' strided
paths run, unless the row sets ``check_noncontiguous=False``); the CUDA run must give the CPU run's dtypes, shapes and values
(within :func:`tolerances`, which allow for another summation order), raise the
same exception type where the CPU raises, and leave its tensors on the device.
A run that raises cygrad's ``no 'cuda' kernel for primitive 'X'``
``NotImplementedError`` raises :class:`MissingKernel` instead, which the tests
turn into a skip with that message as the reason.

By default two samples per row and dtype run (float32 and float64; gradients
in float64, one sample), as the CI budget gives the whole table 90 s;
``CYGRAD_OPINFO_CUDA_FULL=1`` runs every sample.
"""
import os
import re
import warnings
import zlib

import numpy as np

import cygrad
from cygrad._core.tensor import TensorBase
from opinfo import _autograd
from opinfo.core import ALL, make_array

FULL = os.environ.get("CYGRAD_OPINFO_CUDA_FULL", "0") not in ("", "0")
DTYPES = (cygrad.float32, cygrad.float64)
#: the dtypes of the copy checks (complex too)
ALL_DTYPES = ALL + (cygrad.complex64, cygrad.complex128)
#: samples per row and dtype compared on the device (all of them with FULL)
SAMPLES = 2

_MISSING = re.compile(r"no 'cuda' kernel for primitive '[^']+'")


class MissingKernel(Exception):
    """A primitive the run needs has no 'cuda' kernel yet (the message says which)."""


def missing_kernel(exc):
    """The message of a missing-'cuda'-kernel NotImplementedError, else None."""
    if isinstance(exc, NotImplementedError) and _MISSING.search(str(exc)):
        return str(exc)
    return None


def tolerances(op_info, dtype, grad=False):
    """(atol, rtol) between the CPU and the CUDA result.

    The two devices may sum in another order (tree reductions, tiled products), so
    float32 allows a few units in the last place of a sum of ~100 terms; float64
    is held much tighter. A row that loosened its tolerance against NumPy (an
    ill-conditioned op) loosens the device comparison in proportion; gradients,
    one more pass of rounding, get ten times the slack.
    """
    scale_a = max(1.0, op_info.atol / 1e-5)
    scale_r = max(1.0, op_info.rtol / 1e-4)
    atol, rtol = (1e-5, 1e-4) if dtype == cygrad.float32 else (1e-10, 1e-9)
    factor = 10.0 if grad else 1.0
    return atol * scale_a * factor, rtol * scale_r * factor


def _column_signs(m):
    """+1/-1 per column of ``m``: the sign of the column's largest-magnitude entry."""
    idx = m.detach().abs().argmax(dim=-2, keepdim=True)
    s = m.detach().gather(-2, idx).sign()
    return cygrad.where(s == 0, cygrad.ones_like(s), s)


def _eigh_gauge(result):
    w, v = result
    return w, v * _column_signs(v)


def _svd_gauge(result):
    # only the k = len(s) vectors that belong to singular values: with
    # full_matrices=True the others are any orthonormal completion
    u, s, vh = result
    k = s.shape[-1]
    u, vh = u[..., :k], vh[..., :k, :]
    signs = _column_signs(u)
    return u * signs, s, vh * signs.mT


def _torch_svd_gauge(result):         # torch.svd gives V, not Vh
    u, s, v = result
    k = s.shape[-1]
    u, v = u[..., :k], v[..., :k]
    signs = _column_signs(u)
    return u * signs, s, v * signs


# Eigen- and singular vectors are defined up to sign, and another device's
# algorithm may pick the other one (LAPACK's is not a rule): these rows are
# compared with each vector's sign fixed (its largest entry positive), values and
# gradients alike (the fix is a constant factor, so gradients follow it), and
# singular vectors only as far as they belong to a singular value.
GAUGE = {"linalg.eigh": _eigh_gauge, "linalg.svd": _svd_gauge, "svd": _torch_svd_gauge}


def op_of(op_info):
    """The row's op, with its outputs' sign fixed where :data:`GAUGE` says so."""
    fix = GAUGE.get(op_info.id)
    if fix is None:
        return op_info.op
    return lambda *args, **kwargs: fix(op_info.op(*args, **kwargs))


def _rng(*parts):
    return np.random.default_rng(zlib.crc32("-".join(parts).encode()))


def _size(sample):
    arrays = [sample.input, *sample.args, *sample.kwargs.values()]
    return sum(np.size(a) for a in arrays if isinstance(a, np.ndarray))


def pick(samples):
    """The samples to run: all with FULL, else the largest one plus one special-value
    sample (NaN/inf) if the row has one, else the next largest."""
    if FULL or len(samples) <= SAMPLES:
        return list(samples)
    by_size = sorted(range(len(samples)), key=lambda i: -_size(samples[i]))
    chosen = [by_size[0]]
    special = [i for i in by_size if samples[i].name.startswith("special")]
    chosen.append(special[0] if special and special[0] != by_size[0] else by_size[1])
    return [samples[i] for i in chosen]


def value_samples(op_info, dtype):
    found = op_info.sample_inputs(op_info, dtype, _rng("cuda", op_info.id, dtype.name))
    return pick(found)


# ---------------------------------------------------------------- running a sample

def _strided_on(arr, device):
    """``arr``'s values as every other element of a bigger buffer on ``device``."""
    big = np.zeros(tuple(2 * n for n in arr.shape), dtype=arr.dtype)
    sl = tuple(slice(None, None, 2) for _ in arr.shape)
    big[sl] = arr
    return cygrad.from_numpy(big).to(device)[sl]


def to_device(x, device, strided=False):
    """A sample's array as a fresh tensor on ``device`` (anything else unchanged)."""
    if not isinstance(x, np.ndarray):
        return x
    if strided and x.dtype.kind == "f" and x.ndim >= 1 and x.size > 1:
        return _strided_on(x, device)
    return cygrad.from_numpy(np.array(x, copy=True)).to(device)


def arguments(sample, device, strided=False):
    conv = lambda x: to_device(x, device, strided)   # noqa: E731
    return (conv(sample.input), tuple(conv(a) for a in sample.args),
            {k: conv(v) for k, v in sample.kwargs.items()})


def outcome(fn):
    """(result, None) or (None, the exception); a missing kernel raises MissingKernel."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")        # deprecation notes of some rows
            return fn(), None
    except Exception as e:                         # noqa: BLE001 - compared by the caller
        msg = missing_kernel(e)
        if msg is not None:
            raise MissingKernel(msg) from e
        return None, e


def flat(x):
    if isinstance(x, (tuple, list)):
        return [y for item in x for y in flat(item)]
    return [x]


def host(t):
    """A CUDA tensor's values as NumPy (the copy back may itself lack a kernel)."""
    try:
        return t.cpu().numpy()
    except NotImplementedError as e:
        msg = missing_kernel(e)
        if msg is not None:
            raise MissingKernel(msg) from e
        raise


def assert_same(cpu, dev, atol, rtol, what):
    """The CUDA result ``dev`` equals the CPU result ``cpu``: structure, devices, dtypes,
    shapes, values (NaN == NaN; integers and bools exactly)."""
    cs, ds = flat(cpu), flat(dev)
    assert len(cs) == len(ds), f"{what}: {len(ds)} results on cuda, {len(cs)} on cpu"
    for i, (c, d) in enumerate(zip(cs, ds)):
        label = f"{what} result {i}" if len(cs) > 1 else what
        if not isinstance(c, TensorBase):
            assert not isinstance(d, TensorBase), f"{label}: cuda gave a tensor, cpu {type(c)}"
            if isinstance(c, float) and isinstance(d, float):
                np.testing.assert_allclose(d, c, atol=atol, rtol=rtol, equal_nan=True, err_msg=label)
            else:
                assert d == c or (d != d and c != c), f"{label}: cuda {d!r} != cpu {c!r}"
            continue
        assert isinstance(d, TensorBase), f"{label}: cuda gave {type(d)}, cpu a tensor"
        assert d.device.type == "cuda", f"{label}: result on {d.device}, not cuda"
        assert d.dtype == c.dtype, f"{label}: dtype {d.dtype} on cuda, {c.dtype} on cpu"
        assert tuple(d.shape) == tuple(c.shape), f"{label}: shape {tuple(d.shape)} != {tuple(c.shape)}"
        got, want = host(d), c.numpy()
        if want.dtype.kind in "biu":
            np.testing.assert_array_equal(got, want, err_msg=label)
        else:
            wide = np.complex128 if want.dtype.kind == "c" else np.float64
            np.testing.assert_allclose(got.astype(wide), want.astype(wide), atol=atol, rtol=rtol,
                                       equal_nan=True, err_msg=label)


def same_error(cpu_err, dev_err, what):
    assert dev_err is not None, f"{what}: cpu raised {cpu_err!r}, cuda returned a result"
    assert isinstance(dev_err, type(cpu_err)), f"{what}: cpu raised {cpu_err!r}, cuda {dev_err!r}"


# ---------------------------------------------------------------- the three checks

def check_values(op_info, dtype):
    """Each picked sample of the row: the CUDA result equals the CPU result."""
    atol, rtol = tolerances(op_info, dtype)
    for i, sample in enumerate(value_samples(op_info, dtype)):
        strided = i == 1 and op_info.check_noncontiguous   # (as_strided reads the storage)
        what = f"{op_info.id}[{dtype.name}, {sample.name}{', strided' if strided else ''}]"
        op = op_of(op_info)
        inp, args, kwargs = arguments(sample, "cpu")
        cpu, cpu_err = outcome(lambda: op(inp, *args, **kwargs))
        inp, args, kwargs = arguments(sample, "cuda", strided)
        dev, dev_err = outcome(lambda: op(inp, *args, **kwargs))
        if cpu_err is not None:
            same_error(cpu_err, dev_err, what)
            continue
        if dev_err is not None:
            raise AssertionError(f"{what}: cuda raised {dev_err!r}, cpu returned a result") from dev_err
        assert_same(cpu, dev, atol, rtol, what)


def _grads(op_info, sample, device):
    """Gradients of <op(sample), cotangent> with respect to the sample's float inputs
    (float64 leaves on ``device``), the cotangents drawn from a seeded generator."""
    where = _autograd.slots(sample)
    leaves = [to_device(np.asarray(_autograd.get(sample, s), dtype=np.float64), device)
              .requires_grad_(True) for s in where]
    inp, args, kwargs = arguments(sample, device)          # (the other arrays on the device too)
    placed = dict(zip(where, leaves))
    inp = placed.get(("input", None), inp)
    args = tuple(placed.get(("args", i), a) for i, a in enumerate(args))
    kwargs = {k: placed.get(("kwargs", k), v) for k, v in kwargs.items()}
    result, err = outcome(lambda: op_of(op_info)(inp, *args, **kwargs))
    if err is not None:
        return None, err
    outs = [o for o in _autograd.outputs(result)
            if o.dtype.is_floating_point and o.grad_fn is not None]
    if not outs:
        return [], None
    rng = _rng("cotangent", op_info.id)
    cots = [cygrad.from_numpy(rng.standard_normal(tuple(o.shape)).astype(np.float64))
            .to(o.dtype).to(device) for o in outs]
    got, err = outcome(lambda: cygrad.autograd.grad(outs, leaves, cots, allow_unused=True))
    return (None, err) if err is not None else (list(got), None)


def check_grads(op_info):
    """float64 gradients (a random cotangent's backward) on CUDA equal the CPU's."""
    atol, rtol = tolerances(op_info, cygrad.float64, grad=True)
    samples = _autograd.usable_samples(op_info, limit=None if FULL else 1)
    for sample in samples:
        what = f"{op_info.id}[float64, {sample.name}] gradients"
        cpu, cpu_err = _grads(op_info, sample, "cpu")
        dev, dev_err = _grads(op_info, sample, "cuda")
        if cpu_err is not None:
            same_error(cpu_err, dev_err, what)
            continue
        if dev_err is not None:
            raise AssertionError(f"{what}: cuda raised {dev_err!r}, cpu returned") from dev_err
        assert len(dev) == len(cpu), f"{what}: {len(dev)} gradients on cuda, {len(cpu)} on cpu"
        for k, (c, d) in enumerate(zip(cpu, dev)):
            assert (c is None) == (d is None), f"{what}: input {k} has a gradient on one device only"
            if c is not None:
                assert_same(c, d, atol, rtol, f"{what} of input {k}")


def check_inplace(op_info, dtype):
    """``x.<op>_(...)`` on CUDA: returns x, bumps its version once, and leaves the CPU
    run's values in it (or raises what the CPU raises)."""
    atol, rtol = tolerances(op_info, dtype)
    for sample in value_samples(op_info, dtype)[:1 if not FULL else None]:
        what = f"{op_info.id}[{dtype.name}, {sample.name}] {op_info.inplace}"
        runs = {}
        for device in ("cpu", "cuda"):
            target, args, kwargs = arguments(sample, device)
            v0 = target._version
            res, err = outcome(lambda: getattr(target, op_info.inplace)(*args, **kwargs))
            runs[device] = (target, v0, res, err)
        c_target, _, _, c_err = runs["cpu"]
        d_target, v0, d_res, d_err = runs["cuda"]
        if c_err is not None:
            same_error(c_err, d_err, what)
            continue
        if d_err is not None:
            raise AssertionError(f"{what}: cuda raised {d_err!r}, cpu returned") from d_err
        assert d_res is d_target, f"{what}: did not return self"
        assert d_target._version == v0 + 1, f"{what}: version {v0} -> {d_target._version}"
        assert_same(c_target, d_target, atol, rtol, what)


def check_strided_copies(dtype):
    """``contiguous()`` and ``cpu()`` of a broadcast, a transposed and a step-2 view of
    a CUDA tensor of ``dtype`` give the CPU's values."""
    arr = make_array((3, 4), dtype, _rng("copies", dtype.name))
    views = {"expanded": lambda t: t[:, :1].expand(3, 4), "transposed": lambda t: t.t(),
             "step2": lambda t: t[::2, ::-2]}
    for name, view in views.items():
        cpu = view(cygrad.from_numpy(arr.copy()))
        dev, err = outcome(lambda: view(cygrad.from_numpy(arr.copy()).to("cuda")).contiguous())
        assert err is None, f"{dtype.name} {name}: contiguous() raised {err!r}"
        assert dev.is_contiguous(), f"{dtype.name} {name}: contiguous() is not contiguous"
        assert_same(cpu.contiguous(), dev, 0, 0, f"{dtype.name} {name}")
