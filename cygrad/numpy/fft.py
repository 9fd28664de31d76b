"""The array API standard's ``fft`` extension (NumPy's ``np.fft``), differentiable.

The transforms are the autograd Functions of :mod:`cygrad.fft` (whose backward is
the adjoint transform); this module gives them the standard's signatures (``n``,
``axis``, ``s``, ``axes``, ``norm``; NumPy's positional forms work too) and
NumPy's dtypes: real floating inputs keep their precision (float32 -> complex64),
integers compute in float64/complex128.

Examples
--------
>>> import cygrad.numpy as cnp
>>> x = cnp.asarray([1.0, 2.0, 3.0, 4.0])
>>> cnp.fft.fft(x).tolist()
[(10+0j), (-2+2j), (-2+0j), (-2-2j)]
>>> cnp.fft.irfft(cnp.fft.rfft(x), n=4).tolist()
[1.0, 2.0, 3.0, 4.0]
"""
import cygrad
from cygrad import fft as _F
from cygrad._core import fastpath as _fast
from . import _dtypes as D
from ._helpers import tensor

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift", "fft2", "ifft2", "rfft2", "irfft2"]


def _complex(x):
    x = tensor(x)
    dt = x.dtype
    if dt.is_complex:
        return x
    real = D.float_for(dt)
    return x.to(D.complex64 if real in (D.float16, D.bfloat16, D.float32) else D.complex128)


def _real(x, name):
    x = tensor(x)
    if x.dtype.is_complex:
        raise TypeError(f"{name} needs a real-valued input, got {x.dtype.name}")
    dt = D.float_for(x.dtype)
    if dt in (D.float16, D.bfloat16):
        dt = D.float32      # pocketfft has no half precision (NumPy computes in float32 too)
    return x if x.dtype is dt else x.to(dt)


def _plain_call(n, axis, norm):
    """The defaults: the input's own length along its last axis, no scaling forward.
    (``_core.fastpath.fft`` takes these calls on a contiguous input.)"""
    return n is None and type(axis) is int and axis == -1 and type(norm) is str and norm == "backward"


def _one(n, axis):
    return (None if n is None else (n,)), (axis,)


def _repeats(axes):
    return len(set(axes)) != len(axes)


def _c2c_nd(x, s, axes, norm, forward):
    """An n-dimensional complex transform; with a repeated axis, NumPy's one-axis
    transforms in turn (last axis first), so that axis is transformed again, at
    its own size from ``s`` each time. (The n-dimensional transform equals that
    sequence when the axes are distinct, norm included: its scale is a product.)"""
    if not _repeats(axes):
        return _F.c2c(x, s, axes, norm, forward)
    for a, n in reversed(list(zip(axes, s))):
        x = _F.c2c(x, [n], (a,), norm, forward)
    return x


def fft(x, /, n=None, axis=-1, norm="backward"):
    """One-dimensional discrete Fourier transform along ``axis`` at ``n`` points
    (cropped or zero-padded); ``norm``: ``"backward"`` (no scaling), ``"ortho"``
    (``1/sqrt(n)``) or ``"forward"`` (``1/n``).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.fft(cnp.asarray([1.0, 0.0, 0.0]), n=2).tolist()
    [(1+0j), (1+0j)]
    """
    if _plain_call(n, axis, norm):
        res = _fast.fft(x, _fast.FFT)
        if res is not None:
            return res
    x = _complex(x)
    axes, s = _F.plan(x, *_one(n, axis))
    return _F.c2c(x, s, axes, _F.check_norm(norm), True)


def ifft(x, /, n=None, axis=-1, norm="backward"):
    """Inverse of :func:`fft` (scaled by ``1/n`` with ``norm="backward"``).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.ifft(cnp.asarray([2.0, 0.0])).tolist()
    [(1+0j), (1+0j)]
    """
    if _plain_call(n, axis, norm):
        res = _fast.fft(x, _fast.IFFT)
        if res is not None:
            return res
    x = _complex(x)
    axes, s = _F.plan(x, *_one(n, axis))
    return _F.c2c(x, s, axes, _F.check_norm(norm), False)


