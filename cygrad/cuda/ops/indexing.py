"""The 'cuda' kernels of the indexing family: gathers and scatters (``gather``,
``scatter`` and its reductions, ``index_*``, ``take``/``put``, ``t[idx]`` reads and
writes, ``take_along_dim``/``put_along_dim``), the device-side bounds checks,
``nonzero`` and ``masked_select``, ``cat``, the index builders of
``repeat_interleave`` and the copying pads, ``searchsorted`` and ``isin``
(``cuda_src/indexing.cu``; the shared launch code is in ``_index_common.py``).

Each kernel has the signature and return convention of the 'cpu' kernel of the same
primitive (``cygrad/_core/backend_cpu/indexing.py``, ``shape.py``, ``tensorops.py``,
``reduction.py``). Index tensors given on the host are copied to the device first.

Examples
--------
>>> from cygrad.cuda.ops import indexing
>>> "index_select" in indexing.PRIMITIVES
True
"""
import math

from ..._core import dispatch
from ..._core import dtype as _dt
from ..._core import tensor as _C
from ..._core.backend_cpu import indexing as _cpu_indexing
from ..tensors import _expanded_strides, _same_device
from . import _index_common as c
from ._scatter_weights import scatter_reduce_weights

PRIMITIVES = ("gather", "gather_broadcast", "gather_slices", "index_select", "index_add",
              "index_copy", "index_fill", "index_get", "index_put", "index_from_sequence",
              "put", "put_along_dim", "take", "take_along_dim", "scatter",
              "scatter_reduce_weights", "masked_select", "nonzero", "cat", "cat_small",
              "repeat_index", "pad_source", "first_out_of_bounds", "first_bad_index",
              "searchsorted", "isin")

_TensorBase = _C.TensorBase


def _zero_dim(strides, dim):
    strides = list(strides)
    strides[dim] = 0
    return strides


# ---------------------------------------------------------------- bounds checks

def first_out_of_bounds(index, low, high):
    """The first value of ``index`` (C order) outside ``[low, high)``, or None: the
    position found by an atomic minimum on the device, then that one value read back.

    Examples
    --------
    >>> callable(first_out_of_bounds)
    True
    """
    n = index.numel()
    if n == 0:
        return None
    shape = tuple(index.shape) or (1,)
    strides = tuple(index.stride()) or (0,)
    pos = c.scalar(n, _dt.int64, index.device)
    c.launch(index.device, f"cg_first_bad_{c.index_suffix('first_out_of_bounds', index)}", n,
             (n, c._k.geometry(shape, (), strides), index.data_ptr(), int(low), int(high),
              pos.data_ptr()))
    p = c.read_ints(pos)[0]
    return None if p >= n else c.read_element(index, p, shape, strides)


def first_bad_index(indices, sizes, shape):
    """``(k, value)`` for the first index out of range among ``indices`` (the k-th
    indexing a dim of ``sizes[k]``) broadcast to ``shape``, None if all fit: each
    tensor's first bad position by an atomic minimum, one read-back of them all.

    Examples
    --------
    >>> callable(first_bad_index)
    True
    """
    device = next((t.device for t in indices if t.device.type == "cuda"), indices[0].device)
    shape = tuple(shape)
    n = math.prod(shape)
    if n == 0:
        return None
    pos = c.empty((len(indices),), _dt.int64, device)
    c.copy(pos, c.scalar(n, _dt.int64, device))
    moved = [c.on(t, device) for t in indices]
    geo_shape = shape or (1,)
    for k, (t, size) in enumerate(zip(moved, sizes)):
        strides = _expanded_strides(t, shape) if shape else (0,)
        c.launch(device, f"cg_first_bad_{c.index_suffix('first_bad_index', t)}", n,
                 (n, c._k.geometry(geo_shape, (), strides), t.data_ptr(), -int(size), int(size),
                  pos[k:].data_ptr()))
    found = c.read_ints(pos)
    p = min(found)
    if p >= n:
        return None
    k = found.index(p)
    strides = _expanded_strides(moved[k], shape) if shape else (0,)
    return k, c.read_element(moved[k], p, geo_shape, strides)


# ---------------------------------------------------------------- Python index objects

def index_from_sequence(seq):
    """A list/tuple/ndarray index as ``(kind, tensor)`` (see the CPU kernel): Python
    data is read on the host, as ``tensor(data, device=)`` reads it; the index tensor
    is then copied to the current CUDA device.

    Examples
    --------
    >>> callable(index_from_sequence)
    True
    """
    kind, t = _cpu_indexing.index_from_sequence(seq)
    if t is not None:
        from .. import current_device
        t = t.to(f"cuda:{current_device()}")
    return kind, t


