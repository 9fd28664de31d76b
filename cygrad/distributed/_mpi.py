"""The one place that imports ``mpi4py``: lazily, because importing ``mpi4py.MPI``
starts MPI (``MPI_Init_thread``), which ``import cygrad`` must never do.

Everything else in :mod:`cygrad.distributed` asks this module for the ``MPI``
namespace, so a machine without the ``distributed`` extra can still import cygrad and
gets one clear error the moment it asks for a process group.
"""
import importlib.util

_INSTALL_HINT = ('install the "distributed" extra: pip install -e ".[distributed]" '
                 '(mpi4py and an MPI library from PyPI)')


def mpi4py_installed():
    """True if ``mpi4py`` can be imported (without importing it: that would start MPI)."""
    return importlib.util.find_spec("mpi4py") is not None


_MPI = None


def mpi():
    """The ``mpi4py.MPI`` module, importing (and so initialising MPI) on first use."""
    global _MPI
    if _MPI is None:
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise RuntimeError(f"cygrad.distributed needs mpi4py and an MPI library: "
                               f"{_INSTALL_HINT} ({e})") from e
        _MPI = MPI
    return _MPI


def library_version():
    """The MPI library's own version line (e.g. ``Open MPI v5.0.11 ...``)."""
    return mpi().Get_library_version().splitlines()[0].strip()
