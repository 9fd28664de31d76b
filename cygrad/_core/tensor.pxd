from .dtype cimport dtype as DType
from .storage cimport Storage

cdef enum:
    MAX_DIMS = 64       # NumPy 2's limit
    INLINE_DIMS = 8     # shape and strides of up to this many dims live in the object

cdef class TensorBase:
    cdef Storage _storage
    cdef DType _dtype
    cdef int _ndim
    cdef bint _requires_grad
    cdef bint _is_contig            # C-contiguous (cached: shapes never change in place)
    cdef Py_ssize_t _numel
    cdef Py_ssize_t _offset         # in elements, into _storage
    # _shape/_strides point into _inline_geom, or, once the tensor has had more than
    # INLINE_DIMS dims, into a heap block of 2 * MAX_DIMS kept until it dies: a
    # fixed 64-dim array in every tensor made objects too big for the small-object
    # allocators, doubling the cost of a small op. Set the dims with set_ndim().
    cdef Py_ssize_t* _shape
    cdef Py_ssize_t* _strides   # in elements; may be 0 or negative
    cdef Py_ssize_t _inline_geom[2 * INLINE_DIMS]
    # autograd state (used by cygrad.autograd; plain fields so the hot path can test them)
    cdef public object _grad
    cdef public object _grad_fn
    cdef public object _base        # the tensor this one is a view of, or None
    cdef public list _backward_hooks
    cdef public int _output_nr
    cdef public bint _retains_grad
    cdef public object _fw_grad     # forward-mode tangent, if any
    cdef public object _grad_acc    # this leaf's AccumulateGrad node (it refers back weakly)
    cdef public Py_ssize_t _view_version   # storage version when a view's grad_fn was set
    cdef public list _post_acc_hooks
    cdef object _shape_obj          # cached cygrad.Size
    cdef object __weakref__

    cdef inline char* ptr(self) noexcept nogil:
        return self._storage.data + self._offset * self._dtype.itemsize

cdef extern from "kernels.h" nogil:
    ctypedef void (*cg_chunk_fn)(void* ctx, int chunk) noexcept nogil
    void cg_parallel_chunks(int nchunks, cg_chunk_fn fn, void* ctx)

# The intra-op thread pool (cpu/parallel.c, linked into this extension), for the
# kernels of other extension modules: one pool per process, one set_num_threads.
cdef void pool_run(int nchunks, cg_chunk_fn fn, void* ctx) noexcept nogil
cdef bint pool_contended() noexcept nogil

ctypedef object (*apply_fn_t)(object cls, tuple args, dict kwargs)
cdef void set_apply_hook(apply_fn_t fn) noexcept

cdef bint grad_enabled() noexcept nogil
cdef void set_grad_enabled(bint mode) noexcept nogil
cdef bint set_fw_enabled(bint mode) noexcept nogil
cdef int set_ndim(TensorBase t, int ndim) except -1
cdef TensorBase new_empty(DType dt, int ndim, const Py_ssize_t* shape, object device)
cdef TensorBase new_view(TensorBase base, int ndim, const Py_ssize_t* shape,
                         const Py_ssize_t* strides, Py_ssize_t offset)
cdef object as_ndarray(TensorBase t)
