"""Random fuzz cases, each a pure function of ``(seed, index)``.

A case is a dict ``{"id", "op", "mode", "cy", "th", "np", "ref", "values"}``:
``cy``/``th`` are the source texts run under cygrad / PyTorch (``T`` is the
library, ``np`` NumPy; the result is the variable ``out``), ``np`` (optional)
runs the op table's NumPy reference ``REF`` on the same values, ``values``
says whether result values are comparable (not for random or uninitialised
results).

Two sources of op calls:

* the op table (``tests/opinfo``): a row's sample input, then one mutation:
  kept as is but with random views of its operands, a random shape or dtype
  for one operand, a Python scalar in place of an operand, a bad value for a
  non-tensor argument, the method or in-place form, ``out=``;
* generators below for what the table does not cover with random arguments:
  factories, ``tensor()`` from out-of-range values, view/shape ops with random
  sizes and dims, basic and advanced indexing (get and set), in-place writes
  through self-overlapping views, and ``cat``/``stack`` of mismatched inputs.
"""
from __future__ import annotations

import math

import numpy as np

from .values import (DTYPES, FLOAT_DTYPES, Arr, from_array, literal_src, numel,
                     random_data, random_views, scalar_src, shape_src)

# ---------------------------------------------------------------------------
# pools of interesting values
# ---------------------------------------------------------------------------
HUGE = [1 << 31, 1 << 32, 1 << 40, 1 << 62, (1 << 63) - 1, 1 << 63, -(1 << 63), 1 << 64]
BAD_INTS = [-1, -2, -7, 0, 1, 5, 100, -100] + HUGE
BAD_MISC = [1.5, math.nan, math.inf, -math.inf, None, "x", True, False, (), [], (0, 0), [1, 2]]
SCALARS = [0, 1, -1, 2, 7, -3, 2.5, -0.5, 0.0, -0.0, 1e-30, 1e30, 1e300, math.nan, math.inf,
           -math.inf, True, False, 255, 256, -129, 300, 1 << 31, 1 << 53, (1 << 63) - 1,
           -(1 << 63), 1 << 63, 1 << 64]
RANDOM_RESULT_OPS = {"rand", "randn", "randint", "randperm", "rand_like", "randn_like",
                     "randint_like", "empty", "empty_like", "bernoulli", "multinomial",
                     "normal", "poisson", "uniform_", "normal_", "random_", "exponential_",
                     "cauchy_", "log_normal_", "geometric_", "bernoulli_", "argsort", "msort"}


def _pick(rng, seq):
    return seq[int(rng.integers(0, len(seq)))]


def random_shape(rng):
    """0-d, empty, size-1, ordinary, and (rarely) very many dims."""
    r = rng.random()
    if r < 0.12:
        return ()
    if r < 0.22:
        nd = int(rng.integers(1, 4))
        shape = [int(rng.integers(0, 4)) for _ in range(nd)]
        shape[int(rng.integers(0, nd))] = 0
        return tuple(shape)
    if r < 0.32:
        return (1,) * int(rng.integers(1, 5))
    if r < 0.40:
        nd = _pick(rng, [15, 16, 17, 20, 32, 64, 65, 257, 300])
        shape = [1] * nd
        shape[int(rng.integers(0, nd))] = int(rng.integers(0, 3))
        return tuple(shape)
    nd = int(rng.integers(1, 5))
    return tuple(int(rng.integers(1, 6)) for _ in range(nd))


def random_dtype(rng):
    return _pick(rng, DTYPES)


def random_arr(rng, shape=None, dtype=None, views=True):
    shape = random_shape(rng) if shape is None else tuple(shape)
    dtype = random_dtype(rng) if dtype is None else dtype
    base, vlist = random_views(shape, rng) if views and len(shape) <= 16 else (shape, [])
    return Arr(dtype, base, random_data(dtype, base, rng), vlist)


