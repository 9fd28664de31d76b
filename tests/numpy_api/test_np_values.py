"""Values of every cygrad.numpy function against NumPy, from one table.

Each row: a name, the call on the cygrad.numpy module, the same call on NumPy (one
lambda taking the module serves both when the spelling is the same), and sample
inputs given as NumPy arrays (converted with ``cnp.asarray``). Results must agree
in value, shape and dtype (NumPy's dtype mapped to cygrad's).
"""
import numpy as np
import pytest

import cygrad
import cygrad.numpy as cnp

R = np.random.default_rng(0)
F = R.standard_normal((3, 4))           # float64 matrix
V = R.standard_normal(5)                # float64 vector
P = R.uniform(0.5, 3.0, (3, 4))         # positive
U = R.uniform(-0.9, 0.9, (3, 4))        # in (-1, 1)
I = R.integers(-5, 6, (3, 4))           # int64
I8 = I.astype(np.int8)
U8 = R.integers(0, 9, (3, 4)).astype(np.uint8)
B = R.random((3, 4)) > 0.5
NZ = R.integers(1, 5, (3, 4))
SQ = R.standard_normal((3, 3))
SPD = SQ @ SQ.T + 3 * np.eye(3)
DUP = np.array([3.0, 1.0, 2.0, 3.0, 1.0, 5.0])
F32 = F.astype(np.float32)


def same(f):
    return (f, f)


