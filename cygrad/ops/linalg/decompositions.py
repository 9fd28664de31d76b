"""The matrix decompositions as ``autograd.Function``\\ s, shared by ``cygrad.linalg``,
the ``torch``-level functions and ``cygrad.numpy.linalg``: ``Solve``, ``Inv``,
``Det``, ``Slogdet``, ``Cholesky``, ``Eigh``, ``Eig``, ``Svd``, ``Qr`` and ``LuFactor``.

Each forward is a LAPACK kernel of the kernel table
(``cygrad/_core/backend_cpu/linalg.py``); each backward (reverse mode) and ``jvp``
(forward mode) come from the same differential: for ``y = f(A)``, ``jvp`` gives
``dy`` from ``dA`` and backward is its adjoint, written with cygrad ops so that it is
differentiable again.  The formulas hold for complex inputs with conjugate
transposes (PyTorch's convention).
"""
import builtins

import cygrad
from ..._core import dispatch
from ...autograd import Function
from ...autograd.forward_ad import saved_for_jvp


def _mT(x):
    return x.transpose(-1, -2)


def _mH(x):
    # the conjugate transpose: what the real formulas' transposes become for complex
    return _mT(cygrad.conj(x)) if x.dtype.is_complex else _mT(x)


def _diag_embed(v):
    n = v.shape[-1]
    return v.unsqueeze(-1) * cygrad.eye(n, dtype=v.dtype, device=v.device)


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
    eye = cygrad.eye(n, dtype=cygrad.bool, device=d.device)
    zero = cygrad.zeros((), dtype=d.dtype, device=d.device)
    one = cygrad.ones((), dtype=d.dtype, device=d.device)
    return cygrad.where(eye, zero, 1.0 / cygrad.where(eye, one, diff))


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
        x = _kernel("linalg_solve_ex", a)(a, b, True)[0]
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
        y = _kernel("linalg_inv_ex", a)(a, True)[0]
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
        lower = _kernel("linalg_cholesky_ex", a)(a, True)[0]
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
    def forward(ctx, a, uplo):
        w, v = _kernel("linalg_eigh_uplo", a)(a, uplo)
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
        return _sym(v @ inner @ _mH(v)), None

    @staticmethod
    def jvp(ctx, t, _):
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


def _eye_like(x):
    return cygrad.eye(x.shape[-1], dtype=x.dtype, device=x.device)


class Det(Function):
    """``d det(A) = det(A) tr(A^-1 dA)``: the gradient is ``g conj(det) A^-H``, taken
    by a solve; where some matrix is singular, ``A^-1 det(A)`` is its adjugate,
    computed from the SVD ``U S V^H`` as ``det(U) det(V^H) V diag(prod_{j!=i} s_j) U^H``
    (PyTorch's formula: finite where the inverse is not)."""
    _node_name = "LinalgDetBackward0"

    @staticmethod
    def forward(ctx, a):
        d = _kernel("linalg_det", a)(a)
        ctx.save_for_backward(a, d)
        return d

    @staticmethod
    def backward(ctx, g):
        a, d = ctx.saved_tensors
        g = g.unsqueeze(-1).unsqueeze(-1)
        if builtins.bool((d.detach() == 0).any()):
            return g * _mH(_adjugate(a))
        return _mH(Solve.apply(a, (g.conj() * d.unsqueeze(-1).unsqueeze(-1)) * _eye_like(a)))

    @staticmethod
    def jvp(ctx, t):
        a, d = saved_for_jvp(ctx)
        if builtins.bool((d.detach() == 0).any()):
            return (_adjugate(a).mT * t).sum(dim=(-2, -1))      # tr(adj(A) dA)
        return d * _diagonal(Solve.apply(a, t)).sum(dim=-1)


