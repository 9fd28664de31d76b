"""Shared pieces of the indexing family's 'cuda' kernels (``indexing.py``): launching
``cuda_src/indexing.cu``, index tensors turned into element offsets on the device,
the gather/put/scatter launches, scalars moved to and from the device, and stream
compaction (count, scan, compact).

Every kernel here computes on the device. The host reads back only what decides a
shape (how many elements a compaction keeps) or an error (the first bad index).

Examples
--------
>>> from cygrad.cuda.ops import _index_common as c
>>> c.width_suffix(8), c.space((2, 3), 1, (4,))
('b8', (2, 4))
"""
import math

import numpy as np

from ..._core import dtype as _dt
from ..._core import tensor as _C
from ..._core.backend_cpu.indexing import _number
from .. import _runtime
from .. import kernels as _k
from ..tensors import _expanded_strides, _upload

FILE = "indexing.cu"
#: the kinds of cg_nz (cuda_src/indexing.cu): integer/bool, float, complex
KIND_INT, KIND_FLOAT, KIND_COMPLEX = 0, 1, 2
#: the element types with arithmetic kernels (atomics, comparisons); float16 and
#: bfloat16 compute in float, the 8/16-bit integers and bool in int
TYPED = {"float32": "f32", "float64": "f64", "int32": "i32", "int64": "i64",
         "float16": "f16", "bfloat16": "bf16", "int16": "i16", "int8": "i8", "uint8": "u8",
         "bool": "bool"}
#: the complex element types of the accumulating kernels (sums, products, means):
#: complex numbers have no order, so no max/min
COMPLEX = {"complex64": "c64", "complex128": "c128"}
_WIDTHS = (1, 2, 4, 8, 16)


def width_suffix(itemsize):
    """The suffix of the data-movement kernels for elements of ``itemsize`` bytes.

    Examples
    --------
    >>> width_suffix(2)
    'b2'
    """
    if itemsize not in _WIDTHS:
        raise NotImplementedError(f"no 'cuda' indexing kernel for elements of {itemsize} bytes")
    return f"b{itemsize}"


def typed_suffix(primitive, dtype):
    """The suffix of the arithmetic kernels for ``dtype``, else NotImplementedError
    naming the primitive, the dtype and the device.

    Examples
    --------
    >>> import cygrad
    >>> typed_suffix("index_add", cygrad.float32)
    'f32'
    """
    sfx = TYPED.get(dtype.name)
    if sfx is None:
        raise NotImplementedError(f"no 'cuda' kernel for primitive '{primitive}' for dtype "
                                  f"{dtype} (the CUDA kernels cover the real dtypes here)")
    return sfx


def accumulate_suffix(primitive, dtype, op):
    """The suffix of ``cg_scatter_<op>_*`` for ``dtype``: the real dtypes for every
    ``op`` ("add", "mul", "max", "min"), the complex ones for "add" and "mul"; else
    NotImplementedError naming the primitive, the dtype and the device.

    Examples
    --------
    >>> import cygrad
    >>> accumulate_suffix("index_add", cygrad.complex64, "add")
    'c64'
    """
    sfx = COMPLEX.get(dtype.name)
    if sfx is None:
        return typed_suffix(primitive, dtype)
    if op not in ("add", "mul"):
        raise NotImplementedError(f"no 'cuda' kernel for primitive '{primitive}' for dtype "
                                  f"{dtype} with the reduction '{op}' (complex numbers have "
                                  f"no order)")
    return sfx


def index_suffix(primitive, index):
    """``i32`` or ``i64`` for an index tensor's dtype.

    Examples
    --------
    >>> import cygrad
    >>> index_suffix("gather", cygrad.tensor([1]))
    'i64'
    """
    if index.dtype is _dt.int64:
        return "i64"
    if index.dtype is _dt.int32:
        return "i32"
    raise NotImplementedError(f"no 'cuda' kernel for primitive '{primitive}' with an index of "
                              f"dtype {index.dtype}")