# ---------------------------------------------------------------------------
# rendering a call
# ---------------------------------------------------------------------------
class Call:
    """Operands plus one call expression, rendered per library."""

    def __init__(self, op, mode, values=True):
        self.op, self.mode, self.values = op, mode, values
        self.operands = []      # Arr, assigned to x0, x1, ...
        self.stmt = None        # callable(lib) -> statements computing ``out``

    def add(self, arr):
        self.operands.append(arr)
        return Ref(len(self.operands) - 1)

    def render(self, lib):
        lines = [f"x{i} = {a.src(lib)}" for i, a in enumerate(self.operands)]
        lines.extend(self.stmt(lib))
        return "\n".join(lines)


class Ref:
    """An operand's variable in the rendered code."""

    def __init__(self, i):
        self.i = i


class Raw:
    """Source text used verbatim (index expressions, ``...``)."""

    def __init__(self, text):
        self.text = text


def src(v, lib="cy"):
    if isinstance(v, Ref):
        return f"x{v.i}"
    if isinstance(v, Raw):
        return v.text
    if isinstance(v, tuple):
        inner = ", ".join(src(e, lib) for e in v)
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if isinstance(v, list):
        return "[" + ", ".join(src(e, lib) for e in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {src(e, lib)}" for k, e in v.items()) + "}"
    if hasattr(v, "is_floating_point") and hasattr(v, "itemsize"):   # a cygrad dtype
        return f"T.{v.name}"
    if isinstance(v, (bool, int, float, str)) or v is None:
        return scalar_src(v)
    raise TypeError(f"cannot render {type(v).__name__}")


def call_src(fn, args, kwargs, lib):
    parts = [src(a, lib) for a in args] + [f"{k}={src(v, lib)}" for k, v in kwargs.items()]
    return f"{fn}({', '.join(parts)})"


_PRECISION = ("bfloat16", "float16", "float32", "float64")
# (values, indices) results whose indices are ambiguous under ties: values only
TIE_OPS = {"topk", "kthvalue", "median", "mode", "sort", "max", "min", "nanmedian", "msort"}
# writes through repeated indices keep an unspecified one of the values
DUPLICATE_WRITE_OPS = {"scatter", "scatter_", "index_copy", "index_copy_", "put", "put_",
                       "index_put", "index_put_", "setitem"}


def finish(call, case_id, np_src=None, ref=None):
    floats = [a.dtype for a in call.operands if a.dtype in _PRECISION]
    if any(a.dtype not in _PRECISION for a in call.operands):
        floats.append("float32")        # integers compute in the default float
    values = call.values and call.op not in RANDOM_RESULT_OPS
    if call.op in DUPLICATE_WRITE_OPS and (call.op != "setitem" or
                                           any(a.expanded() for a in call.operands)):
        values = False      # random indices repeat: which write wins is unspecified
    return {"id": case_id, "op": call.op, "mode": call.mode, "cy": call.render("cy"),
            "th": call.render("th"), "np": np_src, "ref": ref, "values": values,
            "first_only": call.op in TIE_OPS,
            "tol_dtype": min(floats, key=_PRECISION.index) if floats else None}


# ---------------------------------------------------------------------------
# cases from the op table
# ---------------------------------------------------------------------------
_ROWS = None


def table_rows():
    """Op-table rows usable here: (row, cygrad source path, torch source path)."""
    global _ROWS
    if _ROWS is None:
        import cygrad
        from opinfo import op_db
        rows = []
        for row in op_db:
            if row.family == "complex":
                continue    # values are rendered as real literals; complex rows stay out
            if getattr(cygrad, row.name, None) is row.op:
                cy = f"T.{row.name}"
            elif row.name == "pad":
                cy = "T.nn.functional.pad"
            else:
                continue    # pair lambdas (cat...) and getitem: own generators below
            th = cy if row.torch_name is None else (f"T.{row.torch_name}" if row.torch_name else None)
            rows.append((row, cy, th))
        _ROWS = rows
    return _ROWS


def _operand(call, value, dtype_name, rng, views=True):
    """Sample value -> rendered form (arrays become operands)."""
    if isinstance(value, np.ndarray):
        dt = str(value.dtype)
        return call.add(from_array(value, dt, rng, views))
    if isinstance(value, (list, tuple)):
        return type(value)(_operand(call, v, dtype_name, rng, views) for v in value)
    return value


