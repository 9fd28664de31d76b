"""Discrete Fourier transforms, differentiable: ``torch.fft``'s functions.

Three autograd Functions do the work, each computing with the ``fft_c2c`` /
``fft_r2c`` / ``fft_c2r`` kernels of the kernel table and each with its adjoint
transform as backward:

* ``C2C`` (``fft``, ``ifft``, ``fftn``, ...): a complex-linear map ``y = c F x``, so
  the gradient is ``c F^H g``: the opposite-direction transform with the *dual*
  norm (``"backward"`` <-> ``"forward"``, ``"ortho"`` itself), which carries the
  same scale ``c``.
* ``R2C`` (``rfft``): the first ``n // 2 + 1`` outputs of ``c F x`` for real ``x``;
  the gradient is ``Re(c F^H P g)`` with ``P`` the zero-padding back to ``n``.
* ``C2R`` (``irfft``): ``x_j = Re(c sum_k w_k X_k e^{+2 pi i jk/n})`` with the
  Hermitian weights ``w = (1, 2, ..., 2, 1 for even n)``; each term is ``Re(a X)``
  whose gradient (``d/dRe + i d/dIm``) is ``conj(a)``, so the input's gradient is
  ``w * rfft(g)`` with the dual norm.

Padding or cropping to ``n`` (``s``) is done before the transform with ``narrow``
and ``cat``, so autograd handles it too. ``hfft``/``ihfft`` are ``irfft``/``rfft``
of the conjugate with the norm's direction swapped (NumPy's definition).

Examples
--------
>>> import cygrad
>>> x = cygrad.tensor([1.0, 2.0, 3.0, 4.0], dtype=cygrad.float64, requires_grad=True)
>>> X = cygrad.fft.rfft(x)
>>> X.tolist()
[(10+0j), (-2+2j), (-2+0j)]
>>> X.abs().sum().backward()
>>> [round(v, 6) for v in x.grad.tolist()]
[-0.707107, 1.292893, 0.707107, 2.707107]
"""
import operator

import cygrad
from cygrad._core import dispatch
from cygrad.autograd import Function

__all__ = ["fft", "ifft", "fftn", "ifftn", "fft2", "ifft2", "rfft", "irfft", "rfftn", "irfftn",
           "rfft2", "irfft2", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
           "hfft2", "hfftn", "ihfft2", "ihfftn"]

_NORMS = ("backward", "ortho", "forward")
_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _kernel(name, x):
    return dispatch.kernel(name, x.device)


class C2C(Function):
    """The complex-to-complex transform over ``axes`` (forward or inverse)."""

    @staticmethod
    def forward(ctx, x, axes, norm, forward):
        ctx.axes, ctx.norm, ctx.fwd = axes, norm, forward
        return _kernel("fft_c2c", x)(x, axes, norm, forward)

    @staticmethod
    def backward(ctx, g):
        return C2C.apply(g, ctx.axes, _DUAL[ctx.norm], not ctx.fwd), None, None, None

    @staticmethod
    def jvp(ctx, t, *_):
        return C2C.apply(t, ctx.axes, ctx.norm, ctx.fwd)      # linear: the same transform


class R2C(Function):
    """The forward transform of a real input, ``n // 2 + 1`` outputs on ``axes[-1]``."""

    @staticmethod
    def forward(ctx, x, axes, norm):
        ctx.axes, ctx.norm, ctx.n = axes, norm, x.shape[axes[-1]]
        return _kernel("fft_r2c", x)(x, axes, norm)

    @staticmethod
    def backward(ctx, g):
        padded = resize(g, ctx.axes[-1], ctx.n)
        return cygrad.real(C2C.apply(padded, ctx.axes, _DUAL[ctx.norm], False)), None, None

    @staticmethod
    def jvp(ctx, t, *_):
        return R2C.apply(t, ctx.axes, ctx.norm)


class C2R(Function):
    """The inverse transform of a Hermitian half-spectrum to ``n`` real points on
    ``axes[-1]``."""

    @staticmethod
    def forward(ctx, x, axes, n, norm):
        ctx.axes, ctx.norm, ctx.n = axes, norm, n
        return _kernel("fft_c2r", x)(x, axes, n, norm)

    @staticmethod
    def backward(ctx, g):
        n, axis = ctx.n, ctx.axes[-1]
        half = R2C.apply(g, ctx.axes, _DUAL[ctx.norm])
        m = n // 2 + 1
        # bins 1 .. ceil(n/2)-1 stand for two frequencies each (k and n - k)
        w = cygrad.full((m,), 2.0, dtype=g.dtype)
        w[0] = 1.0
        if n % 2 == 0:
            w[m - 1] = 1.0
        shape = [1] * g.dim()
        shape[axis] = m
        return half * w.reshape(shape), None, None, None

    @staticmethod
    def jvp(ctx, t, *_):
        # real-linear in the half-spectrum (the Hermitian extension is conjugation)
        return C2R.apply(t, ctx.axes, ctx.n, ctx.norm)


