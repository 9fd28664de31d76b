"""Window functions (``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window``, ``kaiser_window``) with PyTorch's ``periodic=True`` default:
a periodic window of length ``L`` is the symmetric window of length ``L + 1``
without its last sample.  Computed with cygrad's elementwise ops in float64 and
cast to ``dtype`` (the default dtype when None), which must be floating.
"""
import math

from ..._core import dtype as _dt
from ..creation import arange

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


def _positions(name, window_length, periodic, dtype, device):
    """``(n, N)``: the sample positions 0..L-1 in float64 and the symmetric length."""
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window length, got "
                           f"window_length={window_length}")
    dt = _dt.get_default_dtype() if dtype is None else dtype
    if not dt.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dt}")
    n = arange(window_length, dtype=_dt.float64, device=device)
    return n, window_length + 1 if periodic else window_length, dt


def _cosine_sum(name, window_length, periodic, coeffs, dtype, device):
    n, N, dt = _positions(name, window_length, periodic, dtype, device)
    if window_length <= 1:
        return n.new_ones((window_length,)).to(dt)
    w = n.new_zeros((window_length,))
    for k, a in enumerate(coeffs):
        w = w + a * (2 * math.pi * k * n / (N - 1)).cos()
    return w.to(dt)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """``0.5 - 0.5 cos(2 pi n / (N - 1))``, as ``torch.hann_window``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.hann_window(4).tolist()
    [0.0, 0.5, 1.0, 0.5]
    """
    return _cosine_sum("hann_window", window_length, periodic, (0.5, -0.5), dtype,
                       device).requires_grad_(requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """``alpha - beta cos(2 pi n / (N - 1))``, as ``torch.hamming_window``.

    Examples
    --------
    >>> import cygrad
    >>> [round(v, 4) for v in cygrad.hamming_window(4).tolist()]
    [0.08, 0.54, 1.0, 0.54]
    """
    return _cosine_sum("hamming_window", window_length, periodic, (alpha, -beta), dtype,
                       device).requires_grad_(requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``, as
    ``torch.blackman_window``.

    Examples
    --------
    >>> import cygrad
    >>> [round(v, 4) for v in cygrad.blackman_window(3, periodic=False).tolist()]
    [-0.0, 1.0, -0.0]
    """
    return _cosine_sum("blackman_window", window_length, periodic, (0.42, -0.5, 0.08), dtype,
                       device).requires_grad_(requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The triangle ``1 - |2 n / (N - 1) - 1|``, as ``torch.bartlett_window``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.bartlett_window(5, periodic=False).tolist()
    [0.0, 0.5, 1.0, 0.5, 0.0]
    """
    n, N, dt = _positions("bartlett_window", window_length, periodic, dtype, device)
    if window_length <= 1:
        return n.new_ones((window_length,)).to(dt).requires_grad_(requires_grad)
    w = 1.0 - (2.0 * n / (N - 1) - 1.0).abs()
    return w.to(dt).requires_grad_(requires_grad)


def _i0(x):
    """The modified Bessel function I0 by its power series (float64; the window's
    arguments are at most ``beta``, where 200 terms are far past convergence)."""
    term = x.new_ones(tuple(x.shape))
    total = term
    q = (x / 2) * (x / 2)
    for k in range(1, 200):
        term = term * q / (k * k)
        total = total + term
    return total


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """``I0(beta sqrt(1 - (2 n / (N - 1) - 1)**2)) / I0(beta)``, as
    ``torch.kaiser_window``.

    Examples
    --------
    >>> import cygrad
    >>> [round(v, 4) for v in cygrad.kaiser_window(3, periodic=False, beta=1.0).tolist()]
    [0.7898, 1.0, 0.7898]
    """
    n, N, dt = _positions("kaiser_window", window_length, periodic, dtype, device)
    if window_length <= 1:
        return n.new_ones((window_length,)).to(dt).requires_grad_(requires_grad)
    r = 2.0 * n / (N - 1) - 1.0
    arg = (1.0 - r * r).clamp(min=0.0).sqrt() * beta
    w = _i0(arg) / _i0(n.new_full((), float(beta)))
    return w.to(dt).requires_grad_(requires_grad)
