# cython: freethreading_compatible = False
"""DLPack: hand tensors to other libraries (NumPy, PyTorch, JAX...) and take theirs,
without copying.

DLPack is a small C ABI. A producer fills a ``DLTensor`` (data pointer, device, dtype,
shape, strides), wraps it in a ``DLManagedTensor`` that also carries a ``deleter``, and
passes it around inside a Python capsule named ``"dltensor"`` (or, from DLPack 1.0 on,
a ``DLManagedTensorVersioned`` in a ``"dltensor_versioned"`` capsule). The consumer
renames the capsule ``"used_dltensor"`` to say "this one is mine now", reads the
memory in place, and calls ``deleter`` once it no longer needs it.

Here both directions keep memory alive through cygrad's Storage:

* export (``Tensor.__dlpack__``): the managed tensor holds a reference to the tensor's
  Storage; its deleter drops that reference.
* import (``cygrad.from_dlpack``): the new tensor's Storage owns a small
  ``_DLPackOwner`` whose ``__dealloc__`` calls the producer's deleter, so the
  producer's memory is released exactly when the last cygrad view of it dies.

The structs below are written from the DLPack specification (dlpack.h, v1.0).
"""
from cpython.pycapsule cimport (PyCapsule_New, PyCapsule_IsValid, PyCapsule_GetPointer,
                                PyCapsule_SetName, PyCapsule_GetName, PyCapsule_CheckExact)
from cpython.ref cimport PyObject, Py_INCREF, Py_XDECREF
from libc.stdlib cimport malloc, free
from libc.string cimport strcmp
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, uintptr_t

import enum
import warnings

from .dtype cimport (dtype as DType, DT_BOOL, DT_UINT8, DT_INT8, DT_INT16, DT_INT32,
                     DT_INT64, DT_FLOAT16, DT_BFLOAT16, DT_FLOAT32, DT_FLOAT64,
                     dtype_from_code)
from .storage cimport Storage, wrap_foreign
from .tensor cimport TensorBase, MAX_DIMS, set_ndim
from .._device import CPU
from .._tensor import Tensor


# ------------------------------------------------------------------ the DLPack C ABI

cdef enum:
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3

cdef enum:
    kDLInt = 0
    kDLUInt = 1
    kDLFloat = 2
    kDLBfloat = 4
    kDLComplex = 5
    kDLBool = 6

cdef enum:
    DLPACK_MAJOR = 1
    DLPACK_MINOR = 0

cdef uint64_t FLAG_READ_ONLY = 1
cdef uint64_t FLAG_IS_COPIED = 2

ctypedef struct DLDevice:
    int32_t device_type     # a C enum in dlpack.h: int-sized
    int32_t device_id

ctypedef struct DLDataType:
    uint8_t code
    uint8_t bits
    uint16_t lanes

ctypedef struct DLTensor:
    void* data
    DLDevice device
    int32_t ndim
    DLDataType dtype
    int64_t* shape
    int64_t* strides        # in elements; NULL means C-contiguous
    uint64_t byte_offset

cdef struct DLManagedTensor:
    DLTensor dl_tensor
    void* manager_ctx
    void (*deleter)(DLManagedTensor*) noexcept nogil

ctypedef struct DLPackVersion:
    uint32_t major
    uint32_t minor

cdef struct DLManagedTensorVersioned:
    DLPackVersion version
    void* manager_ctx
    void (*deleter)(DLManagedTensorVersioned*) noexcept nogil
    uint64_t flags
    DLTensor dl_tensor


