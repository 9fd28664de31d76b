"""The 'cuda' kernels of the small dense linear algebra (``cuda_src/linalg.cu``): one
block per matrix of a batch, float32, float64, complex64 and complex128.

- ``linalg_solve``/``_ex``, ``linalg_inv``/``_ex``: Gauss-Jordan elimination with
  partial pivoting on ``[A | B]`` (``B`` the identity for the inverse);
- ``linalg_det``, ``linalg_slogdet``, ``linalg_lu_factor``: LU with partial
  pivoting (LAPACK getrf's pivots, packed factors and ``info``);
- ``linalg_cholesky``/``_ex``: the column-by-column Cholesky factorization
  (Hermitian for complex: ``L L^H``);
- ``linalg_solve_triangular``: substitution, one thread per column of ``B``;
- ``linalg_qr``, ``linalg_geqrf``: Householder QR with LAPACK's reflectors
  (complex: zgeqrf's, ``tau`` complex and ``R``'s diagonal real);
- ``linalg_eigh``, ``linalg_eigh_uplo``: cyclic Jacobi rotations (complex:
  Hermitian, unitary rotations);
- ``linalg_svd``, ``nuclear_weights``: one-sided Jacobi rotations (complex:
  unitary rotations).

Each has the signature and results of the CPU entry
(``cygrad/_core/backend_cpu/linalg.py``), including its ``LinAlgError`` messages
(the ``info`` of the batch is read back to raise them, as PyTorch does with
``check_errors``). The general eigenvalue problem (``linalg_eig``) has no CUDA
kernel: ``docs/cuda.md`` lists it with the reason.

Examples
--------
>>> from cygrad.cuda.ops import linalg
>>> "linalg_inv" in linalg.PRIMITIVES
True
"""
import math

from ..._core import dispatch
from ..._core import dtype as _dt
from ..._core import tensor as _C
from ..._core.linalg_error import LinAlgError
from .. import kernels as _k

#: the primitives this module gives a 'cuda' kernel
PRIMITIVES = ("linalg_solve", "linalg_solve_ex", "linalg_inv", "linalg_inv_ex", "linalg_det",
              "linalg_slogdet", "linalg_lu_factor", "linalg_cholesky", "linalg_cholesky_ex",
              "linalg_solve_triangular", "linalg_qr", "linalg_geqrf", "linalg_eigh",
              "linalg_eigh_uplo", "linalg_svd", "nuclear_weights")

_THREADS = 128          # threads per block (one block per matrix)
#: the kernel-name suffix of each dtype (``linalg.cu`` instantiates every kernel for
#: the two real and the two complex dtypes)
_SUFFIXES = {"float32": "f32", "float64": "f64", "complex64": "c64", "complex128": "c128"}


def _suffix(primitive, *tensors):
    for t in tensors:
        if t.device.type != "cuda":
            raise RuntimeError("Expected all tensors to be on the same device, but found at "
                               f"least two devices, cuda:0 and {t.device}!")
    dt = tensors[0].dtype
    sfx = _SUFFIXES.get(dt.name)
    if sfx is None or any(t.dtype is not dt for t in tensors):
        raise NotImplementedError(f"no 'cuda' kernel for primitive '{primitive}' for dtype "
                                  f"{dt} on cuda (float32, float64, complex64 and complex128 "
                                  f"only)")
    return sfx


def _copy(t, shape=None):
    """A new contiguous copy of ``t`` (broadcast to ``shape``): the kernels work in place."""
    shape = tuple(t.shape) if shape is None else shape
    out = _C._empty(shape, t.dtype, t.device)
    if out.numel():
        out.copy_(t.expand(*shape) if tuple(t.shape) != shape else t)
    return out


def _batch_shape(*shapes):
    """The broadcast of the batch shapes (all dims but the last two)."""
    n = max(len(s) for s in shapes)
    dims = [(1,) * (n - len(s)) + tuple(s) for s in shapes]
    out = []
    for sizes in zip(*dims):
        big = {x for x in sizes if x != 1}
        if len(big) > 1:
            raise RuntimeError(f"linalg: the batch dimensions {shapes} do not broadcast")
        out.append(big.pop() if big else 1)
    return tuple(out)


def _ptr(t):
    """A tensor's device pointer; 0 (NULL) for None or an empty tensor, which a
    kernel never reads."""
    return 0 if t is None or t.numel() == 0 else t.data_ptr()