def launch(device, name, n, args, grid=None, block=None):
    """Launch kernel ``name`` of ``indexing.cu`` over ``n`` elements (nothing when 0).

    Examples
    --------
    >>> callable(launch)
    True
    """
    if n <= 0:
        return
    _k.launch(device.index, FILE, name, grid or _k.grid_1d(n), block or (_k.BLOCK, 1, 1), args)


def on(t, device):
    """Tensor ``t`` on ``device`` (an index given on the host is copied up, as
    PyTorch accepts CPU indices for CUDA tensors), detached.

    Examples
    --------
    >>> import cygrad
    >>> on(cygrad.tensor([1]), cygrad.device("cpu")).tolist()
    [1]
    """
    if t.device != device:
        t = t.to(device)
    return _C._detach(t)


def along(t):
    """``t`` detached and seen as at least 1-D (gather and scatter treat 0-dim
    tensors as 1-D).

    Examples
    --------
    >>> import cygrad
    >>> tuple(along(cygrad.tensor(3.0)).shape)
    (1,)
    """
    t = _C._detach(t)
    return t.reshape(1) if t.dim() == 0 else t


def empty(shape, dtype, device):
    """A new contiguous tensor.

    Examples
    --------
    >>> import cygrad
    >>> tuple(empty((2,), cygrad.int64, cygrad.device("cpu")).shape)
    (2,)
    """
    return _C._empty(tuple(shape), dtype, device)


def zeros(shape, dtype, device):
    """A new contiguous tensor of zero bytes (zero in every dtype), set by the driver.

    Examples
    --------
    >>> callable(zeros)
    True
    """
    t = empty(shape, dtype, device)
    nbytes = t.numel() * dtype.itemsize
    if nbytes:
        with _runtime.on_device(device.index) as d:
            d.memset_d8(t.data_ptr(), 0, nbytes)
    return t


def scalar(value, dtype, device):
    """A 0-d ``dtype`` tensor on ``device`` holding ``value``: a number (converted as
    the CPU kernels convert it, like a C cast) or a one-element tensor.

    Examples
    --------
    >>> callable(scalar)
    True
    """
    if isinstance(value, _C.TensorBase):
        value = _C._detach(value).reshape(())
        if value.dtype is not dtype:
            value = value.to(dtype)
        return on(value, device)
    t = empty((), dtype, device)
    _upload(t, _number(value, dtype.np_dtype))
    return t


def read_ints(t):
    """The values of a small contiguous int64 CUDA tensor, as a list (a read-back).

    Examples
    --------
    >>> callable(read_ints)
    True
    """
    arr = np.empty(t.numel(), dtype=np.int64)
    if arr.size:
        with _runtime.on_device(t.device.index) as d:
            d.memcpy_dtoh(arr, t.data_ptr())
    return arr.tolist()


def read_element(t, pos, shape, strides):
    """The element at row-major position ``pos`` of ``t`` read as ``shape`` with
    ``strides`` (in elements): one element copied back.

    Examples
    --------
    >>> callable(read_element)
    True
    """
    off = 0
    for size, st in zip(reversed(shape), reversed(strides)):
        off += (pos % size) * st
        pos //= size
    arr = np.empty(1, dtype=t.dtype.np_dtype)
    with _runtime.on_device(t.device.index) as d:
        d.memcpy_dtoh(arr, t.data_ptr() + off * t.dtype.itemsize)
    return arr[0].item()


def space(shape, dim, index_shape):
    """``shape`` with dim ``dim`` replaced by the dims ``index_shape``.

    Examples
    --------
    >>> space((2, 3, 4), 1, (5, 6))
    (2, 5, 6, 4)
    """
    return tuple(shape[:dim]) + tuple(index_shape) + tuple(shape[dim + 1:])


