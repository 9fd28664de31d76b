"""The CPU backend: fills the kernel table (:mod:`cygrad._core.dispatch`) with the
CPU's primitive kernels.

C kernels come from the compiled modules next to this file; where NumPy is still
the best CPU implementation of a primitive, the NumPy call lives here and nowhere
above the array layer.
"""
from .dispatch import register  # noqa: F401  (entries below register themselves)