# ---------------------------------------------------------------- advanced indexing

def _basic_view(x, basic):
    x = _C._detach(x)
    if not basic:
        return x
    if any(item is Ellipsis for item in basic):
        return x[basic]
    return x[tuple(basic) + (Ellipsis,)]


def _plan(view, advanced):
    """The index items of ``view`` (masks become their nonzero positions) as
    ``(result shape, b0, b1, offsets, source strides over the result)``, or None when
    nothing is advanced."""
    items = []
    for item in advanced:
        if isinstance(item, _TensorBase) and item.dtype is _dt.bool_:
            items.extend(nonzero(c.on(item, view.device), True))
        else:
            items.append(item)
    items += [slice(None)] * (view.dim() - len(items))
    adv = [k for k, item in enumerate(items) if isinstance(item, _TensorBase)]
    if not adv:
        return None
    bshape = tuple(items[adv[0]].shape)
    for k in adv[1:]:
        bshape = _broadcast(bshape, tuple(items[k].shape))
    sliced = [k for k in range(view.dim()) if k not in adv]
    if adv == list(range(adv[0], adv[-1] + 1)):
        pre, post = sliced[:adv[0]], sliced[adv[0]:]
    else:
        pre, post = [], sliced
    shape, strides = tuple(view.shape), view.stride()
    result = tuple(shape[k] for k in pre) + bshape + tuple(shape[k] for k in post)
    src_strides = [strides[k] for k in pre] + [0] * len(bshape) + [strides[k] for k in post]
    offs = c.offsets([(items[k], shape[k], strides[k]) for k in adv], bshape, view.device)
    return result, len(pre), len(pre) + len(bshape), offs, src_strides


def _broadcast(s1, s2):
    n = max(len(s1), len(s2))
    s1, s2 = (1,) * (n - len(s1)) + s1, (1,) * (n - len(s2)) + s2
    return tuple(a if b == 1 else b for a, b in zip(s1, s2))


def index_get(x, basic, advanced, shape):
    """A new tensor ``x[basic][advanced]`` of ``shape`` (see the CPU kernel).

    Examples
    --------
    >>> callable(index_get)
    True
    """
    out = c.empty(shape, x.dtype, x.device)
    if out.numel() == 0:
        return out
    view = _basic_view(x, basic)
    plan = _plan(view, advanced) if advanced else None
    if plan is None:
        c.copy(out, view)
        return out
    result, b0, b1, offs, src_strides = plan
    c.gather(out, c.contiguous_strides(result), view, src_strides, result, b0, b1, offs)
    return out


def _values(values, dtype, device, shape):
    """``values`` (a tensor, or a number) on ``device`` and its strides over ``shape``."""
    if not isinstance(values, _TensorBase):
        return c.scalar(values, dtype, device), [0] * len(shape)
    v = c.on(values, device)
    if v.dtype is not dtype:
        v = v.to(dtype)
    while v.dim() > len(shape) and v.shape[0] == 1:
        v = v[0]
    return v, _expanded_strides(v, shape) if shape else ()


def index_put(x, basic, advanced, values, accumulate):
    """In place: ``x[basic][advanced] = values`` (``+=`` with repeats counted, by
    atomics, when ``accumulate``).

    Examples
    --------
    >>> callable(index_put)
    True
    """
    target = _basic_view(x, basic)
    if target.numel() == 0:
        return x
    plan = _plan(target, advanced) if advanced else None
    op = "add" if accumulate else None
    if plan is None:
        shape = tuple(target.shape)
        vals, vstrides = _values(values, x.dtype, x.device, shape)
        c.write("index_put", op, target, target.stride(), vals, vstrides, shape)
        return x
    result, b0, b1, offs, dst_strides = plan
    vals, vstrides = _values(values, x.dtype, x.device, result)
    c.write("index_put", op, target, dst_strides, vals, vstrides, result, b0, b1, offs)
    return x


# ---------------------------------------------------------------- index_* along one dim

def _select_into(x, dim, index, out):
    x = _C._detach(x)
    idx = c.on(index, x.device).reshape(-1)
    shape = c.space(tuple(x.shape), dim, (idx.numel(),))
    offs = c.offsets([(idx, x.shape[dim], x.stride(dim))], (idx.numel(),), x.device)
    c.gather(out, out.stride(), x, _zero_dim(x.stride(), dim), shape, dim, dim + 1, offs)
    return out