def _launch(dev, name, sfx, batch, args):
    if batch:
        _k.launch(dev.index, "linalg.cu", f"cg_{name}_{sfx}",
                  (max(1, min(batch, _k.MAX_BLOCKS)), 1, 1), (_THREADS, 1, 1), (batch,) + args)


def _square(a, name):
    if a.dim() < 2 or a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2] if a.dim() > 1 else 1} by {a.shape[-1]} matrices")


def _lu_run(primitive, a, b=None, outputs=()):
    """One launch of ``cg_lu``: Gauss-Jordan on ``[a | b]`` when ``b`` is given, else
    LU; returns ``(w, x, info, extras)`` with ``extras`` the ``outputs`` asked for
    among ``"piv"``, ``"det"``, ``"sign"``, ``"logabs"``."""
    sfx = _suffix(primitive, *((a,) if b is None else (a, b)))
    dev = a.device
    m, n = a.shape[-2], a.shape[-1]
    if b is None:
        batch_shape = tuple(a.shape[:-2])
        w, x, nb = _copy(a), None, 0
    else:
        batch_shape = _batch_shape(a.shape[:-2], b.shape[:-2])
        nb = b.shape[-1]
        w, x = _copy(a, batch_shape + (m, n)), _copy(b, batch_shape + (m, nb))
    batch = math.prod(batch_shape)
    info = _C._empty(batch_shape, _dt.int32, dev)
    extras = {}
    # (slogdet's log|det| of a complex matrix is real)
    dtypes = {"piv": _dt.int32, "logabs": a.dtype.to_real()}
    for key in outputs:
        shape = batch_shape + ((min(m, n),) if key == "piv" else ())
        extras[key] = _C._empty(shape, dtypes.get(key, a.dtype), dev)
    _launch(dev, "lu", sfx, batch,
            (m, n, nb, int(b is not None), _ptr(w), _ptr(x), _ptr(extras.get("piv")), _ptr(info),
             _ptr(extras.get("det")), _ptr(extras.get("sign")), _ptr(extras.get("logabs"))))
    return w, x, info, extras


def _first_failure(info):
    """``(batch index, info value)`` of the first failed matrix, or None (reads the
    batch's ``info`` back from the device)."""
    for i, v in enumerate(info.reshape(-1).cpu().tolist()):
        if v:
            return i, v
    return None


def _where(i, info):
    return "" if info.dim() == 0 else f"(Batch element {i}): "


def _check_singular(info, name, what):
    bad = _first_failure(info)
    if bad is not None:
        i, v = bad
        if what == "solve":
            raise LinAlgError(f"{name}: {_where(i, info)}The solver failed because the input "
                              f"matrix is singular.")
        raise LinAlgError(f"{name}: {_where(i, info)}The diagonal element {v} is zero, the "
                          f"{what} could not be completed because the input matrix is singular.")


def linalg_solve_ex(a, b, check_errors, name="torch.linalg.solve"):
    """``solve(a, b)`` (batches of square ``a`` and of matrices ``b``, broadcast) and
    getrf's info per matrix; PyTorch's LinAlgError (named ``name``) where a matrix
    is singular and ``check_errors``; a singular matrix's solution is NaN.

    Examples
    --------
    >>> from cygrad.cuda.ops.linalg import linalg_solve_ex
    >>> linalg_solve_ex.__name__
    'linalg_solve_ex'
    """
    _square(a, name)
    if b.dim() < 2 or b.shape[-2] != a.shape[-1]:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation AX = B "
                           f"({a.shape[-2]}x{a.shape[-1]} and {list(b.shape)})")
    _, x, info, _ = _lu_run("linalg_solve_ex", a, b)
    if check_errors:
        _check_singular(info, name, "solve")
    return x, info


def linalg_solve(a, b):
    """``solve(a, b)``; raises LinAlgError for a singular matrix.

    Examples
    --------
    >>> from cygrad.cuda.ops.linalg import linalg_solve
    >>> linalg_solve.__name__
    'linalg_solve'
    """
    return linalg_solve_ex(a, b, True)[0]


def linalg_inv_ex(a, check_errors, name="linalg.inv"):
    """``inv(a)`` and getrf's info per matrix; LinAlgError (naming ``name``) where a
    matrix is singular and ``check_errors``; a singular matrix's inverse is NaN.

    Examples
    --------
    >>> from cygrad.cuda.ops.linalg import linalg_inv_ex
    >>> linalg_inv_ex.__name__
    'linalg_inv_ex'
    """
    _square(a, name)
    _suffix("linalg_inv_ex", a)
    n = a.shape[-1]
    eye = _C._empty((n, n), a.dtype, a.device)
    if n:
        eye.fill_(0)
        eye.diagonal().fill_(1)
    _, x, info, _ = _lu_run("linalg_inv_ex", a, eye.expand(*a.shape))
    if check_errors:
        _check_singular(info, name, "inversion")
    return x, info


