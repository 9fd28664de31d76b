"""CUDA tensors: storage on the device, copies between host and device, and the
'cuda' entries of the kernel table (``cygrad/_core/dispatch.py``).

:func:`install` connects this module to the tensor core once (the hooks
``_set_cuda_empty_hook``, ``_set_device_copy_hook`` and ``_set_device_op_hook``);
``cygrad.cuda._lazy_init`` calls it the first time a CUDA tensor is asked for.

- A CUDA tensor's storage holds one block of the caching device allocator
  (:mod:`cygrad.cuda.allocator`), given back when the storage dies. Its data
  pointer is the driver's opaque device pointer: CPU kernels never read it
  (``.numpy()`` raises ``TypeError``; the core's elementwise dispatcher and
  fills send CUDA tensors to the hooks :func:`install` sets).
- Copies: host to device and back through the driver's ``memcpy_htod`` /
  ``memcpy_dtoh``; between CUDA tensors of one device, of any dtypes, with the
  cast kernels of :mod:`cygrad.cuda.ops.elementwise`. A copy between two
  devices passes through host memory.
- Elementwise ops and fills go to :mod:`cygrad.cuda.ops.elementwise`
  (the core's hook calls its ``device_op``). Kernels here (float32 and float64):
  relu's backward (``threshold_backward``), ``reduce_sum`` (all dims or some;
  integer, bool, half and complex dtypes by :mod:`cygrad.cuda.ops.reduction`) and
  ``matmul_into`` (2-D and batched; also float16 and bfloat16, summed in float,
  and complex64/complex128). Any op without a CUDA kernel raises
  ``NotImplementedError`` naming the primitive and the device.

Examples
--------
>>> from cygrad.cuda import tensors
>>> "matmul_into" in tensors.PRIMITIVES
True
"""
import atexit
import math
import threading

import numpy as np

from .._device import device as Device
from .._core import alloc_fast as _alloc_fast
from .._core import dispatch
from .._core import storage as _storage
from .._core import tensor as _C
from . import _runtime
from . import kernels as _k
from .streams import _current_stream

#: every primitive this module registers for 'cuda'
PRIMITIVES = ("threshold_backward", "reduce_sum", "matmul_into")

_devices = {}            # index -> the one Device object of cuda:index (the core compares by identity)
_installed = False


def _device(index):
    dev = _devices.get(index)
    if dev is None:
        dev = _devices[index] = Device("cuda", index)
    return dev


# Owner of a CUDA storage's block: gives it back to the allocator with the storage
# (compiled, as it runs on every op: cygrad/_core/alloc_fast.pyx).
_Allocation = _alloc_fast.DeviceAllocation


_exiting = False


@atexit.register
def _at_exit():
    global _exiting
    _exiting = True
    _alloc_fast.interpreter_exiting()


_checked = {}           # Device -> its index, checked against _checked_for[0]'s device count
_checked_for = [None]
_last_checked = [None, None, None, None]    # (device, driver, index, Device) of the last call
_drv = _runtime._drv
_allocators, _runtime_state = _runtime._allocators, _runtime._state     # (cleared, never replaced)
_device_storage = _storage._device_storage


def _empty_storage(nbytes, device):
    # every case of the core's empty hook but the common one, which is compiled
    # (alloc_fast.empty_storage: the device and driver of the last call, as the first
    # branch below, that driver's allocator, the stream of a thread already running
    # it); this function fills _last_checked for it
    drv = _drv._driver
    last = _last_checked
    if device is last[0] and drv is last[1] and drv is not None:
        # the common case: the device of the last allocation (no Device.__hash__)
        idx, dev = last[2], last[3]
    else:
        idx = _checked.get(device) if drv is not None and drv is _checked_for[0] else None
        if idx is None:
            from . import _lazy_init
            _lazy_init()          # (the driver may have changed since the hook was installed)
            idx = _runtime.checked_index(device)
            if device.index is not None:        # plain "cuda" follows the current device
                if _checked_for[0] is not _drv._driver:
                    _checked.clear()
                    _checked_for[0] = _drv._driver
                _checked[device] = idx
            dev = _device(idx)
        else:
            dev = _device(idx)
            last[:] = (device, drv, idx, dev)
    # the device's allocator while it belongs to the driver now (_runtime.allocator's
    # test, inline: this runs for every op), else made by _runtime.allocator
    alloc = _allocators.get(idx)
    if alloc is None or _runtime_state["driver"] is not _drv._driver:
        alloc = _runtime.allocator(idx)
    if type(nbytes) is not int:
        nbytes = int(nbytes)
    block = alloc.malloc(nbytes if nbytes > 1 else 1, _current_stream(idx))
    return _device_storage(block.ptr, nbytes, _Allocation(block), dev)