def index_select(input, dim, index, out):
    """``out`` = ``input``'s slices at ``index`` along ``dim`` (a 0-dim input: its value).

    Examples
    --------
    >>> callable(index_select)
    True
    """
    _same_device(input, out)
    if input.dim() == 0:
        c.copy(out, _C._detach(input))
        return out
    if out.numel() == 0:
        return out
    return _select_into(input, dim, index, out)


def gather_slices(input, dim, index):
    """A new tensor of ``input``'s slices along ``dim`` at the positions ``index``.

    Examples
    --------
    >>> callable(gather_slices)
    True
    """
    shape = c.space(tuple(input.shape), dim, (index.shape[0],))
    out = c.empty(shape, input.dtype, input.device)
    return _select_into(input, dim, index, out) if out.numel() else out


def _write_along(primitive, op, input, dim, index, vals, vstrides, alpha=1):
    target = c.along(input)
    idx = c.on(index, target.device).reshape(-1)
    shape = c.space(tuple(target.shape), dim, (idx.numel(),))
    if math.prod(shape) == 0:
        return
    offs = c.offsets([(idx, target.shape[dim], target.stride(dim))], (idx.numel(),),
                     target.device)
    c.write(primitive, op, target, _zero_dim(target.stride(), dim), vals, vstrides, shape,
            dim, dim + 1, offs, alpha)


def index_fill(input, dim, index, value):
    """In place: ``input``'s slices at ``index`` along ``dim`` set to ``value`` (a
    number or a 0-dim tensor).

    Examples
    --------
    >>> callable(index_fill)
    True
    """
    val = c.scalar(value, input.dtype, input.device)
    ndim = max(input.dim(), 1)
    _write_along("index_fill", None, input, dim, index, val, [0] * ndim)
    return input


def index_copy(input, dim, index, source):
    """In place: ``input``'s slices at ``index`` along ``dim`` set to ``source``'s.

    Examples
    --------
    >>> callable(index_copy)
    True
    """
    src = c.along(c.on(source, input.device))
    _write_along("index_copy", None, input, dim, index, src, src.stride())
    return input


def index_add(input, dim, index, source, alpha):
    """In place: ``alpha * source``'s slices added (atomically: repeats add up) to
    ``input``'s at ``index`` along ``dim``.

    Examples
    --------
    >>> callable(index_add)
    True
    """
    src = c.along(c.on(source, input.device))
    _write_along("index_add", "add", input, dim, index, src, src.stride(), alpha)
    return input


# ---------------------------------------------------------------- flat take / put

def take(input, index):
    """``input`` read as flat (row-major) at ``index`` (negative from the end).

    Examples
    --------
    >>> callable(take)
    True
    """
    out = c.empty(tuple(index.shape), input.dtype, input.device)
    n = out.numel()
    if n == 0:
        return out
    x = _C._detach(input)
    offs = c.flat_offsets(index, tuple(x.shape), x.stride(), x.device)
    shape = (n,)
    c.gather(out, (1,), x, (0,), shape, 0, 1, offs)
    return out


def put(input, index, source, accumulate):
    """In place: ``source`` (a tensor, or a number) written (atomically added when
    ``accumulate``) at the flat positions ``index`` of ``input``.

    Examples
    --------
    >>> callable(put)
    True
    """
    n = index.numel()
    if n == 0:
        return input
    x = _C._detach(input)
    offs = c.flat_offsets(c.on(index, x.device).reshape(-1), tuple(x.shape), x.stride(),
                          x.device)
    if isinstance(source, _TensorBase) and source.dim():
        vals = c.on(source, x.device).reshape(-1)
        if vals.dtype is not x.dtype:
            vals = vals.to(x.dtype)
        vstrides = vals.stride()
    else:
        vals, vstrides = c.scalar(source, x.dtype, x.device), (0,)
    c.write("put", "add" if accumulate else None, x, (0,), vals, vstrides, (n,), 0, 1, offs)
    return input


# ---------------------------------------------------------------- gather / scatter

def gather(input, dim, index, out):
    """``out[...] = input`` read along ``dim`` at ``index`` (0-dim as 1-D).

    Examples
    --------
    >>> callable(gather)
    True
    """
    if index.numel() == 0:
        return out
    x, idx = c.along(input), c.along(c.on(index, input.device))
    shape = tuple(idx.shape)
    offs = c.offsets([(idx, x.shape[dim], x.stride(dim))], shape, x.device)
    c.gather(c.along(out), c.along(out).stride(), x, _zero_dim(x.stride(), dim), shape,
             0, len(shape), offs)
    return out


