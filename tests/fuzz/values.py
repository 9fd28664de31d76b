"""Operands of a fuzz case and their rendering as Python source.

A case is run by executing source text (``cy`` for cygrad, ``th`` for PyTorch,
``np`` for the NumPy reference), so the reproducer printed for a failure is
exactly the code that failed.  This module turns an operand description
(:class:`Arr`: dtype, final shape, where its values come from, and the view
transforms that produce it from a fresh base tensor) into that text for each
library.  The libraries differ in one place: PyTorch has no negative slicing
step, so a reversed view is rendered as ``flip`` (a copy with the same values)
for it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64",
          "float16", "bfloat16", "float32", "float64")
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
INT_DTYPES = ("uint8", "int8", "int16", "int32", "int64")

# ranks above this are built by reshaping a flat array (NumPy stops at 64 dims)
_FLAT_BUILD_RANK = 8
# a literal list in the reproducer is fine up to this many values
_MAX_LITERAL = 64


def numel(shape) -> int:
    return int(math.prod(shape))


def scalar_src(v) -> str:
    """Source of a Python scalar, NaN/inf spelled so they evaluate."""
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return repr(v)


def shape_src(shape) -> str:
    """``(2, 3)``; long runs of ones compressed: ``(2,) + (1,) * 298``."""
    shape = tuple(shape)
    if len(shape) <= 12:
        return repr(shape)
    head = len(shape)
    while head > 0 and shape[head - 1] == 1:
        head -= 1
    ones = len(shape) - head
    if ones < 8:
        return repr(shape)
    return (repr(shape[:head]) + " + " if head else "") + f"(1,) * {ones}"


def literal_src(values) -> str:
    """A nested list literal of Python scalars (``nan``/``inf`` by name)."""
    if isinstance(values, list):
        return "[" + ", ".join(literal_src(v) for v in values) + "]"
    return scalar_src(values)


@dataclass
class Arr:
    """A tensor operand.

    ``data`` is ``("lit", nested_list)`` (values given literally, shaped
    ``base_shape``) or ``("rand", seed, low, high)`` (NumPy's seeded generator
    fills ``base_shape``).  ``views`` is a list of transforms applied to the
    base in order: ``("t", i, j)``, ``("step", dim, k)``, ``("neg", dim)``,
    ``("offset", dim)``, ``("expand", shape)``.
    """
    dtype: str
    base_shape: tuple
    data: tuple
    views: list = field(default_factory=list)

    def np_values_src(self) -> str:
        """NumPy source of the base values (float64/int64/bool array)."""
        shape = self.base_shape
        build_shape = (numel(shape),) if len(shape) > _FLAT_BUILD_RANK else shape
        if self.data[0] == "lit":
            return f"np.array({literal_src(self.data[1])})"
        _, seed, low, high = self.data
        gen = f"np.random.default_rng({seed})"
        if self.dtype == "bool":
            return f"({gen}.random({shape_src(build_shape)}) < 0.5)"
        if self.dtype in FLOAT_DTYPES:
            return f"{gen}.uniform({scalar_src(float(low))}, {scalar_src(float(high))}, {shape_src(build_shape)})"
        return f"{gen}.integers({int(low)}, {int(high)}, {shape_src(build_shape)})"

    def base_src(self, lib: str) -> str:
        values = self.np_values_src()
        if lib == "np":
            npdt = "np.float32" if self.dtype in ("float16", "bfloat16") else f"np.{self.dtype}"
            src = f"np.asarray({values}, dtype={npdt})"
            if self.data[0] != "lit" and len(self.base_shape) > _FLAT_BUILD_RANK:
                src += f".reshape({shape_src(self.base_shape)})"
            elif self.data[0] == "lit" and not self.base_shape:
                src = f"np.asarray({values}, dtype={npdt}).reshape(())"
            return src
        if numel(self.base_shape) == 0:
            return f"T.zeros({shape_src(self.base_shape)}, dtype=T.{self.dtype})"
        src = f"T.tensor({values}, dtype=T.{self.dtype})"
        if self.data[0] != "lit" and len(self.base_shape) > _FLAT_BUILD_RANK:
            src += f".reshape({shape_src(self.base_shape)})"
        return src

    def src(self, lib: str) -> str:
        """Expression building this operand under ``T`` (``lib`` 'cy'/'th') or ``np``."""
        out = self.base_src(lib)
        for view in self.views:
            out = _view_src(out, view, lib)
        return out

    @property
    def shape(self) -> tuple:
        shape = list(self.base_shape)
        for view in self.views:
            if view[0] == "t":
                _, i, j = view
                shape[i], shape[j] = shape[j], shape[i]
            elif view[0] == "step":
                _, d, k = view
                shape[d] = -(-shape[d] // k)
            elif view[0] == "offset":
                shape[view[1]] -= 1
            elif view[0] == "expand":
                shape = list(view[1])
        return tuple(shape)

    def expanded(self) -> bool:
        return any(v[0] == "expand" and numel(v[1]) > 1 for v in self.views)


def _index_src(ndim, dim, item):
    return "[" + ", ".join([":"] * dim + [item]) + "]"


def _view_src(src, view, lib):
    kind = view[0]
    if kind == "t":
        if lib == "np":
            return f"{src}.swapaxes({view[1]}, {view[2]})"
        return f"{src}.transpose({view[1]}, {view[2]})"
    if kind == "step":
        return f"{src}{_index_src(None, view[1], f'::{view[2]}')}"
    if kind == "offset":
        return f"{src}{_index_src(None, view[1], '1:')}"
    if kind == "neg":
        if lib == "th":     # PyTorch has no negative step: a copy with the same values
            return f"{src}.flip({view[1]})"
        return f"{src}{_index_src(None, view[1], '::-1')}"
    if kind == "expand":
        if lib == "np":
            return f"np.broadcast_to({src}, {shape_src(view[1])})"
        return f"{src}.expand({shape_src(view[1])})"
    raise ValueError(view)


def random_views(shape, rng, max_base=4096):
    """(base_shape, views) whose result has ``shape``, built backwards from it."""
    shape = tuple(shape)
    nd = len(shape)
    views = []
    base = list(shape)
    for _ in range(int(rng.integers(0, 4))):
        if nd == 0:
            break
        kind = rng.choice(["t", "step", "neg", "offset", "expand"])
        d = int(rng.integers(0, nd))
        if kind == "t" and nd >= 2:
            e = int(rng.integers(0, nd))
            base[d], base[e] = base[e], base[d]
            views.append(("t", d, e))
        elif kind == "step" and base[d] > 0:
            k = int(rng.integers(2, 4))
            if numel(base) * k <= max_base:
                base[d] = base[d] * k - int(rng.integers(0, k))
                views.append(("step", d, k))
        elif kind == "neg":
            views.append(("neg", d))
        elif kind == "offset" and numel(base) + numel(base) // max(base[d], 1) <= max_base:
            base[d] += 1
            views.append(("offset", d))
        elif kind == "expand" and not views:
            # only as the last transform: later ones would see a different shape
            target = tuple(base)
            base[d] = 1
            views.append(("expand", target))
    views.reverse()
    return tuple(base), views


def random_data(dtype, shape, rng, low=None, high=None):
    """A ``("rand", ...)`` data description with sensible default ranges."""
    seed = int(rng.integers(0, 2**31))
    if dtype in FLOAT_DTYPES:
        return ("rand", seed, -3.0 if low is None else low, 3.0 if high is None else high)
    if dtype == "uint8":
        return ("rand", seed, 0 if low is None else max(low, 0), 10 if high is None else high)
    return ("rand", seed, -9 if low is None else low, 10 if high is None else high)


def from_array(a: np.ndarray, dtype: str, rng, views=True) -> Arr:
    """An operand holding the values of ``a`` (literally if small) with random views."""
    shape = a.shape
    base_shape, vlist = random_views(shape, rng) if views else (shape, [])
    if not vlist and numel(shape) <= _MAX_LITERAL:
        vals = a.astype(np.float64) if str(a.dtype) in ("bfloat16", "float16") else a
        return Arr(dtype, shape, ("lit", vals.tolist()))
    # views change which values land where: regenerate in the sample's value range
    return Arr(dtype, base_shape, _like(a, dtype, rng), vlist)


def _like(a, dtype, rng):
    if a.size == 0:
        return random_data(dtype, (), rng)
    if dtype == "bool":
        return random_data(dtype, (), rng)
    vals = a.astype(np.float64)
    vals = vals[np.isfinite(vals)]
    if vals.size == 0:
        return random_data(dtype, (), rng)
    lo, hi = float(vals.min()), float(vals.max())
    if dtype in FLOAT_DTYPES:
        lo, hi = math.floor(lo * 100) / 100, math.ceil(hi * 100) / 100
        return random_data(dtype, (), rng, lo, hi if hi > lo else lo + 1.0)
    return random_data(dtype, (), rng, int(lo), int(hi) + 1)
