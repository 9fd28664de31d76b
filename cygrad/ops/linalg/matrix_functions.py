"""``cygrad.linalg``'s norms, matrix functions and vector helpers: ``vector_norm``,
``matrix_norm``, ``norm``, ``cond``, ``matrix_power``, ``matrix_exp``,
``multi_dot``, ``cross``, ``vecdot``, ``vander``, ``diagonal``,
``householder_product`` and ``matmul``.

All are compositions of differentiable ops (the vector norm's Function
``LinalgVectorNormBackward0`` of ``cygrad/ops/reduction/norms.py``, the SVD of
:mod:`.decompositions`, products), so their gradients, second derivatives and
forward-mode derivatives come from those.
"""
import builtins
import math
import numbers

import cygrad
from ._checks import check_float, check_kernel_dtype, check_matrix, check_tensor, tname
from ._common import _into_out
from .decompositions import Inv, Svd, _kernel, _mH
from .products import matmul

__all__ = ["vector_norm", "matrix_norm", "norm", "cond", "matrix_power", "matrix_exp",
           "multi_dot", "cross", "vecdot", "vander", "diagonal", "householder_product", "matmul"]


def _out(res, out, name):
    return res if out is None else _into_out(out, res, name)


# ----------------------------------------------------------------------- norms

def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector ``ord``-norm over ``dim`` (None: every element): ``sum(|x|^ord)^(1/ord)``,
    ``inf``/``-inf`` the largest/smallest ``|x|``, 0 the count of non-zeros.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.vector_norm(cygrad.tensor([3.0, -4.0])).item()
    5.0
    >>> cygrad.linalg.vector_norm(cygrad.tensor([3.0, -4.0]), ord=float("inf")).item()
    4.0
    """
    check_tensor(x, "linalg_vector_norm", "input")
    if isinstance(ord, str) or not isinstance(ord, numbers.Number) or isinstance(ord, complex):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not "
                        f"{type(ord).__name__}")
    if not (x.dtype.is_floating_point or x.is_complex()):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {tname(x.dtype)}")
    return cygrad.norm(x, p=ord, dim=dim, keepdim=keepdim, dtype=dtype, out=out)


def _matrix_dims(A, dim, name):
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if len(dim) != 2:
        raise RuntimeError(f"{name}: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    d0, d1 = (d % A.dim() if -A.dim() <= d < A.dim() else d for d in dim)
    if not (0 <= d0 < A.dim() and 0 <= d1 < A.dim()):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-A.dim()}, {A.dim() - 1}], but got {dim[0] if not 0 <= d0 < A.dim() else dim[1]})")
    if d0 == d1:
        raise RuntimeError(f"{name}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norm over the two dims ``dim``: ``"fro"``, ``"nuc"`` (sum of singular
    values), 2 / -2 (largest / smallest singular value), 1 / -1 (max / min column
    sum of ``|A|``), ``inf`` / ``-inf`` (max / min row sum).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.matrix_norm(cygrad.tensor([[1.0, -2.0], [3.0, 4.0]]), ord=1).item()
    6.0
    """
    check_tensor(A, "linalg_matrix_norm")
    d0, d1 = _matrix_dims(A, tuple(dim), "linalg.matrix_norm")
    if not (A.dtype.is_floating_point or A.is_complex()):
        check_float(A, "linalg.matrix_norm")
    if dtype is not None:
        A = A.to(dtype)
    if ord in ("nuc", 2, -2):
        check_float(A, "linalg.matrix_norm")
    if ord == "fro":
        res = cygrad.norm(A, p=2, dim=(d0, d1), keepdim=keepdim)
        return _out(res, out, "linalg_matrix_norm")
    if ord not in ("nuc", 2, -2, 1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if ord in ("nuc", 2, -2):
        moved = cygrad.movedim(A, (d0, d1), (-2, -1))
        s = Svd.apply(moved, False)[1]
        if ord == 2 and s.shape[-1] == 0:
            res = s.sum(dim=-1)             # the largest of no singular values: 0, as PyTorch
        else:
            res = s.sum(dim=-1) if ord == "nuc" else (s.amax if ord == 2 else s.amin)(dim=-1)
    else:
        summed, other = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = A.abs().sum(dim=summed, keepdim=True)
        res = (sums.amax if ord > 0 else sums.amin)(dim=other, keepdim=True)
        res = res.squeeze(builtins.max(d0, d1)).squeeze(builtins.min(d0, d1))
    if keepdim:
        for d in sorted((d0, d1)):
            res = res.unsqueeze(d)
    return _out(res, out, "linalg_matrix_norm")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """``vector_norm`` or ``matrix_norm`` as PyTorch chooses: a matrix norm when
    ``dim`` is a 2-tuple, or when ``dim`` is None and ``A`` is 2-D with an ``ord``;
    the 2-norm of all elements when both are None.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.norm(cygrad.tensor([[3.0, 0.0], [0.0, 4.0]])).item()
    5.0
    >>> cygrad.linalg.norm(cygrad.tensor([[3.0, 0.0], [0.0, 4.0]]), ord=2).item()
    4.0
    """
    check_tensor(A, "linalg_norm")
    if isinstance(dim, numbers.Integral):
        dim = (dim,)
    if dim is not None and len(dim) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype, out=out)
    if dim is None and ord is not None:
        if A.dim() not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must "
                               f"be 1D or 2D. Got {A.dim()}D.")
        if A.dim() == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                           f"Got {list(dim) if dim is not None else dim}")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)


