# Public C-level view of cygrad dtypes (see dtype.pyx).

cdef enum DTypeCode:
    # Order matters: it is the index into the promotion table.
    DT_BOOL = 0
    DT_UINT8 = 1
    DT_INT8 = 2
    DT_INT16 = 3
    DT_INT32 = 4
    DT_INT64 = 5
    DT_FLOAT16 = 6
    DT_BFLOAT16 = 7
    DT_FLOAT32 = 8
    DT_FLOAT64 = 9
    DT_COMPLEX64 = 10
    DT_COMPLEX128 = 11
    DT_COUNT = 12

cdef enum DTypeKind:
    KIND_BOOL = 0
    KIND_INT = 1
    KIND_FLOAT = 2
    KIND_COMPLEX = 3

cdef class dtype:
    cdef readonly str name
    cdef readonly int itemsize
    cdef readonly int code
    # DTypeKind, for the C code's promotion and dispatch checks
    cdef int _category
    # NumPy's one-letter kind ('b', 'u', 'i', 'f', 'c'): array-API consumers such as
    # scikit-learn's check_array read ``x.dtype.kind`` as NumPy defines it
    cdef readonly str kind
    cdef readonly bint is_signed
    cdef readonly object np_dtype

cdef dtype dtype_from_code(int code)
cdef dtype promote(dtype a, dtype b)
cdef dtype default_float()
cdef dtype default_complex()
cdef dtype to_dtype(object obj)
