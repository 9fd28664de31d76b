"""The differentiable functions of ``cygrad.numpy`` (main namespace, ``linalg``,
``fft``), each with sample inputs: one table shared by the gradcheck tests
(``tests/numpy_api/test_np_grad.py``) and the forward-mode tests
(``tests/test_numpy_forward_ad.py``), so the two cannot drift apart.

A row is a ``Case``: the public function it covers (``"sin"``, ``"linalg.solve"``,
``"fft.rfft"``), a test id, a function of leaf tensors, and the inputs as NumPy
arrays (each becomes a float64 or complex128 leaf that requires grad). Arguments that
are not differentiated (indices, conditions, shapes) are constants inside the
function. Rows marked complex-capable get a second row on complex128 inputs (the same
arrays plus an imaginary part), named ``"<id> complex"``.

``NON_DIFFERENTIABLE`` lists the public functions that have no derivative to check
(integer or boolean results, creation from shapes, set functions, dtype utilities),
with the reason; ``tests/test_numpy_forward_ad.py`` checks that every public function
is in exactly one of the two.

A row whose check fails because of a bug in a file outside ``cygrad/numpy`` carries
the bug in ``grad_bug`` / ``fwd_bug`` (one line); the tests mark it
``xfail(strict=True)``, so the mark has to go when the bug is fixed.
"""
from typing import NamedTuple

import numpy as np
import pytest

import cygrad.numpy as cnp


class Case(NamedTuple):
    func: str           # the public function covered, qualified: "linalg.solve"
    label: str          # the test id
    fn: object          # leaves -> tensor or tuple of tensors
    inputs: tuple       # NumPy arrays, one leaf each
    grad_bug: str = ""  # known bug (outside cygrad/numpy) that fails gradcheck
    fwd_bug: str = ""   # known bug (outside cygrad/numpy) that fails the forward-mode checks


R = np.random.default_rng(3)
SQ = R.standard_normal((3, 3)) + 3 * np.eye(3)       # well-conditioned square
RECT = R.standard_normal((4, 3))                     # tall
F = R.standard_normal((3, 4))                        # generic
G = R.standard_normal((3, 4))                        # a second generic operand
P = R.uniform(0.5, 2.0, (3, 4))                      # positive
U = R.uniform(-0.9, 0.9, (3, 4))                     # inside (-1, 1)
V = R.standard_normal(3)                             # vector
CUBE = R.standard_normal((2, 3, 2))                  # 3-D
# NaN and infinities, for the nan-aware functions (their derivative there is 0)
WITH_NAN = F.copy()
WITH_NAN[0, 1] = WITH_NAN[2, 2] = np.nan
WITH_INF = WITH_NAN.copy()
WITH_INF[2, 3] = np.inf
WITH_INF[1, 0] = -np.inf
# heaviside's x1: its derivative w.r.t. x2 is 1 exactly where x1 == 0
STEP_AT = np.where(np.abs(F) < 0.5, 0.0, F)

# imaginary parts for the complex variants; derived arrays keep their own
_IMAG = np.random.default_rng(11)

# the inputs of the fft rows (the samples test_np_fft.py has always used)
_FFT_RNG = np.random.default_rng(7)
FFT_REAL = _FFT_RNG.standard_normal((3, 4, 6))
FFT_CPLX = _FFT_RNG.standard_normal((3, 4, 6)) + 1j * _FFT_RNG.standard_normal((3, 4, 6))


CASES = []


def params(bug):
    """The rows as pytest params, ``xfail(strict=True)`` where the row's ``bug``
    field (``"grad_bug"`` or ``"fwd_bug"``) names a known bug."""
    return [pytest.param(c, id=c.label,
                         marks=[pytest.mark.xfail(strict=True, reason=getattr(c, bug))]
                         if getattr(c, bug) else []) for c in CASES]


def _to_complex(a):
    a = np.asarray(a)
    if a.dtype.kind != "f":
        return a
    return a + 0.5j * _IMAG.standard_normal(a.shape)