def _table_case(rng, case_id):
    import cygrad
    rows = table_rows()
    row, cy_fn, th_fn = rows[int(rng.integers(0, len(rows)))]
    dtype = row.dtypes[int(rng.integers(0, len(row.dtypes)))] if rng.random() < 0.85 \
        else getattr(cygrad, random_dtype(rng))
    sample_rng = np.random.default_rng(int(rng.integers(0, 2**31)))
    try:
        samples = row.sample_inputs(row, dtype, sample_rng)
    except Exception:       # a generator that does not handle an off-table dtype
        samples = row.sample_inputs(row, row.dtypes[0], sample_rng)
        dtype = row.dtypes[0]
    if not samples:
        return None
    sample = samples[int(rng.integers(0, len(samples)))]
    mode = _pick(rng, ["sample", "sample", "sample", "shape", "dtype", "scalar", "badarg",
                       "badarg", "method", "inplace", "out"])
    if mode == "method" and not row.method:
        mode = "sample"
    if mode == "inplace" and not row.inplace:
        mode = "sample"
    if mode == "out" and not row.supports_out:
        mode = "badarg"
    call = Call(row.name, mode)
    views = mode != "sample" or rng.random() < 0.7
    inp = _operand(call, sample.input, dtype.name, rng, views)
    args = [_operand(call, a, dtype.name, rng, views) for a in sample.args]
    kwargs = {k: _operand(call, v, dtype.name, rng, views) for k, v in sample.kwargs.items()}
    if "as_strided" in row.name:
        # as_strided's geometry is absolute in the storage, so a view operand compares
        # each library's storage layout, not the op (their rows say check_noncontiguous
        # =False for the same reason): plain operands only
        for arr in call.operands:
            arr.views = []
    np_ok = mode in ("sample", "method")
    if mode == "shape" and call.operands:
        arr = _pick(rng, call.operands)
        new = random_arr(rng, dtype=arr.dtype)
        arr.base_shape, arr.data, arr.views = new.base_shape, new.data, new.views
    elif mode == "dtype" and call.operands:
        arr = _pick(rng, call.operands)
        arr.dtype = random_dtype(rng)
        if arr.data[0] == "rand" and arr.dtype not in FLOAT_DTYPES:
            arr.data = random_data(arr.dtype, (), rng)
        elif arr.data[0] == "lit" and arr.dtype not in FLOAT_DTYPES:
            arr.data = ("lit", _to_int_literal(arr.data[1], arr.dtype))
    elif mode == "scalar":
        slots = [i for i, a in enumerate(args) if isinstance(a, Ref)]
        if slots and rng.random() < 0.85:
            args[_pick(rng, slots)] = _pick(rng, SCALARS)
        else:
            inp = _pick(rng, SCALARS)
    elif mode == "badarg":
        _mutate_args(rng, args, kwargs)
    values = True
    if mode == "method":
        fn = f"{src(inp)}.{row.method}"
        stmt = lambda lib: [f"out = {call_src(fn, args, kwargs, lib)}"]
    elif mode == "inplace":
        if isinstance(inp, Ref) and rng.random() < 0.4:
            arr = call.operands[inp.i]
            if not arr.expanded() and arr.shape and numel(arr.shape) > 0:
                shape = arr.shape
                d = int(rng.integers(0, len(shape)))
                base = list(shape)
                base[d] = 1
                arr.views = [("expand", shape)]
                arr.base_shape = tuple(base)
                arr.data = random_data(arr.dtype, (), rng)
        fn = f"{src(inp)}.{row.inplace}"
        stmt = lambda lib: [f"out = {call_src(fn, args, kwargs, lib)}"]
    elif mode == "out":
        out = call.add(random_arr(rng, shape=_out_shape(rng), views=False))
        kw = dict(kwargs, out=out)
        stmt = lambda lib: [f"out = {call_src(_fn(cy_fn, th_fn, lib), [inp] + args, kw, lib)}"]
    else:
        stmt = lambda lib: [f"out = {call_src(_fn(cy_fn, th_fn, lib), [inp] + args, kwargs, lib)}"]
    if th_fn is None and mode != "method" and mode != "inplace":
        values = False
    call.values = values
    call.stmt = stmt
    np_src = None
    if np_ok and all(len(a.shape) <= 32 for a in call.operands) and row.ref is not None:
        np_src = "\n".join([f"x{i} = {a.src('np')}" for i, a in enumerate(call.operands)]
                           + [f"out = {call_src('REF', [inp] + args, kwargs, 'np')}"])
    case = finish(call, case_id, np_src, row.id if np_src else None)
    if th_fn is None:
        case["th"] = None
    return case


