"""CPU step kernels of the recurrent layers (cpu/rnn.c): for one time step of an
LSTM, GRU or Elman RNN, the gate nonlinearities and state update (forward) and
the gradient of the gates' pre-activations (backward), each in one pass.

Every argument is a contiguous float32 or float64 CPU tensor of one dtype, with
``N`` rows (the batch) of ``G * H`` (gates) or ``H`` values; the results are
written into the given output tensors. Each function checks all of that with
the GIL held, and that no output overlaps another argument, raising
``RuntimeError`` (``TypeError`` for another dtype), then runs the loop without
the GIL. An optional input given as ``None`` reads as
zero. They are the CPU entries ``lstm_step``, ``lstm_step_backward``,
``gru_step``, ``gru_step_backward``, ``elman_step`` and ``elman_step_backward``
of the kernel table (``backend_cpu/rnn.py``); ``cygrad/nn/_ops/rnn.py`` uses them.

Examples
--------
>>> import cygrad
>>> from cygrad._core import rnn_kernels as K
>>> h = cygrad.empty(1, 2)
>>> K.elman_step(cygrad.zeros(1, 2), cygrad.tensor([[-1.0, 2.0]]), h, True).tolist()
[[0.0, 2.0]]
"""
from .dtype cimport dtype as DType, DT_FLOAT32, DT_FLOAT64
from .tensor cimport TensorBase

cdef extern from "rnn.h" nogil:
    ctypedef Py_ssize_t cg_index
    void cg_lstm_fwd(int dbl, cg_index n, cg_index hs, const void* gh, const void* gx,
                     const void* cprev, void* a, void* c, void* tc, void* h)
    void cg_lstm_bwd(int dbl, cg_index n, cg_index hs, const void* dhr, const void* gout,
                     void* dc, const void* a, const void* cprev, const void* tc, void* d)
    void cg_gru_fwd(int dbl, cg_index n, cg_index hs, const void* gi, const void* gh,
                    const void* hprev, void* a, void* ghn, void* h)
    void cg_gru_bwd(int dbl, cg_index n, cg_index hs, const void* dhr, const void* gout,
                    const void* a, const void* ghn, const void* hprev, void* di, void* dgh,
                    void* dhp)
    void cg_elman_fwd(int dbl, cg_index m, int relu, const void* gh, const void* gx, void* h)
    void cg_elman_bwd(int dbl, cg_index m, int relu, const void* dhr, const void* gout,
                      const void* h, void* d)

# Releasing the GIL costs a mutex round trip: only worth it for real work.
cdef enum:
    GIL_RELEASE_MIN = 4096