# name, (cygrad call, numpy call), inputs
CASES = [
    # elementwise, float results
    *[(n, same(lambda m, x, n=n: getattr(m, n)(x)), (P,))
      for n in ("exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "sin", "cos", "tan",
                "sinh", "cosh", "tanh", "arctan", "arcsinh", "cbrt", "exp2", "reciprocal",
                "deg2rad", "rad2deg", "degrees", "radians")],
    *[(n, same(lambda m, x, n=n: getattr(m, n)(x)), (U,))
      for n in ("arcsin", "arccos", "arctanh")],
    ("arccosh", same(lambda m, x: m.arccosh(x)), (P + 1,)),
    ("acos", (lambda m, x: m.acos(x), lambda m, x: m.arccos(x)), (U,)),
    ("asin", (lambda m, x: m.asin(x), lambda m, x: m.arcsin(x)), (U,)),
    ("atan", (lambda m, x: m.atan(x), lambda m, x: m.arctan(x)), (F,)),
    ("asinh", (lambda m, x: m.asinh(x), lambda m, x: m.arcsinh(x)), (F * 100,)),
    ("acosh", (lambda m, x: m.acosh(x), lambda m, x: m.arccosh(x)), (P * 1e3,)),
    ("atanh", (lambda m, x: m.atanh(x), lambda m, x: m.arctanh(x)), (U,)),
    ("sqrt int", same(lambda m, x: m.sqrt(x)), (np.abs(I),)),
    ("exp int8", same(lambda m, x: m.exp(x)), (I8,)),
    ("sin float32", same(lambda m, x: m.sin(x)), (F32,)),
    # elementwise, dtype kept
    *[(n, same(lambda m, x, n=n: getattr(m, n)(x)), (F,))
      for n in ("abs", "absolute", "negative", "positive", "square", "sign", "floor", "ceil",
                "trunc", "isfinite", "isnan", "isinf", "signbit", "conj", "real", "imag",
                "logical_not", "fabs", "fix")],
    *[(n + " int", same(lambda m, x, n=n: getattr(m, n)(x)), (I,))
      for n in ("abs", "negative", "square", "sign", "floor", "ceil", "trunc")],
    ("round", same(lambda m, x: m.round(x * 10)), (F,)),
    ("round decimals", same(lambda m, x: m.round(x, decimals=2)), (F,)),
    ("angle", same(lambda m, x: m.angle(x)), (np.concatenate([F, [[-0.0, 0.0, np.nan, -np.inf]]]),)),
    ("angle deg int", same(lambda m, x: m.angle(x, deg=True)), (I,)),
    ("angle float32", same(lambda m, x: m.angle(x)), (F32,)),
    ("bitwise_invert", (lambda m, x: m.bitwise_invert(x), lambda m, x: m.invert(x)), (I,)),
    ("bitwise_not bool", same(lambda m, x: m.bitwise_not(x)), (B,)),
    # binary
    *[(n, same(lambda m, x, y, n=n: getattr(m, n)(x, y)), (F, P))
      for n in ("add", "subtract", "multiply", "divide", "true_divide", "maximum", "minimum",
                "fmax", "fmin", "pow", "power", "arctan2", "hypot", "logaddexp", "copysign",
                "nextafter", "floor_divide", "remainder", "mod", "fmod", "equal", "not_equal",
                "greater", "greater_equal", "less", "less_equal", "heaviside", "logical_and",
                "logical_or", "logical_xor")],
    *[(n + " int", same(lambda m, x, y, n=n: getattr(m, n)(x, y)), (I, NZ))
      for n in ("add", "subtract", "multiply", "divide", "floor_divide", "remainder", "fmod",
                "maximum", "minimum", "pow", "bitwise_and", "bitwise_or", "bitwise_xor",
                "left_shift", "right_shift", "equal", "less")],
    ("atan2", (lambda m, x, y: m.atan2(x, y), lambda m, x, y: m.arctan2(x, y)), (F, F.T.copy().T)),
    ("bitwise_left_shift", (lambda m, x, y: m.bitwise_left_shift(x, y),
                            lambda m, x, y: m.left_shift(x, y)), (I, NZ)),
    ("bitwise_right_shift", (lambda m, x, y: m.bitwise_right_shift(x, y),
                             lambda m, x, y: m.right_shift(x, y)), (I, NZ)),
    ("add broadcast", same(lambda m, x, y: m.add(x, y)), (F, F[0])),
    ("add uint8 int8", same(lambda m, x, y: m.add(x, y)), (U8, I8)),
    ("multiply int8 float32", same(lambda m, x, y: m.multiply(x, y)), (I8, F32)),
    ("add int64 float32", same(lambda m, x, y: m.add(x, y)), (I, F32)),
    ("add scalar", same(lambda m, x: m.add(x, 2)), (I8,)),
    ("multiply float scalar", same(lambda m, x: m.multiply(x, 1.5)), (F32,)),
    ("subtract int + float scalar", same(lambda m, x: m.subtract(x, 0.5)), (I8,)),
    ("clip", same(lambda m, x: m.clip(x, -0.5, 0.5)), (F,)),
    ("clip min only", same(lambda m, x: m.clip(x, min=0)), (I,)),
    ("clip arrays", same(lambda m, x, y: m.clip(x, y - 2, y)), (F, P)),
    # statistical
    *[(n, same(lambda m, x, n=n: getattr(m, n)(x)), (F,))
      for n in ("sum", "prod", "mean", "std", "var", "max", "min", "amax", "amin", "median",
                "ptp", "cumsum", "cumprod", "nansum", "nanmean")],
    *[(n + " axis", same(lambda m, x, n=n: getattr(m, n)(x, axis=1)), (F,))
      for n in ("sum", "prod", "mean", "std", "var", "max", "min", "median", "cumsum", "ptp")],
    *[(n + " axes keepdims", same(lambda m, x, n=n: getattr(m, n)(x, axis=(0, 1), keepdims=True)),
       (F,)) for n in ("sum", "mean", "max", "min", "var")],
    ("sum int8", same(lambda m, x: m.sum(x)), (I8,)),
    ("sum uint8 axis", (lambda m, x: m.sum(x, axis=0), lambda m, x: m.sum(x, axis=0).astype(np.int64)),
     (U8,)),
    ("sum bool", same(lambda m, x: m.sum(x)), (B,)),
    ("prod int8", same(lambda m, x: m.prod(x, axis=1)), (I8,)),
    ("mean int", same(lambda m, x: m.mean(x, axis=0)), (I,)),
    ("std correction", (lambda m, x: m.std(x, axis=0, correction=1), lambda m, x: m.std(x, axis=0, ddof=1)),
     (F,)),
    ("var ddof", same(lambda m, x: m.var(x, ddof=1.5)), (F,)),
    ("max int", same(lambda m, x: m.max(x, axis=0)), (I,)),
    ("cumulative_sum", (lambda m, x: m.cumulative_sum(x, axis=1, include_initial=True),
                        lambda m, x: np.concatenate([np.zeros((3, 1)), np.cumsum(x, axis=1)], axis=1)),
     (F,)),
    ("cumulative_sum int8", (lambda m, x: m.cumulative_sum(x),
                             lambda m, x: np.cumsum(x, dtype=np.int64)), (I8[0],)),
    ("cumulative_prod", (lambda m, x: m.cumulative_prod(x, axis=0), lambda m, x: np.cumprod(x, axis=0)),
     (F,)),
    ("average weights", same(lambda m, x, w: m.average(x, axis=1, weights=w)), (F, P[0])),
    # manipulation
    ("concat", (lambda m, x, y: m.concat([x, y], axis=1), lambda m, x, y: m.concatenate([x, y], axis=1)),
     (F, I)),
    ("concat None", (lambda m, x, y: m.concat([x, y], axis=None),
                     lambda m, x, y: m.concatenate([x, y], axis=None)), (F, V)),
    ("concatenate", same(lambda m, x, y: m.concatenate((x, y))), (F, P)),
    ("stack", same(lambda m, x, y: m.stack([x, y], axis=-1)), (F, P)),
    ("unstack", (lambda m, x: m.unstack(x, axis=1), lambda m, x: tuple(np.moveaxis(x, 1, 0))), (F,)),
    ("expand_dims", same(lambda m, x: m.expand_dims(x, axis=1)), (F,)),
    ("expand_dims tuple", same(lambda m, x: m.expand_dims(x, axis=(0, -1))), (F,)),
    ("squeeze", same(lambda m, x: m.squeeze(x, axis=0)), (F[None],)),
    ("flip", same(lambda m, x: m.flip(x)), (F,)),
    ("flip axis", same(lambda m, x: m.flip(x, axis=1)), (F,)),
    ("moveaxis", same(lambda m, x: m.moveaxis(x[None], 0, -1)), (F,)),
    ("permute_dims", (lambda m, x: m.permute_dims(x[None], (2, 0, 1)),
                      lambda m, x: m.transpose(x[None], (2, 0, 1))), (F,)),
    ("transpose", same(lambda m, x: m.transpose(x)), (F,)),
    ("swapaxes", same(lambda m, x: m.swapaxes(x, 0, 1)), (F,)),
    ("matrix_transpose", (lambda m, x: m.matrix_transpose(x), lambda m, x: np.swapaxes(x, -1, -2)), (F,)),
    ("reshape", same(lambda m, x: m.reshape(x, (2, -1))), (F,)),
    ("ravel", same(lambda m, x: m.ravel(x)), (F,)),
    ("roll", same(lambda m, x: m.roll(x, 2)), (F,)),
    ("roll axis", same(lambda m, x: m.roll(x, -1, axis=1)), (F,)),
    ("repeat", same(lambda m, x: m.repeat(x, 2)), (F,)),
    ("repeat axis array", (lambda m, x: m.repeat(x, m.asarray([1, 0, 2]), axis=0),
                           lambda m, x: m.repeat(x, [1, 0, 2], axis=0)), (F,)),
    ("tile", same(lambda m, x: m.tile(x, (2, 1))), (F,)),
    ("broadcast_to", same(lambda m, x: m.broadcast_to(x, (2, 5))), (V,)),
    ("broadcast_arrays", (lambda m, x, y: m.broadcast_arrays(x, y),
                          lambda m, x, y: list(np.broadcast_arrays(x, y))), (F[:, :1], V[:4])),
    ("split", same(lambda m, x: m.split(x, 2, axis=1)), (F,)),
    ("split indices", same(lambda m, x: m.split(x, [1, 3], axis=1)), (F,)),
    ("array_split", same(lambda m, x: m.array_split(x, 3)), (V,)),
    ("array_split axis", same(lambda m, x: m.array_split(x, 3, axis=1)), (F,)),
    ("hstack", same(lambda m, x, y: m.hstack([x, y])), (F, P)),
    ("vstack", same(lambda m, x, y: m.vstack([x, y])), (F, P)),
    ("column_stack", same(lambda m, x, y: m.column_stack([x, y])), (V, V)),
    ("atleast_1d", same(lambda m, x: m.atleast_1d(x)), (np.asarray(2.0),)),
    ("atleast_2d", same(lambda m, x, y: m.atleast_2d(x, y)), (V, F)),
    ("append", same(lambda m, x, y: m.append(x, y)), (F, V)),
    *[("pad " + mode, same(lambda m, x, mode=mode: m.pad(x, ((1, 2), (2, 1)), mode=mode)), (F,))
      for mode in ("constant", "edge", "reflect", "symmetric", "wrap")],
    ("pad constant_values", same(lambda m, x: m.pad(x, 2, constant_values=7)), (I,)),
    ("diff", same(lambda m, x: m.diff(x)), (F,)),
    ("diff n axis", same(lambda m, x: m.diff(x, n=2, axis=0)), (F,)),
    ("diff prepend append", same(lambda m, x: m.diff(x, prepend=0.0, append=V[:3, None])), (F,)),
    ("diff bool", same(lambda m, x: m.diff(x)), (B,)),
    # creation
    ("arange", same(lambda m: m.arange(2, 11, 3)), ()),
    ("arange float", same(lambda m: m.arange(0.0, 1.0, 0.125)), ()),
    ("linspace", same(lambda m: m.linspace(-1, 2, 7)), ()),
    ("linspace endpoint", same(lambda m: m.linspace(0, 1, 5, endpoint=False)), ()),
    ("logspace", same(lambda m: m.logspace(0, 3, 4)), ()),
    ("eye", same(lambda m: m.eye(3, 4, k=1)), ()),
    ("eye int", same(lambda m: m.eye(3, dtype=m.int32)), ()),
    ("identity", same(lambda m: m.identity(2)), ()),
    ("zeros", same(lambda m: m.zeros((2, 3))), ()),
    ("ones", same(lambda m: m.ones(4, dtype=m.int8)), ()),
    ("full", same(lambda m: m.full((2, 2), 3)), ()),
    ("full float", same(lambda m: m.full(3, 2.5)), ()),
    ("zeros_like", same(lambda m, x: m.zeros_like(x)), (I8,)),
    ("ones_like", same(lambda m, x: m.ones_like(x, dtype=m.float32)), (I,)),
    ("full_like", same(lambda m, x: m.full_like(x, 4)), (F,)),
    ("meshgrid xy", same(lambda m, x, y: m.meshgrid(x, y)), (V, V[:3])),
    ("meshgrid ij", same(lambda m, x, y: m.meshgrid(x, y, indexing="ij")), (V, V[:3])),
    ("tril", (lambda m, x: m.tril(x, k=-1), lambda m, x: np.tril(x, k=-1)), (F,)),
    ("triu", (lambda m, x: m.triu(x, k=1), lambda m, x: np.triu(x, k=1)), (F,)),
    ("asarray list", same(lambda m: m.asarray([[1, 2], [3, 4]])), ()),
    ("asarray float list", same(lambda m: m.asarray([1.5, 2])), ()),
    ("astype", same(lambda m, x: m.astype(x, m.int32)), (F * 3,)),
    ("copy", same(lambda m, x: m.copy(x)), (F,)),
    ("diag", same(lambda m, x: m.diag(x, k=1)), (V,)),
    ("diag 2d", same(lambda m, x: m.diag(x)), (F,)),
    # searching / sorting / sets / indexing
    ("argmax", same(lambda m, x: m.argmax(x)), (F,)),
    ("argmax axis", same(lambda m, x: m.argmax(x, axis=1)), (F,)),
    ("argmin axis keepdims", same(lambda m, x: m.argmin(x, axis=0, keepdims=True)), (F,)),
    ("count_nonzero", same(lambda m, x: m.count_nonzero(x)), (I,)),
    ("count_nonzero axis", same(lambda m, x: m.count_nonzero(x, axis=1)), (I,)),
    ("nonzero", same(lambda m, x: m.nonzero(x)), (I,)),
    ("flatnonzero", same(lambda m, x: m.flatnonzero(x)), (I,)),
    ("argwhere", same(lambda m, x: m.argwhere(x)), (I,)),
    ("where", same(lambda m, c, x, y: m.where(c, x, y)), (B, F, I)),
    ("where scalar", same(lambda m, c, x: m.where(c, x, 0.5)), (B, I)),
    ("searchsorted", same(lambda m, s, v: m.searchsorted(s, v)), (np.sort(V), F)),
    ("searchsorted right", same(lambda m, s, v: m.searchsorted(s, v, side="right")),
     (np.array([1.0, 2.0, 2.0, np.nan]), np.array([2.0, 0.0, np.nan, 9.0]))),
    ("searchsorted left nan", same(lambda m, s, v: m.searchsorted(s, v)),
     (np.array([1.0, 2.0, 2.0, np.nan]), np.array([2.0, 0.0, np.nan, 9.0]))),
    ("searchsorted sorter", same(lambda m, s, v, o: m.searchsorted(s, v, sorter=o)),
     (V, F, np.argsort(V))),
    ("sort", same(lambda m, x: m.sort(x)), (F,)),
    ("sort axis 0", same(lambda m, x: m.sort(x, axis=0)), (F,)),
    ("sort None", same(lambda m, x: m.sort(x, axis=None)), (F,)),
    ("argsort", (lambda m, x: m.argsort(x), lambda m, x: np.argsort(x, stable=True)), (DUP,)),
    ("argsort descending stable", (lambda m, x: m.argsort(x, descending=True),
                                   lambda m, x: (len(x) - 1 - np.argsort(x[::-1], stable=True))[::-1]),
     (DUP,)),
    ("sort descending", (lambda m, x: m.sort(x, descending=True, axis=0),
                         lambda m, x: np.flip(np.sort(x, axis=0), axis=0)), (F,)),
    ("unique_values", same(lambda m, x: m.unique_values(x)), (DUP,)),
    ("unique_counts", same(lambda m, x: tuple(m.unique_counts(x))), (DUP,)),
    ("unique_inverse", same(lambda m, x: tuple(m.unique_inverse(x))), (I,)),
    ("unique_all", same(lambda m, x: tuple(m.unique_all(x))), (I,)),
    ("unique", same(lambda m, x: m.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True)), (DUP,)),
    ("isin", same(lambda m, x, y: m.isin(x, y)), (I, NZ[0])),
    ("take", same(lambda m, x, i: m.take(x, i, axis=1)), (F, np.array([[3, -1], [0, 0]]))),
    ("take flat", same(lambda m, x, i: m.take(x, i)), (F, np.array([11, 0, -12]))),
    ("take_along_axis", same(lambda m, x, i: m.take_along_axis(x, i, axis=1)),
     (F, np.argsort(F, axis=1))),
    ("take_along_axis broadcast", same(lambda m, x, i: m.take_along_axis(x, i, axis=0)),
     (F, np.array([[2, 0, -1, 1]]))),
    # utility
    ("all", same(lambda m, x: m.all(x)), (I,)),
    ("all axis", same(lambda m, x: m.all(x, axis=0)), (B,)),
    ("any axis keepdims", same(lambda m, x: m.any(x, axis=1, keepdims=True)), (B,)),
    ("isclose", same(lambda m, x, y: m.isclose(x, y, rtol=0.1)), (F, F * 1.05)),
    ("isclose nan", same(lambda m, x, y: m.isclose(x, y, equal_nan=True)),
     (np.array([np.nan, np.inf, 1.0]), np.array([np.nan, np.inf, 1.0 + 1e-9]))),
    ("allclose", same(lambda m, x, y: m.allclose(x, y)), (F, F + 1e-10)),
    ("array_equal", same(lambda m, x, y: m.array_equal(x, y)), (I, I)),
    ("nan_to_num", same(lambda m, x: m.nan_to_num(x)), (np.array([np.nan, np.inf, -np.inf, 1.0]),)),
    # products and linalg
    ("matmul", same(lambda m, x, y: m.matmul(x, y)), (F, F.T.copy())),
    ("matmul int float32", same(lambda m, x, y: m.matmul(x, y)), (I, F32.T.copy())),
    ("outer", same(lambda m, x, y: m.outer(x, y)), (V, V[:3])),
    ("tensordot", (lambda m, x, y: m.tensordot(x, y, axes=1),
                   lambda m, x, y: np.tensordot(x, y, axes=1)), (F, F.T.copy())),
    ("tensordot pairs", (lambda m, x, y: m.tensordot(x, y, axes=([0, 1], [0, 1])),
                         lambda m, x, y: np.tensordot(x, y, axes=([0, 1], [0, 1]))), (F, P)),
    ("vecdot", (lambda m, x, y: m.vecdot(x, y), lambda m, x, y: np.sum(x * y, axis=-1)), (F, P)),
    ("einsum", same(lambda m, x, y: m.einsum("ij,kj->ik", x, y)), (F, P)),
    ("dot", same(lambda m, x, y: m.dot(x, y)), (F, V[:4])),
    ("inner", same(lambda m, x, y: m.inner(x, y)), (F, P)),
    ("trace", same(lambda m, x: m.trace(x)), (F,)),
    ("linalg.solve", same(lambda m, a, b: m.linalg.solve(a, b)), (SPD, F[:, :2])),
    ("linalg.solve vector", same(lambda m, a, b: m.linalg.solve(a, b)), (SPD, V[:3])),
    ("linalg.inv", same(lambda m, a: m.linalg.inv(a)), (SQ,)),
    ("linalg.det", same(lambda m, a: m.linalg.det(a)), (SQ,)),
    ("linalg.det batch", same(lambda m, a: m.linalg.det(a)), (np.stack([SQ, SPD]),)),
    ("linalg.slogdet", same(lambda m, a: tuple(m.linalg.slogdet(a))), (SQ,)),
    ("linalg.cholesky", same(lambda m, a: m.linalg.cholesky(a)), (SPD,)),
    ("linalg.cholesky upper", same(lambda m, a: m.linalg.cholesky(a, upper=True)), (SPD,)),
    ("linalg.eigh", same(lambda m, a: tuple(m.linalg.eigh(a))), (SPD,)),
    ("linalg.eigvalsh", same(lambda m, a: m.linalg.eigvalsh(a)), (SPD,)),
    ("linalg.svd", same(lambda m, a: tuple(m.linalg.svd(a, full_matrices=False))), (F,)),
    ("linalg.svdvals", same(lambda m, a: m.linalg.svdvals(a)), (F,)),
    ("linalg.qr", same(lambda m, a: tuple(m.linalg.qr(a.T))), (F,)),
    ("linalg.qr complete", same(lambda m, a: tuple(m.linalg.qr(a.T, mode="complete"))), (F,)),
    ("linalg.pinv", same(lambda m, a: m.linalg.pinv(a)), (F,)),
    ("linalg.matrix_rank", same(lambda m, a: m.linalg.matrix_rank(a)), (np.outer(V, V),)),
    ("linalg.lstsq", (lambda m, a, b: m.linalg.lstsq(a, b)[0], lambda m, a, b: m.linalg.lstsq(a, b)[0]),
     (F.T.copy(), V[:4])),
    ("linalg.matrix_power", same(lambda m, a: m.linalg.matrix_power(a, 3)), (SQ,)),
    ("linalg.matrix_power neg", same(lambda m, a: m.linalg.matrix_power(a, -2)), (SQ,)),
    ("linalg.matrix_power int", same(lambda m, a: m.linalg.matrix_power(a, 2)), (I[:3, :3],)),
    ("linalg.norm", same(lambda m, a: m.linalg.norm(a)), (F,)),
    *[("linalg.norm ord " + str(o), same(lambda m, a, o=o: m.linalg.norm(a, ord=o)), (F,))
      for o in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)],
    ("linalg.norm vector axis", same(lambda m, a: m.linalg.norm(a, ord=3, axis=1)), (F,)),
    ("linalg.vector_norm", (lambda m, a: m.linalg.vector_norm(a, ord=1, axis=0),
                            lambda m, a: np.linalg.norm(a, ord=1, axis=0)), (F,)),
    ("linalg.vector_norm inf", (lambda m, a: m.linalg.vector_norm(a, ord=np.inf),
                                lambda m, a: np.max(np.abs(a))), (F,)),
    ("linalg.matrix_norm", (lambda m, a: m.linalg.matrix_norm(a, ord="nuc"),
                            lambda m, a: np.linalg.norm(a, ord="nuc")), (F,)),
    ("linalg.cross", same(lambda m, x, y: m.linalg.cross(x, y)), (F[:, :3], P[:, :3])),
    ("linalg.diagonal", (lambda m, a: m.linalg.diagonal(a, offset=1),
                         lambda m, a: np.diagonal(a, offset=1, axis1=-2, axis2=-1)), (F,)),
    ("linalg.trace", (lambda m, a: m.linalg.trace(a), lambda m, a: np.trace(a)), (F,)),
    ("linalg.outer", same(lambda m, x, y: m.linalg.outer(x, y)), (V, V)),
    ("linalg.matmul", same(lambda m, x, y: m.linalg.matmul(x, y)), (F, P.T.copy())),
]