def row(func, fn, *inputs, label=None, cplx=False, grad_bug="", fwd_bug="", cplx_bug="",
        cplx_grad_bug=""):
    """Add a row (and its complex variant with ``cplx=True``; ``cplx_bug``: a known
    bug, in both modes, of that variant only; ``cplx_grad_bug``: one of its backward)."""
    label = label or func
    CASES.append(Case(func, label, fn, tuple(np.asarray(a, dtype=np.float64) for a in inputs),
                      grad_bug, fwd_bug))
    if cplx:
        CASES.append(Case(func, label + " complex", fn, tuple(_to_complex(a) for a in inputs),
                          grad_bug or cplx_bug or cplx_grad_bug, fwd_bug or cplx_bug))


def _get(func):
    mod = cnp
    *path, name = func.split(".")
    for p in path:
        mod = getattr(mod, p)
    return getattr(mod, name)


def unary(func, x, cplx=False, **kw):
    f = _get(func)
    row(func, lambda t: f(t, **kw), x, cplx=cplx, label=f"{func} {kw}" if kw else None)


def binary(func, x, y, cplx=False):
    f = _get(func)
    row(func, lambda a, b: f(a, b), x, y, cplx=cplx)


# ---------------------------------------------------------------- elementwise, unary

for _names, _x in [
        (("acos", "arccos", "asin", "arcsin", "atanh", "arctanh", "tan"), U),
        (("acosh", "arccosh"), P + 1),
        (("asinh", "arcsinh", "atan", "arctan", "cos", "cosh", "exp", "exp2", "expm1", "sin",
          "sinh", "tanh", "deg2rad", "radians", "rad2deg", "degrees", "abs", "absolute",
          "negative", "positive", "square", "sign", "conj", "conjugate", "real", "imag",
          "angle"), F),
        (("log", "log1p", "log2", "log10", "sqrt", "reciprocal"), P)]:
    for _name in _names:
        unary(_name, _x, cplx=True)
# real only: NumPy's fabs/cbrt and the rounding functions have no complex loops;
# the rounding functions' derivative is 0 (between the jumps)
for _name in ("fabs", "floor", "ceil", "trunc", "fix", "round", "around"):
    unary(_name, F * 3)
unary("round", F, decimals=2)
unary("angle", F, cplx=True, deg=True)
unary("cbrt", F + np.sign(F))
row("asinh", lambda x: cnp.asinh(x), F * 3, label="asinh wide")
row("acosh", lambda x: cnp.acosh(x), np.abs(F) + 1.5, label="acosh wide")
row("atanh", lambda x: cnp.atanh(x), np.tanh(F), label="atanh wide")
row("sqrt", lambda x: cnp.sqrt(x), np.abs(F) + 0.1, label="sqrt near 0")
row("nan_to_num", lambda x: cnp.nan_to_num(x), WITH_INF, cplx=True)
row("nan_to_num", lambda x: cnp.nan_to_num(x, nan=1.5, posinf=2.0, neginf=-3.0), WITH_INF,
    label="nan_to_num values")

# --------------------------------------------------------------- elementwise, binary

for _name in ("add", "subtract", "multiply"):
    binary(_name, F, G, cplx=True)
for _name in ("divide", "true_divide"):
    binary(_name, F, P, cplx=True)
for _name in ("pow", "power"):
    binary(_name, P, F, cplx=True)
for _name in ("maximum", "minimum", "fmax", "fmin", "atan2", "arctan2"):
    binary(_name, F, G)
# floor_divide's derivative is 0 between its jumps; remainder's is (1, -floor(x1 / x2))
for _name in ("floor_divide", "remainder", "mod", "fmod"):
    binary(_name, F * 3, P)
row("add", lambda x, y: cnp.add(x, y), F, F[0], label="add broadcast", cplx=True)
row("logaddexp", lambda x, y: cnp.logaddexp(x, y), F, F.T.copy().T * 2)
row("hypot", lambda x, y: cnp.hypot(x, y), F, F + 1)
row("copysign", lambda x, y: cnp.copysign(x, y), F, -F)
row("heaviside", lambda y: cnp.heaviside(cnp.asarray(STEP_AT), y), G)
row("clip", lambda x: cnp.clip(x, -0.5, 0.5), F)
row("clip", lambda x, lo, hi: cnp.clip(x, lo, hi), F, -np.abs(G) - 0.1, np.abs(G.T[:1].T) + 0.1,
    label="clip array bounds")
