"""The 'cuda' kernels of the sorting family (``cuda_src/sort.cu``): ``sort``,
``topk``, ``kthvalue``, ``mode``, ``unique``, ``unique_consecutive``.

Each has the signature and return convention of the CPU kernel of the same name
(``cygrad/_core/backend_cpu/reduction.py``, ``tensorops.py``). The dim being
sorted is moved last and the tensor gathered into a dense ``rows x n`` matrix;
``cg_sort_chunks`` sorts chunks of up to 2,048 elements of every row in shared
memory (bitonic, on (value, index) pairs, so the order is stable), and
``cg_merge_pass`` merges runs for longer rows. The others work on sorted rows.
Values and indices equal the CPU kernels' (NaN sorts as the largest value).

Examples
--------
>>> from cygrad.cuda.ops import sort
>>> "topk" in sort.PRIMITIVES
True
"""
import math

from ..._core import dispatch
from ..._core import dtype as _dt
from ..._core import tensor as _C
from .. import kernels as _k

PRIMITIVES = ("sort", "topk", "kthvalue", "mode", "unique", "unique_consecutive",
              "histogramdd")

_FILE = "sort.cu"
_SORT_SUFFIX = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
                "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8",
                "bool": "u8"}
#: elements of a row one block sorts in shared memory (sort.cu's CG_CHUNK)
CHUNK = 2048
_SORT_THREADS = 512
_MAX_GRID_Y = 65535


def sort_suffix(primitive, dtype):
    """sort.cu's suffix for ``dtype``, or ``NotImplementedError`` naming the primitive.

    Examples
    --------
    >>> from cygrad.cuda.ops.sort import sort_suffix
    >>> import cygrad
    >>> sort_suffix("sort", cygrad.int32)
    'i32'
    """
    sfx = _SORT_SUFFIX.get(dtype.name)
    if sfx is None:
        raise NotImplementedError(f"no 'cuda' kernel for primitive '{primitive}' for dtype "
                                  f"{dtype} on device cuda")
    return sfx


def _launch(t, name, grid, block, args):
    _k.launch(t.device.index, _FILE, name, grid, block, args)


def _grid(n):
    return _k.grid_1d(n), (_k.BLOCK, 1, 1)


def _empty(shape, dtype, like):
    return _C._empty(tuple(shape), dtype, like.device)


def dense(t):
    """``t`` as a contiguous tensor on its device (any dtype): itself when it is
    already, else a copy made by ``cg_gather_b<itemsize>``.

    Examples
    --------
    >>> from cygrad.cuda.ops.sort import dense
    >>> callable(dense)
    True
    """
    if t.is_contiguous():
        return t
    out = _empty(t.shape, t.dtype, t)
    n = t.numel()
    if n:
        geo = _k.geometry(tuple(t.shape), (), t.stride())
        _launch(t, f"cg_gather_b{t.dtype.itemsize}", *_grid(n),
                (n, geo, out.data_ptr(), t.data_ptr()))
    return out


def _rows_last(x, d):
    """x with dim d moved last, dense, as ``(rows, n)``; and the permuted shape."""
    if x.dim() == 0:
        x = x.reshape(1)
        d = 0
    perm = [i for i in range(x.dim()) if i != d] + [d]
    xp = x.permute(*perm)
    n = x.shape[d]
    rows = math.prod(x.shape) // n if n else math.prod(x.shape[i] for i in perm[:-1])
    return dense(xp).reshape(rows, n), tuple(xp.shape), perm


def _back(t, pshape, perm, shape):
    """A dense tensor of the permuted shape ``pshape`` put back in ``shape``'s order."""
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return dense(t.reshape(pshape).permute(*inv)).reshape(shape)