cdef class _Check:
    """The dtype and ``(N, H)`` of one call, and the check of each argument; the
    byte ranges of the arguments, so that :meth:`disjoint` can refuse an output
    that overlaps another argument (the C loops assume none does)."""
    cdef DType dt
    cdef Py_ssize_t n, hs
    cdef str what
    cdef Py_ssize_t start[8]
    cdef Py_ssize_t end[8]
    cdef bint written[8]
    cdef int count

    def __init__(self, TensorBase ref, Py_ssize_t gates, str what):
        self.what = what
        if ref.device.type != "cpu":
            raise RuntimeError(f"{what}: expected CPU tensors, got one on {ref.device}")
        self.dt = ref._dtype
        if self.dt.code != DT_FLOAT32 and self.dt.code != DT_FLOAT64:
            raise TypeError(f"{what}: no CPU kernel for dtype {self.dt.name} "
                            "(float32 and float64 only)")
        if ref._ndim != 2 or ref._shape[1] % gates:
            raise RuntimeError(f"{what}: expected an (N, {gates} * H) tensor, got shape "
                               f"{list(ref.shape)}")
        self.n, self.hs = ref._shape[0], ref._shape[1] // gates

    cdef const void* arg(self, TensorBase t, Py_ssize_t gates, bint optional=False) except? NULL:
        if t is None:
            if optional:
                return NULL
            raise RuntimeError(f"{self.what}: a required tensor is None")
        if t.device.type != "cpu" or t._dtype is not self.dt:
            raise RuntimeError(f"{self.what}: expected {self.dt.name} CPU tensors, got "
                               f"{t._dtype.name} on {t.device}")
        if t._ndim != 2 or t._shape[0] != self.n or t._shape[1] != gates * self.hs:
            raise RuntimeError(f"{self.what}: expected shape [{self.n}, {gates * self.hs}], "
                               f"got {list(t.shape)}")
        if not t._is_contig:
            raise RuntimeError(f"{self.what}: expected contiguous tensors")
        self.start[self.count] = <Py_ssize_t>t.ptr()
        self.end[self.count] = self.start[self.count] + t._numel * self.dt.itemsize
        self.written[self.count] = False
        self.count += 1
        return t.ptr()

    cdef void* out(self, TensorBase t, Py_ssize_t gates) except NULL:
        cdef void* p = <void*>self.arg(t, gates)
        self.written[self.count - 1] = True
        return p

    cdef int disjoint(self) except -1:
        cdef int i, j
        for i in range(self.count):
            if not self.written[i]:
                continue
            for j in range(self.count):
                if j != i and self.start[i] < self.end[j] and self.start[j] < self.end[i]:
                    raise RuntimeError(f"{self.what}: an output overlaps another argument")
        return 0

    cdef bint dbl(self):
        return self.dt.code == DT_FLOAT64

    cdef bint nogil_worth(self):
        return self.n * self.hs >= GIL_RELEASE_MIN


def lstm_step(TensorBase gh not None, TensorBase gx, TensorBase cprev, TensorBase a,
              TensorBase c, TensorBase tc, TensorBase h):
    """One LSTM step: ``a = [sig(i), sig(f), tanh(g), sig(o)]`` of the pre-activations
    ``gh + gx`` (``(N, 4H)``), ``c = f * cprev + i * g``, ``tc = tanh(c)``,
    ``h = o * tc``; returns ``h``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.rnn_kernels import lstm_step
    >>> a, c, tc, h = cygrad.empty(1, 4), cygrad.empty(1, 1), cygrad.empty(1, 1), cygrad.empty(1, 1)
    >>> _ = lstm_step(cygrad.zeros(1, 4), cygrad.zeros(1, 4), cygrad.ones(1, 1), a, c, tc, h)
    >>> a.tolist(), c.tolist()
    ([[0.5, 0.5, 0.0, 0.5]], [[0.5]])
    """
    cdef _Check k = _Check(gh, 4, "lstm_step")
    cdef const void* p_gh = k.arg(gh, 4)
    cdef const void* p_gx = k.arg(gx, 4)
    cdef const void* p_cp = k.arg(cprev, 1)
    cdef void* p_a = k.out(a, 4)
    cdef void* p_c = k.out(c, 1)
    cdef void* p_tc = k.out(tc, 1)
    cdef void* p_h = k.out(h, 1)
    k.disjoint()
    cdef int dbl = k.dbl()
    cdef Py_ssize_t n = k.n, hs = k.hs
    if k.nogil_worth():
        with nogil:
            cg_lstm_fwd(dbl, n, hs, p_gh, p_gx, p_cp, p_a, p_c, p_tc, p_h)
    else:
        cg_lstm_fwd(dbl, n, hs, p_gh, p_gx, p_cp, p_a, p_c, p_tc, p_h)
    return h