def offsets(parts, bshape, device):
    """Element offsets over ``bshape`` (a new contiguous int64 tensor): the sum over
    ``parts`` of ``wrap(index) * stride``, each part ``(index, size, stride)`` with
    ``index`` broadcast to ``bshape``; CG_BAD where an index is out of range.

    Examples
    --------
    >>> callable(offsets)
    True
    """
    bshape = tuple(bshape)
    out = empty(bshape, _dt.int64, device)
    n = out.numel()
    for k, (index, size, stride) in enumerate(parts):
        index = on(index, device)
        sfx = index_suffix("offsets", index)
        geo = _k.geometry(bshape, (), _expanded_strides(index, bshape)) if bshape else \
            _k.geometry((1,), (), (0,))
        launch(device, f"cg_offsets_{sfx}", n,
               (n, geo, out.data_ptr(), index.data_ptr(), int(size), int(stride), int(k > 0)))
    return out


def flat_offsets(index, target_shape, target_strides, device):
    """Element offsets (over ``index``'s shape) of ``index``'s flat row-major positions
    (negative from the end) in a tensor of ``target_shape`` and ``target_strides``.

    Examples
    --------
    >>> callable(flat_offsets)
    True
    """
    index = on(index, device)
    shape = tuple(index.shape) or (1,)
    out = empty(shape, _dt.int64, device)
    n = out.numel()
    numel = math.prod(target_shape)
    tshape = tuple(target_shape) or (1,)
    tstrides = tuple(target_strides) or (0,)
    gi = _k.geometry(shape, (), tuple(index.stride()) or (0,))
    gt = _k.geometry(tshape, tstrides)
    launch(device, f"cg_flat_offsets_{index_suffix('take', index)}", n,
           (n, gi, gt, numel, out.data_ptr(), index.data_ptr()))
    return out


def contiguous_strides(shape):
    """Row-major strides (in elements) of ``shape``.

    Examples
    --------
    >>> contiguous_strides((2, 3, 4))
    (12, 4, 1)
    """
    strides, step = [], 1
    for size in reversed(tuple(shape)):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def _geometry(shape, first_strides, second_strides):
    if not shape:       # a 0-d space: one element
        return _k.geometry((1,), (0,), (0,))
    return _k.geometry(shape, first_strides, second_strides)


def gather(out, out_strides, src, src_strides, shape, b0=0, b1=0, offs=None):
    """``out[o] = src[a + offs[bi]]`` over ``shape`` (``offs`` read at the row-major
    position over dims ``[b0, b1)``; none when ``b0 == b1``: a strided copy).

    Examples
    --------
    >>> callable(gather)
    True
    """
    n = math.prod(shape)
    geo = _geometry(shape, out_strides, src_strides)
    name = f"cg_gather_{width_suffix(out.dtype.itemsize)}"
    launch(out.device, name, n, (n, geo, int(b0), int(b1), out.data_ptr(), src.data_ptr(),
                                 offs.data_ptr() if offs is not None else 0))


def copy(dst, src):
    """``dst[...] = src`` on one device, any dtype (``src`` broadcast to ``dst``).

    Examples
    --------
    >>> callable(copy)
    True
    """
    shape = tuple(dst.shape)
    gather(dst, dst.stride(), src, _expanded_strides(src, shape), shape)


def contiguous(t):
    """``t`` if contiguous, else a contiguous copy made on the device.

    Examples
    --------
    >>> callable(contiguous)
    True
    """
    if t.is_contiguous():
        return t
    out = empty(tuple(t.shape), t.dtype, t.device)
    copy(out, t)
    return out