def sort_rows(x2, descending):
    """Stable sort of each row of the dense ``(rows, n)`` tensor ``x2``: ``(values,
    indices)``, both ``(rows, n)``, indices int64 positions in the row.

    Examples
    --------
    >>> from cygrad.cuda.ops.sort import sort_rows
    >>> callable(sort_rows)
    True
    """
    rows, n = x2.shape
    sfx = sort_suffix("sort", x2.dtype)
    vals = _empty((rows, n), x2.dtype, x2)
    idx = _empty((rows, n), _dt.int64, x2)
    if not rows or not n:
        return vals, idx
    chunks = -(-n // CHUNK)
    desc = 1 if descending else 0
    # one thread per compared pair of the padded chunk (a warp at least)
    threads = min(_SORT_THREADS, max(32, (1 << (min(n, CHUNK) - 1).bit_length()) // 2))
    for row0 in range(0, rows, _MAX_GRID_Y):
        grid = (chunks, min(_MAX_GRID_Y, rows - row0), 1)
        _launch(x2, f"cg_sort_chunks_{sfx}", grid, (threads, 1, 1),
                (rows, n, row0, x2.data_ptr(), vals.data_ptr(), idx.data_ptr(), desc))
    w = CHUNK
    if w < n:
        other_v, other_i = _empty((rows, n), x2.dtype, x2), _empty((rows, n), _dt.int64, x2)
        while w < n:
            _launch(x2, f"cg_merge_pass_{sfx}", *_grid(rows * n),
                    (rows, n, w, vals.data_ptr(), idx.data_ptr(), other_v.data_ptr(),
                     other_i.data_ptr(), desc))
            vals, other_v, idx, other_i = other_v, vals, other_i, idx
            w *= 2
    return vals, idx


def sort(x, d, descending, values=True):
    """Stable sort along ``d``: ``(values, indices)``, or the indices alone when not
    ``values`` (the CPU kernel's convention).

    Examples
    --------
    >>> from cygrad._core import dispatch
    >>> from cygrad.cuda import tensors
    >>> tensors.install()
    >>> dispatch.kernel("sort", "cuda") is sort
    True
    """
    sort_suffix("sort", x.dtype)
    shape = tuple(x.shape)
    x2, pshape, perm = _rows_last(x, d if x.dim() else 0)
    vals, idx = sort_rows(x2, descending)
    indices = _back(idx, pshape, perm, shape)
    if not values:
        return indices
    return _back(vals, pshape, perm, shape), indices


def topk(x, k, d, largest):
    """The first ``k`` along ``d`` of a stable sort (descending when ``largest``).

    Examples
    --------
    >>> from cygrad._core import dispatch
    >>> from cygrad.cuda import tensors
    >>> tensors.install()
    >>> dispatch.kernel("topk", "cuda") is topk
    True
    """
    sort_suffix("topk", x.dtype)
    x2, pshape, perm = _rows_last(x, d if x.dim() else 0)
    vals, idx = sort_rows(x2, largest)
    kshape = pshape[:-1] + (k,)
    out_shape = list(x.shape) if x.dim() else [1]
    out_shape[d if x.dim() else 0] = k
    v = _back(dense(vals[:, :k]), kshape, perm, tuple(out_shape))
    i = _back(dense(idx[:, :k]), kshape, perm, tuple(out_shape))
    if x.dim() == 0:
        v, i = v.reshape(()), i.reshape(())
    return v, i


def _reduced_shape(x, d, keepdim):
    if x.dim() == 0:
        return ()
    shape = list(x.shape)
    if keepdim:
        shape[d] = 1
    else:
        del shape[d]
    return tuple(shape)


def kthvalue(x, d, keepdim, k):
    """``(values, indices)`` of the ``k``-th smallest (0-based) along ``d``; with ``k``
    None the lower median (a row holding NaN answers with its first NaN).

    Examples
    --------
    >>> from cygrad._core import dispatch
    >>> from cygrad.cuda import tensors
    >>> tensors.install()
    >>> dispatch.kernel("kthvalue", "cuda") is kthvalue
    True
    """
    sfx = sort_suffix("kthvalue", x.dtype)
    dd = d if x.dim() else 0
    n = x.shape[dd] if x.dim() else 1
    if n == 0:                  # only median() of an empty tensor gets here: NaN
        out = _empty((), x.dtype, x)
        dispatch.kernel("fill", "cuda")(out, math.nan)
        return out, None
    x2, _, _ = _rows_last(x, dd)
    vals, idx = sort_rows(x2, False)
    rows = x2.shape[0]
    ov, oi = _empty((rows,), x.dtype, x), _empty((rows,), _dt.int64, x)
    _launch(x, f"cg_kth_{sfx}", *_grid(rows),
            (rows, n, -1 if k is None else int(k), vals.data_ptr(), idx.data_ptr(),
             ov.data_ptr(), oi.data_ptr()))
    shape = _reduced_shape(x, dd, keepdim)
    return ov.reshape(shape), oi.reshape(shape)


def mode(x, d, keepdim):
    """Most frequent value along ``d`` (the smallest of equally frequent ones) and the
    index of its last occurrence.

    Examples
    --------
    >>> from cygrad._core import dispatch
    >>> from cygrad.cuda import tensors
    >>> tensors.install()
    >>> dispatch.kernel("mode", "cuda") is mode
    True
    """
    sfx = sort_suffix("mode", x.dtype)
    dd = d if x.dim() else 0
    x2, _, _ = _rows_last(x, dd)
    rows, n = x2.shape
    ov, oi = _empty((rows,), x.dtype, x), _empty((rows,), _dt.int64, x)
    if rows and n:
        vals, idx = sort_rows(x2, False)
        _launch(x, f"cg_mode_{sfx}", *_grid(rows),
                (rows, n, vals.data_ptr(), idx.data_ptr(), ov.data_ptr(), oi.data_ptr()))
    shape = _reduced_shape(x, dd, keepdim)
    return ov.reshape(shape), oi.reshape(shape)


def _read_scalar(t):
    """One int64 element of a CUDA tensor, read back (a count that decides a shape)."""
    return int(t.cpu().item())


def _groups(flags, idx, like):
    """From group-start flags (int64, n): the number of groups, ``starts``, ``counts``
    and ``inverse`` (``inverse[idx[i]]``: the group of element i; idx None: i)."""
    n = flags.shape[0]
    scanned = _empty((n,), _dt.int64, like)
    _k.launch(like.device.index, _FILE, "cg_scan_i64", (1, 1, 1), (1024, 1, 1),
              (n, _copy_i64(flags, scanned)))
    groups = _read_scalar(scanned[n - 1])
    starts = _empty((groups,), _dt.int64, like)
    inverse = _empty((n,), _dt.int64, like)
    _launch(like, "cg_group_scatter", *_grid(n),
            (n, scanned.data_ptr(), flags.data_ptr(), 0 if idx is None else idx.data_ptr(),
             starts.data_ptr(), inverse.data_ptr()))
    counts = _empty((groups,), _dt.int64, like)
    _launch(like, "cg_group_counts", *_grid(groups),
            (groups, n, starts.data_ptr(), counts.data_ptr()))
    return groups, starts, counts, inverse


def _copy_i64(src, dst):
    """dst[...] = src for two dense int64 tensors of one size; returns dst's pointer."""
    n = src.numel()
    geo = _k.geometry((n,), (), (1,))
    _launch(src, "cg_gather_b8", *_grid(n), (n, geo, dst.data_ptr(), src.data_ptr()))
    return dst.data_ptr()


def _take_rows(src2, starts, groups):
    """Rows ``starts`` of the dense ``(rows, len)`` tensor ``src2``."""
    length = src2.shape[1]
    out = _empty((groups, length), src2.dtype, src2)
    if groups and length:
        _launch(src2, f"cg_take_rows_b{src2.dtype.itemsize}", *_grid(groups * length),
                (groups, length, starts.data_ptr(), src2.data_ptr(), out.data_ptr()))
    return out


def _empty_result(x, d, inverse_shape):
    shape = (0,) if d is None else tuple(x.shape)
    return (_empty(shape, x.dtype, x), _empty(inverse_shape, _dt.int64, x),
            _empty((0,), _dt.int64, x))


def unique(x, d):
    """``(values, inverse, counts)``: the distinct elements (or slices along ``d``) in
    ascending order, NaNs all distinct; ``inverse`` has ``x``'s shape (or
    ``(size,)`` along ``d``).

    Examples
    --------
    >>> from cygrad._core import dispatch
    >>> from cygrad.cuda import tensors
    >>> tensors.install()
    >>> dispatch.kernel("unique", "cuda") is unique
    True
    """
    sfx = sort_suffix("unique", x.dtype)
    if d is not None:
        return _unique_slices(x, d, sfx)
    n = x.numel()
    if n == 0:
        return _empty_result(x, None, tuple(x.shape))
    vals, idx = sort_rows(dense(x).reshape(1, n), False)
    vals, idx = vals.reshape(n), idx.reshape(n)
    flags = _empty((n,), _dt.int64, x)
    _launch(x, f"cg_group_starts_{sfx}", *_grid(n), (n, vals.data_ptr(), flags.data_ptr()))
    groups, starts, counts, inverse = _groups(flags, idx, x)
    values = _take_rows(vals.reshape(n, 1), starts, groups).reshape(groups)
    return values, inverse.reshape(tuple(x.shape)), counts


def _unique_slices(x, d, sfx):
    """unique along ``d``: the slices sorted lexicographically by stable sorts of one
    column at a time, last column first (a least-significant-digit radix sort of
    the rows of the ``(size, rest)`` matrix), then grouped as rows."""
    m = x.shape[d]
    perm_dims = [d] + [i for i in range(x.dim()) if i != d]
    rest = tuple(x.shape[i] for i in perm_dims[1:])
    length = math.prod(rest)
    if m == 0 or length == 0:
        raise NotImplementedError("no 'cuda' kernel for primitive 'unique' with dim= over "
                                  "empty slices")
    rows2 = dense(x.permute(*perm_dims)).reshape(m, length)
    order = _empty((m,), _dt.int64, x)
    _launch(x, "cg_iota_i64", *_grid(m), (m, order.data_ptr()))
    for j in range(length - 1, -1, -1):
        column = dense(rows2[:, j]).reshape(m, 1)
        keys = _take_rows(column, order, m).reshape(1, m)
        _, idx = sort_rows(keys, False)
        order = _take_rows(order.reshape(m, 1), idx.reshape(m), m).reshape(m)
    return _group_slices(x, d, sfx, _take_rows(rows2, order, m), perm_dims, order)


def _group_slices(x, d, sfx, rows2, perm_dims, order):
    """Groups of equal neighbouring rows of ``rows2`` (``x``'s slices along ``d``,
    permuted by ``perm_dims``, in the row order ``order``; None: as they are):
    ``(values, inverse, counts)`` with the values back in ``x``'s dim order."""
    m, length = rows2.shape
    flags = _empty((m,), _dt.int64, x)
    _launch(x, f"cg_slice_starts_{sfx}", *_grid(m),
            (m, length, rows2.data_ptr(), flags.data_ptr()))
    groups, starts, counts, inverse = _groups(flags, order, x)
    rest = tuple(x.shape[i] for i in perm_dims[1:])
    values = _back(_take_rows(rows2, starts, groups), (groups,) + rest, perm_dims,
                   tuple(groups if i == d else sz for i, sz in enumerate(x.shape)))
    return values, inverse, counts


def unique_consecutive(x, d):
    """Runs of equal values (elements, or slices along ``d``): the first of each run,
    the run index of every element/slice, and the run lengths.

    Examples
    --------
    >>> from cygrad._core import dispatch
    >>> from cygrad.cuda import tensors
    >>> tensors.install()
    >>> dispatch.kernel("unique_consecutive", "cuda") is unique_consecutive
    True
    """
    sfx = sort_suffix("unique_consecutive", x.dtype)
    if d is None:
        n = x.numel()
        if n == 0:
            return _empty_result(x, None, (0,))
        flat = dense(x).reshape(n)
        flags = _empty((n,), _dt.int64, x)
        _launch(x, f"cg_group_starts_{sfx}", *_grid(n), (n, flat.data_ptr(), flags.data_ptr()))
        groups, starts, counts, inverse = _groups(flags, None, x)
        return _take_rows(flat.reshape(n, 1), starts, groups).reshape(groups), inverse, counts
    m = x.shape[d]
    perm = [d] + [i for i in range(x.dim()) if i != d]
    moved = x.permute(*perm)
    length = math.prod(moved.shape[1:])
    if m == 0:
        return _empty(tuple(x.shape), x.dtype, x), _empty((0,), _dt.int64, x), \
            _empty((0,), _dt.int64, x)
    return _group_slices(x, d, sfx, dense(moved).reshape(m, length), perm, None)


_HIST_SUFFIX = {"float32": "f32", "float64": "f64"}


def _copy_into(dst, src):
    """dst[...] = src: dst a dense view, src any strides, one dtype."""
    n = src.numel()
    if n:
        geo = _k.geometry(tuple(src.shape), (), src.stride())
        _launch(src, f"cg_gather_b{src.dtype.itemsize}", *_grid(n),
                (n, geo, dst.data_ptr(), src.data_ptr()))


def histogramdd(x, edges, weights, density):
    """Counts (or weight sums) of the rows of ``x`` ``(N, D)`` in the bins of the given
    edges (one increasing 1-D tensor per dim): one thread per sample finds its bin
    by binary search and adds to it atomically; ``density`` divides by the bin
    volumes and the total.

    Examples
    --------
    >>> from cygrad._core import dispatch
    >>> from cygrad.cuda import tensors
    >>> tensors.install()
    >>> dispatch.kernel("histogramdd", "cuda") is histogramdd
    True
    """
    sfx = _HIST_SUFFIX.get(x.dtype.name)
    if sfx is None:
        raise NotImplementedError(f"no 'cuda' kernel for primitive 'histogramdd' for dtype "
                                  f"{x.dtype} on device cuda (float32 and float64)")
    n, dims = x.shape
    sizes = [e.numel() for e in edges]
    starts = [0]
    for m in sizes:
        starts.append(starts[-1] + m)
    bins = [max(m - 1, 0) for m in sizes]
    strides = [math.prod(bins[d + 1:]) for d in range(dims)]
    all_edges = _empty((max(starts[-1], 1),), x.dtype, x)
    for d, e in enumerate(edges):
        _copy_into(all_edges[starts[d]:starts[d + 1]], e if e.dtype is x.dtype else e.to(x.dtype))
    # shape metadata (offsets and strides of the bins), not data: uploaded from the host
    from ...ops.creation import tensor
    meta = tensor(starts + strides, dtype=_dt.int64, device=x.device)
    total_bins = math.prod(bins)
    hist = _empty((total_bins + 1,), _dt.float64, x)       # the last element: the total
    dispatch.kernel("fill", "cuda")(hist, 0.0)
    out = _empty(tuple(bins), x.dtype, x)
    xd = dense(x)
    w = None
    if weights is not None:
        w = dense(weights if weights.dtype is x.dtype else weights.to(x.dtype))
    total_ptr = hist[total_bins:].data_ptr()
    edge_ptr, stride_ptr = meta.data_ptr(), meta[dims + 1:].data_ptr()
    if n and total_bins:
        _launch(x, f"cg_histdd_{sfx}", *_grid(n),
                (n, dims, xd.data_ptr(), all_edges.data_ptr(), edge_ptr, stride_ptr,
                 0 if w is None else w.data_ptr(), hist.data_ptr(), total_ptr))
    if total_bins:
        _launch(x, f"cg_hist_finish_{sfx}", *_grid(total_bins),
                (total_bins, dims, hist.data_ptr(), out.data_ptr(), all_edges.data_ptr(),
                 edge_ptr, stride_ptr, total_ptr, 1 if density else 0))
    return out


def register():
    """Register this family's 'cuda' kernels.

    Examples
    --------
    >>> from cygrad.cuda.ops import sort as family
    >>> family.register()
    """
    for name in PRIMITIVES:
        dispatch.register(name, "cuda")(globals()[name])

