"""``cygrad.numpy.linalg``: the array API standard's linalg extension, with NumPy's
``norm``, ``lstsq`` and ``eigvalsh``.

Every function is differentiable, in reverse and in forward mode, on real and
complex inputs. Products come from cygrad's ops; the decompositions (``solve``,
``inv``, ``slogdet``, ``cholesky``, ``eigh``, ``svd``, ``qr``) are
``autograd.Function``\\ s whose forward is a LAPACK kernel from the kernel table
(``cygrad/_core/backend_cpu/linalg.py``) and whose backward and ``jvp`` are written
with cygrad ops (so they are differentiable again). ``det``, ``pinv``, ``lstsq``,
``matrix_rank``, the norms and ``matrix_power`` are built from those. Integer
inputs are computed in float64.

Gradients that are not defined are refused, not invented: ``svd`` with
``full_matrices=True`` on a non-square input and ``qr`` of a wide matrix raise
``NotImplementedError`` in backward and in forward mode (as PyTorch).

Examples
--------
>>> import cygrad.numpy as cnp
>>> a = cnp.asarray([[3.0, 1.0], [1.0, 2.0]], copy=True)
>>> a.requires_grad_()
tensor([[3., 1.],
        [1., 2.]], dtype=cygrad.float64, requires_grad=True)
>>> cnp.linalg.det(a).backward()
>>> [[round(v, 12) for v in row] for row in a.grad.tolist()]   # det * inv(A).T
[[2.0, -1.0], [-1.0, 3.0]]
"""
import builtins
import math
from collections import namedtuple

import cygrad
from cygrad._core import dispatch
from cygrad._core import fastpath as _fast
from cygrad.autograd import Function
from cygrad.autograd.forward_ad import saved_for_jvp
from . import _dtypes as D
from cygrad._core import backend_cpu  # noqa: F401  (registers the linalg_* kernels)
from ._helpers import tensor, normalize_axis, operands
from ._manipulation import matrix_transpose

__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul",
           "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr",
           "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
           "norm", "lstsq"]

EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])


def _float(x):
    x = tensor(x)
    return x if x.dtype.is_floating_point or x.dtype.is_complex else x.to(D.DEFAULT_FLOAT)


def _abs2(x):
    # |x|**2, real for complex x (x * x would be complex and wrong)
    if x.dtype.is_complex:
        return x.real * x.real + x.imag * x.imag
    return x * x


def _square(x, name):
    if x.dim() < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{name}: last 2 dimensions of the array must be square")


def _mT(x):
    return x.transpose(-1, -2)


def _mH(x):
    # the conjugate transpose: what the real formulas' transposes become for complex
    return _mT(cygrad.conj(x)) if x.dtype.is_complex else _mT(x)


def _diag_embed(v):
    n = v.shape[-1]
    return v.unsqueeze(-1) * cygrad.eye(n, dtype=v.dtype)


def _diagonal(x):
    return cygrad.diagonal(x, dim1=-2, dim2=-1)


def _sym(x):
    """The Hermitian part: the decompositions read one triangle of a Hermitian input,
    so gradients and tangents live on Hermitian matrices."""
    return 0.5 * (x + _mH(x))


def _imag_diag(x):
    """``i Im(diag(x))`` as a diagonal matrix (0 for real ``x``): the phase part the
    complex eigen/singular vector formulas add or remove."""
    return _diag_embed(cygrad.complex(cygrad.zeros_like(cygrad.imag(_diagonal(x))),
                                      cygrad.imag(_diagonal(x))))


def _check_phase(im_diag, what, depends):
    """PyTorch's refusal of a loss that depends on the free phases of complex
    eigen/singular vectors (with its tolerance): ``im_diag`` is how the loss moves
    when each vector turns by ``e^{i phi}``."""
    if builtins.bool((im_diag.detach().abs() > 1e-2).any()):
        raise RuntimeError(f"{what}: The {depends} in the complex case are specified up to "
                           "multiplication by e^{i phi}. The specified loss function depends on "
                           "this phase term, making it ill-defined.")


def _off_diag_inverse(d):
    """F[i, j] = 1 / (d[j] - d[i]) off the diagonal, 0 on it (for eigen/singular
    vector gradients)."""
    diff = d.unsqueeze(-2) - d.unsqueeze(-1)
    n = d.shape[-1]
    eye = cygrad.eye(n, dtype=cygrad.bool)
    return cygrad.where(eye, cygrad.zeros((), dtype=d.dtype), 1.0 / cygrad.where(eye, cygrad.ones((), dtype=d.dtype), diff))