row("where", lambda x, y: cnp.where(x > 0, x * 2, y), F, F * 3)
row("where", lambda x, y: cnp.where(cnp.asarray(F > 0), x, y), F, G, label="where constant",
    cplx=True)

# ---------------------------------------------------------------------- statistical

row("sum", lambda x: cnp.sum(x), F, cplx=True)
row("sum", lambda x: cnp.sum(x, axis=0, keepdims=True), F, label="sum axis", cplx=True)
row("prod", lambda x: cnp.prod(x, axis=0), F, label="prod axis", cplx=True)
row("prod", lambda x: cnp.prod(x), P, cplx=True)
row("mean", lambda x: cnp.mean(x, axis=(0, 1)), F, cplx=True)
row("max", lambda x: cnp.max(x, axis=1), F, label="max axis")
row("max", lambda x: cnp.max(x), F)
row("min", lambda x: cnp.min(x, axis=0), F)
row("amax", lambda x: cnp.amax(x, axis=1, keepdims=True), F)
row("amin", lambda x: cnp.amin(x), F)
row("ptp", lambda x: cnp.ptp(x, axis=0), F)
row("std", lambda x: cnp.std(x, axis=1, correction=1), F, label="std correction", cplx=True)
row("std", lambda x: cnp.std(x), F, cplx=True)
row("var", lambda x: cnp.var(x, axis=(0, 1)), F, cplx=True)
row("var", lambda x: cnp.var(x, axis=0, ddof=1), F, label="var ddof", cplx=True)
row("cumulative_sum", lambda x: cnp.cumulative_sum(x, axis=1, include_initial=True), F, cplx=True)
row("cumulative_prod", lambda x: cnp.cumulative_prod(x, axis=0), F, cplx=True)
row("cumsum", lambda x: cnp.cumsum(x), F, cplx=True)
row("cumprod", lambda x: cnp.cumprod(x, axis=1), F, cplx=True)
row("median", lambda x: cnp.median(x, axis=1), F)
row("median", lambda x: cnp.median(x), F, label="median all")
row("average", lambda x, w: cnp.average(x, axis=1, weights=w), F, P[0], cplx=True)
row("nansum", lambda x: cnp.nansum(x, axis=0), WITH_NAN, cplx=True)
row("nanmean", lambda x: cnp.nanmean(x, axis=1), WITH_NAN, cplx=True)

# --------------------------------------------------------------------- manipulation

row("broadcast_arrays", lambda x, y: cnp.broadcast_arrays(x, y), F[:, :1], G, cplx=True)
row("broadcast_to", lambda x: cnp.broadcast_to(x, (2, 3, 4)), F[0], cplx=True)
row("concat", lambda x, y: cnp.concat([x, y], axis=1), F, G, cplx=True)
row("concatenate", lambda x, y: cnp.concatenate([x, y]), F, G, cplx=True)
row("stack", lambda x, y: cnp.stack([cnp.concat([x, y]), cnp.concat([y, x])]), F, F * 2,
    label="concat stack", cplx=True)