def _fn(cy_fn, th_fn, lib):
    return cy_fn if lib != "th" else th_fn


def _out_shape(rng):
    return random_shape(rng) if rng.random() < 0.5 else (3, 4)


def _to_int_literal(values, dtype):
    if isinstance(values, list):
        return [_to_int_literal(v, dtype) for v in values]
    if isinstance(values, float) and not math.isfinite(values):
        return 0
    v = int(values)
    return abs(v) % 100 if dtype == "uint8" else max(-100, min(100, v))


def _bad_value(rng, old):
    if isinstance(old, bool):
        return _pick(rng, [2, None, "x", 1.5])
    if isinstance(old, int):
        return _pick(rng, BAD_INTS + BAD_MISC)
    if isinstance(old, float):
        return _pick(rng, [math.nan, math.inf, -math.inf, 1e308, -1e-320, None, "x", 1 << 70])
    if isinstance(old, str):
        return _pick(rng, ["bogus", "", None, 3])
    if isinstance(old, tuple) and old and rng.random() < 0.7:
        i = int(rng.integers(0, len(old)))
        return old[:i] + (_bad_value(rng, old[i]),) + old[i + 1:]
    if isinstance(old, Ref):
        return _pick(rng, BAD_MISC + [3, 2.5])
    return _pick(rng, BAD_INTS + BAD_MISC)


def _mutate_args(rng, args, kwargs):
    slots = [("a", i) for i in range(len(args))] + [("k", k) for k in kwargs]
    if not slots or rng.random() < 0.1:
        kwargs["bogus_kwarg"] = 1
        return
    where, key = _pick(rng, slots)
    if where == "a":
        args[key] = _bad_value(rng, args[key])
    else:
        kwargs[key] = _bad_value(rng, kwargs[key])


# ---------------------------------------------------------------------------
# generators beyond the table
# ---------------------------------------------------------------------------
# sizes no machine can allocate: a feasible-but-huge one (2**31 elements) only tests the swap
IMPOSSIBLE = [1 << 40, 1 << 62, (1 << 63) - 1, 1 << 63, -(1 << 63), 1 << 64]


def _size_arg(rng):
    r = rng.random()
    if r < 0.35:
        return tuple(int(rng.integers(0, 5)) for _ in range(int(rng.integers(0, 4))))
    if r < 0.55:
        return _pick(rng, IMPOSSIBLE + [-1, -5])
    if r < 0.7:
        return (_pick(rng, [2, 1 << 32, -1, 0]), _pick(rng, [1 << 32, 3, -2, 1 << 62]))
    if r < 0.8:
        return (1,) * _pick(rng, [16, 17, 65, 300])
    return _pick(rng, [2.0, None, "3", (2, None), [2, 3], (2.5,), True, math.nan])


FACTORIES = ["zeros", "ones", "empty", "full", "arange", "linspace", "eye", "rand", "randn",
             "randint", "randperm", "scalar_tensor", "logspace"]