def _kernel(name, x):
    return dispatch.kernel(name, x.device)


def _sum(*terms):
    """The sum of the terms that are not None (a tangent of None is zero)."""
    terms = [t for t in terms if t is not None]
    if not terms:
        return None
    out = terms[0]
    for t in terms[1:]:
        out = out + t
    return out


# ---- decompositions as Functions ----------------------------------------------
# Each has backward (reverse mode) and jvp (forward mode) from the same
# differential: for y = f(A), jvp gives dy from dA, backward is its adjoint. The
# formulas hold for complex inputs with conjugate transposes (PyTorch's convention).

class Solve(Function):
    @staticmethod
    def forward(ctx, a, b):
        x = _kernel("linalg_solve", a)(a, b)
        ctx.save_for_backward(a, x)
        return x

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        gb = Solve.apply(_mH(a), g)
        return -(gb @ _mH(x)), gb

    @staticmethod
    def jvp(ctx, ta, tb):
        # dX = A^-1 (dB - dA X)
        a, x = saved_for_jvp(ctx)
        return Solve.apply(a, _sum(tb, None if ta is None else -(ta @ x)))


class Inv(Function):
    @staticmethod
    def forward(ctx, a):
        y = _kernel("linalg_inv", a)(a)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        yh = _mH(y)
        return -(yh @ g @ yh)

    @staticmethod
    def jvp(ctx, t):
        (y,) = saved_for_jvp(ctx)
        return -(y @ t @ y)


class Slogdet(Function):
    """``d logabsdet = Re tr(A^-1 dA)``; for complex ``A`` the sign (a phase) moves
    too, ``d sign = i sign Im tr(A^-1 dA)``; a real sign does not."""

    @staticmethod
    def forward(ctx, a):
        sign, logabs = _kernel("linalg_slogdet", a)(a)
        ctx.save_for_backward(a, sign)
        if not a.dtype.is_complex:
            ctx.mark_non_differentiable(sign)
        return sign, logabs

    @staticmethod
    def backward(ctx, gsign, glog):
        a, sign = ctx.saved_tensors
        if a.dtype.is_complex:
            glog = cygrad.zeros_like(cygrad.real(sign)) if glog is None else glog
            # dL = glog Re(tau) - Im(conj(gsign) sign) Im(tau) = Re(conj(w) tau)
            w = glog if gsign is None else cygrad.complex(
                glog, cygrad.imag(cygrad.conj(sign) * gsign))
        else:
            w = glog
        if w is None:
            return None
        return w.unsqueeze(-1).unsqueeze(-1) * _mH(Inv.apply(a))

    @staticmethod
    def jvp(ctx, t):
        a, sign = saved_for_jvp(ctx)
        tau = _diagonal(Solve.apply(a, t)).sum(dim=-1)
        if not a.dtype.is_complex:
            return None, tau
        return sign * cygrad.complex(cygrad.zeros_like(cygrad.real(tau)), cygrad.imag(tau)), \
            cygrad.real(tau)


def _phi(x):
    """The lower triangle with the diagonal halved."""
    return cygrad.tril(x) - 0.5 * _diag_embed(_diagonal(x))


class Cholesky(Function):
    """``A = L L^H``: ``dL = L phi(L^-1 dA L^-H)``, ``phi`` the lower triangle with
    the diagonal halved. Backward is PyTorch's formula, ``L^-H Phi L^-1`` with
    ``P = tril(L^H gL)`` and ``Phi = (P + tril(P, -1)^H) / 2``: the adjoint of the
    tangent map on Hermitian ``dA`` (for a complex ``A`` it keeps ``Im diag(P) / 2``,
    which a Hermitian input does not see, so PyTorch's gradients come out exactly)."""

    @staticmethod
    def forward(ctx, a):
        lower = _kernel("linalg_cholesky", a)(a)
        ctx.save_for_backward(lower)
        return lower

    @staticmethod
    def backward(ctx, g):
        (lower,) = ctx.saved_tensors
        linv = Inv.apply(lower)
        p = cygrad.tril(_mH(lower) @ g)
        return _mH(linv) @ (0.5 * (p + _mH(cygrad.tril(p, diagonal=-1)))) @ linv

    @staticmethod
    def jvp(ctx, t):
        (lower,) = saved_for_jvp(ctx)
        linv = Inv.apply(lower)
        return lower @ _phi(linv @ _sym(t) @ _mH(linv))