row("stack", lambda x, y: cnp.stack([x, y], axis=-1), F, G, cplx=True)
row("unstack", lambda x: cnp.unstack(x, axis=1), F, cplx=True)
row("split", lambda x: cnp.split(x, [1, 3], axis=1), F, cplx=True)
row("array_split", lambda x: cnp.array_split(x, 3, axis=1), F, cplx=True)
row("hstack", lambda x, y: cnp.hstack([x, y]), F, G, cplx=True)
row("vstack", lambda x, y: cnp.vstack([x, y]), F, G, cplx=True)
row("column_stack", lambda x, y: cnp.column_stack([x, y]), V, V[::-1], cplx=True)
row("append", lambda x, y: cnp.append(x, y, axis=0), F, G[:1], cplx=True)
row("expand_dims", lambda x: cnp.expand_dims(x, axis=1), F, cplx=True)
row("squeeze", lambda x: cnp.squeeze(x, axis=0), F[None], cplx=True)
row("atleast_1d", lambda x: cnp.atleast_1d(x), np.float64(1.5), cplx=True)
row("atleast_2d", lambda x: cnp.atleast_2d(x), V, cplx=True)
row("flip", lambda x: cnp.flip(x, axis=1), F, cplx=True)
row("roll", lambda x: cnp.roll(x, 2, axis=1), F, cplx=True)
row("moveaxis", lambda x: cnp.moveaxis(x, 0, -1), CUBE, cplx=True)
row("permute_dims", lambda x: cnp.permute_dims(x, (2, 0, 1)), CUBE, cplx=True)
row("transpose", lambda x: cnp.transpose(x), CUBE, cplx=True)
row("swapaxes", lambda x: cnp.swapaxes(x, 0, 2), CUBE, cplx=True)
row("matrix_transpose", lambda x: cnp.matrix_transpose(x), CUBE, cplx=True)
row("reshape", lambda x: cnp.reshape(x, (2, 6)), F, cplx=True)
row("ravel", lambda x: cnp.ravel(x), F.T, cplx=True)
row("repeat", lambda x: cnp.repeat(cnp.tile(x, (2, 1)), 2, axis=1), F, label="tile repeat",
    cplx=True)
row("repeat", lambda x: cnp.repeat(x, 2), F, cplx=True)
row("tile", lambda x: cnp.tile(x, (1, 2, 1)), F, cplx=True)
row("pad", lambda x: cnp.pad(x, ((1, 1), (2, 0)), mode="reflect"), F, label="pad reflect",
    cplx=True)
row("pad", lambda x: cnp.pad(x, 1, constant_values=3.0), F, label="pad constant", cplx=True)
row("pad", lambda x: cnp.pad(x, ((0, 2), (1, 1)), mode="edge"), F, label="pad edge", cplx=True)
row("diff", lambda x: cnp.diff(x, n=2, axis=1), F, cplx=True)
row("diff", lambda x, y: cnp.diff(x, axis=0, prepend=y), F, G[:1], label="diff prepend",
    cplx=True)

# ----------------------------------------------------- indexing, searching, sorting

row("take", lambda x: cnp.take(x, cnp.asarray([0, 2, 2]), axis=1), F, cplx=True)
row("take_along_axis", lambda x: cnp.take_along_axis(x, cnp.argsort(x, axis=0), axis=0), F)
row("take_along_axis", lambda x: cnp.take_along_axis(x, cnp.asarray(np.argsort(F, axis=1)),
                                                     axis=1), F, label="take_along_axis constant",
    cplx=True)
row("sort", lambda x: cnp.sort(x, axis=1, descending=True), F)
row("sort", lambda x: cnp.sort(x, axis=0), F, label="sort axis 0")

# ------------------------------------------------------------- creation from arrays

row("asarray", lambda x: cnp.asarray(x), F, cplx=True)
row("array", lambda x: cnp.array(x), F, cplx=True)
row("copy", lambda x: cnp.copy(x), F, cplx=True)
row("astype", lambda x: cnp.astype(x, cnp.complex128), F)
row("astype", lambda x: cnp.astype(x, cnp.float64), F, label="astype same")
row("tril", lambda x: cnp.tril(x, k=1), F, cplx=True)
row("triu", lambda x: cnp.triu(x, k=-1), F, cplx=True)
row("meshgrid", lambda x, y: cnp.meshgrid(x, y), V, F[0], cplx=True)
row("meshgrid", lambda x, y: cnp.meshgrid(x, y, indexing="ij"), V, F[0], label="meshgrid ij")
row("diag", lambda x: cnp.diag(x, k=1), V, cplx=True)
row("diag", lambda x: cnp.diag(x, k=-1), F, label="diag of matrix", cplx=True)