def lstm_step_backward(TensorBase dh_rec, TensorBase g_out, TensorBase dc,
                       TensorBase a not None, TensorBase cprev, TensorBase tc, TensorBase d):
    """The gradient of one LSTM step: with ``dh = dh_rec + g_out`` reaching ``h``
    and ``dc`` reaching ``c``, write the gradient of the ``(N, 4H)`` pre-activations
    into ``d`` and replace ``dc`` by the gradient reaching ``cprev`` (through the
    forget gate); returns ``d``. ``dh_rec`` and ``g_out`` may be None.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.rnn_kernels import lstm_step_backward
    >>> dc, d = cygrad.ones(1, 1), cygrad.empty(1, 4)
    >>> a = cygrad.tensor([[0.5, 0.5, 0.0, 0.5]])
    >>> lstm_step_backward(None, None, dc, a, cygrad.ones(1, 1), cygrad.zeros(1, 1), d).tolist()
    [[0.0, 0.25, 0.5, 0.0]]
    >>> dc.tolist()
    [[0.5]]
    """
    cdef _Check k = _Check(a, 4, "lstm_step_backward")
    cdef const void* p_dhr = k.arg(dh_rec, 1, True)
    cdef const void* p_go = k.arg(g_out, 1, True)
    cdef void* p_dc = k.out(dc, 1)
    cdef const void* p_a = k.arg(a, 4)
    cdef const void* p_cp = k.arg(cprev, 1)
    cdef const void* p_tc = k.arg(tc, 1)
    cdef void* p_d = k.out(d, 4)
    k.disjoint()
    cdef int dbl = k.dbl()
    cdef Py_ssize_t n = k.n, hs = k.hs
    if k.nogil_worth():
        with nogil:
            cg_lstm_bwd(dbl, n, hs, p_dhr, p_go, p_dc, p_a, p_cp, p_tc, p_d)
    else:
        cg_lstm_bwd(dbl, n, hs, p_dhr, p_go, p_dc, p_a, p_cp, p_tc, p_d)
    return d


def gru_step(TensorBase gi not None, TensorBase gh, TensorBase hprev, TensorBase a,
             TensorBase ghn, TensorBase h):
    """One GRU step from ``gi = x W_ih^T + b_ih`` and ``gh = hprev W_hh^T + b_hh``
    (``(N, 3H)``): ``a = [r, z, n]`` with ``r, z = sig(gi + gh)``,
    ``n = tanh(gi_n + r * gh_n)``; ``ghn = gh_n``; ``h = n + z * (hprev - n)``;
    returns ``h``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.rnn_kernels import gru_step
    >>> a, ghn, h = cygrad.empty(1, 3), cygrad.empty(1, 1), cygrad.empty(1, 1)
    >>> gru_step(cygrad.zeros(1, 3), cygrad.zeros(1, 3), cygrad.ones(1, 1), a, ghn, h).tolist()
    [[0.5]]
    """
    cdef _Check k = _Check(gi, 3, "gru_step")
    cdef const void* p_gi = k.arg(gi, 3)
    cdef const void* p_gh = k.arg(gh, 3)
    cdef const void* p_hp = k.arg(hprev, 1)
    cdef void* p_a = k.out(a, 3)
    cdef void* p_ghn = k.out(ghn, 1)
    cdef void* p_h = k.out(h, 1)
    k.disjoint()
    cdef int dbl = k.dbl()
    cdef Py_ssize_t n = k.n, hs = k.hs
    if k.nogil_worth():
        with nogil:
            cg_gru_fwd(dbl, n, hs, p_gi, p_gh, p_hp, p_a, p_ghn, p_h)
    else:
        cg_gru_fwd(dbl, n, hs, p_gi, p_gh, p_hp, p_a, p_ghn, p_h)
    return h