_alloc_fast.bind_empty(_last_checked, _allocators, _runtime_state, _empty_storage)


# ---------------------------------------------------------------- copies

def _is_cuda(t):
    return t.device.type == "cuda"


def _same_device(*tensors):
    first = None
    for t in tensors:       # (the core's Device objects: usually one object, compared by identity)
        if isinstance(t, _C.TensorBase):
            d = t.device
            if first is None:
                first = d
            elif d is not first:
                break
    else:
        return
    devs = {t.device for t in tensors if isinstance(t, _C.TensorBase)}
    if len(devs) > 1:
        a, b = sorted(str(d) for d in devs)[-2:]
        a, b = (a, b) if a.startswith("cuda") else (b, a)
        raise RuntimeError("Expected all tensors to be on the same device, but found at least two "
                           f"devices, {a} and {b}!")


def _expanded_strides(t, shape):
    """t's strides read as ``shape`` (broadcast dims get stride 0)."""
    lead = len(shape) - t.dim()
    out = [0] * lead
    for size, full, st in zip(t.shape, shape[lead:], t.stride()):
        out.append(0 if size == 1 and full != 1 else st)
    return out


def _broadcast(s1, s2):
    n = max(len(s1), len(s2))
    s1, s2 = (1,) * (n - len(s1)) + s1, (1,) * (n - len(s2)) + s2
    return tuple(max(x, y) if min(x, y) != 0 else 0 for x, y in zip(s1, s2))


_host_copy = threading.local()      # inside _host_array's contiguous() on this thread


def _host_array(t):
    """A contiguous host copy of a CUDA tensor, as NumPy."""
    if not t.is_contiguous():
        if getattr(_host_copy, "busy", False):
            # contiguous() came back here through the copy hook: no kernel copies this dtype
            raise NotImplementedError(f"no 'cuda' kernel for primitive 'copy' of {t.dtype} "
                                      "(devices that have one: cpu)")
        _host_copy.busy = True
        try:
            t = t.contiguous()    
        finally:
            _host_copy.busy = False
    arr = np.empty(tuple(t.shape), dtype=t.dtype.np_dtype)
    if arr.nbytes:
        with _runtime.on_device(t.device.index) as d:
            d.memcpy_dtoh(arr, t.data_ptr())
    return arr


def _upload(dst, arr):
    """dst[...] = arr (a host array of dst's shape and dtype)."""
    arr = np.ascontiguousarray(arr)
    if dst.is_contiguous():
        with _runtime.on_device(dst.device.index) as d:
            d.memcpy_htod(dst.data_ptr(), arr)
        return
    tmp = _C._empty(tuple(dst.shape), dst.dtype, dst.device)
    _upload(tmp, arr)
    _strided_copy(dst, tmp)


def _strided_copy(dst, src):
    """dst[...] = src on one device, src broadcast to dst's shape (and cast to its dtype)."""
    from .ops.elementwise import cast_into
    cast_into(dst, src)