def _factory_case(rng, case_id):
    name = _pick(rng, FACTORIES)
    call = Call(name, "factory")
    kwargs = {}
    if rng.random() < 0.6:
        kwargs["dtype"] = Raw("T." + random_dtype(rng))
    if name in ("zeros", "ones", "empty", "rand", "randn", "randperm"):
        size = _size_arg(rng)
        args = [size] if not (isinstance(size, tuple) and rng.random() < 0.5) else list(size)
        if name == "randperm":
            args = [_pick(rng, [0, 1, 5, -1, 1 << 62, 2.5, None])]
    elif name == "full":
        args = [_size_arg(rng), _pick(rng, SCALARS)]
    elif name == "randint":
        args = [_pick(rng, [0, 1, 10, -5, 1 << 63, 2.5]), _size_arg(rng)]
    elif name == "eye":
        args = [_pick(rng, BAD_INTS + [3, 0])]
        if rng.random() < 0.5:
            args.append(_pick(rng, BAD_INTS + [2, 0]))
    elif name == "scalar_tensor":
        args = [_pick(rng, SCALARS)]
    elif name in ("linspace", "logspace"):
        args = [_pick(rng, SCALARS), _pick(rng, SCALARS), _pick(rng, [0, 1, 5, -1, 1 << 62, 2.5])]
    else:   # arange
        n = int(rng.integers(1, 4))
        args = [_pick(rng, SCALARS[:12] + [1 << 62, math.nan, math.inf]) for _ in range(n)]
    call.stmt = lambda lib: [f"out = {call_src('T.' + name, args, kwargs, lib)}"]
    return finish(call, case_id)


def _nested_value(rng, depth=0):
    r = rng.random()
    if depth < 2 and r < 0.4:
        n = int(rng.integers(0, 4))
        if rng.random() < 0.2 and n:      # ragged
            return [_nested_value(rng, depth + 1) for _ in range(n)] + [[1, 2, 3]]
        item = _nested_value(rng, depth + 1)
        return [item for _ in range(n)]
    return _pick(rng, SCALARS)


def _tensor_case(rng, case_id):
    call = Call("tensor", "creation")
    value = _nested_value(rng)
    kwargs = {}
    if rng.random() < 0.7:
        kwargs["dtype"] = Raw("T." + random_dtype(rng))
    text = literal_src(value) if isinstance(value, list) else scalar_src(value)
    call.stmt = lambda lib: [f"out = {call_src('T.tensor', [Raw(text)], kwargs, lib)}"]
    return finish(call, case_id)


def _dim(rng, nd):
    return int(rng.integers(-nd - 2, nd + 2)) if rng.random() < 0.9 else _pick(rng, BAD_INTS + BAD_MISC)


def _sizes_near(rng, shape):
    """A target shape for view/reshape/expand: often valid, sometimes not."""
    r = rng.random()
    n = numel(shape)
    if r < 0.3:
        return (n,) if rng.random() < 0.5 else (-1,)
    if r < 0.5 and shape:
        s = list(shape)
        s[int(rng.integers(0, len(s)))] = -1
        return tuple(s)
    if r < 0.65:
        return tuple(shape) + (1,) * int(rng.integers(0, 3))
    if r < 0.8:
        size = _size_arg(rng)
        return size if isinstance(size, (tuple, int)) else (n,)
    return (1 << 32, 1 << 32) if n == 0 else (n, _pick(rng, [-1, 2, 0, 1 << 62]))


VIEW_OPS = ["view", "reshape", "expand", "permute", "transpose", "squeeze", "unsqueeze",
            "flatten", "unflatten", "narrow", "select", "movedim", "as_strided", "t", "mT",
            "split", "chunk", "unbind", "diagonal", "contiguous", "flip", "roll", "repeat",
            "tile", "broadcast_to", "swapaxes", "tensor_split", "clone", "ravel", "tril"]


def _has_huge(value):
    if isinstance(value, (list, tuple)):
        return any(_has_huge(v) for v in value)
    return isinstance(value, int) and abs(value) >= (1 << 20)