class Eigh(Function):
    """``A = V diag(w) V^H``, ``M = V^H dA V``: ``dw = Re diag(M)``,
    ``dV = V (F * M)`` with ``F[i, j] = 1 / (w[j] - w[i])`` off the diagonal (the
    gauge where ``V^H dV`` has a zero diagonal). Complex eigenvectors are defined up
    to a phase each: a loss that depends on those phases is refused (PyTorch)."""

    @staticmethod
    def forward(ctx, a):
        w, v = _kernel("linalg_eigh", a)(a)
        ctx.save_for_backward(w, v)
        return w, v

    @staticmethod
    def backward(ctx, gw, gv):
        w, v = ctx.saved_tensors
        inner = _diag_embed(gw).to(v.dtype) if gw is not None else cygrad.zeros_like(v)
        if gv is not None:
            vh_gv = _mH(v) @ gv
            if v.dtype.is_complex:
                _check_phase(cygrad.imag(_diagonal(vh_gv)), "linalg_eigh_backward", "eigenvectors")
            inner = inner + _off_diag_inverse(w) * vh_gv
        return _sym(v @ inner @ _mH(v))

    @staticmethod
    def jvp(ctx, t):
        w, v = saved_for_jvp(ctx)
        m = _mH(v) @ _sym(t) @ v
        dw = cygrad.real(_diagonal(m)) if m.dtype.is_complex else _diagonal(m)
        return dw, v @ (_off_diag_inverse(w) * m)


class Svd(Function):
    """``A = U diag(S) V^H`` (thin, or full for square ``A``), ``dP = U^H dA V``,
    ``F[i, j] = 1 / (S[j]^2 - S[i]^2)``: ``dS = Re diag(dP)``,
    ``dU = U (F * (dP S + S dP^H) + i Im diag(dP) / S) + (I - U U^H) dA V / S``,
    ``dV = V (F * (S dP + dP^H S)) + (I - V V^H) dA^H U / S`` (the gauge where
    ``V^H dV`` has a zero diagonal). A loss that depends on the common phase of a
    complex pair of singular vectors is refused in backward (PyTorch)."""

    @staticmethod
    def forward(ctx, a, full_matrices):
        u, s, vh = _kernel("linalg_svd", a)(a, full_matrices)
        ctx.full = full_matrices and a.shape[-1] != a.shape[-2]
        ctx.save_for_backward(u, s, vh)
        return u, s, vh

    @staticmethod
    def backward(ctx, gu, gs, gvh):
        if ctx.full:
            raise NotImplementedError("svd backward: full_matrices=True on a non-square input has "
                                      "no well-defined gradient; use full_matrices=False")
        u, s, vh = ctx.saved_tensors
        v = _mH(vh)
        inner = _diag_embed(gs).to(u.dtype) if gs is not None else cygrad.zeros(
            tuple(s.shape) + (s.shape[-1],), dtype=u.dtype)
        extra = 0
        f = _off_diag_inverse(s * s)
        s_inv = 1.0 / s
        if gu is not None:
            uh_gu = _mH(u) @ gu
            inner = inner + (f * (uh_gu - _mH(uh_gu))) * s.unsqueeze(-2)
            if u.dtype.is_complex:
                inner = inner + _imag_diag(uh_gu) * s_inv.unsqueeze(-2)
            if u.shape[-2] > s.shape[-1]:
                proj = gu - u @ uh_gu
                extra = extra + (proj * s_inv.unsqueeze(-2)) @ vh
        if gvh is not None:
            gv = _mH(gvh)
            vh_gv = vh @ gv
            inner = inner + s.unsqueeze(-1) * (f * (vh_gv - _mH(vh_gv)))
            if v.shape[-2] > s.shape[-1]:
                proj = gv - v @ vh_gv
                extra = extra + (u * s_inv.unsqueeze(-2)) @ _mH(proj)
        if u.dtype.is_complex:
            # turning u_k and v_k by one phase keeps A: the loss must not move
            moved = [cygrad.imag(_diagonal(uh_gu))] if gu is not None else []
            moved += [cygrad.imag(_diagonal(vh_gv))] if gvh is not None else []
            if moved:
                _check_phase(builtins.sum(moved[1:], moved[0]), "svd_backward", "singular vectors")
        return u @ inner @ vh + extra, None

    @staticmethod
    def jvp(ctx, t, _):
        if ctx.full:
            raise NotImplementedError("svd jvp: full_matrices=True on a non-square input has "
                                      "no well-defined derivative; use full_matrices=False")
        u, s, vh = saved_for_jvp(ctx)
        v = _mH(vh)
        a_v = t @ v
        dp = _mH(u) @ a_v
        ds = cygrad.real(_diagonal(dp)) if dp.dtype.is_complex else _diagonal(dp)
        f = _off_diag_inverse(s * s)
        s_row, s_col = s.unsqueeze(-2), s.unsqueeze(-1)
        du = u @ (f * (dp * s_row + s_col * _mH(dp)))
        if dp.dtype.is_complex:
            du = du + u @ (_imag_diag(dp) / s_row)
        dv = v @ (f * (s_col * dp + _mH(dp) * s_row))
        if u.shape[-2] > s.shape[-1]:
            du = du + (a_v - u @ dp) / s_row
        if v.shape[-2] > s.shape[-1]:
            ah_u = _mH(t) @ u
            dv = dv + (ah_u - v @ _mH(dp)) / s_row
        return du, ds, _mH(dv)


