"""``cygrad.autograd.profiler``: where PyTorch also offers ``record_function``.

The profiler itself is :mod:`cygrad.profiler`; this module re-exports its
``record_function`` under the older path, as ``torch.autograd.profiler`` does.

Examples
--------
>>> from cygrad.autograd.profiler import record_function
>>> with record_function("outside a profiler: does nothing"):
...     pass
"""
from ..profiler._record_function import record_function

__all__ = ["record_function"]
