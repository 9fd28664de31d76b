"""``LinAlgError``: what a decomposition raises for a singular or non positive-definite
input, PyTorch's ``torch.linalg.LinAlgError``.

It is a ``RuntimeError`` as in PyTorch, and also NumPy's ``numpy.linalg.LinAlgError``
(a ``ValueError``), which ``cygrad.numpy.linalg`` raised before the two namespaces
shared their kernels: code written against either library catches it.

Examples
--------
>>> import cygrad
>>> try:
...     cygrad.linalg.inv(cygrad.zeros(2, 2))
... except cygrad.linalg.LinAlgError as e:
...     print(isinstance(e, RuntimeError), str(e)[:11])
True linalg.inv:
"""
import numpy as np


class LinAlgError(RuntimeError, np.linalg.LinAlgError):
    """Raised by the ``cygrad.linalg`` functions for an input they cannot factor (a
    singular matrix, a matrix that is not positive-definite)."""


LinAlgError.__module__ = "cygrad.linalg"