def cond(A, p=None, *, out=None):
    """Condition number ``norm(A, p) * norm(inv(A), p)``; for ``p`` None, 2 or -2 the
    ratio of extreme singular values (NaN for an all-zero matrix), for the other
    norms infinite where ``A`` is singular.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.cond(cygrad.tensor([[2.0, 0.0], [0.0, 0.5]])).item()
    4.0
    """
    check_matrix(A, "linalg.cond", half_kernel="linalg_svd_cpu")
    if p in (None, 2, -2):
        s = Svd.apply(A, False)[1]
        big, small = s[..., :1], s[..., -1:]
        res = (big / small if p != -2 else small / big).squeeze(-1)
        return _out(res, out, "linalg_cond")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.cond: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    info = _kernel("linalg_inv_ex", A)(A.detach(), False)[1]
    singular = info != 0
    if builtins.bool(singular.any()):
        keep = ~singular
        ok = A[keep]
        res = cygrad.full(tuple(A.shape[:-2]), math.inf, dtype=A.real.dtype if A.is_complex()
                          else A.dtype, device=A.device)
        if ok.shape[0]:
            res = res.index_put((keep,), matrix_norm(ok, p) * matrix_norm(Inv.apply(ok), p))
        return _out(res, out, "linalg_cond")
    return _out(matrix_norm(A, p) * matrix_norm(Inv.apply(A), p), out, "linalg_cond")


# ----------------------------------------------------------------------- matrix functions

def matrix_power(A, n, *, out=None):
    """``A`` multiplied by itself ``n`` times by repeated squaring (``n = 0``: the
    identity; ``n < 0``: powers of ``inv(A)``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.matrix_power(cygrad.tensor([[1, 1], [0, 1]]), 3).tolist()
    [[1, 3], [0, 1]]
    """
    check_tensor(A, "linalg_matrix_power")
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError(f"linalg_matrix_power(): argument 'n' (position 2) must be int, not "
                        f"{type(n).__name__}")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 "
                           "dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but "
                           f"they are {A.shape[-2]} by {A.shape[-1]} matrices")
    if n == 0:
        eye = cygrad.eye(A.shape[-1], dtype=A.dtype, device=A.device)
        return _out(eye.expand(*A.shape).clone(), out, "linalg_matrix_power")
    if n < 0:
        check_matrix(A, "linalg.inv", square=True)
        A, n = Inv.apply(A), -n
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return _out(result if result is not A else A.clone(), out, "linalg_matrix_power")


# Pade approximants of degree 3..13 of exp (Higham 2005, "The scaling and squaring
# method for the matrix exponential revisited", Table 2.3: the largest 1-norm each
# degree is accurate for in double precision).
_THETA = {3: 1.495585217958292e-2, 5: 2.539398330063230e-1, 7: 9.504178996162932e-1,
          9: 2.097847961257068e0, 13: 5.371920351148152e0}
_THETA_32 = {3: 4.258730016922831e-1, 5: 1.880152677804762e0, 7: 3.925724783138660e0}


def _pade_coefficients(m):
    """``b_k = (2m - k)! m! / ((2m)! k! (m - k)!)``, ``k = 0..m``."""
    f = math.factorial
    return [f(2 * m - k) * f(m) / (f(2 * m) * f(k) * f(m - k)) for k in range(m + 1)]