def fftn(x, /, s=None, axes=None, norm="backward"):
    """N-dimensional transform over ``axes`` (all by default; the last ``len(s)``
    when only ``s`` is given); ``s[i] == -1`` keeps that axis' size.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.fftn(cnp.ones((2, 2))).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    x = _complex(x)
    axes, s = _F.plan(x, s, axes, unique=False)
    return _c2c_nd(x, s, axes, _F.check_norm(norm), True)


def ifftn(x, /, s=None, axes=None, norm="backward"):
    """Inverse of :func:`fftn`.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.ifftn(cnp.fft.fftn(cnp.asarray([[1.0, 2.0]]))).tolist()
    [[(1+0j), (2+0j)]]
    """
    x = _complex(x)
    axes, s = _F.plan(x, s, axes, unique=False)
    return _c2c_nd(x, s, axes, _F.check_norm(norm), False)


def fft2(x, /, s=None, axes=(-2, -1), norm="backward"):
    """:func:`fftn` over the last two axes (NumPy's ``fft2``).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.fft2(cnp.ones((1, 2))).tolist()
    [[(2+0j), 0j]]
    """
    return fftn(x, s, axes, norm)


def ifft2(x, /, s=None, axes=(-2, -1), norm="backward"):
    """:func:`ifftn` over the last two axes (NumPy's ``ifft2``).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.ifft2(cnp.ones((1, 2))).tolist()
    [[(1+0j), 0j]]
    """
    return ifftn(x, s, axes, norm)


def rfft(x, /, n=None, axis=-1, norm="backward"):
    """Transform of a real signal: its ``n // 2 + 1`` non-negative frequencies.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.rfft(cnp.asarray([1.0, 1.0, 1.0, 1.0])).tolist()
    [(4+0j), 0j, 0j]
    """
    if _plain_call(n, axis, norm):
        res = _fast.fft(x, _fast.RFFT)
        if res is not None:
            return res
    x = _real(x, "rfft")
    axes, s = _F.plan(x, *_one(n, axis))
    return _F.r2c(x, s, axes, _F.check_norm(norm))


def irfft(x, /, n=None, axis=-1, norm="backward"):
    """Inverse of :func:`rfft`: ``n`` real points (``2 * (m - 1)`` by default for
    ``m`` input frequencies).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.irfft(cnp.asarray([3.0, 0.0]), n=3).tolist()
    [1.0, 1.0, 1.0]
    """
    x = _complex(x)
    ax = _F.plan(x, None, (axis,))[0][0]
    n = 2 * (x.shape[ax] - 1) if n is None else n
    axes, s = _F.plan(x, (n,), (ax,))
    return _F.c2r(x, s, axes, _F.check_norm(norm))


def rfftn(x, /, s=None, axes=None, norm="backward"):
    """N-dimensional transform of a real input, halved along the last of ``axes``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.rfftn(cnp.ones((2, 3))).shape
    cygrad.Size([2, 2])
    """
    x = _real(x, "rfftn")
    axes, s = _F.plan(x, s, axes, unique=False)
    norm = _F.check_norm(norm)
    if not _repeats(axes):
        return _F.r2c(x, s, axes, norm)
    # NumPy's order: the real transform along the last axis, then the others
    x = _F.r2c(x, s[-1:], axes[-1:], norm)
    return _c2c_nd(x, s[:-1], axes[:-1], norm, True)


def irfftn(x, /, s=None, axes=None, norm="backward"):
    """Inverse of :func:`rfftn` (the last axis gets ``2 * (m - 1)`` points unless
    ``s`` says otherwise).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.irfftn(cnp.fft.rfftn(cnp.ones((2, 3))), s=(2, 3)).tolist()
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """
    x = _complex(x)
    axes, s = _F.irfft_plan(x, s, axes, unique=False)
    norm = _F.check_norm(norm)
    if not _repeats(axes):
        return _F.c2r(x, s, axes, norm)
    # NumPy's order: the inverse complex transforms first, the real one last
    for a, n in zip(axes[:-1], s[:-1]):
        x = _F.c2c(x, [n], (a,), norm, False)
    return _F.c2r(x, s[-1:], axes[-1:], norm)


def rfft2(x, /, s=None, axes=(-2, -1), norm="backward"):
    """:func:`rfftn` over the last two axes.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.rfft2(cnp.ones((2, 2))).shape
    cygrad.Size([2, 2])
    """
    return rfftn(x, s, axes, norm)


def irfft2(x, /, s=None, axes=(-2, -1), norm="backward"):
    """:func:`irfftn` over the last two axes.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.irfft2(cnp.fft.rfft2(cnp.ones((2, 4)))).shape
    cygrad.Size([2, 4])
    """
    return irfftn(x, s, axes, norm)


def hfft(x, /, n=None, axis=-1, norm="backward"):
    """Transform of a Hermitian-symmetric signal given by its first half, to ``n``
    real points (``irfft`` of the conjugate with the norm's direction swapped).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.hfft(cnp.asarray([1.0, 0.0]), n=3).tolist()
    [1.0, 1.0, 1.0]
    """
    x = _complex(x)
    return irfft(cygrad.conj(x), n, axis, _F._DUAL[_F.check_norm(norm)])


def ihfft(x, /, n=None, axis=-1, norm="backward"):
    """Inverse of :func:`hfft` for a real signal: ``n // 2 + 1`` complex points.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.ihfft(cnp.ones(4)).real.tolist()
    [1.0, 0.0, 0.0]
    """
    x = _real(x, "ihfft")
    return cygrad.conj(rfft(x, n, axis, _F._DUAL[_F.check_norm(norm)]))


def _freq_dtype(dtype):
    return D.DEFAULT_FLOAT if dtype is None else D.as_dtype(dtype)


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """Sample frequencies of an ``n``-point transform with sample spacing ``d``
    (float64 by default).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.fftfreq(5, d=0.5).tolist()
    [0.0, 0.4, 0.8, -0.8, -0.4]
    """
    return _F.fftfreq(n, d, dtype=_freq_dtype(dtype), device=device)


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """The non-negative sample frequencies of an ``n``-point real transform.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.rfftfreq(5).tolist()
    [0.0, 0.2, 0.4]
    """
    return _F.rfftfreq(n, d, dtype=_freq_dtype(dtype), device=device)


def fftshift(x, /, axes=None):
    """Move the zero frequency to the centre (a roll by ``n // 2`` over ``axes``,
    all axes by default).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.fftshift(cnp.fft.fftfreq(4)).tolist()
    [-0.5, -0.25, 0.0, 0.25]
    """
    return _F.fftshift(tensor(x), axes)


def ifftshift(x, /, axes=None):
    """Inverse of :func:`fftshift`.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.fft.ifftshift(cnp.asarray([2, 0, 1])).tolist()
    [0, 1, 2]
    """
    return _F.ifftshift(tensor(x), axes)