# ------------------------------------------------------------------------- products

row("einsum", lambda x, y: cnp.einsum("ij,kj->ik", x, y), F, F * 0.5, cplx=True)
row("einsum", lambda x: cnp.einsum("ij->j", x), F, label="einsum sum", cplx=True)
row("dot", lambda x, y: cnp.dot(x, y), F, G.T, cplx=True)
row("dot", lambda x, y: cnp.dot(x, y), F, F[0], label="dot vector", cplx=True)
row("inner", lambda x, y: cnp.inner(x, y), F, G, cplx=True)
row("trace", lambda x: cnp.trace(x, offset=1), F, cplx=True)
row("matmul", lambda x, y: cnp.matmul(x, y), F, G.T, cplx=True)
row("outer", lambda x, y: cnp.outer(x, y), V, F[0], cplx=True)
row("tensordot", lambda x, y: cnp.tensordot(x, y, axes=([0], [1])), F, RECT, cplx=True)
row("vecdot", lambda x, y: cnp.vecdot(x, y), F, F + 1, cplx=True)

# --------------------------------------------------------------------------- linalg

row("linalg.matmul", lambda x, y: cnp.linalg.matmul(x, y), F, G.T, cplx=True)
row("linalg.outer", lambda x, y: cnp.linalg.outer(x, y), V, F[0], cplx=True)
row("linalg.tensordot", lambda x, y: cnp.linalg.tensordot(x, y, axes=1), F, RECT, cplx=True)
row("linalg.vecdot", lambda x, y: cnp.linalg.vecdot(x, y, axis=0), F, G, cplx=True)
row("linalg.matrix_transpose", lambda x: cnp.linalg.matrix_transpose(x), CUBE, cplx=True)
row("linalg.diagonal", lambda x: cnp.linalg.diagonal(x, offset=-1), F, cplx=True)
row("linalg.trace", lambda x: cnp.linalg.trace(x), CUBE, cplx=True)
row("linalg.cross", lambda x, y: cnp.linalg.cross(x, y, axis=0), F, G, cplx=True)
row("linalg.solve", lambda a, b: cnp.linalg.solve(a, b), SQ, F, cplx=True)
row("linalg.solve", lambda a, b: cnp.linalg.solve(a, b), SQ, F[:, 0], label="linalg.solve vector",
    cplx=True)
row("linalg.inv", lambda a: cnp.linalg.inv(a), SQ, cplx=True)
row("linalg.det", lambda a: cnp.linalg.det(a), SQ, cplx=True)
row("linalg.det", lambda a: cnp.linalg.det(a), SQ[::-1], label="linalg.det negative")
# a real sign is constant (no derivative); a complex one is a phase that moves
row("linalg.slogdet", lambda a: tuple(cnp.linalg.slogdet(a)), SQ, cplx=True)


def _hermitian(x):
    return x + cnp.conj(x).mT


row("linalg.cholesky", lambda x: cnp.linalg.cholesky(x @ cnp.conj(x).mT + 3 * cnp.eye(3)), SQ,
    cplx=True)
row("linalg.cholesky", lambda x: cnp.linalg.cholesky(x @ cnp.conj(x).mT + cnp.eye(3), upper=True),
    SQ, label="linalg.cholesky upper", cplx=True)
row("linalg.eigh", lambda x: cnp.linalg.eigh(_hermitian(x)).eigenvalues, SQ,
    label="linalg.eigh values", cplx=True)
# eigen- and singular vectors are fixed only up to a sign (a phase for complex):
# check functions of them that do not depend on it
row("linalg.eigh", lambda x: cnp.abs(cnp.linalg.eigh(_hermitian(x)).eigenvectors), SQ,
    label="linalg.eigh vectors", cplx=True)
row("linalg.eigh", lambda x: (lambda w, v: (v * w[None, :]) @ cnp.conj(v).mT)(*cnp.linalg.eigh(
    _hermitian(x))), SQ, label="linalg.eigh rebuilt", cplx=True)