class Qr(Function):
    """``A = QR`` (``R`` with a real diagonal), ``X = Q^H dA R^-1``: ``Q^H dQ`` is
    ``Om = tril(X, -1) - tril(X, -1)^H + i Im diag(X)``, ``dR = (X - Om) R``,
    ``dQ = dA R^-1 - Q (X - Om)``."""

    @staticmethod
    def forward(ctx, a, mode):
        q, r = _kernel("linalg_qr", a)(a, mode)
        ctx.wide = a.shape[-2] < a.shape[-1] or (mode == "complete" and a.shape[-2] != a.shape[-1])
        ctx.save_for_backward(q, r)
        return q, r

    @staticmethod
    def backward(ctx, gq, gr):
        if ctx.wide:
            raise NotImplementedError("qr backward is implemented for reduced QR of matrices with "
                                      "rows >= columns only")
        q, r = ctx.saved_tensors
        gq = cygrad.zeros_like(q) if gq is None else gq
        gr = cygrad.zeros_like(r) if gr is None else gr
        m = r @ _mH(gr) - _mH(gq) @ q
        low = cygrad.tril(m, diagonal=-1)
        diag = _diagonal(m)
        copyltu = low + _mH(low) + _diag_embed(cygrad.real(diag) if m.dtype.is_complex else diag)
        b = gq + q @ copyltu
        # b @ R^-H, as a solve against R^H... written as (R^-1 b^H)^H
        return _mH(Solve.apply(r, _mH(b))), None

    @staticmethod
    def jvp(ctx, t, _):
        if ctx.wide:
            raise NotImplementedError("qr jvp is implemented for reduced QR of matrices with "
                                      "rows >= columns only")
        q, r = saved_for_jvp(ctx)
        a_rinv = _mH(Solve.apply(_mH(r), _mH(t)))        # dA R^-1
        x = _mH(q) @ a_rinv
        low = cygrad.tril(x, diagonal=-1)
        y = x - (low - _mH(low))                         # X - Om: upper triangular
        if x.dtype.is_complex:
            y = y - _imag_diag(x)
        return a_rinv - q @ y, y @ r


# ---- public functions -----------------------------------------------------------