def linalg_inv(a):
    """``inv(a)``; raises LinAlgError for a singular matrix.

    Examples
    --------
    >>> from cygrad.cuda.ops.linalg import linalg_inv
    >>> linalg_inv.__name__
    'linalg_inv'
    """
    return linalg_inv_ex(a, True)[0]


def linalg_det(a):
    """The determinant of each square matrix: the product of LU's pivots, signed by
    the row interchanges.

    Examples
    --------
    >>> from cygrad.cuda.ops.linalg import linalg_det
    >>> linalg_det.__name__
    'linalg_det'
    """
    _square(a, "linalg.det")
    return _lu_run("linalg_det", a, outputs=("det",))[3]["det"]


def linalg_slogdet(a):
    """``(sign, log|det|)`` of each square matrix (``(0, -inf)`` where it is singular);
    for a complex matrix ``sign`` is the complex phase ``det / |det|`` and ``log|det|``
    is real, as NumPy and PyTorch.

    Examples
    --------
    >>> from cygrad.cuda.ops.linalg import linalg_slogdet
    >>> linalg_slogdet.__name__
    'linalg_slogdet'
    """
    _square(a, "linalg.slogdet")
    ex = _lu_run("linalg_slogdet", a, outputs=("sign", "logabs"))[3]
    return ex["sign"], ex["logabs"]


def linalg_lu_factor(a):
    """Packed LU factors, 1-based int32 pivots and info, as LAPACK's getrf (any
    ``m x n`` matrices).

    Examples
    --------
    >>> from cygrad.cuda.ops.linalg import linalg_lu_factor
    >>> linalg_lu_factor.__name__
    'linalg_lu_factor'
    """
    if a.dim() < 2:
        raise RuntimeError("linalg.lu_factor: Expected tensor with 2 or more dimensions")
    w, _, info, ex = _lu_run("linalg_lu_factor", a, outputs=("piv",))
    return w, ex["piv"], info


def linalg_cholesky_ex(a, check_errors, name="linalg.cholesky"):
    """The lower Cholesky factor of each matrix (only its lower triangle is read; a
    complex matrix is taken as Hermitian, ``L L^H``) and potrf's info; LinAlgError where a matrix is not positive-definite and
    ``check_errors``; such a matrix's factor is NaN.

    Examples
    --------
    >>> from cygrad.cuda.ops.linalg import linalg_cholesky_ex
    >>> linalg_cholesky_ex.__name__
    'linalg_cholesky_ex'
    """
    _square(a, name)
    sfx = _suffix("linalg_cholesky_ex", a)
    src = a if a.is_contiguous() else _copy(a)
    out = _C._empty(tuple(a.shape), a.dtype, a.device)
    info = _C._empty(tuple(a.shape[:-2]), _dt.int32, a.device)
    if out.numel():
        _launch(a.device, "cholesky", sfx, math.prod(a.shape[:-2]),
                (a.shape[-1], src.data_ptr(), out.data_ptr(), info.data_ptr()))
    elif info.numel():
        info.fill_(0)
    if check_errors:
        bad = _first_failure(info)
        if bad is not None:
            i, v = bad
            raise LinAlgError(f"{name}: {_where(i, info)}The factorization could not be "
                              f"completed because the input is not positive-definite (the "
                              f"leading minor of order {v} is not positive-definite).")
    return out, info


def linalg_cholesky(a):
    """The lower Cholesky factor; raises LinAlgError where a matrix is not
    positive-definite.

    Examples
    --------
    >>> from cygrad.cuda.ops.linalg import linalg_cholesky
    >>> linalg_cholesky.__name__
    'linalg_cholesky'
    """
    return linalg_cholesky_ex(a, True)[0]