class DLDeviceType(enum.IntEnum):
    """DLPack device codes (the ones cygrad can meet)."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3


# cygrad dtype code (DT_BOOL=0 ... DT_COMPLEX128=11, see dtype.pxd) -> DLPack (type code,
# bits); a complex's bits count both parts (complex64: 64)
cdef uint8_t[12] _DL_CODE = [kDLBool, kDLUInt, kDLInt, kDLInt, kDLInt, kDLInt,
                             kDLFloat, kDLBfloat, kDLFloat, kDLFloat, kDLComplex, kDLComplex]
cdef uint8_t[12] _DL_BITS = [8, 8, 8, 16, 32, 64, 16, 16, 32, 64, 64, 128]


def _check_dtype_table():
    # Fails loudly at import if dtype.pxd's code order ever changes under this table.
    cdef int code
    for code in range(12):
        d = dtype_from_code(code)
        expected = {"bool": kDLBool, "uint8": kDLUInt, "bfloat16": kDLBfloat}.get(
            d.name, kDLFloat if d.is_floating_point else kDLComplex if d.is_complex else kDLInt)
        if _DL_BITS[code] != 8 * d.itemsize or _DL_CODE[code] != expected:
            raise ImportError(f"cygrad.dlpack: dtype table out of date for {d}")


_check_dtype_table()


cdef int _dtype_code_from_dl(DLDataType t):
    """The cygrad dtype code for a DLPack dtype, or -1 when cygrad has no such dtype."""
    cdef int i
    if t.lanes != 1:
        return -1
    for i in range(12):
        if _DL_CODE[i] == t.code and _DL_BITS[i] == t.bits:
            return i
    return -1


# ------------------------------------------------------------------------------ export

cdef void _release_ctx(void* ctx) noexcept nogil:
    # A consumer may call the deleter from any thread, without the GIL.
    with gil:
        Py_XDECREF(<PyObject*>ctx)


cdef void _delete_legacy(DLManagedTensor* self) noexcept nogil:
    if self != NULL:
        _release_ctx(self.manager_ctx)
        free(self)


cdef void _delete_versioned(DLManagedTensorVersioned* self) noexcept nogil:
    if self != NULL:
        _release_ctx(self.manager_ctx)
        free(self)


cdef void _capsule_destructor(object capsule) noexcept:
    # Runs when the capsule dies. A consumer that took the tensor renamed the capsule
    # ("used_dltensor") and owns the deleter call; an unused capsule still owns it.
    cdef DLManagedTensor* mt
    cdef DLManagedTensorVersioned* mtv
    if PyCapsule_IsValid(capsule, b"dltensor"):
        mt = <DLManagedTensor*>PyCapsule_GetPointer(capsule, b"dltensor")
        if mt.deleter != NULL:
            mt.deleter(mt)
    elif PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        mtv = <DLManagedTensorVersioned*>PyCapsule_GetPointer(capsule, b"dltensor_versioned")
        if mtv.deleter != NULL:
            mtv.deleter(mtv)


cdef tuple _device_tuple(object device):
    if device.type == "cpu":
        return (DLDeviceType.kDLCPU, 0)
    if device.type == "cuda":
        return (DLDeviceType.kDLCUDA, device.index or 0)
    raise BufferError(f"cygrad: DLPack has no device type for {device}")


def _dlpack_device(self):
    """``(device_type, device_id)`` of the tensor's memory, as DLPack codes.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2).__dlpack_device__()
    (<DLDeviceType.kDLCPU: 1>, 0)
    """
    return _device_tuple((<TensorBase?>self)._storage.device)


cdef void _fill_dltensor(DLTensor* dl, TensorBase t, int64_t* shape, int64_t* strides,
                         tuple dev):
    cdef int i
    cdef Py_ssize_t expected = 1
    dl.data = <void*>t.ptr()
    dl.device.device_type = dev[0]
    dl.device.device_id = dev[1]
    dl.ndim = t._ndim
    dl.dtype.code = _DL_CODE[t._dtype.code]
    dl.dtype.bits = _DL_BITS[t._dtype.code]
    dl.dtype.lanes = 1
    dl.byte_offset = 0
    dl.shape = shape
    dl.strides = strides
    for i in range(t._ndim - 1, -1, -1):
        shape[i] = t._shape[i]
        # Strides of size-0/1 dims (and of empty tensors) never address memory; some
        # consumers still check them, so give the harmless contiguous value.
        if t._shape[i] > 1 and t._numel > 0:
            strides[i] = t._strides[i]
        else:
            strides[i] = expected
        expected *= t._shape[i] if t._shape[i] > 0 else 1


cdef bint _has_negative_stride(TensorBase t):
    cdef int i
    if t._numel == 0:
        return False
    for i in range(t._ndim):
        if t._shape[i] > 1 and t._strides[i] < 0:
            return True
    return False


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """Export the tensor as a DLPack capsule (zero-copy), as ``torch.Tensor.__dlpack__``.

    Consumers call this; users call ``np.from_dlpack(t)`` / ``torch.from_dlpack(t)``.

    Parameters
    ----------
    stream : None
        Must be None (or -1) for CPU tensors.
    max_version : tuple of int, optional
        Newest DLPack version the consumer understands; ``(1, 0)`` or newer gets a
        versioned ``"dltensor_versioned"`` capsule, otherwise a ``"dltensor"`` one.
    dl_device : tuple, optional
        Device the consumer wants; only the tensor's own device is supported (or the
        CPU, for a device tensor when copying is allowed).
    copy : bool, optional
        True exports a copy; False forbids copying; None shares memory (and copies
        only to bring a device tensor to ``dl_device=(kDLCPU, 0)``).

    Raises
    ------
    BufferError
        The tensor requires grad, has negative strides (which several consumers,
        PyTorch included, cannot take: export ``t.contiguous()`` or pass
        ``copy=True``), or cannot go to ``dl_device``.

    Examples
    --------
    >>> import numpy as np, cygrad
    >>> t = cygrad.arange(3.0)
    >>> a = np.from_dlpack(t)
    >>> a[0] = 5
    >>> t.tolist()
    [5.0, 1.0, 2.0]
    """
    cdef TensorBase t = <TensorBase?>self
    cdef bint versioned, copied = False
    cdef DLManagedTensor* mt = NULL
    cdef DLManagedTensorVersioned* mtv = NULL
    cdef int64_t* dims
    cdef size_t head
    cdef char* block
    if t._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    dev = _device_tuple(t._storage.device)
    if dev[0] == DLDeviceType.kDLCPU and stream is not None and stream != -1:
        raise AssertionError("stream should be None on cpu.")
    if dev[0] == DLDeviceType.kDLCUDA:
        _cuda_tensors().dlpack_export_check(t, dl_device)
        if stream is not None and stream != -1:
            # the consumer reads on its stream: what cygrad queued must be done first
            from .. import cuda
            cuda.synchronize(t._storage.device)
    if dl_device is not None and tuple(dl_device) != dev:
        if tuple(dl_device) != (kDLCPU, 0) or copy is False:
            raise BufferError(f"cygrad: can't export a tensor on {t._storage.device} to "
                              f"DLPack device {tuple(dl_device)}"
                              + (" without a copy" if copy is False else ""))
        t = <TensorBase>self.cpu()
        dev = _device_tuple(t._storage.device)
        copied = True
    if _has_negative_stride(t):
        if not copy:
            raise BufferError(
                f"cygrad: can't export a tensor with negative strides {self.stride()} "
                "through DLPack without a copy: consumers such as PyTorch cannot take "
                "them. Export t.contiguous() instead, or pass copy=True.")
    if copy and not copied:
        t = <TensorBase>t.clone()
        copied = True
    versioned = max_version is not None and tuple(max_version)[0] >= 1

    # One block: the managed struct, then shape[ndim], then strides[ndim].
    head = sizeof(DLManagedTensorVersioned) if versioned else sizeof(DLManagedTensor)
    head = (head + 7) // 8 * 8
    block = <char*>malloc(head + 2 * t._ndim * sizeof(int64_t) + 1)
    if block == NULL:
        raise MemoryError("cygrad: out of memory building a DLPack capsule")
    dims = <int64_t*>(block + head)
    Py_INCREF(t._storage)    # released by the deleter
    if versioned:
        mtv = <DLManagedTensorVersioned*>block
        mtv.version.major = DLPACK_MAJOR
        mtv.version.minor = DLPACK_MINOR
        mtv.manager_ctx = <void*>t._storage
        mtv.deleter = _delete_versioned
        mtv.flags = FLAG_IS_COPIED if copied else 0
        _fill_dltensor(&mtv.dl_tensor, t, dims, dims + t._ndim, dev)
        try:
            return PyCapsule_New(<void*>mtv, b"dltensor_versioned", _capsule_destructor)
        except BaseException:
            _delete_versioned(mtv)
            raise
    mt = <DLManagedTensor*>block
    mt.manager_ctx = <void*>t._storage
    mt.deleter = _delete_legacy
    _fill_dltensor(&mt.dl_tensor, t, dims, dims + t._ndim, dev)
    try:
        return PyCapsule_New(<void*>mt, b"dltensor", _capsule_destructor)
    except BaseException:
        _delete_legacy(mt)
        raise


# ------------------------------------------------------------------------------ import

cdef class _DLPackOwner:
    """Owns a consumed DLPack tensor: freeing this object calls the producer's deleter.

    A cygrad Storage built over foreign memory keeps one of these as its owner.
    """
    cdef DLManagedTensor* legacy
    cdef DLManagedTensorVersioned* versioned

    def __dealloc__(self):
        if self.legacy != NULL and self.legacy.deleter != NULL:
            self.legacy.deleter(self.legacy)
        if self.versioned != NULL and self.versioned.deleter != NULL:
            self.versioned.deleter(self.versioned)
        self.legacy = NULL
        self.versioned = NULL


cdef void _check_dltensor(DLTensor* dl) except *:
    """Refuse what cygrad can't represent, before the capsule is marked as taken."""
    cdef int i
    if _dtype_code_from_dl(dl.dtype) < 0:
        raise BufferError(f"cygrad.from_dlpack: unsupported DLPack dtype (code={dl.dtype.code}, "
                          f"bits={dl.dtype.bits}, lanes={dl.dtype.lanes})")
    if dl.device.device_type == kDLCUDA:
        # CUDA memory becomes a CUDA tensor when cygrad has a driver that can address it
        _cuda_tensors().dlpack_import_check(dl.device.device_id)
    elif dl.device.device_type != kDLCPU and dl.device.device_type != kDLCUDAHost:
        raise BufferError(f"cygrad.from_dlpack: unsupported DLPack device type "
                          f"{dl.device.device_type}; only CPU and CUDA memory can be imported")
    if dl.ndim < 0 or dl.ndim > MAX_DIMS:
        raise RuntimeError(f"cygrad supports at most {MAX_DIMS} dimensions, got {dl.ndim}")
    for i in range(dl.ndim):
        if dl.shape[i] < 0:
            raise BufferError(f"cygrad.from_dlpack: negative dimension {dl.shape[i]}")