# ------------------------------------------------------------------------- helpers

def resize(x, axis, n):
    """``x`` cropped or zero-padded (at the end) to ``n`` points along ``axis``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.fft import resize
    >>> resize(cygrad.tensor([1.0, 2.0]), 0, 3).tolist(), resize(cygrad.tensor([1.0, 2.0]), 0, 1).tolist()
    ([1.0, 2.0, 0.0], [1.0])
    """
    have = x.shape[axis]
    if n == have:
        return x
    if n < have:
        return x.narrow(axis, 0, n)
    shape = list(x.shape)
    shape[axis] = n - have
    return cygrad.cat([x, cygrad.zeros(shape, dtype=x.dtype, device=x.device)], dim=axis)


def check_norm(norm):
    """``norm`` with None read as ``"backward"``; ``ValueError`` for other names."""
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ValueError(f'Invalid normalization mode: "{norm}"')
    return norm


def _points(n):
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"Invalid number of data points ({n}) specified")
    return n


def plan(x, s, axes, unique=True):
    """Normalized ``axes`` and sizes ``s`` for an n-dimensional transform: ``axes``
    None means the last ``len(s)`` axes (all axes when ``s`` is None too); an
    entry -1 of ``s`` keeps that axis' size. A repeated axis is PyTorch's
    RuntimeError unless ``unique`` is False (NumPy transforms along it again).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.fft import plan
    >>> plan(cygrad.zeros(2, 3, 4), None, None), plan(cygrad.zeros(2, 3, 4), (5, -1), None)
    (((0, 1, 2), [2, 3, 4]), ((1, 2), [5, 4]))
    """
    nd = x.dim()
    if axes is None:
        axes = tuple(range(nd)) if s is None else tuple(range(nd - len(s), nd))
    elif isinstance(axes, int):
        axes = (axes,)
    axes = tuple(_axis(a, nd) for a in axes)
    if unique and len(set(axes)) != len(axes):
        raise RuntimeError("FFT dims must be unique")
    if s is None:
        s = [x.shape[a] for a in axes]
    else:
        if isinstance(s, int):
            s = (s,)
        if len(s) != len(axes):
            raise ValueError("s and axes must have the same length")
        s = [x.shape[a] if n == -1 else _points(n) for n, a in zip(s, axes)]
    return axes, s


def _axis(a, nd):
    a = operator.index(a)
    if not -nd <= a < nd:
        raise IndexError(f"axis {a} is out of bounds for array of dimension {nd}")
    return a % nd


def c2c(x, s, axes, norm, forward):
    """The complex transform of complex ``x`` over ``axes`` at sizes ``s`` (from
    :func:`plan`), differentiable."""
    for a, n in zip(axes, s):
        x = resize(x, a, n)
    if not axes:
        return x.clone()
    return C2C.apply(x, tuple(axes), norm, forward)


def r2c(x, s, axes, norm):
    """The forward transform of real ``x``, halved along ``axes[-1]``."""
    for a, n in zip(axes, s):
        x = resize(x, a, n)
    return R2C.apply(x, tuple(axes), norm)


def c2r(x, s, axes, norm):
    """The inverse transform of a half-spectrum ``x`` to ``s[-1]`` real points along
    ``axes[-1]`` (the other axes resized to ``s``)."""
    for a, n in zip(axes[:-1], s[:-1]):
        x = resize(x, a, n)
    x = resize(x, axes[-1], s[-1] // 2 + 1)
    return C2R.apply(x, tuple(axes), s[-1], norm)


def _complex_input(x, name):
    if not isinstance(x, cygrad.Tensor):
        raise TypeError(f"fft.{name}(): argument 'input' must be Tensor, not {type(x).__name__}")
    if x.is_complex():
        return x
    if x.dtype.is_floating_point and x.dtype is not cygrad.float16 and x.dtype is not cygrad.bfloat16:
        return x.to(x.dtype.to_complex())
    return x.to(cygrad.get_default_dtype().to_complex())


def _real_input(x, name):
    if not isinstance(x, cygrad.Tensor):
        raise TypeError(f"fft.{name}(): argument 'input' must be Tensor, not {type(x).__name__}")
    if x.is_complex():
        raise RuntimeError(f"{name} expects a real input tensor, but got {x.dtype}")
    if x.dtype in (cygrad.float32, cygrad.float64):
        return x
    return x.to(cygrad.get_default_dtype())


def _dims(dim):
    return None if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))