def _pade(A, m):
    """``(V - U)^-1 (V + U)``: U the odd and V the even part of the degree-``m``
    numerator."""
    b = _pade_coefficients(m)
    eye = cygrad.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    a2 = matmul(A, A)
    powers = [eye, a2]
    for _ in range(2, m // 2 + 1):
        powers.append(matmul(powers[-1], a2))
    odd = builtins.sum((b[2 * k + 1] * powers[k] for k in range(m // 2 + 1)),
                       cygrad.zeros_like(A))
    even = builtins.sum((b[2 * k] * powers[k] for k in range(m // 2 + 1)), cygrad.zeros_like(A))
    u = matmul(A, odd)
    from .decompositions import Solve
    return Solve.apply(even - u, even + u)


def matrix_exp(A):
    """The matrix exponential ``sum_k A^k / k!``, by scaling and squaring with a
    Pade approximant (Higham 2005): differentiable through the products and the
    solve it is made of.

    Examples
    --------
    >>> import cygrad
    >>> e = cygrad.linalg.matrix_exp(cygrad.tensor([[0.0, 1.0], [0.0, 0.0]]))
    >>> e.tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    check_tensor(A, "linalg_matrix_exp", "input")
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 "
                           "dimensions." if A.dim() < 2 else
                           f"linalg.matrix_exp: A must be batches of square matrices, but they "
                           f"are {A.shape[-2]} by {A.shape[-1]} matrices")
    if not (A.dtype.is_floating_point or A.is_complex()):
        check_float(A, "linalg.matrix_exp")
    if A.numel() == 0:
        return A.clone()
    if A.dtype.name in ("float16", "bfloat16"):
        # (PyTorch supports half types here: computed in float32, rounded once)
        return matrix_exp(A.to(cygrad.float32)).to(A.dtype)
    theta = _THETA_32 if A.dtype.name in ("float32", "complex64") else _THETA
    norm1 = builtins.float(A.detach().abs().sum(dim=-2).amax())
    if not math.isfinite(norm1):
        return A + cygrad.full_like(A, math.nan)
    for m in sorted(theta):
        if norm1 <= theta[m]:
            return _pade(A, m)
    m = builtins.max(theta)
    s = builtins.max(0, math.ceil(math.log2(norm1 / theta[m])))
    e = _pade(A / (2 ** s), m)
    for _ in range(s):
        e = matmul(e, e)
    return e


def multi_dot(tensors, *, out=None):
    """The product of a chain of matrices, in the cheapest order; the first may be
    a vector (a row), the last a vector (a column).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.multi_dot([cygrad.ones(3), cygrad.ones(3, 2), cygrad.ones(2)]).item()
    6.0
    """
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    for i, t in enumerate(tensors):
        check_tensor(t, "linalg_multi_dot", "tensors")
        lo = 1 if i in (0, len(tensors) - 1) else 2
        if not lo <= t.dim() <= 2:
            which = "first" if i == 0 else "last" if i == len(tensors) - 1 else None
            raise RuntimeError(
                f"multi_dot(): the {which} tensor must be 1D or 2D but got {t.dim()}D"
                if which else f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    first_vec, last_vec = tensors[0].dim() == 1, tensors[-1].dim() == 1
    mats = list(tensors)
    if first_vec:
        mats[0] = mats[0].unsqueeze(0)
    if last_vec:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i in range(len(mats) - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{list(mats[i].shape)} and {list(mats[i + 1].shape)} cannot be "
                               f"multiplied")
    res = _chain(mats, _order([m.shape[0] for m in mats] + [mats[-1].shape[1]]), 0, len(mats) - 1)
    if first_vec:
        res = res.squeeze(0)
    if last_vec:
        res = res.squeeze(-1)
    return _out(res, out, "linalg_multi_dot")


def _order(dims):
    """The matrix-chain order of least multiply-adds (dynamic programming):
    ``split[i][j]`` is where the product of matrices ``i..j`` is cut."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return matmul(_chain(mats, split, i, k), _chain(mats, split, k + 1, j))


# ----------------------------------------------------------------------- vectors

def cross(input, other, *, dim=-1, out=None):
    """Cross product of 3-vectors along ``dim`` (the other dims broadcast).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.cross(cygrad.tensor([1, 0, 0]), cygrad.tensor([0, 1, 0])).tolist()
    [0, 0, 1]
    """
    check_tensor(input, "linalg_cross", "input")
    check_tensor(other, "linalg_cross", "other", 2)
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = dim % input.dim() if -input.dim() <= dim < input.dim() else None
    if d is None:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-input.dim()}, {input.dim() - 1}], but got {dim})")
    if input.dtype is cygrad.bool:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[d]} and {other.shape[d]}")
    a, b = cygrad.broadcast_tensors(input, other)
    a0, a1, a2 = a.unbind(d)
    b0, b1, b2 = b.unbind(d)
    res = cygrad.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim=d)
    return _out(res, out, "linalg_cross")


def vecdot(x, y, *, dim=-1, out=None):
    """``sum(conj(x) * y)`` along ``dim`` (the other dims broadcast).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.vecdot(cygrad.tensor([[1.0, 2.0], [3.0, 4.0]]), cygrad.tensor([1.0, 1.0])).tolist()
    [3.0, 7.0]
    """
    check_tensor(x, "linalg_vecdot", "x")
    check_tensor(y, "linalg_vecdot", "y", 2)
    if not (x.dtype.is_floating_point or x.is_complex()):
        check_float(x, "linalg.vecdot")
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {tname(x.dtype)} and y of type {tname(y.dtype)} instead")
    return _out(((x.conj() if x.is_complex() else x) * y).sum(dim=dim), out, "linalg_vecdot")


def vander(x, *, N=None):
    """The Vandermonde matrix of ``x`` with increasing powers:
    ``[..., i, j] = x[..., i] ** j`` for ``j < N`` (default ``x.shape[-1]``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.vander(cygrad.tensor([1, 2, 3])).tolist()
    [[1, 1, 1], [1, 2, 4], [1, 3, 9]]
    """
    check_tensor(x, "linalg_vander", "x")
    if x.dim() < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension")
    if x.dtype is cygrad.bool or x.dtype.name in ("float16", "bfloat16"):
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer "
                           f"tensors, but got {tname(x.dtype)}")
    return _vander(x, N)