def _gather_bcast(x, dim, idx, out):
    """``out`` = ``x`` read along ``dim`` at ``idx``, both broadcast to ``out``'s shape
    off ``dim`` (negative indices from the end)."""
    shape = tuple(out.shape)
    xshape = list(shape)
    xshape[dim] = x.shape[dim]
    src_strides = _zero_dim(_expanded_strides(x, tuple(xshape)), dim)
    offs = c.offsets([(idx, x.shape[dim], x.stride(dim))], shape, x.device)
    c.gather(out, out.stride(), x, src_strides, shape, 0, len(shape), offs)
    return out


def gather_broadcast(input, dim, indices, out):
    """``out`` = ``input`` read along ``dim`` at ``indices``, both broadcast to
    ``out``'s shape off ``dim``; negative indices count from the end.

    Examples
    --------
    >>> callable(gather_broadcast)
    True
    """
    if out.numel():
        _gather_bcast(_C._detach(input), dim, c.on(indices, input.device), out)
    return out


def take_along_dim(x, idx, d):
    """``out[..., j, ...] = x[..., idx[..., j, ...], ...]`` along ``d`` (the two
    broadcast off ``d``), in a new tensor.

    Examples
    --------
    >>> callable(take_along_dim)
    True
    """
    idx = c.on(idx, x.device)
    xs, ishape = list(x.shape), list(idx.shape)
    xs[d] = ishape[d] = 1
    shape = list(_broadcast(tuple(xs), tuple(ishape)))
    shape[d] = idx.shape[d]
    out = c.empty(tuple(shape), x.dtype, x.device)
    return _gather_bcast(_C._detach(x), d, idx, out) if out.numel() else out


def put_along_dim(src, idx, d, shape):
    """Zeros of ``shape`` with ``src`` written at ``idx`` along dim ``d``.

    Examples
    --------
    >>> callable(put_along_dim)
    True
    """
    out = c.zeros(shape, src.dtype, src.device)
    idx = c.on(idx, src.device)
    oshape = list(shape)
    oshape[d] = 1
    ishape = list(idx.shape)
    ishape[d] = 1
    space = list(_broadcast(tuple(oshape), tuple(ishape)))
    space[d] = idx.shape[d]
    space = tuple(space)
    if math.prod(space) == 0:
        return out
    vals = c.on(src, src.device)
    offs = c.offsets([(idx, shape[d], out.stride(d))], space, src.device)
    c.write("put_along_dim", None, out, _zero_dim(out.stride(), d), vals,
            _expanded_strides(vals, space), space, 0, len(space), offs)
    return out


_REDUCE_OPS = {"add": "add", "sum": "add", "mean": "add", "multiply": "mul", "prod": "mul",
               "amax": "max", "amin": "min"}


def _identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.is_floating_point:
        return -math.inf if reduce == "amax" else math.inf
    if dtype is _dt.bool_:
        return reduce == "amin"
    bits = 8 * dtype.itemsize
    if dtype.name.startswith("uint"):
        return 0 if reduce == "amax" else (1 << bits) - 1
    return -(1 << (bits - 1)) if reduce == "amax" else (1 << (bits - 1)) - 1


def _multiply_lines(target, dst_strides, vals, vstrides, shape, dim, offs):
    """complex128 ``target[o + offs] *= vals`` over ``shape``: one thread per line
    along ``dim``, its updates in index order (no 16-byte compare-and-swap before
    sm_90; cuda_src/indexing.cu, section 2b)."""
    lines = list(shape)
    lines[dim] = 1
    n = math.prod(lines)
    geo = c._k.geometry(tuple(lines), tuple(dst_strides), tuple(vstrides),
                        c.contiguous_strides(shape))
    c.launch(target.device, "cg_scatter_mul_lines_c128", n,
             (n, geo, shape[dim], target.data_ptr(), vals.data_ptr(), vstrides[dim],
              offs.data_ptr(), c.contiguous_strides(shape)[dim]))