def _one_dim(n, dim):
    return (None if n is None else (n,)), (dim,)


# ------------------------------------------------------------------- torch's API

def fft(input, n=None, dim=-1, norm=None):
    """One-dimensional discrete Fourier transform along ``dim``, ``n`` points
    (cropped or zero-padded); ``norm`` is ``"backward"`` (default), ``"ortho"`` or
    ``"forward"``. Real inputs become complex.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.fft(cygrad.tensor([1.0, 0.0, 0.0, 0.0])).tolist()
    [(1+0j), (1+0j), (1+0j), (1+0j)]
    """
    x = _complex_input(input, "fft")
    axes, s = plan(x, *_one_dim(n, dim))
    return c2c(x, s, axes, check_norm(norm), True)


def ifft(input, n=None, dim=-1, norm=None):
    """Inverse of :func:`fft` (scaled by ``1/n`` with the default norm).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.ifft(cygrad.tensor([4.0, 0.0, 0.0, 0.0])).tolist()
    [(1+0j), (1+0j), (1+0j), (1+0j)]
    """
    x = _complex_input(input, "ifft")
    axes, s = plan(x, *_one_dim(n, dim))
    return c2c(x, s, axes, check_norm(norm), False)


def fftn(input, s=None, dim=None, norm=None):
    """N-dimensional transform over ``dim`` (all dims by default, the last
    ``len(s)`` when only ``s`` is given).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.fftn(cygrad.ones(2, 2)).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    x = _complex_input(input, "fftn")
    axes, s = plan(x, s, _dims(dim))
    return c2c(x, s, axes, check_norm(norm), True)


def ifftn(input, s=None, dim=None, norm=None):
    """Inverse of :func:`fftn`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.ifftn(cygrad.fft.fftn(cygrad.tensor([[1.0, 2.0]]))).real.tolist()
    [[1.0, 2.0]]
    """
    x = _complex_input(input, "ifftn")
    axes, s = plan(x, s, _dims(dim))
    return c2c(x, s, axes, check_norm(norm), False)


def fft2(input, s=None, dim=(-2, -1), norm=None):
    """Two-dimensional :func:`fftn` over the last two dims.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.fft2(cygrad.ones(1, 2)).tolist()
    [[(2+0j), 0j]]
    """
    return fftn(input, s, dim, norm)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """Two-dimensional :func:`ifftn` over the last two dims.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.ifft2(cygrad.ones(1, 2)).tolist()
    [[(1+0j), 0j]]
    """
    return ifftn(input, s, dim, norm)


def rfft(input, n=None, dim=-1, norm=None):
    """Transform of a real signal: the ``n // 2 + 1`` non-negative frequencies.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.rfft(cygrad.tensor([1.0, 1.0, 1.0])).tolist()
    [(3+0j), 0j]
    """
    x = _real_input(input, "rfft")
    axes, s = plan(x, *_one_dim(n, dim))
    return r2c(x, s, axes, check_norm(norm))


def irfft(input, n=None, dim=-1, norm=None):
    """Inverse of :func:`rfft`: ``n`` real points (default ``2 * (m - 1)`` for ``m``
    input frequencies).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.irfft(cygrad.tensor([3.0 + 0j, 0j]), n=3).tolist()
    [1.0, 1.0, 1.0]
    """
    x = _complex_input(input, "irfft")
    axis = _axis(dim, x.dim())
    n = 2 * (x.shape[axis] - 1) if n is None else n
    axes, s = plan(x, (n,), (axis,))
    return c2r(x, s, axes, check_norm(norm))


def rfftn(input, s=None, dim=None, norm=None):
    """N-dimensional transform of a real input, halved along the last of ``dim``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.rfftn(cygrad.ones(2, 2)).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    x = _real_input(input, "rfftn")
    axes, s = plan(x, s, _dims(dim))
    return r2c(x, s, axes, check_norm(norm))


def irfftn(input, s=None, dim=None, norm=None):
    """Inverse of :func:`rfftn` (the last axis gets ``2 * (m - 1)`` points unless
    ``s`` says otherwise).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.irfftn(cygrad.fft.rfftn(cygrad.ones(2, 3)), s=(2, 3)).tolist()
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """
    x = _complex_input(input, "irfftn")
    axes, s = irfft_plan(x, s, _dims(dim))
    return c2r(x, s, axes, check_norm(norm))


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """Two-dimensional :func:`rfftn`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.rfft2(cygrad.ones(2, 2)).shape
    cygrad.Size([2, 2])
    """
    return rfftn(input, s, dim, norm)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """Two-dimensional :func:`irfftn`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.irfft2(cygrad.fft.rfft2(cygrad.ones(2, 4))).shape
    cygrad.Size([2, 4])
    """
    return irfftn(input, s, dim, norm)