cdef object _tensor_from_dltensor(DLTensor* dl, _DLPackOwner owner, bint read_only):
    cdef int ndim = dl.ndim, i
    cdef DType dt = dtype_from_code(_dtype_code_from_dl(dl.dtype))
    cdef TensorBase t
    cdef Py_ssize_t lo = 0, hi = 0, expected = 1, numel = 1, isz
    cdef char* data
    isz = dt.itemsize
    t = <TensorBase>Tensor.__new__(Tensor)
    t._dtype = dt
    set_ndim(t, ndim)
    for i in range(ndim - 1, -1, -1):
        t._shape[i] = dl.shape[i]
        t._strides[i] = dl.strides[i] if dl.strides != NULL else expected
        expected *= dl.shape[i]
        numel *= dl.shape[i]
    t._numel = numel
    if numel > 0:
        for i in range(ndim):
            if t._strides[i] < 0:
                lo += t._strides[i] * (t._shape[i] - 1)
            else:
                hi += t._strides[i] * (t._shape[i] - 1)
    t._is_contig = _is_c_contiguous(t)
    if read_only:
        warnings.warn("The given DLPack tensor is read-only, and cygrad does not support "
                      "read-only tensors: writing to the tensor is undefined behaviour. "
                      "Pass copy=True to get a writable copy.", UserWarning, stacklevel=3)
    data = <char*>dl.data + dl.byte_offset
    # The Storage starts at the lowest address any element uses, so negative strides
    # keep a non-negative offset.
    if dl.device.device_type == kDLCUDA:
        t._storage = _cuda_tensors().dlpack_import_storage(
            dl.device.device_id, <uintptr_t>(data + lo * isz), (hi - lo + 1) * isz if numel else 0,
            owner)
    else:
        t._storage = wrap_foreign(data + lo * isz, (hi - lo + 1) * isz if numel else 0, owner, CPU)
    t._offset = -lo
    return t