def _adjugate(a):
    """The adjugate of each matrix (``det(A) A^-1`` where that exists), from the SVD
    ``A = U S V^H``: ``det(U) det(V^H) V diag(prod_{j != i} s_j) U^H``."""
    u, s, vh = Svd.apply(a, False)
    n = s.shape[-1]
    eye = cygrad.eye(n, dtype=cygrad.bool, device=s.device)
    others = cygrad.where(eye, cygrad.ones((), dtype=s.dtype), s.unsqueeze(-2)).prod(dim=-1)
    phase = (Det.apply(u) * Det.apply(vh)).unsqueeze(-1).unsqueeze(-1)
    return phase * ((_mH(vh) * others.to(u.dtype).unsqueeze(-2)) @ _mH(u))


def _to_complex(x, like):
    return x if x.dtype.is_complex else x.to(like.dtype)


class Eig(Function):
    """``A V = V diag(L)`` for a general ``A`` (complex results).  With
    ``dP = V^-1 dA V`` and ``E[i, j] = L[j] - L[i]``: ``dL = diag(dP)``,
    ``dV = V (dP / E off the diagonal) - V Re diag(V^H V (dP / E))`` (the gauge of
    unit-norm eigenvectors).  Backward is the adjoint, PyTorch's
    ``V^-H (diag(gL) + (V^H gV - V^H V Re diag(V^H gV)) / conj(E)) V^H``, real for a
    real ``A``; a loss that depends on the eigenvectors' free phases is refused."""
    _node_name = "LinalgEigBackward0"

    @staticmethod
    def forward(ctx, a):
        w, v = _kernel("linalg_eig", a)(a)
        ctx.real_input = not a.dtype.is_complex
        ctx.save_for_backward(w, v)
        return w, v

    @staticmethod
    def backward(ctx, gw, gv):
        w, v = ctx.saved_tensors
        vh = _mH(v)
        if gv is not None:
            vh_gv = vh @ gv
            _check_phase(cygrad.imag(_diagonal(vh_gv)), "linalg_eig_backward", "eigenvectors")
            inner = vh_gv - (vh @ v) * cygrad.real(_diagonal(vh_gv)).to(v.dtype).unsqueeze(-2)
            inner = inner * _off_diag_inverse(w).conj()
        else:
            inner = cygrad.zeros_like(v)
        if gw is not None:
            inner = inner + _diag_embed(gw)
        ga = Solve.apply(vh, inner @ vh)
        return cygrad.real(ga) if ctx.real_input else ga

    @staticmethod
    def jvp(ctx, t):
        w, v = saved_for_jvp(ctx)
        dp = Solve.apply(v, _to_complex(t, v) @ v)
        dv = v @ (dp * _off_diag_inverse(w))
        dv = dv - v * cygrad.real(_diagonal(_mH(v) @ dv)).to(v.dtype).unsqueeze(-2)
        return _diagonal(dp), dv


class SolveTriangular(Function):
    """``X = A^-1 B`` for triangular ``A`` (its ``upper`` or lower triangle, with a
    unit diagonal when ``unit``).  ``dX = A^-1 (dB - dA X)``: ``grad_B`` solves with
    ``A^H`` (the other triangle), ``grad_A = -grad_B X^H`` kept on the triangle ``A``
    is read from."""
    _node_name = "LinalgSolveTriangularBackward0"

    @staticmethod
    def forward(ctx, a, b, upper, unit):
        ctx.upper, ctx.unit = upper, unit
        x = _kernel("linalg_solve_triangular", a)(a, b, upper, unit)
        ctx.save_for_backward(a, x)
        return x

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        gb = SolveTriangular.apply(_mH(a), g, not ctx.upper, ctx.unit)
        ga = None
        if ctx.needs_input_grad[0]:
            ga = _triangle(-(gb @ _mH(x)), ctx.upper, ctx.unit)
        return ga, gb, None, None

    @staticmethod
    def jvp(ctx, ta, tb, _upper, _unit):
        a, x = saved_for_jvp(ctx)
        rhs = _sum(tb, None if ta is None else -(_triangle(ta, ctx.upper, ctx.unit) @ x))
        return SolveTriangular.apply(a, rhs, ctx.upper, ctx.unit)