def _view_case(rng, case_id):
    name = _pick(rng, VIEW_OPS)
    arr = random_arr(rng)
    call = Call(name, "view")
    if name in ("as_strided", "view", "unflatten"):
        # these depend on the strides: PyTorch's stand-in for a reversed view (a flip
        # copy) is contiguous, so it would accept what a strided view must refuse
        arr.views = [v for v in arr.views if v[0] != "neg"]
    x = call.add(arr)
    shape = arr.shape
    nd = len(shape)
    if name in ("view", "reshape", "expand", "broadcast_to", "repeat", "tile"):
        target = _sizes_near(rng, shape)
        if name == "expand" and rng.random() < 0.5:
            target = tuple(_pick(rng, [s, -1, 1 << 62, 3, 0]) for s in shape) or (2,)
        if name in ("broadcast_to", "tile"):
            args = [target]
        else:
            args = list(target) if isinstance(target, tuple) and rng.random() < 0.5 else [target]
    elif name == "permute":
        perm = list(rng.permutation(nd)) if nd else []
        perm = [int(p) for p in perm]
        if rng.random() < 0.4:
            perm = perm[:-1] + [_dim(rng, nd)] if perm else [0]
        args = [tuple(perm)]
    elif name in ("transpose", "swapaxes", "movedim"):
        args = [_dim(rng, nd), _dim(rng, nd)]
    elif name in ("squeeze", "unsqueeze", "flatten", "select", "narrow", "unbind", "flip"):
        args = [_dim(rng, nd)] if name != "flip" else [(_dim(rng, nd),)]
        if name == "select":
            args.append(_pick(rng, [0, 1, -1, 3, 100, -100, 1 << 62]))
        if name == "narrow":
            args += [_pick(rng, [0, 1, -1, 5, -5, 1 << 62]), _pick(rng, [0, 1, 2, -1, 1 << 62])]
        if name == "flatten" and rng.random() < 0.5:
            args.append(_dim(rng, nd))
    elif name == "unflatten":
        args = [_dim(rng, nd), _pick(rng, [(2, -1), (-1,), (1, 1), (0,), (-1, -1), (1 << 32, 1 << 32)])]
    elif name == "as_strided":
        pass
        size = tuple(int(rng.integers(0, 4)) for _ in range(int(rng.integers(0, 3))))
        stride = tuple(_pick(rng, [0, 1, 2, 5, -1, 1 << 62]) for _ in size)
        args = [size, stride]
        if rng.random() < 0.5:
            args.append(_pick(rng, [0, 1, 3, 100, -1]))
    elif name in ("split", "chunk", "tensor_split"):
        args = [_pick(rng, [0, 1, 2, 3, -1, 1 << 62, (1, 2), [1, 1, 1]]), _dim(rng, nd)]
    elif name == "diagonal":
        args = [_pick(rng, [0, 1, -1, 5, -100, 1 << 62]), _dim(rng, nd), _dim(rng, nd)]
    elif name == "roll":
        args = [_pick(rng, [1, -1, 0, 7, 1 << 62, (1, 2)]), _dim(rng, nd)]
    elif name == "tril":
        args = [_pick(rng, [0, 1, -1, 5, -100, 1 << 62, -(1 << 63)])]
    else:       # t, mT, contiguous, clone, ravel
        args = []
    if name == "mT":
        fn = None
    elif name in ("tril", "clone", "ravel", "t", "flatten", "narrow") and rng.random() < 0.5:
        fn, args = "T." + name, [x] + args
    else:
        fn = "x0." + name
    follow = []
    if name not in ("split", "chunk", "unbind", "tensor_split") and not _has_huge(args) and \
            rng.random() < 0.3:
        # use the view: a kernel must walk its shape and strides
        follow = [_pick(rng, ["out = out + 1", "out = out.sum()", "out = out.contiguous()",
                              "out = out * out"])]
    call.stmt = lambda lib: [f"out = {call_src(fn, args, {}, lib)}" if fn else "out = x0.mT"] + follow
    return finish(call, case_id)


