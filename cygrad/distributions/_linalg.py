"""Private differentiable ``cholesky`` and ``solve_triangular`` for the Gaussian
distributions, computing through the kernel table's ``linalg_cholesky`` and
``linalg_solve`` primitives.

To be replaced by ``cygrad.linalg.cholesky`` / ``cygrad.linalg.solve_triangular``
when the linear-algebra work lands: :func:`cholesky` and :func:`solve_triangular`
already call them when ``cygrad.linalg`` has them.  Both are Functions with ``backward`` and
``jvp`` written with differentiable ops, so second derivatives work too.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions._linalg import cholesky, solve_triangular
>>> L = cholesky(cygrad.tensor([[4.0, 2.0], [2.0, 5.0]]))
>>> L.tolist()
[[2.0, 0.0], [1.0, 2.0]]
>>> solve_triangular(L, cygrad.tensor([[2.0], [5.0]]), upper=False).tolist()
[[1.0], [2.0]]
"""
import cygrad
from cygrad._core.dispatch import kernel
from cygrad.autograd import Function
from cygrad.autograd.forward_ad import saved_for_jvp


def _phi(x):
    """Lower triangle with the diagonal halved."""
    return x.tril(-1) + 0.5 * (x * _eye_like(x))


def _eye_like(x):
    return cygrad.eye(x.shape[-1], dtype=x.dtype, device=x.device)


def _sym(x):
    return 0.5 * (x + x.mT)


class Cholesky(Function):
    """``L = cholesky(A)``: ``grad_A = sym(L^-T Phi(L^T G) L^-1)``,
    tangent ``dL = L Phi(L^-1 dA L^-T)`` (``Phi``: lower triangle, half diagonal)."""

    @staticmethod
    def forward(ctx, a):
        try:
            L = kernel("linalg_cholesky", a.device.type)(a.contiguous())
        except Exception as e:  # the backend's LinAlgError
            raise RuntimeError(
                "linalg.cholesky: The factorization could not be completed because the "
                "input is not positive-definite.") from e
        ctx.save_for_backward(L)
        return L

    @staticmethod
    def backward(ctx, grad):
        L, = ctx.saved_tensors
        p = _phi(L.mT @ grad)
        s = solve_triangular(L.mT, solve_triangular(L.mT, p, upper=True).mT, upper=True)
        return _sym(s)

    @staticmethod
    def jvp(ctx, ta):
        L, = saved_for_jvp(ctx)
        x = solve_triangular(L, solve_triangular(L, ta, upper=False).mT, upper=False).mT
        return L @ _phi(x)


class SolveTriangular(Function):
    """``X = A^-1 B`` for triangular ``A``: ``grad_B = A^-T G``,
    ``grad_A = -tri(grad_B X^T)``; tangent ``dX = A^-1 (dB - dA X)``."""

    @staticmethod
    def forward(ctx, a, b, upper):
        tri, wide_b = _broadcast_batch(_tri(a, upper), b)
        x = kernel("linalg_solve", a.device.type)(tri.contiguous(), wide_b.contiguous())
        ctx.upper = upper
        # the inputs themselves are saved (not the triangle taken here), so that a
        # double backward reaches them
        ctx.save_for_backward(a, x)
        ctx.shapes = (a.shape, b.shape)
        return x

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        a_shape, b_shape = ctx.shapes
        gb = solve_triangular(a.mT, grad, upper=not ctx.upper)
        ga = None
        if ctx.needs_input_grad[0]:
            ga = _tri(-(gb @ x.mT), ctx.upper).sum_to_size(a_shape)
        return ga, gb.sum_to_size(b_shape), None

    @staticmethod
    def jvp(ctx, ta, tb, _upper):
        a, x = saved_for_jvp(ctx)
        rhs = tb
        if ta is not None:
            ta = _tri(ta, ctx.upper)
            rhs = -(ta @ x) if rhs is None else rhs - ta @ x
        return solve_triangular(a, rhs, upper=ctx.upper)


def _tri(a, upper):
    return a.triu() if upper else a.tril()


def _broadcast_batch(a, b):
    batch = cygrad.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return a.expand(batch + a.shape[-2:]), b.expand(batch + b.shape[-2:])


def _public_linalg(name):
    linalg = getattr(cygrad, "linalg", None)
    return getattr(linalg, name, None)


def cholesky(a):
    """Lower Cholesky factor of a (batch of) symmetric positive-definite matrices."""
    public = _public_linalg("cholesky")
    return public(a) if public is not None else Cholesky.apply(a)


def solve_triangular(a, b, *, upper):
    """``A^-1 B`` for a (batch of) triangular ``A`` (only its ``upper`` or lower
    triangle is read) and ``B`` of shape ``(..., n, k)``."""
    public = _public_linalg("solve_triangular")
    return public(a, b, upper=upper) if public is not None else SolveTriangular.apply(a, b, upper)