def _vander(x, N):
    """Increasing powers of ``x`` (integers in int64, as PyTorch's cumulative
    product makes them)."""
    if not (x.dtype.is_floating_point or x.is_complex()):
        x = x.to(cygrad.int64)
    n = x.shape[-1] if N is None else N
    if n <= 1:
        if n < 0:
            raise RuntimeError("N must be greater than 1.")
        return cygrad.ones(*(tuple(x.shape) + (n,)), dtype=x.dtype, device=x.device)
    cols = x.unsqueeze(-1).expand(*(tuple(x.shape) + (n - 1,)))
    powers = cygrad.cumprod(cols, dim=-1).to(x.dtype)
    return cygrad.cat([cygrad.ones_like(x).unsqueeze(-1), powers], dim=-1)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The ``offset``-th diagonal of each matrix over ``dim1``, ``dim2`` (a view).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.diagonal(cygrad.tensor([[1, 2], [3, 4]])).tolist()
    [1, 4]
    """
    check_tensor(A, "linalg_diagonal")
    return cygrad.diagonal(A, offset=offset, dim1=dim1, dim2=dim2)


def householder_product(A, tau, *, out=None):
    """The first ``n`` columns of ``H_1 H_2 ... H_k``, ``H_i = I - tau_i v_i v_i^H``
    with ``v_i`` the ``i``-th column of ``A`` below the diagonal and a 1 on it
    (LAPACK's ``orgqr``: ``Q`` from :func:`cygrad.geqrf`'s result).

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=cygrad.float64)
    >>> h, tau = cygrad.geqrf(a)
    >>> q = cygrad.linalg.householder_product(h, tau)
    >>> (q.mT @ q - cygrad.eye(2, dtype=cygrad.float64)).abs().max().item() < 1e-12
    True
    """
    check_tensor(A, "linalg_householder_product", "input")
    check_tensor(tau, "linalg_householder_product", "tau", 2)
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.householder_product: input must have at least 2 "
                           "dimensions.")
    m, n = A.shape[-2:]
    if m < n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater "
                           "than or equal to input.shape[-1]")
    if tau.shape[-1] > n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater "
                           "than or equal to tau.shape[-1]")
    if A.dtype is not tau.dtype:
        raise RuntimeError(f"torch.linalg.householder_product: tau dtype {tname(tau.dtype)} "
                           f"does not match input dtype {tname(A.dtype)}")
    check_kernel_dtype(A, "orgqr_cpu")
    q = cygrad.eye(m, n, dtype=A.dtype, device=A.device).expand(*A.shape)
    below = cygrad.tril(A, diagonal=-1) + cygrad.eye(m, n, dtype=A.dtype, device=A.device)
    # Q = H_1 (H_2 (... (H_k I))): apply the reflectors from the last
    for i in range(tau.shape[-1] - 1, -1, -1):
        v = below[..., :, i:i + 1]
        w = _mH(v) @ q
        q = q - tau[..., i:i + 1].unsqueeze(-1) * (v @ w)
    return _out(q, out, "linalg_householder_product")