def _copy(dst, src):
    """The core's copy hook: ``dst[...] = src`` where either is a CUDA tensor."""
    shape = tuple(dst.shape)
    if not _is_cuda(src):                                   # host -> device
        host = np.broadcast_to(_C._ndarray(src), shape).astype(dst.dtype.np_dtype, copy=False)
        _upload(dst, host)
    elif not _is_cuda(dst):                                 # device -> host
        if _k._later:
            _k.run_checks()     # (device checks read back where the host waits anyway)
        if (src.dtype is dst.dtype and src.shape == dst.shape and src.is_contiguous()
                and dst.is_contiguous()):
            # the common read (.item(), .cpu(), a flag): straight into dst's memory
            if dst.numel():
                with _runtime.on_device(src.device.index) as d:
                    d.memcpy_dtoh(_C._ndarray(dst), src.data_ptr())
            return
        host = _host_array(src)
        np.copyto(_C._ndarray(dst), np.broadcast_to(host, shape), casting="unsafe")
    elif src.device == dst.device:
        _strided_copy(dst, src)
    else:                                                   # cross-device: via the host
        host = np.broadcast_to(_host_array(src), shape).astype(dst.dtype.np_dtype)
        _upload(dst, host)


# ---------------------------------------------------------------- elementwise

def _suffix_or_raise(primitive, dtype):
    sfx = _k.suffix(dtype.name)
    if sfx is None:
        raise NotImplementedError(f"no 'cuda' kernel for primitive '{primitive}' for dtype "
                                  f"{dtype} (CUDA kernels cover float32 and float64)")
    return sfx


def threshold_backward(grad, y, threshold):
    """``grad`` where ``y > threshold``, else 0 (relu's backward), in a new tensor.

    Examples
    --------
    >>> from cygrad._core import dispatch
    >>> from cygrad.cuda import tensors
    >>> tensors.install()
    >>> dispatch.kernel("threshold_backward", "cuda") is tensors.threshold_backward
    True
    """
    sfx = _suffix_or_raise("threshold_backward", grad.dtype)
    shape = _broadcast(tuple(grad.shape), tuple(y.shape))
    out = _C._empty(shape, grad.dtype, grad.device)
    n = out.numel()
    if n:
        geo = _k.geometry(shape, out.stride(), _expanded_strides(grad, shape), _expanded_strides(y, shape))
        _k.launch(out.device.index, "elementwise.cu", f"cg_threshold_backward_{sfx}_strided",
                  _k.grid_1d(n), (_k.BLOCK, 1, 1),
                  (n, geo, out.data_ptr(), grad.data_ptr(), y.data_ptr(), float(threshold)))
    return out


# ---------------------------------------------------------------- reductions

_sum_plans = {}         # (shape, strides, axes, keepdim) -> (dense, rows, cols, out shape, grid)
_MAX_SUM_PLANS = 4096


def _sum_plan(x, axes, keepdim):
    """How ``reduce_sum`` runs over ``x``'s shape and strides: ``dense`` when the
    reduced dims moved last leave ``x`` contiguous (one row sum over its memory)."""
    key = (x.shape, x.stride(), axes, keepdim)
    plan = _sum_plans.get(key)
    if plan is None:
        nd = x.dim()
        red = tuple(range(nd)) if axes is None else tuple(a % nd if nd else a for a in axes)
        kept = [d for d in range(nd) if d not in red]
        shape = tuple(x.shape)
        rows = math.prod(shape[d] for d in kept)
        out_shape = tuple(1 if d in red else shape[d] for d in range(nd)) if keepdim \
            else tuple(shape[d] for d in kept)
        dense = (x.permute(*kept, *red) if nd else x).is_contiguous()
        if len(_sum_plans) >= _MAX_SUM_PLANS:
            _sum_plans.clear()
        plan = _sum_plans[key] = (dense, rows, math.prod(shape[d] for d in red), out_shape,
                                  (min(rows, _k.MAX_BLOCKS), 1, 1))
    return plan


_reduction = None       # cygrad.cuda.ops.reduction, once reduce_sum first needs it