def _index_item(rng, size, call, allow_tensor=True):
    r = rng.random()
    if r < 0.3:
        return Raw(str(_pick(rng, [0, 1, -1, size, -size - 1, 2, 1 << 62, -(1 << 63)])))
    if r < 0.55:
        parts = [_pick(rng, ["", "0", "1", "-1", "2", "100", "-100"]) for _ in range(2)]
        step = _pick(rng, ["", "", "1", "2", "3", "0"])
        return Raw(":".join(parts) + (":" + step if step else ""))
    if r < 0.65:
        return Raw("None")
    if r < 0.7:
        return Raw("...")
    if r < 0.75:
        return Raw(_pick(rng, ["True", "False"]))
    if allow_tensor and r < 0.9:
        n = int(rng.integers(0, 4))
        vals = [int(v) for v in rng.integers(-size - 1, size + 1, n)] if size else []
        dt = _pick(rng, ["int64", "int64", "int32", "uint8", "bool", "float32"])
        if dt == "bool":
            vals = [bool(v) for v in rng.integers(0, 2, size)] if size < 8 else [True]
        elif dt == "uint8":
            vals = [abs(v) for v in vals]
        ref = call.add(Arr(dt, (len(vals),), ("lit", vals)))
        return Raw(f"x{ref.i}")
    return Raw(repr([int(v) for v in rng.integers(-size, max(size, 1), int(rng.integers(0, 3)))]))


def _index_src(rng, arr, call):
    shape = arr.shape
    n = int(rng.integers(1, 4))
    if rng.random() < 0.08:
        return "(None,) * " + str(_pick(rng, [8, 16, 17, 64]))
    items = []
    for k in range(n):
        size = shape[k] if k < len(shape) else 1
        items.append(_index_item(rng, size, call).text)
    return ", ".join(items) if len(items) > 1 else items[0] + ("," if rng.random() < 0.3 else "")


def _getitem_case(rng, case_id):
    arr = random_arr(rng)
    call = Call("getitem", "index")
    call.add(arr)
    index = _index_src(rng, arr, call)
    call.stmt = lambda lib: [f"out = x0[{index}]"]
    return finish(call, case_id)


def _setitem_case(rng, case_id):
    arr = random_arr(rng)
    call = Call("setitem", "index")
    call.add(arr)
    index = _index_src(rng, arr, call)
    if rng.random() < 0.5:
        value = scalar_src(_pick(rng, SCALARS))
    else:
        value = f"x{call.add(random_arr(rng, shape=_pick(rng, [(), (1,), (2,), (0,), arr.shape]))).i}"
    call.stmt = lambda lib: [f"x0[{index}] = {value}", "out = x0"]
    return finish(call, case_id)


INPLACE = ["add_", "mul_", "sub_", "div_", "fill_", "zero_", "copy_", "clamp_", "neg_",
           "masked_fill_", "index_fill_", "exp_", "abs_", "pow_", "lerp_"]


def _overlap_case(rng, case_id):
    """In-place writes through a view where elements share memory."""
    name = _pick(rng, INPLACE)
    call = Call(name, "overlap")
    dtype = _pick(rng, ["float32", "float64", "int64", "float16", "bool", "uint8"])
    n = int(rng.integers(1, 4))
    r = rng.random()
    if r < 0.5:
        base = Arr(dtype, (1, n), random_data(dtype, (), rng), [("expand", (int(rng.integers(2, 4)), n))])
    elif r < 0.75:
        base = Arr(dtype, (n,), random_data(dtype, (), rng), [("expand", (2, 3, n))])
        base.base_shape = (1, 1, n)
    else:
        base = Arr(dtype, (4 * n,), random_data(dtype, (), rng))
    x = call.add(base)
    shape = base.shape
    pre = []
    if r >= 0.75:
        pre = [f"x0 = x0.as_strided(({n}, 3), (1, 1))"]
        shape = (n, 3)
        # PyTorch does not detect this overlap: the result depends on the loop order
        call.values = False
    other = call.add(random_arr(rng, shape=_pick(rng, [shape, shape[-1:], ()]), dtype=dtype, views=False))
    args = {"add_": [other], "mul_": [other], "sub_": [2], "div_": [other], "fill_": [3],
            "zero_": [], "copy_": [other], "clamp_": [0, 1], "neg_": [], "exp_": [], "abs_": [],
            "masked_fill_": [Raw(f"x{other.i} > 0"), 1.5], "index_fill_": [0, Raw("T.tensor([0])"), -1],
            "pow_": [2], "lerp_": [other, 0.5]}[name]
    call.stmt = lambda lib: pre + [f"out = {call_src('x0.' + name, args, {}, lib)}"]
    return finish(call, case_id)