def scatter(self, dim, index, src, value, reduce=None, include_self=True):
    """In place: ``src`` (a tensor) or ``value`` (a number) written into ``self`` at
    ``index`` along ``dim``, or reduced into it (``reduce``: "add"/"sum",
    "multiply"/"prod", "mean", "amax", "amin"; atomics, every repeat counts;
    ``include_self=False`` leaves the old values out).

    Examples
    --------
    >>> callable(scatter)
    True
    """
    if index.numel() == 0:
        return self
    target = c.along(self)
    idx = c.along(c.on(index, target.device))
    shape = tuple(idx.shape)
    if src is not None:
        vals = c.along(c.on(src, target.device))
        vstrides = vals.stride()
    else:
        vals, vstrides = c.scalar(value, target.dtype, target.device), [0] * len(shape)
    offs = c.offsets([(idx, target.shape[dim], target.stride(dim))], shape, target.device)
    dst_strides = _zero_dim(target.stride(), dim)
    nd = len(shape)
    if reduce is None:
        c.write("scatter", None, target, dst_strides, vals, vstrides, shape, 0, nd, offs)
        return self
    op = _REDUCE_OPS[reduce]
    sfx = c.accumulate_suffix("scatter", target.dtype, op)
    if not include_self:
        ident = c.scalar(_identity(reduce, target.dtype), target.dtype, target.device)
        c.write("scatter", None, target, dst_strides, ident, [0] * nd, shape, 0, nd, offs)
    if op == "mul" and sfx == "c128":
        _multiply_lines(target, dst_strides, vals, vstrides, shape, dim, offs)
    else:
        c.write("scatter", op, target, dst_strides, vals, vstrides, shape, 0, nd, offs)
    if reduce == "mean":
        count = c.zeros(tuple(target.shape), _dt.int64, target.device)
        coffs = c.offsets([(idx, target.shape[dim], count.stride(dim))], shape, target.device)
        one = c.scalar(1, _dt.int64, target.device)
        c.write("scatter", "add", count, _zero_dim(count.stride(), dim), one, [0] * nd, shape,
                0, nd, coffs)
        full = tuple(target.shape)
        n = count.numel()
        geo = c._k.geometry(full, target.stride(), count.stride())
        c.launch(target.device, f"cg_mean_finish_{sfx}", n,
                 (n, geo, target.data_ptr(), count.data_ptr(), int(bool(include_self))))
    return self


# ---------------------------------------------------------------- masks, nonzero

def masked_select(input, mask, shape):
    """The elements of ``input`` where ``mask`` is True, both broadcast to ``shape``
    (a compaction in row-major order).

    Examples
    --------
    >>> callable(masked_select)
    True
    """
    shape = tuple(shape)
    m = c.on(mask, input.device)
    x = _C._detach(input)
    return c.compact(m, shape, _expanded_strides(m, shape) if shape else (), c.KIND_INT,
                     values=x, values_strides=_expanded_strides(x, shape) if shape else ())


def nonzero(input, as_tuple=False):
    """Positions of the non-zero elements: an ``(n, ndim)`` int64 tensor, or one 1-D
    int64 tensor per dim (a 0-dim input counts as 1-D) when ``as_tuple`` (columns of
    the same result, copied to contiguous tensors).

    Examples
    --------
    >>> callable(nonzero)
    True
    """
    x = _C._detach(input)
    if as_tuple and x.dim() == 0:
        x = x.reshape(1)
    coords = c.compact(x, tuple(x.shape), x.stride(), c.nz_kind(x.dtype))
    if as_tuple:
        # (contiguous columns: later copies of them need no strided int64 copy)
        return tuple(c.contiguous(coords.select(1, k)) for k in range(coords.shape[1]))
    return coords


# ---------------------------------------------------------------- joining

def cat_small(tensors, dim):
    """None: CUDA has no small-input path; the caller allocates and uses ``cat``.

    Examples
    --------
    >>> cat_small([], 0) is None
    True
    """
    return None


def cat(out, tensors, dim):
    """Write ``tensors`` (all of ``out``'s dtype) one after the other along ``dim``
    into ``out``: one strided copy kernel per input, into its slice of ``out``.

    Examples
    --------
    >>> callable(cat)
    True
    """
    _same_device(out, *tensors)
    offset = 0
    for t in tensors:
        n = t.shape[dim]
        if n and t.numel():
            c.copy(out.narrow(dim, offset, n), _C._detach(t))
        offset += n
    return out


# ---------------------------------------------------------------- index builders

def _current():
    from .. import current_device
    from ..tensors import _device
    return _device(current_device())