def write(primitive, op, dst, dst_strides, vals, vals_strides, shape, b0=0, b1=0, offs=None,
          alpha=1):
    """``dst[o + offs[bi]] op= vals[a]`` over ``shape``: ``op`` None (a plain write,
    any dtype), "add" (times ``alpha``), "mul", "max" or "min" (atomic).

    Examples
    --------
    >>> callable(write)
    True
    """
    n = math.prod(shape)
    geo = _geometry(shape, dst_strides, vals_strides)
    args = (n, geo, int(b0), int(b1), dst.data_ptr(), vals.data_ptr(),
            offs.data_ptr() if offs is not None else 0)
    if op is None:
        launch(dst.device, f"cg_put_{width_suffix(dst.dtype.itemsize)}", n, args)
        return
    sfx = accumulate_suffix(primitive, dst.dtype, op)
    scaled = alpha != 1
    if dst.dtype.is_complex:    # the complex kernels take alpha's two parts
        alpha = complex(alpha)
        launch(dst.device, f"cg_scatter_{op}_{sfx}", n,
               args + (alpha.real, alpha.imag, int(scaled)))
        return
    falpha = float(alpha) if dst.dtype.is_floating_point else 0.0
    ialpha = 0 if dst.dtype.is_floating_point else int(alpha)
    launch(dst.device, f"cg_scatter_{op}_{sfx}", n, args + (falpha, ialpha, int(scaled)))


def nz_kind(dtype):
    """How cg_nz reads an element of ``dtype``.

    Examples
    --------
    >>> import cygrad
    >>> nz_kind(cygrad.float32), nz_kind(cygrad.int8)
    (1, 0)
    """
    if dtype.is_complex:
        return KIND_COMPLEX
    return KIND_FLOAT if dtype.is_floating_point else KIND_INT


def _chunks(n):
    nb = max(1, min(_k.MAX_BLOCKS, -(-n // _k.BLOCK)))
    chunk = -(-n // nb)
    return -(-n // chunk), chunk


def compact(pred, shape, strides, kind, values=None, values_strides=None):
    """Stream compaction over ``shape`` in row-major order, keeping the elements where
    ``pred`` (read through ``strides``) is non-zero: their coordinates, an
    ``(count, ndim)`` int64 tensor, or, with ``values``, those values (1-D).  Counts
    per block, a scan of the counts, then each block writes its part in order; the
    total is read back to size the result.

    Examples
    --------
    >>> callable(compact)
    True
    """
    device = pred.device
    shape = tuple(shape)
    nd = len(shape)
    n = math.prod(shape)
    if n == 0:
        if values is not None:
            return empty((0,), values.dtype, device)
        return empty((0, nd), _dt.int64, device)
    geo_shape = shape or (1,)
    nb, chunk = _chunks(n)
    counts = empty((nb + 1,), _dt.int64, device)
    wp = width_suffix(pred.dtype.itemsize)
    geo = _k.geometry(geo_shape, (), tuple(strides) or (0,),
                      tuple(values_strides) or (0,) if values is not None else ())
    block = (_k.BLOCK, 1, 1)
    launch(device, f"cg_count_{wp}", n, (n, geo, int(kind), pred.data_ptr(), chunk,
                                         counts.data_ptr()), grid=(nb, 1, 1), block=block)
    launch(device, "cg_scan_blocks", 1, (nb, counts.data_ptr()), grid=(1, 1, 1), block=(32, 1, 1))
    total = read_ints(counts[nb:])[0]
    if values is not None:
        out = empty((total,), values.dtype, device)
        if total:
            name = f"cg_compact_values_{width_suffix(values.dtype.itemsize)}"
            launch(device, name, n, (n, geo, pred.data_ptr(), chunk, counts.data_ptr(),
                                     values.data_ptr(), out.data_ptr()),
                   grid=(nb, 1, 1), block=block)
        return out
    out = empty((total, nd), _dt.int64, device)
    if total and nd:
        launch(device, f"cg_compact_coords_{wp}", n, (n, geo, int(kind), pred.data_ptr(), chunk,
                                                       counts.data_ptr(), out.data_ptr()),
               grid=(nb, 1, 1), block=block)
    return out


def chunked(n):
    """``(blocks, chunk)`` of the block-ordered kernels for ``n`` elements.

    Examples
    --------
    >>> chunked(1000)
    (4, 250)
    """
    return _chunks(n)