def _to_numpy(r):
    if isinstance(r, (tuple, list)):
        return type(r)(_to_numpy(x) for x in r) if isinstance(r, list) else tuple(_to_numpy(x) for x in r)
    if isinstance(r, cygrad.Tensor):
        return r.detach().numpy()
    return r


def _check(ours, ref, name):
    if isinstance(ref, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(ref), name
        for o, r in zip(ours, ref):
            _check(o, r, name)
        return
    if isinstance(ref, (bool, np.bool_)) or not hasattr(ref, "dtype"):
        assert ours == ref, name
        return
    ref = np.asarray(ref)
    ours = np.asarray(ours)
    assert ours.shape == ref.shape, f"{name}: shape {ours.shape} != {ref.shape}"
    assert ours.dtype == ref.dtype, f"{name}: dtype {ours.dtype} != {ref.dtype}"
    tol = 1e-5 if ref.dtype in (np.float32, np.float16) else 1e-10
    if ref.dtype.kind == "f":
        np.testing.assert_allclose(ours, ref, rtol=tol, atol=tol, err_msg=name)
    else:
        np.testing.assert_array_equal(ours, ref, err_msg=name)


def _gauge(name, ours, ref):
    """Eigen/singular vectors and QR factors are unique up to a sign per vector: align
    cygrad's signs with NumPy's before comparing."""
    if name.startswith("linalg.eigh"):
        v, rv = ours[1], ref[1]
        s = np.sign(np.sum(v * rv, axis=0))
        return (ours[0], v * s), ref
    if name.startswith("linalg.svd") and isinstance(ours, tuple):
        u, s_, vh = ours
        sign = np.sign(np.sum(u * ref[0], axis=0))
        return (u * sign, s_, vh * sign[:, None]), ref
    if name.startswith("linalg.qr"):
        q, r = ours
        sign = np.sign(np.sum(q * ref[0], axis=0))
        return (q * sign, r * sign[:, None]), ref
    return ours, ref


@pytest.mark.parametrize("name,calls,inputs", CASES, ids=[c[0] for c in CASES])
def test_matches_numpy(name, calls, inputs):
    cy_call, np_call = calls
    with np.errstate(all="ignore"):
        ref = np_call(np, *inputs)
    ours = _to_numpy(cy_call(cnp, *[cnp.asarray(x.copy()) for x in inputs]))
    ours, ref = _gauge(name, ours, ref)
    _check(ours, ref, name)


def test_every_public_function_has_a_row():
    """The table covers every public function of the namespace (so a new function
    cannot go untested)."""
    import inspect
    text = inspect.getsource(inspect.getmodule(test_every_public_function_has_a_row))
    skip = {"asarray", "array", "empty", "empty_like", "from_dlpack", "finfo", "iinfo", "isdtype",
            "result_type", "can_cast", "shape", "size", "ndim", "bool", "int8", "int16", "int32",
            "int64", "uint8", "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
            "e", "pi", "inf", "nan", "newaxis", "ndarray", "linalg", "random", "fft", "around",
            "cumulative_prod", "conjugate", "arctan2"}
    missing = [n for n in dir(cnp) if not n.startswith("_") and n not in skip
               and f"m.{n}(" not in text and f'"{n}"' not in text]
    assert not missing, f"functions without a value test: {missing}"