def _qr_run(primitive, a, qcols=None, rrows=None):
    """One launch of ``cg_qr``: ``(w, tau)`` as geqrf, and ``(q, r)`` when ``qcols``
    (Q's columns) and ``rrows`` (R's rows) are given."""
    sfx = _suffix(primitive, a)
    if a.dim() < 2:
        raise RuntimeError(f"{primitive}: The input tensor A must have at least 2 dimensions.")
    m, n = a.shape[-2], a.shape[-1]
    batch_shape = tuple(a.shape[:-2])
    w = _copy(a)
    tau = _C._empty(batch_shape + (min(m, n),), a.dtype, a.device)
    q = r = None
    if qcols is not None:
        q = _C._empty(batch_shape + (m, qcols), a.dtype, a.device)
        r = _C._empty(batch_shape + (rrows, n), a.dtype, a.device)
    _launch(a.device, "qr", sfx, math.prod(batch_shape),
            (m, n, qcols or 0, rrows or 0, _ptr(w), _ptr(tau), _ptr(q), _ptr(r)))
    return w, tau, q, r


def linalg_geqrf(a):
    """LAPACK's geqrf: ``R`` on and above the diagonal, the Householder vectors below it,
    and their scales ``tau`` (LAPACK's reflectors, so the signs are LAPACK's; complex:
    zgeqrf's, ``R``'s diagonal real).

    Examples
    --------
    >>> from cygrad.cuda.ops.linalg import linalg_geqrf
    >>> linalg_geqrf.__name__
    'linalg_geqrf'
    """
    return _qr_run("linalg_geqrf", a)[:2]


def linalg_qr(a, mode):
    """``(Q, R)`` of each ``m x n`` matrix by Householder reflections, ``mode``
    ``"reduced"`` (``Q`` is ``m x min(m, n)``) or ``"complete"`` (``m x m``), with
    LAPACK's signs (as NumPy's ``qr``).

    Examples
    --------
    >>> from cygrad.cuda.ops.linalg import linalg_qr
    >>> linalg_qr.__name__
    'linalg_qr'
    """
    m, n = a.shape[-2], a.shape[-1]
    rows = m if mode == "complete" else min(m, n)
    return _qr_run("linalg_qr", a, rows, rows)[2:]


#: machine epsilon of each dtype (the Jacobi sweeps' stopping rule)
_EPS = {"float32": 2.0 ** -23, "float64": 2.0 ** -52}
_MAX_SWEEPS = 40        # cyclic Jacobi converges quadratically: ~10 sweeps are typical


def linalg_eigh_uplo(a, uplo):
    """Eigenvalues (ascending) and eigenvectors (columns) of each symmetric (complex:
    Hermitian) matrix, read from its lower (``uplo="L"``) or upper (``"U"``) triangle,
    by cyclic Jacobi rotations until the off-diagonal part is below ``(n eps)^2`` of
    the matrix's squared norm. The eigenvalues are real (of the real dtype for a
    complex matrix); each eigenvector's sign (complex: phase) is arbitrary (as in
    PyTorch, where it may differ between devices).

    Examples
    --------
    >>> from cygrad.cuda.ops.linalg import linalg_eigh_uplo
    >>> linalg_eigh_uplo.__name__
    'linalg_eigh_uplo'
    """
    sfx = _suffix("linalg_eigh", a)
    _square(a, "linalg.eigh")
    n = a.shape[-1]
    batch_shape = tuple(a.shape[:-2])
    src = a if a.is_contiguous() else _copy(a)
    work = [_C._empty(tuple(a.shape), a.dtype, a.device) for _ in range(2)]
    order = _C._empty(batch_shape + (n,), _dt.int32, a.device)
    real = a.dtype.to_real()
    eig = _C._empty(batch_shape + (n,), real, a.device)
    vec = _C._empty(tuple(a.shape), a.dtype, a.device)
    if n:
        tol = (_EPS[real.name] * n) ** 2
        _launch(a.device, "eigh", sfx, math.prod(batch_shape),
                (n, int(uplo.upper() == "L"), tol, _MAX_SWEEPS, src.data_ptr(),
                 work[0].data_ptr(), work[1].data_ptr(), order.data_ptr(), eig.data_ptr(),
                 vec.data_ptr()))
    return eig, vec


def linalg_eigh(a):
    """Eigenvalues and eigenvectors of each symmetric matrix from its lower triangle.

    Examples
    --------
    >>> from cygrad.cuda.ops.linalg import linalg_eigh
    >>> linalg_eigh.__name__
    'linalg_eigh'
    """
    return linalg_eigh_uplo(a, "L")


