"""The reduction family's CUDA kernels (cuda_src/reduction.cu, cuda_src/scan.cu,
cygrad/cuda/ops/reduction.py) on the emulated GPU.

Each 'cuda' kernel is called with the same arguments as the 'cpu' kernel of its
primitive (which computes with NumPy) and must give the same dtype, shape and
values, on contiguous, transposed and sliced inputs of every dtype it covers;
a few checks use NumPy directly, and gradients through the ops are compared
with the CPU run.
"""
import contextlib
import math
import os
import sys

import numpy as np
import pytest

import cygrad
from cygrad._core import dispatch
from cygrad.cuda._driver import signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import installed  # noqa: E402

pytestmark = pytest.mark.skipif(signature.find_cxx() is None,
                                reason="the emulated CUDA driver needs a host C++ compiler")

FLOATS = [cygrad.float32, cygrad.float64, cygrad.float16, cygrad.bfloat16]
INTS = [cygrad.int8, cygrad.uint8, cygrad.int16, cygrad.int32, cygrad.int64, cygrad.bool]
INF = math.inf


@pytest.fixture(scope="module", autouse=True)
def emulated():
    """The emulated GPU in strict mode; ``CYGRAD_CUDA_TESTS=gpu`` runs the same tests
    through the PyCUDA driver on a real GPU instead (not yet run on one)."""
    if os.environ.get("CYGRAD_CUDA_TESTS") == "gpu":
        from cygrad.cuda._driver.pycuda_driver import PyCudaDriver
        driver = PyCudaDriver()
    else:
        from cygrad.cuda._driver.emulated import EmulatedDriver
        driver = EmulatedDriver(memory=256 << 20, strict=True)
    with installed(driver) as d:
        cygrad.zeros(1, device="cuda")          # installs the 'cuda' kernels
        yield d


def cpu(name):
    return dispatch.kernel(name, "cpu")


def gpu(name):
    return dispatch.kernel(name, "cuda")