row("linalg.eigvalsh", lambda x: cnp.linalg.eigvalsh(_hermitian(x)), SQ, cplx=True)
row("linalg.svd", lambda a: cnp.linalg.svd(a, full_matrices=False).S, RECT, label="linalg.svd S",
    cplx=True)
row("linalg.svd", lambda a: tuple(cnp.abs(t) for t in cnp.linalg.svd(a, full_matrices=False)[::2]),
    RECT, label="linalg.svd U Vh", cplx=True)
row("linalg.svd", lambda a: cnp.abs(cnp.linalg.svd(a, full_matrices=False).U), F,
    label="linalg.svd wide", cplx=True)
row("linalg.svd", lambda a: cnp.abs(cnp.linalg.svd(a, full_matrices=False).Vh), F,
    label="linalg.svd wide Vh", cplx=True)
row("linalg.svd", lambda a: (cnp.linalg.svd(a).S, cnp.abs(cnp.linalg.svd(a).Vh)), SQ,
    label="linalg.svd square full", cplx=True)
# U diag(S) Vh and U Vh do not depend on the phases either, but on both factors at once
row("linalg.svd", lambda a: (lambda u, s, vh: (u * s[None, :] @ vh, u @ vh))(
    *cnp.linalg.svd(a, full_matrices=False)), RECT, label="linalg.svd products", cplx=True)
row("linalg.svdvals", lambda a: cnp.linalg.svdvals(a), F, cplx=True)
row("linalg.qr", lambda a: tuple(cnp.linalg.qr(a)), RECT, cplx=True)
row("linalg.qr", lambda a: tuple(cnp.linalg.qr(a, mode="complete")), SQ, label="linalg.qr square",
    cplx=True)
row("linalg.pinv", lambda a: cnp.linalg.pinv(a), RECT, cplx=True)
row("linalg.lstsq", lambda a, b: cnp.linalg.lstsq(a, b)[0], RECT, RECT[:, 0] + 1, cplx=True)
row("linalg.matrix_power", lambda a: cnp.linalg.matrix_power(a, -2), SQ, cplx=True)
row("linalg.matrix_power", lambda a: cnp.linalg.matrix_power(a, 3), SQ / 3,
    label="linalg.matrix_power 3", cplx=True)
row("linalg.norm", lambda a: cnp.linalg.norm(a, ord="nuc"), RECT, label="linalg.norm nuc",
    cplx=True)
row("linalg.norm", lambda a: cnp.linalg.norm(a), RECT, cplx=True)
row("linalg.norm", lambda a: cnp.linalg.norm(a, ord=1, axis=0), RECT, label="linalg.norm axis",
    cplx=True)
row("linalg.norm", lambda a: cnp.linalg.norm(a, ord=np.inf, axis=(1, 0), keepdims=True), RECT,
    label="linalg.norm pair")
row("linalg.matrix_norm", lambda a: cnp.linalg.matrix_norm(a, ord=2), RECT, label="linalg.norm 2",
    cplx=True)
row("linalg.matrix_norm", lambda a: cnp.linalg.matrix_norm(a), RECT, cplx=True)
for _ord in (-2, 1, -1, np.inf, -np.inf, "nuc"):
    row("linalg.matrix_norm", lambda a, o=_ord: cnp.linalg.matrix_norm(a, ord=o), RECT,
        label=f"linalg.matrix_norm {_ord}", cplx=True)
row("linalg.vector_norm", lambda a: cnp.linalg.vector_norm(a, ord=3, axis=0), RECT,
    label="linalg.vector_norm 3", cplx=True)
row("linalg.vector_norm", lambda a: cnp.linalg.vector_norm(a), RECT, cplx=True)
for _ord in (1, np.inf, -np.inf, 0.5):
    row("linalg.vector_norm", lambda a, o=_ord: cnp.linalg.vector_norm(a, ord=o, axis=1), RECT,
        label=f"linalg.vector_norm {_ord}", cplx=True)

# ------------------------------------------------------------------------------ fft