def irfft_plan(x, s, axes, unique=True):
    """:func:`plan` for a c2r transform: without ``s``, the last axis' output size is
    ``2 * (m - 1)``."""
    if s is None:
        axes, s = plan(x, None, axes, unique)
        s[-1] = 2 * (x.shape[axes[-1]] - 1)
        _points(s[-1])
        return axes, s
    return plan(x, s, axes, unique)


def hfft(input, n=None, dim=-1, norm=None):
    """Transform of a Hermitian-symmetric signal given by its first half: ``n`` real
    points (``irfft`` of the conjugate, with the norm's direction swapped).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.hfft(cygrad.tensor([1.0 + 0j, 0j]), n=3).tolist()
    [1.0, 1.0, 1.0]
    """
    x = _complex_input(input, "hfft")
    return irfft(cygrad.conj(x), n, dim, _DUAL[check_norm(norm)])


def ihfft(input, n=None, dim=-1, norm=None):
    """Inverse of :func:`hfft`: the first ``n // 2 + 1`` points of a real signal's
    inverse transform.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.ihfft(cygrad.ones(4)).abs().tolist()
    [1.0, 0.0, 0.0]
    """
    x = _real_input(input, "ihfft")
    return cygrad.conj(rfft(x, n, dim, _DUAL[check_norm(norm)]))


def hfftn(input, s=None, dim=None, norm=None):
    """N-dimensional :func:`hfft`: the real transform of a signal Hermitian-symmetric
    over ``dim``, given by its half along the last of ``dim`` (``irfftn`` of the
    conjugate, with the norm's direction swapped).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.hfftn(cygrad.tensor([[1.0 + 0j, 0j], [0j, 0j]])).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    x = _complex_input(input, "hfftn")
    return irfftn(cygrad.conj(x), s, dim, _DUAL[check_norm(norm)])


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """Two-dimensional :func:`hfftn`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.hfft2(cygrad.ones(2, 2, dtype=cygrad.complex64)).shape
    cygrad.Size([2, 2])
    """
    return hfftn(input, s, dim, norm)


def ihfftn(input, s=None, dim=None, norm=None):
    """Inverse of :func:`hfftn`: the inverse transform of a real signal, halved along
    the last of ``dim``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.ihfftn(cygrad.ones(2, 4)).abs().tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    x = _real_input(input, "ihfftn")
    return cygrad.conj(rfftn(x, s, dim, _DUAL[check_norm(norm)]))


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """Two-dimensional :func:`ihfftn`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.ihfft2(cygrad.ones(2, 2)).shape
    cygrad.Size([2, 2])
    """
    return ihfftn(input, s, dim, norm)


def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """Sample frequencies of an ``n``-point transform with spacing ``d``:
    ``[0, 1, ..., ceil(n/2)-1, -floor(n/2), ..., -1] / (d n)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.fftfreq(4).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    n = _points(n)
    k = cygrad.arange(n, dtype=dtype, device=device)
    k = cygrad.where(k >= (n + 1) // 2, k - n, k)
    return (k / (d * n)).requires_grad_(requires_grad)


def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """The non-negative sample frequencies of an ``n``-point real transform:
    ``[0, 1, ..., n // 2] / (d n)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.rfftfreq(4).tolist()
    [0.0, 0.25, 0.5]
    """
    n = _points(n)
    k = cygrad.arange(n // 2 + 1, dtype=dtype, device=device)
    return (k / (d * n)).requires_grad_(requires_grad)


def _shift(x, dim, sign):
    dims = tuple(range(x.dim())) if dim is None else _dims(dim)
    shifts = [sign * (x.shape[d] // 2) for d in dims]
    if not dims:
        return x.clone()
    return cygrad.roll(x, shifts, dims)


def fftshift(input, dim=None):
    """Move the zero frequency to the centre (a roll by ``n // 2`` over ``dim``, all
    dims by default).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.fftshift(cygrad.fft.fftfreq(4)).tolist()
    [-0.5, -0.25, 0.0, 0.25]
    """
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):
    """Inverse of :func:`fftshift`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fft.ifftshift(cygrad.fft.fftshift(cygrad.arange(5))).tolist()
    [0, 1, 2, 3, 4]
    """
    return _shift(input, dim, -1)