def linalg_svd(a, full_matrices):
    """``(U, S, Vh)`` of each ``m x n`` matrix by one-sided Jacobi rotations (on the
    conjugate transpose of a wide matrix), ``S`` descending (real: the real dtype of a
    complex matrix); ``full_matrices``: ``U`` is ``m x m`` and ``Vh`` ``n x n``, else
    ``m x k`` and ``k x n``. The singular vectors' signs (complex: phases) are
    arbitrary (as in PyTorch).

    Examples
    --------
    >>> from cygrad.cuda.ops.linalg import linalg_svd
    >>> linalg_svd.__name__
    'linalg_svd'
    """
    sfx = _suffix("linalg_svd", a)
    if a.dim() < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    m, n = a.shape[-2], a.shape[-1]
    wide = m < n
    # (a wide matrix: the SVD of A^H, whose U and V swap back below)
    src = _copy(_adjoint(a)) if wide else (a if a.is_contiguous() else _copy(a))
    rows, cols = (n, m) if wide else (m, n)                 # the tall matrix's shape
    ucols = rows if full_matrices else cols
    batch_shape = tuple(a.shape[:-2])
    dev, dt = a.device, a.dtype
    w = _C._empty(batch_shape + (rows, cols), dt, dev)
    v = _C._empty(batch_shape + (cols, cols), dt, dev)
    order = _C._empty(batch_shape + (cols,), _dt.int32, dev)
    u = _C._empty(batch_shape + (rows, ucols), dt, dev)
    sv = _C._empty(batch_shape + (cols,), dt.to_real(), dev)
    vt = _C._empty(batch_shape + (cols, cols), dt, dev)
    if u.numel() or vt.numel():
        _launch(dev, "svd", sfx, math.prod(batch_shape),
                (rows, cols, ucols, _EPS[dt.to_real().name] * max(rows, 1), _MAX_SWEEPS, _ptr(src),
                 _ptr(w), _ptr(v), _ptr(order), _ptr(u), _ptr(sv), _ptr(vt)))
    if wide:                    # A = (U' S V'^H)^H = V' S U'^H
        return _copy(_adjoint(vt)), sv, _copy(_adjoint(u))
    return u, sv, vt


def _adjoint(t):
    """The conjugate transpose of the last two dims (the transpose of a real tensor),
    as a new contiguous tensor."""
    return _copy(t.mT.conj_physical() if t.dtype.is_complex else t.mT)


def nuclear_weights(x, dims):
    """``U V^H`` of each matrix of ``x`` over the two ``dims``, from its reduced SVD
    (the gradient of the nuclear norm).

    Examples
    --------
    >>> from cygrad.cuda.ops.linalg import nuclear_weights
    >>> nuclear_weights.__name__
    'nuclear_weights'
    """
    _suffix("nuclear_weights", x)
    d0, d1 = (d % x.dim() for d in dims)
    moved = x.movedim((d0, d1), (-2, -1))
    u, _, vh = linalg_svd(moved, False)
    prod = _C._empty(tuple(moved.shape), x.dtype, x.device)
    if prod.numel():
        dispatch.kernel("matmul_into", "cuda")(u, vh, prod)
    return _copy(prod.movedim((-2, -1), (d0, d1)))


def linalg_solve_triangular(a, b, upper, unitriangular):
    """``X`` with ``A X = B`` for triangular ``A`` (its ``upper`` or lower triangle;
    ``unitriangular``: ones on its diagonal); batches broadcast. A zero on the
    diagonal gives infinities and NaNs rather than an error, as LAPACK's trsm.

    Examples
    --------
    >>> from cygrad.cuda.ops.linalg import linalg_solve_triangular
    >>> linalg_solve_triangular.__name__
    'linalg_solve_triangular'
    """
    sfx = _suffix("linalg_solve_triangular", a, b)
    _square(a, "linalg.solve_triangular")
    n, k = a.shape[-1], b.shape[-1]
    batch_shape = _batch_shape(a.shape[:-2], b.shape[:-2])
    aa = _copy(a, batch_shape + (n, n))
    x = _copy(b, batch_shape + (n, k))
    total = math.prod(batch_shape) * k
    if total and n:
        _k.launch(a.device.index, "linalg.cu", f"cg_trsm_{sfx}", _k.grid_1d(total),
                  (_k.BLOCK, 1, 1), (math.prod(batch_shape), n, k, int(bool(upper)),
                                     int(bool(unitriangular)), aa.data_ptr(), x.data_ptr()))
    return x


def register():
    """Register this module's kernels as the 'cuda' entries of the kernel table.

    Examples
    --------
    >>> from cygrad.cuda.ops import linalg
    >>> callable(linalg.register)
    True
    """
    for name in PRIMITIVES:
        dispatch.register(name, "cuda", dtypes=tuple(_SUFFIXES))(globals()[name])