def _cat_case(rng, case_id):
    name = _pick(rng, ["cat", "stack", "hstack", "vstack", "dstack", "column_stack", "concat"])
    call = Call(name, "list")
    first = random_arr(rng) if rng.random() < 0.4 else random_arr(rng, shape=(2, 3))
    refs = [call.add(first)]
    for _ in range(int(rng.integers(0, 3))):
        shape = first.shape if rng.random() < 0.5 else random_shape(rng)
        dtype = first.dtype if rng.random() < 0.6 else random_dtype(rng)
        refs.append(call.add(random_arr(rng, shape=shape, dtype=dtype)))
    args = [refs if rng.random() < 0.9 else tuple(refs)]
    kwargs = {}
    if name in ("cat", "stack", "concat") and rng.random() < 0.7:
        kwargs["dim"] = _dim(rng, len(first.shape))
    call.stmt = lambda lib: [f"out = {call_src('T.' + name, args, kwargs, lib)}"]
    return finish(call, case_id)


INDEX_OPS = ["index_select", "gather", "take", "index_fill", "index_add", "index_copy",
             "take_along_dim", "scatter", "scatter_add", "masked_select", "put"]


def _empty_index_case(rng, case_id):
    """Index ops on 0-d, empty and size-1 inputs with empty, 0-d or out-of-range indices."""
    name = _pick(rng, INDEX_OPS)
    call = Call(name, "index_edge")
    dtype = _pick(rng, ["float32", "int64", "float16", "bool", "uint8"])
    x = call.add(random_arr(rng, shape=_pick(rng, [(), (0,), (1,), (2, 0), (1, 1), (3,)]),
                            dtype=dtype, views=False))
    n = _pick(rng, [0, 0, 1, 2])
    vals = [int(v) for v in rng.integers(-2, 3, n)] if rng.random() < 0.8 else \
        [_pick(rng, [5, -5, 1 << 40])] * n
    index_shape = (n,) if rng.random() < 0.8 else ()
    if index_shape == ():
        vals = vals[0] if vals else 0
    idx = call.add(Arr("int64", index_shape, ("lit", vals)))
    dim = _pick(rng, [0, -1, 1])
    if name == "masked_select":
        mask = call.add(random_arr(rng, shape=call.operands[0].shape, dtype="bool", views=False))
        args = [x, mask]
    elif name in ("take", "put"):
        args = [x, idx] + ([call.add(random_arr(rng, shape=index_shape, dtype=dtype, views=False))]
                           if name == "put" else [])
    elif name == "index_fill":
        args = [x, dim, idx, 1]
    elif name in ("index_add", "index_copy", "scatter", "scatter_add"):
        src = call.add(random_arr(rng, shape=_pick(rng, [index_shape, (0,), ()]), dtype=dtype,
                                  views=False))
        args = [x, dim, idx, src]
    else:       # index_select, gather, take_along_dim
        args = [x, dim, idx] if name != "take_along_dim" else [x, idx, dim]
    fn = "x0.put" if name == "put" else "T." + name
    if name == "put":
        args = args[1:]
    call.stmt = lambda lib: [f"out = {call_src(fn, args, {}, lib)}"]
    return finish(call, case_id)


GENERATORS = [(_table_case, 0.55), (_factory_case, 0.07), (_tensor_case, 0.05),
              (_view_case, 0.12), (_getitem_case, 0.08), (_setitem_case, 0.05),
              (_overlap_case, 0.04), (_cat_case, 0.04), (_empty_index_case, 0.03)]


def make_case(seed: int, index: int) -> dict:
    """The case ``index`` of campaign ``seed`` (deterministic)."""
    rng = np.random.default_rng([seed, index])
    weights = np.array([w for _, w in GENERATORS])
    while True:
        gen = GENERATORS[int(rng.choice(len(GENERATORS), p=weights / weights.sum()))][0]
        case = gen(rng, f"{seed}:{index}")
        if case is not None:
            return case
