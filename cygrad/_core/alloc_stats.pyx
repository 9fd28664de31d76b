"""The caching device allocator's statistics counters (``cygrad/cuda/allocator.py``).

Every device allocation and free updates several statistics, each in its pool
and in ``all``: their current value, peak, total increase and total decrease.
Done in Python that was a third of a small CUDA op's host time, so the counters
are plain C integers here and one call applies all of an allocator step's changes.

Examples
--------
>>> from cygrad._core.alloc_stats import AllocStats
>>> s = AllocStats(2)
>>> s.update(True, (0, 5), (1, 512))
>>> s.update(True, (0, -2))
>>> s.fields()[0][:3], s.fields()[1][:3], s.fields()[3][:3]
([3, 3, 0], [5, 5, 0], [2, 2, 0])
"""
from libc.string cimport memcpy, memset


cdef class AllocStats:
    """``n`` statistics, each for the pools ``all`` (0), small (1) and large (2):
    entry ``3 * stat + pool`` of the fields ``current``, ``peak``, ``allocated``
    (total increase) and ``freed`` (total decrease).

    Examples
    --------
    >>> from cygrad._core.alloc_stats import AllocStats
    >>> s = AllocStats(1)
    >>> s.update(False, (0, 7))
    >>> s.current(0), s.fields()[0]
    (7, [7, 0, 7])
    """
    # (the fields are declared in alloc_stats.pxd)

    def __cinit__(self, int n):
        if not 0 < n <= MAX_STATS:
            raise ValueError(f"AllocStats: 1 to {MAX_STATS} statistics, got {n}")
        self.n = n
        memset(self.cur, 0, sizeof(self.cur))
        memset(self.peak, 0, sizeof(self.peak))
        memset(self.inc, 0, sizeof(self.inc))
        memset(self.dec, 0, sizeof(self.dec))

    def update(self, bint small, *changes):
        """Apply ``(stat, delta)`` changes, in order, to the pool ``small`` chooses
        (small or large) and to ``all``."""
        cdef int pool = 1 if small else 2
        cdef int stat
        cdef long long delta
        for change in changes:
            stat, delta = change
            if not 0 <= stat < self.n:
                raise IndexError(f"AllocStats: no statistic {stat}")
            self.add(pool, stat, delta)

    cdef void add(self, int pool, int stat, long long delta) noexcept:
        # one change of statistic ``stat`` (checked by the caller) in ``pool`` and "all"
        cdef int a = 3 * stat
        cdef int b = a + pool
        self.cur[a] += delta
        self.cur[b] += delta
        if delta > 0:
            self.inc[a] += delta
            self.inc[b] += delta
            if self.cur[a] > self.peak[a]:
                self.peak[a] = self.cur[a]
            if self.cur[b] > self.peak[b]:
                self.peak[b] = self.cur[b]
        else:
            self.dec[a] -= delta
            self.dec[b] -= delta

    def current(self, int index):
        """The current value of entry ``index`` (``3 * stat + pool``)."""
        if not 0 <= index < 3 * self.n:
            raise IndexError(f"AllocStats: no entry {index}")
        return self.cur[index]

    def fields(self):
        """``[current, peak, allocated, freed]``, each a list of ``3 * n`` ints."""
        cdef int m = 3 * self.n
        return [[self.cur[i] for i in range(m)], [self.peak[i] for i in range(m)],
                [self.inc[i] for i in range(m)], [self.dec[i] for i in range(m)]]

    def reset_peak(self):
        """Set every peak to its current value."""
        memcpy(self.peak, self.cur, sizeof(self.cur))

    def reset_accumulated(self):
        """Zero every total increase and decrease."""
        memset(self.inc, 0, sizeof(self.inc))
        memset(self.dec, 0, sizeof(self.dec))