def gru_step_backward(TensorBase dh_rec, TensorBase g_out, TensorBase a not None,
                      TensorBase ghn, TensorBase hprev, TensorBase di, TensorBase dgh,
                      TensorBase dhp):
    """The gradient of one GRU step: with ``dh = dh_rec + g_out`` reaching ``h``,
    write the gradients of ``gi`` and ``gh`` into ``di`` and ``dgh`` (``(N, 3H)``)
    and the direct part ``dh * z`` of the gradient reaching ``hprev`` into ``dhp``
    (the rest is ``dgh @ W_hh``); returns ``dhp``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.rnn_kernels import gru_step_backward
    >>> di, dgh, dhp = cygrad.empty(1, 3), cygrad.empty(1, 3), cygrad.empty(1, 1)
    >>> a = cygrad.tensor([[0.5, 0.5, 0.0]])
    >>> _ = gru_step_backward(cygrad.ones(1, 1), None, a, cygrad.ones(1, 1), cygrad.ones(1, 1),
    ...                       di, dgh, dhp)
    >>> di.tolist(), dgh.tolist(), dhp.tolist()
    ([[0.125, 0.25, 0.5]], [[0.125, 0.25, 0.25]], [[0.5]])
    """
    cdef _Check k = _Check(a, 3, "gru_step_backward")
    cdef const void* p_dhr = k.arg(dh_rec, 1, True)
    cdef const void* p_go = k.arg(g_out, 1, True)
    cdef const void* p_a = k.arg(a, 3)
    cdef const void* p_ghn = k.arg(ghn, 1)
    cdef const void* p_hp = k.arg(hprev, 1)
    cdef void* p_di = k.out(di, 3)
    cdef void* p_dgh = k.out(dgh, 3)
    cdef void* p_dhp = k.out(dhp, 1)
    k.disjoint()
    cdef int dbl = k.dbl()
    cdef Py_ssize_t n = k.n, hs = k.hs
    if k.nogil_worth():
        with nogil:
            cg_gru_bwd(dbl, n, hs, p_dhr, p_go, p_a, p_ghn, p_hp, p_di, p_dgh, p_dhp)
    else:
        cg_gru_bwd(dbl, n, hs, p_dhr, p_go, p_a, p_ghn, p_hp, p_di, p_dgh, p_dhp)
    return dhp


def elman_step(TensorBase gh not None, TensorBase gx, TensorBase h, bint relu):
    """One Elman step: ``h = tanh(gh + gx)`` (``relu``: ``max(gh + gx, 0)``), all
    ``(N, H)``; returns ``h``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.rnn_kernels import elman_step
    >>> elman_step(cygrad.zeros(1, 2), cygrad.zeros(1, 2), cygrad.empty(1, 2), False).tolist()
    [[0.0, 0.0]]
    """
    cdef _Check k = _Check(gh, 1, "elman_step")
    cdef const void* p_gh = k.arg(gh, 1)
    cdef const void* p_gx = k.arg(gx, 1)
    cdef void* p_h = k.out(h, 1)
    k.disjoint()
    cdef int dbl = k.dbl()
    cdef Py_ssize_t m = k.n * k.hs
    if k.nogil_worth():
        with nogil:
            cg_elman_fwd(dbl, m, relu, p_gh, p_gx, p_h)
    else:
        cg_elman_fwd(dbl, m, relu, p_gh, p_gx, p_h)
    return h


def elman_step_backward(TensorBase dh_rec, TensorBase g_out, TensorBase h not None,
                        TensorBase d, bint relu):
    """The gradient of one Elman step's pre-activation: ``d = (dh_rec + g_out) *
    act'``, from the step's output ``h`` (``1 - h^2`` for tanh, ``h > 0`` for ReLU);
    returns ``d``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.rnn_kernels import elman_step_backward
    >>> h = cygrad.tensor([[0.5, 0.0]])
    >>> elman_step_backward(cygrad.ones(1, 2), None, h, cygrad.empty(1, 2), False).tolist()
    [[0.75, 1.0]]
    """
    cdef _Check k = _Check(h, 1, "elman_step_backward")
    cdef const void* p_dhr = k.arg(dh_rec, 1, True)
    cdef const void* p_go = k.arg(g_out, 1, True)
    cdef const void* p_h = k.arg(h, 1)
    cdef void* p_d = k.out(d, 1)
    k.disjoint()
    cdef int dbl = k.dbl()
    cdef Py_ssize_t m = k.n * k.hs
    if k.nogil_worth():
        with nogil:
            cg_elman_bwd(dbl, m, relu, p_dhr, p_go, p_h, p_d)
    else:
        cg_elman_bwd(dbl, m, relu, p_dhr, p_go, p_h, p_d)
    return d