def reduce_sum(x, axes, keepdim, dt):
    """Sum over ``axes`` (None: all) into dtype ``dt``: where moving the reduced
    dims last leaves the input contiguous, ``reduce.cu``'s row sum runs once over
    its memory; otherwise ``reduction.cu``'s fold reads it through its strides.

    Examples
    --------
    >>> from cygrad._core import dispatch
    >>> from cygrad.cuda import tensors
    >>> tensors.install()
    >>> dispatch.kernel("reduce_sum", "cuda") is tensors.reduce_sum
    True
    """
    sfx = _k.suffix(dt.name)
    if sfx is None or _k.suffix(x.dtype.name) is None:
        from .ops.reduction import sum_other_dtypes     # integer, bool, half and complex sums
        return sum_other_dtypes(x, axes, keepdim, dt)
    if x.dtype is not dt:
        x = x.to(dt)
    if axes is not None and type(axes) is not tuple:
        axes = tuple(axes)
    dense, rows, cols, out_shape, grid = _sum_plan(x, axes, keepdim)
    if not dense:
        # reduction.cu's fold reads the input through its strides: no copy first
        # (the module kept after its first import: this runs for every bias and
        # convolution weight gradient)
        global _reduction
        if _reduction is None:
            from .ops import reduction as _reduction
        return _reduction.fold_sum(x, axes, keepdim)
    # made in its final shape (not a view of a flat result): the engine keeps a
    # leaf's gradient made here as its .grad without copying it
    out = _C._empty(out_shape, dt, x.device)
    if rows:
        # (the permuted view is x's memory from its first element)
        _k.launch(x.device.index, "reduce.cu", f"cg_sum_rows_{sfx}", grid, (_k.BLOCK, 1, 1),
                  (rows, cols, out.data_ptr(), x.data_ptr()))
    return out


# ---------------------------------------------------------------- products

def matmul_into(a, b, result):
    """``result[...] = a @ b`` with NumPy's matmul rules (float16, bfloat16, float32,
    float64, complex64, complex128): one launch of the tiled kernel; transposed and
    broadcast operands are read through their strides.

    Examples
    --------
    >>> from cygrad._core import dispatch
    >>> from cygrad.cuda import tensors
    >>> tensors.install()
    >>> dispatch.kernel("matmul_into", "cuda") is tensors.matmul_into
    True
    """
    _same_device(a, b, result)
    sfx = _k.product_suffix("matmul_into", result.dtype)
    if a.dtype is not result.dtype or b.dtype is not result.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {a.dtype} != {b.dtype}")
    if a.dim() == 2 and result.dim() == b.dim():
        # the common cases (Linear layers forward and back): no views, batch steps 0
        if b.dim() == 2:
            _matmul_launch(a, b, result, 1, result.shape[0], result.shape[1], a.shape[1],
                           (0, *a.stride()), (0, *b.stride()), (0, *result.stride()), sfx)
            return result
        if b.dim() == 1:        # matrix @ vector: the vector as one column
            _matmul_launch(a, b, result, 1, result.shape[0], 1, a.shape[1], (0, *a.stride()),
                           (0, b.stride(0), 0), (0, result.stride(0), 0), sfx)
            return result
    res = result
    if a.dim() == 1 and b.dim() == 1:       # a dot product: (1, k) @ (k, 1) into a 1x1 view
        a, b, res = a.unsqueeze(0), b.unsqueeze(-1), res.view(1, 1)
    if a.dim() == 1:
        a = a.unsqueeze(0)
        res = res.unsqueeze(-2)
    if b.dim() == 1:
        b = b.unsqueeze(-1)
        res = res.unsqueeze(-1)
    m, k = a.shape[-2], a.shape[-1]
    n = b.shape[-1]
    batch_shape = tuple(res.shape[:-2])
    if len(batch_shape) > 1:
        steps = _batch_steps(batch_shape, a, b, res)
        if steps is not None:
            # the batch dims walk each operand with one step (size-1 dims, broadcast
            # dims, dense batches): one launch reads them in place, no copies
            _matmul_launch(a, b, res, math.prod(batch_shape), m, n, k,
                           (steps[0], *a.stride()[-2:]), (steps[1], *b.stride()[-2:]),
                           (steps[2], *res.stride()[-2:]), sfx)
            return result
        # else fold the batch dims into one: operands expanded and made contiguous
        bsz = math.prod(batch_shape)
        a = a.expand(*batch_shape, m, k).contiguous().reshape(bsz, m, k)
        b = b.expand(*batch_shape, k, n).contiguous().reshape(bsz, k, n)
        target = res if res.is_contiguous() else _C._empty(tuple(res.shape), res.dtype, res.device)
        _matmul3(a, b, target.view(bsz, m, n), sfx)
        if target is not res:
            res.copy_(target)
        return result
    if not batch_shape:
        a, b, res = a.unsqueeze(0), b.unsqueeze(0), res.unsqueeze(0)
    else:
        a = a.expand(*batch_shape, m, k)
        b = b.expand(*batch_shape, k, n)
    _matmul3(a, b, res, sfx)
    return result