def repeat_index(counts):
    """``0..n-1`` with ``i`` repeated ``counts[i]`` times (a 1-D int64 tensor of
    non-negative counts): block sums, their scan (the total read back to size the
    result), then each block writes its runs in order.

    Examples
    --------
    >>> callable(repeat_index)
    True
    """
    device = counts.device if counts.device.type == "cuda" else _current()
    cnt = c.contiguous(c.on(counts, device).reshape(-1))
    n = cnt.numel()
    if n == 0:
        return c.empty((0,), _dt.int64, device)
    nb, chunk = c.chunked(n)
    sums = c.empty((nb + 1,), _dt.int64, device)
    block = (c._k.BLOCK, 1, 1)
    c.launch(device, "cg_repeat_sums", n, (n, cnt.data_ptr(), chunk, sums.data_ptr()),
             grid=(nb, 1, 1), block=block)
    c.launch(device, "cg_scan_blocks", 1, (nb, sums.data_ptr()), grid=(1, 1, 1), block=(32, 1, 1))
    total = c.read_ints(sums[nb:])[0]
    out = c.empty((total,), _dt.int64, device)
    if total:
        c.launch(device, "cg_repeat_write", n, (n, cnt.data_ptr(), chunk, sums.data_ptr(),
                                                out.data_ptr()), grid=(nb, 1, 1), block=block)
    return out


_PAD_MODES = {"reflect": 0, "replicate": 1, "circular": 2}


def pad_source(mode, size, before, after):
    """For each position along a dim of ``size`` padded by ``before``/``after`` in
    ``mode``, the input position it copies (an int64 tensor on the current CUDA
    device; negative amounts crop, as the CPU kernel).

    Examples
    --------
    >>> callable(pad_source)
    True
    """
    if mode == "reflect":
        n = size + before + after
    else:
        start, stop = max(-before, 0), size - max(-after, 0)
        n = stop - start + max(before, 0) + max(after, 0)
    device = _current()
    out = c.empty((max(n, 0),), _dt.int64, device)
    c.launch(device, "cg_pad_source", n, (n, _PAD_MODES[mode], size, before, after,
                                          out.data_ptr()))
    return out


# ---------------------------------------------------------------- search, membership

def _common(a, b):
    dt = _C.result_type(a, b)
    return (a if a.dtype is dt else a.to(dt)), (b if b.dtype is dt else b.to(dt))


def searchsorted(sorted_seq, values, right, sorter, out_int32):
    """Insertion points of ``values`` in each row of ``sorted_seq`` (1-D: one row for
    every value), by a binary search per value.

    Examples
    --------
    >>> callable(searchsorted)
    True
    """
    device = sorted_seq.device
    s, v = _common(_C._detach(sorted_seq), c.on(values, device))
    if sorter is not None:
        s = take_along_dim(s, c.on(sorter, device), s.dim() - 1)
    s, v = c.contiguous(s), c.contiguous(v)
    sfx = c.typed_suffix("searchsorted", s.dtype)
    out = c.empty(tuple(v.shape), _dt.int32 if out_int32 else _dt.int64, device)
    n = out.numel()
    inner = v.shape[-1] if v.dim() else 1
    per_row = int(s.dim() > 1)
    ptrs = (0, out.data_ptr()) if out_int32 else (out.data_ptr(), 0)
    c.launch(device, f"cg_searchsorted_{sfx}", n,
             (n, inner, s.shape[-1], per_row, s.data_ptr(), v.data_ptr(), int(bool(right)))
             + ptrs)
    return out


def isin(elements, test_elements, invert):
    """Whether each element of ``elements`` equals one of ``test_elements`` (a bool
    tensor of ``elements``' shape; ``invert`` negates): each block compares its
    elements with the test elements staged through shared memory.

    Examples
    --------
    >>> callable(isin)
    True
    """
    device = elements.device if elements.device.type == "cuda" else test_elements.device
    e, t = _common(c.on(elements, device), c.on(test_elements, device))
    e, t = c.contiguous(e), c.contiguous(t.reshape(-1))
    sfx = c.typed_suffix("isin", e.dtype)
    out = c.empty(tuple(e.shape), _dt.bool_, device)
    n = out.numel()
    c.launch(device, f"cg_isin_{sfx}", n, (n, e.data_ptr(), t.numel(), t.data_ptr(),
                                           int(bool(invert)), out.data_ptr()))
    return out


def register():
    """Register the family's 'cuda' kernels.

    Examples
    --------
    >>> callable(register)
    True
    """
    table = globals()
    for name in PRIMITIVES:
        dispatch.register(name, "cuda")(table[name])