def data(dtype, shape=(3, 4, 5), seed=0, nan=False):
    """A CPU tensor of ``dtype``: normal floats (a few NaN when ``nan``), small
    integers (ties), random bools."""
    rng = np.random.default_rng(seed)
    if dtype is cygrad.bool:
        return cygrad.tensor(rng.random(shape) < 0.6)
    if not dtype.is_floating_point:
        lo = 0 if dtype is cygrad.uint8 else -3
        return cygrad.tensor(rng.integers(lo, 4, size=shape), dtype=dtype)
    a = rng.standard_normal(shape)
    if nan:
        a.reshape(-1)[rng.choice(a.size, size=max(1, a.size // 10), replace=False)] = np.nan
    return cygrad.tensor(a, dtype=dtype)


def views(x):
    """(CPU, CUDA) pairs of one tensor: contiguous, transposed, sliced with an offset,
    broadcast (a stride 0)."""
    c = x.cuda()
    pairs = [(x, c)]
    if x.dim() == 3:
        pairs.append((x.transpose(0, 2), c.transpose(0, 2)))
        pairs.append((x[1:, :, ::2], c[1:, :, ::2]))
        pairs.append((x[:, 1:2].expand(x.shape), c[:, 1:2].expand(x.shape)))
    return pairs


def host(t):
    a = t.cpu().numpy()
    return a.astype(np.float32) if t.dtype is cygrad.bfloat16 else a


def tol(dtype):
    return {cygrad.float32: 2e-5, cygrad.float64: 1e-12}.get(dtype, 2e-2)


def same(got, want, dtype=None):
    """The CUDA result equals the CPU one: type, dtype, shape and values."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w, dtype)
        return
    if isinstance(want, int):
        assert type(got) is int and got == want
        return
    assert got.is_cuda and got.dtype is want.dtype and tuple(got.shape) == tuple(want.shape), \
        (got.dtype, want.dtype, got.shape, want.shape)
    g, w = host(got), host(want)
    if want.dtype.is_floating_point:
        t = tol(dtype or want.dtype)
        np.testing.assert_allclose(g, w, rtol=t, atol=t, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, w)


# primitives whose kernels have a column form (cg_fold_cols), used where the innermost
# kept dim has stride 1 and there are reduction.COLUMN_ROWS rows or more
COLUMN_FORMS = {"reduce_sum", "reduce_mean", "reduce_nansum", "reduce_prod", "reduce_extreme",
                "aminmax", "all_any", "count_nonzero", "vector_norm", "matrix_norm"}


@contextlib.contextmanager
def column_kernels():
    """The column kernels for every plan they can serve, however few its rows."""
    from cygrad.cuda.ops import reduction
    saved, reduction.COLUMN_ROWS = reduction.COLUMN_ROWS, 0
    try:
        yield
    finally:
        reduction.COLUMN_ROWS = saved


@contextlib.contextmanager
def split_kernels():
    """The split form (segments of 3 elements) for every row plan it can serve."""
    from cygrad.cuda.ops import reduction
    names = ("SPLIT_ROWS", "SPLIT_COLS", "SPLIT_SEGMENT")
    saved = [getattr(reduction, n) for n in names]
    for n, v in zip(names, (1 << 62, 0, 3)):
        setattr(reduction, n, v)
    try:
        yield
    finally:
        for n, v in zip(names, saved):
            setattr(reduction, n, v)


def check(name, x, *args):
    for i, (xc, xg) in enumerate(views(x)):
        want = cpu(name)(xc, *args)
        same(gpu(name)(xg, *args), want, x.dtype)
        # the other forms on the contiguous and the transposed view (the sliced ones
        # have no stride-1 dim for the column form)
        if name in COLUMN_FORMS and i < 2:
            for form in (column_kernels, split_kernels):
                with form():
                    same(gpu(name)(xg, *args), want, x.dtype)


# ---------------------------------------------------------------- folds over dims

AXES = [((0, 2), False), ((1,), True), (None, False), ((0, 1, 2), True)]


@pytest.mark.parametrize("dtype", FLOATS)
def test_mean_nanmean_nansum_prod_logsumexp(dtype):
    x, xn = data(dtype), data(dtype, nan=True)
    for axes, keepdim in AXES:
        for i, (xc, xg) in enumerate(views(x)):
            red = range(xc.dim()) if axes is None else axes
            n = math.prod(xc.shape[d] for d in red)
            want = cpu("reduce_mean")(xc, axes, keepdim, dtype, n)
            same(gpu("reduce_mean")(xg, axes, keepdim, dtype, n), want, dtype)
            for form in (column_kernels, split_kernels)[:2 if i < 2 else 0]:
                with form():
                    same(gpu("reduce_mean")(xg, axes, keepdim, dtype, n), want, dtype)
        check("reduce_prod", x, axes, keepdim, dtype)
        check("reduce_sum", x, axes, keepdim, dtype)
        check("logsumexp", x, axes, keepdim, dtype)
        check("reduce_nansum", xn, axes, keepdim, dtype)
        check("reduce_nanmean", xn, axes, keepdim, dtype)


@pytest.mark.parametrize("dtype", INTS)
def test_integer_sums_and_products_give_int64(dtype):
    x = data(dtype)
    for axes, keepdim in AXES:
        check("reduce_prod", x, axes, keepdim, cygrad.int64)
        check("reduce_nansum", x, axes, keepdim, cygrad.int64)
        check("reduce_sum", x, axes, keepdim, cygrad.int64)       # (tensors.py sends it here)
    big = cygrad.full((3,), 2 ** 40, dtype=cygrad.int64).cuda()
    assert gpu("reduce_prod")(big, None, False, cygrad.int64).item() == 0   # wraps, as int64 does
    assert gpu("reduce_nansum")(big, None, False, cygrad.int64).item() == 3 * 2 ** 40


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_extremes_and_logical(dtype):
    x = data(dtype, nan=dtype.is_floating_point)
    for axes, keepdim in AXES:
        for largest in (True, False):
            check("reduce_extreme", x, axes, keepdim, largest)
        check("aminmax", x, axes, keepdim)
        check("all_any", x, axes, keepdim, True, cygrad.bool)
        check("all_any", x, axes, keepdim, False, cygrad.bool)
        check("count_nonzero", x, axes)
    check("all_any", x, (), False, True, cygrad.bool)             # () is elementwise
    if dtype is cygrad.uint8:
        check("all_any", x, (1,), False, False, cygrad.uint8)


def test_extreme_of_nan_and_infinity_rows_against_numpy():
    a = np.array([[1.0, np.nan, 3.0], [-np.inf, -np.inf, -np.inf], [np.inf, 2.0, np.nan]])
    c = cygrad.tensor(a).cuda()
    np.testing.assert_array_equal(host(gpu("reduce_extreme")(c, (1,), False, True)),
                                  np.max(a, axis=1))
    np.testing.assert_array_equal(host(gpu("reduce_extreme")(c, (1,), False, False)),
                                  np.min(a, axis=1))


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_arg_extremes_first_index_on_ties_nan_wins(dtype):
    x = data(dtype, nan=dtype.is_floating_point)
    for largest in (True, False):
        for d in (0, 1, 2):
            for keepdim in (False, True):
                check("extreme_dim", x, d, keepdim, largest)
                check("arg_extreme", x, d, keepdim, largest)
        check("arg_extreme", x, None, False, largest)
        check("arg_extreme", x, None, True, largest)
    scalar = data(dtype, shape=())
    check("extreme_dim", scalar, 0, False, True)
    check("arg_extreme", scalar, None, False, False)


def test_argmax_against_numpy_on_ties_and_nan():
    a = np.array([[2.0, 5.0, 5.0, 1.0], [np.nan, 1.0, np.nan, 9.0], [-INF, -INF, -INF, -INF]])
    c = cygrad.tensor(a).cuda()
    v, i = gpu("extreme_dim")(c, 1, False, True)
    assert i.cpu().tolist() == [1, 0, 0]
    np.testing.assert_array_equal(host(v), [5.0, np.nan, -INF])
    assert gpu("arg_extreme")(c, 1, False, False).cpu().tolist() == [3, 0, 0]
    assert gpu("arg_extreme")(c, None, False, True).item() == 4


@pytest.mark.parametrize("dtype", FLOATS)
def test_var_mean(dtype):
    x = data(dtype) + 100.0         # an offset: a one-pass formula would cancel
    for axes, keepdim in AXES:
        for xc, xg in views(x):
            red = range(xc.dim()) if axes is None else axes
            n = math.prod(xc.shape[d] for d in red)
            for dof, take_sqrt in ((n - 1, False), (n, True), (n - 2.5, False)):
                same(gpu("var_mean")(xg, axes, keepdim, n, dof, take_sqrt),
                     cpu("var_mean")(xc, axes, keepdim, n, dof, take_sqrt), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_vector_norms(dtype):
    x = data(dtype)
    x[0, 0, :2] = 0.0
    for p in (0.0, 1.0, 2.0, INF, -INF, 3.5, 0.5):
        for axes, keepdim in AXES:
            check("vector_norm", x, p, axes, keepdim, dtype)


@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64])
def test_matrix_norms(dtype):
    x = data(dtype)
    for ord in ("fro", 1, -1, INF, -INF):
        for dims, keepdim in (((1, 2), False), ((2, 0), True), ((0, 1), False)):
            check("matrix_norm", x, ord, dims, keepdim, dtype)
    for ord in ("nuc", 2, -2):
        with pytest.raises(NotImplementedError, match="singular value decomposition"):
            gpu("matrix_norm")(x.cuda(), ord, (0, 1), False, dtype)


def test_logsumexp_of_infinite_rows():
    a = np.array([[-INF, -INF], [INF, 1.0], [1000.0, 1000.0]])
    c = cygrad.tensor(a).cuda()
    np.testing.assert_allclose(host(gpu("logsumexp")(c, (1,), False, cygrad.float64)),
                               [-INF, INF, 1000.0 + np.log(2.0)])


def test_empty_reductions():
    c = cygrad.zeros(3, 0).cuda()
    assert np.isnan(host(gpu("reduce_mean")(c, (1,), False, cygrad.float32, 0))).all()
    assert host(gpu("reduce_prod")(c, (1,), False, cygrad.float32)).tolist() == [1.0] * 3
    assert gpu("reduce_prod")(c, (0,), False, cygrad.float32).shape == (0,)
    assert host(gpu("all_any")(c, (1,), False, True, cygrad.bool)).tolist() == [True] * 3
    assert gpu("count_true")(cygrad.zeros(0, dtype=cygrad.bool).cuda()) == 0


def test_count_true():
    x = data(cygrad.bool, shape=(7, 9))
    assert gpu("count_true")(x.cuda()) == cpu("count_true")(x) == int(np.count_nonzero(x.numpy()))
    assert gpu("count_true")(x.cuda().t()[::2]) == cpu("count_true")(x.t()[::2])


# ---------------------------------------------------------------- scans

@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")   # the CPU kernel's NaN compares
@pytest.mark.parametrize("dtype", FLOATS)
def test_float_scans(dtype):
    x = data(dtype)
    xn = data(dtype, nan=True)
    xn[0, 1, :] = -INF
    for d in (0, 1, 2):
        check("scan", x, d, dtype, False)
        check("scan", x, d, dtype, True)
        check("logcumsumexp", x, d)
        check("logcumsumexp", xn, d)
        for largest in (True, False):
            check("cum_extreme", xn, d, largest)
    check("scan", data(dtype, shape=()), 0, dtype, False)


@pytest.mark.parametrize("dtype", INTS)
def test_integer_scans_give_int64(dtype):
    x = data(dtype)
    for d in (0, 2):
        check("scan", x, d, cygrad.int64, False)
        check("scan", x, d, cygrad.int64, True)
        for largest in (True, False):
            check("cum_extreme", x, d, largest)


def test_long_scan_against_numpy():
    # several chunks of a 256-thread block, with the carry between them
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 1000))
    c = cygrad.tensor(a).cuda()
    np.testing.assert_allclose(host(gpu("scan")(c, 1, cygrad.float64, False)), np.cumsum(a, 1),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(host(gpu("logcumsumexp")(c, 1)),
                               np.logaddexp.accumulate(a, axis=1), rtol=1e-12)
    v, i = gpu("cum_extreme")(c, 1, True)
    np.testing.assert_array_equal(host(v), np.maximum.accumulate(a, axis=1))
    ints = cygrad.tensor(rng.integers(0, 5, size=(2, 700))).cuda()
    v, i = gpu("cum_extreme")(ints, 1, False)
    ref = np.minimum.accumulate(ints.cpu().numpy(), axis=1)
    np.testing.assert_array_equal(host(v), ref)
    # the index of the last time the running minimum was reached
    last = np.array([[max(j for j in range(k + 1) if row[j] == ref[r, k]) for k in range(700)]
                     for r, row in enumerate(ints.cpu().numpy())])
    np.testing.assert_array_equal(host(i), last)


@pytest.mark.parametrize("dtype", FLOATS)
def test_cumprod_grad_and_exclusive_products(dtype):
    x = data(dtype)
    x[0, 1, 2] = 0.0
    x[1, :, 3] = 0.0
    x[2, 2, 1] = 0.0
    x[2, 2, 4] = 0.0
    grad = data(dtype, seed=1)
    for d in (0, 1, 2):
        y = cpu("scan")(x, d, dtype, True)
        for (xc, xg), (gc, gg), (yc, yg) in zip(views(x), views(grad), views(y)):
            same(gpu("cumprod_grad")(xg, gg, yg, d), cpu("cumprod_grad")(xc, gc, yc, d), dtype)
    check("exclusive_products", x)


# ---------------------------------------------------------------- histograms

@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64])
def test_histc(dtype):
    x = data(dtype, shape=(6, 50))
    x[0, :5] = cygrad.tensor([-1.0, 1.0, 0.5, 2.0, -3.0])    # the edges and outside values
    for xc, xg in ((x, x.cuda()), (x.t(), x.cuda().t())):
        for bins, lo, hi in ((10, -1.0, 1.0), (7, -2.5, 3.0), (1, 0.0, 1.0)):
            same(gpu("histc")(xg, bins, lo, hi), cpu("histc")(xc, bins, lo, hi))


@pytest.mark.parametrize("dtype", [cygrad.int64, cygrad.int32, cygrad.uint8])
def test_bincount(dtype):
    rng = np.random.default_rng(2)
    x = cygrad.tensor(rng.integers(0, 9, size=60), dtype=dtype)
    w = cygrad.tensor(rng.standard_normal(60))
    for minlength in (0, 20):
        same(gpu("bincount")(x.cuda(), None, minlength, cygrad.int64),
             cpu("bincount")(x, None, minlength, cygrad.int64))
        for dt in (cygrad.float32, cygrad.float64):
            same(gpu("bincount")(x.cuda(), w.to(dt).cuda(), minlength, dt),
                 cpu("bincount")(x, w.to(dt), minlength, dt), cygrad.float32)
    strided = cygrad.tensor(rng.integers(0, 5, size=40), dtype=dtype)
    same(gpu("bincount")(strided.cuda()[::3], None, 0, cygrad.int64),
         cpu("bincount")(strided[::3], None, 0, cygrad.int64))
    empty = cygrad.zeros(0, dtype=dtype)
    same(gpu("bincount")(empty.cuda(), None, 3, cygrad.int64), cpu("bincount")(empty, None, 3,
                                                                            cygrad.int64))


# ---------------------------------------------------------------- errors

def test_unsupported_dtypes_raise_naming_primitive_and_dtype():
    i = cygrad.ones(3, dtype=cygrad.int64).cuda()
    with pytest.raises(NotImplementedError, match="primitive 'var_mean' for dtype cygrad.int64"):
        gpu("var_mean")(i, None, False, 3, 2, False)
    with pytest.raises(NotImplementedError, match="primitive 'histc' for dtype cygrad.float16"):
        gpu("histc")(cygrad.ones(3, dtype=cygrad.float16).cuda(), 4, 0.0, 1.0)
    with pytest.raises(NotImplementedError, match="primitive 'logcumsumexp' for dtype"):
        gpu("logcumsumexp")(i, 0)


# ---------------------------------------------------------------- through the ops

def test_ops_on_cuda_tensors():
    a = np.random.default_rng(3).standard_normal((8, 33))
    x, c = cygrad.tensor(a), cygrad.tensor(a).cuda()
    for f in (lambda t: t.mean(1), lambda t: t.max(0).values, lambda t: t.max(0).indices,
              lambda t: t.argmin(), lambda t: t.std(1, keepdim=True), lambda t: t.norm(p=3),
              lambda t: cygrad.linalg.vector_norm(t, INF, dim=0), lambda t: t.logsumexp(0),
              lambda t: t.cumsum(1), lambda t: t.cummin(0).indices, lambda t: t.prod(1),
              lambda t: t.nanmean(), lambda t: t.amin((0, 1)), lambda t: t.histc(5, -1, 1),
              lambda t: cygrad.all(t), lambda t: t.count_nonzero(0)):
        same(f(c), f(x))
    got = cygrad.arange(5).cuda().cumsum(0)
    assert got.dtype is cygrad.int64 and got.cpu().tolist() == [0, 1, 3, 6, 10]


@pytest.mark.parametrize("name,f", [
    ("mean", lambda t: t.mean(1)),
    ("max_dim", lambda t: t.max(1).values),
    ("logsumexp", lambda t: t.logsumexp((0, 2))),
    ("cumsum", lambda t: t.cumsum(2)),
    ("var", lambda t: t.var(1)),
    ("norm", lambda t: t.norm(dim=2)),
    ("norm_inf", lambda t: cygrad.linalg.vector_norm(t, INF, dim=1)),
    ("std", lambda t: t.std(1)),
    ("amax", lambda t: t.amax((0, 2))),
    ("cumprod", lambda t: t.cumprod(1)),
    ("cumprod_zeros", lambda t: t.cumprod(2)),
    ("prod_zeros", lambda t: t.prod(2)),
    ("logcumsumexp", lambda t: t.logcumsumexp(0)),
    ("cummax", lambda t: t.cummax(2).values),
])
def test_gradients_on_cuda_match_cpu(name, f):
    a = np.random.default_rng(4).standard_normal((3, 4, 5))
    if name.endswith("_zeros"):         # cumprod_grad's and exclusive_products' cases
        a[0, 1, 2] = a[1, 2, 0] = a[1, 2, 3] = 0.0
    x = cygrad.tensor(a, requires_grad=True)
    f(x).sum().backward()
    c = cygrad.tensor(a, device="cuda", requires_grad=True)
    f(c).sum().backward()          # every kernel the backward needs is on CUDA
    assert c.grad.is_cuda
    np.testing.assert_allclose(c.grad.cpu().numpy(), x.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_column_kernels_against_numpy():
    # sums over dim 0 of a wide matrix: 4096 rows of 64 strided columns, column form
    from cygrad.cuda.ops import reduction
    a = np.random.default_rng(6).standard_normal((64, 4096))
    c = cygrad.tensor(a).cuda()
    assert reduction._Plan(c, (0,), False).columns
    np.testing.assert_allclose(host(c.mean(0)), a.mean(0), rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(host(c.amin(0)), a.min(0))
    np.testing.assert_allclose(host(c.norm(dim=0)), np.sqrt((a * a).sum(0)), rtol=1e-12)
    assert not reduction._Plan(c, (1,), False).columns


def test_split_kernels_against_numpy():
    # a full reduction of 100,000 elements: 25 segments of 4,096, then their merge
    from cygrad.cuda.ops import reduction
    a = np.random.default_rng(7).standard_normal(100_000)
    c = cygrad.tensor(a).cuda()
    assert reduction._Plan(c, None, False).segments() == 25
    np.testing.assert_allclose(c.mean().item(), a.mean(), rtol=1e-12)
    assert c.amax().item() == a.max() and c.amin().item() == a.min()
    np.testing.assert_allclose(c.norm(p=3).item(), np.sum(np.abs(a) ** 3) ** (1 / 3), rtol=1e-12)
    assert c.count_nonzero().item() == 100_000
    i = cygrad.tensor(np.arange(1, 40_001) % 7).cuda()
    assert i.sum().item() == int((np.arange(1, 40_001) % 7).sum())


def test_realistic_size_float32():
    # a 256 x 1024 batch of rows, reduced and scanned along each axis
    a = np.random.default_rng(5).standard_normal((256, 1024)).astype(np.float32)
    c = cygrad.tensor(a).cuda()
    np.testing.assert_allclose(host(c.mean(1)), a.mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(host(c.var(0)), a.var(0, ddof=1), rtol=1e-4)
    assert host(c.argmax(1)).tolist() == a.argmax(1).tolist()
    np.testing.assert_array_equal(host(c.amax(0)), a.max(0))
    np.testing.assert_allclose(host(c.logsumexp(1)), np.log(np.exp(a).sum(1)), rtol=1e-5)
    np.testing.assert_allclose(host(c.cumsum(1)), np.cumsum(a.astype(np.float64), 1),
                               rtol=1e-4, atol=2e-4)