def _batch_steps(batch_shape, *operands):
    """Each operand's one step over ``batch_shape`` read row-major (the operand
    broadcast to it), or None where some operand's batch dims need more than one."""
    steps = []
    nb = len(batch_shape)
    for t in operands:
        lead = nb - (t.dim() - 2)
        strides = t.stride()
        step = None
        for i, size in enumerate(batch_shape):
            if size == 1:
                continue
            j = i - lead
            st = strides[j] if j >= 0 and t.shape[j] != 1 else 0
            if step is not None and step != st * size:
                return None
            step = st
        steps.append(0 if step is None else step)
    return steps


def _matmul3(a, b, c, sfx):
    batch, m, n = c.shape
    _matmul_launch(a, b, c, batch, m, n, a.shape[-1], a.stride(), b.stride(), c.stride(), sfx)


def _matmul_launch(a, b, c, batch, m, n, k, a_steps, b_steps, c_steps, sfx):
    """One launch of matmul.cu's blocked kernel: ``c = a @ b`` over ``batch`` products
    of (m, k) @ (k, n), each operand read through its (batch, row, col) steps."""
    strides = _k.mm_strides(a_steps, b_steps, c_steps)
    grid = (-(-n // _k.MM_BLOCK_TILE), -(-m // _k.MM_BLOCK_TILE), max(1, min(batch, 65535)))
    _k.launch(c.device.index, "matmul.cu", f"cg_matmul_{sfx}", grid, (_k.TILE, _k.TILE, 1),
              (batch, m, n, k, c.data_ptr(), a.data_ptr(), b.data_ptr(), strides))


# ---------------------------------------------------------------- exchange and streams

def record_stream(t, stream):
    """``Tensor.record_stream``: ``t``'s memory is not reused after it is freed until
    the work queued on ``stream`` now has completed.

    Examples
    --------
    >>> from cygrad.cuda import tensors
    >>> callable(tensors.record_stream)
    True
    """
    from .streams import Stream
    if not _is_cuda(t):
        raise RuntimeError(f"record_stream: expected a CUDA tensor, got a tensor on {t.device}")
    if not isinstance(stream, Stream):
        raise TypeError(f"record_stream(): argument 'stream' must be a cygrad.cuda.Stream, "
                        f"not {type(stream).__name__}")
    storage = t.untyped_storage()
    if storage.nbytes == 0:
        return
    alloc = _runtime.allocator(t.device.index)
    alloc.record_stream(alloc.block_of(storage.data_ptr()), stream)


def cuda_array_interface(t):
    """The ``__cuda_array_interface__`` (version 3) of a CUDA tensor, for zero-copy
    exchange with CuPy, Numba and PyTorch.

    Examples
    --------
    >>> from cygrad.cuda import tensors
    >>> callable(tensors.cuda_array_interface)
    True
    """
    if not _is_cuda(t):
        raise AttributeError(f"Can't get __cuda_array_interface__ on a tensor on {t.device}. "
                             "If CUDA data is required use tensor.cuda() to copy it to device memory.")
    if t.requires_grad:
        raise RuntimeError("Can't get __cuda_array_interface__ on a tensor that requires grad. "
                           "If gradients aren't required, use tensor.detach().")
    if _runtime.driver().name != "pycuda":
        # (an AttributeError, so hasattr() tells consumers there is nothing to import)
        raise AttributeError("__cuda_array_interface__: this tensor is on cygrad's emulated GPU, "
                             "whose memory is host memory behind opaque pointers, not CUDA memory")
    from .streams import _current_stream
    size = t.dtype.itemsize
    handle = _current_stream(t.device.index).handle
    return {
        "typestr": t.dtype.np_dtype.str,
        "shape": tuple(t.shape),
        "strides": None if t.is_contiguous() else tuple(st * size for st in t.stride()),
        "data": (t.data_ptr() if t.numel() else 0, False),
        "version": 3,
        # the legacy default stream is 1 in the protocol; None would mean "no sync needed"
        "stream": 1 if handle is None else int(getattr(handle, "handle", handle)),
    }


class _Imported:
    """Owner of device memory imported through DLPack: keeps the producer's capsule
    owner alive and the range registered with the driver while the storage lives."""
    __slots__ = ("ptr", "owner", "driver")

    def __init__(self, ptr, owner, driver):
        self.ptr, self.owner, self.driver = ptr, owner, driver

    def __del__(self):
        if not _exiting:
            self.driver.unregister_external(self.ptr)


def dlpack_import_check(device_id):
    """Raise BufferError unless a DLPack capsule of CUDA device ``device_id`` can
    become a cygrad CUDA tensor (called before the capsule is consumed).

    Examples
    --------
    >>> from cygrad.cuda import tensors
    >>> callable(tensors.dlpack_import_check)
    True
    """
    from . import _lazy_init
    try:
        _lazy_init()
        _runtime.checked_index(int(device_id))
    except RuntimeError as e:
        raise BufferError(f"cygrad.from_dlpack: the capsule's memory is on CUDA device {device_id}, "
                          f"which cygrad cannot use: {e}") from None


def dlpack_import_storage(device_id, ptr, nbytes, owner):
    """A CUDA storage over ``nbytes`` of device memory at ``ptr`` that a DLPack
    producer owns (``owner`` keeps it alive).

    Examples
    --------
    >>> from cygrad.cuda import tensors
    >>> callable(tensors.dlpack_import_storage)
    True
    """
    from ._driver.base import DriverError
    idx = int(device_id)
    with _runtime.on_device(idx) as d:
        try:
            d.register_external(ptr, nbytes)
        except DriverError as e:
            raise BufferError(f"cygrad.from_dlpack: {e}") from None
    return _storage._device_storage(ptr, nbytes, _Imported(ptr, owner, d), _device(idx))


def dlpack_export_check(t, dl_device):
    """Raise BufferError when ``t`` (a CUDA tensor) cannot be exported as CUDA memory:
    the emulated GPU's pointers are not CUDA memory, so only a host copy can leave it.

    Examples
    --------
    >>> from cygrad.cuda import tensors
    >>> callable(tensors.dlpack_export_check)
    True
    """
    if _runtime.driver().name != "pycuda" and (dl_device is None or tuple(dl_device)[0] != 1):
        raise BufferError("cygrad: this tensor is on the emulated GPU, whose memory is host memory "
                          "behind opaque pointers, not CUDA memory; pass dl_device=(1, 0) "
                          "(kDLCPU) for a host copy, or use tensor.cpu()")


def zero_copy_cuda_import():
    """True when a CUDA DLPack producer's memory can be imported without a copy (a real
    GPU through PyCUDA); otherwise ``from_dlpack`` asks the producer for a host copy.

    Examples
    --------
    >>> from cygrad.cuda import tensors
    >>> tensors.zero_copy_cuda_import() in (True, False)
    True
    """
    from .. import cuda
    try:
        return cuda.is_available() and _runtime.driver().name == "pycuda"
    except RuntimeError:
        return False


# ---------------------------------------------------------------- the table

def _register():
    dispatch.register("threshold_backward", "cuda")(threshold_backward)
    dispatch.register("reduce_sum", "cuda")(reduce_sum)
    dispatch.register("matmul_into", "cuda")(matmul_into)
    from . import ops
    ops.register_all()


def install():
    """Connect CUDA tensors to the core and register the 'cuda' kernels (once).

    Examples
    --------
    >>> from cygrad.cuda import tensors
    >>> callable(tensors.install)
    True
    """
    global _installed
    if _installed:
        return
    _register()
    _C._set_cuda_empty_hook(_alloc_fast.empty_storage)
    _C._set_device_copy_hook(_copy)
    from .ops.elementwise import device_op
    _C._set_device_op_hook(device_op)       # (straight to it: this runs on every op)
    _installed = True