FFT_NORMS = ("backward", "ortho", "forward")
FFT_REAL_INPUT = {"rfft", "ihfft", "rfftn", "rfft2"}
FFT_KWARGS = [
    ("fft", {}), ("fft", {"n": 3}), ("fft", {"n": 7, "axis": 0}),
    ("ifft", {}), ("ifft", {"n": 6}),
    ("rfft", {}), ("rfft", {"n": 3}), ("rfft", {"n": 8}),
    ("irfft", {}), ("irfft", {"n": 5}), ("irfft", {"n": 4}), ("irfft", {"n": 9}),
    ("hfft", {}), ("hfft", {"n": 5}), ("ihfft", {}), ("ihfft", {"n": 4}),
    ("fftn", {}), ("fftn", {"s": (3, 2)}), ("ifftn", {"axes": (0,)}),
    ("rfftn", {}), ("rfftn", {"s": (2, 6)}),
    ("irfftn", {}), ("irfftn", {"s": (3, 5)}), ("irfftn", {"s": (2, 4), "axes": (1, 0)}),
    ("fft2", {}), ("ifft2", {"s": (2, 5)}), ("rfft2", {}), ("irfft2", {"s": (3, 4)}),
]
for _norm in FFT_NORMS:
    for _name, _kw in FFT_KWARGS:
        _f = getattr(cnp.fft, _name)
        _src = FFT_REAL if _name in FFT_REAL_INPUT else FFT_CPLX
        CASES.append(Case(f"fft.{_name}", f"fft.{_name} {_kw} {_norm}",
                          lambda t, f=_f, kw=_kw, norm=_norm: f(t, norm=norm, **kw),
                          (_src[0, :3, :4],)))
# a real input to a complex transform
row("fft.fft", lambda t: cnp.fft.fft(t, n=4), FFT_REAL[0, :2, :5], label="fft.fft real input")
row("fft.ifftn", lambda t: cnp.fft.ifftn(t, norm="ortho"), FFT_REAL[0, :2, :5],
    label="fft.ifftn real input")
row("fft.fftshift", lambda t: cnp.fft.fftshift(t, axes=1), F, cplx=True)
row("fft.ifftshift", lambda t: cnp.fft.ifftshift(t), F, cplx=True)


# --------------------------------------------------------- the non-differentiable rest

_INTEGER = "integer result (indices or counts)"
_BOOL = "boolean result (comparison, predicate or logical function)"
_BITWISE = "defined for integer and boolean arrays only"
_SETS = "set function (its result's size depends on the values)"
_CREATION = "creation from shapes or Python numbers, no array input to differentiate"
_META = "dtype utility, type or metadata (no array result)"

NON_DIFFERENTIABLE = {
    **dict.fromkeys(["argmax", "argmin", "argsort", "argwhere", "nonzero", "flatnonzero",
                     "count_nonzero", "searchsorted", "linalg.matrix_rank"], _INTEGER),
    **dict.fromkeys(["equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
                     "isfinite", "isinf", "isnan", "signbit", "logical_and", "logical_or",
                     "logical_xor", "logical_not", "all", "any", "isclose", "allclose",
                     "array_equal", "isin"], _BOOL),
    **dict.fromkeys(["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert", "bitwise_not",
                     "invert", "bitwise_left_shift", "bitwise_right_shift", "left_shift",
                     "right_shift"], _BITWISE),
    **dict.fromkeys(["unique", "unique_all", "unique_counts", "unique_inverse", "unique_values"],
                    _SETS),
    **dict.fromkeys(["arange", "empty", "empty_like", "eye", "full", "full_like", "identity",
                     "linspace", "logspace", "ones", "ones_like", "zeros", "zeros_like",
                     "from_dlpack", "fft.fftfreq", "fft.rfftfreq"], _CREATION),
    **dict.fromkeys(["finfo", "iinfo", "isdtype", "result_type", "can_cast", "shape", "size",
                     "ndim", "ndarray"], _META),
    # the next representable float: a step function of the bits, as torch.nextafter
    "nextafter": "piecewise constant in both arguments (a bit-level step, not a smooth function)",
}
