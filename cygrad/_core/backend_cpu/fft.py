"""CPU kernels of the discrete Fourier transforms (``cygrad.fft``, ``cygrad.numpy.fft``).

NumPy's pocketfft is the CPU implementation: each kernel transforms a detached
view of its input over ``axes`` (the input already has the sizes to transform:
the op has padded or cropped it) with NumPy's ``norm`` names, and wraps the
result. complex64/float32 inputs stay in single precision. No kernel records
autograd: the Functions in ``cygrad/fft.py`` do.

Examples
--------
>>> import cygrad
>>> from cygrad._core.dispatch import kernel
>>> x = cygrad.tensor([1.0, 2.0, 3.0, 4.0], dtype=cygrad.float64)
>>> kernel("fft_r2c", "cpu")(x, (0,), "backward").tolist()
[(10+0j), (-2+2j), (-2+0j)]
>>> z = kernel("fft_c2c", "cpu")(x.to(cygrad.complex128), (0,), "backward", True)
>>> kernel("fft_c2r", "cpu")(z[:3], (0,), 4, "backward").tolist()
[1.0, 2.0, 3.0, 4.0]
"""
import numpy as np

from .. import tensor as _C
from ..dispatch import register


def _np(t):
    return t.detach().numpy()


def _t(a):
    a = np.asarray(a)
    return _C.from_numpy(a if a.flags.c_contiguous else a.copy())


@register("fft_c2c", "cpu")
def fft_c2c(x, axes, norm, forward):
    """The complex-to-complex transform of complex ``x`` over ``axes``: the forward
    (``exp(-2 pi i ...)``) one when ``forward``, else the inverse."""
    fn = np.fft.fftn if forward else np.fft.ifftn
    return _t(fn(_np(x), axes=axes, norm=norm))


@register("fft_r2c", "cpu")
def fft_r2c(x, axes, norm):
    """The forward transform of real ``x`` over ``axes``, the last of them halved
    (``n // 2 + 1`` non-negative frequencies)."""
    return _t(np.fft.rfftn(_np(x), axes=axes, norm=norm))


@register("fft_c2r", "cpu")
def fft_c2r(x, axes, n_last, norm):
    """The inverse transform of Hermitian-symmetric complex ``x`` (its last axis
    holds ``n_last // 2 + 1`` frequencies) to a real result of ``n_last`` points
    along ``axes[-1]``; the other axes keep their sizes."""
    a = _np(x)
    s = [a.shape[ax] for ax in axes[:-1]] + [n_last]
    return _t(np.fft.irfftn(a, s=s, axes=axes, norm=norm))