def solve(x1, x2, /):
    """Solve ``x1 @ x = x2``; ``x2`` is a vector only when 1-D (as NumPy 2 and the
    standard); batch dimensions broadcast.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.solve(cnp.asarray([[2.0, 0.0], [0.0, 4.0]]), cnp.asarray([2.0, 2.0])).tolist()
    [1.0, 0.5]
    """
    x = _fast.solve(x1, x2)
    if x is not None:
        return x
    a, b = operands(_float(x1), _float(x2))
    _square(a, "solve")
    vector = b.dim() == 1
    if vector:
        b = b.unsqueeze(-1)
    batch = tuple(cygrad.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    a = a.expand(*(batch + tuple(a.shape[-2:])))
    b = b.expand(*(batch + tuple(b.shape[-2:])))
    x = Solve.apply(a, b)
    return x.squeeze(-1) if vector else x


def inv(x, /):
    """Inverse of (a stack of) square matrices.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.inv(cnp.asarray([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    x = _float(x)
    _square(x, "inv")
    return Inv.apply(x)


def slogdet(x, /):
    """Sign and log of the absolute value of the determinant (a named tuple).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> s = cnp.linalg.slogdet(cnp.asarray([[-2.0, 0.0], [0.0, 1.0]]))
    >>> s.sign.item(), round(s.logabsdet.item(), 6)
    (-1.0, 0.693147)
    """
    x = _float(x)
    _square(x, "slogdet")
    return SlogdetResult(*Slogdet.apply(x))


def det(x, /):
    """Determinant, ``sign * exp(logabsdet)``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.det(cnp.asarray([[1.0, 2.0], [3.0, 4.0]])).item()
    -2.0000000000000004
    """
    sign, logabs = slogdet(x)
    return sign * cygrad.exp(logabs)


def cholesky(x, /, *, upper=False):
    """Cholesky factor of (a stack of) symmetric positive-definite matrices (lower, or
    upper with ``upper=True``).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.cholesky(cnp.asarray([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    x = _float(x)
    _square(x, "cholesky")
    lower = Cholesky.apply(x)
    return _mH(lower) if upper else lower


def eigh(x, /):
    """Eigenvalues (ascending) and eigenvectors of (a stack of) symmetric matrices; only
    the lower triangle is read (NumPy's default).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.eigh(cnp.asarray([[2.0, 1.0], [1.0, 2.0]])).eigenvalues.tolist()
    [1.0, 3.0]
    """
    x = _float(x)
    _square(x, "eigh")
    return EighResult(*Eigh.apply(x))


def eigvalsh(x, /):
    """Eigenvalues (ascending) of (a stack of) symmetric matrices.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.eigvalsh(cnp.asarray([[2.0, 0.0], [0.0, 1.0]])).tolist()
    [1.0, 2.0]
    """
    return eigh(x).eigenvalues


def svd(x, /, *, full_matrices=True):
    """Singular value decomposition ``U @ diag(S) @ Vh`` (a named tuple).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.svd(cnp.asarray([[3.0, 0.0], [0.0, -2.0]])).S.tolist()
    [3.0, 2.0]
    """
    x = _float(x)
    return SVDResult(*Svd.apply(x, builtins.bool(full_matrices)))


def svdvals(x, /):
    """Singular values, descending.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.svdvals(cnp.asarray([[0.0, 2.0], [1.0, 0.0]])).tolist()
    [2.0, 1.0]
    """
    return svd(x, full_matrices=False).S


def qr(x, /, *, mode="reduced"):
    """QR decomposition (``mode="reduced"`` or ``"complete"``; a named tuple).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> q, r = cnp.linalg.qr(cnp.asarray([[1.0, 2.0], [3.0, 4.0]]))
    >>> cnp.allclose(q @ r, [[1.0, 2.0], [3.0, 4.0]])
    True
    """
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr mode must be 'reduced' or 'complete', got {mode!r}")
    return QRResult(*Qr.apply(_float(x), mode))


def _rtol(x, rtol, s):
    if rtol is None:
        return s.max(dim=-1, keepdim=True).values * (builtins.max(x.shape[-2:]) * D.finfo(x.dtype).eps)
    rt = tensor(rtol)
    return s.max(dim=-1, keepdim=True).values * (rt.unsqueeze(-1) if rt.dim() else rt)


def pinv(x, /, *, rtol=None):
    """Moore-Penrose pseudo-inverse; singular values at most ``rtol * max(S)`` count as
    zero (default ``rtol = max(M, N) * eps``).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.pinv(cnp.asarray([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    x = _float(x)
    u, s, vh = svd(x, full_matrices=False)
    keep = s > _rtol(x, rtol, s)
    s_inv = cygrad.where(keep, 1.0 / cygrad.where(keep, s, cygrad.ones_like(s)), cygrad.zeros_like(s))
    return _mH(vh) @ (s_inv.unsqueeze(-1) * _mH(u))


def matrix_rank(x, /, *, rtol=None):
    """Number of singular values above ``rtol * max(S)``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.matrix_rank(cnp.asarray([[1.0, 2.0], [2.0, 4.0]])).item()
    1
    """
    x = _float(x).detach()
    s = svdvals(x)
    return (s > _rtol(x, rtol, s)).to(D.int64).sum(dim=-1)


def lstsq(a, b, rcond=None):
    """NumPy's ``lstsq``: ``(x, residuals, rank, s)`` with ``x = pinv(a) @ b``
    (differentiable through ``pinv``).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> a = cnp.asarray([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
    >>> x = cnp.linalg.lstsq(a, cnp.asarray([1.0, 2.0, 3.0]))[0]
    >>> [round(v, 6) for v in x.tolist()]
    [1.0, 1.0]
    """
    a, b = operands(_float(a), _float(b))
    x = pinv(a, rtol=rcond) @ b
    s = svdvals(a.detach())
    rank = matrix_rank(a, rtol=rcond)
    m, n = a.shape[-2:]
    if builtins.int(rank) == n and m > n:
        r = (a @ x - b).detach()
        residuals = _abs2(r).sum(dim=0) if r.dim() > 1 else _abs2(r).sum().reshape(1)
    else:
        residuals = cygrad.zeros(0, dtype=s.dtype)
    return x, residuals, builtins.int(rank), s


def matrix_power(x, n, /):
    """``x`` multiplied by itself ``n`` times (``n < 0``: of the inverse; 0: identity).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.matrix_power(cnp.asarray([[1, 1], [0, 1]]), 3).tolist()
    [[1, 3], [0, 1]]
    """
    x = tensor(x)
    _square(x, "matrix_power")
    if n == 0:
        return cygrad.eye(x.shape[-1], dtype=x.dtype).expand(*x.shape).clone()
    if n < 0:
        x, n = inv(x), -n
    result, base = None, x
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return result


def matmul(x1, x2, /):
    """Matrix product with broadcasting (promoting dtypes).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.matmul(cnp.asarray([[1, 2]]), cnp.asarray([[3], [4]])).tolist()
    [[11]]
    """
    res = _fast.matmul(x1, x2)
    if res is not None:
        return res
    a, b = operands(x1, x2)
    return cygrad.matmul(a, b)


def outer(x1, x2, /):
    """Outer product of two vectors (NumPy flattens other shapes).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.outer(cnp.asarray([1, 2]), cnp.asarray([3, 4])).tolist()
    [[3, 4], [6, 8]]
    """
    a, b = operands(x1, x2)
    return cygrad.outer(a.reshape(-1), b.reshape(-1))


def tensordot(x1, x2, /, *, axes=2):
    """Sum of products over ``axes`` (an int: the last/first ``axes`` dims; or two
    sequences of axes).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.tensordot(cnp.ones((2, 3)), cnp.ones((3, 4)), axes=1).shape
    cygrad.Size([2, 4])
    """
    a, b = operands(x1, x2)
    if not isinstance(axes, int):
        axes = [list(axes[0]) if not isinstance(axes[0], int) else [axes[0]],
                list(axes[1]) if not isinstance(axes[1], int) else [axes[1]]]
    return cygrad.tensordot(a, b, dims=axes)


def vecdot(x1, x2, /, *, axis=-1):
    """Dot product along ``axis`` (broadcasting the rest); a complex ``x1`` is
    conjugated first (the standard's ``sum(conj(x1) * x2)``).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.vecdot(cnp.asarray([[1.0, 2.0], [3.0, 4.0]]), cnp.asarray([1.0, 1.0])).tolist()
    [3.0, 7.0]
    >>> cnp.vecdot(cnp.asarray([1j]), cnp.asarray([1j])).item()
    (1+0j)
    """
    a, b = operands(x1, x2)
    if a.dim() == 0 or b.dim() == 0:
        raise ValueError("vecdot: the arguments must have at least one dimension")
    nd = builtins.max(a.dim(), b.dim())
    ax = normalize_axis(axis, nd) - nd      # counted from the end, after broadcasting
    if -ax > builtins.min(a.dim(), b.dim()):
        raise ValueError(f"vecdot: axis {axis} is out of range for the shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    n1, n2 = a.shape[ax], b.shape[ax]
    if n1 != n2:
        # the contracted axis is not broadcast (the standard; NumPy raises too)
        raise ValueError(f"vecdot: the sizes of the contracted axis differ ({n1} and {n2})")
    if a.dtype.is_complex:
        a = cygrad.conj(a)
    a, b = cygrad.broadcast_tensors(a, b)
    prod = a * b
    # the standard keeps the promoted dtype; cygrad's sum of integers is int64
    return cygrad.sum(prod, dim=ax, dtype=prod.dtype)


def cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-vectors along ``axis``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.cross(cnp.asarray([1, 0, 0]), cnp.asarray([0, 1, 0])).tolist()
    [0, 0, 1]
    """
    a, b = operands(x1, x2)
    a, b = cygrad.broadcast_tensors(a, b)
    axis = normalize_axis(axis, a.dim())
    if a.shape[axis] != 3:
        raise ValueError("cross needs vectors of size 3 along axis")
    a0, a1, a2 = cygrad.unbind(a, dim=axis)
    b0, b1, b2 = cygrad.unbind(b, dim=axis)
    return cygrad.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim=axis)


def diagonal(x, /, *, offset=0):
    """The ``offset``-th diagonal of (a stack of) matrices (a view).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.diagonal(cnp.asarray([[1, 2], [3, 4]]), offset=1).tolist()
    [2]
    """
    return cygrad.diagonal(tensor(x), offset=offset, dim1=-2, dim2=-1)


def trace(x, /, *, offset=0, dtype=None):
    """Sum of the ``offset``-th diagonal of (a stack of) matrices.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.trace(cnp.asarray([[1, 2], [3, 4]])).item()
    5
    """
    from ._statistical import sum as _sum
    return _sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """Vector p-norm over ``axis`` (None: all elements); ``ord`` any number, ``inf``,
    ``-inf`` or 0 (the count of non-zeros).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.vector_norm(cnp.asarray([3.0, 4.0])).item()
    5.0
    """
    from ._statistical import sum as _sum, max as _max, min as _min
    x = _float(x)
    a = x.abs()
    if ord == math.inf:
        return _max(a, axis=axis, keepdims=keepdims)
    if ord == -math.inf:
        return _min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        return _sum((a != 0).to(a.dtype), axis=axis, keepdims=keepdims)
    if ord == 1:
        return _sum(a, axis=axis, keepdims=keepdims)
    if ord == 2:
        return cygrad.sqrt(_sum(_abs2(x), axis=axis, keepdims=keepdims))
    return _sum(a ** ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """Matrix norm over the last two axes: ``"fro"``, ``"nuc"``, 1, -1, 2, -2, inf, -inf.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.matrix_norm(cnp.asarray([[1.0, -2.0], [3.0, 4.0]]), ord=1).item()
    6.0
    """
    from ._statistical import sum as _sum, max as _max, min as _min
    x = _float(x)
    if ord == "fro":
        res = cygrad.sqrt(_sum(_abs2(x), axis=(-2, -1)))
    elif ord == "nuc":
        res = _sum(svdvals(x), axis=-1)
    elif ord in (2, -2):
        s = svdvals(x)
        res = _max(s, axis=-1) if ord == 2 else _min(s, axis=-1)
    elif ord in (1, -1):
        cols = _sum(x.abs(), axis=-2)
        res = _max(cols, axis=-1) if ord == 1 else _min(cols, axis=-1)
    elif ord in (math.inf, -math.inf):
        rows = _sum(x.abs(), axis=-1)
        res = _max(rows, axis=-1) if ord > 0 else _min(rows, axis=-1)
    else:
        raise ValueError(f"invalid norm order {ord!r} for matrices")
    return res.unsqueeze(-1).unsqueeze(-1) if keepdims else res


def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's ``linalg.norm``: the 2-norm of the flattened array by default, a matrix
    norm when ``axis`` is a pair or ``x`` is 2-D with an ``ord`` given.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.norm(cnp.asarray([[3.0, 0.0], [0.0, 4.0]])).item()
    5.0
    """
    x = _float(x)
    if axis is None and ord is None:
        res = vector_norm(x.reshape(-1))
        return res.reshape((1,) * x.dim()) if keepdims else res
    if axis is None:
        axis = tuple(range(x.dim())) if x.dim() <= 2 else None
    if isinstance(axis, int) or (isinstance(axis, tuple) and len(axis) == 1):
        return vector_norm(x, axis=axis, keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axis) == 2:
        a0, a1 = (normalize_axis(a, x.dim()) for a in axis)
        moved = cygrad.movedim(x, (a0, a1), (-2, -1))
        res = matrix_norm(moved, ord="fro" if ord is None else ord)
        if keepdims:
            for a in sorted((a0, a1)):
                res = res.unsqueeze(a)
        return res
    raise ValueError("Improper number of dimensions to norm.")