def _triangle(x, upper, strict=False):
    """The triangle of ``x`` a triangular solve reads (without the diagonal if
    ``strict``)."""
    if upper:
        return cygrad.triu(x, diagonal=1 if strict else 0)
    return cygrad.tril(x, diagonal=-1 if strict else 0)


def permutation_from_pivots(pivots, m):
    """The row order ``perm`` (int64, ``(..., m)``) that LAPACK's 1-based row
    interchanges ``pivots`` (``(..., k)``) apply: ``P^T A = A[perm]``."""
    batch = tuple(pivots.shape[:-1])
    perm = cygrad.arange(m, device=pivots.device).expand(*(batch + (m,))).clone()
    piv = pivots.to(cygrad.int64) - 1
    for i in range(pivots.shape[-1]):
        j = piv[..., i:i + 1]
        here = perm[..., i:i + 1].clone()
        there = perm.gather(-1, j)
        perm[..., i:i + 1] = there
        perm.scatter_(-1, j, here)
    return perm


def lu_unpacked(lu, m, n):
    """``L`` (unit lower, ``m x k``) and ``U`` (``k x n``) of packed LU factors."""
    k = builtins.min(m, n)
    lower = cygrad.tril(lu[..., :, :k], diagonal=-1) + cygrad.eye(m, k, dtype=lu.dtype,
                                                                    device=lu.device)
    return lower, cygrad.triu(lu[..., :k, :])


class LuFactor(Function):
    """``A = P L U`` with partial pivoting, packed as LAPACK's getrf (``LU`` holds
    ``L - I + U``; the 1-based ``pivots`` and ``info`` are integers).  For square
    ``A``, ``X = L^-1 P^T dA U^-1`` gives ``dL = L tril(X, -1)``, ``dU = triu(X) U``;
    backward is PyTorch's adjoint
    ``P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H``."""
    _node_name = "LinalgLuFactorExBackward0"

    @staticmethod
    def forward(ctx, a):
        lu, pivots, info = _kernel("linalg_lu_factor", a)(a)
        ctx.mark_non_differentiable(pivots, info)
        ctx.square = a.shape[-1] == a.shape[-2]
        ctx.save_for_backward(lu, pivots)
        return lu, pivots, info

    @staticmethod
    def backward(ctx, g, _gp, _gi):
        if not ctx.square:
            raise NotImplementedError("lu_factor backward is implemented for square matrices only")
        lu, pivots = ctx.saved_tensors
        n = lu.shape[-1]
        lower, upper = lu_unpacked(lu, n, n)
        inner = cygrad.tril(_mH(lower) @ cygrad.tril(g, diagonal=-1), diagonal=-1) + \
            cygrad.triu(cygrad.triu(g) @ _mH(upper))
        left = SolveTriangular.apply(_mH(lower), inner, True, True)
        ga = _mH(SolveTriangular.apply(upper, _mH(left), True, False))   # left @ U^-H
        perm = permutation_from_pivots(pivots, n)
        # rows of P^T A are A[perm]: the gradient of A puts row i back at perm[i]
        return cygrad.zeros_like(ga).scatter(-2, perm.unsqueeze(-1).expand(*ga.shape), ga)

    @staticmethod
    def jvp(ctx, t):
        if not ctx.square:
            raise NotImplementedError("lu_factor jvp is implemented for square matrices only")
        lu, pivots = saved_for_jvp(ctx)
        n = lu.shape[-1]
        lower, upper = lu_unpacked(lu, n, n)
        perm = permutation_from_pivots(pivots, n)
        pt_da = t.gather(-2, perm.unsqueeze(-1).expand(*t.shape))
        y = SolveTriangular.apply(lower, pt_da, False, True)
        x = _mH(SolveTriangular.apply(_mH(upper), _mH(y), False, False))   # y @ U^-1
        return lower @ cygrad.tril(x, diagonal=-1) + cygrad.triu(x) @ upper, None, None