cdef bint _is_c_contiguous(TensorBase t):
    cdef Py_ssize_t expected = 1
    cdef int i
    for i in range(t._ndim - 1, -1, -1):
        if t._shape[i] == 0:
            return True
        if t._shape[i] != 1:
            if t._strides[i] != expected:
                return False
            expected *= t._shape[i]
    return True


cdef object _from_capsule(object capsule):
    cdef _DLPackOwner owner
    cdef DLManagedTensor* mt
    cdef DLManagedTensorVersioned* mtv
    cdef const char* name = PyCapsule_GetName(capsule)
    owner = _DLPackOwner.__new__(_DLPackOwner)
    if name != NULL and strcmp(name, b"dltensor_versioned") == 0:
        mtv = <DLManagedTensorVersioned*>PyCapsule_GetPointer(capsule, name)
        if mtv.version.major > DLPACK_MAJOR:
            # Not ours to read: leave the capsule unused so its destructor frees it.
            raise BufferError(f"cygrad.from_dlpack: DLPack version {mtv.version.major}."
                              f"{mtv.version.minor} is newer than the supported "
                              f"{DLPACK_MAJOR}.{DLPACK_MINOR}")
        _check_dltensor(&mtv.dl_tensor)
        PyCapsule_SetName(capsule, b"used_dltensor_versioned")
        owner.versioned = mtv
        return _tensor_from_dltensor(&mtv.dl_tensor, owner, (mtv.flags & FLAG_READ_ONLY) != 0)
    if name != NULL and strcmp(name, b"dltensor") == 0:
        mt = <DLManagedTensor*>PyCapsule_GetPointer(capsule, name)
        _check_dltensor(&mt.dl_tensor)
        PyCapsule_SetName(capsule, b"used_dltensor")
        owner.legacy = mt
        return _tensor_from_dltensor(&mt.dl_tensor, owner, False)
    raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor capsules "
                       "can be consumed only once, so you might have already constructed a "
                       "tensor from it once.")


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A cygrad tensor over another library's memory (no copy), as ``torch.from_dlpack``.

    Parameters
    ----------
    ext_tensor : object with ``__dlpack__``, or a DLPack capsule
        A NumPy array, a PyTorch tensor, any array-API array, or a raw
        ``"dltensor"`` capsule (which can be consumed only once).
    device : cygrad.device or str, optional
        Where the result should live; a non-CPU device copies.
    copy : bool, optional
        True always copies; False never does (errors instead); None shares memory.

    Returns
    -------
    Tensor
        Writes through it are visible to the producer and vice versa. The producer's
        memory stays valid until this tensor and all its views are gone. CUDA memory
        becomes a CUDA tensor without a copy on a real GPU (the PyCUDA driver);
        without one (no CUDA, or the emulated GPU) the producer is asked for a host
        copy, and the result is a CPU tensor.

    Examples
    --------
    >>> import numpy as np, cygrad
    >>> a = np.arange(4.0)
    >>> t = cygrad.from_dlpack(a)
    >>> t[1] = 10
    >>> a
    array([ 0., 10.,  2.,  3.])
    """
    cdef bint copied = False
    if isinstance(ext_tensor, TensorBase) and (<TensorBase>ext_tensor)._storage.device.type == "cuda":
        # a cygrad CUDA tensor: the same memory, as DLPack would give it (no autograd link)
        t = (<TensorBase>ext_tensor).detach()
        if copy:
            t = t.clone()
        return t if device is None else t.to(device)
    if PyCapsule_CheckExact(ext_tensor):
        t = _from_capsule(ext_tensor)
    elif hasattr(ext_tensor, "__dlpack__"):
        capsule, copied = _request_capsule(ext_tensor, copy)
        t = _from_capsule(capsule)
    else:
        raise TypeError(f"from_dlpack: expected an object with __dlpack__ or a DLPack capsule, "
                        f"got {type(ext_tensor).__name__}")
    if copy and not copied:
        t = t.clone()
    if device is not None:
        t = t.to(device)
    return t


cdef tuple _request_capsule(object ext, object copy):
    """Ask a producer for a capsule, newest protocol first.

    Returns the capsule and whether the producer already copied as asked.
    """
    kwargs = {"max_version": (DLPACK_MAJOR, DLPACK_MINOR)}
    if copy is not None:
        kwargs["copy"] = copy
    if hasattr(ext, "__dlpack_device__"):
        dev = tuple(ext.__dlpack_device__())
        if dev[0] == kDLCUDA and _cuda_tensors().zero_copy_cuda_import():
            # the legacy default stream: the producer orders its work before it
            kwargs["stream"] = 1
        elif dev[0] not in (kDLCPU, kDLCUDAHost):
            # Memory cygrad cannot address (another device, or CUDA without a real GPU
            # driver): ask for a host copy.
            if copy is False:
                raise BufferError(f"cygrad.from_dlpack: the producer's memory is on DLPack "
                                  f"device {dev}; only CPU memory can be shared without a copy")
            kwargs["dl_device"] = (kDLCPU, 0)
            kwargs["copy"] = True
    try:
        return ext.__dlpack__(**kwargs), bool(kwargs.get("copy"))
    except TypeError:
        # Producers from before DLPack 1.0 take no keyword but ``stream``; we copy
        # ourselves when asked to.
        if "dl_device" in kwargs:
            raise
        return ext.__dlpack__(), False


cdef object _cuda_tensors():
    from ..cuda import tensors
    return tensors


Tensor.__dlpack__ = _dlpack
Tensor.__dlpack_device__ = _dlpack_device
