cdef class Storage:
    cdef char* data
    cdef Py_ssize_t nbytes
    cdef Py_ssize_t alloc_bytes      # size of the block held from the host allocator (0: foreign memory)
    cdef object owner                # keeps foreign memory alive (an ndarray, a DLPack capsule...)
    cdef public Py_ssize_t version   # shared by every view of this storage
    cdef public object device

cdef Storage new_host_storage(Py_ssize_t nbytes)
cdef Storage wrap_foreign(char* data, Py_ssize_t nbytes, object owner, object device)
