# The statistics counters' C layout, so cygrad/_core/alloc_fast.pyx can update them
# without building a Python tuple per change.
cdef enum:
    MAX_STATS = 16


cdef class AllocStats:
    cdef long long cur[3 * MAX_STATS]
    cdef long long peak[3 * MAX_STATS]
    cdef long long inc[3 * MAX_STATS]
    cdef long long dec[3 * MAX_STATS]
    cdef int n

    cdef void add(self, int pool, int stat, long long delta) noexcept
